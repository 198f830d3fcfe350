/* SPDX-License-Identifier: MIT */
/*
 * ddpwire analyze align: the analysis text's section 7.2 (header alignment
 * effects on the TCP wire protocol).
 *
 * The claim: when every segment must carry whole FPDUs, the worst case is
 * FPDUs of EMSS/2 + 1 octets with several queued: one per segment, half
 * full, "approaching 2x" the segments plain TCP needs for the same octets;
 * bulk transfers of large messages and request/response see a marginal
 * cost at most.
 *
 * Each workload is sent twice with the same octets (FPDUs with markers and
 * CRC): through the MPA adapter in packed mode (whole FPDUs per segment,
 * as many as fit) and as a plain TCP byte stream that the kernel cuts
 * where it likes. Without --measure: the counts that rule gives; with
 * --measure (root): the segments in a capture between two namespaces.
 */
#include <ddpwire/ddp.h>
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_net.h"
#include "cli.h"
#include "svg.h"

enum { W_WORST, W_BULK, W_RR, W_N };
enum { NV = 256 }; /* records per message at most */
static const char *const wname[W_N] = {"worst case", "bulk", "request/response"};

typedef struct aopts {
    uint64_t emss, worst, bulk, rr, msg, req, resp;
    int measure;
    const char *svg;                      /* --svg FILE */
    double meas[W_N];                     /* measured MPA/TCP segments */
    uint32_t meas_emss;
} aopts;

/* One workload, as both sides see it. */
typedef struct acase {
    int work, plain;
    uint64_t count; /* FPDUs, messages or transactions */
    size_t msg, req, resp;
} acase;

typedef struct ares {
    int32_t rc;
    uint32_t emss;
    uint64_t ulpdus, octets, ns;
    uint64_t ctr0[AN_NCTR], ctr[AN_NCTR]; /* namespace TCP counters, before/after */
} ares;

static void help(void)
{
    printf("usage: ddpwire analyze align [--emss N] [--worst N] [--bulk N] [--rr N]\n"
           "         [--msg N] [--req N] [--resp N] [--measure] [--svg FILE]\n"
           "The analysis text's section 7.2: segments when every segment must hold\n"
           "whole FPDUs (MPA packed mode) versus plain TCP carrying the same octets.\n"
           "Worst case: --worst FPDUs (default 2000) of EMSS/2 + 1 octets (rounded up\n"
           "to a multiple of 4), all queued (text: up to 2x). Typical: --bulk messages\n"
           "(default 64) of --msg octets (65536), and --rr transactions (default 500)\n"
           "of a --req (100) octet request and a --resp (8192) octet response, DDP\n"
           "segments of at most MULPDU (text: marginal). Without --measure: the counts\n"
           "for --emss (default 1460). --measure (root): real TCP between two network\n"
           "namespaces (veth MTU 1500, offloads and timestamps off), segments counted\n"
           "in a capture; plain TCP writes 64 KiB at a time (request/response: one\n"
           "write per message, TCP_NODELAY). Exits 77 when this machine cannot\n"
           "measure (not root, no network namespaces or veth). --svg FILE: a figure\n"
           "of MPA/TCP segments against EMSS (536..8960) per workload, with what\n"
           "--measure measured.\n");
}

/* The worst case's ULPDU: an FPDU (without markers) of EMSS/2 + 1 rounded
 * up to a multiple of 4, less ULPDU_Length and CRC. */
static size_t worst_ulpdu(uint32_t emss)
{
    return ((emss / 2 + 1 + 3) & ~(size_t)3) - 6;
}

typedef struct bufs {
    uint8_t *rec, *wire;
    size_t rcap, wcap;
    struct iovec v[NV];
} bufs;

/* Records of one message (two for request/response), and the wire
 * octets of a whole stream (worst case), of one message otherwise. */
static int bufs_new(bufs *b, const acase *c, uint32_t emss, int no_wire)
{
    size_t msg = c->work == W_BULK ? c->msg : c->work == W_RR ? c->req + c->resp : emss;
    size_t n = c->work == W_WORST ? (size_t)c->count : 1;
    b->rcap = 2 * (msg + NV * DW_DDP_TAGGED_HDR_LEN) + 4096;
    b->wcap = no_wire ? 1 : n * (msg + 64) + 2 * msg + 65536;
    b->rec = malloc(b->rcap);
    b->wire = malloc(b->wcap);
    if (b->rec && b->wire)
        return 0;
    an_cannot("buffers", "out of memory");
    return -1;
}

static void bufs_del(bufs *b)
{
    free(b->rec), free(b->wire);
}

/* The ULPDU lengths of one message; 0 on no room. */
static size_t msg_records(const acase *c, uint32_t emss, int resp, uint8_t *buf, size_t cap,
                          struct iovec *v, size_t nv)
{
    size_t maxu = dw_mpa_mulpdu(emss, 1);
    if (c->work == W_WORST)
        return an_ddp_records(buf, cap, v, nv, worst_ulpdu(emss) - DW_DDP_TAGGED_HDR_LEN,
                              maxu, 1);
    size_t len = c->work == W_BULK ? c->msg : resp ? c->resp : c->req;
    return an_ddp_records(buf, cap, v, nv, len, maxu, resp ? 2 : 1);
}

/* Segments for n records starting at *pos, one send call: MPA packed (a
 * segment ends where the next FPDU would pass EMSS) or plain (full
 * segments). Advances *pos and adds the octets to *total. */
static uint64_t segs_of(uint32_t *pos, const struct iovec *v, size_t n, uint32_t emss,
                        int plain, uint64_t *total)
{
    uint64_t segs = 0, group = 0, len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t f = dw_mpa_fpdu_len(*pos, v[i].iov_len, 1);
        if (!group || group + f > emss)
            segs++, group = 0;
        group += f, len += f;
        *pos += (uint32_t)f;
    }
    *total += len;
    return plain ? (len + emss - 1) / emss : segs;
}

/* Predicted data segments (both directions) and octets of a case. Two
 * worst-case FPDUs never share a segment, so one send call per FPDU
 * counts the same as all queued. Plain worst case and bulk: one stream. */
static uint64_t predict(const acase *c, uint32_t emss, uint64_t *octets)
{
    bufs b;
    struct iovec rv[NV];
    uint32_t pos = 0, back = 0;
    uint64_t segs = 0;
    *octets = 0;
    if (bufs_new(&b, c, emss, 1))
        return 0;
    size_t n = msg_records(c, emss, 0, b.rec, b.rcap / 2, b.v, NV);
    size_t m = c->work == W_RR ? msg_records(c, emss, 1, b.rec + b.rcap / 2, b.rcap / 2, rv, NV)
                               : 0;
    for (uint64_t i = 0; i < c->count; i++) {
        segs += segs_of(&pos, b.v, n, emss, c->plain, octets);
        segs += segs_of(&back, rv, m, emss, c->plain, octets);
    }
    bufs_del(&b);
    return c->plain && c->work != W_RR ? (*octets + emss - 1) / emss : segs;
}

static void print_prediction(const aopts *o, uint32_t emss)
{
    acase cs[W_N] = {{W_WORST, 0, o->worst, 0, 0, 0},
                     {W_BULK, 0, o->bulk, o->msg, 0, 0},
                     {W_RR, 0, o->rr, 0, o->req, o->resp}};
    printf("EMSS %u: MULPDU %u (markers on); worst-case FPDU %zu octets (EMSS/2 + 1 = %u,"
           " padded),\n  ULPDU %zu, %zu-%zu on the wire with markers\n\n",
           emss, dw_mpa_mulpdu(emss, 1), worst_ulpdu(emss) + 6, emss / 2 + 1,
           worst_ulpdu(emss), dw_mpa_fpdu_len(4, worst_ulpdu(emss), 1),
           dw_mpa_fpdu_len(510, worst_ulpdu(emss), 1));
    printf("  %-17s %10s %10s %10s %8s  %s\n", "workload", "octets", "MPA segs", "TCP segs",
           "MPA/TCP", "text");
    for (int w = 0; w < W_N; w++) {
        uint64_t oct, m, p;
        m = predict(&cs[w], emss, &oct);
        cs[w].plain = 1;
        p = predict(&cs[w], emss, &oct);
        printf("  %-17s %10llu %10llu %10llu %8.3f  %s\n", wname[w], (unsigned long long)oct,
               (unsigned long long)m, (unsigned long long)p, (double)m / (double)p,
               w == W_WORST ? "approaching 2x" : "marginal");
    }
}

/* Sides -------------------------------------------------------------------- */

typedef struct rxstate {
    ares *r;
    int last; /* a ULPDU with DDP's L bit arrived */
} rxstate;

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    (void)rx, (void)hdr, (void)hlen, (void)off;
    rxstate *st = u;
    st->r->ulpdus++;
    st->r->octets += len;
    if (len && (d[0] << 8 & DW_DDP_CTRL_LAST))
        st->last = 1;
    return 0;
}

static void sock_opts(dw_sock_settings *so, rxstate *st)
{
    dw_sock_settings_default(so);
    so->startup = DW_SOCK_IMMEDIATE;
    so->markers = so->crc = 1;
    so->seg_mode = DW_MPA_SEG_PACKED;
    so->timeout_ms = 30000;
    so->cb = (dw_fr_rx_callbacks){on_pdu, NULL, NULL};
    so->user_data = st;
}

/* A side's failure (nothing more once it said it could not complete). */
static int fail(const char *who, const char *what)
{
    if (!an_resource_failed())
        fprintf(stderr, "ddpwire analyze align: %s: %s\n", who, what);
    return 1;
}

/* A socket call's rc (errno for DW_ERR_IO): could not complete, or failed. */
static int sock_fail(const char *who, int rc, const char *what)
{
    return cli_sock_resource(rc, errno) ? an_cannot(who, what) : fail(who, what);
}

static int errno_fail(const char *who, int e)
{
    return cli_errno_resource(e) && e != EINTR ? an_cannot(who, strerror(e))
                                               : fail(who, strerror(e));
}

static uint32_t get_emss(int fd)
{
    int mss = 0;
    socklen_t l = sizeof mss;
    return getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) ? 0 : (uint32_t)mss;
}

static int io_all(int fd, uint8_t *p, size_t n, int wr)
{
    while (n) {
        ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);
        if (k <= 0 && !(k < 0 && errno == EINTR))
            return -1;
        k = k < 0 ? 0 : k;
        p += k, n -= (size_t)k;
    }
    return 0;
}

/* The records of one message, framed as a plain byte stream by tx. */
static ssize_t frame_msg(dw_mpa_tx *tx, const struct iovec *v, size_t n, uint8_t *out, size_t cap)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        ssize_t w = dw_mpa_tx_frame_into(tx, v[i].iov_base, v[i].iov_len, out + at, cap - at,
                                         NULL);
        if (w < 0)
            return w;
        at += (size_t)w;
    }
    return (ssize_t)at;
}

static dw_mpa_tx *plain_tx(uint32_t emss)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx *tx;
    dw_mpa_tx_settings_default(&ts);
    ts.emss = emss;
    if (!dw_mpa_tx_new(&tx, &ts))
        return tx;
    an_cannot("MPA sender", "out of memory"); /* (the settings are valid) */
    return NULL;
}

/* Plain client, worst case and bulk: the whole stream, 64 KiB writes. */
static int plain_stream(int fd, const acase *c, bufs *b, uint32_t emss, ares *r)
{
    dw_mpa_tx *tx = plain_tx(emss);
    size_t n = msg_records(c, emss, 0, b->rec, b->rcap, b->v, NV), len = 0;
    uint64_t msgs = c->work == W_WORST ? c->count : 1;
    int rc = tx && n ? 0 : -1;
    for (uint64_t round = 0; !rc && round < (c->work == W_BULK ? c->count : 1); round++) {
        len = 0;
        for (uint64_t i = 0; !rc && i < msgs; i++) {
            ssize_t w = frame_msg(tx, b->v, n, b->wire + len, b->wcap - len);
            rc = w < 0 ? -1 : 0;
            len += w > 0 ? (size_t)w : 0;
            r->ulpdus += n;
        }
        for (size_t at = 0; !rc && at < len; at += 65536)
            rc = io_all(fd, b->wire + at, len - at < 65536 ? len - at : 65536, 1);
    }
    dw_mpa_tx_del(tx);
    return rc;
}

static int plain_client(const acase *c, const an_ctx *x, ares *r)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(x->port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct timeval tv = {30, 0};
    if (fd < 0 || inet_pton(AF_INET, AN_ADDR_B, &a.sin_addr) != 1 || connect(fd, (struct sockaddr *)&a, sizeof a))
        return errno_fail("plain connect", errno);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (c->work == W_RR)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    r->emss = get_emss(fd);
    bufs b;
    int rc = bufs_new(&b, c, r->emss, 0);
    uint64_t t0 = cli_now_ns();
    if (!rc && c->work != W_RR) {
        rc = plain_stream(fd, c, &b, r->emss, r);
    } else if (!rc) {
        /* one request, then its response, framed as the server frames it */
        dw_mpa_tx *tx = plain_tx(r->emss);
        struct iovec rv[NV];
        size_t n = msg_records(c, r->emss, 0, b.rec, b.rcap / 2, b.v, NV);
        size_t m = msg_records(c, r->emss, 1, b.rec + b.rcap / 2, b.rcap / 2, rv, NV);
        uint32_t back = 0;
        rc = tx && n && m ? 0 : -1;
        for (uint64_t i = 0; !rc && i < c->count; i++) {
            ssize_t w = frame_msg(tx, b.v, n, b.wire, b.wcap);
            size_t want = 0;
            for (size_t k = 0; k < m; k++) {
                size_t f = dw_mpa_fpdu_len(back, rv[k].iov_len, 1);
                want += f, back += (uint32_t)f;
            }
            rc = w < 0 || io_all(fd, b.wire, (size_t)w, 1) || io_all(fd, b.wire, want, 0);
            r->ulpdus += n, r->octets += want;
        }
        dw_mpa_tx_del(tx);
    }
    uint8_t tmp[256];
    if (!rc && !shutdown(fd, SHUT_WR))
        while (read(fd, tmp, sizeof tmp) > 0)
            ;
    r->ns = cli_now_ns() - t0;
    close(fd);
    bufs_del(&b);
    return rc ? fail("plain client", "transfer failed") : 0;
}

/* Plain server, request/response: reads each request (framed as the
 * client frames it) and writes the response. */
static int plain_rr_server(int fd, const acase *c, ares *r)
{
    uint32_t emss = get_emss(fd), in = 0;
    bufs b = {0}; /* (not made when the sender could not be) */
    struct iovec rv[NV];
    dw_mpa_tx *tx = plain_tx(emss);
    int rc = tx && !bufs_new(&b, c, emss, 0) ? 0 : -1;
    size_t n = rc ? 0 : msg_records(c, emss, 0, b.rec, b.rcap / 2, b.v, NV);
    size_t m = rc ? 0 : msg_records(c, emss, 1, b.rec + b.rcap / 2, b.rcap / 2, rv, NV);
    ssize_t w = rc || !n || !m ? -1 : frame_msg(tx, rv, m, b.wire, b.wcap);
    r->emss = emss;
    for (uint64_t i = 0; w > 0 && i < c->count; i++) {
        size_t want = 0;
        for (size_t k = 0; k < n; k++) {
            size_t f = dw_mpa_fpdu_len(in, b.v[k].iov_len, 1);
            want += f, in += (uint32_t)f;
        }
        rc = io_all(fd, b.wire + w, want, 0) || io_all(fd, b.wire, (size_t)w, 1);
        r->ulpdus += n, r->octets += want;
        if (rc)
            break;
        if (i + 1 < c->count) /* the next response sits at another position */
            w = frame_msg(tx, rv, m, b.wire, b.wcap);
    }
    if (!rc && w <= 0)
        rc = -1;
    uint8_t tmp[256];
    while (!rc && read(fd, tmp, sizeof tmp) > 0)
        ;
    dw_mpa_tx_del(tx);
    if (b.rec)
        bufs_del(&b);
    return rc ? fail("plain server", "transfer failed") : 0;
}

static int serve(const acase *c, ares *r, const an_ctx *x)
{
    rxstate st = {r, 0};
    char port[8], err[256];
    int lfd, rc = 0;
    dw_sock_settings so;
    dw_sock *s;
    sock_opts(&so, &st);
    snprintf(port, sizeof port, "%u", x->port);
    if ((rc = dw_sock_listen(&lfd, AN_ADDR_B, port, err, sizeof err)) != 0)
        return sock_fail("listen", rc, err);
    an_ready(x);
    if (c->plain && c->work == W_RR) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), one = 1;
        struct timeval tv = {30, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        rc = fd < 0 ? errno_fail("accept", errno) : plain_rr_server(fd, c, r);
        close(fd), close(lfd);
        return rc;
    }
    /* worst case and bulk, MPA or plain: the stream is MPA either way */
    if ((rc = dw_sock_accept(&s, lfd, &so, err, sizeof err)) != 0)
        return sock_fail("accept", rc, err);
    dw_sock_info info;
    dw_sock_info_get(s, &info);
    r->emss = info.emss;
    bufs b = {0};
    struct iovec rv[NV];
    size_t m = 0;
    if (c->work == W_RR && !bufs_new(&b, c, info.emss, 1))
        m = msg_records(c, info.emss, 1, b.rec + b.rcap / 2, b.rcap / 2, rv, NV);
    ssize_t k;
    while ((k = dw_sock_recv(s)) > 0)
        if (st.last && c->work == W_RR) { /* a whole request: the response */
            st.last = 0;
            if ((k = m ? dw_sock_sendv(s, rv, m) : DW_ERR_NOMEM) != 0)
                break;
        }
    r->rc = k == DW_ERR_CLOSED ? 0 : (int32_t)k;
    dw_sock_close(s);
    close(lfd);
    if (b.rec)
        bufs_del(&b);
    return r->rc ? sock_fail("receive", r->rc, dw_strerror(r->rc)) : 0;
}

/* MPA client: worst case all queued in one call, bulk one call per
 * message, request/response one call per request. */
static int mpa_client(const acase *c, const an_ctx *x, ares *r)
{
    char port[8], err[256];
    ares back = {0};
    rxstate st = {&back, 0};
    dw_sock_settings so;
    dw_sock *s;
    sock_opts(&so, &st);
    snprintf(port, sizeof port, "%u", x->port);
    int cr = dw_sock_connect(&s, AN_ADDR_B, port, &so, err, sizeof err);
    if (cr)
        return sock_fail("connect", cr, err);
    dw_sock_info info;
    dw_sock_info_get(s, &info);
    r->emss = info.emss;
    bufs b;
    int rc = bufs_new(&b, c, info.emss, 1) ? DW_ERR_NOMEM : 0;
    size_t n = rc ? 0 : msg_records(c, info.emss, 0, b.rec, b.rcap / 2, b.v, NV);
    struct iovec *all = NULL;
    uint64_t t0 = cli_now_ns();
    if (!rc && c->work == W_WORST && (all = malloc(c->count * sizeof *all))) {
        for (uint64_t i = 0; i < c->count; i++)
            all[i] = b.v[0];
        rc = dw_sock_sendv(s, all, (size_t)c->count);
        r->ulpdus = c->count;
    }
    for (uint64_t i = 0; !rc && c->work != W_WORST && i < c->count; i++) {
        rc = dw_sock_sendv(s, b.v, n);
        r->ulpdus += n;
        ssize_t k = 1;
        while (!rc && c->work == W_RR && !st.last && (k = dw_sock_recv(s)) > 0)
            ;
        rc = rc ? rc : k < 0 ? (int)k : 0;
        st.last = 0;
    }
    if (!rc && c->work == W_WORST && !all)
        rc = DW_ERR_NOMEM;
    if (!rc)
        rc = dw_sock_shutdown(s);
    ssize_t k = 0;
    while (!rc && (k = dw_sock_recv(s)) > 0)
        ;
    r->ns = cli_now_ns() - t0;
    r->rc = rc ? rc : k == DW_ERR_CLOSED ? 0 : (int32_t)k;
    r->octets = back.octets;
    dw_sock_close(s);
    free(all);
    if (b.rec)
        bufs_del(&b);
    return r->rc ? sock_fail("send", r->rc, dw_strerror(r->rc)) : 0;
}

static int client(void *arg, void *res, const an_ctx *x)
{
    const acase *c = arg;
    ares *r = res;
    an_netstat(r->ctr0);
    int rc = c->plain ? plain_client(c, x, r) : mpa_client(c, x, r);
    an_netstat(r->ctr);
    return rc;
}

static int server(void *arg, void *res, const an_ctx *x)
{
    ares *r = res;
    an_netstat(r->ctr0);
    int rc = serve(arg, r, x);
    an_netstat(r->ctr);
    return rc;
}

/* Measured -------------------------------------------------------------------- */

typedef struct ameas {
    uint32_t emss;
    uint64_t segs, octets, payload, acks, rexmit, reorder, ns, ulpdus;
    ares s, c;
} ameas;

static int measure_one(const an_net *net, acase *c, uint16_t port, ameas *m)
{
    ares sr = {0}, cr = {0};
    an_counts k;
    memset(&k, 0, sizeof k);
    int rc = an_run(net, port, server, client, c, &sr, &cr, sizeof sr, &k);
    if (rc)
        return rc; /* 5: could not complete */
    if (k.drops)
        fprintf(stderr, "warning: the capture dropped %llu frames\n",
                (unsigned long long)k.drops);
    *m = (ameas){cr.emss,
                 k.d[0].data + k.d[1].data,
                 k.d[0].octets + k.d[1].octets,
                 k.d[0].payload + k.d[1].payload,
                 k.d[0].acks + k.d[1].acks,
                 k.d[0].rexmit + k.d[1].rexmit,
                 k.d[0].reorder + k.d[1].reorder,
                 cr.ns,
                 sr.ulpdus,
                 sr,
                 cr};
    return 0;
}

static int measure(aopts *o)
{
    an_net net;
    int rc = an_net_up(&net, 1500, 0);
    if (rc)
        return rc;
    acase cs[W_N] = {{W_WORST, 0, o->worst, 0, 0, 0},
                     {W_BULK, 0, o->bulk, o->msg, 0, 0},
                     {W_RR, 0, o->rr, 0, o->req, o->resp}};
    printf("\nMeasured: veth MTU 1500 between two namespaces, TSO/GSO/GRO and TCP timestamps"
           " off,\nmarkers and CRC on; data segments of both directions in a capture.\n");
    printf("  %-17s %-5s %8s %8s %10s %9s %7s %7s %6s %6s %7s\n", "workload", "how", "segs",
           "expected", "payload", "oct/seg", "segs/MB", "ACKs", "rexmit", "reord", "ms");
    uint16_t port = 7201;
    for (int w = 0; !rc && w < W_N; w++) {
        ameas m[2];
        uint64_t pred[2] = {0, 0};
        for (int p = 0; !rc && p < 2; p++) {
            cs[w].plain = p;
            rc = measure_one(&net, &cs[w], port++, &m[p]);
            if (rc)
                break;
            uint64_t oct;
            pred[p] = predict(&cs[w], m[p].emss, &oct);
            if (m[p].payload < oct) /* more: retransmitted octets */
                fprintf(stderr, "warning: %s: %llu payload octets, %llu sent\n", wname[w],
                        (unsigned long long)m[p].payload, (unsigned long long)oct);
            printf("  %-17s %-5s %8llu %8llu %10llu %9.1f %7.1f %7llu %6llu %6llu %7.1f\n",
                   wname[w], p ? "TCP" : "MPA", (unsigned long long)m[p].segs,
                   (unsigned long long)pred[p], (unsigned long long)m[p].payload,
                   (double)m[p].payload / (double)m[p].segs,
                   1e6 * (double)m[p].segs / (double)m[p].payload,
                   (unsigned long long)m[p].acks, (unsigned long long)m[p].rexmit,
                   (unsigned long long)m[p].reorder, (double)m[p].ns / 1e6);
            an_print_ctrs("    receiver:", m[p].s.ctr0, m[p].s.ctr);
            an_print_ctrs("    sender:", m[p].c.ctr0, m[p].c.ctr);
        }
        if (!rc)
            printf("  %-17s MPA/TCP segments: measured %.3fx, expected %.3fx (EMSS %u)\n", "",
                   (double)m[0].segs / (double)m[1].segs, (double)pred[0] / (double)pred[1],
                   m[0].emss);
        if (!rc)
            o->meas[w] = (double)m[0].segs / (double)m[1].segs, o->meas_emss = m[0].emss;
    }
    an_net_down(&net);
    return rc;
}

/* The figure: the rule's MPA/TCP segment ratio against EMSS for each
 * workload, the text's 2x, and the measured ratios. */
#define FIG_N 10
static int figure(const aopts *o, const char *cmd)
{
    static const double em[FIG_N] = {536, 768, 1024, 1220, 1460, 2048, 3000, 4096, 6000, 8960};
    static const int color[W_N] = {1, 0, 2};
    static const char *meas_name[W_N] = {"measured, worst case (veth)", "measured, bulk (veth)",
                                         "measured, request/response (veth)"};
    acase cs[W_N] = {{W_WORST, 0, o->worst, 0, 0, 0},
                     {W_BULK, 0, o->bulk, o->msg, 0, 0},
                     {W_RR, 0, o->rr, 0, o->req, o->resp}};
    double y[W_N][FIG_N], mx[1] = {o->meas_emss}, my[W_N][1];
    svg_series s[2 * W_N];
    size_t ns = 0;
    for (int w = 0; w < W_N; w++) {
        for (size_t i = 0; i < FIG_N; i++) {
            uint64_t oct, m, p;
            cs[w].plain = 0;
            m = predict(&cs[w], (uint32_t)em[i], &oct);
            cs[w].plain = 1;
            p = predict(&cs[w], (uint32_t)em[i], &oct);
            y[w][i] = p ? (double)m / (double)p : NAN;
        }
        s[ns++] = (svg_series){wname[w], em, y[w], FIG_N, SVG_LINE | SVG_POINTS, 0, color[w]};
    }
    for (int w = 0; o->measure && w < W_N; w++) {
        my[w][0] = o->meas[w];
        s[ns++] = (svg_series){meas_name[w], mx, my[w], 1, SVG_SQUARES, 0, color[w]};
    }
    svg_ref refs[2] = {{2.0, "text: worst case approaching 2x"}, {1.0, "plain TCP (1x)"}};
    char note[320];
    snprintf(note, sizeof note,
             "Data segments, MPA packed mode (whole FPDUs per segment, markers and CRC) over "
             "plain TCP carrying the same octets, both directions. Worst case: %llu FPDUs of "
             "EMSS/2 + 1 octets; bulk: %llu messages of %llu octets; request/response: %llu x "
             "(%llu + %llu octets). Lines: the rule's count.",
             (unsigned long long)o->worst, (unsigned long long)o->bulk,
             (unsigned long long)o->msg, (unsigned long long)o->rr, (unsigned long long)o->req,
             (unsigned long long)o->resp);
    svg_plot pl = {"Header alignment: segments, MPA over plain TCP (analysis text 7.2)",
                   {"EMSS (octets; MTU less 40 for IPv4 and TCP headers)", 0, 9200, 0},
                   {"data segments, MPA packed / plain TCP (x)", 0, 2.2, 0},
                   s, ns, refs, 2, note, cmd};
    return svg_plot_save(&pl, o->svg, NULL, 0, "ddpwire analyze align");
}

int analyze_align(int argc, char **argv)
{
    aopts o = {1460, 2000, 64, 500, 65536, 100, 8192, 0, NULL, {0}, 0};
    const cli_opt t[] = {
        CLI_FLAG("--measure", &o.measure),
        CLI_U64("--emss", &o.emss, 536, 9000),
        CLI_U64("--worst", &o.worst, 1, 100000),
        CLI_U64("--bulk", &o.bulk, 1, 10000),
        CLI_U64("--rr", &o.rr, 1, 100000),
        CLI_U64("--msg", &o.msg, 1, 65536),
        CLI_U64("--req", &o.req, 1, 65536),
        CLI_U64("--resp", &o.resp, 1, 65536),
        CLI_STR("--svg", &o.svg, "a file to write"),
    };
    int r = cli_parse(argc, argv, "ddpwire analyze align", help, t, CLI_N(t), NULL, NULL);
    if (r != CLI_GO)
        return r;
    printf("Analysis text section 7.2: segments with whole FPDUs per segment (MPA packed)\n"
           "versus plain TCP carrying the same octets\n\n");
    print_prediction(&o, (uint32_t)o.emss);
    int rc = o.measure ? measure(&o) : 0;
    fflush(stdout);
    if (!rc && o.svg) {
        char *cmd = svg_command("ddpwire analyze", argc, argv);
        rc = cmd ? figure(&o, cmd) : cli_nomem("ddpwire analyze align", "the figure");
        rc = rc < 0 ? 1 : rc; /* (said why) */
        free(cmd);
    }
    return rc;
}
