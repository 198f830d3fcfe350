/* SPDX-License-Identifier: MIT */
/* Shared by the socket adapter's tests. */
#ifndef DW_TEST_SOCK_UTIL_H
#define DW_TEST_SOCK_UTIL_H

#include <ddpwire/mpa_sock.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>

/* A listening socket on host (IPv4 or IPv6) at a port the system picks,
 * written to port (16 octets) in decimal; -1 when it cannot listen. */
static inline int listen_any_on(const char *host, char *port)
{
    int fd;
    char err[200];
    if (dw_sock_listen(&fd, host, "0", err, sizeof err))
        return -1;
    struct sockaddr_storage a;
    socklen_t l = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &l);
    unsigned pn = ntohs(a.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port
                                                : ((struct sockaddr_in *)&a)->sin_port);
    snprintf(port, 16, "%u", pn);
    return fd;
}

#endif
