/* SPDX-License-Identifier: MIT */
/* No fast CRC32c paths on this architecture. */
#include "crc32c/crc32c_impl.h"

const dw_crc32c_ops *dw_crc32c_fast_ops(dw_crc32c_impl impl)
{
    (void)impl;
    return NULL;
}

int dw_crc32c_have_mulx32(void)
{
    return 0;
}

uint32_t dw_crc32c_mulx32(uint32_t a, uint32_t b)
{
    (void)a, (void)b;
    return 0;
}

/* No fused long-buffer paths here (lib/crc32c_fuse_x86.c): never chosen. */
uint32_t dw_crc32c_fuse_avx512(uint32_t c, const uint8_t *p, size_t n)
{
    return dw_crc32c_portable_raw(c, p, n);
}

uint32_t dw_crc32c_fuse_clmul(uint32_t c, const uint8_t *p, size_t n)
{
    return dw_crc32c_portable_raw(c, p, n);
}
