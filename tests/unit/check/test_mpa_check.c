/* SPDX-License-Identifier: MIT */
/*
 * MPA stream checker: the spec's Figure 5 and 6 FPDUs byte for byte;
 * streams framed by our sender (markers on and off, both FPDUPTR
 * readings, CRC on and off, RFC 5044 frames before them) fed under every
 * segmentation, each FPDU record checked against the sender's own list
 * and the segments the test cut; alignment and packing verdicts; a
 * marker between FPDUs and one before the CRC; corruption (CRC, FPDUPTR,
 * reserved, pad, ULPDU_Length); gaps with and without markers;
 * truncation; the start found after garbage.
 */
#include <ddpwire/mpa_startup.h>

#include "check/mpa_check_int.h"
#include "mpa_check_util.h"

/* ------------------------------------------------------------------ */
/* The spec's examples                                                 */
/* ------------------------------------------------------------------ */

/* MPA 7.2, Figure 5: the first FPDU of a stream, 24 zero octets of Send. */
static size_t fig5(uint8_t *p)
{
    static const uint8_t hdr[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x40, 0x03,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00};
    memset(p, 0, 0x34);
    memcpy(p, hdr, sizeof hdr);
    memcpy(p + 0x30, "\x4c\x86\xb3\x84", 4);
    return 0x34;
}

/* Figure 6: the second FPDU, at 0x1ec after a 492-octet first one. */
static size_t fig6(uint8_t *p)
{
    static const uint8_t hdr[] = {0x00, 0x2a, 0x40, 0x03, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14};
    /* first FPDU: zero marker, ULPDU_Length 482, 482 octets, CRC */
    memset(p, 0, 0x220);
    p[4] = 0x01, p[5] = 0xe2;
    for (size_t i = 0; i < 482; i++)
        p[6 + i] = (uint8_t)(i * 7);
    dw_crc32c_store(p + 488, dw_crc32c(0, p, 488));
    memcpy(p + 0x1ec, hdr, sizeof hdr);
    memcpy(p + 0x21c, "\xa1\x9c\xd1\x03", 4);
    return 0x220;
}

static void run_bytes(const dw_mpa_check_settings *st, coll *k, const uint8_t *p,
                      size_t n, size_t cut)
{
    dw_mpa_check *c = mk(st, k);
    for (size_t o = 0; o < n; o += cut) {
        size_t l = n - o < cut ? n - o : cut;
        dw_reasm_chunk ch = {o, (uint32_t)o, o / cut + 1, (uint32_t)o, (uint32_t)l, 1, 1};
        CHECK(dw_mpa_check_data(c, p + o, l, &ch) == 0);
    }
    CHECK(dw_mpa_check_end(c) == 0);
    dw_mpa_check_del(c);
}

static void test_figures(void)
{
    uint8_t b[0x220];
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    static const size_t cuts[] = {1, 2, 3, 5, 52, 0x220};
    for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
        coll k;
        size_t n = fig5(b);
        run_bytes(&st, &k, b, n, cuts[ci]);
        CHECK_EQ_U(k.nr, 1);
        CHECK_EQ_U(k.r[0].f.ulpdu_len, 42);
        CHECK_EQ_U(k.r[0].f.pad, 0);
        CHECK_EQ_U(k.r[0].f.fpdu_len, 0x34);
        CHECK_EQ_U(k.r[0].f.markers, 1);
        CHECK_EQ_U(k.r[0].f.crc, DW_MPA_CHECK_CRC_GOOD);
        CHECK_EQ_U(k.r[0].f.crc_wire, 0x84b3864cu); /* sent LSB first */
        CHECK_EQ_U(k.r[0].f.crc_calc, 0x84b3864cu);
        CHECK_EQ_U(k.r[0].head[0], 0x40);
        CHECK_EQ_U(k.r[0].head[13], 0x01); /* MSN 1 */
        CHECK_EQ_U(k.nmk, 1);
        coll_free(&k);

        n = fig6(b);
        run_bytes(&st, &k, b, n, cuts[ci]);
        CHECK_EQ_U(k.nr, 2);
        CHECK_EQ_U(k.r[0].f.fpdu_len, 492);
        CHECK_EQ_U(k.r[1].f.offset, 0x1ec);
        CHECK_EQ_U(k.r[1].f.ulpdu_len, 42);
        CHECK_EQ_U(k.r[1].f.fpdu_len, 0x34);
        CHECK_EQ_U(k.r[1].f.markers, 1);
        CHECK_EQ_U(k.r[1].f.bad_markers, 0);
        CHECK_EQ_U(k.r[1].f.crc, DW_MPA_CHECK_CRC_GOOD);
        CHECK_EQ_U(k.r[1].f.crc_wire, 0x03d19ca1u);
        CHECK_EQ_U(k.r[1].head[17], 0x00);
        CHECK_EQ_U(k.r[1].head[13], 0x02); /* MSN 2 */
        CHECK(memcmp(k.r[1].head + 18, (uint8_t[24]){0}, 24) == 0);
        CHECK_EQ_U(k.nev_all, 1);
        coll_free(&k);

        /* Figure 6 with FPDUPTR 0x18 (CRC fixed): MPA 9 code 3 at 0x200 */
        b[0x203] = 0x18;
        dw_crc32c_store(b + 0x21c, dw_crc32c(0, b + 0x1ec, 0x30));
        run_bytes(&st, &k, b, n, cuts[ci]);
        const evrec *e = find_ev(&k, DW_MPA_CHECK_EV_MARKER);
        CHECK(e && e->code == DW_MPA_ERR_MARKER && e->off == 0x200);
        CHECK(e && strcmp(e->detail, "FPDUPTR 24, expected 20") == 0);
        CHECK(k.nr == 2 && k.r[1].f.bad_markers == 1 &&
              k.r[1].f.crc == DW_MPA_CHECK_CRC_GOOD);
        CHECK(k.nmk_bad == 1 && k.mk[0].fpduptr == 0x18 && k.mk[0].expected == 20 &&
              k.mk[0].pos == 512 && k.mk[0].offset == 0x200);
        coll_free(&k);

        /* MPA 6.1: FPDUPTR's low two bits are ignored (0x17 reads as 20) */
        b[0x203] = 0x17;
        dw_crc32c_store(b + 0x21c, dw_crc32c(0, b + 0x1ec, 0x30));
        run_bytes(&st, &k, b, n, cuts[ci]);
        CHECK(k.nr == 2 && k.r[1].f.bad_markers == 0 && !find_ev(&k, DW_MPA_CHECK_EV_MARKER));
        coll_free(&k);
    }
}

/* ------------------------------------------------------------------ */
/* Clean streams under every segmentation                              */
/* ------------------------------------------------------------------ */

static void run_clean(const stream *s, const segs *g, int split, int checkseg,
                      dw_mpa_check_start start, uint64_t *seed)
{
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    st.start = start;
    st.start_offset = s->prefix;
    coll k;
    dw_mpa_check *c = mk(&st, &k);
    feed(c, s, g, 0, 0, s->len, split, seed);
    check_clean(c, &k, s, checkseg ? g : NULL);
    if (s->prefix && start != DW_MPA_CHECK_START_AT && s->b[0] == 'M')
        CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_STARTUP), 1);
    dw_mpa_check_del(c);
    coll_free(&k);
}

static void test_segmentations(void)
{
    uint64_t seed = dw_test_seed();
    uint8_t req[2][64]; /* RFC 5044 requests: C clear, C set */
    dw_mpa_nego_settings ns;
    dw_mpa_nego_settings_default(&ns);
    ns.want_crc = 0;
    ssize_t rl = dw_mpa_nego_request(&ns, req[0], sizeof req[0]);
    ns.want_crc = 1;
    CHECK(rl == 20 && dw_mpa_nego_request(&ns, req[1], sizeof req[1]) == 20);
    static const size_t sizes[] = {1, 2, 3, 7, 511, 512, 513, 1460, 9000, 65536};
    for (int v = 0; v < 12; v++) {
        cfg g = {v & 1, !(v & 2), (v & 4) ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT,
                 quick ? 30 : 80, (v & 8) ? 3000 : 600, NULL, 0, NULL};
        if (v >= 8) /* large ULPDUs, an RFC 5044 request first */
            g.prefix = req[g.crc], g.plen = (size_t)rl, g.n = quick ? 8 : 16,
            g.maxlen = (v & 1) ? 20000 : DW_MPA_ULPDU_MAX;
        stream s;
        build(&s, &g, &seed);
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            DW_CASE_HERE("sizes[%zu]", z);
            if (sizes[z] < 7 && s.len > 60000 && quick)
                continue;
            segs cut;
            segs_fixed(&cut, s.len, sizes[z]);
            run_clean(&s, &cut, (int)(z & 1), 1, DW_MPA_CHECK_START_AUTO, &seed);
            free(cut.cut);
        }
        for (int r = 0; r < (quick ? 3 : 12); r++) {
            segs cut;
            segs_random(&cut, s.len, &seed, r % 2 ? 40 : 3000);
            run_clean(&s, &cut, r & 1, 1,
                      r % 3 == 2 ? DW_MPA_CHECK_START_AT : DW_MPA_CHECK_START_AUTO, &seed);
            free(cut.cut);
        }
        stream_free(&s);
    }
}

/* MPA 7.3: header alignment and packing, as the cuts make them. */
static void test_aligned_packed(void)
{
    uint64_t seed = 77;
    for (int mkr = 0; mkr < 2; mkr++) {
        cfg g = {mkr, 1, DW_MPA_PTR_DRAFT, 60, 1400, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        for (size_t group = 1; group <= 4; group++) {
            segs cut;
            segs_fpdus(&cut, &s, group);
            coll k;
            dw_mpa_check_settings st;
            dw_mpa_check_settings_default(&st);
            dw_mpa_check *c = mk(&st, &k);
            feed(c, &s, &cut, 0, 0, s.len, 0, &seed);
            check_clean(c, &k, &s, &cut);
            dw_mpa_check_stats ss;
            dw_mpa_check_stats_get(c, &ss);
            CHECK_EQ_U(ss.aligned, (s.n + group - 1) / group);
            CHECK_EQ_U(ss.packed, group == 1 ? 0 : s.n);
            CHECK_EQ_U(ss.seg_with_start, (s.n + group - 1) / group);
            CHECK_EQ_U(ss.seg_packed, group == 1 ? 0 : s.n / group);
            dw_mpa_check_del(c);
            coll_free(&k);
            free(cut.cut);
        }
        stream_free(&s);
    }
}

/* MPA 7.1: a marker exactly between FPDUs leads the next one; one right
 * after the PAD is inside its FPDU, before the CRC (MPA 7.2). */
static void test_marker_between(void)
{
    /* 4 + 2 + 502 + 4 = 512; then 4 + 2 + 506 = 512: a marker, the CRC */
    static const size_t lens[] = {502, 506, 100, 60000, 30};
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 5, 60000, NULL, 0, lens};
    uint64_t seed = 5;
    stream s;
    build(&s, &g, &seed);
    CHECK_EQ_U(s.info[1].pos, 512);
    CHECK_EQ_U(s.info[1].markers, 2); /* leading one, one before its CRC */
    CHECK_EQ_U(s.info[1].len, 4 + 512 + 4);
    segs cut;
    segs_fixed(&cut, s.len, 1460);
    coll k;
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    dw_mpa_check *c = mk(&st, &k);
    feed(c, &s, &cut, 0, 0, s.len, 0, &seed);
    check_clean(c, &k, &s, &cut);
    dw_mpa_check_del(c);
    coll_free(&k);
    /* the FPDU of 60000 spans three (and more) segments */
    CHECK(s.info[3].len > 2 * 1460);
    free(cut.cut);
    /* exactly three segments for FPDU 3 */
    segs three = {malloc(8 * sizeof(size_t)), 0};
    three.cut[three.n++] = 0;
    three.cut[three.n++] = s.at[3];
    three.cut[three.n++] = s.at[3] + 20000;
    three.cut[three.n++] = s.at[3] + 40000;
    three.cut[three.n++] = s.at[4];
    c = mk(&st, &k);
    feed(c, &s, &three, 0, 0, s.len, 1, &seed);
    check_clean(c, &k, &s, &three);
    CHECK(k.nr == 5 && k.r[3].f.segments == 3 && k.r[3].f.first_pkt == 2 &&
          k.r[3].f.last_pkt == 4 && k.r[3].f.aligned && !k.r[3].f.packed);
    dw_mpa_check_del(c);
    coll_free(&k);
    free(three.cut);
    stream_free(&s);
}

/* ------------------------------------------------------------------ */
/* Corruption                                                          */
/* ------------------------------------------------------------------ */

static size_t lead_of(const stream *s, size_t i)
{
    return s->markers && s->info[i].pos % 512 == 0 ? 4 : 0;
}

/* Runs s (START_AUTO) under a few cuttings; calls fn on each result. */
typedef void (*judge_fn)(dw_mpa_check *c, const coll *k, const stream *s,
                         const segs *g, const void *arg);

static void run_cuts(const stream *s, size_t ha, size_t hb, size_t end,
                     judge_fn fn, const void *arg, uint64_t *seed)
{
    static const size_t sizes[] = {1, 13, 1460, 65536};
    for (size_t z = 0; z < 5; z++) {
        segs g;
        if (z < 4)
            segs_fixed(&g, s->len, sizes[z]);
        else
            segs_random(&g, s->len, seed, 700);
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        feed(c, s, &g, ha, hb, end, (int)(z & 1), seed);
        fn(c, &k, s, &g, arg);
        dw_mpa_check_del(c);
        coll_free(&k);
        free(g.cut);
    }
}

static void judge_bad_crc(dw_mpa_check *c, const coll *k, const stream *s,
                          const segs *g, const void *arg)
{
    size_t bad = *(const size_t *)arg;
    CHECK_EQ_U(k->nr, s->n);
    for (size_t i = 0; i < k->nr && i < s->n; i++) {
        if (i != bad) {
            check_rec(&k->r[i], s, i, g);
            continue;
        }
        CHECK_EQ_U(k->r[i].f.crc, DW_MPA_CHECK_CRC_BAD);
        CHECK_EQ_U(k->r[i].f.offset, s->at[i]);
        CHECK(k->r[i].f.crc_calc != k->r[i].f.crc_wire);
    }
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_CRC), 1);
    const evrec *e = find_ev(k, DW_MPA_CHECK_EV_CRC);
    CHECK(e && e->code == DW_MPA_ERR_CRC && e->off == s->at[bad]);
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK(st.crc_bad == 1 && st.crc_good == s->n - 1);
    CHECK(st.first_error == DW_MPA_ERR_CRC && st.first_error_offset == s->at[bad]);
    CHECK_EQ_U(st.resyncs + st.marker_errors, 0);
}

static void test_bad_crc(void)
{
    uint64_t seed = 11;
    for (int m = 0; m < 2; m++) {
        cfg g = {m, 1, DW_MPA_PTR_DRAFT, 40, 2000, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        size_t bad = 20;
        s.b[s.at[bad] + lead_of(&s, bad) + 2] ^= 0x01; /* first ULPDU octet */
        run_cuts(&s, 0, 0, s.len, judge_bad_crc, &bad, &seed);
        stream_free(&s);
    }
}

typedef struct marks {
    size_t ptr_fpdu, ptr_at, res_fpdu, res_at, pad_fpdu;
} marks;

static void judge_bad_marker(dw_mpa_check *c, const coll *k, const stream *s,
                             const segs *g, const void *arg)
{
    const marks *mk_ = arg;
    CHECK_EQ_U(k->nr, s->n);
    for (size_t i = 0; i < k->nr && i < s->n; i++) {
        const dw_mpa_check_fpdu *f = &k->r[i].f;
        if (i != mk_->ptr_fpdu && i != mk_->pad_fpdu)
            check_rec(&k->r[i], s, i, g);
        CHECK_EQ_U(f->crc, DW_MPA_CHECK_CRC_GOOD);
        CHECK_EQ_U(f->bad_markers, i == mk_->ptr_fpdu);
        CHECK_EQ_U(f->pad_nonzero, i == mk_->pad_fpdu);
    }
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_MARKER), 1);
    const evrec *e = find_ev(k, DW_MPA_CHECK_EV_MARKER);
    CHECK(e && e->code == DW_MPA_ERR_MARKER && e->off == mk_->ptr_at);
    CHECK(k->nmk_bad == 1 && k->mk[0].offset == mk_->ptr_at &&
          k->mk[0].expected == (uint16_t)(mk_->ptr_at - s->at[mk_->ptr_fpdu]));
    e = find_ev(k, DW_MPA_CHECK_EV_MARKER_RESERVED);
    CHECK(e && e->code == DW_MPA_ERR_NONE && e->off == mk_->res_at);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_MARKER_RESERVED), 1);
    e = find_ev(k, DW_MPA_CHECK_EV_PAD);
    CHECK(e && e->off == s->at[mk_->pad_fpdu] && count_ev(k, DW_MPA_CHECK_EV_PAD) == 1);
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK(st.marker_errors == 1 && st.pad_errors == 1 && st.crc_bad == 0);
    CHECK(st.first_error == DW_MPA_ERR_MARKER && st.first_error_offset == mk_->ptr_at);
    CHECK_EQ_U(st.resyncs, 0);
}

/* A wrong FPDUPTR under a valid CRC (MPA 9 code 3), a non-zero reserved
 * field (MPA 6.1), a non-zero PAD octet (MPA 6). */
static void test_bad_marker(void)
{
    uint64_t seed = 12;
    for (int pb = 0; pb < 2; pb++) {
        cfg g = {1, 1, pb ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT, 50, 3000, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        marks m = {0, 0, 0, 0, 0};
        size_t i = 25;
        while (!inner_marker(&s, i))
            i++;
        m.ptr_fpdu = i, m.ptr_at = inner_marker(&s, i);
        s.b[m.ptr_at + 3] ^= 0x40;
        fix_crc(&s, i);
        for (i = 5; !inner_marker(&s, i); i++)
            ;
        m.res_fpdu = i, m.res_at = inner_marker(&s, i);
        s.b[m.res_at] = 0x80;
        fix_crc(&s, i);
        for (i = 10; s.ulen[i] % 4 == 2 || i == m.res_fpdu ||
                     (s.info[i].pos + s.info[i].len - 4) % 512 == 0; i++)
            ;
        m.pad_fpdu = i;
        s.b[s.at[i] + s.info[i].len - 5] = 0x5a;
        fix_crc(&s, i);
        CHECK(m.pad_fpdu != m.ptr_fpdu && m.pad_fpdu < 25);
        run_cuts(&s, 0, 0, s.len, judge_bad_marker, &m, &seed);
        stream_free(&s);
    }
}

/* Where the checker finds the FPDUs again after losing them at stream
 * offset lost: with markers, the first marker (wholly at or after lost)
 * whose FPDU begins at or after lost; without, the next FPDU. */
static size_t resync_fpdu(const stream *s, size_t lost)
{
    for (size_t j = 0; j < s->n; j++) {
        if (s->at[j] < lost)
            continue;
        if (!s->markers)
            return j;
        uint32_t p = s->info[j].pos;
        uint32_t m = (p + 511u) & ~511u;
        if (m < p + s->info[j].len)
            return j;
    }
    return s->n;
}

typedef struct lost {
    size_t before;  /* FPDUs reported as sent before the trouble */
    size_t from;    /* first FPDU found again */
    size_t missing; /* FPDUs with CRC MISSING between (gap) */
    int length;     /* a length error */
    int oversize;   /* an OVERSIZE event (a length above 64768) */
    size_t body;    /* then: the stream offset after that length field */
} lost;

/* Segments that begin in [from, to). */
static size_t segs_in(const segs *g, size_t from, size_t to)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++)
        n += g->cut[i] >= from && g->cut[i] < to;
    return n;
}

/* An FPDU above 64768 that runs to the end of the stream is searched
 * again only if the checker could keep it: in segments of a few octets
 * it holds more pieces than the search buffer tags, and stays cut short. */
static int kept_whole(const stream *s, const segs *g, const lost *l)
{
    return !l->oversize || s->markers || segs_in(g, l->body, s->len) + 1 < DW_CK_DESC_CAP;
}

static void judge_lost(dw_mpa_check *c, const coll *k, const stream *s,
                       const segs *g, const void *arg)
{
    const lost *l = arg;
    if (!kept_whole(s, g, l)) {
        CHECK_EQ_U(k->nr, l->before + 1);
        CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_OVERSIZE), 1);
        CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_TRUNCATED), 1);
        CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_RESYNC), 0);
        for (size_t i = 0; i < l->before && i < k->nr; i++)
            check_rec(&k->r[i], s, i, NULL);
        return;
    }
    /* no markers: the FPDU above 64768 runs to the end of the stream,
     * which ends inside it: reported cut off (MPA 9 code 1, as by a
     * receiver), then what was kept of it is searched again */
    int cut = l->oversize && !s->markers;
    CHECK_EQ_U(k->nr, l->before + l->missing + (size_t)cut + (s->n - l->from));
    for (size_t i = 0; i < l->before && i < k->nr; i++)
        check_rec(&k->r[i], s, i, NULL);
    for (size_t i = 0; i < l->missing + (size_t)cut && l->before + i < k->nr; i++)
        CHECK_EQ_U(k->r[l->before + i].f.crc, DW_MPA_CHECK_CRC_MISSING);
    if (cut && l->before < k->nr) {
        const dw_mpa_check_fpdu *f = &k->r[l->before].f;
        CHECK_EQ_U(f->offset, s->at[l->before]);
        CHECK_EQ_U(f->ulpdu_len, 0xffff);
        CHECK_EQ_U(f->fpdu_len, dw_mpa_fpdu_len(0, 0xffff, 0));
        CHECK_EQ_U(f->index, l->before);
    }
    size_t r0 = l->before + l->missing + (size_t)cut;
    for (size_t j = l->from; j < s->n && r0 + j - l->from < k->nr; j++) {
        const rec *r = &k->r[r0 + j - l->from];
        check_rec(r, s, j, NULL);
        CHECK_EQ_U(r->f.resync, j == l->from);
        CHECK_EQ_U(r->f.index, r0 + j - l->from);
    }
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK_EQ_U(st.length_errors, l->length);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_LENGTH), l->length);
    CHECK_EQ_U(st.oversize, l->oversize);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_OVERSIZE), l->oversize);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_TRUNCATED), cut);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_SYNC_LOST), 1);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_RESYNC), 1);
    CHECK_EQ_U(st.resyncs, 1);
    /* a length above 64768 that a marker inside contradicts: MPA 9 code 3 */
    int code3 = l->oversize && s->markers;
    CHECK_EQ_U(st.crc_bad, 0);
    CHECK_EQ_U(st.marker_errors, code3);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_MARKER), code3);
    CHECK_EQ_U(st.first_error, code3 ? DW_MPA_ERR_MARKER : cut ? DW_MPA_ERR_CLOSED : DW_MPA_ERR_NONE);
    if (cut)
        CHECK_EQ_U(st.first_error_offset, s->at[l->before]);
    if (cut) { /* the cut first, then the search inside it */
        const evrec *t = find_ev(k, DW_MPA_CHECK_EV_TRUNCATED);
        CHECK(t && t->code == DW_MPA_ERR_CLOSED && t->off == s->at[l->before]);
        CHECK(t && t < find_ev(k, DW_MPA_CHECK_EV_SYNC_LOST));
    }
    const evrec *e = find_ev(k, DW_MPA_CHECK_EV_RESYNC);
    CHECK(e && l->from < s->n && e->off == s->at[l->from]);
}

/* ULPDU_Length 0: sync lost, found again (MPA 7.1). 0xffff after a good
 * FPDU is framed as declared (a peer may send it: OVERSIZE) until it
 * proves wrong: a marker inside disagrees, or (no markers) the stream
 * ends inside it and FPDUs lie there: it is reported cut off (TRUNCATED,
 * MPA 9 code 1: what a receiver says at it; found by fuzz_diff: before,
 * the checker gave it up with no record and no error), then sync lost,
 * found again. */
static void test_bad_length(void)
{
    uint64_t seed = 13;
    for (int v = 0; v < 4; v++) {
        cfg g = {v & 1, 1, DW_MPA_PTR_DRAFT, 60, 1500, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        size_t i = 30, h = s.at[i] + lead_of(&s, i);
        s.b[h] = s.b[h + 1] = (v & 2) ? 0xff : 0x00;
        lost l = {i, resync_fpdu(&s, h + 2), 0, !(v & 2), (v & 2) != 0, h + 2};
        CHECK(l.from > i && l.from < s.n);
        run_cuts(&s, 0, 0, s.len, judge_lost, &l, &seed);
        stream_free(&s);
    }
}

/* MPA 7.1: after a gap of 4 GiB and more (a capture that lost that much;
 * the stream goes on 512 K octets later, so every marker still sits at a
 * multiple of 512) the boundaries are found again at the first marker
 * after the gap whose FPDU begins after it, as after a short gap (the
 * markers the gap covered are passed at once, not 512 octets at a time). */
static void test_huge_gap_markers(void)
{
    uint64_t seed = 32;
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 40, 1500, NULL, 0, NULL};
    stream s;
    build(&s, &g, &seed);
    static const uint64_t ks[] = {1u << 23, (1u << 23) + 1, 3u << 22, 1};
    for (size_t v = 0; v < 2 * sizeof ks / sizeof ks[0]; v++) {
        size_t x = s.at[10] + 100 + v * 37, y = s.at[12] + 200 + v * 53; /* cut, resumed */
        uint64_t shift = ks[v / 2] * DW_MPA_MARKER_INTERVAL;
        size_t j = resync_fpdu(&s, y);
        CHECK(j < s.n);
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        CHECK(dw_mpa_check_data(c, s.b, x, NULL) == 0);
        dw_reasm_gap gp = {x, SEQ0 + (uint32_t)x, y + shift - x, DW_REASM_GAP_LOST, 0};
        CHECK(dw_mpa_check_gap(c, &gp) == 0);
        for (size_t a = y; a < s.len;) { /* MSS segments, or the rest at once */
            size_t n = v & 1 ? 1448 : s.len - a;
            n = n < s.len - a ? n : s.len - a;
            dw_reasm_chunk ch = {a + shift, SEQ0 + (uint32_t)(a + shift), 1, SEQ0 + (uint32_t)(a + shift),
                                 (uint32_t)n, 1, 1};
            CHECK(dw_mpa_check_data(c, s.b + a, n, &ch) == 0);
            a += n;
        }
        CHECK(dw_mpa_check_end(c) == 0);
        const evrec *e = find_ev(&k, DW_MPA_CHECK_EV_RESYNC);
        CHECK(e && e->off == s.at[j] + shift);
        CHECK(k.nr >= s.n - j);
        for (size_t t = 1; t <= s.n - j && t <= k.nr; t++) { /* the last FPDUs, found again */
            const dw_mpa_check_fpdu *f = &k.r[k.nr - t].f;
            CHECK_EQ_U(f->offset, s.at[s.n - t] + shift);
            CHECK_EQ_U(f->fpdu_len, s.info[s.n - t].len);
            CHECK_EQ_U(f->crc, DW_MPA_CHECK_CRC_GOOD);
        }
        dw_mpa_check_del(c);
        coll_free(&k);
    }
    stream_free(&s);
}

/* A plausible but wrong ULPDU_Length: a bad CRC, then the next marker
 * that disagrees loses the boundaries, and the tail is found again. */
static void judge_wrong_len(dw_mpa_check *c, const coll *k, const stream *s,
                            const segs *g, const void *arg)
{
    (void)c, (void)g, (void)arg;
    CHECK(count_ev(k, DW_MPA_CHECK_EV_CRC) >= 1);
    CHECK(count_ev(k, DW_MPA_CHECK_EV_RESYNC) >= 1);
    CHECK(k->nr > 10);
    for (size_t t = 1; t <= 10 && t <= k->nr; t++)
        check_rec(&k->r[k->nr - t], s, s->n - t, NULL);
}

static void test_wrong_length(void)
{
    uint64_t seed = 14;
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 80, 1500, NULL, 0, NULL};
    stream s;
    build(&s, &g, &seed);
    size_t i = 30, h = s.at[i] + lead_of(&s, i);
    s.b[h + 1] ^= 0x08; /* 8 octets more or less */
    run_cuts(&s, 0, 0, s.len, judge_wrong_len, NULL, &seed);
    stream_free(&s);
}

/* Gaps: inside one FPDU's ULPDU (still in sync, CRC MISSING), and across
 * several FPDUs (resync at the next marker, or by search). */
static void judge_gap_inside(dw_mpa_check *c, const coll *k, const stream *s,
                             const segs *g, const void *arg)
{
    size_t i = *(const size_t *)arg;
    (void)g;
    CHECK_EQ_U(k->nr, s->n);
    for (size_t j = 0; j < k->nr && j < s->n; j++) {
        if (j != i) {
            check_rec(&k->r[j], s, j, NULL);
            continue;
        }
        CHECK_EQ_U(k->r[j].f.crc, DW_MPA_CHECK_CRC_MISSING);
        CHECK_EQ_U(k->r[j].f.fpdu_len, s->info[j].len);
        CHECK_EQ_U(k->r[j].f.head_len, 10); /* up to the hole */
    }
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK(st.gaps == 1 && st.crc_unchecked == 1 && st.resyncs == 0);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_SYNC_LOST), 0);
    CHECK_EQ_U(st.first_error, DW_MPA_ERR_NONE);
}

static void test_gaps(void)
{
    uint64_t seed = 15;
    for (int m = 0; m < 2; m++) {
        cfg g = {m, 1, DW_MPA_PTR_DRAFT, 60, 1500, NULL, 0, NULL};
        stream s;
        build(&s, &g, &seed);
        size_t i = 20;
        while (s.ulen[i] < 200)
            i++;
        size_t ha = s.at[i] + lead_of(&s, i) + 2 + 10;
        run_cuts(&s, ha, ha + 150, s.len, judge_gap_inside, &i, &seed);
        /* from the middle of FPDU 30 into the middle of FPDU 34 */
        ha = s.at[30] + s.info[30].len / 2 + 1;
        size_t hb = s.at[34] + s.info[34].len / 2;
        lost l = {30, resync_fpdu(&s, hb), 1, 0, 0, 0};
        run_cuts(&s, ha, hb, s.len, judge_lost, &l, &seed);
        stream_free(&s);
    }
}

/* MPA 9 code 1: the stream ends inside an FPDU. */
static void test_truncation(void)
{
    uint64_t seed = 16;
    cfg g = {1, 1, DW_MPA_PTR_DRAFT, 20, 1500, NULL, 0, NULL};
    stream s;
    build(&s, &g, &seed);
    size_t last = s.n - 1, a = s.at[last];
    const size_t ends[] = {a, a + 1, a + s.info[last].len / 2, s.len - 1};
    for (size_t e = 0; e < 4; e++) {
        segs cut;
        segs_fixed(&cut, s.len, 100);
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        feed(c, &s, &cut, 0, 0, ends[e], 0, &seed);
        dw_mpa_check_stats ss;
        dw_mpa_check_stats_get(c, &ss);
        if (e == 0) { /* between FPDUs: clean */
            CHECK_EQ_U(k.nr, last);
            CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_TRUNCATED), 0);
            CHECK_EQ_U(ss.first_error, DW_MPA_ERR_NONE);
        } else {
            CHECK_EQ_U(k.nr, s.n);
            const evrec *ev = find_ev(&k, DW_MPA_CHECK_EV_TRUNCATED);
            CHECK(ev && ev->code == DW_MPA_ERR_CLOSED && ev->off == a &&
                  ev->len == ends[e] - a);
            CHECK(k.nr == s.n && k.r[last].f.crc == DW_MPA_CHECK_CRC_MISSING &&
                  k.r[last].f.offset == a);
            CHECK_EQ_U(k.r[last].f.ulpdu_len, e == 1 ? 0 : s.ulen[last]);
            if (e > 1)
                CHECK_EQ_U(k.r[last].f.fpdu_len, s.info[last].len);
            CHECK(ss.first_error == DW_MPA_ERR_CLOSED && ss.first_error_offset == a);
        }
        dw_mpa_check_del(c);
        coll_free(&k);
        free(cut.cut);
    }
    stream_free(&s);
}

/* ------------------------------------------------------------------ */
/* Finding the start                                                   */
/* ------------------------------------------------------------------ */

/* Garbage, then MPA from its position 0: found by search (with markers
 * at a zero marker, without by CRC-checked FPDUs). */
static void test_search(void)
{
    uint64_t seed = 17;
    static uint8_t junk[4000];
    for (int r = 0; r < (quick ? 6 : 24); r++) {
        size_t gl = 1 + dw_rand(&seed) % 3000;
        for (size_t i = 0; i < gl; i++)
            junk[i] = (uint8_t)dw_rand(&seed);
        if (r % 4 == 3) /* zero runs that are no marker: a zero length */
            memset(junk + gl / 2, 0, gl / 4);
        cfg g = {r & 1, 1, DW_MPA_PTR_DRAFT, 40, 1400, junk, gl, NULL};
        stream s;
        build(&s, &g, &seed);
        segs cut;
        segs_random(&cut, s.len, &seed, r % 3 ? 1460 : 9);
        int mode = r % 3 == 1 ? DW_MPA_CHECK_START_SEARCH : DW_MPA_CHECK_START_AUTO;
        run_clean(&s, &cut, r & 2, 1, (dw_mpa_check_start)mode, &seed);
        /* and with the segment tags coarse but the octets the same */
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        st.start = (dw_mpa_check_start)mode;
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        feed(c, &s, &cut, 0, 0, s.len, 0, &seed);
        dw_mpa_check_stats ss;
        dw_mpa_check_stats_get(c, &ss);
        CHECK_EQ_U(ss.skipped_octets, gl);
        const evrec *e = find_ev(&k, DW_MPA_CHECK_EV_START);
        CHECK(e && e->off == gl && strstr(e->detail, "search"));
        dw_mpa_check_del(c);
        coll_free(&k);
        free(cut.cut);
        stream_free(&s);
    }
    /* nothing but garbage: no start, within the limit or at the end */
    for (int lim = 0; lim < 2; lim++) {
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        st.start = DW_MPA_CHECK_START_SEARCH;
        st.search_limit = lim ? 100 : st.search_limit;
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (uint8_t)dw_rand(&seed);
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        CHECK(dw_mpa_check_data(c, junk, sizeof junk, NULL) == 0);
        CHECK(dw_mpa_check_end(c) == 0);
        CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_NO_START), 1);
        CHECK_EQ_U(k.nr, 0);
        dw_mpa_check_stats ss;
        dw_mpa_check_stats_get(c, &ss);
        CHECK(!ss.started && ss.skipped_octets == sizeof junk);
        dw_mpa_check_del(c);
        coll_free(&k);
    }
}

/* The search gives up after exactly search_limit rejected candidates,
 * wherever the limit falls (its fast path past octets that suggest
 * nothing skips many at once): random octets, runs of zeros, and high
 * octets (lengths that do not fit), fed whole or in small pieces (the
 * end's final search or the search as data comes), markers learned or on. */
static void test_search_limit_exact(void)
{
    uint64_t seed = 31;
    static uint8_t junk[3000];
    for (size_t i = 0; i < sizeof junk; i++) {
        int run = (int)(i / 300 % 3); /* random, zeros, high octets */
        junk[i] = run == 1 ? 0 : (uint8_t)(dw_rand(&seed) | (run == 2 ? 0x80 : 0));
    }
    static const uint64_t lims[] = {1, 2, 3, 63, 64, 299, 300, 301, 650, 1000, 2500};
    for (size_t li = 0; li < sizeof lims / sizeof lims[0]; li++) {
        for (int v = 0; v < 4; v++) {
            dw_mpa_check_settings st;
            dw_mpa_check_settings_default(&st);
            st.start = DW_MPA_CHECK_START_SEARCH;
            st.search_limit = lims[li];
            st.markers = v & 1 ? 1 : -1;
            coll k;
            dw_mpa_check *c = mk(&st, &k);
            for (size_t a = 0; a < sizeof junk;) {
                size_t n = v & 2 ? 1 + dw_rand(&seed) % 7 : sizeof junk;
                n = n < sizeof junk - a ? n : sizeof junk - a;
                CHECK(dw_mpa_check_data(c, junk + a, n, NULL) == 0);
                a += n;
            }
            CHECK(dw_mpa_check_end(c) == 0);
            CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_NO_START), 1);
            const evrec *e = find_ev(&k, DW_MPA_CHECK_EV_NO_START);
            CHECK(e && e->len == lims[li] + 1); /* the candidates rejected */
            CHECK_EQ_U(k.nr, 0);
            dw_mpa_check_stats ss;
            dw_mpa_check_stats_get(c, &ss);
            CHECK(!ss.started && ss.skipped_octets == sizeof junk);
            dw_mpa_check_del(c);
            coll_free(&k);
        }
    }
}

/* strict_search: a searched start needs a matching CRC or two markers with
 * a non-zero FPDUPTR. Zero-heavy octets (3 in 7 zero) give false CRC-off
 * starts without it, none with it; real streams after garbage are still
 * found, except CRC off without markers (nothing to check). */
static void test_strict(void)
{
    uint64_t seed = 23;
    static const uint8_t pick[7] = {0, 0, 0, 1, 4, 18, 255};
    size_t zl = 200000;
    uint8_t *z = malloc(zl);
    for (size_t i = 0; i < zl; i++)
        z[i] = pick[dw_rand(&seed) % 7];
    for (int strict = 0; strict < 2; strict++) {
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        st.start = DW_MPA_CHECK_START_AUTO;
        st.strict_search = strict;
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        for (size_t i = 0; i < zl; i += 1448)
            CHECK(dw_mpa_check_data(c, z + i, zl - i < 1448 ? zl - i : 1448, NULL) == 0);
        CHECK(dw_mpa_check_end(c) == 0);
        CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_START), !strict); /* the hazard is real */
        if (strict)
            CHECK(k.nr == 0 && count_ev(&k, DW_MPA_CHECK_EV_NO_START) == 1);
        dw_mpa_check_del(c);
        coll_free(&k);
    }
    static uint8_t junk[3000];
    for (int r = 0; r < 4; r++) { /* markers x CRC, after 1..3000 octets of z */
        int markers = r & 1, crc = r >> 1 & 1;
        size_t gl = 1 + dw_rand(&seed) % sizeof junk;
        memcpy(junk, z, gl);
        cfg g = {markers, crc, DW_MPA_PTR_DRAFT, 30, 1400, junk, gl, NULL};
        stream s;
        build(&s, &g, &seed);
        segs cut;
        segs_random(&cut, s.len, &seed, 1460);
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        st.start = DW_MPA_CHECK_START_AUTO;
        st.strict_search = 1;
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        feed(c, &s, &cut, 0, 0, s.len, 0, &seed);
        const evrec *e = find_ev(&k, DW_MPA_CHECK_EV_START);
        if (markers || crc) {
            CHECK(e && e->off >= gl && k.nr > 0 && k.nr <= s.n);
            CHECK(e && e->off == s.at[s.n - k.nr]); /* a real FPDU boundary */
        } else {
            CHECK(!e && k.nr == 0);
        }
        dw_mpa_check_del(c);
        coll_free(&k);
        free(cut.cut);
        stream_free(&s);
    }
    free(z);
}

static void run_plain(const dw_mpa_check_settings *st, coll *k, const stream *s,
                      int setm, int setc)
{
    dw_mpa_check *c = mk(st, k);
    if (setm >= -1)
        CHECK(dw_mpa_check_set_mode(c, setm, setc) == 0);
    uint64_t seed = 3;
    segs cut;
    segs_fixed(&cut, s->len, 1000);
    feed(c, s, &cut, 0, 0, s->len, 0, &seed);
    free(cut.cut);
    dw_mpa_check_del(c);
}

/* RFC 5044 frames, FRAMES mode, and the negotiated mode against the
 * FPDUs (EV_MODE; the checker follows the stream). */
static void test_frames_mode(void)
{
    uint64_t seed = 18;
    uint8_t rep[64];
    const uint8_t pd[5] = {'h', 'e', 'l', 'l', 'o'};
    dw_mpa_startup f = {DW_MPA_STARTUP_REPLY, DW_MPA_FLAG_MARKERS, 1, pd, 5};
    CHECK(dw_mpa_startup_encode(rep, sizeof rep, &f) == 25);
    cfg g = {0, 1, DW_MPA_PTR_DRAFT, 30, 900, rep, 25, NULL};
    stream s;
    build(&s, &g, &seed);
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    st.start = DW_MPA_CHECK_START_FRAMES;
    coll k;
    run_plain(&st, &k, &s, -2, 0);
    CHECK_EQ_U(k.nr, s.n);
    for (size_t i = 0; i < k.nr && i < s.n; i++)
        check_rec(&k.r[i], &s, i, NULL);
    CHECK(k.nev >= 2 && k.ev[0].kind == DW_MPA_CHECK_EV_STARTUP && k.ev[0].len == 25 &&
          k.ev[1].kind == DW_MPA_CHECK_EV_START && k.ev[1].off == 25);
    coll_free(&k);
    /* markers negotiated, none sent: EV_MODE, checked without */
    run_plain(&st, &k, &s, 1, 1);
    CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_MODE), 1);
    CHECK_EQ_U(k.nr, s.n);
    coll_free(&k);
    /* CRC negotiated off but the stream has CRCs: OFF verdicts */
    run_plain(&st, &k, &s, 0, 0);
    CHECK(k.nr == s.n && k.r[0].f.crc == DW_MPA_CHECK_CRC_OFF);
    CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_MODE), 0);
    coll_free(&k);
    stream_free(&s);

    /* FRAMES, but no frame: reported, then found by search */
    cfg g2 = {1, 1, DW_MPA_PTR_DRAFT, 30, 900, NULL, 0, NULL};
    build(&s, &g2, &seed);
    run_plain(&st, &k, &s, -2, 0);
    CHECK(k.nev >= 1 && k.ev[0].kind == DW_MPA_CHECK_EV_STARTUP_BAD);
    CHECK_EQ_U(k.nr, s.n);
    coll_free(&k);
    /* learned from the FPDUs, then told otherwise: EV_MODE */
    st.start = DW_MPA_CHECK_START_AUTO;
    dw_mpa_check *c = mk(&st, &k);
    CHECK(dw_mpa_check_data(c, s.b, s.len, NULL) == 0);
    CHECK(dw_mpa_check_set_mode(c, 0, 1) == 0);
    CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_MODE), 1);
    CHECK(dw_mpa_check_end(c) == 0);
    CHECK_EQ_U(k.nr, s.n);
    dw_mpa_check_del(c);
    coll_free(&k);
    /* a request with C set, FPDUs with zero CRC fields: bad CRCs */
    stream_free(&s);
    uint8_t req[32];
    dw_mpa_nego_settings ns;
    dw_mpa_nego_settings_default(&ns);
    CHECK(dw_mpa_nego_request(&ns, req, sizeof req) == 20);
    cfg g3 = {1, 0, DW_MPA_PTR_DRAFT, 10, 300, req, 20, NULL};
    build(&s, &g3, &seed);
    run_plain(&st, &k, &s, -2, 0);
    CHECK_EQ_U(count_ev(&k, DW_MPA_CHECK_EV_CRC), s.n);
    coll_free(&k);
    stream_free(&s);
}

static void test_api(void)
{
    dw_mpa_check *c = NULL;
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    CHECK(st.markers == -1 && st.crc == -1 && st.head_len == 64 &&
          st.search_limit == 1u << 20 && st.start == DW_MPA_CHECK_START_AUTO);
    st.head_len = 257;
    CHECK(dw_mpa_check_new(&c, &st, NULL, NULL) == DW_ERR_INVAL && !c);
    st.head_len = 64;
    st.markers = 2;
    CHECK(dw_mpa_check_new(&c, &st, NULL, NULL) == DW_ERR_INVAL);
    CHECK(dw_mpa_check_new(NULL, NULL, NULL, NULL) == DW_ERR_INVAL);
    CHECK(dw_mpa_check_new(&c, NULL, NULL, NULL) == 0);
    CHECK(dw_mpa_check_data(c, NULL, 1, NULL) == DW_ERR_INVAL);
    CHECK(dw_mpa_check_set_mode(c, 2, 0) == DW_ERR_INVAL);
    dw_reasm_gap gp = {0, 0, 0, DW_REASM_GAP_LOST, 0};
    CHECK(dw_mpa_check_gap(c, &gp) == 0);
    CHECK(dw_mpa_check_end(c) == 0);
    CHECK(dw_mpa_check_data(c, (const uint8_t *)"a", 1, NULL) == DW_ERR_STATE);
    dw_mpa_check_del(c);
    dw_mpa_check_del(NULL);
    CHECK(strcmp(dw_mpa_check_event_name(DW_MPA_CHECK_EV_MARKER), "marker") == 0);
    CHECK(strcmp(dw_mpa_check_event_name(DW_MPA_CHECK_EV_MODE), "mode") == 0);
    CHECK(strcmp(dw_mpa_check_event_name((dw_mpa_check_event_kind)99), "unknown") == 0);
    /* calls from a callback are refused */
    uint8_t b[0x40];
    coll k;
    dw_mpa_check_settings_default(&st);
    c = mk(&st, &k);
    k.reenter = 1;
    CHECK(dw_mpa_check_data(c, b, fig5(b), NULL) == 0);
    CHECK_EQ_U(k.reenter_rc, DW_ERR_STATE);
    CHECK(dw_mpa_check_end(c) == 0);
    CHECK_EQ_U(k.nr, 1);
    dw_mpa_check_del(c);
    coll_free(&k);
}

int main(void)
{
    quick = getenv("DW_TEST_QUICK") != NULL;
    RUN(test_figures);
    RUN(test_segmentations);
    RUN(test_aligned_packed);
    RUN(test_marker_between);
    RUN(test_bad_crc);
    RUN(test_bad_marker);
    RUN(test_bad_length);
    RUN(test_wrong_length);
    RUN(test_gaps);
    RUN(test_truncation);
    RUN(test_search);
    RUN(test_search_limit_exact);
    RUN(test_huge_gap_markers);
    RUN(test_strict);
    RUN(test_frames_mode);
    RUN(test_api);
    return dw_test_finish();
}
