/* SPDX-License-Identifier: MIT */
/* Captured frames <-> IPv4/IPv6 + TCP segments (pure codec). */
#include <ddpwire/pkt.h>

#include <string.h>

#include "base/bytes.h"

#define ETH_IPV4 0x0800u
#define ETH_IPV6 0x86ddu
#define IPOIB_PSEUDO 40u /* Wireshark's LINKTYPE_IPOIB pseudo-header */

const char *dw_pkt_reason_str(dw_pkt_reason r)
{
    switch (r) {
#define DW_PKT_R_TEXT_(name, value, text)                                     \
    case value:                                                               \
        return text;
        DW_PKT_REASONS(DW_PKT_R_TEXT_)
#undef DW_PKT_R_TEXT_
    }
    return "unknown reason";
}

uint32_t dw_pkt_csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
    uint64_t s = sum;
    for (; n >= 2; p += 2, n -= 2)
        s += dw_get_be16(p);
    if (n)
        s += (uint32_t)p[0] << 8;
    while (s >> 32)
        s = (s & 0xffffffffu) + (s >> 32);
    return (uint32_t)s;
}

uint16_t dw_pkt_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* ---- parsing ---- */

static int fail(dw_pkt_reason *why, dw_pkt_reason r)
{
    if (why)
        *why = r;
    switch (r) {
    case DW_PKT_R_TRUNC_LINK:
    case DW_PKT_R_TRUNC_IP:
    case DW_PKT_R_TRUNC_TCP:
        return DW_ERR_NEED_MORE;
    case DW_PKT_R_LINKTYPE:
    case DW_PKT_R_NOT_IP:
    case DW_PKT_R_FRAGMENT:
    case DW_PKT_R_NOT_TCP:
        return DW_ERR_UNSUPPORTED;
    default:
        return DW_ERR_MALFORMED;
    }
}

static unsigned ver_of_ethertype(uint16_t t)
{
    return t == ETH_IPV4 ? 4 : t == ETH_IPV6 ? 6 : 0;
}

static unsigned ver_of_af(uint32_t af)
{
    if (af == 2)
        return 4;
    return af == 10 || af == 24 || af == 28 || af == 30 ? 6 : 0;
}

/* The link layer: *off = octets before IP, *ver = 4, 6 or 0 (from IP). */
static dw_pkt_reason link_layer(dw_pkt_tcp *o, const uint8_t *f, size_t cap,
                                unsigned *ver)
{
    size_t need;
    uint32_t af;
    *ver = 0;
    switch (o->linktype) {
    case DW_PKT_LINK_NULL:
    case DW_PKT_LINK_LOOP:
        if (cap < 4)
            return DW_PKT_R_TRUNC_LINK;
        af = dw_get_be32(f);
        if (o->linktype == DW_PKT_LINK_NULL && af > 0xffff) /* host order */
            af = (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 |
                 (uint32_t)f[3] << 24;
        o->link_len = 4;
        *ver = ver_of_af(af);
        break;
    case DW_PKT_LINK_ETHERNET:
        if (cap < 14)
            return DW_PKT_R_TRUNC_LINK;
        need = 14;
        if (dw_get_be16(f + 12) == 0x8100 || dw_get_be16(f + 12) == 0x88a8) {
            if (cap < 18)
                return DW_PKT_R_TRUNC_LINK;
            o->vlan = dw_get_be16(f + 14) & 0xfff;
            need = 18;
        }
        o->link_len = need;
        *ver = ver_of_ethertype(dw_get_be16(f + need - 2));
        break;
    case DW_PKT_LINK_SLL:
        if (cap < 16)
            return DW_PKT_R_TRUNC_LINK;
        o->link_len = 16;
        *ver = ver_of_ethertype(dw_get_be16(f + 14));
        break;
    case DW_PKT_LINK_SLL2:
        if (cap < 20)
            return DW_PKT_R_TRUNC_LINK;
        o->link_len = 20;
        *ver = ver_of_ethertype(dw_get_be16(f));
        break;
    case DW_PKT_LINK_IPOIB:
        if (cap < IPOIB_PSEUDO + 4)
            return DW_PKT_R_TRUNC_LINK;
        o->link_len = IPOIB_PSEUDO + 4;
        *ver = ver_of_ethertype(dw_get_be16(f + IPOIB_PSEUDO));
        break;
    case DW_PKT_LINK_RAW:
    case DW_PKT_LINK_DLT_RAW:
        o->link_len = 0;
        return DW_PKT_R_OK;
    case DW_PKT_LINK_IPV4:
    case DW_PKT_LINK_IPV6:
        o->link_len = 0;
        *ver = o->linktype == DW_PKT_LINK_IPV4 ? 4 : 6;
        return DW_PKT_R_OK;
    default:
        return DW_PKT_R_LINKTYPE;
    }
    return *ver ? DW_PKT_R_OK : DW_PKT_R_NOT_IP;
}

static dw_pkt_reason ipv4(dw_pkt_tcp *o, size_t cap, size_t wire, size_t *l4len,
                          unsigned flags)
{
    const uint8_t *p = o->ip;
    if (cap < 20)
        return DW_PKT_R_TRUNC_IP;
    size_t ihl = (size_t)(p[0] & 15) * 4, total = dw_get_be16(p + 2);
    if (ihl < 20 || ihl > total)
        return DW_PKT_R_IP_HEADER_LEN;
    if (total > wire)
        return DW_PKT_R_IP_TOTAL_LEN;
    if (ihl > cap)
        return DW_PKT_R_TRUNC_IP;
    if (dw_get_be16(p + 6) & 0x3fff) /* MF or a fragment offset */
        return DW_PKT_R_FRAGMENT;
    if (p[9] != 6)
        return DW_PKT_R_NOT_TCP;
    o->ttl = p[8];
    memcpy(o->src, p + 12, 4);
    memcpy(o->dst, p + 16, 4);
    o->ip_hdr_len = ihl;
    *l4len = total - ihl;
    if (flags & DW_PKT_VERIFY)
        o->ip_csum = dw_pkt_csum_fold(dw_pkt_csum_add(0, p, ihl)) ? DW_PKT_CSUM_BAD
                                                                   : DW_PKT_CSUM_GOOD;
    return DW_PKT_R_OK;
}

/* IPv6 extension headers that may come before TCP. */
static int ext6(unsigned nh)
{
    return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60;
}

static dw_pkt_reason ipv6(dw_pkt_tcp *o, size_t cap, size_t wire, size_t *l4len)
{
    const uint8_t *p = o->ip;
    if (cap < 40)
        return DW_PKT_R_TRUNC_IP;
    size_t total = 40 + (size_t)dw_get_be16(p + 4), off = 40;
    if (total > wire)
        return DW_PKT_R_IP_TOTAL_LEN;
    unsigned nh = p[6];
    for (int n = 0; ext6(nh); n++) {
        if (n == 8 || off + 8 > total)
            return DW_PKT_R_IPV6_EXT;
        if (off + 8 > cap)
            return DW_PKT_R_TRUNC_IP;
        size_t len = nh == 44 ? 8 : nh == 51 ? ((size_t)p[off + 1] + 2) * 4
                                             : ((size_t)p[off + 1] + 1) * 8;
        if (off + len > total)
            return DW_PKT_R_IPV6_EXT;
        if (off + len > cap)
            return DW_PKT_R_TRUNC_IP;
        if (nh == 44 && (dw_get_be16(p + off + 2) & 0xfff9))
            return DW_PKT_R_FRAGMENT; /* an offset or M: not atomic */
        nh = p[off];
        off += len;
    }
    if (nh != 6)
        return DW_PKT_R_NOT_TCP;
    o->ttl = p[7];
    memcpy(o->src, p + 8, 16);
    memcpy(o->dst, p + 24, 16);
    o->ip_hdr_len = off;
    *l4len = total - off;
    return DW_PKT_R_OK;
}

static uint32_t pseudo_sum(const dw_pkt_tcp *o, size_t l4len)
{
    uint8_t ph[40];
    size_t n;
    if (o->ip_version == 4) {
        memcpy(ph, o->src, 4);
        memcpy(ph + 4, o->dst, 4);
        dw_put_be32(ph + 8, (uint32_t)(6u << 16 | l4len));
        n = 12;
    } else {
        memcpy(ph, o->src, 16);
        memcpy(ph + 16, o->dst, 16);
        dw_put_be32(ph + 32, (uint32_t)l4len);
        dw_put_be32(ph + 36, 6);
        n = 40;
    }
    return dw_pkt_csum_add(0, ph, n);
}

static dw_pkt_reason tcp(dw_pkt_tcp *o, size_t cap, size_t l4len, unsigned flags)
{
    const uint8_t *t = o->tcp;
    if (l4len < 20)
        return DW_PKT_R_IP_TOTAL_LEN;
    if (cap < 20)
        return DW_PKT_R_TRUNC_TCP;
    size_t doff = (size_t)(t[12] >> 4) * 4;
    if (doff < 20 || doff > l4len)
        return DW_PKT_R_TCP_DATA_OFFSET;
    if (doff > cap)
        return DW_PKT_R_TRUNC_TCP;
    o->sport = dw_get_be16(t);
    o->dport = dw_get_be16(t + 2);
    o->seq = dw_get_be32(t + 4);
    o->ack = dw_get_be32(t + 8);
    o->flags = t[13];
    o->window = dw_get_be16(t + 14);
    o->checksum = dw_get_be16(t + 16);
    o->urgent = dw_get_be16(t + 18);
    o->tcp_hdr_len = doff;
    o->options = t + 20;
    o->options_len = doff - 20;
    o->payload = t + doff;
    o->payload_len = l4len - doff;
    o->payload_caplen = (cap < l4len ? cap : l4len) - doff;
    if (!(flags & DW_PKT_VERIFY))
        return DW_PKT_R_OK;
    if (cap < l4len)
        o->tcp_csum = DW_PKT_CSUM_UNKNOWN;
    else
        o->tcp_csum = dw_pkt_csum_fold(dw_pkt_csum_add(pseudo_sum(o, l4len), t, l4len))
                          ? DW_PKT_CSUM_BAD
                          : DW_PKT_CSUM_GOOD;
    return DW_PKT_R_OK;
}

static dw_pkt_reason parse(dw_pkt_tcp *o, const uint8_t *f, size_t caplen,
                           size_t wirelen, unsigned flags)
{
    unsigned ver;
    dw_pkt_reason r = link_layer(o, f, caplen, &ver);
    if (r)
        return r;
    size_t cap = caplen - o->link_len, wire = wirelen - o->link_len, l4len = 0;
    if (cap < 1)
        return DW_PKT_R_TRUNC_IP;
    o->ip = f + o->link_len;
    unsigned v = o->ip[0] >> 4;
    if ((ver && v != ver) || (v != 4 && v != 6))
        return DW_PKT_R_IP_VERSION;
    o->ip_version = (uint8_t)v;
    r = v == 4 ? ipv4(o, cap, wire, &l4len, flags) : ipv6(o, cap, wire, &l4len);
    if (r)
        return r;
    o->tcp = o->ip + o->ip_hdr_len;
    return tcp(o, cap - o->ip_hdr_len, l4len, flags);
}

int dw_pkt_parse(dw_pkt_tcp *out, dw_pkt_reason *why, unsigned linktype,
                 const uint8_t *frame, size_t caplen, size_t wirelen,
                 unsigned flags)
{
    if (!out || (!frame && caplen)) {
        if (why)
            *why = DW_PKT_R_OK;
        return DW_ERR_INVAL;
    }
    if (wirelen < caplen)
        wirelen = caplen;
    dw_pkt_tcp o = {.linktype = linktype, .vlan = -1};
    dw_pkt_reason r = parse(&o, frame, caplen, wirelen, flags);
    *out = o;
    if (r)
        return fail(why, r);
    if (why)
        *why = DW_PKT_R_OK;
    return 0;
}

/* ---- building ---- */

/* The link-layer header for ethertype; its length, or -1. */
static int link_header(uint8_t *h, const dw_pkt_build *b, uint16_t et)
{
    unsigned v6 = et == ETH_IPV6;
    switch (b->linktype) {
    case DW_PKT_LINK_NULL: /* little-endian, as an x86 BSD writes it */
        memset(h, 0, 4);
        h[0] = v6 ? 24 : 2;
        return 4;
    case DW_PKT_LINK_LOOP:
        dw_put_be32(h, v6 ? 24 : 2);
        return 4;
    case DW_PKT_LINK_ETHERNET:
        memcpy(h, b->mac_dst, 6);
        memcpy(h + 6, b->mac_src, 6);
        if (b->vlan < 0) {
            dw_put_be16(h + 12, et);
            return 14;
        }
        dw_put_be16(h + 12, 0x8100);
        dw_put_be16(h + 14, (uint16_t)b->vlan);
        dw_put_be16(h + 16, et);
        return 18;
    case DW_PKT_LINK_SLL:
        dw_put_be16(h, b->pkttype);
        dw_put_be16(h + 2, 1); /* ARPHRD_ETHER */
        dw_put_be16(h + 4, 6);
        memcpy(h + 6, b->mac_src, 6);
        memset(h + 12, 0, 2);
        dw_put_be16(h + 14, et);
        return 16;
    case DW_PKT_LINK_SLL2:
        dw_put_be16(h, et);
        dw_put_be16(h + 2, 0);
        dw_put_be32(h + 4, 1); /* interface index */
        dw_put_be16(h + 8, 1);
        h[10] = b->pkttype;
        h[11] = 6;
        memcpy(h + 12, b->mac_src, 6);
        memset(h + 18, 0, 2);
        return 20;
    case DW_PKT_LINK_IPOIB: /* 20 zero octets, destination address, RFC 4391 */
        memset(h, 0, IPOIB_PSEUDO);
        memcpy(h + 21, b->mac_dst, 3); /* QPN */
        h[24] = 0xfe, h[25] = 0x80;    /* GID fe80::<mac> */
        memcpy(h + 34, b->mac_dst, 6);
        dw_put_be16(h + IPOIB_PSEUDO, et);
        dw_put_be16(h + IPOIB_PSEUDO + 2, 0);
        return IPOIB_PSEUDO + 4;
    case DW_PKT_LINK_RAW:
        return 0;
    case DW_PKT_LINK_IPV4:
    case DW_PKT_LINK_IPV6:
        return (b->linktype == DW_PKT_LINK_IPV6) == v6 ? 0 : -1;
    default:
        return -1;
    }
}

static size_t put_ip(uint8_t *p, const dw_pkt_build *b, size_t l4len)
{
    if (b->ip_version == 4) {
        p[0] = 0x45;
        p[1] = 0;
        dw_put_be16(p + 2, (uint16_t)(20 + l4len));
        dw_put_be16(p + 4, b->ip_id);
        dw_put_be16(p + 6, 0x4000); /* DF */
        p[8] = b->ttl;
        p[9] = 6;
        dw_put_be16(p + 10, 0);
        memcpy(p + 12, b->src, 4);
        memcpy(p + 16, b->dst, 4);
        dw_put_be16(p + 10, dw_pkt_csum_fold(dw_pkt_csum_add(0, p, 20)));
        return 20;
    }
    dw_put_be32(p, 0x60000000u);
    dw_put_be16(p + 4, (uint16_t)l4len);
    p[6] = 6;
    p[7] = b->ttl;
    memcpy(p + 8, b->src, 16);
    memcpy(p + 24, b->dst, 16);
    return 40;
}

ssize_t dw_pkt_build_frame(uint8_t *out, size_t cap, const dw_pkt_build *b)
{
    uint8_t h[64];
    if (!out || !b || (b->ip_version != 4 && b->ip_version != 6) ||
        b->options_len % 4 || b->options_len > 40 || (!b->options && b->options_len) ||
        (!b->payload && b->payload_len) || b->vlan > 4095)
        return DW_ERR_INVAL;
    size_t l4len = 20 + b->options_len + b->payload_len;
    size_t iphl = b->ip_version == 4 ? 20 : 40;
    if (b->payload_len > 65535 || (b->ip_version == 4 ? iphl + l4len : l4len) > 65535)
        return DW_ERR_INVAL;
    int ll = link_header(h, b, b->ip_version == 4 ? ETH_IPV4 : ETH_IPV6);
    if (ll < 0)
        return DW_ERR_INVAL;
    size_t len = (size_t)ll + iphl + l4len;
    if (cap < len)
        return DW_ERR_NOSPACE;
    memcpy(out, h, (size_t)ll);
    uint8_t *ip = out + ll, *t = ip + put_ip(ip, b, l4len);
    dw_put_be16(t, b->sport);
    dw_put_be16(t + 2, b->dport);
    dw_put_be32(t + 4, b->seq);
    dw_put_be32(t + 8, b->ack);
    t[12] = (uint8_t)((20 + b->options_len) / 4 << 4);
    t[13] = b->flags;
    dw_put_be16(t + 14, b->window);
    dw_put_be32(t + 16, 0); /* checksum, urgent pointer */
    if (b->options_len)
        memcpy(t + 20, b->options, b->options_len);
    if (b->payload_len)
        memcpy(t + 20 + b->options_len, b->payload, b->payload_len);
    dw_pkt_tcp o = {.ip_version = b->ip_version};
    memcpy(o.src, b->src, 16);
    memcpy(o.dst, b->dst, 16);
    dw_put_be16(t + 16, dw_pkt_csum_fold(dw_pkt_csum_add(pseudo_sum(&o, l4len), t, l4len)));
    return (ssize_t)len;
}
