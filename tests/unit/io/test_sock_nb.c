/* SPDX-License-Identifier: MIT */
/*
 * The socket adapter in non-blocking use, over loopback: a client and a
 * server that never wait inside the adapter (each waits in poll for what
 * dw_sock_want asks). Records verified end to end in both start-up and
 * both segmentation modes; sends taken whole or refused with DW_ERR_AGAIN
 * against a peer that does not read, the queue within its limit, nothing
 * lost once it reads; a refused connect reported by dw_sock_flush; on_pdu
 * pausing dw_sock_recv with input left pending; a frame half arrived seen
 * by dw_sock_in_frame; the smallest memory settings.
 */
#include <ddpwire/mpa_sock.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "sock_util.h"

#define NREC 2000

static uint8_t pool[1 << 17];

typedef struct peer {
    dw_sock_settings o;
    int lfd;
    size_t got, bad;
    int pause_each;     /* on_pdu asks dw_sock_recv to return */
    size_t max_pending; /* most input left in the adapter by a pause */
    ssize_t last;       /* how the receiving ended */
    atomic_int go;      /* server: start reading */
    size_t max_queued;  /* most octets the queue held */
} peer;

static size_t rec_len(size_t i)
{
    return 1 + (i * 7919) % (i % 3 ? 1400 : 12000);
}

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    peer *p = u;
    (void)rx, (void)hdr, (void)hlen, (void)off;
    size_t i = p->got++;
    p->bad += len != rec_len(i) || memcmp(d, pool + i % 4096, len) != 0;
    return p->pause_each;
}

static void opts(dw_sock_settings *o, peer *p, int nego, int pack)
{
    dw_sock_settings_default(o);
    o->nonblocking = 1;
    o->startup = nego ? DW_SOCK_NEGOTIATE : DW_SOCK_IMMEDIATE;
    o->seg_mode = pack ? DW_MPA_SEG_PACKED : DW_MPA_SEG_ALIGNED;
    o->cb = (dw_fr_rx_callbacks){on_pdu, NULL, NULL};
    o->user_data = p;
}

static int listen_any(char *port)
{
    return listen_any_on("127.0.0.1", port);
}

/* One turn: waits (at most ms) for what s wants, then reads and flushes.
 * Returns the last dw_sock_recv result when the receiving ended (< 0 and
 * not DW_ERR_AGAIN), a dw_sock_flush failure, else 0. */
static ssize_t turn(dw_sock *s, int ms, peer *p)
{
    unsigned w = dw_sock_want(s);
    struct pollfd pf = {dw_sock_fd(s), 0, 0};
    pf.events = (short)((w & DW_SOCK_WANT_READ ? POLLIN : 0) |
                        (w & DW_SOCK_WANT_WRITE ? POLLOUT : 0));
    if (!(w & DW_SOCK_WANT_RECV) && poll(&pf, 1, ms) <= 0)
        return 0;
    if (pf.revents & (POLLOUT | POLLERR)) {
        int rc = dw_sock_flush(s);
        if (rc && rc != DW_ERR_AGAIN)
            return rc;
    }
    if (p && dw_sock_queued(s) > p->max_queued)
        p->max_queued = dw_sock_queued(s);
    ssize_t r;
    if (!(w & DW_SOCK_WANT_RECV) && !(pf.revents & (POLLIN | POLLHUP | POLLERR)))
        return 0;
    while ((r = dw_sock_recv(s)) > 0)
        if (p && dw_sock_pending(s) > p->max_pending)
            p->max_pending = dw_sock_pending(s);
    return r == DW_ERR_AGAIN ? 0 : r;
}

static void *server(void *arg)
{
    peer *p = arg;
    struct pollfd pf = {p->lfd, POLLIN, 0};
    poll(&pf, 1, 10000);
    dw_sock *s;
    if (dw_sock_accept(&s, p->lfd, &p->o, NULL, 0)) {
        p->last = DW_ERR_IO;
        return NULL;
    }
    while (!atomic_load(&p->go))
        usleep(1000);
    ssize_t r = 0;
    while (!r)
        r = turn(s, 1000, p);
    p->last = r;
    dw_sock_close(s);
    return NULL;
}

/* Sends record i until taken, turning while the adapter says AGAIN. */
static int send_one(dw_sock *s, size_t i, peer *p, size_t *agains)
{
    for (;;) {
        int rc = dw_sock_send(s, pool + i % 4096, rec_len(i));
        if (rc != DW_ERR_AGAIN)
            return rc;
        ++*agains;
        ssize_t r = turn(s, 1000, p);
        if (r)
            return (int)r;
    }
}

/* A whole client: connect, wait to be ready, NREC records, FIN, the
 * server's FIN. */
static void client(const char *port, peer *c, size_t *agains)
{
    dw_sock *s;
    CHECK_EQ_U(dw_sock_connect(&s, "127.0.0.1", port, &c->o, NULL, 0), 0);
    CHECK(!dw_sock_ready(s) || c->o.startup == DW_SOCK_IMMEDIATE);
    if (c->o.startup == DW_SOCK_NEGOTIATE) /* no FPDU before the peer's reply */
        CHECK_EQ_U(dw_sock_send(s, pool, 10), DW_ERR_STATE);
    for (int k = 0; k < 5000 && !dw_sock_ready(s); k++)
        CHECK_EQ_U(turn(s, 1000, c), 0);
    CHECK(dw_sock_ready(s));
    for (size_t i = 0; i < NREC; i++)
        CHECK_EQ_U(send_one(s, i, c, agains), 0);
    CHECK_EQ_U(dw_sock_shutdown(s), 0);
    ssize_t r = 0;
    while (!r)
        r = turn(s, 1000, c);
    CHECK_EQ_U(r, DW_ERR_CLOSED);
    CHECK_EQ_U(dw_sock_queued(s), 0);
    dw_sock_close(s);
}

static void run(int nego, int pack, size_t limit, int server_waits, int pause, size_t *agains,
                peer *srv, peer *cli)
{
    char port[16];
    memset(srv, 0, sizeof *srv);
    memset(cli, 0, sizeof *cli);
    opts(&srv->o, srv, nego, pack);
    opts(&cli->o, cli, nego, pack);
    cli->o.out_limit = limit;
    srv->pause_each = pause;
    srv->lfd = listen_any(port);
    atomic_store(&srv->go, !server_waits);
    pthread_t t;
    pthread_create(&t, NULL, server, srv);
    if (server_waits) { /* it reads only after the client was refused */
        dw_sock *s;
        int small = 4096;
        CHECK_EQ_U(dw_sock_connect(&s, "127.0.0.1", port, &cli->o, NULL, 0), 0);
        while (!dw_sock_ready(s))
            turn(s, 1000, cli);
        setsockopt(dw_sock_fd(s), SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
        size_t i = 0;
        int rc;
        while ((rc = dw_sock_send(s, pool + i % 4096, rec_len(i))) == 0)
            i++;
        CHECK_EQ_U(rc, DW_ERR_AGAIN);
        CHECK(dw_sock_queued(s) <= limit + DW_MPA_FPDU_MAX);
        /* the queue's peak is here too: a refusal means octets wait in it (a
         * flush later may drain it whole each time, as the reader is quick) */
        if (dw_sock_queued(s) > cli->max_queued)
            cli->max_queued = dw_sock_queued(s);
        CHECK(dw_sock_want(s) & DW_SOCK_WANT_WRITE);
        atomic_store(&srv->go, 1);
        for (; i < NREC; i++)
            CHECK_EQ_U(send_one(s, i, cli, agains), 0);
        dw_sock_shutdown(s);
        ssize_t r = 0;
        while (!r)
            r = turn(s, 1000, cli);
        CHECK_EQ_U(r, DW_ERR_CLOSED);
        dw_sock_close(s);
    } else {
        client(port, cli, agains);
    }
    pthread_join(t, NULL);
    close(srv->lfd);
}

static void test_transfers(void)
{
    for (int m = 0; m < 4; m++) {
        peer srv, cli;
        size_t agains = 0;
        run(m & 1, m >> 1, 262144, 0, 0, &agains, &srv, &cli);
        CHECK_EQ_U(srv.got, NREC);
        CHECK_EQ_U(srv.bad, 0);
        CHECK_EQ_U(srv.last, DW_ERR_CLOSED);
    }
}

/* The server reads only after the client's sends were refused: every
 * record taken whole or refused whole, the queue within its limit (one
 * frame over it at most), then everything arrives. */
static void test_backpressure(void)
{
    for (int pack = 0; pack < 2; pack++) {
        peer srv, cli;
        size_t agains = 0, limit = 32768;
        run(0, pack, limit, 1, 0, &agains, &srv, &cli);
        CHECK_EQ_U(srv.got, NREC);
        CHECK_EQ_U(srv.bad, 0);
        CHECK(cli.max_queued <= limit + DW_MPA_FPDU_MAX);
        CHECK(cli.max_queued > 0);
    }
}

/* on_pdu asks for a pause after every record: dw_sock_recv returns with
 * the rest of what it read pending, and feeds it next. */
static void test_pause(void)
{
    peer srv, cli;
    size_t agains = 0;
    run(1, 1, 262144, 0, 1, &agains, &srv, &cli);
    CHECK_EQ_U(srv.got, NREC);
    CHECK_EQ_U(srv.bad, 0);
    CHECK(srv.max_pending > 0);
}

/* Connecting to a port nobody listens on: dw_sock_flush says so. */
static void test_refused(void)
{
    char port[16];
    int lfd = listen_any(port);
    close(lfd); /* the port is free now */
    peer c;
    memset(&c, 0, sizeof c);
    opts(&c.o, &c, 0, 0);
    dw_sock *s;
    int rc = dw_sock_connect(&s, "127.0.0.1", port, &c.o, NULL, 0);
    if (rc == 0) {
        CHECK(!dw_sock_ready(s));
        CHECK(dw_sock_want(s) & DW_SOCK_WANT_WRITE);
        CHECK_EQ_U(dw_sock_send(s, pool, 10), DW_ERR_AGAIN); /* not connected yet */
        struct pollfd pf = {dw_sock_fd(s), POLLOUT, 0};
        poll(&pf, 1, 5000);
        rc = dw_sock_flush(s);
        dw_sock_close(s);
    }
    CHECK_EQ_U(rc, DW_ERR_IO);
    CHECK_EQ_U(errno, ECONNREFUSED);
    CHECK_EQ_U(dw_sock_connect(&s, "localhost", port, &c.o, NULL, 0), DW_ERR_INVAL);
}

/* Half an FPDU, then the rest: in a frame in between, not after. */
static void test_in_frame(void)
{
    char port[16];
    int lfd = listen_any(port);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    peer p;
    memset(&p, 0, sizeof p);
    opts(&p.o, &p, 0, 0);
    dw_sock *s;
    CHECK_EQ_U(dw_sock_accept(&s, lfd, &p.o, NULL, 0), 0);
    uint8_t f[2048];
    dw_mpa_tx *tx;
    dw_mpa_tx_new(&tx, NULL);
    ssize_t n = dw_mpa_tx_frame_into(tx, pool, rec_len(0), f, sizeof f, NULL);
    CHECK(!dw_sock_in_frame(s));
    CHECK(write(fd, f, 7) == 7);
    for (int k = 0; k < 100 && !dw_sock_in_frame(s); k++)
        turn(s, 100, &p);
    CHECK(dw_sock_in_frame(s));
    CHECK(write(fd, f + 7, (size_t)n - 7) == n - 7);
    for (int k = 0; k < 100 && !p.got; k++)
        turn(s, 100, &p);
    CHECK_EQ_U(p.got, 1);
    CHECK(!dw_sock_in_frame(s));
    dw_mpa_tx_del(tx);
    dw_sock_close(s);
    close(fd);
    close(lfd);
}

/* The smallest memory settings still carry records of every size (those
 * longer than a read are put together in a buffer allocated for them). */
static void test_small_memory(void)
{
    for (int nb = 0; nb < 2; nb++) {
        peer srv, cli;
        char port[16];
        memset(&srv, 0, sizeof srv);
        memset(&cli, 0, sizeof cli);
        opts(&srv.o, &srv, 1, 0);
        opts(&cli.o, &cli, 1, 0);
        dw_sock_settings *o[2] = {&srv.o, &cli.o};
        for (int k = 0; k < 2; k++) {
            o[k]->rbuf_size = 1024;
            o[k]->iov_max = 1;
            o[k]->tx_scratch = 2048;
            o[k]->rx_keep = DW_SOCK_RX_KEEP_NONE;
            o[k]->out_chunk = 1024;
            o[k]->out_limit = 4096;
        }
        srv.o.nonblocking = nb;
        srv.lfd = listen_any(port);
        atomic_store(&srv.go, 1);
        pthread_t t;
        pthread_create(&t, NULL, server, &srv);
        size_t agains = 0;
        client(port, &cli, &agains);
        pthread_join(t, NULL);
        close(srv.lfd);
        CHECK_EQ_U(srv.got, NREC);
        CHECK_EQ_U(srv.bad, 0);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    alarm(120); /* a call that waited where it must not would hang here */
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)(i * 131 + (i >> 9));
    RUN(test_transfers);
    RUN(test_backpressure);
    RUN(test_pause);
    RUN(test_refused);
    RUN(test_in_frame);
    RUN(test_small_memory);
    return dw_test_finish();
}
