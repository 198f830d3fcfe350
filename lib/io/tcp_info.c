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

#include "io/tcp_info.h"

uint32_t dw_io_ip_hdr(int fd)
{
    struct sockaddr_storage ss;
    socklen_t l = sizeof ss;
    if (getpeername(fd, (struct sockaddr *)&ss, &l) != 0)
        return 0;
    if (ss.ss_family == AF_INET)
        return 20;
    if (ss.ss_family != AF_INET6)
        return 0;
    const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return memcmp(a->s6_addr, mapped, 12) ? 40 : 20;
}

void dw_io_send_view_get(int fd, uint32_t ip_hdr, dw_io_send_view *v)
{
    int outq = -1;
    struct tcp_info ti = {0};
    socklen_t l = sizeof ti;
    *v = (dw_io_send_view){0, 0, SIZE_MAX, 0};
    if (ioctl(fd, SIOCOUTQ, &outq) != 0)
        outq = -1;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0)
        return;
    v->mss = ti.tcpi_snd_mss;
    if (outq >= 0 && l >= offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof ti.tcpi_snd_wnd)
        v->room = ti.tcpi_snd_wnd > (unsigned)outq ? ti.tcpi_snd_wnd - (unsigned)outq : 0;
    if (!ip_hdr)
        return;
    v->hdr = ip_hdr + 20 + (ti.tcpi_options & TCPI_OPT_TIMESTAMPS ? 12 : 0);
    v->path_mss = dw_io_path_mss(fd, v->hdr);
}

uint32_t dw_io_path_mss(int fd, uint32_t hdr)
{
    int mtu = 0, v6 = hdr >= 60; /* IPv6's 40 and TCP's 20 at least */
    socklen_t ml = sizeof mtu;
    if (!hdr ||
        getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU, &mtu, &ml) != 0)
        return 0;
    return mtu > 0 && (uint32_t)mtu > hdr ? (uint32_t)mtu - hdr : 0;
}
