/* SPDX-License-Identifier: MIT */
/* Internal: the IPoIB node's state, shared by ipoib_node.c and ipoib_cm.c. */
#ifndef DW_LIB_IPOIB_INTERNAL_H
#define DW_LIB_IPOIB_INTERNAL_H

#include <ddpwire/ipoib_node.h>

enum { SVC_NONE = 0, SVC_PENDING, SVC_UP, SVC_FAILED };
#define IPOIB_PEER_SVC_MAX 4

typedef struct ipoib_svc {
    uint64_t sid, deadline;
    uint32_t qpn, req_id;
    uint8_t state;
} ipoib_svc;

/* What we know of one peer, and the link we set up towards it. */
typedef struct ipoib_peer {
    uint8_t used, resolved, arp_out;
    uint32_t ip;
    dw_ipoib_addr addr;
    unsigned caps; /* its flags, restricted to ours */
    uint64_t arp_deadline;
    unsigned arp_tries;
    /* connected link (requester side) */
    dw_ipoib_link_state state;
    dw_ipoib_mode chosen;
    uint32_t local_id, remote_id, lqpn, rqpn, mtu, req_mtu;
    uint64_t sid, deadline;
    unsigned mtu_left;
    dw_ipoib_sid_style style;
    uint8_t style_switched;
    /* IPoIB-QPN services */
    ipoib_svc svc[IPOIB_PEER_SVC_MAX];
    unsigned attempts, failures, mtu_retries, sid_retries, svc_up, svc_failed;
} ipoib_peer;

/* A connection a peer set up to us (responder side). */
typedef struct ipoib_conn {
    uint8_t used, up;
    uint8_t gid[DW_IPOIB_GID_LEN];
    uint32_t local_id, remote_id, lqpn, rqpn, mtu;
    dw_ipoib_mode mode;
} ipoib_conn;

typedef struct ipoib_pend {
    uint8_t used;
    uint32_t ip;
    uint64_t seq;
    size_t len;
} ipoib_pend;

struct dw_ipoib_node {
    dw_ipoib_node_settings s;
    dw_ipoib_node_callbacks cb;
    void *ud;
    ipoib_peer *peers;
    ipoib_conn *conns;
    ipoib_pend *pend;
    uint8_t *pend_data;
    uint64_t pend_seq;
    uint32_t next_id, next_qpn;
    int tick_err; /* a post refused by the last dw_ipoib_node_tick() */
    dw_ipoib_node_stats st;
};

/* A send callback's return for a message the node posts on its own (ARP,
 * the packets that waited for it, CM): DW_ERR_NOMEM is a refused post and
 * is reported; any other failure is taken as a datagram lost on the way. */
static inline int dw_ipoib_posted(int r)
{
    return r == DW_ERR_NOMEM ? r : 0;
}

void dw_ipoib_node_event(dw_ipoib_node *n, dw_ipoib_event_kind k, uint32_t peer, dw_ipoib_mode m,
                 uint32_t mtu, uint64_t sid, const char *why);

/* Starts the set-up of the best common mode towards p, if any is due
 * (a connected link once; a QPN service per service ID). DW_ERR_NOMEM
 * when the REQ or SIDR_REQ post was refused: nothing was started. */
int dw_ipoib_node_cm_start(dw_ipoib_node *n, ipoib_peer *p, uint64_t sid, uint64_t now);

/* The link towards p fails: one failed attempt, the peer stays on UD. */
void dw_ipoib_node_cm_fail(dw_ipoib_node *n, ipoib_peer *p, const char *why);

/* CM timers of p. */
void dw_ipoib_node_cm_tick(dw_ipoib_node *n, ipoib_peer *p, uint64_t now);

/* A CM message: DW_ERR_MALFORMED for an unknown type, DW_ERR_NOMEM when
 * the answer's post was refused (taken as lost otherwise), else 0. */
int dw_ipoib_node_cm_input(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                   uint64_t now);

#endif
