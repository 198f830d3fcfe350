/* SPDX-License-Identifier: MIT */
/* What the socket adapter reads from TCP_INFO (the kernel's struct, newer
 * than the C library's: lib/io/tcp_info.c includes <linux/tcp.h> alone). */
#ifndef DW_IO_TCP_INFO_H
#define DW_IO_TCP_INFO_H

#include <stddef.h>

/* Octets the peer's advertised receive window still admits beyond all
 * that is queued on the socket (sent or not): the right edge of the
 * window (snd_una + tcpi_snd_wnd, present in Linux 6.1) minus the end of the send
 * queue (SIOCOUTQ), 0 when the queue already reaches past it. Read queue
 * first, window second, so an ACK in between can only make the answer
 * smaller. SIZE_MAX where the kernel does not say. */
size_t dw_io_window_room(int fd);

/* The MSS the path's MTU allows now: the route's MTU (IP_MTU / IPV6_MTU,
 * which follows a device's MTU at once) minus the IP and TCP headers and
 * the timestamp option when the connection uses it; 0 where unknown. The
 * kernel's cached MSS (TCP_MAXSEG) catches up with a lower MTU only when it
 * next sends (tcp_current_mss), after the next write was framed. */
uint32_t dw_io_path_mss(int fd);

#endif
