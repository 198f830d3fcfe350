/* SPDX-License-Identifier: MIT */
/*
 * CRC32c fast paths for x86-64, chosen at run time by CPUID:
 *   sse42  - the crc32 instruction, three interleaved streams merged with
 *            shift tables (no carry-less multiply needed);
 *   pclmul - crc32 below 64 octets, else 4x128-bit PCLMULQDQ folding,
 *            interleaved with three crc32 streams on long data;
 *   avx512 - 4x512-bit VPCLMULQDQ folding (lightly mixed with crc32
 *            streams on long data), the pclmul code below 128 octets.
 * From DW_CRC32C_FUSE_MIN (avx512) and DW_CRC32C_FUSE_CLMUL_MIN (pclmul)
 * long buffers go to crc32c_fuse_x86.c: folding and three crc32 chains on
 * separate parts of the buffer, side by side.
 * Every function carries its own target attribute, so the file builds with
 * plain -O2. All paths work on the raw (non-inverted) register.
 *
 * Folding math (reflected domain): a 128-bit lane whose low qword holds the
 * higher-degree half H and high qword the lower half L, followed by D more
 * bits, is congruent to clmul(H, x^(D+31) mod P) ^ clmul(L, x^(D-33) mod P):
 * each 32-bit constant is taken as a reflected value, and the product of two
 * reflected operands lands one bit "higher", hence the -33 rather than -32.
 * A final 128-bit lane R is turned into the CRC with two crc32 instructions
 * (crc32 of 16 octets from 0 is R * x^32 mod P). Constants below were
 * computed with a small generator: x^n mod P by repeated reflected shifts.
 */
#include "base/once.h"
#include "crc32c/crc32c_impl.h"
#include "crc32c/crc32c_shift_tab.h"
#include "crc32c/crc32c_x86.h"

#include <cpuid.h>
#include <string.h>

/* Without copying, d is advanced alongside p but never written. */
#define NODST(p) ((uint8_t *)(uintptr_t)(p))

#define POLY 0x82F63B78u

/* ---- unaligned scalar access ---- */

static inline uint64_t ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* ---- crc32 instruction, one stream ---- */

/* CRC of n octets (any n), optionally copying them to d. The state is
 * kept in 64 bits so no zero-extension sits in the crc32 chain. */
INLINE T_SSE42 uint32_t crc_tail(uint32_t c32, uint8_t *d, const uint8_t *p,
                                 size_t n, int copy)
{
    uint64_t c = c32;
    if (copy)
        memcpy(d, p, n);
    for (; n >= 8; n -= 8, p += 8)
        c = _mm_crc32_u64(c, ld64(p));
    if (n & 4) {
        c = _mm_crc32_u32((uint32_t)c, ld32(p));
        p += 4;
    }
    if (n & 2) {
        c = _mm_crc32_u16((uint32_t)c, ld16(p));
        p += 2;
    }
    if (n & 1)
        c = _mm_crc32_u8((uint32_t)c, *p);
    return (uint32_t)c;
}

/* ---- sse42: three streams, merged by multiplying with x^(8L) ---- */

#define S_SHORT 256  /* octets per stream, medium buffers */
#define S_LONG 2048  /* octets per stream, long buffers */

/* shift_tab[s][k][b] = (b << 8k) * x^(8L) mod P, L = S_SHORT or S_LONG. */
static uint32_t shift_tab[2][4][256];
static int shift_state; /* 0 none, 1 building, 2 ready */

static uint32_t xpow(uint64_t n)
{
    uint32_t v = 0x80000000u; /* x^0 */
    while (n--)
        v = (v >> 1) ^ (POLY & (0u - (v & 1)));
    return v;
}

static void shift_fill(void)
{
    static const size_t len[2] = {S_SHORT, S_LONG};
    for (int t = 0; t < 2; t++) {
        uint32_t x = xpow(8 * len[t]);
        for (int k = 0; k < 4; k++)
            for (uint32_t b = 0; b < 256; b++)
                shift_tab[t][k][b] = dw_crc32c_gf2_mul(b << (8 * k), x);
    }
}

static inline uint32_t shift(uint32_t c, const uint32_t (*t)[256])
{
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^
           t[3][c >> 24];
}

/* Blocks of 3*L octets: three crc32 chains, then Horner merge. */
INLINE T_SSE42 uint32_t crc3_blocks(uint32_t c, uint8_t **dp,
                                    const uint8_t **pp, size_t *np, size_t l,
                                    const uint32_t (*t)[256], int copy)
{
    const uint8_t *p = *pp;
    uint8_t *d = *dp;
    size_t n = *np;
    for (; n >= 3 * l; n -= 3 * l, p += 3 * l, d += 3 * l) {
        uint64_t c0 = c, c1 = 0, c2 = 0;
        for (size_t i = 0; i < l; i += 8) {
            uint64_t a = ld64(p + i), b = ld64(p + l + i), e = ld64(p + 2 * l + i);
            if (copy) {
                memcpy(d + i, &a, 8);
                memcpy(d + l + i, &b, 8);
                memcpy(d + 2 * l + i, &e, 8);
            }
            c0 = _mm_crc32_u64(c0, a);
            c1 = _mm_crc32_u64(c1, b);
            c2 = _mm_crc32_u64(c2, e);
        }
        c = shift(shift((uint32_t)c0, t) ^ (uint32_t)c1, t) ^ (uint32_t)c2;
    }
    *pp = p;
    *dp = d;
    *np = n;
    return c;
}

INLINE T_SSE42 uint32_t sse42_body(uint32_t c, uint8_t *d, const uint8_t *p,
                                   size_t n, int copy)
{
    if (n >= 3 * S_SHORT) {
        dw_once(&shift_state, shift_fill);
        c = crc3_blocks(c, &d, &p, &n, S_LONG, shift_tab[1], copy);
        c = crc3_blocks(c, &d, &p, &n, S_SHORT, shift_tab[0], copy);
    }
    return crc_tail(c, d, p, n, copy);
}

static T_SSE42 uint32_t sse42_crc(uint32_t crc, const void *buf, size_t len)
{
    return ~sse42_body(~crc, NODST(buf), buf, len, 0);
}

static T_SSE42 uint32_t sse42_copy(uint32_t crc, void *dst, const void *src,
                                   size_t len)
{
    return ~sse42_body(~crc, dst, src, len, 1);
}

/* ---- pclmul: 4x128-bit folding mixed with three crc32 streams ---- */

/*
 * Long buffers go in chunks laid out as [V][S1][S2][S3]: V is folded with
 * carry-less multiplies while S1..S3 run through crc32 at the same time
 * (different execution ports). The accumulators then skip S (a longer fold
 * distance, KBIG*) and the merged CRC of S is xored into the first dword
 * after it, which continues the CRC exactly as a register would.
 */
#define MIXX_K 4                        /* xmm iterations (64 octets) */
#define MIXX_Q 5                        /* qwords per stream per iteration */
#define MIXX_LS (8 * MIXX_Q * MIXX_K)   /* octets per scalar stream: 160 */
#define MIXX_CHUNK (64 * MIXX_K + 3 * MIXX_LS)    /* 736 */
#define KBIGX 0x885f087bu, 0x10746f3cu  /* D = 8 * (64 + 3 * MIXX_LS) */
#define MX2 0xbac2fd7bu /* x^(8 * 2 * MIXX_LS - 33): shift by 2 streams */
#define MX1 0x878a92a7u /* x^(8 * MIXX_LS - 33): shift by 1 stream */
/* zmm chunks must be whole 64-octet blocks: 3 * MIXZ_LS % 64 == 0 */
#define MIXZ_K 8                        /* zmm iterations (256 octets) */
#define MIXZ_Q 2 /* Zen 4: more crc32 work here did not pay (measured) */
#define MIXZ_LS (8 * MIXZ_Q * MIXZ_K)   /* 128 */
#define MIXZ_CHUNK (256 * MIXZ_K + 3 * MIXZ_LS)   /* 2432 */
#define KBIGZ 0x4d56973cu, 0x6b749fb2u  /* D = 8 * (256 + 3 * MIXZ_LS) */
#define MZ2 0xb9e02b86u /* x^(8 * 2 * MIXZ_LS - 33) */
#define MZ1 0x0d3b6092u /* x^(8 * MIXZ_LS - 33) */

#define CLMUL_MIN 576 /* below this, one crc32 stream is faster */

INLINE T_CLMUL __m128i kx(uint32_t lo, uint32_t hi)
{
    return _mm_set_epi64x(hi, lo);
}

/* x * x^D folded to 128 bits (k from kx), xored with y. */
INLINE T_CLMUL __m128i fold(__m128i x, __m128i k, __m128i y)
{
    __m128i a = _mm_clmulepi64_si128(x, k, 0x00);
    __m128i b = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(a, b), y);
}

INLINE T_CLMUL __m128i ldx(uint8_t *d, const uint8_t *p, int copy)
{
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    if (copy)
        _mm_storeu_si128((__m128i *)d, v);
    return v;
}

INLINE T_SSE42 uint64_t ldq(uint8_t *d, const uint8_t *p, int copy)
{
    uint64_t v = ld64(p);
    if (copy)
        memcpy(d, &v, 8);
    return v;
}

/* c1 * x^(16 LS) + c2 * x^(8 LS) + c3: CRC of S1 || S2 || S3, where
 * m2 = x^(16 LS - 33) and m1 = x^(8 LS - 33) mod P. */
INLINE T_CLMUL uint32_t merge3(const uint64_t *c, uint32_t m2, uint32_t m1)
{
    __m128i a = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)c[0]),
                                     _mm_cvtsi32_si128((int)m2), 0x00);
    __m128i b = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)c[1]),
                                     _mm_cvtsi32_si128((int)m1), 0x00);
    uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(a, b));
    return (uint32_t)_mm_crc32_u64(0, v) ^ (uint32_t)c[2];
}

/* One iteration's share of the three scalar streams at s (dst e). */
INLINE T_SSE42 void mix_s(uint64_t *c, uint8_t *e, const uint8_t *s,
                          size_t ls, int q, int copy)
{
    for (int j = 0; j < 8 * q; j += 8) {
        c[0] = _mm_crc32_u64(c[0], ldq(e + j, s + j, copy));
        c[1] = _mm_crc32_u64(c[1], ldq(e + ls + j, s + ls + j, copy));
        c[2] = _mm_crc32_u64(c[2], ldq(e + 2 * ls + j, s + 2 * ls + j, copy));
    }
}

/* Folds the 64 octets at p into x[0..3]; cs goes into the first dword. */
INLINE T_CLMUL void vx_iter(__m128i *x, __m128i k, uint32_t cs, uint8_t *d,
                            const uint8_t *p, int copy)
{
    __m128i y = _mm_xor_si128(ldx(d, p, copy), _mm_cvtsi32_si128((int)cs));
    x[0] = fold(x[0], k, y);
    x[1] = fold(x[1], k, ldx(d + 16, p + 16, copy));
    x[2] = fold(x[2], k, ldx(d + 32, p + 32, copy));
    x[3] = fold(x[3], k, ldx(d + 48, p + 48, copy));
}

/* One [V][S] chunk; kf/cs describe what precedes V. Returns CRC of S. */
INLINE T_CLMUL uint32_t mixx_chunk(__m128i *x, __m128i kf, uint32_t cs,
                                   uint8_t *d, const uint8_t *p, int copy)
{
    uint64_t c[3] = {0, 0, 0};
    const uint8_t *s = p + 64 * MIXX_K;
    uint8_t *e = d + 64 * MIXX_K;
    vx_iter(x, kf, cs, d, p, copy);
    mix_s(c, e, s, MIXX_LS, MIXX_Q, copy);
    for (int i = 1; i < MIXX_K; i++) {
        vx_iter(x, kx(K512), 0, d + 64 * i, p + 64 * i, copy);
        mix_s(c, e + 8 * MIXX_Q * i, s + 8 * MIXX_Q * i, MIXX_LS, MIXX_Q,
              copy);
    }
    return merge3(c, MX2, MX1);
}

/* x[0..3] hold the 64 octets before *pp: folds all whole 64-octet steps
 * (mixed chunks while long) and returns the four lanes as one. */
INLINE T_CLMUL __m128i clmul_fold4(__m128i *x, uint8_t **dp,
                                   const uint8_t **pp, size_t *np, int copy)
{
    const uint8_t *p = *pp;
    uint8_t *d = *dp;
    size_t n = *np;
    __m128i kf = kx(K512);
    uint32_t cs = 0;
    for (; n >= MIXX_CHUNK + 64; n -= MIXX_CHUNK) {
        cs = mixx_chunk(x, kf, cs, d, p, copy);
        kf = kx(KBIGX);
        p += MIXX_CHUNK, d += MIXX_CHUNK;
    }
    for (; n >= 64; n -= 64, p += 64, d += 64) {
        vx_iter(x, kf, cs, d, p, copy);
        kf = kx(K512), cs = 0;
    }
    *pp = p, *dp = d, *np = n;
    return _mm_xor_si128(fold(x[0], kx(K384), fold(x[1], kx(K256), x[3])),
                         fold(x[2], kx(K128), _mm_setzero_si128()));
}

/* Any n >= 16. */
INLINE T_CLMUL uint32_t clmul_body(uint32_t c, uint8_t *d, const uint8_t *p,
                                   size_t n, int copy)
{
    size_t h = n & 15;
    c = crc_tail(c, d, p, h, copy);
    p += h, d += h, n -= h;
    __m128i x[4];
    x[0] = _mm_xor_si128(ldx(d, p, copy), _mm_cvtsi32_si128((int)c));
    p += 16, d += 16, n -= 16;
    if (n >= 48) {
        x[1] = ldx(d, p, copy);
        x[2] = ldx(d + 16, p + 16, copy);
        x[3] = ldx(d + 32, p + 32, copy);
        p += 48, d += 48, n -= 48;
        x[0] = clmul_fold4(x, &d, &p, &n, copy);
    }
    for (; n >= 16; n -= 16, p += 16, d += 16)
        x[0] = fold(x[0], kx(K128), ldx(d, p, copy));
    return lane_crc(x[0]);
}

static T_CLMUL __attribute__((noinline)) uint32_t
clmul_long(uint32_t c, const uint8_t *p, size_t n)
{
    return clmul_body(c, NODST(p), p, n, 0);
}

static T_CLMUL __attribute__((noinline)) uint32_t
clmul_long_copy(uint32_t c, uint8_t *d, const uint8_t *p, size_t n)
{
    return clmul_body(c, d, p, n, 1);
}

/* Short buffers (SMALL3_MIN <= n < DW_CRC32C_SMALL3_MAX, also for avx2 and
 * before the fused kernels' set-up pays): three crc32 chains, the
 * first two over a qwords each, the third over the rest (whole qwords,
 * then the odd octets), merged as c0 x^(8(n-8a)) + c1 x^(8(n-16a)) + c2
 * with one carry-less multiply each (the shifts from the tables, off the
 * chains' path). One chain was a 3-cycle latency per qword; three take
 * about a third of it. Measured on Zen 3 (independent calls): below 224
 * octets the one chain's fewer instructions win, from 1024 the folds. */
#define SMALL3_MIN 224
#ifndef DW_CRC32C_SMALL3_MAX
#define DW_CRC32C_SMALL3_MAX 768
#endif
/* x^(8 k) x^-32 mod P, k < 65792 (the tables' scaling). */
INLINE T_CLMUL uint32_t xpow8_x32(size_t k)
{
    uint32_t lo = shift_lo_x32[k & 255u];
    if (k < 256)
        return lo; /* shift_hi_x32[0] is x^0 x^-32: the product is lo */
    __m128i m = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)lo),
                                     _mm_cvtsi32_si128((int)shift_hi_x32[k >> 8]), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(m) << 1);
}

/* a b x^32 mod P as the 64-bit value whose crc32 from 0 gives it. */
INLINE T_CLMUL uint64_t clmul64(uint32_t a, uint32_t b)
{
    __m128i m = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a), _mm_cvtsi32_si128((int)b), 0);
    return (uint64_t)_mm_cvtsi128_si64(m) << 1;
}

INLINE T_CLMUL uint32_t crc3_small(uint32_t c, const uint8_t *p, size_t n)
{
    size_t q = n / 8, a = (q + 2) / 3, b = q - 2 * a; /* b <= a <= b + 2 */
    uint32_t k0 = xpow8_x32(n - 8 * a), k1 = xpow8_x32(n - 16 * a);
    const uint8_t *p1 = p + 8 * a, *p2 = p + 16 * a;
    uint64_t c0 = c, c1 = 0, c2 = 0;
    size_t i = 0;
    for (; i < 8 * b; i += 8) {
        c0 = _mm_crc32_u64(c0, ld64(p + i));
        c1 = _mm_crc32_u64(c1, ld64(p1 + i));
        c2 = _mm_crc32_u64(c2, ld64(p2 + i));
    }
    for (; i < 8 * a; i += 8) {
        c0 = _mm_crc32_u64(c0, ld64(p + i));
        c1 = _mm_crc32_u64(c1, ld64(p1 + i));
    }
    c2 = crc_tail((uint32_t)c2, NULL, p2 + 8 * b, n - 8 * q, 0);
    uint64_t m = clmul64((uint32_t)c0, k0) ^ clmul64((uint32_t)c1, k1);
    return (uint32_t)_mm_crc32_u64(0, m) ^ (uint32_t)c2;
}

static T_CLMUL uint32_t clmul_crc(uint32_t crc, const void *buf, size_t len)
{
    if (len < SMALL3_MIN)
        return ~crc_tail(~crc, NULL, buf, len, 0);
    if (len < DW_CRC32C_SMALL3_MAX)
        return ~crc3_small(~crc, buf, len);
    if (len >= DW_CRC32C_FUSE_CLMUL_MIN)
        return ~dw_crc32c_fuse_clmul(~crc, buf, len);
    return ~clmul_long(~crc, buf, len);
}

static T_CLMUL uint32_t clmul_copy(uint32_t crc, void *dst, const void *src,
                                   size_t len)
{
    if (len < SMALL3_MIN)
        return ~crc_tail(~crc, dst, src, len, 1);
    if (len < DW_CRC32C_SMALL3_MAX) { /* the copy beside, in L1 */
        memcpy(dst, src, len);
        return ~crc3_small(~crc, src, len);
    }
    return ~clmul_long_copy(~crc, dst, src, len);
}

/* ---- avx512: 4x512-bit VPCLMULQDQ folding, also mixed with crc32 ---- */

#define AVX_MIN 64 /* below this, one crc32 stream */

INLINE T_AVX512 __m512i ldz(uint8_t *d, const uint8_t *p, int copy)
{
    __m512i v = _mm512_loadu_si512(p);
    if (copy)
        _mm512_storeu_si512(d, v);
    return v;
}

/* Folds the 256 octets at p into x[0..3]; cs goes into the first dword. */
INLINE T_AVX512 void vz_iter(__m512i *x, __m512i k, uint32_t cs, uint8_t *d,
                             const uint8_t *p, int copy)
{
    __m512i y = _mm512_xor_si512(ldz(d, p, copy),
                                 _mm512_maskz_set1_epi32(1, (int)cs));
    x[0] = foldz(x[0], k, y);
    x[1] = foldz(x[1], k, ldz(d + 64, p + 64, copy));
    x[2] = foldz(x[2], k, ldz(d + 128, p + 128, copy));
    x[3] = foldz(x[3], k, ldz(d + 192, p + 192, copy));
}

INLINE T_AVX512 uint32_t mixz_chunk(__m512i *x, __m512i kf, uint32_t cs,
                                    uint8_t *d, const uint8_t *p, int copy)
{
    uint64_t c[3] = {0, 0, 0};
    const uint8_t *s = p + 256 * MIXZ_K;
    uint8_t *e = d + 256 * MIXZ_K;
    vz_iter(x, kf, cs, d, p, copy);
    mix_s(c, e, s, MIXZ_LS, MIXZ_Q, copy);
    for (int i = 1; i < MIXZ_K; i++) {
        vz_iter(x, kz(K2048), 0, d + 256 * i, p + 256 * i, copy);
        mix_s(c, e + 8 * MIXZ_Q * i, s + 8 * MIXZ_Q * i, MIXZ_LS, MIXZ_Q,
              copy);
    }
    return merge3(c, MZ2, MZ1);
}

INLINE T_AVX512 __m512i avx512_fold4(__m512i *x, uint8_t **dp,
                                     const uint8_t **pp, size_t *np, int copy)
{
    const uint8_t *p = *pp;
    uint8_t *d = *dp;
    size_t n = *np;
    __m512i kf = kz(K2048);
    uint32_t cs = 0;
    for (; n >= MIXZ_CHUNK + 256; n -= MIXZ_CHUNK) {
        cs = mixz_chunk(x, kf, cs, d, p, copy);
        kf = kz(KBIGZ);
        p += MIXZ_CHUNK, d += MIXZ_CHUNK;
    }
    for (; n >= 256; n -= 256, p += 256, d += 256) {
        vz_iter(x, kf, cs, d, p, copy);
        kf = kz(K2048), cs = 0;
    }
    *pp = p, *dp = d, *np = n;
    x[0] = foldz(x[0], kz(K1024), x[2]);
    x[1] = foldz(x[1], kz(K1024), x[3]);
    return foldz(x[0], kz(K512), x[1]);
}

/* Any n >= 4. */
INLINE T_AVX512 uint32_t avx512_body(uint32_t c, uint8_t *d, const uint8_t *p,
                                     size_t n, int copy)
{
    size_t h = n & 3;
    c = crc_tail(c, d, p, h, copy);
    p += h, d += h, n -= h;
    /* Pretend pad zero octets precede p: they do not change the CRC as
     * long as c lands on the first real octet (a dword boundary). */
    size_t pad = (64 - (n & 63)) & 63;
    __mmask64 m = ~0ULL << pad;
    p = (const uint8_t *)((uintptr_t)p - pad);
    d = (uint8_t *)((uintptr_t)d - pad);
    __m512i x[4];
    x[0] = _mm512_maskz_loadu_epi8(m, p);
    if (copy)
        _mm512_mask_storeu_epi8(d, m, x[0]);
    x[0] = _mm512_xor_si512(x[0], _mm512_maskz_set1_epi32(
                                      (__mmask16)(1u << (pad / 4)), (int)c));
    n += pad - 64, p += 64, d += 64;
    if (n >= 192) {
        x[1] = ldz(d, p, copy);
        x[2] = ldz(d + 64, p + 64, copy);
        x[3] = ldz(d + 128, p + 128, copy);
        p += 192, d += 192, n -= 192;
        x[0] = avx512_fold4(x, &d, &p, &n, copy);
    }
    for (; n >= 64; n -= 64, p += 64, d += 64)
        x[0] = foldz(x[0], kz(K512), ldz(d, p, copy));
    return lane_crc(zmm_to_xmm(x[0]));
}

static T_AVX512 inline __attribute__((always_inline)) uint32_t
avx512_long(uint32_t c, const uint8_t *p, size_t n)
{
    return avx512_body(c, NODST(p), p, n, 0);
}

static T_AVX512 __attribute__((noinline)) uint32_t
avx512_long_copy(uint32_t c, uint8_t *d, const uint8_t *p, size_t n)
{
    return avx512_body(c, d, p, n, 1);
}

/* ---- tunings per microarchitecture ---- */

static const dw_crc32c_tune_ops *tune_active(void);

static T_AVX512 uint32_t avx512_crc(uint32_t crc, const void *buf, size_t len)
{
    if (len < AVX_MIN)
        return ~crc_tail(~crc, NULL, buf, len, 0);
    if (len >= DW_CRC32C_FUSE_MIN)
        return ~tune_active()->fuse_avx512(~crc, buf, len);
    return ~avx512_long(~crc, buf, len);
}

static T_AVX512 uint32_t avx512_copy(uint32_t crc, void *dst, const void *src,
                                     size_t len)
{
    if (len < AVX_MIN)
        return ~crc_tail(~crc, dst, src, len, 1);
    return ~avx512_long_copy(~crc, dst, src, len);
}

/* ---- avx2: 256-bit VPCLMULQDQ fused with crc32 chains (long buffers) ---- */

static T_CLMUL uint32_t avx2_crc(uint32_t crc, const void *buf, size_t len)
{
    if (len < DW_CRC32C_FUSE_AVX2_MIN || len < DW_CRC32C_SMALL3_MAX)
        return clmul_crc(crc, buf, len);
    return ~tune_active()->fuse_avx2(~crc, buf, len);
}

/* Copy and CRC with AVX2: from COPY_AVX2_MIN octets chunk by chunk, the
 * fused kernel over the source, then the chunk copied while it is in L1
 * (the 128-bit copy kernel folds at 4 octets a cycle; the fused one runs
 * at 8 and the copy at several times that): 1.2-1.3x the 128-bit copy
 * kernel from 768 octets on Zen 3. */
#define COPY_AVX2_MIN 768
#define COPY_AVX2_CHUNK 8192

static T_CLMUL uint32_t avx2_copy(uint32_t crc, void *dst, const void *src,
                                  size_t len)
{
    if (len < COPY_AVX2_MIN)
        return clmul_copy(crc, dst, src, len);
    const uint8_t *s = src;
    uint8_t *d = dst;
    while (len) {
        size_t k = len < COPY_AVX2_CHUNK + COPY_AVX2_MIN ? len : COPY_AVX2_CHUNK;
        crc = avx2_crc(crc, s, k);
        memcpy(d, s, k);
        s += k, d += k, len -= k;
    }
    return crc;
}

/* ---- CPU detection and the ops table ---- */

static const dw_crc32c_ops ops_sse42 = {DW_CRC32C_SSE42, sse42_crc, sse42_copy};
static const dw_crc32c_ops ops_clmul = {DW_CRC32C_PCLMUL, clmul_crc,
                                        clmul_copy};
static const dw_crc32c_ops ops_avx512 = {DW_CRC32C_AVX512, avx512_crc,
                                         avx512_copy};
static const dw_crc32c_ops ops_avx2 = {DW_CRC32C_AVX2, avx2_crc, avx2_copy};

enum {
    HAVE_SSE42 = 1,
    HAVE_CLMUL = 2,
    HAVE_AVX512 = 4,
    HAVE_CHECKED = 8,
    HAVE_AVX2 = 16, /* AVX2 and VPCLMULQDQ */
};

static uint64_t xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

static int detect(void)
{
    unsigned a, b, c, d;
    int f = HAVE_CHECKED;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return f;
    if (c & bit_SSE4_2)
        f |= HAVE_SSE42;
    if ((f & HAVE_SSE42) && (c & bit_PCLMUL))
        f |= HAVE_CLMUL;
    int osxsave = (c & bit_OSXSAVE) != 0;
    if (!(f & HAVE_CLMUL) || !osxsave || __get_cpuid_max(0, NULL) < 7)
        return f;
    uint64_t x0 = xcr0();
    __cpuid_count(7, 0, a, b, c, d);
    /* XCR0: SSE and AVX state enabled. */
    if ((x0 & 0x6) == 0x6 && (b & bit_AVX2) && (c & bit_VPCLMULQDQ))
        f |= HAVE_AVX2;
    /* XCR0: SSE, AVX, opmask, ZMM_Hi256 and Hi16_ZMM state enabled. */
    if ((x0 & 0xE6) != 0xE6)
        return f;
    const unsigned need_b = bit_AVX512F | bit_AVX512BW | bit_AVX512VL;
    if ((b & need_b) == need_b && (c & bit_VPCLMULQDQ))
        f |= HAVE_AVX512;
    return f;
}

static int features(void)
{
    static int cached;
    int f = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!f) {
        f = detect();
        __atomic_store_n(&cached, f, __ATOMIC_RELAXED);
    }
    return f;
}

int dw_crc32c_have_mulx32(void)
{
    return (features() & HAVE_CLMUL) != 0;
}

T_CLMUL uint32_t dw_crc32c_mulx32(uint32_t a, uint32_t b)
{
    return dw_x86_mulx32(a, b);
}

const dw_crc32c_ops *dw_crc32c_fast_ops(dw_crc32c_impl impl)
{
    int f = features();
    switch (impl) {
    case DW_CRC32C_SSE42:
        return (f & HAVE_SSE42) ? &ops_sse42 : NULL;
    case DW_CRC32C_PCLMUL:
        return (f & HAVE_CLMUL) ? &ops_clmul : NULL;
    case DW_CRC32C_AVX512:
        return (f & HAVE_AVX512) ? &ops_avx512 : NULL;
    case DW_CRC32C_AVX2:
        return (f & HAVE_AVX2) ? &ops_avx2 : NULL;
    default:
        return NULL;
    }
}

/*
 * The tunings. Zen 3 (no AVX-512): 256-bit folds run at the crc32 chains'
 * rate, so V and the chains share about 1:1 (measured: crc32c_fuse_x86.c).
 * Zen 4 splits a 512-bit multiply into two 256-bit halves; on it the
 * published v3s2x4 (three quarters of the octets folded) led our 2:1
 * share with three chains (issue 28's measurement): its share with three
 * chains, Q = 3. Zen 5 (full-width 512-bit units): the 2:1 share tuned in
 * issue 19. Others: as Zen 5 for AVX-512, as Zen 3 for AVX2.
 */
#define FY_DEFAULT dw_crc32c_fuse_avx2_3_4, 3, 4
static const dw_crc32c_tune_ops tunes[DW_CRC32C_TUNE_COUNT] = {
    [DW_CRC32C_TUNE_GENERIC] = {DW_CRC32C_TUNE_GENERIC, dw_crc32c_fuse_avx512,
                                FY_DEFAULT, DW_FZ_STEP_Q(4), DW_FZ_PIECE_Q(4)},
    [DW_CRC32C_TUNE_ZEN3] = {DW_CRC32C_TUNE_ZEN3, dw_crc32c_fuse_avx512,
                             FY_DEFAULT, DW_FZ_STEP_Q(4), DW_FZ_PIECE_Q(4)},
    [DW_CRC32C_TUNE_ZEN4] = {DW_CRC32C_TUNE_ZEN4, dw_crc32c_fuse_avx512_q3,
                             FY_DEFAULT, DW_FZ_STEP_Q(3), DW_FZ_PIECE_Q(3)},
    [DW_CRC32C_TUNE_ZEN5] = {DW_CRC32C_TUNE_ZEN5, dw_crc32c_fuse_avx512,
                             FY_DEFAULT, DW_FZ_STEP_Q(4), DW_FZ_PIECE_Q(4)},
};

dw_crc32c_tuning dw_crc32c_tuning_detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return DW_CRC32C_TUNE_GENERIC;
    /* "AuthenticAMD" / "HygonGenuine" in EBX, EDX, ECX */
    int amd = (b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u) ||
              (b == 0x6f677948u && d == 0x6e65476eu && c == 0x656e6975u);
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d))
        return DW_CRC32C_TUNE_GENERIC;
    unsigned fam = (a >> 8) & 0xf, model = (a >> 4) & 0xf;
    if (fam == 0xf) {
        fam += (a >> 20) & 0xff;
        model |= ((a >> 16) & 0xf) << 4;
    }
    if (fam == 0x1a)
        return DW_CRC32C_TUNE_ZEN5;
    if (fam != 0x19)
        return DW_CRC32C_TUNE_GENERIC;
    if (model <= 0x0f || (model >= 0x20 && model <= 0x5f))
        return DW_CRC32C_TUNE_ZEN3;
    if ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0x7f) ||
        (model >= 0xa0 && model <= 0xaf))
        return DW_CRC32C_TUNE_ZEN4;
    return DW_CRC32C_TUNE_GENERIC;
}

static const dw_crc32c_tune_ops *tune_cur;

const dw_crc32c_tune_ops *dw_crc32c_tune_get(dw_crc32c_tuning t)
{
    if (t == DW_CRC32C_TUNE_AUTO)
        t = dw_crc32c_tuning_detect();
    return (unsigned)t < DW_CRC32C_TUNE_COUNT && t != DW_CRC32C_TUNE_AUTO
               ? &tunes[t]
               : NULL;
}

static const dw_crc32c_tune_ops *tune_active(void)
{
    const dw_crc32c_tune_ops *o = __atomic_load_n(&tune_cur, __ATOMIC_ACQUIRE);
    if (!o) {
        o = dw_crc32c_tune_get(DW_CRC32C_TUNE_AUTO);
        __atomic_store_n(&tune_cur, o, __ATOMIC_RELEASE);
    }
    return o;
}

int dw_crc32c_tuning_set(dw_crc32c_tuning t)
{
    if (t == DW_CRC32C_TUNE_AUTO) {
        __atomic_store_n(&tune_cur, NULL, __ATOMIC_RELEASE);
        return 0;
    }
    const dw_crc32c_tune_ops *o = dw_crc32c_tune_get(t);
    if (!o)
        return DW_ERR_UNSUPPORTED;
    __atomic_store_n(&tune_cur, o, __ATOMIC_RELEASE);
    return 0;
}

dw_crc32c_tuning dw_crc32c_tuning_get(void)
{
    return tune_active()->tuning;
}
