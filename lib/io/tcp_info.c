/* SPDX-License-Identifier: MIT */
/* TCP_INFO fields newer than the C library's struct tcp_info. */
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

uint32_t dw_io_path_mss(int fd)
{
    struct sockaddr_storage ss;
    socklen_t l = sizeof ss;
    if (getpeername(fd, (struct sockaddr *)&ss, &l) != 0)
        return 0;
    int v6 = ss.ss_family == AF_INET6, mtu = 0;
    uint32_t ip = 20;
    if (v6) {
        const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        ip = memcmp(a->s6_addr, mapped, 12) ? 40 : 20;
    }
    l = sizeof mtu;
    if (getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU, &mtu, &l) != 0 ||
        mtu <= 0)
        return 0;
    struct tcp_info ti = {0};
    l = sizeof ti;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0)
        return 0;
    uint32_t hdr = ip + 20 + (ti.tcpi_options & TCPI_OPT_TIMESTAMPS ? 12 : 0);
    return (uint32_t)mtu > hdr ? (uint32_t)mtu - hdr : 0;
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
