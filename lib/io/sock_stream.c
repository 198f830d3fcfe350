/* SPDX-License-Identifier: MIT */
/*
 * The socket adapter's bulk sends (dw_sock_send_stream): exact-fill FPDUs
 * written back to back in large writes, which the kernel's TSO/GSO cuts at
 * multiples of EMSS, so every segment begins with an FPDU. Why that holds,
 * and where it cannot: docs/DESIGN.md "Aligned FPDUs through TSO/GSO".
 */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/mem.h"
#include "io/sock_int.h"
#include "io/tcp_info.h"

#define STREAM_BATCH (256u << 10) /* octets per write at most */
#define FLAT_CAP (STREAM_BATCH + (64u << 10)) /* the flat buffer: a batch and one FPDU */
/*
 * Writes follow the congestion control. A flow BBR paces (TCP's own
 * hrtimer) runs far faster on small writes: the socket is released between
 * them, so ACKs are taken as they come rather than from the backlog after
 * a long copy. Without pacing (CUBIC) large writes win the same way round.
 * Zen 5 guest, veth, 3 alternated rounds of 3 s each (docs/PERFORMANCE.md):
 *   markers, MTU 1500: BBR 64 KiB 17-27 Gbit/s, 256 KiB 9.5-11;
 *                      CUBIC 256 KiB 37.4-37.8, 64 KiB 22.8-23.3
 *   markers, MTU 9000: BBR 48 KiB 13-17, 256 KiB 8.4-12.6;
 *                      CUBIC 256 KiB 24-26, 48 KiB 15-18
 *   no markers (iovecs), 9000: BBR 128 KiB 19-26, 256 KiB 9-13;
 *                      CUBIC 256 KiB 30-32, 128 KiB 25-26
 * With markers the FPDUs are framed into the flat buffer, whose octets
 * stay in cache between our copy and the kernel's at the small sizes.
 */
#define FLAT_SMALL_EMSS 4096u
#define PACED_FLAT_SMALL (64u << 10) /* EMSS under FLAT_SMALL_EMSS */
#define PACED_FLAT_LARGE (48u << 10)
#define PACED_IOV (128u << 10)

/* Whether BBR (any version) runs the socket: TCP paces it then. */
static int paced(int fd)
{
    char cc[16] = "";
    socklen_t l = sizeof cc - 1;
    return !getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &l) && !strncmp(cc, "bbr", 3);
}

/* Octets per write (docs above). */
static size_t stream_batch(const dw_sock *s)
{
    if (!s->paced)
        return STREAM_BATCH;
    if (!s->flat)
        return PACED_IOV;
    return s->info.emss < FLAT_SMALL_EMSS ? PACED_FLAT_SMALL : PACED_FLAT_LARGE;
}

/* TCP_CORK: while set, TCP sends no segment shorter than EMSS and cuts a
 * buffer held back by the congestion window only at a multiple of EMSS
 * (tcp_mss_split_point's Nagle branch); clearing it sends what waits. */
void dw_sk_set_cork(dw_sock *s, int on)
{
    if (s->corked == on)
        return;
    setsockopt(s->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
    s->corked = on;
}

/* Frames whole records of p[0..n) into s->iov for one write: exact-fill
 * FPDUs back to back, up to cap octets (at least one FPDU), the batch,
 * the scratch window or iov_max iovecs, ending after an FPDU shorter than
 * EMSS (MPA 7.3: what follows starts a new segment). With more, a last
 * piece shorter than the fill stays behind. With nmsg, one FPDU, its own
 * message for dw_sk_flush_aligned (beyond the window's edge). Returns the
 * octets of p framed; *cnt the iovecs.
 * With markers the FPDUs are framed into s->flat (payload copied, the CRC
 * fused with the copy), one iovec per write or per message: by reference,
 * each marker would split the payload, two iovecs per 512 octets, and the
 * kernel's copy per iovec costs more than the copy here (docs/PERFORMANCE.md). */
static ssize_t stream_frame(dw_sock *s, const uint8_t *p, size_t n, int more, size_t cap,
                            size_t *cnt, size_t *nrec, size_t *nmsg)
{
    size_t at = 0, octets = 0, c = 0, k = 0, win = dw_sk_scratch_window(s);
    int mpa = s->o.framing == DW_FRAMING_MPA, flat = s->flat != NULL;
    if (flat)
        win = FLAT_CAP;
    /* past the batch only for a tail of the input too small to be a
     * write of its own (one FPDU at MTU 1500: 256 KiB of payload frames to
     * 182 FPDUs and one, two writes per call; FLAT_CAP has room for it) */
    size_t batch = stream_batch(s);
    while (at < n && (octets < batch || n - at <= batch / 8) &&
           (!nmsg || !k)) {
        size_t rec = dw_conn_fill_len(s->c);
        if (n - at < rec && more)
            break;
        rec = n - at < rec ? n - at : rec;
        size_t flen = dw_conn_frame_len(s->c, 0, rec);
        if (c + 2 * (flen / DW_MPA_MARKER_INTERVAL + 2) + 4 > s->o.iov_max ||
            (octets && octets + flen > win) || (octets && !nmsg && octets + flen > cap))
            break;
        dw_fr_frame_info fi;
        ssize_t f;
        if (flat) {
            f = dw_conn_write_into(s->c, NULL, 0, p + at, rec, s->flat + octets,
                                    FLAT_CAP - octets, &fi);
            if (f >= 0) {
                if (!nmsg && c)
                    c--; /* the write's one iovec grows */
                else     /* a new message, or the write's first FPDU */
                    s->iov[c] = (struct iovec){s->flat + octets, 0};
                s->iov[c].iov_len += (size_t)f;
                fi.iovcnt = 1;
            }
        } else {
            f = dw_conn_writev_iov(s->c, NULL, 0, p + at, rec, s->iov + c, s->o.iov_max - c, &fi);
        }
        if (f < 0)
            return f;
        if (nmsg) { /* each FPDU its own message and buffer */
            s->msgs[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = s->iov + c,
                                                      .msg_iovlen = fi.iovcnt}};
            s->msg_bytes[k++] = (size_t)f;
        }
        c += fi.iovcnt, at += rec, octets += (size_t)f, ++*nrec;
        if (mpa && (size_t)f != s->info.emss)
            break;
    }
    *cnt = c;
    if (nmsg)
        *nmsg = k;
    return (ssize_t)at;
}

/* One record of the fill size as dw_sock_sendv sends it: MPA where no
 * FPDU fills EMSS (EMSS not a multiple of 4, or beyond the largest FPDU),
 * and non-blocking sockets. 0: none (more, and less than a fill left). */
static ssize_t stream_one(dw_sock *s, const uint8_t *p, size_t n, int more, size_t *nrec)
{
    size_t rec = dw_conn_fill_len(s->c);
    if (n < rec && more)
        return 0;
    struct iovec v = {(void *)p, n < rec ? n : rec};
    int rc = dw_sock_sendv(s, &v, 1);
    if (rc)
        return rc;
    ++*nrec;
    return (ssize_t)v.iov_len;
}

/*
 * The flags of a write of large buffers: MSG_EOR (nothing appended to its
 * last skb) unless every FPDU in it is EMSS octets and the peer's window
 * (room, before the write) has at least EMSS left after it. Then the next
 * write may fill that skb up to the kernel's size goal, as plain TCP's
 * writes do, and the skb still holds whole EMSS FPDUs: an EOR after each
 * write left one short skb per write (a fifth of all skbs at 256 KiB
 * writes, docs/PERFORMANCE.md). The window test keeps the next write's
 * octets inside the window: had it less than EMSS, that write would go one
 * FPDU per message, and appended to this skb that FPDU would let the
 * kernel cut it at the window's edge (docs/DESIGN.md).
 */
static int stream_flags(const dw_sock *s, int exact, size_t wire, size_t room)
{
    size_t emss = s->info.emss;
    int keep_open = exact && emss && wire % emss == 0 &&
                    (room == SIZE_MAX || (room >= wire && room - wire >= emss));
    return keep_open ? 0 : MSG_EOR;
}

/*
 * EMSS and the peer's window room before a write (MPA 7.3.1: each write
 * follows the path MTU). The full view costs three system calls
 * (dw_sk_update_emss); a write needs it only when what it knows may be
 * out of date. The room it read, less what was written since, is a lower
 * bound as long as the window's right edge does not move back (Linux
 * never moves it back, docs/DESIGN.md): while that leaves the largest
 * write and EMSS, and the route's MTU (one system call, every write) is
 * what it was, the write goes on that view, for DW_SK_VIEW_WRITES writes
 * at most (a kernel MSS that changes with the MTU unchanged).
 */
static size_t stream_view(dw_sock *s)
{
    size_t want = (s->flat ? FLAT_CAP : dw_sk_scratch_window(s)) + s->info.emss;
    if (s->view_left && s->hdr && s->room >= want &&
        dw_io_path_mss(s->fd, s->hdr) == s->path_mss) {
        s->view_left--;
        return s->room;
    }
    size_t room = dw_sk_update_emss(s);
    s->view_left = DW_SK_VIEW_WRITES;
    s->paced = paced(s->fd); /* the application may have changed it */
    return room;
}

/* Octets written: the window room left shrinks by as much. */
static void stream_wrote(dw_sock *s, size_t wire)
{
    if (s->room != SIZE_MAX)
        s->room = s->room > wire ? s->room - wire : 0;
}

/*
 * Blocking, after one FPDU written beyond the window's edge: it leaves
 * when the window has opened for all of it (an skb of one EMSS is never
 * cut at the edge), so wait for that instead of queueing more FPDUs one
 * per message (each its own skb, sent without GSO) or writing small
 * bites: with TCP_NOTSENT_LOWAT 1, POLLOUT means nothing written is
 * unsent. The caller's setting is put back. Without the option (an old
 * kernel) no wait: the next write blocks in the kernel as before.
 */
static int stream_wait(dw_sock *s)
{
    int low = 0, one = 1, r, ms = s->o.timeout_ms;
    socklen_t l = sizeof low;
    if (getsockopt(s->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &low, &l) != 0 ||
        setsockopt(s->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &one, sizeof one) != 0)
        return 0;
    struct pollfd pf = {s->fd, POLLOUT, 0};
    do
        r = poll(&pf, 1, ms > 0 ? ms : -1);
    while (r < 0 && errno == EINTR);
    setsockopt(s->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &low, sizeof low);
    return r > 0 ? 0 : r == 0 ? DW_ERR_TIMEOUT : DW_ERR_IO;
}

/* Whether FPDUs of the fill size are exactly EMSS octets here. */
static int fills_exactly(dw_sock *s)
{
    size_t fill = dw_conn_fill_len(s->c);
    return s->info.emss % 4 == 0 && dw_conn_frame_len(s->c, 0, fill) == s->info.emss;
}

/* Non-blocking: fill-size records while the socket (and its queue) takes
 * them; DW_ERR_AGAIN when it took none. */
static ssize_t stream_nb(dw_sock *s, const uint8_t *p, size_t len, int more, size_t *nrec)
{
    size_t at = 0;
    while (at < len) {
        ssize_t r = stream_one(s, p + at, len - at, more, nrec);
        if (r == DW_ERR_AGAIN && at)
            break;
        if (r <= 0)
            return r;
        at += (size_t)r;
    }
    return (ssize_t)at;
}

ssize_t dw_sock_send_stream(dw_sock *s, const void *buf, size_t len, int more, size_t *nrec)
{
    const uint8_t *p = buf;
    size_t at = 0, k = 0;
    if (!dw_conn_ready(s->c) || s->shut_wanted)
        return DW_ERR_STATE;
    if (s->o.nonblocking) {
        ssize_t r = stream_nb(s, p, len, more, &k);
        if (nrec)
            *nrec = k;
        return r;
    }
    int rc = dw_sk_want_iov(s);
    if (!rc)
        rc = dw_sk_want_msgs(s);
    if (!rc && s->info.tx_markers && s->o.framing == DW_FRAMING_MPA && !s->flat &&
        !(s->flat = dw_mem_malloc(s->o.mem, FLAT_CAP)))
        rc = DW_ERR_NOMEM;
    if (rc)
        return rc;
    while (at < len) {
        if (more && len - at < dw_conn_fill_len(s->c))
            break; /* less than a record: the caller gives it again */
        /* MPA 7.3.1: each write follows the path MTU */
        size_t room = stream_view(s);
        int mpa = s->o.framing == DW_FRAMING_MPA, exact = mpa && fills_exactly(s);
        ssize_t r;
        size_t cnt = 0;
        if (mpa && !exact) {
            r = stream_one(s, p + at, len - at, more, &k);
        } else {
            /*
             * Corked, a send held back by the congestion window is cut at
             * a multiple of EMSS. The peer's receive window ends anywhere:
             * a buffer that reaches past its right edge may be cut there
             * when the kernel pushes (TCP_NAGLE_PUSH, whatever TCP_CORK
             * says). So only what fits inside the window goes in one large
             * buffer; beyond it one FPDU, a buffer of its own, which the
             * kernel sends whole or not at all, and a wait until it has
             * left (docs/DESIGN.md).
             */
            dw_sk_set_cork(s, mpa);
            size_t nmsg = 0;
            room = mpa ? room : SIZE_MAX;
            int one = room < s->info.emss;
            r = stream_frame(s, p + at, len - at, more, room, &cnt, &k, one ? &nmsg : NULL);
            size_t wire = 0;
            for (size_t i = 0; r > 0 && i < cnt; i++)
                wire += s->iov[i].iov_len;
            rc = r <= 0 ? 0
                 : one  ? dw_sk_flush_aligned(s, nmsg)
                        : dw_sk_write_all(s->fd, s->iov, (int)cnt,
                                          stream_flags(s, exact, wire, room), s->o.timeout_ms);
            stream_wrote(s, wire);
            if (!rc && r > 0 && one)
                rc = stream_wait(s);
            r = rc ? rc : r;
        }
        if (r <= 0) {
            if (r < 0)
                return r;
            break;
        }
        at += (size_t)r;
    }
    if (!more)
        dw_sk_set_cork(s, 0); /* the last, shorter FPDU leaves now */
    if (nrec)
        *nrec = k;
    return (ssize_t)at;
}

size_t dw_sock_fill_len(dw_sock *s)
{
    return dw_conn_fill_len(s->c);
}
