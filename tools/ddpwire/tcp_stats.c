/* SPDX-License-Identifier: MIT */
/* TCP_INFO fields newer than the C library's struct tcp_info: the kernel's
 * header alone (it clashes with <netinet/tcp.h>). */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "tcp_stats.h"

int cli_tcp_stats_get(int fd, cli_tcp_stats *st)
{
    struct tcp_info ti = {0};
    socklen_t l = sizeof ti;
    *st = (cli_tcp_stats){0};
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0)
        return -1;
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
