/* SPDX-License-Identifier: MIT */
/*
 * A sans-I/O RDMAP queue pair (RFC 5040 over DDP, RFC 5041) on one MPA
 * connection. It is fed the ULPDUs that MPA verified (dw_qp_recv) and
 * hands the ULPDUs it sends to a callback as a header and a payload (the
 * payload points into the caller's or registered memory, never copied, so
 * the callback can frame it with dw_mpa_tx_frame_pdu()). No system call,
 * clock or allocation after creation.
 *
 * Memory: registered regions get STags; a region has a base tagged offset
 * (TO; rping and verbs use the buffer's address) and access rights.
 * Tagged segments (RDMA Write, Read Response) are placed only after the
 * STag, access, TO wrap and bounds checks; Sends land in posted receive
 * buffers in MSN order (queue 0); Read Requests (queue 1) are answered at
 * once from registered memory with Read Responses. Messages are segmented
 * to MULPDU. Anything a peer sends that breaks a rule gets a Terminate
 * (queue 2) and stops the queue pair: nothing is ever written outside a
 * registered region or a posted buffer.
 */
#ifndef DDPWIRE_QP_H
#define DDPWIRE_QP_H

#include <ddpwire/ddp.h>
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Region access rights. */
/** The peer may RDMA Write into it. */
#define DW_QP_ACCESS_REMOTE_WRITE 1u
/** The peer may RDMA Read from it. */
#define DW_QP_ACCESS_REMOTE_READ 2u
/** Read Responses to our RDMA Reads may land in it. */
#define DW_QP_ACCESS_LOCAL_WRITE 4u
/** A Send with Invalidate may invalidate its STag. */
#define DW_QP_ACCESS_REMOTE_INV 8u

typedef struct dw_qp dw_qp;

typedef enum dw_qp_state {
    /** Responder of a peer-to-peer start-up: waiting for the RTR message. */
    DW_QP_RTR_WAIT = 0,
    /** Ready to send and receive. */
    DW_QP_RTS = 1,
    /** A Terminate was sent or received: nothing more goes either way. */
    DW_QP_TERMINATED = 2
} dw_qp_state;

typedef enum dw_qp_wc_op {
    DW_QP_WC_SEND = 0,  /* our Send went out whole */
    DW_QP_WC_WRITE = 1, /* our RDMA Write went out whole */
    DW_QP_WC_READ = 2,  /* our RDMA Read's last Response arrived */
    DW_QP_WC_RECV = 3   /* a Send filled a posted receive buffer */
} dw_qp_wc_op;

/** A completion. */
typedef struct dw_qp_wc {
    dw_qp_wc_op op;
    uint64_t wr_id;
    /** Octets sent, read, or received (RECV: the message length). */
    uint32_t len;
    /** RECV: a Send with Solicited Event. */
    int solicited;
    /** RECV: a Send with Invalidate, and the STag it invalidated. */
    int invalidated;
    uint32_t inv_stag;
} dw_qp_wc;

typedef struct dw_qp_callbacks {
    /**
     * Required: send one ULPDU, hdr (hlen octets, valid during the call)
     * followed by payload (plen octets, may be empty). Return 0, or a
     * negative DW_ERR_* to stop: the call that sent returns it.
     */
    int (*send)(dw_qp *qp, const uint8_t *hdr, size_t hlen, const uint8_t *payload,
                size_t plen, void *user_data);
    /** Required: a completion. */
    void (*on_wc)(dw_qp *qp, const dw_qp_wc *wc, void *user_data);
    /** Optional: a Terminate we sent (received 0) or the peer sent (1). */
    void (*on_terminate)(dw_qp *qp, const dw_rdmap_term *t, int received,
                         void *user_data);
    /**
     * Optional: the largest ULPDU (DDP header included) for the next
     * segment, asked before each one: dw_sock_fill_len() makes every
     * segment of a long message an FPDU of exactly EMSS octets (the exact
     * fill, which at some MPA positions is above MULPDU). A value that
     * leaves no payload after the header, or above DW_MPA_ULPDU_MAX, or
     * 0, means the mulpdu setting.
     */
    size_t (*seg_max)(dw_qp *qp, void *user_data);
} dw_qp_callbacks;

/** The layout of dw_qp_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_QP_CALLBACKS_VERSION 1

typedef struct dw_qp_settings {
    /** Largest ULPDU to send (MPA's MULPDU; default 1024; 128..64768). */
    uint32_t mulpdu;
    /** Regions that can be registered at once (default 16). */
    unsigned max_mr;
    /** Receive buffers that can be posted at once (default 16). */
    unsigned max_recv;
    /** Our RDMA Reads outstanding at once: the ORD (default 4). */
    unsigned ord;
    /** Peer-to-peer initiator: the RTR that dw_qp_rtr() sends (default none). */
    dw_mpa_rtr rtr_send;
    /** Peer-to-peer responder: the RTR to wait for before sending (default none). */
    dw_mpa_rtr rtr_expect;
    /** Flags for dw_rdmap_validate() (default 0: reserved fields not judged). */
    unsigned validate_flags;
    /** Write our Terminates in siw 6.1's swapped layout (default 0: RFC 5040). */
    int term_swapped;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_qp_settings;

/** The layout of dw_qp_settings this header describes (see <ddpwire/common.h>). */
#define DW_QP_SETTINGS_VERSION 1

/** Fills s with the defaults above. */
DW_EXTERN int dw_qp_settings_default_versioned(int settings_version, dw_qp_settings *s);
#define dw_qp_settings_default(s) \
    dw_qp_settings_default_versioned(DW_QP_SETTINGS_VERSION, (s))

/**
 * Creates a queue pair (settings NULL: defaults). callbacks must have send
 * and on_wc. Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_qp_new_versioned(dw_qp **pqp, int settings_version,
                                  const dw_qp_settings *settings, int callbacks_version,
                                  const dw_qp_callbacks *callbacks, void *user_data);
#define dw_qp_new(pqp, settings, callbacks, user_data) \
    dw_qp_new_versioned((pqp), DW_QP_SETTINGS_VERSION, (settings), DW_QP_CALLBACKS_VERSION, \
        (callbacks), (user_data))

/** Frees a queue pair; NULL is allowed. */
DW_EXTERN void dw_qp_del(dw_qp *qp);

DW_EXTERN dw_qp_state dw_qp_state_get(const dw_qp *qp);

/** Follows a MULPDU change (EMSS). Returns 0 or DW_ERR_INVAL. */
DW_EXTERN int dw_qp_set_mulpdu(dw_qp *qp, uint32_t mulpdu);

/**
 * Registers len octets at addr (len > 0) as a region whose first octet has
 * tagged offset base_to, with DW_QP_ACCESS_* rights. Sets *stag (never 0).
 * Returns 0, DW_ERR_NOSPACE (max_mr in use), DW_ERR_INVAL (NULL, 0
 * octets, or base_to + len past 2^64).
 */
DW_EXTERN int dw_qp_reg_mr(dw_qp *qp, void *addr, size_t len, uint64_t base_to,
                 unsigned access, uint32_t *stag);

/** Deregisters (or forgets an invalidated) STag. Returns 0 or DW_ERR_INVAL. */
DW_EXTERN int dw_qp_dereg_mr(dw_qp *qp, uint32_t stag);

/**
 * Posts a receive buffer for the next Send (MSN order). Returns 0,
 * DW_ERR_NOSPACE (max_recv posted) or DW_ERR_INVAL.
 */
DW_EXTERN int dw_qp_post_recv(dw_qp *qp, uint64_t wr_id, void *buf, size_t len);

/**
 * Sends a message of len octets (0 allowed) with opcode DW_RDMAP_SEND,
 * SEND_INV, SEND_SE or SEND_SE_INV (inv_stag: the peer's STag to
 * invalidate, for the _INV kinds), in segments of at most MULPDU; a
 * DW_QP_WC_SEND completion follows. Returns 0, DW_ERR_STATE (terminated,
 * or waiting for the RTR), DW_ERR_INVAL, or the send callback's error.
 */
DW_EXTERN int dw_qp_send(dw_qp *qp, uint64_t wr_id, dw_rdmap_opcode op, uint32_t inv_stag,
               const void *buf, size_t len);

/** RDMA Write of len octets to the peer's rstag at rto. As dw_qp_send(). */
DW_EXTERN int dw_qp_write(dw_qp *qp, uint64_t wr_id, const void *buf, size_t len,
                uint32_t rstag, uint64_t rto);

/**
 * RDMA Read of len octets from the peer's rstag at rto into our region
 * lstag at lto (which must allow DW_QP_ACCESS_LOCAL_WRITE and hold them).
 * A DW_QP_WC_READ completion follows the last Read Response. Returns 0,
 * DW_ERR_NOSPACE (ORD Reads outstanding), DW_ERR_INVAL (lstag, bounds),
 * DW_ERR_STATE, or the send callback's error.
 */
DW_EXTERN int dw_qp_read(dw_qp *qp, uint64_t wr_id, uint32_t lstag, uint64_t lto,
               uint32_t len, uint32_t rstag, uint64_t rto);

/**
 * Peer-to-peer initiator (RFC 6581): sends the RTR message of
 * settings.rtr_send as the first FPDU: a zero-length Send (MSN 1), a
 * zero-length RDMA Write (STag 0, TO 0), or a zero-length RDMA Read
 * Request (its zero-length Response is absorbed). Until it is sent,
 * dw_qp_send/write/read return DW_ERR_STATE. Returns 0, DW_ERR_STATE (no
 * RTR configured, or already sent) or the callback's error.
 */
DW_EXTERN int dw_qp_rtr(dw_qp *qp);

/**
 * Feeds one verified ULPDU. Returns 0; DW_ERR_PROTO when it broke a rule
 * (a Terminate was sent and the queue pair stopped) or was the peer's
 * Terminate; DW_ERR_STATE once terminated; or the send callback's error.
 */
DW_EXTERN int dw_qp_recv(dw_qp *qp, const uint8_t *ulpdu, size_t len);

/**
 * Sends a Terminate of our own (layer, error type, code; e.g. LLP/MPA
 * codes for an MPA error, or RFC 6581's insufficient IRD) and stops.
 * Returns 0, DW_ERR_STATE, DW_ERR_INVAL or the callback's error.
 */
DW_EXTERN int dw_qp_terminate(dw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code);

/** The Terminate sent or received (NULL before one). Its copied headers
 *  point into the queue pair and stay valid while it lives. */
DW_EXTERN const dw_rdmap_term *dw_qp_last_term(const dw_qp *qp);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_QP_H */
