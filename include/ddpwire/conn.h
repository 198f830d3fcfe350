/* SPDX-License-Identifier: MIT */
/*
 * One MPA (or IFT) connection, sans-I/O: the start-up in both forms (MPA
 * mode at once, or the RFC 5044 exchange with RFC 6581's enhanced set-up),
 * the negotiation, enablement detection, the first-marker check, framing
 * and receiving, in one object that makes no system call and reads no
 * clock. Any I/O drives it: the socket adapter (mpa_sock.h) is one pump,
 * examples/uring_mpa.c (io_uring) another.
 *
 * A pump does four things:
 *
 *   octets arrived:  r = dw_conn_recv(c, p, n); records come through the
 *                    callbacks; r < n: feed p + r again (the start-up just
 *                    completed, or on_pdu asked to stop); r < 0: failed
 *   the stream ended: dw_conn_recv_end(c, DW_MPA_CLOSE_FIN) (or RST, ...)
 *   to send:         first the octets dw_conn_send_pending() gives (start-up
 *                    frames), then dw_conn_send_consume(c, n) for those taken;
 *                    then records framed with dw_conn_writev_iov() (iovecs
 *                    pointing at the caller's payload: zero-copy) or
 *                    dw_conn_write_into() (one contiguous buffer)
 *   EMSS known/changed: dw_conn_set_emss(c, emss) (MPA 7.3.1: MULPDU)
 *
 * Octets must leave in the order they were asked for: pending start-up
 * octets, then frames in the order they were framed, whole. How frames are
 * grouped into writes (and segments, MPA 7.3) is the pump's choice.
 */
#ifndef DDPWIRE_CONN_H
#define DDPWIRE_CONN_H

#include <ddpwire/framing.h>
#include <ddpwire/mem.h>
#include <ddpwire/mpa_startup.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How MPA mode begins (MPA 8.1). */
typedef enum dw_conn_startup {
    /** At the first octet after the TCP handshake (first marker 0). */
    DW_CONN_IMMEDIATE = 0,
    /** After the RFC 5044 request/reply exchange (RFC 6581 with rev 2). */
    DW_CONN_NEGOTIATE = 1
} dw_conn_startup;

/** rx_keep: keep no reassembly buffer between records. */
#define DW_CONN_RX_KEEP_NONE ((size_t)-1)

typedef struct dw_conn_settings {
    /** MPA (default) or IFT; IFT needs immediate start-up, has no markers
     *  (markers is ignored) and no alignment rule. */
    dw_framing framing;
    dw_conn_startup startup;
    /** Non-zero for the side that opened the TCP connection (it sends the
     *  request, and the RTR with peer-to-peer); 0 for the responder. */
    int initiator;
    /** Immediate: markers both ways. Negotiate: markers wanted for our
     *  receive direction (M); the peer decides ours. */
    int markers;
    /** Immediate: CRC both ways. Negotiate: CRC wanted (C). */
    int crc;
    /** Negotiate: agree to send markers when the peer asks. */
    int allow_markers;
    /** The sender's segmentation advice and marker pointer base (mpa.h). */
    dw_mpa_seg_mode seg_mode;
    dw_mpa_ptr_base ptr_base;
    /** Negotiate: our private data (at most 512 octets; copied at creation). */
    const uint8_t *pd;
    uint16_t pd_len;
    /** Negotiate: revision (1: RFC 5044, 2: RFC 6581) and the enhanced
     *  set-up's settings, as in dw_mpa_nego_settings. */
    uint8_t rev;
    int enhanced;
    uint16_t ird, ord;
    int p2p;
    unsigned rtr;
    /** Octets of the sender's scratch ring for headers, markers, pad and
     *  CRCs (0: DW_MPA_FPDU_MAX + 2048; at least 2048). */
    size_t tx_scratch;
    /**
     * A record that does not arrive in one dw_conn_recv() is put together
     * in a buffer allocated for it (unless get_buffer gives one). One of
     * at most rx_keep octets is kept for the next such record; a longer
     * one is freed once delivered (0: 65535; DW_CONN_RX_KEEP_NONE: none).
     */
    size_t rx_keep;
    /** The allocator for everything the connection allocates (NULL: the
     *  C library's); see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_conn_settings;

/** The layout of dw_conn_settings this header describes (see <ddpwire/common.h>). */
#define DW_CONN_SETTINGS_VERSION 1

/** Defaults: MPA, immediate, responder, markers and CRC, allow markers,
 *  aligned, revision 1 (enhanced on for revision 2, IRD 1, ORD 1). */
DW_EXTERN int dw_conn_settings_default_versioned(int settings_version, dw_conn_settings *s);
#define dw_conn_settings_default(s) \
    dw_conn_settings_default_versioned(DW_CONN_SETTINGS_VERSION, (s))

typedef struct dw_conn dw_conn;

typedef struct dw_conn_callbacks {
    /**
     * A whole, verified record, in stream order (as dw_fr_rx_callbacks'
     * on_pdu): hdr/hlen (IFT; empty for MPA) and data/len, valid only
     * during the call. Return 0 to go on, non-zero to make dw_conn_recv()
     * return right after this record. Required.
     */
    int (*on_pdu)(dw_conn *c, const uint8_t *hdr, size_t hlen, const uint8_t *data,
                  size_t len, uint64_t offset, void *user_data);
    /** A protocol error in the framing's own codes; once. Optional. */
    void (*on_error)(dw_conn *c, const dw_fr_error *err, void *user_data);
    /** Optional: where to assemble a record of len octets that spans
     *  inputs (as dw_fr_rx_callbacks); NULL: the connection's own buffer. */
    uint8_t *(*get_buffer)(dw_conn *c, size_t len, void *user_data);
} dw_conn_callbacks;

/** The layout of dw_conn_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_CONN_CALLBACKS_VERSION 1

/**
 * Creates a connection. Immediate start-up: in MPA mode at once. Negotiate:
 * an initiator's request waits in dw_conn_send_pending(). Allocates the
 * object, its start-up buffers and (immediate) the sender and receiver;
 * negotiated ones are created when the start-up completes (the start-up
 * buffers are allocated for a negotiated start-up only, and all but the
 * peer's frame freed once in MPA mode with our frame sent).
 * Returns 0, DW_ERR_INVAL (no on_pdu, bad settings), DW_ERR_UNSUPPORTED (IFT with
 * negotiated start-up), DW_ERR_TOO_LONG (private data) or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_conn_new_versioned(dw_conn **pc, int settings_version,
                                    const dw_conn_settings *settings, int callbacks_version,
                                    const dw_conn_callbacks *callbacks, void *user_data);
#define dw_conn_new(pc, settings, callbacks, user_data) \
    dw_conn_new_versioned((pc), DW_CONN_SETTINGS_VERSION, (settings), \
        DW_CONN_CALLBACKS_VERSION, (callbacks), (user_data))

/** Frees a connection; NULL is allowed. */
DW_EXTERN void dw_conn_del(dw_conn *c);

/** A record as pieces (see dw_fr_rx_iov_fn); as on_pdu otherwise. */
typedef int (*dw_conn_iov_fn)(dw_conn *c, const struct iovec *iov, int iovcnt, size_t len,
                              uint64_t offset, void *user_data);

/**
 * MPA only: delivers records through fn instead of on_pdu from now on
 * (NULL: back to on_pdu), also after a negotiated start-up completes; see
 * dw_fr_rx_set_iov_fn(). Returns 0, DW_ERR_UNSUPPORTED (IFT), DW_ERR_INVAL.
 */
DW_EXTERN int dw_conn_set_iov_fn(dw_conn *c, dw_conn_iov_fn fn);

/**
 * Feeds the next len octets received (any chunking). Before MPA mode they
 * go to the start-up: returns right after the peer's start-up frame (what
 * follows is MPA mode: feed it again), and after a responder's judgement
 * the reply waits in dw_conn_send_pending(). In MPA mode: the receiver's
 * callbacks. Returns the octets consumed (fewer than len when the start-up
 * just completed or on_pdu returned non-zero), or, for good (every later
 * call returns the same, and nothing is delivered after it):
 * DW_ERR_ENABLEMENT (negotiate: not a start-up frame, or a reply key at the
 * responder; immediate MPA with markers: the first four octets are not a
 * zero marker; IFT: a first frame with impossible sizes or a bad header
 * CRC; an empty first MPA record, as an IFT peer's first frame reads),
 * DW_ERR_REJECTED (see dw_conn_get_info()'s reason), DW_ERR_PROTO (an MPA
 * or IFT error, reported through on_error), DW_ERR_NOMEM.
 */
DW_EXTERN ssize_t dw_conn_recv(dw_conn *c, const void *in, size_t len);

/**
 * The received stream ended: MPA 9 code 1 through on_error when inside a
 * frame. Returns DW_ERR_CLOSED (an orderly FIN at a frame boundary, or any
 * end before MPA mode), DW_ERR_TIMEOUT (reason TIMEOUT), DW_ERR_PROTO, or
 * the error the connection had already failed with.
 */
DW_EXTERN int dw_conn_recv_end(dw_conn *c, dw_mpa_close_reason reason);

/** Non-zero once in MPA mode (start-up complete): records may be framed,
 *  also after the receive direction failed. */
DW_EXTERN int dw_conn_ready(const dw_conn *c);

/** The error the connection failed with (see dw_conn_recv()), or 0. */
DW_EXTERN int dw_conn_failed(const dw_conn *c);

/**
 * Octets the connection itself must send before anything else (a start-up
 * request or reply): *p points at them (valid until the next call on c);
 * 0 when there are none.
 */
DW_EXTERN size_t dw_conn_send_pending(const dw_conn *c, const uint8_t **p);

/** n octets of dw_conn_send_pending() were taken by the transport. */
DW_EXTERN void dw_conn_send_consume(dw_conn *c, size_t n);

/**
 * Frames one record (a header of hlen octets, may be empty, then a payload;
 * MPA: 1..MULPDU octets in all; IFT: header and payload up to 65535 each)
 * as iovecs: the payload is referenced, never copied; the rest points into
 * the sender's scratch ring, valid until tx_scratch more octets have been
 * framed. Returns the frame's wire length, DW_ERR_STATE (not in MPA mode,
 * or start-up octets still pending; a failed receive direction does not stop
 * sending), or the framing's error
 * (DW_ERR_EMPTY, DW_ERR_TOO_LONG, DW_ERR_NOSPACE: iovcap too small; at most
 * DW_FR_FRAME_IOV_MAX are used); on error nothing is framed. info may be NULL.
 */
DW_EXTERN ssize_t dw_conn_writev_iov(dw_conn *c, const void *hdr, size_t hlen,
                                     const void *payload, size_t plen, struct iovec *iov,
                                     size_t iovcap, dw_fr_frame_info *info);

/** The same into out (cap octets; the payload copied with a fused CRC). */
DW_EXTERN ssize_t dw_conn_write_into(dw_conn *c, const void *hdr, size_t hlen,
                                     const void *payload, size_t plen, uint8_t *out,
                                     size_t cap, dw_fr_frame_info *info);

/** Wire length of the next frame for hlen + plen octets (0 before MPA mode). */
DW_EXTERN size_t dw_conn_frame_len(const dw_conn *c, size_t hlen, size_t plen);

/** The record size whose frame fills EMSS exactly at the sender's position
 *  (dw_fr_tx_fill_len()); 0 before MPA mode. */
DW_EXTERN size_t dw_conn_fill_len(const dw_conn *c);

/** The largest record to send (MULPDU; IFT 65535); 0 before MPA mode. */
DW_EXTERN size_t dw_conn_max_pdu(const dw_conn *c);

/** Follows the transport's EMSS (MPA 7.3.1): MULPDU follows it. */
DW_EXTERN void dw_conn_set_emss(dw_conn *c, uint32_t emss);

/** What the start-up agreed (immediate: the settings). */
typedef struct dw_conn_info {
    dw_framing framing;
    int tx_markers, rx_markers, crc;
    /** The EMSS last given (0: none yet) and MULPDU (0 before MPA mode). */
    uint32_t emss, mulpdu;
    /** Negotiate: the peer's frame (private data valid while c lives). */
    dw_mpa_startup peer;
    /** Negotiate: revision in effect, enhanced set-up, our IRD/ORD, the
     *  RTR kind agreed (peer-to-peer), and why a start-up was refused. */
    uint8_t rev;
    int enhanced;
    uint16_t ird, ord;
    dw_mpa_rtr rtr;
    dw_mpa_nego_reason reason;
} dw_conn_info;

DW_EXTERN void dw_conn_get_info(const dw_conn *c, dw_conn_info *info);

/** Non-zero while a frame (or the peer's start-up frame) has begun to
 *  arrive and is not complete (for a deadline on frames). */
DW_EXTERN int dw_conn_in_frame(const dw_conn *c);

typedef struct dw_conn_stats {
    /** Octets fed (start-up and MPA mode) and records delivered. */
    uint64_t octets_in, records_in;
    /** Wire octets framed and records framed (start-up frames apart). */
    uint64_t octets_out, records_out;
    /** Start-up octets received and given to send. */
    uint64_t startup_in, startup_out;
} dw_conn_stats;

DW_EXTERN void dw_conn_stats_get(const dw_conn *c, dw_conn_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_CONN_H */
