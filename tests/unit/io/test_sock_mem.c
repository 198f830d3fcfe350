/* SPDX-License-Identifier: MIT */
/*
 * The socket adapter's allocations go through settings.mem (the dw_conn
 * inside it included): over loopback, a connection made, accepted, a
 * record and a marked byte stream sent and received, with the Nth
 * allocation failing for every N until none fails. Each run ends with
 * DW_ERR_NOMEM from the call that needed the memory, or the full result;
 * every allocation is freed either way.
 */
#include <ddpwire/mpa_sock.h>

#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "failing_mem.h"
#include "test.h"
#include "sock_util.h"


static size_t got_octets;

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    (void)rx, (void)hdr, (void)hlen, (void)d, (void)off, (void)u;
    got_octets += len;
    return 0;
}

static uint8_t data[20000];

/* Receives on srv until want octets arrived; 0 or the failure. */
static int recv_all(dw_sock *srv, size_t want)
{
    while (got_octets < want) {
        ssize_t r = dw_sock_recv(srv);
        if (r < 0)
            return (int)r;
    }
    return 0;
}

/* One run: 0 (all arrived), DW_ERR_NOMEM, or another failure (wrong). */
static int scenario(int lfd, const char *port, const dw_mem *m, int nonblocking)
{
    dw_sock_settings o;
    dw_sock_settings_default(&o);
    o.cb = (dw_fr_rx_callbacks){on_pdu, NULL, NULL};
    o.mem = m;
    o.nonblocking = nonblocking;
    o.rbuf_size = 4096; /* records span reads: reassembly buffers */
    dw_sock *cli = NULL, *srv = NULL;
    got_octets = 0;
    int rc = dw_sock_connect(&cli, "127.0.0.1", port, &o, NULL, 0);
    if (!rc)
        rc = dw_sock_accept(&srv, lfd, &o, NULL, 0);
    if (!rc && !nonblocking)
        rc = dw_sock_send(cli, data, 9000);
    if (!rc && !nonblocking) {
        ssize_t n = dw_sock_send_stream(cli, data, sizeof data, 0, NULL);
        rc = n < 0 ? (int)n : n == (ssize_t)sizeof data ? 0 : DW_ERR_IO;
    }
    if (!rc && !nonblocking)
        rc = recv_all(srv, 9000 + sizeof data);
    if (rc && !cli && !srv) { /* the connect failed: drop what waits */
        struct pollfd pf = {lfd, POLLIN, 0};
        if (poll(&pf, 1, 1000) == 1)
            close(accept(lfd, NULL, NULL));
    }
    dw_sock_close(srv);
    dw_sock_close(cli);
    return rc;
}

static void torture(int nonblocking)
{
    char port[16];
    int lfd = listen_any_on("127.0.0.1", port);
    CHECK(lfd >= 0);
    if (lfd < 0)
        return;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 31);
    counting c = {0, 0, 0};
    dw_mem m = {&c, t_malloc, t_free, t_calloc, t_realloc};
    unsigned long n, nomem = 0;
    for (n = 1; n < 1000; n++) {
        c.calls = 0, c.fail_at = n, c.live = 0;
        int rc = scenario(lfd, port, &m, nonblocking);
        CHECK_EQ_U(c.live, 0);
        if (c.calls < n) { /* no allocation failed: the full result */
            CHECK_EQ_U(rc, 0);
            break;
        }
        CHECK_EQ_U((unsigned long long)rc, (unsigned long long)DW_ERR_NOMEM);
        nomem++;
    }
    CHECK(n < 1000);
    CHECK(nomem >= (nonblocking ? 3u : 5u)); /* the sock, its buffers, its dw_conn */
    close(lfd);
}

static void test_blocking_allocations(void)
{
    torture(0);
}

static void test_nonblocking_allocations(void)
{
    torture(1);
}

int main(void)
{
    RUN(test_blocking_allocations);
    RUN(test_nonblocking_allocations);
    return dw_test_finish();
}
