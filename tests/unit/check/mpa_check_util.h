/* SPDX-License-Identifier: MIT */
/* Helpers for test_mpa_check.c: collecting what the MPA checker reports,
 * streams framed by our sender, segmentations and feeding them. */
#ifndef DW_TEST_MPA_CHECK_UTIL_H
#define DW_TEST_MPA_CHECK_UTIL_H

#include <ddpwire/crc32c.h>
#include <ddpwire/mpa_check.h>

#define CU_CHECK dw_mpa_check
#define CU_REC dw_mpa_check_fpdu
#define CU_EVENT dw_mpa_check_event
#define CU_KIND dw_mpa_check_event_kind
#define CU_CODE dw_mpa_error
#define CU_DATA dw_mpa_check_data
#define CU_GAP dw_mpa_check_gap
#define CU_END dw_mpa_check_end
#define CU_COLL_EXTRA                                                       \
    dw_mpa_check_marker mk[64]; /* the bad ones */                         \
    size_t nmk, nmk_bad;
#include "check_util.h"

static void on_marker(dw_mpa_check *c, const dw_mpa_check_marker *m, void *u)
{
    coll *k = u;
    (void)c;
    k->nmk++;
    if (!m->ok && k->nmk_bad < 64)
        k->mk[k->nmk_bad++] = *m;
}

static const dw_mpa_check_callbacks cbs = {on_rec, on_marker, on_event};

/* ------------------------------------------------------------------ */
/* Streams from our sender                                             */
/* ------------------------------------------------------------------ */

typedef struct stream {
    uint8_t *b;
    size_t len, prefix, n;
    dw_mpa_fpdu_info *info;
    size_t *at;    /* stream offset of each FPDU */
    size_t *ulen;
    size_t *uoff;  /* ULPDU octets in u */
    uint8_t *u;
    int markers, crc;
} stream;

typedef struct cfg {
    int markers, crc;
    dw_mpa_ptr_base ptr;
    size_t n, maxlen;
    const uint8_t *prefix;
    size_t plen;
    const size_t *lens; /* fixed ULPDU lengths, or NULL for random */
} cfg;

static size_t rand_len(uint64_t *seed, size_t maxlen)
{
    uint64_t r = dw_rand(seed);
    if (r % 4 == 0)
        return 1 + r / 8 % 16;
    return 1 + (size_t)(r / 8 % maxlen);
}

static void build(stream *s, const cfg *g, uint64_t *seed)
{
    memset(s, 0, sizeof *s);
    size_t cap = g->plen + g->n * (g->maxlen + 600);
    s->b = malloc(cap);
    s->info = calloc(g->n, sizeof *s->info);
    s->at = calloc(g->n, sizeof(size_t));
    s->ulen = calloc(g->n, sizeof(size_t));
    s->uoff = calloc(g->n, sizeof(size_t));
    s->u = malloc(g->n * g->maxlen + 1);
    s->markers = g->markers;
    s->crc = g->crc;
    if (g->plen)
        memcpy(s->b, g->prefix, g->plen);
    s->len = s->prefix = g->plen;
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = g->markers;
    ts.crc = g->crc;
    ts.ptr_base = g->ptr;
    ts.start_seq = SEQ0 + (uint32_t)g->plen;
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    size_t uo = 0;
    for (size_t i = 0; i < g->n; i++) {
        size_t l = g->lens ? g->lens[i] : rand_len(seed, g->maxlen);
        for (size_t j = 0; j < l; j++)
            s->u[uo + j] = (uint8_t)dw_rand(seed);
        ssize_t w = dw_mpa_tx_frame_into(tx, s->u + uo, l, s->b + s->len,
                                         cap - s->len, &s->info[i]);
        CHECK(w > 0 && (size_t)w == s->info[i].len);
        s->at[i] = s->len;
        s->ulen[i] = l;
        s->uoff[i] = uo;
        s->len += (size_t)w;
        uo += l;
    }
    s->n = g->n;
    dw_mpa_tx_del(tx);
}

static void stream_free(stream *s)
{
    free(s->b);
    free(s->info);
    free(s->at);
    free(s->ulen);
    free(s->uoff);
    free(s->u);
}

/* Rewrites FPDU i's CRC after a deliberate change (a sender's bug that
 * the CRC covers: MPA 9 code 3 is judged on a valid CRC). */
static void fix_crc(stream *s, size_t i)
{
    uint8_t *p = s->b + s->at[i];
    size_t n = s->info[i].len - 4;
    dw_crc32c_store(p + n, s->crc ? dw_crc32c(0, p, n) : 0);
}

/* Stream offset of FPDU i's first marker after its start (0: none). */
static size_t inner_marker(const stream *s, size_t i)
{
    uint32_t p = s->info[i].pos;
    uint32_t m = (p + 512u) & ~511u;
    if (!s->markers || m >= p + s->info[i].len)
        return 0;
    return s->at[i] + (m - p);
}

/* ------------------------------------------------------------------ */
/* Segmentations and feeding                                           */
/* ------------------------------------------------------------------ */

/* One FPDU per segment (aligned) or per groups of `group` (packed). */
static void segs_fpdus(segs *g, const stream *s, size_t group)
{
    g->n = 0;
    g->cut = malloc((s->n + 2) * sizeof(size_t));
    if (s->prefix)
        g->cut[g->n++] = 0;
    for (size_t i = 0; i < s->n; i += group)
        g->cut[g->n++] = s->at[i];
}

static void feed(dw_mpa_check *c, const stream *s, const segs *g, size_t ha,
                 size_t hb, size_t end, int split, uint64_t *seed)
{
    feed_b(c, s->b, s->len, g, ha, hb, end, split, seed);
}

static dw_mpa_check *mk(const dw_mpa_check_settings *st, coll *k)
{
    dw_mpa_check *c = NULL;
    memset(k, 0, sizeof *k);
    CHECK(dw_mpa_check_new(&c, st, &cbs, k) == 0);
    return c;
}

/* Record r against the sender's FPDU i; segment verdicts from g. */
static void check_rec(const rec *r, const stream *s, size_t i, const segs *g)
{
    const dw_mpa_check_fpdu *f = &r->f;
    size_t at = s->at[i], len = s->info[i].len;
    CHECK_EQ_U(f->offset, at);
    CHECK_EQ_U(f->pos, s->info[i].pos);
    CHECK_EQ_U(f->seq, s->info[i].seq);
    CHECK_EQ_U(f->seq, SEQ0 + (uint32_t)at);
    CHECK_EQ_U(f->ulpdu_len, s->ulen[i]);
    CHECK_EQ_U(f->fpdu_len, len);
    CHECK_EQ_U(f->markers, s->info[i].markers);
    CHECK_EQ_U(f->pad, len - 6 - s->ulen[i] - 4 * s->info[i].markers);
    CHECK_EQ_U(f->bad_markers, 0);
    CHECK(!f->pad_nonzero);
    CHECK_EQ_U(f->crc, s->crc ? DW_MPA_CHECK_CRC_GOOD : DW_MPA_CHECK_CRC_OFF);
    CHECK_EQ_U(f->crc_wire, dw_crc32c_load(s->b + at + len - 4));
    size_t hl = s->ulen[i] < 64 ? s->ulen[i] : 64;
    CHECK_EQ_U(f->head_len, hl);
    CHECK(memcmp(r->head, s->u + s->uoff[i], hl) == 0);
    if (g)
        check_segs(f, g, at, len, i == 0, s->len);
}

/* seg_with_start and seg_packed, counted from the cuts. */
static void check_seg_stats(const dw_mpa_check_stats *st, const stream *s,
                            const segs *g)
{
    size_t *end = malloc((s->n + 1) * sizeof *end);
    for (size_t i = 0; i < s->n; i++)
        end[i] = s->at[i] + s->info[i].len;
    check_seg_counts(st->seg_with_start, st->seg_packed, g, s->len, s->n, s->at, end);
    free(end);
}

/* A clean run: every FPDU reported as sent, no problem. */
static void check_clean(dw_mpa_check *c, const coll *k, const stream *s,
                        const segs *g)
{
    CHECK_EQ_U(k->nr, s->n);
    for (size_t i = 0; i < k->nr && i < s->n; i++) {
        check_rec(&k->r[i], s, i, g);
        CHECK_EQ_U(k->r[i].f.index, i);
        CHECK(!k->r[i].f.resync);
    }
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK(st.started);
    CHECK_EQ_U(st.start_offset, s->prefix);
    CHECK_EQ_U(st.markers, s->markers);
    CHECK_EQ_U(st.crc, s->crc);
    CHECK_EQ_U(st.fpdus, s->n);
    CHECK_EQ_U(st.crc_good, s->crc ? s->n : 0);
    CHECK_EQ_U(st.crc_unchecked, s->crc ? 0 : s->n);
    CHECK_EQ_U(st.crc_bad + st.marker_errors + st.length_errors + st.pad_errors, 0);
    CHECK_EQ_U(st.fpdu_octets, s->len - s->prefix);
    CHECK_EQ_U(st.first_error, DW_MPA_ERR_NONE);
    CHECK_EQ_U(st.resyncs + st.gaps, 0);
    size_t nm = 0;
    for (size_t i = 0; i < s->n; i++)
        nm += s->info[i].markers;
    CHECK_EQ_U(st.markers_seen, nm);
    CHECK_EQ_U(k->nmk, nm);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_START), 1);
    CHECK_EQ_U(k->nev_all, 1 + count_ev(k, DW_MPA_CHECK_EV_STARTUP));
    if (g)
        check_seg_stats(&st, s, g);
}

#endif
