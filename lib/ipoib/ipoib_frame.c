/* SPDX-License-Identifier: MIT */
/* IPoIB frames: encapsulation header, ARP over InfiniBand, pcap type 242. */
#include <ddpwire/ipoib.h>

#include <string.h>

#include "base/bytes.h"

ssize_t dw_ipoib_hdr_decode(dw_ipoib_hdr *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IPOIB_HDR_LEN)
        return DW_ERR_NEED_MORE;
    out->type = dw_get_be16(in);
    out->reserved = dw_get_be16(in + 2); /* reported, not judged */
    return DW_IPOIB_HDR_LEN;
}

ssize_t dw_ipoib_hdr_encode(uint8_t *out, size_t cap, const dw_ipoib_hdr *h)
{
    if (!out || !h)
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_HDR_LEN)
        return DW_ERR_NOSPACE;
    dw_put_be16(out, h->type);
    dw_put_be16(out + 2, h->reserved);
    return DW_IPOIB_HDR_LEN;
}

/* RFC 826 fields as RFC 4391 5 fills them for InfiniBand. */
ssize_t dw_ipoib_arp_decode(dw_ipoib_arp *out, const uint8_t *in, size_t len)
{
    static const uint8_t fixed[6] = {0, DW_IPOIB_ARP_HTYPE, 0x08, 0x00, DW_IPOIB_ADDR_LEN, 4};
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    size_t n = len < sizeof fixed ? len : sizeof fixed;
    if (memcmp(in, fixed, n))
        return DW_ERR_MALFORMED; /* not IPv4 ARP with 20-octet addresses */
    if ((len >= 7 && in[6]) ||
        (len >= 8 && in[7] != DW_IPOIB_ARP_REQUEST && in[7] != DW_IPOIB_ARP_REPLY))
        return DW_ERR_MALFORMED; /* operation 1 or 2 */
    if (len < DW_IPOIB_ARP_LEN)
        return DW_ERR_NEED_MORE;
    out->op = in[7];
    dw_ipoib_addr_decode(&out->sha, in + 8, DW_IPOIB_ADDR_LEN);
    out->spa = dw_get_be32(in + 28);
    dw_ipoib_addr_decode(&out->tha, in + 32, DW_IPOIB_ADDR_LEN);
    out->tpa = dw_get_be32(in + 52);
    return DW_IPOIB_ARP_LEN;
}

ssize_t dw_ipoib_arp_encode(uint8_t *out, size_t cap, const dw_ipoib_arp *a)
{
    if (!out || !a || (a->op != DW_IPOIB_ARP_REQUEST && a->op != DW_IPOIB_ARP_REPLY) ||
        a->sha.qpn > DW_IPOIB_QPN_MAX || a->tha.qpn > DW_IPOIB_QPN_MAX)
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_ARP_LEN)
        return DW_ERR_NOSPACE;
    dw_put_be16(out, DW_IPOIB_ARP_HTYPE);
    dw_put_be16(out + 2, DW_IPOIB_TYPE_IPV4);
    out[4] = DW_IPOIB_ADDR_LEN;
    out[5] = 4;
    dw_put_be16(out + 6, a->op);
    dw_ipoib_addr_encode(out + 8, DW_IPOIB_ADDR_LEN, &a->sha);
    dw_put_be32(out + 28, a->spa);
    dw_ipoib_addr_encode(out + 32, DW_IPOIB_ADDR_LEN, &a->tha);
    dw_put_be32(out + 52, a->tpa);
    return DW_IPOIB_ARP_LEN;
}

static int all_zero(const uint8_t *p, size_t n)
{
    while (n--)
        if (*p++)
            return 0;
    return 1;
}

ssize_t dw_ipoib_lt242_decode(dw_ipoib_lt242 *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IPOIB_LT242_LEN)
        return DW_ERR_NEED_MORE;
    dw_ipoib_lt242 h = {0};
    /* Wireshark: a zero first 16-bit word means no GRH (unicast) */
    h.grh = in[0] || in[1];
    if (h.grh) {
        if ((in[0] >> 4) != 6)
            return DW_ERR_MALFORMED;
        h.sqpn = (uint32_t)in[5] << 16 | (uint32_t)in[6] << 8 | in[7];
        memcpy(h.sgid, in + 8, DW_IPOIB_GID_LEN);
        memcpy(h.dgid, in + 24, DW_IPOIB_GID_LEN);
    } else {
        if (!all_zero(in, DW_IPOIB_ADDR_LEN))
            return DW_ERR_MALFORMED;
        dw_ipoib_addr_decode(&h.dst, in + 20, DW_IPOIB_ADDR_LEN);
    }
    *out = h;
    return DW_IPOIB_LT242_LEN;
}

ssize_t dw_ipoib_lt242_encode(uint8_t *out, size_t cap, const dw_ipoib_lt242 *h)
{
    if (!out || !h || h->sqpn > DW_IPOIB_QPN_MAX || h->dst.qpn > DW_IPOIB_QPN_MAX)
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_LT242_LEN)
        return DW_ERR_NOSPACE;
    memset(out, 0, DW_IPOIB_LT242_LEN);
    if (!h->grh) {
        dw_ipoib_addr_encode(out + 20, DW_IPOIB_ADDR_LEN, &h->dst);
        return DW_IPOIB_LT242_LEN;
    }
    out[0] = 0x60; /* IP version 6, traffic class and flow label 0 */
    out[5] = (uint8_t)(h->sqpn >> 16);
    out[6] = (uint8_t)(h->sqpn >> 8);
    out[7] = (uint8_t)h->sqpn;
    memcpy(out + 8, h->sgid, DW_IPOIB_GID_LEN);
    memcpy(out + 24, h->dgid, DW_IPOIB_GID_LEN);
    return DW_IPOIB_LT242_LEN;
}
