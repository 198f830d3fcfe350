/* SPDX-License-Identifier: MIT */
/*
 * ddpwire listen --keep-open: one epoll loop serves every connection
 * through the socket adapter's non-blocking use, and no peer can stall it:
 *  - echoes wait in each connection's output queue (bounded); a connection
 *    whose echoes are not read stops being read until they drain, and one
 *    whose queue takes nothing for a while fails (backpressure);
 *  - deadlines for the start-up, for a frame begun and not finished, and
 *    for idleness;
 *  - at most max_conns open: accept pauses at the cap;
 *  - bounded work per connection per loop turn (reads, records);
 *  - SIGINT or SIGTERM: a summary (connections, records, octets, failures
 *    by kind) and exit.
 */
#include "listen_server.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

enum fail {
    F_STARTUP, F_FRAME, F_IDLE, F_STALL, F_PROTO, F_ENABLEMENT, F_REJECTED,
    F_RESET, F_CLOSED_STARTUP, F_IO, F_NOMEM, F_ACCEPT, F_N
};

static const char *const fail_name[F_N] = {
    "start-up timeout", "frame timeout", "idle timeout", "send stalled (echoes not read)",
    "protocol error", "enablement error", "start-up refused", "reset by peer",
    "closed during start-up", "I/O error", "out of memory", "accept failed"};

typedef struct conn {
    dw_sock *s;
    struct server *v;
    struct conn *prev, *next; /* every open connection */
    struct conn *run;         /* next with input pending, or on the graveyard */
    int on_run, dead, closing;
    uint32_t events;          /* epoll interest now */
    int64_t t_accept, t_active, t_out, t_frame; /* ms; t_frame 0: not in a frame */
    unsigned turn_recs;
    uint8_t *held;            /* an echo the queue refused, waiting for room */
    size_t held_len;
    dw_fr_error err;          /* the protocol error reported, if any */
    int has_err;
    int send_err, send_errno; /* an echo's send failed (not for room) */
} conn;

typedef struct server {
    srv_opts so;
    dw_sock_settings base;
    int ep, lfd, accepting;
    int64_t accept_resume;    /* after running out of descriptors */
    conn *all, *run, *grave;
    uint64_t accepted, open, peak, recs, in, out, clean;
    uint64_t fails[F_N], codes[2][8];
    double t_start;           /* s, for the summary's time and rate */
    unsigned shown;
    int out_err;              /* errno of a failed write of stdout: the loop ends */
} server;

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
    (void)sig;
    stop_now = 1;
}

/* ---- connections: interest, end ------------------------------------------- */

/* Input may be taken: not closing, no echo held, the queue below half
 * its limit (backpressure: a peer that does not read is not read). */
static int may_read(const conn *c)
{
    size_t q = dw_sock_queued(c->s), lim = c->v->base.out_limit;
    return !c->closing && !c->held && q < lim / 2;
}

static void run_later(conn *c)
{
    if (!c->on_run && !c->dead) {
        c->on_run = 1;
        c->run = c->v->run;
        c->v->run = c;
    }
}

/* epoll interest follows what the connection may do now. */
static void interest(conn *c)
{
    unsigned w = dw_sock_want(c->s);
    int pend = (w & DW_SOCK_WANT_RECV) != 0;
    uint32_t ev = (may_read(c) && !pend ? EPOLLIN : 0) | (w & DW_SOCK_WANT_WRITE ? EPOLLOUT : 0);
    if (pend && may_read(c))
        run_later(c);
    if (ev != c->events) {
        struct epoll_event e = {ev, {.ptr = c}};
        epoll_ctl(c->v->ep, EPOLL_CTL_MOD, dw_sock_fd(c->s), &e);
        c->events = ev;
    }
}

static void unlink_conn(conn *c)
{
    server *v = c->v;
    epoll_ctl(v->ep, EPOLL_CTL_DEL, dw_sock_fd(c->s), NULL);
    if (c->prev)
        c->prev->next = c->next;
    else
        v->all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->dead = 1;
    c->run = v->grave; /* freed at the end of the loop turn */
    v->grave = c;
    v->open--;
}

static void conn_close(conn *c)
{
    unlink_conn(c);
    c->v->clean++;
    dw_sock_close(c->s);
    c->s = NULL;
}

/* A failure: counted by kind, described (the first few), reset sent. */
static void conn_fail(conn *c, enum fail k, int rc)
{
    server *v = c->v;
    v->fails[k]++;
    if (k == F_PROTO && c->has_err)
        v->codes[c->err.framing == DW_FRAMING_IFT][c->err.code & 7]++;
    if (v->shown < v->so.show) {
        char peer[80];
        v->shown++;
        cli_peer(dw_sock_fd(c->s), peer, sizeof peer);
        fprintf(stderr, "ddpwire listen: connection%s%s failed: %s%s%s%s\n",
                peer[0] ? " from " : "", peer, fail_name[k],
                k == F_PROTO && c->has_err ? ": " : "",
                k == F_PROTO && c->has_err ? dw_fr_error_str(&c->err) : "",
                cli_errtag(rc ? rc : DW_ERR_TIMEOUT));
    }
    unlink_conn(c);
    dw_sock_abort(c->s);
    c->s = NULL;
}

/* How a receive ended: a clean close (then flush and close), or a kind. */
static void recv_ended(conn *c, ssize_t r)
{
    if (r == DW_ERR_CLOSED && dw_sock_ready(c->s)) {
        c->closing = 1; /* what is queued still goes, then our FIN */
        dw_sock_shutdown(c->s);
        return;
    }
    enum fail k = r == DW_ERR_CLOSED       ? F_CLOSED_STARTUP
                  : r == DW_ERR_ENABLEMENT ? F_ENABLEMENT
                  : r == DW_ERR_REJECTED   ? F_REJECTED
                  : r == DW_ERR_NOMEM      ? F_NOMEM
                  : r == DW_ERR_PROTO      ? F_PROTO
                                           : F_IO;
    if (k == F_PROTO && c->has_err && c->err.code == 1 && c->err.reason == DW_CLOSE_RST)
        k = F_RESET;
    conn_fail(c, k, (int)r);
}

/* ---- records ---------------------------------------------------------------- */

static int write_record(int records, const uint8_t *d, size_t len)
{
    uint8_t h[2] = {(uint8_t)(len >> 8), (uint8_t)len};
    return (records && cli_write_all(STDOUT_FILENO, h, 2)) ||
           cli_write_all(STDOUT_FILENO, d, len);
}

/* A verified record: echoed (or held while the queue has no room) or
 * written; non-zero pauses dw_sock_recv (held, or this turn's share done). */
static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    conn *c = u;
    server *v = c->v;
    (void)rx, (void)hdr, (void)hlen, (void)off;
    v->recs++, v->in += len;
    c->t_frame = 0; /* a frame ended: the next one's clock starts with it */
    int rc = v->so.echo ? dw_sock_send(c->s, d, len) : 0;
    if (!v->so.echo) {
        if (!v->out_err && write_record(v->so.records, d, len))
            v->out_err = errno ? errno : EIO; /* records would be lost: stop */
        if (v->out_err)
            return 1;
    } else if (rc == 0)
        v->out += len;
    else if (rc != DW_ERR_AGAIN)
        c->send_err = rc, c->send_errno = errno; /* the connection broke: stop */
    else if ((c->held = malloc(len ? len : 1))) /* no room: keep it, read no more */
        memcpy(c->held, d, len), c->held_len = len;
    else
        c->send_err = DW_ERR_NOMEM;
    return c->held || c->send_err || ++c->turn_recs >= v->so.turn_records;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    conn *c = u;
    (void)rx;
    c->err = *e;
    c->has_err = 1;
}

/* ---- one connection's turn ---------------------------------------------------- */

static void do_flush(conn *c, int64_t t);

/* At most turn_reads reads and turn_records records (on_pdu pauses). */
static void do_read(conn *c, int64_t t)
{
    ssize_t r = 0;
    size_t q0 = dw_sock_queued(c->s);
    c->turn_recs = 0;
    for (unsigned i = 0; i < c->v->so.turn_reads && may_read(c); i++) {
        if (c->turn_recs >= c->v->so.turn_records || (r = dw_sock_recv(c->s)) <= 0)
            break;
        c->t_active = t;
    }
    if (!q0 && dw_sock_queued(c->s))
        c->t_out = t; /* the queue's clock starts with its first octet */
    if (c->send_err) {
        int e = c->send_errno;
        enum fail k = c->send_err == DW_ERR_NOMEM              ? F_NOMEM
                      : e == ECONNRESET || e == EPIPE ? F_RESET
                                                               : F_IO;
        return conn_fail(c, k, c->send_err);
    }
    if (r < 0 && r != DW_ERR_AGAIN)
        recv_ended(c, r);
    if (c->dead)
        return;
    int in = dw_sock_in_frame(c->s);
    c->t_frame = !in ? 0 : c->t_frame ? c->t_frame : t;
    if (c->closing)
        do_flush(c, t); /* closes when nothing is left to send */
}

static void do_flush(conn *c, int64_t t)
{
    size_t before = dw_sock_queued(c->s);
    int rc = dw_sock_flush(c->s);
    if (rc && rc != DW_ERR_AGAIN)
        return conn_fail(c, F_IO, rc);
    if (dw_sock_queued(c->s) < before)
        c->t_out = t, c->t_active = t; /* the peer takes our octets */
    rc = c->held ? dw_sock_send(c->s, c->held, c->held_len) : DW_ERR_AGAIN;
    if (rc && rc != DW_ERR_AGAIN)
        return conn_fail(c, F_IO, rc);
    if (!rc) {
        c->v->out += c->held_len;
        free(c->held);
        c->held = NULL;
        if (!before)
            c->t_out = t; /* the queue's clock starts with its first octet */
    }
    if (c->closing && !dw_sock_queued(c->s) && !(dw_sock_want(c->s) & DW_SOCK_WANT_WRITE))
        conn_close(c);
}

static void conn_event(conn *c, uint32_t ev, int64_t t)
{
    if (c->dead)
        return;
    if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
        do_flush(c, t);
    if (!c->dead && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) && may_read(c))
        do_read(c, t);
    if (!c->dead)
        interest(c);
}

/* Input left in the adapter by a pause: this turn's share of it. */
static void run_pending(server *v, int64_t t)
{
    conn *c = v->run;
    v->run = NULL;
    while (c) {
        conn *n = c->run;
        c->on_run = 0;
        if (!c->dead) {
            do_read(c, t);
            if (!c->dead)
                do_flush(c, t);
            if (!c->dead)
                interest(c);
        }
        c = n;
    }
}

/* ---- deadlines --------------------------------------------------------------- */

static int over(int64_t since, int64_t t, int ms)
{
    return ms > 0 && since && t - since > ms;
}

static void sweep(server *v, int64_t t)
{
    for (conn *c = v->all, *n; c; c = n) {
        n = c->next;
        const srv_opts *so = &v->so;
        if (!dw_sock_ready(c->s) && over(c->t_accept, t, so->startup_ms))
            conn_fail(c, F_STARTUP, 0);
        else if (may_read(c) && over(c->t_frame, t, so->frame_ms))
            conn_fail(c, F_FRAME, 0); /* counted only while we read */
        else if (dw_sock_queued(c->s) && over(c->t_out, t, so->stall_ms))
            conn_fail(c, F_STALL, 0);
        else if (over(c->t_active, t, so->idle_ms))
            conn_fail(c, F_IDLE, 0);
        else if (!may_read(c))
            c->t_frame = 0; /* paused by us: the frame's clock starts again */
    }
}

/* ---- accepting --------------------------------------------------------------- */

static void accept_interest(server *v, int64_t t)
{
    int want = v->open < v->so.max_conns && t >= v->accept_resume;
    if (want != v->accepting) {
        struct epoll_event e = {want ? EPOLLIN : 0, {.ptr = NULL}};
        epoll_ctl(v->ep, EPOLL_CTL_MOD, v->lfd, &e);
        v->accepting = want;
    }
}

static void accept_some(server *v, int64_t t)
{
    for (int k = 0; k < 256 && v->open < v->so.max_conns; k++) {
        conn *c = calloc(1, sizeof *c);
        dw_sock_settings o = v->base;
        if (!c)
            return;
        c->v = v;
        o.user_data = c;
        int rc = dw_sock_accept(&c->s, v->lfd, &o, NULL, 0);
        if (rc) {
            free(c);
            if (rc == DW_ERR_AGAIN)
                return;
            if (rc == DW_ERR_NOMEM) { /* the peer is dropped: said, and the run not whole */
                v->fails[F_NOMEM]++;
                fprintf(stderr, "ddpwire listen: accepting a connection: out of memory\n");
                return;
            }
            v->fails[F_ACCEPT]++;
            if (errno == EMFILE || errno == ENFILE) /* out of descriptors: wait */
                v->accept_resume = t + 100;
            return;
        }
        c->t_accept = c->t_active = c->t_out = t;
        c->events = EPOLLIN;
        struct epoll_event e = {EPOLLIN, {.ptr = c}};
        epoll_ctl(v->ep, EPOLL_CTL_ADD, dw_sock_fd(c->s), &e);
        c->next = v->all;
        if (v->all)
            v->all->prev = c;
        v->all = c;
        v->accepted++;
        if (++v->open > v->peak)
            v->peak = v->open;
    }
}

/* ---- the loop ----------------------------------------------------------------- */

static void summary(const server *v)
{
    uint64_t failed = 0;
    char rate[64];
    for (int k = 0; k < F_N; k++)
        failed += v->fails[k];
    fprintf(stderr,
            "ddpwire listen: summary: connections %llu accepted, %llu open (peak %llu), "
            "%llu closed cleanly, %llu failed; records %llu (%llu octets in, %llu echoed); "
            "%s in\n",
            (unsigned long long)v->accepted, (unsigned long long)v->open,
            (unsigned long long)v->peak, (unsigned long long)v->clean,
            (unsigned long long)failed, (unsigned long long)v->recs,
            (unsigned long long)v->in, (unsigned long long)v->out,
            cli_rate(rate, sizeof rate, v->in, cli_now() - v->t_start));
    for (int k = 0; k < F_N; k++)
        if (v->fails[k])
            fprintf(stderr, "ddpwire listen:   %-32s %llu\n", fail_name[k],
                    (unsigned long long)v->fails[k]);
    for (int f = 0; f < 2; f++)
        for (int code = 0; code < 8; code++)
            if (v->codes[f][code]) {
                dw_fr_error e = {(dw_framing)f, code, 0, 0, DW_CLOSE_FIN};
                fprintf(stderr, "ddpwire listen:     %-30s %llu\n", dw_fr_error_str(&e),
                        (unsigned long long)v->codes[f][code]);
            }
}

static void bury(server *v)
{
    while (v->grave) {
        conn *c = v->grave;
        v->grave = c->run;
        free(c->held);
        free(c);
    }
}

static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

int serve_many(int lfd, const dw_sock_settings *base, const srv_opts *so)
{
    static server v;
    v.so = *so, v.base = *base, v.lfd = lfd;
    v.base.nonblocking = 1;
    v.base.cb = (dw_fr_rx_callbacks){on_pdu, on_error, NULL};
    if (!v.base.out_limit)
        v.base.out_limit = 262144;
    v.ep = epoll_create1(EPOLL_CLOEXEC);
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    struct epoll_event e = {EPOLLIN, {.ptr = NULL}}, ev[256];
    epoll_ctl(v.ep, EPOLL_CTL_ADD, lfd, &e);
    v.accepting = 1;
    v.t_start = cli_now();
    int64_t last_sweep = cli_now_ms();
    while (!stop_now && !v.out_err) {
        int n = epoll_wait(v.ep, ev, 256, v.run ? 0 : 100);
        if (n < 0 && errno != EINTR) {
            perror("ddpwire listen: epoll_wait");
            return 1;
        }
        int64_t t = cli_now_ms();
        for (int i = 0; i < n; i++) {
            if (!ev[i].data.ptr)
                accept_some(&v, t);
            else
                conn_event(ev[i].data.ptr, ev[i].events, t);
        }
        run_pending(&v, t);
        if (t - last_sweep >= 100) {
            sweep(&v, t);
            last_sweep = t;
        }
        int emptied = v.grave && !v.open;
        bury(&v);
        if (emptied) /* the last connection gone: give the memory back (glibc) */
            malloc_trim(0);
        accept_interest(&v, t);
    }
    if (!v.so.quiet)
        summary(&v);
    if (v.out_err) /* a record not written: what came after it is not either */
        return cli_cannot("ddpwire listen", "writing stdout", strerror(v.out_err));
    if (v.fails[F_NOMEM]) { /* each was named when it failed; the run is not whole */
        char why[64];
        snprintf(why, sizeof why, "%llu ran out of memory",
                 (unsigned long long)v.fails[F_NOMEM]);
        return cli_cannot("ddpwire listen", "connections", why);
    }
    return 0;
}
