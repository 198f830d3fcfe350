/* SPDX-License-Identifier: MIT */
/*
 * Internal: x86-64 CRC32c folding helpers shared by lib/crc32c/crc32c_x86.c and
 * lib/mpa/mpa_crc_x86.c (see crc32c_x86.c for the folding math). Every helper
 * carries its own target attribute, so includers build with plain -O2.
 */
#ifndef DW_LIB_CRC32C_X86_H
#define DW_LIB_CRC32C_X86_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define T_SSE42 __attribute__((target("sse4.2")))
#define T_CLMUL __attribute__((target("sse4.2,pclmul")))
#define T_AVX512                                                          \
    __attribute__((target("sse4.2,pclmul,avx,avx2,avx512f,avx512bw,"     \
                          "avx512vl,vpclmulqdq")))
#define INLINE static inline __attribute__((always_inline))

/* Fold constants {x^(D+31), x^(D-33)} mod P for a distance of D bits. */
#define K128_LO 0xf20c0dfeu
#define K128_HI 0x493c7d27u
#define K256_LO 0x3da6d0cbu
#define K256_HI 0xba4fc28eu
#define K384_LO 0x1c291d04u
#define K384_HI 0xddc0152bu
#define K128 K128_LO, K128_HI
#define K256 K256_LO, K256_HI
#define K384 K384_LO, K384_HI
#define K512 0x740eef02u, 0x9e4addf8u
#define K1024 0x6992cea2u, 0x0d3b6092u
#define K2048 0xdcb17aa4u, 0xb9e02b86u

/* Raw register c over n octets at p on one crc32 chain (any alignment). */
INLINE T_SSE42 uint64_t dw_x86_crc_chain(uint64_t c, const uint8_t *p, size_t n)
{
    uint64_t q;
    uint32_t d;
    uint16_t w;
    for (; n >= 8; n -= 8, p += 8) {
        memcpy(&q, p, 8);
        c = _mm_crc32_u64(c, q);
    }
    if (n & 4) {
        memcpy(&d, p, 4);
        c = _mm_crc32_u32((uint32_t)c, d);
        p += 4;
    }
    if (n & 2) {
        memcpy(&w, p, 2);
        c = _mm_crc32_u16((uint32_t)c, w);
        p += 2;
    }
    if (n & 1)
        c = _mm_crc32_u8((uint32_t)c, *p);
    return c;
}

/* CRC of 16 octets from 0: the lane's CRC contribution. */
INLINE T_CLMUL uint32_t lane_crc(__m128i r)
{
    uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(r));
    return (uint32_t)_mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(r, 1));
}

/* The carry-less product of reflected a, b, shifted back the one bit it
 * lands high: still to be reduced (several XORed take one crc32). */
INLINE T_CLMUL uint64_t dw_x86_clmul32(uint32_t a, uint32_t b)
{
    __m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a), _mm_cvtsi32_si128((int)b), 0);
    return (uint64_t)_mm_cvtsi128_si64(p) << 1;
}

/* a b x^32 mod P for reflected a, b: crc32 of the product's 8 octets from
 * 0 (with b from a table scaled by x^-32, a x^(8 n): a register shifted
 * over n octets). */
INLINE T_CLMUL uint32_t dw_x86_mulx32(uint32_t a, uint32_t b)
{
    return (uint32_t)_mm_crc32_u64(0, dw_x86_clmul32(a, b));
}

INLINE T_AVX512 __m512i kz(uint32_t lo, uint32_t hi)
{
    return _mm512_set4_epi64(hi, lo, hi, lo);
}

INLINE T_AVX512 __m512i foldz(__m512i x, __m512i k, __m512i y)
{
    __m512i a = _mm512_clmulepi64_epi128(x, k, 0x00);
    __m512i b = _mm512_clmulepi64_epi128(x, k, 0x11);
    return _mm512_ternarylogic_epi64(a, b, y, 0x96);
}

/* The four 128-bit lanes of x, as one 128-bit lane. */
INLINE T_AVX512 __m128i zmm_to_xmm(__m512i x)
{
    const __m512i k = _mm512_set_epi64(0, 0, K128_HI, K128_LO, K256_HI,
                                       K256_LO, K384_HI, K384_LO);
    __m512i t = foldz(x, k, _mm512_setzero_si512());
    __m256i y = _mm256_xor_si256(_mm512_castsi512_si256(t),
                                 _mm512_extracti64x4_epi64(t, 1));
    __m128i r = _mm_xor_si128(_mm256_castsi256_si128(y),
                              _mm256_extracti128_si256(y, 1));
    return _mm_xor_si128(r, _mm512_extracti32x4_epi32(x, 3));
}


#endif
