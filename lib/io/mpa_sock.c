/* SPDX-License-Identifier: MIT */
/* MPA over Linux TCP sockets: the adapter around the sans-I/O core. */
#include <ddpwire/mpa_sock.h>
#include <ddpwire/mpa_startup.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RBUF 65536u
#define IOV_CAP 1024u     /* IOV_MAX: one sendmsg at most */
#define MSG_CAP 64u       /* aligned mode: FPDUs per sendmmsg */
#define EMSS_REREAD 256u  /* sends between TCP_MAXSEG reads (path MTU) */

struct dw_sock {
    int fd;
    dw_sock_opts o;
    dw_sock_info info;
    dw_fr_tx *tx;
    dw_fr_rx *rx;
    uint8_t *rbuf;
    size_t left_at, left_n; /* octets read past the peer's start-up frame */
    unsigned zero_seen;     /* immediate mode: octets of the first marker checked */
    unsigned sends;
    int starting;           /* waiting for the peer's start-up frame */
    int empty;              /* the peer sent an empty MPA record */
    int initiator;
    size_t have;            /* octets of that frame in rbuf so far */
    uint8_t peer_frame[DW_MPA_STARTUP_HDR_LEN + DW_MPA_STARTUP_PD_MAX];
    struct iovec iov[IOV_CAP];
    struct mmsghdr msgs[MSG_CAP];
    size_t msg_bytes[MSG_CAP];
};

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

static void read_emss(dw_sock *s)
{
    int mss = 0;
    socklen_t l = sizeof mss;
    if (getsockopt(s->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) == 0 && mss > 0)
        s->info.emss = (uint32_t)mss;
    if (!s->tx)
        return; /* not in MPA mode (yet, or refused): no framer to tell */
    if (mss > 0)
        dw_fr_tx_set_emss(s->tx, (uint32_t)mss); /* MPA 7.3.1 follows EMSS */
    s->info.mulpdu = (uint32_t)dw_fr_tx_max_pdu(s->tx);
}

/* The receiver's callbacks go to the user's, except an empty MPA ULPDU:
 * records are 1..64768 octets (MPA 5.2 senders never post 0), and an IFT
 * peer's first frame with an empty header reads as one under MPA without
 * markers (its header CRC then equals the FPDU's CRC). */
static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                  size_t len, uint64_t off, void *u)
{
    dw_sock *s = u;
    if (!len && !hlen && s->o.framing == DW_FRAMING_MPA)
        return s->empty = 1; /* stop here: dw_sock_recv refuses it */
    return s->o.cb.on_pdu(rx, hdr, hlen, d, len, off, s->o.user_data);
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    dw_sock *s = u;
    if (s->o.cb.on_error)
        s->o.cb.on_error(rx, e, s->o.user_data);
}

static uint8_t *get_buffer(dw_fr_rx *rx, size_t len, void *u)
{
    dw_sock *s = u;
    return s->o.cb.get_buffer(rx, len, s->o.user_data);
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
    /* dw_sock_sendv writes a packed group (at most EMSS) or MSG_CAP aligned
     * frames (at most ~530 scratch octets each) before framing more */
    ts.mpa.scratch_size = DW_MPA_FPDU_MAX + 2048;
    ts.ift.scratch_size = 65536;
    dw_fr_rx_settings_default(&rs, s->o.framing);
    rs.mpa.markers = s->info.rx_markers;
    rs.mpa.crc = rs.ift.crc = s->info.crc;
    int rc = dw_fr_tx_new(&s->tx, &ts);
    dw_fr_rx_callbacks cb = {on_pdu, on_error, s->o.cb.get_buffer ? get_buffer : NULL};
    if (!rc)
        rc = dw_fr_rx_new(&s->rx, &rs, &cb, s);
    if (!rc)
        read_emss(s);
    return rc;
}

static dw_sock *sock_new(int fd, const dw_sock_opts *o)
{
    dw_sock *s = calloc(1, sizeof *s);
    if (!s || !(s->rbuf = malloc(RBUF))) {
        free(s);
        return NULL;
    }
    s->fd = fd;
    s->o = *o;
    s->info.framing = o->framing;
    int one = 1; /* MPA 7.3: Nagle off, so FPDUs leave as framed */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (o->timeout_ms > 0)
        set_timeouts(fd, o->timeout_ms);
    return s;
}

/* Reads more of the peer's start-up frame into rbuf[s->have..]. */
static int read_more(dw_sock *s)
{
    for (;;) {
        ssize_t n = read(s->fd, s->rbuf + s->have, RBUF - s->have);
        if (n > 0) {
            s->have += (size_t)n;
            return 0;
        }
        if (n == 0)
            return DW_ERR_CLOSED;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? DW_ERR_TIMEOUT : DW_ERR_IO;
    }
}

/* EAGAIN from a send: a non-blocking socket waits for room; a blocking
 * one ran into its SO_SNDTIMEO. */
static int wait_room(int fd, int ms)
{
    if (!(fcntl(fd, F_GETFL) & O_NONBLOCK))
        return DW_ERR_TIMEOUT;
    struct pollfd p = {fd, POLLOUT, 0};
    int r;
    do
        r = poll(&p, 1, ms > 0 ? ms : -1);
    while (r < 0 && errno == EINTR);
    return r > 0 ? 0 : r == 0 ? DW_ERR_TIMEOUT : DW_ERR_IO;
}

static int write_all(int fd, struct iovec *iov, int cnt, int flags, int ms)
{
    struct msghdr m = {0};
    while (cnt > 0) {
        m.msg_iov = iov;
        m.msg_iovlen = (size_t)cnt;
        ssize_t n = sendmsg(fd, &m, flags | MSG_NOSIGNAL);
        if (n < 0) {
            int rc = errno == EINTR ? 0
                     : errno == EAGAIN || errno == EWOULDBLOCK ? wait_room(fd, ms)
                                                                : DW_ERR_IO;
            if (rc)
                return rc;
            continue;
        }
        while (cnt > 0 && (size_t)n >= iov->iov_len)
            n -= (ssize_t)iov->iov_len, iov++, cnt--;
        if (cnt > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* The peer's frame was the first `used` of the s->have octets read. */
static void keep_peer(dw_sock *s, const dw_mpa_nego_result *r, size_t used)
{
    memcpy(s->peer_frame, s->rbuf, used);
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
    s->left_at = used;
    s->left_n = s->have - used;
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
    if (n < 0)
        return (int)n;
    struct iovec v = {req, (size_t)n};
    return write_all(s->fd, &v, 1, 0, s->o.timeout_ms);
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
    keep_peer(s, &a.res, (size_t)n);
    if (!s->initiator) { /* MPA mode starts right after our reply */
        struct iovec v = {a.reply, a.reply_len};
        int rc = write_all(s->fd, &v, 1, 0, s->o.timeout_ms);
        if (rc)
            return rc;
    }
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

static int setup(dw_sock **ps, int fd, const dw_sock_opts *o, int initiator,
                 char *err, size_t errlen, dw_mpa_nego_reason *why)
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
    int rc = 0;
    s->initiator = initiator;
    if (o->nonblocking)
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (o->startup == DW_SOCK_NEGOTIATE) {
        s->starting = 1;
        rc = initiator ? send_request(s) : 0;
        if (!rc && !o->nonblocking)
            rc = start_blocking(s);
    } else {
        int mk = o->framing == DW_FRAMING_MPA && o->markers; /* IFT: none */
        s->info.tx_markers = s->info.rx_markers = mk, s->info.crc = o->crc;
        rc = make_mpa(s);
    }
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

static struct addrinfo *resolve(const char *host, const char *port, int passive,
                                char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    int g = getaddrinfo(host, port, &hints, &res);
    if (g) {
        say(err, errlen, 0, "cannot resolve: %s", gai_strerror(g));
        return NULL;
    }
    return res;
}

/* The source address (bind_host) and type of service of a new socket. */
static int prepare(int fd, int family, const dw_sock_opts *o)
{
    if (o->tos >= 0) {
        int v = o->tos;
        if (family == AF_INET6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof v)
                               : setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof v))
            return -1;
    }
    if (!o->bind_host)
        return 0;
    struct addrinfo hints = {0}, *b = NULL;
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(o->bind_host, NULL, &hints, &b) || !b) {
        errno = EADDRNOTAVAIL;
        return -1;
    }
    int rc = bind(fd, b->ai_addr, b->ai_addrlen);
    freeaddrinfo(b);
    return rc;
}

static int connect_once(dw_sock **ps, const char *host, const char *port,
                        const dw_sock_opts *o, char *err, size_t errlen,
                        dw_mpa_nego_reason *why)
{
    struct addrinfo *res = resolve(host, port, 0, err, errlen), *a;
    int fd = -1;
    if (!res)
        return DW_ERR_IO;
    for (a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && (prepare(fd, a->ai_family, o) || connect(fd, a->ai_addr, a->ai_addrlen)))
            fd = close_keep_errno(fd);
    }
    freeaddrinfo(res);
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "connect: %s", strerror(errno));
    return setup(ps, fd, o, 1, err, errlen, why);
}

/* A reject of a request with markers may be the peer's lack of markers
 * (siw: R set, M cleared): once more without them when allowed. */
int dw_sock_connect(dw_sock **ps, const char *host, const char *port,
                    const dw_sock_opts *o, char *err, size_t errlen)
{
    dw_mpa_nego_reason why = DW_MPA_NEGO_OK;
    int rc = connect_once(ps, host, port, o, err, errlen, &why);
    if (rc != DW_ERR_REJECTED || why != DW_MPA_NEGO_PEER_REJECTED || !o->markers ||
        !o->retry_no_markers)
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
    struct addrinfo *res = resolve(host, port, 1, err, errlen), *a;
    int fd = -1, one = 1, zero = 0;
    if (!res)
        return DW_ERR_IO;
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
    do
        fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return say(err, errlen, DW_ERR_IO, "accept: %s", strerror(errno));
    dw_mpa_nego_reason why;
    return setup(ps, fd, o, 0, err, errlen, &why);
}

static void maybe_reread_emss(dw_sock *s)
{
    if (++s->sends % EMSS_REREAD == 0)
        read_emss(s);
}

int dw_sock_send(dw_sock *s, const void *rec, size_t len)
{
    struct iovec one = {(void *)rec, len};
    return dw_sock_sendv(s, &one, 1);
}

/* Aligned mode: each FPDU is its own message with MSG_EOR (one segment
 * each, MPA 7.3 no packing), and one sendmmsg carries many of them. A
 * message sent in part is finished with write_all before going on. */
static int flush_aligned(dw_sock *s, size_t k)
{
    size_t i = 0;
    while (i < k) {
        int r = sendmmsg(s->fd, s->msgs + i, (unsigned)(k - i), MSG_EOR | MSG_NOSIGNAL);
        if (r <= 0) {
            int rc = r == 0 || errno == EINTR ? 0
                     : errno == EAGAIN || errno == EWOULDBLOCK
                         ? wait_room(s->fd, s->o.timeout_ms)
                         : DW_ERR_IO;
            if (rc)
                return rc;
            continue;
        }
        /* the kernel goes on after a message sent in part; if a later one
         * then fit, the stream has a hole: the connection is unusable */
        for (size_t j = i; j + 1 < i + (size_t)r; j++)
            if (s->msgs[j].msg_len < s->msg_bytes[j])
                return DW_ERR_IO;
        i += (size_t)r;
        struct mmsghdr *m = &s->msgs[i - 1];
        if (m->msg_len < s->msg_bytes[i - 1]) {
            /* the last message went out in part: skip what was sent */
            struct iovec *v = m->msg_hdr.msg_iov;
            int cnt = (int)m->msg_hdr.msg_iovlen;
            size_t sent = m->msg_len;
            while (sent >= v->iov_len)
                sent -= v->iov_len, v++, cnt--;
            v->iov_base = (uint8_t *)v->iov_base + sent;
            v->iov_len -= sent;
            int rc = write_all(s->fd, v, cnt, MSG_EOR, s->o.timeout_ms);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int dw_sock_sendv(dw_sock *s, const struct iovec *recs, size_t n)
{
    if (s->starting)
        return DW_ERR_STATE;
    size_t cnt = 0, group = 0, k = 0;
    int packed = s->o.seg_mode == DW_MPA_SEG_PACKED;
    for (size_t i = 0; i < n; i++) {
        maybe_reread_emss(s);
        size_t need = dw_fr_tx_frame_len(s->tx, 0, recs[i].iov_len);
        int full = cnt + DW_MPA_FPDU_IOV_MAX > IOV_CAP || k == MSG_CAP;
        /* packed: a group ends where the next FPDU would not fit (MPA 7.3) */
        if (cnt && (full || (packed && group + need > s->info.emss))) {
            int rc = packed ? write_all(s->fd, s->iov, (int)cnt, MSG_EOR, s->o.timeout_ms)
                            : flush_aligned(s, k);
            if (rc)
                return rc;
            cnt = group = k = 0;
        }
        dw_fr_frame_info fi;
        ssize_t f = dw_fr_tx_frame(s->tx, NULL, 0, recs[i].iov_base, recs[i].iov_len,
                                   s->iov + cnt, IOV_CAP - cnt, &fi);
        if (f < 0)
            return (int)f;
        if (!packed) {
            s->msgs[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = s->iov + cnt,
                                                      .msg_iovlen = fi.iovcnt}};
            s->msg_bytes[k++] = (size_t)f;
        }
        cnt += fi.iovcnt;
        group += (size_t)f;
    }
    if (!cnt)
        return 0;
    return packed ? write_all(s->fd, s->iov, (int)cnt, MSG_EOR, s->o.timeout_ms)
                  : flush_aligned(s, k);
}

int dw_sock_send_pdu(dw_sock *s, const void *hdr, size_t hlen, const void *payload,
                     size_t plen)
{
    if (s->starting)
        return DW_ERR_STATE;
    maybe_reread_emss(s);
    dw_fr_frame_info fi;
    ssize_t f = dw_fr_tx_frame(s->tx, hdr, hlen, payload, plen, s->iov, IOV_CAP, &fi);
    if (f < 0)
        return (int)f;
    return write_all(s->fd, s->iov, (int)fi.iovcnt, MSG_EOR, s->o.timeout_ms);
}

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
           dw_fr_rx_delivered(s->rx) == 0 && (code == DW_IFT_ERR_SIZE || code == DW_IFT_ERR_HEADER_CRC);
}

static ssize_t feed(dw_sock *s, const uint8_t *p, size_t n)
{
    if (s->empty) /* nothing after a refused record */
        return DW_ERR_PROTO;
    if (s->o.startup == DW_SOCK_IMMEDIATE && s->info.rx_markers &&
        check_first_marker(s, p, n))
        return DW_ERR_ENABLEMENT;
    while (n) {
        ssize_t r = dw_fr_rx_feed(s->rx, p, n);
        if (r < 0)
            return first_frame_bad(s) ? DW_ERR_ENABLEMENT : r;
        if (s->empty)
            return dw_fr_rx_delivered(s->rx) == 1 ? DW_ERR_ENABLEMENT : DW_ERR_PROTO;
        p += r, n -= (size_t)r;
    }
    return 0;
}

static ssize_t ended(dw_sock *s, dw_mpa_close_reason why)
{
    int rc = dw_fr_rx_close(s->rx, why); /* MPA 9 code 1 through on_error */
    if (why == DW_MPA_CLOSE_TIMEOUT)
        return DW_ERR_TIMEOUT;
    return rc == 0 && why == DW_MPA_CLOSE_FIN ? DW_ERR_CLOSED : DW_ERR_PROTO;
}

/* dw_sock_recv before MPA mode: read, step, and go on with what follows. */
static ssize_t recv_starting(dw_sock *s)
{
    size_t before = s->have;
    int rc = read_more(s);
    if (rc == DW_ERR_TIMEOUT && (fcntl(s->fd, F_GETFL) & O_NONBLOCK))
        return 0; /* nothing yet */
    if (rc)
        return rc;
    rc = start_step(s);
    if (rc == DW_ERR_NEED_MORE)
        return (ssize_t)(s->have - before);
    return rc ? rc : (ssize_t)(s->have - before);
}

int dw_sock_ready(const dw_sock *s)
{
    return !s->starting;
}

ssize_t dw_sock_recv(dw_sock *s)
{
    if (s->starting) {
        ssize_t r = recv_starting(s);
        if (r <= 0 || s->starting || !s->left_n)
            return r;
    }
    if (s->left_n) { /* octets that came with the peer's start-up frame */
        size_t n = s->left_n;
        s->left_n = 0;
        memmove(s->rbuf, s->rbuf + s->left_at, n);
        ssize_t r = feed(s, s->rbuf, n);
        return r < 0 ? r : (ssize_t)n;
    }
    ssize_t n;
    do
        n = read(s->fd, s->rbuf, RBUF);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        ssize_t r = feed(s, s->rbuf, (size_t)n);
        return r < 0 ? r : n;
    }
    if (n == 0)
        return ended(s, DW_MPA_CLOSE_FIN);
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return fcntl(s->fd, F_GETFL) & O_NONBLOCK ? 0 : ended(s, DW_MPA_CLOSE_TIMEOUT);
    if (errno == ECONNRESET)
        return ended(s, DW_MPA_CLOSE_RST);
    ended(s, DW_MPA_CLOSE_LOST);
    return DW_ERR_IO;
}

int dw_sock_shutdown(dw_sock *s)
{
    return shutdown(s->fd, SHUT_WR) ? DW_ERR_IO : 0;
}

void dw_sock_get_info(dw_sock *s, dw_sock_info *info)
{
    read_emss(s);
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
    free(s->rbuf);
    free(s);
}
