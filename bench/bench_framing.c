/* SPDX-License-Identifier: MIT */
/*
 * ddpwire bench framing: the marker-cost question (IFT text, section 6)
 * measured. For the same ULPDU sizes, the same machine, one run, in
 * software: MPA with markers, MPA without markers, and IFT.
 *
 * A ULPDU is an 18-octet DDP header (untagged) and its payload; every
 * sender gets them as two pieces, as a DDP layer sending from user memory
 * would (MPA: dw_mpa_tx_frame_pdu; IFT: dw_ift_tx_frame).
 *
 *   tx-iov   zero-copy framing into iovecs (payload referenced, CRCs
 *            computed); reported with the iovecs per frame
 *   tx-into  framing into a contiguous buffer (copy + CRC)
 *   rx       in-order receive of a framed stream fed in 64 KiB reads, each
 *            ULPDU ending in a contiguous caller buffer (verified)
 * GB/s count ULPDU octets; vs_ift = this framing's speed / IFT's. Also
 * mpa-markers-1piece: sending a contiguous ULPDU instead (for comparison).
 */
#include <ddpwire/ift.h>
#include <ddpwire/mpa.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define HDR 18u
#define STREAM_PAYLOAD (256u << 10)
#define READ_CHUNK 65536u
#define DST_RING (1u << 20)

/* MPA_1PIECE: MPA with markers given the ULPDU contiguous (header and
 * payload in one buffer); only its sending differs from MPA_MARKERS. */
enum { MPA_MARKERS, MPA_NOMARK, IFT, MPA_1PIECE, NCFG };
static const char *const cfg_name[NCFG] = {"mpa-markers", "mpa-nomark", "ift",
                                           "mpa-markers-1piece"};

typedef struct ctx {
    int cfg;
    dw_mpa_tx *mtx;
    dw_ift_tx *itx;
    dw_mpa_rx *mrx;
    dw_ift_rx *irx;
    uint8_t *src, *dst, *wire, hdr[64];
    struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    size_t wire_len, nframes, delivered, iovs, dst_at;
} ctx;

static void do_tx_iov(void *p, size_t n)
{
    ctx *c = p;
    if (c->cfg == IFT) {
        dw_ift_frame_info fi;
        dw_ift_tx_frame(c->itx, c->src, HDR, c->src + HDR, n - HDR, c->iov,
                        DW_MPA_FPDU_IOV_MAX, &fi);
        c->iovs += fi.iovcnt;
    } else {
        dw_mpa_fpdu_info fi;
        if (c->cfg == MPA_1PIECE)
            dw_mpa_tx_frame(c->mtx, c->src, n, c->iov, DW_MPA_FPDU_IOV_MAX, &fi);
        else
            dw_mpa_tx_frame_pdu(c->mtx, c->src, HDR, c->src + HDR, n - HDR, c->iov,
                                DW_MPA_FPDU_IOV_MAX, &fi);
        c->iovs += fi.iovcnt;
    }
    c->nframes++;
}

static void do_tx_into(void *p, size_t n)
{
    ctx *c = p;
    if (c->cfg == IFT)
        dw_ift_tx_frame_into(c->itx, c->src, HDR, c->src + HDR, n - HDR, c->dst,
                             DW_MPA_FPDU_MAX, NULL);
    else if (c->cfg == MPA_1PIECE)
        dw_mpa_tx_frame_into(c->mtx, c->src, n, c->dst, DW_MPA_FPDU_MAX, NULL);
    else
        dw_mpa_tx_frame_pdu_into(c->mtx, c->src, HDR, c->src + HDR, n - HDR, c->dst,
                                 DW_MPA_FPDU_MAX, NULL);
}

/* The caller's buffers: consecutive slots of a 1 MiB ring. */
static uint8_t *slot(ctx *c, size_t len)
{
    if (c->dst_at + len > DST_RING)
        c->dst_at = 0;
    uint8_t *at = c->dst + c->dst_at;
    c->dst_at += len;
    return at;
}

static uint8_t *mpa_buffer(dw_mpa_rx *rx, size_t len, void *u)
{
    (void)rx;
    return slot(u, len);
}

/* Delivered in place (no marker inside, contiguous in the read): the copy
 * into the caller's buffer is part of the cost. */
static int mpa_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)off;
    if (d < c->dst || d >= c->dst + DST_RING)
        memcpy(slot(c, len), d, len);
    c->delivered++;
    return 0;
}

static int ift_header(dw_ift_rx *rx, const uint8_t *h, size_t hl, size_t pl,
                      uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)pl, (void)off;
    memcpy(c->hdr, h, hl < sizeof c->hdr ? hl : sizeof c->hdr);
    return 0;
}

static uint8_t *ift_buffer(dw_ift_rx *rx, size_t len, void *u)
{
    (void)rx;
    return slot(u, len);
}

static int ift_end(dw_ift_rx *rx, uint64_t off, void *u)
{
    (void)rx, (void)off;
    ((ctx *)u)->delivered++;
    return 0;
}

static void do_rx(void *p, size_t n)
{
    ctx *c = p;
    (void)n;
    for (size_t at = 0; at < c->wire_len; at += READ_CHUNK) {
        size_t k = c->wire_len - at < READ_CHUNK ? c->wire_len - at : READ_CHUNK;
        if (c->cfg == IFT)
            dw_ift_rx_feed(c->irx, c->wire + at, k);
        else
            dw_mpa_rx_feed(c->mrx, c->wire + at, k);
    }
}

static void do_memcpy(void *p, size_t n)
{
    ctx *c = p;
    size_t u = n / c->nframes;
    for (size_t i = 0; i < c->nframes; i++)
        memcpy(slot(c, u), c->src, u);
    __asm__ volatile("" : : "r"(c->dst) : "memory");
}

/* Octets framed for one ULPDU of ulen octets into c->wire + w. */
static size_t frame_one(ctx *c, dw_mpa_tx *tx, dw_ift_tx *itx, size_t ulen, size_t w)
{
    ssize_t k = itx ? dw_ift_tx_frame_into(itx, c->src, HDR, c->src + HDR, ulen - HDR,
                                           c->wire + w, DW_MPA_FPDU_MAX, NULL)
                    : dw_mpa_tx_frame_pdu_into(tx, c->src, HDR, c->src + HDR, ulen - HDR,
                                               c->wire + w, DW_MPA_FPDU_MAX, NULL);
    return k > 0 ? (size_t)k : 0;
}

/* A stream the receiver can be fed again and again: with markers its
 * length is a multiple of 512 (a filler FPDU ends on a boundary). */
static int build_stream(ctx *c, size_t ulen)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx *tx = NULL;
    dw_ift_tx *itx = NULL;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = c->cfg == MPA_MARKERS;
    if (c->cfg == IFT ? dw_ift_tx_new(&itx, NULL) : dw_mpa_tx_new(&tx, &ts))
        return -1;
    size_t n = STREAM_PAYLOAD / ulen ? STREAM_PAYLOAD / ulen : 1, w = 0;
    for (size_t i = 0; i < n; i++)
        w += frame_one(c, tx, itx, ulen, w);
    c->nframes = n;
    if (c->cfg == MPA_MARKERS && w % 512) {
        size_t r = 512 - w % 512;
        size_t fill = r >= 8 + HDR ? r - 6 : r + 512 - 6 - 4;
        w += frame_one(c, tx, NULL, fill, w);
        c->nframes++;
    }
    dw_mpa_tx_del(tx);
    dw_ift_tx_del(itx);
    c->wire_len = w;
    return c->cfg == MPA_MARKERS && w % 512 ? -1 : 0;
}

static int make_rx(ctx *c)
{
    if (c->cfg == IFT) {
        dw_ift_rx_callbacks cb = {ift_header, ift_buffer, NULL, ift_end, NULL};
        return dw_ift_rx_new(&c->irx, NULL, &cb, c);
    }
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    rs.markers = c->cfg == MPA_MARKERS;
    dw_mpa_rx_callbacks cb = {mpa_ulpdu, NULL, mpa_buffer};
    return dw_mpa_rx_new(&c->mrx, &rs, &cb, c);
}

static int rx_failed(const ctx *c)
{
    return c->cfg == IFT ? dw_ift_rx_failed(c->irx) != DW_IFT_ERR_NONE
                         : dw_mpa_rx_failed(c->mrx) != DW_MPA_ERR_NONE;
}

typedef struct result {
    double tx_iov, tx_into, rx, iov_per_frame, rx_vs_memcpy;
} result;

static int measure(ctx *c, const dw_bench_opts *o, size_t ulen, result *r)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = c->cfg != MPA_NOMARK;
    if (c->cfg == IFT ? dw_ift_tx_new(&c->itx, NULL) : dw_mpa_tx_new(&c->mtx, &ts))
        return 1;
    c->iovs = c->nframes = 0;
    r->tx_iov = dw_bench_gbps(do_tx_iov, c, ulen, o);
    r->iov_per_frame = c->nframes ? (double)c->iovs / (double)c->nframes : 0;
    r->tx_into = dw_bench_gbps(do_tx_into, c, ulen, o);
    dw_mpa_tx_del(c->mtx);
    dw_ift_tx_del(c->itx);
    c->mtx = NULL, c->itx = NULL;
    if (c->cfg == MPA_1PIECE) /* receiving is MPA_MARKERS's */
        return 0;
    if (build_stream(c, ulen) || make_rx(c))
        return 1;
    size_t payload = c->nframes * ulen;
    c->delivered = 0;
    do_rx(c, payload);
    int ok = c->delivered == c->nframes && !rx_failed(c);
    r->rx = dw_bench_gbps(do_rx, c, payload, o);
    r->rx_vs_memcpy = r->rx / dw_bench_gbps(do_memcpy, c, payload, o);
    ok &= !rx_failed(c);
    dw_mpa_rx_del(c->mrx);
    dw_ift_rx_del(c->irx);
    c->mrx = NULL, c->irx = NULL;
    if (!ok)
        fprintf(stderr, "bench framing: %s receiver did not verify the stream\n",
                cfg_name[c->cfg]);
    return !ok;
}

static void report(const dw_bench_opts *o, size_t ulen, const result *r)
{
    for (int k = 0; k < NCFG; k++) {
        char name[40];
        snprintf(name, sizeof name, "%s-tx-iov", cfg_name[k]);
        dw_bench_report(o, "framing", name, ulen, r[k].tx_iov, "vs_ift",
                        r[k].tx_iov / r[IFT].tx_iov);
        if (o->json) {
            dw_bench_json_open("framing", cfg_name[k], ulen);
            printf(", \"iovecs_per_frame\": %.2f", r[k].iov_per_frame);
            dw_bench_json_close();
        } else
            printf("framing %-22s %6zu  %6.2f iovecs per frame\n", cfg_name[k], ulen,
                   r[k].iov_per_frame);
    }
    for (int k = 0; k < NCFG; k++) {
        char name[40];
        snprintf(name, sizeof name, "%s-tx-into", cfg_name[k]);
        dw_bench_report(o, "framing", name, ulen, r[k].tx_into, "vs_ift",
                        r[k].tx_into / r[IFT].tx_into);
    }
    for (int k = 0; k < MPA_1PIECE; k++) {
        char name[40];
        snprintf(name, sizeof name, "%s-rx", cfg_name[k]);
        dw_bench_report(o, "framing", name, ulen, r[k].rx, "vs_ift", r[k].rx / r[IFT].rx);
    }
    for (int k = 0; k < MPA_1PIECE; k++) {
        char name[40];
        snprintf(name, sizeof name, "%s-rx/memcpy", cfg_name[k]);
        dw_bench_report_ratio(o, "framing", name, ulen, "vs_memcpy", r[k].rx_vs_memcpy);
    }
}

int dw_bench_framing(const dw_bench_opts *o)
{
    static const size_t sizes[] = {64, 256, 1024, 1460, 4096, 16384, DW_MPA_ULPDU_MAX};
    static const size_t quick[] = {64, 1460, 16384};
    ctx c;
    memset(&c, 0, sizeof c);
    c.src = dw_bench_alloc(DW_MPA_FPDU_MAX);
    c.dst = dw_bench_alloc(DST_RING + DW_MPA_FPDU_MAX);
    c.wire = dw_bench_alloc(2 * STREAM_PAYLOAD + 2 * DW_MPA_FPDU_MAX);
    int rc = 0;
    dw_bench_header(o, "framing", "MPA with markers, MPA without, and IFT: ULPDU = 18-octet DDP header + "
                       "payload (rx/memcpy rows: ratio, not GB/s)");
    const size_t *sz = o->quick ? quick : sizes;
    size_t ns = o->quick ? sizeof quick / sizeof quick[0] : sizeof sizes / sizeof sizes[0];
    for (size_t i = 0; i < ns; i++) {
        result r[NCFG];
        for (c.cfg = 0; c.cfg < NCFG; c.cfg++)
            rc |= measure(&c, o, sz[i], &r[c.cfg]);
        report(o, sz[i], r);
    }
    dw_bench_free(c.src);
    dw_bench_free(c.dst);
    dw_bench_free(c.wire);
    return rc;
}
