/* SPDX-License-Identifier: MIT */
/*
 * A simulated InfiniBand fabric that proves the protocol logic of the IPoIB
 * node (<ddpwire/ipoib_node.h>) without hardware: test equipment, not
 * protocol code.
 *
 * The fabric connects nodes: UD datagrams (unicast by GID and QPN, and
 * multicast to every other node) limited to a 2044-octet IP MTU, CM
 * messages, and connected-mode messages of any size up to its limit. It is
 * deterministic: one seed fixes addresses and the order in which datagrams
 * and CM messages may be delayed behind later ones (connected messages keep
 * their order, as an RC queue pair does). dw_ipoib_fabric_step() moves one
 * message; hosts on top of each node answer echo requests (ICMP), send
 * pings and bulk UDP transfers, and check what arrives.
 *
 * Part of the uninstalled support library ddpwire_sim (support/), linked by
 * the tests, fuzzers and the CLI; not in libddpwire.
 */
#ifndef DDPWIRE_SIM_IPOIB_SIM_H
#define DDPWIRE_SIM_IPOIB_SIM_H

#include <ddpwire/ipoib_node.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Fabric                                                              */
/* ------------------------------------------------------------------ */

typedef struct dw_ipoib_fabric dw_ipoib_fabric;

typedef struct dw_ipoib_fabric_settings {
    uint64_t seed;
    /** Hosts at most (default 8). */
    unsigned max_hosts;
    /** Octets of messages in flight (default 6 MiB, at least 3 conn_max). */
    size_t ring_bytes;
    /** Per mille of UD and CM messages put back behind later ones
     * (default 200; each at most 3 times). Connected messages keep order. */
    unsigned defer_permille;
    /** UD IP MTU enforced (default 2044: larger datagrams are dropped). */
    uint32_t ud_mtu;
    /** Largest connected message (default 1 MiB). */
    size_t conn_max;
    /** Optional: carries the fabric's allocations and, for hosts whose
     * settings have none, their nodes' (NULL: the C library's). Must
     * outlive the fabric. */
    const dw_mem *mem;
} dw_ipoib_fabric_settings;

void dw_ipoib_fabric_settings_default(dw_ipoib_fabric_settings *s);

typedef enum dw_ipoib_msg_kind {
    DW_IPOIB_MSG_UD = 0,
    DW_IPOIB_MSG_CM = 1,
    DW_IPOIB_MSG_CONN = 2
} dw_ipoib_msg_kind;

/** One message on the fabric. */
typedef struct dw_ipoib_msg {
    dw_ipoib_msg_kind kind;
    /** Sending host; destination host (-1: multicast). */
    int src, dst;
    uint8_t sgid[DW_IPOIB_GID_LEN];
    uint8_t dgid[DW_IPOIB_GID_LEN];
    uint32_t sqpn, dqpn;
    /** CM: the message. */
    dw_ipoib_cm_msg *cm;
    /** UD, CONN: the IPoIB header and packet (writable in tamper). */
    uint8_t *data;
    size_t len;
    /** Tick it is delivered at. */
    uint64_t now;
} dw_ipoib_msg;

typedef struct dw_ipoib_fabric_callbacks {
    /** Optional: sees each message before delivery; may change it (not its
     * length); return non-zero to drop it. */
    int (*tamper)(dw_ipoib_fabric *f, dw_ipoib_msg *m, void *user_data);
    /** Optional: sees each message as it is delivered (after tamper). */
    void (*tap)(dw_ipoib_fabric *f, const dw_ipoib_msg *m, void *user_data);
    /** Optional: node events of every host (host index first). */
    void (*on_event)(dw_ipoib_fabric *f, int host, const dw_ipoib_event *ev, void *user_data);
    /** Optional (tests): sees each message a host's node posts (its send_ud,
     * send_cm or send_conn callback, len octets with the IPoIB header)
     * before the fabric takes it; a negative return refuses the post and is
     * what that callback returns to the node, as a failing ibv_post_send
     * (DW_ERR_NOMEM: the adapter ran out of memory). The node reports a
     * refused post from the call that made it (a host's send, an input,
     * or dw_ipoib_node_tick_error() after a tick), so the fabric stops. */
    int (*post)(dw_ipoib_fabric *f, int host, dw_ipoib_msg_kind kind, size_t len,
                void *user_data);
} dw_ipoib_fabric_callbacks;

int dw_ipoib_fabric_new(dw_ipoib_fabric **pf, const dw_ipoib_fabric_settings *s,
                        const dw_ipoib_fabric_callbacks *cb, void *user_data);
void dw_ipoib_fabric_del(dw_ipoib_fabric *f);

/**
 * Adds a host running a node with these settings. When s->qpn is 0 the
 * fabric assigns (seeded) the UD QPN Q and the GID, connected QPNs from
 * Q + 0x10, and Q + 1 + i to service i. Returns the host index or an error.
 */
int dw_ipoib_fabric_add_host(dw_ipoib_fabric *f, const dw_ipoib_node_settings *s);

dw_ipoib_node *dw_ipoib_fabric_node(dw_ipoib_fabric *f, int host);

/** Queues count ICMP echo requests of size octets (one outstanding). */
int dw_ipoib_fabric_ping(dw_ipoib_fabric *f, int host, uint32_t dst, unsigned count, size_t size);

/** Queues a bulk UDP transfer of octets to dst:port, in path-MTU packets. */
int dw_ipoib_fabric_bulk(dw_ipoib_fabric *f, int host, uint32_t dst, uint16_t port,
                         uint64_t octets);

/** Sends one UDP packet of size octets to an IPv4 multicast group. */
int dw_ipoib_fabric_mcast(dw_ipoib_fabric *f, int host, uint32_t group, size_t size);

/** Puts a raw UD frame (IPoIB header + packet) on the fabric from host. */
int dw_ipoib_fabric_inject_ud(dw_ipoib_fabric *f, int host, const dw_ipoib_ud *to,
                              const uint8_t *frame, size_t len);

/**
 * Moves one message or advances time. Returns 1 if anything happened, 0
 * when idle, or DW_ERR_NOMEM once a node call has returned it: the run
 * cannot go on (every later step returns it too, doing nothing).
 */
int dw_ipoib_fabric_step(dw_ipoib_fabric *f);

/** Steps until idle, max_steps or a failed step; returns steps taken
 * (dw_ipoib_fabric_error() says whether the run failed). */
uint64_t dw_ipoib_fabric_run(dw_ipoib_fabric *f, uint64_t max_steps);

/**
 * The first negative return of a node call during the run (input of a UD,
 * CM or connected message, a host's send other than DW_ERR_NOSPACE, or
 * dw_ipoib_node_tick_error() after each tick), or 0; *call (if call is not NULL) names that call. Every such return is
 * counted in dw_ipoib_fabric_stats.node_errors; DW_ERR_NOMEM also stops
 * the fabric (dw_ipoib_fabric_step()).
 */
int dw_ipoib_fabric_error(const dw_ipoib_fabric *f, const char **call);

uint64_t dw_ipoib_fabric_now(const dw_ipoib_fabric *f);

typedef struct dw_ipoib_host_stats {
    unsigned echo_sent, echo_replies, echo_served;
    uint64_t bulk_sent, bulk_rcvd; /* octets of UDP payload */
    uint64_t bulk_pkts_sent, bulk_pkts_rcvd, bulk_bad, bulk_dups;
    uint64_t mcast_rcvd;
    /** Largest IP packet received, and over which links packets came. */
    uint64_t max_rx_len;
    uint64_t rx_via[DW_IPOIB_MODE_COUNT];
    /** Sends the node refused other than "try later" (should stay 0). */
    uint64_t send_errors;
} dw_ipoib_host_stats;

const dw_ipoib_host_stats *dw_ipoib_fabric_host_stats_get(const dw_ipoib_fabric *f, int host);

typedef struct dw_ipoib_fabric_stats {
    uint64_t steps, delivered, deferred;
    /** UD datagrams over the UD MTU, messages for no one, dropped by the
     * tamper callback, refused because the ring was full (all dropped). */
    uint64_t ud_oversize, unroutable, tampered_drops, ring_full;
    /** Negative returns of node calls (see dw_ipoib_fabric_error()). */
    uint64_t node_errors;
} dw_ipoib_fabric_stats;

const dw_ipoib_fabric_stats *dw_ipoib_fabric_stats_get(const dw_ipoib_fabric *f);

/**
 * The pcap link type 242 record of a UD message: pseudo-header (unicast:
 * destination address; multicast: GRH) then the frame. Returns its length,
 * DW_ERR_NOSPACE, or DW_ERR_INVAL for messages that are not UD.
 */
ssize_t dw_ipoib_msg_lt242(const dw_ipoib_msg *m, uint8_t *out, size_t cap);

/* ------------------------------------------------------------------ */
/* The pairwise matrix                                                 */
/* ------------------------------------------------------------------ */

/**
 * Node kinds of the matrix: draft ud, qpn, rc, uc, rd, all; rfc4755 ud, rc,
 * uc, rcuc; linux-rc (RFC 4755 profile with Linux's service ID, listening
 * for that form only). Names like "draft-rc".
 */
size_t dw_ipoib_kind_count(void);
const char *dw_ipoib_kind_name(size_t kind);
/** Index of a kind name, or -1. */
int dw_ipoib_kind_find(const char *name);
/** Settings of a kind for the host with the given IPv4 address. */
int dw_ipoib_kind_settings(size_t kind, uint32_t ipv4, dw_ipoib_node_settings *s);

typedef struct dw_ipoib_pair_settings {
    uint64_t seed;
    unsigned pings;
    size_t ping_size;
    uint64_t bulk;
    uint16_t bulk_port;
    unsigned defer_permille;
    /** Optional: fabric callbacks (a pcap tap). */
    const dw_ipoib_fabric_callbacks *cb;
    void *cb_user_data;
    /** Optional: the fabric's and the nodes' allocator (NULL: the C library's). */
    const dw_mem *mem;
} dw_ipoib_pair_settings;

/** Defaults: 4 pings of 56 octets, 256 KiB bulk to port 5001, seed 1. */
void dw_ipoib_pair_settings_default(dw_ipoib_pair_settings *o);

typedef struct dw_ipoib_pair_result {
    /** Links in use at the end: A to B, and B to A. */
    dw_ipoib_mode mode_ab, mode_ba;
    uint32_t mtu_ab, mtu_ba;
    unsigned echo_sent, echo_replies;
    uint64_t bulk_sent, bulk_rcvd, lost;
    /** Both nodes: set-ups that failed, REQ retries after REJ. */
    unsigned failed, retries;
    uint64_t steps;
    /** Negative returns of node calls; the first one and the call's name
     * (0 and NULL when none). Any of them makes the pair fail. */
    uint64_t node_errors;
    int first_error;
    const char *first_error_call;
    /** 1 when the run went idle (did not stop at the step limit). */
    int finished;
    /** 1 when every echo came back, the bulk data arrived whole, no node
     * call failed and the run finished. */
    int ok;
} dw_ipoib_pair_result;

/**
 * Runs one pair: host A (10.0.0.1) of kind a pings host B (10.0.0.2) of
 * kind b and sends it the bulk data; B's replies set up B's own link.
 * Returns 0 (*r filled: the verdict is r->ok), DW_ERR_INVAL, or
 * DW_ERR_NOMEM when an allocation failed, at the start or during the run
 * (a node call returned it): then no verdict, *r is not a result.
 */
int dw_ipoib_pair_run(size_t a, size_t b, const dw_ipoib_pair_settings *o, dw_ipoib_pair_result *r);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_SIM_IPOIB_SIM_H */
