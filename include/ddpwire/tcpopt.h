/* SPDX-License-Identifier: MIT */
/*
 * The TCP RDMA option (draft-csapuntz-tcprdma-00): kind 25, lengths 2, 4,
 * 16 or 20, annotating ordinary TCP segments so a receiver can place
 * application data straight into its final buffer.
 *
 * Sans-I/O: a codec for one option, a walker over a TCP options area that
 * finds the first RDMA option (3.3), the receive checks of 3.1.2-3.1.8,
 * the RID formats of section 5, a sender segmenter (section 4) and a
 * receiver that places data (3.1, 6.1). Only the receiver allocates, once,
 * when it is created.
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
#include <ddpwire/mem.h>

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

/* ------------------------------------------------------------------ */
/* RID formats (section 5)                                             */
/* ------------------------------------------------------------------ */

/** NFS (5.1.1): bits 45..40 zero, 39..32 operation index, 31..0 RPC XID. */
typedef struct dw_tcpopt_rid_nfs {
    uint32_t xid;
    /** Index of the operation in the RPC (NFSv4 compounds), from 0. */
    uint8_t op;
} dw_tcpopt_rid_nfs;

/** HTTP (5.2.1): bits 45..32 zero, 31..0 index of the request, from 0. */
typedef struct dw_tcpopt_rid_http {
    uint32_t request;
} dw_tcpopt_rid_http;

/** CIFS (5.3.1): 45..40 zero, 39..32 operation, 31..16 PID, 15..0 MID. */
typedef struct dw_tcpopt_rid_cifs {
    uint16_t pid;
    uint16_t mid;
    /** Index of the operation in the SMB (compound requests), from 0. */
    uint8_t op;
} dw_tcpopt_rid_cifs;

/**
 * Builds an NFS RID. nfs_version 2 or 3 requires op 0 (5.1.1.2); 0 means
 * "not known" (no check). Returns 0, or DW_ERR_INVAL (NULL, or op set for
 * version 2/3).
 */
DW_EXTERN int dw_tcpopt_rid_nfs_encode(uint64_t *rid, const dw_tcpopt_rid_nfs *f,
                             unsigned nfs_version);

/**
 * Splits an NFS RID. Returns DW_TCPOPT_R_RID_RANGE (over 46 bits),
 * DW_TCPOPT_R_RID_ZERO_BITS (bits 45..40 set, 5.1.1.3) or
 * DW_TCPOPT_R_NFS_OPERATION (op not 0 with nfs_version 2 or 3); out is
 * filled in every case but the first.
 */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_rid_nfs_decode(dw_tcpopt_rid_nfs *out, uint64_t rid,
                                          unsigned nfs_version);

/** Builds an HTTP RID. Returns 0 or DW_ERR_INVAL (NULL). */
DW_EXTERN int dw_tcpopt_rid_http_encode(uint64_t *rid, const dw_tcpopt_rid_http *f);

/** Splits an HTTP RID: DW_TCPOPT_R_RID_ZERO_BITS when bits 45..32 are set. */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_rid_http_decode(dw_tcpopt_rid_http *out, uint64_t rid);

/** Builds a CIFS RID. Returns 0 or DW_ERR_INVAL (NULL). */
DW_EXTERN int dw_tcpopt_rid_cifs_encode(uint64_t *rid, const dw_tcpopt_rid_cifs *f);

/** Splits a CIFS RID: DW_TCPOPT_R_RID_ZERO_BITS when bits 45..40 are set. */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_rid_cifs_decode(dw_tcpopt_rid_cifs *out, uint64_t rid);

/* ------------------------------------------------------------------ */
/* Sender segmentation (section 4)                                     */
/* ------------------------------------------------------------------ */

/** How segments are cut around application messages (section 4). */
typedef enum dw_tcpopt_policy {
    /**
     * Every application message starts a new segment, as a stack does
     * that sends each message when it is written: section 4's first table
     * (segment 3 ends with the trailer, 200 octets).
     */
    DW_TCPOPT_SEG_MESSAGE = 0,
    /**
     * Segments are filled across message boundaries: the second table
     * (segment 3 also carries the next header).
     */
    DW_TCPOPT_SEG_PACKED = 1
} dw_tcpopt_policy;

/** One stretch of a transfer's data in the application stream. */
typedef struct dw_tcpopt_range {
    /** Stream offset of its first octet. */
    uint64_t offset;
    /** Octets; 0 only as the single range of a zero-length transfer. */
    uint64_t length;
} dw_tcpopt_range;

/** One RDMA transfer: its data lies in the stream at ranges. */
typedef struct dw_tcpopt_transfer {
    /** RID (46 bits). */
    uint64_t rid;
    /**
     * Buffer offset of the transfer's first octet; the ranges follow one
     * another in the buffer (the second range's first octet goes right
     * after the first range's last).
     */
    uint32_t buffer_offset;
    /** Set the U bit (3.1.7: the receiver does not expect this RID). */
    uint8_t unsolicited;
    /**
     * Send the total length (20-octet option); 0 sends the 16-octet one
     * (3.1.4: the sender does not know it yet).
     */
    uint8_t total_known;
    /** Stream ranges, ascending, not overlapping; at least one. */
    const dw_tcpopt_range *ranges;
    size_t nranges;
} dw_tcpopt_transfer;

typedef struct dw_tcpopt_seg_settings {
    /**
     * Most payload octets per segment, 1..65535 (default 1460). As in
     * section 4 the option does not count; a sender whose MSS must also
     * hold the options (RFC 6691) passes its MSS less 20.
     */
    uint32_t mss;
    dw_tcpopt_policy policy;
    /**
     * Set the A bit on segments whose payload starts a message (3.1.6),
     * sending the 4-octet option on such segments that carry no transfer
     * data (default 1).
     */
    int a_bit;
    /** TCP sequence number of stream offset 0 (default 0). */
    uint32_t start_seq;
} dw_tcpopt_seg_settings;

/** Fills settings with the defaults described above. */
DW_EXTERN void dw_tcpopt_seg_settings_default(dw_tcpopt_seg_settings *s);

/** One TCP segment of the stream. */
typedef struct dw_tcpopt_segment {
    /** Stream offset of its first payload octet. */
    uint64_t offset;
    /** start_seq + offset, modulo 2^32. */
    uint32_t seq;
    /** Payload octets (1..mss). */
    uint32_t len;
    /** The option to send; opt.len == 0: none. */
    dw_tcpopt opt;
    /** Index of the transfer whose data it carries, or SIZE_MAX. */
    size_t transfer;
} dw_tcpopt_segment;

/**
 * A segmenter: a cursor over one stream, set up by dw_tcpopt_seg_init()
 * and advanced by dw_tcpopt_seg_next(). The caller owns it (no
 * allocation); its fields are private.
 */
typedef struct dw_tcpopt_seg {
    dw_tcpopt_seg_settings s;
    uint64_t stream_len;
    const dw_tcpopt_transfer *xfers;
    size_t nxfers;
    const uint64_t *msgs;
    size_t nmsgs;
    uint64_t pos;      /* next stream offset to send */
    size_t xi, ri, mi; /* current transfer, range, next message */
    uint64_t rbuf;     /* buffer offset of range ri's first octet */
    uint64_t total;    /* the current transfer's length */
} dw_tcpopt_seg;

/**
 * Sets up segmentation of a stream of stream_len octets that carries
 * nxfers transfers and whose application messages start at msgs (nmsgs
 * ascending offsets, at most stream_len; may be NULL with 0). Transfers
 * are in stream order: every range of one comes before every range of the
 * next (ranges of different transfers do not interleave). A zero-length
 * transfer is one range of length 0 at the position its option describes;
 * no other range may start there. The arrays must outlive the segmenter.
 * Returns 0 or DW_ERR_INVAL (bad settings, a RID over 46 bits, ranges out
 * of order, overlapping or past the stream, a transfer over 2^32 - 1
 * octets or one whose buffer offsets would pass 2^32).
 */
DW_EXTERN int dw_tcpopt_seg_init(dw_tcpopt_seg *sg, const dw_tcpopt_seg_settings *s,
                       uint64_t stream_len, const dw_tcpopt_transfer *xfers,
                       size_t nxfers, const uint64_t *msgs, size_t nmsgs);

/**
 * Cuts the next segment: as much as fits in mss, one transfer range per
 * segment (the option describes one stretch of data), the option on every
 * segment that carries transfer data (3.1.8). A zero-length transfer at a
 * segment's end rides on that segment (data offset == its length) unless
 * it already carries a range. Returns 1 with *out filled, 0 when the
 * stream is done, or DW_ERR_INVAL when a zero-length transfer at the very
 * end of the stream has no segment to ride on (the last one carries
 * another transfer, or the stream is empty).
 */
DW_EXTERN int dw_tcpopt_seg_next(dw_tcpopt_seg *sg, dw_tcpopt_segment *out);

/**
 * The whole stream at once into out (cap entries). Returns the number of
 * segments; with out NULL and cap 0 only counts them. DW_ERR_NOSPACE when
 * cap is short, or the errors of dw_tcpopt_seg_init() and _next().
 */
DW_EXTERN ssize_t dw_tcpopt_segment_stream(dw_tcpopt_segment *out, size_t cap,
                                 const dw_tcpopt_seg_settings *s,
                                 uint64_t stream_len,
                                 const dw_tcpopt_transfer *xfers, size_t nxfers,
                                 const uint64_t *msgs, size_t nmsgs);

/* ------------------------------------------------------------------ */
/* Receiver placement (3.1, 6.1)                                       */
/* ------------------------------------------------------------------ */

/*
 * One receiver per direction of a TCP connection, sans-I/O: the caller
 * feeds every segment (sequence number, TCP options area, payload) in the
 * order it arrives -- out of order, duplicated, overlapping, across the
 * 2^32 wrap -- and the receiver:
 *   - places the transfer data an option describes into the buffer its
 *     RID maps to, on arrival: a buffer registered for that RID (solicited
 *     transfers), or for an unsolicited one (U bit) a slot of the pool kept
 *     for them, under the quotas of 6.1 (how many, how large);
 *   - checks every bound first (6.1): data past the buffer's end, a total
 *     larger than the buffer, more octets than the total, a RID nobody
 *     expects, a broken rule of 3.1.2-3.1.8 -- such data is refused,
 *     counted and reported, never written into a buffer; it stays part of
 *     the ordinary stream (the option is only an annotation);
 *   - reports a transfer complete when the octets placed reach its total
 *     length (3.1.4; a zero-length transfer completes on arrival), and the
 *     A bit as a message boundary (3.1.6);
 *   - passes on everything else as the ordinary byte stream, in order,
 *     with its stream offsets: placed octets keep their stream positions
 *     but are not passed on, so offsets jump over them.
 * Octets are judged once, at their first arrival: a retransmission's
 * option and data are ignored where its octets were already received.
 * Out-of-order octets wait in a reassembly store of fixed size (the
 * receive window), allocated with the pool when the receiver is created;
 * nothing is allocated per segment.
 */
typedef struct dw_tcpopt_rx dw_tcpopt_rx;

/** RID format checked on receive (section 5). */
typedef enum dw_tcpopt_rid_format {
    DW_TCPOPT_RID_ANY = 0, /* no check beyond 46 bits */
    DW_TCPOPT_RID_NFS,     /* 5.1.1: zero bits, op 0 for NFS 2/3 */
    DW_TCPOPT_RID_HTTP,    /* 5.2.1 */
    DW_TCPOPT_RID_CIFS     /* 5.3.1 */
} dw_tcpopt_rid_format;

typedef struct dw_tcpopt_rx_settings {
    /** TCP sequence number of stream offset 0: the peer's ISN + 1. */
    uint32_t start_seq;
    /**
     * Octets of the reassembly store: the window of stream positions past
     * the next in-order one that can be held (default 256 KiB; 1 .. 2^30).
     * Octets beyond it are dropped, as TCP drops data beyond its window.
     */
    size_t store;
    /** Registered buffers tracked at once (default 64; at most 65536). */
    unsigned max_buffers;
    /**
     * 6.1 quotas: unsolicited transfers outstanding at once (default 4;
     * 0 refuses every unsolicited transfer, at most 4096) and the octets
     * each may hold (default 64 KiB). The pool, count * size octets, is
     * allocated at creation.
     */
    unsigned unsol_count;
    uint32_t unsol_size;
    /** RID checks of section 5 (default DW_TCPOPT_RID_ANY). */
    dw_tcpopt_rid_format rid_format;
    /** For DW_TCPOPT_RID_NFS: 2, 3 or 4; 0 unknown (default 0). */
    unsigned nfs_version;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_tcpopt_rx_settings;

/** Fills settings with the defaults described above. */
DW_EXTERN void dw_tcpopt_rx_settings_default(dw_tcpopt_rx_settings *s);

/** A transfer the receiver tracks (or has just completed). */
typedef struct dw_tcpopt_rx_xfer {
    uint64_t rid;
    /** Non-zero for a transfer in the unsolicited pool. */
    uint8_t unsolicited;
    /** Non-zero once a segment carried the total length (3.1.4). */
    uint8_t total_known;
    uint32_t total;
    /** Its buffer: registered, or the pool slot (unsol_size octets, zeroed
     * when the transfer took it). */
    uint8_t *buf;
    size_t buf_len;
    /** Octets placed (each stream octet counted once). */
    uint64_t placed;
    /** One past the highest buffer offset written (0: none). */
    uint64_t extent;
    /** Octets of this transfer refused and passed on as stream. */
    uint64_t refused;
} dw_tcpopt_rx_xfer;

/** One placement, for on_placed. */
typedef struct dw_tcpopt_rx_place {
    uint64_t rid;
    uint32_t buffer_offset;
    uint32_t len;
    /** Stream offset of the first octet placed. */
    uint64_t stream_offset;
    /** Where the octets are now: buffer + buffer_offset. */
    const uint8_t *data;
} dw_tcpopt_rx_place;

/** One refusal, for on_refused. */
typedef struct dw_tcpopt_rx_refusal {
    dw_tcpopt_reason reason;
    /** The honoured option (zeroed for DW_TCPOPT_R_OPTIONS_MALFORMED). */
    dw_tcpopt opt;
    /** The segment's sequence number and stream offset. */
    uint32_t seq;
    uint64_t stream_offset;
    /** Octets of transfer data passed on as stream instead (new ones). */
    uint32_t len;
} dw_tcpopt_rx_refusal;

/**
 * Callbacks. Pointers are valid only during the call. Callbacks may call
 * dw_tcpopt_rx_register(), _release() (except from on_placed) and
 * _transfer(), never dw_tcpopt_rx_segment().
 */
typedef struct dw_tcpopt_rx_callbacks {
    /** Required: ordinary stream octets, in order; offset is the stream
     * offset of data[0] (it jumps over placed octets). */
    void (*on_stream)(dw_tcpopt_rx *rx, const uint8_t *data, size_t len,
                      uint64_t offset, void *user_data);
    /** Octets placed into a transfer's buffer, on arrival. */
    void (*on_placed)(dw_tcpopt_rx *rx, const dw_tcpopt_rx_place *p,
                      void *user_data);
    /**
     * A transfer's placed octets reached its total length. The receiver
     * has already forgotten it (its RID may be registered again); for an
     * unsolicited one x->buf is the pool slot, reused after the call.
     */
    void (*on_complete)(dw_tcpopt_rx *rx, const dw_tcpopt_rx_xfer *x,
                        void *user_data);
    /** A segment with the A bit: a message starts at this stream offset
     * (3.1.6), reported once, when that octet first arrives. */
    void (*on_message)(dw_tcpopt_rx *rx, uint64_t offset, void *user_data);
    /** Data refused (or a segment whose option was refused). */
    void (*on_refused)(dw_tcpopt_rx *rx, const dw_tcpopt_rx_refusal *r,
                       void *user_data);
    /**
     * A solicited transfer (U clear) whose RID has no buffer: the callback
     * may register one now (an application that looks its buffers up
     * lazily); otherwise the data is refused (DW_TCPOPT_R_UNKNOWN_RID).
     */
    void (*on_unknown)(dw_tcpopt_rx *rx, const dw_tcpopt *opt, void *user_data);
} dw_tcpopt_rx_callbacks;

/**
 * Creates a receiver; settings may be NULL for the defaults, callbacks
 * must have on_stream. Allocates the reassembly store and the pool here.
 * Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_tcpopt_rx_new(dw_tcpopt_rx **prx, const dw_tcpopt_rx_settings *settings,
                     const dw_tcpopt_rx_callbacks *callbacks, void *user_data);

/** Frees a receiver; NULL is allowed. Registered buffers stay the caller's. */
DW_EXTERN void dw_tcpopt_rx_del(dw_tcpopt_rx *rx);

/**
 * Registers buf (len octets, the caller's, written until the transfer
 * completes or is released) for the solicited transfer rid. Returns 0,
 * DW_ERR_INVAL (RID over 46 bits, NULL buf with len > 0), DW_ERR_STATE
 * (rid already tracked) or DW_ERR_NOSPACE (max_buffers reached).
 */
DW_EXTERN int dw_tcpopt_rx_register(dw_tcpopt_rx *rx, uint64_t rid, void *buf, size_t len);

/**
 * Forgets the transfer rid (registered or unsolicited, complete or not):
 * nothing more is written for it, and its pool slot is free again.
 * Returns 0, DW_ERR_INVAL (not tracked) or DW_ERR_STATE (from on_placed).
 */
DW_EXTERN int dw_tcpopt_rx_release(dw_tcpopt_rx *rx, uint64_t rid);

/** Fills *out with the transfer rid's state: 0, or DW_ERR_INVAL (not tracked). */
DW_EXTERN int dw_tcpopt_rx_transfer(const dw_tcpopt_rx *rx, uint64_t rid,
                          dw_tcpopt_rx_xfer *out);

/**
 * Feeds one TCP segment as it arrived: its sequence number, its options
 * area (the TCP header after octet 20; may be empty) and its payload.
 * Callbacks run from here. Returns 0; DW_ERR_INVAL (NULL with a length,
 * payload over 1 GiB); DW_ERR_STATE when called from a callback.
 * Everything a peer sends is judged and reported, never an error here.
 */
DW_EXTERN int dw_tcpopt_rx_segment(dw_tcpopt_rx *rx, uint32_t seq, const uint8_t *opts,
                         size_t opts_len, const uint8_t *payload, size_t len);

typedef struct dw_tcpopt_rx_stats {
    uint64_t segments;     /* fed */
    uint64_t duplicates;   /* segments that brought no new octet */
    uint64_t beyond;       /* octets dropped past the store's window */
    uint64_t placed;       /* octets placed */
    uint64_t stream;       /* octets passed on in order */
    uint64_t refusals;     /* on_refused calls */
    uint64_t refused;      /* transfer octets refused (passed on as stream) */
    uint64_t completed;    /* transfers completed */
    uint64_t messages;     /* A bits reported */
    uint64_t next;         /* stream offset of the next in-order octet */
    uint64_t held;         /* octets received past next, waiting */
} dw_tcpopt_rx_stats;

/** Counters since creation. */
DW_EXTERN void dw_tcpopt_rx_stats_get(const dw_tcpopt_rx *rx, dw_tcpopt_rx_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_TCPOPT_H */
