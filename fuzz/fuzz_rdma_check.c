/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the DDP/RDMAP stream checker. The input is a sequence of
 * records: a control octet (bit 0 the direction; bit 1 a gap before; bit 2
 * a start-up frame's private data instead of a ULPDU), a length octet and
 * that many octets (cut at the input's end). Each ULPDU is handed over in
 * a buffer of exactly its length. Invariants: events name a direction 0 or
 * 1 and a text; errors counted by events equal the stats' violations; a
 * decoded message lies in its buffer with versions 1; answered reads never
 * exceed requests; nothing is decoded in a direction found not DDP.
 */
#include <ddpwire/rdma_check.h>

#include <stdlib.h>
#include <string.h>

static uint64_t errors[2];

static void on_event(dw_rdma_check *c, const dw_rdma_check_event *ev, void *u)
{
    (void)c, (void)u;
    if ((ev->dir & ~1) || !ev->detail || (ev->error & ~1) ||
        !strcmp(dw_rdma_check_event_name(ev->kind), "unknown"))
        abort();
    errors[ev->dir] += ev->error;
}

static void one(dw_rdma_check *c, int dir, const uint8_t *p, size_t n, uint64_t i)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return;
    memcpy(copy, p, n);
    dw_rdmap_msg m;
    dw_rdma_check_where at = {i, i * 100, (uint32_t)i};
    /* the length claimed may exceed what is given: a cut head */
    uint32_t ulen = (uint32_t)n + (n && (p[0] & 1) ? 1000u : 0u);
    dw_rdma_check_stats st;
    dw_rdma_check_stats_get(c, dir, &st);
    int was_not = st.active < 0;
    if (dw_rdma_check_ulpdu(c, dir, copy, n, ulen, &at, &m)) {
        if (was_not || m.payload < copy || m.payload > copy + n || m.hdr.ddp_ver != 1 ||
            m.hdr.rdmap_ver != 1 || m.payload_len > ulen)
            abort();
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dw_rdma_check *c;
    dw_rdma_check_callbacks cb = {on_event};
    errors[0] = errors[1] = 0;
    if (dw_rdma_check_new(&c, NULL, &cb, NULL))
        return 0;
    if (size && data[0] & 8)
        dw_rdma_check_from_start(c, data[0] & 1);
    size_t at = 0;
    for (uint64_t i = 1; size - at >= 2; i++) {
        unsigned ctl = data[at];
        size_t n = data[at + 1];
        at += 2;
        if (n > size - at)
            n = size - at;
        int dir = ctl & 1;
        if (ctl & 2)
            dw_rdma_check_gap(c, dir);
        if (ctl & 4) {
            dw_mpa_startup fr = {DW_MPA_STARTUP_REQUEST, (uint8_t)(ctl & 0xf0), (uint8_t)(ctl >> 6),
                                 data + at, (uint16_t)n};
            dw_rdma_check_startup(c, dir, &fr);
        } else {
            one(c, dir, data + at, n, i);
        }
        at += n;
    }
    dw_rdma_check_end(c);
    for (int k = 0; k < 2; k++) {
        dw_rdma_check_stats st;
        dw_rdma_check_stats_get(c, k, &st);
        if (st.violations != errors[k] || st.reads_answered > st.read_requests ||
            st.reads_pending > st.read_requests)
            abort();
    }
    dw_rdma_check_del(c);
    return 0;
}
