/* SPDX-License-Identifier: MIT */
/*
 * The middle of an FPDU image for the one-pass MPA kernel, by whole
 * marker periods (lib/mpa_crc_fuse_x86.h). A period starts at the 64-octet
 * vector that holds its marker (MPA 7.1: every marker falls on the same
 * dword lane of the kernel's vectors): that vector takes two masked loads
 * (TX) or stores (RX), the seven after it are plain, with no test per
 * vector.
 *
 * With chains, each step also runs one 64-octet vector of three crc32
 * chains over the part right after the folded periods,
 *
 *     [ jv periods, folded | C0 | C1 | C2 ]   (Ci: 64 jv octets each)
 *
 * so the folding units and the crc32 unit work at once (as in
 * crc32c_fuse_x86.c). The chains see the image itself: RX reads it from
 * the wire; TX builds it from the ULPDU, the marker dword set in where a
 * chain meets one. Their CRC, c0 x^(8 2L) + c1 x^(8 L) + c2 (L = 64 jv),
 * is xored into the first dword after them (a CRC register continues
 * that way), and the accumulators are folded past the 3 L octets.
 */
#include <string.h>

#include "crc32c/crc32c_impl.h"
#include "crc32c/crc32c_x86.h"
#include "mpa/mpa_crc_fuse_x86.h"

#define X31 0x00000001u  /* x^31 mod P, reflected */
#define XM33 0xa9cdda0du /* x^-33 mod P */

/* What stays fixed in one call. */
typedef struct fzc {
    uint64_t ma, mb;  /* lanes before / after the marker */
    __mmask16 mk;     /* its dword lane */
    int mo;           /* its octet lane */
    const dw_mpa_img *im;
    const uint8_t *wire; /* RX */
} fzc;

/* One chain: its CRC, the image offset of its next vector, its next
 * marker and the source (TX) / destination (RX) of the vector's lane 0. */
typedef struct chain {
    uint64_t c;
    int64_t o, m;
    uintptr_t u;
} chain;

static inline uint64_t fz_ld64(uintptr_t p)
{
    uint64_t v;
    memcpy(&v, (const void *)p, 8);
    return v;
}

static inline uint32_t fz_ld32(uintptr_t p)
{
    uint32_t v;
    memcpy(&v, (const void *)p, 4);
    return v;
}

/* crc32 over n octets at p, n a multiple of 4. */
INLINE T_SSE42 uint64_t crc_dw(uint64_t c, uintptr_t p, int n)
{
    for (; n >= 8; n -= 8, p += 8)
        c = _mm_crc32_u64(c, fz_ld64(p));
    if (n)
        c = _mm_crc32_u32((uint32_t)c, fz_ld32(p));
    return c;
}

INLINE T_AVX512 __m512i ldu(uintptr_t p)
{
    return _mm512_loadu_si512((const void *)p);
}

static void fzc_init(fzc *f, const dw_mpa_fz *s, const dw_mpa_img *im,
                     const uint8_t *wire)
{
    f->mo = (int)(s->m - s->r);
    f->ma = f->mo ? ~0ull >> (64 - f->mo) : 0;
    f->mb = f->mo < 60 ? ~0ull << (f->mo + 4) : 0;
    f->mk = (__mmask16)(1u << (f->mo / 4));
    f->im = im;
    f->wire = wire;
}

/* ---- one period of the folded part ---- */

INLINE T_AVX512 void tx_period(const fzc *f, __m512i *x, __m512i k,
                               uintptr_t u, int64_t m, uint32_t pend)
{
    __m512i v = _mm512_or_si512(_mm512_maskz_loadu_epi8(f->ma, (const void *)u),
                                _mm512_maskz_loadu_epi8(f->mb, (const void *)(u - 4)));
    v = _mm512_mask_set1_epi32(v, f->mk, (int)dw_mpa_img_marker(f->im, (uint32_t)m));
    v = _mm512_xor_si512(v, _mm512_maskz_set1_epi32(1, (int)pend));
    x[0] = foldz(x[0], k, v);
    u += 60; /* lane 0 of the next vector: past the marker */
    x[1] = foldz(x[1], k, ldu(u));
    x[2] = foldz(x[2], k, ldu(u + 64));
    x[3] = foldz(x[3], k, ldu(u + 128));
    x[0] = foldz(x[0], k, ldu(u + 192));
    x[1] = foldz(x[1], k, ldu(u + 256));
    x[2] = foldz(x[2], k, ldu(u + 320));
    x[3] = foldz(x[3], k, ldu(u + 384));
}

INLINE T_AVX512 __m512i rx_copy(uintptr_t d, uintptr_t w)
{
    __m512i v = ldu(w);
    _mm512_storeu_si512((void *)d, v);
    return v;
}

INLINE T_AVX512 void rx_period(const fzc *f, __m512i *x, __m512i k,
                               uintptr_t d, uintptr_t w, uint32_t pend)
{
    __m512i v = ldu(w);
    _mm512_mask_storeu_epi8((void *)d, f->ma, v);
    _mm512_mask_storeu_epi8((void *)(d - 4), f->mb, v);
    v = _mm512_xor_si512(v, _mm512_maskz_set1_epi32(1, (int)pend));
    x[0] = foldz(x[0], k, v);
    d += 60, w += 64;
    x[1] = foldz(x[1], k, rx_copy(d, w));
    x[2] = foldz(x[2], k, rx_copy(d + 64, w + 64));
    x[3] = foldz(x[3], k, rx_copy(d + 128, w + 128));
    x[0] = foldz(x[0], k, rx_copy(d + 192, w + 192));
    x[1] = foldz(x[1], k, rx_copy(d + 256, w + 256));
    x[2] = foldz(x[2], k, rx_copy(d + 320, w + 320));
    x[3] = foldz(x[3], k, rx_copy(d + 384, w + 384));
}

/* ---- one vector of a chain ---- */

INLINE T_AVX512 void tx_chain(const fzc *f, chain *h)
{
    uint64_t c = h->c;
    if (h->m >= h->o + 64) {
#pragma GCC unroll 8
        for (int j = 0; j < 64; j += 8)
            c = _mm_crc32_u64(c, fz_ld64(h->u + (uintptr_t)j));
    } else { /* MPA 7.1: the marker in its lane, the rest 4 further on */
        c = crc_dw(c, h->u, f->mo);
        c = _mm_crc32_u32((uint32_t)c, dw_mpa_img_marker(f->im, (uint32_t)h->m));
        c = crc_dw(c, h->u + (uintptr_t)f->mo, 60 - f->mo);
        h->u -= 4, h->m += 512;
    }
    h->c = c;
    h->o += 64, h->u += 64;
}

/* The three chains' vectors (their markers in step: L is a multiple of
 * 512), interleaved when no marker is in them. */
INLINE T_AVX512 void tx_chains(const fzc *f, chain *h)
{
    if (h[0].m < h[0].o + 64) {
        tx_chain(f, &h[0]);
        tx_chain(f, &h[1]);
        tx_chain(f, &h[2]);
        return;
    }
    uint64_t c0 = h[0].c, c1 = h[1].c, c2 = h[2].c;
#pragma GCC unroll 8
    for (int j = 0; j < 64; j += 8) {
        c0 = _mm_crc32_u64(c0, fz_ld64(h[0].u + (uintptr_t)j));
        c1 = _mm_crc32_u64(c1, fz_ld64(h[1].u + (uintptr_t)j));
        c2 = _mm_crc32_u64(c2, fz_ld64(h[2].u + (uintptr_t)j));
    }
    h[0].c = c0, h[1].c = c1, h[2].c = c2;
    for (int i = 0; i < 3; i++)
        h[i].o += 64, h[i].u += 64;
}

/* A chain vector's copy (its CRC: rx_chains). */
INLINE T_AVX512 void rx_chain(const fzc *f, chain *h)
{
    uintptr_t w = (uintptr_t)f->wire + (uintptr_t)h->o;
    __m512i v = ldu(w);
    if (h->m >= h->o + 64) {
        _mm512_storeu_si512((void *)h->u, v);
    } else { /* strip the marker */
        _mm512_mask_storeu_epi8((void *)h->u, f->ma, v);
        _mm512_mask_storeu_epi8((void *)(h->u - 4), f->mb, v);
        h->u -= 4, h->m += 512;
    }
    h->o += 64, h->u += 64;
}

INLINE T_AVX512 void rx_chains(const fzc *f, chain *h)
{
    uintptr_t w = (uintptr_t)f->wire;
    uintptr_t w0 = w + (uintptr_t)h[0].o, w1 = w + (uintptr_t)h[1].o,
              w2 = w + (uintptr_t)h[2].o;
    uint64_t c0 = h[0].c, c1 = h[1].c, c2 = h[2].c;
#pragma GCC unroll 8
    for (int j = 0; j < 64; j += 8) {
        c0 = _mm_crc32_u64(c0, fz_ld64(w0 + (uintptr_t)j));
        c1 = _mm_crc32_u64(c1, fz_ld64(w1 + (uintptr_t)j));
        c2 = _mm_crc32_u64(c2, fz_ld64(w2 + (uintptr_t)j));
    }
    h[0].c = c0, h[1].c = c1, h[2].c = c2;
    rx_chain(f, &h[0]);
    rx_chain(f, &h[1]);
    rx_chain(f, &h[2]);
}

/* ---- set-up and finish ---- */

/* Markers in [r0, o) when the first is at r0 + mo: the walk's state at o. */
static void at_offset(const dw_mpa_fz *s, int mo, int64_t o, int64_t *m,
                      uintptr_t *u)
{
    int64_t k = (o - s->r - mo + 511) / 512;
    *m = s->r + mo + 512 * k;
    *u = s->u + (uintptr_t)(o - s->r) - 4 * (uintptr_t)k;
}

static void chains_init(chain *h, const dw_mpa_fz *s, int mo, size_t jv)
{
    for (int i = 0; i < 3; i++) {
        h[i].c = 0;
        h[i].o = s->r + (int64_t)(512 * jv + 64 * jv * (size_t)i);
        at_offset(s, mo, h[i].o, &h[i].m, &h[i].u);
    }
}

/* The chains' CRC merged, the accumulators moved past their 3 L octets;
 * pw: s(x^(8 L)), s(x^(8 2L)), s(x^(8 3L)) in the x^-32 scaling. */
INLINE T_AVX512 void chains_finish(dw_mpa_fz *s, const chain *h,
                                   const uint32_t *pw)
{
    __m128i a = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)h[0].c),
                                     _mm_cvtsi32_si128((int)pw[1]), 0);
    __m128i b = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)h[1].c),
                                     _mm_cvtsi32_si128((int)pw[0]), 0);
    uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(a, b)) << 1;
    s->pending = (uint32_t)_mm_crc32_u64(0, v) ^ (uint32_t)h[2].c;
    /* {x^(D+31), x^(D-33)} for D = 8 x 3L */
    __m512i k = kz(dw_crc32c_mulx32(pw[2], X31), dw_crc32c_mulx32(pw[2], XM33));
    for (int j = 0; j < 4; j++)
        s->x[j] = foldz(s->x[j], k, _mm512_setzero_si512());
}

static void powers(uint32_t *pw, size_t jv)
{
    for (size_t i = 0; i < 3; i++)
        pw[i] = dw_crc32c_xpow8_x32(64 * jv * (i + 1));
}

/* After jv periods (and the chains): the walk at the next vector. */
static void advance(dw_mpa_fz *s, int mo, size_t jv, int chains)
{
    int64_t o = s->r + (int64_t)((chains ? 704 : 512) * jv);
    at_offset(s, mo, o, &s->m, &s->u);
    s->r = o;
}

T_AVX512 void dw_mpa_fz_tx(dw_mpa_fz *s, const dw_mpa_img *im, size_t jv,
                           int chains)
{
    fzc f;
    chain h[3];
    uint32_t pw[3];
    fzc_init(&f, s, im, NULL);
    if (chains) {
        powers(pw, jv); /* first: they depend on jv only */
        chains_init(h, s, f.mo, jv);
    }
    const __m512i k = kz(K2048);
    __m512i x[4] = {s->x[0], s->x[1], s->x[2], s->x[3]};
    uintptr_t u = s->u;
    int64_t m = s->m;
    uint32_t pend = s->pending;
    for (size_t i = 0; i < jv; i++, u += 508, m += 512, pend = 0) {
        tx_period(&f, x, k, u, m, pend);
        if (chains)
            tx_chains(&f, h);
    }
    memcpy(s->x, x, sizeof x);
    s->pending = 0;
    if (chains)
        chains_finish(s, h, pw);
    advance(s, f.mo, jv, chains);
}

T_AVX512 void dw_mpa_fz_rx(dw_mpa_fz *s, const dw_mpa_img *im,
                           const uint8_t *wire, size_t jv, int chains)
{
    fzc f;
    chain h[3];
    uint32_t pw[3];
    fzc_init(&f, s, im, wire);
    if (chains) {
        powers(pw, jv);
        chains_init(h, s, f.mo, jv);
    }
    const __m512i k = kz(K2048);
    __m512i x[4] = {s->x[0], s->x[1], s->x[2], s->x[3]};
    uintptr_t d = s->u, w = (uintptr_t)wire + (uintptr_t)s->r;
    uint32_t pend = s->pending;
    for (size_t i = 0; i < jv; i++, d += 508, w += 512, pend = 0) {
        rx_period(&f, x, k, d, w, pend);
        if (chains)
            rx_chains(&f, h);
    }
    memcpy(s->x, x, sizeof x);
    s->pending = 0;
    if (chains)
        chains_finish(s, h, pw);
    advance(s, f.mo, jv, chains);
}

/* Periods from a marker on, as they arrive (mpa_rx.c): reg is the raw CRC
 * register before the marker; returns it after the j periods, whose
 * ULPDU octets went to dst. The accumulators start empty (folding zero
 * keeps zero), the register enters as the first dword. */
T_AVX512 uint32_t dw_mpa_fz_rx_run(const uint8_t *in, uint8_t *dst, size_t j,
                                   uint32_t reg)
{
    dw_mpa_fz s;
    for (int i = 0; i < 4; i++)
        s.x[i] = _mm512_setzero_si512();
    s.r = 0, s.m = 0, s.u = (uintptr_t)dst, s.pending = reg;
    dw_mpa_fz_rx(&s, NULL, in, j, 0);
    __m512i a = foldz(s.x[0], kz(K1024), s.x[2]);
    __m512i b = foldz(s.x[1], kz(K1024), s.x[3]);
    return lane_crc(zmm_to_xmm(foldz(a, kz(K512), b)));
}
