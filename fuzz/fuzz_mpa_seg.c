/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the MPA segment receiver. The input is a header, a list of
 * segments and the stream they are cut from:
 *
 *   mode (1) | start_seq (4, big-endian) | count (1) |
 *   count x (offset (2), length (2)) | stream
 *
 * Segment i carries stream[offset, offset + length) with sequence number
 * start_seq + offset (mode bit 3: its octets come from elsewhere in the
 * stream, as a retransmission that differs). Afterwards the whole stream is
 * fed again in order, as a TCP sender would after a timeout. Checks the
 * receiver's promises: each FPDU placed at most once, deliveries contiguous
 * from the start and each placed first, nothing after an error, one error.
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_seg.h>

#include <stdlib.h>
#include <string.h>

#define SPAN (1u << 18) /* offsets below this can be tracked */

typedef struct st {
    int failed;
    uint64_t next;           /* where the next delivery must start */
    uint8_t placed[SPAN / 8];
} st;

static int bit(const uint8_t *m, uint64_t i)
{
    return i < SPAN && (m[i / 8] >> (i % 8) & 1);
}

static void on_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    st *s = u;
    (void)r;
    if (s->failed || p->offset % 4 || p->offset >= SPAN || bit(s->placed, p->offset) ||
        p->fpdu_len < p->len + 6u || p->len > 65535 || p->offset < s->next)
        abort();
    s->placed[p->offset / 8] |= (uint8_t)(1u << (p->offset % 8));
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < p->len; i++) /* touch every octet: ASan checks bounds */
        sink ^= d[i];
    (void)sink;
}

static void on_deliver(dw_mpa_seg *r, const dw_mpa_seg_pdu *p, void *u)
{
    st *s = u;
    (void)r;
    if (s->failed || p->offset != s->next || !bit(s->placed, p->offset))
        abort();
    s->next = p->offset + p->fpdu_len;
}

static void on_error(dw_mpa_seg *r, const dw_mpa_rx_error *e, void *u)
{
    st *s = u;
    (void)r;
    if (s->failed || e->code < 1 || e->code > 3)
        abort();
    s->failed = 1;
}

static void feed(dw_mpa_seg *r, st *s, uint32_t seq, const uint8_t *d, size_t n)
{
    int rc = dw_mpa_seg_feed(r, seq, d, n);
    if (rc && (rc != DW_ERR_PROTO || !s->failed))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6)
        return 0;
    uint8_t mode = data[0];
    uint32_t start = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 |
                     (uint32_t)data[3] << 8 | data[4];
    size_t count = data[5], hdr = 6 + 4 * (size_t)count;
    if (size < hdr)
        return 0;
    const uint8_t *pool = data + hdr;
    size_t plen = size - hdr;
    static const size_t stores[4] = {65536, 0, 256, 4096};
    static const size_t pend[4] = {1024, 4, 16, 64};
    dw_mpa_seg_settings set;
    dw_mpa_seg_settings_default(&set);
    set.start_seq = start;
    set.markers = !(mode & 1);
    set.crc = !(mode & 2);
    set.store_bytes = stores[mode >> 2 & 1 ? 1 + (mode >> 6 & 1) * 2 : 0];
    set.max_pending = pend[mode >> 4 & 3];
    dw_mpa_seg_callbacks cb = {on_place, on_deliver, on_error};
    static st s;
    memset(&s, 0, sizeof s);
    dw_mpa_seg *r;
    if (dw_mpa_seg_new(&r, &set, &cb, &s) != 0)
        return 0;
    for (size_t i = 0; i < count && plen; i++) {
        const uint8_t *e = data + 6 + 4 * i;
        size_t off = (size_t)(e[0] << 8 | e[1]) % plen;
        size_t len = (size_t)(e[2] << 8 | e[3]);
        len = len < plen - off ? len : plen - off;
        size_t src = mode & 8 ? (off * 7 + i) % plen : off;
        len = len < plen - src ? len : plen - src;
        feed(r, &s, start + (uint32_t)off, pool + src, len);
    }
    for (size_t at = 0; at < plen && !s.failed; at += 1460) /* in order */
        feed(r, &s, start + (uint32_t)at, pool + at, plen - at < 1460 ? plen - at : 1460);
    dw_mpa_seg_stats x;
    dw_mpa_seg_stats_get(r, &x);
    if (x.delivered > x.placed || (!s.failed && x.placed != x.delivered && x.held == 0))
        abort();
    dw_mpa_seg_close(r, DW_CLOSE_FIN);
    dw_mpa_seg_del(r);
    return 0;
}
