/* SPDX-License-Identifier: MIT */
/*
 * The socket adapter's sending half: blocking sends (resumed until whole,
 * sendmmsg batches in aligned mode) and non-blocking sends (written as far
 * as the socket takes them, the rest copied into the output queue, outq.h).
 *
 * Non-blocking aligned mode sends one FPDU per sendmsg (MSG_EOR), never
 * sendmmsg: after a message sent in part, sendmmsg goes on with the next
 * one if room has appeared meanwhile, which would leave a hole in the stream.
 */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/mem.h"
#include "io/sock_int.h"
#include "io/tcp_info.h"

#define SPANS 64u /* frames per packed group or flush round */

/* Reads EMSS (and tells the framer); returns the peer's window room
 * (dw_io_send_view.room, SIZE_MAX unknown), read in the same calls. */
size_t dw_sk_update_emss(dw_sock *s)
{
    if (!s->ip_hdr)
        s->ip_hdr = dw_io_ip_hdr(s->fd);
    dw_io_send_view v;
    dw_io_send_view_get(s->fd, s->ip_hdr, &v);
    int mss = (int)v.mss;
    if (mss <= 0) {
        socklen_t l = sizeof mss;
        if (getsockopt(s->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) != 0)
            mss = 0;
    }
    if (mss > 0) {
        /* a path MTU lower than the cached MSS knows (docs/DESIGN.md) */
        if (v.path_mss >= 64 && v.path_mss < (uint32_t)mss)
            mss = (int)v.path_mss;
        s->info.emss = (uint32_t)mss;
        dw_conn_set_emss(s->c, (uint32_t)mss); /* MPA 7.3.1: MULPDU follows EMSS */
    }
    s->info.mulpdu = (uint32_t)dw_conn_max_pdu(s->c);
    s->room = v.room, s->path_mss = v.path_mss, s->hdr = v.hdr;
    s->view_left = 0; /* send_stream's to set: other sends may follow */
    return v.room;
}

void dw_sk_read_emss(dw_sock *s)
{
    (void)dw_sk_update_emss(s);
}

static void maybe_reread_emss(dw_sock *s)
{
    if (++s->sends % DW_SK_EMSS_REREAD == 0)
        dw_sk_read_emss(s);
}

void dw_sk_free_send(dw_sock *s)
{
    dw_mem_free(s->o.mem, s->iov);
    dw_mem_free(s->o.mem, s->msgs);
    dw_mem_free(s->o.mem, s->msg_bytes);
    dw_mem_free(s->o.mem, s->flat);
    dw_outq_del(s->q);
}

int dw_sk_want_iov(dw_sock *s)
{
    if (!s->iov && !(s->iov = dw_mem_calloc(s->o.mem, s->o.iov_max, sizeof *s->iov)))
        return DW_ERR_NOMEM;
    return 0;
}

/* Octets of scratch later frames of one batch may be framed into before
 * the batch is written (MPA: scratch_size - 1024; IFT needs less). */
size_t dw_sk_scratch_window(const dw_sock *s)
{
    return s->o.tx_scratch - 1024;
}

/* ------------------------------------------------------------------ */
/* Blocking                                                            */
/* ------------------------------------------------------------------ */

/* EAGAIN from a send: a descriptor made non-blocking by the caller waits
 * for room with poll; a blocking one ran into its SO_SNDTIMEO. */
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

int dw_sk_write_all(int fd, struct iovec *iov, int cnt, int flags, int ms)
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

/* Aligned mode: each FPDU is its own message with MSG_EOR (one segment
 * each, MPA 7.3 no packing), and one sendmmsg carries many of them. A
 * message sent in part is finished with write_all before going on. */
int dw_sk_flush_aligned(dw_sock *s, size_t k)
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
            int rc = dw_sk_write_all(s->fd, v, cnt, MSG_EOR, s->o.timeout_ms);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int dw_sk_want_msgs(dw_sock *s)
{
    if (!s->msgs)
        s->msgs = dw_mem_calloc(s->o.mem, DW_SK_MSG_CAP, sizeof *s->msgs);
    if (s->msgs && !s->msg_bytes)
        s->msg_bytes = dw_mem_calloc(s->o.mem, DW_SK_MSG_CAP, sizeof *s->msg_bytes);
    return s->msgs && s->msg_bytes ? 0 : DW_ERR_NOMEM;
}

static int write_batch(dw_sock *s, size_t cnt, size_t k)
{
    return s->o.seg_mode == DW_MPA_SEG_PACKED
               ? dw_sk_write_all(s->fd, s->iov, (int)cnt, MSG_EOR, s->o.timeout_ms)
               : dw_sk_flush_aligned(s, k);
}

static int sendv_blocking(dw_sock *s, const struct iovec *recs, size_t n, const void *hdr,
                          size_t hlen)
{
    size_t cnt = 0, group = 0, framed = 0, k = 0;
    int packed = s->o.seg_mode == DW_MPA_SEG_PACKED;
    int rc = dw_sk_want_iov(s);
    if (!rc && !packed)
        rc = dw_sk_want_msgs(s);
    for (size_t i = 0; !rc && i < n; i++) {
        maybe_reread_emss(s);
        size_t hl = i ? 0 : hlen, need = dw_conn_frame_len(s->c, hl, recs[i].iov_len);
        int full = cnt + DW_FR_FRAME_IOV_MAX > s->o.iov_max || k == DW_SK_MSG_CAP ||
                   framed + need > dw_sk_scratch_window(s);
        /* packed: a group ends where the next FPDU would not fit (MPA 7.3) */
        if (cnt && (full || (packed && group + need > s->info.emss))) {
            if ((rc = write_batch(s, cnt, k)))
                return rc;
            cnt = group = framed = k = 0;
        }
        dw_fr_frame_info fi;
        ssize_t f = dw_conn_writev_iov(s->c, i ? NULL : hdr, hl, recs[i].iov_base,
                                   recs[i].iov_len, s->iov + cnt, s->o.iov_max - cnt, &fi);
        if (f < 0)
            return (int)f;
        if (!packed) {
            s->msgs[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = s->iov + cnt,
                                                      .msg_iovlen = fi.iovcnt}};
            s->msg_bytes[k++] = (size_t)f;
        }
        cnt += fi.iovcnt;
        group += (size_t)f;
        framed += (size_t)f;
    }
    return rc || !cnt ? rc : write_batch(s, cnt, k);
}

/* ------------------------------------------------------------------ */
/* Non-blocking                                                        */
/* ------------------------------------------------------------------ */

/* One message, never waiting: octets sent (0: no room), or DW_ERR_IO. */
static ssize_t send_nb(int fd, struct iovec *iov, size_t cnt)
{
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = cnt};
    ssize_t n;
    do
        n = sendmsg(fd, &m, MSG_EOR | MSG_NOSIGNAL | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        return n;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN ? 0 : DW_ERR_IO;
}

/* The frames of one group (spans into s->iov), sent is what the socket
 * took of them: the rest goes to the queue, whole frames and the unsent
 * part of the one cut. */
static int queue_rest(dw_sock *s, const dw_outq_span *sp, size_t k, size_t sent)
{
    for (size_t j = 0; j < k; j++) {
        size_t skip = sent < sp[j].len ? sent : sp[j].len;
        sent -= skip;
        ssize_t r = dw_outq_push(s->q, s->iov + sp[j].iov, sp[j].iovcnt, skip);
        if (r < 0)
            return (int)r; /* framed but lost: the connection is unusable */
    }
    return 0;
}

/* Writes one group (when the socket has been taking everything), queues
 * what it does not take; *blocked says the socket is full. */
static int put_group(dw_sock *s, const dw_outq_span *sp, size_t k, size_t cnt, size_t len,
                     int *blocked)
{
    ssize_t n = *blocked ? 0 : send_nb(s->fd, s->iov, cnt);
    if (n < 0)
        return (int)n;
    if ((size_t)n == len)
        return 0;
    *blocked = 1;
    return queue_rest(s, sp, k, (size_t)n);
}

/* Can n records (their frames about total octets) be taken? */
static int room_for(const dw_sock *s, size_t n, size_t total)
{
    size_t queued = dw_outq_octets(s->q), limit = s->o.out_limit;
    if (n == 1 && !queued)
        return 0;
    if (queued <= limit && total <= limit - queued)
        return 0;
    return !queued && n > 1 ? DW_ERR_NOSPACE : DW_ERR_AGAIN;
}

/* An upper bound of the records' frames: at another position a frame may
 * hold one marker more. */
static size_t frames_len(const dw_sock *s, const struct iovec *recs, size_t n, size_t hlen)
{
    size_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += dw_conn_frame_len(s->c, i ? 0 : hlen, recs[i].iov_len) + 4;
    return t;
}

static int sendv_nb(dw_sock *s, const struct iovec *recs, size_t n, const void *hdr,
                    size_t hlen)
{
    if (s->connecting)
        return DW_ERR_AGAIN;
    int rc = room_for(s, n, frames_len(s, recs, n, hlen));
    if (rc || (rc = dw_sk_want_iov(s)))
        return rc;
    int packed = s->o.seg_mode == DW_MPA_SEG_PACKED;
    int blocked = dw_outq_octets(s->q) != 0; /* behind the queue: queue all */
    dw_outq_span sp[SPANS];
    size_t k = 0, cnt = 0, group = 0;
    for (size_t i = 0; i < n; i++) {
        maybe_reread_emss(s);
        size_t hl = i ? 0 : hlen, need = dw_conn_frame_len(s->c, hl, recs[i].iov_len);
        int full = k == SPANS || cnt + DW_FR_FRAME_IOV_MAX > s->o.iov_max ||
                   group + need > dw_sk_scratch_window(s) || !packed ||
                   group + need > s->info.emss;
        if (k && full) {
            if ((rc = put_group(s, sp, k, cnt, group, &blocked)))
                return rc;
            k = cnt = group = 0;
        }
        dw_fr_frame_info fi;
        ssize_t f = dw_conn_writev_iov(s->c, i ? NULL : hdr, hl, recs[i].iov_base,
                                   recs[i].iov_len, s->iov + cnt, s->o.iov_max - cnt, &fi);
        if (f < 0)
            return (int)f; /* checked before any change: nothing of it framed */
        sp[k++] = (dw_outq_span){cnt, fi.iovcnt, (size_t)f};
        cnt += fi.iovcnt;
        group += (size_t)f;
    }
    return k ? put_group(s, sp, k, cnt, group, &blocked) : 0;
}

/* A start-up frame: written, or queued behind what waits (or while the
 * connect is in progress). */
int dw_sk_send_raw(dw_sock *s, const void *p, size_t len)
{
    struct iovec v = {(void *)p, len};
    s->view_left = 0;
    if (!s->o.nonblocking)
        return dw_sk_write_all(s->fd, &v, 1, 0, s->o.timeout_ms);
    ssize_t n = s->connecting || dw_outq_octets(s->q) ? 0 : send_nb(s->fd, &v, 1);
    if (n < 0)
        return (int)n;
    ssize_t r = dw_outq_push(s->q, &v, 1, (size_t)n);
    return r < 0 ? (int)r : 0;
}

/* The connect in progress: 0 done, DW_ERR_AGAIN not yet, DW_ERR_IO failed. */
static int finish_connect(dw_sock *s)
{
    int e = 0;
    socklen_t l = sizeof e;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &l) == 0 && e)
        return errno = e, DW_ERR_IO;
    struct sockaddr_storage ss;
    l = sizeof ss;
    if (getpeername(s->fd, (struct sockaddr *)&ss, &l) != 0)
        return errno == ENOTCONN ? DW_ERR_AGAIN : DW_ERR_IO;
    s->connecting = 0;
    dw_sk_read_emss(s); /* the path's EMSS is known now (MPA 7.3.1) */
    return 0;
}

/* Writes frames from the queue until it is empty or the socket is full. */
static int drain(dw_sock *s)
{
    int packed = s->o.seg_mode == DW_MPA_SEG_PACKED;
    int rc = dw_sk_want_iov(s);
    while (!rc && dw_outq_octets(s->q)) {
        dw_outq_span sp[SPANS];
        size_t k = dw_outq_peek(s->q, s->iov, s->o.iov_max, sp, SPANS);
        if (!k)
            return DW_ERR_NOSPACE; /* cannot happen: iov_max covers a frame */
        for (size_t j = 0; j < k;) {
            size_t e = j + 1, len = sp[j].len; /* packed: whole frames up to EMSS */
            while (packed && e < k && len + sp[e].len <= s->info.emss)
                len += sp[e++].len;
            size_t cnt = sp[e - 1].iov + sp[e - 1].iovcnt - sp[j].iov;
            ssize_t n = send_nb(s->fd, s->iov + sp[j].iov, cnt);
            if (n < 0)
                return (int)n;
            dw_outq_consume(s->q, (size_t)n); /* later spans stay valid */
            if ((size_t)n < len)
                return DW_ERR_AGAIN;
            j = e;
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* API                                                                 */
/* ------------------------------------------------------------------ */

int dw_sock_sendv(dw_sock *s, const struct iovec *recs, size_t n)
{
    if (!dw_conn_ready(s->c) || s->shut_wanted)
        return DW_ERR_STATE;
    dw_sk_set_cork(s, 0); /* a record is sent now, not held */
    s->view_left = 0;     /* send_stream's window room no longer counts it */
    return s->o.nonblocking ? sendv_nb(s, recs, n, NULL, 0)
                            : sendv_blocking(s, recs, n, NULL, 0);
}

int dw_sock_send(dw_sock *s, const void *rec, size_t len)
{
    struct iovec one = {(void *)rec, len};
    return dw_sock_sendv(s, &one, 1);
}

int dw_sock_send_pdu(dw_sock *s, const void *hdr, size_t hlen, const void *payload,
                     size_t plen)
{
    if (!dw_conn_ready(s->c) || s->shut_wanted)
        return DW_ERR_STATE;
    dw_sk_set_cork(s, 0);
    s->view_left = 0;
    struct iovec one = {(void *)payload, plen};
    return s->o.nonblocking ? sendv_nb(s, &one, 1, hdr, hlen)
                            : sendv_blocking(s, &one, 1, hdr, hlen);
}

int dw_sock_flush(dw_sock *s)
{
    if (!s->o.nonblocking)
        return 0;
    int rc = s->connecting ? finish_connect(s) : 0;
    if (!rc)
        rc = drain(s);
    if (!rc && s->shut_wanted == 1) { /* the FIN after the queue */
        rc = shutdown(s->fd, SHUT_WR) ? DW_ERR_IO : 0;
        s->shut_wanted = 2;
    }
    return rc;
}

int dw_sock_shutdown(dw_sock *s)
{
    dw_sk_set_cork(s, 0);
    if (s->o.nonblocking) {
        s->shut_wanted = s->shut_wanted ? s->shut_wanted : 1;
        int rc = s->connecting || dw_outq_octets(s->q) ? 0 : dw_sock_flush(s);
        return rc == DW_ERR_AGAIN ? 0 : rc;
    }
    return shutdown(s->fd, SHUT_WR) ? DW_ERR_IO : 0;
}

unsigned dw_sock_want(const dw_sock *s)
{
    unsigned w = s->pend_n ? DW_SOCK_WANT_RECV : DW_SOCK_WANT_READ;
    if (s->o.nonblocking &&
        (s->connecting || dw_outq_octets(s->q) || s->shut_wanted == 1))
        w |= DW_SOCK_WANT_WRITE;
    return w;
}

size_t dw_sock_queued(const dw_sock *s)
{
    return s->q ? dw_outq_octets(s->q) : 0;
}
