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

uint32_t dw_crc32c_fuse_avx512_q3(uint32_t c, const uint8_t *p, size_t n)
{
    return dw_crc32c_portable_raw(c, p, n);
}

#define FY_NONE(nv, q)                                                      \
    uint32_t dw_crc32c_fuse_avx2_##nv##_##q(uint32_t c, const uint8_t *p,  \
                                            size_t n)                       \
    {                                                                       \
        return dw_crc32c_portable_raw(c, p, n);                             \
    }
DW_FY_INSTANCES(FY_NONE)

/* One tuning (nothing to tune without fast paths). */
static const dw_crc32c_tune_ops generic = {
    DW_CRC32C_TUNE_GENERIC, dw_crc32c_fuse_avx512, dw_crc32c_fuse_avx2_3_4, 3, 4,
    DW_FZ_STEP_Q(4), DW_FZ_PIECE_Q(4)};
static dw_crc32c_tuning cur = DW_CRC32C_TUNE_GENERIC;

dw_crc32c_tuning dw_crc32c_tuning_detect(void)
{
    return DW_CRC32C_TUNE_GENERIC;
}

const dw_crc32c_tune_ops *dw_crc32c_tune_get(dw_crc32c_tuning t)
{
    return (unsigned)t < DW_CRC32C_TUNE_COUNT ? &generic : NULL;
}

int dw_crc32c_tuning_set(dw_crc32c_tuning t)
{
    if ((unsigned)t >= DW_CRC32C_TUNE_COUNT)
        return DW_ERR_UNSUPPORTED;
    cur = t == DW_CRC32C_TUNE_AUTO ? DW_CRC32C_TUNE_GENERIC : t;
    return 0;
}

dw_crc32c_tuning dw_crc32c_tuning_get(void)
{
    return cur;
}
