/* SPDX-License-Identifier: MIT */
/* TCP RDMA option: codec, options-area walker, receive checks, RID formats. */
#include <ddpwire/tcpopt.h>
#include <ddpwire/tcpopt_rid.h>

#include "base/bytes.h"

const char *dw_tcpopt_reason_str(dw_tcpopt_reason r)
{
    switch (r) {
#define DW_TCPOPT_R_TEXT_(name, value, text)                                  \
    case value:                                                               \
        return text;
        DW_TCPOPT_REASONS(DW_TCPOPT_R_TEXT_)
#undef DW_TCPOPT_R_TEXT_
    }
    return "unknown reason";
}

const char *dw_tcpopt_reason_name(dw_tcpopt_reason r)
{
    switch (r) {
#define DW_TCPOPT_R_NAME_(name, value, text)                                  \
    case value:                                                               \
        return "DW_TCPOPT_R_" #name;
        DW_TCPOPT_REASONS(DW_TCPOPT_R_NAME_)
#undef DW_TCPOPT_R_NAME_
    }
    return "DW_TCPOPT_R_UNKNOWN";
}

static int ours(unsigned len)
{
    return len == DW_TCPOPT_LEN_NEGOTIATE || len == DW_TCPOPT_LEN_ALIGNED ||
           len == DW_TCPOPT_LEN_DATA || len == DW_TCPOPT_LEN_TOTAL;
}

ssize_t dw_tcpopt_decode(dw_tcpopt *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < 1)
        return DW_ERR_NEED_MORE;
    if (in[0] != DW_TCPOPT_KIND)
        return 0;
    if (len < 2)
        return DW_ERR_NEED_MORE;
    unsigned olen = in[1];
    if (!ours(olen))
        return 0; /* README: kind 25 of other software */
    if (len < olen)
        return DW_ERR_NEED_MORE;
    dw_tcpopt o = {0};
    o.len = (uint8_t)olen;
    if (olen >= DW_TCPOPT_LEN_ALIGNED) {
        o.a = in[2] >> 7;
        o.u = (in[2] >> 6) & 1;
        o.rid = (uint64_t)(dw_get_be16(in + 2) & 0x3fffu) << 32; /* 3.1.1 */
    }
    if (olen >= DW_TCPOPT_LEN_DATA) {
        o.rid |= dw_get_be32(in + 4);
        o.buffer_offset = dw_get_be32(in + 8);
        o.data_offset = dw_get_be16(in + 12);
        o.data_length = dw_get_be16(in + 14);
    }
    if (olen == DW_TCPOPT_LEN_TOTAL)
        o.total_length = dw_get_be32(in + 16);
    *out = o;
    return (ssize_t)olen;
}

/* Non-zero when opt sets a field its length cannot carry. */
static int carries_extra(const dw_tcpopt *o)
{
    uint64_t rest = 0;
    if (o->len < DW_TCPOPT_LEN_ALIGNED)
        rest |= o->a | o->u | o->rid;
    if (o->len < DW_TCPOPT_LEN_DATA)
        rest |= (o->rid & 0xffffffffu) | o->buffer_offset | o->data_offset |
                o->data_length;
    if (o->len < DW_TCPOPT_LEN_TOTAL)
        rest |= o->total_length;
    return rest != 0;
}

ssize_t dw_tcpopt_encode(uint8_t *out, size_t cap, const dw_tcpopt *opt)
{
    if (!out || !opt || !ours(opt->len) || opt->rid > DW_TCPOPT_RID_MAX ||
        opt->a > 1 || opt->u > 1 || carries_extra(opt))
        return DW_ERR_INVAL;
    if (cap < opt->len)
        return DW_ERR_NOSPACE;
    out[0] = DW_TCPOPT_KIND;
    out[1] = opt->len;
    if (opt->len >= DW_TCPOPT_LEN_ALIGNED) {
        dw_put_be16(out + 2, (uint16_t)(opt->rid >> 32));
        out[2] |= (uint8_t)(opt->a << 7 | opt->u << 6);
    }
    if (opt->len >= DW_TCPOPT_LEN_DATA) {
        dw_put_be32(out + 4, (uint32_t)opt->rid);
        dw_put_be32(out + 8, opt->buffer_offset);
        dw_put_be16(out + 12, opt->data_offset);
        dw_put_be16(out + 14, opt->data_length);
    }
    if (opt->len == DW_TCPOPT_LEN_TOTAL)
        dw_put_be32(out + 16, opt->total_length);
    return opt->len;
}

int dw_tcpopt_find(dw_tcpopt_found *out, const uint8_t *opts, size_t len)
{
    if (!out || (!opts && len))
        return DW_ERR_INVAL;
    dw_tcpopt_found f = {0};
    size_t i = 0;
    while (i < len && opts[i] != 0) { /* kind 0: end of option list */
        if (opts[i] == 1) {           /* NOP */
            i++;
            continue;
        }
        if (len - i < 2 || opts[i + 1] < 2 || opts[i + 1] > len - i) {
            *out = (dw_tcpopt_found){0};
            return DW_ERR_MALFORMED;
        }
        dw_tcpopt o;
        if (dw_tcpopt_decode(&o, opts + i, len - i) > 0) {
            if (f.count++ == 0) {
                f.opt = o;
                f.offset = i;
            }
        } else if (opts[i] == DW_TCPOPT_KIND) {
            f.foreign++;
        }
        i += opts[i + 1];
    }
    *out = f;
    return f.count > 0;
}

dw_tcpopt_reason dw_tcpopt_check(const dw_tcpopt *opt, size_t opt_offset,
                                 size_t payload_len)
{
    if (opt_offset % 4) /* the options area starts at TCP header octet 20 */
        return DW_TCPOPT_R_MISALIGNED;
    if (!DW_TCPOPT_HAS_DATA(opt))
        return DW_TCPOPT_R_OK;
    if (opt->data_offset > payload_len)
        return DW_TCPOPT_R_DATA_OFFSET;
    if ((size_t)opt->data_offset + opt->data_length > payload_len)
        return DW_TCPOPT_R_DATA_LENGTH;
    return DW_TCPOPT_R_OK;
}

int dw_tcpopt_parse(dw_tcpopt_found *out, dw_tcpopt_reason *reason,
                    const uint8_t *opts, size_t len, size_t payload_len)
{
    dw_tcpopt_reason r = DW_TCPOPT_R_OK;
    int rc = dw_tcpopt_find(out, opts, len);
    if (rc == DW_ERR_MALFORMED)
        r = DW_TCPOPT_R_OPTIONS_MALFORMED;
    else if (rc == 1)
        r = dw_tcpopt_check(&out->opt, out->offset, payload_len);
    if (r != DW_TCPOPT_R_OK)
        rc = DW_ERR_MALFORMED;
    if (reason)
        *reason = r;
    return rc;
}

void dw_tcpopt_total_init(dw_tcpopt_total *t, uint64_t rid)
{
    t->rid = rid;
    t->total = 0;
    t->known = 0;
}

dw_tcpopt_reason dw_tcpopt_total_check(dw_tcpopt_total *t, const dw_tcpopt *opt)
{
    if (!DW_TCPOPT_HAS_DATA(opt))
        return DW_TCPOPT_R_OK;
    if (opt->rid != t->rid)
        return DW_TCPOPT_R_WRONG_RID;
    if (!DW_TCPOPT_HAS_TOTAL(opt))
        return DW_TCPOPT_R_OK; /* 3.1.4: "when present" */
    if (t->known && opt->total_length != t->total)
        return DW_TCPOPT_R_TOTAL_CHANGED;
    t->total = opt->total_length;
    t->known = 1;
    return DW_TCPOPT_R_OK;
}

/* ---- RID formats (section 5) ---- */

int dw_tcpopt_rid_nfs_encode(uint64_t *rid, const dw_tcpopt_rid_nfs *f,
                             unsigned nfs_version)
{
    if (!rid || !f || ((nfs_version == 2 || nfs_version == 3) && f->op))
        return DW_ERR_INVAL;
    *rid = (uint64_t)f->op << 32 | f->xid;
    return 0;
}

dw_tcpopt_reason dw_tcpopt_rid_nfs_decode(dw_tcpopt_rid_nfs *out, uint64_t rid,
                                          unsigned nfs_version)
{
    if (rid > DW_TCPOPT_RID_MAX)
        return DW_TCPOPT_R_RID_RANGE;
    out->xid = (uint32_t)rid;
    out->op = (uint8_t)(rid >> 32);
    if (rid >> 40) /* 5.1.1.3 */
        return DW_TCPOPT_R_RID_ZERO_BITS;
    if ((nfs_version == 2 || nfs_version == 3) && out->op) /* 5.1.1.2 */
        return DW_TCPOPT_R_NFS_OPERATION;
    return DW_TCPOPT_R_OK;
}

int dw_tcpopt_rid_http_encode(uint64_t *rid, const dw_tcpopt_rid_http *f)
{
    if (!rid || !f)
        return DW_ERR_INVAL;
    *rid = f->request;
    return 0;
}

dw_tcpopt_reason dw_tcpopt_rid_http_decode(dw_tcpopt_rid_http *out, uint64_t rid)
{
    if (rid > DW_TCPOPT_RID_MAX)
        return DW_TCPOPT_R_RID_RANGE;
    out->request = (uint32_t)rid;
    return rid >> 32 ? DW_TCPOPT_R_RID_ZERO_BITS : DW_TCPOPT_R_OK; /* 5.2.1 */
}

int dw_tcpopt_rid_cifs_encode(uint64_t *rid, const dw_tcpopt_rid_cifs *f)
{
    if (!rid || !f)
        return DW_ERR_INVAL;
    *rid = (uint64_t)f->op << 32 | (uint32_t)f->pid << 16 | f->mid;
    return 0;
}

dw_tcpopt_reason dw_tcpopt_rid_cifs_decode(dw_tcpopt_rid_cifs *out, uint64_t rid)
{
    if (rid > DW_TCPOPT_RID_MAX)
        return DW_TCPOPT_R_RID_RANGE;
    out->mid = (uint16_t)rid;
    out->pid = (uint16_t)(rid >> 16);
    out->op = (uint8_t)(rid >> 32);
    return rid >> 40 ? DW_TCPOPT_R_RID_ZERO_BITS : DW_TCPOPT_R_OK; /* 5.3.1.3 */
}
