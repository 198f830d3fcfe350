/* SPDX-License-Identifier: MIT */
/*
 * ddpwire bench mpa: the MPA sender and in-order receiver against their
 * anchors, in the same run.
 *
 *   frame-iov   ULPDU -> FPDU iovecs (payload referenced, CRC computed);
 *               anchor: CRC32c alone over the same ULPDU (goal >= 85 %).
 *   frame-into  ULPDU -> contiguous FPDU (copy + CRC fused).
 *   rx          in-order receive of a framed stream fed in 64 KiB reads
 *               (marker stripping + copy + CRC, delivery); anchor: CRC32c
 *               alone over the same ULPDU (goal >= 85 %); memcpy of the
 *               same ULPDUs is shown too (vs_memcpy).
 *   rx-iov      the same, the ULPDUs delivered as pieces between the
 *               markers (dw_mpa_rx_set_iov_fn: no copy, the CRC over the
 *               wire octets).
 * nanoseconds_per_fpdu: nanoseconds per FPDU (64 B goal: <= 10 ns). The vs_crc
 * ratios are measured in alternation with the anchor (dw_bench_ratio).
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define STREAM_PAYLOAD (256u << 10) /* per receive pass: L2-resident */
#define READ_CHUNK 65536u

typedef struct ctx {
    dw_mpa_tx *tx;
    dw_mpa_rx *rx;
    uint8_t *src, *dst;
    struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    uint8_t *wire;
    size_t wire_len;
    size_t nfpdu;
    size_t delivered;
} ctx;

static void do_crc(void *p, size_t n)
{
    ctx *c = p;
    c->delivered += dw_crc32c(0, c->src, n) & 1;
}

static void do_memcpy(void *p, size_t n)
{
    ctx *c = p;
    memcpy(c->dst, c->src, n);
    __asm__ volatile("" : : "r"(c->dst) : "memory");
}

static void do_frame_iov(void *p, size_t n)
{
    ctx *c = p;
    dw_mpa_tx_frame(c->tx, c->src, n, c->iov, DW_MPA_FPDU_IOV_MAX, NULL);
}

static void do_frame_into(void *p, size_t n)
{
    ctx *c = p;
    dw_mpa_tx_frame_into(c->tx, c->src, n, c->dst, DW_MPA_FPDU_MAX, NULL);
}

static void do_rx(void *p, size_t n)
{
    ctx *c = p;
    (void)n;
    for (size_t at = 0; at < c->wire_len; at += READ_CHUNK) {
        size_t k = c->wire_len - at < READ_CHUNK ? c->wire_len - at : READ_CHUNK;
        dw_mpa_rx_feed(c->rx, c->wire + at, k);
    }
}

/* CRC32c alone over the same ULPDUs the receive pass delivers. */
static void do_crc_stream(void *p, size_t n)
{
    ctx *c = p;
    size_t u = n / c->nfpdu;
    for (size_t i = 0; i < c->nfpdu; i++)
        c->delivered += dw_crc32c(0, c->src, u) & 1;
}

/* memcpy of the same ULPDUs the receive pass delivers. */
static void do_memcpy_stream(void *p, size_t n)
{
    ctx *c = p;
    size_t u = n / c->nfpdu;
    for (size_t i = 0; i < c->nfpdu; i++)
        memcpy(c->dst + (i * u) % (1u << 20), c->src, u);
    __asm__ volatile("" : : "r"(c->dst) : "memory");
}

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)d, (void)len, (void)off;
    c->delivered++;
    return 0;
}

static int on_ulpdu_iov(dw_mpa_rx *rx, const struct iovec *iov, int n, size_t len,
                        uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)iov, (void)n, (void)len, (void)off;
    c->delivered++;
    return 0;
}

/* Receives the stream once with callbacks cb and reports it as name. */
static int bench_rx(ctx *c, const dw_bench_opts *o, size_t ulen, int markers,
                    dw_mpa_rx_iov_fn fn, const char *name)
{
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    rs.markers = markers;
    dw_mpa_rx_callbacks cb = {on_ulpdu, NULL, NULL};
    if (dw_mpa_rx_new(&c->rx, &rs, &cb, c) || dw_mpa_rx_set_iov_fn(c->rx, fn))
        return 1;
    size_t payload = c->nfpdu * ulen;
    c->delivered = 0;
    do_rx(c, payload);
    int ok = c->delivered == c->nfpdu && !dw_mpa_rx_failed(c->rx);
    double rx = dw_bench_gbps(do_rx, c, payload, o);
    double mcs = dw_bench_gbps(do_memcpy_stream, c, payload, o);
    const char *keys[3] = {"vs_crc", "nanoseconds_per_fpdu", "vs_memcpy"};
    double vals[3] = {dw_bench_ratio(do_rx, c, do_crc_stream, c, payload, o),
                      (double)ulen / rx, rx / mcs};
    dw_bench_report_n(o, "mpa", name, ulen, rx, keys, vals, 3);
    ok &= !dw_mpa_rx_failed(c->rx);
    dw_mpa_rx_del(c->rx);
    c->rx = NULL;
    if (!ok)
        fprintf(stderr, "bench mpa: the receiver did not verify the stream\n");
    return !ok;
}

/*
 * A stream of FPDUs of ulen octets whose length is a multiple of 512, so
 * the receiver can be fed it again and again with markers in place: after
 * the FPDUs, one filler FPDU ends exactly on a 512 boundary.
 */
static int build_stream(ctx *c, size_t ulen, int markers)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = markers;
    dw_mpa_tx *tx;
    if (dw_mpa_tx_new(&tx, &ts))
        return -1;
    size_t n = STREAM_PAYLOAD / ulen ? STREAM_PAYLOAD / ulen : 1, w = 0;
    for (size_t i = 0; i < n; i++)
        w += (size_t)dw_mpa_tx_frame_into(tx, c->src, ulen, c->wire + w, DW_MPA_FPDU_MAX, NULL);
    if (markers && w % 512) {
        size_t r = 512 - w % 512; /* a filler of r (or r + 512) octets */
        size_t fill = r >= 8 ? r - 6 : r + 512 - 6 - 4;
        w += (size_t)dw_mpa_tx_frame_into(tx, c->src, fill, c->wire + w, DW_MPA_FPDU_MAX, NULL);
        n++;
    }
    dw_mpa_tx_del(tx);
    c->wire_len = w;
    c->nfpdu = n;
    return markers && w % 512 ? -1 : 0;
}

static int bench_size(ctx *c, const dw_bench_opts *o, size_t ulen, int markers)
{
    const char *m = markers ? "" : "-nomark";
    char name[32];
    double crc = dw_bench_gbps(do_crc, c, ulen, o);
    double cpy = dw_bench_gbps(do_memcpy, c, ulen, o);
    dw_bench_report(o, "mpa", "crc-only", ulen, crc, NULL, 0);
    dw_bench_report(o, "mpa", "memcpy", ulen, cpy, NULL, 0);
    double g = dw_bench_gbps(do_frame_iov, c, ulen, o);
    snprintf(name, sizeof name, "frame-iov%s", m);
    const char *keys[3] = {"vs_crc", "nanoseconds_per_fpdu", "vs_memcpy"};
    double vals[3] = {dw_bench_ratio(do_frame_iov, c, do_crc, c, ulen, o),
                      (double)ulen / g, 0};
    dw_bench_report_n(o, "mpa", name, ulen, g, keys, vals, 2);
    g = dw_bench_gbps(do_frame_into, c, ulen, o);
    snprintf(name, sizeof name, "frame-into%s", m);
    dw_bench_report(o, "mpa", name, ulen, g, "vs_memcpy", g / cpy);
    /* receive: payload octets per pass = FPDUs x ulen (filler excluded) */
    if (build_stream(c, ulen, markers))
        return 1;
    snprintf(name, sizeof name, "rx%s", m);
    int rc = bench_rx(c, o, ulen, markers, NULL, name);
    snprintf(name, sizeof name, "rx-iov%s", m);
    return rc | bench_rx(c, o, ulen, markers, on_ulpdu_iov, name);
}

int dw_bench_mpa(const dw_bench_opts *o)
{
    static const size_t sizes[] = {64, 512, 1460, 4096, 16384, DW_MPA_ULPDU_MAX};
    ctx c;
    memset(&c, 0, sizeof c);
    c.src = dw_bench_alloc(DW_MPA_FPDU_MAX);
    c.dst = dw_bench_alloc((1u << 20) + DW_MPA_FPDU_MAX);
    c.wire = dw_bench_alloc(2 * STREAM_PAYLOAD + 2 * DW_MPA_FPDU_MAX);
    int rc = 0;
    dw_bench_header(o, "mpa", "MPA framing and in-order receive (CRC32c path: see crc bench)");
    for (int markers = 1; markers >= 0; markers--) {
        dw_mpa_tx_settings ts;
        dw_mpa_tx_settings_default(&ts);
        ts.markers = markers;
        if (dw_mpa_tx_new(&c.tx, &ts))
            return 1;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            if (!o->size || o->size == sizes[i])
                rc |= bench_size(&c, o, sizes[i], markers);
        dw_mpa_tx_del(c.tx);
        if (o->quick)
            break;
    }
    dw_bench_free(c.src);
    dw_bench_free(c.dst);
    dw_bench_free(c.wire);
    return rc;
}
