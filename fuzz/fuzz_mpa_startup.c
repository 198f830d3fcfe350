/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the RFC 5044 start-up frame decoder and both negotiation
 * roles. A decoded frame must lie inside the input, re-encode to the same
 * octets, and every shorter prefix of it must decode as "need more"; the
 * roles must agree with the decoder on what they consumed.
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>

#include <stdlib.h>
#include <string.h>

static void roles(const uint8_t *data, size_t size, ssize_t n)
{
    dw_mpa_nego_settings s;
    dw_mpa_nego_result r;
    uint8_t rep[20 + DW_MPA_STARTUP_PD_MAX];
    size_t rl = 0;
    dw_mpa_nego_settings_default(&s);
    s.allow_markers = size & 1;
    ssize_t a = dw_mpa_nego_respond(&s, data, size, rep, sizeof rep, &rl, &r);
    ssize_t b = dw_mpa_nego_on_reply(&s, data, size, &r);
    if ((a > 0 && a != n) || (b > 0 && b != n) || (a > 0 && b > 0))
        abort();
    if (a > 0 && (rl < 20 || dw_mpa_startup_decode(&r.peer, rep, rl) != (ssize_t)rl))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dw_mpa_startup f;
    ssize_t n = dw_mpa_startup_decode(&f, data, size);
    roles(data, size, n);
    if (n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED)
        return 0;
    if (n < 20 || (size_t)n > size || f.pd != data + 20 || 20u + f.pd_len != (size_t)n)
        abort();
    uint8_t out[20 + DW_MPA_STARTUP_PD_MAX];
    if (dw_mpa_startup_encode(out, sizeof out, &f) != n || memcmp(out, data, (size_t)n))
        abort();
    if (dw_mpa_startup_decode(&f, data, (size_t)n - 1) != DW_ERR_NEED_MORE)
        abort();
    return 0;
}
