/* SPDX-License-Identifier: MIT */
/*
 * TCP reassembler for capture dissection: every callback is judged on
 * the spot against an independent model (per stream octet: its first
 * captured arrival, its first cut arrival, when it was passed on), so
 * delivered octets and their segment tags, gap kinds and places, and the
 * RETRANSMIT/OVERLAP/MISMATCH verdicts must agree with the model under
 * every segmentation, random cuts, reordering, duplication, re-cut and
 * altered retransmissions, sequence wrap, loss, snap lengths and tiny
 * stores; then hand-made cases for SYN/FIN/RST, windows, flush and API.
 */
#include <ddpwire/pkt.h>
#include <ddpwire/reasm.h>

#include "test.h"

#define NMAX 65536 /* longest modelled stream */
#define NONE (-1)

static int quick(void)
{
    return getenv("DW_TEST_QUICK") != NULL;
}

/* A captured segment: stream offset of its first payload octet (the SYN
 * sits at off - 1), wire length, captured length, payload. */
typedef struct tseg {
    int64_t off;
    uint32_t len, cap;
    uint8_t flags;
    const uint8_t *p;
} tseg;

typedef struct harness {
    dw_reasm *r;
    uint32_t isn; /* sequence number of offset 0 */
    const tseg *seg;
    size_t nseg;
    int64_t t;        /* feed index now (nseg: flush) */
    const tseg *cur;  /* segment being fed, or NULL */
    /* the model, per stream octet */
    int64_t cap_t[NMAX], any_t[NMAX], out_t[NMAX];
    uint64_t cap_pkt[NMAX], cut_pkt[NMAX];
    uint8_t cap_v[NMAX], out_v[NMAX];
    int64_t fin; /* model FIN, NONE */
    uint64_t pos, lost, snap, delivered, end;
    unsigned bad, nev, nmm, ndrop;
    int plain; /* hand-made cases: record, judge nothing */
    dw_reasm_event ev[16];
    dw_reasm_gap last_gap;
} harness;

static harness H;

static uint32_t seg_seq(const harness *h, const tseg *s)
{
    return h->isn + (uint32_t)s->off - (s->flags & DW_PKT_SYN ? 1u : 0u);
}

static int captures(const tseg *s, uint64_t o)
{
    return s && (int64_t)o >= s->off && (int64_t)o < s->off + s->cap;
}

static int covers(const tseg *s, uint64_t o)
{
    return s && (int64_t)o >= s->off && (int64_t)o < s->off + s->len;
}

static uint64_t cur_pkt(const harness *h)
{
    return h->cur ? (uint64_t)(h->cur - h->seg) : UINT64_MAX;
}

/* One delivered octet against the model's first captured arrival. */
static int data_ok(harness *h, uint64_t o, uint8_t v, uint64_t pkt)
{
    if (o >= NMAX)
        return 0;
    if (h->cap_t[o] != NONE)
        return v == h->cap_v[o] && pkt == h->cap_pkt[o];
    return captures(h->cur, o) && v == h->cur->p[o - (uint64_t)h->cur->off] &&
           pkt == cur_pkt(h);
}

static void on_data(dw_reasm *r, const uint8_t *d, size_t len, const dw_reasm_chunk *c,
                    void *u)
{
    harness *h = u;
    (void)r;
    if (h->plain) {
        for (size_t i = 0; i < len && c->offset + i < NMAX; i++)
            h->out_v[c->offset + i] = d[i];
        h->pos += len;
        h->delivered += len;
        return;
    }
    CHECK_EQ_U(c->offset, h->pos);
    CHECK_EQ_U(c->seq, h->isn + (uint32_t)c->offset);
    CHECK(len > 0 && c->pkt < h->nseg);
    if (c->pkt >= h->nseg)
        return;
    const tseg *s = &h->seg[c->pkt];
    CHECK_EQ_U(c->seg_seq, h->isn + (uint32_t)s->off);
    CHECK_EQ_U(c->seg_len, s->len);
    CHECK_EQ_U(!!c->seg_start, (int64_t)c->offset == s->off);
    CHECK_EQ_U(!!c->seg_end, (int64_t)(c->offset + len) == s->off + s->len);
    if (h->cur == s) /* in-order data comes straight from the payload */
        CHECK(d == s->p + (c->offset - (uint64_t)s->off));
    int ok = 1;
    for (size_t i = 0; i < len && c->offset + i < NMAX; i++) {
        uint64_t o = c->offset + i;
        ok &= data_ok(h, o, d[i], c->pkt);
        h->out_t[o] = h->t;
        h->out_v[o] = d[i];
    }
    h->bad += !ok;
    h->pos += len;
    h->delivered += len;
}

static int gap_ok(harness *h, uint64_t o, const dw_reasm_gap *g)
{
    if (o >= NMAX)
        return 0;
    if (g->kind == DW_REASM_GAP_LOST)
        return h->any_t[o] == NONE && !covers(h->cur, o) && g->pkt == cur_pkt(h);
    if (h->cap_t[o] != NONE || captures(h->cur, o))
        return 0;
    if (h->any_t[o] != NONE)
        return g->pkt == h->cut_pkt[o];
    return covers(h->cur, o) && g->pkt == cur_pkt(h);
}

static void on_gap(dw_reasm *r, const dw_reasm_gap *g, void *u)
{
    harness *h = u;
    (void)r;
    int ok = 1;
    for (uint64_t i = 0; !h->plain && i < g->len && g->offset + i < NMAX; i++) {
        uint64_t o = g->offset + i;
        ok &= gap_ok(h, o, g);
        h->out_t[g->offset + i] = h->t;
    }
    h->bad += !ok;
    if (!h->plain) {
        CHECK_EQ_U(g->offset, h->pos);
        CHECK_EQ_U(g->seq, h->isn + (uint32_t)g->offset);
        CHECK(g->len > 0 && g->len <= NMAX);
    }
    h->last_gap = *g;
    h->pos += g->len;
    *(g->kind == DW_REASM_GAP_LOST ? &h->lost : &h->snap) += g->len;
}

static void on_event(dw_reasm *r, const dw_reasm_event *e, void *u)
{
    harness *h = u;
    (void)r;
    if (h->nev < 16)
        h->ev[h->nev++] = *e;
}

static const dw_reasm_callbacks CB = {on_data, on_gap, on_event};

static int has_ev(const harness *h, dw_reasm_event_kind k)
{
    for (unsigned i = 0; i < h->nev; i++)
        if (h->ev[i].kind == k)
            return (int)i + 1;
    return 0;
}

/* What the model expects of the segment about to be fed. */
typedef struct expect {
    uint64_t old, fresh;
    int64_t mm; /* first octet differing from a held one, NONE */
} expect;

static expect predict(harness *h, const tseg *s)
{
    expect x = {0, 0, NONE};
    int64_t we = s->off + s->len;
    if ((s->flags & DW_PKT_FIN) && h->fin == NONE && we >= (int64_t)h->pos)
        h->fin = we;
    if (h->fin != NONE && we > h->fin)
        we = h->fin;
    for (int64_t o = s->off < 0 ? 0 : s->off; o < we; o++) {
        int cap = captures(s, (uint64_t)o);
        int held = h->cap_t[o] != NONE || (h->any_t[o] != NONE && !cap);
        if (h->out_t[o] != NONE || held)
            x.old++;
        else
            x.fresh++;
        if (cap && h->out_t[o] == NONE && h->cap_t[o] != NONE && x.mm == NONE &&
            h->cap_v[o] != s->p[o - s->off])
            x.mm = o;
    }
    return x;
}

static void judge(harness *h, const tseg *s, const expect *x)
{
    CHECK_EQ_U(!!has_ev(h, DW_REASM_EV_RETRANSMIT), x->old && !x->fresh);
    CHECK_EQ_U(!!has_ev(h, DW_REASM_EV_OVERLAP), x->old && x->fresh);
    int m = has_ev(h, DW_REASM_EV_MISMATCH);
    CHECK_EQ_U(!!m, x->mm != NONE);
    if (m && x->mm != NONE) {
        const dw_reasm_event *e = &h->ev[m - 1];
        CHECK_EQ_U(e->offset, x->mm);
        CHECK_EQ_U(e->seq, h->isn + (uint32_t)e->offset);
        CHECK(e->len >= 1 && (int64_t)(e->offset + e->len) <= s->off + s->cap);
        for (uint64_t o = e->offset; o < e->offset + e->len && o < NMAX; o++)
            h->bad += h->cap_v[o] == s->p[o - (uint64_t)s->off];
    }
    if (has_ev(h, DW_REASM_EV_OUT_OF_ORDER))
        CHECK(x->fresh > 0);
}

static void learn(harness *h, const tseg *s)
{
    uint64_t pkt = (uint64_t)(s - h->seg);
    int64_t we = s->off + s->len;
    if (h->fin != NONE && we > h->fin)
        we = h->fin;
    for (int64_t o = s->off < 0 ? 0 : s->off; o < we; o++) {
        if (h->any_t[o] == NONE)
            h->any_t[o] = h->t;
        if (captures(s, (uint64_t)o) && h->cap_t[o] == NONE) {
            h->cap_t[o] = h->t;
            h->cap_v[o] = s->p[o - s->off];
            h->cap_pkt[o] = pkt;
        } else if (!captures(s, (uint64_t)o) && h->cut_pkt[o] == UINT64_MAX) {
            h->cut_pkt[o] = pkt;
        }
    }
    if (s->len && we > 0 && (uint64_t)we > h->end)
        h->end = (uint64_t)we;
}

static void reset(harness *h, uint32_t isn, const tseg *seg, size_t nseg)
{
    int64_t top = 0; /* the model is reset as far as the segments reach */
    for (size_t i = 0; i < nseg; i++)
        if (seg[i].off + (int64_t)seg[i].len > top)
            top = seg[i].off + (int64_t)seg[i].len;
    for (size_t i = 0; i < NMAX && (int64_t)i < top; i++) {
        h->cap_t[i] = h->any_t[i] = h->out_t[i] = NONE;
        h->cut_pkt[i] = UINT64_MAX;
    }
    h->isn = isn;
    h->seg = seg;
    h->nseg = nseg;
    h->fin = NONE;
    h->pos = h->lost = h->snap = h->delivered = h->end = 0;
    h->bad = h->nmm = h->ndrop = 0;
    h->plain = 0;
}

static void feed_one(harness *h, size_t i)
{
    const tseg *s = &h->seg[i];
    h->t = (int64_t)i;
    h->cur = s;
    h->nev = 0;
    expect x = predict(h, s);
    CHECK_EQ_U(dw_reasm_feed(h->r, i, seg_seq(h, s), s->flags, s->p, s->cap, s->len), 0);
    judge(h, s, &x);
    h->nmm += !!has_ev(h, DW_REASM_EV_MISMATCH);
    if (has_ev(h, DW_REASM_EV_DROPPED))
        h->ndrop++;
    else
        learn(h, s);
}

/* Feeds seg[] in order, flushes, and checks coverage and counters. */
static void run(harness *h, const dw_reasm_settings *set, uint32_t isn, const tseg *seg,
                size_t nseg)
{
    reset(h, isn, seg, nseg);
    CHECK_EQ_U(dw_reasm_new(&h->r, set, &CB, h), 0);
    if (!h->r)
        return;
    for (size_t i = 0; i < nseg; i++)
        feed_one(h, i);
    h->t = (int64_t)nseg;
    h->cur = NULL;
    CHECK_EQ_U(dw_reasm_flush(h->r), 0);
    if (h->fin != NONE)
        h->end = (uint64_t)h->fin;
    CHECK_EQ_U(h->pos, h->end);
    CHECK_EQ_U(dw_reasm_offset(h->r), h->end);
    CHECK_EQ_U(h->bad, 0);
    dw_reasm_stats st;
    dw_reasm_stats_get(h->r, &st);
    CHECK_EQ_U(st.segments, nseg);
    CHECK_EQ_U(st.delivered, h->delivered);
    CHECK_EQ_U(st.gap_octets, h->lost + h->snap);
    CHECK_EQ_U(st.held, 0);
    CHECK_EQ_U(st.mismatches, h->nmm);
    CHECK_EQ_U(st.dropped, h->ndrop);
    CHECK(st.held_peak <= (set ? set->store_bytes : 262144));
    dw_reasm_del(h->r);
    h->r = NULL;
}

/* ---- segment lists ------------------------------------------------------- */

static uint8_t SRC[NMAX], ALT[NMAX], PART[NMAX];
static tseg SEGS[4 * NMAX];

static void fill_src(uint64_t *rng)
{
    for (size_t i = 0; i < NMAX; i++) {
        SRC[i] = (uint8_t)dw_rand(rng);
        ALT[i] = (uint8_t)(SRC[i] ^ 0x5A);
        PART[i] = i % 7 == 3 ? ALT[i] : SRC[i];
    }
}

static tseg mk(int64_t off, uint32_t len, const uint8_t *buf)
{
    tseg s = {off, len, len, 0, buf + off};
    return s;
}

/* A SYN, then n octets cut into pieces of min..max. */
static size_t cut(size_t n, uint32_t min, uint32_t max, uint64_t *rng, tseg *out)
{
    size_t k = 0;
    tseg syn = {0, 0, 0, DW_PKT_SYN, SRC};
    out[k++] = syn;
    for (size_t o = 0; o < n;) {
        uint32_t l = min + (uint32_t)(dw_rand(rng) % (max - min + 1));
        if (l > n - o)
            l = (uint32_t)(n - o);
        out[k++] = mk((int64_t)o, l, SRC);
        o += l;
    }
    return k;
}

static void shuffle_near(tseg *s, size_t from, size_t n, size_t w, uint64_t *rng)
{
    for (size_t i = from; i + 1 < n; i++) {
        size_t j = i + (size_t)(dw_rand(rng) % w);
        if (j < n) {
            tseg t = s[i];
            s[i] = s[j];
            s[j] = t;
        }
    }
}

/* ---- the tests ------------------------------------------------------------------ */

/* Every segment size in order: exact stream, zero copy, nothing held. */
static void test_every_segmentation(void)
{
    uint64_t rng = dw_test_seed();
    fill_src(&rng);
    size_t n = quick() ? 8192 : NMAX;
    uint32_t sizes[128];
    size_t ns = 0;
    for (uint32_t l = 1; l <= 64; l++)
        sizes[ns++] = l;
    for (uint32_t p = 128; p <= n; p *= 2)
        for (uint32_t d = 0; d < 3; d++)
            sizes[ns++] = p - 1 + d;
    for (size_t i = 0; i < ns; i++) {
        uint32_t l = sizes[i];
        size_t k = cut(n, l, l, &rng, SEGS);
        run(&H, NULL, 0x12345678u + l, SEGS, k);
        CHECK_EQ_U(H.delivered, n);
        CHECK_EQ_U(H.lost + H.snap, 0);
        CHECK(memcmp(H.out_v, SRC, n) == 0);
    }
}

/* Random cuts, reordering, duplicates, re-cut and altered retransmissions,
 * snap lengths, loss, wrap; all stores from none to plenty. */
static void test_random(void)
{
    uint64_t rng = dw_test_seed() ^ 0xABCDEF;
    fill_src(&rng);
    static const size_t stores[] = {262144, 262144, 4096, 1000, 1, 0};
    static const size_t helds[] = {1024, 3, 64, 2, 1, 0};
    int iters = quick() ? 200 : 1500;
    uint64_t tot[4] = {0, 0, 0, 0};
    for (int it = 0; it < iters; it++) {
        size_t n = 1 + (size_t)(dw_rand(&rng) % (it % 4 ? 6000 : NMAX));
        size_t k = cut(n, 1, 1 + (uint32_t)(dw_rand(&rng) % 2000), &rng, SEGS);
        unsigned mode = (unsigned)(dw_rand(&rng) % 8);
        size_t extra = mode & 1 ? k / 2 : 0;
        for (size_t i = 0; i < extra; i++) { /* re-cut copies */
            size_t a = (size_t)(dw_rand(&rng) % n);
            uint32_t l = 1 + (uint32_t)(dw_rand(&rng) % 1500);
            if (l > n - a)
                l = (uint32_t)(n - a);
            const uint8_t *b = mode & 2 ? (i & 1 ? ALT : PART) : SRC;
            SEGS[k++] = mk((int64_t)a, l, b);
        }
        shuffle_near(SEGS, 1, k, 1 + (size_t)(dw_rand(&rng) % 40), &rng);
        for (size_t i = 1; i < k; i++) {
            if ((mode & 4) && dw_rand(&rng) % 10 == 0)
                SEGS[i].len = SEGS[i].cap = 0; /* lost: a bare ACK */
            if (mode > 4 && SEGS[i].len && dw_rand(&rng) % 4 == 0)
                SEGS[i].cap = (uint32_t)(dw_rand(&rng) % SEGS[i].len);
        }
        size_t si = (size_t)(dw_rand(&rng) % 6);
        dw_reasm_settings set = {stores[si], helds[si], NULL};
        uint32_t isn = it % 3 ? 0xFFFFFF00u + (uint32_t)(dw_rand(&rng) % 512)
                              : (uint32_t)dw_rand(&rng);
        run(&H, &set, isn, SEGS, k);
        tot[0] += H.lost, tot[1] += H.snap, tot[2] += H.ndrop, tot[3] += H.nmm;
        if (si == 0 && mode < 4) { /* nothing lost: all here */
            CHECK_EQ_U(H.delivered, n);
            CHECK_EQ_U(H.ndrop + H.lost + H.snap, 0);
            if (!(mode & 2))
                CHECK(memcmp(H.out_v, SRC, n) == 0);
        }
    }
    CHECK(tot[0] && tot[1] && tot[2] && tot[3]); /* each case was reached */
}

/* Gaps exactly where segments are missing, reported by flush. */
static void test_loss_exact(void)
{
    tseg s[] = {{0, 0, 0, DW_PKT_SYN, SRC}, mk(0, 100, SRC), mk(300, 50, SRC),
                mk(150, 50, SRC), mk(400, 10, SRC)};
    run(&H, NULL, 7, s, 5);
    CHECK_EQ_U(H.lost, 100 + 50 + 50);
    CHECK_EQ_U(H.delivered, 210);
    CHECK_EQ_U(H.out_t[100], 5); /* given up at flush */
    CHECK_EQ_U(H.out_t[99], 1);
    CHECK_EQ_U(H.out_t[409], 5);
}

/* Tiny stores: give up the hole before the earliest held segment. */
static void test_store_full(void)
{
    dw_reasm_settings set = {100, 2, NULL};
    tseg s[] = {{0, 0, 0, DW_PKT_SYN, SRC}, mk(0, 10, SRC), mk(20, 10, SRC),
                mk(40, 10, SRC), mk(60, 10, SRC), mk(200, 10, SRC), mk(10, 10, SRC)};
    run(&H, &set, 1000, s, 7);
    /* seg 4 (3rd held) gives up [10,20), delivers 20..30, then holds */
    CHECK_EQ_U(H.out_t[10], 4);
    CHECK_EQ_U(H.out_t[25], 4);
    CHECK_EQ_U(H.out_t[40], 5); /* seg 5: 200 > 30 + 100; gives up [30,40) */
    CHECK_EQ_U(H.ndrop, 1);     /* then still 210 > 50 + 100: dropped */
    CHECK(has_ev(&H, DW_REASM_EV_RETRANSMIT)); /* seg 6: all old */
    CHECK_EQ_U(H.end, 70);
    dw_reasm_settings none = {0, 0, NULL};
    tseg u[] = {{0, 0, 0, DW_PKT_SYN, SRC}, mk(50, 10, SRC), mk(0, 10, SRC)};
    run(&H, &none, 0, u, 3);
    CHECK_EQ_U(H.lost, 50);
    CHECK_EQ_U(H.out_t[0], 1);
    CHECK_EQ_U(H.delivered, 10);
}

/* Snap length: the cut tail is a gap when reached; a full copy that
 * arrives while the cut segment is held fills it. */
static void test_snaplen(void)
{
    tseg s[] = {{0, 0, 0, DW_PKT_SYN, SRC}, {0, 100, 40, 0, SRC}, mk(40, 60, SRC),
                mk(100, 10, SRC)};
    run(&H, NULL, 5, s, 4);
    CHECK_EQ_U(H.snap, 60);
    CHECK_EQ_U(H.delivered, 50);
    CHECK(has_ev(&H, DW_REASM_EV_RETRANSMIT) == 0); /* seg 3 is new */
    tseg u[] = {{0, 0, 0, DW_PKT_SYN, SRC}, {50, 100, 40, 0, SRC}, mk(60, 60, SRC),
                mk(0, 50, SRC)};
    run(&H, NULL, 5, u, 4);
    CHECK_EQ_U(H.snap, 30); /* 120..150 cut, never filled */
    CHECK_EQ_U(H.delivered, 120);
    CHECK_EQ_U(H.last_gap.pkt, 1);
    CHECK_EQ_U(H.out_t[95], 3);
    /* a copy that forces a give-up still fills the cut it lands in */
    dw_reasm_settings two = {262144, 2, NULL};
    tseg v[] = {{0, 0, 0, DW_PKT_SYN, SRC}, {50, 100, 20, 0, SRC}, mk(100, 20, SRC)};
    run(&H, &two, 5, v, 3);
    CHECK_EQ_U(H.lost, 50);
    CHECK_EQ_U(H.snap, 60);
    CHECK_EQ_U(H.delivered, 40);
    CHECK_EQ_U(H.out_t[119], 2);
}

/* Collects events only (for hand-made cases without the model). */
static void run_plain(const tseg *s, size_t n, uint32_t isn, const dw_reasm_settings *set,
                      dw_reasm_stats *st)
{
    reset(&H, isn, s, n);
    H.plain = 1;
    CHECK_EQ_U(dw_reasm_new(&H.r, set, &CB, &H), 0);
    for (size_t i = 0; i < n; i++) {
        H.t = (int64_t)i;
        H.cur = &s[i];
        CHECK_EQ_U(dw_reasm_feed(H.r, i, seg_seq(&H, &s[i]), s[i].flags, s[i].p,
                                 s[i].cap, s[i].len), 0);
    }
    dw_reasm_stats_get(H.r, st);
}

/* Many wraps of 2^32: offsets keep counting, seq follows modulo 2^32.
 * Each step jumps 2^31 - 2 ahead: that far segment alone is dropped; a
 * second one just before it confirms the jump, and the hole up to the
 * second is given up. */
static void test_wrap_many(void)
{
    dw_reasm_settings none = {0, 0, NULL};
    const uint64_t X = 0x7FFFFFFEULL;
    tseg s[23];
    s[0] = (tseg){0, 0, 0, DW_PKT_SYN, SRC};
    for (int i = 1; i < 12; i++) {
        s[2 * i - 1] = (tseg){(int64_t)(i * X), 8, 8, 0, SRC};
        s[2 * i] = (tseg){(int64_t)(i * X - 8), 8, 8, 0, SRC};
    }
    dw_reasm_stats st;
    run_plain(s, 23, 0xFFFFFFF0u, &none, &st);
    CHECK_EQ_U(dw_reasm_offset(H.r), 11 * X);
    CHECK_EQ_U(H.last_gap.seq, 0xFFFFFFF0u + (uint32_t)(10 * X));
    CHECK_EQ_U(H.last_gap.offset, 10 * X);
    CHECK_EQ_U(st.delivered, 88);
    CHECK_EQ_U(st.dropped, 11);
    CHECK_EQ_U(st.gap_octets, 11 * (X - 8));
    dw_reasm_del(H.r);
    H.r = NULL;
}

/* Retransmission, overlap and mismatch verdicts, hand-checked. */
static void test_verdicts(void)
{
    tseg s[] = {{0, 0, 0, DW_PKT_SYN, SRC}, mk(100, 50, SRC), mk(110, 10, ALT),
                mk(140, 20, PART), mk(0, 10, SRC), mk(5, 10, ALT), mk(0, 100, SRC)};
    reset(&H, 77, s, 7);
    CHECK_EQ_U(dw_reasm_new(&H.r, NULL, &CB, &H), 0);
    for (size_t i = 0; i < 7; i++) {
        feed_one(&H, i);
        if (i == 2) { /* all held, all differ */
            CHECK(has_ev(&H, DW_REASM_EV_RETRANSMIT));
            CHECK_EQ_U(H.ev[has_ev(&H, DW_REASM_EV_MISMATCH) - 1].offset, 110);
            CHECK_EQ_U(H.ev[has_ev(&H, DW_REASM_EV_MISMATCH) - 1].len, 10);
        }
        if (i == 3) { /* 140..150 held (145 differs), 150..160 new */
            CHECK(has_ev(&H, DW_REASM_EV_OVERLAP));
            CHECK(has_ev(&H, DW_REASM_EV_OUT_OF_ORDER));
            CHECK_EQ_U(H.ev[has_ev(&H, DW_REASM_EV_MISMATCH) - 1].offset, 143);
            CHECK_EQ_U(H.ev[has_ev(&H, DW_REASM_EV_MISMATCH) - 1].len, 1);
        }
        if (i == 5) /* 5..10 delivered: cannot compare; 10..15 new */
            CHECK(has_ev(&H, DW_REASM_EV_OVERLAP) && !has_ev(&H, DW_REASM_EV_MISMATCH));
    }
    CHECK_EQ_U(H.pos, 160);
    CHECK_EQ_U(H.bad, 0);
    CHECK(memcmp(H.out_v + 100, SRC + 100, 50) == 0); /* first arrival kept */
    CHECK(memcmp(H.out_v + 150, PART + 150, 10) == 0);
    CHECK(memcmp(H.out_v + 10, ALT + 10, 5) == 0);
    dw_reasm_del(H.r);
    H.r = NULL;
}

static void test_syn_fin_rst(void)
{
    dw_reasm_stats st;
    /* SYN with data: the data starts at seq + 1 */
    tseg a[] = {{0, 5, 5, DW_PKT_SYN, SRC}, mk(5, 5, SRC)};
    run_plain(a, 2, 0xFFFFFFFFu, NULL, &st);
    CHECK_EQ_U(H.pos, 10);
    CHECK(memcmp(H.out_v, SRC, 10) == 0);
    CHECK(dw_reasm_started(H.r));
    dw_reasm_del(H.r);
    /* FIN ends the stream; later payload beyond it is AFTER_FIN */
    tseg b[] = {{0, 0, 0, DW_PKT_SYN, SRC}, {0, 10, 10, DW_PKT_FIN, SRC},
                mk(5, 10, SRC)};
    run_plain(b, 3, 100, NULL, &st);
    CHECK(has_ev(&H, DW_REASM_EV_AFTER_FIN) && has_ev(&H, DW_REASM_EV_RETRANSMIT));
    CHECK_EQ_U(H.pos, 10);
    dw_reasm_del(H.r);
    /* a FIN ahead: flush gives up to it; RST is reported */
    tseg c[] = {{0, 0, 0, DW_PKT_SYN, SRC}, {20, 0, 0, DW_PKT_FIN, SRC}, mk(0, 5, SRC),
                {5, 0, 0, DW_PKT_RST, SRC}};
    run_plain(c, 4, 100, NULL, &st);
    CHECK(has_ev(&H, DW_REASM_EV_RST));
    CHECK_EQ_U(dw_reasm_flush(H.r), 0);
    CHECK_EQ_U(H.pos, 20);
    CHECK_EQ_U(H.lost, 15);
    dw_reasm_del(H.r);
    /* a held segment beyond a late FIN is cut back */
    tseg d[] = {{0, 0, 0, DW_PKT_SYN, SRC}, mk(10, 20, SRC), {0, 0, 0, 0, SRC},
                {0, 15, 15, DW_PKT_FIN, SRC}};
    run_plain(d, 4, 100, NULL, &st);
    CHECK(has_ev(&H, DW_REASM_EV_AFTER_FIN));
    CHECK_EQ_U(H.pos, 15);
    CHECK_EQ_U(st.held, 0);
    CHECK_EQ_U(st.segments, 4);
    dw_reasm_del(H.r);
    H.r = NULL;
}

static void test_windows(void)
{
    dw_reasm_stats st;
    /* no SYN: the first data sets the start; earlier data is out of window */
    tseg a[] = {mk(100, 10, SRC), mk(90, 10, SRC), mk(95, 20, SRC), mk(110, 5, SRC)};
    run_plain(a, 4, 0, NULL, &st);
    CHECK_EQ_U(H.pos, 15);
    CHECK_EQ_U(st.delivered, 15);
    dw_reasm_del(H.r);
    /* a second SYN with another ISN is reported and ignored */
    tseg b[] = {{0, 0, 0, DW_PKT_SYN, SRC}, {500, 10, 10, DW_PKT_SYN, SRC},
                mk(0, 10, SRC)};
    run_plain(b, 3, 0x80000000u, NULL, &st);
    CHECK(has_ev(&H, DW_REASM_EV_SYN));
    CHECK_EQ_U(H.pos, 10);
    CHECK_EQ_U(st.out_of_order, 0);
    dw_reasm_del(H.r);
    /* pure ACKs before anything: counted, stream not started */
    tseg c[] = {{0, 0, 0, 0, SRC}, {7, 0, 0, DW_PKT_ACK, SRC}};
    run_plain(c, 2, 0, NULL, &st);
    CHECK(!dw_reasm_started(H.r));
    CHECK_EQ_U(st.segments, 2);
    dw_reasm_del(H.r);
    /* hostile: 2^31 ahead is behind (before the start); 2^31 - 1 ahead is
     * ahead, beyond the store and 1 MiB: alone (a corrupt sequence
     * number) it is dropped and the stream goes on */
    tseg d[] = {mk(0, 1, SRC), {0x80000001LL, 1, 1, 0, SRC}, {0x80000000LL, 1, 1, 0, SRC}};
    run_plain(d, 2, 0, NULL, &st);
    CHECK(has_ev(&H, DW_REASM_EV_OUT_OF_WINDOW));
    CHECK_EQ_U(H.pos, 1);
    H.nev = 0;
    CHECK_EQ_U(dw_reasm_feed(H.r, 2, (uint32_t)d[2].off, 0, SRC, 1, 1), 0);
    CHECK(has_ev(&H, DW_REASM_EV_DROPPED));
    CHECK_EQ_U(H.pos, 1);
    CHECK_EQ_U(H.lost, 0);
    CHECK_EQ_U(dw_reasm_feed(H.r, 3, 1, 0, SRC + 1, 10, 10), 0);
    CHECK_EQ_U(H.pos, 11);
    /* a second far segment within 1 MiB of the first's end (here just
     * before it) confirms the jump: the hole up to it is given up */
    CHECK_EQ_U(dw_reasm_feed(H.r, 4, 0x7FFF0000u, 0, SRC, 1, 1), 0);
    CHECK_EQ_U(H.pos, 0x7FFF0001ULL);
    CHECK_EQ_U(H.lost, 0x7FFF0000ULL - 11);
    CHECK_EQ_U(H.last_gap.pkt, 4);
    dw_reasm_stats_get(H.r, &st);
    CHECK_EQ_U(st.out_of_order, 0);
    CHECK_EQ_U(st.dropped, 1);
    dw_reasm_del(H.r);
    H.r = NULL;
}

static int reenter_rc;
static void on_data_reenter(dw_reasm *r, const uint8_t *d, size_t len,
                            const dw_reasm_chunk *c, void *u)
{
    (void)d, (void)len, (void)c, (void)u;
    reenter_rc = dw_reasm_feed(r, 9, 0, 0, NULL, 0, 0) == DW_ERR_STATE &&
                 dw_reasm_flush(r) == DW_ERR_STATE;
}

static void test_api(void)
{
    dw_reasm *r = NULL;
    dw_reasm_callbacks none = {NULL, NULL, NULL};
    dw_reasm_settings s;
    dw_reasm_settings_default(&s);
    CHECK_EQ_U(s.store_bytes, 262144);
    CHECK_EQ_U(s.max_held, 1024);
    CHECK_EQ_U(dw_reasm_new(&r, NULL, &none, NULL) == DW_ERR_INVAL, 1);
    CHECK_EQ_U(dw_reasm_new(NULL, NULL, &CB, NULL) == DW_ERR_INVAL, 1);
    s.store_bytes = ((size_t)1 << 30) + 1;
    CHECK_EQ_U(dw_reasm_new(&r, &s, &CB, NULL) == DW_ERR_INVAL, 1);
    dw_reasm_callbacks only = {on_data_reenter, NULL, NULL};
    CHECK_EQ_U(dw_reasm_new(&r, NULL, &only, NULL), 0);
    uint8_t p[4] = {1, 2, 3, 4};
    CHECK_EQ_U(dw_reasm_feed(r, 0, 0, 0, NULL, 1, 1) == DW_ERR_INVAL, 1);
    CHECK_EQ_U(dw_reasm_feed(r, 0, 0, 0, p, 4, 3) == DW_ERR_INVAL, 1);
    CHECK_EQ_U(dw_reasm_feed(r, 0, 0, 0, p, 0, 65535 * 16 + 1) == DW_ERR_INVAL, 1);
    CHECK_EQ_U(dw_reasm_feed(r, 0, 0, 0, p, 4, 4), 0);
    CHECK(reenter_rc);
    dw_reasm_del(r);
    dw_reasm_del(NULL);
    CHECK(strcmp(dw_reasm_event_name(DW_REASM_EV_RETRANSMIT), "retransmit") == 0);
    CHECK(strcmp(dw_reasm_event_name(DW_REASM_EV_AFTER_FIN), "after_fin") == 0);
    CHECK(strcmp(dw_reasm_event_name((dw_reasm_event_kind)99), "unknown") == 0);
}

int main(void)
{
    RUN(test_every_segmentation);
    RUN(test_random);
    RUN(test_loss_exact);
    RUN(test_store_full);
    RUN(test_snaplen);
    RUN(test_wrap_many);
    RUN(test_verdicts);
    RUN(test_syn_fin_rst);
    RUN(test_windows);
    RUN(test_api);
    return dw_test_finish();
}
