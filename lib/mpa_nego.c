/* RFC 5044 start-up negotiation: request, reply, what was agreed. */
#include <ddpwire/mpa.h>

#include <string.h>

void dw_mpa_nego_settings_default(dw_mpa_nego_settings *s)
{
    memset(s, 0, sizeof *s);
    s->want_markers = 1;
    s->want_crc = 1;
    s->allow_markers = 1;
    s->rev = 1;
}

static uint8_t our_flags(const dw_mpa_nego_settings *s)
{
    return (uint8_t)((s->want_markers ? DW_MPA_FLAG_MARKERS : 0) |
                     (s->want_crc ? DW_MPA_FLAG_CRC : 0));
}

static ssize_t frame(const dw_mpa_nego_settings *s, dw_mpa_startup_kind kind,
                     uint8_t flags, uint8_t *out, size_t cap)
{
    dw_mpa_startup f = {kind, flags, s->rev, s->pd, s->pd_len};
    return dw_mpa_startup_encode(out, cap, &f);
}

ssize_t dw_mpa_nego_request(const dw_mpa_nego_settings *s, uint8_t *out, size_t cap)
{
    if (!s)
        return DW_ERR_INVAL;
    return frame(s, DW_MPA_STARTUP_REQUEST, our_flags(s), out, cap);
}

/* Common to both roles: decode a frame of the expected kind. */
static ssize_t peer_frame(dw_mpa_startup_kind kind, const uint8_t *in,
                          size_t len, dw_mpa_nego_result *res)
{
    if (!res)
        return DW_ERR_INVAL;
    memset(res, 0, sizeof *res);
    ssize_t n = dw_mpa_startup_decode(&res->peer, in, len);
    if (n > 0 && res->peer.kind != kind)
        return DW_ERR_MALFORMED; /* e.g. two initiators: a request back */
    return n;
}

static void agree(const dw_mpa_nego_settings *s, dw_mpa_nego_result *res,
                  uint8_t ours)
{
    uint8_t theirs = res->peer.flags;
    res->tx_markers = !!(theirs & DW_MPA_FLAG_MARKERS);
    res->rx_markers = !!(ours & DW_MPA_FLAG_MARKERS);
    res->crc = !!((theirs | ours) & DW_MPA_FLAG_CRC);
    res->accepted = !(theirs & DW_MPA_FLAG_REJECT) &&
                    (s->allow_markers || !res->tx_markers) &&
                    (res->peer.rev == 1 || res->peer.rev == 2);
}

ssize_t dw_mpa_nego_respond(const dw_mpa_nego_settings *s, const uint8_t *in,
                            size_t len, uint8_t *reply, size_t cap,
                            size_t *reply_len, dw_mpa_nego_result *res)
{
    if (!s || !reply_len)
        return DW_ERR_INVAL;
    ssize_t n = peer_frame(DW_MPA_STARTUP_REQUEST, in, len, res);
    if (n < 0)
        return n;
    agree(s, res, our_flags(s));
    uint8_t flags = our_flags(s);
    if (!res->accepted) /* like siw: R set, M cleared */
        flags = (uint8_t)((flags & ~DW_MPA_FLAG_MARKERS) | DW_MPA_FLAG_REJECT);
    ssize_t r = frame(s, DW_MPA_STARTUP_REPLY, flags, reply, cap);
    if (r < 0)
        return r;
    *reply_len = (size_t)r;
    return n;
}

ssize_t dw_mpa_nego_on_reply(const dw_mpa_nego_settings *s, const uint8_t *in,
                             size_t len, dw_mpa_nego_result *res)
{
    if (!s)
        return DW_ERR_INVAL;
    ssize_t n = peer_frame(DW_MPA_STARTUP_REPLY, in, len, res);
    if (n > 0)
        agree(s, res, our_flags(s));
    return n;
}
