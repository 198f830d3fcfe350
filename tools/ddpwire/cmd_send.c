/* SPDX-License-Identifier: MIT */
/* ddpwire send: stdin or a file, cut into records, over MPA to a listener. */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define CHUNK (1u << 20)
#define BATCH_RECS 256
#define BATCH_OCTETS (256u << 10) /* then read what the peer sent */

static void help(void)
{
    printf("usage: ddpwire send HOST:PORT [FILE|-] [--record-size N] [--records-out FILE]\n"
           "                    [--framing mpa|ift] [--startup immediate|negotiate] [--mpa-rev 1|2] [--no-markers] [--no-crc]\n"
           "                    [--pack] [--timeout MS] [-s|--source ADDR] [-q|--quiet] [-v|--verbose]\n"
           "       ddpwire send HOST PORT [FILE|-] ...\n"
           "Connects to an MPA listener and sends the input, then closes and waits for\n"
           "the peer to close. Without --record-size the transport cuts the input: each\n"
           "FPDU fills EMSS exactly (MULPDU or a few octets more), many per write, so\n"
           "the kernel's TSO/GSO keeps every segment FPDU-aligned; --record-size N\n"
           "sends records of N octets, each FPDU its own record (MSG_EOR).\n"
           "HOST is a name, an IPv4 or IPv6 address ([V6]:PORT, or V6 PORT as netcat\n"
           "takes it); ports are 1 to 65535. -s connects from the local address ADDR.\n"
           "At the end it prints on stderr what was sent, in how long and at what\n"
           "rate (-q: not). Errors name the address or file and say what happened;\n"
           "-v adds the library's error name (DW_ERR_*).\n"
           "Records the peer sends meanwhile are verified and counted in the summary;\n"
           "--records-out writes them to FILE (- for stdout), each after its 2-octet\n"
           "big-endian length (as `listen --records`). When the peer breaks the\n"
           "connection, what it sent before is still read, and its MPA/IFT error code\n"
           "and stream offset are reported. Exit status: 0 when all was sent and the\n"
           "peer closed cleanly, 1 on a failure, 2 on a usage error.\n");
}

typedef struct sctx {
    int out; /* --records-out, or -1 */
    int werr, closed;
    int in_err; /* reading the input failed: its errno */
    const char *show, *in_name, *out_name; /* for messages */
    uint64_t sent; /* records */
    uint64_t n, bytes;
    dw_fr_error err;
    int failed;
} sctx;

static int on_record(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                     size_t len, uint64_t off, void *u)
{
    sctx *c = u;
    uint8_t h[2] = {(uint8_t)(len >> 8), (uint8_t)len};
    (void)rx, (void)hdr, (void)hlen, (void)off;
    if (c->out >= 0 && (cli_write_all(c->out, h, 2) || cli_write_all(c->out, d, len)))
        c->werr = errno ? errno : EIO;
    c->n++;
    c->bytes += len;
    return c->werr != 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    sctx *c = u;
    (void)rx;
    c->err = *e;
    c->failed = 1;
}

/* One read that cannot block (data, FIN or an error is waiting). */
static int read_once(dw_sock *s, sctx *c, int *e)
{
    ssize_t r = dw_sock_recv(s);
    *e = errno;
    if (r == DW_ERR_CLOSED) /* the peer is done sending; we may not be */
        c->closed = 1;
    return c->werr ? DW_ERR_IO : r < 0 && !c->closed ? (int)r : 0;
}

/* Processes what the peer has sent so far without waiting for more. */
static int read_ready(dw_sock *s, sctx *c, int *e)
{
    struct pollfd p = {dw_sock_fd(s), POLLIN, 0};
    int rc = 0;
    while (!rc && !c->closed && poll(&p, 1, 0) > 0)
        rc = read_once(s, c, e);
    return rc;
}

/* Reads until the peer's close: 0, or why the stream did not end cleanly. */
static int read_to_end(dw_sock *s, sctx *c, int *e)
{
    int rc = 0;
    while (!rc && !c->closed)
        rc = read_once(s, c, e);
    return rc;
}

/* Sends buf[0..n) as records of at most rs octets, in batches, reading
 * what the peer sent between them (an echoing peer never waits on us). */
static int send_chunk(dw_sock *s, sctx *c, const uint8_t *buf, size_t n, size_t rs, int *se,
                      int *rx, int *re)
{
    struct iovec v[BATCH_RECS];
    size_t k = 0, octets = 0;
    for (size_t at = 0; at < n; at += rs) {
        v[k] = (struct iovec){(void *)(buf + at), n - at < rs ? n - at : rs};
        octets += v[k++].iov_len;
        if (k == BATCH_RECS || octets >= BATCH_OCTETS || at + rs >= n) {
            int rc = dw_sock_sendv(s, v, k);
            c->sent += rc ? 0 : k;
            if (rc) {
                *se = errno;
                return rc;
            }
            k = 0, octets = 0;
            if ((*rx = read_ready(s, c, re)))
                return 0;
        }
    }
    return 0;
}

/* The peer went away while we were sending or shutting down. */
static int peer_gone(int rc, int e)
{
    return rc == DW_ERR_IO && (e == EPIPE || e == ENOTCONN || e == ECONNRESET);
}

static const char *why(int rc, int e)
{
    return rc == DW_ERR_IO ? strerror(e) : dw_strerror(rc);
}

/* One line naming the first real cause: an enablement error, the peer's
 * protocol error, our send's failure, then how the stream ended. */
static void report(const sctx *c, const dw_sock_settings *o, int sent_rc, int se, int rx_rc, int re)
{
    const char *hint = " (did the listener refuse? both ends need the same --startup)";
    const char *at = c->show, *fr = o->framing == DW_FRAMING_IFT ? "IFT" : "MPA";
    char after[96];
    snprintf(after, sizeof after, "; %llu records received", (unsigned long long)c->n);
    if (c->in_err) {
        fprintf(stderr, "ddpwire send: cannot read %s: %s%s%s\n", c->in_name,
                strerror(c->in_err), cli_errtag(DW_ERR_IO), after);
    } else if (c->werr) {
        fprintf(stderr, "ddpwire send: cannot write %s: %s%s%s\n", c->out_name,
                strerror(c->werr), cli_errtag(DW_ERR_IO), after);
    } else if (rx_rc == DW_ERR_ENABLEMENT) { /* the first frame, judged by the library */
        fprintf(stderr, "ddpwire send: %s: enablement error: %s (not %s, or another --startup?)"
                        "%s%s%s\n",
                at, dw_strerror(rx_rc), fr, c->failed ? ": " : "",
                c->failed ? dw_fr_error_str(&c->err) : "", cli_errtag(rx_rc));
    } else if (c->failed && (c->err.code != DW_MPA_ERR_CLOSED || !c->err.clean)) {
        fprintf(stderr, "ddpwire send: %s: %s at stream offset %llu%s%s%s%s\n", at,
                dw_fr_error_str(&c->err), (unsigned long long)c->err.offset,
                cli_errtag(DW_ERR_PROTO), after, sent_rc ? "; sending stopped: " : "",
                sent_rc ? why(sent_rc, se) : "");
    } else if (peer_gone(sent_rc, se)) {
        int reset = se == ECONNRESET || (c->failed && c->err.reason == DW_CLOSE_RST);
        fprintf(stderr, "ddpwire send: %s: the peer %s the connection before our orderly "
                        "close: %s%s%s%s\n",
                at, reset ? "reset" : "closed", reset ? strerror(ECONNRESET) : strerror(se),
                cli_errtag(sent_rc), after, c->n ? "" : hint);
    } else if (sent_rc) {
        fprintf(stderr, "ddpwire send: %s: %s%s%s\n", at, why(sent_rc, se),
                cli_errtag(sent_rc), after);
    } else if (rx_rc == DW_ERR_PROTO && c->failed) {
        static const char *how[] = {"closed", "reset", "timed out", "lost"};
        fprintf(stderr, "ddpwire send: %s: the connection ended: the peer %s it (%s)%s%s%s\n",
                at, how[c->err.reason & 3], dw_fr_error_str(&c->err), cli_errtag(rx_rc), after,
                c->n ? "" : hint);
    } else {
        fprintf(stderr, "ddpwire send: %s: %s%s%s%s\n", at, why(rx_rc, re), cli_errtag(rx_rc),
                after, rx_rc == DW_ERR_IO ? hint : "");
    }
}

static int open_out(const char *path)
{
    if (!strcmp(path, "-"))
        return STDOUT_FILENO;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        fprintf(stderr, "ddpwire send: cannot write %s: %s\n", path, strerror(errno));
    return fd;
}

/* Sends buf[0..n) cut by the transport (exact-fill records, many per
 * write), 256 KiB at a time, reading what the peer sent between them.
 * With more, a last piece shorter than a record is kept: returns the
 * octets sent, or a DW_ERR_*. */
static ssize_t send_stream(dw_sock *s, sctx *c, const uint8_t *buf, size_t n, int more,
                           int *se, int *rx, int *re)
{
    size_t at = 0;
    while (at < n) {
        size_t piece = n - at < BATCH_OCTETS ? n - at : BATCH_OCTETS;
        int last = !more && at + piece == n;
        size_t k = 0;
        ssize_t r = dw_sock_send_stream(s, buf + at, piece, !last, &k);
        c->sent += k;
        if (r < 0) {
            *se = errno;
            return r;
        }
        at += (size_t)r;
        if ((*rx = read_ready(s, c, re)))
            return (ssize_t)at;
        if (r == 0 && piece == n - at)
            break; /* less than one record: wait for more input */
    }
    return (ssize_t)at;
}

/* Sends the input; the send failure (if any) in *se, the read's in *rx.
 * rec 0: records cut by the transport (send_stream). */
static int send_input(dw_sock *s, sctx *c, int in, size_t rec, uint64_t *total, int *se,
                      int *rx, int *re)
{
    uint8_t *buf = malloc(CHUNK);
    int rc = buf ? 0 : DW_ERR_NOMEM;
    size_t fill = 0; /* a partial record waits for the next read */
    ssize_t n = 1;
    while (!rc && !*rx && n > 0) {
        n = cli_read_some(in, buf + fill, CHUNK - fill);
        if (n < 0) {
            *se = c->in_err = errno;
            rc = DW_ERR_IO;
            break;
        }
        fill += (size_t)n;
        *total += (uint64_t)n;
        size_t whole = !rec ? 0 : n ? fill / rec * rec : fill; /* at EOF: the rest too */
        if (!rec) {
            ssize_t r = send_stream(s, c, buf, fill, n != 0, se, rx, re);
            rc = r < 0 ? (int)r : 0;
            whole = r < 0 ? 0 : (size_t)r;
        } else {
            rc = send_chunk(s, c, buf, whole, rec, se, rx, re);
        }
        memmove(buf, buf + whole, fill - whole);
        fill -= whole;
    }
    free(buf);
    return rc;
}

typedef struct send_args {
    const char *pos[3]; /* HOST:PORT [FILE], or HOST PORT [FILE] */
    const char *recs, *source;
    uint64_t rs;
    int quiet;
    dw_sock_settings o;
} send_args;

/* The arguments: CLI_GO, or the exit status. */
static int parse(int argc, char **argv, send_args *g, cli_where *w, const char **file)
{
    const cli_opt t[] = {
        CLI_U64("--record-size", &g->rs, 1, DW_MPA_ULPDU_MAX),
        CLI_STR("--records-out", &g->recs, "a FILE"),
        CLI_STR("-s", &g->source, "a local ADDR"),
        CLI_STR("--source", &g->source, "a local ADDR"),
        CLI_FLAG("-q", &g->quiet),
        CLI_FLAG("--quiet", &g->quiet),
        CLI_COUNT("-v", &cli_verbose),
        CLI_COUNT("--verbose", &cli_verbose),
        CLI_ARG(&g->pos[0]),
        CLI_ARG(&g->pos[1]),
        CLI_ARG(&g->pos[2]),
    };
    dw_sock_settings_default(&g->o);
    int r = cli_parse(argc, argv, "ddpwire send", help, t, CLI_N(t), cli_sock_option, &g->o);
    if (r != CLI_GO)
        return r;
    int used = cli_where_parse("ddpwire send", g->pos, 3, NULL, 1, w);
    if (used < 0)
        return 2;
    *file = used < 3 ? g->pos[used] : NULL;
    r = cli_extra("ddpwire send", g->pos, 3, used + (*file != NULL));
    g->o.local_addr = g->source;
    return r;
}

/* The success line: what was sent, in how long, at what rate. */
static void summary(const sctx *c, const dw_sock_settings *o, const dw_sock_info *info,
                    uint64_t total, size_t rec, double secs)
{
    char rate[64], how[64];
    if (rec)
        snprintf(how, sizeof how, "of up to %zu", rec);
    else
        snprintf(how, sizeof how, "filling EMSS (MULPDU %u)", info->mulpdu);
    fprintf(stderr,
            "ddpwire send: %llu octets in %llu records %s (EMSS %u, %s, markers %s), "
            "%s; %llu records (%llu octets) received\n",
            (unsigned long long)total, (unsigned long long)c->sent, how, info->emss,
            o->startup == DW_SOCK_NEGOTIATE ? "negotiated" : "immediate",
            info->tx_markers ? "on" : "off", cli_rate(rate, sizeof rate, total, secs),
            (unsigned long long)c->n, (unsigned long long)c->bytes);
}

int cmd_send(int argc, char **argv)
{
    send_args g = {0};
    cli_where w;
    const char *file = NULL;
    int r = parse(argc, argv, &g, &w, &file);
    if (r != CLI_GO)
        return r;
    dw_sock_settings o = g.o;
    char err[256];
    sctx c = {.out = -1, .show = w.show, .in_name = file, .out_name = g.recs};
    if (g.recs && !strcmp(g.recs, "-"))
        c.out_name = "standard output";
    if (g.recs && (c.out = open_out(g.recs)) < 0)
        return 1;
    int in = file && strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
    if (in < 0) {
        fprintf(stderr, "ddpwire send: cannot open %s: %s\n", file, strerror(errno));
        return 1;
    }
    if (in == STDIN_FILENO)
        c.in_name = "standard input";
    o.cb = (dw_fr_rx_callbacks){on_record, on_error, NULL};
    o.user_data = &c;
    if (!g.rs) /* scratch for a whole write of exact-fill FPDUs (256 KiB) */
        o.tx_scratch = BATCH_OCTETS + 2048;
    dw_sock *s;
    int rc = dw_sock_connect(&s, w.host, w.port, &o, err, sizeof err);
    if (rc && cli_sock_resource(rc, errno))
        return cli_cannot("ddpwire send", w.show, err);
    if (rc) {
        fprintf(stderr, "ddpwire send: %s%s%s: %s%s\n", w.show, o.local_addr ? " from " : "",
                o.local_addr ? o.local_addr : "", err, cli_errtag(rc));
        return 1;
    }
    double t0 = cli_now();
    dw_sock_info info;
    dw_sock_info_get(s, &info);
    size_t rec = (size_t)g.rs; /* 0: the transport cuts (exact fill) */
    uint64_t total = 0;
    int se = 0, re = 0, rx = 0;
    rc = send_input(s, &c, in, rec, &total, &se, &rx, &re);
    if (!rc && !rx && dw_sock_shutdown(s)) {
        rc = DW_ERR_IO;
        se = errno;
    }
    /* also after a reset: the peer's records and the error explaining it */
    if (!rx && (!rc || peer_gone(rc, se)))
        rx = read_to_end(s, &c, &re);
    if (c.in_err)
        dw_sock_abort(s); /* the input is cut: the peer must not take it as all */
    else
        dw_sock_close(s);
    double secs = cli_now() - t0;
    if (c.out > STDOUT_FILENO && close(c.out) && !c.werr)
        c.werr = errno;
    if (rc || rx || c.werr) {
        int res = cli_errno_resource(c.werr) || cli_errno_resource(c.in_err) ||
                  (!c.werr && !c.in_err && (cli_sock_resource(rc, se) || cli_sock_resource(rx, re)));
        if (res)
            fprintf(stderr, "ddpwire send: could not complete: %s\n",
                    c.werr ? "writing the records received" : c.in_err ? "reading the input"
                                                             : "out of memory or I/O resources");
        report(&c, &o, rc, se, rx, re);
        return res ? CLI_EXIT_RESOURCE : 1;
    }
    if (!g.quiet)
        summary(&c, &o, &info, total, rec, secs);
    return 0;
}
