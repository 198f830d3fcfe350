/* SPDX-License-Identifier: MIT */
/*
 * NVMe-oF RDMA transport codecs: CM private data (NVMe-oF 1.1 7.3.3.1-3),
 * command and response capsules (NVMe 1.4 4.2, 4.6; NVMe-oF 1.1 2.2),
 * Fabrics Connect data (NVMe-oF 1.1 3.3, Figure 20). All fields LE.
 */
#include <ddpwire/nvmeof.h>

#include <string.h>

#include "base/bytes.h"

/* ---- CM private data ---------------------------------------------- */

int dw_nvmeof_cm_req_encode(uint8_t *out, size_t cap, const dw_nvmeof_cm_req *r)
{
    if (!out || !r)
        return DW_ERR_INVAL;
    if (cap < DW_NVMEOF_CM_LEN)
        return DW_ERR_NOSPACE;
    memset(out, 0, DW_NVMEOF_CM_LEN);
    dw_put_le16(out, r->recfmt);
    dw_put_le16(out + 2, r->qid);
    dw_put_le16(out + 4, r->hrqsize);
    dw_put_le16(out + 6, r->hsqsize);
    dw_put_le16(out + 8, r->cntlid);
    return DW_NVMEOF_CM_LEN;
}

int dw_nvmeof_cm_req_decode(dw_nvmeof_cm_req *r, const uint8_t *in, size_t len)
{
    if (!r || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_CM_LEN)
        return DW_ERR_NEED_MORE;
    *r = (dw_nvmeof_cm_req){dw_get_le16(in), dw_get_le16(in + 2), dw_get_le16(in + 4),
                            dw_get_le16(in + 6), dw_get_le16(in + 8)};
    return r->recfmt ? DW_ERR_MALFORMED : DW_NVMEOF_CM_LEN;
}

int dw_nvmeof_cm_rep_encode(uint8_t *out, size_t cap, const dw_nvmeof_cm_rep *r)
{
    if (!out || !r)
        return DW_ERR_INVAL;
    if (cap < DW_NVMEOF_CM_LEN)
        return DW_ERR_NOSPACE;
    memset(out, 0, DW_NVMEOF_CM_LEN);
    dw_put_le16(out, r->recfmt);
    dw_put_le16(out + 2, r->crqsize);
    return DW_NVMEOF_CM_LEN;
}

int dw_nvmeof_cm_rep_decode(dw_nvmeof_cm_rep *r, const uint8_t *in, size_t len)
{
    if (!r || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_CM_LEN)
        return DW_ERR_NEED_MORE;
    *r = (dw_nvmeof_cm_rep){dw_get_le16(in), dw_get_le16(in + 2)};
    return r->recfmt ? DW_ERR_MALFORMED : DW_NVMEOF_CM_LEN;
}

int dw_nvmeof_cm_rej_encode(uint8_t *out, size_t cap, const dw_nvmeof_cm_rej *r)
{
    if (!out || !r)
        return DW_ERR_INVAL;
    if (cap < DW_NVMEOF_CM_REJ_LEN)
        return DW_ERR_NOSPACE;
    dw_put_le16(out, r->recfmt);
    dw_put_le16(out + 2, r->sts);
    return DW_NVMEOF_CM_REJ_LEN;
}

int dw_nvmeof_cm_rej_decode(dw_nvmeof_cm_rej *r, const uint8_t *in, size_t len)
{
    if (!r || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_CM_REJ_LEN)
        return DW_ERR_NEED_MORE;
    *r = (dw_nvmeof_cm_rej){dw_get_le16(in), dw_get_le16(in + 2)};
    return DW_NVMEOF_CM_REJ_LEN;
}

const char *dw_nvmeof_cm_rej_str(uint16_t sts)
{
    static const char *const n[] = {
        NULL, "invalid private data length", "invalid record format", "invalid queue id",
        "invalid HSQSIZE", "invalid HRQSIZE", "no resources", "invalid IRD", "invalid ORD",
        "invalid controller id"};
    return sts < sizeof n / sizeof *n && n[sts] ? n[sts] : "unknown";
}

/* ---- Capsules -------------------------------------------------------- */

/* Keyed: address, 24-bit length, key (NVMe 1.4 Figure 117); otherwise a
 * data block: address, 32-bit length, 3 reserved. Type octet last. */
static void sgl_put(uint8_t *p, const dw_nvmeof_sgl *g)
{
    dw_put_le64(p, g->addr);
    if ((g->type >> 4) == 4) {
        p[8] = (uint8_t)g->len;
        p[9] = (uint8_t)(g->len >> 8);
        p[10] = (uint8_t)(g->len >> 16);
        dw_put_le32(p + 11, g->key);
    } else {
        dw_put_le32(p + 8, g->len);
        p[12] = p[13] = p[14] = 0;
    }
    p[15] = g->type;
}

static void sgl_get(dw_nvmeof_sgl *g, const uint8_t *p)
{
    g->addr = dw_get_le64(p);
    g->type = p[15];
    if ((g->type >> 4) == 4) {
        g->len = (uint32_t)p[8] | (uint32_t)p[9] << 8 | (uint32_t)p[10] << 16;
        g->key = dw_get_le32(p + 11);
    } else {
        g->len = dw_get_le32(p + 8);
        g->key = 0;
    }
}

int dw_nvmeof_sqe_encode(uint8_t *out, size_t cap, const dw_nvmeof_sqe *s)
{
    if (!out || !s || ((s->sgl.type >> 4) == 4 && s->sgl.len > 0xffffff))
        return DW_ERR_INVAL;
    if (cap < DW_NVMEOF_SQE_LEN)
        return DW_ERR_NOSPACE;
    out[0] = s->opcode;
    out[1] = s->flags;
    dw_put_le16(out + 2, s->cid);
    dw_put_le32(out + 4, s->nsid);
    dw_put_le32(out + 8, s->cdw2);
    dw_put_le32(out + 12, s->cdw3);
    dw_put_le64(out + 16, s->mptr);
    sgl_put(out + 24, &s->sgl);
    const uint32_t dw[6] = {s->cdw10, s->cdw11, s->cdw12, s->cdw13, s->cdw14, s->cdw15};
    for (int i = 0; i < 6; i++)
        dw_put_le32(out + 40 + 4 * i, dw[i]);
    return DW_NVMEOF_SQE_LEN;
}

int dw_nvmeof_sqe_decode(dw_nvmeof_sqe *s, const uint8_t *in, size_t len)
{
    if (!s || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_SQE_LEN)
        return DW_ERR_NEED_MORE;
    s->opcode = in[0];
    s->flags = in[1];
    s->cid = dw_get_le16(in + 2);
    s->nsid = dw_get_le32(in + 4);
    s->cdw2 = dw_get_le32(in + 8);
    s->cdw3 = dw_get_le32(in + 12);
    s->mptr = dw_get_le64(in + 16);
    sgl_get(&s->sgl, in + 24);
    uint32_t *dw[6] = {&s->cdw10, &s->cdw11, &s->cdw12, &s->cdw13, &s->cdw14, &s->cdw15};
    for (int i = 0; i < 6; i++)
        *dw[i] = dw_get_le32(in + 40 + 4 * i);
    return DW_NVMEOF_SQE_LEN;
}

int dw_nvmeof_sqe_fctype(const dw_nvmeof_sqe *s)
{
    return s && s->opcode == DW_NVME_FABRICS ? (int)(s->nsid & 0xff) : -1;
}

void dw_nvmeof_sqe_connect(dw_nvmeof_sqe *s, uint16_t qid, uint16_t sqsize, uint32_t kato_ms)
{
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_FABRICS;
    s->nsid = DW_NVMEOF_FCTYPE_CONNECT;
    s->cdw10 = (uint32_t)qid << 16; /* RECFMT 0 */
    s->cdw11 = sqsize;
    s->cdw12 = kato_ms;
}

void dw_nvmeof_sqe_prop_get(dw_nvmeof_sqe *s, uint32_t ofst, int size8)
{
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_FABRICS;
    s->nsid = DW_NVMEOF_FCTYPE_PROP_GET;
    s->cdw10 = size8 ? 1 : 0; /* ATTRIB: 0 four octets, 1 eight */
    s->cdw11 = ofst;
}

void dw_nvmeof_sqe_prop_set(dw_nvmeof_sqe *s, uint32_t ofst, int size8, uint64_t v)
{
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_FABRICS;
    s->nsid = DW_NVMEOF_FCTYPE_PROP_SET;
    s->cdw10 = size8 ? 1 : 0;
    s->cdw11 = ofst;
    s->cdw12 = (uint32_t)v;
    s->cdw13 = size8 ? (uint32_t)(v >> 32) : 0;
}

void dw_nvmeof_sqe_identify(dw_nvmeof_sqe *s, uint8_t cns, uint32_t nsid)
{
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_ADMIN_IDENTIFY;
    s->nsid = nsid;
    s->cdw10 = cns;
}

void dw_nvmeof_sqe_get_log(dw_nvmeof_sqe *s, uint8_t lid, uint32_t nsid, uint32_t len,
                           uint64_t off)
{
    uint32_t numd = len / 4 - 1; /* 0's based dwords: NUMDL in 31:16, NUMDU */
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_ADMIN_GET_LOG_PAGE;
    s->nsid = nsid;
    s->cdw10 = lid | (numd & 0xffff) << 16;
    s->cdw11 = numd >> 16;
    s->cdw12 = (uint32_t)off;
    s->cdw13 = (uint32_t)(off >> 32);
}

void dw_nvmeof_sqe_keep_alive(dw_nvmeof_sqe *s)
{
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_ADMIN_KEEP_ALIVE;
}

void dw_nvmeof_sqe_rw(dw_nvmeof_sqe *s, int write, uint32_t nsid, uint64_t slba, uint32_t nlb)
{
    memset(s, 0, sizeof *s);
    s->opcode = write ? DW_NVME_CMD_WRITE : DW_NVME_CMD_READ;
    s->nsid = nsid;
    s->cdw10 = (uint32_t)slba;
    s->cdw11 = (uint32_t)(slba >> 32);
    s->cdw12 = (nlb - 1) & 0xffff; /* NLB is 0's based */
}

void dw_nvmeof_sqe_flush(dw_nvmeof_sqe *s, uint32_t nsid)
{
    memset(s, 0, sizeof *s);
    s->opcode = DW_NVME_CMD_FLUSH;
    s->nsid = nsid;
}

int dw_nvmeof_cqe_encode(uint8_t *out, size_t cap, const dw_nvmeof_cqe *c)
{
    if (!out || !c)
        return DW_ERR_INVAL;
    if (cap < DW_NVMEOF_CQE_LEN)
        return DW_ERR_NOSPACE;
    dw_put_le64(out, c->result);
    dw_put_le16(out + 8, c->sqhd);
    dw_put_le16(out + 10, c->sqid);
    dw_put_le16(out + 12, c->cid);
    dw_put_le16(out + 14, c->status);
    return DW_NVMEOF_CQE_LEN;
}

int dw_nvmeof_cqe_decode(dw_nvmeof_cqe *c, const uint8_t *in, size_t len)
{
    if (!c || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_CQE_LEN)
        return DW_ERR_NEED_MORE;
    *c = (dw_nvmeof_cqe){dw_get_le64(in), dw_get_le16(in + 8), dw_get_le16(in + 10), dw_get_le16(in + 12),
                         dw_get_le16(in + 14)};
    return DW_NVMEOF_CQE_LEN;
}

/* ---- Connect data ---------------------------------------------------- */

static int nqn_ok(const char *s)
{
    size_t n = 0;
    while (s && n <= DW_NVMEOF_NQN_MAX && s[n]) /* never past the NUL */
        n++;
    return s && n >= 1 && n <= DW_NVMEOF_NQN_MAX;
}

int dw_nvmeof_connect_data_encode(uint8_t *out, size_t cap, const dw_nvmeof_connect_data *d)
{
    if (!out || !d || !nqn_ok(d->subnqn) || !nqn_ok(d->hostnqn))
        return DW_ERR_INVAL;
    if (cap < DW_NVMEOF_CONNECT_DATA_LEN)
        return DW_ERR_NOSPACE;
    memset(out, 0, DW_NVMEOF_CONNECT_DATA_LEN);
    memcpy(out, d->hostid, 16);
    dw_put_le16(out + 16, d->cntlid);
    memcpy(out + 256, d->subnqn, strlen(d->subnqn));
    memcpy(out + 512, d->hostnqn, strlen(d->hostnqn));
    return DW_NVMEOF_CONNECT_DATA_LEN;
}

/* An NQN field: its text up to the NUL, which must be inside the field. */
static int nqn_get(char *dst, const uint8_t *p)
{
    const uint8_t *z = memchr(p, 0, DW_NVMEOF_NQN_FIELD);
    if (!z)
        return -1;
    memcpy(dst, p, (size_t)(z - p) + 1);
    return 0;
}

int dw_nvmeof_connect_data_decode(dw_nvmeof_connect_data *d, const uint8_t *in, size_t len)
{
    if (!d || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_CONNECT_DATA_LEN)
        return DW_ERR_NEED_MORE;
    memset(d, 0, sizeof *d);
    memcpy(d->hostid, in, 16);
    d->cntlid = dw_get_le16(in + 16);
    if (nqn_get(d->subnqn, in + 256) || nqn_get(d->hostnqn, in + 512))
        return DW_ERR_MALFORMED;
    return DW_NVMEOF_CONNECT_DATA_LEN;
}
