/* SPDX-License-Identifier: MIT */
/*
 * IPoIB advanced capabilities (draft-kashyap-ipoib-advanced-capabilities,
 * December 2001) and the later IPoIB connected mode (RFC 4755, as Linux
 * implements it), sans-I/O. This header: constants, profiles and
 * capability flags, link modes, the 20-octet link-layer address, the
 * encapsulation header, ARP and the capture pseudo-header. Beside it:
 * <ddpwire/ipoib_sid.h> service IDs (draft 4.0), <ddpwire/ipoib_cm.h>
 * CM messages and their private data (3.1, 3.2), <ddpwire/ipoib_nego.h>
 * the rules (mode choice, MTU, routing: 1.0-3.3), <ddpwire/ipoib_node.h>
 * a sans-I/O interface that uses them all.
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

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IPOIB_H */
