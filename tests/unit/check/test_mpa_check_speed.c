/* SPDX-License-Identifier: MIT */
/*
 * MPA checker search: a candidate's FPDUs are judged from their pads,
 * markers and CRCs taken from the buffer's checkpoints (dw_ck_trial)
 * instead of framed octet by octet (dw_ck_trial_fsm). Both must give
 * the same verdict, wait for the same length and learn the same CRC mode
 * on random, zero-heavy and real MPA streams (markers and CRC on and off,
 * damaged FPDUs), at FPDU starts and anywhere else, with every setting
 * the verdict depends on; and the range CRC must be the plain CRC32c,
 * while the buffer compacts and its checkpoint ring wraps.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_check.h>

#include "check/mpa_check_int.h"
#include "test.h"

#define STREAM_CAP (1u << 20)

static uint64_t seed;
static unsigned long verdicts[3];
static unsigned long range_checks;

typedef struct stream {
    uint8_t *d;
    size_t len;
    uint64_t *fpdu;   /* stream offsets of FPDU starts (MPA position = offset) */
    size_t nfpdu;
    int markers;
} stream;

static uint32_t rnd(uint32_t n)
{
    return (uint32_t)(dw_rand(&seed) % n);
}

static void fill_plain(stream *s, int zero_heavy)
{
    static const uint8_t pick[7] = {0, 0, 0, 1, 4, 18, 255};
    for (size_t i = 0; i < s->len; i++)
        s->d[i] = zero_heavy ? pick[rnd(7)] : (uint8_t)dw_rand(&seed);
    s->nfpdu = 0;
    s->markers = 0;
}

/* An MPA stream from position 0; damage: flip octets of some FPDUs,
 * mostly near their pad and CRC field. */
static void fill_mpa(stream *s, int markers, int crc, int damage, int mid)
{
    static uint8_t ulpdu[DW_MPA_ULPDU_MAX];
    dw_mpa_tx_settings ts;
    dw_mpa_tx *tx;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = markers;
    ts.crc = crc;
    ts.ptr_base = rnd(2) ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    size_t off = 0;
    s->nfpdu = 0;
    s->markers = markers;
    for (;;) {
        size_t n = mid ? 1 + rnd(12000)
                 : rnd(8) ? 1 + rnd(rnd(2) ? 64 : 3000) : 1 + rnd(DW_MPA_ULPDU_MAX);
        int zero = rnd(4) == 0;
        for (size_t k = 0; k < n; k++)
            ulpdu[k] = zero ? 0 : (uint8_t)dw_rand(&seed);
        if (off + dw_mpa_fpdu_len((uint32_t)off, n, markers) > STREAM_CAP)
            break;
        ssize_t w = dw_mpa_tx_frame_into(tx, ulpdu, n, s->d + off, STREAM_CAP - off, NULL);
        CHECK(w > 0);
        if (w <= 0)
            break;
        s->fpdu[s->nfpdu++] = off;
        if (damage && rnd(3) == 0) {
            size_t at = rnd(2) ? (size_t)w - 1 - rnd(8) : rnd((uint32_t)w);
            s->d[off + at] ^= (uint8_t)(1u << rnd(8));
        }
        off += (size_t)w;
    }
    s->len = off;
    dw_mpa_tx_del(tx);
}

/* Both trials of buffer index i agree. */
static void compare(dw_mpa_check *c, size_t i, uint64_t pos, int markers)
{
    int final = (int)rnd(2);
    c->crc = (int)rnd(3) - 1;
    c->markers = (int)rnd(3) - 1;
    c->set.strict_search = (int)rnd(2);
    c->started = (int)rnd(2);
    size_t need1 = 7, need2 = 7;
    int crc1 = 5, crc2 = 5;
    int r1 = dw_ck_trial(c, i, pos, markers, final, &need1, &crc1);
    int r2 = dw_ck_trial_fsm(c, i, pos, markers, final, &need2, &crc2);
    CHECK_EQ_U(r1, r2);
    CHECK_EQ_U(need1, need2);
    CHECK_EQ_U(crc1, crc2);
    if (r2 >= 0 && r2 < 3)
        verdicts[r2]++;
}

static void check_range(dw_mpa_check *c)
{
    size_t live = c->b.len - c->b.start;
    if (!live)
        return;
    size_t a = c->b.start + rnd((uint32_t)live);
    size_t span = c->b.len - a < 65000 ? c->b.len - a : 65000;
    size_t b = a + (rnd(4) ? rnd((uint32_t)span + 1) : rnd(40 < span + 1 ? 40 : (uint32_t)span + 1));
    CHECK_EQ_U(dw_cc_crcs_range(&c->crcs, &c->b, a, b), dw_crc32c(0, c->b.buf + a, b - a));
    range_checks++;
}

/* The first FPDU start at or after stream offset o (else all ones). */
static uint64_t first_start(const stream *s, uint64_t o)
{
    size_t lo = 0, hi = s->nfpdu;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (s->fpdu[m] < o)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < s->nfpdu ? s->fpdu[lo] : UINT64_MAX;
}

/* Trials at some buffer indexes: FPDU starts with their position, any
 * index with any position. s begins at stream offset s0. */
static void probe(dw_mpa_check *c, const stream *s, uint64_t s0, unsigned tries)
{
    size_t live = c->b.len - c->b.start;
    dw_cc_crcs_sync(&c->crcs, &c->b); /* as a search does before its trials */
    for (unsigned t = 0; t < tries && live; t++) {
        size_t i = c->b.start + rnd((uint32_t)live);
        uint64_t pos = 0;
        int mk = (int)rnd(2);
        uint32_t how = rnd(4);
        if (how == 0 && s->nfpdu) { /* the true start at or after i */
            uint64_t o = first_start(s, c->b.base + i - s0);
            if (o < c->b.base + c->b.len - s0) {
                i = (size_t)(o + s0 - c->b.base);
                pos = o;
                mk = s->markers;
            }
        } else if (how == 1) {
            pos = 4u * rnd(128); /* mid-stream positions mod 512 */
        } else if (how == 2) {
            pos = (1ull << 33) + 4u * rnd(1u << 20);
            mk = 0;
        } else if (rnd(8) == 0) {
            pos = rnd(1u << 16); /* positions no search uses */
        }
        compare(c, i, pos, mk);
    }
    check_range(c);
}

/* Feeds s through the search buffer in pieces, dropping old octets the
 * way a search does, probing as it goes. */
static void run(const stream *s, unsigned tries)
{
    dw_mpa_check_settings set;
    dw_mpa_check *c;
    dw_mpa_check_settings_default(&set);
    set.start = DW_MPA_CHECK_START_SEARCH;
    CHECK(dw_mpa_check_new(&c, &set, NULL, NULL) == 0);
    uint64_t base = rnd(2) ? 0 : 1000 + rnd(100);
    c->state = DW_CK_SEARCH;
    dw_ck_buf_reset(c, base);
    size_t at = 0;
    while (at < s->len) {
        size_t live = c->b.len - c->b.start;
        if (live > DW_CK_BUF_CAP - 5000 || rnd(16) == 0)
            dw_cc_buf_skip(&c->b, rnd((uint32_t)live / 2 + 1));
        size_t n = 1 + rnd(rnd(4) ? 3000 : 20);
        n = n < s->len - at ? n : s->len - at;
        dw_cc_slice sl = {base + at, 1, (uint32_t)(base + at), (uint32_t)n, 1, 1, 0};
        size_t k = dw_ck_buf_put(c, s->d + at, n, &sl);
        at += k;
        if (k)
            probe(c, s, base, tries);
    }
    dw_mpa_check_del(c);
}

static stream st;

static int quick;

static void test_random(void)
{
    st.len = quick ? STREAM_CAP / 8 : STREAM_CAP / 2;
    fill_plain(&st, 0);
    run(&st, quick ? 4 : 24);
}

static void test_zero_heavy(void)
{
    st.len = quick ? STREAM_CAP / 8 : STREAM_CAP / 2;
    fill_plain(&st, 1);
    run(&st, quick ? 4 : 24);
}

static void test_mpa(void)
{
    for (int v = 0; v < 8; v++) {
        fill_mpa(&st, v & 1, (v >> 1) & 1, v >> 2, 0);
        CHECK(st.nfpdu > 10);
        run(&st, quick ? 4 : 40);
    }
}

/* Every FPDU start of a buffer full of FPDUs up to 12000 octets, with
 * every setting the verdict depends on. */
static void test_mpa_starts(void)
{
    dw_mpa_check_settings set;
    dw_mpa_check *c;
    dw_mpa_check_settings_default(&set);
    CHECK(dw_mpa_check_new(&c, &set, NULL, NULL) == 0);
    c->state = DW_CK_SEARCH;
    for (int v = 0; v < 8; v++) {
        fill_mpa(&st, v & 1, (v >> 1) & 1, v >> 2, 1);
        dw_ck_buf_reset(c, 0);
        dw_cc_slice sl = {0, 1, 0, (uint32_t)st.len, 1, 1, 0};
        size_t n = dw_ck_buf_put(c, st.d, st.len, &sl);
        CHECK_EQ_U(n, DW_CK_BUF_CAP);
        dw_cc_crcs_sync(&c->crcs, &c->b);
        for (size_t f = 0; f < st.nfpdu && st.fpdu[f] < n; f++) {
            for (unsigned k = 0; k < 72; k++) {
                size_t need1 = 7, need2 = 7;
                int crc1 = 5, crc2 = 5, final = (int)(k & 1);
                c->crc = (int)(k >> 1) % 3 - 1;
                c->markers = (int)(k / 6) % 3 - 1;
                c->set.strict_search = (int)(k / 18) & 1;
                c->started = (int)(k / 36);
                uint64_t i = st.fpdu[f];
                int r1 = dw_ck_trial(c, i, i, st.markers, final, &need1, &crc1);
                int r2 = dw_ck_trial_fsm(c, i, i, st.markers, final, &need2, &crc2);
                CHECK_EQ_U(r1, r2);
                CHECK_EQ_U(need1, need2);
                CHECK_EQ_U(crc1, crc2);
                if (r2 >= 0 && r2 < 3)
                    verdicts[r2]++;
            }
        }
    }
    dw_mpa_check_del(c);
}

/* Searches reached every verdict and the range CRC saw many ranges. */
static void test_coverage(void)
{
    fprintf(stderr, "reject %lu, accept %lu, more %lu; %lu ranges\n",
            verdicts[DW_CK_T_REJECT], verdicts[DW_CK_T_ACCEPT],
            verdicts[DW_CK_T_MORE], range_checks);
    CHECK(verdicts[DW_CK_T_REJECT] > (quick ? 1000u : 50000u));
    CHECK(verdicts[DW_CK_T_ACCEPT] > (quick ? 10u : 500u));
    CHECK(verdicts[DW_CK_T_MORE] > (quick ? 100u : 5000u));
    CHECK(range_checks > 1000);
}

int main(void)
{
    seed = dw_test_seed();
    quick = getenv("DW_TEST_QUICK") != NULL;
    st.d = malloc(STREAM_CAP);
    st.fpdu = malloc(STREAM_CAP / 4 * sizeof *st.fpdu);
    if (!st.d || !st.fpdu)
        return 1;
    RUN(test_random);
    RUN(test_zero_heavy);
    RUN(test_mpa);
    RUN(test_mpa_starts);
    RUN(test_coverage);
    free(st.d);
    free(st.fpdu);
    return dw_test_finish();
}
