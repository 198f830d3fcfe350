/* SPDX-License-Identifier: MIT */
/*
 * RDMAP (RFC 5040): the Read Request, Terminate (with the error tables of
 * RFC 5040, RFC 5041, RFC 5044 and RFC 6581, and siw 6.1's layout), whole
 * ULPDUs decoded and validated rule by rule, and rping's message. Sans-I/O
 * codecs over the DDP header of <ddpwire/ddp.h>.
 */
#ifndef DDPWIRE_RDMAP_H
#define DDPWIRE_RDMAP_H

#include <ddpwire/ddp.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* RDMA Read Request (RFC 5040)                                        */
/* ------------------------------------------------------------------ */

/** Octets of the Read Request header that follows the untagged header. */
#define DW_RDMAP_READ_REQ_LEN 28u

typedef struct dw_rdmap_read_req {
    uint32_t sink_stag; /* where the Read Response goes */
    uint64_t sink_to;
    uint32_t size;      /* RDMA Read message size */
    uint32_t src_stag;  /* what is read */
    uint64_t src_to;
} dw_rdmap_read_req;

/** Decodes 28 octets. Returns 28, DW_ERR_NEED_MORE or DW_ERR_INVAL. */
DW_EXTERN ssize_t dw_rdmap_read_req_decode(dw_rdmap_read_req *r, const uint8_t *in, size_t len);

/** Encodes r. Returns 28, DW_ERR_NOSPACE or DW_ERR_INVAL. */
DW_EXTERN ssize_t dw_rdmap_read_req_encode(uint8_t *out, size_t cap, const dw_rdmap_read_req *r);

/* ------------------------------------------------------------------ */
/* Terminate (RFC 5040 4.8) and the error tables of RFC 5040, RFC 5041, */
/* RFC 5044 and RFC 6581                                               */
/* ------------------------------------------------------------------ */

/** Layer that found the error (4 bits). */
typedef enum dw_term_layer {
    DW_TERM_LAYER_RDMAP = 0,
    DW_TERM_LAYER_DDP = 1,
    DW_TERM_LAYER_LLP = 2 /* MPA */
} dw_term_layer;

/** Error types of layer RDMAP. */
typedef enum dw_term_rdmap_etype {
    DW_TERM_RDMAP_CATASTROPHIC = 0, /* local catastrophic: any code */
    DW_TERM_RDMAP_PROTECTION = 1,   /* remote protection error */
    DW_TERM_RDMAP_OPERATION = 2     /* remote operation error */
} dw_term_rdmap_etype;

/** Error codes of layer RDMAP (protection: 0x00-0x04, 0x09, 0xFF; operation: 0x05-0x09, 0xFF). */
typedef enum dw_term_rdmap_code {
    DW_TERM_RDMAP_INVALID_STAG = 0x00,
    DW_TERM_RDMAP_BASE_BOUNDS = 0x01,
    DW_TERM_RDMAP_ACCESS = 0x02,
    DW_TERM_RDMAP_STAG_NOT_ASSOC = 0x03,
    DW_TERM_RDMAP_TO_WRAP = 0x04,
    DW_TERM_RDMAP_VERSION = 0x05,
    DW_TERM_RDMAP_OPCODE = 0x06,
    DW_TERM_RDMAP_CATASTROPHIC_STREAM = 0x07,
    DW_TERM_RDMAP_CATASTROPHIC_GLOBAL = 0x08,
    DW_TERM_RDMAP_CANNOT_INVALIDATE = 0x09,
    DW_TERM_RDMAP_UNSPECIFIED = 0xFF
} dw_term_rdmap_code;

/** Error types of layer DDP. */
typedef enum dw_term_ddp_etype {
    DW_TERM_DDP_CATASTROPHIC = 0, /* local catastrophic: any code */
    DW_TERM_DDP_TAGGED = 1,       /* tagged buffer error */
    DW_TERM_DDP_UNTAGGED = 2      /* untagged buffer error */
} dw_term_ddp_etype;

/** Error codes of DDP's tagged buffer errors. */
typedef enum dw_term_ddp_tagged_code {
    DW_TERM_DDP_T_INVALID_STAG = 0x00,
    DW_TERM_DDP_T_BASE_BOUNDS = 0x01,
    DW_TERM_DDP_T_STAG_NOT_ASSOC = 0x02,
    DW_TERM_DDP_T_TO_WRAP = 0x03,
    DW_TERM_DDP_T_VERSION = 0x04
} dw_term_ddp_tagged_code;

/** Error codes of DDP's untagged buffer errors. */
typedef enum dw_term_ddp_untagged_code {
    DW_TERM_DDP_U_INVALID_QN = 0x01,
    DW_TERM_DDP_U_MSN_NO_BUFFER = 0x02,
    DW_TERM_DDP_U_MSN_RANGE = 0x03,
    DW_TERM_DDP_U_INVALID_MO = 0x04,
    DW_TERM_DDP_U_TOO_LONG = 0x05,
    DW_TERM_DDP_U_VERSION = 0x06
} dw_term_ddp_untagged_code;

/** The one error type of layer LLP when it is MPA. */
#define DW_TERM_LLP_MPA 0u

/** MPA's codes (1-3 equal dw_mpa_error; 4 RFC 5044; 5-7 RFC 6581). */
typedef enum dw_term_mpa_code {
    DW_TERM_MPA_CLOSED = 0x01,
    DW_TERM_MPA_CRC = 0x02,
    DW_TERM_MPA_MARKER = 0x03,
    DW_TERM_MPA_BAD_REQ_REP = 0x04,
    DW_TERM_MPA_CATASTROPHIC = 0x05,
    DW_TERM_MPA_INSUFFICIENT_IRD = 0x06,
    DW_TERM_MPA_NO_MATCHING_RTR = 0x07
} dw_term_mpa_code;

/** Non-zero when (layer, etype, code) is in the tables above. */
DW_EXTERN int dw_rdmap_term_known(unsigned layer, unsigned etype, unsigned code);

/** Short name of an RDMAP opcode (RFC 5040 4.2: "Write", "ReadReq",
 * "ReadResp", "Send", "SendInv", "SendSE", "SendSEInv", "Terminate"), or
 * NULL for the reserved opcodes 8-15. */
DW_EXTERN const char *dw_rdmap_opcode_str(unsigned opcode);

/** Name of a layer ("DDP"), or "unknown layer". */
DW_EXTERN const char *dw_rdmap_term_layer_str(unsigned layer);

/** Name of an error type ("untagged buffer error"), or "unknown error type". */
DW_EXTERN const char *dw_rdmap_term_etype_str(unsigned layer, unsigned etype);

/** Name of an error code ("invalid MSN - no buffer available"), or "unknown error code". */
DW_EXTERN const char *dw_rdmap_term_str(unsigned layer, unsigned etype, unsigned code);

/** Octets of the Terminate control word. */
#define DW_RDMAP_TERM_CTRL_LEN 4u
/** Octets of the DDP Segment Length field that precedes a copied DDP header. */
#define DW_RDMAP_TERM_SEGLEN_LEN 2u
/** Largest Terminate header: control, segment length, untagged header, Read Request. */
#define DW_RDMAP_TERM_MAX_LEN (4u + 2u + 18u + 28u)

/*
 * Terminate control word, RFC 5040 layout: layer (4 bits) | error type (4)
 * | error code (8) | M 0x8000 (segment length valid) | D 0x4000 (DDP header
 * copied) | R 0x2000 (RDMAP header copied) | 13 reserved bits.
 *
 * Linux siw (6.1) fills it through little-endian C bit-fields: the first
 * octet has the layer in its low nibble and the error type in its high
 * nibble, and M, D, R land on 0x0100, 0x0200, 0x0400; the reserved bits are
 * then 0xF8FF. That is the "siw" layout below.
 *
 * What follows the word: when D, the 16-bit DDP Segment Length and the
 * copied DDP header (14 or 18 octets, by the copy's own T bit); when R, the
 * copied RDMAP header: the 28 Read Request octets if the copied DDP header
 * is a Read Request or no DDP header is copied, else nothing (no other
 * message has an RDMAP header beyond the DDP header; siw sets R with a
 * copied Send header and sends no more).
 */
typedef enum dw_rdmap_term_layout {
    /** The RFC layout, unless only the siw reading is valid (known code, zero reserved bits). */
    DW_RDMAP_TERM_AUTO = 0,
    DW_RDMAP_TERM_RFC = 1,
    DW_RDMAP_TERM_SIW = 2
} dw_rdmap_term_layout;

typedef struct dw_rdmap_term {
    /** Layer (DW_TERM_LAYER_*), error type and error code. */
    uint8_t layer, etype, code;
    /** Hdrct bits: M (segment length valid), D (DDP header), R (RDMAP header). */
    int m, d, r;
    /** The 13 reserved bits (0..0x1FFF), in the order of the layout read. */
    uint16_t reserved;
    /** Decode: the siw layout was read. Encode: write the siw layout. */
    int swapped;
    /** Decode: (layer, etype, code) is in the tables. */
    int known;
    /** Decode (auto): both layouts give valid, different readings; the RFC one was kept. */
    int ambiguous;
    /** DDP Segment Length (present when d; meaningful when m). */
    uint16_t ddp_seg_len;
    /** Copied DDP header (d): points into the input; 14 or 18 octets, else 0. */
    const uint8_t *ddp_hdr;
    size_t ddp_hdr_len;
    /** Copied RDMAP header (r): 28 octets or 0, as described above. */
    const uint8_t *rdma_hdr;
    size_t rdma_hdr_len;
} dw_rdmap_term;

/**
 * Decodes a Terminate header (what follows the untagged DDP header) in the
 * layout auto-detected as described. Returns the octets it takes,
 * DW_ERR_NEED_MORE when in is shorter than the header its flags announce,
 * or DW_ERR_INVAL. Unknown codes and reserved bits are reported.
 */
DW_EXTERN ssize_t dw_rdmap_term_decode(dw_rdmap_term *t, const uint8_t *in, size_t len);

/** As dw_rdmap_term_decode(), reading the layout given. */
DW_EXTERN ssize_t dw_rdmap_term_decode_as(dw_rdmap_term *t, const uint8_t *in, size_t len,
                                dw_rdmap_term_layout layout);

/**
 * Encodes t (in the siw layout when t->swapped). Returns the length,
 * DW_ERR_NOSPACE, or DW_ERR_INVAL when a field is too wide or the copied
 * headers disagree with d/r (ddp_hdr_len must be 14 or 18 as the copy's T
 * bit says; rdma_hdr_len 28 or 0 by the rule above).
 */
DW_EXTERN ssize_t dw_rdmap_term_encode(uint8_t *out, size_t cap, const dw_rdmap_term *t);

/* ------------------------------------------------------------------ */
/* Whole ULPDUs                                                        */
/* ------------------------------------------------------------------ */

/** One ULPDU, decoded. */
typedef struct dw_rdmap_msg {
    dw_ddp_hdr hdr;
    /** Untagged Read Request (opcode 1): its 28 octets. */
    dw_rdmap_read_req read_req;
    /** Untagged Terminate (opcode 7): its header. */
    dw_rdmap_term term;
    /** Octets after all headers (points into the input). */
    const uint8_t *payload;
    size_t payload_len;
} dw_rdmap_msg;

/**
 * Decodes a whole ULPDU (as MPA delivers it): the DDP header, then for an
 * untagged segment with opcode Read Request the 28-octet Read Request
 * header, with opcode Terminate the Terminate header (auto layout); the
 * rest is payload. Returns the length of the headers (the payload starts
 * there), DW_ERR_NEED_MORE when len cannot hold them, or DW_ERR_INVAL.
 * Nothing is judged: see dw_rdmap_validate().
 */
DW_EXTERN ssize_t dw_rdmap_decode(dw_rdmap_msg *m, const uint8_t *ulpdu, size_t len);

/**
 * Encodes a whole ULPDU: headers as dw_rdmap_decode() reads them, then
 * payload_len octets copied from payload. Returns the ULPDU length,
 * DW_ERR_NOSPACE or DW_ERR_INVAL.
 */
DW_EXTERN ssize_t dw_rdmap_encode(uint8_t *out, size_t cap, const dw_rdmap_msg *m);

/**
 * Rules a received ULPDU breaks, in the order dw_rdmap_validate() checks
 * them (the first broken one is reported).
 */
typedef enum dw_rdmap_reason {
    DW_RDMAP_OK = 0,
    /** DDP version is not 1 (RFC 5041). */
    DW_RDMAP_BAD_DDP_VERSION,
    /** Strict: DDP reserved control bits set (RFC 5041: zero on transmit). */
    DW_RDMAP_BAD_DDP_RSVD,
    /** Untagged queue number is not 0, 1 or 2 (RFC 5040). */
    DW_RDMAP_BAD_QN,
    /** RDMAP version is not 1 (RFC 5040). */
    DW_RDMAP_BAD_RDMAP_VERSION,
    /** Strict: RDMAP reserved control bits set. */
    DW_RDMAP_BAD_RDMAP_RSVD,
    /** Opcode 8-15: not an RDMAP message of RFC 5040. */
    DW_RDMAP_BAD_OPCODE,
    /** Write and Read Response must be tagged, the others untagged. */
    DW_RDMAP_BAD_BUFFER_MODEL,
    /** Sends on queue 0, Read Request on 1, Terminate on 2 (RFC 5040). */
    DW_RDMAP_BAD_QUEUE,
    /** Read Request or Terminate without the L bit: they are one segment. */
    DW_RDMAP_BAD_NOT_LAST,
    /** Read Request or Terminate with a message offset other than 0. */
    DW_RDMAP_BAD_MO,
    /** Read Request or Terminate with octets after its header. */
    DW_RDMAP_BAD_LENGTH,
    /** Strict: the untagged 32-bit field is not zero on a message without Invalidate. */
    DW_RDMAP_BAD_ULP_RSVD,
    /** Strict: Terminate reserved bits set. */
    DW_RDMAP_BAD_TERM_RSVD
} dw_rdmap_reason;

/** dw_rdmap_validate() flag: also check the reserved bits and fields. */
#define DW_RDMAP_STRICT 1u

/**
 * Checks a decoded ULPDU against the rules above (reserved fields only
 * with DW_RDMAP_STRICT: the RFCs have senders zero them). Returns
 * DW_RDMAP_OK or the first rule broken. Queue state (MSN, STags, bounds)
 * is the queue pair's to check.
 */
DW_EXTERN dw_rdmap_reason dw_rdmap_validate(const dw_rdmap_msg *m, unsigned flags);

/** Name of a reason ("DW_RDMAP_BAD_QN"). */
DW_EXTERN const char *dw_rdmap_reason_str(dw_rdmap_reason r);

/**
 * Sets t->layer, etype and code to the Terminate that answers reason r
 * about the segment h (DDP version errors take the tagged or untagged code
 * by h->tagged). Other fields of t are left alone. Returns 0, or
 * DW_ERR_INVAL for DW_RDMAP_OK or an unknown reason.
 */
DW_EXTERN int dw_rdmap_reason_term(dw_rdmap_term *t, dw_rdmap_reason r, const dw_ddp_hdr *h);

/* ------------------------------------------------------------------ */
/* rping's message (rdma-core librdmacm/examples/rping.c)              */
/* ------------------------------------------------------------------ */

/** Octets of rping's Send payload. */
#define DW_RPING_INFO_LEN 16u

/** rping's Send payload: buffer address, its STag, its size; big-endian. */
typedef struct dw_rping_info {
    uint64_t buf;
    uint32_t rkey;
    uint32_t size;
} dw_rping_info;

/** Decodes 16 octets. Returns 16, DW_ERR_NEED_MORE or DW_ERR_INVAL. */
DW_EXTERN ssize_t dw_rping_info_decode(dw_rping_info *r, const uint8_t *in, size_t len);

/** Encodes r. Returns 16, DW_ERR_NOSPACE or DW_ERR_INVAL. */
DW_EXTERN ssize_t dw_rping_info_encode(uint8_t *out, size_t cap, const dw_rping_info *r);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_RDMAP_H */
