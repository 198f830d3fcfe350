/* SPDX-License-Identifier: MIT */
/*
 * MPA start-up: the RFC 5044 request/reply frames, the RFC 6581 enhanced
 * connection set-up (IRD/ORD, ready-to-receive) and the negotiation that
 * decides markers and CRC per direction. Pure codecs and computations.
 */
#ifndef DDPWIRE_MPA_STARTUP_H
#define DDPWIRE_MPA_STARTUP_H

#include <ddpwire/mpa.h>

#ifdef __cplusplus
extern "C" {
#endif

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
DW_EXTERN ssize_t dw_mpa_startup_decode(dw_mpa_startup *out, const uint8_t *in, size_t len);

/**
 * Encodes f into out (cap octets). Returns the length, DW_ERR_NOSPACE,
 * DW_ERR_TOO_LONG (private data over 512) or DW_ERR_INVAL.
 */
DW_EXTERN ssize_t dw_mpa_startup_encode(uint8_t *out, size_t cap, const dw_mpa_startup *f);


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
DW_EXTERN ssize_t dw_mpa_enh_decode(dw_mpa_enh *e, const uint8_t *in, size_t len);

/** Encodes e. Returns 4, DW_ERR_NOSPACE, or DW_ERR_INVAL (count over 0x3FFF, unknown RTR bit). */
DW_EXTERN ssize_t dw_mpa_enh_encode(uint8_t *out, size_t cap, const dw_mpa_enh *e);

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

/** The layout of dw_mpa_nego_settings this header describes (see <ddpwire/common.h>). */
#define DW_MPA_NEGO_SETTINGS_VERSION 1

/** Defaults: want markers and CRC, allow markers, revision 1, no data
 *  (enhanced on for revision 2, IRD 1, ORD 1, no peer-to-peer). */
DW_EXTERN int dw_mpa_nego_settings_default_versioned(int settings_version,
                                                     dw_mpa_nego_settings *s);
#define dw_mpa_nego_settings_default(s) \
    dw_mpa_nego_settings_default_versioned(DW_MPA_NEGO_SETTINGS_VERSION, (s))

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
DW_EXTERN const char *dw_mpa_nego_reason_str(dw_mpa_nego_reason r);

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
DW_EXTERN ssize_t dw_mpa_nego_request_versioned(int settings_version,
                                                const dw_mpa_nego_settings *s, uint8_t *out,
                                                size_t cap);
#define dw_mpa_nego_request(s, out, cap) \
    dw_mpa_nego_request_versioned(DW_MPA_NEGO_SETTINGS_VERSION, (s), (out), (cap))

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
DW_EXTERN ssize_t dw_mpa_nego_respond_versioned(int settings_version,
                                                const dw_mpa_nego_settings *s,
                                                const uint8_t *in, size_t len, uint8_t *reply,
                                                size_t cap, size_t *reply_len,
                                                dw_mpa_nego_result *res);
#define dw_mpa_nego_respond(s, in, len, reply, cap, reply_len, res) \
    dw_mpa_nego_respond_versioned(DW_MPA_NEGO_SETTINGS_VERSION, (s), (in), (len), (reply), \
        (cap), (reply_len), (res))

/**
 * Initiator: decodes the reply at in. Returns its length, DW_ERR_NEED_MORE,
 * or DW_ERR_MALFORMED (not a reply: an enablement error). A reply with R
 * set gives result.accepted 0. A reply that accepts but asks for markers
 * we do not allow, has revision 0 or above 2, or breaks the enhanced
 * set-up (its ORD above our IRD, an RTR kind we did not offer) is also
 * refused (accepted 0, with reason and term_code).
 */
DW_EXTERN ssize_t dw_mpa_nego_on_reply_versioned(int settings_version,
                                                 const dw_mpa_nego_settings *s,
                                                 const uint8_t *in, size_t len,
                                                 dw_mpa_nego_result *res);
#define dw_mpa_nego_on_reply(s, in, len, res) \
    dw_mpa_nego_on_reply_versioned(DW_MPA_NEGO_SETTINGS_VERSION, (s), (in), (len), (res))

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_STARTUP_H */
