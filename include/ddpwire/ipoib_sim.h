/*
 * IPoIB advanced capabilities in motion: a sans-I/O IPoIB interface (node)
 * and an in-process simulated InfiniBand fabric that proves the protocol
 * logic of <ddpwire/ipoib.h> without hardware.
 *
 * A node is one IPoIB interface. It resolves addresses with ARP over UD
 * (20-octet addresses carrying its capability flags), picks the best mode
 * both sides support, sets up an IPoIB-RC/UC/RD link with CM REQ/REP/RTU
 * (or per-service IPoIB-QPN queue pairs with SIDR), and routes each packet
 * by the rules of draft 3.3. Every failure (REJ, a malformed or mismatched
 * reply, a timeout, a too small MTU) costs one attempt and leaves the peer
 * on IPoIB-UD, which never stops working: packets go over UD while a link
 * is being set up, so none waits on it and none is lost. A node makes no
 * system call and reads no clock: the caller passes "now" (abstract ticks)
 * and moves the messages it hands to the callbacks.
 *
 * The fabric connects nodes: UD datagrams (unicast by GID and QPN, and
 * multicast to every other node) limited to a 2044-octet IP MTU, CM
 * messages, and connected-mode messages of any size up to its limit. It is
 * deterministic: one seed fixes addresses and the order in which datagrams
 * and CM messages may be delayed behind later ones (connected messages keep
 * their order, as an RC queue pair does). dw_ipoib_fabric_step() moves one
 * message; hosts on top of each node answer echo requests (ICMP), send
 * pings and bulk UDP transfers, and check what arrives.
 */
#ifndef DDPWIRE_IPOIB_SIM_H
#define DDPWIRE_IPOIB_SIM_H

#include <ddpwire/ipoib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* CM messages (the IPoIB-relevant fields of the InfiniBand CM MADs)   */
/* ------------------------------------------------------------------ */

typedef enum dw_ipoib_cm_type {
    DW_IPOIB_CM_REQ = 1,
    DW_IPOIB_CM_REP,
    DW_IPOIB_CM_RTU,
    DW_IPOIB_CM_REJ,
    DW_IPOIB_CM_DREQ,
    DW_IPOIB_CM_DREP,
    DW_IPOIB_CM_SIDR_REQ,
    DW_IPOIB_CM_SIDR_REP
} dw_ipoib_cm_type;

/** "REQ", "REP", ... */
const char *dw_ipoib_cm_type_name(dw_ipoib_cm_type t);

/** Largest private data of any CM message (RTU, DREP: 224 octets). */
#define DW_IPOIB_CM_PD_MAX 224u

/** Private-data size of a CM message type (REQ 92, REP 196, REJ 148, ...). */
size_t dw_ipoib_cm_pd_size(dw_ipoib_cm_type t);

/** SIDR_REP status values (InfiniBand SIDR). */
#define DW_IPOIB_SIDR_OK 0u
#define DW_IPOIB_SIDR_UNSUPPORTED 1u /* service ID not supported */
#define DW_IPOIB_SIDR_REJECTED 2u    /* rejected by the service provider */

typedef struct dw_ipoib_cm_msg {
    dw_ipoib_cm_type type;
    /** Sender's communication ID (SIDR: the request ID). */
    uint32_t local_id;
    /** The receiver's communication ID (0 in REQ and SIDR). */
    uint32_t remote_id;
    /** REQ, SIDR_REQ, SIDR_REP: the service ID. */
    uint64_t service_id;
    /** REQ/REP: the sender's connected QP; SIDR_REP: the service's UD QPN. */
    uint32_t qpn;
    /** REQ: RC, UC or RD. */
    dw_ipoib_mode transport;
    /** REJ: Reason; SIDR_REP: status. */
    uint16_t reason;
    /** dw_ipoib_cm_pd_size(type); octets past the IPoIB data are zero. */
    uint16_t pd_len;
    uint8_t pd[DW_IPOIB_CM_PD_MAX];
} dw_ipoib_cm_msg;

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
} dw_ipoib_node_settings;

/** Fills the defaults: draft profile, UD only, everything above. */
void dw_ipoib_node_settings_default(dw_ipoib_node_settings *s);

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

/**
 * Creates a node (allocates its tables once). DW_ERR_INVAL for settings
 * that cannot work: capabilities the profile cannot express, an invalid
 * QPN, a bad MTU policy, QPN services without valid QPNs.
 */
int dw_ipoib_node_new(dw_ipoib_node **pn, const dw_ipoib_node_settings *s,
                      const dw_ipoib_node_callbacks *cb, void *user_data);

/** Frees a node; NULL is allowed. */
void dw_ipoib_node_del(dw_ipoib_node *n);

/** The node's settings. */
const dw_ipoib_node_settings *dw_ipoib_node_settings_get(const dw_ipoib_node *n);

/** The node's link-layer address with its advertised flags. */
void dw_ipoib_node_addr(const dw_ipoib_node *n, dw_ipoib_addr *out);

/**
 * Sends an IPv4 packet (its destination is read from it). Multicast and
 * broadcast go over UD to the group; unicast to an unresolved address
 * waits for ARP (DW_ERR_NOSPACE when that queue is full: try later);
 * otherwise the best link that is up carries it (dw_ipoib_route()), and a
 * first packet to a peer starts the set-up of the best common mode.
 * Returns 0, DW_ERR_TOO_LONG (larger than every usable link's MTU: see
 * dw_ipoib_node_path_mtu()), DW_ERR_NOSPACE or DW_ERR_MALFORMED.
 */
int dw_ipoib_node_send(dw_ipoib_node *n, const uint8_t *pkt, size_t len, uint64_t now);

/**
 * Sends a packet of any type over one given link to a resolved peer, for
 * tests of the draft 3.3 rules: DW_ERR_STATE when that link is not up,
 * DW_ERR_PROTO when the rules forbid it (ARP over a connected link...).
 */
int dw_ipoib_node_send_via(dw_ipoib_node *n, uint32_t peer, uint16_t type, const uint8_t *pkt,
                           size_t len, dw_ipoib_mode via, uint64_t now);

/** A UD datagram arrived (frame = IPoIB header and packet). */
int dw_ipoib_node_input_ud(dw_ipoib_node *n, const dw_ipoib_ud *from, const uint8_t *frame,
                           size_t len, uint64_t now);

/** A CM message arrived from the node with GID sgid. */
int dw_ipoib_node_input_cm(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                           uint64_t now);

/** A message arrived on our connected QP dqpn from (sgid, sqpn). */
int dw_ipoib_node_input_conn(dw_ipoib_node *n, const uint8_t *sgid, uint32_t sqpn,
                             uint32_t dqpn, const uint8_t *frame, size_t len, uint64_t now);

/** Runs timers (ARP retries, CM timeouts) due at now. */
void dw_ipoib_node_tick(dw_ipoib_node *n, uint64_t now);

/** The earliest pending timer, or UINT64_MAX when none. */
uint64_t dw_ipoib_node_next_timer(const dw_ipoib_node *n);

/** Non-zero when qpn is one of the node's UD QPNs (default or service). */
int dw_ipoib_node_has_ud_qpn(const dw_ipoib_node *n, uint32_t qpn);

/** The largest IP packet that can go to ipv4 now (UD MTU until a link is up). */
uint32_t dw_ipoib_node_path_mtu(const dw_ipoib_node *n, uint32_t ipv4);

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
int dw_ipoib_node_peer(const dw_ipoib_node *n, uint32_t ipv4, dw_ipoib_peer_info *info);

typedef struct dw_ipoib_node_stats {
    uint64_t tx_ud, tx_qpn, tx_conn, tx_mcast;
    uint64_t rx_ud, rx_qpn, rx_conn, delivered;
    /** ARP ignored (section 5 check, unsolicited, conflicting, malformed). */
    uint64_t arp_ignored;
    /** Received but refused by a draft 3.3 rule (ARP over a connection...). */
    uint64_t rx_rule_drops;
    /** For a QP we do not have, or an unknown IPoIB type. */
    uint64_t rx_unknown;
    /** Packets given up after ARP failed. */
    uint64_t pend_dropped;
    /** CM messages whose private data or service ID was malformed. */
    uint64_t cm_malformed;
    /** Set-ups started and failed, REQ retries, disconnects, accepted. */
    uint64_t attempts, failures, retries, disconnects, accepted, refused;
} dw_ipoib_node_stats;

const dw_ipoib_node_stats *dw_ipoib_node_stats_get(const dw_ipoib_node *n);

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

/** Moves one message or advances time. Returns 1 if anything happened, 0 when idle. */
int dw_ipoib_fabric_step(dw_ipoib_fabric *f);

/** Steps until idle or max_steps; returns steps taken. */
uint64_t dw_ipoib_fabric_run(dw_ipoib_fabric *f, uint64_t max_steps);

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

const dw_ipoib_host_stats *dw_ipoib_fabric_host_stats(const dw_ipoib_fabric *f, int host);

typedef struct dw_ipoib_fabric_stats {
    uint64_t steps, delivered, deferred;
    /** UD datagrams over the UD MTU, messages for no one, dropped by the
     * tamper callback, refused because the ring was full (all dropped). */
    uint64_t ud_oversize, unroutable, tampered_drops, ring_full;
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

typedef struct dw_ipoib_pair_opts {
    uint64_t seed;
    unsigned pings;
    size_t ping_size;
    uint64_t bulk;
    uint16_t bulk_port;
    unsigned defer_permille;
    /** Optional: fabric callbacks (a pcap tap). */
    const dw_ipoib_fabric_callbacks *cb;
    void *cb_user_data;
} dw_ipoib_pair_opts;

/** Defaults: 4 pings of 56 octets, 256 KiB bulk to port 5001, seed 1. */
void dw_ipoib_pair_opts_default(dw_ipoib_pair_opts *o);

typedef struct dw_ipoib_pair_result {
    /** Links in use at the end: A to B, and B to A. */
    dw_ipoib_mode mode_ab, mode_ba;
    uint32_t mtu_ab, mtu_ba;
    unsigned echo_sent, echo_replies;
    uint64_t bulk_sent, bulk_rcvd, lost;
    /** Both nodes: set-ups that failed, REQ retries after REJ. */
    unsigned failed, retries;
    uint64_t steps;
    /** 1 when every echo came back and the bulk data arrived whole. */
    int ok;
} dw_ipoib_pair_result;

/**
 * Runs one pair: host A (10.0.0.1) of kind a pings host B (10.0.0.2) of
 * kind b and sends it the bulk data; B's replies set up B's own link.
 */
int dw_ipoib_pair_run(size_t a, size_t b, const dw_ipoib_pair_opts *o, dw_ipoib_pair_result *r);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IPOIB_SIM_H */
