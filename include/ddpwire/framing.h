/* SPDX-License-Identifier: MIT */
/*
 * One interface over the two framings of DDP over TCP: MPA (markers, pad,
 * one CRC, mpa.h) and IFT (sizes, header CRC, payload CRC, ift.h). The
 * transport, the CLI's demo/listen/send, and the benchmarks choose one
 * with a dw_framing value and otherwise use the same calls.
 *
 * A PDU is a header (a DDP header; may be empty) and a payload. MPA frames
 * them as one ULPDU (header then payload); IFT keeps them apart and checks
 * each with its own CRC. Receivers deliver whole PDUs only after every CRC
 * that covers them has verified. MPA does not know where a header ends, so
 * its PDUs arrive with an empty header and the whole ULPDU as payload.
 */
#ifndef DDPWIRE_FRAMING_H
#define DDPWIRE_FRAMING_H

#include <ddpwire/ift.h>
#include <ddpwire/mpa.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dw_framing {
    DW_FRAMING_MPA = 0,
    DW_FRAMING_IFT = 1
} dw_framing;

/** "mpa" or "ift" ("?" for other values). */
DW_EXTERN const char *dw_framing_name(dw_framing f);

/** Parses "mpa" or "ift". Returns 0 or DW_ERR_INVAL. */
DW_EXTERN int dw_framing_parse(const char *name, dw_framing *f);

/* ------------------------------------------------------------------ */
/* Sender                                                              */
/* ------------------------------------------------------------------ */

typedef struct dw_fr_tx dw_fr_tx;

typedef struct dw_fr_tx_settings {
    dw_framing framing;
    /** Used when framing is MPA. */
    dw_mpa_tx_settings mpa;
    /** Used when framing is IFT. */
    dw_ift_tx_settings ift;
    /** The allocator of this object's allocations and of the framing's
     * when its own mem is NULL (NULL: the C library's); see
     * <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_fr_tx_settings;

/** The layout of dw_fr_tx_settings this header describes (see <ddpwire/common.h>). */
#define DW_FR_TX_SETTINGS_VERSION 1

/** Both framings' defaults, and the framing given. */
DW_EXTERN int dw_fr_tx_settings_default_versioned(int settings_version, dw_fr_tx_settings *s,
                                                  dw_framing f);
#define dw_fr_tx_settings_default(s, f) \
    dw_fr_tx_settings_default_versioned(DW_FR_TX_SETTINGS_VERSION, (s), (f))

/** Creates a sender for s->framing. Returns 0, DW_ERR_INVAL, DW_ERR_NOMEM. */
DW_EXTERN int dw_fr_tx_new_versioned(dw_fr_tx **ptx, int settings_version,
                                     const dw_fr_tx_settings *s);
#define dw_fr_tx_new(ptx, s) \
    dw_fr_tx_new_versioned((ptx), DW_FR_TX_SETTINGS_VERSION, (s))

/** Frees a sender; NULL is allowed. */
DW_EXTERN void dw_fr_tx_del(dw_fr_tx *tx);

DW_EXTERN dw_framing dw_fr_tx_framing(const dw_fr_tx *tx);

/** Follows an EMSS change: MPA's MULPDU follows it; IFT ignores it. */
DW_EXTERN int dw_fr_tx_set_emss(dw_fr_tx *tx, uint32_t emss);

/**
 * Largest PDU (header + payload) to send: MULPDU for MPA (MPA 7.3.1, so an
 * FPDU fits a segment), 65535 payload octets for IFT (its size field).
 */
DW_EXTERN size_t dw_fr_tx_max_pdu(const dw_fr_tx *tx);

/**
 * Largest PDU to send next so that its frame fills EMSS exactly: MPA's
 * exact fill at the sender's position (dw_mpa_tx_fill_len(); MULPDU or up
 * to 4 more); IFT has no alignment rule and gives dw_fr_tx_max_pdu().
 */
DW_EXTERN size_t dw_fr_tx_fill_len(const dw_fr_tx *tx);

/** Wire length of the next frame for a PDU of hlen + plen octets. */
DW_EXTERN size_t dw_fr_tx_frame_len(const dw_fr_tx *tx, size_t hlen, size_t plen);

/** iovecs one frame can need (either framing). */
#define DW_FR_FRAME_IOV_MAX DW_MPA_FPDU_IOV_MAX

typedef struct dw_fr_frame_info {
    /** Octets on the wire and iovecs used. */
    size_t len, iovcnt;
    /** Stream offset of the frame (MPA: position, mod 2^32). */
    uint64_t offset;
    /** MPA: the segmentation advice of dw_mpa_fpdu_info; IFT: 0. */
    int new_segment;
} dw_fr_frame_info;

/**
 * Frames one PDU as iovecs: the payload is referenced, never copied; the
 * rest points into the sender's scratch (see the framing's settings).
 * Returns the frame's wire length or the framing's error (DW_ERR_EMPTY,
 * DW_ERR_TOO_LONG, DW_ERR_NOSPACE, DW_ERR_INVAL); on error nothing is
 * framed. MPA refuses an empty PDU; IFT allows it. info may be NULL.
 */
DW_EXTERN ssize_t dw_fr_tx_frame(dw_fr_tx *tx, const void *hdr, size_t hlen,
                       const void *payload, size_t plen, struct iovec *iov,
                       size_t iovcap, dw_fr_frame_info *info);

/** The same into a contiguous buffer (payload copied with a fused CRC). */
DW_EXTERN ssize_t dw_fr_tx_frame_into(dw_fr_tx *tx, const void *hdr, size_t hlen,
                            const void *payload, size_t plen, uint8_t *out,
                            size_t cap, dw_fr_frame_info *info);

/* ------------------------------------------------------------------ */
/* Receiver                                                            */
/* ------------------------------------------------------------------ */

typedef struct dw_fr_rx dw_fr_rx;

/** A protocol error, in the framing's own codes. */
typedef struct dw_fr_error {
    dw_framing framing;
    /**
     * dw_mpa_error or dw_ift_error. Code 1 means "connection closed" in
     * both; 2 is a CRC mismatch in both (IFT: the header CRC).
     */
    int code;
    /** Stream offset of the offending frame. */
    uint64_t offset;
    /** Code 1: non-zero when the stream ended between frames. */
    int clean;
    /** Code 1: why the transport ended the stream. */
    dw_close_reason reason;
} dw_fr_error;

/** "MPA error 2: CRC mismatch"-style text for e (static storage). */
DW_EXTERN const char *dw_fr_error_str(const dw_fr_error *e);

typedef struct dw_fr_rx_callbacks {
    /**
     * A whole, verified PDU, in stream order: hdr/hlen (IFT; empty for
     * MPA) and data/len, valid only during the call (they may point into
     * the fed input). offset is the frame's stream offset. Return 0 to go
     * on, non-zero to make dw_fr_rx_feed() return right after this PDU.
     */
    int (*on_pdu)(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen,
                  const uint8_t *data, size_t len, uint64_t offset,
                  void *user_data);
    /** A protocol error; once, and nothing is delivered after it. Optional. */
    void (*on_error)(dw_fr_rx *rx, const dw_fr_error *err, void *user_data);
    /**
     * Optional: where to assemble a PDU's data of len octets that cannot
     * be delivered from the input in place (as dw_mpa_rx_callbacks); asked
     * only when that is so, valid until on_pdu or on_error for it.
     * Unverified octets land there before the verdict.
     */
    uint8_t *(*get_buffer)(dw_fr_rx *rx, size_t len, void *user_data);
} dw_fr_rx_callbacks;

/** The layout of dw_fr_rx_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_FR_RX_CALLBACKS_VERSION 1

typedef struct dw_fr_rx_settings {
    dw_framing framing;
    /** Used when framing is MPA (its buf_size is set from buf_size below). */
    dw_mpa_rx_settings mpa;
    /** Used when framing is IFT. */
    dw_ift_rx_settings ift;
    /**
     * Octets of the receiver's own buffer, allocated at creation (default
     * 65535: any PDU), for PDU data that cannot be delivered in place and
     * for which get_buffer gives none. 0: no buffer of its own. PDU data
     * with nowhere to go makes dw_fr_rx_feed() return DW_ERR_NOMEM, and
     * the receiver takes nothing more.
     */
    size_t buf_size;
    /** The allocator of this object's allocations and of the framing's
     * when its own mem is NULL (NULL: the C library's); see
     * <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_fr_rx_settings;

/** The layout of dw_fr_rx_settings this header describes (see <ddpwire/common.h>). */
#define DW_FR_RX_SETTINGS_VERSION 1

/** Both framings' defaults, and the framing given. */
DW_EXTERN int dw_fr_rx_settings_default_versioned(int settings_version, dw_fr_rx_settings *s,
                                                  dw_framing f);
#define dw_fr_rx_settings_default(s, f) \
    dw_fr_rx_settings_default_versioned(DW_FR_RX_SETTINGS_VERSION, (s), (f))

/** Creates a receiver; callbacks must have on_pdu. */
DW_EXTERN int dw_fr_rx_new_versioned(dw_fr_rx **prx, int settings_version,
                                     const dw_fr_rx_settings *s, int callbacks_version,
                                     const dw_fr_rx_callbacks *callbacks, void *user_data);
#define dw_fr_rx_new(prx, s, callbacks, user_data) \
    dw_fr_rx_new_versioned((prx), DW_FR_RX_SETTINGS_VERSION, (s), DW_FR_RX_CALLBACKS_VERSION, \
        (callbacks), (user_data))

/** Frees a receiver; NULL is allowed. */
DW_EXTERN void dw_fr_rx_del(dw_fr_rx *rx);

/**
 * Feeds the next len octets of the stream (any chunking). Returns octets
 * consumed (len, or fewer after on_pdu returned non-zero), DW_ERR_PROTO
 * once an error was reported, DW_ERR_NOMEM once PDU data had no buffer
 * (see buf_size), DW_ERR_INVAL.
 */
DW_EXTERN ssize_t dw_fr_rx_feed(dw_fr_rx *rx, const void *in, size_t len);

/**
 * A verified MPA ULPDU as iovcnt pieces (1..DW_MPA_ULPDU_IOV_MAX) of len
 * octets in all (see dw_mpa_rx_iov_fn); offset, user_data and the return
 * value as for on_pdu. Pieces are valid only during the call.
 */
typedef int (*dw_fr_rx_iov_fn)(dw_fr_rx *rx, const struct iovec *iov, int iovcnt, size_t len,
                               uint64_t offset, void *user_data);

/**
 * MPA only: delivers PDUs through fn instead of on_pdu from now on (NULL:
 * back to on_pdu), as dw_mpa_rx_set_iov_fn(): an FPDU whole in one feed
 * comes as the pieces of the fed octets between its markers, so markers
 * cost no copy. Returns 0, DW_ERR_UNSUPPORTED for IFT, DW_ERR_INVAL.
 */
DW_EXTERN int dw_fr_rx_set_iov_fn(dw_fr_rx *rx, dw_fr_rx_iov_fn fn);

/** The stream ended (code 1 unless it ended between frames): 0 or DW_ERR_PROTO. */
DW_EXTERN int dw_fr_rx_close(dw_fr_rx *rx, dw_close_reason reason);

/** Octets consumed since the framing began. */
DW_EXTERN uint64_t dw_fr_rx_offset(const dw_fr_rx *rx);

/** PDUs delivered so far. */
DW_EXTERN uint64_t dw_fr_rx_delivered(const dw_fr_rx *rx);

/** The protocol error code reported so far, or 0. */
DW_EXTERN int dw_fr_rx_failed(const dw_fr_rx *rx);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_FRAMING_H */
