/* SPDX-License-Identifier: MIT */
/* CRC32c: portable reference, combine, and run-time dispatch. */
#include "crc32c/crc32c_impl.h"
#include "crc32c/crc32c_shift_tab.h"
#include "base/bytes.h"

#include <string.h>

#define POLY 0x82F63B78u

/* Slicing-by-8 tables, built once on first use. */
static uint32_t tab[8][256];
static int tab_ready;

static void tab_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (POLY & (0u - (c & 1)));
        tab[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int t = 1; t < 8; t++)
            tab[t][n] = (tab[t - 1][n] >> 8) ^ tab[0][tab[t - 1][n] & 0xff];
    __atomic_store_n(&tab_ready, 1, __ATOMIC_RELEASE);
}

/* Raw (non-inverted) register update; shared by fast paths for tails. */
uint32_t dw_crc32c_portable_raw(uint32_t c, const uint8_t *p, size_t n)
{
    if (!__atomic_load_n(&tab_ready, __ATOMIC_ACQUIRE))
        tab_init();
    while (n && ((uintptr_t)p & 7)) {
        c = (c >> 8) ^ tab[0][(c ^ *p++) & 0xff];
        n--;
    }
    while (n >= 8) {
        /* the tables take octets in stream order: load little-endian */
        uint32_t lo = dw_get_le32(p) ^ c, hi = dw_get_le32(p + 4);
        c = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^
            tab[5][(lo >> 16) & 0xff] ^ tab[4][lo >> 24] ^
            tab[3][hi & 0xff] ^ tab[2][(hi >> 8) & 0xff] ^
            tab[1][(hi >> 16) & 0xff] ^ tab[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ tab[0][(c ^ *p++) & 0xff];
    return c;
}

uint32_t dw_crc32c_portable(uint32_t crc, const void *buf, size_t len)
{
    return ~dw_crc32c_portable_raw(~crc, buf, len);
}

static uint32_t portable_copy(uint32_t crc, void *dst, const void *src,
                              size_t len)
{
    memcpy(dst, src, len);
    return dw_crc32c_portable(crc, dst, len);
}

/* --- combine: multiply by x^(8*len2) in GF(2)[x] mod P (reflected). --- */

uint32_t dw_crc32c_gf2_mul(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) {
        r ^= b & (0u - (a >> 31));
        a <<= 1;
        b = (b >> 1) ^ (POLY & (0u - (b & 1)));
    }
    return r;
}

uint32_t dw_crc32c_shift_by_sw(uint32_t crc, size_t n)
{
    return dw_crc32c_gf2_mul(dw_crc32c_gf2_mul(shift_lo[n & 255u], shift_hi[n >> 8]), crc);
}

uint32_t dw_crc32c_shift_by_hw(uint32_t crc, size_t n)
{
    /* (lo x^-32)(hi x^-32) x^32 = lo hi x^-32; times crc x^32 */
    uint32_t x = dw_crc32c_mulx32(shift_lo_x32[n & 255u], shift_hi_x32[n >> 8]);
    return dw_crc32c_mulx32(x, crc);
}

uint32_t dw_crc32c_xpow8_x32(size_t n)
{
    return dw_crc32c_mulx32(shift_lo_x32[n & 255u], shift_hi_x32[n >> 8]);
}

uint32_t dw_crc32c_shift_by(uint32_t crc, size_t n)
{
    return dw_crc32c_have_mulx32() ? dw_crc32c_shift_by_hw(crc, n)
                                   : dw_crc32c_shift_by_sw(crc, n);
}

/* x^(2^k * 8) mod P for k = 0..63, i.e. the shift by 2^k octets. */
static uint32_t x8pow2k(int k)
{
    uint32_t p = 0x00800000u; /* x^8 in reflected representation */
    while (k--)
        p = dw_crc32c_gf2_mul(p, p);
    return p;
}

uint32_t dw_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    for (int k = 0; len2; k++, len2 >>= 1)
        if (len2 & 1)
            crc1 = dw_crc32c_gf2_mul(x8pow2k(k), crc1);
    return crc1 ^ crc2;
}

/* --- dispatch --- */

static const dw_crc32c_ops ops_portable = {
    DW_CRC32C_PORTABLE, dw_crc32c_portable, portable_copy};

static const dw_crc32c_ops *impl_ops(dw_crc32c_impl impl)
{
    switch (impl) {
    case DW_CRC32C_PORTABLE:
        return &ops_portable;
    default:
        return dw_crc32c_fast_ops(impl);
    }
}

static const dw_crc32c_ops *active;

static __attribute__((noinline)) const dw_crc32c_ops *resolve_slow(void)
{
    static const dw_crc32c_impl pref[] = {DW_CRC32C_AVX512, DW_CRC32C_AVX2,
                                          DW_CRC32C_PCLMUL, DW_CRC32C_SSE42};
    const dw_crc32c_ops *o = &ops_portable;
    for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++) {
        const dw_crc32c_ops *f = dw_crc32c_fast_ops(pref[i]);
        if (f) {
            o = f;
            break;
        }
    }
    __atomic_store_n(&active, o, __ATOMIC_RELEASE);
    return o;
}

static inline const dw_crc32c_ops *resolve(void)
{
    const dw_crc32c_ops *o = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
    return o ? o : resolve_slow();
}

uint32_t dw_crc32c(uint32_t crc, const void *buf, size_t len)
{
    if (!len)
        return crc;
    return resolve()->crc(crc, buf, len);
}

uint32_t dw_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len)
{
    if (!len)
        return crc;
    return resolve()->copy(crc, dst, src, len);
}

int dw_crc32c_impl_supported(dw_crc32c_impl impl)
{
    return impl == DW_CRC32C_AUTO || impl_ops(impl) != NULL;
}

int dw_crc32c_set_impl(dw_crc32c_impl impl)
{
    const dw_crc32c_ops *o;
    if (impl == DW_CRC32C_AUTO) {
        __atomic_store_n(&active, NULL, __ATOMIC_RELEASE);
        return 0;
    }
    if (!(o = impl_ops(impl)))
        return DW_ERR_UNSUPPORTED;
    __atomic_store_n(&active, o, __ATOMIC_RELEASE);
    return 0;
}

dw_crc32c_impl dw_crc32c_impl_get(void)
{
    return resolve()->impl;
}

const char *dw_crc32c_impl_name(dw_crc32c_impl impl)
{
    static const char *const names[DW_CRC32C_IMPL_COUNT] = {
        "auto", "portable", "sse42", "pclmul", "avx512", "avx2"};
    return (unsigned)impl < DW_CRC32C_IMPL_COUNT ? names[impl] : "unknown";
}

const char *dw_crc32c_tuning_name(dw_crc32c_tuning t)
{
    static const char *const names[DW_CRC32C_TUNE_COUNT] = {
        "auto", "generic", "zen3", "zen4", "zen5"};
    return (unsigned)t < DW_CRC32C_TUNE_COUNT ? names[t] : "unknown";
}
