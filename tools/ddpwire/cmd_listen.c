/* SPDX-License-Identifier: MIT */
/* ddpwire listen: accept MPA connections, write what arrives to stdout. */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static void help(void)
{
    printf("usage: ddpwire listen [ADDR:]PORT [--records] [--keep-open] [--echo]\n"
           "                      [--framing mpa|ift] [--startup immediate|negotiate] [--no-markers] [--no-crc]\n"
           "                      [--pack] [--timeout MS]\n"
           "Accepts an MPA connection and writes each verified record's payload to\n"
           "stdout (with --records: a 2-octet big-endian length before each). Exits\n"
           "when the first connection ends. With --keep-open it serves any number of\n"
           "connections at once (epoll) until killed; --echo sends every record back\n"
           "to its sender instead of writing it. Both ends must be given the same\n"
           "--startup (a mismatch is detected and reported).\n"
           "A connection must complete its start-up and deliver its first whole record\n"
           "within 10 s (10000 ms) of being accepted, or it fails (a peer that never\n"
           "completes an FPDU cannot hold the listener); after that record it may wait\n"
           "as long as it likes. --timeout MS sets that limit and also limits each later\n"
           "wait for input (0: no limit at all); with --keep-open only --timeout applies\n"
           "(to start-up reads and sends). Exit status: 0 when the connection\n"
           "ended cleanly, 1 on a failure, 2 on a usage error.\n");
}

#define FIRST_MS_DEFAULT 10000

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct ctx {
    int records;
    int first_ms, later_ms; /* first record's deadline, later reads' limit */
    int werr;
    uint64_t n, bytes;
    dw_fr_error err;
    int failed;
} ctx;

/* A record to stdout: its payload, after its length with --records. */
static int write_record(int records, const uint8_t *d, size_t len)
{
    uint8_t h[2] = {(uint8_t)(len >> 8), (uint8_t)len};
    return (records && cli_write_all(STDOUT_FILENO, h, 2)) ||
           cli_write_all(STDOUT_FILENO, d, len);
}

static int on_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                    uint64_t off, void *u)
{
    (void)hdr, (void)hlen;
    ctx *c = u;
    (void)rx, (void)off;
    if (write_record(c->records, d, len))
        c->werr = 1;
    c->n++;
    c->bytes += len;
    return c->werr;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    ctx *c = u;
    (void)rx;
    c->err = *e;
    c->failed = 1;
}

/* Waits up to ms (-1: for ever) for input: 0 when none came in time. */
static int wait_input(int fd, int64_t ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int k;
    do
        k = poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
    while (k < 0 && errno == EINTR);
    return k != 0; /* an error: the read says which */
}

/* Reads (non-blocking) until the connection ends. The start-up and the
 * first record must be done by the deadline, so a trickle cannot extend
 * it; later reads wait later_ms (0: for ever). *octets: what arrived. */
static ssize_t read_all(dw_sock *s, ctx *c, uint64_t *octets, int *e)
{
    int64_t deadline = now_ms() + c->first_ms;
    ssize_t r;
    while ((r = dw_sock_recv(s)) >= 0 && !c->werr) {
        *octets += (uint64_t)r;
        if (r > 0)
            continue;
        int64_t ms = c->later_ms > 0 ? c->later_ms : -1;
        int first = !c->n && c->first_ms > 0;
        if (first && (ms = deadline - now_ms()) <= 0)
            return DW_ERR_TIMEOUT;
        if (!wait_input(dw_sock_fd(s), ms) && !first)
            return DW_ERR_TIMEOUT;
    }
    *e = errno;
    return r;
}

/* Why the connection failed, in one line. */
static void report(dw_sock *s, const dw_sock_opts *o, const ctx *c, ssize_t r, uint64_t octets,
                   int e)
{
    const char *f = o->framing == DW_FRAMING_IFT ? "IFT" : "MPA";
    if (c->werr) {
        fprintf(stderr, "ddpwire listen: cannot write to stdout (DW_ERR_IO)\n");
    } else if (r == DW_ERR_TIMEOUT && !dw_sock_ready(s)) {
        fprintf(stderr, "ddpwire listen: timed out waiting for the peer's MPA start-up frame "
                        "(%d ms, %llu octets arrived; DW_ERR_TIMEOUT)\n",
                c->first_ms, (unsigned long long)octets);
    } else if (r == DW_ERR_TIMEOUT && !c->n && c->first_ms > 0) {
        fprintf(stderr, "ddpwire listen: timed out: no whole record within %d ms of the "
                        "connection (%llu octets arrived; DW_ERR_TIMEOUT)\n",
                c->first_ms, (unsigned long long)octets);
    } else if (r == DW_ERR_CLOSED) { /* before MPA mode */
        fprintf(stderr, "ddpwire listen: the peer closed the connection during MPA start-up "
                        "(DW_ERR_CLOSED)\n");
    } else if (r == DW_ERR_REJECTED) {
        /* (dw_sock_get_info needs MPA mode: no reason here) */
        fprintf(stderr, "ddpwire listen: MPA start-up refused: the peer's request does not "
                        "fit our options (DW_ERR_REJECTED)\n");
    } else if (r == DW_ERR_ENABLEMENT) {
        fprintf(stderr, "ddpwire listen: enablement error: the peer's first octets are not "
                        "%s in this mode (other --framing or --startup, or not %s at all?) "
                        "(DW_ERR_ENABLEMENT)\n",
                f, f);
    } else if (c->failed && c->err.code != DW_MPA_ERR_CLOSED) {
        fprintf(stderr, "ddpwire listen: %s at stream offset %llu (DW_ERR_PROTO)\n",
                dw_fr_error_str(&c->err), (unsigned long long)c->err.offset);
    } else {
        fprintf(stderr, "ddpwire listen: connection ended: %s (%s)\n",
                r == DW_ERR_IO ? strerror(e) : dw_strerror((int)r), dw_err_name((int)r));
    }
}

/* One connection: 0 when it ended cleanly. */
static int serve(int lfd, dw_sock_opts *o, ctx *c)
{
    char err[256];
    dw_sock *s;
    ctx keep = *c;
    memset(c, 0, sizeof *c);
    c->records = keep.records, c->first_ms = keep.first_ms, c->later_ms = keep.later_ms;
    o->nonblocking = 1; /* the accept waits; the start-up is read with a deadline */
    int rc = dw_sock_accept(&s, lfd, o, err, sizeof err);
    if (rc) {
        fprintf(stderr, "ddpwire listen: %s (%s)\n", err, dw_err_name(rc));
        return 1;
    }
    uint64_t octets = 0;
    int e = 0;
    ssize_t r = read_all(s, c, &octets, &e);
    if (r == DW_ERR_CLOSED && !c->werr && dw_sock_ready(s)) {
        dw_sock_close(s);
        fprintf(stderr, "ddpwire listen: %llu records, %llu octets\n",
                (unsigned long long)c->n, (unsigned long long)c->bytes);
        return 0;
    }
    report(s, o, c, r, octets, e);
    dw_sock_abort(s); /* tell the sender with a reset */
    return 1;
}

/* --keep-open: one epoll loop serves every connection. */
typedef struct conn {
    dw_sock *s;
    struct server *srv;
} conn;

typedef struct server {
    int echo, records;
    uint64_t conns, open, recs, failed;
} server;

static int ep_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                    uint64_t off, void *u)
{
    (void)hdr, (void)hlen;
    conn *c = u;
    (void)rx, (void)off;
    c->srv->recs++;
    if (c->srv->echo)
        return dw_sock_send(c->s, d, len) != 0;
    return write_record(c->srv->records, d, len);
}

static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

static void ep_accept(int ep, int lfd, const dw_sock_opts *base, server *v)
{
    for (;;) {
        conn *c = calloc(1, sizeof *c);
        dw_sock_opts o = *base;
        char err[256];
        if (!c)
            return;
        c->srv = v;
        o.user_data = c;
        int rc = dw_sock_accept(&c->s, lfd, &o, err, sizeof err);
        if (rc) {
            if (rc != DW_ERR_IO || (errno != EAGAIN && errno != EWOULDBLOCK))
                fprintf(stderr, "ddpwire listen: %s (%s)\n", err, dw_err_name(rc)), v->failed++;
            free(c);
            return; /* accepted all that were waiting */
        }
        struct epoll_event e = {EPOLLIN, {.ptr = c}};
        epoll_ctl(ep, EPOLL_CTL_ADD, dw_sock_fd(c->s), &e);
        v->conns++, v->open++;
    }
}

static void ep_read(int ep, conn *c, server *v)
{
    ssize_t r;
    while ((r = dw_sock_recv(c->s)) > 0)
        ;
    if (r == 0)
        return;
    epoll_ctl(ep, EPOLL_CTL_DEL, dw_sock_fd(c->s), NULL);
    if (r == DW_ERR_CLOSED) {
        dw_sock_close(c->s);
    } else {
        v->failed++;
        fprintf(stderr, "ddpwire listen: connection failed: %s (%s)\n", dw_strerror((int)r),
                dw_err_name((int)r));
        dw_sock_abort(c->s);
    }
    v->open--;
    free(c);
}

static int serve_many(int lfd, dw_sock_opts *o, int echo, int records)
{
    server v = {echo, records, 0, 0, 0, 0};
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event e = {EPOLLIN, {.ptr = NULL}}, ev[256];
    raise_fd_limit();
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &e);
    o->nonblocking = 1;
    o->cb = (dw_fr_rx_callbacks){ep_ulpdu, NULL, NULL};
    for (;;) {
        int n = epoll_wait(ep, ev, 256, -1);
        if (n < 0 && errno != EINTR) {
            perror("ddpwire listen: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            if (!ev[i].data.ptr)
                ep_accept(ep, lfd, o, &v);
            else
                ep_read(ep, ev[i].data.ptr, &v);
        }
    }
}

int cmd_listen(int argc, char **argv)
{
    dw_sock_opts o;
    ctx c = {0};
    int keep = 0, records = 0, echo = 0;
    const char *where = NULL;
    dw_sock_opts_default(&o);
    o.timeout_ms = -1; /* not given */
    const cli_opt t[] = {
        CLI_FLAG("--keep-open", &keep),
        CLI_FLAG("--records", &records),
        CLI_FLAG("--echo", &echo),
        CLI_ARG(&where),
    };
    int r = cli_parse(argc, argv, "ddpwire listen", help, t, CLI_N(t), cli_sock_option, &o);
    if (r != CLI_GO)
        return r;
    char host[256], port[32], err[256];
    if (!where || cli_hostport(where, host, sizeof host, port, sizeof port)) {
        fprintf(stderr, "ddpwire listen: give [ADDR:]PORT\n");
        return 2;
    }
    int lfd;
    if (dw_sock_listen(&lfd, host[0] ? host : NULL, port, err, sizeof err)) {
        fprintf(stderr, "ddpwire listen: %s\n", err);
        return 1;
    }
    int given = o.timeout_ms >= 0;
    c.first_ms = given ? o.timeout_ms : FIRST_MS_DEFAULT;
    c.later_ms = given ? o.timeout_ms : 0; /* then it waits as long as its peer */
    o.timeout_ms = keep ? c.later_ms : c.first_ms; /* start-up reads */
    if (keep)
        return serve_many(lfd, &o, echo, records);
    o.cb = (dw_fr_rx_callbacks){on_ulpdu, on_error, NULL};
    o.user_data = &c;
    c.records = records;
    int status = serve(lfd, &o, &c);
    close(lfd);
    return status;
}
