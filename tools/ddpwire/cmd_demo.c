/* SPDX-License-Identifier: MIT */
/*
 * ddpwire demo: the main job. A listener on loopback and a client in one
 * process; the client sends a generated workload of records of varied
 * sizes over MPA (real TCP), the listener verifies every record as it
 * arrives; progress, then a summary. --offline runs the socket-free round
 * trip instead (demo_offline.c).
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa_sock.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

int demo_offline(int argc, char **argv);

#define POOL (1u << 20) /* record contents are slices of this */
#define BATCH 64

static void help(void)
{
    printf("usage: ddpwire demo [--bytes N] [--record-size N] [--startup immediate|negotiate]\n"
           "                    [--framing mpa|ift] [--no-markers] [--no-crc] [--pack] [--seed N]\n"
           "       ddpwire demo --offline ...   (no sockets; see --offline --help)\n"
           "Starts an MPA (or IFT) listener on loopback and a client, sends N octets (default\n"
           "512M) of records (sizes 1..64768, mostly up to MULPDU, unless\n"
           "--record-size), verifies every record on receipt, and prints a summary.\n");
}

typedef struct plan { /* the workload both ends derive from the seed */
    uint64_t seed;
    uint64_t fixed;
    uint32_t mulpdu;
    const uint8_t *pool;
} plan;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Record i: its length and where its contents start in the pool. */
static size_t next_rec(const plan *p, uint64_t *s, size_t *at)
{
    uint64_t r = rnd(s);
    size_t len = p->fixed ? (size_t)p->fixed
                 : r % 10 < 3 ? 1 + (size_t)(r >> 8) % 256
                 : r % 10 < 9 ? 1 + (size_t)(r >> 8) % p->mulpdu
                              : 1 + (size_t)(r >> 8) % DW_MPA_ULPDU_MAX;
    *at = (size_t)(r >> 32) % (POOL - len);
    return len;
}

typedef struct server {
    plan p;
    uint64_t s;   /* the receiver's copy of the sequence */
    int lfd;
    dw_sock_settings o;
    uint64_t records, bytes, bad, crc_errors, mpa_errors;
    int rc;
    ssize_t end;
    char err[256];
} server;

static int on_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                    uint64_t off, void *u)
{
    (void)hdr, (void)hlen;
    server *v = u;
    size_t at, want = next_rec(&v->p, &v->s, &at);
    (void)rx, (void)off;
    v->bad += want != len || memcmp(v->p.pool + at, d, len) != 0;
    v->records++;
    v->bytes += len;
    return 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    server *v = u;
    (void)rx;
    v->mpa_errors += e->code != DW_MPA_ERR_CLOSED || !e->clean;
    v->crc_errors += e->code == DW_MPA_ERR_CRC ||
                     (e->framing == DW_FRAMING_IFT && e->code == DW_IFT_ERR_PAYLOAD_CRC);
}

static void *serve(void *arg)
{
    server *v = arg;
    dw_sock *c;
    v->rc = dw_sock_accept(&c, v->lfd, &v->o, v->err, sizeof v->err);
    if (v->rc)
        return NULL;
    while ((v->end = dw_sock_recv(c)) > 0)
        ;
    dw_sock_close(c);
    return NULL;
}

/* Sends records until total octets; returns 0 or a DW_ERR_*. */
static int client_send(dw_sock *c, plan *p, uint64_t total, uint64_t *sent_recs)
{
    struct iovec v[BATCH];
    uint64_t s = p->seed, sent = 0, recs = 0;
    int tty = isatty(STDERR_FILENO);
    double t0 = cli_now(), shown = t0;
    while (sent < total) {
        size_t n = 0;
        for (; n < BATCH && sent < total; n++) {
            size_t at, len = next_rec(p, &s, &at);
            v[n] = (struct iovec){(void *)(p->pool + at), len};
            sent += len;
        }
        int rc = dw_sock_sendv(c, v, n);
        if (rc)
            return rc;
        recs += n;
        if (tty && cli_now() - shown > 0.25) {
            shown = cli_now();
            fprintf(stderr, "\r  sent %llu records, %.0f MB, %.2f GB/s ...",
                    (unsigned long long)recs, sent / 1e6, sent / (shown - t0) / 1e9);
        }
    }
    if (tty)
        fprintf(stderr, "\n");
    *sent_recs = recs;
    return 0;
}

int cmd_demo(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--offline"))
            return demo_offline(argc, argv);
    dw_sock_settings o;
    uint64_t total = 512u << 20;
    static server v; /* large counters, shared with the thread */
    plan p = {1, 0, 0, NULL};
    dw_sock_settings_default(&o);
    const cli_opt opt[] = {
        CLI_U64("--bytes", &total, 1, 1ull << 40),
        CLI_U64("--record-size", &p.fixed, 1, DW_MPA_ULPDU_MAX),
        CLI_U64("--seed", &p.seed, 1, UINT64_MAX),
    };
    int pr = cli_parse(argc, argv, "ddpwire demo", help, opt, CLI_N(opt), cli_sock_option, &o);
    if (pr == CLI_GO)
        pr = cli_sock_valid("ddpwire demo", &o);
    if (pr != CLI_GO)
        return pr;
    uint8_t *pool = malloc(POOL);
    if (!pool)
        return cli_nomem("ddpwire demo", "the record pool");
    uint64_t g = 12345;
    for (size_t i = 0; i < POOL; i += 8) {
        uint64_t x = rnd(&g);
        memcpy(pool + i, &x, 8);
    }
    p.pool = pool;
    char err[256];
    int lr = dw_sock_listen(&v.lfd, "127.0.0.1", "0", err, sizeof err);
    if (lr) {
        free(pool);
        if (cli_sock_resource(lr, errno))
            return cli_cannot("ddpwire demo", "listening", err);
        fprintf(stderr, "ddpwire demo: %s\n", err);
        return 1;
    }
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    getsockname(v.lfd, (struct sockaddr *)&a, &al);
    char port[16];
    snprintf(port, sizeof port, "%u", ntohs(a.sin_port));

    dw_sock *c;
    dw_sock_settings co = o;
    co.cb = (dw_fr_rx_callbacks){on_ulpdu, NULL, NULL}; /* nothing comes back */
    v.o = o;
    v.o.cb = (dw_fr_rx_callbacks){on_ulpdu, on_error, NULL};
    v.o.user_data = &v;
    v.o.timeout_ms = 0;
    pthread_t t;
    if (pthread_create(&t, NULL, serve, &v)) {
        close(v.lfd);
        free(pool);
        return cli_nomem("ddpwire demo", "the listener's thread");
    }
    int cr = dw_sock_connect(&c, "127.0.0.1", port, &co, err, sizeof err);
    if (cr) {
        int ce = errno;
        shutdown(v.lfd, SHUT_RDWR); /* the listener's accept, if waiting, fails */
        pthread_join(t, NULL);
        close(v.lfd);
        free(pool);
        if (cli_sock_resource(cr, ce))
            return cli_cannot("ddpwire demo", "connecting", err);
        fprintf(stderr, "ddpwire demo: %s\n", err);
        return 1;
    }
    dw_sock_info info;
    dw_sock_info_get(c, &info);
    p.mulpdu = info.mulpdu;
    v.p = p;
    v.s = p.seed;
    printf("ddpwire demo: %s over loopback TCP port %s, %s start-up, markers %s, CRC %s, "
           "%s segments, EMSS %u, %s %u, CRC32c path %s\n",
           o.framing == DW_FRAMING_IFT ? "IFT" : "MPA", port,
           o.startup == DW_SOCK_NEGOTIATE ? "negotiated (RFC 5044)" : "immediate",
           info.tx_markers ? "on" : "off", info.crc ? "on" : "off",
           o.seg_mode == DW_MPA_SEG_PACKED ? "packed" : "aligned", info.emss,
           o.framing == DW_FRAMING_IFT ? "largest record" : "MULPDU", info.mulpdu,
           dw_crc32c_impl_name(dw_crc32c_impl_get()));
    double t0 = cli_now();
    uint64_t recs = 0;
    int rc = client_send(c, &p, total, &recs);
    if (!rc)
        rc = dw_sock_shutdown(c);
    while (!rc && dw_sock_recv(c) > 0) /* until the listener closes */
        ;
    double el = cli_now() - t0;
    dw_sock_close(c);
    pthread_join(t, NULL);
    close(v.lfd);
    if (rc == DW_ERR_NOMEM || v.rc == DW_ERR_NOMEM || v.end == DW_ERR_NOMEM) {
        free(pool);
        return cli_nomem("ddpwire demo", rc == DW_ERR_NOMEM ? "sending" : "the listener");
    }
    int ok = !rc && !v.rc && v.end == DW_ERR_CLOSED && v.records == recs && !v.bad &&
             !v.mpa_errors;
    printf("records     %llu sent, %llu received and verified, %llu mismatched\n",
           (unsigned long long)recs, (unsigned long long)v.records,
           (unsigned long long)v.bad);
    printf("octets      %llu of records\n", (unsigned long long)v.bytes);
    printf("throughput  %.2f GB/s (%.1f Gbit/s) of records, %.2f s\n", v.bytes / el / 1e9,
           v.bytes * 8 / el / 1e9, el);
    printf("errors      %llu CRC errors, %llu %s errors%s%s\n",
           (unsigned long long)v.crc_errors, (unsigned long long)v.mpa_errors,
           o.framing == DW_FRAMING_IFT ? "IFT" : "MPA",
           v.rc ? "; listener: " : "", v.rc ? v.err : "");
    printf("result      %s\n", ok ? "all records verified" : "FAILED");
    free(pool);
    return !ok;
}
