/* SPDX-License-Identifier: MIT */
/*
 * IFT stream checker: walks the IFT frames of one direction of a captured
 * TCP stream (fed by <ddpwire/reasm.h>), both CRC verdicts per frame,
 * resynchronisation by header CRC after an error or a gap.
 */
#ifndef DDPWIRE_IFT_CHECK_H
#define DDPWIRE_IFT_CHECK_H

#include <ddpwire/ift.h>
#include <ddpwire/reasm.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Stream checker (dump)                                               */
/* ------------------------------------------------------------------ */

/*
 * The dissector half of IFT, what `ddpwire dump` reports for one
 * direction of a captured connection; the IFT counterpart of
 * <ddpwire/mpa_check.h>, fed the same way (chunks and gaps from
 * <ddpwire/reasm.h>). The stream is expected to begin with a frame at
 * stream offset 0, unless settings.search_start asks for a search (a
 * capture begun in the middle of a connection).
 *
 * Unlike the receiver it never stops at an error:
 *  - a payload CRC error is reported and checking goes on in sync (the
 *    sizes were verified by the header CRC);
 *  - a header CRC error (or sizes over the limits) means the sizes
 *    cannot be trusted (IFT 5.1): the boundaries are lost. Without
 *    markers nothing says where the next frame begins, so the checker
 *    searches from the bad frame's second octet for the first position
 *    where a plausible header (sizes within the limits, header_size at
 *    least 4: a DDP header is longer) is followed by a matching header
 *    CRC, and resumes there. Random octets pass with probability about
 *    2^-32 per position (CRC32c over at least 8 octets), so a false
 *    resync is unlikely but possible;
 *  - a gap that begins after a good header CRC and ends inside that
 *    frame, or at its very end, keeps sync (positions are known); the
 *    frame's payload verdict is MISSING. A gap touching sizes, a DDP
 *    header or a header CRC loses sync: the search begins after the gap
 *    (a frame whose header is whole before a gap is still found).
 *
 * It streams: payloads are never held (running CRC). Sizes, DDP header
 * and header CRC of each frame pass through a buffer allocated at
 * creation, 4 + max_header + 4 octets plus a 16 KiB window (about 82 KiB
 * by default, with 1/8 of that again for CRC checkpoints), which is also
 * where the search looks. The buffer remembers at most 8192 pieces of
 * segments (one per 8 octets of a smaller buffer); past that (segments of a few octets) buffered octets are
 * credited to the last segment remembered: only the segment fields of
 * the records can suffer, never a verdict.
 */
typedef struct dw_ift_check dw_ift_check;

typedef struct dw_ift_check_settings {
    /** Largest header_size accepted (default 65535, at most 65535). Sets
     * the buffer size. A larger one is an EV_SIZE error. */
    size_t max_header;
    /** Largest payload_size accepted (default 65535). */
    size_t max_payload;
    /** Stream octets searched for a lost boundary before giving up
     * (default 1 MiB); then EV_NO_SYNC and the rest is skipped. */
    uint64_t search_limit;
    /** Octets of each DDP header handed out in the frame record
     * (default 64, at most 256). */
    size_t head_len;
    /** 0 (default): a frame begins at stream offset 0. Non-zero: the
     * stream may begin anywhere (a capture started mid-connection): the
     * checker first searches, as after lost boundaries, for the first
     * position where plausible sizes (header_size at least 4) are
     * followed by a matching header CRC, and begins there (EV_START).
     * Octets before it are skipped_octets; none found within
     * search_limit, or by the end: EV_NO_SYNC. */
    int search_start;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_ift_check_settings;

/** The layout of dw_ift_check_settings this header describes (see <ddpwire/common.h>). */
#define DW_IFT_CHECK_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_ift_check_settings_default_versioned(int settings_version,
                                                      dw_ift_check_settings *settings);
#define dw_ift_check_settings_default(settings) \
    dw_ift_check_settings_default_versioned(DW_IFT_CHECK_SETTINGS_VERSION, (settings))

/** A CRC's verdict. */
typedef enum dw_ift_check_crc {
    DW_IFT_CHECK_CRC_GOOD = 0,
    DW_IFT_CHECK_CRC_BAD,
    /** Not judged: octets it covers are missing from the capture (or,
     * for the payload, the header CRC failed so its place is unknown). */
    DW_IFT_CHECK_CRC_MISSING
} dw_ift_check_crc;

/** One frame, reported when its last octet has passed (or is missing),
 * or, when its header CRC fails, at once. */
typedef struct dw_ift_check_frame {
    /** Index in this direction, from 0. */
    uint64_t index;
    /** Stream offset and sequence number of its first octet. */
    uint64_t offset;
    uint32_t seq;
    /** The size fields as sent (0 when missing), and the frame's length
     * on the wire: 12 + header_size + payload_size. */
    uint16_t header_size;
    uint16_t payload_size;
    uint32_t frame_len;
    dw_ift_check_crc header_crc;
    dw_ift_check_crc payload_crc;
    /** The CRC fields as sent (read LSB first) and as computed; 0 when
     * not judged. */
    uint32_t header_crc_wire, header_crc_calc;
    uint32_t payload_crc_wire, payload_crc_calc;
    /** Segments that carried it (of its known octets; for a bad header,
     * of sizes, header and header CRC): first and last packet numbers and
     * how many distinct segments. */
    uint64_t first_pkt;
    uint64_t last_pkt;
    uint32_t segments;
    /** Its first octet began a segment. */
    int aligned;
    /** A segment that carried it also carried (part of) another frame. */
    int packed;
    /** Found by search after lost boundaries. */
    int resync;
    /** The first min(header_size, head_len) DDP header octets (those
     * captured), valid during the callback. */
    const uint8_t *head;
    size_t head_len;
} dw_ift_check_frame;

/** Problems and milestones. */
typedef enum dw_ift_check_event_kind {
    /** Header CRC mismatch (IFT error 2): sync is lost. */
    DW_IFT_CHECK_EV_HEADER_CRC = 0,
    /** Payload CRC mismatch (IFT error 3): sync is kept. */
    DW_IFT_CHECK_EV_PAYLOAD_CRC,
    /** header_size or payload_size over the limits (IFT error 4): sync
     * is lost (no frame record: the header CRC is not judged). */
    DW_IFT_CHECK_EV_SIZE,
    /** Octets missing from the capture (from the reassembler). */
    DW_IFT_CHECK_EV_GAP,
    /** Frame boundaries lost; checking resumes at the next RESYNC. */
    DW_IFT_CHECK_EV_SYNC_LOST,
    /** Boundaries found again by search (len: octets skipped). */
    DW_IFT_CHECK_EV_RESYNC,
    /** The stream ended inside a frame (IFT error 1, not clean). */
    DW_IFT_CHECK_EV_TRUNCATED,
    /** No boundary found: search_limit exceeded, or the stream ended
     * while searching (len: octets searched). */
    DW_IFT_CHECK_EV_NO_SYNC,
    /** search_start: the first frame found (offset; len: octets skipped
     * before it). Its record has resync 0; resyncs does not count it. */
    DW_IFT_CHECK_EV_START
} dw_ift_check_event_kind;

typedef struct dw_ift_check_event {
    dw_ift_check_event_kind kind;
    /** The IFT error code a receiver reports for it (1 to 4), or
     * DW_IFT_ERR_NONE. */
    dw_ift_error code;
    /** Where: stream offset, sequence number, segment (0 when unknown). */
    uint64_t offset;
    uint32_t seq;
    uint64_t pkt;
    /** Octets concerned (gap length, octets skipped on resync ...). */
    uint64_t len;
    /** One line saying what happened ("header CRC 0x..., computed
     * 0x..."). Valid during the callback. */
    const char *detail;
} dw_ift_check_event;

typedef struct dw_ift_check_callbacks {
    /** Each frame, in stream order. Optional. */
    void (*on_frame)(dw_ift_check *c, const dw_ift_check_frame *frame, void *user_data);
    /** Problems and milestones, in stream order. Optional. */
    void (*on_event)(dw_ift_check *c, const dw_ift_check_event *ev, void *user_data);
} dw_ift_check_callbacks;

/** The layout of dw_ift_check_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_IFT_CHECK_CALLBACKS_VERSION 1

/**
 * Creates a checker; settings may be NULL for the defaults (max_header
 * over 65535 or head_len over 256: DW_ERR_INVAL). Allocates its buffer
 * here. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_ift_check_new_versioned(dw_ift_check **pc, int settings_version,
                                         const dw_ift_check_settings *settings,
                                         int callbacks_version,
                                         const dw_ift_check_callbacks *callbacks,
                                         void *user_data);
#define dw_ift_check_new(pc, settings, callbacks, user_data) \
    dw_ift_check_new_versioned((pc), DW_IFT_CHECK_SETTINGS_VERSION, (settings), \
        DW_IFT_CHECK_CALLBACKS_VERSION, (callbacks), (user_data))

/** Frees a checker; NULL is allowed. */
DW_EXTERN void dw_ift_check_del(dw_ift_check *c);

/**
 * Feeds in-order octets (a dw_reasm on_data call: pass its chunk; NULL
 * for untagged octets). A chunk beyond the octets fed so far implies a
 * gap. Returns 0, DW_ERR_INVAL, DW_ERR_NOMEM (as dw_mpa_check_data()) or
 * DW_ERR_STATE (called from a callback,
 * or after dw_ift_check_end()).
 */
DW_EXTERN int dw_ift_check_data(dw_ift_check *c, const uint8_t *data, size_t len,
                      const dw_reasm_chunk *chunk);

/** Octets missing (a dw_reasm on_gap call). Returns 0 or an error as above. */
DW_EXTERN int dw_ift_check_gap(dw_ift_check *c, const dw_reasm_gap *gap);

/**
 * The stream ended: a search still waiting is finished with what there
 * is, and a frame cut short is reported (EV_TRUNCATED, then its record
 * with the verdicts it lacks MISSING). Returns 0 or an error as above
 * (a second call does nothing).
 */
DW_EXTERN int dw_ift_check_end(dw_ift_check *c);

/** What the checker has counted. */
typedef struct dw_ift_check_stats {
    uint64_t frames;
    uint64_t payload_octets;   /* payload_size of frames with a good header */
    uint64_t header_crc_good;
    uint64_t header_crc_bad;
    uint64_t header_crc_missing;
    uint64_t payload_crc_good;
    uint64_t payload_crc_bad;
    uint64_t payload_crc_missing;
    uint64_t size_errors;
    uint64_t aligned;          /* frames with aligned set */
    uint64_t packed;           /* frames with packed set */
    /** Segments that carried at least one frame's first octet, and of
     * those the ones that carried (part of) more than one frame. */
    uint64_t seg_with_start;
    uint64_t seg_packed;
    uint64_t gaps;
    uint64_t gap_octets;
    uint64_t resyncs;
    uint64_t skipped_octets;   /* not checked: while out of sync */
    /** Non-zero while in sync (after the end: when it ended in sync). */
    int in_sync;
    /** The first IFT error (1 to 4) and where, or NONE. */
    dw_ift_error first_error;
    uint64_t first_error_offset;
    uint64_t first_error_pkt;
} dw_ift_check_stats;

/** Copies the counters. */
DW_EXTERN void dw_ift_check_stats_get(const dw_ift_check *c, dw_ift_check_stats *stats);

/** Short name of an event kind ("header_crc"; the JSON kinds of `ddpwire dump`). */
DW_EXTERN const char *dw_ift_check_event_name(dw_ift_check_event_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IFT_CHECK_H */
