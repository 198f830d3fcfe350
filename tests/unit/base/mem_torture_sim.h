/* SPDX-License-Identifier: MIT */
/*
 * Included by test_mem_torture.c after mem_torture_check.h: the network
 * simulator of support/ (<ddpwire_sim/netsim.h>, test equipment the CLI's
 * `analyze buffers` and `bench ooo` run) under the failing allocator. Its
 * allocations are its schedule (dw_netsim_new()) and the segments it adds
 * when the receiver asks for what it lacks (dw_netsim_recover()).
 */
#ifndef DW_TEST_MEM_TORTURE_SIM_H
#define DW_TEST_MEM_TORTURE_SIM_H

#include <ddpwire_sim/netsim.h>

enum { NS_FPDUS = 300 };
static uint8_t ns_wire[NS_FPDUS * 1600];
static dw_mpa_fpdu_info ns_info[NS_FPDUS];
static size_t ns_len;
/* dw_netsim_recover() calls that said DW_ERR_NOMEM and, made again, went on */
static unsigned long ns_recover_retried;

/* 300 FPDUs (markers, CRC) of 1..1400 octets, framed once. */
static int ns_stream(void)
{
    if (ns_len)
        return 0;
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.seg_mode = DW_MPA_SEG_PACKED;
    dw_mpa_tx *tx;
    if (dw_mpa_tx_new(&tx, &ts))
        return 1;
    for (size_t k = 0; k < NS_FPDUS; k++) {
        size_t len = 1 + (k * 733 + 17) % 1400;
        ssize_t n = dw_mpa_tx_frame_into(tx, payload, len, ns_wire + ns_len,
                                         sizeof ns_wire - ns_len, &ns_info[k]);
        if (n < 0) {
            dw_mpa_tx_del(tx);
            return 1;
        }
        ns_len += (size_t)n;
    }
    dw_mpa_tx_del(tx);
    return 0;
}

static void ns_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r;
    uint64_t *h = u;
    *h = mix_bytes(mix(*h, p->offset), d, p->len);
}

/* Re-segmented by a middlebox, with loss (resent under new cuts),
 * reordering and duplication, into the segment receiver (the C library's
 * allocator: only the simulator's allocations fail); what the receiver
 * lacks is recovered until it has everything. The digest: every segment
 * as it arrived, every ULPDU placed, the simulator's counts. */
static int netsim(const dw_mem *m, uint64_t *digest)
{
    *digest = 1;
    if (ns_stream())
        return 1;
    dw_netsim_settings ns;
    dw_netsim_settings_default(&ns);
    ns.seed = 27;
    ns.cut = DW_NETSIM_RESEG;
    ns.reseg_min = 600; /* one recovery that grows the schedule */
    ns.loss_ppm = 150000;
    ns.reorder_ppm = 150000;
    ns.dup_ppm = 100000;
    ns.recut_ppm = 500000;
    ns.mem = m;
    dw_netsim *sim = NULL;
    int rc = dw_netsim_new(&sim, &ns, ns_wire, ns_len, ns_info, NS_FPDUS);
    if (rc)
        return sim ? 1 : rc; /* a failed dw_netsim_new() leaves nothing */
    dw_mpa_seg_settings rs;
    dw_mpa_seg_settings_default(&rs);
    rs.markers = 1;
    rs.store_bytes = 0; /* segments it cannot place now are dropped: recovered later */
    dw_mpa_seg_callbacks cb = {0};
    cb.on_place = ns_place;
    dw_mpa_seg *r = NULL;
    if (dw_mpa_seg_new(&r, &rs, &cb, digest)) {
        dw_netsim_del(sim);
        return 1;
    }
    dw_netsim_seg sg;
    for (int round = 0; !rc && round < 100; round++) {
        while (!rc && dw_netsim_next(sim, &sg)) {
            *digest = mix(mix(mix(*digest, sg.seq), sg.len), (uint64_t)sg.retrans);
            rc = dw_mpa_seg_feed(r, sg.seq, sg.data, sg.len) ? 1 : 0;
        }
        dw_mpa_seg_range sack[64];
        size_t n = dw_mpa_seg_sack(r, sack, 64);
        n = n < 64 ? n : 64;
        ssize_t added = rc ? 0 : dw_netsim_recover(sim, dw_mpa_seg_ack(r), sack, n);
        if (added == DW_ERR_NOMEM) { /* nothing added: the same call again goes on */
            ns_recover_retried++;
            added = dw_netsim_recover(sim, dw_mpa_seg_ack(r), sack, n);
        }
        if (added < 0)
            rc = (int)added;
        if (added <= 0)
            break;
    }
    dw_netsim_stats st;
    dw_netsim_stats_get(sim, &st);
    dw_mpa_seg_stats sx;
    dw_mpa_seg_stats_get(r, &sx);
    if (!rc && (sx.delivered != NS_FPDUS || !st.lost || !st.recovered))
        rc = 1; /* the scenario must lose, recover and deliver everything */
    *digest = mix(mix(mix(*digest, st.sent), st.arrived), st.aligned);
    *digest = mix(mix(mix(*digest, st.lost), st.reordered), st.duplicated);
    *digest = mix(mix(*digest, st.retransmitted), st.recovered);
    dw_mpa_seg_del(r);
    dw_netsim_del(sim);
    return rc;
}

static void mem_torture_sim(void)
{
    ns_recover_retried = 0;
    torture_digest("network simulator (support)", netsim);
    printf("%-28s %lu failed dw_netsim_recover() calls made again: went on\n", "",
           ns_recover_retried);
    CHECK(ns_recover_retried > 0); /* the recovery's allocations were among those failed */
}

#endif
