/* SPDX-License-Identifier: MIT */
/*
 * ddpwire bench ooo: the segment receiver (out-of-order placement) against
 * the in-order receiver, in the same run, on the same octets.
 *
 *   rx-inorder    dw_mpa_rx fed the header-aligned segments (one FPDU
 *                 each) one by one: the anchor;
 *   seg-inorder   dw_mpa_seg fed the same segments in order: its fast path
 *                 (goal >= 90 % of rx-inorder, the vs_rx column);
 *   seg-reorder5  the same with 5 % of the segments arriving one to four
 *                 segments late (each then placed on arrival from its
 *                 marker, and delivered when the gap closes);
 *   seg-tiny      the stream re-cut into segments of 8 octets, the first
 *                 of every 4 KiB arriving after the other 511: many tiny
 *                 out-of-order segments (a lost packet, then a middle box
 *                 that re-cuts), every FPDU located ahead of the gap.
 *
 * ULPDUs of MULPDU for EMSS 1460 and 9000 and of 256 octets. GB/s counts
 * ULPDU octets, Mseg/s segments, per second of wall time; each is the best
 * of three medians, taken in turn.
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_seg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define STREAM_PAYLOAD (256u << 10) /* per pass: L2-resident */

typedef struct seg {
    uint32_t off, len;
} seg;

typedef struct ctx {
    uint8_t *src, *wire;
    size_t wire_len, payload;
    seg *segs, *shuffled; /* stream order; with 5 % late */
    size_t nseg;
    seg *tiny;            /* TINY octets each, in the seg-tiny order */
    size_t ntiny;
    uint64_t pass;        /* passes fed to the segment receiver */
    dw_mpa_rx *rx;
    dw_mpa_seg *sr;
    uint64_t ulpdus;
} ctx;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)d, (void)len, (void)off;
    c->ulpdus++;
    return 0;
}

static void on_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r, (void)d, (void)p, (void)u;
}

static void on_deliver(dw_mpa_seg *r, const dw_mpa_seg_pdu *p, void *u)
{
    ctx *c = u;
    (void)r, (void)p;
    c->ulpdus++;
}

static void do_rx(void *p, size_t n)
{
    ctx *c = p;
    (void)n;
    for (size_t i = 0; i < c->nseg; i++)
        dw_mpa_rx_feed(c->rx, c->wire + c->segs[i].off, c->segs[i].len);
}

static void feed_pass(ctx *c, const seg *s)
{
    uint32_t base = (uint32_t)(c->pass++ * c->wire_len);
    for (size_t i = 0; i < c->nseg; i++)
        dw_mpa_seg_feed(c->sr, base + s[i].off, c->wire + s[i].off, s[i].len);
}

static void do_seg(void *p, size_t n)
{
    (void)n;
    feed_pass(p, ((ctx *)p)->segs);
}

static void do_seg_reorder(void *p, size_t n)
{
    (void)n;
    feed_pass(p, ((ctx *)p)->shuffled);
}

static void do_seg_tiny(void *p, size_t n)
{
    ctx *c = p;
    (void)n;
    uint32_t base = (uint32_t)(c->pass++ * c->wire_len);
    for (size_t i = 0; i < c->ntiny; i++)
        dw_mpa_seg_feed(c->sr, base + c->tiny[i].off, c->wire + c->tiny[i].off,
                        c->tiny[i].len);
}

#define TINY 8u
#define TINY_WINDOW 4096u

/* The wire in TINY-octet segments, the first of each TINY_WINDOW last. */
static void cut_tiny(ctx *c)
{
    c->ntiny = 0;
    for (size_t w = 0; w < c->wire_len; w += TINY_WINDOW) {
        size_t end = w + TINY_WINDOW < c->wire_len ? w + TINY_WINDOW : c->wire_len;
        for (size_t o = w + TINY; o < end; o += TINY)
            c->tiny[c->ntiny++] = (seg){(uint32_t)o, (uint32_t)(end - o < TINY ? end - o : TINY)};
        c->tiny[c->ntiny++] = (seg){(uint32_t)w, TINY};
    }
}

/*
 * FPDUs of ulen octets, one per segment, then a filler FPDU that ends the
 * stream on a 512 boundary, so that passes can follow one another with the
 * markers in place.
 */
static int build(ctx *c, size_t ulen)
{
    dw_mpa_tx *tx;
    if (dw_mpa_tx_new(&tx, NULL))
        return -1;
    size_t n = STREAM_PAYLOAD / ulen, w = 0;
    c->nseg = 0;
    c->payload = 0;
    for (size_t i = 0; i <= n; i++) {
        size_t len = ulen;
        if (i == n) { /* the filler: r (or r + 512) octets */
            size_t r = 512 - w % 512;
            if (r == 512)
                break;
            len = r >= 8 ? r - 6 : r + 512 - 6 - 4;
        }
        ssize_t k = dw_mpa_tx_frame_into(tx, c->src, len, c->wire + w, DW_MPA_FPDU_MAX, NULL);
        if (k <= 0)
            break;
        c->segs[c->nseg++] = (seg){(uint32_t)w, (uint32_t)k};
        c->payload += len;
        w += (size_t)k;
    }
    dw_mpa_tx_del(tx);
    c->wire_len = w;
    return w % 512 ? -1 : 0;
}

/* 5 % of the segments arrive 1 to 4 places late (deterministic). */
static void shuffle(ctx *c)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL, *key = malloc(c->nseg * sizeof *key);
    for (size_t i = 0; i < c->nseg; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        key[i] = (uint64_t)i * 8 * 16 + (s % 100 < 5 ? (1 + s / 100 % 4) * 8 * 16 + 1 : 0);
        key[i] = key[i] << 20 | i; /* unique, keeps the index */
    }
    for (size_t i = 1; i < c->nseg; i++) /* insertion sort: nearly sorted */
        for (size_t j = i; j > 0 && key[j] < key[j - 1]; j--) {
            uint64_t t = key[j];
            key[j] = key[j - 1];
            key[j - 1] = t;
        }
    for (size_t i = 0; i < c->nseg; i++)
        c->shuffled[i] = c->segs[key[i] & 0xfffff];
    free(key);
}

static void report(const dw_bench_opts *o, const ctx *c, const char *impl,
                   size_t ulen, double gbps, double vs_rx)
{
    size_t nseg = strcmp(impl, "seg-tiny") ? c->nseg : c->ntiny;
    double mseg = gbps * 1e9 / (double)c->payload * (double)nseg * 1e-6;
    if (o->json) {
        dw_bench_json_open("ooo", impl, ulen);
        dw_bench_json_rate(gbps);
        printf(", \"segments_per_second\": %.0f, \"ratio_vs_rx\": %.3f", mseg * 1e6, vs_rx);
        dw_bench_json_close();
        return;
    }
    printf("%-6s %-14s %8zu %9.3f %9.2f   vs_rx %.3fx\n", "ooo", impl, ulen, gbps, mseg, vs_rx);
    fflush(stdout);
}

/* One receiver of the segment kind (reorder 0: in order, 1: 5 % late, 2:
 * tiny): GB/s; *ok cleared unless every ULPDU was delivered and placed as
 * expected (tiny: FPDUs longer than the window are never early). */
static double seg_run(ctx *c, const dw_bench_opts *o, int reorder, int *ok)
{
    dw_mpa_seg_callbacks scb = {on_place, on_deliver, NULL};
    void (*fn)(void *, size_t) = reorder == 2 ? do_seg_tiny : reorder ? do_seg_reorder : do_seg;
    if (dw_mpa_seg_new(&c->sr, NULL, &scb, c)) {
        *ok = 0;
        return 0;
    }
    c->ulpdus = 0;
    c->pass = 0;
    fn(c, 0);
    *ok &= c->ulpdus == c->nseg;
    double g = dw_bench_gbps(fn, c, c->payload, o);
    dw_mpa_seg_stats st;
    dw_mpa_seg_stats_get(c->sr, &st);
    *ok &= !dw_mpa_seg_failed(c->sr) && st.delivered == c->pass * c->nseg &&
           st.held == 0 && !st.fallbacks &&
           (reorder == 2 || (reorder ? st.placed_early > 0 : !st.placed_early));
    dw_mpa_seg_del(c->sr);
    c->sr = NULL;
    return g;
}

static double rx_run(ctx *c, const dw_bench_opts *o, int *ok)
{
    dw_mpa_rx_callbacks rcb = {on_ulpdu, NULL, NULL};
    if (dw_mpa_rx_new(&c->rx, NULL, &rcb, c)) {
        *ok = 0;
        return 0;
    }
    c->ulpdus = 0;
    do_rx(c, 0);
    *ok &= c->ulpdus == c->nseg;
    double g = dw_bench_gbps(do_rx, c, c->payload, o);
    *ok &= !dw_mpa_rx_failed(c->rx);
    dw_mpa_rx_del(c->rx);
    c->rx = NULL;
    return g;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* The three measured in turn, three times (once with --quick), the best
 * of each kept: the machine's other load hits all of them alike. */
static int bench_size(ctx *c, const dw_bench_opts *o, size_t ulen)
{
    if (build(c, ulen))
        return 1;
    shuffle(c);
    cut_tiny(c);
    int ok = 1;
    double rx = 0, in = 0, re = 0, ti = 0;
    for (int k = 0; k < (o->quick ? 1 : 3); k++) {
        rx = max2(rx, rx_run(c, o, &ok));
        in = max2(in, seg_run(c, o, 0, &ok));
        re = max2(re, seg_run(c, o, 1, &ok));
        ti = max2(ti, seg_run(c, o, 2, &ok));
    }
    report(o, c, "rx-inorder", ulen, rx, 1.0);
    report(o, c, "seg-inorder", ulen, in, in / rx);
    report(o, c, "seg-reorder5", ulen, re, re / rx);
    report(o, c, "seg-tiny", ulen, ti, ti / rx);
    if (!ok)
        fprintf(stderr, "bench ooo: a receiver did not take the stream whole\n");
    return !ok;
}

int dw_bench_ooo(const dw_bench_opts *o)
{
    size_t sizes[3] = {dw_mpa_mulpdu(1460, 1), dw_mpa_mulpdu(9000, 1), 256};
    ctx c;
    memset(&c, 0, sizeof c);
    c.src = dw_bench_alloc(DW_MPA_FPDU_MAX);
    c.wire = dw_bench_alloc(2 * STREAM_PAYLOAD + 2 * DW_MPA_FPDU_MAX);
    size_t cap = STREAM_PAYLOAD / 64 + 2;
    c.segs = malloc(cap * sizeof *c.segs);
    c.shuffled = malloc(cap * sizeof *c.shuffled);
    c.tiny = malloc((2 * STREAM_PAYLOAD + 2 * DW_MPA_FPDU_MAX) / TINY * sizeof *c.tiny);
    if (!c.segs || !c.shuffled || !c.tiny)
        return 1;
    dw_bench_meta(o, "ooo", "thread_cpu");
    if (!o->json)
        printf("MPA segment receiver (out-of-order placement) vs in-order receiver\n"
               "header-aligned segments, one FPDU each; GB/s = 1e9 ULPDU octets per second,\n"
               "Mseg/s = 1e6 segments per second (thread CPU time, best of 3 medians of %d runs)\n"
               "%-6s %-14s %8s %9s %9s\n",
               o->quick ? 5 : 15, "bench", "impl", "ULPDU", "GB/s", "Mseg/s");
    int rc = 0;
    for (size_t i = 0; i < (o->quick && !o->size ? 1u : 3u); i++)
        if (!o->size || o->size == sizes[i])
            rc |= bench_size(&c, o, sizes[i]);
    dw_bench_free(c.src);
    dw_bench_free(c.wire);
    free(c.segs);
    free(c.shuffled);
    free(c.tiny);
    return rc;
}
