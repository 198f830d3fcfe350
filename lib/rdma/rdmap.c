/* SPDX-License-Identifier: MIT */
/* RDMAP Terminate (RFC 5040 4.8), the error tables, and validation of
 * decoded ULPDUs. */
#include <ddpwire/ddp.h>
#include <ddpwire/rdmap.h>

#include <string.h>

#include "base/bytes.h"

#define ANY_CODE 0x100u

typedef struct code_name {
    uint8_t layer, etype;
    uint16_t code; /* ANY_CODE: every code */
    const char *name;
} code_name;

/* RFC 5040, RFC 5041, RFC 5044, RFC 6581 (IANA "RDDP" registries) */
static const code_name codes[] = {
    {0, 0, ANY_CODE, "local catastrophic error"},
    {0, 1, 0x00, "invalid STag"},
    {0, 1, 0x01, "base or bounds violation"},
    {0, 1, 0x02, "access rights violation"},
    {0, 1, 0x03, "STag not associated with RDMAP stream"},
    {0, 1, 0x04, "TO wrap"},
    {0, 1, 0x09, "STag cannot be invalidated"},
    {0, 1, 0xFF, "unspecified error"},
    {0, 2, 0x05, "invalid RDMAP version"},
    {0, 2, 0x06, "unexpected opcode"},
    {0, 2, 0x07, "catastrophic error, localized to RDMAP stream"},
    {0, 2, 0x08, "catastrophic error, global"},
    {0, 2, 0x09, "STag cannot be invalidated"},
    {0, 2, 0xFF, "unspecified error"},
    {1, 0, ANY_CODE, "local catastrophic error"},
    {1, 1, 0x00, "invalid STag"},
    {1, 1, 0x01, "base or bounds violation"},
    {1, 1, 0x02, "STag not associated with DDP stream"},
    {1, 1, 0x03, "TO wrap"},
    {1, 1, 0x04, "invalid DDP version"},
    {1, 2, 0x01, "invalid QN"},
    {1, 2, 0x02, "invalid MSN - no buffer available"},
    {1, 2, 0x03, "invalid MSN - MSN range is not valid"},
    {1, 2, 0x04, "invalid MO"},
    {1, 2, 0x05, "DDP message too long for available buffer"},
    {1, 2, 0x06, "invalid DDP version"},
    {2, 0, 0x01, "TCP connection closed, terminated or lost"},
    {2, 0, 0x02, "MPA CRC error"},
    {2, 0, 0x03, "MPA marker and ULPDU length disagree"},
    {2, 0, 0x04, "invalid MPA request or reply frame"},
    {2, 0, 0x05, "local catastrophic error"},
    {2, 0, 0x06, "insufficient IRD resources"},
    {2, 0, 0x07, "no matching RTR"},
};

static const code_name etypes[] = {
    {0, 0, 0, "local catastrophic error"},
    {0, 1, 0, "remote protection error"},
    {0, 2, 0, "remote operation error"},
    {1, 0, 0, "local catastrophic error"},
    {1, 1, 0, "tagged buffer error"},
    {1, 2, 0, "untagged buffer error"},
    {2, 0, 0, "MPA error"},
};

static const code_name *find_code(unsigned layer, unsigned etype, unsigned code)
{
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i].layer == layer && codes[i].etype == etype &&
            (codes[i].code == code || codes[i].code == ANY_CODE))
            return &codes[i];
    return NULL;
}

int dw_rdmap_term_known(unsigned layer, unsigned etype, unsigned code)
{
    return find_code(layer, etype, code) != NULL;
}

const char *dw_rdmap_opcode_str(unsigned opcode)
{
    static const char *const names[] = {"Write",  "ReadReq", "ReadResp",  "Send",
                                        "SendInv", "SendSE", "SendSEInv", "Terminate"};
    return opcode < sizeof names / sizeof names[0] ? names[opcode] : NULL;
}

const char *dw_rdmap_term_layer_str(unsigned layer)
{
    static const char *const names[] = {"RDMAP", "DDP", "LLP"};
    return layer < 3 ? names[layer] : "unknown layer";
}

const char *dw_rdmap_term_etype_str(unsigned layer, unsigned etype)
{
    for (size_t i = 0; i < sizeof etypes / sizeof etypes[0]; i++)
        if (etypes[i].layer == layer && etypes[i].etype == etype)
            return etypes[i].name;
    return "unknown error type";
}

const char *dw_rdmap_term_str(unsigned layer, unsigned etype, unsigned code)
{
    const code_name *c = find_code(layer, etype, code);
    return c ? c->name : "unknown error code";
}

/* ------------------------------------------------------------------ */
/* Terminate control word: the RFC layout and siw's bit-field layout   */
/* ------------------------------------------------------------------ */

typedef struct reading {
    uint8_t layer, etype, code;
    int m, d, r;
    uint16_t rsvd;
} reading;

static reading read_word(uint32_t w, int siw)
{
    reading x;
    x.code = (uint8_t)(w >> 16);
    if (!siw) {
        x.layer = (uint8_t)(w >> 28);
        x.etype = (uint8_t)(w >> 24 & 15);
        x.m = !!(w & 0x8000);
        x.d = !!(w & 0x4000);
        x.r = !!(w & 0x2000);
        x.rsvd = (uint16_t)(w & 0x1FFF);
    } else { /* little-endian bit-fields: layer:4 etype:4 code:8 m:1 d:1 r:1 rsvd:13,
              * first field in the lowest bits of the first octet */
        x.layer = (uint8_t)(w >> 24 & 15);
        x.etype = (uint8_t)(w >> 28);
        x.m = !!(w & 0x0100);
        x.d = !!(w & 0x0200);
        x.r = !!(w & 0x0400);
        x.rsvd = (uint16_t)((w >> 11 & 0x1F) | (w & 0xFF) << 5);
    }
    return x;
}

static uint32_t write_word(const dw_rdmap_term *t)
{
    uint32_t w = (uint32_t)t->code << 16;
    if (!t->swapped)
        return w | (uint32_t)t->layer << 28 | (uint32_t)t->etype << 24 |
               (t->m ? 0x8000u : 0) | (t->d ? 0x4000u : 0) | (t->r ? 0x2000u : 0) |
               t->reserved;
    return w | (uint32_t)t->etype << 28 | (uint32_t)t->layer << 24 |
           (uint32_t)(t->reserved & 0x1F) << 11 | (t->r ? 0x0400u : 0) |
           (t->d ? 0x0200u : 0) | (t->m ? 0x0100u : 0) | (uint32_t)t->reserved >> 5;
}

static int valid_reading(const reading *x)
{
    return x->rsvd == 0 && dw_rdmap_term_known(x->layer, x->etype, x->code);
}

/* The copied RDMAP header's length: 28 for a Read Request (or when no DDP
 * header tells the message), 0 for messages without one (siw sets R on
 * Sends too). */
static size_t rdma_hdr_len(int d, const uint8_t *ddp_hdr)
{
    if (!d)
        return DW_RDMAP_READ_REQ_LEN;
    uint16_t c = dw_get_be16(ddp_hdr);
    return (c & (DW_DDP_CTRL_TAGGED | DW_RDMAP_CTRL_OPCODE)) == DW_RDMAP_READ_REQ
               ? DW_RDMAP_READ_REQ_LEN
               : 0;
}

ssize_t dw_rdmap_term_decode_as(dw_rdmap_term *t, const uint8_t *in, size_t len,
                                dw_rdmap_term_layout layout)
{
    if (!t || (!in && len) || (unsigned)layout > DW_RDMAP_TERM_SIW)
        return DW_ERR_INVAL;
    if (len < DW_RDMAP_TERM_CTRL_LEN)
        return DW_ERR_NEED_MORE;
    uint32_t w = dw_get_be32(in);
    reading rfc = read_word(w, 0), siw = read_word(w, 1);
    int rfc_ok = valid_reading(&rfc), siw_ok = valid_reading(&siw);
    int swapped = layout == DW_RDMAP_TERM_SIW ||
                  (layout == DW_RDMAP_TERM_AUTO && !rfc_ok && siw_ok);
    const reading *x = swapped ? &siw : &rfc;
    size_t n = DW_RDMAP_TERM_CTRL_LEN, hl = 0, rl = 0;
    if (x->d) { /* segment length, then the copy: its T bit tells its length */
        if (len < n + 3)
            return DW_ERR_NEED_MORE;
        hl = DW_DDP_HDR_LEN(in[n + 2] & 0x80);
        if (len - n - 2 < hl)
            return DW_ERR_NEED_MORE;
    }
    if (x->r) {
        rl = rdma_hdr_len(x->d, x->d ? in + n + 2 : NULL);
        if (len - n - (x->d ? 2 + hl : 0) < rl)
            return DW_ERR_NEED_MORE;
    }
    memset(t, 0, sizeof *t);
    t->layer = x->layer;
    t->etype = x->etype;
    t->code = x->code;
    t->m = x->m;
    t->d = x->d;
    t->r = x->r;
    t->reserved = x->rsvd;
    t->swapped = swapped;
    t->known = dw_rdmap_term_known(x->layer, x->etype, x->code);
    t->ambiguous = layout == DW_RDMAP_TERM_AUTO && rfc_ok && siw_ok && rfc.layer != siw.layer;
    if (x->d) {
        t->ddp_seg_len = dw_get_be16(in + n);
        t->ddp_hdr = in + n + 2;
        t->ddp_hdr_len = hl;
        n += 2 + hl;
    }
    if (rl) {
        t->rdma_hdr = in + n;
        t->rdma_hdr_len = rl;
        n += rl;
    }
    return (ssize_t)n;
}

ssize_t dw_rdmap_term_decode(dw_rdmap_term *t, const uint8_t *in, size_t len)
{
    return dw_rdmap_term_decode_as(t, in, len, DW_RDMAP_TERM_AUTO);
}

/* The copied headers agree with the flags (the rules decode reads by). */
static int copies_ok(const dw_rdmap_term *t)
{
    if (t->d ? !t->ddp_hdr || t->ddp_hdr_len != DW_DDP_HDR_LEN(t->ddp_hdr[0] & 0x80)
             : t->ddp_hdr_len != 0)
        return 0;
    if (!t->r)
        return t->rdma_hdr_len == 0;
    size_t rl = rdma_hdr_len(t->d, t->ddp_hdr);
    return t->rdma_hdr_len == rl && (!rl || t->rdma_hdr);
}

ssize_t dw_rdmap_term_encode(uint8_t *out, size_t cap, const dw_rdmap_term *t)
{
    if (!out || !t || t->layer > 15 || t->etype > 15 || t->reserved > 0x1FFF || !copies_ok(t))
        return DW_ERR_INVAL;
    size_t n = DW_RDMAP_TERM_CTRL_LEN + (t->d ? 2 + t->ddp_hdr_len : 0) + t->rdma_hdr_len;
    if (cap < n)
        return DW_ERR_NOSPACE;
    dw_put_be32(out, write_word(t));
    uint8_t *p = out + DW_RDMAP_TERM_CTRL_LEN;
    if (t->d) {
        dw_put_be16(p, t->ddp_seg_len);
        memmove(p + 2, t->ddp_hdr, t->ddp_hdr_len);
        p += 2 + t->ddp_hdr_len;
    }
    if (t->rdma_hdr_len)
        memmove(p, t->rdma_hdr, t->rdma_hdr_len);
    return (ssize_t)n;
}

/* ------------------------------------------------------------------ */
/* Validation                                                          */
/* ------------------------------------------------------------------ */

/* RFC 5040: the queue each untagged opcode uses. */
static uint32_t queue_of(unsigned opcode)
{
    if (opcode == DW_RDMAP_READ_REQ)
        return DW_RDMAP_QN_READ_REQ;
    if (opcode == DW_RDMAP_TERMINATE)
        return DW_RDMAP_QN_TERMINATE;
    return DW_RDMAP_QN_SEND;
}

static dw_rdmap_reason check_ddp(const dw_ddp_hdr *h, int strict)
{
    if (h->ddp_ver != DW_DDP_VERSION)
        return DW_RDMAP_BAD_DDP_VERSION;
    if (strict && h->ddp_rsvd)
        return DW_RDMAP_BAD_DDP_RSVD;
    if (!h->tagged && h->qn > DW_RDMAP_QN_TERMINATE)
        return DW_RDMAP_BAD_QN;
    return DW_RDMAP_OK;
}

static dw_rdmap_reason check_rdmap(const dw_rdmap_msg *m, int strict)
{
    const dw_ddp_hdr *h = &m->hdr;
    unsigned op = h->opcode;
    if (h->rdmap_ver != DW_RDMAP_VERSION)
        return DW_RDMAP_BAD_RDMAP_VERSION;
    if (strict && h->rdmap_rsvd)
        return DW_RDMAP_BAD_RDMAP_RSVD;
    if (op > DW_RDMAP_TERMINATE)
        return DW_RDMAP_BAD_OPCODE;
    if (h->tagged != (op == DW_RDMAP_WRITE || op == DW_RDMAP_READ_RESP))
        return DW_RDMAP_BAD_BUFFER_MODEL;
    if (!h->tagged && h->qn != queue_of(op))
        return DW_RDMAP_BAD_QUEUE;
    if (op == DW_RDMAP_READ_REQ || op == DW_RDMAP_TERMINATE) { /* one segment */
        if (!h->last)
            return DW_RDMAP_BAD_NOT_LAST;
        if (h->mo)
            return DW_RDMAP_BAD_MO;
        if (m->payload_len)
            return DW_RDMAP_BAD_LENGTH;
    }
    if (strict && !h->tagged && op != DW_RDMAP_SEND_INV && op != DW_RDMAP_SEND_SE_INV &&
        h->inv_stag)
        return DW_RDMAP_BAD_ULP_RSVD;
    if (strict && op == DW_RDMAP_TERMINATE && m->term.reserved)
        return DW_RDMAP_BAD_TERM_RSVD;
    return DW_RDMAP_OK;
}

dw_rdmap_reason dw_rdmap_validate(const dw_rdmap_msg *m, unsigned flags)
{
    int strict = !!(flags & DW_RDMAP_STRICT);
    dw_rdmap_reason r = check_ddp(&m->hdr, strict);
    return r != DW_RDMAP_OK ? r : check_rdmap(m, strict);
}

#define REASONS(X)                                                            \
    X(OK, 0, 0, 0)                                                            \
    X(BAD_DDP_VERSION, 1, 2, 6) /* tagged: 1/1/4 */                           \
    X(BAD_DDP_RSVD, 0, 2, 0xFF)                                               \
    X(BAD_QN, 1, 2, 1)                                                        \
    X(BAD_RDMAP_VERSION, 0, 2, 5)                                             \
    X(BAD_RDMAP_RSVD, 0, 2, 0xFF)                                             \
    X(BAD_OPCODE, 0, 2, 6)                                                    \
    X(BAD_BUFFER_MODEL, 0, 2, 6)                                              \
    X(BAD_QUEUE, 0, 2, 6)                                                     \
    X(BAD_NOT_LAST, 0, 2, 0xFF)                                               \
    X(BAD_MO, 1, 2, 4)                                                        \
    X(BAD_LENGTH, 1, 2, 5)                                                    \
    X(BAD_ULP_RSVD, 0, 2, 0xFF)                                               \
    X(BAD_TERM_RSVD, 0, 2, 0xFF)

const char *dw_rdmap_reason_str(dw_rdmap_reason r)
{
    switch (r) {
#define REASON_NAME_(name, l, e, c)                                           \
    case DW_RDMAP_##name:                                                     \
        return "DW_RDMAP_" #name;
        REASONS(REASON_NAME_)
#undef REASON_NAME_
    }
    return "DW_RDMAP_UNKNOWN";
}

int dw_rdmap_reason_term(dw_rdmap_term *t, dw_rdmap_reason r, const dw_ddp_hdr *h)
{
    static const uint8_t map[][3] = {
#define REASON_MAP_(name, l, e, c) {l, e, c},
        REASONS(REASON_MAP_)
#undef REASON_MAP_
    };
    _Static_assert(sizeof map / sizeof map[0] == DW_RDMAP_BAD_TERM_RSVD + 1, "one row a reason");
    if (!t || !h || r == DW_RDMAP_OK || (unsigned)r >= sizeof map / sizeof map[0])
        return DW_ERR_INVAL;
    t->layer = map[r][0];
    t->etype = map[r][1];
    t->code = map[r][2];
    if (r == DW_RDMAP_BAD_DDP_VERSION && h->tagged) { /* RFC 5041: tagged code */
        t->etype = DW_TERM_DDP_TAGGED;
        t->code = DW_TERM_DDP_T_VERSION;
    }
    return 0;
}
