/*
 * MPA: Marker PDU Aligned framing for TCP (draft-culley-iwarp-mpa-01).
 *
 * A sans-I/O sender and in-order receiver. Neither touches a socket, a
 * clock or the heap after creation: the sender turns ULPDUs (records) into
 * FPDUs described by iovecs, the receiver is fed the octets of the TCP
 * stream in any chunking and calls back with verified ULPDUs.
 *
 * Wire format (MPA 6): an FPDU is ULPDU_Length (16 bits, big-endian), the
 * ULPDU, 0-3 zero PAD octets to a multiple of four, and CRC32c (stored
 * least significant octet first, as iSCSI digests). A 4-octet marker
 * (16 reserved zero bits, 16-bit FPDUPTR) sits at every MPA position that
 * is a multiple of 512, counted from the first octet sent in MPA mode
 * (MPA 7.1), inside whatever FPDU covers that position. A marker that
 * falls exactly between two FPDUs has FPDUPTR 0 and is the first part of
 * the following FPDU (covered by its CRC).
 */
#ifndef DDPWIRE_MPA_H
#define DDPWIRE_MPA_H

#include <ddpwire/ddpwire.h>
#include <sys/uio.h> /* struct iovec */

#ifdef __cplusplus
extern "C" {
#endif

/** MPA 5.2: the ULP never posts a ULPDU larger than this. */
#define DW_MPA_ULPDU_MAX 64768u
/** MPA 7.3.1: MULPDU is never below this, however small EMSS gets. */
#define DW_MPA_MULPDU_MIN 128u
/** Octets between markers (MPA 7.1). */
#define DW_MPA_MARKER_INTERVAL 512u
/** Octets of one marker. */
#define DW_MPA_MARKER_LEN 4u
/** Largest FPDU on the wire: a 65535-octet ULPDU with every marker. */
#define DW_MPA_FPDU_MAX (2u + 65535u + 3u + 4u + 4u * 130u)
/**
 * iovecs that one FPDU of at most DW_MPA_ULPDU_MAX octets can need:
 * header, and per marker one scratch piece plus one payload piece, and
 * the tail (pad, marker, CRC), and one more for a header given apart
 * (dw_mpa_tx_frame_pdu).
 */
#define DW_MPA_FPDU_IOV_MAX (2u * (DW_MPA_ULPDU_MAX / 512u + 3u) + 4u)

/** The protocol's own error codes (MPA 9), reported to the ULP. */
typedef enum dw_mpa_error {
    DW_MPA_ERR_NONE = 0,
    /** TCP connection closed, terminated or lost (FIN, RST, timeout). */
    DW_MPA_ERR_CLOSED = 1,
    /** Received CRC does not match the FPDU. */
    DW_MPA_ERR_CRC = 2,
    /** A marker and the ULPDU_Length fields disagree on an FPDU start. */
    DW_MPA_ERR_MARKER = 3
} dw_mpa_error;

/**
 * Which octet a marker inside an FPDU that begins with a zero marker
 * points to. The draft (MPA 7.1) says "the first octet of the FPDU", i.e.
 * the leading marker; RFC 5044 points at the ULPDU_Length field, 4 octets
 * later. Only matters for FPDUs that begin with a marker and are long
 * enough to contain another. Receivers accept both.
 */
typedef enum dw_mpa_ptr_base {
    DW_MPA_PTR_DRAFT = 0,
    DW_MPA_PTR_RFC5044 = 1
} dw_mpa_ptr_base;

/** Segmentation advice given to the transport (MPA 7.3). */
typedef enum dw_mpa_seg_mode {
    /** Each FPDU starts a new TCP segment (header alignment). */
    DW_MPA_SEG_ALIGNED = 0,
    /** As many whole FPDUs as fit in EMSS share a segment. */
    DW_MPA_SEG_PACKED = 1
} dw_mpa_seg_mode;

/**
 * MULPDU for an EMSS (MPA 7.3.1):
 * EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4), kept within 128..64768.
 * Without markers the marker term is dropped.
 */
uint32_t dw_mpa_mulpdu(uint32_t emss, int markers);

/**
 * Wire length of the FPDU carrying a ULPDU of ulpdu_len octets when it
 * starts at MPA position pos (octets since MPA mode began, mod 2^32),
 * including every marker it contains.
 */
size_t dw_mpa_fpdu_len(uint32_t pos, size_t ulpdu_len, int markers);

/* ------------------------------------------------------------------ */
/* Sender                                                              */
/* ------------------------------------------------------------------ */

typedef struct dw_mpa_tx dw_mpa_tx;

typedef struct dw_mpa_tx_settings {
    /** TCP sequence number of the first octet sent in MPA mode. */
    uint32_t start_seq;
    /** Effective MSS; 0 means 1460. Change later with dw_mpa_tx_set_emss(). */
    uint32_t emss;
    /** Insert markers (default 1). 0 only for peers that negotiated them off. */
    int markers;
    /** Send a CRC (default 1). 0 sends a zero CRC field (RFC 5044 CRC off). */
    int crc;
    /** FPDUPTR reading for markers in an FPDU led by a marker. */
    dw_mpa_ptr_base ptr_base;
    /** Segmentation advice. */
    dw_mpa_seg_mode seg_mode;
    /**
     * Octets of scratch space for headers, markers, pad and CRCs that the
     * returned iovecs point into (default 131072, at least 1024). The
     * scratch of an FPDU stays valid while fewer than
     * (scratch_size - 1024) octets of further FPDUs have been framed.
     */
    size_t scratch_size;
} dw_mpa_tx_settings;

/** Fills settings with the defaults described above. */
void dw_mpa_tx_settings_default(dw_mpa_tx_settings *settings);

/** Creates a sender. settings may be NULL for the defaults. */
int dw_mpa_tx_new(dw_mpa_tx **ptx, const dw_mpa_tx_settings *settings);

/** Frees a sender; NULL is allowed. */
void dw_mpa_tx_del(dw_mpa_tx *tx);

/** Follows an EMSS change (path MTU); MULPDU and packing follow it. */
int dw_mpa_tx_set_emss(dw_mpa_tx *tx, uint32_t emss);

/** Current MULPDU (MPA 7.3.1) for this sender's EMSS and marker setting. */
uint32_t dw_mpa_tx_mulpdu(const dw_mpa_tx *tx);

/** MPA position (octets framed so far, mod 2^32) of the next FPDU. */
uint32_t dw_mpa_tx_pos(const dw_mpa_tx *tx);

/** Non-zero when this sender inserts markers. */
int dw_mpa_tx_markers(const dw_mpa_tx *tx);

/** Where one framed FPDU goes. */
typedef struct dw_mpa_fpdu_info {
    /** Octets of the FPDU on the wire (sum of the iovecs). */
    size_t len;
    /** iovecs used. */
    size_t iovcnt;
    /** MPA position of its first octet (its leading marker if any). */
    uint32_t pos;
    /** TCP sequence number of its first octet. */
    uint32_t seq;
    /** Markers it contains. */
    unsigned markers;
    /**
     * Non-zero when the transport should start a new TCP segment with
     * this FPDU: always in aligned mode; in packed mode when it does not
     * fit in what is left of the current EMSS-sized segment.
     */
    int new_segment;
} dw_mpa_fpdu_info;

/**
 * Frames one ULPDU (1..64768 octets) as an FPDU described by iovecs.
 *
 * Payload iovecs point into ulpdu (never copied); length, markers, pad and
 * CRC iovecs point into the sender's scratch space (see scratch_size). At
 * most iovcap iovecs are written; DW_MPA_FPDU_IOV_MAX is always enough.
 * Returns the FPDU's wire length, or DW_ERR_EMPTY, DW_ERR_TOO_LONG,
 * DW_ERR_NOSPACE (iovcap too small) or DW_ERR_INVAL; on error nothing is
 * framed and the sender's state is unchanged. info may be NULL.
 */
ssize_t dw_mpa_tx_frame(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                        struct iovec *iov, size_t iovcap,
                        dw_mpa_fpdu_info *info);

/**
 * Frames one ULPDU made of two pieces, a header (a DDP header, say) and a
 * payload: the ULPDU is hdr followed by payload, hlen + plen octets
 * (1..64768). A header of at most 64 octets is copied into scratch (it
 * shares an iovec with the length field); the payload is never copied.
 * Same returns and errors as dw_mpa_tx_frame(); either piece may be empty.
 */
ssize_t dw_mpa_tx_frame_pdu(dw_mpa_tx *tx, const void *hdr, size_t hlen,
                            const void *payload, size_t plen, struct iovec *iov,
                            size_t iovcap, dw_mpa_fpdu_info *info);

/** dw_mpa_tx_frame_pdu() into a contiguous buffer (dw_mpa_tx_frame_into()). */
ssize_t dw_mpa_tx_frame_pdu_into(dw_mpa_tx *tx, const void *hdr, size_t hlen,
                                 const void *payload, size_t plen, uint8_t *out,
                                 size_t cap, dw_mpa_fpdu_info *info);

/**
 * Frames one ULPDU into a contiguous buffer of cap octets (copying the
 * payload while computing the CRC). Same returns and errors as
 * dw_mpa_tx_frame(); dw_mpa_fpdu_len() tells the space needed.
 */
ssize_t dw_mpa_tx_frame_into(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                             uint8_t *out, size_t cap, dw_mpa_fpdu_info *info);

/* ------------------------------------------------------------------ */
/* In-order receiver                                                   */
/* ------------------------------------------------------------------ */

typedef struct dw_mpa_rx dw_mpa_rx;

/** Why the transport ended the stream (MPA 9 code 1). */
typedef enum dw_mpa_close_reason {
    DW_MPA_CLOSE_FIN = 0, /* orderly close by the peer */
    DW_MPA_CLOSE_RST,     /* reset */
    DW_MPA_CLOSE_TIMEOUT, /* retransmission timeout, keepalive */
    DW_MPA_CLOSE_LOST     /* anything else that lost the connection */
} dw_mpa_close_reason;

/** What went wrong, for the on_error callback. */
typedef struct dw_mpa_rx_error {
    /** The MPA error code (1, 2 or 3). */
    dw_mpa_error code;
    /** Stream offset (octets since MPA start) of the offending FPDU. */
    uint64_t offset;
    /** Its TCP sequence number. */
    uint32_t seq;
    /** For code 1: the reason the transport gave. */
    dw_mpa_close_reason reason;
    /** For code 1: non-zero when the stream ended between FPDUs. */
    int clean;
} dw_mpa_rx_error;

typedef struct dw_mpa_rx_callbacks {
    /**
     * A ULPDU whose CRC verified, in stream order. data is valid only
     * during the call: it points into the octets given to
     * dw_mpa_rx_feed() when the ULPDU arrived contiguous there, else
     * into the buffer from get_buffer or the receiver's own buffer.
     * offset is the stream offset of its FPDU. Return 0 to go on, any
     * other value to make dw_mpa_rx_feed() return early, right after this
     * FPDU (feed the remaining octets later).
     */
    int (*on_ulpdu)(dw_mpa_rx *rx, const uint8_t *data, size_t len,
                    uint64_t offset, void *user_data);
    /**
     * An MPA error. Called once; after it nothing more is delivered on
     * this half connection (MPA 9). Optional.
     */
    void (*on_error)(dw_mpa_rx *rx, const dw_mpa_rx_error *err,
                     void *user_data);
    /**
     * Optional: where to place a ULPDU of len octets that cannot be
     * delivered from the input in place (it spans feeds, or markers must
     * be stripped from it). Return a buffer of at least len octets, valid
     * until on_ulpdu or on_error for it, or NULL for the receiver's own
     * buffer. Unverified octets are written there before the CRC verdict.
     */
    uint8_t *(*get_buffer)(dw_mpa_rx *rx, size_t len, void *user_data);
} dw_mpa_rx_callbacks;

typedef struct dw_mpa_rx_settings {
    /** TCP sequence number of the first octet received in MPA mode. */
    uint32_t start_seq;
    /** Markers expected (default 1). */
    int markers;
    /** Verify CRCs (default 1). 0 ignores the CRC field (RFC 5044 CRC off). */
    int crc;
    /** Check every marker's FPDUPTR (default 1; MPA 9 makes it optional). */
    int check_markers;
} dw_mpa_rx_settings;

/** Fills settings with the defaults described above. */
void dw_mpa_rx_settings_default(dw_mpa_rx_settings *settings);

/**
 * Creates a receiver. settings may be NULL for the defaults; callbacks must
 * have on_ulpdu. Allocates its one reassembly buffer (one FPDU) here.
 */
int dw_mpa_rx_new(dw_mpa_rx **prx, const dw_mpa_rx_settings *settings,
                  const dw_mpa_rx_callbacks *callbacks, void *user_data);

/** Frees a receiver; NULL is allowed. */
void dw_mpa_rx_del(dw_mpa_rx *rx);

/**
 * Feeds the next len octets of the stream. Returns the octets consumed:
 * len, or fewer only when on_ulpdu returned non-zero (the FPDU it was
 * called for is consumed; feed the rest later). Returns DW_ERR_PROTO once
 * an MPA error has been reported (on_error is called once, when it is
 * found), DW_ERR_INVAL for a NULL pointer with len > 0.
 */
ssize_t dw_mpa_rx_feed(dw_mpa_rx *rx, const void *in, size_t len);

/**
 * The transport reports that the stream ended (FIN), was reset, timed out
 * or was lost (MPA 5.1: the LLP MUST inform MPA). Reports MPA error 1
 * through on_error, with clean set when it ended between FPDUs, unless an
 * error was already reported. Returns 0 when clean, else DW_ERR_PROTO.
 */
int dw_mpa_rx_close(dw_mpa_rx *rx, dw_mpa_close_reason reason);

/** Stream offset: octets consumed since MPA start. */
uint64_t dw_mpa_rx_offset(const dw_mpa_rx *rx);

/** The error reported so far, or DW_MPA_ERR_NONE. */
dw_mpa_error dw_mpa_rx_failed(const dw_mpa_rx *rx);


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
 * Errors (MPA 9), after which nothing is placed or delivered:
 * - code 2 when a located FPDU's CRC does not match;
 * - code 3 when markers and ULPDU lengths disagree: a marker inside an
 *   FPDU with a valid CRC that does not name it; an FPDU with a valid CRC
 *   that covers an FPDU start named by a marker, or whose start a marker
 *   beyond its end names; an FPDU whose ULPDU_Length makes it overlap an
 *   FPDU already placed (checked as soon as that length is known, e.g.
 *   when a gap closes); a marker that arrives pointing at or across an
 *   FPDU already identified (placed or delivered) other than its start.
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
     * FPDUs located or placed ahead of the in-order point that can be
     * remembered (default 1024, at least 4). When full, out-of-order FPDUs
     * wait for in-order data.
     */
    size_t max_pending;
    /** Longest segment accepted (default 65535; at most 2^30). */
    uint32_t max_segment;
    /**
     * Octets after the in-order point that are accepted, the TCP receive
     * window (default 16 MiB, at most 2^30); later octets are ignored.
     */
    uint32_t window;
} dw_mpa_seg_settings;

/** Fills settings with the defaults described above. */
void dw_mpa_seg_settings_default(dw_mpa_seg_settings *settings);

/**
 * Creates a segment receiver: settings may be NULL for the defaults;
 * callbacks must have on_place. Allocates all it will use. Returns 0,
 * DW_ERR_INVAL or DW_ERR_NOMEM.
 */
int dw_mpa_seg_new(dw_mpa_seg **pr, const dw_mpa_seg_settings *settings,
                   const dw_mpa_seg_callbacks *callbacks, void *user_data);

/** Frees a segment receiver; NULL is allowed. */
void dw_mpa_seg_del(dw_mpa_seg *r);

/**
 * Feeds one TCP segment's payload: len octets whose first has sequence
 * number seq. Octets before the in-order point, already committed, or
 * beyond the window are ignored. Returns 0, DW_ERR_PROTO once an MPA error
 * has been reported, DW_ERR_TOO_LONG (len > max_segment), DW_ERR_INVAL
 * (NULL data with len > 0) or DW_ERR_STATE (called from a callback).
 */
int dw_mpa_seg_feed(dw_mpa_seg *r, uint32_t seq, const void *data, size_t len);

/**
 * The transport reports the end of the stream (MPA 5.1, 9 code 1), as
 * dw_mpa_rx_close(): clean when nothing is pending (no partial FPDU, no
 * gap). Returns 0 when clean, else DW_ERR_PROTO.
 */
int dw_mpa_seg_close(dw_mpa_seg *r, dw_mpa_close_reason reason);

/**
 * Sequence number up to which every octet has been consumed in order, the
 * cumulative acknowledgement (MPA 5.1: the left edge of the window).
 */
uint32_t dw_mpa_seg_ack(const dw_mpa_seg *r);

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
size_t dw_mpa_seg_sack(const dw_mpa_seg *r, dw_mpa_seg_range *out, size_t max);

/** Stream offset of the in-order point: every FPDU before it is delivered. */
uint64_t dw_mpa_seg_offset(const dw_mpa_seg *r);

/** The error reported so far, or DW_MPA_ERR_NONE. */
dw_mpa_error dw_mpa_seg_failed(const dw_mpa_seg *r);

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
void dw_mpa_seg_stats_get(const dw_mpa_seg *r, dw_mpa_seg_stats *stats);


/* ------------------------------------------------------------------ */
/* Start-up frames of the later standard (RFC 5044 request / reply)    */
/* ------------------------------------------------------------------ */

/*
 * RFC 5044 added a start-up exchange that the draft leaves to the ULP: each
 * side sends one frame before MPA mode begins (right after its own frame):
 * a 16-octet key ("MPA ID Req Frame" or "MPA ID Rep Frame"), a flags octet,
 * a revision octet, a 16-bit big-endian private-data length (at most 512)
 * and the private data. No markers or CRC cover these frames.
 */
#define DW_MPA_STARTUP_KEY_LEN 16u
#define DW_MPA_STARTUP_HDR_LEN 20u
#define DW_MPA_STARTUP_PD_MAX 512u
/** Flags octet: markers wanted for the sender's receive direction. */
#define DW_MPA_FLAG_MARKERS 0x80u
/** Flags octet: CRC wanted (CRC is used when either side sets it). */
#define DW_MPA_FLAG_CRC 0x40u
/** Flags octet: the reply rejects the connection. */
#define DW_MPA_FLAG_REJECT 0x20u
/** Flags octet: RFC 6581 enhanced connection set-up (revision 2). */
#define DW_MPA_FLAG_ENHANCED 0x10u

typedef enum dw_mpa_startup_kind {
    DW_MPA_STARTUP_REQUEST = 0,
    DW_MPA_STARTUP_REPLY = 1
} dw_mpa_startup_kind;

typedef struct dw_mpa_startup {
    dw_mpa_startup_kind kind;
    /** The flags octet as sent (DW_MPA_FLAG_*; other bits reserved). */
    uint8_t flags;
    /** Revision (1 for RFC 5044, 2 for RFC 6581). */
    uint8_t rev;
    /** Private data: decode points into the input; at most 512 octets. */
    const uint8_t *pd;
    uint16_t pd_len;
} dw_mpa_startup;

/**
 * Decodes a start-up frame at the start of in. Returns the frame's length
 * (20 + private data), DW_ERR_NEED_MORE when in holds a valid beginning
 * but not the whole frame, or DW_ERR_MALFORMED as soon as the octets can
 * no longer be a start-up frame (wrong key, even partly: a peer that is not
 * MPA is refused at its first differing octet; private data over 512).
 * Revision and reserved flag bits are reported, not judged.
 */
ssize_t dw_mpa_startup_decode(dw_mpa_startup *out, const uint8_t *in, size_t len);

/**
 * Encodes f into out (cap octets). Returns the length, DW_ERR_NOSPACE,
 * DW_ERR_TOO_LONG (private data over 512) or DW_ERR_INVAL.
 */
ssize_t dw_mpa_startup_encode(uint8_t *out, size_t cap, const dw_mpa_startup *f);


/* ------------------------------------------------------------------ */
/* Start-up negotiation (RFC 5044 section 7.1), sans-I/O                */
/* ------------------------------------------------------------------ */

/*
 * The initiator sends a request and waits for the reply; the responder
 * waits for the request and answers. Each side's MPA mode (and its first
 * marker) starts right after its own frame; the initiator sends no FPDU
 * before the reply. Markers are used in a direction when the receiver of
 * that direction set M in its frame; CRC is used in both directions when
 * either frame set C. These functions only compute; the transport moves
 * the octets.
 */
/*
 * RFC 6581 enhanced connection set-up (revision 2 with the S flag,
 * DW_MPA_FLAG_ENHANCED): the private data begins with two 16-bit
 * big-endian words, IRD then ORD, each a 14-bit count under two control
 * bits. IRD word: 0x8000 peer-to-peer, 0x4000 a zero-length Send (FPDU) as
 * the ready-to-receive (RTR) message. ORD word: 0x8000 a zero-length RDMA
 * Write as RTR, 0x4000 a zero-length RDMA Read as RTR. The initiator sets
 * the RTR kinds it can send; a responder that agrees to peer-to-peer sets
 * exactly one of them. The initiator then sends that RTR as its first
 * FPDU, and the responder sends nothing before it has received it.
 */
#define DW_MPA_ENH_LEN 4u
#define DW_MPA_ENH_P2P 0x8000u
#define DW_MPA_ENH_RTR_SEND 0x4000u  /* IRD word */
#define DW_MPA_ENH_RTR_WRITE 0x8000u /* ORD word */
#define DW_MPA_ENH_RTR_READ 0x4000u  /* ORD word */
#define DW_MPA_ENH_MASK 0x3FFFu      /* the IRD / ORD count */

/** Ready-to-receive message kinds (a bit set when several are offered). */
typedef enum dw_mpa_rtr {
    DW_MPA_RTR_NONE = 0,
    DW_MPA_RTR_SEND = 1,  /* zero-length Send */
    DW_MPA_RTR_WRITE = 2, /* zero-length RDMA Write */
    DW_MPA_RTR_READ = 4   /* zero-length RDMA Read Request (and its Response) */
} dw_mpa_rtr;

/** The IRD/ORD words of RFC 6581. */
typedef struct dw_mpa_enh {
    uint16_t ird, ord; /* 0..0x3FFF */
    int p2p;
    unsigned rtr;      /* DW_MPA_RTR_* bits */
} dw_mpa_enh;

/** Decodes the 4 octets. Returns 4, DW_ERR_NEED_MORE or DW_ERR_INVAL. */
ssize_t dw_mpa_enh_decode(dw_mpa_enh *e, const uint8_t *in, size_t len);

/** Encodes e. Returns 4, DW_ERR_NOSPACE, or DW_ERR_INVAL (count over 0x3FFF, unknown RTR bit). */
ssize_t dw_mpa_enh_encode(uint8_t *out, size_t cap, const dw_mpa_enh *e);

typedef struct dw_mpa_nego_settings {
    /** Ask for markers in our receive direction (M). */
    int want_markers;
    /** Ask for CRC (C). */
    int want_crc;
    /** Accept sending markers when the peer asks (0: reject, as siw does). */
    int allow_markers;
    /**
     * Revision to send (1: RFC 5044; 2: RFC 6581). A responder answers
     * with the lower of the two revisions (a revision 1 request gets a
     * revision 1 reply); an initiator takes a reply's revision 1 or 2 as
     * the lower of the two (revision 1 to a revision 2 request: no
     * enhanced set-up) and refuses 0 or above 2.
     */
    uint8_t rev;
    /** Our private data (at most 512 octets; 508 with the enhanced set-up). */
    const uint8_t *pd;
    uint16_t pd_len;
    /** Revision 2: use the enhanced set-up (S flag, IRD/ORD words); default 1. */
    int enhanced;
    /**
     * Enhanced: our IRD (Read Requests we take at once) and ORD (Reads we
     * issue at once), at most 0x3FFF; default 1 and 1, as rping asks. A
     * responder replies with IRD = min(ird, peer ORD), ORD = min(ord, peer IRD).
     */
    uint16_t ird, ord;
    /**
     * Enhanced peer-to-peer (default 0). Initiator: ask for it and offer
     * the RTR kinds in rtr (DW_MPA_RTR_* bits). Responder: agree when asked,
     * picking one offered kind that rtr allows (Write, then Read, then Send).
     */
    int p2p;
    unsigned rtr;
} dw_mpa_nego_settings;

/** Defaults: want markers and CRC, allow markers, revision 1, no data
 *  (enhanced on for revision 2, IRD 1, ORD 1, no peer-to-peer). */
void dw_mpa_nego_settings_default(dw_mpa_nego_settings *s);

/** Why a start-up did not reach MPA mode. */
typedef enum dw_mpa_nego_reason {
    DW_MPA_NEGO_OK = 0,
    /** The peer's reply has R set (siw does this when asked for markers). */
    DW_MPA_NEGO_PEER_REJECTED,
    /** The peer wants markers from us and allow_markers is 0. */
    DW_MPA_NEGO_MARKERS,
    /** The peer's revision is 0 or above 2. */
    DW_MPA_NEGO_REVISION,
    /** S set but fewer than 4 octets of private data for IRD/ORD. */
    DW_MPA_NEGO_ENHANCED,
    /** The responder's ORD exceeds our IRD (Terminate: insufficient IRD). */
    DW_MPA_NEGO_IRD,
    /** Peer-to-peer without an RTR kind both sides allow (Terminate: no matching RTR). */
    DW_MPA_NEGO_NO_RTR
} dw_mpa_nego_reason;

/** One line naming a reason ("the peer rejected the connection (R set)"). */
const char *dw_mpa_nego_reason_str(dw_mpa_nego_reason r);

/** What was agreed (or refused). */
typedef struct dw_mpa_nego_result {
    /** 1 when the connection goes to MPA mode; 0 when it was rejected. */
    int accepted;
    /** Markers in our send direction (the peer set M). */
    int tx_markers;
    /** Markers in our receive direction (we set M). */
    int rx_markers;
    /** CRC in both directions (either side set C). */
    int crc;
    /** The peer's frame. */
    dw_mpa_startup peer;
    /** Why not accepted (DW_MPA_NEGO_OK when accepted). */
    dw_mpa_nego_reason reason;
    /**
     * Initiator, not accepted after an accepting reply: the LLP (MPA)
     * Terminate code to send in MPA mode before closing (RFC 6581: 6
     * insufficient IRD, 7 no matching RTR), else 0.
     */
    uint8_t term_code;
    /** The revision in effect: the lower of the two. */
    uint8_t rev;
    /** Both frames carried the enhanced set-up. */
    int enhanced;
    /** Enhanced: our IRD and ORD as agreed; the peer's words as sent. */
    uint16_t ird, ord;
    dw_mpa_enh peer_enh;
    /** Peer-to-peer agreed, and the one RTR the initiator sends (else NONE). */
    int p2p;
    dw_mpa_rtr rtr;
    /** The peer's private data for the ULP (after the IRD/ORD words). */
    const uint8_t *pd;
    uint16_t pd_len;
} dw_mpa_nego_result;

/** Initiator: writes the request frame. Returns its length or an error. */
ssize_t dw_mpa_nego_request(const dw_mpa_nego_settings *s, uint8_t *out, size_t cap);

/**
 * Responder: decodes the peer's request at in and writes the reply into
 * reply (cap octets; DW_MPA_STARTUP_HDR_LEN + 4 + pd_len is enough), setting
 * *reply_len. Rejects (R set, result.accepted 0, result.reason) a peer that
 * wants markers when allow_markers is 0, speaks a revision other than 1 or
 * 2, sets S without the IRD/ORD words, or asks for peer-to-peer with no RTR
 * kind we allow. The reply's revision is the lower of the two; it carries
 * S and our IRD/ORD words when both use the enhanced set-up.
 * Returns the request's length (octets consumed), DW_ERR_NEED_MORE, or
 * DW_ERR_MALFORMED when the peer is not an MPA initiator (an enablement
 * error: a reply key, or anything that is not a start-up frame).
 */
ssize_t dw_mpa_nego_respond(const dw_mpa_nego_settings *s, const uint8_t *in,
                            size_t len, uint8_t *reply, size_t cap,
                            size_t *reply_len, dw_mpa_nego_result *res);

/**
 * Initiator: decodes the reply at in. Returns its length, DW_ERR_NEED_MORE,
 * or DW_ERR_MALFORMED (not a reply: an enablement error). A reply with R
 * set gives result.accepted 0. A reply that accepts but asks for markers
 * we do not allow, has revision 0 or above 2, or breaks the enhanced
 * set-up (its ORD above our IRD, an RTR kind we did not offer) is also
 * refused (accepted 0, with reason and term_code).
 */
ssize_t dw_mpa_nego_on_reply(const dw_mpa_nego_settings *s, const uint8_t *in,
                             size_t len, dw_mpa_nego_result *res);

/** Name of an MPA error code ("CRC mismatch", ...). */
const char *dw_mpa_strerror(dw_mpa_error code);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_H */
