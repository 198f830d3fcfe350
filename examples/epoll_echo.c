/* SPDX-License-Identifier: MIT */
/*
 * An epoll echo server on ddpwire's non-blocking socket adapter: every
 * verified MPA record goes back to its sender, and no connection can stall
 * the others. Public headers only.
 *
 *   epoll_echo PORT [COUNT]     (PORT 0: any; prints the port; stops after
 *                                COUNT connections have ended, if given)
 *
 * The pattern: wait for what dw_sock_want() asks, then dw_sock_recv() on
 * readable and dw_sock_flush() on writable. An echo the output queue cannot
 * take (DW_ERR_AGAIN) is held, and the connection is not read again until
 * the queue has taken it: a peer that does not read its echoes is not read.
 */
#include <ddpwire/mpa_sock.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct conn {
    dw_sock *s;
    uint8_t *held; /* an echo refused for now */
    size_t held_len;
    int closing;   /* the peer is done: our echoes, then our FIN */
} conn;

static int on_record(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *data,
                     size_t len, uint64_t off, void *user)
{
    conn *c = user;
    (void)rx, (void)hdr, (void)hlen, (void)off;
    int rc = dw_sock_send(c->s, data, len); /* copied if the socket is full */
    if (rc != DW_ERR_AGAIN)
        return rc; /* 0: go on; an error: stop (the next recv reports the end) */
    c->held = malloc(len);
    if (c->held)
        memcpy(c->held, data, len), c->held_len = len;
    return 1; /* pause dw_sock_recv: the rest of the input waits in the adapter */
}

/* The epoll interest for what the connection wants now. */
static void watch(int ep, conn *c, int op)
{
    unsigned w = dw_sock_want(c->s);
    struct epoll_event e = {0, {.ptr = c}};
    if (!c->held && !c->closing) /* held: read nothing until the echo went out */
        e.events |= EPOLLIN;
    if (w & DW_SOCK_WANT_WRITE || c->held)
        e.events |= EPOLLOUT;
    epoll_ctl(ep, op, dw_sock_fd(c->s), &e);
}

/* Returns 0 to keep the connection, 1 when it has ended. */
static int serve(conn *c, uint32_t events)
{
    if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        int rc = dw_sock_flush(c->s);
        if (rc && rc != DW_ERR_AGAIN)
            return 1;
        if (c->held && dw_sock_send(c->s, c->held, c->held_len) == 0) {
            free(c->held);
            c->held = NULL;
        }
    }
    while (!c->held && !c->closing) { /* reads, and input a pause left behind */
        ssize_t r = dw_sock_recv(c->s);
        if (r == DW_ERR_AGAIN)
            break;
        if (r == DW_ERR_CLOSED) { /* the peer is done sending */
            c->closing = 1;
            dw_sock_shutdown(c->s); /* the FIN follows what is queued */
        } else if (r < 0) {
            return 1; /* failed (the error went to on_error, if set) */
        }
    }
    return c->closing && !(dw_sock_want(c->s) & DW_SOCK_WANT_WRITE);
}

int main(int argc, char **argv)
{
    int lfd, ep = epoll_create1(0);
    long count = argc > 2 ? atol(argv[2]) : -1;
    if (argc < 2 || dw_sock_listen(&lfd, "127.0.0.1", argv[1], NULL, 0)) {
        fprintf(stderr, "usage: epoll_echo PORT [COUNT]\n");
        return 2;
    }
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    getsockname(lfd, (struct sockaddr *)&a, &alen);
    printf("listening on 127.0.0.1:%u\n", ntohs(a.sin_port));
    fflush(stdout);
    dw_sock_settings o;
    dw_sock_settings_default(&o);
    o.nonblocking = 1;
    o.cb.on_pdu = on_record;
    struct epoll_event e = {EPOLLIN, {.ptr = NULL}}, ev[64];
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &e);
    while (count != 0) {
        int n = epoll_wait(ep, ev, 64, -1);
        for (int i = 0; i < n; i++) {
            conn *c = ev[i].data.ptr;
            if (!c) { /* a new connection (the listening socket blocks: one at a time) */
                c = calloc(1, sizeof *c);
                o.user_data = c;
                if (c && dw_sock_accept(&c->s, lfd, &o, NULL, 0) == 0)
                    watch(ep, c, EPOLL_CTL_ADD);
                else
                    free(c);
                continue;
            }
            if (!serve(c, ev[i].events)) {
                watch(ep, c, EPOLL_CTL_MOD);
                continue;
            }
            epoll_ctl(ep, EPOLL_CTL_DEL, dw_sock_fd(c->s), NULL);
            dw_sock_close(c->s);
            free(c->held);
            free(c);
            count -= count > 0;
        }
    }
    close(lfd);
    return 0;
}
