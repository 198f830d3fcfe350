/* SPDX-License-Identifier: MIT */
/*
 * The TCP RDMA option (draft-csapuntz-tcprdma-00): kind 25, lengths 2, 4,
 * 16 or 20, annotating ordinary TCP segments so a receiver can place
 * application data straight into its final buffer.
 *
 * This header: a codec for one option, a walker over a TCP options area
 * that finds the first RDMA option (3.3), the receive checks of
 * 3.1.2-3.1.8 and the per-transfer total of 3.1.4. Beside it, one header
 * per role: <ddpwire/tcpopt_rid.h> the RID formats of section 5,
 * <ddpwire/tcpopt_seg.h> a sender segmenter (section 4),
 * <ddpwire/tcpopt_rx.h> a receiver that places data (3.1, 6.1). All are
 * sans-I/O; only the receiver allocates, once, when it is created.
 *
 * Wire format (3.1), octets of the option:
 *
 *   0      kind 25
 *   1      length: 2, 4, 16 or 20
 *   2      bit 7 A (message aligned), bit 6 U (unsolicited),
 *          bits 5..0 RID bits 45..40
 *   3      RID bits 39..32
 *   4..7   RID bits 31..0 (octet 7 holds bits 7..0)
 *   8..11  buffer offset
 *   12..13 data offset
 *   14..15 data length
 *   16..19 total RDMA length (length 20 only)
 *
 * All fields are big-endian. Length 2 carries nothing else (3.2:
 * negotiation), length 4 only octets 2..3 (the A and U bits), length 16
 * everything but the total length.
 *
 * Kind 25 is unassigned and other software sends it with other lengths
 * (26, 27, ...). Such options are "not ours": reported as such, skipped,
 * never an error.
 */
#ifndef DDPWIRE_TCPOPT_H
#define DDPWIRE_TCPOPT_H

#include <ddpwire/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The option kind (3.1). */
#define DW_TCPOPT_KIND 25u
/** The four lengths that are this option (3.1). */
#define DW_TCPOPT_LEN_NEGOTIATE 2u /* 3.2: kind and length only */
#define DW_TCPOPT_LEN_ALIGNED 4u   /* 3.1.6: A and U bits only */
#define DW_TCPOPT_LEN_DATA 16u     /* total RDMA length left off (3.1.4) */
#define DW_TCPOPT_LEN_TOTAL 20u    /* everything */
/** The RID is 46 bits wide (3.1.1). */
#define DW_TCPOPT_RID_MAX ((UINT64_C(1) << 46) - 1)

/** One decoded RDMA option. Fields a length does not carry are zero. */
typedef struct dw_tcpopt {
    /** 2, 4, 16 or 20; 0 in a sender's segment list means "no option". */
    uint8_t len;
    /** Message aligned bit: payload octet 0 starts a message (3.1.6). */
    uint8_t a;
    /** Unsolicited bit: the receiver does not expect this RID (3.1.7). */
    uint8_t u;
    /**
     * RDMA ID, 46 bits (3.1.1). Length 4 carries only bits 45..32 (the
     * rest of octets 2..3; senders leave them zero): they are kept here
     * as bits 45..32 so that re-encoding gives the same octets.
     */
    uint64_t rid;
    /** Offset in the receiver's buffer of the first data octet (3.1.5). */
    uint32_t buffer_offset;
    /** Octets from the start of the TCP payload to the data (3.1.2). */
    uint16_t data_offset;
    /** Octets of transfer data in this segment; 0 is valid (3.1.3). */
    uint16_t data_length;
    /** Octets of the whole transfer (3.1.4); length 20 only. 0 is valid. */
    uint32_t total_length;
} dw_tcpopt;

/** Non-zero when the option describes data (lengths 16 and 20). */
#define DW_TCPOPT_HAS_DATA(o) ((o)->len >= DW_TCPOPT_LEN_DATA)
/** Non-zero when the option carries the total RDMA length (length 20). */
#define DW_TCPOPT_HAS_TOTAL(o) ((o)->len == DW_TCPOPT_LEN_TOTAL)

/**
 * Why an RDMA option (or a RID) is refused. 0 is valid; every rule has
 * its own code. X(name, value, description)
 */
#define DW_TCPOPT_REASONS(X)                                                  \
    X(OK, 0, "valid")                                                         \
    X(OPTIONS_MALFORMED, 1, "TCP options area malformed")                     \
    X(MISALIGNED, 2, "option not on a 4-octet boundary of the TCP header (3.1.8)") \
    X(DATA_OFFSET, 3, "data offset past the end of the TCP payload (3.1.2)")  \
    X(DATA_LENGTH, 4, "data described past the end of the segment (3.1.3)")   \
    X(TOTAL_CHANGED, 5, "total RDMA length changed within the transfer (3.1.4)") \
    X(WRONG_RID, 6, "option of another transfer (RID differs)")               \
    X(RID_RANGE, 7, "RID wider than 46 bits (3.1.1)")                         \
    X(RID_ZERO_BITS, 8, "RID bits that must be zero are set (5.1.1.3, 5.2.1, 5.3.1.3)") \
    X(NFS_OPERATION, 9, "operation index not zero for NFS version 2 or 3 (5.1.1.2)") \
    X(UNKNOWN_RID, 10, "solicited transfer with no buffer registered for its RID (3.1.7)") \
    X(TOO_LARGE, 11, "total RDMA length larger than the transfer's buffer (6.1)") \
    X(BUFFER_BOUNDS, 12, "data described past the end of the transfer's buffer (6.1)") \
    X(TOTAL_EXCEEDED, 13, "more octets placed than the total RDMA length (3.1.4)") \
    X(UNSOL_COUNT, 14, "quota of outstanding unsolicited transfers reached (6.1)") \
    X(UNSOL_SIZE, 15, "unsolicited transfer larger than its size quota (6.1)")

typedef enum dw_tcpopt_reason {
#define DW_TCPOPT_REASON_ENUM_(name, value, text) DW_TCPOPT_R_##name = (value),
    DW_TCPOPT_REASONS(DW_TCPOPT_REASON_ENUM_)
#undef DW_TCPOPT_REASON_ENUM_
} dw_tcpopt_reason;

/** Description of a reason ("data offset past the end of ..."). */
DW_EXTERN const char *dw_tcpopt_reason_str(dw_tcpopt_reason r);

/** Symbolic name of a reason ("DW_TCPOPT_R_DATA_OFFSET"). */
DW_EXTERN const char *dw_tcpopt_reason_name(dw_tcpopt_reason r);

/* ------------------------------------------------------------------ */
/* Codec                                                               */
/* ------------------------------------------------------------------ */

/**
 * Decodes the option that starts at in[0] (its kind octet). Returns its
 * length (2, 4, 16 or 20) when it is an RDMA option; 0 when it is not
 * ours: another kind, or kind 25 with any other length (0, 1, 3, 26,
 * ...), out untouched; DW_ERR_NEED_MORE when in is shorter than the
 * option (or than the kind and length octets); DW_ERR_INVAL for NULL.
 * Every bit pattern of an RDMA option decodes: there is no malformed one.
 */
DW_EXTERN ssize_t dw_tcpopt_decode(dw_tcpopt *out, const uint8_t *in, size_t len);

/**
 * Encodes opt (opt->len octets: 2, 4, 16 or 20) into out. Returns the
 * length, DW_ERR_NOSPACE when cap is short, or DW_ERR_INVAL for another
 * length, a RID over 46 bits, A or U above 1, or a non-zero field the
 * length does not carry (so that decoding gives opt back exactly).
 */
DW_EXTERN ssize_t dw_tcpopt_encode(uint8_t *out, size_t cap, const dw_tcpopt *opt);

/* ------------------------------------------------------------------ */
/* Receive: finding and checking the option                            */
/* ------------------------------------------------------------------ */

/** What a TCP options area holds, as far as this option goes. */
typedef struct dw_tcpopt_found {
    /** The first RDMA option (3.3: only that one is honoured). */
    dw_tcpopt opt;
    /** Its offset in the options area (TCP header octet 20 + offset). */
    size_t offset;
    /** RDMA options (lengths 2/4/16/20) seen; above 1: the rest ignored. */
    unsigned count;
    /** Kind-25 options of other lengths seen (not ours, skipped). */
    unsigned foreign;
} dw_tcpopt_found;

/**
 * Walks a TCP options area (the octets after the 20-octet fixed header):
 * kind 0 ends the list, kind 1 is one octet, every other kind has a
 * length octet of at least 2 covering kind and length. Returns 1 when an
 * RDMA option was found (the first one is in out->opt), 0 when there is
 * none (kind-25 options of other lengths are counted in out->foreign and
 * skipped), DW_ERR_MALFORMED when the list cannot be walked (a length
 * below 2, or one running past the area; kind 25 included: a length of 0
 * or 1 cannot be skipped), DW_ERR_INVAL for NULL. On DW_ERR_MALFORMED *out
 * is zeroed and no option is honoured: the payload is ordinary stream data.
 */
DW_EXTERN int dw_tcpopt_find(dw_tcpopt_found *out, const uint8_t *opts, size_t len);

/**
 * The checks one segment allows (3.1.2, 3.1.3, 3.1.8), on an option found
 * at offset opt_offset of the options area (TCP header octet 20 +
 * opt_offset) of a segment with payload_len octets of payload:
 * - DW_TCPOPT_R_MISALIGNED: not on a 4-octet boundary of the TCP header;
 * - DW_TCPOPT_R_DATA_OFFSET: data offset > payload_len;
 * - DW_TCPOPT_R_DATA_LENGTH: data offset + data length > payload_len.
 * Lengths 2 and 4 describe no data: only alignment applies. The buffer
 * offset is not judged here: the text ties it neither to 0 nor to the
 * total length, so the receiver bounds it by the buffer it maps the RID to
 * (6.1) and counts the octets it places against the total.
 */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_check(const dw_tcpopt *opt, size_t opt_offset,
                                 size_t payload_len);

/**
 * dw_tcpopt_find() then dw_tcpopt_check() on the first RDMA option. Returns
 * 1 with out->opt honoured (data at payload octets data_offset .. +
 * data_length, the rest of the payload ordinary stream), 0 when the segment
 * has no RDMA option, DW_ERR_MALFORMED with *reason saying why (the list is
 * malformed, or the first RDMA option breaks a rule), DW_ERR_INVAL for
 * NULL. reason may be NULL; it is DW_TCPOPT_R_OK unless DW_ERR_MALFORMED.
 */
DW_EXTERN int dw_tcpopt_parse(dw_tcpopt_found *out, dw_tcpopt_reason *reason,
                    const uint8_t *opts, size_t len, size_t payload_len);

/**
 * The per-transfer rule of 3.1.4: the total RDMA length, when present,
 * is the same on every segment of a transfer. A receiver keeps one per
 * transfer it tracks.
 */
typedef struct dw_tcpopt_total {
    uint64_t rid;
    /** The total length, once a segment has carried it. */
    uint32_t total;
    uint8_t known;
} dw_tcpopt_total;

/** Starts tracking the transfer with this RID (nothing known yet). */
DW_EXTERN void dw_tcpopt_total_init(dw_tcpopt_total *t, uint64_t rid);

/**
 * Checks one option of the transfer (after dw_tcpopt_check()) and learns
 * its total length. Returns DW_TCPOPT_R_WRONG_RID for another RID, or
 * DW_TCPOPT_R_TOTAL_CHANGED when a total differs from the first one seen
 * (16-octet options carry none and pass; a refused option teaches
 * nothing). Lengths 2 and 4 are ignored.
 */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_total_check(dw_tcpopt_total *t, const dw_tcpopt *opt);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_TCPOPT_H */
