/* SPDX-License-Identifier: MIT */
/* MPA over Linux TCP sockets: a pump of file descriptors around the
 * sans-I/O connection (conn.h), which does all of MPA. Here: set-up, reads
 * fed to the connection, its start-up frames written; writes: sock_send.c. */
#include <ddpwire/mpa_sock.h>

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

#include "base/mem.h"
#include "base/versioned.h"
#include "conn/conn_int.h"
#include "io/sock_int.h"

/* Version 2 appended congestion. cb embeds dw_fr_rx_callbacks: when that
 * grows, a version 3 here and a converter of versions 1 and 2 (whose cb
 * has the old layout). */
DW_VERSIONS_2(sock_settings_v, dw_sock_settings, mem, congestion);

static void sock_settings_fill(dw_sock_settings *o)
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

int dw_sock_settings_default_versioned(int settings_version, dw_sock_settings *o)
{
    dw_sock_settings cur;
    sock_settings_fill(&cur);
    return DW_VERSIONED_OUT(o, cur, settings_version, sock_settings_v);
}

/* The caller's settings as the current version (*err: DW_ERR_INVAL). */
static const dw_sock_settings *settings_in(dw_sock_settings *cur, const dw_sock_settings *o,
                                           int settings_version, int *err)
{
    if (settings_version != DW_SOCK_SETTINGS_VERSION)
        sock_settings_fill(cur);
    DW_VERSIONED_IN(o, *cur, settings_version, sock_settings_v, *err);
    return o;
}

/* The memory settings with their defaults and floors filled in. */
static void sizes(dw_sock_settings *o)
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

/* The connection's callbacks go to the user's, with the framing receiver
 * the user's dw_fr_rx_callbacks expect. */
static int on_pdu(dw_conn *c, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                  size_t len, uint64_t off, void *u)
{
    dw_sock *s = u;
    return s->o.cb.on_pdu(dw_conn_fr_rx(c), hdr, hlen, d, len, off, s->o.user_data);
}

static int on_pieces(dw_conn *c, const struct iovec *iov, int iovcnt, size_t len,
                     uint64_t off, void *u)
{
    dw_sock *s = u;
    return s->iov_fn(dw_conn_fr_rx(c), iov, iovcnt, len, off, s->o.user_data);
}

int dw_sock_set_iov_fn(dw_sock *s, dw_fr_rx_iov_fn fn)
{
    if (!s || !s->c)
        return DW_ERR_INVAL;
    int rc = dw_conn_set_iov_fn(s->c, fn ? on_pieces : NULL);
    if (!rc)
        s->iov_fn = fn;
    return rc;
}

static void on_error(dw_conn *c, const dw_fr_error *e, void *u)
{
    dw_sock *s = u;
    if (s->o.cb.on_error)
        s->o.cb.on_error(dw_conn_fr_rx(c), e, s->o.user_data);
}

static uint8_t *get_buffer(dw_conn *c, size_t len, void *u)
{
    dw_sock *s = u;
    return s->o.cb.get_buffer(dw_conn_fr_rx(c), len, s->o.user_data);
}

/* The connection for these settings (the pump's own sizes apart). */
static int make_conn(dw_sock *s)
{
    const dw_sock_settings *o = &s->o;
    dw_conn_settings cs;
    dw_conn_settings_default(&cs);
    cs.framing = o->framing;
    cs.startup = o->startup == DW_SOCK_NEGOTIATE ? DW_CONN_NEGOTIATE : DW_CONN_IMMEDIATE;
    cs.initiator = s->initiator;
    cs.markers = o->markers;
    cs.crc = o->crc;
    cs.allow_markers = o->allow_markers;
    cs.seg_mode = o->seg_mode;
    cs.ptr_base = o->ptr_base;
    cs.pd = o->pd;
    cs.pd_len = o->pd_len;
    cs.rev = o->rev;
    cs.enhanced = o->enhanced;
    cs.ird = o->ird;
    cs.ord = o->ord;
    cs.p2p = o->p2p;
    cs.rtr = o->rtr;
    cs.tx_scratch = o->tx_scratch;
    cs.rx_keep = o->rx_keep;
    cs.mem = o->mem;
    dw_conn_callbacks cb = {on_pdu, on_error, o->cb.get_buffer ? get_buffer : NULL};
    return dw_conn_new(&s->c, &cs, &cb, s);
}

/* s->info from the connection's (the pump's own fields kept). */
static void sync_info(dw_sock *s)
{
    dw_conn_info ci;
    dw_conn_get_info(s->c, &ci);
    s->info.framing = ci.framing;
    s->info.tx_markers = ci.tx_markers;
    s->info.rx_markers = ci.rx_markers;
    s->info.crc = ci.crc;
    s->info.mulpdu = ci.mulpdu;
    s->info.peer = ci.peer;
    s->info.rev = ci.rev;
    s->info.enhanced = ci.enhanced;
    s->info.ird = ci.ird;
    s->info.ord = ci.ord;
    s->info.rtr = ci.rtr;
    s->info.reason = ci.reason;
}

static dw_sock *sock_new(int fd, const dw_sock_settings *o)
{
    dw_sock *s = dw_mem_calloc(o->mem, 1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = fd;
    s->o = *o;
    sizes(&s->o);
    s->info.framing = o->framing;
    dw_outq_settings qs = {s->o.out_limit, s->o.out_chunk, o->mem};
    if (!(s->rbuf = dw_mem_malloc(o->mem, s->o.rbuf_size)) ||
        (o->nonblocking && dw_outq_new(&s->q, &qs))) {
        dw_mem_free(o->mem, s->rbuf);
        dw_mem_free(o->mem, s);
        return NULL;
    }
    int one = 1; /* MPA 7.3: Nagle off, so FPDUs leave as framed */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (o->timeout_ms > 0 && !o->nonblocking)
        set_timeouts(fd, o->timeout_ms);
    return s;
}

/* The connection's own octets (a start-up frame) go out before anything. */
static int send_pending(dw_sock *s)
{
    const uint8_t *p;
    size_t n = dw_conn_send_pending(s->c, &p);
    if (!n)
        return 0;
    int rc = dw_sk_send_raw(s, p, n); /* written, or queued (non-blocking) */
    if (!rc)
        dw_conn_send_consume(s->c, n);
    return rc;
}

/* Blocking start-up: read and feed until MPA mode. */
static int start_blocking(dw_sock *s)
{
    while (!dw_conn_ready(s->c)) {
        ssize_t r = dw_sock_recv(s);
        if (r < 0)
            return (int)r;
    }
    return 0;
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

/* The connection made: MPA mode at once (immediate start-up), or the
 * negotiation begun (an initiator's request sent). */
static int begin(dw_sock *s)
{
    int rc = make_conn(s);
    if (rc)
        return rc;
    sync_info(s);
    dw_sk_read_emss(s);
    rc = send_pending(s);
    if (!rc && !dw_conn_ready(s->c) && !s->o.nonblocking)
        rc = start_blocking(s);
    return rc;
}

static int setup(dw_sock **ps, int fd, const dw_sock_settings *o, int initiator,
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

/* The congestion control o->congestion, if given (errno on failure). */
static int set_congestion(int fd, const dw_sock_settings *o)
{
    const char *cc = o->congestion;
    return cc ? setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) : 0;
}

/* The failure to set it: an unknown name is a bad setting. */
static int say_congestion(char *err, size_t errlen, const dw_sock_settings *o)
{
    int e = errno;
    char what[96];
    snprintf(what, sizeof what, "congestion control %.40s: %s", o->congestion, strerror(e));
    say(err, errlen, 0, "%s", what);
    errno = e;
    return e == ENOENT ? DW_ERR_INVAL : DW_ERR_IO;
}

/* The type of service, the congestion control and the local address
 * o->local_addr (any port) of a new socket to a. */
static int prepare(int fd, const struct addrinfo *to, const dw_sock_settings *o)
{
    if (o->tos >= 0) {
        int v = o->tos;
        if (to->ai_family == AF_INET6
                ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof v)
                : setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof v))
            return -1;
    }
    if (set_congestion(fd, o))
        return -1;
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
static int open_to(const struct addrinfo *a, const dw_sock_settings *o, int *connecting)
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
                        const dw_sock_settings *o, char *err, size_t errlen,
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
    if (fd < 0 && o->congestion && (errno == ENOENT || errno == EPERM))
        return say_congestion(err, errlen, o); /* connect gives neither */
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "connect: %s", strerror(errno));
    return setup(ps, fd, o, 1, connecting, err, errlen, why);
}

/* A reject of a request with markers may be the peer's lack of markers
 * (siw: R set, M cleared): once more without them when allowed. */
int dw_sock_connect_versioned(dw_sock **ps, const char *host, const char *port,
                              int settings_version, const dw_sock_settings *o, char *err,
                              size_t errlen)
{
    dw_sock_settings cur;
    int bad = 0;
    if (!ps || !(o = settings_in(&cur, o, settings_version, &bad)) || bad)
        return say(err, errlen, DW_ERR_INVAL, "%s", "no or unknown settings");
    *ps = NULL;
    dw_mpa_nego_reason why = DW_MPA_NEGO_OK;
    int rc = connect_once(ps, host, port, o, err, errlen, &why);
    if (rc != DW_ERR_REJECTED || why != DW_MPA_NEGO_PEER_REJECTED || !o->markers ||
        !o->retry_no_markers || o->nonblocking)
        return rc;
    dw_sock_settings o2 = *o;
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

int dw_sock_accept_versioned(dw_sock **ps, int lfd, int settings_version,
                             const dw_sock_settings *o, char *err, size_t errlen)
{
    dw_sock_settings cur;
    int bad = 0, fd;
    if (!ps || !(o = settings_in(&cur, o, settings_version, &bad)) || bad)
        return say(err, errlen, DW_ERR_INVAL, "%s", "no or unknown settings");
    *ps = NULL;
    do
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | (o->nonblocking ? SOCK_NONBLOCK : 0));
    while (fd < 0 && errno == EINTR);
    if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return say(err, errlen, DW_ERR_AGAIN, "%s", "accept: no connection waiting");
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "accept: %s", strerror(errno));
    if (set_congestion(fd, o)) {
        int rc = say_congestion(err, errlen, o);
        close(fd);
        return rc;
    }
    dw_mpa_nego_reason why;
    return setup(ps, fd, o, 0, 0, err, errlen, &why);
}

/* ------------------------------------------------------------------ */
/* Receiving                                                           */
/* ------------------------------------------------------------------ */

/* Feeds rbuf[at..at+n) to the connection; what a stop (or the start-up's
 * end) leaves stays pending. The start-up's reply goes out either way. */
static ssize_t feed_keep(dw_sock *s, size_t at, size_t n)
{
    int was_ready = dw_conn_ready(s->c);
    ssize_t r = dw_conn_recv(s->c, s->rbuf + at, n);
    int rc = send_pending(s);
    if (!was_ready && (r >= 0 || r == DW_ERR_REJECTED))
        sync_info(s);
    if (!was_ready && dw_conn_ready(s->c))
        dw_sk_read_emss(s);
    if (r < 0)
        return r;
    if (rc)
        return rc;
    s->pend_at = at + (size_t)r;
    s->pend_n = n - (size_t)r;
    return r ? r : 1; /* progress (a stopped empty feed cannot happen) */
}

/* The stream ended (or a blocking read timed out). */
static ssize_t ended(dw_sock *s, dw_mpa_close_reason why)
{
    return dw_conn_recv_end(s->c, why);
}

/* A failed read: EAGAIN, a timeout, an end or an I/O error. */
static ssize_t read_failed(dw_sock *s)
{
    int starting = !dw_conn_ready(s->c);
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return fcntl(s->fd, F_GETFL) & O_NONBLOCK ? DW_ERR_AGAIN
                                                  : ended(s, DW_MPA_CLOSE_TIMEOUT);
    if (errno == ENOTCONN && s->connecting)
        return DW_ERR_AGAIN;
    if (starting)
        return DW_ERR_IO; /* errno says why */
    if (errno == ECONNRESET)
        return ended(s, DW_MPA_CLOSE_RST);
    int e = errno;
    ended(s, DW_MPA_CLOSE_LOST);
    errno = e;
    return DW_ERR_IO;
}

int dw_sock_ready(const dw_sock *s)
{
    return dw_conn_ready(s->c) && !s->connecting;
}

ssize_t dw_sock_recv(dw_sock *s)
{
    if (s->pend_n) /* octets after the start-up frame, or after a stop */
        return feed_keep(s, s->pend_at, s->pend_n);
    ssize_t n;
    do
        n = read(s->fd, s->rbuf, s->o.rbuf_size);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        ssize_t r = feed_keep(s, 0, (size_t)n);
        return r < 0 ? r : n;
    }
    return n == 0 ? ended(s, DW_MPA_CLOSE_FIN) : read_failed(s);
}

size_t dw_sock_pending(const dw_sock *s)
{
    return s->pend_n;
}

int dw_sock_in_frame(const dw_sock *s)
{
    return dw_conn_in_frame(s->c);
}

void dw_sock_info_get(dw_sock *s, dw_sock_info *info)
{
    dw_sk_read_emss(s);
    sync_info(s);
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
    dw_conn_del(s->c);
    dw_sk_free_send(s);
    dw_mem_free(s->o.mem, s->rbuf);
    dw_mem_free(s->o.mem, s);
}
