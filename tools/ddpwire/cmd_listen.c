/* SPDX-License-Identifier: MIT */
/* ddpwire listen: accept MPA connections, write what arrives to stdout. */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <netdb.h>
#include <sys/socket.h>
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
#include "listen_server.h"

static void help(void)
{
    printf("usage: ddpwire listen [ADDR:]PORT [--records] [--keep-open] [--echo]\n"
           "                      [--framing mpa|ift] [--startup immediate|negotiate] [--mpa-rev 1|2] [--no-markers] [--no-crc]\n"
           "                      [--pack] [--timeout MS] [-q|--quiet] [-v|--verbose]\n"
           "       ddpwire listen [ADDR:]PORT --keep-open [--echo] [--max-conns N] [--out-limit N]\n"
           "                      [--startup-timeout MS] [--frame-timeout MS] [--idle-timeout MS]\n"
           "                      [--stall-timeout MS] [--rbuf N] [--turn-records N] [--show N]\n"
           "                      [--reuseport]\n"
           "       ddpwire listen [-l|--listen] ADDR PORT ...\n"
           "       ddpwire listen [-l|--listen] [ADDR] -p|--port PORT ...\n"
           "Accepts an MPA connection and writes each verified record's payload to\n"
           "stdout (with --records: a 2-octet big-endian length before each). Exits\n"
           "when the first connection ends, with the records and octets received, the\n"
           "time and the rate on stderr (-q: not). Both ends must be given the same\n"
           "--startup (a mismatch is detected and reported). As with netcat, the\n"
           "address and port may be two arguments, the port given with -p (--port),\n"
           "and -l (--listen) is accepted and changes nothing; ports are 1 to 65535.\n"
           "Errors name the address and say what happened; -v adds the library's\n"
           "error name (DW_ERR_*).\n"
           "A connection must complete its start-up and deliver its first whole record\n"
           "within 10 s (10000 ms) of being accepted, or it fails (a peer that never\n"
           "completes an FPDU cannot hold the listener); after that record it may wait\n"
           "as long as it likes. --timeout MS sets that limit and also limits each later\n"
           "wait for input (0: no limit at all).\n"
           "With --keep-open it serves any number of connections at once (one epoll\n"
           "loop, never waiting on one of them) until SIGINT or SIGTERM, then prints a\n"
           "summary (connections, records, octets, time and rate, failures by kind) on\n"
           "stderr (-q: not); --echo\n"
           "sends every record back to its sender instead of writing it. No peer can\n"
           "stall the others: each connection's echoes wait in an output queue of at\n"
           "most --out-limit octets (262144), and a connection whose echoes are not read\n"
           "is not read either until they drain; at most --max-conns connections are\n"
           "open (accept pauses at the cap); each gets at most --turn-records records\n"
           "(64) and 4 reads per loop turn. Deadlines (ms, 0: none): --startup-timeout\n"
           "(10000; accepted to MPA mode), --frame-timeout (10000; a frame's first octet\n"
           "to its last, so one octet a second cannot hold a connection), --idle-timeout\n"
           "(0; no octet either way), --stall-timeout (30000; echoes queued and none\n"
           "taken); --timeout MS sets the first two. Memory per connection: --rbuf\n"
           "octets read at once (8192); a record longer than a read is assembled in a\n"
           "buffer allocated for it. The first --show failures (10) are described.\n"
           "--reuseport lets several listeners share the port (SO_REUSEPORT).\n"
           "Exit status: 0 when the connection ended cleanly (--keep-open: on the\n"
           "signal), 1 on a failure, 2 on a usage error, 5 when it could not complete\n"
           "(out of memory, a write of stdout that failed: --keep-open stops at once).\n");
}

#define FIRST_MS_DEFAULT 10000

typedef struct ctx {
    char peer[80]; /* "ADDR:PORT" of the connection, for messages */
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
    if (!c->werr && write_record(c->records, d, len))
        c->werr = errno ? errno : EIO;
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
    int64_t deadline = cli_now_ms() + c->first_ms;
    ssize_t r;
    while (((r = dw_sock_recv(s)) >= 0 || r == DW_ERR_AGAIN) && !c->werr) {
        if (r > 0) {
            *octets += (uint64_t)r;
            continue;
        }
        int64_t ms = c->later_ms > 0 ? c->later_ms : -1;
        int first = !c->n && c->first_ms > 0;
        if (first && (ms = deadline - cli_now_ms()) <= 0)
            return DW_ERR_TIMEOUT;
        if (!wait_input(dw_sock_fd(s), ms) && !first)
            return DW_ERR_TIMEOUT;
    }
    *e = errno;
    return r;
}

/* Why the connection failed, in one line. */
static void report(dw_sock *s, const dw_sock_settings *o, const ctx *c, ssize_t r, uint64_t octets,
                   int e)
{
    const char *f = o->framing == DW_FRAMING_IFT ? "IFT" : "MPA", *tag = cli_errtag((int)r);
    const char *from = c->peer[0] ? "connection from " : "connection (peer unknown)";
    const char *p = c->peer;
    if (c->werr) {
        fprintf(stderr, "ddpwire listen: cannot write to standard output: %s%s\n",
                strerror(c->werr), cli_errtag(DW_ERR_IO));
    } else if (r == DW_ERR_TIMEOUT && !dw_sock_ready(s)) {
        fprintf(stderr, "ddpwire listen: %s%s: timed out waiting for the peer's MPA start-up "
                        "frame (%d ms, %llu octets arrived)%s\n",
                from, p, c->first_ms, (unsigned long long)octets, tag);
    } else if (r == DW_ERR_TIMEOUT && !c->n && c->first_ms > 0) {
        fprintf(stderr, "ddpwire listen: %s%s: timed out: no whole record within %d ms of the "
                        "connection (%llu octets arrived)%s\n",
                from, p, c->first_ms, (unsigned long long)octets, tag);
    } else if (r == DW_ERR_CLOSED) { /* before MPA mode */
        fprintf(stderr, "ddpwire listen: %s%s: the peer closed the connection during MPA "
                        "start-up%s\n", from, p, tag);
    } else if (r == DW_ERR_REJECTED) {
        /* (dw_sock_info_get needs MPA mode: no reason here) */
        fprintf(stderr, "ddpwire listen: %s%s: MPA start-up refused: the peer's request does "
                        "not fit our options%s\n", from, p, tag);
    } else if (r == DW_ERR_ENABLEMENT) {
        fprintf(stderr, "ddpwire listen: %s%s: enablement error: the peer's first octets are "
                        "not %s in this mode (other --framing or --startup, or not %s at all?)"
                        "%s\n",
                from, p, f, f, tag);
    } else if (c->failed && c->err.code != DW_MPA_ERR_CLOSED) {
        fprintf(stderr, "ddpwire listen: %s%s: %s at stream offset %llu%s\n", from, p,
                dw_fr_error_str(&c->err), (unsigned long long)c->err.offset,
                cli_errtag(DW_ERR_PROTO));
    } else if (c->failed) { /* the peer ended it, not cleanly */
        static const char *how[] = {"closed", "reset", "timed out", "lost"};
        fprintf(stderr, "ddpwire listen: %s%s: the peer %s the connection (%s)%s; %llu records "
                        "received\n",
                from, p, how[c->err.reason & 3], dw_fr_error_str(&c->err), tag,
                (unsigned long long)c->n);
    } else {
        fprintf(stderr, "ddpwire listen: %s%s: connection ended: %s%s\n", from, p,
                r == DW_ERR_IO ? strerror(e) : dw_strerror((int)r), tag);
    }
}

/* One connection: 0 when it ended cleanly. */
static int serve(int lfd, dw_sock_settings *o, ctx *c, const char *where, int quiet)
{
    char err[256];
    dw_sock *s;
    ctx keep = *c;
    memset(c, 0, sizeof *c);
    c->records = keep.records, c->first_ms = keep.first_ms, c->later_ms = keep.later_ms;
    o->nonblocking = 1; /* the accept waits; the start-up is read with a deadline */
    int rc = dw_sock_accept(&s, lfd, o, err, sizeof err);
    if (rc && cli_sock_resource(rc, errno))
        return cli_cannot("ddpwire listen", where, err);
    if (rc) {
        fprintf(stderr, "ddpwire listen: %s: %s%s\n", where, err, cli_errtag(rc));
        return 1;
    }
    double t0 = cli_now();
    cli_peer(dw_sock_fd(s), c->peer, sizeof c->peer);
    uint64_t octets = 0;
    int e = 0;
    ssize_t r = read_all(s, c, &octets, &e);
    if (r == DW_ERR_CLOSED && !c->werr && dw_sock_ready(s)) {
        dw_sock_close(s);
        char rate[64];
        if (!quiet)
            fprintf(stderr, "ddpwire listen: %llu records, %llu octets, %s%s%s%s\n",
                    (unsigned long long)c->n, (unsigned long long)c->bytes,
                    cli_rate(rate, sizeof rate, c->bytes, cli_now() - t0),
                    c->peer[0] ? " (from " : "", c->peer, c->peer[0] ? ")" : "");
        return 0;
    }
    int res = cli_errno_resource(c->werr) || (!c->werr && cli_sock_resource((int)r, e));
    if (res)
        fprintf(stderr, "ddpwire listen: could not complete: %s\n",
                c->werr ? "writing standard output" : "out of memory or I/O resources");
    report(s, o, c, r, octets, e);
    dw_sock_abort(s); /* tell the sender with a reset */
    return res ? CLI_EXIT_RESOURCE : 1;
}

/* --reuseport: several listeners on one port (SO_REUSEPORT), the kernel
 * spreading connections over them: more connections than one process's
 * descriptor limit allows. */
static int listen_shared(int *pfd, const char *host, const char *port)
{
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if (getaddrinfo(host, port, &hints, &res))
        return errno = EINVAL, -1;
    int one = 1, fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 4096)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return errno = e, -1;
    }
    freeaddrinfo(res);
    *pfd = fd;
    return 0;
}

/* The --keep-open options and their defaults. */
typedef struct keep_args {
    srv_opts so;
    uint64_t out_limit, rbuf;
    int startup_given, frame_given;
} keep_args;

static int keep_open(int lfd, dw_sock_settings *o, keep_args *k, int given_ms)
{
    if (given_ms >= 0) { /* --timeout: the start-up and frame deadlines */
        k->so.startup_ms = k->startup_given ? k->so.startup_ms : given_ms;
        k->so.frame_ms = k->frame_given ? k->so.frame_ms : given_ms;
    }
    o->out_limit = (size_t)k->out_limit;
    o->rbuf_size = (size_t)k->rbuf;
    o->iov_max = DW_FR_FRAME_IOV_MAX; /* one echo at a time */
    o->tx_scratch = 2048;
    o->rx_keep = DW_SOCK_RX_KEEP_NONE;
    o->out_chunk = 4096;
    return serve_many(lfd, o, &k->so);
}

typedef struct listen_args {
    dw_sock_settings o;
    keep_args k;
    int keep, records, echo, reuse, quiet, nc_listen;
    const char *pos[2], *port; /* [ADDR:]PORT, ADDR PORT; -p PORT */
} listen_args;

/* The arguments: CLI_GO, or the exit status. */
static int parse(int argc, char **argv, listen_args *a, cli_where *w)
{
    keep_args *k = &a->k;
    const cli_opt t[] = {
        CLI_FLAG("--keep-open", &a->keep),
        CLI_FLAG("--records", &a->records),
        CLI_FLAG("--echo", &a->echo),
        CLI_FLAG("--reuseport", &a->reuse),
        CLI_U64("--max-conns", &k->so.max_conns, 1, 10000000),
        CLI_U64("--out-limit", &k->out_limit, 1, 1u << 30),
        CLI_U64("--rbuf", &k->rbuf, 1024, 1u << 24),
        CLI_INT("--startup-timeout", &k->so.startup_ms, 0, 3600000),
        CLI_INT("--frame-timeout", &k->so.frame_ms, 0, 3600000),
        CLI_INT("--idle-timeout", &k->so.idle_ms, 0, 86400000),
        CLI_INT("--stall-timeout", &k->so.stall_ms, 0, 86400000),
        CLI_U32("--turn-records", &k->so.turn_records, 1, 1u << 20),
        CLI_U32("--show", &k->so.show, 0, 1u << 30),
        CLI_FLAG("-l", &a->nc_listen),
        CLI_FLAG("--listen", &a->nc_listen),
        CLI_STR("-p", &a->port, "a PORT"),
        CLI_STR("--port", &a->port, "a PORT"),
        CLI_FLAG("-q", &a->quiet),
        CLI_FLAG("--quiet", &a->quiet),
        CLI_COUNT("-v", &cli_verbose),
        CLI_COUNT("--verbose", &cli_verbose),
        CLI_ARG(&a->pos[0]),
        CLI_ARG(&a->pos[1]),
    };
    int startup0 = k->so.startup_ms, frame0 = k->so.frame_ms;
    dw_sock_settings_default(&a->o);
    a->o.timeout_ms = -1; /* not given */
    int r = cli_parse(argc, argv, "ddpwire listen", help, t, CLI_N(t), cli_sock_option, &a->o);
    if (r != CLI_GO)
        return r;
    k->startup_given = k->so.startup_ms != startup0;
    k->frame_given = k->so.frame_ms != frame0;
    int used = cli_where_parse("ddpwire listen", a->pos, 2, a->port, 0, w);
    return used < 0 ? 2 : cli_extra("ddpwire listen", a->pos, 2, used);
}

/* The listening socket: 0, or the exit status after saying why. */
static int open_listener(int *lfd, const listen_args *a, const cli_where *w)
{
    char err[256];
    const char *host = w->host[0] ? w->host : NULL;
    int rc = a->reuse ? listen_shared(lfd, host, w->port)
                      : dw_sock_listen(lfd, host, w->port, err, sizeof err);
    if (rc) {
        if (a->reuse)
            snprintf(err, sizeof err, "listen: %s", strerror(errno));
        if (cli_sock_resource(rc, errno))
            return cli_cannot("ddpwire listen", w->show, err);
        fprintf(stderr, "ddpwire listen: %s: %s\n", w->show, err);
        return 1;
    }
    return 0;
}

int cmd_listen(int argc, char **argv)
{
    listen_args a = {.k = {{0, 0, 1000000, 10000, 10000, 0, 30000, 64, 4, 10, 0}, 262144, 8192,
                           -1, -1}};
    cli_where w;
    ctx c = {0};
    int r = parse(argc, argv, &a, &w), lfd;
    if (r != CLI_GO)
        return r;
    if ((r = open_listener(&lfd, &a, &w)))
        return r;
    dw_sock_settings o = a.o;
    int given = o.timeout_ms >= 0;
    if (a.keep) {
        a.k.so.echo = a.echo, a.k.so.records = a.records, a.k.so.quiet = a.quiet;
        return keep_open(lfd, &o, &a.k, o.timeout_ms);
    }
    c.first_ms = given ? o.timeout_ms : FIRST_MS_DEFAULT;
    c.later_ms = given ? o.timeout_ms : 0; /* then it waits as long as its peer */
    o.timeout_ms = c.first_ms; /* start-up reads */
    o.cb = (dw_fr_rx_callbacks){on_ulpdu, on_error, NULL};
    o.user_data = &c;
    c.records = a.records;
    int status = serve(lfd, &o, &c, w.show, a.quiet);
    close(lfd);
    return status;
}
