/* SPDX-License-Identifier: MIT */
/*
 * MPA segment receiver: out-of-order placement on an MPA-aware TCP
 * (MPA 5.1, 5.2, 7.4, 9), fed (sequence number, octets) segments.
 */
#ifndef DDPWIRE_MPA_SEG_H
#define DDPWIRE_MPA_SEG_H

#include <ddpwire/mpa.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Segment receiver: out-of-order placement (MPA 5.1, 5.2, 7.4, 9)     */
/* ------------------------------------------------------------------ */

/*
 * The receive side of an MPA-aware TCP (MPA 5.1): fed TCP segments as they
 * arrive, as (sequence number, octets), in any order, duplicated,
 * overlapping or re-cut on retransmission, sequence numbers wrapping at
 * 2^32. It calls back twice per ULPDU, in the texts' vocabulary:
 *
 * - on_place as soon as the ULPDU's FPDU is complete, located and its CRC
 *   verified (MPA 7.4), in any order, each ULPDU exactly once, with its
 *   stream position (MPA 5.2: pass each ULPDU as soon as it is validated);
 * - on_deliver in the sender's order, once it and everything before it are
 *   complete (MPA 4 "Delivery"; 5.2).
 *
 * Locating FPDUs in a segment that does not follow the in-order point:
 *
 * - markers (MPA 7.4 method 2): each marker names the start of the FPDU
 *   that holds it; both FPDUPTR readings are accepted (mpa.h top);
 * - ULPDU lengths (methods 1 and 3): the end of every verified FPDU, and
 *   the in-order point, locate the next FPDU;
 * - header alignment, as a hint only. A segment's first octet is trusted as
 *   an FPDU start only when the FPDUs chained from it by their
 *   ULPDU_Length fields (each one complete in the octets at hand and
 *   CRC-valid, none crossing a known FPDU start) land exactly on an FPDU
 *   start already located by a marker or by lengths. (An FPDU holding a
 *   marker that names it is located by that marker.) Until then the
 *   segment is held like any other octets; a hint whose CRC or markers do
 *   not agree is dropped without an error, since alignment is not one of
 *   7.4's locating rules and MPA receivers MUST NOT depend on it (7.4.1).
 *
 * So a header-aligned segment of an FPDU that holds a marker (any FPDU
 * longer than 512 octets, so every MULPDU-sized one) is placed on arrival
 * with no copy into the store; FPDUs split across segments wait in the
 * reassembly store until their octets meet. Without markers only the
 * in-order point and verified lengths locate FPDUs.
 *
 * Errors (MPA 9), after which nothing is placed or delivered. Every FPDU
 * is judged in its turn, in stream order, on its own octets, as
 * dw_mpa_rx judges it, so the same stream gives the same records and the
 * same error (code and offset) in any segment order:
 * - code 2 when an FPDU's CRC does not match;
 * - code 3 when its CRC is valid but a marker inside it does not name its
 *   start (a marker that names another FPDU, or a point inside one, is
 *   the error of the FPDU that holds it, not of the FPDU it names);
 * - code 3 at once, too, when a gap closes on a disagreement that cannot
 *   be judged on the octets: the in-order FPDU's ULPDU_Length makes it
 *   overlap an FPDU already placed (whose octets are gone), where
 *   dw_mpa_rx would say code 2 (or 1) at the same FPDU.
 * An FPDU found bad ahead of the in-order point (its CRC, its markers, or
 * a disagreement with FPDUs or markers already seen) is not placed and
 * not reported then: it is not located unambiguously (MPA 7.4); its
 * octets wait like others and the error is reported when the in-order
 * point reaches it, after every FPDU before it is delivered (MPA 9 lets
 * an MPA-aware TCP drop such a segment rather than report at once).
 * on_error's offset is always dw_mpa_seg_offset() then.
 *
 * Commitment (MPA 5.1): octets that are part of a placed FPDU, held in the
 * store or consumed in order are committed and never taken again:
 * duplicates of them are ignored even when they differ. The store is
 * bounded (settings.store_bytes, allocated at creation). When an
 * out-of-order segment's octets do not fit, they are not committed (stats
 * fallbacks) and the receiver waits for them in order: in-order octets
 * never need the store. The caller (the TCP) must offer every octet after
 * dw_mpa_seg_ack() that dw_mpa_seg_sack() does not list again, as a TCP
 * sender retransmits what was not acknowledged; nothing is lost.
 *
 * No allocation after creation, no I/O, no clock. Callbacks must not feed
 * or close the receiver they are called from.
 */
typedef struct dw_mpa_seg dw_mpa_seg;

/** One ULPDU, as placed or delivered. */
typedef struct dw_mpa_seg_pdu {
    /** Stream offset of the FPDU's first octet (its leading marker, if any). */
    uint64_t offset;
    /** TCP sequence number of that octet. */
    uint32_t seq;
    /** ULPDU octets. */
    uint32_t len;
    /** FPDU octets on the wire, markers included. */
    uint32_t fpdu_len;
    /** Non-zero when placed before its turn (an earlier FPDU incomplete). */
    int early;
} dw_mpa_seg_pdu;

typedef struct dw_mpa_seg_callbacks {
    /**
     * A complete, located, CRC-verified ULPDU (markers stripped), in any
     * order, once per ULPDU. data is valid only during the call. Required.
     */
    void (*on_place)(dw_mpa_seg *r, const uint8_t *data,
                     const dw_mpa_seg_pdu *pdu, void *user_data);
    /** The ULPDU and every one before it are complete, in sender order. Optional. */
    void (*on_deliver)(dw_mpa_seg *r, const dw_mpa_seg_pdu *pdu, void *user_data);
    /** An MPA error (code 1, 2 or 3; see dw_mpa_rx_error). Called once. Optional. */
    void (*on_error)(dw_mpa_seg *r, const dw_mpa_rx_error *err, void *user_data);
} dw_mpa_seg_callbacks;

/** The layout of dw_mpa_seg_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_MPA_SEG_CALLBACKS_VERSION 1

typedef struct dw_mpa_seg_settings {
    /** TCP sequence number of the first octet received in MPA mode. */
    uint32_t start_seq;
    /** Markers expected (default 1). Without them nothing is placed early. */
    int markers;
    /** Verify CRCs (default 1). */
    int crc;
    /**
     * Reassembly store for octets of FPDUs split across segments that
     * arrive out of order (default 65536; 0: no out-of-order store).
     * Allocated at creation, in chunks of 128 octets.
     */
    size_t store_bytes;
    /**
     * Positions ahead of the in-order point that can be remembered, of each
     * kind: segment starts that may be FPDU starts, FPDU starts located,
     * FPDUs placed (default 1024 each, at least 4; 24 octets an entry,
     * allocated at creation). When full, out-of-order FPDUs wait for
     * in-order data.
     */
    size_t max_pending;
    /** Longest segment accepted (default 65535; at most 2^30). */
    uint32_t max_segment;
    /**
     * Octets after the in-order point that are accepted, the TCP receive
     * window (default 16 MiB, at most 2^30); later octets are ignored.
     */
    uint32_t window;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_mpa_seg_settings;

/** The layout of dw_mpa_seg_settings this header describes (see <ddpwire/common.h>). */
#define DW_MPA_SEG_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_mpa_seg_settings_default_versioned(int settings_version,
                                                    dw_mpa_seg_settings *settings);
#define dw_mpa_seg_settings_default(settings) \
    dw_mpa_seg_settings_default_versioned(DW_MPA_SEG_SETTINGS_VERSION, (settings))

/**
 * Creates a segment receiver: settings may be NULL for the defaults;
 * callbacks must have on_place. Allocates all it will use. Returns 0,
 * DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_mpa_seg_new_versioned(dw_mpa_seg **pr, int settings_version,
                                       const dw_mpa_seg_settings *settings,
                                       int callbacks_version,
                                       const dw_mpa_seg_callbacks *callbacks, void *user_data);
#define dw_mpa_seg_new(pr, settings, callbacks, user_data) \
    dw_mpa_seg_new_versioned((pr), DW_MPA_SEG_SETTINGS_VERSION, (settings), \
        DW_MPA_SEG_CALLBACKS_VERSION, (callbacks), (user_data))

/** Frees a segment receiver; NULL is allowed. */
DW_EXTERN void dw_mpa_seg_del(dw_mpa_seg *r);

/**
 * Feeds one TCP segment's payload: len octets whose first has sequence
 * number seq. Octets before the in-order point, already committed, or
 * beyond the window are ignored. Returns 0, DW_ERR_PROTO once an MPA error
 * has been reported, DW_ERR_TOO_LONG (len > max_segment), DW_ERR_INVAL
 * (NULL data with len > 0) or DW_ERR_STATE (called from a callback).
 */
DW_EXTERN int dw_mpa_seg_feed(dw_mpa_seg *r, uint32_t seq, const void *data, size_t len);

/**
 * The transport reports the end of the stream (MPA 5.1, 9 code 1), as
 * dw_mpa_rx_close(): clean when nothing is pending (no partial FPDU, no
 * gap). Returns 0 when clean, else DW_ERR_PROTO.
 */
DW_EXTERN int dw_mpa_seg_close(dw_mpa_seg *r, dw_close_reason reason);

/**
 * Sequence number up to which every octet has been consumed in order, the
 * cumulative acknowledgement (MPA 5.1: the left edge of the window).
 */
DW_EXTERN uint32_t dw_mpa_seg_ack(const dw_mpa_seg *r);

/** A range of sequence numbers. */
typedef struct dw_mpa_seg_range {
    uint32_t seq;
    uint32_t len;
} dw_mpa_seg_range;

/**
 * Ranges after dw_mpa_seg_ack() that are committed (placed or held), in
 * order and merged, as SACK blocks. Writes at most max of them and returns
 * how many there are.
 */
DW_EXTERN size_t dw_mpa_seg_sack(const dw_mpa_seg *r, dw_mpa_seg_range *out, size_t max);

/** Stream offset of the in-order point: every FPDU before it is delivered. */
DW_EXTERN uint64_t dw_mpa_seg_offset(const dw_mpa_seg *r);

/** The error reported so far, or DW_MPA_ERR_NONE. */
DW_EXTERN dw_mpa_error dw_mpa_seg_failed(const dw_mpa_seg *r);

/** Counters, readable at any time. */
typedef struct dw_mpa_seg_stats {
    uint64_t segments;     /* segments fed */
    uint64_t octets;       /* octets fed */
    uint64_t dup_octets;   /* of which before the in-order point or beyond the window (ignored) */
    uint64_t placed;       /* ULPDUs placed */
    uint64_t placed_early; /* of which before their turn */
    uint64_t delivered;    /* ULPDUs delivered */
    uint64_t held;         /* octets held now: store, plus the partial in-order FPDU */
    uint64_t held_peak;    /* the most ever held at once */
    uint64_t store_used;   /* store memory in use now (whole chunks) */
    uint64_t store_peak;   /* the most store memory ever in use */
    uint64_t fallbacks;    /* segments whose out-of-order octets were not committed (store or table full) */
    uint64_t refused;      /* octets not committed for that reason */
    uint64_t hints_taken;  /* segment starts trusted as FPDU starts (after confirmation) */
    uint64_t hints_dropped;/* segment starts found not to be FPDU starts */
} dw_mpa_seg_stats;

/** Copies the counters. */
DW_EXTERN void dw_mpa_seg_stats_get(const dw_mpa_seg *r, dw_mpa_seg_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_SEG_H */
