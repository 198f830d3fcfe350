/* SPDX-License-Identifier: MIT */
/* ddpwire perf: throughput between two hosts, as iperf3 measures it, over
 * MPA, IFT or plain TCP (the baseline), with CPU and TCP's retransmissions. */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_rec.h"
#include "tcp_stats.h"

#define BATCH (256u << 10) /* octets per send call (and per read) */

static void help(void)
{
    printf("usage: ddpwire perf -s [ADDR:]PORT [--once] [OPTIONS]\n"
           "       ddpwire perf -c HOST:PORT [-t SECONDS] [-i SECONDS] [OPTIONS]\n"
           "OPTIONS: [--plain] [--json] [--framing mpa|ift] [--startup immediate|negotiate]\n"
           "         [--no-markers] [--no-crc] [--pack] [--record-size N] [--timeout MS]\n"
           "         [-C|--congestion NAME]\n"
           "Measures throughput between two hosts, as iperf3 does. The server (-s)\n"
           "accepts one test after another (--once: one) and reports each: octets,\n"
           "records (FPDUs) received, MPA/IFT errors by kind (CRC, marker, other),\n"
           "Gbit/s. The client (-c) sends for -t seconds (10) and reports every -i\n"
           "seconds (1; 0: none) and in total: Gbit/s, records sent, TCP's\n"
           "retransmissions (TCP_INFO); the total counts until the server has closed,\n"
           "so all was delivered. Both report their CPU time (user, system) and the\n"
           "host's softirq time over the test (all CPUs, /proc/stat). Data is sent as\n"
           "`ddpwire send` sends a file: records cut by the transport at the exact\n"
           "fill (every FPDU EMSS octets, many per write); --record-size N: records of\n"
           "N octets instead, 64 per dw_sock_sendv (aligned: each FPDU its own\n"
           "message; --pack: FPDUs grouped up to EMSS). --plain: plain TCP, the\n"
           "same writes of 256 KiB without any framing (the baseline); both ends must\n"
           "be given the same framing options. -C NAME: TCP's congestion control on\n"
           "this end's socket (TCP_CONGESTION; the sender's is the one that counts),\n"
           "as iperf3 -C; the client's total names the one its socket ran with.\n"
           "--json: one JSON object per line.\n"
           "Exit status: 0, 1 on a failure (connection, protocol error), 2 on a usage\n"
           "error, 5 when it could not complete (out of memory or descriptors, a\n"
           "report that could not be written: the server stops then, --once or not).\n");
}

typedef struct perf {
    int server, once, plain, json;
    const char *where;
    uint32_t secs, ival;
    uint64_t rec_size; /* 0: the exact fill (dw_sock_send_stream) */
    const char *cc;    /* TCP_CONGESTION, NULL: the host's default */
    dw_sock_settings o;
    /* server counters */
    uint64_t rx_octets, rx_recs;
    int failed;
    dw_fr_error err;
} perf;

typedef struct cpu {
    double user, sys, softirq;
} cpu;

/* This process's CPU time and the host's softirq time so far (seconds). */
static cpu cpu_now(void)
{
    cpu c = {0, 0, 0};
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        c.user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
        c.sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    }
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[7];
    if (f && fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                    &v[4], &v[5], &v[6]) == 7)
        c.softirq = (double)v[6] / (double)sysconf(_SC_CLK_TCK);
    if (f)
        fclose(f);
    return c;
}

static const char *mode_name(const perf *p)
{
    if (p->plain)
        return "plain";
    static char m[80];
    char rs[24] = "";
    if (p->rec_size)
        snprintf(rs, sizeof rs, "-rs%llu", (unsigned long long)p->rec_size);
    snprintf(m, sizeof m, "%s%s%s%s%s", p->o.framing == DW_FRAMING_IFT ? "ift" : "mpa",
             p->o.markers || p->o.framing == DW_FRAMING_IFT ? "" : "-nomarkers",
             p->o.crc ? "" : "-nocrc", p->o.seg_mode == DW_MPA_SEG_PACKED ? "-packed" : "", rs);
    return m;
}

/* The socket's congestion control, when one was asked for; 1 and a line
 * on stderr when the kernel refuses it (not built, not allowed). A
 * connecting socket takes it before the handshake: BBR, once run, leaves
 * its pacing on in the socket whatever follows it. */
static int set_cc(const perf *p, int fd)
{
    if (!p->cc || !setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->cc, (socklen_t)strlen(p->cc)))
        return 0;
    fprintf(stderr, "ddpwire perf: congestion control %s: %s\n", p->cc, strerror(errno));
    return 1;
}

/* The congestion control the socket runs with ("?" if unknown). */
static void cc_of(int fd, char *name, size_t n)
{
    socklen_t l = (socklen_t)(n - 1);
    memset(name, 0, n);
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &l) || !name[0])
        snprintf(name, n, "?");
}

/* ---- server ------------------------------------------------------------- */

static int on_pdu(dw_fr_rx *rx, const uint8_t *h, size_t hl, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    perf *p = u;
    (void)rx, (void)h, (void)hl, (void)d, (void)off;
    p->rx_octets += len, p->rx_recs++;
    return 0;
}

/* MPA: the same count from the pieces between the markers (the payload is
 * discarded, so no copy to strip them). */
static int on_pieces(dw_fr_rx *rx, const struct iovec *iov, int iovcnt, size_t len,
                     uint64_t off, void *u)
{
    perf *p = u;
    (void)rx, (void)iov, (void)iovcnt, (void)off;
    p->rx_octets += len, p->rx_recs++;
    return 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    perf *p = u;
    (void)rx;
    if (e->code != 1 || !e->clean)
        p->failed = 1, p->err = *e;
}

/* One plain connection: reads until the peer's FIN. */
static int serve_plain(int fd, perf *p)
{
    static uint8_t buf[BATCH];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0)
            p->rx_octets += (uint64_t)n;
    }
}

/* The CPU members of a record, and their text. */
static void cpu_members(cli_rec *r, cpu c)
{
    cli_rec_f(r, "cpu_user_seconds", "%.4f", c.user);
    cli_rec_f(r, "cpu_sys_seconds", "%.4f", c.sys);
    cli_rec_f(r, "host_softirq_seconds", "%.4f", c.softirq);
}

#define CPU_TEXT                                                                                  \
    "cpu user %{cpu_user_seconds:.2f} s sys %{cpu_sys_seconds:.2f} s, host softirq "              \
    "%{host_softirq_seconds:.2f} s"

static void server_report(perf *p, double secs, cpu c, int rc)
{
    int crc = p->failed && p->err.code == 2;
    int marker = p->failed && p->o.framing == DW_FRAMING_MPA && p->err.code == 3;
    int other = (p->failed && !crc && !marker) || rc;
    double gbps = secs > 0 ? (double)p->rx_octets * 8 / secs / 1e9 : 0;
    cli_rec r;
    cli_rec_init(&r, "server");
    cli_rec_str(&r, "mode", mode_name(p));
    cli_rec_u64(&r, "octets", p->rx_octets);
    cli_rec_u64(&r, "records", p->rx_recs);
    cli_rec_f(&r, "seconds", "%.6f", secs);
    cli_rec_f(&r, "gbit_per_second", "%.4f", gbps);
    cli_rec_i64(&r, "crc_errors", crc);
    cli_rec_i64(&r, "marker_errors", marker);
    cli_rec_i64(&r, "other_errors", other);
    cpu_members(&r, c);
    cli_rec_emit(stdout, p->json, &r,
                 "server %{mode}: %{octets} octets, %{records} records in %{seconds:.2f} s: "
                 "%{gbit_per_second:.3f} Gbit/s; errors: crc %{crc_errors}, marker "
                 "%{marker_errors}, other %{other_errors}; " CPU_TEXT "\n");
    fflush(stdout);
}

static int run_server(perf *p, const char *host, const char *port)
{
    char err[256];
    int lfd;
    int lr = dw_sock_listen(&lfd, host[0] ? host : NULL, port, err, sizeof err);
    if (lr) {
        if (cli_sock_resource(lr, errno))
            return cli_cannot("ddpwire perf", "listening", err);
        fprintf(stderr, "ddpwire perf: %s\n", err);
        return 1;
    }
    if (set_cc(p, lfd)) { /* accepted sockets inherit it */
        close(lfd);
        return 1;
    }
    p->o.cb = (dw_fr_rx_callbacks){on_pdu, on_error, NULL};
    p->o.user_data = p;
    p->o.rbuf_size = BATCH;
    int status = 0;
    do {
        p->rx_octets = p->rx_recs = 0, p->failed = 0;
        int rc = 0, fd = -1;
        dw_sock *s = NULL;
        if (p->plain) {
            while ((fd = accept(lfd, NULL, NULL)) < 0 && errno == EINTR)
                ;
            rc = fd < 0;
            if (rc && (cli_errno_resource(errno) || errno == ENOBUFS)) {
                status = cli_cannot("ddpwire perf", "accepting", strerror(errno));
                break;
            }
            if (rc)
                perror("ddpwire perf: accept");
        } else if ((rc = dw_sock_accept(&s, lfd, &p->o, err, sizeof err))) {
            if (cli_sock_resource(rc, errno)) {
                status = cli_cannot("ddpwire perf", "accepting", err);
                break;
            }
            fprintf(stderr, "ddpwire perf: %s (%s)\n", err, dw_err_name(rc));
        }
        if (rc) {
            status = 1;
            continue;
        }
        cpu c0 = cpu_now();
        double t0 = cli_now();
        if (p->plain) {
            rc = serve_plain(fd, p) ? DW_ERR_IO : 0;
            close(fd);
        } else {
            ssize_t r;
            if (p->o.framing == DW_FRAMING_MPA)
                dw_sock_set_iov_fn(s, on_pieces); /* 0: MPA, s open */
            while ((r = dw_sock_recv(s)) >= 0)
                ;
            int e = errno;
            rc = r == DW_ERR_CLOSED && !p->failed ? 0 : (int)r;
            if (rc && cli_sock_resource(rc, e)) {
                dw_sock_close(s);
                status = cli_cannot("ddpwire perf", "receiving",
                                    rc == DW_ERR_NOMEM ? "out of memory" : strerror(e));
                break;
            }
            if (rc && !p->failed)
                fprintf(stderr, "ddpwire perf: %s\n", dw_err_name(rc));
            dw_sock_close(s);
        }
        double secs = cli_now() - t0;
        cpu c1 = cpu_now();
        server_report(p, secs, (cpu){c1.user - c0.user, c1.sys - c0.sys, c1.softirq - c0.softirq},
                      rc && !p->failed);
        status |= rc != 0 || p->failed;
        /* the report not written (a full disk, a closed pipe): no more tests */
        if (cli_stdout_done("ddpwire perf")) {
            status = CLI_EXIT_RESOURCE;
            break;
        }
    } while (!p->once);
    close(lfd);
    return status;
}

/* ---- client ------------------------------------------------------------- */

static int connect_plain(const perf *p, const char *host, const char *port)
{
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res))
        return -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && set_cc(p, fd)) { /* before the handshake, as dw_sock does */
        close(fd);
        fd = -2;
    } else if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen)) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

typedef struct tally {
    double t;
    uint64_t octets, recs;
    uint32_t retrans;
} tally;

static void client_line(const perf *p, const char *type, tally a, tally b, cpu c,
                        const cli_tcp_stats *st, uint32_t emss, int fd)
{
    char cc[32];
    double secs = b.t - a.t, gbps = secs > 0 ? (double)(b.octets - a.octets) * 8 / secs / 1e9 : 0;
    int total = !strcmp(type, "total");
    cli_rec r;
    cli_rec_init(&r, type);
    cli_rec_str(&r, "mode", mode_name(p));
    cli_rec_f(&r, "seconds", "%.6f", secs);
    cli_rec_u64(&r, "octets", b.octets - a.octets);
    cli_rec_u64(&r, "records", b.recs - a.recs);
    cli_rec_f(&r, "gbit_per_second", "%.4f", gbps);
    cli_rec_u64(&r, "retrans", b.retrans - a.retrans);
    if (total) {
        cli_rec_u64(&r, "retrans_octets", st->bytes_retrans);
        cli_rec_u64(&r, "emss", emss);
        cli_rec_u64(&r, "rtt_microseconds", st->rtt_us);
        cc_of(fd, cc, sizeof cc);
        cli_rec_str(&r, "congestion", cc);
        cpu_members(&r, c);
    }
    cli_rec_f(&r, "from", NULL, a.t);
    cli_rec_hide(&r);
    cli_rec_f(&r, "to", NULL, b.t);
    cli_rec_hide(&r);
    cli_rec_emit(stdout, p->json, &r,
                 total ? "%{type:-8s} %{from:7.2f}-%{to:-7.2f} s %{octets:12u} octets "
                         "%{gbit_per_second:9.3f} Gbit/s %{records:9u} records %{retrans:6u} "
                         "retrans\n         %{mode}, EMSS %{emss}, %{congestion}; " CPU_TEXT "\n"
                       : "%{type:-8s} %{from:7.2f}-%{to:-7.2f} s %{octets:12u} octets "
                         "%{gbit_per_second:9.3f} Gbit/s %{records:9u} records %{retrans:6u} "
                         "retrans\n");
    fflush(stdout);
}

static int run_client(perf *p, const char *host, const char *port)
{
    static uint8_t buf[BATCH];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 131 + (i >> 9));
    char err[256];
    dw_sock *s = NULL;
    int fd;
    uint32_t emss = 0;
    if (p->plain) {
        fd = connect_plain(p, host, port);
        if (fd == -2)
            return 1;
        if (fd < 0) {
            fprintf(stderr, "ddpwire perf: connect %s:%s: %s\n", host, port, strerror(errno));
            return 1;
        }
    } else {
        p->o.tx_scratch = BATCH + 2048; /* a whole write of exact-fill FPDUs */
        p->o.cb = (dw_fr_rx_callbacks){on_pdu, on_error, NULL}; /* the server sends none */
        p->o.user_data = p;
        p->o.congestion = p->cc;
        int rc = dw_sock_connect(&s, host, port, &p->o, err, sizeof err);
        if (rc) {
            if (cli_sock_resource(rc, errno))
                return cli_cannot("ddpwire perf", "connecting", err);
            fprintf(stderr, "ddpwire perf: %s (%s)\n", err, dw_err_name(rc));
            return 1;
        }
        fd = dw_sock_fd(s);
        dw_sock_info info;
        dw_sock_info_get(s, &info);
        emss = info.emss;
    }
    cli_tcp_stats st;
    cpu c0 = cpu_now();
    tally start = {0, 0, 0, 0}, last, cur;
    double t0 = cli_now(), end = t0 + p->secs;
    last = cur = start;
    int rc = 0;
    while (!rc && cur.t < p->secs) {
        if (p->plain) {
            ssize_t n = write(fd, buf, sizeof buf);
            if (n < 0 && errno != EINTR)
                rc = DW_ERR_IO;
            cur.octets += n > 0 ? (uint64_t)n : 0;
        } else if (p->rec_size) {
            struct iovec v[64];
            size_t k = 0;
            for (size_t at = 0; k < 64 && at + p->rec_size <= sizeof buf; at += p->rec_size)
                v[k++] = (struct iovec){buf + at, (size_t)p->rec_size};
            rc = dw_sock_sendv(s, v, k);
            cur.octets += rc ? 0 : k * p->rec_size, cur.recs += rc ? 0 : k;
        } else {
            size_t k = 0;
            ssize_t r = dw_sock_send_stream(s, buf, sizeof buf, 1, &k);
            if (r < 0)
                rc = (int)r;
            cur.octets += r > 0 ? (uint64_t)r : 0, cur.recs += k;
        }
        cur.t = cli_now() - t0;
        if (p->ival && cur.t - last.t >= p->ival && cli_now() < end) {
            cli_tcp_stats_get(fd, &st);
            cur.retrans = st.total_retrans;
            client_line(p, "interval", last, cur, (cpu){0, 0, 0}, &st, emss, fd);
            last = cur;
        }
    }
    /* the end: FIN, then wait for the server's close (all delivered) */
    if (!rc) {
        if (p->plain) {
            shutdown(fd, SHUT_WR);
            while (read(fd, buf, sizeof buf) > 0)
                ;
        } else {
            rc = dw_sock_shutdown(s);
            ssize_t r = 0;
            while (!rc && (r = dw_sock_recv(s)) >= 0)
                ;
            rc = rc ? rc : r == DW_ERR_CLOSED ? 0 : (int)r;
        }
    }
    cur.t = cli_now() - t0;
    cpu c1 = cpu_now();
    cli_tcp_stats_get(fd, &st);
    cur.retrans = st.total_retrans;
    int res = rc && cli_sock_resource(rc, errno);
    if (res)
        cli_cannot("ddpwire perf", "sending", rc == DW_ERR_NOMEM ? "out of memory"
                                                                : strerror(errno));
    else if (rc)
        fprintf(stderr, "ddpwire perf: %s (%s)\n", dw_err_name(rc), strerror(errno));
    else
        client_line(p, "total", start, cur,
                    (cpu){c1.user - c0.user, c1.sys - c0.sys, c1.softirq - c0.softirq}, &st, emss,
                    fd);
    if (p->plain)
        close(fd);
    else
        dw_sock_close(s);
    return res ? CLI_EXIT_RESOURCE : rc != 0;
}

int cmd_perf(int argc, char **argv)
{
    static perf p;
    const char *client = NULL;
    p.secs = 10, p.ival = 1;
    dw_sock_settings_default(&p.o);
    const cli_opt t[] = {
        CLI_FLAG("-s", &p.server),
        CLI_FLAG("--server", &p.server),
        CLI_STR("-c", &client, "HOST:PORT"),
        CLI_STR("--client", &client, "HOST:PORT"),
        CLI_U32("-t", &p.secs, 1, 86400),
        CLI_U32("-i", &p.ival, 0, 86400),
        CLI_FLAG("--once", &p.once),
        CLI_FLAG("--plain", &p.plain),
        CLI_U64("--record-size", &p.rec_size, 1, 65535),
        CLI_FLAG("--json", &p.json),
        CLI_STR("-C", &p.cc, "NAME"),
        CLI_STR("--congestion", &p.cc, "NAME"),
        CLI_ARG(&p.where),
    };
    int r = cli_parse(argc, argv, "ddpwire perf", help, t, CLI_N(t), cli_sock_option, &p.o);
    if (r != CLI_GO)
        return r;
    if ((r = cli_sock_valid("ddpwire perf", &p.o)) != CLI_GO)
        return r;
    const char *where = client ? client : p.where;
    cli_where w;
    if (p.server == !!client || !where || (client && p.where)) {
        fprintf(stderr, "ddpwire perf: give -s [ADDR:]PORT or -c HOST:PORT\n");
        return 2;
    }
    if (cli_where_parse("ddpwire perf", &where, 1, NULL, client != NULL, &w) < 0)
        return 2;
    signal(SIGPIPE, SIG_IGN);
    return p.server ? run_server(&p, w.host, w.port) : run_client(&p, w.host, w.port);
}
