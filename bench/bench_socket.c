/* SPDX-License-Identifier: MIT */
/*
 * ddpwire bench socket: MPA over loopback TCP against plain TCP with the same
 * write sizes, in the same run.
 *
 *   stream-S  one client thread sends records of S octets for ~0.5 s
 *             (quick: ~0.1 s) to a server thread: plain TCP writes each
 *             record with write(); MPA-aligned sends each as one FPDU with
 *             MSG_EOR (its own segment); MPA-packed hands 64 records at a
 *             time to dw_sock_sendv, which groups whole FPDUs up to EMSS.
 *             Markers and CRC on; the server verifies every CRC.
 *   rtt-64    ping-pong of one 64-octet record; median round trip.
 *   read-flat / readv-scatter: the receiver's read alone, two ways of
 *             placing a stream with markers (issue 28): read() into one
 *             256 KiB buffer (what dw_sock_recv does; the receiver then
 *             strips the markers in its CRC pass), or readv() with an
 *             iovec list computed from the stream position, 508 octets of
 *             each 512 to the destination and the marker to scratch, so
 *             the kernel's copy strips them (the CRC would still need a
 *             pass). Rate: octets per second of the reading thread's CPU
 *             time (softirq work that lands in it included).
 * Both sockets have TCP_NODELAY, as MPA requires.
 */
#include <ddpwire/mpa_sock.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define RTT_ITERS 20000

typedef struct run {
    const dw_bench_opts *o;
    int mpa;         /* 0: plain TCP */
    int rtt;         /* ping-pong instead of a stream */
    int packed;      /* MPA: packed up to EMSS (else aligned) */
    int batch;       /* MPA: 64 records per dw_sock_sendv */
    size_t size;
    int lfd;
    char port[16];
    uint64_t got;    /* octets (stream) received by the server */
    uint8_t *buf;
    dw_sock *srv;    /* MPA server connection, for echoing */
    int fail;
} run;

static int listen_lo(run *r)
{
    char err[200];
    if (dw_sock_listen(&r->lfd, "127.0.0.1", "0", err, sizeof err))
        return -1;
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    getsockname(r->lfd, (struct sockaddr *)&a, &l);
    snprintf(r->port, sizeof r->port, "%u", ntohs(a.sin_port));
    return 0;
}

static int plain_connect(const char *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int full_io(int fd, uint8_t *p, size_t n, int wr)
{
    while (n) {
        ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            return -1;
        }
        p += k, n -= (size_t)k;
    }
    return 0;
}

static int mpa_on_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                        uint64_t off, void *u)
{
    (void)hdr, (void)hlen;
    run *r = u;
    (void)rx, (void)off;
    r->got += len;
    if (r->rtt && r->srv) /* echo the record back */
        r->fail |= dw_sock_send(r->srv, d, len) != 0;
    return 0;
}

static void opts(dw_sock_settings *o, run *r)
{
    dw_sock_settings_default(o);
    o->cb = (dw_fr_rx_callbacks){mpa_on_ulpdu, NULL, NULL};
    o->user_data = r;
    o->timeout_ms = 0;
}

static void *server(void *p)
{
    run *r = p;
    if (r->mpa) {
        dw_sock_settings o;
        char err[200];
        opts(&o, r);
        if (dw_sock_accept(&r->srv, r->lfd, &o, err, sizeof err)) {
            r->fail = 1;
            return NULL;
        }
        while (dw_sock_recv(r->srv) > 0)
            ;
        dw_sock_close(r->srv);
        return NULL;
    }
    int fd = accept(r->lfd, NULL, NULL), one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    uint8_t *b = malloc(1 << 16);
    for (;;) {
        ssize_t k = r->rtt ? (full_io(fd, b, r->size, 0) ? -1 : (ssize_t)r->size)
                           : read(fd, b, 1 << 16);
        if (k <= 0 || (r->rtt && full_io(fd, b, r->size, 1)))
            break;
        r->got += (uint64_t)k;
    }
    free(b);
    close(fd);
    return NULL;
}

static double stream_client(run *r, int fd, dw_sock *s)
{
    double t0 = dw_bench_now(), dur = r->o->quick ? 0.1 : 0.5, el;
    uint64_t sent = 0;
    struct iovec v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (struct iovec){r->buf, r->size};
    do {
        if (r->batch) {
            if (dw_sock_sendv(s, v, 64))
                return r->fail = 1, 0;
            sent += 64 * r->size;
            continue;
        }
        for (int i = 0; i < 64; i++) {
            int bad = s ? dw_sock_send(s, r->buf, r->size) != 0
                        : full_io(fd, r->buf, r->size, 1) != 0;
            if (bad)
                return r->fail = 1, 0;
            sent += r->size;
        }
    } while ((el = dw_bench_now() - t0) < dur);
    return sent / el / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median round trip in microseconds. */
static double rtt_client(run *r, int fd, dw_sock *s)
{
    int n = r->o->quick ? 2000 : RTT_ITERS;
    double *t = malloc(sizeof *t * (size_t)n), med;
    for (int i = 0; i < n && !r->fail; i++) {
        double t0 = dw_bench_now();
        if (s) {
            uint64_t want = r->got + r->size;
            r->fail |= dw_sock_send(s, r->buf, r->size) != 0;
            while (!r->fail && r->got < want)
                r->fail |= dw_sock_recv(s) <= 0;
        } else {
            r->fail |= full_io(fd, r->buf, r->size, 1) || full_io(fd, r->buf, r->size, 0);
        }
        t[i] = (dw_bench_now() - t0) * 1e6;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    med = t[n / 2];
    free(t);
    return med;
}

/* One measurement: GB/s for a stream, microseconds for rtt. */
static double measure(const dw_bench_opts *o, int mpa, int rtt, size_t size, uint8_t *buf)
{
    static run r; /* the server thread reads it */
    memset(&r, 0, sizeof r);
    r.o = o, r.mpa = mpa != 0, r.packed = mpa == 2, r.batch = mpa >= 2, r.rtt = rtt, r.size = size, r.buf = buf;
    if (listen_lo(&r))
        return 0;
    pthread_t t;
    pthread_create(&t, NULL, server, &r);
    dw_sock *s = NULL;
    int fd = -1;
    run cr = r; /* the client's own counter for echoed records */
    double v = 0;
    if (mpa) {
        dw_sock_settings so;
        char err[200];
        opts(&so, &cr);
        so.seg_mode = r.packed ? DW_MPA_SEG_PACKED : DW_MPA_SEG_ALIGNED;
        if (dw_sock_connect(&s, "127.0.0.1", r.port, &so, err, sizeof err) == 0)
            v = rtt ? rtt_client(&cr, -1, s) : stream_client(&cr, -1, s);
        dw_sock_shutdown(s);
        while (dw_sock_recv(s) > 0)
            ;
        dw_sock_close(s);
    } else if ((fd = plain_connect(r.port)) >= 0) {
        v = rtt ? rtt_client(&cr, fd, NULL) : stream_client(&cr, fd, NULL);
        shutdown(fd, SHUT_WR);
        uint8_t tmp[256];
        while (read(fd, tmp, sizeof tmp) > 0)
            ;
        close(fd);
    }
    pthread_join(t, NULL);
    close(r.lfd);
    return cr.fail || r.fail ? 0 : v;
}

/* ---- read placement ---------------------------------------------------- */

#define PLACE_READ (256u << 10)

typedef struct place {
    int fd;
    volatile int stop;
    uint8_t *buf;
} place;

static void *place_writer(void *p)
{
    place *w = p;
    while (!w->stop && full_io(w->fd, w->buf, PLACE_READ, 1) == 0)
        ;
    shutdown(w->fd, SHUT_WR); /* the reader reads to the end */
    return NULL;
}

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The iovecs for the next read at stream position pos: ULPDU octets to
 * dst (contiguous), each marker (positions 512k..512k+3) to mark. */
static int scatter_list(struct iovec *v, int max, uint64_t pos, uint8_t *dst, uint8_t *mark)
{
    int k = 0;
    size_t at = 0;
    while (k < max && at < PLACE_READ) {
        size_t ph = (size_t)(pos % 512), t = ph < 4 ? 4 - ph : 512 - ph;
        v[k++] = ph < 4 ? (struct iovec){mark + ph, t} : (struct iovec){dst + at, t};
        at += ph < 4 ? 0 : t;
        pos += t;
    }
    return k;
}

/* GB per CPU second of the reading thread; scatter: readv from the stream
 * position, else read into one buffer. */
static double place_measure(const dw_bench_opts *o, int scatter, uint8_t *src)
{
    run r = {0};
    if (listen_lo(&r))
        return 0;
    place w = {plain_connect(r.port), 0, src};
    int fd = w.fd < 0 ? -1 : accept(r.lfd, NULL, NULL);
    uint8_t *dst = dw_bench_alloc(PLACE_READ), mark[8];
    struct iovec *v = malloc(sizeof *v * 1024);
    double gbps = 0;
    pthread_t t;
    if (fd >= 0 && dst && v && pthread_create(&t, NULL, place_writer, &w) == 0) {
        uint64_t pos = 0, got = 0;
        double dur = o->quick ? 0.1 : 0.5, t0 = dw_bench_now(), c0 = thread_cpu();
        while (dw_bench_now() - t0 < dur) {
            ssize_t n = scatter ? readv(fd, v, scatter_list(v, 1024, pos, dst, mark))
                                : read(fd, dst, PLACE_READ);
            if (n <= 0)
                break;
            pos += (uint64_t)n, got += (uint64_t)n;
        }
        double cpu = thread_cpu() - c0;
        gbps = cpu > 0 ? (double)got / cpu / 1e9 : 0;
        w.stop = 1;
        while (read(fd, dst, PLACE_READ) > 0) /* until the writer's FIN */
            ;
        pthread_join(t, NULL);
    }
    if (fd >= 0)
        close(fd);
    if (w.fd >= 0)
        close(w.fd);
    close(r.lfd);
    free(v);
    dw_bench_free(dst);
    return gbps;
}

int dw_bench_socket(const dw_bench_opts *o)
{
    static const size_t sizes[] = {1024, 16384};
    uint8_t *buf = dw_bench_alloc(65536);
    int rc = 0;
    dw_bench_meta(o, "socket", "wall");
    if (!o->json)
        printf("MPA (markers, CRC) vs plain TCP over loopback, same record sizes\n"
               "GB/s = 1e9 record octets/s over %.1f s; rtt = median round trip of a 64-octet "
               "record, microseconds\n", o->quick ? 0.1 : 0.5);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double tcp = measure(o, 0, 0, sizes[i], buf), mpa = measure(o, 1, 0, sizes[i], buf);
        double pk = measure(o, 2, 0, sizes[i], buf), ab = measure(o, 3, 0, sizes[i], buf);
        rc |= tcp == 0 || mpa == 0 || pk == 0 || ab == 0;
        dw_bench_report(o, "socket", "tcp", sizes[i], tcp, NULL, 0);
        dw_bench_report(o, "socket", "mpa-aligned", sizes[i], mpa, "vs_tcp", tcp > 0 ? mpa / tcp : 0);
        dw_bench_report(o, "socket", "mpa-aligned-v", sizes[i], ab, "vs_tcp", tcp > 0 ? ab / tcp : 0);
        dw_bench_report(o, "socket", "mpa-packed", sizes[i], pk, "vs_tcp", tcp > 0 ? pk / tcp : 0);
    }
    double rt = measure(o, 0, 1, 64, buf), rm = measure(o, 1, 1, 64, buf);
    rc |= rt == 0 || rm == 0;
    if (o->json) {
        dw_bench_json_open("socket", "tcp-rtt", 64);
        printf(", \"rtt_microseconds\": %.2f", rt);
        dw_bench_json_close();
        dw_bench_json_open("socket", "mpa-rtt", 64);
        printf(", \"rtt_microseconds\": %.2f, \"ratio_vs_tcp\": %.3f", rm, rt > 0 ? rm / rt : 0);
        dw_bench_json_close();
    } else {
        printf("socket tcp-rtt             64  %6.2f us\n", rt);
        printf("socket mpa-rtt             64  %6.2f us   vs_tcp %.2fx\n", rm, rt > 0 ? rm / rt : 0);
    }
    uint8_t *src = dw_bench_alloc(PLACE_READ);
    double fl = src ? place_measure(o, 0, src) : 0, sc = src ? place_measure(o, 1, src) : 0;
    rc |= fl == 0 || sc == 0;
    if (!o->json)
        printf("read placement: GB per CPU second of the reading thread, %u KiB reads\n",
               PLACE_READ >> 10);
    dw_bench_report(o, "socket", "read-flat", PLACE_READ, fl, NULL, 0);
    dw_bench_report(o, "socket", "readv-scatter", PLACE_READ, sc, "vs_flat", fl > 0 ? sc / fl : 0);
    dw_bench_free(src);
    dw_bench_free(buf);
    if (rc)
        fprintf(stderr, "bench socket: a transfer failed\n");
    return rc;
}
