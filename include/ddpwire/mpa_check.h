/* SPDX-License-Identifier: MIT */
/*
 * MPA stream checker: the dissector half of MPA, what `ddpwire dump`
 * reports for one direction of a captured connection.
 *
 * A receiver (<ddpwire/mpa.h>) stops at the first error, as MPA 9 says it
 * must. A checker goes on: it checks every FPDU harder than a receiver
 * needs to (every marker's FPDUPTR, the pad, the CRC even when a marker
 * already failed), reports each problem with where it is, and when it
 * loses the FPDU boundaries (a gap in the capture, a corrupted
 * ULPDU_Length) it finds them again at the next marker, or without
 * markers by searching for a valid FPDU.
 *
 * Input is the direction's stream in order, as <ddpwire/reasm.h>
 * delivers it: chunks tagged with the captured segment that carried them,
 * and gaps. The checker streams: it never holds a whole FPDU (the CRC is
 * computed as octets pass), only what finding the start or a lost
 * boundary needs, in a buffer allocated at creation.
 *
 * Positions: "stream offset" is the reassembler's (octets since the
 * direction's first octet); "MPA position" counts octets since MPA mode
 * began in this direction (after the RFC 5044 frame when there is one),
 * and markers sit where it is a multiple of 512 (MPA 6.2). When the start
 * is found mid-stream (a capture begun late, see START_SEARCH) only the
 * position mod 512 is known: positions then count from an arbitrary
 * multiple of 512, the first FPDU's being in 0..508.
 */
#ifndef DDPWIRE_MPA_CHECK_H
#define DDPWIRE_MPA_CHECK_H

#include <ddpwire/mpa.h>
#include <ddpwire/reasm.h>
#include <ddpwire/mpa_startup.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dw_mpa_check dw_mpa_check;

/** How the checker finds where MPA mode starts. */
typedef enum dw_mpa_check_start {
    /** An RFC 5044 request/reply frame when the stream begins with its
     * key, else MPA at offset 0 when a valid FPDU is there, else SEARCH. */
    DW_MPA_CHECK_START_AUTO = 0,
    /** The stream must begin with an RFC 5044 frame. */
    DW_MPA_CHECK_START_FRAMES,
    /** MPA mode begins at settings.start_offset (`--mpa-start PORT:SEQ`). */
    DW_MPA_CHECK_START_AT,
    /**
     * Search, for a capture that may begin anywhere. Each octet in turn
     * (the cursor) is tried as: a marker with a non-zero FPDUPTR
     * (reserved field 0, low two bits ignored), naming the FPDU that holds
     * it FPDUPTR octets back (MPA 7.1, draft reading; the RFC 5044
     * reading names an FPDU that begins with a zero marker, itself tried
     * when the cursor passed it) -- that FPDU must be in the buffer whole
     * (up to 64 KiB behind the cursor are kept) and hold the marker, and
     * MPA positions are then known mod 512 only; a zero marker beginning
     * an FPDU; an FPDU without markers. A candidate is taken when its
     * FPDU is valid (length, every marker in it consistent, pad zero) and
     * its CRC matches, or, with no matching CRC (CRC off or not known),
     * when two valid FPDUs follow in a row with zero CRC fields and, with
     * markers, two markers checked (without markers and the mode not
     * known: 516 octets after the first FPDU). So the first FPDU found is
     * the first, at or after the capture's start, that holds a marker
     * (with markers): an FPDU with none cannot be told from its payload.
     * Octets before it are skipped_octets. Without markers: the first run
     * of valid FPDUs.
     */
    DW_MPA_CHECK_START_SEARCH
} dw_mpa_check_start;

typedef struct dw_mpa_check_settings {
    dw_mpa_check_start start;
    /** For START_AT: stream offset of MPA position 0. */
    uint64_t start_offset;
    /** Markers in this direction: 1, 0, or -1 to learn it (from
     * dw_mpa_check_set_mode() or, failing that, from the first FPDU).
     * Default -1. */
    int markers;
    /** CRC in use: 1, 0, or -1 to learn it likewise. Default -1. */
    int crc;
    /** Stream octets searched for the start or a lost boundary before
     * giving up (default 1 MiB). With segments of a few octets the search
     * keeps the tags of at most 4096 pieces: it then looks back less far
     * than 64 KiB for the FPDU a marker names. */
    uint64_t search_limit;
    /** Octets of each ULPDU's beginning handed out in the FPDU record
     * (default 64, at most 256): enough for a DDP/RDMAP header. */
    size_t head_len;
    /** Non-zero: a start found by search (AUTO, not start-up frames)
     * needs strong evidence: an FPDU whose CRC matches, or two markers
     * with a non-zero FPDUPTR pointing right. Without it, CRC off reads
     * zero pads and zero CRC fields into runs of zeros, so plain TCP with
     * many zero octets can look like MPA. Default 0. */
    int strict_search;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_mpa_check_settings;

/** The layout of dw_mpa_check_settings this header describes (see <ddpwire/common.h>). */
#define DW_MPA_CHECK_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_mpa_check_settings_default_versioned(int settings_version,
                                                      dw_mpa_check_settings *settings);
#define dw_mpa_check_settings_default(settings) \
    dw_mpa_check_settings_default_versioned(DW_MPA_CHECK_SETTINGS_VERSION, (settings))

/** A CRC's verdict. */
typedef enum dw_mpa_check_crc {
    DW_MPA_CHECK_CRC_GOOD = 0,
    DW_MPA_CHECK_CRC_BAD,
    /** CRC not in use on this connection (RFC 5044 C = 0). */
    DW_MPA_CHECK_CRC_OFF,
    /** Not judged: part of the FPDU is missing from the capture. */
    DW_MPA_CHECK_CRC_MISSING
} dw_mpa_check_crc;

/** One marker (MPA 6.1, 6.2). */
typedef struct dw_mpa_check_marker {
    /** MPA position (a multiple of 512), stream offset, sequence number. */
    uint64_t pos;
    uint64_t offset;
    uint32_t seq;
    /** The segment that carried it. */
    uint64_t pkt;
    /** The two 16-bit fields as sent: RESERVED and FPDUPTR. */
    uint16_t reserved;
    uint16_t fpduptr;
    /** What FPDUPTR should be (draft reading: back to the FPDU's first
     * octet; 0 between FPDUs). */
    uint16_t expected;
    /** Non-zero when fpduptr (low two bits ignored, MPA 6.1) equals
     * expected or the RFC 5044 reading (expected - 4 in an FPDU that
     * begins with a zero marker). */
    int ok;
} dw_mpa_check_marker;

/** One FPDU, reported when its last octet has passed (or is missing). */
typedef struct dw_mpa_check_fpdu {
    /** Index in this direction, from 0. */
    uint64_t index;
    /** MPA position, stream offset and sequence number of its first
     * octet (its leading marker when it begins with one). */
    uint64_t pos;
    uint64_t offset;
    uint32_t seq;
    /** ULPDU_Length, pad octets, and octets on the wire (markers, header,
     * ULPDU, pad and CRC). When the stream ends inside the ULPDU_Length
     * field (crc DW_MPA_CHECK_CRC_MISSING), fpdu_len is the octets seen. */
    uint32_t ulpdu_len;
    uint32_t pad;
    uint32_t fpdu_len;
    /** Markers inside it, and how many of those had a wrong FPDUPTR. */
    uint32_t markers;
    uint32_t bad_markers;
    /** Non-zero when a pad octet is not zero. */
    int pad_nonzero;
    dw_mpa_check_crc crc;
    /** The CRC field as sent (read LSB first) and as computed. */
    uint32_t crc_wire;
    uint32_t crc_calc;
    /** Segments that carried it: first and last packet numbers and how
     * many distinct segments. */
    uint64_t first_pkt;
    uint64_t last_pkt;
    uint32_t segments;
    /** Header alignment: its first octet began a segment (MPA 7.3). */
    int aligned;
    /** Packing: a segment that carried it also carried (part of) another
     * FPDU. */
    int packed;
    /** Found again after a gap or a lost boundary. */
    int resync;
    /** The first min(ulpdu_len, head_len) ULPDU octets, markers removed,
     * valid during the callback. */
    const uint8_t *head;
    size_t head_len;
} dw_mpa_check_fpdu;

/** Problems and milestones. */
typedef enum dw_mpa_check_event_kind {
    /** An RFC 5044 frame was decoded (frame is set). */
    DW_MPA_CHECK_EV_STARTUP = 0,
    /** MPA mode begins at offset (how it was found in detail: pos 0
     * there, or "mid-stream": pos known mod 512 only). */
    DW_MPA_CHECK_EV_START,
    /** The stream began with something that is not a valid frame. */
    DW_MPA_CHECK_EV_STARTUP_BAD,
    /** No start found within search_limit: nothing more is checked. */
    DW_MPA_CHECK_EV_NO_START,
    /** CRC mismatch (MPA error 2). */
    DW_MPA_CHECK_EV_CRC,
    /** A marker's FPDUPTR disagrees with the FPDU boundaries (MPA error 3). */
    DW_MPA_CHECK_EV_MARKER,
    /** A marker's reserved field is not zero (MPA 6.1). */
    DW_MPA_CHECK_EV_MARKER_RESERVED,
    /** A pad octet is not zero. */
    DW_MPA_CHECK_EV_PAD,
    /** ULPDU_Length of 0, or (after a bad CRC or a resync, when the
     * boundaries are in doubt) above the largest ULPDU: the boundaries are
     * lost (SYNC_LOST follows). */
    DW_MPA_CHECK_EV_LENGTH,
    /** Octets missing from the capture (from the reassembler). */
    DW_MPA_CHECK_EV_GAP,
    /** FPDU boundaries lost; checking resumes at the next RESYNC. */
    DW_MPA_CHECK_EV_SYNC_LOST,
    /** Boundaries found again (at a marker, or by search). */
    DW_MPA_CHECK_EV_RESYNC,
    /** The stream ended inside an FPDU (MPA error 1, not clean). */
    DW_MPA_CHECK_EV_TRUNCATED,
    /** The mode given by dw_mpa_check_set_mode() disagrees with what the
     * FPDUs show (e.g. markers negotiated, none sent). */
    DW_MPA_CHECK_EV_MODE,
    /**
     * The peer broke a sender rule that leaves the framing intact: a
     * ULPDU_Length of 64769..65535 (MPA 5.2: no ULPDU above 64768) in an
     * FPDU that follows a good one. The checker frames it with the
     * declared length and judges its CRC; only a bad CRC puts the
     * boundaries in doubt (as for any FPDU). Linux siw 6.1 sends such
     * FPDUs on interfaces with a 64 KiB MTU. (Non-zero PAD and marker
     * RESERVED bits are the other such rules: PAD, MARKER_RESERVED.)
     */
    DW_MPA_CHECK_EV_OVERSIZE
} dw_mpa_check_event_kind;

typedef struct dw_mpa_check_event {
    dw_mpa_check_event_kind kind;
    /** The MPA error code a conforming receiver reports for it (MPA 9:
     * 1, 2, 3), or DW_MPA_ERR_NONE when it is not an MPA error. */
    dw_mpa_error code;
    /** Where: stream offset, sequence number, segment (0 when unknown). */
    uint64_t offset;
    uint32_t seq;
    uint64_t pkt;
    /** Octets concerned (gap length, skipped octets on resync ...). */
    uint64_t len;
    /** One line saying what exactly is wrong or what happened
     * ("FPDUPTR 20, expected 24"). Valid during the callback. */
    const char *detail;
    /** For STARTUP: the decoded frame (private data points into a
     * buffer valid during the callback). Else NULL. */
    const dw_mpa_startup *frame;
} dw_mpa_check_event;

typedef struct dw_mpa_check_callbacks {
    /** Each FPDU, in stream order. Optional. */
    void (*on_fpdu)(dw_mpa_check *c, const dw_mpa_check_fpdu *fpdu, void *user_data);
    /** Each marker, in stream order, before the FPDU that holds it. Optional. */
    void (*on_marker)(dw_mpa_check *c, const dw_mpa_check_marker *m, void *user_data);
    /** Problems and milestones, in stream order. Optional. */
    void (*on_event)(dw_mpa_check *c, const dw_mpa_check_event *ev, void *user_data);
} dw_mpa_check_callbacks;

/** The layout of dw_mpa_check_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_MPA_CHECK_CALLBACKS_VERSION 1

/**
 * Creates a checker; settings may be NULL for the defaults. Allocates its
 * search buffer here. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_mpa_check_new_versioned(dw_mpa_check **pc, int settings_version,
                                         const dw_mpa_check_settings *settings,
                                         int callbacks_version,
                                         const dw_mpa_check_callbacks *callbacks,
                                         void *user_data);
#define dw_mpa_check_new(pc, settings, callbacks, user_data) \
    dw_mpa_check_new_versioned((pc), DW_MPA_CHECK_SETTINGS_VERSION, (settings), \
        DW_MPA_CHECK_CALLBACKS_VERSION, (callbacks), (user_data))

/** Frees a checker; NULL is allowed. */
DW_EXTERN void dw_mpa_check_del(dw_mpa_check *c);

/**
 * The mode this direction negotiated (markers iff the peer's frame set M,
 * CRC iff either frame set C: RFC 5044 7.1), once the caller has seen both
 * frames. Overrides settings of -1; a later disagreement with the FPDUs
 * is an EV_MODE event. Returns 0 or DW_ERR_INVAL.
 */
DW_EXTERN int dw_mpa_check_set_mode(dw_mpa_check *c, int markers, int crc);

/**
 * Feeds in-order octets (a dw_reasm on_data call: pass its chunk).
 * Returns 0, DW_ERR_INVAL, DW_ERR_STATE (called from a callback) or
 * DW_ERR_NOMEM: the search buffer could not grow (what this call reported
 * may be incomplete; every later call returns it too).
 */
DW_EXTERN int dw_mpa_check_data(dw_mpa_check *c, const uint8_t *data, size_t len,
                      const dw_reasm_chunk *chunk);

/** Octets missing (a dw_reasm on_gap call). Returns 0 or an error as above. */
DW_EXTERN int dw_mpa_check_gap(dw_mpa_check *c, const dw_reasm_gap *gap);

/**
 * The stream ended (FIN, RST, or the end of the capture): an FPDU cut
 * short is reported (EV_TRUNCATED, with its FPDU record, CRC MISSING).
 * Returns 0 or an error as above.
 */
DW_EXTERN int dw_mpa_check_end(dw_mpa_check *c);

/** What the checker has learned and counted. */
typedef struct dw_mpa_check_stats {
    /** Non-zero once MPA mode has begun; its stream offset. */
    int started;
    uint64_t start_offset;
    /** The mode in use (-1 while unknown). */
    int markers;
    int crc;
    uint64_t fpdus;
    /** ULPDU_Length and wire length of every FPDU reported, as declared:
     * one cut short (TRUNCATED) or with octets missing counts whole. */
    uint64_t ulpdu_octets;
    uint64_t fpdu_octets;
    uint64_t crc_good;
    uint64_t crc_bad;
    uint64_t crc_unchecked; /* OFF or MISSING */
    uint64_t markers_seen;
    uint64_t marker_errors;
    uint64_t length_errors;
    /** Sender rules broken with the framing intact (EV_OVERSIZE, EV_PAD,
     * EV_MARKER_RESERVED): how many FPDUs or markers. */
    uint64_t oversize;
    uint64_t pad_errors;
    uint64_t marker_reserved;
    uint64_t aligned;   /* FPDUs with aligned set */
    uint64_t packed;    /* FPDUs with packed set */
    /** Segments that carried at least one FPDU's first octet, and of those
     * the ones that carried more than one (packed segments). */
    uint64_t seg_with_start;
    uint64_t seg_packed;
    uint64_t gaps;
    uint64_t gap_octets;
    uint64_t resyncs;
    uint64_t skipped_octets; /* not checked: before the start, while out of sync */
    /** The first MPA error (code 1, 2 or 3) and where, or NONE. */
    dw_mpa_error first_error;
    uint64_t first_error_offset;
    uint64_t first_error_pkt;
} dw_mpa_check_stats;

/** Copies the counters. */
DW_EXTERN void dw_mpa_check_stats_get(const dw_mpa_check *c, dw_mpa_check_stats *stats);

/** Short name of an event kind ("sync_lost"; the JSON kinds of `ddpwire dump`). */
DW_EXTERN const char *dw_mpa_check_event_name(dw_mpa_check_event_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_CHECK_H */
