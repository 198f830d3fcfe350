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
