/* SPDX-License-Identifier: MIT */
/*
 * IPoIB advanced capabilities (draft-kashyap-ipoib-advanced-capabilities,
 * December 2001) and the later IPoIB connected mode (RFC 4755, as Linux
 * implements it): codecs and negotiation rules, sans-I/O.
 *
 * IPoIB always runs over InfiniBand's Unreliable Datagram mode (IPoIB-UD).
 * Peers may also offer IPoIB-RC / -UC / -RD (connected modes with a large
 * MTU) or IPoIB-QPN (one UD queue pair per upper-layer service), shown by
 * capability flags in the first octet of the 20-octet link-layer address
 * that address resolution (ARP/ND, always over UD) carries. A peer that
 * wants such a link sets it up with the InfiniBand CM (REQ/REP/RTU/REJ) or
 * SIDR, with IPoIB data in the messages' private data.
 *
 * Two profiles, chosen per interface:
 *   - DW_IPOIB_PROFILE_DRAFT: the draft. Flags QPN 0x80, RC 0x40, UC 0x20,
 *     RD 0x10 (draft 2.0); service IDs 1:0:0:<protocol>:0:0:<port>
 *     (draft 4.0); private data "QPN received, pad, QPN sent, pad" (SIDR,
 *     3.1) plus the IP MTU (CM, 3.2); REJ reason 3 carries the MTU that
 *     would be acceptable.
 *   - DW_IPOIB_PROFILE_RFC4755: flags RC 0x80, UC 0x40; service ID
 *     0x0100000000000000 | UD QPN (Linux historically sends
 *     0x1000000000000000 | QPN); private data = 32-bit word with the UD QPN
 *     in its low 24 bits, then the 32-bit receive MTU; no MTU in REJ;
 *     connected-mode IP MTU 65520.
 *
 * Wire octets are big-endian. Decoders never allocate and return octets
 * consumed, DW_ERR_NEED_MORE (too few octets) or DW_ERR_MALFORMED (these
 * octets can never be valid); encoders return octets written,
 * DW_ERR_NOSPACE or DW_ERR_INVAL (a value the format cannot carry).
 */
#ifndef DDPWIRE_IPOIB_H
#define DDPWIRE_IPOIB_H

#include <ddpwire/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Constants                                                           */
/* ------------------------------------------------------------------ */

/** Octets of an IPoIB link-layer address: flags, 24-bit QPN, 128-bit GID. */
#define DW_IPOIB_ADDR_LEN 20u
/** Octets of a GID. */
#define DW_IPOIB_GID_LEN 16u
/** Largest 24-bit queue pair number; also the multicast QPN. */
#define DW_IPOIB_QPN_MAX 0xFFFFFFu
/** Octets of the IPoIB encapsulation header (type, reserved). */
#define DW_IPOIB_HDR_LEN 4u
/** IP MTU of IPoIB-UD on a 2048-octet InfiniBand MTU (2048 - 4). */
#define DW_IPOIB_UD_MTU 2044u
/** IP MTU of RFC 4755 / Linux connected mode. */
#define DW_IPOIB_CM_MTU 65520u
/** Smallest IP MTU any link may have (IPv4, RFC 791). */
#define DW_IPOIB_MTU_MIN 68u
/** Largest MTU a private-data field may carry (IB messages up to 2^31). */
#define DW_IPOIB_MTU_LIMIT 0x80000000u

/** Encapsulation header types (EtherTypes). */
#define DW_IPOIB_TYPE_IPV4 0x0800u
#define DW_IPOIB_TYPE_ARP 0x0806u
#define DW_IPOIB_TYPE_IPV6 0x86DDu

/** Which specification an interface follows. */
typedef enum dw_ipoib_profile {
    DW_IPOIB_PROFILE_DRAFT = 0,
    DW_IPOIB_PROFILE_RFC4755 = 1
} dw_ipoib_profile;

/** Profile name: "draft" or "rfc4755". */
DW_EXTERN const char *dw_ipoib_profile_name(dw_ipoib_profile p);

/*
 * Capabilities, independent of how a profile writes them on the wire.
 * IPoIB-UD is always there and has no bit.
 */
#define DW_IPOIB_CAP_QPN 0x1u
#define DW_IPOIB_CAP_RC 0x2u
#define DW_IPOIB_CAP_UC 0x4u
#define DW_IPOIB_CAP_RD 0x8u
#define DW_IPOIB_CAP_ALL 0xFu

/** Draft 2.0 flag bits, most significant first: QPN, RC, UC, RD, 0000. */
#define DW_IPOIB_DRAFT_FLAG_QPN 0x80u
#define DW_IPOIB_DRAFT_FLAG_RC 0x40u
#define DW_IPOIB_DRAFT_FLAG_UC 0x20u
#define DW_IPOIB_DRAFT_FLAG_RD 0x10u
/** RFC 4755 flag bits (Linux IPOIB_FLAGS_RC / _UC). */
#define DW_IPOIB_RFC4755_FLAG_RC 0x80u
#define DW_IPOIB_RFC4755_FLAG_UC 0x40u

/** The capabilities a profile can express (draft: all; RFC 4755: RC, UC). */
DW_EXTERN unsigned dw_ipoib_profile_caps(dw_ipoib_profile p);

/**
 * The flags octet advertising caps (draft 2.0: set only the flags of
 * capabilities supported; reserved bits are sent as zero). Capabilities the
 * profile cannot express are left out.
 */
DW_EXTERN uint8_t dw_ipoib_flags_encode(dw_ipoib_profile p, unsigned caps);

/**
 * The capabilities a received flags octet offers, restricted to those we
 * support ("transmit as zero, ignore on receive", draft 2.0): reserved bits
 * and flags of capabilities not in supported are ignored. A UD-only
 * interface (supported 0) ignores every flag.
 */
DW_EXTERN unsigned dw_ipoib_flags_decode(dw_ipoib_profile p, uint8_t flags, unsigned supported);

/** Non-zero when qpn can name an IPoIB UD queue pair (not 0, 1 or 0xFFFFFF). */
DW_EXTERN int dw_ipoib_qpn_valid(uint32_t qpn);

/* ------------------------------------------------------------------ */
/* Link-layer address (20 octets)                                      */
/* ------------------------------------------------------------------ */

typedef struct dw_ipoib_addr {
    /** Capability flags octet (profile-specific bits, see above). */
    uint8_t flags;
    /** Queue pair number, 24 bits. */
    uint32_t qpn;
    /** Port GID (or multicast GID). */
    uint8_t gid[DW_IPOIB_GID_LEN];
} dw_ipoib_addr;

/** Decodes 20 octets: returns 20 or DW_ERR_NEED_MORE; every value is valid. */
DW_EXTERN ssize_t dw_ipoib_addr_decode(dw_ipoib_addr *out, const uint8_t *in, size_t len);

/** Encodes 20 octets; DW_ERR_INVAL when qpn does not fit in 24 bits. */
DW_EXTERN ssize_t dw_ipoib_addr_encode(uint8_t *out, size_t cap, const dw_ipoib_addr *a);

/**
 * Formats as 20 colon-separated hex octets (59 characters), the way Linux
 * shows an InfiniBand hardware address. Returns the length or
 * DW_ERR_NOSPACE (cap must be at least 60).
 */
DW_EXTERN int dw_ipoib_addr_format(char *buf, size_t cap, const dw_ipoib_addr *a);

/**
 * The multicast GID of an IPv4 group (RFC 4391 4.1): ff12:401b:<pkey>::
 * with the group's low 28 bits at the end; 255.255.255.255 maps to the
 * broadcast GID ff12:401b:<pkey>::ffff:ffff. group in host order.
 */
DW_EXTERN void dw_ipoib_mgid_ipv4(uint8_t gid[DW_IPOIB_GID_LEN], uint32_t group, uint16_t pkey);

/** Non-zero when gid is a multicast GID (first octet 0xff). */
DW_EXTERN int dw_ipoib_gid_is_mcast(const uint8_t gid[DW_IPOIB_GID_LEN]);

/* ------------------------------------------------------------------ */
/* Service IDs (draft 4.0)                                             */
/* ------------------------------------------------------------------ */

/*
 * 64 bits: 00000001 | reserved | reserved | protocol | reserved | reserved
 * | protocol subfield (16 bits). The first octet marks the IETF block;
 * reserved octets are sent as zero and ignored on receipt. The protocol is
 * the IPv4 protocol number; for TCP, UDP and SCTP the subfield is the port
 * (rule 2); zero means "all" (rule 1, the wildcard). Text form: the eight
 * octets in hex without leading zeros, colon-separated: TCP port 40 is
 * 1:0:0:6:0:0:0:28 and all UDP 1:0:0:11:0:0:0:0 (draft 4.2).
 */
#define DW_IPOIB_SID_LEN 8u
#define DW_IPOIB_SID_IETF 0x01u
/** Longest text form, with its NUL: 8 * "ff" + 7 colons + 1. */
#define DW_IPOIB_SID_TEXT_MAX 24u

#define DW_IPOIB_PROTO_ICMP 1u
#define DW_IPOIB_PROTO_TCP 6u
#define DW_IPOIB_PROTO_UDP 17u
#define DW_IPOIB_PROTO_SCTP 132u

typedef struct dw_ipoib_sid {
    /** IPv4 protocol number. */
    uint8_t protocol;
    /** Protocol subfield: the port for TCP/UDP/SCTP; 0 = all (rule 1). */
    uint16_t subfield;
    /** Non-zero when a reserved octet was not zero (ignored, reported). */
    uint8_t reserved_set;
} dw_ipoib_sid;

/** The service ID for protocol and subfield (reserved octets zero). */
DW_EXTERN uint64_t dw_ipoib_sid_make(uint8_t protocol, uint16_t subfield);

/**
 * The service ID for a packet's protocol and destination port: the port for
 * TCP, UDP and SCTP (rule 2), zero (all) for every other protocol (4.1).
 */
DW_EXTERN uint64_t dw_ipoib_sid_for(uint8_t protocol, uint16_t port);

/** Splits a service ID; DW_ERR_MALFORMED when it is not in the IETF block. */
DW_EXTERN int dw_ipoib_sid_split(dw_ipoib_sid *out, uint64_t sid);

/** Decodes 8 octets: 8, DW_ERR_NEED_MORE, or DW_ERR_MALFORMED (not IETF). */
DW_EXTERN ssize_t dw_ipoib_sid_decode(dw_ipoib_sid *out, const uint8_t *in, size_t len);

/** Encodes 8 octets, reserved octets zero. */
DW_EXTERN ssize_t dw_ipoib_sid_encode(uint8_t *out, size_t cap, const dw_ipoib_sid *s);

/**
 * Writes the text form of any 64-bit service ID ("1:0:0:6:0:0:0:28").
 * Returns the length (without the NUL) or DW_ERR_NOSPACE.
 */
DW_EXTERN int dw_ipoib_sid_format(char *buf, size_t cap, uint64_t sid);

/**
 * Parses the text form: exactly eight groups of one or two hex digits
 * separated by single colons, nothing else. Returns 0 or DW_ERR_MALFORMED.
 * Any 64-bit value parses; dw_ipoib_sid_split() judges the block.
 */
DW_EXTERN int dw_ipoib_sid_parse(uint64_t *out, const char *text);

/**
 * Whether a service bound as bound serves a request for wanted: the same
 * protocol, and the same subfield or a bound subfield of zero (rule 1,
 * the wildcard). Reserved octets are ignored. 0 when either is not IETF.
 */
DW_EXTERN int dw_ipoib_sid_match(uint64_t bound, uint64_t wanted);

/** Which connected-mode service ID an RFC 4755 interface sends. */
typedef enum dw_ipoib_sid_style {
    /** RFC 4755: 0x0100000000000000 | UD QPN. */
    DW_IPOIB_SID_RFC4755 = 0,
    /** Linux's historical value: 0x1000000000000000 | UD QPN. */
    DW_IPOIB_SID_LINUX = 1
} dw_ipoib_sid_style;

#define DW_IPOIB_SID_RFC4755_BASE 0x0100000000000000ull
#define DW_IPOIB_SID_LINUX_BASE 0x1000000000000000ull

/** The RFC 4755 connected-mode service ID of a UD QPN (24 bits). */
DW_EXTERN uint64_t dw_ipoib_sid_cm(dw_ipoib_sid_style style, uint32_t ud_qpn);

/**
 * Reads a connected-mode service ID: its style and UD QPN. Returns 0, or
 * DW_ERR_MALFORMED when it is neither form (bits 24..55 must be zero).
 */
DW_EXTERN int dw_ipoib_sid_cm_parse(uint64_t sid, dw_ipoib_sid_style *style, uint32_t *ud_qpn);

/* ------------------------------------------------------------------ */
/* Private data                                                        */
/* ------------------------------------------------------------------ */

/*
 * Draft 3.1 (SIDR) and 3.2 (CM REQ/REP): QPN received in ARP/ND (24 bits),
 * one pad octet, QPN sent in ARP/ND (24 bits), one pad octet; the CM form
 * adds the IP MTU (32 bits). Pads must be zero. "Received" and "sent" are
 * from the writer's point of view. The InfiniBand CM pads private data to a
 * fixed size per message; decoders read their octets and leave the rest.
 */
#define DW_IPOIB_SIDR_PD_LEN 8u
#define DW_IPOIB_CM_PD_LEN 12u
#define DW_IPOIB_RFC4755_PD_LEN 8u

typedef struct dw_ipoib_pd {
    /** The peer's QPN as learnt in ARP/ND. */
    uint32_t qpn_rcvd;
    /** Our own QPN as sent in ARP/ND. */
    uint32_t qpn_sent;
    /** IP MTU (CM form only; 0 in the SIDR form). */
    uint32_t mtu;
} dw_ipoib_pd;

/**
 * SIDR private data (8 octets). DW_ERR_MALFORMED for a non-zero pad or a
 * QPN that cannot be an IPoIB UD QPN.
 */
DW_EXTERN ssize_t dw_ipoib_sidr_pd_decode(dw_ipoib_pd *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_sidr_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_pd *pd);

/**
 * CM REQ/REP private data (12 octets): as SIDR plus the MTU, which must be
 * DW_IPOIB_MTU_MIN..DW_IPOIB_MTU_LIMIT.
 */
DW_EXTERN ssize_t dw_ipoib_cm_pd_decode(dw_ipoib_pd *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_cm_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_pd *pd);

/**
 * RFC 4755 private data (8 octets): a 32-bit word whose low 24 bits are the
 * sender's UD QPN (the high octet is reserved: sent as zero, ignored), then
 * the receive MTU. As Linux does, the MTU counts the 4-octet IPoIB header:
 * 65524 for an IP MTU of 65520.
 */
typedef struct dw_ipoib_rfc_pd {
    uint32_t qpn;
    /** Receive MTU as on the wire (IP MTU + 4). */
    uint32_t mtu;
} dw_ipoib_rfc_pd;

/** DW_ERR_MALFORMED for an invalid QPN or an MTU outside 72..2^31. */
DW_EXTERN ssize_t dw_ipoib_rfc_pd_decode(dw_ipoib_rfc_pd *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_rfc_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_rfc_pd *pd);

/** REJ reasons used here (InfiniBand CM REJ Reason field). */
#define DW_IPOIB_REJ_NO_RESOURCES 3u /* draft 3.2: MTU not acceptable */
#define DW_IPOIB_REJ_INVALID_SID 8u
#define DW_IPOIB_REJ_CONSUMER 28u

/**
 * A draft REJ (3.2): the CM Reason field and, for reason 3, private data in
 * the CM layout whose MTU is the MTU that would be acceptable (0: none
 * offered, the whole block zero).
 */
typedef struct dw_ipoib_rej {
    uint16_t reason;
    dw_ipoib_pd pd;
} dw_ipoib_rej;

/**
 * Reads a REJ's private data given its Reason. Reason 3: decodes 12
 * octets (an all-zero block means no MTU offered) and returns 12; other
 * reasons carry nothing of ours: returns 0 with pd zeroed.
 */
DW_EXTERN ssize_t dw_ipoib_rej_decode(dw_ipoib_rej *out, uint16_t reason, const uint8_t *pd,
                            size_t len);

/**
 * Writes a REJ's private data: 12 octets for reason 3, nothing (0) for
 * others. DW_ERR_INVAL when an MTU is given with a reason other than 3.
 */
DW_EXTERN ssize_t dw_ipoib_rej_encode(uint8_t *out, size_t cap, const dw_ipoib_rej *r);

/* ------------------------------------------------------------------ */
/* Encapsulation header, ARP, capture pseudo-header                    */
/* ------------------------------------------------------------------ */

/** The 4-octet IPoIB header: EtherType, then 16 reserved bits (zero). */
typedef struct dw_ipoib_hdr {
    uint16_t type;
    uint16_t reserved;
} dw_ipoib_hdr;

DW_EXTERN ssize_t dw_ipoib_hdr_decode(dw_ipoib_hdr *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_hdr_encode(uint8_t *out, size_t cap, const dw_ipoib_hdr *h);

/** IPv4 ARP over InfiniBand (RFC 4391 5): hardware type 32, 20-octet addresses. */
#define DW_IPOIB_ARP_LEN 56u
#define DW_IPOIB_ARP_HTYPE 32u
#define DW_IPOIB_ARP_REQUEST 1u
#define DW_IPOIB_ARP_REPLY 2u

typedef struct dw_ipoib_arp {
    uint16_t op;
    /** Sender hardware address, with the sender's capability flags. */
    dw_ipoib_addr sha;
    uint32_t spa; /* host order */
    dw_ipoib_addr tha;
    uint32_t tpa;
} dw_ipoib_arp;

/**
 * Decodes an ARP packet (after the IPoIB header). DW_ERR_MALFORMED unless
 * hardware type 32, protocol 0x0800, lengths 20 and 4, operation 1 or 2.
 */
DW_EXTERN ssize_t dw_ipoib_arp_decode(dw_ipoib_arp *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_arp_encode(uint8_t *out, size_t cap, const dw_ipoib_arp *a);

/*
 * pcap link type 242 (LINKTYPE_IPOIB) as Wireshark reads it: a 40-octet
 * pseudo-header, then the IPoIB header and packet. Unicast: 20 zero octets
 * and the 20-octet destination address. Multicast: a GRH with IP version 6
 * in its first nibble, the source QPN in octets 5..7, source GID 8..23 and
 * destination GID 24..39.
 */
#define DW_IPOIB_PCAP_LINKTYPE 242u
#define DW_IPOIB_LT242_LEN 40u

typedef struct dw_ipoib_lt242 {
    /** Non-zero: GRH form (multicast); zero: destination-address form. */
    int grh;
    /** Unicast destination. */
    dw_ipoib_addr dst;
    /** GRH form: source QPN, source and destination GIDs. */
    uint32_t sqpn;
    uint8_t sgid[DW_IPOIB_GID_LEN];
    uint8_t dgid[DW_IPOIB_GID_LEN];
} dw_ipoib_lt242;

DW_EXTERN ssize_t dw_ipoib_lt242_decode(dw_ipoib_lt242 *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_lt242_encode(uint8_t *out, size_t cap, const dw_ipoib_lt242 *h);

/* ------------------------------------------------------------------ */
/* Negotiation rules (lib/ipoib/ipoib_nego.c)                                */
/* ------------------------------------------------------------------ */

/** Kinds of IPoIB link, in order of preference (higher is better). */
typedef enum dw_ipoib_mode {
    DW_IPOIB_MODE_UD = 0,
    DW_IPOIB_MODE_QPN = 1,
    DW_IPOIB_MODE_UC = 2,
    DW_IPOIB_MODE_RD = 3,
    DW_IPOIB_MODE_RC = 4
} dw_ipoib_mode;
#define DW_IPOIB_MODE_COUNT 5

/** "UD", "QPN", "UC", "RD", "RC". */
DW_EXTERN const char *dw_ipoib_mode_name(dw_ipoib_mode m);

/** The capability bit of a mode (0 for UD). */
DW_EXTERN unsigned dw_ipoib_mode_cap(dw_ipoib_mode m);

/** Non-zero for RC, UC and RD (set up with CM REQ/REP). */
DW_EXTERN int dw_ipoib_mode_connected(dw_ipoib_mode m);

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

#endif /* DDPWIRE_IPOIB_H */
