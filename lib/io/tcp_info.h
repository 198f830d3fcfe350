/* SPDX-License-Identifier: MIT */
/* What the socket adapter reads from TCP_INFO (the kernel's struct, newer
 * than the C library's: lib/io/tcp_info.c includes <linux/tcp.h> alone). */
#ifndef DW_IO_TCP_INFO_H
#define DW_IO_TCP_INFO_H

#include <stddef.h>
#include <stdint.h>

/* The IP header length of the connection's packets: 20 (IPv4, also
 * IPv4-mapped IPv6) or 40; 0 where unknown. */
uint32_t dw_io_ip_hdr(int fd);

/* What a sender needs before a write, in three system calls. */
typedef struct dw_io_send_view {
    uint32_t mss;      /* the kernel's cached MSS (TCP_MAXSEG), 0 unknown */
    uint32_t path_mss; /* the route's MTU less headers, 0 unknown */
    /* Octets the peer's advertised receive window still admits beyond all
     * that is queued on the socket (sent or not): the window's right edge
     * (snd_una + tcpi_snd_wnd, in Linux 6.1's TCP_INFO) minus the end of
     * the send queue (SIOCOUTQ), 0 when the queue reaches past it. The
     * queue is read first, the window second, so an ACK in between can
     * only make it smaller. SIZE_MAX where the kernel does not say. */
    size_t room;
    uint32_t hdr; /* IP and TCP headers with options, for dw_io_path_mss; 0 unknown */
} dw_io_send_view;

/* path_mss: the route's MTU (IP_MTU / IPV6_MTU, which follows a device's
 * MTU at once) minus ip_hdr, the TCP header and the timestamp option when
 * the connection uses it. The kernel's cached MSS catches up with a lower
 * MTU only when it next sends (tcp_current_mss), after the next write was
 * framed. ip_hdr 0: no path_mss. */
void dw_io_send_view_get(int fd, uint32_t ip_hdr, dw_io_send_view *v);

/* The route's MTU less hdr (dw_io_send_view.hdr) in one system call; 0
 * unknown. */
uint32_t dw_io_path_mss(int fd, uint32_t hdr);

#endif
