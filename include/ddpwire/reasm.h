/* SPDX-License-Identifier: MIT */
/*
 * One direction of a TCP connection, put back in order from captured
 * segments: the reassembler that `ddpwire dump` feeds with what a capture
 * saw, in the capture's arrival order.
 *
 * A dissector is not a TCP receiver: it must not trust that it saw every
 * segment, and it must say what it did not see. So the reassembler
 *  - delivers octets in stream order, each chunk tagged with the captured
 *    segment that first carried it (the first arrival wins; later copies
 *    are compared with it and reported, never delivered again);
 *  - holds segments that arrive ahead of the in-order point in a bounded
 *    store and, when that store is full or the capture ends, gives up on
 *    the missing octets: it reports them as a gap and goes on after it;
 *  - reports octets a snap length cut off as a gap of their own kind,
 *    as soon as the in-order point reaches them; a captured copy of those
 *    octets fills them only if it arrives before that (while the cut
 *    segment is still held ahead of the in-order point).
 *
 * Stream offsets count octets since the first octet of the direction's
 * data (the octet after the SYN when the SYN was captured, else the first
 * captured octet), as 64-bit numbers, so sequence numbers may wrap at
 * 2^32 any number of times. Segments are placed by 32-bit serial-number
 * arithmetic relative to the in-order point (RFC 1982): at most 2^31 - 1
 * octets ahead; anything before the in-order point is old.
 *
 * No I/O, no clock. The store is allocated the first time a segment must
 * be held, 4 KiB at first, and grows (doubling, up to store_bytes) as
 * held segments reach further into it; in-order data is never copied. It
 * is a window: a segment is held only if it ends within store_bytes of the
 * in-order point and a table slot is free; if not, the hole before the
 * earliest held segment (or before this one) is given up as a LOST gap,
 * held data is delivered as far as it continues, and the segment is
 * tried once more (then DROPPED). A segment that begins more than
 * max(store_bytes, 1 MiB) ahead gives up the hole only when the last such
 * segment ended within 1 MiB of it: one corrupt sequence number must not
 * make the stream jump (all real data after it would then be "old"), a
 * second far segment near the first confirms a real jump (a capture that
 * lost that much); the first is DROPPED.
 */
#ifndef DDPWIRE_REASM_H
#define DDPWIRE_REASM_H

#include <ddpwire/common.h>
#include <ddpwire/mem.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dw_reasm dw_reasm;

/** Where delivered octets came from. */
typedef struct dw_reasm_chunk {
    /** Stream offset of the first octet delivered. */
    uint64_t offset;
    /** Its TCP sequence number. */
    uint32_t seq;
    /** The caller's number of the captured segment that carried them. */
    uint64_t pkt;
    /** That segment's first payload sequence number and payload length
     * (as on the wire, not as captured). */
    uint32_t seg_seq;
    uint32_t seg_len;
    /** Non-zero when the chunk begins at the segment's first payload
     * octet (a segment boundary: what header alignment is judged by). */
    int seg_start;
    /** Non-zero when the chunk ends at the segment's last payload octet. */
    int seg_end;
} dw_reasm_chunk;

/** Why octets are missing. */
typedef enum dw_reasm_gap_kind {
    /** Never captured (lost before the capture point, or dropped by it). */
    DW_REASM_GAP_LOST = 0,
    /** Captured, but the snap length cut them off. */
    DW_REASM_GAP_SNAPLEN = 1
} dw_reasm_gap_kind;

/** Octets that will never be delivered. */
typedef struct dw_reasm_gap {
    uint64_t offset;
    uint32_t seq;
    uint64_t len;
    dw_reasm_gap_kind kind;
    /** For SNAPLEN: the segment that was cut. For LOST: the segment whose
     * arrival (or the end of capture: UINT64_MAX) made the reassembler
     * give up. */
    uint64_t pkt;
} dw_reasm_gap;

/** Things worth telling about a segment; none of them stops the stream. */
typedef enum dw_reasm_event_kind {
    /** Every octet was delivered or held already: a retransmission. */
    DW_REASM_EV_RETRANSMIT = 0,
    /** Some octets old, some new: a re-segmented retransmission or an
     * overlap. Only the new octets are used. */
    DW_REASM_EV_OVERLAP,
    /** Octets that overlap earlier ones still held differ from them
     * (first arrival kept; delivered octets cannot be compared). seq,
     * offset and len locate the first differing run (within one held
     * segment). */
    DW_REASM_EV_MISMATCH,
    /** Arrived ahead of the in-order point and was held. */
    DW_REASM_EV_OUT_OF_ORDER,
    /** Ahead of the in-order point and not held: the store was full and
     * could not be freed by giving up octets before it, or it lies far
     * ahead and no other far segment confirms the jump (see above). It is
     * reported as a gap later, unless a copy arrives. */
    DW_REASM_EV_DROPPED,
    /** Octets before the stream's first octet: ignored (a sequence number
     * 2^31 or more ahead of the in-order point counts as behind it). */
    DW_REASM_EV_OUT_OF_WINDOW,
    /** A SYN (the stream starts after it; a second SYN with another
     * sequence number is reported and ignored). */
    DW_REASM_EV_SYN,
    /** The FIN: the stream ends at its sequence number (the first FIN's;
     * reported when the segment arrives, after its in-order data). */
    DW_REASM_EV_FIN,
    /** A reset. */
    DW_REASM_EV_RST,
    /** Payload after the FIN's sequence number (also for a held segment
     * that a later FIN cuts back: then its pkt, seq and len). */
    DW_REASM_EV_AFTER_FIN
} dw_reasm_event_kind;

typedef struct dw_reasm_event {
    dw_reasm_event_kind kind;
    uint64_t pkt;
    /** The segment's first payload sequence number and payload length. */
    uint32_t seq;
    uint32_t len;
    /** Stream offset of seq, when the stream has started (else 0). */
    uint64_t offset;
} dw_reasm_event;

typedef struct dw_reasm_callbacks {
    /**
     * In-order octets, each call within one captured segment. data is
     * valid during the call only: it points into the payload given to
     * dw_reasm_feed() or into the store. Required.
     */
    void (*on_data)(dw_reasm *r, const uint8_t *data, size_t len,
                    const dw_reasm_chunk *chunk, void *user_data);
    /** Octets given up on, in stream order with on_data. Optional. */
    void (*on_gap)(dw_reasm *r, const dw_reasm_gap *gap, void *user_data);
    /** Optional. */
    void (*on_event)(dw_reasm *r, const dw_reasm_event *ev, void *user_data);
} dw_reasm_callbacks;

/** The layout of dw_reasm_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_REASM_CALLBACKS_VERSION 1

typedef struct dw_reasm_settings {
    /** Octets that can be held ahead of the in-order point: held data
     * must end within this many octets of it (default 262144, at most
     * 2^30; 0: hold nothing, every hole becomes a gap at once). */
    size_t store_bytes;
    /** Segments (and snap-length cuts) that can be held at once
     * (default 1024, at most 2^20). */
    size_t max_held;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_reasm_settings;

/** The layout of dw_reasm_settings this header describes (see <ddpwire/common.h>). */
#define DW_REASM_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_reasm_settings_default_versioned(int settings_version,
                                                  dw_reasm_settings *settings);
#define dw_reasm_settings_default(settings) \
    dw_reasm_settings_default_versioned(DW_REASM_SETTINGS_VERSION, (settings))

/**
 * Creates a reassembler: settings may be NULL; callbacks must have
 * on_data; settings beyond the limits above are DW_ERR_INVAL. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_reasm_new_versioned(dw_reasm **pr, int settings_version,
                                     const dw_reasm_settings *settings, int callbacks_version,
                                     const dw_reasm_callbacks *callbacks, void *user_data);
#define dw_reasm_new(pr, settings, callbacks, user_data) \
    dw_reasm_new_versioned((pr), DW_REASM_SETTINGS_VERSION, (settings), \
        DW_REASM_CALLBACKS_VERSION, (callbacks), (user_data))

/** Frees a reassembler; NULL is allowed. */
DW_EXTERN void dw_reasm_del(dw_reasm *r);

/**
 * Feeds one captured segment of this direction: pkt is the caller's
 * number for it (reported back), seq and flags (DW_PKT_SYN, DW_PKT_FIN,
 * DW_PKT_RST from <ddpwire/pkt.h>) from its TCP header, payload_len its
 * payload length on the wire and caplen <= payload_len the octets the
 * capture holds (the missing tail is a SNAPLEN gap once it is reached).
 * A SYN with a sequence number other than the stream's is reported and
 * the segment ignored. Zero-length segments without SYN, FIN or RST are
 * only counted. If the store or a table cannot be allocated (or grow)
 * the segment is treated as if the store were full (a gap may be reported
 * that the capture does not have) and this call and every later one
 * return DW_ERR_NOMEM.
 * Calls the callbacks before it returns. Returns 0, DW_ERR_INVAL (NULL
 * payload with caplen > 0, caplen > payload_len, payload_len > 65535 * 16),
 * DW_ERR_NOMEM or DW_ERR_STATE (called from a callback).
 */
DW_EXTERN int dw_reasm_feed(dw_reasm *r, uint64_t pkt, uint32_t seq, uint8_t flags,
                  const uint8_t *payload, size_t caplen, size_t payload_len);

/**
 * The capture ended (or the caller evicts the flow): delivers everything
 * held, reporting the holes before and between held segments as LOST
 * gaps, and the hole up to a FIN's sequence number if one was seen.
 * Further feeds start after the last octet held. Returns 0, DW_ERR_INVAL
 * (NULL) or DW_ERR_STATE.
 */
DW_EXTERN int dw_reasm_flush(dw_reasm *r);

/** Non-zero once the stream has a first octet (a SYN or data was seen). */
DW_EXTERN int dw_reasm_started(const dw_reasm *r);

/** Stream offset of the in-order point (octets delivered or given up). */
DW_EXTERN uint64_t dw_reasm_offset(const dw_reasm *r);

/** Counters, readable at any time. */
typedef struct dw_reasm_stats {
    uint64_t segments;      /* fed */
    uint64_t octets;        /* payload octets fed (wire lengths) */
    uint64_t delivered;     /* octets delivered through on_data */
    uint64_t gaps;          /* gaps reported */
    uint64_t gap_octets;    /* octets in them */
    uint64_t retransmits;   /* DW_REASM_EV_RETRANSMIT */
    uint64_t overlaps;      /* DW_REASM_EV_OVERLAP */
    uint64_t mismatches;    /* DW_REASM_EV_MISMATCH */
    uint64_t out_of_order;  /* DW_REASM_EV_OUT_OF_ORDER */
    uint64_t dropped;       /* DW_REASM_EV_DROPPED */
    uint64_t held;          /* octets held now */
    uint64_t held_peak;     /* the most ever held */
} dw_reasm_stats;

/** Copies the counters. */
DW_EXTERN void dw_reasm_stats_get(const dw_reasm *r, dw_reasm_stats *stats);

/** Short name of an event kind ("out_of_order"; the JSON kinds of `ddpwire dump`). */
DW_EXTERN const char *dw_reasm_event_name(dw_reasm_event_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_REASM_H */
