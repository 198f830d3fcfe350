/* SPDX-License-Identifier: MIT */
/*
 * One-pass CRC32c of a medium FPDU's image (lib/mpa/mpa_crc.h) on a grid
 * of 64-octet vectors that starts at a marker (MPA 7.1), AVX-512
 * VPCLMULQDQ, for the sender (the image also written out, or not) and
 * the receiver. With markers every 512 octets a marker then always opens a
 * vector (lane 0), and a marker period is eight vectors: one load with
 * the marker's dword set in, seven plain loads (stores at the receiver),
 * with no test per vector. The first vector starts up to 60 octets
 * before the FPDU (leading zeros do not change a CRC once the initial
 * register sits on its first octet); the grid does not end at the CRC
 * field: the last vector is folded with z zero octets after the image
 * (z < 64), and the register is then taken back over them (times x^-8z
 * mod P).
 */
#include <ddpwire/crc32c.h>

#include "crc32c/crc32c_x86.h"
#include "mpa/mpa_crc.h"
#include "mpa/mpa_internal.h"

/* x^-8z x^-32 mod P (reflected) for z = 4 i: dw_x86_mulx32() by it
 * takes a register back over z zero octets (scripts/gen_crc32c_shift.py
 * --inverse; the MPA unit tests check it through the kernel). */
static const uint32_t inv_x32[16] = {
    0xd610d67eu, 0xe67cce65u, 0xb90cbfcdu, 0xa268b79eu, 0x2aca980bu, 0x0d0e8b2fu,
    0xa545a366u, 0x134fb088u, 0xc4439222u, 0x8b0598a6u, 0xbe83bd2bu, 0x37319169u,
    0xf5e505f9u, 0xc228027fu, 0x6c007c63u, 0x32998d96u,
};

enum gmode { G_TX, G_TXO, G_RX }; /* G_TXO: the image also stored at out */

/* The image's layout (offsets from the FPDU's first octet). */
typedef struct grid {
    int64_t ps, pe;    /* ULPDU octets and the markers among them */
    int64_t end;       /* the CRC field */
    int64_t mark;      /* first marker after octet 0 */
    uintptr_t u;       /* TX: the ULPDU, RX: the destination */
    const uint8_t *wire;
    uint8_t *out;      /* G_TXO: the image */
    const dw_mpa_img *im;
} grid;

/* ULPDU address of lane 0 of the vector at r, the markers at or before r
 * passed (a marker vector's lane 4 is its first ULPDU octet). */
static inline uintptr_t gbase(const grid *g, int64_t r)
{
    int64_t k = r >= g->mark ? (r - g->mark) / DW_MPA_MARKER_INTERVAL + 1 : 0;
    return g->u + (uintptr_t)(r - g->ps - 4 * k);
}

/* A vector on an edge of the image (the first, the last ones). */
INLINE T_AVX512 __m512i gedge(const grid *g, int64_t r, enum gmode mode)
{
    uint64_t pm = dw_mpa_lanes(g->ps - r, g->pe - r);
    int mk = r >= g->mark && r < g->end && (r - g->mark) % DW_MPA_MARKER_INTERVAL == 0;
    pm &= mk ? ~0xfull : ~0ull;
    uintptr_t b = gbase(g, r);
    __m512i v;
    if (mode == G_RX) {
        v = _mm512_maskz_loadu_epi8(dw_mpa_lanes(-r, g->end - r), g->wire + r);
        _mm512_mask_storeu_epi8((void *)b, pm, v);
        return v;
    }
    v = _mm512_maskz_loadu_epi8(pm, (const void *)b);
    if (mk)
        v = _mm512_mask_set1_epi32(v, 1, (int)dw_mpa_img_marker(g->im, (uint32_t)r));
    int64_t h = (int64_t)g->im->hdr_off - r;
    if (h >= 0 && h < 64) { /* ULPDU_Length, big-endian */
        uint32_t len = g->im->len;
        v = _mm512_or_si512(v, _mm512_maskz_set1_epi32((__mmask16)(1u << (h / 4)),
                                                       (int)((len >> 8 & 0xffu) | (len & 0xffu) << 8)));
    }
    if (mode == G_TXO) /* the image's lanes only */
        _mm512_mask_storeu_epi8(g->out + r, dw_mpa_lanes(-r, g->end - r), v);
    return v;
}

/* A vector wholly inside the ULPDU's octets, no marker. */
INLINE T_AVX512 __m512i gplain(const grid *g, int64_t r, uintptr_t b, enum gmode mode)
{
    if (mode == G_RX) {
        __m512i v = _mm512_loadu_si512(g->wire + r);
        _mm512_storeu_si512((void *)b, v);
        return v;
    }
    __m512i v = _mm512_loadu_si512((const void *)b);
    if (mode == G_TXO)
        _mm512_storeu_si512(g->out + r, v);
    return v;
}

/* A vector that a marker opens, the rest ULPDU octets from b + 4. */
INLINE T_AVX512 __m512i gmark(const grid *g, int64_t r, uintptr_t b, enum gmode mode)
{
    if (mode == G_RX) {
        __m512i v = _mm512_loadu_si512(g->wire + r);
        _mm512_mask_storeu_epi8((void *)b, ~0xfull, v);
        return v;
    }
    __m512i v = _mm512_maskz_loadu_epi8(~0xfull, (const void *)b);
    v = _mm512_mask_set1_epi32(v, 1, (int)dw_mpa_img_marker(g->im, (uint32_t)r));
    if (mode == G_TXO)
        _mm512_storeu_si512(g->out + r, v);
    return v;
}

#define GACC(v)                                                           \
    do {                                                                  \
        __m512i t_ = foldz(x0, k, (v));                                   \
        x0 = x1, x1 = x2, x2 = x3, x3 = t_;                               \
    } while (0)

/* n plain vectors from r: four at a time in place (no moves), the rest
 * one at a time. */
INLINE T_AVX512 void gplains(const grid *g, int64_t *pr, uintptr_t *pb, int64_t n,
                             enum gmode mode, __m512i *a0, __m512i *a1, __m512i *a2,
                             __m512i *a3)
{
    const __m512i k = kz(K2048);
    __m512i x0 = *a0, x1 = *a1, x2 = *a2, x3 = *a3;
    int64_t r = *pr;
    uintptr_t b = *pb;
    for (; n >= 4; n -= 4, r += 256, b += 256) {
        x0 = foldz(x0, k, gplain(g, r, b, mode));
        x1 = foldz(x1, k, gplain(g, r + 64, b + 64, mode));
        x2 = foldz(x2, k, gplain(g, r + 128, b + 128, mode));
        x3 = foldz(x3, k, gplain(g, r + 192, b + 192, mode));
    }
    for (; n; n--, r += 64, b += 64)
        GACC(gplain(g, r, b, mode));
    *a0 = x0, *a1 = x1, *a2 = x2, *a3 = x3, *pr = r, *pb = b;
}

INLINE T_AVX512 uint32_t grid_fold(const dw_mpa_img *im, uintptr_t u,
                                   const uint8_t *wire, uint8_t *out, enum gmode mode)
{
    grid g = {(int64_t)im->hdr_off + 2, 0, im->crc_off, im->mark, u, wire, out, im};
    g.pe = g.ps + dw_mpa_ulpdu_span(im, g.ps);
    int64_t a = g.mark % 64, r = a ? a - 64 : 0, nm = g.mark;
    int64_t z = (g.end - r) % 64 ? 64 - (g.end - r) % 64 : 0;
    const __m512i k = kz(K2048);
    __m512i x0 = _mm512_setzero_si512(), x1 = x0, x2 = x0, x3;
    /* the first vector: the initial register on the FPDU's first dword */
    x3 = _mm512_xor_si512(gedge(&g, r, mode),
                          _mm512_maskz_set1_epi32((__mmask16)(1u << (-r / 4)), -1));
    r += 64;
    uintptr_t b = g.u + (uintptr_t)(r - g.ps); /* no marker before r */
    int64_t lim = nm < g.pe ? nm : g.pe;
    gplains(&g, &r, &b, r + 64 <= lim ? (lim - r) / 64 : 0, mode, &x0, &x1, &x2, &x3);
    for (; r == nm && nm + DW_MPA_MARKER_INTERVAL <= g.pe; nm += DW_MPA_MARKER_INTERVAL) {
        b -= 4; /* a whole period: the marker's vector and seven plain */
        x0 = foldz(x0, k, gmark(&g, r, b, mode));
        x1 = foldz(x1, k, gplain(&g, r + 64, b + 64, mode));
        x2 = foldz(x2, k, gplain(&g, r + 128, b + 128, mode));
        x3 = foldz(x3, k, gplain(&g, r + 192, b + 192, mode));
        x0 = foldz(x0, k, gplain(&g, r + 256, b + 256, mode));
        x1 = foldz(x1, k, gplain(&g, r + 320, b + 320, mode));
        x2 = foldz(x2, k, gplain(&g, r + 384, b + 384, mode));
        x3 = foldz(x3, k, gplain(&g, r + 448, b + 448, mode));
        r += 512, b += 512;
    }
    if (r == nm && r + 64 <= g.pe) { /* the last marker inside */
        b -= 4;
        GACC(gmark(&g, r, b, mode));
        r += 64, b += 64;
    }
    gplains(&g, &r, &b, r + 64 <= g.pe ? (g.pe - r) / 64 : 0, mode, &x0, &x1, &x2, &x3);
    for (; r < g.end; r += 64)
        GACC(gedge(&g, r, mode));
    x0 = foldz(x0, kz(K1024), x2);
    x1 = foldz(x1, kz(K1024), x3);
    uint32_t reg = lane_crc(zmm_to_xmm(foldz(x0, kz(K512), x1)));
    return ~dw_x86_mulx32(reg, inv_x32[z / 4]); /* back over the z zeros */
}

T_AVX512 uint32_t dw_mpa_grid_tx(const dw_mpa_img *im, uint8_t *out)
{
    if (out)
        return grid_fold(im, (uintptr_t)im->ulpdu, NULL, out, G_TXO);
    return grid_fold(im, (uintptr_t)im->ulpdu, NULL, NULL, G_TX);
}

T_AVX512 uint32_t dw_mpa_grid_rx(const dw_mpa_img *im, const uint8_t *wire, uint8_t *dst)
{
    return grid_fold(im, (uintptr_t)dst, wire, NULL, G_RX);
}
