/* SPDX-License-Identifier: MIT */
/*
 * IFT stream checker, a capture that begins in the middle of a
 * connection (settings.search_start): streams framed by dw_ift_encode()
 * cut at every offset of their first 2 KiB and at random later ones,
 * with and without garbage before the cut, each tail fed to a fresh
 * checker. The first frame reported must be the first that begins at or
 * after the cut (all DDP headers here have at least 4 octets, so the
 * search can take each), every later one as encoded, no error; random
 * octets must never give a start; without search_start the checker
 * still expects a frame at offset 0.
 */
#include <ddpwire/ift_check.h>

#include "ift_check_util.h"

typedef struct stream {
    uint8_t *b;
    size_t len, n;
    size_t at[401], hl[400], pl[400];
} stream;

/* n frames: DDP headers of 4..hmax octets, payloads of 0..pmax. */
static void build(stream *s, size_t n, size_t hmax, size_t pmax, uint64_t *seed)
{
    uint8_t h[256], p[4096];
    s->b = malloc(n * (12 + hmax + pmax));
    s->len = 0;
    s->n = n;
    for (size_t i = 0; i < n; i++) {
        s->hl[i] = 4 + dw_rand(seed) % (hmax - 3);
        s->pl[i] = dw_rand(seed) % 5 == 0 ? 0 : dw_rand(seed) % (pmax + 1);
        for (size_t j = 0; j < s->hl[i]; j++)
            h[j] = (uint8_t)dw_rand(seed);
        for (size_t j = 0; j < s->pl[i]; j++)
            p[j] = (uint8_t)dw_rand(seed);
        ssize_t w = dw_ift_encode(s->b + s->len, n * (12 + hmax + pmax) - s->len, h,
                                  s->hl[i], p, s->pl[i]);
        CHECK(w > 0 && (size_t)w == 12 + s->hl[i] + s->pl[i]);
        s->at[i] = s->len;
        s->len += (size_t)w;
    }
    s->at[n] = s->len;
}

/* Feeds s from cut to the end of the frame nearest cut + 6000, after gl
 * octets of junk, in segments of up to maxseg; checks everything. */
static void run_cut(const stream *s, size_t cut, const uint8_t *junk, size_t gl,
                    size_t maxseg, uint64_t *seed)
{
    size_t j = 0;
    while (j < s->n && s->at[j] < cut)
        j++;
    size_t nend = j;
    while (nend < s->n && s->at[nend] < cut + 6000)
        nend++;
    size_t n = gl + s->at[nend] - cut;
    uint8_t *b = malloc(n + 1);
    if (gl)
        memcpy(b, junk, gl);
    memcpy(b + gl, s->b + cut, s->at[nend] - cut);
    dw_ift_check_settings st;
    dw_ift_check_settings_default(&st);
    st.search_start = 1;
    coll k;
    dw_ift_check *c = mk(&st, &k);
    segs g;
    segs_random(&g, n, seed, maxseg);
    unsigned long f0 = dw_t_fail;
    feed_b(c, b, n, &g, 0, 0, n, (int)(cut & 1), seed);
    CHECK_EQ_U(k.nr, nend - j);
    for (size_t x = 0; x < k.nr && j + x < nend; x++) {
        const dw_ift_check_frame *f = &k.r[x].f;
        size_t i = j + x, at = s->at[i], len = s->at[i + 1] - at;
        CHECK_EQ_U(f->index, x);
        CHECK_EQ_U(f->offset, at - cut + gl);
        CHECK_EQ_U(f->header_size, s->hl[i]);
        CHECK_EQ_U(f->payload_size, s->pl[i]);
        CHECK_EQ_U(f->frame_len, len);
        CHECK(f->header_crc == DW_IFT_CHECK_CRC_GOOD && f->payload_crc == DW_IFT_CHECK_CRC_GOOD);
        CHECK_EQ_U(f->header_crc_wire, dw_crc32c_load(s->b + at + 4 + s->hl[i]));
        CHECK_EQ_U(f->payload_crc_calc, dw_crc32c(0, s->b + at + 8 + s->hl[i], s->pl[i]));
        CHECK(!f->resync);
        size_t h = s->hl[i] < 64 ? s->hl[i] : 64;
        CHECK(f->head_len == h && memcmp(k.r[x].head, s->b + at + 4, h) == 0);
        check_segs(f, &g, at - cut + gl, len, x == 0, n);
    }
    size_t at[402], end[402];
    for (size_t i = j; i < nend; i++) {
        at[i - j] = s->at[i] - cut + gl;
        end[i - j] = s->at[i + 1] - cut + gl;
    }
    dw_ift_check_stats ss;
    dw_ift_check_stats_get(c, &ss);
    CHECK(ss.in_sync);
    check_seg_counts(ss.seg_with_start, ss.seg_packed, &g, n, nend - j, at, end);
    CHECK_EQ_U(ss.skipped_octets, s->at[j] - cut + gl);
    CHECK_EQ_U(ss.resyncs + ss.header_crc_bad + ss.payload_crc_bad + ss.size_errors, 0);
    CHECK_EQ_U(ss.first_error, DW_IFT_ERR_NONE);
    CHECK_EQ_U(k.nev_all, 1);
    const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_START);
    CHECK(e && e->off == s->at[j] - cut + gl && e->len == s->at[j] - cut + gl);
    CHECK(e && strstr(e->detail, "found by search"));
    if (dw_t_fail != f0)
        fprintf(stderr, "cut %zu (garbage %zu, frame %zu): %s\n", cut, gl, j,
                k.nev ? k.ev[0].detail : "no event");
    dw_ift_check_del(c);
    coll_free(&k);
    free(g.cut);
    free(b);
}

static void test_cuts(void)
{
    uint64_t seed = dw_test_seed();
    static uint8_t junk[3000];
    static stream s;
    for (int v = 0; v < 3; v++) {
        build(&s, 400, v == 2 ? 200 : 40, v == 1 ? 60 : 1500, &seed);
        for (size_t cut = 0; cut < 2048; cut += quick ? 7 : 1)
            run_cut(&s, cut, NULL, 0, v == 0 ? 1460 : 9, &seed);
        for (int r = 0; r < (quick ? 10 : 60); r++) {
            size_t gl = r % 2 ? 0 : 1 + dw_rand(&seed) % sizeof junk;
            for (size_t i = 0; i < gl; i++) /* random, or zeros */
                junk[i] = r % 4 == 2 ? 0 : (uint8_t)dw_rand(&seed);
            run_cut(&s, (size_t)(dw_rand(&seed) % (s.len - 7000)), junk, gl, 1460, &seed);
        }
        free(s.b);
    }
}

/* Random octets: no start, within the limit or at the end. */
static void test_random_octets(void)
{
    uint64_t seed = 61;
    size_t n = quick ? 200000 : 1000000;
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)dw_rand(&seed);
    for (int lim = 0; lim < 2; lim++) {
        dw_ift_check_settings st;
        dw_ift_check_settings_default(&st);
        st.search_start = 1;
        st.search_limit = lim ? 5000 : n;
        coll k;
        dw_ift_check *c = mk(&st, &k);
        segs g;
        segs_random(&g, n, &seed, 3000);
        feed_b(c, b, n, &g, 0, 0, n, 0, &seed);
        CHECK_EQ_U(k.nr, 0);
        CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_START), 0);
        CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_NO_SYNC), 1);
        const evrec *e = find_ev(&k, DW_IFT_CHECK_EV_NO_SYNC);
        CHECK(e && strstr(e->detail, "start"));
        dw_ift_check_stats ss;
        dw_ift_check_stats_get(c, &ss);
        CHECK(!ss.in_sync);
        CHECK_EQ_U(ss.skipped_octets, n);
        dw_ift_check_del(c);
        coll_free(&k);
        free(g.cut);
    }
    free(b);
}

/* The default still wants a frame at offset 0: a cut stream is an error
 * there (not a start). A whole stream searched is found at offset 0. */
static void test_modes(void)
{
    uint64_t seed = 62;
    static stream s;
    build(&s, 40, 40, 300, &seed);
    size_t cut = s.at[3] + 5;
    coll k;
    dw_ift_check *c = mk(NULL, &k);
    segs g;
    segs_fixed(&g, s.len - cut, 1000);
    feed_b(c, s.b + cut, s.len - cut, &g, 0, 0, s.len - cut, 0, &seed);
    free(g.cut);
    CHECK_EQ_U(count_ev(&k, DW_IFT_CHECK_EV_START), 0);
    dw_ift_check_stats ss;
    dw_ift_check_stats_get(c, &ss);
    CHECK(ss.first_error != DW_IFT_ERR_NONE && ss.first_error_offset == 0);
    dw_ift_check_del(c);
    coll_free(&k);
    run_cut(&s, 0, NULL, 0, 100, &seed);
    CHECK(strcmp(dw_ift_check_event_name(DW_IFT_CHECK_EV_START), "start") == 0);
    free(s.b);
}

int main(void)
{
    quick = getenv("DW_TEST_QUICK") != NULL;
    RUN(test_cuts);
    RUN(test_random_octets);
    RUN(test_modes);
    return dw_test_finish();
}
