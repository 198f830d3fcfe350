/* SPDX-License-Identifier: MIT */
/*
 * IPoIB node: one sans-I/O IPoIB interface (draft's advanced capabilities).
 * It resolves addresses with ARP over UD (20-octet addresses carrying its
 * capability flags), picks the best mode both sides support, sets up an
 * IPoIB-RC/UC/RD link with CM REQ/REP/RTU (or per-service IPoIB-QPN queue
 * pairs with SIDR), and routes each packet by the rules of draft 3.3. Every
 * failure (REJ, a malformed or mismatched reply, a timeout, a too small
 * MTU) costs one attempt and leaves the peer on IPoIB-UD, which never stops
 * working. A node makes no system call and reads no clock: the caller
 * passes "now" (abstract ticks) and moves the messages it hands to the
 * callbacks (the tests' simulated fabric, support/, is one such caller).
 *
 * Refused posts: a send callback that returns DW_ERR_NOMEM says the post
 * was refused for want of resources (a failing ibv_post_send's ENOMEM);
 * any other negative return is taken as a message lost on the way, which
 * ARP's retries and the CM timeouts are there for. A refused post is never
 * taken as a loss: the call that made it returns DW_ERR_NOMEM
 * (dw_ipoib_node_send(), _send_via(), _input_ud(), _input_cm()), and
 * dw_ipoib_node_tick(), which returns nothing, leaves it for
 * dw_ipoib_node_tick_error(). The node stays usable, nothing is allocated
 * and no slot is kept for what was refused: the message is not sent and
 * not posted again by the node; what it was for is as described at each
 * call (undone when the call was the caller's send, otherwise handled as a
 * lost message would be). Calling on after DW_ERR_NOMEM is allowed; a
 * caller that cannot may delete the node.
 */
#ifndef DDPWIRE_IPOIB_NODE_H
#define DDPWIRE_IPOIB_NODE_H

#include <ddpwire/ipoib.h>
#include <ddpwire/ipoib_sid.h>
#include <ddpwire/ipoib_cm.h>
#include <ddpwire/ipoib_nego.h>
#include <ddpwire/mem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Node: one IPoIB interface                                           */
/* ------------------------------------------------------------------ */

typedef struct dw_ipoib_node dw_ipoib_node;

/** A service bound to its own UD QPN (IPoIB-QPN, draft 3.1). */
typedef struct dw_ipoib_service {
    /** Draft 4.0 service ID; a zero subfield serves the whole protocol. */
    uint64_t sid;
    uint32_t qpn;
} dw_ipoib_service;
#define DW_IPOIB_SERVICES_MAX 8

/** advertise value meaning "the capabilities implemented". */
#define DW_IPOIB_ADVERTISE_CAPS (~0u)

typedef struct dw_ipoib_node_settings {
    dw_ipoib_profile profile;
    /** Capabilities implemented (DW_IPOIB_CAP_*; within the profile's). */
    unsigned caps;
    /**
     * Capabilities put in the flags (default DW_IPOIB_ADVERTISE_CAPS).
     * Anything else makes a lying node, for section 5 tests.
     */
    unsigned advertise;
    /** IPv4 address, host order. */
    uint32_t ipv4;
    /** The interface's UD QPN (the one in its address) and port GID. */
    uint32_t qpn;
    uint8_t gid[DW_IPOIB_GID_LEN];
    uint16_t pkey;
    /** IP MTU over UD (default 2044). */
    uint32_t ud_mtu;
    /** Connected-mode MTU policy (default 65520 offered, 68..65520). */
    dw_ipoib_mtu_policy mtu;
    /** RFC 4755: service ID form sent; listen for both forms; after REJ
     * "invalid service ID" retry once with the other form. */
    dw_ipoib_sid_style sid_style;
    int sid_listen_both;
    int sid_fallback;
    /** REQs retried after a draft REJ reason 3 (default 1). */
    unsigned mtu_retries;
    /** Ticks to wait for REP/REJ or SIDR_REP (default 100000). */
    uint64_t cm_timeout;
    /** Ticks between ARP requests, and requests before giving up. */
    uint64_t arp_timeout;
    unsigned arp_tries;
    /** Section 5 counter-measure: ignore ARP whose sender hardware address
     * is not the datagram's source QPN and GID (default 1). */
    int check_arp_source;
    /** Answer no CM message at all (a peer that times out; default 0). */
    int cm_silent;
    /** IPoIB-QPN services (used when caps has DW_IPOIB_CAP_QPN). */
    dw_ipoib_service services[DW_IPOIB_SERVICES_MAX];
    size_t n_services;
    /** First QPN handed to connected queue pairs. */
    uint32_t conn_qpn_base;
    /** Peers, accepted connections, packets waiting for ARP. */
    unsigned max_peers, max_conns, pend_max;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_ipoib_node_settings;

/** The layout of dw_ipoib_node_settings this header describes (see <ddpwire/common.h>). */
#define DW_IPOIB_NODE_SETTINGS_VERSION 1

/** Fills the defaults: draft profile, UD only, everything above. */
DW_EXTERN int dw_ipoib_node_settings_default_versioned(int settings_version,
                                                       dw_ipoib_node_settings *s);
#define dw_ipoib_node_settings_default(s) \
    dw_ipoib_node_settings_default_versioned(DW_IPOIB_NODE_SETTINGS_VERSION, (s))

/** A UD datagram, as the node sends or receives it. */
typedef struct dw_ipoib_ud {
    /** Destination: GID (multicast GID for multicast) and QPN. */
    const uint8_t *dgid;
    uint32_t dqpn;
    /** Source GID and QPN. */
    const uint8_t *sgid;
    uint32_t sqpn;
} dw_ipoib_ud;

/** What happened, for logs and tests. */
typedef enum dw_ipoib_event_kind {
    DW_IPOIB_EV_ARP_RESOLVED = 0,
    DW_IPOIB_EV_ARP_IGNORED,
    DW_IPOIB_EV_LINK_UP,
    DW_IPOIB_EV_LINK_RETRY,
    DW_IPOIB_EV_LINK_FAILED,
    DW_IPOIB_EV_LINK_DOWN,
    DW_IPOIB_EV_ACCEPTED,
    DW_IPOIB_EV_REFUSED,
    DW_IPOIB_EV_SVC_UP,
    DW_IPOIB_EV_SVC_FAILED,
    DW_IPOIB_EV_RX_DROPPED
} dw_ipoib_event_kind;

typedef struct dw_ipoib_event {
    dw_ipoib_event_kind kind;
    /** The peer's IPv4 address (0 when unknown). */
    uint32_t peer;
    dw_ipoib_mode mode;
    uint32_t mtu;
    uint64_t sid;
    /** Why, in words ("REJ reason 8 (invalid service ID)", "timeout"). */
    const char *why;
} dw_ipoib_event;

/**
 * The send callbacks return 0 (posted), DW_ERR_NOMEM (the post was refused
 * for want of resources: reported, see the top of this header) or another
 * negative DW_ERR_* (taken as lost; from dw_ipoib_node_send() and
 * dw_ipoib_node_send_via() also returned to their caller).
 */
typedef struct dw_ipoib_node_callbacks {
    /** Send a UD datagram: IPoIB header of type, then pkt. */
    int (*send_ud)(dw_ipoib_node *n, const dw_ipoib_ud *to, uint16_t type,
                   const uint8_t *pkt, size_t len, void *user_data);
    /** Send a CM message to the node with GID dgid. */
    int (*send_cm)(dw_ipoib_node *n, const uint8_t *dgid, const dw_ipoib_cm_msg *m,
                   void *user_data);
    /** Send a message over a connected QP (sqpn) to its peer (dgid, dqpn). */
    int (*send_conn)(dw_ipoib_node *n, const uint8_t *dgid, uint32_t dqpn, uint32_t sqpn,
                     uint16_t type, const uint8_t *pkt, size_t len, void *user_data);
    /** An IP packet for the host, and the link it came over. */
    void (*deliver)(dw_ipoib_node *n, uint16_t type, const uint8_t *pkt, size_t len,
                    dw_ipoib_mode via, void *user_data);
    /** Optional. */
    void (*on_event)(dw_ipoib_node *n, const dw_ipoib_event *ev, void *user_data);
} dw_ipoib_node_callbacks;

/** The layout of dw_ipoib_node_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_IPOIB_NODE_CALLBACKS_VERSION 1

/**
 * Creates a node (allocates its tables once). DW_ERR_INVAL for settings
 * that cannot work: capabilities the profile cannot express, an invalid
 * QPN, a bad MTU policy, QPN services without valid QPNs.
 */
DW_EXTERN int dw_ipoib_node_new_versioned(dw_ipoib_node **pn, int settings_version,
                                          const dw_ipoib_node_settings *s,
                                          int callbacks_version,
                                          const dw_ipoib_node_callbacks *cb, void *user_data);
#define dw_ipoib_node_new(pn, s, cb, user_data) \
    dw_ipoib_node_new_versioned((pn), DW_IPOIB_NODE_SETTINGS_VERSION, (s), \
        DW_IPOIB_NODE_CALLBACKS_VERSION, (cb), (user_data))

/** Frees a node; NULL is allowed. */
DW_EXTERN void dw_ipoib_node_del(dw_ipoib_node *n);

/** The node's settings. */
DW_EXTERN const dw_ipoib_node_settings *dw_ipoib_node_settings_get(const dw_ipoib_node *n);

/** The node's link-layer address with its advertised flags. */
DW_EXTERN void dw_ipoib_node_addr(const dw_ipoib_node *n, dw_ipoib_addr *out);

/**
 * Sends an IPv4 packet (its destination is read from it). Multicast and
 * broadcast go over UD to the group; unicast to an unresolved address
 * waits for ARP (DW_ERR_NOSPACE when that queue is full: try later);
 * otherwise the best link that is up carries it (dw_ipoib_route()), and a
 * first packet to a peer starts the set-up of the best common mode.
 * Returns 0, DW_ERR_TOO_LONG (larger than every usable link's MTU: see
 * dw_ipoib_node_path_mtu()), DW_ERR_NOSPACE, DW_ERR_MALFORMED, or what
 * the send callback returned for the packet. DW_ERR_NOMEM: a post was
 * refused and the packet was not sent: its own, or the ARP request or CM
 * REQ/SIDR_REQ it needed first, which then started nothing (no peer entry
 * kept, nothing queued, no attempt counted; the next send tries again).
 */
DW_EXTERN int dw_ipoib_node_send(dw_ipoib_node *n, const uint8_t *pkt, size_t len, uint64_t now);

/**
 * Sends a packet of any type over one given link to a resolved peer, for
 * tests of the draft 3.3 rules: DW_ERR_STATE when that link is not up,
 * DW_ERR_PROTO when the rules forbid it (ARP over a connected link...).
 */
DW_EXTERN int dw_ipoib_node_send_via(dw_ipoib_node *n, uint32_t peer, uint16_t type, const uint8_t *pkt,
                           size_t len, dw_ipoib_mode via, uint64_t now);

/**
 * A UD datagram arrived (frame = IPoIB header and packet). Returns 0, or
 * DW_ERR_NOMEM when a post of its ARP handling was refused: the ARP reply
 * (the peer's next request asks again), or packets that waited for the
 * address (each refused one is given up, counted in pend_dropped; the
 * others still go). The datagram itself was taken in full.
 */
DW_EXTERN int dw_ipoib_node_input_ud(dw_ipoib_node *n, const dw_ipoib_ud *from, const uint8_t *frame,
                           size_t len, uint64_t now);

/**
 * A CM message arrived from the node with GID sgid. Returns 0,
 * DW_ERR_MALFORMED (a type no node knows), or DW_ERR_NOMEM when the post
 * of the answer was refused: a refused REP accepts nothing (no slot kept,
 * the requester times out); a refused RTU leaves the link up (the peer's
 * first data establishes it); a refused REJ, DREP, SIDR_REP or retried REQ
 * is handled as a lost one (the peer's or our CM timeout, then UD).
 */
DW_EXTERN int dw_ipoib_node_input_cm(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                           uint64_t now);

/** A message arrived on our connected QP dqpn from (sgid, sqpn). */
DW_EXTERN int dw_ipoib_node_input_conn(dw_ipoib_node *n, const uint8_t *sgid, uint32_t sqpn,
                             uint32_t dqpn, const uint8_t *frame, size_t len, uint64_t now);

/**
 * Runs timers (ARP retries, CM timeouts) due at now. An ARP request whose
 * post is refused counts as a try, as a lost one; the refusal is reported
 * by dw_ipoib_node_tick_error().
 */
DW_EXTERN void dw_ipoib_node_tick(dw_ipoib_node *n, uint64_t now);

/**
 * What the last dw_ipoib_node_tick() could not return: DW_ERR_NOMEM when a
 * post it made was refused, else 0 (0 before the first tick; DW_ERR_INVAL
 * for NULL). Each tick sets it anew: call it after each tick.
 */
DW_EXTERN int dw_ipoib_node_tick_error(const dw_ipoib_node *n);

/** The earliest pending timer, or UINT64_MAX when none. */
DW_EXTERN uint64_t dw_ipoib_node_next_timer(const dw_ipoib_node *n);

/** Non-zero when qpn is one of the node's UD QPNs (default or service). */
DW_EXTERN int dw_ipoib_node_has_ud_qpn(const dw_ipoib_node *n, uint32_t qpn);

/** The largest IP packet that can go to ipv4 now (UD MTU until a link is up). */
DW_EXTERN uint32_t dw_ipoib_node_path_mtu(const dw_ipoib_node *n, uint32_t ipv4);

/** State of the set-up towards one peer. */
typedef enum dw_ipoib_link_state {
    DW_IPOIB_LINK_NONE = 0, /* UD only: nothing to set up */
    DW_IPOIB_LINK_PENDING,  /* REQ or SIDR sent */
    DW_IPOIB_LINK_UP,
    DW_IPOIB_LINK_FAILED /* fell back to UD */
} dw_ipoib_link_state;

typedef struct dw_ipoib_peer_info {
    int resolved;
    dw_ipoib_addr addr;
    /** What its flags offered that we support. */
    unsigned caps;
    /** Best common mode (what was tried). */
    dw_ipoib_mode chosen;
    dw_ipoib_link_state state;
    /** What unicast uses now: a connected mode, QPN, or UD. */
    dw_ipoib_mode mode;
    /** Path MTU now. */
    uint32_t mtu;
    /** Set-ups started, failed; REQs resent after REJ (MTU, service ID). */
    unsigned attempts, failures, mtu_retries, sid_retries;
    /** QPN services resolved / failed. */
    unsigned services_up, services_failed;
} dw_ipoib_peer_info;

/** Fills info for the peer ipv4; DW_ERR_INVAL when unknown. */
DW_EXTERN int dw_ipoib_node_peer(const dw_ipoib_node *n, uint32_t ipv4, dw_ipoib_peer_info *info);

typedef struct dw_ipoib_node_stats {
    uint64_t tx_ud, tx_qpn, tx_conn, tx_mcast;
    uint64_t rx_ud, rx_qpn, rx_conn, delivered;
    /** ARP ignored (section 5 check, unsolicited, conflicting, malformed). */
    uint64_t arp_ignored;
    /** Received but refused by a draft 3.3 rule (ARP over a connection...). */
    uint64_t rx_rule_drops;
    /** For a QP we do not have, or an unknown IPoIB type. */
    uint64_t rx_unknown;
    /** Packets given up after ARP failed, or whose post was refused
     * (DW_ERR_NOMEM) when the address came. */
    uint64_t pend_dropped;
    /** CM messages whose private data or service ID was malformed. */
    uint64_t cm_malformed;
    /** Set-ups started and failed, REQ retries, disconnects, accepted. */
    uint64_t attempts, failures, retries, disconnects, accepted, refused;
} dw_ipoib_node_stats;

/** Counters since creation, copied into *st. */
DW_EXTERN void dw_ipoib_node_stats_get(const dw_ipoib_node *n, dw_ipoib_node_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IPOIB_NODE_H */
