/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the TCP RDMA option receiver. The input is a series of
 * segments (stream offset, payload length, an option built from fields or
 * a raw options area) fed in input order to a receiver with two registered
 * buffers between guard bytes, a small pool and a store wider than every
 * stream offset used. Oracle, from TCP's first-arrival rule: every octet
 * passed on as stream or placed equals the first octet that arrived at its
 * stream position, each position is passed on or placed at most once,
 * every position before the receiver's next one exactly once (later ones
 * only placed, out of order), stream
 * offsets ascend, placements stay inside their registered buffer, and the
 * guard bytes are never written.
 */
#include <ddpwire/tcpopt.h>
#include <ddpwire/tcpopt_rx.h>

#include <stdlib.h>
#include <string.h>

#define SPAN 9216 /* stream offsets used: -512 .. 7679 + 1023 */
#define GUARD 32

typedef struct state {
    uint8_t first[SPAN]; /* first octet to arrive at each position */
    uint8_t have[SPAN];
    uint8_t out[SPAN];   /* times passed on or placed */
    uint8_t streamed[SPAN];
    uint64_t stream_end;
    uint8_t mem[2][GUARD + 4096 + GUARD];
    size_t len[2];
} state;

static state S;

static void on_stream(dw_tcpopt_rx *rx, const uint8_t *d, size_t n, uint64_t off, void *u)
{
    (void)rx, (void)u;
    if (!n || off < S.stream_end || off + n > SPAN)
        abort();
    S.stream_end = off + n;
    for (size_t i = 0; i < n; i++)
        if (!S.have[off + i] || S.first[off + i] != d[i] || S.out[off + i]++)
            abort();
    memset(S.streamed + off, 1, n);
}

static void on_placed(dw_tcpopt_rx *rx, const dw_tcpopt_rx_place *p, void *u)
{
    (void)rx, (void)u;
    uint64_t off = p->stream_offset;
    if (!p->len || off + p->len > SPAN)
        abort();
    for (int k = 0; k < 2; k++)
        if (p->rid == (uint64_t)k + 1 &&
            (p->data != S.mem[k] + GUARD + p->buffer_offset ||
             (uint64_t)p->buffer_offset + p->len > S.len[k]))
            abort();
    for (uint32_t i = 0; i < p->len; i++)
        if (!S.have[off + i] || S.first[off + i] != p->data[i] || S.out[off + i]++)
            abort();
}

static void on_complete(dw_tcpopt_rx *rx, const dw_tcpopt_rx_xfer *x, void *u)
{
    (void)u;
    if (x->total_known != 1 || x->placed != x->total || x->extent > x->buf_len)
        abort();
    if (x->rid <= 2) /* expect the next transfer with that RID */
        dw_tcpopt_rx_register(rx, x->rid, S.mem[x->rid - 1] + GUARD, S.len[x->rid - 1]);
}

static void on_refused(dw_tcpopt_rx *rx, const dw_tcpopt_rx_refusal *r, void *u)
{
    (void)rx, (void)u;
    if (r->reason == DW_TCPOPT_R_OK || !dw_tcpopt_reason_name(r->reason))
        abort();
}

static const uint64_t rids[8] = {1, 2, 3, 1ull << 40, 0x12345678, DW_TCPOPT_RID_MAX, 1, 2};

/* One segment from 12 octets (+ raw options); returns octets used or 0. */
static size_t segment(dw_tcpopt_rx *rx, uint32_t start, const uint8_t *d, size_t n,
                      unsigned idx)
{
    if (n < 12)
        return 0;
    size_t used = 12;
    int64_t off = (int64_t)((d[1] << 8 | d[2]) & 0x1fff) - 512;
    size_t len = (size_t)((d[3] << 8 | d[4]) & 1023);
    uint8_t area[64];
    size_t alen = 0;
    if (d[0] & 1) { /* raw options area */
        if (n < 13 || n - 13 < (size_t)(d[12] % 41))
            return 0;
        alen = d[12] % 41;
        memcpy(area, d + 13, alen);
        used = 13 + alen;
    } else if (d[0] & 6) {
        static const uint8_t lens[4] = {0, 4, 16, 20};
        dw_tcpopt o = {lens[d[0] >> 1 & 3], d[0] >> 3 & 1, d[0] >> 4 & 1, 0, 0, 0, 0, 0};
        if (o.len >= 4)
            o.rid = rids[d[0] >> 5] & (o.len == 4 ? 0x3fffull << 32 : ~0ull);
        if (o.len >= 16) {
            o.buffer_offset = (uint32_t)(d[5] << 8 | d[6]) & 0x1fff;
            o.data_offset = d[7];
            o.data_length = (uint16_t)((d[8] << 8 | d[9]) & 1023);
        }
        if (o.len == 20)
            o.total_length = (uint32_t)(d[10] << 8 | d[11]);
        alen = (size_t)dw_tcpopt_encode(area, sizeof area, &o);
    }
    uint8_t pl[1024];
    uint64_t r = idx * 0x9E3779B97F4A7C15ull + d[5];
    for (size_t i = 0; i < len; i++) {
        r ^= r >> 12, r ^= r << 25, r ^= r >> 27;
        pl[i] = (uint8_t)((r * 0x2545F4914F6CDD1Dull) >> 56);
    }
    for (size_t i = 0; i < len; i++) { /* the oracle: first arrival wins */
        int64_t p = off + (int64_t)i;
        if (p >= 0 && !S.have[p])
            S.have[p] = 1, S.first[p] = pl[i];
    }
    if (dw_tcpopt_rx_segment(rx, start + (uint32_t)off, area, alen, pl, len))
        abort();
    return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    memset(&S, 0, sizeof S);
    memset(S.mem, 0xA5, sizeof S.mem);
    uint32_t start = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | data[2] << 8 | data[3];
    dw_tcpopt_rx_settings s;
    dw_tcpopt_rx_settings_default(&s);
    s.start_seq = start;
    s.store = 1u << 14; /* wider than every offset used: nothing beyond */
    s.unsol_count = data[4] & 3;
    s.unsol_size = 1u + (uint32_t)data[5] * 16;
    s.max_buffers = 3;
    s.rid_format = (dw_tcpopt_rid_format)(data[4] >> 2 & 3);
    s.nfs_version = data[4] >> 4 & 3 ? 3 : 4;
    S.len[0] = (size_t)data[6] * 16;
    S.len[1] = (size_t)data[7] * 16;
    dw_tcpopt_rx_callbacks cb = {on_stream, on_placed, on_complete, NULL, on_refused, NULL};
    dw_tcpopt_rx *rx;
    if (dw_tcpopt_rx_new(&rx, &s, &cb, NULL))
        abort();
    for (int k = 0; k < 2; k++)
        if (dw_tcpopt_rx_register(rx, (uint64_t)k + 1, S.mem[k] + GUARD, S.len[k]))
            abort();
    size_t at = 8, used;
    unsigned idx = 0;
    while ((used = segment(rx, start, data + at, size - at, idx++)) > 0)
        at += used;
    dw_tcpopt_rx_stats st;
    dw_tcpopt_rx_stats_get(rx, &st);
    for (uint64_t p = 0; p < SPAN; p++) /* before next: exactly once; after: placed */
        if ((p < st.next && S.out[p] != 1) || (p >= st.next && S.streamed[p]) || S.out[p] > 1)
            abort();
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < GUARD; i++)
            if (S.mem[k][i] != 0xA5 || S.mem[k][GUARD + S.len[k] + i] != 0xA5)
                abort();
    dw_tcpopt_rx_del(rx);
    return 0;
}
