/* SPDX-License-Identifier: MIT */
/* Hosts of the simulated fabric: a minimal IPv4 stack that answers echo
 * requests, pings, and sends and checks bulk UDP transfers. */
#include <ddpwire/ipoib_node.h>

#include <string.h>

#include "base/bytes.h"
#include "ipoib_sim_internal.h"

#define IP_HDR 20u
#define ICMP_HDR 8u
#define UDP_HDR 8u
#define BULK_HDR 4u /* sequence number */
#define PKT_MAX 65535u

static uint16_t csum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += dw_get_be16(p + i);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

static void ip_hdr(uint8_t *p, size_t total, uint8_t proto, uint32_t src, uint32_t dst)
{
    memset(p, 0, IP_HDR);
    p[0] = 0x45;
    dw_put_be16(p + 2, (uint16_t)total);
    p[6] = 0x40; /* don't fragment */
    p[8] = 64;
    p[9] = proto;
    dw_put_be32(p + 12, src);
    dw_put_be32(p + 16, dst);
    dw_put_be16(p + 10, csum(p, IP_HDR));
}

static uint32_t my_ip(const sim_host *h)
{
    return dw_ipoib_node_settings_get(h->node)->ipv4;
}

static int send_pkt(sim_host *h, const uint8_t *pkt, size_t len)
{
    int r = dw_ipoib_node_send(h->node, pkt, len, h->f->now);
    if (r < 0 && r != DW_ERR_NOSPACE) { /* NOSPACE: try later */
        h->st.send_errors++;
        dw_ipoib_sim_node_rc(h->f, r, "dw_ipoib_node_send");
    }
    return r;
}

/* ---- echo (ICMP type 8 / 0) ---- */

static size_t build_icmp(uint8_t *p, uint8_t type, uint16_t id, uint16_t seq,
                         const uint8_t *data, size_t dlen, uint32_t src, uint32_t dst)
{
    size_t total = IP_HDR + ICMP_HDR + dlen;
    ip_hdr(p, total, DW_IPOIB_PROTO_ICMP, src, dst);
    uint8_t *c = p + IP_HDR;
    memset(c, 0, ICMP_HDR);
    c[0] = type;
    dw_put_be16(c + 4, id);
    dw_put_be16(c + 6, seq);
    memmove(c + ICMP_HDR, data, dlen);
    dw_put_be16(c + 2, csum(c, ICMP_HDR + dlen));
    return total;
}

static void on_icmp(sim_host *h, const uint8_t *pkt, size_t len, size_t ihl)
{
    uint8_t *out = h->f->pkt;
    const uint8_t *c = pkt + ihl;
    size_t clen = len - ihl;
    if (clen < ICMP_HDR || csum(c, clen) != 0)
        return;
    uint16_t id = dw_get_be16(c + 4), seq = dw_get_be16(c + 6);
    if (c[0] == 8) { /* echo request: answer it */
        h->st.echo_served++;
        size_t n = build_icmp(out, 0, id, seq, c + ICMP_HDR, clen - ICMP_HDR, my_ip(h),
                              dw_get_be32(pkt + 12));
        send_pkt(h, out, n);
    } else if (c[0] == 0 && h->ping_waiting && id == (uint16_t)h->idx &&
               seq == h->ping_seq) {
        h->ping_waiting = 0;
        h->st.echo_replies++;
    }
}

/* ---- bulk UDP: payload = 32-bit sequence number, then a pattern ---- */

static uint8_t pattern(uint32_t seq, size_t i)
{
    return (uint8_t)(seq * 7u + i * 13u + (i >> 8));
}

static void on_udp(sim_host *h, const uint8_t *pkt, size_t len, size_t ihl)
{
    const uint8_t *u = pkt + ihl;
    if (len < ihl + UDP_HDR + BULK_HDR || dw_get_be16(u + 4) != len - ihl)
        return;
    if (dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, pkt, len) == DW_IPOIB_PKT_MULTICAST) {
        h->st.mcast_rcvd++;
        return;
    }
    const uint8_t *d = u + UDP_HDR;
    size_t dlen = len - ihl - UDP_HDR;
    uint32_t seq = dw_get_be32(d);
    int good = seq < BULK_SEQ_MAX;
    for (size_t i = BULK_HDR; good && i < dlen; i++)
        good = d[i] == pattern(seq, i);
    if (!good) {
        h->st.bulk_bad++;
        return;
    }
    if (h->seen[seq / 8] & (1u << (seq % 8))) {
        h->st.bulk_dups++;
        return;
    }
    h->seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
    h->st.bulk_pkts_rcvd++;
    h->st.bulk_rcvd += dlen - BULK_HDR;
}

static size_t build_udp(uint8_t *p, uint32_t seq, size_t payload, uint16_t port, uint32_t src,
                        uint32_t dst)
{
    size_t dlen = BULK_HDR + payload, total = IP_HDR + UDP_HDR + dlen;
    ip_hdr(p, total, DW_IPOIB_PROTO_UDP, src, dst);
    uint8_t *u = p + IP_HDR;
    dw_put_be16(u, 40000);
    dw_put_be16(u + 2, port);
    dw_put_be16(u + 4, (uint16_t)(UDP_HDR + dlen));
    dw_put_be16(u + 6, 0); /* no checksum (IPv4) */
    dw_put_be32(u + UDP_HDR, seq);
    for (size_t i = BULK_HDR; i < dlen; i++)
        u[UDP_HDR + i] = pattern(seq, i);
    return total;
}

void dw_ipoib_host_deliver(dw_ipoib_node *n, uint16_t type, const uint8_t *pkt, size_t len,
                        dw_ipoib_mode via, void *user_data)
{
    sim_host *h = user_data;
    (void)n;
    h->st.rx_via[via]++;
    if (len > h->st.max_rx_len)
        h->st.max_rx_len = len;
    if (type != DW_IPOIB_TYPE_IPV4 || len < IP_HDR || (pkt[0] >> 4) != 4)
        return;
    size_t ihl = (size_t)(pkt[0] & 15) * 4;
    if (ihl < IP_HDR || ihl > len || dw_get_be16(pkt + 2) != len || csum(pkt, ihl) != 0)
        return;
    if (pkt[9] == DW_IPOIB_PROTO_ICMP)
        on_icmp(h, pkt, len, ihl);
    else if (pkt[9] == DW_IPOIB_PROTO_UDP)
        on_udp(h, pkt, len, ihl);
}

int dw_ipoib_host_generate(sim_host *h)
{
    uint8_t *out = h->f->pkt;
    int sent = 0;
    if (h->ping_left && !h->ping_waiting) {
        uint8_t data[1024];
        size_t dlen = h->ping_size < sizeof data ? h->ping_size : sizeof data;
        for (size_t i = 0; i < dlen; i++)
            data[i] = (uint8_t)(i + h->ping_seq + 1);
        size_t n = build_icmp(out, 8, (uint16_t)h->idx, (uint16_t)(h->ping_seq + 1), data, dlen,
                              my_ip(h), h->ping_dst);
        int r = send_pkt(h, out, n);
        if (r != DW_ERR_NOSPACE) {
            h->ping_seq++;
            h->ping_left--;
            h->ping_waiting = r == 0;
            h->st.echo_sent++;
            sent = 1;
        }
    }
    if (h->bulk_left && h->bulk_seq < BULK_SEQ_MAX) {
        uint32_t mtu = dw_ipoib_node_path_mtu(h->node, h->bulk_dst);
        size_t room = (mtu > PKT_MAX ? PKT_MAX : mtu) - IP_HDR - UDP_HDR - BULK_HDR;
        size_t payload = h->bulk_left < room ? (size_t)h->bulk_left : room;
        size_t n = build_udp(out, h->bulk_seq, payload, h->bulk_port, my_ip(h), h->bulk_dst);
        int r = send_pkt(h, out, n);
        if (r != DW_ERR_NOSPACE) {
            h->bulk_seq++;
            h->bulk_left -= payload;
            h->st.bulk_pkts_sent++;
            h->st.bulk_sent += payload;
            sent = 1;
        }
    }
    return sent;
}

static sim_host *host_at(dw_ipoib_fabric *f, int i)
{
    return f && i >= 0 && (unsigned)i < f->n_hosts ? &f->hosts[i] : NULL;
}

int dw_ipoib_fabric_ping(dw_ipoib_fabric *f, int i, uint32_t dst, unsigned count, size_t size)
{
    sim_host *h = host_at(f, i);
    if (!h || size > 1024)
        return DW_ERR_INVAL;
    h->ping_dst = dst;
    h->ping_left = count;
    h->ping_size = size;
    return 0;
}

int dw_ipoib_fabric_bulk(dw_ipoib_fabric *f, int i, uint32_t dst, uint16_t port,
                         uint64_t octets)
{
    sim_host *h = host_at(f, i);
    /* sequence numbers must suffice even at the UD MTU */
    uint64_t per = DW_IPOIB_UD_MTU - IP_HDR - UDP_HDR - BULK_HDR;
    if (!h || octets / per + 1 > BULK_SEQ_MAX)
        return DW_ERR_INVAL;
    h->bulk_dst = dst;
    h->bulk_port = port;
    h->bulk_left = octets;
    h->bulk_seq = 0;
    return 0;
}

int dw_ipoib_fabric_mcast(dw_ipoib_fabric *f, int i, uint32_t group, size_t size)
{
    sim_host *h = host_at(f, i);
    if (!h || size + IP_HDR + UDP_HDR + BULK_HDR > DW_IPOIB_UD_MTU)
        return DW_ERR_INVAL;
    size_t n = build_udp(f->pkt, 0, size, 9, my_ip(h), group);
    return send_pkt(h, f->pkt, n);
}

const dw_ipoib_host_stats *dw_ipoib_fabric_host_stats_get(const dw_ipoib_fabric *f, int i)
{
    return host_at((dw_ipoib_fabric *)f, i) ? &f->hosts[i].st : NULL;
}
