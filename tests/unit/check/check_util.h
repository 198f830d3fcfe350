/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by test_mpa_check.c and test_ift_check.c: collecting
 * what a stream checker reports, segmentations (cuts) and feeding a
 * stream cut by them as the reassembler would, the segment verdicts a
 * cut implies. Before including it, name the checker's types and calls:
 *   CU_CHECK (checker), CU_REC (record), CU_EVENT, CU_KIND (event kind),
 *   CU_CODE (error code), CU_DATA, CU_GAP, CU_END (its _data, _gap, _end);
 *   optionally CU_COLL_EXTRA (more members of coll).
 */
#ifndef DW_TEST_CHECK_UTIL_H
#define DW_TEST_CHECK_UTIL_H

#include "test.h"

static int quick;

/* ------------------------------------------------------------------ */
/* What the checker reported                                           */
/* ------------------------------------------------------------------ */

typedef struct rec {
    CU_REC f;
    uint8_t head[256];
} rec;

typedef struct evrec {
    CU_KIND kind;
    CU_CODE code;
    uint64_t off, len, pkt;
    uint32_t seq;
    char detail[200];
} evrec;

#ifndef CU_COLL_EXTRA
#define CU_COLL_EXTRA
#endif

typedef struct coll {
    rec *r;
    size_t nr, cap;
    evrec ev[256];
    size_t nev, nev_all;
    int reenter;                /* calls back into the checker */
    int reenter_rc;
    CU_COLL_EXTRA
} coll;

static void on_rec(CU_CHECK *c, const CU_REC *f, void *u)
{
    coll *k = u;
    (void)c;
    if (k->nr == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 256;
        k->r = realloc(k->r, k->cap * sizeof *k->r);
    }
    rec *r = &k->r[k->nr++];
    r->f = *f;
    memcpy(r->head, f->head, f->head_len);
    r->f.head = NULL;
}

static void on_event(CU_CHECK *c, const CU_EVENT *ev, void *u)
{
    coll *k = u;
    if (k->reenter)
        k->reenter_rc = CU_DATA(c, (const uint8_t *)"x", 1, NULL);
    k->nev_all++;
    if (k->nev == 256)
        return;
    evrec *e = &k->ev[k->nev++];
    e->kind = ev->kind;
    e->code = ev->code;
    e->off = ev->offset;
    e->len = ev->len;
    e->pkt = ev->pkt;
    e->seq = ev->seq;
    snprintf(e->detail, sizeof e->detail, "%s", ev->detail ? ev->detail : "");
}

static void coll_free(coll *k)
{
    free(k->r);
    memset(k, 0, sizeof *k);
}

static size_t count_ev(const coll *k, CU_KIND kind)
{
    size_t n = 0;
    for (size_t i = 0; i < k->nev; i++)
        n += k->ev[i].kind == kind;
    return n;
}

static const evrec *find_ev(const coll *k, CU_KIND kind)
{
    for (size_t i = 0; i < k->nev; i++)
        if (k->ev[i].kind == kind)
            return &k->ev[i];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Segmentations and feeding                                           */
/* ------------------------------------------------------------------ */

#define SEQ0 0xfffff000u /* sequence numbers wrap inside the streams */

typedef struct segs {
    size_t *cut; /* segment start offsets, cut[0] = 0 */
    size_t n;
} segs;

static void segs_fixed(segs *g, size_t len, size_t size)
{
    g->n = 0;
    g->cut = malloc((len / size + 2) * sizeof(size_t));
    for (size_t o = 0; o < len || !g->n; o += size)
        g->cut[g->n++] = o;
}

static void segs_random(segs *g, size_t len, uint64_t *seed, size_t maxseg)
{
    g->n = 0;
    g->cut = malloc((len + 2) * sizeof(size_t));
    for (size_t o = 0; o < len || !g->n; o += 1 + dw_rand(seed) % maxseg)
        g->cut[g->n++] = o;
}

static size_t seg_of(const segs *g, size_t off)
{
    size_t lo = 0, hi = g->n; /* last cut <= off */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (g->cut[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int is_cut(const segs *g, size_t off)
{
    return g->cut[seg_of(g, off)] == off;
}

static size_t seg_end(const segs *g, size_t j, size_t len)
{
    return j + 1 < g->n ? g->cut[j + 1] : len;
}

/* Feeds b (len octets) cut by g as the reassembler would, [ha, hb)
 * missing (a gap), ending at end; split: some segments as two chunks. */
static void feed_b(CU_CHECK *c, const uint8_t *b, size_t len, const segs *g,
                   size_t ha, size_t hb, size_t end, int split, uint64_t *seed)
{
    size_t o = 0;
    while (o < end) {
        if (o == ha && hb > ha) {
            dw_reasm_gap gp = {ha, SEQ0 + (uint32_t)ha, hb - ha, DW_REASM_GAP_LOST, 0};
            CHECK(CU_GAP(c, &gp) == 0);
            o = hb;
            continue;
        }
        size_t j = seg_of(g, o), se = seg_end(g, j, len), pe = se;
        if (ha > o && ha < pe)
            pe = ha;
        if (end < pe)
            pe = end;
        if (split && pe - o >= 2 && dw_rand(seed) % 2)
            pe = o + 1 + dw_rand(seed) % (pe - o - 1);
        dw_reasm_chunk ch = {o, SEQ0 + (uint32_t)o, j + 1, SEQ0 + (uint32_t)g->cut[j],
                             (uint32_t)(se - g->cut[j]), o == g->cut[j], pe == se};
        CHECK(CU_DATA(c, b + o, pe - o, &ch) == 0);
        o = pe;
    }
    CHECK(CU_END(c) == 0);
}

/* ------------------------------------------------------------------ */
/* Segment verdicts from the cuts                                      */
/* ------------------------------------------------------------------ */

/* Record f of the octets [at, at + len) of a stream of total octets
 * (first: no record before it); its segments from g. */
static void check_segs(const CU_REC *f, const segs *g, size_t at, size_t len,
                       int first, size_t total)
{
    size_t a = seg_of(g, at), z = seg_of(g, at + len - 1);
    CHECK_EQ_U(f->first_pkt, a + 1);
    CHECK_EQ_U(f->last_pkt, z + 1);
    CHECK_EQ_U(f->segments, z - a + 1);
    CHECK_EQ_U(f->aligned, is_cut(g, at));
    int packed = (!is_cut(g, at) && !first) || (at + len < total && !is_cut(g, at + len));
    CHECK_EQ_U(f->packed, packed);
}

/* seg_with_start and seg_packed of n records [at[i], end[i]) in a stream
 * of len octets, counted from the cuts. */
static void check_seg_counts(uint64_t with_start, uint64_t seg_packed, const segs *g,
                             size_t len, size_t n, const size_t *at, const size_t *end)
{
    uint64_t with = 0, packed = 0;
    size_t i = 0;
    for (size_t j = 0; j < g->n; j++) {
        size_t a = g->cut[j], b = seg_end(g, j, len);
        while (i < n && end[i] <= a)
            i++;
        size_t starts = 0, touch = 0;
        for (size_t x = i; x < n && at[x] < b; x++) {
            touch++;
            starts += at[x] >= a;
        }
        with += starts > 0;
        packed += starts > 0 && touch > 1;
    }
    CHECK_EQ_U(with_start, with);
    CHECK_EQ_U(seg_packed, packed);
}

#endif
