/* SPDX-License-Identifier: MIT */
/*
 * The TCP RDMA option's receiver (draft-csapuntz-tcprdma-00 3.1, 6.1):
 * one per direction of a TCP connection, it places the data options
 * describe into registered buffers and passes the rest on as the ordinary
 * stream. The option itself: <ddpwire/tcpopt.h>.
 */
#ifndef DDPWIRE_TCPOPT_RX_H
#define DDPWIRE_TCPOPT_RX_H

#include <ddpwire/tcpopt.h>
#include <ddpwire/mem.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** The layout of dw_tcpopt_rx_settings this header describes (see <ddpwire/common.h>). */
#define DW_TCPOPT_RX_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_tcpopt_rx_settings_default_versioned(int settings_version,
                                                      dw_tcpopt_rx_settings *s);
#define dw_tcpopt_rx_settings_default(s) \
    dw_tcpopt_rx_settings_default_versioned(DW_TCPOPT_RX_SETTINGS_VERSION, (s))

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

/** The layout of dw_tcpopt_rx_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_TCPOPT_RX_CALLBACKS_VERSION 1

/**
 * Creates a receiver; settings may be NULL for the defaults, callbacks
 * must have on_stream. Allocates the reassembly store and the pool here.
 * Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_tcpopt_rx_new_versioned(dw_tcpopt_rx **prx, int settings_version,
                                         const dw_tcpopt_rx_settings *settings,
                                         int callbacks_version,
                                         const dw_tcpopt_rx_callbacks *callbacks,
                                         void *user_data);
#define dw_tcpopt_rx_new(prx, settings, callbacks, user_data) \
    dw_tcpopt_rx_new_versioned((prx), DW_TCPOPT_RX_SETTINGS_VERSION, (settings), \
        DW_TCPOPT_RX_CALLBACKS_VERSION, (callbacks), (user_data))

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

#endif /* DDPWIRE_TCPOPT_RX_H */
