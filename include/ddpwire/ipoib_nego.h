/* SPDX-License-Identifier: MIT */
/*
 * IPoIB's rules (draft-kashyap-ipoib-advanced-capabilities 1.0-3.3,
 * lib/ipoib/ipoib_nego.c): the mode both sides support, the MTU policy
 * and the verdicts on REQ, REP and REJ, packet classes and which link may
 * carry them, and the route of a packet. Pure functions.
 */
#ifndef DDPWIRE_IPOIB_NEGO_H
#define DDPWIRE_IPOIB_NEGO_H

#include <ddpwire/ipoib.h>
#include <ddpwire/ipoib_cm.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The best mode both sides support (draft 1.0, 2.0): RC, then RD, UC and
 * QPN; UD when they share nothing. peer_caps is what the peer's flags
 * offered (already restricted by dw_ipoib_flags_decode()).
 */
DW_EXTERN dw_ipoib_mode dw_ipoib_choose(unsigned local_caps, unsigned peer_caps);

/** An interface's MTU policy for connected links. */
typedef struct dw_ipoib_mtu_policy {
    /** MTU put in REQ and REP (also the largest we take). */
    uint32_t offer;
    /** Smallest link MTU we accept. */
    uint32_t min;
    /** Largest MTU we can retry with after a REJ (>= offer). */
    uint32_t max;
} dw_ipoib_mtu_policy;

/** Checks min <= offer <= max and all within 68..2^31; 0 or DW_ERR_INVAL. */
DW_EXTERN int dw_ipoib_mtu_policy_check(const dw_ipoib_mtu_policy *p);

/** The link MTU: the smaller of both values (draft 3.2 MUST). */
DW_EXTERN uint32_t dw_ipoib_mtu_agree(uint32_t a, uint32_t b);

/** What a responder does with a REQ's MTU. */
typedef enum dw_ipoib_req_verdict {
    /** Send REP with *mtu_out (our offer); the link MTU is *link_mtu. */
    DW_IPOIB_REQ_ACCEPT = 0,
    /** Send REJ reason 3 with *mtu_out, the MTU that would be acceptable. */
    DW_IPOIB_REQ_REJECT_MTU = 1
} dw_ipoib_req_verdict;

/**
 * Responder rule (draft 3.2): a REQ whose MTU is below our minimum is
 * rejected with REJ reason 3 carrying our minimum; otherwise REP carries
 * our offer and the link MTU is the smaller value. The RFC 4755 profile has
 * no MTU in REJ and always accepts (each side then sends at most the
 * other's MTU, which is the smaller value too).
 */
DW_EXTERN dw_ipoib_req_verdict dw_ipoib_on_req_mtu(dw_ipoib_profile p, const dw_ipoib_mtu_policy *pol,
                                         uint32_t req_mtu, uint32_t *mtu_out,
                                         uint32_t *link_mtu);

/** What a requester does with a REP. */
typedef enum dw_ipoib_rep_verdict {
    /** Send RTU: the link is up with *link_mtu. */
    DW_IPOIB_REP_RTU = 0,
    /** The resulting MTU is below our minimum: disconnect (draft 3.2). */
    DW_IPOIB_REP_DISCONNECT = 1
} dw_ipoib_rep_verdict;

DW_EXTERN dw_ipoib_rep_verdict dw_ipoib_on_rep_mtu(const dw_ipoib_mtu_policy *pol, uint32_t req_mtu,
                                         uint32_t rep_mtu, uint32_t *link_mtu);

/**
 * Requester rule for a draft REJ: reason 3 with an acceptable MTU inside
 * our min..max and retries left: returns 1 and *retry_mtu (send a new REQ
 * with it); anything else: 0 (give up: fall back to UD).
 */
DW_EXTERN int dw_ipoib_on_rej(dw_ipoib_profile p, const dw_ipoib_mtu_policy *pol, const dw_ipoib_rej *rej,
                    unsigned retries_left, uint32_t *retry_mtu);

/** What kind of packet (draft 3.3 treats them differently). */
typedef enum dw_ipoib_pkt_class {
    DW_IPOIB_PKT_UNICAST = 0,
    DW_IPOIB_PKT_MULTICAST = 1, /* IPv4 class D, broadcast, IPv6 ff00::/8 */
    DW_IPOIB_PKT_ARP = 2,
    DW_IPOIB_PKT_ND = 3 /* ICMPv6 133..137 */
} dw_ipoib_pkt_class;

/**
 * Classifies a packet by its IPoIB header type and its first octets:
 * ARP; IPv6 neighbour discovery; multicast or broadcast destinations;
 * unicast. Short or unknown packets count as unicast.
 */
DW_EXTERN dw_ipoib_pkt_class dw_ipoib_classify(uint16_t type, const uint8_t *pkt, size_t len);

/**
 * Whether a packet of class c may be sent over a link of mode m
 * (draft 3.3): ARP/ND and multicast only over UD; unicast over any link.
 */
DW_EXTERN int dw_ipoib_tx_allowed(dw_ipoib_pkt_class c, dw_ipoib_mode m);

/**
 * Whether a packet of class c received over mode m is processed
 * (draft 3.3): everything received over UD (and UD QPN links) is
 * processed; connected links carry only unicast, so ARP/ND or multicast
 * arriving over one is dropped.
 */
DW_EXTERN int dw_ipoib_rx_allowed(dw_ipoib_pkt_class c, dw_ipoib_mode m);

/** The links to one peer that are up, with their MTUs. */
typedef struct dw_ipoib_links {
    /** Bit (1u << mode) set for each usable link; UD is always usable. */
    unsigned up;
    uint32_t mtu[DW_IPOIB_MODE_COUNT];
} dw_ipoib_links;

/**
 * Picks the link for a packet of class c and len octets: the most
 * preferred link that is up, allowed for c (dw_ipoib_tx_allowed) and whose
 * MTU holds len. Returns the mode, or DW_ERR_TOO_LONG when none can carry
 * it (the IP layer must fragment), DW_ERR_INVAL for bad arguments.
 */
DW_EXTERN int dw_ipoib_route(dw_ipoib_pkt_class c, const dw_ipoib_links *links, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IPOIB_NEGO_H */
