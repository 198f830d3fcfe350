/* SPDX-License-Identifier: MIT */
/* RFC 5044 start-up frames: "MPA ID Req Frame" / "MPA ID Rep Frame". */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>

#include <string.h>

#include "base/bytes.h"

static const char *const keys[2] = {"MPA ID Req Frame", "MPA ID Rep Frame"};

/* Which key the first n octets can still be: bit 0 request, bit 1 reply. */
static unsigned key_match(const uint8_t *in, size_t n)
{
    unsigned m = 0;
    for (unsigned k = 0; k < 2; k++)
        m |= (unsigned)(memcmp(in, keys[k], n) == 0) << k;
    return m;
}

ssize_t dw_mpa_startup_decode(dw_mpa_startup *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    size_t n = len < DW_MPA_STARTUP_KEY_LEN ? len : DW_MPA_STARTUP_KEY_LEN;
    unsigned m = key_match(in, n);
    if (!m) /* fail at the first octet no key allows */
        return DW_ERR_MALFORMED;
    if (len < DW_MPA_STARTUP_HDR_LEN)
        return DW_ERR_NEED_MORE;
    uint16_t pd_len = dw_get_be16(in + 18);
    if (pd_len > DW_MPA_STARTUP_PD_MAX)
        return DW_ERR_MALFORMED;
    if (len < DW_MPA_STARTUP_HDR_LEN + pd_len)
        return DW_ERR_NEED_MORE;
    out->kind = m & 1 ? DW_MPA_STARTUP_REQUEST : DW_MPA_STARTUP_REPLY;
    out->flags = in[16];
    out->rev = in[17];
    out->pd_len = pd_len;
    out->pd = in + DW_MPA_STARTUP_HDR_LEN;
    return (ssize_t)(DW_MPA_STARTUP_HDR_LEN + pd_len);
}

ssize_t dw_mpa_startup_encode(uint8_t *out, size_t cap, const dw_mpa_startup *f)
{
    if (!out || !f || (unsigned)f->kind > DW_MPA_STARTUP_REPLY || (!f->pd && f->pd_len))
        return DW_ERR_INVAL;
    if (f->pd_len > DW_MPA_STARTUP_PD_MAX)
        return DW_ERR_TOO_LONG;
    size_t len = DW_MPA_STARTUP_HDR_LEN + f->pd_len;
    if (cap < len)
        return DW_ERR_NOSPACE;
    memcpy(out, keys[f->kind], DW_MPA_STARTUP_KEY_LEN);
    out[16] = f->flags;
    out[17] = f->rev;
    dw_put_be16(out + 18, f->pd_len);
    if (f->pd_len)
        memcpy(out + DW_MPA_STARTUP_HDR_LEN, f->pd, f->pd_len);
    return (ssize_t)len;
}
