/* SPDX-License-Identifier: MIT */
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

#include <ddpwire/common.h>
#include <ddpwire/mem.h>
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
DW_EXTERN const char *dw_ift_strerror(dw_ift_error code);

/** Wire length of a frame: 4 + header_len + 4 + payload_len + 4. */
DW_EXTERN size_t dw_ift_frame_len(size_t header_len, size_t payload_len);

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
DW_EXTERN ssize_t dw_ift_decode(dw_ift_frame *out, const uint8_t *in, size_t len);

/**
 * Encodes the frame for a DDP header of hlen octets and a payload of plen
 * octets (either may be empty) into out (cap octets), with both CRCs.
 * Returns the frame length, DW_ERR_NOSPACE (cap below
 * dw_ift_frame_len()), DW_ERR_TOO_LONG (hlen or plen over 65535) or
 * DW_ERR_INVAL (a NULL pointer with a non-zero length).
 */
DW_EXTERN ssize_t dw_ift_encode(uint8_t *out, size_t cap, const void *hdr, size_t hlen,
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
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_ift_tx_settings;

/** The layout of dw_ift_tx_settings this header describes (see <ddpwire/common.h>). */
#define DW_IFT_TX_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_ift_tx_settings_default_versioned(int settings_version,
                                                   dw_ift_tx_settings *s);
#define dw_ift_tx_settings_default(s) \
    dw_ift_tx_settings_default_versioned(DW_IFT_TX_SETTINGS_VERSION, (s))

/** Creates a sender. settings may be NULL for the defaults. */
DW_EXTERN int dw_ift_tx_new_versioned(dw_ift_tx **ptx, int settings_version,
                                      const dw_ift_tx_settings *s);
#define dw_ift_tx_new(ptx, s) \
    dw_ift_tx_new_versioned((ptx), DW_IFT_TX_SETTINGS_VERSION, (s))

/** Frees a sender; NULL is allowed. */
DW_EXTERN void dw_ift_tx_del(dw_ift_tx *tx);

/** Stream offset (octets framed so far) of the next frame. */
DW_EXTERN uint64_t dw_ift_tx_offset(const dw_ift_tx *tx);

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
DW_EXTERN ssize_t dw_ift_tx_frame(dw_ift_tx *tx, const void *hdr, size_t hlen,
                        const void *payload, size_t plen, struct iovec *iov,
                        size_t iovcap, dw_ift_frame_info *info);

/**
 * Frames a DDP header and payload into a contiguous buffer of cap octets,
 * copying the payload while computing its CRC (one pass). Same returns
 * and errors as dw_ift_tx_frame() (DW_ERR_NOSPACE when cap is below
 * dw_ift_frame_len()).
 */
DW_EXTERN ssize_t dw_ift_tx_frame_into(dw_ift_tx *tx, const void *hdr, size_t hlen,
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
    /** For CLOSED: the reason given to dw_ift_rx_close(). */
    dw_close_reason reason;
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

/** The layout of dw_ift_rx_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_IFT_RX_CALLBACKS_VERSION 1

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
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_ift_rx_settings;

/** The layout of dw_ift_rx_settings this header describes (see <ddpwire/common.h>). */
#define DW_IFT_RX_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_ift_rx_settings_default_versioned(int settings_version,
                                                   dw_ift_rx_settings *s);
#define dw_ift_rx_settings_default(s) \
    dw_ift_rx_settings_default_versioned(DW_IFT_RX_SETTINGS_VERSION, (s))

/**
 * Creates a receiver. settings may be NULL for the defaults; callbacks
 * must have on_end. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_ift_rx_new_versioned(dw_ift_rx **prx, int settings_version,
                                      const dw_ift_rx_settings *s, int callbacks_version,
                                      const dw_ift_rx_callbacks *cb, void *user_data);
#define dw_ift_rx_new(prx, s, cb, user_data) \
    dw_ift_rx_new_versioned((prx), DW_IFT_RX_SETTINGS_VERSION, (s), \
        DW_IFT_RX_CALLBACKS_VERSION, (cb), (user_data))

/** Frees a receiver; NULL is allowed. */
DW_EXTERN void dw_ift_rx_del(dw_ift_rx *rx);

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
DW_EXTERN ssize_t dw_ift_rx_feed(dw_ift_rx *rx, const void *in, size_t len);

/**
 * The transport reports that the stream ended, was reset, timed out or
 * was lost (reason, passed back in the error). Reports DW_IFT_ERR_CLOSED
 * through on_error, clean when between frames, unless an error was
 * already reported. Returns 0 when clean, else DW_ERR_PROTO; DW_ERR_INVAL
 * for NULL.
 */
DW_EXTERN int dw_ift_rx_close(dw_ift_rx *rx, dw_close_reason reason);

/** Stream offset: octets consumed so far. */
DW_EXTERN uint64_t dw_ift_rx_offset(const dw_ift_rx *rx);

/** The error reported so far, or DW_IFT_ERR_NONE. */
DW_EXTERN dw_ift_error dw_ift_rx_failed(const dw_ift_rx *rx);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IFT_H */
