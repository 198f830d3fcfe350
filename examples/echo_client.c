/* SPDX-License-Identifier: MIT */
/*
 * A client for epoll_echo: one non-blocking MPA connection, RECORDS
 * records of growing sizes sent as fast as the adapter takes them, every
 * echo checked, then an orderly close. Public headers only.
 *
 *   echo_client HOST PORT [RECORDS]     (exit status 0: every echo intact)
 *
 * The adapter never waits: a send it cannot take now returns DW_ERR_AGAIN
 * (nothing taken), and the client waits in poll() for what dw_sock_want()
 * asks before trying again.
 */
#include <ddpwire/mpa_sock.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
    size_t sent, got, bad, n;
} state;

static uint8_t data[20000];
static size_t max_len = 16000; /* at most the connection's MULPDU */

static size_t size_of(size_t i)
{
    return 1 + (i * 7919) % max_len;
}

static int on_record(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                     uint64_t off, void *user)
{
    state *st = user;
    (void)rx, (void)hdr, (void)hlen, (void)off;
    st->bad += len != size_of(st->got) || memcmp(d, data, len) != 0;
    st->got++;
    return 0;
}

/* Waits (at most 10 s) for what s wants, then reads and flushes: the last
 * dw_sock_recv result when the input ended, a failure, else 0. */
static ssize_t step(dw_sock *s)
{
    unsigned w = dw_sock_want(s);
    struct pollfd p = {dw_sock_fd(s), 0, 0};
    p.events = (short)((w & DW_SOCK_WANT_READ ? POLLIN : 0) | (w & DW_SOCK_WANT_WRITE ? POLLOUT : 0));
    if (!(w & DW_SOCK_WANT_RECV) && poll(&p, 1, 10000) <= 0)
        return DW_ERR_TIMEOUT;
    if (p.revents & (POLLOUT | POLLERR)) {
        int rc = dw_sock_flush(s);
        if (rc && rc != DW_ERR_AGAIN)
            return rc;
    }
    ssize_t r;
    while ((r = dw_sock_recv(s)) > 0)
        ;
    return r == DW_ERR_AGAIN ? 0 : r;
}

int main(int argc, char **argv)
{
    state st = {0, 0, 0, argc > 3 ? (size_t)atol(argv[3]) : 1000};
    if (argc < 3) {
        fprintf(stderr, "usage: echo_client HOST PORT [RECORDS]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 31 + 7);
    dw_sock_settings o;
    dw_sock_settings_default(&o);
    o.nonblocking = 1; /* HOST must be numeric: resolving would wait */
    o.cb.on_pdu = on_record;
    o.user_data = &st;
    dw_sock *s;
    char err[256];
    int rc = dw_sock_connect(&s, argv[1], argv[2], &o, err, sizeof err);
    if (rc) {
        fprintf(stderr, "echo_client: %s\n", err);
        return 1;
    }
    ssize_t r = 0;
    while (!r && !dw_sock_ready(s)) /* TCP handshake (and start-up) */
        r = step(s);
    dw_sock_info info;
    dw_sock_info_get(s, &info);
    max_len = info.mulpdu < max_len ? info.mulpdu : max_len;
    while (!r && st.sent < st.n) {
        rc = dw_sock_send(s, data, size_of(st.sent));
        if (rc == 0)
            st.sent++;
        else if (rc == DW_ERR_AGAIN) /* no room now: nothing taken */
            r = step(s);
        else
            r = rc;
    }
    while (!r && st.got < st.n)
        r = step(s);
    dw_sock_shutdown(s); /* FIN after what is queued */
    while (!r)
        r = step(s); /* until the server's FIN: DW_ERR_CLOSED */
    dw_sock_close(s);
    printf("echo_client: %zu records sent, %zu echoed, %zu damaged (%s)\n", st.sent, st.got,
           st.bad, dw_err_name((int)r));
    return r == DW_ERR_CLOSED && st.got == st.n && !st.bad ? 0 : 1;
}
