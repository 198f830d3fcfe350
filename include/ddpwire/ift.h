/*
 * IFT: iWARP Framing for TCP (draft-williams-iwarp-ift-00), the framing
 * offered as an alternative to MPA.
 *
 * A codec, a sans-I/O sender and an in-order receiver, in the style of
 * <ddpwire/mpa.h>: nothing here touches a socket, a clock or the heap
 * after creation.
 *
 * Wire format (IFT 3.1), one frame per DDP PDU:
 *
 *   header_size   16 bits, big-endian: octets of DDP header
 *   payload_size  16 bits, big-endian: octets of DDP payload
 *   DDP header    header_size octets
 *   header CRC    CRC32c over the 4 size octets and the DDP header
 *   DDP payload   payload_size octets
 *   payload CRC   CRC32c over the DDP payload only
 *
 * CRC32c as in iSCSI, stored least significant octet first (as MPA,
 * dw_crc32c_store()). No pad and no markers: frames need not be a
 * multiple of four octets long (IFT 3.1, 5.2, 5.3). The CRC of an empty
 * payload is 0. A frame is 4 + header_size + 4 + payload_size + 4 octets.
 */
#ifndef DDPWIRE_IFT_H
#define DDPWIRE_IFT_H

#include <ddpwire/ddpwire.h>
#include <ddpwire/reasm.h>
#include <sys/uio.h> /* struct iovec */

#ifdef __cplusplus
extern "C" {
#endif

/** Octets of the header_size and payload_size fields. */
#define DW_IFT_SIZES_LEN 4u
/** Octets of each CRC field. */
#define DW_IFT_CRC_LEN 4u
/** Largest DDP header or payload a 16-bit size field can describe. */
#define DW_IFT_SIZE_MAX 65535u
/** Octets a frame adds around its header and payload. */
#define DW_IFT_OVERHEAD (DW_IFT_SIZES_LEN + 2u * DW_IFT_CRC_LEN)
/** Longest frame on the wire. */
#define DW_IFT_FRAME_MAX (DW_IFT_OVERHEAD + 2u * DW_IFT_SIZE_MAX)

/**
 * The protocol's own error codes, reported to the next layer (IFT 5:
 * "the IFT layer will notify the next layer"). 1 and 2 mean what MPA's
 * 1 and 2 mean (DW_MPA_ERR_CLOSED, DW_MPA_ERR_CRC).
 */
typedef enum dw_ift_error {
    DW_IFT_ERR_NONE = 0,
    /** TCP connection closed, terminated or lost. */
    DW_IFT_ERR_CLOSED = 1,
    /** The header CRC does not match the sizes and DDP header. */
    DW_IFT_ERR_HEADER_CRC = 2,
    /** The payload CRC does not match the DDP payload. */
    DW_IFT_ERR_PAYLOAD_CRC = 3,
    /** A size field outside the receiver's limits (dw_ift_rx_settings). */
    DW_IFT_ERR_SIZE = 4
} dw_ift_error;

/** Name of an IFT error code ("header CRC mismatch", ...). */
const char *dw_ift_strerror(dw_ift_error code);

/** Wire length of a frame: 4 + header_len + 4 + payload_len + 4. */
size_t dw_ift_frame_len(size_t header_len, size_t payload_len);

/* ------------------------------------------------------------------ */
/* Whole-frame codec (dump, tests)                                     */
/* ------------------------------------------------------------------ */

/** One decoded frame; header and payload point into the input. */
typedef struct dw_ift_frame {
    uint16_t header_len, payload_len;
    const uint8_t *header, *payload;
    /** The CRC fields as received. */
    uint32_t header_crc, payload_crc;
    /** Non-zero when the field matches the octets it covers. */
    int header_crc_ok, payload_crc_ok;
} dw_ift_frame;

/**
 * Decodes the frame at the start of in. Returns its length, or
 * DW_ERR_NEED_MORE when in holds less than a whole frame, or DW_ERR_INVAL
 * (NULL out, or NULL in with len > 0). Never DW_ERR_MALFORMED: any four
 * octets are valid sizes; the CRC verdicts are in *out. Does not
 * allocate; *out is written only on success.
 */
ssize_t dw_ift_decode(dw_ift_frame *out, const uint8_t *in, size_t len);

/**
 * Encodes the frame for a DDP header of hlen octets and a payload of plen
 * octets (either may be empty) into out (cap octets), with both CRCs.
 * Returns the frame length, DW_ERR_NOSPACE (cap below
 * dw_ift_frame_len()), DW_ERR_TOO_LONG (hlen or plen over 65535) or
 * DW_ERR_INVAL (a NULL pointer with a non-zero length).
 */
ssize_t dw_ift_encode(uint8_t *out, size_t cap, const void *hdr, size_t hlen,
                      const void *payload, size_t plen);

/* ------------------------------------------------------------------ */
/* Sender                                                              */
/* ------------------------------------------------------------------ */

typedef struct dw_ift_tx dw_ift_tx;

/** Headers up to this long are copied into scratch; longer ones are referenced. */
#define DW_IFT_TX_INLINE_HEADER_MAX 64u
/** Scratch octets one frame uses at most: sizes, inline header, two CRCs. */
#define DW_IFT_TX_SCRATCH_PER_FRAME \
    (DW_IFT_SIZES_LEN + DW_IFT_TX_INLINE_HEADER_MAX + 2u * DW_IFT_CRC_LEN)
/** Smallest scratch_size accepted. */
#define DW_IFT_TX_SCRATCH_MIN 256u

typedef struct dw_ift_tx_settings {
    /**
     * Octets of scratch space (a ring) for the sizes, short headers and
     * CRCs that the returned iovecs point into (default 65536, at least
     * DW_IFT_TX_SCRATCH_MIN). A frame's scratch stays valid while fewer
     * than (scratch_size - 2 * DW_IFT_TX_SCRATCH_PER_FRAME) octets of
     * further frames have been framed, and for at least
     * scratch_size / DW_IFT_TX_SCRATCH_PER_FRAME - 2 further frames.
     */
    size_t scratch_size;
    /**
     * Compute and send both CRCs (default 1). 0 writes zero CRC fields
     * (for benchmarks, or peers that agreed to go without).
     */
    int crc;
} dw_ift_tx_settings;

/** Fills settings with the defaults described above. */
void dw_ift_tx_settings_default(dw_ift_tx_settings *s);

/** Creates a sender. settings may be NULL for the defaults. */
int dw_ift_tx_new(dw_ift_tx **ptx, const dw_ift_tx_settings *s);

/** Frees a sender; NULL is allowed. */
void dw_ift_tx_del(dw_ift_tx *tx);

/** Stream offset (octets framed so far) of the next frame. */
uint64_t dw_ift_tx_offset(const dw_ift_tx *tx);

/** Where one framed frame goes. */
typedef struct dw_ift_frame_info {
    /** Octets of the frame on the wire (sum of the iovecs). */
    size_t len;
    /** iovecs used (1 for dw_ift_tx_frame_into()). */
    size_t iovcnt;
    /** Stream offset of its first octet. */
    uint64_t offset;
} dw_ift_frame_info;

/** iovecs one frame can need (dw_ift_tx_frame()). */
#define DW_IFT_FRAME_IOV_MAX 5u

/**
 * Frames a DDP header (hlen octets) and payload (plen octets) as iovecs.
 *
 * When hlen <= DW_IFT_TX_INLINE_HEADER_MAX the sizes, header and header
 * CRC are copied into scratch as one iovec; a longer header is referenced
 * between a sizes iovec and a header-CRC iovec. The payload is always
 * referenced, never copied; the payload CRC is in scratch. Adjacent
 * scratch pieces are merged, so a frame takes 1 (short header, empty
 * payload), 3 (short header, or long header and empty payload) or 5
 * iovecs; DW_IFT_FRAME_IOV_MAX is always enough. Empty headers and
 * payloads are allowed (an empty payload's CRC is 0).
 *
 * Returns the frame length, or DW_ERR_NOSPACE (iovcap too small),
 * DW_ERR_TOO_LONG (hlen or plen over 65535) or DW_ERR_INVAL; on error
 * nothing is framed and the sender is unchanged. info may be NULL.
 */
ssize_t dw_ift_tx_frame(dw_ift_tx *tx, const void *hdr, size_t hlen,
                        const void *payload, size_t plen, struct iovec *iov,
                        size_t iovcap, dw_ift_frame_info *info);

/**
 * Frames a DDP header and payload into a contiguous buffer of cap octets,
 * copying the payload while computing its CRC (one pass). Same returns
 * and errors as dw_ift_tx_frame() (DW_ERR_NOSPACE when cap is below
 * dw_ift_frame_len()).
 */
ssize_t dw_ift_tx_frame_into(dw_ift_tx *tx, const void *hdr, size_t hlen,
                             const void *payload, size_t plen, uint8_t *out,
                             size_t cap, dw_ift_frame_info *info);

/* ------------------------------------------------------------------ */
/* In-order receiver                                                   */
/* ------------------------------------------------------------------ */

/*
 * Fed the octets of the TCP stream in order (IFT 4), in any chunking.
 * For each frame it checks the sizes, then the header CRC, and only then
 * hands out the DDP header (IFT 5.1: placement may begin before the
 * payload is complete); the payload goes to a caller's buffer or is
 * streamed as it arrives, with a running CRC whose verdict ends the frame.
 *
 * The receiver holds at most max_header + 8 octets of its own (sizes,
 * header, header CRC of a frame split across feeds; allocated at
 * creation) and never the payload.
 *
 * Callbacks may call dw_ift_rx_close() (it stops the feed); they must not
 * call dw_ift_rx_feed() or dw_ift_rx_del().
 */
typedef struct dw_ift_rx dw_ift_rx;

/** What went wrong, for on_error. */
typedef struct dw_ift_rx_error {
    /** The IFT error code. */
    dw_ift_error code;
    /**
     * Stream offset of the offending frame's first octet; for a clean
     * CLOSED, the offset where the next frame would have begun.
     */
    uint64_t offset;
    /** For CLOSED: non-zero when the stream ended between frames. */
    int clean;
    /** For CLOSED: the reason given to dw_ift_rx_close(), unchanged. */
    int reason;
} dw_ift_rx_error;

typedef struct dw_ift_rx_callbacks {
    /**
     * A frame's header CRC verified (or CRCs are off): placement may
     * begin (IFT 5.1). hdr (hlen octets) is valid only during the call;
     * payload_len octets of payload follow; offset is the frame's stream
     * offset. Return 0 to go on, non-zero to make dw_ift_rx_feed() return
     * right after the header CRC. Optional.
     */
    int (*on_header)(dw_ift_rx *rx, const uint8_t *hdr, size_t hlen,
                     size_t payload_len, uint64_t offset, void *user_data);
    /**
     * Optional: the destination of this frame's payload, at least
     * payload_len octets, valid until on_end or on_error. The receiver
     * copies the payload there as it arrives (fused copy and CRC), so
     * unverified octets land there before the verdict. Asked once per
     * frame with a non-empty payload, after on_header and before any of
     * the payload is consumed. NULL, or no get_buffer: the payload is
     * streamed to on_payload instead.
     */
    uint8_t *(*get_buffer)(dw_ift_rx *rx, size_t payload_len, void *user_data);
    /**
     * Streamed payload (when there is no buffer from get_buffer): len
     * octets at offset at within the payload, pointing into the octets
     * given to dw_ift_rx_feed() (zero copy), valid only during the call.
     * Pieces come in order and add up to payload_len; empty payloads get
     * no call. The pieces are NOT verified: the payload CRC's verdict
     * comes with on_end or on_error (DW_IFT_ERR_PAYLOAD_CRC) after the
     * last one. When a payload and its CRC arrive within one feed, the
     * payload is checked first and, if corrupt, not streamed at all. Return
     * non-zero to make dw_ift_rx_feed() return right after this piece.
     * Optional.
     */
    int (*on_payload)(dw_ift_rx *rx, const uint8_t *data, size_t len,
                      size_t at, void *user_data);
    /**
     * The payload CRC verified: the frame at offset is complete and
     * good. Return non-zero to make dw_ift_rx_feed() return right after
     * this frame. Required.
     */
    int (*on_end)(dw_ift_rx *rx, uint64_t offset, void *user_data);
    /** An IFT error; called once, nothing is called after it. Optional. */
    void (*on_error)(dw_ift_rx *rx, const dw_ift_rx_error *err, void *user_data);
} dw_ift_rx_callbacks;

typedef struct dw_ift_rx_settings {
    /** Verify both CRCs (default 1). 0 ignores the CRC fields. */
    int crc;
    /**
     * Largest DDP header accepted (default 64; values over 65535 act as
     * 65535). Sets the size of the receiver's holding buffer.
     */
    size_t max_header;
    /** Smallest DDP header accepted (default 0; at most max_header). */
    size_t min_header;
    /** Largest DDP payload accepted (default 65535). */
    size_t max_payload;
} dw_ift_rx_settings;

/** Fills settings with the defaults described above. */
void dw_ift_rx_settings_default(dw_ift_rx_settings *s);

/**
 * Creates a receiver. settings may be NULL for the defaults; callbacks
 * must have on_end. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
int dw_ift_rx_new(dw_ift_rx **prx, const dw_ift_rx_settings *s,
                  const dw_ift_rx_callbacks *cb, void *user_data);

/** Frees a receiver; NULL is allowed. */
void dw_ift_rx_del(dw_ift_rx *rx);

/**
 * Feeds the next len octets of the stream. Returns the octets consumed:
 * len, or fewer only when a callback returned non-zero (feed the rest
 * later). Errors are reported once through on_error, as soon as found:
 * DW_IFT_ERR_SIZE as soon as the four size octets are known (the sizes
 * are unprotected until the header CRC arrives, so this may also be a
 * corrupted size field), DW_IFT_ERR_HEADER_CRC before anything of the
 * frame is handed out, DW_IFT_ERR_PAYLOAD_CRC instead of on_end. From
 * then on (and when a callback closed the receiver) it returns
 * DW_ERR_PROTO. DW_ERR_INVAL for a NULL pointer with len > 0.
 */
ssize_t dw_ift_rx_feed(dw_ift_rx *rx, const void *in, size_t len);

/**
 * The transport reports that the stream ended, was reset, timed out or
 * was lost (reason: e.g. a dw_mpa_close_reason, passed back in the
 * error). Reports DW_IFT_ERR_CLOSED through on_error, clean when between
 * frames, unless an error was already reported. Returns 0 when clean,
 * else DW_ERR_PROTO; DW_ERR_INVAL for NULL.
 */
int dw_ift_rx_close(dw_ift_rx *rx, int reason);

/** Stream offset: octets consumed so far. */
uint64_t dw_ift_rx_offset(const dw_ift_rx *rx);

/** The error reported so far, or DW_IFT_ERR_NONE. */
dw_ift_error dw_ift_rx_failed(const dw_ift_rx *rx);

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
} dw_ift_check_settings;

/** Fills settings with the defaults described above. */
void dw_ift_check_settings_default(dw_ift_check_settings *settings);

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

/**
 * Creates a checker; settings may be NULL for the defaults (max_header
 * over 65535 or head_len over 256: DW_ERR_INVAL). Allocates its buffer
 * here. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
int dw_ift_check_new(dw_ift_check **pc, const dw_ift_check_settings *settings,
                     const dw_ift_check_callbacks *callbacks, void *user_data);

/** Frees a checker; NULL is allowed. */
void dw_ift_check_del(dw_ift_check *c);

/**
 * Feeds in-order octets (a dw_reasm on_data call: pass its chunk; NULL
 * for untagged octets). A chunk beyond the octets fed so far implies a
 * gap. Returns 0, DW_ERR_INVAL or DW_ERR_STATE (called from a callback,
 * or after dw_ift_check_end()).
 */
int dw_ift_check_data(dw_ift_check *c, const uint8_t *data, size_t len,
                      const dw_reasm_chunk *chunk);

/** Octets missing (a dw_reasm on_gap call). Returns 0 or an error as above. */
int dw_ift_check_gap(dw_ift_check *c, const dw_reasm_gap *gap);

/**
 * The stream ended: a search still waiting is finished with what there
 * is, and a frame cut short is reported (EV_TRUNCATED, then its record
 * with the verdicts it lacks MISSING). Returns 0 or an error as above
 * (a second call does nothing).
 */
int dw_ift_check_end(dw_ift_check *c);

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
void dw_ift_check_stats_get(const dw_ift_check *c, dw_ift_check_stats *stats);

/** Short name of an event kind ("header_crc"; the JSON kinds of `ddpwire dump`). */
const char *dw_ift_check_event_name(dw_ift_check_event_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IFT_H */
