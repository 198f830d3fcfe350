/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the capture reassembler with a tiny store and table. The
 * input is a header (store size, table size, ISN) and records of (flags,
 * sequence delta, length, captured length) each followed by its captured
 * payload. Delivered octets and gaps must follow each other exactly in
 * stream order; each delivered octet must equal (and be tagged with) the
 * first captured arrival of that octet in a model; gaps must cover only
 * octets the model never saw (LOST) or never saw captured (SNAPLEN).
 */
#include <ddpwire/pkt.h>
#include <ddpwire/reasm.h>

#include <stdlib.h>
#include <string.h>

#define M 65536 /* stream offsets the model follows */

typedef struct fz {
    uint8_t val[M], st[M]; /* st: 1 captured, 2 seen at all */
    uint32_t pkt[M];
    uint64_t pos, cur_pkt;
    int64_t s0;          /* offset of the segment being fed */
    const uint8_t *p;    /* its payload */
    size_t cap, len;
    int dropped;
} fz;

static fz F;

static int cur_has(uint64_t o, size_t n)
{
    return F.p && (int64_t)o >= F.s0 && (int64_t)o < F.s0 + (int64_t)n;
}

static void on_data(dw_reasm *r, const uint8_t *d, size_t len, const dw_reasm_chunk *c,
                    void *u)
{
    (void)r, (void)u;
    if (c->offset != F.pos || !len || dw_reasm_offset(r) != F.pos + len)
        abort();
    if (c->pkt == F.cur_pkt && d != F.p + (c->offset - (uint64_t)F.s0))
        abort(); /* in-order data comes straight from the payload */
    for (size_t i = 0; i < len && c->offset + i < M; i++) {
        uint64_t o = c->offset + i;
        if (F.st[o] & 1) {
            if (d[i] != F.val[o] || c->pkt != F.pkt[o])
                abort();
        } else if (!cur_has(o, F.cap) || c->pkt != F.cur_pkt ||
                   d[i] != F.p[o - (uint64_t)F.s0]) {
            abort();
        }
    }
    F.pos += len;
}

static void on_gap(dw_reasm *r, const dw_reasm_gap *g, void *u)
{
    (void)r, (void)u;
    if (g->offset != F.pos || !g->len)
        abort();
    for (uint64_t i = 0; i < g->len && g->offset + i < M; i++) {
        uint64_t o = g->offset + i;
        if (g->kind == DW_REASM_GAP_LOST ? (F.st[o] & 2) || cur_has(o, F.len)
                                         : (F.st[o] & 1) || cur_has(o, F.cap))
            abort();
    }
    F.pos += g->len;
}

static void on_event(dw_reasm *r, const dw_reasm_event *e, void *u)
{
    (void)r, (void)u;
    if (e->kind == DW_REASM_EV_DROPPED)
        F.dropped = 1;
    if (!strcmp(dw_reasm_event_name(e->kind), "unknown"))
        abort();
}

/* The model's own view of where a segment lies (RFC 1982, as specified). */
typedef struct view {
    int started, has_fin;
    uint32_t isn;
    uint64_t fin;
} view;

static int place(view *v, uint32_t seq, uint8_t flags, size_t len)
{
    uint32_t dseq = seq + (flags & DW_PKT_SYN ? 1u : 0u);
    if (!(flags & (DW_PKT_SYN | DW_PKT_FIN | DW_PKT_RST)) && !len)
        return 0;
    if ((flags & DW_PKT_SYN) && v->started && dseq != v->isn)
        return 0;
    if (!v->started)
        v->started = 1, v->isn = dseq;
    uint32_t d = dseq - (v->isn + (uint32_t)F.pos);
    F.s0 = (int64_t)F.pos + (d < 0x80000000u ? (int64_t)d : (int64_t)d - 0x100000000LL);
    int64_t end = F.s0 + (int64_t)len;
    if ((flags & DW_PKT_FIN) && !v->has_fin && end >= (int64_t)F.pos)
        v->has_fin = 1, v->fin = (uint64_t)end;
    return 1;
}

static void learn(const view *v, uint64_t pkt)
{
    int64_t end = F.s0 + (int64_t)F.len;
    if (v->has_fin && end > (int64_t)v->fin)
        end = (int64_t)v->fin;
    for (int64_t o = F.s0 < 0 ? 0 : F.s0; o < end && o < M; o++) {
        int cap = o < F.s0 + (int64_t)F.cap;
        if (cap && !(F.st[o] & 1)) {
            F.val[o] = F.p[o - F.s0];
            F.pkt[o] = (uint32_t)pkt;
        }
        F.st[o] |= (uint8_t)(2 | cap);
    }
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6)
        return 0;
    memset(&F, 0, sizeof F);
    dw_reasm_settings s = {(size_t)data[0] * 8, data[1] % 8u, NULL};
    dw_reasm_callbacks cb = {on_data, on_gap, on_event};
    dw_reasm *r;
    if (dw_reasm_new(&r, &s, &cb, NULL) != 0)
        return 0;
    view v = {0, 0, 0, 0};
    uint32_t isn = (uint32_t)be16(data + 2) << 16 | be16(data + 4), seq = isn;
    size_t at = 6;
    for (uint64_t pkt = 0; at + 7 <= size; pkt++) {
        uint8_t flags = data[at];
        int16_t delta = (int16_t)be16(data + at + 1);
        size_t len = be16(data + at + 3) % 2048u, cap = be16(data + at + 5) % 2048u;
        at += 7;
        cap = cap > len ? len : cap;
        cap = cap > size - at ? size - at : cap;
        /* 0x40: relative to the last segment, in 64 KiB steps (far jumps) */
        seq = flags & 0x40 ? seq + (uint32_t)(int32_t)delta * 65536u
                           : isn + (uint32_t)(int32_t)delta;
        F.cur_pkt = pkt;
        F.p = data + at;
        F.cap = cap;
        F.len = len;
        F.dropped = 0;
        int placed = place(&v, seq, flags, len);
        if (dw_reasm_feed(r, pkt, seq, flags, F.p, cap, len) != 0)
            abort();
        if (placed && !F.dropped)
            learn(&v, pkt);
        at += cap;
    }
    F.p = NULL;
    F.cur_pkt = UINT64_MAX;
    if (dw_reasm_flush(r) != 0 || dw_reasm_offset(r) != F.pos)
        abort();
    dw_reasm_stats st;
    dw_reasm_stats_get(r, &st);
    if (st.held || st.delivered + st.gap_octets != F.pos || st.held_peak > s.store_bytes)
        abort();
    dw_reasm_del(r);
    return 0;
}
