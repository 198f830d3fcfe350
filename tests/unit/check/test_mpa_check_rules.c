/* SPDX-License-Identifier: MIT */
/*
 * The MPA checker and sender rules broken with the framing intact, as
 * Linux siw 6.1 breaks them (../shared/siw-peer; docs/DUMP.md): ULPDUs of
 * 65474 octets on a 64 KiB MTU (MPA 5.2: at most 64768), non-zero PAD
 * (MPA 6), no markers, CRC on or off. The checker reports each (OVERSIZE,
 * PAD) and keeps framing with the declared length: no FPDU lost, no
 * resync. Only a bad CRC puts an oversize length in doubt: what followed
 * it is searched again.
 */
#include <ddpwire/mpa_check.h>

#include <stdlib.h>
#include <string.h>

/* (only part of the shared helpers is used here) */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "mpa_check_util.h"

#define SIW_MSS 65483u /* lo, MTU 65536, timestamps */

/* A siw-like stream: FPDUs without markers, built here (our sender
 * refuses lengths above 64768), PAD octets non-zero when asked. */
typedef struct sstream {
    uint8_t *b;
    size_t len, n;
    size_t at[64], ulen[64];
    int padnz[64];
    int crc;
} sstream;

static void sbuild(sstream *s, const size_t *lens, const int *padnz, size_t n, int crc,
                   uint64_t *seed)
{
    memset(s, 0, sizeof *s);
    s->b = malloc(n * 65544);
    s->n = n;
    s->crc = crc;
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = s->b + s->len;
        size_t u = lens[i], pad = (4 - (2 + u) % 4) % 4;
        p[0] = (uint8_t)(u >> 8), p[1] = (uint8_t)u;
        for (size_t j = 0; j < u; j++)
            p[2 + j] = (uint8_t)dw_rand(seed);
        for (size_t j = 0; j < pad; j++)
            p[2 + u + j] = padnz[i] ? (uint8_t)(0x41 + j) : 0; /* stale octets */
        s->padnz[i] = padnz[i] && pad;
        size_t body = 2 + u + pad;
        dw_crc32c_store(p + body, crc ? dw_crc32c(0, p, body) : 0);
        s->at[i] = s->len;
        s->ulen[i] = u;
        s->len += body + 4;
    }
}

static size_t flen(const sstream *s, size_t i)
{
    return (i + 1 < s->n ? s->at[i + 1] : s->len) - s->at[i];
}

typedef void (*sjudge)(dw_mpa_check *c, const coll *k, const sstream *s, size_t from,
                       const void *arg);

/* Feeds the stream from offset from (a capture begun there), cut as a
 * 64 KiB-MTU siw connection (MSS segments), at 1448, randomly, and (when
 * ones is set) in single octets: then an oversize FPDU spans more segments
 * than the checker can keep to search again (docs/DUMP.md). */
static void srun(const sstream *s, size_t from, int crc_mode, int ones, sjudge fn,
                 const void *arg, uint64_t *seed)
{
    for (int z = 0; z < 3 + ones; z++) {
        segs g;
        if (z < 2)
            segs_fixed(&g, s->len, z ? 1448 : SIW_MSS);
        else if (z == 2)
            segs_random(&g, s->len, seed, 9000);
        else
            segs_fixed(&g, s->len, 1);
        dw_mpa_check_settings st;
        dw_mpa_check_settings_default(&st);
        /* from 0: MPA begins there, as after RFC 5044 frames (siw always
         * sends them); else a capture begun inside: search */
        st.start = from ? DW_MPA_CHECK_START_SEARCH : DW_MPA_CHECK_START_AT;
        st.crc = crc_mode;
        st.markers = 0;
        coll k;
        dw_mpa_check *c = mk(&st, &k);
        feed_b(c, s->b, s->len, &g, 0, from, s->len, z == 2, seed);
        fn(c, &k, s, from, arg);
        dw_mpa_check_del(c);
        coll_free(&k);
        free(g.cut);
    }
}

static void check_fpdu(const rec *r, const sstream *s, size_t i)
{
    const dw_mpa_check_fpdu *f = &r->f;
    CHECK_EQ_U(f->offset, s->at[i]);
    CHECK_EQ_U(f->ulpdu_len, s->ulen[i]);
    CHECK_EQ_U(f->fpdu_len, flen(s, i));
    CHECK_EQ_U(f->pad_nonzero, s->padnz[i]);
    CHECK_EQ_U(f->crc, s->crc ? DW_MPA_CHECK_CRC_GOOD : DW_MPA_CHECK_CRC_OFF);
}

/* FPDUs first.. all reported as sent; each rule broken counted once. */
static void judge_clean(dw_mpa_check *c, const coll *k, const sstream *s, size_t from,
                        const void *arg)
{
    size_t first = *(const size_t *)arg, over = 0, pads = 0;
    (void)from;
    CHECK_EQ_U(k->nr, s->n - first);
    for (size_t i = first; i < s->n && i - first < k->nr; i++) {
        check_fpdu(&k->r[i - first], s, i);
        over += s->ulen[i] > DW_MPA_ULPDU_MAX && i > first;
        pads += s->padnz[i];
    }
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK_EQ_U(st.oversize, over);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_OVERSIZE), over);
    CHECK_EQ_U(st.pad_errors, pads);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_PAD), pads);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_SYNC_LOST) + count_ev(k, DW_MPA_CHECK_EV_RESYNC), 0);
    CHECK_EQ_U(st.length_errors + st.crc_bad + st.resyncs, 0);
    CHECK_EQ_U(st.first_error, DW_MPA_ERR_NONE);
}

static const size_t siw_lens[] = {16, 65474, 65474, 30, 65474, 7, 28, 65474, 2, 64768, 65535};
static const int siw_padnz[] = {0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 0};
#define SIW_N (sizeof siw_lens / sizeof siw_lens[0])

/* 5.2, 6: siw's oversize ULPDUs and stale PAD, CRC on and off. (The
 * first FPDU is not oversize: a start is never taken on one unproven.) */
static void test_siw_clean(void)
{
    uint64_t seed = 51;
    for (int crc = 0; crc < 2; crc++) {
        sstream s;
        sbuild(&s, siw_lens, siw_padnz, SIW_N, crc, &seed);
        size_t first = 0;
        srun(&s, 0, crc, 1, judge_clean, &first, &seed);
        srun(&s, 0, -1, 1, judge_clean, &first, &seed); /* CRC mode learnt */
        free(s.b);
    }
}

/* A capture begun inside FPDU 0: with CRC, the search takes an oversize
 * FPDU whose CRC matches (FPDU 1); without, it cannot prove one and takes
 * the first run of small valid FPDUs. */
static void judge_mid(dw_mpa_check *c, const coll *k, const sstream *s, size_t from,
                      const void *arg)
{
    size_t first = *(const size_t *)arg;
    (void)from;
    CHECK(k->nr >= 1);
    CHECK_EQ_U(k->nr, s->n - first);
    for (size_t i = first; i < s->n && i - first < k->nr; i++)
        check_fpdu(&k->r[i - first], s, i);
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK_EQ_U(st.crc_bad + st.length_errors, 0);
}

static void test_siw_mid(void)
{
    uint64_t seed = 52;
    sstream s;
    sbuild(&s, siw_lens, siw_padnz, SIW_N, 1, &seed);
    size_t first = 1;
    srun(&s, 9, 1, 0, judge_mid, &first, &seed);
    free(s.b);
}

/* An oversize FPDU with one payload octet flipped: its CRC fails (MPA
 * error 2), what followed its length is searched again, and the next
 * FPDU is found where the length said. */
static void judge_corrupt(dw_mpa_check *c, const coll *k, const sstream *s, size_t from,
                          const void *arg)
{
    size_t bad = *(const size_t *)arg;
    (void)from;
    CHECK_EQ_U(k->nr, s->n);
    for (size_t i = 0; i < s->n && i < k->nr; i++) {
        const dw_mpa_check_fpdu *f = &k->r[i].f;
        CHECK_EQ_U(f->offset, s->at[i]);
        CHECK_EQ_U(f->crc, i == bad ? DW_MPA_CHECK_CRC_BAD : DW_MPA_CHECK_CRC_GOOD);
        CHECK_EQ_U(f->resync, i == bad + 1);
    }
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK_EQ_U(st.crc_bad, 1);
    CHECK_EQ_U(st.first_error, DW_MPA_ERR_CRC);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_SYNC_LOST), 1);
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_RESYNC), 1);
    const evrec *e = find_ev(k, DW_MPA_CHECK_EV_RESYNC);
    CHECK(e && e->off == s->at[bad + 1]);
}

static void test_siw_corrupt_payload(void)
{
    uint64_t seed = 53;
    sstream s;
    sbuild(&s, siw_lens, siw_padnz, SIW_N, 1, &seed);
    size_t bad = 4;
    s.b[s.at[bad] + 30000] ^= 0x20; /* after the CRC was computed */
    srun(&s, 0, 1, 0, judge_corrupt, &bad, &seed);
    free(s.b);
}

/* An oversize length changed to another oversize one (65474 -> 65010):
 * framed as declared, its CRC fails, and the search from after the length
 * finds the FPDU that really follows; nothing after it is lost. */
static void judge_wrong_len(dw_mpa_check *c, const coll *k, const sstream *s, size_t from,
                            const void *arg)
{
    size_t bad = *(const size_t *)arg;
    (void)from, (void)c;
    CHECK_EQ_U(k->nr, s->n);
    for (size_t i = 0; i < bad && i < k->nr; i++)
        check_fpdu(&k->r[i], s, i);
    CHECK(k->nr > bad && k->r[bad].f.crc == DW_MPA_CHECK_CRC_BAD);
    for (size_t i = bad + 1; i < s->n && i < k->nr; i++) {
        check_fpdu(&k->r[i], s, i);
        CHECK_EQ_U(k->r[i].f.resync, i == bad + 1);
    }
    CHECK_EQ_U(count_ev(k, DW_MPA_CHECK_EV_RESYNC), 1);
}

static void test_siw_wrong_length(void)
{
    uint64_t seed = 54;
    sstream s;
    sbuild(&s, siw_lens, siw_padnz, SIW_N, 1, &seed);
    size_t bad = 2;
    s.b[s.at[bad]] = 65010 >> 8, s.b[s.at[bad] + 1] = 65010 & 0xff;
    srun(&s, 0, 1, 0, judge_wrong_len, &bad, &seed);
    free(s.b);
}

static int marker_err_events;
static uint64_t marker_err_off;

static void count_marker_err(dw_mpa_check *c, const dw_mpa_check_event *ev, void *u)
{
    (void)c, (void)u;
    if (ev->kind == DW_MPA_CHECK_EV_MARKER && ev->code == DW_MPA_ERR_MARKER &&
        !marker_err_events++)
        marker_err_off = ev->offset;
}

/* MPA 9 code 3 (found by fuzz_diff): with markers, a length above 64768
 * (a corrupted one here, CRC off) is framed until a marker inside the
 * FPDU disagrees with it; that is the FPDU a receiver never delivers, so
 * the checker reports an MPA error there, not only the lost framing. */
static void test_s9_marker_disagrees_with_oversize_length(void)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.crc = 0;
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    static uint8_t wire[16384], pl[1200];
    size_t at = 0, fpdu[8];
    for (int k = 0; k < 8; k++) {
        fpdu[k] = at;
        ssize_t n = dw_mpa_tx_frame_into(tx, pl, sizeof pl, wire + at, sizeof wire - at, NULL);
        CHECK(n > 0);
        at += (size_t)n;
    }
    dw_mpa_tx_del(tx);
    size_t len_at = fpdu[2] + (fpdu[2] % 512 ? 0 : 4); /* after a leading marker */
    wire[len_at] = 65000 >> 8, wire[len_at + 1] = 65000 & 0xff;
    dw_mpa_check_settings s;
    dw_mpa_check_settings_default(&s);
    s.start = DW_MPA_CHECK_START_AT;
    s.markers = 1, s.crc = 0;
    dw_mpa_check_callbacks cb = {NULL, NULL, count_marker_err};
    dw_mpa_check *c;
    CHECK(dw_mpa_check_new(&c, &s, &cb, NULL) == 0);
    marker_err_events = 0;
    for (size_t o = 0, pkt = 1; o < at; o += 1000, pkt++) {
        size_t n = at - o < 1000 ? at - o : 1000;
        dw_reasm_chunk ch = {o, (uint32_t)o, pkt, (uint32_t)o, (uint32_t)n, 1, 1};
        CHECK(dw_mpa_check_data(c, wire + o, n, &ch) == 0);
    }
    CHECK(dw_mpa_check_end(c) == 0);
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    CHECK_EQ_U(st.first_error, DW_MPA_ERR_MARKER);
    CHECK(marker_err_events >= 1);
    CHECK(marker_err_off > fpdu[3] && marker_err_off < fpdu[4]); /* the first naming FPDU 3 */
    CHECK_EQ_U(st.fpdus >= 2, 1);
    dw_mpa_check_del(c);
}

int main(void)
{
    quick = getenv("DW_TEST_QUICK") != NULL;
    RUN(test_siw_clean);
    RUN(test_siw_mid);
    RUN(test_siw_corrupt_payload);
    RUN(test_siw_wrong_length);
    RUN(test_s9_marker_disagrees_with_oversize_length);
    return dw_test_finish();
}
