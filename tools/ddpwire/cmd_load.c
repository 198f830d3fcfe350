/* SPDX-License-Identifier: MIT */
/*
 * ddpwire load: many concurrent MPA connections against a listener started
 * with `ddpwire listen PORT --keep-open --echo`, all open at once. Phases:
 * open every connection (and finish its start-up), send every
 * connection's records, wait until every echoed record is verified, then
 * close every connection and wait for the listener's closes. One epoll
 * loop drives them all.
 */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define POOL 65536

static uint8_t pool[POOL + DW_MPA_ULPDU_MAX];

static void help(void)
{
    printf("usage: ddpwire load HOST:PORT [--connections N] [--records M] [--record-size S]\n"
           "                    [--framing mpa|ift] [--startup immediate|negotiate] [--no-markers] [--no-crc] [--timeout MS]\n"
           "Opens N connections (default 1000) to `ddpwire listen PORT --keep-open --echo`,\n"
           "sends M records of S octets on each (default 5 of 100), verifies every echoed\n"
           "record, and reports; the first failed connections' causes go to stderr (the\n"
           "DW_ERR_*, the MPA/IFT error code and offset). Exit status 0 only if every\n"
           "record came back intact, 1 otherwise, 2 on a usage error.\n");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct lconn {
    dw_sock *s;
    size_t id, sent, got, bad;
    int done, failed;
    struct lrun *run;
    int why, err_no, has_err; /* the DW_ERR_* that ended it, errno */
    dw_fr_error err;          /* the MPA/IFT error reported, if any */
} lconn;

#define SHOW_MAX 5 /* failures described on stderr */

typedef struct lrun {
    uint64_t m, size;
    size_t done, failed;
    uint64_t verified, bad;
} lrun;

static const uint8_t *rec_data(size_t id, size_t j)
{
    return pool + (id * 7919 + j * 104729) % POOL;
}

static int on_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                    uint64_t off, void *u)
{
    (void)hdr, (void)hlen;
    lconn *c = u;
    (void)rx, (void)off;
    int ok = len == c->run->size && !memcmp(d, rec_data(c->id, c->got), len);
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
    fprintf(stderr, "ddpwire load: connection %zu failed %s: %s (%s)%s; %zu of %llu echoes, "
                    "%zu mismatched\n",
            c->id, what, c->why == DW_ERR_IO ? strerror(c->err_no) : dw_strerror(c->why),
            dw_err_name(c->why), mpa, c->got, (unsigned long long)c->run->m, c->bad);
}

/* Ends connection c; why is 0 or the DW_ERR_* that ended it. */
static void finish(int ep, lconn *c, int failed, int why)
{
    c->why = why;
    c->err_no = errno;
    epoll_ctl(ep, EPOLL_CTL_DEL, dw_sock_fd(c->s), NULL);
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

/* Sends the connection's records (it is in MPA mode): 0 or a DW_ERR_*. */
static int send_all(lconn *c)
{
    for (; c->sent < c->run->m; c->sent++) {
        int rc = dw_sock_send(c->s, rec_data(c->id, c->sent), c->run->size);
        if (rc)
            return rc;
    }
    return 0;
}

static void on_input(int ep, lconn *c)
{
    ssize_t r;
    while ((r = dw_sock_recv(c->s)) > 0)
        ;
    if (r == 0)
        return;
    finish(ep, c, r != DW_ERR_CLOSED || c->got != c->run->m || c->bad, (int)r);
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

/* Runs the epoll loop until every connection passes the phase test. */
static int run_until(int ep, lconn *cs, size_t n, lrun *run, phase_done ok, double limit,
                     double t0)
{
    struct epoll_event ev[256];
    size_t i = 0;
    for (;;) {
        while (i < n && ok(&cs[i], run))
            i++;
        if (i == n)
            return 0;
        if (now() - t0 > limit)
            return -1;
        int k = epoll_wait(ep, ev, 256, 200);
        for (int j = 0; j < k; j++)
            on_input(ep, ev[j].data.ptr);
    }
}

/* The first failed (or, after the time limit, unfinished) connections. */
static void report_failures(const lconn *cs, size_t n, size_t connect_failed, const char *stuck,
                            double limit)
{
    size_t shown = connect_failed < SHOW_MAX ? connect_failed : SHOW_MAX, late = 0;
    for (size_t i = 0; cs && i < n && shown < SHOW_MAX; i++)
        if (cs[i].failed && cs[i].s == NULL && cs[i].why)
            describe(&cs[i], "while running"), shown++;
    for (size_t i = 0; cs && stuck && i < n; i++)
        if (!cs[i].done && late++ < SHOW_MAX)
            fprintf(stderr, "ddpwire load: connection %zu unfinished after %.0f s %s (timed "
                            "out, DW_ERR_TIMEOUT; --timeout sets the limit): %zu of %llu echoes\n",
                    cs[i].id, limit, stuck, cs[i].got, (unsigned long long)cs[i].run->m);
}

int cmd_load(int argc, char **argv)
{
    dw_sock_opts o;
    uint64_t n = 1000;
    lrun run = {5, 100, 0, 0, 0, 0};
    const char *where = NULL;
    dw_sock_opts_default(&o);
    const cli_opt t[] = {
        CLI_U64("--connections", &n, 1, 1000000),
        CLI_U64("--records", &run.m, 1, 1000000),
        CLI_U64("--record-size", &run.size, 1, DW_MPA_ULPDU_MAX),
        CLI_ARG(&where),
    };
    int r = cli_parse(argc, argv, "ddpwire load", help, t, CLI_N(t), cli_sock_option, &o);
    if (r != CLI_GO)
        return r;
    char host[256], port[32], err[256];
    if (!where || cli_hostport(where, host, sizeof host, port, sizeof port) || !host[0]) {
        fprintf(stderr, "ddpwire load: give HOST:PORT\n");
        return 2;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)(i * 2654435761u >> 13);
    lconn *cs = calloc(n, sizeof *cs);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    o.nonblocking = 1;
    o.cb = (dw_fr_rx_callbacks){on_ulpdu, on_error, NULL};
    double t0 = now();
    size_t no_connect = 0;
    for (size_t i = 0; cs && i < n; i++) {
        cs[i] = (lconn){.id = i, .run = &run};
        o.user_data = &cs[i];
        int rc = dw_sock_connect(&cs[i].s, host, port, &o, err, sizeof err);
        if (rc) {
            if (no_connect++ < SHOW_MAX)
                fprintf(stderr, "ddpwire load: connection %zu failed to connect: %s (%s)\n", i,
                        err, dw_err_name(rc));
            cs[i].done = cs[i].failed = 1, run.done++, run.failed++;
            continue;
        }
        struct epoll_event e = {EPOLLIN, {.ptr = &cs[i]}};
        epoll_ctl(ep, EPOLL_CTL_ADD, dw_sock_fd(cs[i].s), &e);
    }
    double t1 = now(), limit = o.timeout_ms > 0 ? o.timeout_ms / 1000.0 : 60;
    /* every connection open at once: start-up, records, echoes, close */
    const char *phase = "in MPA start-up";
    int rc;
    int stuck = run_until(ep, cs, n, &run, is_ready, limit, t1);
    for (size_t i = 0; !stuck && i < n; i++)
        if (!cs[i].done && (rc = send_all(&cs[i])))
            finish(ep, &cs[i], 1, rc);
    if (!stuck) {
        phase = "waiting for echoes";
        stuck = run_until(ep, cs, n, &run, has_echoes, limit, t1);
    }
    for (size_t i = 0; !stuck && i < n; i++)
        if (!cs[i].done && dw_sock_shutdown(cs[i].s))
            finish(ep, &cs[i], 1, DW_ERR_IO);
    if (!stuck) {
        phase = "waiting for the listener's close";
        stuck = run_until(ep, cs, n, &run, is_done, limit, t1);
    }
    double t2 = now();
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
    close(ep);
    printf("result      %s\n", ok ? "nothing lost" : "FAILED");
    return !ok;
}
