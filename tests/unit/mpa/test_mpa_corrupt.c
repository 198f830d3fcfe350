/* SPDX-License-Identifier: MIT */
/*
 * Corruption: every single-bit flip in sampled FPDUs is reported (MPA 9
 * code 2, or 3), the corrupted ULPDU is never delivered, and nothing after
 * it is. Hand-built streams whose CRC is valid but whose marker disagrees
 * give code 3. Truncation gives code 1. Half the cases deliver as pieces
 * (dw_mpa_rx_set_iov_fn). DW_TEST_QUICK=1: a tenth of the
 * bit flips.
 */
#include <ddpwire/crc32c.h>

#include "mpa_util.h"

/* Feeds a corrupted copy; checks exactly `good` records came out. */
static void expect_error(const stream *st, const uint8_t *wire, size_t len,
                         size_t good, uint64_t err_off, int markers, size_t cut,
                         uint64_t *seed, int *code)
{
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    rs.markers = markers;
    sink k = {st, 0, 0, 0, {0}, 0};
    dw_mpa_rx_callbacks cb = {sink_ulpdu, sink_error, NULL};
    dw_mpa_rx *rx;
    CHECK(dw_mpa_rx_new(&rx, &rs, &cb, &k) == 0);
    static unsigned turn; /* every other case: pieces, no copy */
    if (turn++ % 2)
        CHECK(dw_mpa_rx_set_iov_fn(rx, sink_ulpdu_iov) == 0);
    ssize_t r = feed_cuts(rx, wire, len, cut, seed);
    CHECK(r == DW_ERR_PROTO);
    CHECK_EQ_U(k.next, good);
    CHECK_EQ_U(k.mismatches, 0);
    CHECK_EQ_U(k.errors, 1);
    CHECK_EQ_U(k.err.offset, err_off);
    *code = k.err.code;
    /* after the error: nothing more, and no second report */
    CHECK(dw_mpa_rx_feed(rx, wire, len) == DW_ERR_PROTO);
    CHECK(dw_mpa_rx_close(rx, DW_CLOSE_FIN) == DW_ERR_PROTO);
    CHECK_EQ_U(k.errors, 1);
    CHECK_EQ_U(k.next, good);
    dw_mpa_rx_del(rx);
}

static void flips_for(size_t target_len, int markers, size_t max_flips, uint64_t *seed)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = markers;
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    /* prefix, the target, then 70 KB so a longer length field still ends
     * inside the stream (its CRC then decides, not the end of data) */
    size_t sizes[6] = {1 + dw_rand(seed) % 700, 3, target_len, 30000, 30000, 20000};
    stream st;
    stream_build(&st, tx, sizes, 6, 1, seed);
    dw_mpa_tx_del(tx);
    uint64_t f0 = st.recs[2].fpdu_off, f1 = st.recs[3].fpdu_off;
    uint8_t *bad = malloc(st.wire_len);
    size_t bits = (size_t)(f1 - f0) * 8;
    size_t n = bits < max_flips ? bits : max_flips;
    int codes[4] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t bit = bits <= max_flips ? i : dw_rand(seed) % bits;
        memcpy(bad, st.wire, st.wire_len);
        bad[f0 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
        int code = 0;
        expect_error(&st, bad, st.wire_len, 2, f0, markers,
                     i % 4 == 0 ? 1 : 1 + dw_rand(seed) % 3000, seed, &code);
        CHECK(code == DW_MPA_ERR_CRC || code == DW_MPA_ERR_MARKER);
        codes[code & 3]++;
    }
    CHECK(codes[DW_MPA_ERR_CRC] > 0);
    free(bad);
    stream_free(&st);
}

static void test_bit_flips(void)
{
    uint64_t seed = dw_test_seed();
    static const size_t lens[] = {1, 2, 3, 42, 500, 1442, 5000, DW_MPA_ULPDU_MAX};
    size_t div = getenv("DW_TEST_QUICK") ? 10 : 1; /* a tenth of the flips */
    for (int markers = 0; markers < 2; markers++)
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
            flips_for(lens[i], markers, (lens[i] < 1500 ? 100000 : 3000) / div, &seed);
}

/* A valid CRC over a marker with the wrong FPDUPTR: code 3 (MPA 9). */
static void test_marker_disagrees(void)
{
    uint64_t seed = 99;
    uint8_t rec[1000];
    memset(rec, 0x11, sizeof rec);
    for (int where = 0; where < 2; where++) {
        dw_mpa_tx *tx;
        CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
        size_t sizes[3] = {100, 1000, 50};
        stream st;
        stream_build(&st, tx, sizes, 3, 0, &seed);
        dw_mpa_tx_del(tx);
        uint8_t *w = malloc(st.wire_len);
        memcpy(w, st.wire, st.wire_len);
        /* where 0: the marker at 512 inside FPDU 1; where 1: the leading
         * marker of the stream (must be 0) */
        size_t m = where ? 0 : 512, f = where ? 0 : 1;
        size_t fs = st.recs[f].fpdu_off;
        size_t fe = f + 1 < st.nrec ? st.recs[f + 1].fpdu_off : st.wire_len;
        w[m + 3] ^= 0x40; /* FPDUPTR off by 64 */
        dw_crc32c_store(w + fe - 4, dw_crc32c(0, w + fs, fe - 4 - fs));
        int code = 0;
        expect_error(&st, w, st.wire_len, f, fs, 1, 1 + where * 100, &seed, &code);
        CHECK_EQ_U(code, DW_MPA_ERR_MARKER);
        /* low two bits of FPDUPTR are reserved: ignored on receive */
        memcpy(w, st.wire, st.wire_len);
        w[m + 3] ^= 0x03;
        dw_crc32c_store(w + fe - 4, dw_crc32c(0, w + fs, fe - 4 - fs));
        sink k = {&st, 0, 0, 0, {0}, 0};
        dw_mpa_rx_callbacks cb = {sink_ulpdu, sink_error, NULL};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, NULL, &cb, &k) == 0);
        CHECK(feed_cuts(rx, w, st.wire_len, 64, &seed) == 0);
        CHECK(k.next == 3 && k.errors == 0 && k.mismatches == 0);
        dw_mpa_rx_del(rx);
        free(w);
        stream_free(&st);
    }
}

/* The stream ends inside an FPDU: code 1, not clean, with its offset. */
static void test_truncation(void)
{
    uint64_t seed = 5;
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
    size_t sizes[2] = {700, 900};
    stream st;
    stream_build(&st, tx, sizes, 2, 1, &seed);
    dw_mpa_tx_del(tx);
    for (size_t cut = st.recs[1].fpdu_off + 1; cut < st.wire_len; cut += 7) {
        sink k = {&st, 0, 0, 0, {0}, 0};
        dw_mpa_rx_callbacks cb = {sink_ulpdu, sink_error, NULL};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, NULL, &cb, &k) == 0);
        CHECK(feed_cuts(rx, st.wire, cut, 50, &seed) == 0);
        CHECK(dw_mpa_rx_close(rx, DW_CLOSE_RST) == DW_ERR_PROTO);
        CHECK(k.next == 1 && k.errors == 1 && !k.err.clean);
        CHECK(k.err.code == DW_MPA_ERR_CLOSED && k.err.reason == DW_CLOSE_RST);
        CHECK_EQ_U(k.err.offset, st.recs[1].fpdu_off);
        dw_mpa_rx_del(rx);
    }
    stream_free(&st);
}

int main(void)
{
    RUN(test_bit_flips);
    RUN(test_marker_disagrees);
    RUN(test_truncation);
    return dw_test_finish();
}
