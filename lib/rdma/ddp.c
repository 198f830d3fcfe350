/* SPDX-License-Identifier: MIT */
/* DDP segment headers (RFC 5041). */
#include <ddpwire/ddp.h>

#include <string.h>

#include "base/bytes.h"

ssize_t dw_ddp_decode(dw_ddp_hdr *h, const uint8_t *in, size_t len)
{
    if (!h || (!in && len))
        return DW_ERR_INVAL;
    if (len < 2)
        return DW_ERR_NEED_MORE;
    uint16_t c = dw_get_be16(in);
    size_t n = DW_DDP_HDR_LEN(c & DW_DDP_CTRL_TAGGED);
    if (len < n)
        return DW_ERR_NEED_MORE;
    memset(h, 0, sizeof *h);
    h->ctrl = c;
    h->tagged = !!(c & DW_DDP_CTRL_TAGGED);
    h->last = !!(c & DW_DDP_CTRL_LAST);
    h->ddp_rsvd = (uint8_t)((c & DW_DDP_CTRL_RSVD) >> 10);
    h->ddp_ver = (uint8_t)((c & DW_DDP_CTRL_DV) >> 8);
    h->rdmap_ver = (uint8_t)((c & DW_RDMAP_CTRL_RV) >> 6);
    h->rdmap_rsvd = (uint8_t)((c & DW_RDMAP_CTRL_RSVD) >> 4);
    h->opcode = (uint8_t)(c & DW_RDMAP_CTRL_OPCODE);
    if (h->tagged) {
        h->stag = dw_get_be32(in + 2);
        h->to = dw_get_be64(in + 6);
    } else {
        h->inv_stag = dw_get_be32(in + 2);
        h->qn = dw_get_be32(in + 6);
        h->msn = dw_get_be32(in + 10);
        h->mo = dw_get_be32(in + 14);
    }
    return (ssize_t)n;
}

ssize_t dw_ddp_encode(uint8_t *out, size_t cap, const dw_ddp_hdr *h)
{
    if (!out || !h || h->ddp_ver > 3 || h->rdmap_ver > 3 || h->opcode > 15 ||
        h->ddp_rsvd > 15 || h->rdmap_rsvd > 3)
        return DW_ERR_INVAL;
    size_t n = DW_DDP_HDR_LEN(h->tagged);
    if (cap < n)
        return DW_ERR_NOSPACE;
    uint16_t c = (uint16_t)((h->tagged ? DW_DDP_CTRL_TAGGED : 0) |
                            (h->last ? DW_DDP_CTRL_LAST : 0) |
                            (unsigned)h->ddp_rsvd << 10 | (unsigned)h->ddp_ver << 8 |
                            (unsigned)h->rdmap_ver << 6 | (unsigned)h->rdmap_rsvd << 4 |
                            h->opcode);
    dw_put_be16(out, c);
    if (h->tagged) {
        dw_put_be32(out + 2, h->stag);
        dw_put_be64(out + 6, h->to);
    } else {
        dw_put_be32(out + 2, h->inv_stag);
        dw_put_be32(out + 6, h->qn);
        dw_put_be32(out + 10, h->msn);
        dw_put_be32(out + 14, h->mo);
    }
    return (ssize_t)n;
}

ssize_t dw_ddp_segment_next(dw_ddp_hdr *seg, const dw_ddp_hdr *msg, size_t len, size_t *off,
                            size_t max_ulpdu)
{
    if (!seg || !msg || !off)
        return DW_ERR_INVAL;
    size_t hl = DW_DDP_HDR_LEN(msg->tagged), at = *off;
    if (max_ulpdu <= hl || at > len || (at == len && len))
        return DW_ERR_INVAL;
    size_t n = len - at < max_ulpdu - hl ? len - at : max_ulpdu - hl;
    if (msg->tagged ? n && msg->to + (at + n - 1) < msg->to : at > UINT32_MAX)
        return DW_ERR_INVAL; /* RFC 5041 7.2: TO wrap (the segment's last octet too); MO is 32 bits */
    *seg = *msg;
    seg->last = at + n == len;
    if (msg->tagged)
        seg->to = msg->to + at;
    else
        seg->mo = (uint32_t)at;
    *off = at + n;
    return (ssize_t)n;
}

size_t dw_ddp_segment_count(size_t len, size_t max_ulpdu, int tagged)
{
    size_t hl = DW_DDP_HDR_LEN(tagged);
    if (max_ulpdu <= hl)
        return 0;
    return len ? (len + (max_ulpdu - hl) - 1) / (max_ulpdu - hl) : 1;
}
