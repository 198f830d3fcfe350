/* SPDX-License-Identifier: MIT */
/*
 * Streams of short FPDUs (the sender's straight-line path and the in-order
 * receiver's batch loop, lib/mpa/mpa_crc_small_x86.c and mpa_rx.c) against
 * the portable CRC32c, which turns those paths off: the same octets on
 * the wire, the same ULPDUs delivered at the same offsets, and the same
 * verdicts on a bad CRC, a bad marker, a callback that stops, a closing
 * callback and a ULPDU with no buffer to go to.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include "test.h"

#define NF 700
#define WIRE_MAX (NF * 1600u)

static uint8_t ulpdu[2048];
static size_t ulen[NF], fpos[NF + 1]; /* ULPDU lengths, FPDU starts */
static uint8_t wire[WIRE_MAX], wire2[WIRE_MAX];
static uint64_t seed;

/* Frames NF ULPDUs (mostly short, some longer) into out as iovecs;
 * returns the stream length. */
static size_t frame_stream(uint8_t *out, int markers, int rfc, int portable)
{
    static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    dw_mpa_tx_settings s;
    dw_mpa_tx_settings_default(&s);
    s.markers = markers;
    s.ptr_base = rfc ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
    dw_mpa_tx *tx;
    CHECK_EQ_U(dw_mpa_tx_new(&tx, &s), 0);
    CHECK_EQ_U(dw_crc32c_set_impl(portable ? DW_CRC32C_PORTABLE : DW_CRC32C_AUTO), 0);
    size_t w = 0;
    for (int i = 0; i < NF; i++) {
        fpos[i] = w;
        dw_mpa_fpdu_info info;
        ssize_t n = dw_mpa_tx_frame(tx, ulpdu + i % 64, ulen[i], iov, DW_MPA_FPDU_IOV_MAX, &info);
        CHECK(n > 0 && (size_t)n == info.len && info.pos == w);
        for (size_t k = 0; n > 0 && k < info.iovcnt; k++) {
            memcpy(out + w, iov[k].iov_base, iov[k].iov_len);
            w += iov[k].iov_len;
        }
        CHECK_EQ_U(w, fpos[i] + (size_t)n);
    }
    fpos[NF] = w;
    CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_AUTO), 0);
    dw_mpa_tx_del(tx);
    return w;
}

typedef struct got {
    int n, stop_at, close_at, bufs;
    dw_mpa_error err;
    uint64_t err_off;
    int bad;
} got;

static void check_one(got *g, const uint8_t *d, size_t len, uint64_t off)
{
    int i = g->n++;
    g->bad |= i >= NF || len != ulen[i] || off != fpos[i] ||
              memcmp(d, ulpdu + i % 64, len) != 0;
}

static int stop_or_close(dw_mpa_rx *rx, got *g)
{
    if (g->n - 1 == g->close_at)
        dw_mpa_rx_close(rx, DW_CLOSE_FIN);
    return g->n - 1 == g->stop_at;
}

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    check_one(u, d, len, off);
    return stop_or_close(rx, u);
}

static int on_iov(dw_mpa_rx *rx, const struct iovec *iov, int n, size_t len, uint64_t off,
                  void *u)
{
    static uint8_t flat[65536];
    size_t w = 0;
    for (int k = 0; k < n; k++) {
        memcpy(flat + w, iov[k].iov_base, iov[k].iov_len);
        w += iov[k].iov_len;
    }
    ((got *)u)->bad |= w != len;
    check_one(u, flat, len, off);
    return stop_or_close(rx, u);
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    got *g = u;
    (void)rx;
    g->err = e->code;
    g->err_off = e->offset;
}

static uint8_t *no_buffer(dw_mpa_rx *rx, size_t len, void *u)
{
    (void)rx, (void)len;
    ((got *)u)->bufs++;
    return NULL;
}

/* Receives w octets of in, read by read (0: random sizes); returns what
 * the last feed returned and the octets taken before it. */
static ssize_t receive(const uint8_t *in, size_t w, int markers, int iov, size_t read,
                       int nobuf, got *g, size_t *taken)
{
    dw_mpa_rx_settings s;
    dw_mpa_rx_settings_default(&s);
    s.markers = markers;
    if (nobuf)
        s.buf_size = 0;
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, nobuf ? no_buffer : NULL};
    dw_mpa_rx *rx;
    CHECK_EQ_U(dw_mpa_rx_new(&rx, &s, &cb, g), 0);
    if (iov)
        dw_mpa_rx_set_iov_fn(rx, on_iov);
    ssize_t r = 0;
    size_t at = 0;
    while (at < w) {
        size_t k = read ? read : 1 + dw_rand(&seed) % 3000;
        k = k < w - at ? k : w - at;
        r = dw_mpa_rx_feed(rx, in + at, k);
        if (r < 0 || (size_t)r < k) {
            at += r > 0 ? (size_t)r : 0;
            break;
        }
        at += k;
    }
    *taken = at;
    dw_mpa_rx_del(rx);
    return r;
}

/* Every mode with the fast paths and with the portable CRC (none). */
static void for_modes(const uint8_t *in, size_t w, int markers, int nobuf,
                      void (*expect)(const got *, ssize_t, size_t, int, int))
{
    for (int portable = 0; portable < 2; portable++)
        for (int iov = 0; iov < 2; iov++)
            for (int rd = 0; rd < 3; rd++) {
                DW_CASE_HERE("markers %d portable %d iov %d read %d", markers, portable, iov, rd);
                static const size_t reads[3] = {65536, 0, 7};
                got g = {0, -1, -1, 0, DW_MPA_ERR_NONE, 0, 0};
                CHECK_EQ_U(dw_crc32c_set_impl(portable ? DW_CRC32C_PORTABLE : DW_CRC32C_AUTO), 0);
                size_t taken;
                ssize_t r = receive(in, w, markers, iov, reads[rd], nobuf, &g, &taken);
                CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_AUTO), 0);
                expect(&g, r, taken, iov, portable);
            }
}

static int want_n, want_err_fpdu;
static dw_mpa_error want_err;

static void expect_all(const got *g, ssize_t r, size_t taken, int iov, int portable)
{
    (void)iov, (void)portable;
    CHECK(!g->bad);
    CHECK_EQ_U(g->n, NF);
    CHECK_EQ_U(g->err, DW_MPA_ERR_NONE);
    CHECK(r >= 0);
    CHECK_EQ_U(taken, fpos[NF]);
}

static void expect_error(const got *g, ssize_t r, size_t taken, int iov, int portable)
{
    (void)taken, (void)iov, (void)portable;
    CHECK(!g->bad);
    CHECK_EQ_U(g->n, want_n);
    CHECK_EQ_U(g->err, want_err);
    CHECK_EQ_U(g->err_off, fpos[want_err_fpdu]);
    CHECK(r == DW_ERR_PROTO);
}

static void test_streams(void)
{
    for (int markers = 0; markers < 2; markers++)
        for (int rfc = 0; rfc < 2; rfc++) {
            for (int i = 0; i < NF; i++) /* mostly short; every 9th long */
                ulen[i] = i % 9 == 8 ? 128 + dw_rand(&seed) % 1400 : 1 + dw_rand(&seed) % 200;
            size_t w = frame_stream(wire, markers, rfc, 0);
            size_t w2 = frame_stream(wire2, markers, rfc, 1);
            CHECK(w == w2 && memcmp(wire, wire2, w) == 0); /* same octets */
            for_modes(wire, w, markers, 0, expect_all);
            /* a bad CRC in FPDU k: k delivered, the error at its start */
            int k = NF / 2 + (int)(dw_rand(&seed) % 50);
            memcpy(wire2, wire, w);
            wire2[fpos[k + 1] - 1 - dw_rand(&seed) % 4] ^= 0x10;
            want_n = k, want_err = DW_MPA_ERR_CRC, want_err_fpdu = k;
            for_modes(wire2, w, markers, 0, expect_error);
            if (!markers)
                continue;
            /* a short FPDU with a marker inside its ULPDU (MPA 7.1): its
             * FPDUPTR spoilt, then no buffer for its ULPDU */
            for (k = 1; k < NF; k++) {
                size_t u0 = fpos[k] + (fpos[k] % 512 ? 2 : 6), m = (fpos[k] / 512 + 1) * 512;
                if (ulen[k] < 100 && m > u0 && m < u0 + ulen[k])
                    break;
            }
            CHECK(k < NF);
            if (k == NF)
                continue;
            size_t m = (fpos[k] / 512 + 1) * 512;
            memcpy(wire2, wire, w);
            wire2[m + 2] ^= 0x01; /* and the CRC made good again (MPA 7.2) */
            dw_crc32c_store(wire2 + fpos[k + 1] - 4,
                            dw_crc32c(0, wire2 + fpos[k], fpos[k + 1] - fpos[k] - 4));
            want_n = k, want_err = DW_MPA_ERR_MARKER, want_err_fpdu = k;
            for_modes(wire2, w, markers, 0, expect_error);
            for (int portable = 0; portable < 2; portable++) {
                DW_CASE_HERE("no buffer, portable %d", portable);
                CHECK_EQ_U(dw_crc32c_set_impl(portable ? DW_CRC32C_PORTABLE : DW_CRC32C_AUTO), 0);
                got g = {0, -1, -1, 0, DW_MPA_ERR_NONE, 0, 0};
                size_t taken;
                ssize_t r = receive(wire, fpos[k + 1], markers, 0, 65536, 1, &g, &taken);
                CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_AUTO), 0);
                int first = 0; /* the first ULPDU a marker splits */
                while (first < NF) {
                    size_t u0 = fpos[first] + (fpos[first] % 512 ? 2 : 6);
                    size_t mm = (fpos[first] / 512 + 1) * 512;
                    if (mm > u0 && mm < u0 + ulen[first])
                        break;
                    first++;
                }
                CHECK(r == DW_ERR_NOMEM);
                CHECK_EQ_U(g.n, first);
                CHECK_EQ_U(g.bufs, 1); /* asked once, not again on a fallback */
                CHECK(!g.bad);
            }
        }
}

/* A callback that stops or closes: feed() returns after that FPDU. */
static void test_stop_and_close(void)
{
    for (int i = 0; i < NF; i++)
        ulen[i] = 8 + dw_rand(&seed) % 120;
    size_t w = frame_stream(wire, 1, 0, 0);
    for (int portable = 0; portable < 2; portable++)
        for (int iov = 0; iov < 2; iov++)
            for (int close = 0; close < 2; close++) {
                DW_CASE_HERE("portable %d iov %d close %d", portable, iov, close);
                CHECK_EQ_U(dw_crc32c_set_impl(portable ? DW_CRC32C_PORTABLE : DW_CRC32C_AUTO), 0);
                int k = 100 + (int)(dw_rand(&seed) % 300);
                got g = {0, close ? -1 : k, close ? k : -1, 0, DW_MPA_ERR_NONE, 0, 0};
                size_t taken;
                ssize_t r = receive(wire, w, 1, iov, 65536, 0, &g, &taken);
                CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_AUTO), 0);
                CHECK(!g.bad);
                CHECK_EQ_U(g.n, k + 1);
                if (close) { /* closed cleanly between FPDUs (MPA 5.1) */
                    CHECK(r == DW_ERR_PROTO);
                    CHECK_EQ_U(g.err, DW_MPA_ERR_CLOSED);
                    CHECK_EQ_U(g.err_off, fpos[k + 1]);
                } else {
                    CHECK(r >= 0);
                    CHECK_EQ_U(taken, fpos[k + 1]);
                }
            }
}

int main(void)
{
    seed = dw_test_seed();
    for (size_t i = 0; i < sizeof ulpdu; i++)
        ulpdu[i] = (uint8_t)(dw_rand(&seed) >> 56);
    RUN(test_streams);
    RUN(test_stop_and_close);
    return dw_test_finish();
}
