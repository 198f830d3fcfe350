/* SPDX-License-Identifier: MIT */
/*
 * A second pump around the sans-I/O connection (conn.h): every connect,
 * accept, receive, send and shutdown goes through io_uring (liburing); the
 * dw_conn does all of MPA. It speaks with `ddpwire listen` and `ddpwire send`.
 *
 *   uring_mpa connect HOST PORT [OPTIONS] < FILE   sends FILE as records, then
 *                                                  FIN; waits for the peer's close
 *   uring_mpa accept PORT [OPTIONS] > FILE         one connection: each record's
 *                                                  payload to stdout until FIN
 *   OPTIONS: --negotiate [--rev 2]  (RFC 5044 start-up; 2: RFC 6581 enhanced)
 *            --ift  --no-markers  --no-crc  --record N (octets, default 1000)
 *
 * PORT 0 (accept): any free port, printed as "listening on PORT" on stderr.
 * Exit status: 0 done (the peer closed cleanly), 1 failed, 2 usage, 77 no
 * io_uring here (disabled by sysctl kernel.io_uring_disabled, or no kernel
 * support), with the reason on stderr.
 */
#include <ddpwire/conn.h>

#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RBUF (64u << 10)

typedef struct pump {
    struct io_uring ring;
    int fd;
    dw_conn *c;
    uint8_t rbuf[RBUF];
    size_t pend_at, pend_n; /* received, not yet taken by the connection */
    uint64_t records, octets;
    int failed;
} pump;

/* One operation through the ring, waited for: its result (-errno). */
static int run(pump *p, struct io_uring_sqe *sqe)
{
    struct io_uring_cqe *cqe;
    (void)sqe;
    int rc = io_uring_submit_and_wait(&p->ring, 1);
    if (rc < 0)
        return rc;
    if ((rc = io_uring_wait_cqe(&p->ring, &cqe)) < 0)
        return rc;
    rc = cqe->res;
    io_uring_cqe_seen(&p->ring, cqe);
    return rc;
}

/* Sends iov[0..n) whole (resumed after a short send), as one record. */
static int send_all(pump *p, struct iovec *iov, size_t n)
{
    while (n) {
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = n};
        struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
        io_uring_prep_sendmsg(sqe, p->fd, &m, MSG_EOR | MSG_NOSIGNAL);
        int r = run(p, sqe);
        if (r < 0)
            return errno = -r, -1;
        size_t done = (size_t)r;
        while (n && done >= iov->iov_len)
            done -= iov->iov_len, iov++, n--;
        if (n)
            iov->iov_base = (uint8_t *)iov->iov_base + done, iov->iov_len -= done;
    }
    return 0;
}

/* The connection's own octets (its start-up frame) first. */
static int send_pending(pump *p)
{
    const uint8_t *b;
    size_t n = dw_conn_send_pending(p->c, &b);
    struct iovec v = {(void *)b, n};
    if (n && send_all(p, &v, 1))
        return -1;
    dw_conn_send_consume(p->c, n);
    return 0;
}

/* Receives once and feeds the connection everything (or until it stops
 * at the start-up's end, when *until_ready). Returns 1 fed, 0 the peer
 * closed (dw_conn_recv_end's verdict in *rc), -1 failed (*rc). */
static int recv_feed(pump *p, int until_ready, int *rc)
{
    if (!p->pend_n) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
        io_uring_prep_recv(sqe, p->fd, p->rbuf, sizeof p->rbuf, 0);
        int r = run(p, sqe);
        if (r <= 0) {
            *rc = dw_conn_recv_end(p->c, r == 0 ? DW_MPA_CLOSE_FIN : DW_MPA_CLOSE_LOST);
            return r == 0 ? 0 : -1;
        }
        p->pend_at = 0, p->pend_n = (size_t)r;
    }
    while (p->pend_n && !(until_ready && dw_conn_ready(p->c))) {
        ssize_t r = dw_conn_recv(p->c, p->rbuf + p->pend_at, p->pend_n);
        if (send_pending(p)) /* a responder's reply, also one that rejects */
            return *rc = DW_ERR_IO, -1;
        if (r < 0)
            return *rc = (int)r, -1;
        p->pend_at += (size_t)r, p->pend_n -= (size_t)r;
    }
    return 1;
}

static int on_pdu(dw_conn *c, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    pump *p = u;
    (void)c, (void)hdr, (void)hlen, (void)off;
    p->records++, p->octets += len;
    if (len && fwrite(d, 1, len, stdout) != len)
        p->failed = 1;
    return 0;
}

static void on_error(dw_conn *c, const dw_fr_error *e, void *u)
{
    (void)c, (void)u;
    fprintf(stderr, "uring_mpa: %s at offset %llu\n", dw_fr_error_str(e),
            (unsigned long long)e->offset);
}

typedef struct args {
    int connect;
    const char *host, *port;
    dw_conn_settings st;
    size_t record;
} args;

static int usage(void)
{
    fprintf(stderr, "usage: uring_mpa connect HOST PORT [OPTIONS] < FILE\n"
                    "       uring_mpa accept PORT [OPTIONS] > FILE\n"
                    "OPTIONS: --negotiate [--rev 1|2] --ift --no-markers --no-crc --record N\n");
    return 2;
}

static int parse(int argc, char **argv, args *a)
{
    int i = 2;
    if (argc < 3 || (strcmp(argv[1], "connect") && strcmp(argv[1], "accept")))
        return -1;
    a->connect = !strcmp(argv[1], "connect");
    if (a->connect && argc < 4)
        return -1;
    a->host = a->connect ? argv[i++] : NULL;
    a->port = argv[i++];
    dw_conn_settings_default(&a->st);
    a->st.initiator = a->connect;
    a->record = 1000;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--negotiate"))
            a->st.startup = DW_CONN_NEGOTIATE;
        else if (!strcmp(argv[i], "--rev") && i + 1 < argc)
            a->st.rev = (uint8_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ift"))
            a->st.framing = DW_FRAMING_IFT;
        else if (!strcmp(argv[i], "--no-markers"))
            a->st.markers = 0;
        else if (!strcmp(argv[i], "--no-crc"))
            a->st.crc = 0;
        else if (!strcmp(argv[i], "--record") && i + 1 < argc)
            a->record = (size_t)strtoul(argv[++i], NULL, 10);
        else
            return -1;
    }
    return a->record ? 0 : -1;
}

/* The TCP connection, made through the ring: fd, or -1. */
static int open_conn(pump *p, const args *a)
{
    struct addrinfo hints = {0}, *res;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = a->connect ? 0 : AI_PASSIVE;
    hints.ai_family = a->connect ? AF_UNSPEC : AF_INET;
    if (getaddrinfo(a->host, a->port, &hints, &res))
        return fprintf(stderr, "uring_mpa: cannot resolve\n"), -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, r = -1;
    struct io_uring_sqe *sqe;
    if (fd >= 0 && a->connect) {
        sqe = io_uring_get_sqe(&p->ring);
        io_uring_prep_connect(sqe, fd, res->ai_addr, res->ai_addrlen);
        r = run(p, sqe);
    } else if (fd >= 0) {
        struct sockaddr_in sin;
        socklen_t l = sizeof sin;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (!bind(fd, res->ai_addr, res->ai_addrlen) && !listen(fd, 1) &&
            !getsockname(fd, (struct sockaddr *)&sin, &l)) {
            fprintf(stderr, "listening on %u\n", ntohs(sin.sin_port));
            sqe = io_uring_get_sqe(&p->ring);
            io_uring_prep_accept(sqe, fd, NULL, NULL, SOCK_CLOEXEC);
            r = run(p, sqe);
            close(fd);
            fd = r;
        }
    }
    freeaddrinfo(res);
    if (r < 0) {
        fprintf(stderr, "uring_mpa: %s: %s\n", a->connect ? "connect" : "accept",
                strerror(r == -1 ? errno : -r));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* MPA 7.3 */
    return fd;
}

/* MPA 7.3.1: MULPDU follows the EMSS. */
static void tell_emss(pump *p)
{
    int mss = 0;
    socklen_t l = sizeof mss;
    if (!getsockopt(p->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &l) && mss > 0)
        dw_conn_set_emss(p->c, (uint32_t)mss);
}

static int start(pump *p)
{
    int rc = 0;
    tell_emss(p);
    if (send_pending(p))
        return fprintf(stderr, "uring_mpa: send: %s\n", strerror(errno)), -1;
    while (!dw_conn_ready(p->c))
        if (recv_feed(p, 1, &rc) <= 0)
            return fprintf(stderr, "uring_mpa: start-up: %s\n", dw_strerror(rc)), -1;
    dw_conn_info in;
    dw_conn_get_info(p->c, &in);
    fprintf(stderr, "MPA mode: %s, rev %u%s, markers %d/%d, crc %d, ird %u ord %u\n",
            dw_framing_name(in.framing), (unsigned)in.rev, in.enhanced ? " enhanced" : "",
            in.tx_markers, in.rx_markers, in.crc, (unsigned)in.ird, (unsigned)in.ord);
    return 0;
}

/* stdin as records (each frame one sendmsg of the frame's iovecs). */
static int send_input(pump *p, size_t record)
{
    static uint8_t buf[1u << 20];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
        for (size_t at = 0; at < n;) {
            size_t max = dw_conn_max_pdu(p->c), len = n - at;
            len = len < record ? len : record;
            len = len < max ? len : max;
            struct iovec iov[DW_FR_FRAME_IOV_MAX];
            dw_fr_frame_info fi;
            ssize_t f = dw_conn_writev_iov(p->c, NULL, 0, buf + at, len, iov,
                                           DW_FR_FRAME_IOV_MAX, &fi);
            if (f < 0)
                return fprintf(stderr, "uring_mpa: frame: %s\n", dw_strerror((int)f)), -1;
            if (send_all(p, iov, fi.iovcnt))
                return fprintf(stderr, "uring_mpa: send: %s\n", strerror(errno)), -1;
            at += len;
        }
    struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
    io_uring_prep_shutdown(sqe, p->fd, SHUT_WR);
    return run(p, sqe) < 0 ? -1 : 0;
}

/* Until the peer's FIN: a clean end at a frame boundary is success. */
static int drain(pump *p)
{
    int rc = 0, r;
    while ((r = recv_feed(p, 0, &rc)) > 0) {
    }
    if (rc != DW_ERR_CLOSED || p->failed)
        return fprintf(stderr, "uring_mpa: %s\n", dw_strerror(rc)), -1;
    return 0;
}

int main(int argc, char **argv)
{
    static pump p;
    args a;
    if (parse(argc, argv, &a))
        return usage();
    int r = io_uring_queue_init(8, &p.ring, 0);
    if (r < 0) {
        fprintf(stderr, "uring_mpa: no io_uring here: %s%s\n", strerror(-r),
                r == -EPERM ? " (sysctl kernel.io_uring_disabled?)" : "");
        return 77;
    }
    dw_conn_callbacks cb = {on_pdu, on_error, NULL};
    int rc = dw_conn_new(&p.c, &a.st, &cb, &p);
    if (rc)
        return fprintf(stderr, "uring_mpa: %s\n", dw_strerror(rc)), 1;
    int ok = (p.fd = open_conn(&p, &a)) >= 0 && !start(&p) &&
             (!a.connect || !send_input(&p, a.record)) && !drain(&p);
    if (fflush(stdout))
        ok = 0;
    fprintf(stderr, "%llu records, %llu octets received\n", (unsigned long long)p.records,
            (unsigned long long)p.octets);
    if (p.fd >= 0)
        close(p.fd);
    dw_conn_del(p.c);
    io_uring_queue_exit(&p.ring);
    return ok ? 0 : 1;
}
