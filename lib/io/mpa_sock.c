/* SPDX-License-Identifier: MIT */
/* MPA over Linux TCP sockets: the adapter around the sans-I/O core. Set-up,
 * start-up and receiving; sending is in sock_send.c. */
#include <ddpwire/mpa_sock.h>
#include <ddpwire/mpa_startup.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/sock_int.h"

#define PEER_FRAME_MAX (DW_MPA_STARTUP_HDR_LEN + DW_MPA_STARTUP_PD_MAX)

void dw_sock_opts_default(dw_sock_opts *o)
{
    memset(o, 0, sizeof *o);
    o->startup = DW_SOCK_IMMEDIATE;
    o->markers = 1;
    o->crc = 1;
    o->allow_markers = 1;
    o->seg_mode = DW_MPA_SEG_ALIGNED;
    o->framing = DW_FRAMING_MPA;
    o->timeout_ms = 10000;
    o->rev = 1;
    o->enhanced = 1;
    o->ird = o->ord = 1;
    o->tos = -1;
}

/* The memory settings with their defaults and floors filled in. */
static void sizes(dw_sock_opts *o)
{
    if (!o->rbuf_size)
        o->rbuf_size = 65536;
    o->rbuf_size = o->rbuf_size < 1024 ? 1024 : o->rbuf_size;
    if (!o->iov_max)
        o->iov_max = 1024;
    o->iov_max = o->iov_max < DW_FR_FRAME_IOV_MAX ? DW_FR_FRAME_IOV_MAX : o->iov_max;
    if (!o->tx_scratch)
        o->tx_scratch = DW_MPA_FPDU_MAX + 2048;
    o->tx_scratch = o->tx_scratch < 2048 ? 2048 : o->tx_scratch;
    if (!o->rx_keep)
        o->rx_keep = 65535;
    if (!o->out_limit)
        o->out_limit = 262144;
    if (!o->out_chunk)
        o->out_chunk = 16384;
    o->out_chunk = o->out_chunk < 1024 ? 1024 : o->out_chunk;
}

static int say(char *err, size_t n, int rc, const char *fmt, const char *what)
{
    if (err && n)
        snprintf(err, n, fmt, what);
    return rc;
}

static void set_timeouts(int fd, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* The receiver's callbacks go to the user's, except an empty MPA ULPDU:
 * records are 1..64768 octets (MPA 5.2 senders never post 0), and an IFT
 * peer's first frame with an empty header reads as one under MPA without
 * markers (its header CRC then equals the FPDU's CRC). A user's non-zero
 * return stops dw_sock_recv after this record (the rest stays pending). */
static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                  size_t len, uint64_t off, void *u)
{
    dw_sock *s = u;
    s->frame_end = dw_fr_rx_offset(rx); /* the end of this frame */
    if (!len && !hlen && s->o.framing == DW_FRAMING_MPA)
        return s->empty = 1; /* stop here: dw_sock_recv refuses it */
    s->stop = s->o.cb.on_pdu(rx, hdr, hlen, d, len, off, s->o.user_data) != 0;
    size_t keep = s->o.rx_keep == DW_SOCK_RX_KEEP_NONE ? 0 : s->o.rx_keep;
    if (d == s->asmb && s->asmb_cap > keep) { /* delivered: let it go */
        free(s->asmb);
        s->asmb = NULL, s->asmb_cap = 0;
    }
    return s->stop;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    dw_sock *s = u;
    if (s->o.cb.on_error)
        s->o.cb.on_error(rx, e, s->o.user_data);
}

/* Where a record that spans reads is put together: the user's buffer, or
 * ours, allocated (or grown) for it; NULL stops the receiver (NOMEM). */
static uint8_t *get_buffer(dw_fr_rx *rx, size_t len, void *u)
{
    dw_sock *s = u;
    uint8_t *b = s->o.cb.get_buffer ? s->o.cb.get_buffer(rx, len, s->o.user_data) : NULL;
    if (b)
        return b;
    if (len > s->asmb_cap) {
        free(s->asmb);
        s->asmb = malloc(len);
        s->asmb_cap = s->asmb ? len : 0;
    }
    return s->asmb;
}

/* The sender and receiver for what was agreed. */
static int make_mpa(dw_sock *s)
{
    dw_fr_tx_settings ts;
    dw_fr_rx_settings rs;
    dw_fr_tx_settings_default(&ts, s->o.framing);
    ts.mpa.markers = s->info.tx_markers;
    ts.mpa.crc = ts.ift.crc = s->info.crc;
    ts.mpa.seg_mode = s->o.seg_mode;
    ts.mpa.ptr_base = s->o.ptr_base;
    ts.mpa.scratch_size = ts.ift.scratch_size = s->o.tx_scratch;
    dw_fr_rx_settings_default(&rs, s->o.framing);
    rs.mpa.markers = s->info.rx_markers;
    rs.mpa.crc = rs.ift.crc = s->info.crc;
    rs.buf_size = 0; /* ours comes from get_buffer, when a record needs it */
    int rc = dw_fr_tx_new(&s->tx, &ts);
    dw_fr_rx_callbacks cb = {on_pdu, on_error, get_buffer};
    if (!rc)
        rc = dw_fr_rx_new(&s->rx, &rs, &cb, s);
    if (!rc)
        dw_sk_read_emss(s);
    return rc;
}

static dw_sock *sock_new(int fd, const dw_sock_opts *o)
{
    dw_sock *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = fd;
    s->o = *o;
    sizes(&s->o);
    s->info.framing = o->framing;
    dw_outq_settings qs = {s->o.out_limit, s->o.out_chunk, NULL};
    if (!(s->rbuf = malloc(s->o.rbuf_size)) ||
        (o->nonblocking && dw_outq_new(&s->q, &qs))) {
        free(s->rbuf);
        free(s);
        return NULL;
    }
    int one = 1; /* MPA 7.3: Nagle off, so FPDUs leave as framed */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (o->timeout_ms > 0 && !o->nonblocking)
        set_timeouts(fd, o->timeout_ms);
    return s;
}

/* Reads more of the peer's start-up frame into rbuf[s->have..]. */
static int read_more(dw_sock *s)
{
    for (;;) {
        size_t room = s->o.rbuf_size - s->have;
        ssize_t n = read(s->fd, s->rbuf + s->have, room);
        if (n > 0) {
            s->have += (size_t)n;
            return 0;
        }
        if (n == 0)
            return room ? DW_ERR_CLOSED : DW_ERR_ENABLEMENT; /* no frame is that long */
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return s->o.nonblocking ? DW_ERR_AGAIN : DW_ERR_TIMEOUT;
        return DW_ERR_IO;
    }
}

/* The peer's frame was the first `used` of the s->have octets read. */
static int keep_peer(dw_sock *s, const dw_mpa_nego_result *r, size_t used)
{
    if (!s->peer_frame && !(s->peer_frame = malloc(PEER_FRAME_MAX)))
        return DW_ERR_NOMEM;
    memcpy(s->peer_frame, s->rbuf, used < PEER_FRAME_MAX ? used : PEER_FRAME_MAX);
    s->info.peer = r->peer;
    s->info.peer.pd = s->peer_frame + DW_MPA_STARTUP_HDR_LEN;
    s->info.tx_markers = r->tx_markers;
    s->info.rx_markers = r->rx_markers;
    s->info.crc = r->crc;
    s->info.rev = r->rev;
    s->info.enhanced = r->enhanced;
    s->info.ird = r->ird;
    s->info.ord = r->ord;
    s->info.rtr = r->rtr;
    s->info.reason = r->reason;
    s->pend_at = used; /* octets after the frame: the first of MPA mode */
    s->pend_n = s->have - used;
    return 0;
}

static void nego_settings(const dw_sock_opts *o, dw_mpa_nego_settings *ns)
{
    dw_mpa_nego_settings_default(ns);
    ns->want_markers = o->markers;
    ns->want_crc = o->crc;
    ns->allow_markers = o->allow_markers;
    ns->pd = o->pd;
    ns->pd_len = o->pd_len;
    ns->rev = o->rev;
    ns->enhanced = o->enhanced;
    ns->ird = o->ird;
    ns->ord = o->ord;
    ns->p2p = o->p2p;
    ns->rtr = o->rtr;
}

typedef struct nego_arg {
    dw_mpa_nego_settings ns;
    dw_mpa_nego_result res;
    uint8_t reply[DW_MPA_STARTUP_HDR_LEN + DW_MPA_STARTUP_PD_MAX + DW_MPA_ENH_LEN];
    size_t reply_len;
} nego_arg;

/* RFC 5044 7.1: the initiator sends its request first. */
static int send_request(dw_sock *s)
{
    dw_mpa_nego_settings ns;
    uint8_t req[DW_MPA_STARTUP_HDR_LEN + DW_MPA_STARTUP_PD_MAX];
    nego_settings(&s->o, &ns);
    ssize_t n = dw_mpa_nego_request(&ns, req, sizeof req);
    return n < 0 ? (int)n : dw_sk_send_raw(s, req, (size_t)n);
}

/*
 * One step of the start-up with the s->have octets read so far: judges
 * the peer's frame when whole (the responder answers it) and builds the
 * MPA sender and receiver. DW_ERR_NEED_MORE until the frame is whole.
 */
static int start_step(dw_sock *s)
{
    nego_arg a;
    nego_settings(&s->o, &a.ns);
    ssize_t n = s->initiator
                    ? dw_mpa_nego_on_reply(&a.ns, s->rbuf, s->have, &a.res)
                    : dw_mpa_nego_respond(&a.ns, s->rbuf, s->have, a.reply,
                                          sizeof a.reply, &a.reply_len, &a.res);
    if (n < 0)
        return n == DW_ERR_MALFORMED ? DW_ERR_ENABLEMENT : (int)n;
    int rc = keep_peer(s, &a.res, (size_t)n);
    if (!rc && !s->initiator) /* MPA mode starts right after our reply */
        rc = dw_sk_send_raw(s, a.reply, a.reply_len);
    if (rc)
        return rc;
    if (!a.res.accepted)
        return DW_ERR_REJECTED;
    s->starting = 0;
    return make_mpa(s);
}

/* Blocking start-up: step until the frame is whole. */
static int start_blocking(dw_sock *s)
{
    int rc;
    while ((rc = start_step(s)) == DW_ERR_NEED_MORE)
        if ((rc = read_more(s)))
            return rc;
    return rc;
}

static const char *what(int rc)
{
    switch (rc) {
    case DW_ERR_REJECTED:
        return "the peer rejected the MPA connection (MPA reply with R set)";
    case DW_ERR_ENABLEMENT:
        return "enablement error: the peer is not an MPA peer in negotiated mode";
    case DW_ERR_CLOSED:
        return "the peer closed the connection during MPA start-up";
    case DW_ERR_TIMEOUT:
        return "timed out waiting for the peer's MPA start-up frame";
    default:
        return rc == DW_ERR_IO ? strerror(errno) : dw_strerror(rc);
    }
}

/* MPA mode at once (immediate start-up), or the negotiation begun. */
static int begin(dw_sock *s)
{
    const dw_sock_opts *o = &s->o;
    if (o->startup == DW_SOCK_NEGOTIATE) {
        s->starting = 1;
        int rc = s->initiator ? send_request(s) : 0;
        return !rc && !o->nonblocking ? start_blocking(s) : rc;
    }
    int mk = o->framing == DW_FRAMING_MPA && o->markers; /* IFT: none */
    s->info.tx_markers = s->info.rx_markers = mk, s->info.crc = o->crc;
    return make_mpa(s);
}

static int setup(dw_sock **ps, int fd, const dw_sock_opts *o, int initiator,
                 int connecting, char *err, size_t errlen, dw_mpa_nego_reason *why)
{
    *ps = NULL;
    if (!o->cb.on_pdu) {
        close(fd);
        return say(err, errlen, DW_ERR_INVAL, "%s", "no on_pdu callback");
    }
    if (o->framing == DW_FRAMING_IFT && o->startup == DW_SOCK_NEGOTIATE) {
        close(fd);
        return say(err, errlen, DW_ERR_UNSUPPORTED, "%s",
                   "IFT has no start-up exchange: use immediate start-up");
    }
    dw_sock *s = sock_new(fd, o);
    if (!s) {
        close(fd);
        return say(err, errlen, DW_ERR_NOMEM, "%s", "out of memory");
    }
    s->initiator = initiator;
    s->connecting = connecting;
    if (o->nonblocking)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int rc = begin(s);
    if (rc == DW_ERR_REJECTED) {
        *why = s->info.reason;
        say(err, errlen, rc, "MPA start-up refused: %s", dw_mpa_nego_reason_str(*why));
    } else if (rc) {
        say(err, errlen, rc, "%s", what(rc));
    }
    if (rc) {
        dw_sock_abort(s); /* the peer learns at once */
        return rc;
    }
    *ps = s;
    return 0;
}

/* Closes a socket that failed, keeping the failure's errno; returns -1. */
static int close_keep_errno(int fd)
{
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

static struct addrinfo *resolve(const char *host, const char *port, int flags,
                                char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g) {
        say(err, errlen, 0, "cannot resolve: %s", gai_strerror(g));
        errno = g == EAI_MEMORY ? ENOMEM : g == EAI_SYSTEM ? errno : EINVAL;
        return NULL;
    }
    return res;
}

/* The type of service and the local address o->local_addr (any port) of a
 * new socket to a. */
static int prepare(int fd, const struct addrinfo *to, const dw_sock_opts *o)
{
    if (o->tos >= 0) {
        int v = o->tos;
        if (to->ai_family == AF_INET6
                ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof v)
                : setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof v))
            return -1;
    }
    if (!o->local_addr)
        return 0;
    int flags = AI_PASSIVE | (o->nonblocking ? AI_NUMERICHOST : 0);
    struct addrinfo *la = resolve(o->local_addr, "0", flags, NULL, 0);
    if (!la)
        return errno = EADDRNOTAVAIL, -1;
    int one = 1, rc = -1; /* the port is chosen at connect, per destination */
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    for (struct addrinfo *a = la; a && rc; a = a->ai_next)
        if (a->ai_family == to->ai_family)
            rc = bind(fd, a->ai_addr, a->ai_addrlen);
    if (rc)
        errno = EADDRNOTAVAIL;
    freeaddrinfo(la);
    return rc;
}

/* A socket connecting (non-blocking: *connecting set) or connected to a. */
static int open_to(const struct addrinfo *a, const dw_sock_opts *o, int *connecting)
{
    int nb = o->nonblocking ? SOCK_NONBLOCK : 0;
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | nb, a->ai_protocol);
    if (fd < 0)
        return -1;
    if (prepare(fd, a, o))
        return close_keep_errno(fd);
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
        return fd;
    if (nb && errno == EINPROGRESS)
        return *connecting = 1, fd;
    return close_keep_errno(fd);
}

static int connect_once(dw_sock **ps, const char *host, const char *port,
                        const dw_sock_opts *o, char *err, size_t errlen,
                        dw_mpa_nego_reason *why)
{
    int flags = o->nonblocking ? AI_NUMERICHOST | AI_NUMERICSERV : 0;
    struct addrinfo *res = resolve(host, port, flags, err, errlen), *a;
    int fd = -1, connecting = 0;
    if (!res)
        return errno == ENOMEM ? DW_ERR_NOMEM : o->nonblocking ? DW_ERR_INVAL : DW_ERR_IO;
    for (a = res; a && fd < 0; a = a->ai_next)
        fd = open_to(a, o, &connecting);
    freeaddrinfo(res);
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "connect: %s", strerror(errno));
    return setup(ps, fd, o, 1, connecting, err, errlen, why);
}

/* A reject of a request with markers may be the peer's lack of markers
 * (siw: R set, M cleared): once more without them when allowed. */
int dw_sock_connect(dw_sock **ps, const char *host, const char *port,
                    const dw_sock_opts *o, char *err, size_t errlen)
{
    dw_mpa_nego_reason why = DW_MPA_NEGO_OK;
    int rc = connect_once(ps, host, port, o, err, errlen, &why);
    if (rc != DW_ERR_REJECTED || why != DW_MPA_NEGO_PEER_REJECTED || !o->markers ||
        !o->retry_no_markers || o->nonblocking)
        return rc;
    dw_sock_opts o2 = *o;
    o2.markers = 0;
    rc = connect_once(ps, host, port, &o2, err, errlen, &why);
    if (!rc)
        (*ps)->info.retried = 1;
    return rc;
}

int dw_sock_listen(int *pfd, const char *host, const char *port, char *err,
                   size_t errlen)
{
    struct addrinfo *res = resolve(host, port, AI_PASSIVE, err, errlen), *a;
    int fd = -1, one = 1, zero = 0;
    if (!res)
        return errno == ENOMEM ? DW_ERR_NOMEM : DW_ERR_IO;
    /* prefer IPv6 with IPv4 mapped in, when listening on any address */
    for (int pass = 0; pass < 2 && fd < 0; pass++)
        for (a = res; a && fd < 0; a = a->ai_next) {
            if (pass == 0 && a->ai_family != AF_INET6)
                continue;
            fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
            if (fd < 0)
                continue;
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (a->ai_family == AF_INET6)
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
            if (bind(fd, a->ai_addr, a->ai_addrlen) || listen(fd, 4096))
                fd = close_keep_errno(fd);
        }
    freeaddrinfo(res);
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "listen: %s", strerror(errno));
    *pfd = fd;
    return 0;
}

int dw_sock_accept(dw_sock **ps, int lfd, const dw_sock_opts *o, char *err,
                   size_t errlen)
{
    int fd;
    *ps = NULL;
    do
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | (o->nonblocking ? SOCK_NONBLOCK : 0));
    while (fd < 0 && errno == EINTR);
    if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return say(err, errlen, DW_ERR_AGAIN, "%s", "accept: no connection waiting");
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "accept: %s", strerror(errno));
    dw_mpa_nego_reason why;
    return setup(ps, fd, o, 0, 0, err, errlen, &why);
}

/* ------------------------------------------------------------------ */
/* Receiving                                                           */
/* ------------------------------------------------------------------ */

/* Immediate mode with markers: MPA's first four octets are a zero marker
 * (MPA 8.1); anything else means the peer is not in MPA mode. */
static int check_first_marker(dw_sock *s, const uint8_t *p, size_t n)
{
    for (; s->zero_seen < 4 && n; s->zero_seen++, p++, n--)
        if (*p)
            return DW_ERR_ENABLEMENT;
    return 0;
}

/* IFT in immediate mode: a first frame whose sizes or header CRC are
 * wrong means the peer is not speaking IFT (enablement error). */
static int first_frame_bad(dw_sock *s)
{
    int code = dw_fr_rx_failed(s->rx);
    return s->o.framing == DW_FRAMING_IFT && s->o.startup == DW_SOCK_IMMEDIATE &&
           dw_fr_rx_delivered(s->rx) == 0 &&
           (code == DW_IFT_ERR_SIZE || code == DW_IFT_ERR_HEADER_CRC);
}

/* Feeds n octets until done or the user asks to stop: octets consumed. */
static ssize_t feed(dw_sock *s, const uint8_t *p, size_t n)
{
    size_t done = 0;
    if (s->empty) /* nothing after a refused record */
        return DW_ERR_PROTO;
    if (s->o.startup == DW_SOCK_IMMEDIATE && s->info.rx_markers &&
        check_first_marker(s, p, n))
        return DW_ERR_ENABLEMENT;
    s->stop = 0;
    while (done < n && !s->stop) {
        ssize_t r = dw_fr_rx_feed(s->rx, p + done, n - done);
        if (r < 0)
            return first_frame_bad(s) ? DW_ERR_ENABLEMENT : r;
        if (s->empty)
            return dw_fr_rx_delivered(s->rx) == 1 ? DW_ERR_ENABLEMENT : DW_ERR_PROTO;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

/* Feeds rbuf[at..at+n); what a stop leaves stays pending. */
static ssize_t feed_keep(dw_sock *s, size_t at, size_t n)
{
    ssize_t r = feed(s, s->rbuf + at, n);
    if (r < 0)
        return r;
    s->pend_at = at + (size_t)r;
    s->pend_n = n - (size_t)r;
    return r ? r : 1; /* progress (a stopped empty feed cannot happen) */
}

static ssize_t ended(dw_sock *s, dw_mpa_close_reason why)
{
    int rc = dw_fr_rx_close(s->rx, why); /* MPA 9 code 1 through on_error */
    if (why == DW_MPA_CLOSE_TIMEOUT)
        return DW_ERR_TIMEOUT;
    return rc == 0 && why == DW_MPA_CLOSE_FIN ? DW_ERR_CLOSED : DW_ERR_PROTO;
}

/* dw_sock_recv before MPA mode: read, step; what follows the peer's
 * frame is pending, fed by the next call. */
static ssize_t recv_starting(dw_sock *s)
{
    size_t before = s->have;
    int rc = read_more(s);
    if (rc)
        return rc;
    rc = start_step(s);
    if (rc && rc != DW_ERR_NEED_MORE)
        return rc;
    return (ssize_t)(s->have - before);
}

int dw_sock_ready(const dw_sock *s)
{
    return !s->starting && !s->connecting;
}

ssize_t dw_sock_recv(dw_sock *s)
{
    if (s->starting)
        return recv_starting(s);
    if (s->pend_n) /* octets that came with the start-up frame, or after a stop */
        return feed_keep(s, s->pend_at, s->pend_n);
    ssize_t n;
    do
        n = read(s->fd, s->rbuf, s->o.rbuf_size);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        ssize_t r = feed_keep(s, 0, (size_t)n);
        return r < 0 ? r : n;
    }
    if (n == 0)
        return ended(s, DW_MPA_CLOSE_FIN);
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return fcntl(s->fd, F_GETFL) & O_NONBLOCK ? DW_ERR_AGAIN
                                                  : ended(s, DW_MPA_CLOSE_TIMEOUT);
    if (errno == ENOTCONN && s->connecting)
        return DW_ERR_AGAIN;
    if (errno == ECONNRESET)
        return ended(s, DW_MPA_CLOSE_RST);
    int e = errno;
    ended(s, DW_MPA_CLOSE_LOST);
    errno = e;
    return DW_ERR_IO;
}

size_t dw_sock_pending(const dw_sock *s)
{
    return s->pend_n;
}

int dw_sock_in_frame(const dw_sock *s)
{
    if (s->starting)
        return s->have > 0;
    return s->rx && dw_fr_rx_offset(s->rx) > s->frame_end;
}

void dw_sock_get_info(dw_sock *s, dw_sock_info *info)
{
    dw_sk_read_emss(s);
    *info = s->info;
}

int dw_sock_fd(const dw_sock *s)
{
    return s->fd;
}

void dw_sock_abort(dw_sock *s)
{
    if (!s)
        return;
    struct linger l = {1, 0}; /* close() then sends RST */
    setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    dw_sock_close(s);
}

void dw_sock_close(dw_sock *s)
{
    if (!s)
        return;
    close(s->fd);
    dw_fr_tx_del(s->tx);
    dw_fr_rx_del(s->rx);
    dw_sk_free_send(s);
    free(s->rbuf);
    free(s->peer_frame);
    free(s->asmb);
    free(s);
}
