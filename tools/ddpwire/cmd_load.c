/* SPDX-License-Identifier: MIT */
/*
 * ddpwire load: many concurrent MPA connections against a listener started
 * with `ddpwire listen PORT --keep-open --echo`, all open at once. Phases:
 * open every connection (and finish its start-up), send every
 * connection's records, wait until every echoed record is verified, hold
 * them open and idle if asked, then close every connection and wait for
 * the listener's closes. One epoll loop drives them all through the
 * adapter's non-blocking use (connects, sends and flushes never wait).
 */
#include <ddpwire/mpa_sock.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define POOL 65536
#define SHOW_MAX 5 /* failures described on stderr */

static uint8_t pool[POOL + DW_MPA_ULPDU_MAX];

static void help(void)
{
    printf("usage: ddpwire load HOST:PORT [--connections N] [--records M] [--record-size S]\n"
           "                    [--framing mpa|ift] [--startup immediate|negotiate] [--no-markers] [--no-crc]\n"
           "                    [--timeout MS] [--sources K] [--source-base ADDR] [--hold MS]\n"
           "                    [--window W] [-v|--verbose]\n"
           "       ddpwire load HOST PORT ...\n"
           "Opens N connections (default 1000) to `ddpwire listen PORT --keep-open --echo`,\n"
           "at most W (1000) still connecting at a time, sends M records of S octets on\n"
           "each (default 5 of 100), verifies every echoed record, holds the connections\n"
           "open and idle for --hold MS (0), closes them, and reports; the first failed\n"
           "connections' causes go to stderr (what happened, the MPA/IFT error code and\n"
           "offset; -v adds the library's error name, DW_ERR_*). HOST and PORT may be\n"
           "two arguments, as netcat takes them; ports are 1 to 65535. --sources K binds\n"
           "connection i to the local address ADDR + i mod K (IPv4, default ADDR\n"
           "127.0.0.1): one address has room for about 28,000 connections to one\n"
           "listener. Exit status 0 only if every record came back\n"
           "intact, 1 otherwise, 2 on a usage error.\n");
}

typedef struct lconn {
    dw_sock *s;
    size_t id, sent, got, bad;
    int done, failed, sending, early; /* early: failed before MPA mode */
    uint32_t events;
    struct lrun *run;
    int why, err_no, has_err; /* the DW_ERR_* that ended it, errno */
    dw_fr_error err;          /* the MPA/IFT error reported, if any */
} lconn;

typedef struct lrun {
    uint64_t m, size;
    size_t done, failed, connecting;
    uint64_t verified, bad;
    int ep;
    const char *show; /* the listener's address, for messages */
    const char *res; /* why a connection could not complete (memory ...): status 5 */
} lrun;

static const uint8_t *rec_data(size_t id, size_t j)
{
    return pool + (id * 7919 + j * 104729) % POOL;
}

static int on_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                    uint64_t off, void *u)
{
    lconn *c = u;
    (void)rx, (void)off, (void)hdr, (void)hlen;
    int ok = len == c->run->size && c->got < c->run->m && !memcmp(d, rec_data(c->id, c->got), len);
    c->got++;
    c->bad += !ok;
    c->run->verified += ok;
    c->run->bad += !ok;
    return 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    lconn *c = u;
    (void)rx;
    c->err = *e;
    c->has_err = 1;
}

/* Why connection c failed, in one line. */
static void describe(const lconn *c, const char *what)
{
    static const char *how[] = {"closed", "reset", "timed out", "lost"};
    char mpa[160] = "";
    if (c->has_err && (c->err.code != DW_MPA_ERR_CLOSED || !c->err.clean))
        snprintf(mpa, sizeof mpa, "; %s at stream offset %llu", dw_fr_error_str(&c->err),
                 (unsigned long long)c->err.offset);
    else if (c->has_err && c->why != DW_ERR_CLOSED)
        snprintf(mpa, sizeof mpa, "; the listener %s the connection", how[c->err.reason & 3]);
    fprintf(stderr, "ddpwire load: %s: connection %zu failed %s: %s%s%s; %zu of %llu echoes, "
                    "%zu mismatched\n",
            c->run->show, c->id, what,
            c->why == DW_ERR_IO ? strerror(c->err_no) : dw_strerror(c->why),
            cli_errtag(c->why), mpa, c->got, (unsigned long long)c->run->m, c->bad);
}

/* Ends connection c; why is 0 or the DW_ERR_* that ended it. */
static void finish(lconn *c, int failed, int why)
{
    c->why = why;
    c->err_no = errno;
    if (failed && cli_sock_resource(why, c->err_no) && !c->run->res)
        c->run->res = why == DW_ERR_NOMEM ? "out of memory" : strerror(c->err_no);
    c->early = !dw_sock_ready(c->s);
    if (!dw_sock_ready(c->s) && c->run->connecting)
        c->run->connecting--;
    epoll_ctl(c->run->ep, EPOLL_CTL_DEL, dw_sock_fd(c->s), NULL);
    if (failed)
        dw_sock_abort(c->s);
    else
        dw_sock_close(c->s);
    c->s = NULL;
    c->done = 1;
    c->failed = failed;
    c->run->done++;
    c->run->failed += (size_t)failed;
}

/* Sends what is left of the connection's records: 0, AGAIN or a DW_ERR_*. */
static int send_more(lconn *c)
{
    for (; c->sent < c->run->m; c->sent++) {
        int rc = dw_sock_send(c->s, rec_data(c->id, c->sent), c->run->size);
        if (rc)
            return rc;
    }
    return 0;
}

/* epoll interest follows what the adapter wants. */
static void interest(lconn *c)
{
    unsigned w = dw_sock_want(c->s);
    uint32_t ev = EPOLLIN | (w & DW_SOCK_WANT_WRITE || c->sending ? EPOLLOUT : 0);
    if (ev != c->events) {
        struct epoll_event e = {ev, {.ptr = c}};
        epoll_ctl(c->run->ep, EPOLL_CTL_MOD, dw_sock_fd(c->s), &e);
        c->events = ev;
    }
}

static void on_event(lconn *c, uint32_t ev)
{
    int was_ready = dw_sock_ready(c->s), rc;
    if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        rc = dw_sock_flush(c->s);
        if (rc && rc != DW_ERR_AGAIN)
            return finish(c, 1, rc);
        if (c->sending && (rc = send_more(c)) != DW_ERR_AGAIN) {
            c->sending = 0;
            if (rc)
                return finish(c, 1, rc);
        }
    }
    ssize_t r;
    while ((r = dw_sock_recv(c->s)) > 0)
        ;
    if (!was_ready && dw_sock_ready(c->s))
        c->run->connecting--;
    if (r != DW_ERR_AGAIN)
        return finish(c, r != DW_ERR_CLOSED || c->got != c->run->m || c->bad, (int)r);
    interest(c);
}

typedef int (*phase_done)(const lconn *c, const lrun *run);

static int is_ready(const lconn *c, const lrun *run)
{
    (void)run;
    return c->done || dw_sock_ready(c->s);
}

static int has_echoes(const lconn *c, const lrun *run)
{
    return c->done || c->got >= run->m;
}

static int is_done(const lconn *c, const lrun *run)
{
    (void)run;
    return c->done;
}

static void loop_once(lrun *run, int ms)
{
    struct epoll_event ev[256];
    int k = epoll_wait(run->ep, ev, 256, ms);
    for (int j = 0; j < k; j++)
        if (!((lconn *)ev[j].data.ptr)->done)
            on_event(ev[j].data.ptr, ev[j].events);
}

/* Runs the epoll loop until every connection passes the phase test. */
static int run_until(lconn *cs, size_t n, lrun *run, phase_done ok, double limit, double t0)
{
    size_t i = 0;
    for (;;) {
        while (i < n && ok(&cs[i], run))
            i++;
        if (i == n)
            return 0;
        if (cli_now() - t0 > limit)
            return -1;
        loop_once(run, 200);
    }
}

/* The first failed (or, after the time limit, unfinished) connections. */
static void report_failures(const lconn *cs, size_t n, size_t connect_failed, const char *stuck,
                            double limit)
{
    size_t shown = connect_failed < SHOW_MAX ? connect_failed : SHOW_MAX, late = 0;
    for (size_t i = 0; cs && i < n && shown < SHOW_MAX; i++)
        if (cs[i].failed && cs[i].s == NULL && cs[i].why)
            describe(&cs[i], cs[i].early ? "to connect" : "while running"), shown++;
    for (size_t i = 0; cs && stuck && i < n; i++)
        if (!cs[i].done && late++ < SHOW_MAX)
            fprintf(stderr, "ddpwire load: %s: connection %zu unfinished after %.0f s %s "
                            "(timed out; --timeout sets the limit)%s: %zu of %llu echoes\n",
                    cs[i].run->show, cs[i].id, limit, stuck, cli_errtag(DW_ERR_TIMEOUT),
                    cs[i].got, (unsigned long long)cs[i].run->m);
}

/* HOST as a numeric address (the adapter's non-blocking connect wants one). */
static int numeric(char *host, size_t cap)
{
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    int gr = getaddrinfo(host, NULL, &hints, &res);
    if (gr)
        return gr == EAI_MEMORY || gr == EAI_AGAIN ? -2 : -1;
    int rc = getnameinfo(res->ai_addr, res->ai_addrlen, host, (socklen_t)cap, NULL, 0,
                         NI_NUMERICHOST);
    freeaddrinfo(res);
    return rc ? -1 : 0;
}

typedef struct load_args {
    uint64_t n, hold_ms, sources, window;
    const char *source_base;
} load_args;

/* Opens connection i (at most window connecting at once): 0 or a DW_ERR_*. */
static int open_one(lconn *c, const char *host, const char *port, dw_sock_settings *o,
                    const load_args *a, lrun *run, char *err, size_t errlen)
{
    char src[INET_ADDRSTRLEN];
    while (run->connecting >= a->window)
        loop_once(run, 100);
    if (a->sources) {
        struct in_addr b;
        inet_pton(AF_INET, a->source_base, &b);
        b.s_addr = htonl(ntohl(b.s_addr) + (uint32_t)(c->id % a->sources));
        inet_ntop(AF_INET, &b, src, sizeof src);
        o->local_addr = src;
    }
    o->user_data = c;
    int rc = dw_sock_connect(&c->s, host, port, o, err, errlen);
    if (rc)
        return rc;
    run->connecting += !dw_sock_ready(c->s);
    c->events = EPOLLIN | EPOLLOUT;
    struct epoll_event e = {c->events, {.ptr = c}};
    epoll_ctl(run->ep, EPOLL_CTL_ADD, dw_sock_fd(c->s), &e);
    return 0;
}

static void start_sending(lconn *cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (cs[i].done)
            continue;
        int rc = send_more(&cs[i]);
        if (rc == DW_ERR_AGAIN)
            cs[i].sending = 1;
        else if (rc)
            finish(&cs[i], 1, rc);
        if (!cs[i].done)
            interest(&cs[i]);
    }
}

int cmd_load(int argc, char **argv)
{
    dw_sock_settings o;
    load_args a = {1000, 0, 0, 1000, "127.0.0.1"};
    lrun run = {5, 100, 0, 0, 0, 0, 0, -1, NULL, NULL};
    const char *pos[2] = {NULL, NULL};
    cli_where w;
    dw_sock_settings_default(&o);
    const cli_opt t[] = {
        CLI_U64("--connections", &a.n, 1, 10000000),
        CLI_U64("--records", &run.m, 1, 1000000),
        CLI_U64("--record-size", &run.size, 1, DW_MPA_ULPDU_MAX),
        CLI_U64("--hold", &a.hold_ms, 0, 86400000),
        CLI_U64("--sources", &a.sources, 1, 1u << 24),
        CLI_STR("--source-base", &a.source_base, "an IPv4 address"),
        CLI_U64("--window", &a.window, 1, 10000000),
        CLI_COUNT("-v", &cli_verbose),
        CLI_COUNT("--verbose", &cli_verbose),
        CLI_ARG(&pos[0]),
        CLI_ARG(&pos[1]),
    };
    int r = cli_parse(argc, argv, "ddpwire load", help, t, CLI_N(t), cli_sock_option, &o);
    if (r != CLI_GO)
        return r;
    int used = cli_where_parse("ddpwire load", pos, 2, NULL, 1, &w);
    if (used < 0 || (r = cli_extra("ddpwire load", pos, 2, used)) != CLI_GO)
        return 2;
    char *host = w.host, *port = w.port, err[256];
    int nr = numeric(host, sizeof w.host);
    if (nr == -2)
        return cli_cannot("ddpwire load", "resolving the address", "out of memory");
    if (nr) {
        fprintf(stderr, "ddpwire load: %s: cannot resolve '%s'\n", w.show, host);
        return 2;
    }
    run.show = w.show;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)(i * 2654435761u >> 13);
    size_t n = (size_t)a.n;
    lconn *cs = calloc(n, sizeof *cs);
    if (!cs)
        return cli_nomem("ddpwire load", "the connection table");
    run.ep = epoll_create1(EPOLL_CLOEXEC);
    if (run.ep < 0) {
        free(cs);
        return cli_cannot("ddpwire load", "epoll_create1", strerror(errno));
    }
    o.nonblocking = 1;
    o.cb = (dw_fr_rx_callbacks){on_ulpdu, on_error, NULL};
    o.rbuf_size = 4096, o.tx_scratch = 2048, o.rx_keep = DW_SOCK_RX_KEEP_NONE;
    o.iov_max = DW_FR_FRAME_IOV_MAX, o.out_chunk = 4096;
    double t0 = cli_now(), limit = o.timeout_ms > 0 ? o.timeout_ms / 1000.0 : 60;
    size_t no_connect = 0;
    for (size_t i = 0; cs && i < n; i++) {
        cs[i] = (lconn){.id = i, .run = &run};
        int rc = open_one(&cs[i], host, port, &o, &a, &run, err, sizeof err);
        if (rc && cli_sock_resource(rc, errno)) {
            for (size_t k = 0; k < i; k++)
                if (cs[k].s)
                    dw_sock_abort(cs[k].s);
            free(cs);
            close(run.ep);
            return cli_cannot("ddpwire load", "opening the connections", err);
        }
        if (rc) {
            if (no_connect++ < SHOW_MAX)
                fprintf(stderr, "ddpwire load: %s: connection %zu failed to connect: %s%s\n",
                        w.show, i, err, cli_errtag(rc));
            cs[i].done = cs[i].failed = 1, run.done++, run.failed++;
        }
    }
    const char *phase = "in MPA start-up";
    int stuck = run_until(cs, n, &run, is_ready, limit, t0);
    double t1 = cli_now();
    if (!stuck) {
        start_sending(cs, n);
        phase = "waiting for echoes";
        stuck = run_until(cs, n, &run, has_echoes, limit, t1);
    }
    if (!stuck && a.hold_ms) {
        printf("holding   %zu connections open and idle for %llu ms\n", n - run.done,
               (unsigned long long)a.hold_ms);
        fflush(stdout);
        for (double th = cli_now(); !cli_stdout_failed() && cli_now() - th < a.hold_ms / 1000.0;)
            loop_once(&run, 100); /* not held on after a line it could not write */
    }
    for (size_t i = 0; !stuck && i < n; i++)
        if (!cs[i].done && dw_sock_shutdown(cs[i].s))
            finish(&cs[i], 1, DW_ERR_IO);
    if (!stuck) {
        phase = "waiting for the listener's close";
        stuck = run_until(cs, n, &run, is_done, limit, cli_now());
    }
    double t2 = cli_now();
    if (run.res) {
        for (size_t i = 0; i < n; i++)
            if (cs[i].s)
                dw_sock_abort(cs[i].s);
        free(cs);
        close(run.ep);
        return cli_cannot("ddpwire load", "a connection", run.res);
    }
    report_failures(cs, n, no_connect, stuck ? phase : NULL, limit);
    printf("connections %llu opened in %.2f s, %zu completed, %zu failed, %llu unfinished\n",
           (unsigned long long)n, t1 - t0, run.done - run.failed, run.failed,
           (unsigned long long)(n - run.done));
    printf("records     %llu sent, %llu echoed and verified, %llu mismatched (%.2f s in all)\n",
           (unsigned long long)(n * run.m), (unsigned long long)run.verified,
           (unsigned long long)run.bad, t2 - t0);
    int ok = cs && run.done == n && !run.failed && run.verified == n * run.m && !run.bad;
    for (size_t i = 0; cs && i < n; i++)
        if (cs[i].s)
            dw_sock_abort(cs[i].s);
    free(cs);
    close(run.ep);
    printf("result      %s\n", ok ? "nothing lost" : "FAILED");
    return !ok;
}
