/* SPDX-License-Identifier: MIT */
/*
 * MPA stream checker, a capture that begins in the middle of a
 * connection (START_SEARCH, and AUTO falling back to it): streams framed
 * by our sender (markers on, CRC on and off, both FPDUPTR readings,
 * random sizes, 1008-octet FPDUs, sizes that never put an FPDU boundary
 * on a marker) cut at every offset of their first 2 KiB and at random
 * later ones, each tail fed to a fresh checker. The rule under test: the
 * first FPDU reported is the first one that begins at or after the cut
 * and holds a marker (a leading zero marker counts): its marker names it
 * (MPA 7.1), no FPDU without one can be told from its payload. Every
 * FPDU after it must be reported as sent, positions right mod 512, with
 * no error. Random octets must never give a start.
 */
#include "mpa_check_util.h"

/* The FPDU the search must find after cut: the first that begins at or
 * after it and holds a marker. */
static size_t expect_first(const stream *s, size_t cut)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->at[i] >= cut && s->info[i].markers)
            return i;
    return s->n;
}

/* Records of k against the sender's FPDUs j.. of s fed from cut (stream
 * offsets in the checker count from the cut, plus a garbage prefix gl). */
static void check_tail(const coll *k, const stream *s, size_t j, size_t cut,
                       size_t gl, size_t nend)
{
    CHECK_EQ_U(k->nr, nend - j);
    uint64_t pos0 = k->nr ? k->r[0].f.pos : 0;
    CHECK(pos0 < 512);
    for (size_t x = 0; x < k->nr && j + x < nend; x++) {
        const dw_mpa_check_fpdu *f = &k->r[x].f;
        size_t i = j + x, len = s->info[i].len;
        CHECK_EQ_U(f->index, x);
        CHECK_EQ_U(f->offset, s->at[i] - cut + gl);
        /* MPA positions: right mod 512, from an arbitrary multiple */
        CHECK_EQ_U(f->pos % 512, s->info[i].pos % 512);
        CHECK_EQ_U(f->pos - pos0, s->info[i].pos - s->info[j].pos);
        CHECK_EQ_U(f->ulpdu_len, s->ulen[i]);
        CHECK_EQ_U(f->fpdu_len, len);
        CHECK_EQ_U(f->markers, s->info[i].markers);
        CHECK_EQ_U(f->bad_markers, 0);
        CHECK(!f->pad_nonzero && !f->resync);
        CHECK_EQ_U(f->crc, s->crc ? DW_MPA_CHECK_CRC_GOOD : DW_MPA_CHECK_CRC_OFF);
        CHECK_EQ_U(f->crc_wire, dw_crc32c_load(s->b + s->at[i] + len - 4));
        size_t hl = s->ulen[i] < 64 ? s->ulen[i] : 64;
        CHECK_EQ_U(f->head_len, hl);
        CHECK(memcmp(k->r[x].head, s->u + s->uoff[i], hl) == 0);
    }
}

/* Feeds s from cut to FPDU nend's start (garbage of gl octets first),
 * cut into segments of up to maxseg octets; checks everything. */
/* The sender's FPDU at offset off of s, else s->n. */
static size_t fpdu_at(const stream *s, size_t off)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->at[i] == off)
            return i;
    return s->n;
}

static void run_cut(const stream *s, size_t cut, const uint8_t *junk, size_t gl,
                    int setmode, size_t maxseg, uint64_t *seed)
{
    size_t j = expect_first(s, cut), nend = j;
    while (nend < s->n && (s->at[nend] < cut + 3000 || nend < j + 3))
        nend++;
    size_t end = nend < s->n ? s->at[nend] : s->len;
    size_t n = gl + end - cut;
    unsigned long f0 = dw_t_fail;
    uint8_t *b = malloc(n + 1);
    if (gl)
        memcpy(b, junk, gl);
    memcpy(b + gl, s->b + cut, end - cut);
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    st.start = gl % 2 ? DW_MPA_CHECK_START_AUTO : DW_MPA_CHECK_START_SEARCH;
    coll k;
    dw_mpa_check *c = mk(&st, &k);
    if (setmode) /* the mode from the frames: markers on, CRC as sent */
        CHECK(dw_mpa_check_set_mode(c, 1, s->crc) == 0);
    segs g;
    segs_random(&g, n, seed, maxseg);
    feed_b(c, b, n, &g, 0, 0, n, (int)(cut & 1), seed);
    if (maxseg < 8 && k.nr) { /* pieces run out: perhaps a later FPDU */
        size_t x = fpdu_at(s, (size_t)k.r[0].f.offset + cut - gl);
        CHECK(x >= j && x < nend);
        j = x < nend ? x : j;
    }
    check_tail(&k, s, j, cut, gl, nend);
    dw_mpa_check_stats ss;
    dw_mpa_check_stats_get(c, &ss);
    CHECK(ss.started);
    CHECK_EQ_U(ss.start_offset, s->at[j] - cut + gl);
    CHECK_EQ_U(ss.skipped_octets, s->at[j] - cut + gl);
    CHECK_EQ_U(ss.markers, 1);
    CHECK_EQ_U(ss.crc, s->crc);
    CHECK_EQ_U(ss.crc_bad + ss.marker_errors + ss.length_errors + ss.pad_errors, 0);
    CHECK_EQ_U(ss.resyncs, 0);
    CHECK_EQ_U(ss.first_error, DW_MPA_ERR_NONE);
    size_t nm = 0;
    for (size_t i = j; i < nend; i++)
        nm += s->info[i].markers;
    CHECK_EQ_U(k.nmk, nm);
    CHECK_EQ_U(k.nmk_bad, 0);
    /* one event: the start, saying how it was found */
    CHECK_EQ_U(k.nev_all, 1);
    const evrec *e = find_ev(&k, DW_MPA_CHECK_EV_START);
    CHECK(e && e->off == s->at[j] - cut + gl);
    int lead = s->info[j].pos % 512 == 0;
    CHECK(e && (strstr(e->detail, "mid-stream") != NULL) == !lead);
    CHECK(e && (strstr(e->detail, "zero marker") != NULL) == lead);
    if (dw_t_fail != f0)
        fprintf(stderr, "cut %zu (garbage %zu, FPDU %zu): %s\n", cut, gl, j,
                k.nev ? k.ev[0].detail : "no event");
    dw_mpa_check_del(c);
    coll_free(&k);
    free(g.cut);
    free(b);
}

/* Every cut in the first 2 KiB (a step in quick mode), random ones later. */
static void sweep(const stream *s, int setmode, size_t maxseg, uint64_t *seed)
{
    static uint8_t junk[700];
    size_t step = quick ? 13 : 1;
    for (size_t cut = 0; cut < 2048; cut += step)
        run_cut(s, cut, junk, 0, setmode, maxseg, seed);
    for (int r = 0; r < (quick ? 8 : 40); r++) {
        size_t gl = r % 3 ? 0 : 1 + dw_rand(seed) % sizeof junk;
        for (size_t i = 0; i < gl; i++)
            junk[i] = (uint8_t)dw_rand(seed);
        run_cut(s, dw_rand(seed) % (s->len / 2), junk, gl, setmode, maxseg, seed);
    }
}

/* Zero markers after position 0 in s (FPDUs that begin with one). */
static size_t zero_markers(const stream *s)
{
    size_t z = 0;
    for (size_t i = 1; i < s->n; i++)
        z += s->info[i].pos % 512 == 0;
    return z;
}

static void test_random_sizes(void)
{
    uint64_t seed = dw_test_seed();
    for (int v = 0; v < 8; v++) {
        cfg g = {1, v & 1, v & 2 ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT, v & 4 ? 60 : 250,
                 v & 4 ? 1400 : 90, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        sweep(&s, v % 3 == 1, v & 4 ? 1460 : 200, &seed);
        stream_free(&s);
    }
}

/* 1008-octet FPDUs (ULPDU 1002): a zero marker every 127 FPDUs (MPA 7.1:
 * 1008 / 4 and 508 / 4 = 127 share no factor). */
static void test_1008(void)
{
    uint64_t seed = 21;
    size_t lens[140];
    for (size_t i = 0; i < 140; i++)
        lens[i] = 1002;
    for (int v = 0; v < 2; v++) {
        cfg g = {1, v, DW_MPA_PTR_DRAFT, 140, 1002, NULL, 0, lens};
        stream s;
        build(&s, &g, &seed);
        CHECK_EQ_U(zero_markers(&s), 1); /* at FPDU 127 only */
        CHECK_EQ_U(s.info[127].pos % 512, 0);
        sweep(&s, 0, 1460, &seed);
        run_cut(&s, s.at[126] + 1, NULL, 0, 0, 1460, &seed); /* at the zero marker */
        stream_free(&s);
    }
}

/* Sizes that never put an FPDU boundary on a marker: after the first
 * FPDUs, ULPDUs of 508 m - 6 octets (FPDU content a multiple of 508,
 * the octets between markers) keep every boundary where it was mod 508. */
static void test_never_zero(void)
{
    uint64_t seed = 22;
    size_t lens[80];
    for (int v = 0; v < 4; v++) {
        for (size_t i = 0; i < 80; i++)
            lens[i] = i < 3 ? 1 + dw_rand(&seed) % 300
                            : 508 * (1 + dw_rand(&seed) % 4) - 6;
        cfg g = {1, v & 1, v & 2 ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT, 80, 2100,
                 NULL, 0, lens};
        stream s;
        build(&s, &g, &seed);
        if (zero_markers(&s)) { /* the first sizes summed to 508 n: redo */
            stream_free(&s);
            v--;
            continue;
        }
        sweep(&s, v == 1, 1460, &seed);
        stream_free(&s);
    }
}

/* Tiny segments (the search buffer remembers 4096 pieces: the search
 * may look back less far, and start at a later FPDU) and FPDUs that
 * a 64 KiB FPDUPTR names; CRC off: two FPDUs in a row are checked, more
 * than the buffer holds after the 64 KiB behind the cursor. */
static void test_extremes(void)
{
    uint64_t seed = 23;
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 400, 40, NULL, 0, NULL};
    stream s;
    build(&s, &g, &seed);
    for (size_t cut = 0; cut < (quick ? 300 : 700); cut += 11)
        run_cut(&s, cut, NULL, 0, 0, 1, &seed);
    stream_free(&s);
    size_t lens[6] = {60000, 64768, 64768, 63000, 64768, 100};
    for (int v = 0; v < 2; v++) {
        cfg h = {1, v, DW_MPA_PTR_DRAFT, 6, 64768, NULL, 0, lens};
        build(&s, &h, &seed);
        for (int r = 0; r < (quick ? 1 : 3); r++) {
            size_t cut = 1 + dw_rand(&seed) % (s.at[2] - 1);
            size_t j = expect_first(&s, cut);
            CHECK(j == 1 || j == 2);
            dw_mpa_check_settings st;
            dw_mpa_check_settings_default(&st);
            st.start = DW_MPA_CHECK_START_SEARCH;
            coll k;
            dw_mpa_check *c = mk(&st, &k);
            segs sg;
            segs_random(&sg, s.len - cut, &seed, 9000);
            feed_b(c, s.b + cut, s.len - cut, &sg, 0, 0, s.len - cut, 0, &seed);
            check_tail(&k, &s, j, cut, 0, s.n);
            CHECK_EQ_U(k.nev_all, 1);
            dw_mpa_check_del(c);
            coll_free(&k);
            free(sg.cut);
        }
        stream_free(&s);
    }
}

/* Random octets: no start, whatever the mode given (1 MB with the mode
 * learned, a quarter of that with each mode given). */
static void test_random_octets(void)
{
    uint64_t seed = 24;
    size_t n = quick ? 200000 : 1000000;
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)dw_rand(&seed);
    for (int v = 0; v < 4; v++, n = n > 250000 ? 250000 : n) {
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        st.start = DW_MPA_CHECK_START_SEARCH;
        st.search_limit = n;
        st.markers = v & 1 ? 1 : -1;
        st.crc = v & 2 ? 0 : -1; /* the weakest: CRC off, fields zero */
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        segs g;
        segs_random(&g, n, &seed, 3000);
        feed_b(c, b, n, &g, 0, 0, n, 0, &seed);
        CHECK_EQ_U(k.nr, 0);
        CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_START), 0);
        CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_NO_START), 1);
        dw_mpa_check_stats ss;
        dw_mpa_check_stats_get(c, &ss);
        CHECK(!ss.started);
        CHECK_EQ_U(ss.skipped_octets, n);
        dw_mpa_check_del(c);
        coll_free(&k);
        free(g.cut);
    }
    free(b);
}

/* A marker whose FPDU began before the capture: the next one is used;
 * a corrupted one (CRC off the FPDU it names) is not trusted. */
static void test_marker_not_trusted(void)
{
    uint64_t seed = 25;
    size_t lens[8] = {1500, 1500, 1500, 1500, 1500, 1500, 1500, 1500};
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 8, 1500, NULL, 0, lens};
    stream s;
    build(&s, &g, &seed);
    /* FPDU 1's markers all say where it begins: cut just after that */
    size_t cut = s.at[1] + 1;
    CHECK_EQ_U(expect_first(&s, cut), 2);
    run_cut(&s, cut, NULL, 0, 0, 1460, &seed);
    /* FPDU 2's CRC broken: FPDU 3 is the first the search accepts */
    s.b[s.at[2] + 100] ^= 0x40;
    size_t n = s.len - cut;
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    st.start = DW_MPA_CHECK_START_SEARCH;
    coll k;
    dw_mpa_check *c = mk(&st, &k);
    CHECK(dw_mpa_check_data(c, s.b + cut, n, NULL) == 0);
    CHECK(dw_mpa_check_end(c) == 0);
    check_tail(&k, &s, 3, cut, 0, s.n);
    dw_mpa_check_del(c);
    coll_free(&k);
    stream_free(&s);
}

/* A wrong FPDUPTR in the FPDU a marker names, its CRC rewritten to
 * match: the FPDU is not valid (MPA 7.1), the next one is taken. */
static void test_bad_marker_inside(void)
{
    uint64_t seed = 26;
    size_t lens[8] = {2000, 2000, 2000, 2000, 2000, 2000, 2000, 2000};
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 8, 2000, NULL, 0, lens};
    stream s;
    build(&s, &g, &seed);
    size_t m = inner_marker(&s, 2), cut = s.at[1] + 8;
    CHECK(m && expect_first(&s, cut) == 2);
    s.b[m + 512 + 3] ^= 0x10; /* FPDU 2's second marker: FPDUPTR + 16 */
    fix_crc(&s, 2);
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    st.start = DW_MPA_CHECK_START_SEARCH;
    coll k;
    dw_mpa_check *c = mk(&st, &k);
    CHECK(dw_mpa_check_data(c, s.b + cut, s.len - cut, NULL) == 0);
    CHECK(dw_mpa_check_end(c) == 0);
    check_tail(&k, &s, 3, cut, 0, s.n);
    dw_mpa_check_del(c);
    coll_free(&k);
    stream_free(&s);
}

/* A whole stream (cut 0) searched: found at its position 0, clean. */
static void test_whole(void)
{
    uint64_t seed = 27;
    for (int v = 0; v < 4; v++) {
        cfg g = {v & 1, v >> 1, DW_MPA_PTR_DRAFT, 50, 1400, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        segs cut;
        if (v & 1)
            segs_fixed(&cut, s.len, 1 + dw_rand(&seed) % 1460);
        else
            segs_fpdus(&cut, &s, 1 + v);
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        st.start = DW_MPA_CHECK_START_SEARCH;
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        feed(c, &s, &cut, 0, 0, s.len, v & 1, &seed);
        check_clean(c, &k, &s, &cut);
        dw_mpa_check_del(c);
        coll_free(&k);
        free(cut.cut);
        stream_free(&s);
    }
}

int main(void)
{
    quick = getenv("DW_TEST_QUICK") != NULL;
    RUN(test_random_sizes);
    RUN(test_1008);
    RUN(test_never_zero);
    RUN(test_extremes);
    RUN(test_random_octets);
    RUN(test_marker_not_trusted);
    RUN(test_bad_marker_inside);
    RUN(test_whole);
    return dw_test_finish();
}
