/* SPDX-License-Identifier: MIT */
/* RDMAP messages (RFC 5040): the RDMA Read Request header, whole ULPDUs
 * decoded and encoded over the DDP header, and rping's message. */
#include <ddpwire/ddp.h>
#include <ddpwire/rdmap.h>

#include <string.h>

#include "base/bytes.h"

ssize_t dw_rdmap_read_req_decode(dw_rdmap_read_req *r, const uint8_t *in, size_t len)
{
    if (!r || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_RDMAP_READ_REQ_LEN)
        return DW_ERR_NEED_MORE;
    r->sink_stag = dw_get_be32(in);
    r->sink_to = dw_get_be64(in + 4);
    r->size = dw_get_be32(in + 12);
    r->src_stag = dw_get_be32(in + 16);
    r->src_to = dw_get_be64(in + 20);
    return DW_RDMAP_READ_REQ_LEN;
}

ssize_t dw_rdmap_read_req_encode(uint8_t *out, size_t cap, const dw_rdmap_read_req *r)
{
    if (!out || !r)
        return DW_ERR_INVAL;
    if (cap < DW_RDMAP_READ_REQ_LEN)
        return DW_ERR_NOSPACE;
    dw_put_be32(out, r->sink_stag);
    dw_put_be64(out + 4, r->sink_to);
    dw_put_be32(out + 12, r->size);
    dw_put_be32(out + 16, r->src_stag);
    dw_put_be64(out + 20, r->src_to);
    return DW_RDMAP_READ_REQ_LEN;
}

/* Which RDMAP header follows the DDP header: the same rule both ways. */
static int has_read_req(const dw_ddp_hdr *h)
{
    return !h->tagged && h->opcode == DW_RDMAP_READ_REQ;
}

static int has_term(const dw_ddp_hdr *h)
{
    return !h->tagged && h->opcode == DW_RDMAP_TERMINATE;
}

ssize_t dw_rdmap_decode(dw_rdmap_msg *m, const uint8_t *ulpdu, size_t len)
{
    if (!m || (!ulpdu && len))
        return DW_ERR_INVAL;
    dw_ddp_hdr h;
    ssize_t n = dw_ddp_decode(&h, ulpdu, len);
    if (n < 0)
        return n;
    dw_rdmap_read_req rr;
    dw_rdmap_term t;
    memset(&rr, 0, sizeof rr);
    memset(&t, 0, sizeof t);
    ssize_t k = 0;
    if (has_read_req(&h))
        k = dw_rdmap_read_req_decode(&rr, ulpdu + n, len - (size_t)n);
    else if (has_term(&h))
        k = dw_rdmap_term_decode(&t, ulpdu + n, len - (size_t)n);
    if (k < 0)
        return k;
    /* fill m only on success */
    m->hdr = h;
    m->read_req = rr;
    m->term = t;
    n += k;
    m->payload = ulpdu + n;
    m->payload_len = len - (size_t)n;
    return n;
}

ssize_t dw_rdmap_encode(uint8_t *out, size_t cap, const dw_rdmap_msg *m)
{
    if (!out || !m || (!m->payload && m->payload_len))
        return DW_ERR_INVAL;
    ssize_t n = dw_ddp_encode(out, cap, &m->hdr);
    if (n < 0)
        return n;
    ssize_t k = 0;
    if (has_read_req(&m->hdr))
        k = dw_rdmap_read_req_encode(out + n, cap - (size_t)n, &m->read_req);
    else if (has_term(&m->hdr))
        k = dw_rdmap_term_encode(out + n, cap - (size_t)n, &m->term);
    if (k < 0)
        return k;
    n += k;
    if (cap - (size_t)n < m->payload_len)
        return DW_ERR_NOSPACE;
    if (m->payload_len)
        memmove(out + n, m->payload, m->payload_len);
    return n + (ssize_t)m->payload_len;
}

ssize_t dw_rping_info_decode(dw_rping_info *r, const uint8_t *in, size_t len)
{
    if (!r || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_RPING_INFO_LEN)
        return DW_ERR_NEED_MORE;
    r->buf = dw_get_be64(in);
    r->rkey = dw_get_be32(in + 8);
    r->size = dw_get_be32(in + 12);
    return DW_RPING_INFO_LEN;
}

ssize_t dw_rping_info_encode(uint8_t *out, size_t cap, const dw_rping_info *r)
{
    if (!out || !r)
        return DW_ERR_INVAL;
    if (cap < DW_RPING_INFO_LEN)
        return DW_ERR_NOSPACE;
    dw_put_be64(out, r->buf);
    dw_put_be32(out + 8, r->rkey);
    dw_put_be32(out + 12, r->size);
    return DW_RPING_INFO_LEN;
}
