/* SPDX-License-Identifier: MIT */
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

#include <ddpwire/common.h>
#include <ddpwire/mem.h>
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
DW_EXTERN uint32_t dw_mpa_mulpdu(uint32_t emss, int markers);

/**
 * Wire length of the FPDU carrying a ULPDU of ulpdu_len octets when it
 * starts at MPA position pos (octets since MPA mode began, mod 2^32),
 * including every marker it contains.
 */
DW_EXTERN size_t dw_mpa_fpdu_len(uint32_t pos, size_t ulpdu_len, int markers);

/**
 * The "exact fill": the ULPDU length whose FPDU, starting at MPA position
 * pos, is exactly emss octets on the wire: length field, ULPDU, no PAD,
 * CRC and every marker that falls inside (MPA 6, 7.1). A stream of such
 * FPDUs written back to back stays FPDU-aligned when TCP cuts it into
 * segments of emss octets, as the kernel's TSO/GSO does (docs/DESIGN.md).
 * It is MULPDU (7.3.1) or 4 (rarely 8) more, where fewer markers fall in
 * this FPDU than MULPDU allows for. No exact fill exists, and the FPDU is
 * shorter, in three cases: emss not a multiple of 4 (FPDUs are: it is emss
 * rounded down to 4); a marker position at the FPDU's last four octets
 * (that marker leads the next FPDU: it is 4 octets short, and the next
 * FPDU starts at a marker); a ULPDU outside 128..64768 (7.3.1, 5.2: kept
 * within).
 */
DW_EXTERN uint32_t dw_mpa_fill_len(uint32_t pos, uint32_t emss, int markers);

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
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_mpa_tx_settings;

/** The layout of dw_mpa_tx_settings this header describes (see <ddpwire/common.h>). */
#define DW_MPA_TX_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_mpa_tx_settings_default_versioned(int settings_version,
                                                   dw_mpa_tx_settings *settings);
#define dw_mpa_tx_settings_default(settings) \
    dw_mpa_tx_settings_default_versioned(DW_MPA_TX_SETTINGS_VERSION, (settings))

/** Creates a sender. settings may be NULL for the defaults. */
DW_EXTERN int dw_mpa_tx_new_versioned(dw_mpa_tx **ptx, int settings_version,
                                      const dw_mpa_tx_settings *settings);
#define dw_mpa_tx_new(ptx, settings) \
    dw_mpa_tx_new_versioned((ptx), DW_MPA_TX_SETTINGS_VERSION, (settings))

/** Frees a sender; NULL is allowed. */
DW_EXTERN void dw_mpa_tx_del(dw_mpa_tx *tx);

/** Follows an EMSS change (path MTU); MULPDU and packing follow it. */
DW_EXTERN int dw_mpa_tx_set_emss(dw_mpa_tx *tx, uint32_t emss);

/** Current MULPDU (MPA 7.3.1) for this sender's EMSS and marker setting. */
DW_EXTERN uint32_t dw_mpa_tx_mulpdu(const dw_mpa_tx *tx);

/**
 * The exact-fill ULPDU length at this sender's position and EMSS
 * (dw_mpa_fill_len()): a ULPDU of this length makes an FPDU of exactly
 * EMSS octets, but for the cases named there. Changes with every FPDU.
 */
DW_EXTERN uint32_t dw_mpa_tx_fill_len(const dw_mpa_tx *tx);

/** The EMSS this sender was last given (dw_mpa_tx_set_emss()). */
DW_EXTERN uint32_t dw_mpa_tx_emss(const dw_mpa_tx *tx);

/** MPA position (octets framed so far, mod 2^32) of the next FPDU. */
DW_EXTERN uint32_t dw_mpa_tx_pos(const dw_mpa_tx *tx);

/** Non-zero when this sender inserts markers. */
DW_EXTERN int dw_mpa_tx_markers(const dw_mpa_tx *tx);

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
DW_EXTERN ssize_t dw_mpa_tx_frame(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                        struct iovec *iov, size_t iovcap,
                        dw_mpa_fpdu_info *info);

/**
 * Frames one ULPDU made of two pieces, a header (a DDP header, say) and a
 * payload: the ULPDU is hdr followed by payload, hlen + plen octets
 * (1..64768). A header of at most 64 octets is copied into scratch (it
 * shares an iovec with the length field); the payload is never copied.
 * Same returns and errors as dw_mpa_tx_frame(); either piece may be empty.
 */
DW_EXTERN ssize_t dw_mpa_tx_frame_pdu(dw_mpa_tx *tx, const void *hdr, size_t hlen,
                            const void *payload, size_t plen, struct iovec *iov,
                            size_t iovcap, dw_mpa_fpdu_info *info);

/** dw_mpa_tx_frame_pdu() into a contiguous buffer (dw_mpa_tx_frame_into()). */
DW_EXTERN ssize_t dw_mpa_tx_frame_pdu_into(dw_mpa_tx *tx, const void *hdr, size_t hlen,
                                 const void *payload, size_t plen, uint8_t *out,
                                 size_t cap, dw_mpa_fpdu_info *info);

/**
 * Frames one ULPDU into a contiguous buffer of cap octets (copying the
 * payload while computing the CRC). Same returns and errors as
 * dw_mpa_tx_frame(); dw_mpa_fpdu_len() tells the space needed.
 */
DW_EXTERN ssize_t dw_mpa_tx_frame_into(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                             uint8_t *out, size_t cap, dw_mpa_fpdu_info *info);

/* ------------------------------------------------------------------ */
/* In-order receiver                                                   */
/* ------------------------------------------------------------------ */

typedef struct dw_mpa_rx dw_mpa_rx;

/*
 * Before 1.0 the close reason was MPA's own enum; it is now the shared
 * dw_close_reason (<ddpwire/common.h>). These names stay as aliases of the
 * same type and values, for source written against 0.x.
 */
typedef dw_close_reason dw_mpa_close_reason;
#define DW_MPA_CLOSE_FIN DW_CLOSE_FIN
#define DW_MPA_CLOSE_RST DW_CLOSE_RST
#define DW_MPA_CLOSE_TIMEOUT DW_CLOSE_TIMEOUT
#define DW_MPA_CLOSE_LOST DW_CLOSE_LOST

/** What went wrong, for the on_error callback. */
typedef struct dw_mpa_rx_error {
    /** The MPA error code (1, 2 or 3). */
    dw_mpa_error code;
    /** Stream offset (octets since MPA start) of the offending FPDU. */
    uint64_t offset;
    /** Its TCP sequence number. */
    uint32_t seq;
    /** For code 1: the reason the transport gave. */
    dw_close_reason reason;
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

/** The layout of dw_mpa_rx_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_MPA_RX_CALLBACKS_VERSION 1

typedef struct dw_mpa_rx_settings {
    /** TCP sequence number of the first octet received in MPA mode. */
    uint32_t start_seq;
    /** Markers expected (default 1). */
    int markers;
    /** Verify CRCs (default 1). 0 ignores the CRC field (RFC 5044 CRC off). */
    int crc;
    /** Check every marker's FPDUPTR (default 1; MPA 9 makes it optional). */
    int check_markers;
    /**
     * Octets of the receiver's own buffer, allocated at creation (default
     * 65535: any ULPDU), for a ULPDU that cannot be delivered in place and
     * for which get_buffer gives none. 0: no buffer of its own (get_buffer
     * must give one). A ULPDU that has nowhere to go makes
     * dw_mpa_rx_feed() return DW_ERR_NOMEM, and the receiver takes
     * nothing more.
     */
    size_t buf_size;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_mpa_rx_settings;

/** The layout of dw_mpa_rx_settings this header describes (see <ddpwire/common.h>). */
#define DW_MPA_RX_SETTINGS_VERSION 1

/** Fills settings with the defaults described above. */
DW_EXTERN int dw_mpa_rx_settings_default_versioned(int settings_version,
                                                   dw_mpa_rx_settings *settings);
#define dw_mpa_rx_settings_default(settings) \
    dw_mpa_rx_settings_default_versioned(DW_MPA_RX_SETTINGS_VERSION, (settings))

/**
 * Creates a receiver. settings may be NULL for the defaults; callbacks must
 * have on_ulpdu. Allocates its one reassembly buffer (buf_size) here.
 */
DW_EXTERN int dw_mpa_rx_new_versioned(dw_mpa_rx **prx, int settings_version,
                                      const dw_mpa_rx_settings *settings,
                                      int callbacks_version,
                                      const dw_mpa_rx_callbacks *callbacks, void *user_data);
#define dw_mpa_rx_new(prx, settings, callbacks, user_data) \
    dw_mpa_rx_new_versioned((prx), DW_MPA_RX_SETTINGS_VERSION, (settings), \
        DW_MPA_RX_CALLBACKS_VERSION, (callbacks), (user_data))

/** Frees a receiver; NULL is allowed. */
DW_EXTERN void dw_mpa_rx_del(dw_mpa_rx *rx);

/** Pieces a ULPDU of at most 65535 octets can come in (dw_mpa_rx_iov_fn):
 * up to 130 markers fall among its octets. */
#define DW_MPA_ULPDU_IOV_MAX 131

/**
 * A ULPDU whose CRC verified, as iovcnt pieces (1..DW_MPA_ULPDU_IOV_MAX)
 * of len octets in all; offset, user_data and the return value as for
 * on_ulpdu. Pieces are valid only during the call.
 */
typedef int (*dw_mpa_rx_iov_fn)(dw_mpa_rx *rx, const struct iovec *iov, int iovcnt,
                                size_t len, uint64_t offset, void *user_data);

/**
 * Delivers ULPDUs through fn instead of on_ulpdu from now on (NULL: back
 * to on_ulpdu). When an FPDU arrived whole within one dw_mpa_rx_feed()
 * its ULPDU comes as pieces pointing into the fed octets between the
 * markers (MPA 7.1), never copied: the CRC is taken over the wire octets
 * directly, so markers cost no pass of their own. Otherwise one piece,
 * where on_ulpdu's data would point. Returns 0, or DW_ERR_INVAL for a
 * NULL rx.
 */
DW_EXTERN int dw_mpa_rx_set_iov_fn(dw_mpa_rx *rx, dw_mpa_rx_iov_fn fn);

/**
 * Feeds the next len octets of the stream. Returns the octets consumed:
 * len, or fewer only when on_ulpdu returned non-zero (the FPDU it was
 * called for is consumed; feed the rest later). Returns DW_ERR_PROTO once
 * an MPA error has been reported (on_error is called once, when it is
 * found), DW_ERR_NOMEM once a ULPDU had no buffer (see buf_size),
 * DW_ERR_INVAL for a NULL pointer with len > 0.
 */
DW_EXTERN ssize_t dw_mpa_rx_feed(dw_mpa_rx *rx, const void *in, size_t len);

/**
 * The transport reports that the stream ended (FIN), was reset, timed out
 * or was lost (MPA 5.1: the LLP MUST inform MPA). Reports MPA error 1
 * through on_error, with clean set when it ended between FPDUs, unless an
 * error was already reported. Returns 0 when clean, else DW_ERR_PROTO.
 */
DW_EXTERN int dw_mpa_rx_close(dw_mpa_rx *rx, dw_close_reason reason);

/** Stream offset: octets consumed since MPA start. */
DW_EXTERN uint64_t dw_mpa_rx_offset(const dw_mpa_rx *rx);

/** The error reported so far, or DW_MPA_ERR_NONE. */
DW_EXTERN dw_mpa_error dw_mpa_rx_failed(const dw_mpa_rx *rx);


/** Name of an MPA error code ("CRC mismatch", ...). */
DW_EXTERN const char *dw_mpa_strerror(dw_mpa_error code);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_H */
