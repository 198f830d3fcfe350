/* SPDX-License-Identifier: MIT */
/*
 * DDP (RFC 5041) and RDMAP (RFC 5040): sans-I/O codecs for the ULPDUs that
 * MPA carries. Nothing here allocates, keeps state or judges a message while
 * decoding: every bit pattern that is long enough decodes and re-encodes to
 * the same octets; dw_rdmap_validate() judges it afterwards, rule by rule,
 * so that the queue-pair layer can pick the Terminate to send.
 *
 * Wire format (RFC 5041 and RFC 5040 header formats). Every ULPDU starts with a 16-bit
 * control field: T (tagged) 0x8000, L (last segment) 0x4000, reserved
 * 0x3C00, DDP version 0x0300, RDMAP version 0x00C0, reserved 0x0030, RDMAP
 * opcode 0x000F. Then, tagged: STag (32) and tagged offset TO (64), 14
 * octets in all; untagged: a 32-bit field (RDMAP's Invalidate STag for the
 * Send with Invalidate variants, reserved otherwise), queue number QN (32),
 * message sequence number MSN (32) and message offset MO (32), 18 octets.
 * All fields are big-endian. An RDMA Read Request (queue 1) adds 28 octets
 * after the untagged header, a Terminate (queue 2) its own header.
 */
#ifndef DDPWIRE_DDP_H
#define DDPWIRE_DDP_H

#include <ddpwire/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* DDP segment header (RFC 5041) with RDMAP's control bits            */
/* ------------------------------------------------------------------ */

/** Octets of a tagged DDP header (control, STag, TO). */
#define DW_DDP_TAGGED_HDR_LEN 14u
/** Octets of an untagged DDP header (control, ULP field, QN, MSN, MO). */
#define DW_DDP_UNTAGGED_HDR_LEN 18u
/** Header length for a buffer model (tagged non-zero). */
#define DW_DDP_HDR_LEN(tagged) ((tagged) ? DW_DDP_TAGGED_HDR_LEN : DW_DDP_UNTAGGED_HDR_LEN)

/* Bits of the 16-bit control field. */
#define DW_DDP_CTRL_TAGGED 0x8000u
#define DW_DDP_CTRL_LAST 0x4000u
#define DW_DDP_CTRL_RSVD 0x3C00u
#define DW_DDP_CTRL_DV 0x0300u
#define DW_RDMAP_CTRL_RV 0x00C0u
#define DW_RDMAP_CTRL_RSVD 0x0030u
#define DW_RDMAP_CTRL_OPCODE 0x000Fu

/** DDP version of RFC 5041 (the MPA draft's examples carry 0). */
#define DW_DDP_VERSION 1u
/** RDMAP version of RFC 5040. */
#define DW_RDMAP_VERSION 1u

/** RDMAP opcodes (RFC 5040, RDMA message definitions). */
typedef enum dw_rdmap_opcode {
    DW_RDMAP_WRITE = 0,
    DW_RDMAP_READ_REQ = 1,
    DW_RDMAP_READ_RESP = 2,
    DW_RDMAP_SEND = 3,
    DW_RDMAP_SEND_INV = 4,
    DW_RDMAP_SEND_SE = 5,
    DW_RDMAP_SEND_SE_INV = 6,
    DW_RDMAP_TERMINATE = 7
} dw_rdmap_opcode;

/** Untagged queues RDMAP uses (RFC 5040). */
typedef enum dw_rdmap_qn {
    DW_RDMAP_QN_SEND = 0,
    DW_RDMAP_QN_READ_REQ = 1,
    DW_RDMAP_QN_TERMINATE = 2
} dw_rdmap_qn;

/** A DDP header and the RDMAP bits of its control field. */
typedef struct dw_ddp_hdr {
    /** The raw control field: filled by decode, ignored by encode. */
    uint16_t ctrl;
    /** T and L bits (encode treats any non-zero value as set). */
    int tagged, last;
    /** DDP version (0..3), reported as received. */
    uint8_t ddp_ver;
    /** RDMAP version (0..3), reported as received. */
    uint8_t rdmap_ver;
    /** RDMAP opcode (0..15; DW_RDMAP_*). */
    uint8_t opcode;
    /** Reserved bits as received: DDP's 4 (0..15) and RDMAP's 2 (0..3). */
    uint8_t ddp_rsvd, rdmap_rsvd;
    /** Tagged: data sink STag and tagged offset. */
    uint32_t stag;
    uint64_t to;
    /** Untagged: the 32-bit ULP field (Invalidate STag or reserved), QN, MSN, MO. */
    uint32_t inv_stag, qn, msn, mo;
} dw_ddp_hdr;

/**
 * Decodes the DDP header at the start of in. Returns its length (14 or 18),
 * DW_ERR_NEED_MORE when in is shorter, or DW_ERR_INVAL. Never
 * DW_ERR_MALFORMED: versions, reserved bits and opcode are reported, not
 * judged (see dw_rdmap_validate()).
 */
DW_EXTERN ssize_t dw_ddp_decode(dw_ddp_hdr *h, const uint8_t *in, size_t len);

/**
 * Encodes h (fields for its buffer model only) into out. Returns 14 or 18,
 * DW_ERR_NOSPACE, or DW_ERR_INVAL for a field wider than its bits.
 */
DW_EXTERN ssize_t dw_ddp_encode(uint8_t *out, size_t cap, const dw_ddp_hdr *h);

/**
 * DDP segmentation (RFC 5041 5.1): the next segment of a message of len
 * octets whose header is msg (tagged: its first TO; untagged: QN, MSN). Given
 * *off, the octets of the message already sent (0 at first), fills seg with
 * the segment's header (L set on the last one; tagged TO = msg's TO + *off,
 * untagged MO = *off) and returns its payload octets: at most max_ulpdu
 * minus the header's length (14 or 18). Advances *off. Call it while
 * *off < len, at least once (a message of 0 octets is one segment); max_ulpdu
 * may change between calls (an MPA sender's exact fill). Returns DW_ERR_INVAL
 * when max_ulpdu does not exceed the header, *off is past len, or the offset
 * would wrap TO (64 bits) or MO (32 bits).
 */
DW_EXTERN ssize_t dw_ddp_segment_next(dw_ddp_hdr *seg, const dw_ddp_hdr *msg, size_t len,
                                      size_t *off, size_t max_ulpdu);

/** The segments dw_ddp_segment_next() makes of len octets with a fixed
 * max_ulpdu (1 for len 0), or 0 when max_ulpdu does not exceed the header. */
DW_EXTERN size_t dw_ddp_segment_count(size_t len, size_t max_ulpdu, int tagged);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_DDP_H */
