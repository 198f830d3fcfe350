/* SPDX-License-Identifier: MIT */
/*
 * IPoIB service IDs (draft-kashyap-ipoib-advanced-capabilities 4.0): the
 * IETF block's 64-bit IDs, their text form and the wildcard rule, and the
 * RFC 4755 connected-mode form. Basics: <ddpwire/ipoib.h>.
 */
#ifndef DDPWIRE_IPOIB_SID_H
#define DDPWIRE_IPOIB_SID_H

#include <ddpwire/ipoib.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IPOIB_SID_H */
