/* SPDX-License-Identifier: MIT */
/*
 * MPA (or IFT) over a real TCP socket (Linux): a pump of file descriptors
 * around the sans-I/O connection (conn.h), which owns the start-up, the
 * negotiation, enablement detection, framing and receiving. This is the
 * only part of ddpwire that makes system calls on connections.
 *
 * Blocking use: dw_sock_connect() / dw_sock_accept() return a connection in
 * MPA mode (after the RFC 5044 exchange when negotiating); dw_sock_send()
 * sends records, waiting for room; dw_sock_recv() reads once and calls
 * back with verified records (ULPDUs, or IFT payloads).
 *
 * Non-blocking use (settings.nonblocking, for an event loop): no call waits.
 * Connect and accept return at once; the start-up completes inside
 * dw_sock_recv() and dw_sock_flush(). A send takes a whole record, writing
 * what the socket takes and copying the rest into the connection's output
 * queue (bounded by settings.out_limit), or refuses it with DW_ERR_AGAIN and
 * takes nothing. dw_sock_flush() writes what the socket takes from the
 * queue. dw_sock_recv() reads what arrived and returns DW_ERR_AGAIN when
 * nothing did. dw_sock_want() says what to wait for before calling again:
 *
 *   wait until dw_sock_fd(s) is readable or writable, as dw_sock_want(s) asks;
 *   readable: while ((r = dw_sock_recv(s)) > 0) {}  (then AGAIN, or the end)
 *   writable: dw_sock_flush(s)                      (0: queue empty; AGAIN)
 *   DW_SOCK_WANT_RECV: call dw_sock_recv(s) without waiting
 *
 * examples/epoll_echo.c and examples/echo_client.c do this in full.
 */
#ifndef DDPWIRE_MPA_SOCK_H
#define DDPWIRE_MPA_SOCK_H

#include <ddpwire/conn.h>
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

/*
 * Versioned (see <ddpwire/common.h>): the connect and accept macros pass
 * DW_SOCK_SETTINGS_VERSION. Version 1 ends at mem. It embeds
 * dw_fr_rx_callbacks by value (cb): when that struct grows, the fields
 * after cb move, so dw_sock_settings then gets a new version, and the
 * library a converter that reads version 1 with the old callbacks' layout.
 */
typedef struct dw_sock_settings {
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
    /** Blocking use: start-up, send and receive timeout in milliseconds
     *  (0: none). Non-blocking use: ignored (the caller keeps the time). */
    int timeout_ms;
    /**
     * Non-blocking use (see the top of this file): no call ever waits.
     * Connect and accept return at once; for connect the host must then be
     * a numeric address (names are resolved by calls that wait). A
     * connection is dw_sock_ready() once the TCP handshake and the
     * start-up are done. retry_no_markers is ignored.
     */
    int nonblocking;
    /**
     * Non-blocking use: octets the output queue may hold (0: 262144). A
     * record is taken when its frame fits beside what is queued, or when
     * the queue is empty (so a record longer than the limit still goes).
     */
    size_t out_limit;
    /** Non-blocking use: octets per chunk of the output queue (0: 16384;
     *  at least 1024); chunks are allocated as needed, freed as it drains. */
    size_t out_chunk;
    /*
     * Memory per connection (0 for each: the default). An idle connection
     * holds its read buffer, its iovecs (once it has sent), the sender's
     * scratch ring and a reassembly buffer of at most rx_keep octets.
     */
    /** Octets read at once (0: 65536; at least 1024). */
    size_t rbuf_size;
    /** iovecs per system call when sending, allocated at the first send
     *  (0: 1024; at least DW_FR_FRAME_IOV_MAX). */
    size_t iov_max;
    /** Octets of the sender's scratch ring for headers, markers, pad and
     *  CRCs (0: DW_MPA_FPDU_MAX + 2048; at least 2048). Batched and packed
     *  sends write before a frame's scratch could be reused. */
    size_t tx_scratch;
    /**
     * Reassembly: a record that does not arrive within one read is put
     * together in a buffer allocated for it (unless cb.get_buffer gives
     * one). One of at most rx_keep octets is kept for the next such
     * record; a longer one is freed once delivered (0: 65535, always kept).
     * Set DW_SOCK_RX_KEEP_NONE to keep none.
     */
    size_t rx_keep;
    /** Connect: the local address to connect from (NULL: any), as rping
     *  -I, or to spread many connections over several loopback addresses.
     *  A name is resolved in blocking mode only (non-blocking: numeric). */
    const char *local_addr;
    /** Receiver callbacks and their user data (on_pdu required): whole
     *  verified records, errors in the framing's own codes. */
    dw_fr_rx_callbacks cb;
    void *user_data;
    /** IP type of service / IPv6 traffic class for the connection's
     *  packets, 0..255 (-1: the system's default), as rping -t. */
    int tos;
    /** The allocator for everything the connection allocates, the
     *  dw_conn inside it included (NULL: the C library's); see
     *  <ddpwire/mem.h>. Must outlive the connection. */
    const dw_mem *mem;
    /* ---- version 2 ---- */
    /**
     * TCP's congestion control for the connection, by the kernel's name
     * ("cubic", "bbr", "reno"; NULL: the system's default), as iperf3 -C.
     * Connect sets it before the handshake, so nothing of another one
     * stays behind (BBR leaves its pacing on in a socket it ran); accept
     * sets it on the accepted socket. A name the kernel does not have:
     * DW_ERR_INVAL; one it does not allow this process: DW_ERR_IO (EPERM).
     */
    const char *congestion;
} dw_sock_settings;

/** The layout of dw_sock_settings this header describes (see <ddpwire/common.h>):
 *  1 ends at mem, 2 adds congestion. */
#define DW_SOCK_SETTINGS_VERSION 2

/** rx_keep: keep no reassembly buffer between records. */
#define DW_SOCK_RX_KEEP_NONE ((size_t)-1)

/** Defaults: immediate, markers and CRC, aligned, 10 s timeout, blocking,
 *  and the memory defaults above. */
DW_EXTERN int dw_sock_settings_default_versioned(int settings_version, dw_sock_settings *o);
#define dw_sock_settings_default(o) \
    dw_sock_settings_default_versioned(DW_SOCK_SETTINGS_VERSION, (o))

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
 * DW_ERR_REJECTED, DW_ERR_ENABLEMENT, DW_ERR_INVAL (also for a settings
 * version this library does not know) or DW_ERR_NOMEM. err
 * (may be NULL) receives one line saying what happened. Non-blocking: the
 * connection comes back at once, still connecting; dw_sock_flush() on
 * writable completes it (or reports DW_ERR_IO with errno, e.g. refused).
 */
DW_EXTERN int dw_sock_connect_versioned(dw_sock **ps, const char *host, const char *port,
                                       int settings_version, const dw_sock_settings *o,
                                       char *err, size_t errlen);
#define dw_sock_connect(ps, host, port, o, err, errlen) \
    dw_sock_connect_versioned((ps), (host), (port), DW_SOCK_SETTINGS_VERSION, (o), (err), \
        (errlen))

/** Opens a listening socket on host (NULL: any, IPv6 and IPv4) and port. */
DW_EXTERN int dw_sock_listen(int *pfd, const char *host, const char *port, char *err,
                   size_t errlen);

/**
 * Accepts one connection on lfd and enters MPA mode as the responder.
 * Returns 0; DW_ERR_AGAIN (errno EAGAIN) when no connection waits on a
 * non-blocking lfd; DW_ERR_IO with errno for a failed accept (EMFILE: out
 * of descriptors); or a start-up error as dw_sock_connect().
 */
DW_EXTERN int dw_sock_accept_versioned(dw_sock **ps, int lfd, int settings_version,
                                      const dw_sock_settings *o, char *err, size_t errlen);
#define dw_sock_accept(ps, lfd, o, err, errlen) \
    dw_sock_accept_versioned((ps), (lfd), DW_SOCK_SETTINGS_VERSION, (o), (err), (errlen))

/**
 * Sends one record (MPA: 1..MULPDU octets; IFT: 0..65535) as one frame,
 * zero-copy from rec. In aligned mode the FPDU is sent as its own record
 * (MSG_EOR), so the kernel does not append later data to its segment.
 * Returns 0 or a DW_ERR_*.
 *
 * Blocking: partial writes are resumed, so a record is sent whole or the
 * connection has failed (MPA 7.3).
 *
 * Non-blocking: 0 means the record was taken whole: what the socket did
 * not take was copied into the output queue (rec may be reused at once).
 * DW_ERR_AGAIN means nothing was taken: the queue has no room (wait for
 * writable, dw_sock_flush(), send again) or the connection is still
 * connecting. DW_ERR_STATE before MPA mode or after dw_sock_shutdown().
 */
DW_EXTERN int dw_sock_send(dw_sock *s, const void *rec, size_t len);

/**
 * Sends one record made of a header and a payload (hlen + plen octets,
 * as dw_fr_tx_frame()) as one frame in its own segment, neither copied
 * beyond the header into scratch: the queue pair's send callback
 * (qp.h) hands its ULPDUs here. Returns 0 or a DW_ERR_*, as dw_sock_send().
 */
DW_EXTERN int dw_sock_send_pdu(dw_sock *s, const void *hdr, size_t hlen, const void *payload,
                     size_t plen);

/**
 * Sends n records. Packed mode groups whole FPDUs up to EMSS per sendmsg;
 * aligned mode sends each FPDU as its own record. Non-blocking: all n are
 * taken (0) or none (DW_ERR_AGAIN, as dw_sock_send()): they are taken when
 * their frames fit beside what is queued, or when n is 1 and the queue is
 * empty; a batch whose frames alone exceed out_limit is refused with
 * DW_ERR_NOSPACE (send fewer at a time).
 */
DW_EXTERN int dw_sock_sendv(dw_sock *s, const struct iovec *recs, size_t n);

/**
 * Sends len octets of a byte stream as records that the transport sizes,
 * for bulk data. MPA: each record is the exact fill at the sender's
 * position (dw_fr_tx_fill_len()), so every FPDU is EMSS octets, and many
 * go to the kernel in one write (up to 256 KiB, and no more than the
 * sender's scratch covers: settings.tx_scratch), which TSO/GSO cuts at
 * multiples of EMSS: every segment begins with an FPDU (docs/DESIGN.md
 * says why, and where the kernel cannot keep it). Each FPDU shorter than
 * EMSS ends a record (MSG_EOR), and so does each write, except one of
 * whole EMSS FPDUs with at least EMSS of the peer's window left after it
 * (the next write may then fill its last buffer); the route's MTU is
 * read before each write, so FPDUs follow a path-MTU change within one
 * write.
 * Meanwhile the socket is corked (TCP_CORK) so that a send held back by
 * the congestion window is also cut at a multiple of EMSS; the call with
 * more 0, and any other send, uncorks it. Only what fits inside the peer's
 * advertised receive window goes in one large write; beyond it one FPDU
 * goes as its own message (a buffer the kernel sends whole or not at
 * all), and the call waits until it has left (poll, with
 * TCP_NOTSENT_LOWAT set for the wait and put back) before it writes on.
 * Where no FPDU can fill EMSS (EMSS not a multiple of 4, or above the
 * largest FPDU) each record is its own message, as dw_sock_send(). IFT:
 * records of up to 65535 octets written back to back (IFT has no
 * alignment rule). Non-blocking sockets: fill-size records, each as
 * dw_sock_send() takes it, while the socket and its queue take them;
 * DW_ERR_AGAIN when none was taken.
 * With more non-zero, octets after the last whole fill record are not
 * sent (give them again with what follows); with more 0 all are sent, the
 * last record shorter. *nrec (may be NULL) receives the records sent.
 * Returns the octets sent, or a DW_ERR_* (what was sent before is gone).
 */
DW_EXTERN ssize_t dw_sock_send_stream(dw_sock *s, const void *buf, size_t len, int more,
                                      size_t *nrec);

/**
 * The exact-fill record size at this moment (dw_fr_tx_fill_len()) for a
 * ULP that cuts its own records, such as the queue pair's seg_max
 * callback (qp.h); 0 before MPA mode.
 */
DW_EXTERN size_t dw_sock_fill_len(dw_sock *s);

/**
 * MPA only: delivers records through fn (with settings' user_data) instead
 * of cb.on_pdu from now on (NULL: back to on_pdu), as
 * dw_fr_rx_set_iov_fn(): a record whole in one read comes as pieces of
 * the read buffer between its markers, never copied. Records fed before
 * the call went to on_pdu. Returns 0, DW_ERR_UNSUPPORTED (IFT),
 * DW_ERR_INVAL.
 */
DW_EXTERN int dw_sock_set_iov_fn(dw_sock *s, dw_fr_rx_iov_fn fn);

/**
 * Reads what the socket has (blocking unless the descriptor is
 * non-blocking) and feeds the receiver, which calls back; before
 * dw_sock_ready(), advances the start-up instead. When the user's on_pdu
 * returns non-zero, this returns right after that record and the octets
 * read after it stay in the adapter (dw_sock_pending()): the next call
 * feeds them before it reads again. Returns octets read or fed (> 0),
 * DW_ERR_AGAIN when a non-blocking read found nothing, or: DW_ERR_CLOSED
 * after the peer's orderly close at an FPDU boundary, DW_ERR_PROTO after an
 * MPA error (reported through on_error: FIN/RST/timeout inside an FPDU is
 * code 1; IFT errors carry IFT codes), DW_ERR_ENABLEMENT (immediate mode:
 * the peer's first octets are not a zero marker, or for IFT its first frame
 * has impossible sizes or a bad header CRC; negotiate: not a start-up
 * frame), DW_ERR_REJECTED, DW_ERR_TIMEOUT (blocking), DW_ERR_NOMEM (no
 * reassembly buffer), DW_ERR_IO.
 */
DW_EXTERN ssize_t dw_sock_recv(dw_sock *s);

/** Non-zero once the connection is in MPA mode (connected, start-up
 *  complete): records may be sent. */
DW_EXTERN int dw_sock_ready(const dw_sock *s);

/**
 * Shuts down our sending direction (FIN) after what was sent. Non-blocking:
 * with octets queued, the FIN follows them (dw_sock_flush() sends it once
 * the queue has drained). Sends after it are refused (DW_ERR_STATE).
 */
DW_EXTERN int dw_sock_shutdown(dw_sock *s);

/** dw_sock_want(): wait for the descriptor to be readable, then dw_sock_recv(). */
#define DW_SOCK_WANT_READ 1u
/** dw_sock_want(): wait for it to be writable, then dw_sock_flush(). */
#define DW_SOCK_WANT_WRITE 2u
/** dw_sock_want(): input waits in the adapter: call dw_sock_recv() now. */
#define DW_SOCK_WANT_RECV 4u

/**
 * Non-blocking use: what to wait for before calling in again, as
 * DW_SOCK_WANT_* bits: READ, or RECV instead while input waits in the
 * adapter; and WRITE while connecting, while octets are queued, and while
 * a FIN waits for the queue.
 */
DW_EXTERN unsigned dw_sock_want(const dw_sock *s);

/**
 * Non-blocking use: completes a connect in progress, then writes what the
 * socket takes from the output queue (frames in order; in aligned mode each
 * its own record), then a FIN that waited for the queue. Never waits.
 * Returns 0 when nothing is left to write, DW_ERR_AGAIN when octets are
 * still queued (or the connect is in progress), DW_ERR_IO with errno (the
 * connect failed, or the connection broke). Blocking use: 0.
 */
DW_EXTERN int dw_sock_flush(dw_sock *s);

/** Octets waiting in the output queue (0 in blocking use). */
DW_EXTERN size_t dw_sock_queued(const dw_sock *s);

/** Octets read but not yet fed to the receiver (see dw_sock_recv()). */
DW_EXTERN size_t dw_sock_pending(const dw_sock *s);

/**
 * Non-zero while a frame (or the peer's start-up frame) has begun to
 * arrive and is not complete: what a deadline for frames that never
 * complete needs (a peer that sends one octet a second).
 */
DW_EXTERN int dw_sock_in_frame(const dw_sock *s);

/** The agreement and the current EMSS / MULPDU (re-read from TCP_MAXSEG).
 * Before MPA mode (or after a refused start-up) MULPDU is 0 and the
 * agreement holds what is known so far. */
DW_EXTERN void dw_sock_info_get(dw_sock *s, dw_sock_info *info);

/** The connection's socket descriptor (for poll/epoll). */
DW_EXTERN int dw_sock_fd(const dw_sock *s);

/**
 * Aborts the connection with a reset (RST) instead of a FIN, so the peer
 * learns that something went wrong (MPA itself never closes: MPA 9; this
 * is the ULP's choice), and frees everything; NULL is allowed.
 */
DW_EXTERN void dw_sock_abort(dw_sock *s);

/** Closes the connection and frees everything; octets still queued are
 *  dropped (flush until dw_sock_queued() is 0 first). NULL is allowed. */
DW_EXTERN void dw_sock_close(dw_sock *s);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MPA_SOCK_H */
