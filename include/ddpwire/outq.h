/* SPDX-License-Identifier: MIT */
/*
 * An output queue: frames that wait for room in a socket (the socket
 * adapter's non-blocking sends, mpa_sock.h). Sans-I/O, like the rest of
 * the core: frames are copied in, handed out as iovecs for sendmsg, and
 * given up as the socket takes them.
 *
 * Ownership: dw_outq_push() copies the frame's octets; the caller's
 * buffers are free again as soon as it returns. The iovecs of
 * dw_outq_peek() point into the queue and stay valid until the next
 * dw_outq_push() or dw_outq_del(); dw_outq_consume() frees only chunks
 * wholly before the new first octet, so the iovecs of the octets still
 * queued stay valid across it (a transport may send frame after frame of
 * one peek, giving each up as it goes).
 *
 * Boundaries are kept, so a transport can send each frame as its own
 * record (MSG_EOR: MPA's one FPDU per segment) or group whole frames.
 *
 * Bounds: a frame is taken when the queue is empty, or when the octets
 * queued and the frame's fit within the limit; so the queue never holds
 * more than limit octets, except one frame longer than the limit alone.
 * Memory: chunks of chunk_size octets, allocated as frames arrive and
 * freed as they drain; an empty queue holds none.
 */
#ifndef DDPWIRE_OUTQ_H
#define DDPWIRE_OUTQ_H

#include <ddpwire/common.h>
#include <ddpwire/mem.h>
#include <sys/uio.h> /* struct iovec */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dw_outq dw_outq;

typedef struct dw_outq_settings {
    /** Octets the queue may hold (default 262144, at least 1). */
    size_t limit;
    /** Octets per storage chunk (default 16384, at least 1024). */
    size_t chunk_size;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_outq_settings;

/** The layout of dw_outq_settings this header describes (see <ddpwire/common.h>). */
#define DW_OUTQ_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_outq_settings_default_versioned(int settings_version,
                                                 dw_outq_settings *settings);
#define dw_outq_settings_default(settings) \
    dw_outq_settings_default_versioned(DW_OUTQ_SETTINGS_VERSION, (settings))

/**
 * Creates an empty queue (it allocates no chunk yet). settings may be
 * NULL for the defaults. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_outq_new_versioned(dw_outq **pq, int settings_version,
                                    const dw_outq_settings *settings);
#define dw_outq_new(pq, settings) \
    dw_outq_new_versioned((pq), DW_OUTQ_SETTINGS_VERSION, (settings))

/** Frees a queue and what it holds; NULL is allowed. */
DW_EXTERN void dw_outq_del(dw_outq *q);

/** Non-zero when a frame of len octets would be taken now (see Bounds). */
DW_EXTERN int dw_outq_fits(const dw_outq *q, size_t len);

/**
 * Copies one frame, the octets of iov[0..iovcnt) after the first skip
 * (already sent), to the end of the queue. Returns the octets queued (0
 * when skip covers the whole frame: nothing is queued), DW_ERR_AGAIN when
 * the frame does not fit (see Bounds), DW_ERR_NOMEM, DW_ERR_TOO_LONG (more
 * than 2^31 octets) or DW_ERR_INVAL; on error nothing was queued.
 */
DW_EXTERN ssize_t dw_outq_push(dw_outq *q, const struct iovec *iov, size_t iovcnt,
                               size_t skip);

/** Octets queued (frames only, not the queue's own bookkeeping). */
DW_EXTERN size_t dw_outq_octets(const dw_outq *q);

/** Frames queued; the first may have been sent in part. */
DW_EXTERN size_t dw_outq_frames(const dw_outq *q);

/** One frame as dw_outq_peek() describes it. */
typedef struct dw_outq_span {
    /** Its first iovec (an index into the iovecs given) and how many. */
    size_t iov, iovcnt;
    /** Its octets still queued (the first frame's rest, if sent in part). */
    size_t len;
} dw_outq_span;

/**
 * Describes the first frames, oldest first: their octets as iovecs into
 * iov (at most iovcap) and one span per frame (at most nspans). Only
 * whole frames (or the first frame's whole rest) are described; a frame
 * of len octets needs at most len / chunk_size + 2 iovecs. Returns the
 * frames described: 0 when the queue is empty or the first frame needs
 * more than iovcap iovecs.
 */
DW_EXTERN size_t dw_outq_peek(const dw_outq *q, struct iovec *iov, size_t iovcap,
                              dw_outq_span *spans, size_t nspans);

/**
 * Gives up the first n queued octets (the socket took them); a frame goes
 * when its last octet does, and chunks are freed as they drain. Returns 0,
 * or DW_ERR_INVAL when n is more than is queued (nothing is given up).
 */
DW_EXTERN int dw_outq_consume(dw_outq *q, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_OUTQ_H */
