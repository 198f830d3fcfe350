/* SPDX-License-Identifier: MIT */
/* IPoIB advanced capabilities: address, flags, service IDs, private data. */
#include <ddpwire/ipoib.h>
#include <ddpwire/ipoib_sid.h>
#include <ddpwire/ipoib_cm.h>

#include <string.h>

#include "base/bytes.h"

static uint32_t get_be24(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static void put_be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

const char *dw_ipoib_profile_name(dw_ipoib_profile p)
{
    return p == DW_IPOIB_PROFILE_RFC4755 ? "rfc4755" : "draft";
}

unsigned dw_ipoib_profile_caps(dw_ipoib_profile p)
{
    return p == DW_IPOIB_PROFILE_RFC4755 ? DW_IPOIB_CAP_RC | DW_IPOIB_CAP_UC
                                         : DW_IPOIB_CAP_ALL;
}

/* cap bit -> flag bit, per profile (0: not expressible) */
static const uint8_t flag_of[2][4] = {
    {DW_IPOIB_DRAFT_FLAG_QPN, DW_IPOIB_DRAFT_FLAG_RC, DW_IPOIB_DRAFT_FLAG_UC,
     DW_IPOIB_DRAFT_FLAG_RD},
    {0, DW_IPOIB_RFC4755_FLAG_RC, DW_IPOIB_RFC4755_FLAG_UC, 0},
};

uint8_t dw_ipoib_flags_encode(dw_ipoib_profile p, unsigned caps)
{
    uint8_t f = 0;
    for (unsigned i = 0; i < 4; i++)
        if (caps & (1u << i))
            f |= flag_of[p == DW_IPOIB_PROFILE_RFC4755][i];
    return f; /* 2.0: reserved bits transmitted as zero */
}

unsigned dw_ipoib_flags_decode(dw_ipoib_profile p, uint8_t flags, unsigned supported)
{
    unsigned caps = 0;
    for (unsigned i = 0; i < 4; i++) {
        uint8_t bit = flag_of[p == DW_IPOIB_PROFILE_RFC4755][i];
        if (bit && (flags & bit))
            caps |= 1u << i;
    }
    return caps & supported; /* 2.0: ignore on receive */
}

int dw_ipoib_qpn_valid(uint32_t qpn)
{
    return qpn > 1 && qpn < DW_IPOIB_QPN_MAX;
}

/* ---- link-layer address ---- */

ssize_t dw_ipoib_addr_decode(dw_ipoib_addr *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IPOIB_ADDR_LEN)
        return DW_ERR_NEED_MORE;
    out->flags = in[0];
    out->qpn = get_be24(in + 1);
    memcpy(out->gid, in + 4, DW_IPOIB_GID_LEN);
    return DW_IPOIB_ADDR_LEN;
}

ssize_t dw_ipoib_addr_encode(uint8_t *out, size_t cap, const dw_ipoib_addr *a)
{
    if (!out || !a || a->qpn > DW_IPOIB_QPN_MAX)
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_ADDR_LEN)
        return DW_ERR_NOSPACE;
    out[0] = a->flags;
    put_be24(out + 1, a->qpn);
    memcpy(out + 4, a->gid, DW_IPOIB_GID_LEN);
    return DW_IPOIB_ADDR_LEN;
}

int dw_ipoib_addr_format(char *buf, size_t cap, const dw_ipoib_addr *a)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t raw[DW_IPOIB_ADDR_LEN];
    if (!buf || !a || dw_ipoib_addr_encode(raw, sizeof raw, a) < 0)
        return DW_ERR_INVAL;
    if (cap < 3 * DW_IPOIB_ADDR_LEN)
        return DW_ERR_NOSPACE;
    for (unsigned i = 0; i < DW_IPOIB_ADDR_LEN; i++) {
        buf[3 * i] = hex[raw[i] >> 4];
        buf[3 * i + 1] = hex[raw[i] & 15];
        buf[3 * i + 2] = i + 1 < DW_IPOIB_ADDR_LEN ? ':' : '\0';
    }
    return 3 * DW_IPOIB_ADDR_LEN - 1;
}

void dw_ipoib_mgid_ipv4(uint8_t gid[DW_IPOIB_GID_LEN], uint32_t group, uint16_t pkey)
{
    memset(gid, 0, DW_IPOIB_GID_LEN);
    gid[0] = 0xff;
    gid[1] = 0x12; /* transient, link-local scope */
    gid[2] = 0x40;
    gid[3] = 0x1b; /* IPv4 signature */
    dw_put_be16(gid + 4, pkey);
    dw_put_be32(gid + 12, group == 0xFFFFFFFFu ? group : group & 0x0FFFFFFFu);
}

int dw_ipoib_gid_is_mcast(const uint8_t gid[DW_IPOIB_GID_LEN])
{
    return gid[0] == 0xff;
}

/* ---- service IDs (draft 4.0) ---- */

uint64_t dw_ipoib_sid_make(uint8_t protocol, uint16_t subfield)
{
    return (uint64_t)DW_IPOIB_SID_IETF << 56 | (uint64_t)protocol << 32 | subfield;
}

uint64_t dw_ipoib_sid_for(uint8_t protocol, uint16_t port)
{
    int ports = protocol == DW_IPOIB_PROTO_TCP || protocol == DW_IPOIB_PROTO_UDP ||
                protocol == DW_IPOIB_PROTO_SCTP; /* 4.1 rule 2 */
    return dw_ipoib_sid_make(protocol, ports ? port : 0);
}

int dw_ipoib_sid_split(dw_ipoib_sid *out, uint64_t sid)
{
    if (!out)
        return DW_ERR_INVAL;
    if ((uint8_t)(sid >> 56) != DW_IPOIB_SID_IETF)
        return DW_ERR_MALFORMED;
    out->protocol = (uint8_t)(sid >> 32);
    out->subfield = (uint16_t)sid;
    /* 4.0: reserved octets 1, 2, 4, 5 are ignored on reception */
    out->reserved_set = (sid & 0x00FFFF00FFFF0000ull) != 0;
    return 0;
}

ssize_t dw_ipoib_sid_decode(dw_ipoib_sid *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len >= 1 && in[0] != DW_IPOIB_SID_IETF)
        return DW_ERR_MALFORMED;
    if (len < DW_IPOIB_SID_LEN)
        return DW_ERR_NEED_MORE;
    int r = dw_ipoib_sid_split(out, dw_get_be64(in));
    return r < 0 ? (ssize_t)r : (ssize_t)DW_IPOIB_SID_LEN;
}

ssize_t dw_ipoib_sid_encode(uint8_t *out, size_t cap, const dw_ipoib_sid *s)
{
    if (!out || !s)
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_SID_LEN)
        return DW_ERR_NOSPACE;
    dw_put_be64(out, dw_ipoib_sid_make(s->protocol, s->subfield));
    return DW_IPOIB_SID_LEN;
}

int dw_ipoib_sid_format(char *buf, size_t cap, uint64_t sid)
{
    static const char hex[] = "0123456789abcdef";
    char tmp[DW_IPOIB_SID_TEXT_MAX];
    size_t n = 0;
    if (!buf)
        return DW_ERR_INVAL;
    for (int i = 7; i >= 0; i--) {
        unsigned o = (unsigned)(sid >> (8 * i)) & 0xff;
        if (o >> 4)
            tmp[n++] = hex[o >> 4];
        tmp[n++] = hex[o & 15];
        if (i)
            tmp[n++] = ':';
    }
    if (cap < n + 1)
        return DW_ERR_NOSPACE;
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return (int)n;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int dw_ipoib_sid_parse(uint64_t *out, const char *text)
{
    if (!out || !text)
        return DW_ERR_INVAL;
    uint64_t v = 0;
    const char *p = text;
    for (int g = 0; g < 8; g++) {
        int d0 = hexval(p[0]);
        if (d0 < 0)
            return DW_ERR_MALFORMED;
        int d1 = hexval(p[1]);
        unsigned o = d1 < 0 ? (unsigned)d0 : (unsigned)(d0 << 4 | d1);
        p += d1 < 0 ? 1 : 2;
        v = v << 8 | o;
        if (*p != (g < 7 ? ':' : '\0'))
            return DW_ERR_MALFORMED; /* three digits, missing or extra group */
        p += g < 7;
    }
    *out = v;
    return 0;
}

int dw_ipoib_sid_match(uint64_t bound, uint64_t wanted)
{
    dw_ipoib_sid b, w;
    if (dw_ipoib_sid_split(&b, bound) || dw_ipoib_sid_split(&w, wanted))
        return 0;
    return b.protocol == w.protocol && (b.subfield == w.subfield || b.subfield == 0);
}

uint64_t dw_ipoib_sid_cm(dw_ipoib_sid_style style, uint32_t ud_qpn)
{
    uint64_t base = style == DW_IPOIB_SID_LINUX ? DW_IPOIB_SID_LINUX_BASE
                                                : DW_IPOIB_SID_RFC4755_BASE;
    return base | (ud_qpn & DW_IPOIB_QPN_MAX);
}

int dw_ipoib_sid_cm_parse(uint64_t sid, dw_ipoib_sid_style *style, uint32_t *ud_qpn)
{
    uint64_t base = sid & ~(uint64_t)DW_IPOIB_QPN_MAX;
    dw_ipoib_sid_style s;
    if (base == DW_IPOIB_SID_RFC4755_BASE)
        s = DW_IPOIB_SID_RFC4755;
    else if (base == DW_IPOIB_SID_LINUX_BASE)
        s = DW_IPOIB_SID_LINUX;
    else
        return DW_ERR_MALFORMED;
    if (style)
        *style = s;
    if (ud_qpn)
        *ud_qpn = (uint32_t)(sid & DW_IPOIB_QPN_MAX);
    return 0;
}

/* ---- private data (draft 3.1, 3.2; RFC 4755) ---- */

static int mtu_ok(uint32_t mtu)
{
    return mtu >= DW_IPOIB_MTU_MIN && mtu <= DW_IPOIB_MTU_LIMIT;
}

ssize_t dw_ipoib_sidr_pd_decode(dw_ipoib_pd *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IPOIB_SIDR_PD_LEN)
        return DW_ERR_NEED_MORE;
    uint32_t r = get_be24(in), s = get_be24(in + 4);
    if (in[3] || in[7] || !dw_ipoib_qpn_valid(r) || !dw_ipoib_qpn_valid(s))
        return DW_ERR_MALFORMED; /* 3.1: pad bytes must be set to 0 */
    out->qpn_rcvd = r;
    out->qpn_sent = s;
    out->mtu = 0;
    return DW_IPOIB_SIDR_PD_LEN;
}

ssize_t dw_ipoib_sidr_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_pd *pd)
{
    if (!out || !pd || !dw_ipoib_qpn_valid(pd->qpn_rcvd) || !dw_ipoib_qpn_valid(pd->qpn_sent))
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_SIDR_PD_LEN)
        return DW_ERR_NOSPACE;
    put_be24(out, pd->qpn_rcvd);
    out[3] = 0;
    put_be24(out + 4, pd->qpn_sent);
    out[7] = 0;
    return DW_IPOIB_SIDR_PD_LEN;
}

ssize_t dw_ipoib_cm_pd_decode(dw_ipoib_pd *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IPOIB_CM_PD_LEN)
        return DW_ERR_NEED_MORE;
    dw_ipoib_pd pd;
    ssize_t r = dw_ipoib_sidr_pd_decode(&pd, in, len);
    if (r < 0)
        return r;
    pd.mtu = dw_get_be32(in + 8);
    if (!mtu_ok(pd.mtu))
        return DW_ERR_MALFORMED;
    *out = pd;
    return DW_IPOIB_CM_PD_LEN;
}

ssize_t dw_ipoib_cm_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_pd *pd)
{
    if (!out || !pd || !mtu_ok(pd->mtu) || !dw_ipoib_qpn_valid(pd->qpn_rcvd) ||
        !dw_ipoib_qpn_valid(pd->qpn_sent))
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_CM_PD_LEN)
        return DW_ERR_NOSPACE;
    ssize_t r = dw_ipoib_sidr_pd_encode(out, cap, pd);
    if (r < 0)
        return r;
    dw_put_be32(out + 8, pd->mtu);
    return DW_IPOIB_CM_PD_LEN;
}

static int rfc_mtu_ok(uint32_t mtu)
{
    return mtu >= DW_IPOIB_MTU_MIN + DW_IPOIB_HDR_LEN && mtu <= DW_IPOIB_MTU_LIMIT;
}

ssize_t dw_ipoib_rfc_pd_decode(dw_ipoib_rfc_pd *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IPOIB_RFC4755_PD_LEN)
        return DW_ERR_NEED_MORE;
    uint32_t qpn = get_be24(in + 1); /* in[0] reserved: ignored */
    uint32_t mtu = dw_get_be32(in + 4);
    if (!dw_ipoib_qpn_valid(qpn) || !rfc_mtu_ok(mtu))
        return DW_ERR_MALFORMED;
    out->qpn = qpn;
    out->mtu = mtu;
    return DW_IPOIB_RFC4755_PD_LEN;
}

ssize_t dw_ipoib_rfc_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_rfc_pd *pd)
{
    if (!out || !pd || !dw_ipoib_qpn_valid(pd->qpn) || !rfc_mtu_ok(pd->mtu))
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_RFC4755_PD_LEN)
        return DW_ERR_NOSPACE;
    dw_put_be32(out, pd->qpn);
    dw_put_be32(out + 4, pd->mtu);
    return DW_IPOIB_RFC4755_PD_LEN;
}

static int all_zero(const uint8_t *p, size_t n)
{
    while (n--)
        if (*p++)
            return 0;
    return 1;
}

ssize_t dw_ipoib_rej_decode(dw_ipoib_rej *out, uint16_t reason, const uint8_t *pd,
                            size_t len)
{
    if (!out || (!pd && len))
        return DW_ERR_INVAL;
    dw_ipoib_rej r = {.reason = reason};
    if (reason != DW_IPOIB_REJ_NO_RESOURCES) {
        *out = r;
        return 0;
    }
    if (len < DW_IPOIB_CM_PD_LEN)
        return DW_ERR_NEED_MORE;
    if (!all_zero(pd, DW_IPOIB_CM_PD_LEN)) { /* 3.2: the acceptable MTU */
        ssize_t n = dw_ipoib_cm_pd_decode(&r.pd, pd, len);
        if (n < 0)
            return n;
    }
    *out = r;
    return DW_IPOIB_CM_PD_LEN;
}

ssize_t dw_ipoib_rej_encode(uint8_t *out, size_t cap, const dw_ipoib_rej *r)
{
    if (!out || !r)
        return DW_ERR_INVAL;
    if (r->reason != DW_IPOIB_REJ_NO_RESOURCES)
        return r->pd.mtu ? DW_ERR_INVAL : 0;
    if (!r->pd.mtu && !r->pd.qpn_rcvd && !r->pd.qpn_sent) {
        if (cap < DW_IPOIB_CM_PD_LEN)
            return DW_ERR_NOSPACE;
        memset(out, 0, DW_IPOIB_CM_PD_LEN);
        return DW_IPOIB_CM_PD_LEN;
    }
    return dw_ipoib_cm_pd_encode(out, cap, &r->pd);
}
