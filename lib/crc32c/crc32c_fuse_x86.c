/* SPDX-License-Identifier: MIT */
/*
 * CRC32c of long buffers on AVX-512 VPCLMULQDQ machines: carry-less
 * folding and crc32 chains run side by side on separate parts of the
 * buffer, so both kinds of execution unit work at once (on the Zen
 * machines here 512-bit folds reach about 16 octets a cycle, 128-bit ones
 * 4, the crc32 instruction 8). The 128-bit form (SSE4.2 + PCLMULQDQ) is
 * at the end of the file.
 *
 * A piece of n octets (64-aligned) is cut as
 *
 *     [ V: folded, NV x 64 octets a step | S0 | S1 | S2 | T ]
 *
 * S0..S2 have l octets each and run through three crc32 chains from 0
 * (three hide the instruction's 3-cycle latency); T (< 64 octets) goes on
 * chain 2. V starts with the initial register xored into its first dword
 * and takes the octets the steps leave over in whole 64-octet blocks.
 * The CRC of the whole is then (CRC register algebra, all mod P)
 *
 *     crc(V) x^(8(3l+t)) + crc(S0) x^(8(2l+t)) + crc(S1) x^(8(l+t)) + crc(S2 T)
 *
 * with the three multiplies done as one carry-less multiply each and one
 * crc32 instruction for their sum. The powers depend only on n: they are
 * computed before the loop, off its critical path.
 *
 * The folding of V: see crc32c_x86.c. The share of V (NV x 64 octets per
 * 3 x 8 x Q of the chains, 192 to 96 with AVX-512 and 48 to 96 with
 * 128-bit folds) follows the two units' rates; measured against other
 * shares (NV 3..4, Q 2..6) with `ddpwire bench crc`.
 */
#include "crc32c/crc32c_impl.h"
#include "crc32c/crc32c_x86.h"

#include <string.h>

/* NV, Q, STEP, PIECE: crc32c_impl.h */

/* Fold constants {x^(D+31), x^(D-33)} mod P, D = 512 NV bits. */
#if DW_FZ_NV == 3
#define FZ_K 0xa87ab8a8u, 0xab7aff2au
#elif DW_FZ_NV == 4
#define FZ_K K2048
#else
#error "DW_FZ_NV: 3 or 4"
#endif

static inline uint64_t fz_ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* One step of the three chains: q qwords each, at s, s + l, s + 2 l. */
INLINE T_SSE42 void fz_chains(uint64_t *c, const uint8_t *s, size_t l, int q)
{
#pragma GCC unroll 8
    for (int j = 0; j < 8 * q; j += 8) {
        c[0] = _mm_crc32_u64(c[0], fz_ld64(s + j));
        c[1] = _mm_crc32_u64(c[1], fz_ld64(s + l + j));
        c[2] = _mm_crc32_u64(c[2], fz_ld64(s + 2 * l + j));
    }
}

INLINE T_SSE42 uint64_t fz_tail(uint64_t c, const uint8_t *p, size_t n)
{
    for (; n >= 8; n -= 8, p += 8)
        c = _mm_crc32_u64(c, fz_ld64(p));
    for (; n; n--, p++)
        c = _mm_crc32_u8((uint32_t)c, *p);
    return c;
}

/* The accumulators, oldest first, as one 512-bit value. */
INLINE T_AVX512 __m512i fz_reduce(const __m512i *x)
{
#if DW_FZ_NV == 3
    __m512i t = foldz(x[1], kz(K512), x[2]);
    return foldz(x[0], kz(K1024), t);
#else
    __m512i a = foldz(x[0], kz(K1024), x[2]);
    __m512i b = foldz(x[1], kz(K1024), x[3]);
    return foldz(a, kz(K512), b);
#endif
}

/* The folded part: steps x NV blocks, then e more blocks. */
INLINE T_AVX512 __m512i fz_fold(uint32_t c, const uint8_t *v, size_t steps,
                                size_t e, uint64_t *cc, const uint8_t *s,
                                size_t l, int q)
{
    const __m512i k = kz(FZ_K);
    __m512i x[DW_FZ_NV];
#pragma GCC unroll 4
    for (int j = 0; j < DW_FZ_NV; j++)
        x[j] = _mm512_load_si512(v + 64 * j);
    x[0] = _mm512_xor_si512(x[0], _mm512_maskz_set1_epi32(1, (int)c));
    v += 64 * DW_FZ_NV;
    for (size_t i = 1; i < steps; i++, v += 64 * DW_FZ_NV, s += 8 * (size_t)q) {
#pragma GCC unroll 4
        for (int j = 0; j < DW_FZ_NV; j++)
            x[j] = foldz(x[j], k, _mm512_load_si512(v + 64 * j));
        fz_chains(cc, s, l, q);
    }
    fz_chains(cc, s, l, q);
    for (; e; e--, v += 64) { /* the newest block goes last */
        __m512i t = foldz(x[0], k, _mm512_load_si512(v));
#pragma GCC unroll 4
        for (int j = 0; j + 1 < DW_FZ_NV; j++)
            x[j] = x[j + 1];
        x[DW_FZ_NV - 1] = t;
    }
    return fz_reduce(x);
}

/* s(x^(8(j l + t))) for j = 1..3 (pw[j - 1]), in the tables' x^-32
 * scaling: the shifts of the parts that precede S2 T. */
INLINE T_CLMUL void fz_powers(uint32_t *pw, size_t l, size_t t)
{
    uint32_t a = dw_crc32c_xpow8_x32(l);
    pw[0] = dw_x86_mulx32(a, dw_crc32c_xpow8_x32(t));
    pw[1] = dw_x86_mulx32(a, pw[0]);
    pw[2] = dw_x86_mulx32(a, pw[1]);
}

/* The CRC of V S0 S1 S2 T from those of its parts. */
INLINE T_CLMUL uint32_t fz_merge(uint32_t cv, const uint64_t *cc,
                                 const uint32_t *pw)
{
    uint64_t m = dw_x86_clmul32(cv, pw[2]) ^ dw_x86_clmul32((uint32_t)cc[0], pw[1]) ^
                 dw_x86_clmul32((uint32_t)cc[1], pw[0]);
    return (uint32_t)_mm_crc32_u64(0, m) ^ (uint32_t)cc[2];
}

/* One piece: p 64-aligned, step <= n < piece + step. */
INLINE T_AVX512 uint32_t fz_piece(uint32_t c, const uint8_t *p, size_t n,
                                  int q)
{
    size_t st = DW_FZ_STEP_Q(q);
    size_t steps = n / st, rem = n % st;
    size_t e = rem / 64, t = rem % 64, l = steps * 8 * (size_t)q;
    const uint8_t *s = p + 64 * (DW_FZ_NV * steps + e);
    uint32_t pw[3];
    fz_powers(pw, l, t); /* first: they depend on n only */
    uint64_t cc[3] = {0, 0, 0};
    __m512i x = fz_fold(c, p, steps, e, cc, s, l, q);
    cc[2] = fz_tail(cc[2], s + 3 * l, t);
    return fz_merge(lane_crc(zmm_to_xmm(x)), cc, pw);
}

/* Raw register over n octets (fastest from DW_CRC32C_FUSE_MIN), Q qwords
 * of each chain per step. */
INLINE T_AVX512 uint32_t fz_run(uint32_t c, const uint8_t *p, size_t n, int q)
{
    size_t h = (64 - ((uintptr_t)p & 63)) & 63;
    h = h < n ? h : n;
    c = (uint32_t)fz_tail(c, p, h);
    p += h, n -= h;
    const size_t max = DW_FZ_PIECE_Q(q); /* a multiple of 64: p stays aligned */
    const size_t st = DW_FZ_STEP_Q(q);
    while (n >= st) {
        size_t k = n < max + st ? n : max; /* leaves >= 1 step */
        c = fz_piece(c, p, k, q);
        p += k, n -= k;
    }
    return (uint32_t)fz_tail(c, p, n);
}

/* Zen 5 (and the default): 192 folded octets to 96 of the chains. */
T_AVX512 uint32_t dw_crc32c_fuse_avx512(uint32_t c, const uint8_t *p, size_t n)
{
    return fz_run(c, p, n, DW_FZ_Q);
}

/* Zen 4: 192 to 72, the share of the published v3s2x4 that leads there. */
T_AVX512 uint32_t dw_crc32c_fuse_avx512_q3(uint32_t c, const uint8_t *p,
                                           size_t n)
{
    return fz_run(c, p, n, 3);
}

/* ---- the same with 128-bit folding (SSE4.2 + PCLMULQDQ only) ---- */

#define FX_LS (8 * DW_FX_Q)
#define FX_STEP DW_FX_STEP
#if DW_FX_NV == 2
#define FX_K_LO K256_LO
#define FX_K_HI K256_HI
#elif DW_FX_NV == 3
#define FX_K_LO K384_LO
#define FX_K_HI K384_HI
#else
#error "DW_FX_NV: 2 or 3"
#endif

INLINE T_CLMUL __m128i fx_fold1(__m128i x, __m128i k, __m128i y)
{
    __m128i a = _mm_clmulepi64_si128(x, k, 0x00);
    __m128i b = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(a, b), y);
}

INLINE T_CLMUL __m128i fx_ld(const uint8_t *p)
{
    return _mm_load_si128((const __m128i *)(const void *)p);
}

INLINE T_CLMUL __m128i fx_fold(uint32_t c, const uint8_t *v, size_t steps,
                               size_t e, uint64_t *cc, const uint8_t *s,
                               size_t l)
{
    const __m128i k = _mm_set_epi64x(FX_K_HI, FX_K_LO);
    __m128i x[DW_FX_NV];
#pragma GCC unroll 4
    for (int j = 0; j < DW_FX_NV; j++)
        x[j] = fx_ld(v + 16 * j);
    x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int)c));
    v += 16 * DW_FX_NV;
    for (size_t i = 1; i < steps; i++, v += 16 * DW_FX_NV, s += FX_LS) {
#pragma GCC unroll 4
        for (int j = 0; j < DW_FX_NV; j++)
            x[j] = fx_fold1(x[j], k, fx_ld(v + 16 * j));
        fz_chains(cc, s, l, DW_FX_Q);
    }
    fz_chains(cc, s, l, DW_FX_Q);
    for (; e; e--, v += 16) {
        __m128i t = fx_fold1(x[0], k, fx_ld(v));
#pragma GCC unroll 4
        for (int j = 0; j + 1 < DW_FX_NV; j++)
            x[j] = x[j + 1];
        x[DW_FX_NV - 1] = t;
    }
#if DW_FX_NV == 2
    return fx_fold1(x[0], _mm_set_epi64x(K128_HI, K128_LO), x[1]);
#else
    __m128i t = fx_fold1(x[1], _mm_set_epi64x(K128_HI, K128_LO), x[2]);
    return fx_fold1(x[0], _mm_set_epi64x(K256_HI, K256_LO), t);
#endif
}

/* One piece: p 16-aligned, FX_STEP <= n < DW_FX_PIECE + FX_STEP. */
static T_CLMUL uint32_t fx_piece(uint32_t c, const uint8_t *p, size_t n)
{
    size_t steps = n / FX_STEP, rem = n % FX_STEP;
    size_t e = rem / 16, t = rem % 16, l = steps * FX_LS;
    const uint8_t *s = p + 16 * (DW_FX_NV * steps + e);
    uint32_t pw[3];
    fz_powers(pw, l, t);
    uint64_t cc[3] = {0, 0, 0};
    __m128i x = fx_fold(c, p, steps, e, cc, s, l);
    cc[2] = fz_tail(cc[2], s + 3 * l, t);
    return fz_merge(lane_crc(x), cc, pw);
}

/* The same with 128-bit folding (fastest from DW_CRC32C_FUSE_CLMUL_MIN). */
T_CLMUL uint32_t dw_crc32c_fuse_clmul(uint32_t c, const uint8_t *p, size_t n)
{
    size_t h = (16 - ((uintptr_t)p & 15)) & 15;
    h = h < n ? h : n;
    c = (uint32_t)fz_tail(c, p, h);
    p += h, n -= h;
    const size_t max = DW_FX_PIECE;
    while (n >= FX_STEP) {
        size_t k = n < max + FX_STEP ? n : max;
        c = fx_piece(c, p, k);
        p += k, n -= k;
    }
    return (uint32_t)fz_tail(c, p, n);
}

/* ---- the same with 256-bit folding (AVX2 + VPCLMULQDQ, e.g. Zen 3) ----
 *
 * Zen 3 runs one PCLMULQDQ every two cycles whether on 128 or 256 bits
 * (measured here: 16 folds' multiplies in 32 core cycles either way), so
 * 256-bit folds reach 8 octets a cycle, as many as three crc32 chains:
 * V and the chains share the buffer about 1:1 (FY_NV x 32 octets to
 * 3 x 8 x FY_Q). Parameters are template arguments: the kernels below
 * are instances for the tunings of crc32c_x86.c. */

#define T_AVX2C                                                             \
    __attribute__((target("sse4.2,pclmul,avx,avx2,vpclmulqdq")))

INLINE T_AVX2C __m256i fy_k(uint32_t lo, uint32_t hi)
{
    return _mm256_set_epi64x(hi, lo, hi, lo);
}

INLINE T_AVX2C __m256i fy_fold1(__m256i x, __m256i k, __m256i y)
{
    __m256i a = _mm256_clmulepi64_epi128(x, k, 0x00);
    __m256i b = _mm256_clmulepi64_epi128(x, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(a, b), y);
}

INLINE T_AVX2C __m256i fy_ld(const uint8_t *p)
{
    return _mm256_load_si256((const __m256i *)(const void *)p);
}

/* Fold constants for 256 d bits (d = 1..4). */
INLINE T_AVX2C __m256i fy_kd(int d)
{
    return d == 1 ? fy_k(K256_LO, K256_HI)
         : d == 2 ? fy_k(0x740eef02u, 0x9e4addf8u)   /* 512 */
         : d == 3 ? fy_k(0xc49f4f67u, 0x0715ce53u)   /* 768 */
                  : fy_k(0x6992cea2u, 0x0d3b6092u);  /* 1024 */
}

INLINE T_AVX2C __m128i fy_fold(uint32_t c, const uint8_t *v, size_t steps,
                               size_t e, uint64_t *cc, const uint8_t *s,
                               size_t l, int nv, int q)
{
    const __m256i k = fy_kd(nv);
    __m256i x[4];
#pragma GCC unroll 4
    for (int j = 0; j < nv; j++)
        x[j] = fy_ld(v + 32 * j);
    x[0] = _mm256_xor_si256(x[0], _mm256_zextsi128_si256(
                                      _mm_cvtsi32_si128((int)c)));
    v += 32 * (size_t)nv;
    for (size_t i = 1; i < steps; i++, v += 32 * (size_t)nv, s += 8 * (size_t)q) {
#pragma GCC unroll 4
        for (int j = 0; j < nv; j++)
            x[j] = fy_fold1(x[j], k, fy_ld(v + 32 * j));
        fz_chains(cc, s, l, q);
    }
    fz_chains(cc, s, l, q);
    for (; e; e--, v += 32) {
        __m256i t = fy_fold1(x[0], k, fy_ld(v));
#pragma GCC unroll 4
        for (int j = 0; j + 1 < nv; j++)
            x[j] = x[j + 1];
        x[nv - 1] = t;
    }
    __m256i r = x[nv - 1];
#pragma GCC unroll 4
    for (int j = nv - 2; j >= 0; j--)
        r = fy_fold1(x[j], fy_kd(nv - 1 - j), r);
    return fx_fold1(_mm256_castsi256_si128(r), _mm_set_epi64x(K128_HI, K128_LO),
                    _mm256_extracti128_si256(r, 1));
}

INLINE T_AVX2C uint32_t fy_piece(uint32_t c, const uint8_t *p, size_t n,
                                 int nv, int q)
{
    size_t st = 32 * (size_t)nv + 24 * (size_t)q;
    size_t steps = n / st, rem = n % st;
    size_t e = rem / 32, t = rem % 32, l = steps * 8 * (size_t)q;
    const uint8_t *s = p + 32 * ((size_t)nv * steps + e);
    uint32_t pw[3];
    fz_powers(pw, l, t);
    uint64_t cc[3] = {0, 0, 0};
    __m128i x = fy_fold(c, p, steps, e, cc, s, l, nv, q);
    cc[2] = fz_tail(cc[2], s + 3 * l, t);
    return fz_merge(lane_crc(x), cc, pw);
}

INLINE T_AVX2C uint32_t fy_run(uint32_t c, const uint8_t *p, size_t n, int nv,
                               int q)
{
    size_t h = (32 - ((uintptr_t)p & 31)) & 31;
    h = h < n ? h : n;
    c = (uint32_t)fz_tail(c, p, h);
    p += h, n -= h;
    const size_t st = 32 * (size_t)nv + 24 * (size_t)q;
    const size_t max = DW_FY_PIECE(nv, q);
    while (n >= st) {
        size_t k = n < max + st ? n : max;
        c = fy_piece(c, p, k, nv, q);
        p += k, n -= k;
    }
    _mm256_zeroupper();
    return (uint32_t)fz_tail(c, p, n);
}

#define FY_INSTANCE(nv, q)                                                  \
    T_AVX2C uint32_t dw_crc32c_fuse_avx2_##nv##_##q(uint32_t c,             \
                                                     const uint8_t *p,      \
                                                     size_t n)              \
    {                                                                       \
        return fy_run(c, p, n, nv, q);                                      \
    }
DW_FY_INSTANCES(FY_INSTANCE)

/* ---- MPA marker periods: CRC and strip in one pass (AVX2 + VPCLMULQDQ) ----
 *
 * j periods of an MPA stream from a marker (MPA 7.1: the marker, then 508
 * ULPDU octets) at in: the CRC register runs over all 512 j octets while
 * the ULPDU octets (markers stripped) are stored to dst, from the same
 * loads. Cut as [V | S0 | S1 | S2] by whole periods: V folded with three
 * 256-bit accumulators, S0..S2 through three crc32 chains, 96 octets of
 * each per step, merged as in fy_piece. Each period starts with its
 * marker, so in V the first vector of a period (the marker's) is stored
 * from a load 4 octets further on, and in a chain the first qword gives
 * only its upper half. */

/* Vector s (0..15) of the period at p: loaded for the fold, its ULPDU
 * octets stored at d (the period's 508). */
INLINE T_AVX2C __m256i sp_vec(const uint8_t *p, uint8_t *d, int s)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * s));
    if (s)
        _mm256_storeu_si256((__m256i *)(void *)(d + 32 * s - 4), x);
    else
        _mm256_storeu_si256((__m256i *)(void *)d,
                            _mm256_loadu_si256((const __m256i *)(const void *)(p + 4)));
    return x;
}

/* Qwords q..q+3 (q a multiple of 4, 0..60) of the period at p, whose
 * ULPDU octets go to d; c: the chain's register. The copy is one 32-octet
 * store (the first quad's from 4 octets on, as in sp_vec): four scalar
 * stores a quad made the stores, not the crc32 chains, the bound. */
INLINE T_AVX2C uint64_t sp_q4(uint64_t c, const uint8_t *p, uint8_t *d, int q)
{
    p += 8 * q;
    const uint8_t *s = q ? p : p + 4;
    uint8_t *o = q ? d + 8 * q - 4 : d;
    _mm256_storeu_si256((__m256i *)(void *)o,
                        _mm256_loadu_si256((const __m256i *)(const void *)s));
    c = _mm_crc32_u64(c, fz_ld64(p));
    c = _mm_crc32_u64(c, fz_ld64(p + 8));
    c = _mm_crc32_u64(c, fz_ld64(p + 16));
    return _mm_crc32_u64(c, fz_ld64(p + 24));
}

/* The fold of one more vector: x[0] oldest, x[2] newest. */
#define SP_SHIFT(x, k, v)                                                    \
    do {                                                                     \
        __m256i t_ = fy_fold1((x)[0], (k), (v));                             \
        (x)[0] = (x)[1], (x)[1] = (x)[2], (x)[2] = t_;                       \
    } while (0)

/* The marker kernels' end: the three lanes folded to one CRC, merged with
 * the chains' when there were any. */
INLINE T_AVX2C uint32_t sp_finish(const __m256i *x, const uint64_t *cc, size_t kc,
                                  const uint32_t *pw)
{
    __m256i r = fy_fold1(x[1], fy_kd(1), x[2]);
    r = fy_fold1(x[0], fy_kd(2), r);
    __m128i y = fx_fold1(_mm256_castsi256_si128(r), _mm_set_epi64x(K128_HI, K128_LO),
                         _mm256_extracti128_si256(r, 1));
    uint32_t cv = lane_crc(y);
    _mm256_zeroupper();
    return kc ? fz_merge(cv, cc, pw) : cv;
}

T_AVX2C uint32_t dw_crc32c_strip_avx2(uint32_t reg, const uint8_t *in,
                                      uint8_t *dst, size_t j)
{
    /* kc periods per chain, 3 kc + (j - 6 kc) periods folded (j / 6 led
     * j / 5, j / 7 and 2 j / 13 on Zen 3, issue 28; so in gp_run) */
    size_t kc = j / 6, l = 512 * kc, kv = j - 3 * kc;
    const uint8_t *s = in + 512 * kv;
    uint8_t *ds = dst + 508 * kv;
    uint32_t pw[3];
    if (kc)
        fz_powers(pw, l, 0);
    const __m256i k = fy_kd(3);
    __m256i x[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    /* the register enters the first dword (folds of zero are zero) */
    __m256i first = _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)reg));
    uint64_t cc[3] = {0, 0, 0};
    size_t pv = 0; /* periods folded */
    for (size_t cp = 0; cp < kc; cp++, pv += 3) {
        const uint8_t *vp = in + 512 * pv;
        uint8_t *vd = dst + 508 * pv;
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
#pragma GCC unroll 3
            for (int t = 0; t < 3; t++) {
                int v = 3 * i + t; /* of the three periods' 48 vectors */
                __m256i y = sp_vec(vp + 512 * (v / 16), vd + 508 * (v / 16), v % 16);
                if (v == 0) {
                    y = _mm256_xor_si256(y, first);
                    first = _mm256_setzero_si256();
                }
                x[t] = fy_fold1(x[t], k, y);
            }
            cc[0] = sp_q4(cc[0], s + 512 * cp, ds + 508 * cp, 4 * i);
            cc[1] = sp_q4(cc[1], s + l + 512 * cp, ds + 508 * (kc + cp), 4 * i);
            cc[2] = sp_q4(cc[2], s + 2 * l + 512 * cp, ds + 508 * (2 * kc + cp), 4 * i);
        }
    }
    for (; pv < kv; pv++) {
        const uint8_t *vp = in + 512 * pv;
        uint8_t *vd = dst + 508 * pv;
#pragma GCC unroll 16
        for (int v = 0; v < 16; v++) {
            __m256i y = sp_vec(vp, vd, v);
            if (v == 0) {
                y = _mm256_xor_si256(y, first);
                first = _mm256_setzero_si256();
            }
            SP_SHIFT(x, k, y);
        }
    }
    return sp_finish(x, cc, kc, pw);
}

/* ---- the sender's mirror: marker periods gathered from the ULPDU ----
 *
 * j periods of an FPDU image from a marker: each is the marker dword (its
 * FPDUPTR ptr, then ptr + 512, ...: MPA 7.1) and the next 508 ULPDU
 * octets at u. The raw register runs over the 512 j image octets, which
 * are also written to out when it is not NULL. Same cut and merge as
 * dw_crc32c_strip_avx2; a period's first vector is a masked load of its
 * 28 ULPDU octets (nothing before u is read) with the marker inserted. */

INLINE uint32_t gp_marker(uint32_t ptr)
{
    ptr &= 0xffffu;
    return (ptr >> 8 | (ptr & 0xffu) << 8) << 16;
}

INLINE T_AVX2C __m256i gp_vec(const uint8_t *u, uint8_t *o, int s, uint32_t mk)
{
    __m256i x;
    if (s) {
        x = _mm256_loadu_si256((const __m256i *)(const void *)(u + 32 * s - 4));
    } else {
        const __m256i m = _mm256_set_epi32(-1, -1, -1, -1, -1, -1, -1, 0);
        x = _mm256_maskload_epi32((const int *)(const void *)(u - 4), m);
        x = _mm256_blend_epi32(x, _mm256_castsi128_si256(_mm_cvtsi32_si128((int)mk)), 1);
    }
    if (o)
        _mm256_storeu_si256((__m256i *)(void *)(o + 32 * s), x);
    return x;
}

INLINE T_SSE42 uint64_t gp_q4(uint64_t c, const uint8_t *u, uint8_t *o, int q,
                              uint32_t mk)
{
    const uint8_t *p = u + 8 * q - 4;
    uint64_t a, b = fz_ld64(p + 8), e = fz_ld64(p + 16), f = fz_ld64(p + 24);
    if (q) {
        a = fz_ld64(p);
    } else {
        uint32_t w;
        memcpy(&w, u, 4);
        a = mk | (uint64_t)w << 32;
    }
    if (o) {
        o += 8 * q;
        memcpy(o, &a, 8);
        memcpy(o + 8, &b, 8);
        memcpy(o + 16, &e, 8);
        memcpy(o + 24, &f, 8);
    }
    c = _mm_crc32_u64(c, a);
    c = _mm_crc32_u64(c, b);
    c = _mm_crc32_u64(c, e);
    return _mm_crc32_u64(c, f);
}

INLINE T_AVX2C uint32_t gp_run(uint32_t reg, const uint8_t *u, uint8_t *out,
                               size_t j, uint32_t ptr, int wr)
{
    size_t kc = j / 6, l = 512 * kc, kv = j - 3 * kc;
    const uint8_t *su = u + 508 * kv;
    uint8_t *so = wr ? out + 512 * kv : NULL;
    uint32_t pw[3];
    if (kc)
        fz_powers(pw, l, 0);
    const __m256i k = fy_kd(3);
    __m256i x[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    __m256i first = _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)reg));
    uint64_t cc[3] = {0, 0, 0};
    size_t pv = 0;
    for (size_t cp = 0; cp < kc; cp++, pv += 3) {
        const uint8_t *vu = u + 508 * pv;
        uint8_t *vo = wr ? out + 512 * pv : NULL;
        uint32_t mv = (uint32_t)(ptr + 512 * pv);
        uint32_t m0 = gp_marker((uint32_t)(ptr + 512 * (kv + cp)));
        uint32_t m1 = gp_marker((uint32_t)(ptr + 512 * (kv + kc + cp)));
        uint32_t m2 = gp_marker((uint32_t)(ptr + 512 * (kv + 2 * kc + cp)));
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) {
#pragma GCC unroll 3
            for (int t = 0; t < 3; t++) {
                int v = 3 * i + t;
                __m256i y = gp_vec(vu + 508 * (v / 16), wr ? vo + 512 * (v / 16) : NULL,
                                   v % 16, gp_marker(mv + 512u * (uint32_t)(v / 16)));
                if (v == 0) {
                    y = _mm256_xor_si256(y, first);
                    first = _mm256_setzero_si256();
                }
                x[t] = fy_fold1(x[t], k, y);
            }
            cc[0] = gp_q4(cc[0], su + 508 * cp, wr ? so + 512 * cp : NULL, 4 * i, m0);
            cc[1] = gp_q4(cc[1], su + 508 * (kc + cp), wr ? so + l + 512 * cp : NULL,
                          4 * i, m1);
            cc[2] = gp_q4(cc[2], su + 508 * (2 * kc + cp),
                          wr ? so + 2 * l + 512 * cp : NULL, 4 * i, m2);
        }
    }
    for (; pv < kv; pv++) {
        const uint8_t *vu = u + 508 * pv;
        uint8_t *vo = wr ? out + 512 * pv : NULL;
        uint32_t mk = gp_marker((uint32_t)(ptr + 512 * pv));
#pragma GCC unroll 16
        for (int v = 0; v < 16; v++) {
            __m256i y = gp_vec(vu, vo, v, mk);
            if (v == 0) {
                y = _mm256_xor_si256(y, first);
                first = _mm256_setzero_si256();
            }
            SP_SHIFT(x, k, y);
        }
    }
    return sp_finish(x, cc, kc, pw);
}

T_AVX2C uint32_t dw_crc32c_gather_avx2(uint32_t reg, const uint8_t *u,
                                       uint8_t *out, size_t j, uint32_t ptr)
{
    return out ? gp_run(reg, u, out, j, ptr, 1) : gp_run(reg, u, NULL, j, ptr, 0);
}
