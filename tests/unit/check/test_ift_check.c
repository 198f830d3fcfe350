/* SPDX-License-Identifier: MIT */
/*
 * IFT stream checker: the hand vectors of test_ift.c (CRCs computed
 * outside ddpwire) back to back; streams framed by dw_ift_encode() fed
 * under every segmentation, each frame record checked against the
 * encoder's list and the segments the test cut; alignment and packing;
 * payload CRC errors (sync kept); header CRC errors, sizes over the
 * limits and garbage (sync lost, resync at the exact next frame); gaps
 * in payloads (sync kept) and headers (resync); truncation; the search
 * limit; the API's misuse.
 */
#include <ddpwire/ift_check.h>

#include "ift_check_util.h"

/* ------------------------------------------------------------------ */
/* Streams from the encoder                                            */
/* ------------------------------------------------------------------ */

typedef struct stream {
    uint8_t *b;
    size_t len, n;
    size_t *at, *hl, *pl;
} stream;

typedef struct cfg {
    size_t n, hmin, hmax, pmax;
} cfg;

static size_t pick(uint64_t *seed, size_t lo, size_t hi)
{
    uint64_t r = dw_rand(seed);
    if (r % 5 == 0) /* short ones often */
        hi = lo + (hi - lo) / 64;
    return lo + (size_t)(r / 8 % (hi - lo + 1));
}

static void build(stream *s, const cfg *g, uint64_t *seed)
{
    memset(s, 0, sizeof *s);
    size_t cap = g->n * (12 + g->hmax + g->pmax) + 1;
    s->b = malloc(cap);
    s->at = calloc(g->n + 1, sizeof(size_t));
    s->hl = calloc(g->n, sizeof(size_t));
    s->pl = calloc(g->n, sizeof(size_t));
    uint8_t *h = malloc(g->hmax + 1), *p = malloc(g->pmax + 1);
    for (size_t i = 0; i < g->n; i++) {
        s->hl[i] = pick(seed, g->hmin, g->hmax);
        s->pl[i] = dw_rand(seed) % 7 == 0 ? 0 : pick(seed, 0, g->pmax);
        for (size_t j = 0; j < s->hl[i]; j++)
            h[j] = (uint8_t)dw_rand(seed);
        for (size_t j = 0; j < s->pl[i]; j++)
            p[j] = (uint8_t)dw_rand(seed);
        ssize_t w = dw_ift_encode(s->b + s->len, cap - s->len, h, s->hl[i], p, s->pl[i]);
        CHECK(w > 0 && (size_t)w == 12 + s->hl[i] + s->pl[i]);
        s->at[i] = s->len;
        s->len += (size_t)w;
    }
    s->at[g->n] = s->len;
    s->n = g->n;
    free(h);
    free(p);
}

static void stream_free(stream *s)
{
    free(s->b);
    free(s->at);
    free(s->hl);
    free(s->pl);
}

static size_t flen(const stream *s, size_t i)
{
    return s->at[i + 1] - s->at[i];
}

/* ------------------------------------------------------------------ */
/* Segmentations and feeding                                           */
/* ------------------------------------------------------------------ */

/* One segment per `group` frames (1: every frame aligned). */
static void segs_frames(segs *g, const stream *s, size_t group)
{
    g->n = 0;
    g->cut = malloc((s->n + 2) * sizeof(size_t));
    for (size_t i = 0; i < s->n; i += group)
        g->cut[g->n++] = s->at[i];
}

static void feed(dw_ift_check *c, const stream *s, const segs *g, size_t ha,
                 size_t hb, size_t end, int split, uint64_t *seed)
{
    feed_b(c, s->b, s->len, g, ha, hb, end, split, seed);
}

/* ------------------------------------------------------------------ */
/* Expected records                                                    */
/* ------------------------------------------------------------------ */

/* Record r against encoded frame i at offset at of b; segments from g. */
static void check_frame(const rec *r, const uint8_t *b, size_t blen, size_t at,
                        size_t hl, size_t pl, int first, const segs *g)
{
    const dw_ift_check_frame *f = &r->f;
    size_t len = 12 + hl + pl;
    CHECK_EQ_U(f->offset, at);
    CHECK_EQ_U(f->seq, SEQ0 + (uint32_t)at);
    CHECK_EQ_U(f->header_size, hl);
    CHECK_EQ_U(f->payload_size, pl);
    CHECK_EQ_U(f->frame_len, len);
    CHECK_EQ_U(f->header_crc, DW_IFT_CHECK_CRC_GOOD);
    CHECK_EQ_U(f->payload_crc, DW_IFT_CHECK_CRC_GOOD);
    CHECK_EQ_U(f->header_crc_wire, dw_crc32c_load(b + at + 4 + hl));
    CHECK_EQ_U(f->header_crc_calc, f->header_crc_wire);
    CHECK_EQ_U(f->payload_crc_wire, dw_crc32c_load(b + at + len - 4));
    CHECK_EQ_U(f->payload_crc_calc, dw_crc32c(0, b + at + 8 + hl, pl));
    size_t h = hl < 64 ? hl : 64;
    CHECK_EQ_U(f->head_len, h);
    CHECK(memcmp(r->head, b + at + 4, h) == 0);
    if (g)
        check_segs(f, g, at, len, first, blen);
}

static void check_rec(const rec *r, const stream *s, size_t i, const segs *g)
{
    check_frame(r, s->b, s->len, s->at[i], s->hl[i], s->pl[i], i == 0, g);
}

/* seg_with_start and seg_packed, counted from the cuts. */
static void check_seg_stats(const dw_ift_check_stats *st, const stream *s,
                            const segs *g)
{
    check_seg_counts(st->seg_with_start, st->seg_packed, g, s->len, s->n, s->at,
                     s->at + 1);
}

static void check_clean(dw_ift_check *c, const coll *k, const stream *s, const segs *g)
{
    CHECK_EQ_U(k->nr, s->n);
    for (size_t i = 0; i < k->nr && i < s->n; i++) {
        check_rec(&k->r[i], s, i, g);
        CHECK_EQ_U(k->r[i].f.index, i);
        CHECK(!k->r[i].f.resync);
    }
    dw_ift_check_stats st;
    dw_ift_check_stats_get(c, &st);
    CHECK_EQ_U(st.frames, s->n);
    CHECK_EQ_U(st.header_crc_good, s->n);
    CHECK_EQ_U(st.payload_crc_good, s->n);
    CHECK_EQ_U(st.header_crc_bad + st.payload_crc_bad + st.size_errors, 0);
    CHECK_EQ_U(st.header_crc_missing + st.payload_crc_missing, 0);
    CHECK_EQ_U(st.resyncs + st.gaps + st.skipped_octets, 0);
    CHECK_EQ_U(st.first_error, DW_IFT_ERR_NONE);
    uint64_t pay = 0;
    for (size_t i = 0; i < s->n; i++)
        pay += s->pl[i];
    CHECK_EQ_U(st.payload_octets, pay);
    CHECK_EQ_U(k->nev_all, 0);
    if (g)
        check_seg_stats(&st, s, g);
}

/* Frames [from, n) reported as sent, from record ri on, the first found
 * again by search. */
static void check_tail(const coll *k, size_t ri, const stream *s, size_t from,
                       const segs *g, int resync)
{
    CHECK_EQ_U(k->nr - ri, s->n - from);
    for (size_t i = from; i < s->n && ri + i - from < k->nr; i++) {
        const rec *r = &k->r[ri + i - from];
        check_frame(r, s->b, s->len, s->at[i], s->hl[i], s->pl[i], i == from, g);
        CHECK_EQ_U(r->f.index, ri + i - from);
        CHECK_EQ_U(r->f.resync, resync && i == from);
    }
}

/* ------------------------------------------------------------------ */
/* Hand vectors (test_ift.c; CRCs computed outside ddpwire)            */
/* ------------------------------------------------------------------ */

static const uint8_t vecs[] = {
    /* empty header and payload */
    0x00, 0x00, 0x00, 0x00, 0xc7, 0x4b, 0x67, 0x48, 0x00, 0x00, 0x00, 0x00,
    /* 18-octet header, "hello" */
    0x00, 0x12, 0x00, 0x05, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1,
    0x24, 0x96, 0x84, 0xf7, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x4c, 0xbb, 0x71, 0x9a,
    /* 12-octet header, "ABCDEFGH" */
    0x00, 0x0c, 0x00, 0x08, 0x41, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x02, 0x3b, 0x82, 0x14, 0x73,
    0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x0a, 0xe6, 0xc4, 0xcd,
    /* empty header, "abc" */
    0x00, 0x00, 0x00, 0x03, 0x33, 0xb8, 0x37, 0x5b, 0x61, 0x62, 0x63,
    0xb7, 0x3f, 0x4b, 0x36,
    /* 4-octet header, empty payload */
    0x00, 0x04, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x12, 0x4b, 0x73, 0x90,
    0x00, 0x00, 0x00, 0x00};
static const size_t v_at[] = {0, 12, 47, 79, 94, 110};
static const size_t v_hl[] = {0, 18, 12, 0, 4};
static const size_t v_pl[] = {0, 5, 8, 3, 0};
static const uint32_t v_hcrc[] = {0x48674bc7, 0xf7849624, 0x7314823b, 0x5b37b833, 0x90734b12};
static const uint32_t v_pcrc[] = {0, 0x9a71bb4c, 0xcdc4e60a, 0x364b3fb7, 0};

static void test_vectors(void)
{
    uint64_t seed = 5;
    CHECK_EQ_U(sizeof vecs, v_at[5]);
    for (size_t cut = 1; cut <= sizeof vecs; cut += cut < 8 ? 1 : 17) {
        segs g;
        segs_fixed(&g, sizeof vecs, cut);
        coll k;
        dw_ift_check *c = mk(NULL, &k);
        feed_b(c, vecs, sizeof vecs, &g, 0, 0, sizeof vecs, (int)(cut & 1), &seed);
        CHECK_EQ_U(k.nr, 5);
        for (size_t i = 0; i < k.nr && i < 5; i++) {
            check_frame(&k.r[i], vecs, sizeof vecs, v_at[i], v_hl[i], v_pl[i], i == 0, &g);
            CHECK_EQ_U(k.r[i].f.header_crc_wire, v_hcrc[i]);
            CHECK_EQ_U(k.r[i].f.payload_crc_wire, v_pcrc[i]);
        }
        CHECK(k.nr == 5 && k.r[1].head[0] == 0xa0 && k.r[1].head[17] == 0xb1);
        CHECK_EQ_U(k.nev_all, 0);
        dw_ift_check_del(c);
        free(g.cut);
        coll_free(&k);
    }
}

/* ------------------------------------------------------------------ */
/* Clean streams under every segmentation                              */
/* ------------------------------------------------------------------ */

static void run_clean(const stream *s, const segs *g, int split, int checkseg,
                      uint64_t *seed)
{
    coll k;
    dw_ift_check *c = mk(NULL, &k);
    feed(c, s, g, 0, 0, s->len, split, seed);
    check_clean(c, &k, s, checkseg ? g : NULL);
    dw_ift_check_del(c);
    coll_free(&k);
}

static void test_segmentations(void)
{
    uint64_t seed = dw_test_seed();
    static const size_t sizes[] = {1, 2, 3, 7, 64, 511, 1460, 9000, 65536};
    for (int v = 0; v < 3; v++) {
        cfg g = {quick ? 40 : 120, 0, 80, 3000};
        if (v == 1)
            g.hmax = 1000;
        if (v == 2) /* the largest frames */
            g.n = quick ? 4 : 10, g.hmax = DW_IFT_SIZE_MAX, g.pmax = DW_IFT_SIZE_MAX;
        stream s;
        build(&s, &g, &seed);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            DW_CASE_HERE("sizes[%zu]", z);
            if (sizes[z] < 7 && s.len > 200000 && quick)
                continue;
            segs cut;
            segs_fixed(&cut, s.len, sizes[z]);
            /* 64 KiB headers in segments under 8 octets: more pieces than
             * the buffer remembers (documented), segment fields not exact */
            run_clean(&s, &cut, (int)(z & 1), v < 2 || sizes[z] > 7, &seed);
            free(cut.cut);
        }
        for (int r = 0; r < (quick ? 3 : 12); r++) {
            segs cut;
            segs_random(&cut, s.len, &seed, r % 2 ? 40 : 3000);
            run_clean(&s, &cut, r & 1, 1, &seed);
            free(cut.cut);
        }
        stream_free(&s);
    }
}

/* Alignment and packing, as the cuts make them. */
static void test_aligned_packed(void)
{
    uint64_t seed = 77;
    cfg g = {60, 4, 40, 1400};
    stream s;
    build(&s, &g, &seed);
    for (size_t group = 1; group <= 4; group++) {
        segs cut;
        segs_frames(&cut, &s, group);
        coll k;
        dw_ift_check *c = mk(NULL, &k);
        feed(c, &s, &cut, 0, 0, s.len, group == 3, &seed);
        check_clean(c, &k, &s, &cut);
        dw_ift_check_stats st;
        dw_ift_check_stats_get(c, &st);
        CHECK_EQ_U(st.aligned, (s.n + group - 1) / group);
        CHECK_EQ_U(st.packed, group == 1 ? 0 : s.n);
        CHECK_EQ_U(st.seg_with_start, (s.n + group - 1) / group);
        CHECK_EQ_U(st.seg_packed, group == 1 ? 0 : s.n / group);
        dw_ift_check_del(c);
        coll_free(&k);
        free(cut.cut);
    }
    stream_free(&s);
}

/* ------------------------------------------------------------------ */
/* Corruption                                                          */
/* ------------------------------------------------------------------ */

static void some_cut(segs *cut, const stream *s, int r, uint64_t *seed)
{
    if (r % 3 == 0)
        segs_fixed(cut, s->len, 1 + (size_t)r * 37 % 1500);
    else
        segs_random(cut, s->len, seed, r % 3 == 1 ? 9 : 2000);
}

/* IFT error 3: only that frame is bad; sync is kept (sizes verified). */
static void test_payload_crc(void)
{
    uint64_t seed = 31;
    cfg g = {30, 0, 60, 900};
    stream s;
    build(&s, &g, &seed);
    for (int r = 0; r < (quick ? 8 : 30); r++) {
        size_t i = (size_t)r * 7 % s.n;
        size_t at = s.at[i] + 8 + s.hl[i] + (size_t)dw_rand(&seed) % (s.pl[i] + 4);
        s.b[at] ^= (uint8_t)(1u << r % 8);
        segs cut;
        some_cut(&cut, &s, r, &seed);
        coll k;
        dw_ift_check *c = mk(NULL, &k);
        feed(c, &s, &cut, 0, 0, s.len, r & 1, &seed);
        CHECK_EQ_U(k.nr, s.n);
        for (size_t j = 0; j < k.nr && j < s.n; j++) {
            if (j != i) {
                check_rec(&k.r[j], &s, j, &cut);
                continue;
            }
            const dw_ift_check_frame *f = &k.r[j].f;
            CHECK_EQ_U(f->header_crc, DW_IFT_CHECK_CRC_GOOD);
            CHECK_EQ_U(f->payload_crc, DW_IFT_CHECK_CRC_BAD);
            CHECK(f->payload_crc_wire != f->payload_crc_calc);
            CHECK_EQ_U(f->payload_crc_calc, dw_crc32c(0, s.b + s.at[i] + 8 + s.hl[i], s.pl[i]));
        }
        CHECK_EQ_U(k.nev_all, 1);
        const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_PAYLOAD_CRC);
        CHECK(e && e->code == DW_IFT_ERR_PAYLOAD_CRC && e->off == s.at[i]);
        CHECK(e && strncmp(e->detail, "payload CRC 0x", 14) == 0);
        dw_ift_check_stats st;
        dw_ift_check_stats_get(c, &st);
        CHECK(st.payload_crc_bad == 1 && st.payload_crc_good == s.n - 1 && st.resyncs == 0);
        CHECK(st.first_error == DW_IFT_ERR_PAYLOAD_CRC && st.first_error_offset == s.at[i]);
        dw_ift_check_del(c);
        coll_free(&k);
        free(cut.cut);
        s.b[at] ^= (uint8_t)(1u << r % 8);
    }
    stream_free(&s);
}

/* Sync lost at frame i (bad = kind of event), found again at frame
 * `next` by search: everything checked. */
static void check_resync(const coll *k, dw_ift_check *c, const stream *s,
                         const segs *g, size_t i, size_t next, uint64_t lost_at,
                         int bad_rec)
{
    size_t ri = i + (size_t)bad_rec;
    CHECK(k->nr >= i);
    for (size_t j = 0; j < i && j < k->nr; j++)
        check_rec(&k->r[j], s, j, g);
    if (bad_rec && k->nr > i) {
        const dw_ift_check_frame *f = &k->r[i].f;
        CHECK_EQ_U(f->offset, s->at[i]);
        CHECK_EQ_U(f->header_crc, DW_IFT_CHECK_CRC_BAD);
        CHECK_EQ_U(f->payload_crc, DW_IFT_CHECK_CRC_MISSING);
        CHECK(f->header_crc_wire != f->header_crc_calc);
    }
    check_tail(k, ri, s, next, g, 1);
    const evrec *e = find_ev(k, DW_IFT_CHECK_EV_RESYNC);
    CHECK(e && e->off == s->at[next] && e->len == s->at[next] - lost_at);
    CHECK_EQ_U(count_ev(k, DW_IFT_CHECK_EV_SYNC_LOST), 1);
    CHECK_EQ_U(count_ev(k, DW_IFT_CHECK_EV_RESYNC), 1);
    dw_ift_check_stats st;
    dw_ift_check_stats_get(c, &st);
    CHECK_EQ_U(st.resyncs, 1);
    CHECK_EQ_U(st.skipped_octets, s->at[next] - lost_at);
    CHECK_EQ_U(st.frames, k->nr);
}

/* IFT error 2 (and 5.1): sizes not trusted, sync lost, the search finds
 * the very next frame. Corrupts a size octet, a header octet or the
 * header CRC field. */
static void test_header_crc(void)
{
    uint64_t seed = 41;
    cfg g = {24, 4, 90, 2500};
    stream s;
    build(&s, &g, &seed);
    for (int r = 0; r < (quick ? 10 : 40); r++) {
        size_t i = (size_t)r * 5 % (s.n - 1);
        size_t at = s.at[i] + (size_t)dw_rand(&seed) % (8 + s.hl[i]);
        if (r % 2 == 0 && at < s.at[i] + 2) /* a header_size up to 65535 */
            at += 2;
        uint8_t x = (uint8_t)(1u << (dw_rand(&seed) % 8));
        s.b[at] ^= x;
        size_t h2 = (size_t)(s.b[s.at[i]] << 8 | s.b[s.at[i] + 1]);
        if (h2 <= 90 && s.at[i] + 8 + h2 > s.len) { /* truncated instead */
            s.b[at] ^= x;
            continue;
        }
        dw_ift_check_settings set;
        dw_ift_check_settings_default(&set);
        int size_err = (at - s.at[i] < 2 && (s.b[s.at[i]] << 8 | s.b[s.at[i] + 1]) > 90) ||
                       (at - s.at[i] < 4 && at - s.at[i] >= 2 &&
                        (s.b[s.at[i] + 2] << 8 | s.b[s.at[i] + 3]) > 2500);
        if (r % 2) /* limits just above what is sent */
            set.max_header = 90, set.max_payload = 2500;
        else
            size_err = 0;
        segs cut;
        some_cut(&cut, &s, r, &seed);
        coll k;
        dw_ift_check *c = mk(&set, &k);
        feed(c, &s, &cut, 0, 0, s.len, r & 1, &seed);
        const evrec *e = find_ev(&k, size_err ? DW_IFT_CHECK_EV_SIZE : DW_IFT_CHECK_EV_HEADER_CRC);
        CHECK(e && e->off == s.at[i]);
        CHECK(e && e->code == (size_err ? DW_IFT_ERR_SIZE : DW_IFT_ERR_HEADER_CRC));
        check_resync(&k, c, &s, &cut, i, i + 1, s.at[i], !size_err);
        CHECK_EQ_U(k.nev_all, 3); /* error, sync lost, resync */
        CHECK(k.nev == 3 && k.ev[1].kind == DW_IFT_CHECK_EV_SYNC_LOST &&
              k.ev[2].kind == DW_IFT_CHECK_EV_RESYNC);
        dw_ift_check_stats st;
        dw_ift_check_stats_get(c, &st);
        CHECK_EQ_U(st.first_error, size_err ? DW_IFT_ERR_SIZE : DW_IFT_ERR_HEADER_CRC);
        CHECK_EQ_U(st.size_errors, size_err);
        CHECK_EQ_U(st.header_crc_bad, !size_err);
        CHECK(st.in_sync);
        dw_ift_check_del(c);
        coll_free(&k);
        free(cut.cut);
        s.b[at] ^= x;
    }
    stream_free(&s);
}

/* Garbage between frames (or before the first): read as a header in
 * sync, it fails; the search skips exactly the garbage. */
static void test_garbage(void)
{
    uint64_t seed = 43;
    cfg g = {20, 4, 60, 1500};
    stream s;
    build(&s, &g, &seed);
    for (int r = 0; r < (quick ? 10 : 40); r++) {
        size_t i = (size_t)r * 3 % s.n, glen = 1 + (size_t)dw_rand(&seed) % (r % 2 ? 9 : 5000);
        stream t = s;
        t.len = s.len + glen;
        t.b = malloc(t.len);
        t.at = malloc((s.n + 1) * sizeof(size_t));
        memcpy(t.b, s.b, s.at[i]);
        for (size_t j = 0; j < glen; j++) /* random, or zeros, or 0xff */
            t.b[s.at[i] + j] = r % 3 == 0 ? (uint8_t)dw_rand(&seed) : r % 3 == 1 ? 0 : 0xff;
        memcpy(t.b + s.at[i] + glen, s.b + s.at[i], s.len - s.at[i]);
        for (size_t j = 0; j <= s.n; j++)
            t.at[j] = s.at[j] + (j >= i ? glen : 0);
        segs cut;
        some_cut(&cut, &t, r, &seed);
        coll k;
        dw_ift_check *c = mk(NULL, &k);
        feed(c, &t, &cut, 0, 0, t.len, r & 1, &seed);
        /* the garbage's first octets read as a frame: a bad header, or
         * sizes over the limits are impossible with 65535 */
        CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_HEADER_CRC) +
                       count_ev(&k, DW_IFT_CHECK_EV_TRUNCATED), 1);
        if (find_ev(&k, DW_IFT_CHECK_EV_HEADER_CRC)) {
            CHECK_EQ_U(find_ev(&k, DW_IFT_CHECK_EV_HEADER_CRC)->off, s.at[i]);
            CHECK(k.nr > i && k.r[i].f.header_crc == DW_IFT_CHECK_CRC_BAD);
            for (size_t j = 0; j < i && j < k.nr; j++)
                check_rec(&k.r[j], &t, j, &cut);
            check_tail(&k, i + 1, &t, i, &cut, 1);
            const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_RESYNC);
            CHECK(e && e->off == t.at[i] && e->len == glen);
        }
        dw_ift_check_del(c);
        coll_free(&k);
        free(cut.cut);
        free(t.b);
        free(t.at);
    }
    stream_free(&s);
}

/* ------------------------------------------------------------------ */
/* Gaps                                                                */
/* ------------------------------------------------------------------ */

static void run_gap(const stream *s, const segs *cut, size_t ha, size_t hb,
                    int split, uint64_t *seed, coll *k, dw_ift_check_stats *st)
{
    dw_ift_check *c = mk(NULL, k);
    feed(c, s, cut, ha, hb, s->len, split, seed);
    dw_ift_check_stats_get(c, st);
    CHECK_EQ_U(st->gaps, 1);
    CHECK_EQ_U(st->gap_octets, hb - ha);
    const evrec *e = find_ev(k, DW_IFT_CHECK_EV_GAP);
    CHECK(e && e->off == ha && e->len == hb - ha && e->seq == SEQ0 + (uint32_t)ha);
    dw_ift_check_del(c);
}

/* A gap inside frame i's payload or payload CRC, ending inside it or at
 * its end: its payload verdict is MISSING, sync is kept. */
static void gap_in_payload(const stream *s, size_t i, int r, uint64_t *seed)
{
    size_t body = s->at[i] + 8 + s->hl[i], end = s->at[i + 1];
    size_t ha = body + (size_t)dw_rand(seed) % (end - body);
    size_t hb = r % 4 == 0 ? end : ha + 1 + (size_t)dw_rand(seed) % (end - ha);
    segs cut;
    some_cut(&cut, s, r, seed);
    coll k;
    dw_ift_check_stats st;
    run_gap(s, &cut, ha, hb, r & 1, seed, &k, &st);
    CHECK_EQ_U(k.nr, s->n);
    for (size_t j = 0; j < k.nr && j < s->n; j++) {
        if (j != i) {
            check_rec(&k.r[j], s, j, &cut);
            continue;
        }
        CHECK_EQ_U(k.r[j].f.header_crc, DW_IFT_CHECK_CRC_GOOD);
        CHECK_EQ_U(k.r[j].f.payload_crc, DW_IFT_CHECK_CRC_MISSING);
        CHECK_EQ_U(k.r[j].f.frame_len, flen(s, i));
    }
    CHECK_EQ_U(k.nev_all, 1);
    CHECK(st.resyncs == 0 && st.skipped_octets == 0 && st.payload_crc_missing == 1);
    CHECK(st.first_error == DW_IFT_ERR_NONE && st.in_sync);
    coll_free(&k);
    free(cut.cut);
}

/* A gap that begins in frame i's sizes, header or header CRC, or in its
 * payload and ends in frame i+1: resync at the next frame whose first
 * octet follows the gap. */
static void gap_in_header(const stream *s, size_t i, int r, uint64_t *seed)
{
    size_t hdr_end = s->at[i] + 8 + s->hl[i];
    size_t ha, hb;
    if (r % 3 == 2) { /* from the payload into the next header */
        ha = hdr_end + (size_t)dw_rand(seed) % (s->at[i + 1] - hdr_end);
        hb = s->at[i + 1] + 1 + (size_t)dw_rand(seed) % (8 + s->hl[i + 1] - 1);
    } else {
        ha = s->at[i] + (size_t)dw_rand(seed) % (8 + s->hl[i]);
        hb = ha + 1 + (size_t)dw_rand(seed) % (hdr_end - ha);
    }
    size_t next = i + 1;
    while (s->at[next] < hb)
        next++;
    segs cut;
    some_cut(&cut, s, r, seed);
    coll k;
    dw_ift_check_stats st;
    run_gap(s, &cut, ha, hb, r & 1, seed, &k, &st);
    size_t ri = i + (ha > s->at[i]); /* frame i has a record if begun */
    for (size_t j = 0; j < i && j < k.nr; j++)
        check_rec(&k.r[j], s, j, &cut);
    if (ha > s->at[i] && k.nr > i) {
        const dw_ift_check_frame *f = &k.r[i].f;
        CHECK_EQ_U(f->offset, s->at[i]);
        CHECK_EQ_U(f->payload_crc, DW_IFT_CHECK_CRC_MISSING);
        CHECK_EQ_U(f->header_crc, ha >= hdr_end ? DW_IFT_CHECK_CRC_GOOD : DW_IFT_CHECK_CRC_MISSING);
        if (ha >= s->at[i] + 4)
            CHECK_EQ_U(f->header_size, s->hl[i]);
    }
    check_tail(&k, ri, s, next, &cut, 1);
    const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_RESYNC);
    CHECK(e && e->off == s->at[next] && e->len == s->at[next] - hb);
    CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_SYNC_LOST), 1);
    CHECK_EQ_U(st.resyncs, 1);
    CHECK_EQ_U(st.skipped_octets, s->at[next] - hb);
    CHECK_EQ_U(st.first_error, DW_IFT_ERR_NONE);
    coll_free(&k);
    free(cut.cut);
}

static void test_gaps(void)
{
    uint64_t seed = 47;
    cfg g = {16, 4, 70, 2000};
    stream s;
    build(&s, &g, &seed);
    for (int r = 0; r < (quick ? 12 : 48); r++) {
        size_t i = (size_t)r * 5 % (s.n - 2);
        gap_in_payload(&s, i, r, &seed);
        gap_in_header(&s, i, r, &seed);
    }
    stream_free(&s);
}

/* A frame whose header is whole before a gap is found by a search that
 * was waiting for more octets. */
static void test_gap_while_searching(void)
{
    uint64_t seed = 53;
    cfg g = {6, 4, 30, 3000};
    stream s;
    build(&s, &g, &seed);
    s.b[s.at[1] + 5] ^= 1; /* frame 1's header CRC fails */
    /* search from at[1] + 1 waits on candidates that need many octets;
     * a gap in frame 2's payload comes first */
    size_t ha = s.at[2] + 8 + s.hl[2] + 1, hb = s.at[3] - 2;
    CHECK(hb > ha); /* frame 2 has a payload (seed 53) */
    if (hb > ha) {
        segs cut;
        segs_fixed(&cut, s.len, 1460);
        coll k;
        dw_ift_check_stats st;
        run_gap(&s, &cut, ha, hb, 0, &seed, &k, &st);
        const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_RESYNC);
        CHECK(e && e->off == s.at[2]);
        CHECK(k.nr == s.n && k.r[2].f.resync && k.r[2].f.header_crc == DW_IFT_CHECK_CRC_GOOD &&
              k.r[2].f.payload_crc == DW_IFT_CHECK_CRC_MISSING);
        check_tail(&k, 3, &s, 3, &cut, 0);
        CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_SYNC_LOST), 1);
        coll_free(&k);
        free(cut.cut);
    }
    stream_free(&s);
}

/* ------------------------------------------------------------------ */
/* Truncation, limits, API                                             */
/* ------------------------------------------------------------------ */

/* IFT error 1: the stream ends inside the last frame, at every octet. */
static void test_truncation(void)
{
    uint64_t seed = 59;
    cfg g = {3, 4, 20, 30};
    stream s;
    build(&s, &g, &seed);
    size_t last = s.n - 1;
    for (size_t end = s.at[last]; end <= s.len; end++) {
        segs cut;
        segs_fixed(&cut, s.len, 1 + end % 7);
        coll k;
        dw_ift_check *c = mk(NULL, &k);
        feed(c, &s, &cut, 0, 0, end, end & 1, &seed);
        int cut_short = end > s.at[last] && end < s.len;
        CHECK_EQ_U(k.nr, last + (end > s.at[last]));
        for (size_t j = 0; j < last && j < k.nr; j++)
            check_rec(&k.r[j], &s, j, NULL);
        CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_TRUNCATED), cut_short);
        CHECK_EQ_U(k.nev_all, cut_short);
        if (cut_short && k.nr == s.n) {
            const dw_ift_check_frame *f = &k.r[last].f;
            size_t seen = end - s.at[last], hend = 8 + s.hl[last];
            CHECK_EQ_U(f->offset, s.at[last]);
            CHECK_EQ_U(f->header_crc, seen >= hend ? DW_IFT_CHECK_CRC_GOOD : DW_IFT_CHECK_CRC_MISSING);
            CHECK_EQ_U(f->payload_crc, DW_IFT_CHECK_CRC_MISSING);
            CHECK_EQ_U(f->header_size, seen >= 4 ? s.hl[last] : 0);
            size_t hseen = seen > 4 ? seen - 4 : 0;
            CHECK_EQ_U(f->head_len, hseen < s.hl[last] ? hseen : s.hl[last]);
            const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_TRUNCATED);
            CHECK(e && e->code == DW_IFT_ERR_CLOSED && e->off == s.at[last] && e->len == seen);
            dw_ift_check_stats st;
            dw_ift_check_stats_get(c, &st);
            CHECK_EQ_U(st.first_error, DW_IFT_ERR_CLOSED);
        }
        dw_ift_check_del(c);
        coll_free(&k);
        free(cut.cut);
    }
    stream_free(&s);
}

/* Sizes over the limits in sync; the search skips over-limit candidates;
 * the search limit gives up. */
static void test_limits(void)
{
    uint64_t seed = 61;
    cfg g = {8, 4, 40, 200};
    stream s;
    build(&s, &g, &seed);
    dw_ift_check_settings set;
    dw_ift_check_settings_default(&set);
    CHECK(set.max_header == 65535 && set.max_payload == 65535 &&
          set.search_limit == 1u << 20 && set.head_len == 64);
    /* frame 0 over max_header: SIZE, then the next frame within limits */
    size_t big = 0;
    for (size_t i = 1; i < s.n; i++)
        big = s.hl[i] > big ? s.hl[i] : big;
    set.max_header = big;
    if (s.hl[0] > big) {
        segs cut;
        segs_fixed(&cut, s.len, 100);
        coll k;
        dw_ift_check *c = mk(&set, &k);
        feed(c, &s, &cut, 0, 0, s.len, 0, &seed);
        const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_SIZE);
        CHECK(e && e->off == 0 && e->code == DW_IFT_ERR_SIZE);
        check_resync(&k, c, &s, &cut, 0, 1, 0, 0);
        dw_ift_check_del(c);
        coll_free(&k);
        free(cut.cut);
    }
    /* garbage beyond a small search limit: NO_SYNC, the rest skipped */
    dw_ift_check_settings_default(&set);
    set.search_limit = 100;
    uint8_t *b = malloc(s.len + 300);
    memset(b, 0x01, 300); /* sizes 257, 257: a bad header CRC at 261 */
    memcpy(b + 300, s.b, s.len);
    segs cut;
    segs_fixed(&cut, s.len + 300, 50);
    coll k;
    dw_ift_check *c = mk(&set, &k);
    feed_b(c, b, s.len + 300, &cut, 0, 0, s.len + 300, 0, &seed);
    CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_NO_SYNC), 1);
    CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_RESYNC), 0);
    dw_ift_check_stats st;
    dw_ift_check_stats_get(c, &st);
    CHECK(!st.in_sync && st.frames == 1 && st.header_crc_bad == 1);
    CHECK_EQ_U(st.skipped_octets, s.len + 300);
    dw_ift_check_del(c);
    coll_free(&k);
    /* the same garbage, default limit: resync at 300 */
    c = mk(NULL, &k);
    feed_b(c, b, s.len + 300, &cut, 0, 0, s.len + 300, 1, &seed);
    const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_RESYNC);
    CHECK(e && e->off == 300 && e->len == 300);
    CHECK_EQ_U(k.nr, s.n + 1);
    dw_ift_check_del(c);
    coll_free(&k);
    /* garbage to the end: NO_SYNC when the stream ends */
    c = mk(NULL, &k);
    feed_b(c, b, 300, &cut, 0, 0, 300, 0, &seed);
    CHECK(count_ev(&k, DW_IFT_CHECK_EV_NO_SYNC) == 1 && k.nr == 1 && k.nev_all == 3);
    dw_ift_check_del(c);
    coll_free(&k);
    free(cut.cut);
    free(b);
    stream_free(&s);
}

/* The search gives up after exactly search_limit rejected candidates,
 * wherever the limit falls (its fast path past sizes that cannot be
 * skips many at once): random octets, sizes above max_header, zeros (a
 * header too short), fed whole or in small pieces. */
static void test_search_limit_exact(void)
{
    uint64_t seed = 41;
    static uint8_t junk[3000];
    for (size_t i = 0; i < sizeof junk; i++) {
        int run = (int)(i / 300 % 3); /* random, large sizes, zeros */
        junk[i] = run == 2 ? 0 : (uint8_t)(dw_rand(&seed) | (run == 1 ? 0x40 : 0));
    }
    static const uint64_t lims[] = {1, 2, 3, 64, 299, 300, 301, 650, 1000, 2500};
    for (size_t li = 0; li < sizeof lims / sizeof lims[0]; li++) {
        for (int v = 0; v < 4; v++) {
            dw_ift_check_settings set;
            dw_ift_check_settings_default(&set);
            set.search_start = 1;
            set.search_limit = lims[li];
            set.max_header = v & 1 ? 0x3fff : set.max_header;
            coll k;
            dw_ift_check *c = mk(&set, &k);
            for (size_t a = 0; a < sizeof junk;) {
                size_t n = v & 2 ? 1 + dw_rand(&seed) % 7 : sizeof junk;
                n = n < sizeof junk - a ? n : sizeof junk - a;
                CHECK(dw_ift_check_data(c, junk + a, n, NULL) == 0);
                a += n;
            }
            CHECK(dw_ift_check_end(c) == 0);
            CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_NO_SYNC), 1);
            const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_NO_SYNC);
            CHECK(e && e->len == lims[li] + 1); /* the candidates rejected */
            CHECK_EQ_U(k.nr, 0);
            dw_ift_check_stats st;
            dw_ift_check_stats_get(c, &st);
            CHECK_EQ_U(st.skipped_octets, sizeof junk);
            dw_ift_check_del(c);
            coll_free(&k);
        }
    }
}

static void test_api(void)
{
    dw_ift_check *c = NULL;
    dw_ift_check_settings set;
    dw_ift_check_settings_default(&set);
    CHECK(dw_ift_check_new(NULL, &set, &cbs, NULL) == DW_ERR_INVAL);
    set.max_header = 65536;
    CHECK(dw_ift_check_new(&c, &set, &cbs, NULL) == DW_ERR_INVAL && !c);
    dw_ift_check_settings_default(&set);
    set.head_len = 257;
    CHECK(dw_ift_check_new(&c, &set, &cbs, NULL) == DW_ERR_INVAL && !c);
    dw_ift_check_del(NULL);
    coll k;
    c = mk(NULL, &k);
    CHECK(dw_ift_check_data(NULL, vecs, 1, NULL) == DW_ERR_INVAL);
    CHECK(dw_ift_check_data(c, NULL, 1, NULL) == DW_ERR_INVAL);
    CHECK(dw_ift_check_gap(c, NULL) == DW_ERR_INVAL);
    CHECK(dw_ift_check_end(NULL) == DW_ERR_INVAL);
    /* untagged octets, then a chunk past them: an implied gap */
    CHECK(dw_ift_check_data(c, vecs, 12, NULL) == 0);
    dw_reasm_chunk ch = {47, 1047, 3, 1047, 32, 1, 1};
    CHECK(dw_ift_check_data(c, vecs + 47, 32, &ch) == 0);
    ch.offset = 40;
    CHECK(dw_ift_check_data(c, vecs + 40, 1, &ch) == DW_ERR_INVAL);
    CHECK(k.nr == 2 && k.r[0].f.segments == 0 && k.r[0].f.header_crc == DW_IFT_CHECK_CRC_GOOD);
    const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_GAP);
    CHECK(e && e->off == 12 && e->len == 35 && e->seq == 1012);
    CHECK(k.nr == 2 && k.r[1].f.offset == 47 && k.r[1].f.resync && k.r[1].f.seq == 1047 &&
          k.r[1].f.aligned && k.r[1].f.first_pkt == 3);
    /* a callback cannot feed */
    k.reenter = 1;
    dw_reasm_gap gp = {79, 1079, 1, DW_REASM_GAP_SNAPLEN, 4};
    CHECK(dw_ift_check_gap(c, &gp) == 0);
    CHECK_EQ_U(k.reenter_rc, DW_ERR_STATE);
    CHECK(strstr(k.ev[k.nev - 2].detail, "snap length") != NULL);
    k.reenter = 0;
    CHECK(dw_ift_check_end(c) == 0);
    CHECK(dw_ift_check_end(c) == 0);
    CHECK(dw_ift_check_data(c, vecs, 1, NULL) == DW_ERR_STATE);
    dw_ift_check_del(c);
    coll_free(&k);
    CHECK(strcmp(dw_ift_check_event_name(DW_IFT_CHECK_EV_HEADER_CRC), "header_crc") == 0);
    CHECK(strcmp(dw_ift_check_event_name(DW_IFT_CHECK_EV_NO_SYNC), "no_sync") == 0);
    CHECK(strcmp(dw_ift_check_event_name((dw_ift_check_event_kind)99), "unknown") == 0);
}

int main(void)
{
    quick = getenv("DW_TEST_QUICK") != NULL;
    RUN(test_vectors);
    RUN(test_segmentations);
    RUN(test_aligned_packed);
    RUN(test_payload_crc);
    RUN(test_header_crc);
    RUN(test_garbage);
    RUN(test_gaps);
    RUN(test_gap_while_searching);
    RUN(test_truncation);
    RUN(test_limits);
    RUN(test_search_limit_exact);
    RUN(test_api);
    return dw_test_finish();
}
