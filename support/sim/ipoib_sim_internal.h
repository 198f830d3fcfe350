/* SPDX-License-Identifier: MIT */
/* Internal: the simulated fabric's state, shared by ipoib_sim.c and
 * ipoib_host.c. */
#ifndef DW_LIB_IPOIB_SIM_INTERNAL_H
#define DW_LIB_IPOIB_SIM_INTERNAL_H

#include <ddpwire_sim/ipoib_sim.h>
#include <ddpwire/ipoib_node.h>

/* A message in flight: this header (copied, never overlaid on wire octets)
 * then the frame or the CM message. */
typedef struct rec_hdr {
    uint32_t size, len;
    uint8_t kind, defers;
    int16_t src;
    uint32_t sqpn, dqpn;
    uint8_t sgid[DW_IPOIB_GID_LEN];
    uint8_t dgid[DW_IPOIB_GID_LEN];
} rec_hdr;
#define REC_HDR ((sizeof(rec_hdr) + 7) & ~(size_t)7)

#define BULK_SEQ_MAX 8192u

typedef struct sim_host {
    dw_ipoib_fabric *f;
    int idx;
    dw_ipoib_node *node;
    dw_ipoib_host_stats st;
    /* ping */
    uint32_t ping_dst;
    unsigned ping_left, ping_waiting;
    uint16_t ping_seq;
    size_t ping_size;
    /* bulk sender */
    uint32_t bulk_dst;
    uint16_t bulk_port;
    uint64_t bulk_left;
    uint32_t bulk_seq;
    /* bulk receiver: which sequence numbers arrived */
    uint8_t seen[BULK_SEQ_MAX / 8];
} sim_host;

struct dw_ipoib_fabric {
    dw_ipoib_fabric_settings s;
    dw_ipoib_fabric_callbacks cb;
    void *ud;
    uint64_t rng, now;
    sim_host *hosts;
    unsigned n_hosts;
    uint8_t *ring, *scratch, *pkt; /* pkt: a host's packet being built */
    size_t head, tail, wrap, count;
    dw_ipoib_fabric_stats st;
    int err, fatal;       /* the first node call's error; DW_ERR_NOMEM: stopped */
    const char *err_call; /* the call that returned err */
};

uint64_t dw_ipoib_sim_rand(dw_ipoib_fabric *f);
size_t dw_ipoib_sim_ring_free(const dw_ipoib_fabric *f);
int dw_ipoib_sim_push(dw_ipoib_fabric *f, const rec_hdr *h, const void *a, size_t alen,
                   const void *b, size_t blen);

/* A node call's return: a negative one is counted and the first kept;
 * DW_ERR_NOMEM stops the fabric. Returns rc. */
int dw_ipoib_sim_node_rc(dw_ipoib_fabric *f, int rc, const char *call);

/* Host side (ipoib_host.c). */
void dw_ipoib_host_deliver(dw_ipoib_node *n, uint16_t type, const uint8_t *pkt, size_t len,
                        dw_ipoib_mode via, void *user_data);
/* Sends what is due (one ping, one bulk packet); 1 if anything went. */
int dw_ipoib_host_generate(sim_host *h);

#endif
