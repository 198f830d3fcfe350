/* SPDX-License-Identifier: MIT */
/* TCP_INFO fields newer than the C library's struct tcp_info. */
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <ddpwire/mpa_sock.h>

#include "io/tcp_info.h"

size_t dw_io_window_room(int fd)
{
    int outq = 0;
    struct tcp_info ti = {0};
    socklen_t l = sizeof ti;
    if (ioctl(fd, SIOCOUTQ, &outq) != 0 || outq < 0 ||
        getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0 ||
        l < offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof ti.tcpi_snd_wnd)
        return SIZE_MAX;
    return ti.tcpi_snd_wnd > (unsigned)outq ? ti.tcpi_snd_wnd - (unsigned)outq : 0;
}

int dw_tcp_stats_get(int fd, dw_tcp_stats *st)
{
    struct tcp_info ti = {0};
    socklen_t l = sizeof ti;
    *st = (dw_tcp_stats){0};
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0)
        return DW_ERR_IO;
    st->total_retrans = ti.tcpi_total_retrans;
    st->rtt_us = ti.tcpi_rtt;
    st->snd_mss = ti.tcpi_snd_mss;
    st->snd_cwnd = ti.tcpi_snd_cwnd;
    if (l >= offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof ti.tcpi_bytes_acked)
        st->bytes_acked = ti.tcpi_bytes_acked;
    if (l >= offsetof(struct tcp_info, tcpi_bytes_retrans) + sizeof ti.tcpi_bytes_retrans)
        st->bytes_retrans = ti.tcpi_bytes_retrans;
    return 0;
}
