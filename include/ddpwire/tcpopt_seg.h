/* SPDX-License-Identifier: MIT */
/*
 * The TCP RDMA option's sender segmentation (draft-csapuntz-tcprdma-00
 * section 4): a cursor over one application stream that cuts TCP segments
 * and the option each carries. No allocation. The option itself:
 * <ddpwire/tcpopt.h>.
 */
#ifndef DDPWIRE_TCPOPT_SEG_H
#define DDPWIRE_TCPOPT_SEG_H

#include <ddpwire/tcpopt.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** The layout of dw_tcpopt_seg_settings this header describes (see <ddpwire/common.h>). */
#define DW_TCPOPT_SEG_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_tcpopt_seg_settings_default_versioned(int settings_version,
                                                       dw_tcpopt_seg_settings *s);
#define dw_tcpopt_seg_settings_default(s) \
    dw_tcpopt_seg_settings_default_versioned(DW_TCPOPT_SEG_SETTINGS_VERSION, (s))

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

/** Words of a segmenter's storage: its state fits with room to grow. */
#define DW_TCPOPT_SEG_WORDS 32

/**
 * A segmenter: a cursor over one stream, set up by dw_tcpopt_seg_init()
 * and advanced by dw_tcpopt_seg_next(). The caller owns the storage (on
 * its stack or in its own object: the segmenter never allocates), but
 * its content is opaque: the library lays its state out in these words
 * as it likes, so it may change without an ABI break while it fits.
 */
typedef struct dw_tcpopt_seg {
    /** Private: the library's state. */
    union {
        uint64_t words[DW_TCPOPT_SEG_WORDS];
        const void *align_ptr;
    } opaque_;
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
DW_EXTERN int dw_tcpopt_seg_init_versioned(dw_tcpopt_seg *sg, int settings_version,
                                           const dw_tcpopt_seg_settings *s,
                                           uint64_t stream_len,
                                           const dw_tcpopt_transfer *xfers, size_t nxfers,
                                           const uint64_t *msgs, size_t nmsgs);
#define dw_tcpopt_seg_init(sg, s, stream_len, xfers, nxfers, msgs, nmsgs) \
    dw_tcpopt_seg_init_versioned((sg), DW_TCPOPT_SEG_SETTINGS_VERSION, (s), (stream_len), \
        (xfers), (nxfers), (msgs), (nmsgs))

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
DW_EXTERN ssize_t dw_tcpopt_segment_stream_versioned(dw_tcpopt_segment *out, size_t cap,
                                                     int settings_version,
                                                     const dw_tcpopt_seg_settings *s,
                                                     uint64_t stream_len,
                                                     const dw_tcpopt_transfer *xfers,
                                                     size_t nxfers, const uint64_t *msgs,
                                                     size_t nmsgs);
#define dw_tcpopt_segment_stream(out, cap, s, stream_len, xfers, nxfers, msgs, nmsgs) \
    dw_tcpopt_segment_stream_versioned((out), (cap), DW_TCPOPT_SEG_SETTINGS_VERSION, (s), \
        (stream_len), (xfers), (nxfers), (msgs), (nmsgs))

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_TCPOPT_SEG_H */
