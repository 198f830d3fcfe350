/* SPDX-License-Identifier: MIT */
/*
 * MPA (or IFT) over a real TCP socket (Linux): the adapter that drives the
 * sans-I/O sender, receiver and MPA start-up negotiation through the
 * framing-neutral interface (framing.h). This is the only part of ddpwire
 * that makes system calls on connections.
 *
 * Blocking use: dw_sock_connect() / dw_sock_accept() return a connection in
 * MPA mode (after the RFC 5044 exchange when negotiating); dw_sock_send()
 * sends records; dw_sock_recv() reads once and calls back with verified
 * records (ULPDUs, or IFT payloads). The descriptor (dw_sock_fd) can be put in an epoll set by the
 * caller; dw_sock_recv() then reads what is there without blocking when
 * the descriptor is non-blocking.
 */
#ifndef DDPWIRE_MPA_SOCK_H
#define DDPWIRE_MPA_SOCK_H

#include <ddpwire/framing.h>
#include <ddpwire/mpa_startup.h>

#ifdef __cplusplus
extern "C" {
#endif

/** How MPA mode begins (MPA 8.1). */
typedef enum dw_sock_startup {
    /** At the first octet after the TCP handshake (first marker 0). */
    DW_SOCK_IMMEDIATE = 0,
    /** After the RFC 5044 request/reply exchange. */
    DW_SOCK_NEGOTIATE = 1
} dw_sock_startup;

typedef struct dw_sock_opts {
    /** MPA (default) or IFT framing; IFT needs immediate start-up and has
     *  no markers (markers is ignored) and no alignment rule. */
    dw_framing framing;
    dw_sock_startup startup;
    /** Immediate: markers both ways. Negotiate: markers wanted for our
     *  receive direction (M); the peer decides ours. */
    int markers;
    /** Immediate: CRC both ways. Negotiate: CRC wanted (C). */
    int crc;
    /** Negotiate: agree to send markers when the peer asks. */
    int allow_markers;
    /** Aligned (each FPDU its own segment) or packed (see dw_sock_sendv). */
    dw_mpa_seg_mode seg_mode;
    dw_mpa_ptr_base ptr_base;
    /** Negotiate: private data to send (at most 512 octets). */
    const uint8_t *pd;
    uint16_t pd_len;
    /** Negotiate: MPA revision (1: RFC 5044, default; 2: RFC 6581) and the
     *  enhanced set-up's settings, as in dw_mpa_nego_settings (defaults:
     *  enhanced 1, IRD 1, ORD 1, no peer-to-peer). */
    uint8_t rev;
    int enhanced;
    uint16_t ird, ord;
    int p2p;
    unsigned rtr;
    /** Negotiate, connect: when the peer rejects a request that asked for
     *  markers (siw does), connect again once without them (default 0). */
    int retry_no_markers;
    /** Start-up and receive timeout in milliseconds (0: none). */
    int timeout_ms;
    /**
     * Non-blocking use (epoll): connect/accept return at once with the
     * descriptor non-blocking; a negotiated start-up then completes inside
     * dw_sock_recv() as the peer's frame arrives (dw_sock_ready() tells
     * when). Sends wait for room with poll() when the socket buffer is full.
     */
    int nonblocking;
    /** Receiver callbacks and their user data (on_pdu required): whole
     *  verified records, errors in the framing's own codes. */
    dw_fr_rx_callbacks cb;
    void *user_data;
    /** Connect: the local address to connect from (NULL: any), as
     *  rping -I. */
    const char *bind_host;
    /** IP type of service / IPv6 traffic class for the connection's
     *  packets, 0..255 (-1: the system's default), as rping -t. */
    int tos;
} dw_sock_opts;

/** Defaults: immediate, markers and CRC, aligned, 10 s timeout. */
DW_EXTERN void dw_sock_opts_default(dw_sock_opts *o);

typedef struct dw_sock dw_sock;

/** What the start-up agreed (for immediate mode: the options). */
typedef struct dw_sock_info {
    dw_framing framing;
    int tx_markers, rx_markers, crc;
    uint32_t emss;   /* TCP_MAXSEG when last read */
    uint32_t mulpdu; /* largest record: MPA 7.3.1 for that EMSS; IFT 65535 */
    /** Negotiate: the peer's frame (private data valid while s lives). */
    dw_mpa_startup peer;
    /** Negotiate: revision in effect, enhanced set-up, our IRD/ORD, the
     *  RTR kind agreed (peer-to-peer), and why a start-up was refused. */
    uint8_t rev;
    int enhanced;
    uint16_t ird, ord;
    dw_mpa_rtr rtr;
    dw_mpa_nego_reason reason;
    /** Connect: 1 when the connection was made again without markers. */
    int retried;
} dw_sock_info;

/**
 * Connects to host:port (IPv4 or IPv6, names resolved) and enters MPA
 * mode as the initiator. Returns 0, DW_ERR_IO (errno set), DW_ERR_TIMEOUT,
 * DW_ERR_REJECTED, DW_ERR_ENABLEMENT or DW_ERR_NOMEM. err (may be NULL)
 * receives one line saying what happened.
 */
DW_EXTERN int dw_sock_connect(dw_sock **ps, const char *host, const char *port,
                    const dw_sock_opts *o, char *err, size_t errlen);

/** Opens a listening socket on host (NULL: any, IPv6 and IPv4) and port. */
DW_EXTERN int dw_sock_listen(int *pfd, const char *host, const char *port, char *err,
                   size_t errlen);

/** Accepts one connection on lfd and enters MPA mode as the responder. */
DW_EXTERN int dw_sock_accept(dw_sock **ps, int lfd, const dw_sock_opts *o, char *err,
                   size_t errlen);

/**
 * Sends one record (MPA: 1..64768 octets; IFT: 0..65535) as one frame,
 * zero-copy from rec. In
 * aligned mode the FPDU is sent as its own record (MSG_EOR), so the kernel
 * does not append later data to its segment. Returns 0 or a DW_ERR_*;
 * partial writes are resumed, so a record is sent whole or the connection
 * has failed (MPA 7.3).
 */
DW_EXTERN int dw_sock_send(dw_sock *s, const void *rec, size_t len);

/**
 * Sends one record made of a header and a payload (hlen + plen octets,
 * as dw_fr_tx_frame()) as one frame in its own segment, neither copied
 * beyond the header into scratch: the queue pair's send callback
 * (qp.h) hands its ULPDUs here. Returns 0 or a DW_ERR_*.
 */
DW_EXTERN int dw_sock_send_pdu(dw_sock *s, const void *hdr, size_t hlen, const void *payload,
                     size_t plen);

/**
 * Sends n records. Packed mode groups whole FPDUs up to EMSS per sendmsg;
 * aligned mode sends each FPDU as its own record.
 */
DW_EXTERN int dw_sock_sendv(dw_sock *s, const struct iovec *recs, size_t n);

/**
 * Reads what the socket has (blocking unless the descriptor is
 * non-blocking) and feeds the receiver, which calls back; before
 * dw_sock_ready(), advances the start-up instead. Returns octets
 * read (> 0), 0 when a non-blocking read found nothing, or: DW_ERR_CLOSED
 * after the peer's orderly close at an FPDU boundary, DW_ERR_PROTO after an
 * MPA error (reported through on_error: FIN/RST/timeout inside an FPDU is
 * code 1; IFT errors carry IFT codes), DW_ERR_ENABLEMENT (immediate mode:
 * the peer's first octets are not a zero marker, or for IFT its first frame
 * has impossible sizes or a bad header CRC; negotiate: not a start-up
 * frame), DW_ERR_REJECTED,
 * DW_ERR_TIMEOUT, DW_ERR_IO.
 */
DW_EXTERN ssize_t dw_sock_recv(dw_sock *s);

/** Non-zero once the connection is in MPA mode (start-up complete). */
DW_EXTERN int dw_sock_ready(const dw_sock *s);

/** Shuts down our sending direction (FIN) after what was sent. */
DW_EXTERN int dw_sock_shutdown(dw_sock *s);

/** The agreement and the current EMSS / MULPDU (re-read from TCP_MAXSEG).
 * Before MPA mode (or after a refused start-up) MULPDU is 0 and the
 * agreement holds what is known so far. */
DW_EXTERN void dw_sock_get_info(dw_sock *s, dw_sock_info *info);

DW_EXTERN int dw_sock_fd(const dw_sock *s);

/**
 * Aborts the connection with a reset (RST) instead of a FIN, so the peer
 * learns that something went wrong (MPA itself never closes: MPA 9; this
 * is the ULP's choice), and frees everything; NULL is allowed.
 */
DW_EXTERN void dw_sock_abort(dw_sock *s);

/** Closes the connection and frees everything; NULL is allowed. */
DW_EXTERN void dw_sock_close(dw_sock *s);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_SOCK_H */
