/* SPDX-License-Identifier: MIT */
/* RFC 5044 start-up negotiation: request, reply, what was agreed; RFC 6581
 * enhanced set-up (IRD/ORD words, peer-to-peer and its RTR message). */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>

#include <string.h>

#include "base/bytes.h"
#include "base/versioned.h"

DW_VERSIONS_1(mpa_nego_settings_v, dw_mpa_nego_settings, rtr);

#define RTR_ALL (DW_MPA_RTR_SEND | DW_MPA_RTR_WRITE | DW_MPA_RTR_READ)

static void mpa_nego_settings_fill(dw_mpa_nego_settings *s)
{
    memset(s, 0, sizeof *s);
    s->want_markers = 1;
    s->want_crc = 1;
    s->allow_markers = 1;
    s->rev = 1;
    s->enhanced = 1;
    s->ird = 1;
    s->ord = 1;
}

int dw_mpa_nego_settings_default_versioned(int settings_version, dw_mpa_nego_settings *s)
{
    dw_mpa_nego_settings cur;
    mpa_nego_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, mpa_nego_settings_v);
}

ssize_t dw_mpa_enh_decode(dw_mpa_enh *e, const uint8_t *in, size_t len)
{
    if (!e || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_MPA_ENH_LEN)
        return DW_ERR_NEED_MORE;
    uint16_t ird = dw_get_be16(in), ord = dw_get_be16(in + 2);
    e->ird = ird & DW_MPA_ENH_MASK;
    e->ord = ord & DW_MPA_ENH_MASK;
    e->p2p = !!(ird & DW_MPA_ENH_P2P);
    e->rtr = (ird & DW_MPA_ENH_RTR_SEND ? DW_MPA_RTR_SEND : 0) |
             (ord & DW_MPA_ENH_RTR_WRITE ? DW_MPA_RTR_WRITE : 0) |
             (ord & DW_MPA_ENH_RTR_READ ? DW_MPA_RTR_READ : 0);
    return DW_MPA_ENH_LEN;
}

ssize_t dw_mpa_enh_encode(uint8_t *out, size_t cap, const dw_mpa_enh *e)
{
    if (!out || !e || e->ird > DW_MPA_ENH_MASK || e->ord > DW_MPA_ENH_MASK ||
        (e->rtr & ~(unsigned)RTR_ALL))
        return DW_ERR_INVAL;
    if (cap < DW_MPA_ENH_LEN)
        return DW_ERR_NOSPACE;
    unsigned ird = e->ird | (e->p2p ? DW_MPA_ENH_P2P : 0) |
                   (e->rtr & DW_MPA_RTR_SEND ? DW_MPA_ENH_RTR_SEND : 0);
    unsigned ord = e->ord | (e->rtr & DW_MPA_RTR_WRITE ? DW_MPA_ENH_RTR_WRITE : 0) |
                   (e->rtr & DW_MPA_RTR_READ ? DW_MPA_ENH_RTR_READ : 0);
    dw_put_be16(out, (uint16_t)ird);
    dw_put_be16(out + 2, (uint16_t)ord);
    return DW_MPA_ENH_LEN;
}

const char *dw_mpa_nego_reason_str(dw_mpa_nego_reason r)
{
    switch (r) {
    case DW_MPA_NEGO_OK:
        return "accepted";
    case DW_MPA_NEGO_PEER_REJECTED:
        return "the peer rejected the connection (reply with R set)";
    case DW_MPA_NEGO_MARKERS:
        return "the peer wants markers, which we do not send";
    case DW_MPA_NEGO_REVISION:
        return "MPA revision mismatch";
    case DW_MPA_NEGO_ENHANCED:
        return "enhanced set-up flag without the IRD/ORD words";
    case DW_MPA_NEGO_IRD:
        return "insufficient IRD: the responder's ORD exceeds our IRD";
    case DW_MPA_NEGO_NO_RTR:
        return "peer-to-peer without a matching RTR message kind";
    }
    return "unknown reason";
}

/* We use the enhanced set-up (RFC 6581 needs revision 2). */
static int we_enhance(const dw_mpa_nego_settings *s)
{
    return s->rev >= 2 && s->enhanced;
}

static uint8_t our_flags(const dw_mpa_nego_settings *s)
{
    return (uint8_t)((s->want_markers ? DW_MPA_FLAG_MARKERS : 0) |
                     (s->want_crc ? DW_MPA_FLAG_CRC : 0));
}

/* A frame with our private data, led by the IRD/ORD words when enh. */
static ssize_t frame(const dw_mpa_nego_settings *s, dw_mpa_startup_kind kind,
                     uint8_t flags, uint8_t rev, const dw_mpa_enh *enh,
                     uint8_t *out, size_t cap)
{
    uint8_t pd[DW_MPA_STARTUP_PD_MAX];
    dw_mpa_startup f = {kind, flags, rev, s->pd, s->pd_len};
    if (enh) {
        if (s->pd_len > DW_MPA_STARTUP_PD_MAX - DW_MPA_ENH_LEN)
            return DW_ERR_TOO_LONG;
        if (!s->pd && s->pd_len)
            return DW_ERR_INVAL;
        ssize_t n = dw_mpa_enh_encode(pd, sizeof pd, enh);
        if (n < 0)
            return n;
        if (s->pd_len)
            memcpy(pd + DW_MPA_ENH_LEN, s->pd, s->pd_len);
        f.flags |= DW_MPA_FLAG_ENHANCED;
        f.pd = pd;
        f.pd_len = (uint16_t)(DW_MPA_ENH_LEN + s->pd_len);
    }
    return dw_mpa_startup_encode(out, cap, &f);
}

static ssize_t mpa_nego_request_latest(const dw_mpa_nego_settings *s, uint8_t *out, size_t cap)
{
    if (!s)
        return DW_ERR_INVAL;
    dw_mpa_enh e = {s->ird, s->ord, s->p2p, s->p2p ? s->rtr : 0};
    return frame(s, DW_MPA_STARTUP_REQUEST, our_flags(s), s->rev,
                 we_enhance(s) ? &e : NULL, out, cap);
}

ssize_t dw_mpa_nego_request_versioned(int settings_version, const dw_mpa_nego_settings *s,
                                      uint8_t *out, size_t cap)
{
    dw_mpa_nego_settings s_cur;
    if (settings_version != DW_MPA_NEGO_SETTINGS_VERSION)
        dw_mpa_nego_settings_default(&s_cur);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, mpa_nego_settings_v, err);
    if (err)
        return err;
    return mpa_nego_request_latest(s, out, cap);
}

/* Common to both roles: decode a frame of the expected kind; the ULP's
 * private data follows the IRD/ORD words when the peer sent them. */
static ssize_t peer_frame(dw_mpa_startup_kind kind, const uint8_t *in,
                          size_t len, dw_mpa_nego_result *res)
{
    if (!res)
        return DW_ERR_INVAL;
    memset(res, 0, sizeof *res);
    ssize_t n = dw_mpa_startup_decode(&res->peer, in, len);
    if (n < 0)
        return n;
    if (res->peer.kind != kind)
        return DW_ERR_MALFORMED; /* e.g. two initiators: a request back */
    const dw_mpa_startup *p = &res->peer;
    res->pd = p->pd;
    res->pd_len = p->pd_len;
    res->rev = p->rev;
    if (p->rev >= 2 && (p->flags & DW_MPA_FLAG_ENHANCED) &&
        dw_mpa_enh_decode(&res->peer_enh, p->pd, p->pd_len) > 0) {
        res->pd += DW_MPA_ENH_LEN;
        res->pd_len = (uint16_t)(res->pd_len - DW_MPA_ENH_LEN);
    }
    return n;
}

/* Markers and CRC (RFC 5044 7.1); the first reason to refuse. */
static void agree(const dw_mpa_nego_settings *s, dw_mpa_nego_result *res,
                  uint8_t ours)
{
    uint8_t theirs = res->peer.flags;
    res->tx_markers = !!(theirs & DW_MPA_FLAG_MARKERS);
    res->rx_markers = !!(ours & DW_MPA_FLAG_MARKERS);
    res->crc = !!((theirs | ours) & DW_MPA_FLAG_CRC);
    if (theirs & DW_MPA_FLAG_REJECT)
        res->reason = DW_MPA_NEGO_PEER_REJECTED;
    else if (res->peer.rev < 1 || res->peer.rev > 2)
        res->reason = DW_MPA_NEGO_REVISION;
    else if (res->tx_markers && !s->allow_markers)
        res->reason = DW_MPA_NEGO_MARKERS;
}

/* Both sides use the enhanced set-up: the peer sent S at revision 2. */
static int both_enhance(const dw_mpa_nego_settings *s, const dw_mpa_nego_result *res)
{
    return we_enhance(s) && res->peer.rev >= 2 && (res->peer.flags & DW_MPA_FLAG_ENHANCED);
}

static uint16_t min16(uint16_t a, uint16_t b)
{
    return a < b ? a : b;
}

/* Responder: IRD/ORD and the RTR kind (siw's preference: Write, Read, Send). */
static void respond_enh(const dw_mpa_nego_settings *s, dw_mpa_nego_result *res)
{
    const dw_mpa_enh *pe = &res->peer_enh;
    if (res->peer.pd_len < DW_MPA_ENH_LEN) {
        res->reason = DW_MPA_NEGO_ENHANCED;
        return;
    }
    res->enhanced = 1;
    res->ird = min16(s->ird, pe->ord);
    res->ord = min16(s->ord, pe->ird);
    if (!pe->p2p || !s->p2p)
        return; /* client-server: the initiator sends first anyway */
    unsigned both = pe->rtr & s->rtr;
    static const dw_mpa_rtr pref[3] = {DW_MPA_RTR_WRITE, DW_MPA_RTR_READ, DW_MPA_RTR_SEND};
    for (int i = 0; i < 3 && !res->rtr; i++)
        if (both & pref[i])
            res->rtr = pref[i];
    if (!res->rtr)
        res->reason = DW_MPA_NEGO_NO_RTR;
    res->p2p = 1;
}

static ssize_t mpa_nego_respond_latest(const dw_mpa_nego_settings *s, const uint8_t *in,
                                       size_t len, uint8_t *reply, size_t cap,
                                       size_t *reply_len, dw_mpa_nego_result *res)
{
    if (!s || !reply_len)
        return DW_ERR_INVAL;
    ssize_t n = peer_frame(DW_MPA_STARTUP_REQUEST, in, len, res);
    if (n < 0)
        return n;
    uint8_t flags = our_flags(s);
    agree(s, res, flags);
    int valid_rev = res->reason != DW_MPA_NEGO_REVISION;
    res->rev = valid_rev && res->peer.rev < s->rev ? res->peer.rev : s->rev;
    if (!res->reason && both_enhance(s, res))
        respond_enh(s, res);
    res->accepted = res->reason == DW_MPA_NEGO_OK;
    if (!res->accepted) /* like siw: R set, M cleared */
        flags = (uint8_t)((flags & ~DW_MPA_FLAG_MARKERS) | DW_MPA_FLAG_REJECT);
    dw_mpa_enh e = {res->ird, res->ord, res->p2p, (unsigned)res->rtr};
    ssize_t r = frame(s, DW_MPA_STARTUP_REPLY, flags, res->rev,
                      res->enhanced ? &e : NULL, reply, cap);
    if (r < 0)
        return r;
    *reply_len = (size_t)r;
    return n;
}

ssize_t dw_mpa_nego_respond_versioned(int settings_version, const dw_mpa_nego_settings *s,
                                      const uint8_t *in, size_t len, uint8_t *reply,
                                      size_t cap, size_t *reply_len, dw_mpa_nego_result *res)
{
    dw_mpa_nego_settings s_cur;
    if (settings_version != DW_MPA_NEGO_SETTINGS_VERSION)
        dw_mpa_nego_settings_default(&s_cur);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, mpa_nego_settings_v, err);
    if (err)
        return err;
    return mpa_nego_respond_latest(s, in, len, reply, cap, reply_len, res);
}

/* Initiator: the reply's IRD/ORD and RTR against what we sent. */
static void reply_enh(const dw_mpa_nego_settings *s, dw_mpa_nego_result *res)
{
    const dw_mpa_enh *pe = &res->peer_enh;
    if (res->peer.pd_len < DW_MPA_ENH_LEN) {
        res->reason = DW_MPA_NEGO_ENHANCED;
        res->term_code = 4; /* invalid MPA request or reply frame */
        return;
    }
    res->enhanced = 1;
    res->ird = s->ird;
    res->ord = min16(s->ord, pe->ird); /* never more Reads than it takes */
    if (pe->ord > s->ird) {
        res->reason = DW_MPA_NEGO_IRD;
        res->term_code = 6;
        return;
    }
    if (!s->p2p || !pe->p2p)
        return;
    unsigned r = pe->rtr;
    if (!r || (r & (r - 1)) || (r & ~s->rtr)) { /* exactly one we offered */
        res->reason = DW_MPA_NEGO_NO_RTR;
        res->term_code = 7;
        return;
    }
    res->p2p = 1;
    res->rtr = (dw_mpa_rtr)r;
}

static ssize_t mpa_nego_on_reply_latest(const dw_mpa_nego_settings *s, const uint8_t *in,
                                        size_t len, dw_mpa_nego_result *res)
{
    if (!s)
        return DW_ERR_INVAL;
    ssize_t n = peer_frame(DW_MPA_STARTUP_REPLY, in, len, res);
    if (n < 0)
        return n;
    agree(s, res, our_flags(s));
    if (res->rev > s->rev) /* tolerated, read as ours (no S was asked for) */
        res->rev = s->rev;
    if (!res->reason && both_enhance(s, res))
        reply_enh(s, res);
    res->accepted = res->reason == DW_MPA_NEGO_OK;
    return n;
}

ssize_t dw_mpa_nego_on_reply_versioned(int settings_version, const dw_mpa_nego_settings *s,
                                       const uint8_t *in, size_t len, dw_mpa_nego_result *res)
{
    dw_mpa_nego_settings s_cur;
    if (settings_version != DW_MPA_NEGO_SETTINGS_VERSION)
        dw_mpa_nego_settings_default(&s_cur);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, mpa_nego_settings_v, err);
    if (err)
        return err;
    return mpa_nego_on_reply_latest(s, in, len, res);
}
