/* SPDX-License-Identifier: MIT */
/*
 * Captured frames <-> IPv4/IPv6 + TCP segments: a pure codec shared by the
 * capture tools (ddpwire tcprdma, ddpwire dump). No I/O, no allocation.
 *
 * dw_pkt_parse() takes one frame as a capture holds it, by its pcap link
 * type, and finds the TCP segment in it, checking every length against
 * both the octets captured and the lengths the headers claim: it never
 * reads outside the frame. dw_pkt_build() writes a frame of any of the
 * same link types around an IPv4 or IPv6 TCP segment with correct
 * checksums.
 *
 * Link layers (the LINKTYPE_ numbers of pcap files):
 *   0    BSD loopback/null: 4-octet address family in the capturing host's
 *        order (either order is accepted; 2 IPv4; 10, 24, 28, 30 IPv6)
 *   1    Ethernet II, at most one 802.1Q/802.1ad tag (0x8100, 0x88a8)
 *   12   DLT_RAW as libpcap's pcap_datalink() reports LINKTYPE_RAW on Linux
 *   101  raw IP (version from the first octet); 228 IPv4 only; 229 IPv6 only
 *   108  OpenBSD loopback: the family in network order
 *   113  Linux cooked v1 (16 octets: packet type, ARPHRD, address length,
 *        8 address octets, protocol)
 *   242  IP over InfiniBand as Wireshark reads it: a 40-octet pseudo-header
 *        (an IB GRH, or 20 zero octets then the 20-octet destination
 *        address: 1 reserved octet, 24-bit QPN, 128-bit GID) followed by
 *        the 4-octet RFC 4391 header (EtherType, 2 reserved octets)
 *   276  Linux cooked v2 (20 octets: protocol, reserved, interface index,
 *        ARPHRD, packet type, address length, 8 address octets)
 */
#ifndef DDPWIRE_PKT_H
#define DDPWIRE_PKT_H

#include <ddpwire/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** pcap link types understood (LINKTYPE_ values; 12 is DLT_RAW). */
#define DW_PKT_LINK_NULL 0u
#define DW_PKT_LINK_ETHERNET 1u
#define DW_PKT_LINK_DLT_RAW 12u
#define DW_PKT_LINK_RAW 101u
#define DW_PKT_LINK_LOOP 108u
#define DW_PKT_LINK_SLL 113u
#define DW_PKT_LINK_IPV4 228u
#define DW_PKT_LINK_IPV6 229u
#define DW_PKT_LINK_IPOIB 242u
#define DW_PKT_LINK_SLL2 276u

/** TCP header flags. */
#define DW_PKT_FIN 0x01u
#define DW_PKT_SYN 0x02u
#define DW_PKT_RST 0x04u
#define DW_PKT_PSH 0x08u
#define DW_PKT_ACK 0x10u
#define DW_PKT_URG 0x20u
#define DW_PKT_ECE 0x40u
#define DW_PKT_CWR 0x80u

/**
 * Why a frame is not a usable TCP segment. X(name, value, description)
 */
#define DW_PKT_REASONS(X)                                                     \
    X(OK, 0, "TCP segment")                                                   \
    X(LINKTYPE, 1, "link type not supported")                                 \
    X(TRUNC_LINK, 2, "capture ends inside the link-layer header")             \
    X(NOT_IP, 3, "not IPv4 or IPv6 (another EtherType or address family)")    \
    X(TRUNC_IP, 4, "capture ends inside the IP header")                       \
    X(IP_VERSION, 5, "IP version field wrong for the link layer's type")      \
    X(IP_HEADER_LEN, 6, "IPv4 header length (IHL) below 5 or past the packet") \
    X(IP_TOTAL_LEN, 7, "IP length shorter than its headers or longer than the frame") \
    X(FRAGMENT, 8, "IP fragment (not reassembled)")                           \
    X(IPV6_EXT, 9, "IPv6 extension headers run past the packet, or too many") \
    X(NOT_TCP, 10, "not TCP")                                                 \
    X(TRUNC_TCP, 11, "capture ends inside the TCP header")                    \
    X(TCP_DATA_OFFSET, 12, "TCP data offset below 5 or past the segment")

typedef enum dw_pkt_reason {
#define DW_PKT_REASON_ENUM_(name, value, text) DW_PKT_R_##name = (value),
    DW_PKT_REASONS(DW_PKT_REASON_ENUM_)
#undef DW_PKT_REASON_ENUM_
} dw_pkt_reason;

/** Description of a reason ("capture ends inside the IP header"). */
DW_EXTERN const char *dw_pkt_reason_str(dw_pkt_reason r);

/** A checksum's verdict. */
typedef enum dw_pkt_csum {
    DW_PKT_CSUM_UNCHECKED = 0, /* not asked for, or IPv6 (no header checksum) */
    DW_PKT_CSUM_GOOD,
    DW_PKT_CSUM_BAD,
    DW_PKT_CSUM_UNKNOWN /* the capture does not hold every octet it covers */
} dw_pkt_csum;

/** A TCP segment found in a frame; pointers point into the frame. */
typedef struct dw_pkt_tcp {
    unsigned linktype;
    /** Octets before the IP header. */
    size_t link_len;
    /** 802.1Q VLAN ID, or -1 when untagged (Ethernet only). */
    int vlan;
    /** 4 or 6. */
    uint8_t ip_version;
    /** IPv4 TTL or IPv6 hop limit. */
    uint8_t ttl;
    /** Addresses; IPv4 in the first 4 octets, the rest zero. */
    uint8_t src[16], dst[16];
    /** The IP header (with IPv6 extension headers) and its length. */
    const uint8_t *ip;
    size_t ip_hdr_len;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags; /* DW_PKT_FIN ... */
    uint16_t window, urgent, checksum;
    /** The TCP header (20 + options) and its length. */
    const uint8_t *tcp;
    size_t tcp_hdr_len;
    /** The options area: TCP header octets 20 .. tcp_hdr_len. */
    const uint8_t *options;
    size_t options_len;
    /** The payload: payload_len octets per the IP length, of which the
     * capture holds payload_caplen (fewer in a truncated capture). */
    const uint8_t *payload;
    size_t payload_len, payload_caplen;
    dw_pkt_csum ip_csum, tcp_csum;
} dw_pkt_tcp;

/** dw_pkt_parse() flags. */
#define DW_PKT_VERIFY 1u /* judge the IPv4 header and TCP checksums */

/**
 * Finds the TCP segment in a captured frame: caplen octets captured of a
 * frame of wirelen octets on the wire (0: the same; a snap length makes
 * caplen smaller). Lengths come from the IP header, not the frame, so
 * link-layer padding is ignored. Returns 0 with *out filled (a truncated
 * payload has payload_caplen < payload_len); DW_ERR_NEED_MORE when the
 * capture ends inside a header (TRUNC_*); DW_ERR_MALFORMED for lengths
 * that cannot be (IP_HEADER_LEN, IP_TOTAL_LEN, TCP_DATA_OFFSET,
 * IP_VERSION, IPV6_EXT); DW_ERR_UNSUPPORTED for a frame that is fine but
 * not a TCP segment we read (LINKTYPE, NOT_IP, FRAGMENT, NOT_TCP: UDP,
 * ESP, ...); IPv6 hop-by-hop, routing, destination options, fragment
 * (unfragmented only) and AH headers are walked, at most 8;
 * DW_ERR_INVAL for NULL. why (may be NULL) says which.
 */
DW_EXTERN int dw_pkt_parse(dw_pkt_tcp *out, dw_pkt_reason *why, unsigned linktype,
                 const uint8_t *frame, size_t caplen, size_t wirelen,
                 unsigned flags);

/** What dw_pkt_build() writes. */
typedef struct dw_pkt_build {
    /** Any link type above but 12 (use 101). */
    unsigned linktype;
    /** Ethernet: 802.1Q tag with this VLAN ID (0..4095), or -1 for none. */
    int vlan;
    /** Ethernet, SLL/SLL2 (source only), IPoIB (destination QPN/GID). */
    uint8_t mac_src[6], mac_dst[6];
    /** SLL/SLL2 packet type: 0 to us, 4 sent by us. */
    uint8_t pkttype;
    uint8_t ip_version; /* 4 or 6 */
    uint8_t src[16], dst[16];
    uint8_t ttl;
    uint16_t ip_id; /* IPv4 identification (DF is always set) */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t window;
    /** Options area: a multiple of 4 octets, at most 40. */
    const uint8_t *options;
    size_t options_len;
    const uint8_t *payload;
    size_t payload_len;
} dw_pkt_build;

/**
 * Writes the frame into out (cap octets). Returns its length;
 * DW_ERR_NOSPACE when cap is short; DW_ERR_INVAL for an unknown link
 * type, a link type that cannot carry the IP version, options not a
 * multiple of 4 or over 40, a packet over 65535 octets (IPv4) or a payload
 * over 65535 - header (IPv6), a VLAN ID over 4095, NULL pointers.
 */
DW_EXTERN ssize_t dw_pkt_build_frame(uint8_t *out, size_t cap, const dw_pkt_build *b);

/**
 * RFC 1071 Internet checksum over n octets, continuing from sum (0 to
 * start; an odd n only for the last piece). Fold with dw_pkt_csum_fold().
 */
DW_EXTERN uint32_t dw_pkt_csum_add(uint32_t sum, const uint8_t *p, size_t n);

/** The one's complement of the folded sum: the checksum field's value. */
DW_EXTERN uint16_t dw_pkt_csum_fold(uint32_t sum);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_PKT_H */
