/* SPDX-License-Identifier: MIT */
/* The connection's state, shared by conn.c (life, sending) and conn_rx.c
 * (start-up, receiving). */
#ifndef DW_CONN_CONN_INT_H
#define DW_CONN_CONN_INT_H

#include <ddpwire/conn.h>

#define DW_CONN_PEER_MAX (DW_MPA_STARTUP_HDR_LEN + DW_MPA_STARTUP_PD_MAX)
#define DW_CONN_CTRL_MAX (DW_MPA_STARTUP_HDR_LEN + DW_MPA_STARTUP_PD_MAX + DW_MPA_ENH_LEN)

/* What a negotiated start-up needs only until MPA mode (allocated for it
 * alone, freed once in MPA mode with our frame sent). */
typedef struct dw_conn_su {
    uint8_t ctrl[DW_CONN_CTRL_MAX]; /* our start-up frame, to send */
    uint8_t pd[DW_MPA_STARTUP_PD_MAX]; /* our private data (a copy) */
} dw_conn_su;

struct dw_conn {
    dw_conn_settings s;
    dw_conn_callbacks cb;
    void *user_data;
    dw_conn_iov_fn iov_fn; /* MPA: records as pieces, or NULL */
    dw_conn_info info;
    dw_conn_stats st;
    dw_fr_tx *tx;
    dw_fr_rx *rx;
    int ready;             /* MPA mode */
    int err;               /* the error the connection failed with, or 0 */
    int empty;             /* the peer sent an empty MPA record */
    int stop;              /* on_pdu asked dw_conn_recv to return */
    unsigned zero_seen;    /* immediate mode: octets of the first marker checked */
    uint64_t frame_end;    /* stream offset after the last delivered record */
    uint8_t *asmb;         /* reassembly buffer, allocated when needed */
    size_t asmb_cap;
    dw_conn_su *su;        /* negotiated start-up, until MPA mode */
    uint8_t *peer;         /* negotiated: the peer's frame (DW_CONN_PEER_MAX) */
    size_t have;           /* octets of the peer's frame in peer */
    size_t ctrl_at, ctrl_len; /* su->ctrl[ctrl_at..ctrl_len) to send */
};

/* conn.c: the sender and receiver for what was agreed; MPA mode. */
int dw_conn_enter_mpa(dw_conn *c);

/* conn_rx.c: the framing receiver's pieces callback (iov_fn's). */
int dw_conn_rx_on_pieces(dw_fr_rx *rx, const struct iovec *iov, int iovcnt, size_t len,
                         uint64_t off, void *u);

/* conn.c: frees the start-up's own buffers once in MPA mode, frame sent. */
void dw_conn_su_done(dw_conn *c);

/* The framing receiver (for the socket adapter's callbacks, which hand
 * it to the user's dw_fr_rx_callbacks). */
dw_fr_rx *dw_conn_fr_rx(dw_conn *c);

#endif
