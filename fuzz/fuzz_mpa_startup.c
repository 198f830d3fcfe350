/*
 * Fuzz target: the RFC 5044 start-up frame decoder. A decoded frame must
 * lie inside the input, re-encode to the same octets, and every shorter
 * prefix of it must decode as "need more".
 */
#include <ddpwire/mpa.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    dw_mpa_startup f;
    ssize_t n = dw_mpa_startup_decode(&f, data, size);
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
