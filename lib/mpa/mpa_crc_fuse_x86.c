/* SPDX-License-Identifier: MIT */
/*
 * The middle of an FPDU image for the one-pass MPA kernel, by whole
 * marker periods (lib/mpa_crc_fuse_x86.h). A period starts at the 64-octet
 * vector that holds its marker (MPA 7.1: every marker falls on the same
 * dword lane of the kernel's vectors): that vector takes two masked loads
 * (TX) or stores (RX), the seven after it are plain, with no test per
 * vector.
 *
 * With chains, each step also runs one 64-octet vector of n crc32 chains
 * (DW_MPA_FZ_NCH_TX / _RX) over the part right after the folded periods,
 *
 *     [ jv periods, folded | C0 | ... | Cn-1 ]   (Ci: L = 64 jv octets)
 *
 * so the folding units and the crc32 unit work at once (as in
 * crc32c_fuse_x86.c). The chains see the image itself: RX reads it from
 * the wire; TX builds it from the ULPDU, the marker dword set in where a
 * chain meets one (with jv a multiple of 8 the chains' markers fall in
 * the same steps, one test a step; other jv take a test a chain; RX's
 * chains meet markers only in their copies). Their CRC, the sum of
 * ci x^(8 (n - 1 - i) L), is xored into the first dword after them (a CRC
 * register continues that way), and the accumulators are folded past the
 * n L octets.
 *
 * The loops keep the walk's state in locals: with the accumulators and
 * chains in arrays of structs passed to helpers, GCC kept them in memory
 * across steps, on their dependency chains (issue 28: on Zen 5 the
 * chained periods then ran no faster than the periods alone).
 */
#include <string.h>

#include "base/once.h"
#include "crc32c/crc32c_impl.h"
#include "crc32c/crc32c_x86.h"
#include "mpa/mpa_crc_fuse_x86.h"

#define X31 0x00000001u  /* x^31 mod P, reflected */
#define XM33 0xa9cdda0du /* x^-33 mod P */
#define NCH_MAX 4
_Static_assert(DW_MPA_FZ_NCH_TX >= 1 && DW_MPA_FZ_NCH_TX <= NCH_MAX &&
                   DW_MPA_FZ_NCH_RX >= 1 && DW_MPA_FZ_NCH_RX <= NCH_MAX,
               "DW_MPA_FZ_NCH_TX / _RX: 1..4 chains");

/* What stays fixed in one call. */
typedef struct fzc {
    uint64_t ma, mb;  /* lanes before / after the marker */
    __mmask16 mk;     /* its dword lane */
    int mo;           /* its octet lane */
    const dw_mpa_img *im;
    const uint8_t *wire; /* RX */
} fzc;

/* Where the chains start: image offset, first marker at or after it, and
 * the source (TX) / destination (RX) of the first vector's lane 0. */
typedef struct chain {
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

INLINE T_AVX512 __m512i rx_copy(uintptr_t d, uintptr_t w)
{
    __m512i v = ldu(w);
    _mm512_storeu_si512((void *)d, v);
    return v;
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

/* ---- one period of the folded part: the marker's vector, seven more ---- */

#define FOLD_PERIOD(V, LD)                                                \
    do {                                                                  \
        x0 = foldz(x0, k, (V));                                           \
        x1 = foldz(x1, k, LD(0));                                         \
        x2 = foldz(x2, k, LD(64));                                        \
        x3 = foldz(x3, k, LD(128));                                       \
        x0 = foldz(x0, k, LD(192));                                       \
        x1 = foldz(x1, k, LD(256));                                       \
        x2 = foldz(x2, k, LD(320));                                       \
        x3 = foldz(x3, k, LD(384));                                       \
    } while (0)

/* TX: plain loads from a, lane 0 of the vector after the marker's. */
#define TX_LD(o) ldu(a + (o))
/* RX: loads from the wire at a, stored at e (the marker stripped). */
#define RX_LD(o) rx_copy(e + (o), a + (o))

/* The marker's vector of a period: its ULPDU lanes from u (two masked
 * loads either side of the marker), the marker at image offset m set in. */
INLINE T_AVX512 __m512i tx_mark_vec(const fzc *f, uintptr_t u, int64_t m,
                                    uint32_t pend)
{
    __m512i v = _mm512_or_si512(_mm512_maskz_loadu_epi8(f->ma, (const void *)u),
                                _mm512_maskz_loadu_epi8(f->mb, (const void *)(u - 4)));
    v = _mm512_mask_set1_epi32(v, f->mk, (int)dw_mpa_img_marker(f->im, (uint32_t)m));
    return _mm512_xor_si512(v, _mm512_maskz_set1_epi32(1, (int)pend));
}

/* RX: a vector holding a marker from the wire at w, its ULPDU lanes
 * stored to d (the marker stripped). */
INLINE T_AVX512 __m512i rx_strip(const fzc *f, uintptr_t d, uintptr_t w)
{
    __m512i v = ldu(w);
    _mm512_mask_storeu_epi8((void *)d, f->ma, v);
    _mm512_mask_storeu_epi8((void *)(d - 4), f->mb, v);
    return v;
}

/* RX: the marker's vector of a period, pend in its first dword. */
INLINE T_AVX512 __m512i rx_mark_vec(const fzc *f, uintptr_t d, uintptr_t w,
                                    uint32_t pend)
{
    return _mm512_xor_si512(rx_strip(f, d, w),
                            _mm512_maskz_set1_epi32(1, (int)pend));
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

/* A chained call's shifts, for n chains of 64 jv octets: pw[i] =
 * s(x^(8 (i + 1) L)) in the x^-32 scaling, k the fold constants
 * {x^(D+31), x^(D-33)} past the n L octets (D = 8 n L). Filled once for
 * every jv up to PW_JV (a 64 KiB image has fewer steps): computed per
 * call they took 3-4 % of a 16 KiB image's time. */
#define PW_JV 128
typedef struct pwset {
    uint32_t pw[NCH_MAX], klo, khi;
} pwset;
static pwset pw_tx[PW_JV + 1], pw_rx[PW_JV + 1];
static int pw_state; /* 0 none, 1 filling, 2 ready */

static void pw_one(pwset *p, size_t jv, int n)
{
    for (int i = 0; i < n; i++)
        p->pw[i] = dw_crc32c_xpow8_x32(64 * jv * (size_t)(i + 1));
    p->klo = dw_crc32c_mulx32(p->pw[n - 1], X31);
    p->khi = dw_crc32c_mulx32(p->pw[n - 1], XM33);
}

static void pw_fill(void)
{
    for (size_t jv = 1; jv <= PW_JV; jv++) {
        pw_one(&pw_tx[jv], jv, DW_MPA_FZ_NCH_TX);
        pw_one(&pw_rx[jv], jv, DW_MPA_FZ_NCH_RX);
    }
}

/* The n chains after jv periods, and their shifts (tab: pw_tx, pw_rx). */
INLINE void chains_init(chain *h, pwset *pw, const pwset *tab,
                        const dw_mpa_fz *s, int mo, size_t jv, int n)
{
    if (jv <= PW_JV) {
        dw_once(&pw_state, pw_fill);
        *pw = tab[jv];
    } else {
        pw_one(pw, jv, n);
    }
    for (int i = 0; i < n; i++) {
        h[i].o = s->r + (int64_t)(512 * jv + 64 * jv * (size_t)i);
        at_offset(s, mo, h[i].o, &h[i].m, &h[i].u);
    }
}

/* The chains' CRC merged into s->pending, the accumulators moved past
 * their n L octets. */
INLINE T_AVX512 void chains_finish(dw_mpa_fz *s, const uint64_t *c,
                                   const pwset *p, int n)
{
    __m128i a = _mm_setzero_si128();
    for (int i = 0; i + 1 < n; i++) /* chain i: n - 1 - i parts after it */
        a = _mm_xor_si128(a, _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c[i]),
                                                  _mm_cvtsi32_si128((int)p->pw[n - 2 - i]),
                                                  0));
    uint64_t v = (uint64_t)_mm_cvtsi128_si64(a) << 1;
    s->pending = (uint32_t)_mm_crc32_u64(0, v) ^ (uint32_t)c[n - 1];
    __m512i k = kz(p->klo, p->khi);
    for (int j = 0; j < 4; j++)
        s->x[j] = foldz(s->x[j], k, _mm512_setzero_si512());
}

/* After jv steps of st octets: the walk at the next vector. */
static void advance(dw_mpa_fz *s, int mo, size_t jv, size_t st)
{
    int64_t o = s->r + (int64_t)(st * jv);
    at_offset(s, mo, o, &s->m, &s->u);
    s->r = o;
}

/* ---- the sender ---- */

/* A chain's vector holding a marker (MPA 7.1: its dword mk at octet lane
 * mo, the ULPDU's octets from u around it). */
INLINE T_SSE42 uint64_t tx_chain_mark(uint64_t c, uintptr_t u, int mo,
                                      uint32_t mk)
{
    c = crc_dw(c, u, mo);
    c = _mm_crc32_u32((uint32_t)c, mk);
    return crc_dw(c, u + (uintptr_t)mo, 60 - mo);
}

/* A chain's step over the vector holding the marker at image offset *m:
 * its source moves back by the marker's 4 octets, *m to the next one. */
INLINE T_SSE42 uint64_t tx_chain_marked(const fzc *f, uint64_t c,
                                        uintptr_t *u, int64_t *m)
{
    uint32_t mk = dw_mpa_img_marker(f->im, (uint32_t)*m);
    c = tx_chain_mark(c, *u, f->mo, mk);
    *u -= 4, *m += 512;
    return c;
}

#define NT DW_MPA_FZ_NCH_TX

/* The chains in step (jv a multiple of 8: one test a step) or not (a
 * test a chain); instep is a constant at each call, so each is its own
 * copy of the loop. */
INLINE T_AVX512 void tx_chained(dw_mpa_fz *s, const fzc *f, size_t jv,
                                int instep)
{
    chain h[NCH_MAX];
    pwset pw;
    chains_init(h, &pw, pw_tx, s, f->mo, jv, NT);
    const __m512i k = kz(K2048);
    __m512i x0 = s->x[0], x1 = s->x[1], x2 = s->x[2], x3 = s->x[3];
    uintptr_t u = s->u, uc[NT];
    uint64_t c[NT];
    int64_t m = s->m, mc[NT];
    size_t tm[NT]; /* each chain's next marker step */
#pragma GCC unroll 4
    for (int t = 0; t < NT; t++) {
        uc[t] = h[t].u, c[t] = 0, mc[t] = h[t].m;
        tm[t] = (size_t)((h[t].m - h[t].o) / 64);
    }
    uint32_t pend = s->pending;
    for (size_t i = 0; i < jv; i++, u += 508, m += 512, pend = 0) {
        uintptr_t a = u + 60; /* lane 0 of the next vector: past the marker */
        FOLD_PERIOD(tx_mark_vec(f, u, m, pend), TX_LD);
        if (instep && i == tm[0]) {
#pragma GCC unroll 4
            for (int t = 0; t < NT; t++)
                c[t] = tx_chain_marked(f, c[t], &uc[t], &mc[t]);
            tm[0] += 8;
        } else if (instep) {
#pragma GCC unroll 8
            for (int j = 0; j < 64; j += 8)
#pragma GCC unroll 4
                for (int t = 0; t < NT; t++)
                    c[t] = _mm_crc32_u64(c[t], fz_ld64(uc[t] + (uintptr_t)j));
        } else {
#pragma GCC unroll 4
            for (int t = 0; t < NT; t++) {
                if (i == tm[t]) {
                    c[t] = tx_chain_marked(f, c[t], &uc[t], &mc[t]);
                    tm[t] += 8;
                } else {
#pragma GCC unroll 8
                    for (int j = 0; j < 64; j += 8)
                        c[t] = _mm_crc32_u64(c[t], fz_ld64(uc[t] + (uintptr_t)j));
                }
            }
        }
#pragma GCC unroll 4
        for (int t = 0; t < NT; t++)
            uc[t] += 64;
    }
    s->x[0] = x0, s->x[1] = x1, s->x[2] = x2, s->x[3] = x3;
    chains_finish(s, c, &pw, NT);
    advance(s, f->mo, jv, DW_MPA_FZ_STEP(NT));
}

static T_AVX512 void tx_alone(dw_mpa_fz *s, const fzc *f, size_t jv)
{
    const __m512i k = kz(K2048);
    __m512i x0 = s->x[0], x1 = s->x[1], x2 = s->x[2], x3 = s->x[3];
    uintptr_t u = s->u;
    int64_t m = s->m;
    uint32_t pend = s->pending;
    for (size_t i = 0; i < jv; i++, u += 508, m += 512, pend = 0) {
        uintptr_t a = u + 60;
        FOLD_PERIOD(tx_mark_vec(f, u, m, pend), TX_LD);
    }
    s->x[0] = x0, s->x[1] = x1, s->x[2] = x2, s->x[3] = x3;
    s->pending = 0;
    advance(s, f->mo, jv, 512);
}

T_AVX512 void dw_mpa_fz_tx(dw_mpa_fz *s, const dw_mpa_img *im, size_t jv,
                           int chains)
{
    fzc f;
    fzc_init(&f, s, im, NULL);
    if (chains && jv % 8 == 0)
        tx_chained(s, &f, jv, 1);
    else if (chains)
        tx_chained(s, &f, jv, 0);
    else
        tx_alone(s, &f, jv);
}

/* ---- the receiver: the chains read the wire (markers are image octets
 * like any other there), their vectors' copies strip the markers ---- */

#define NR DW_MPA_FZ_NCH_RX

/* The chains in step (jv a multiple of 8: one test a step) or not (a
 * test a chain); instep is a constant at each call, so each is its own
 * copy of the loop. */
INLINE T_AVX512 void rx_chained(dw_mpa_fz *s, const fzc *f, size_t jv,
                                int instep)
{
    chain h[NCH_MAX];
    pwset pw;
    chains_init(h, &pw, pw_rx, s, f->mo, jv, NR);
    const __m512i k = kz(K2048);
    __m512i x0 = s->x[0], x1 = s->x[1], x2 = s->x[2], x3 = s->x[3];
    uintptr_t d = s->u, w = (uintptr_t)f->wire + (uintptr_t)s->r;
    uintptr_t wc[NR], dc[NR];
    uint64_t c[NR];
    size_t tm[NR]; /* each chain's next marker step */
#pragma GCC unroll 4
    for (int t = 0; t < NR; t++) {
        wc[t] = (uintptr_t)f->wire + (uintptr_t)h[t].o, dc[t] = h[t].u, c[t] = 0;
        tm[t] = (size_t)((h[t].m - h[t].o) / 64);
    }
    uint32_t pend = s->pending;
    for (size_t i = 0; i < jv; i++, d += 508, w += 512, pend = 0) {
        uintptr_t e = d + 60, a = w + 64; /* past the marker */
        FOLD_PERIOD(rx_mark_vec(f, d, w, pend), RX_LD);
#pragma GCC unroll 8
        for (int j = 0; j < 64; j += 8)
#pragma GCC unroll 4
            for (int t = 0; t < NR; t++)
                c[t] = _mm_crc32_u64(c[t], fz_ld64(wc[t] + (uintptr_t)j));
        if (instep && i == tm[0]) {
#pragma GCC unroll 4
            for (int t = 0; t < NR; t++) {
                rx_strip(f, dc[t], wc[t]);
                dc[t] -= 4;
            }
            tm[0] += 8;
        } else if (instep) {
#pragma GCC unroll 4
            for (int t = 0; t < NR; t++)
                rx_copy(dc[t], wc[t]);
        } else {
#pragma GCC unroll 4
            for (int t = 0; t < NR; t++) {
                if (i == tm[t]) { /* strip the chain's marker */
                    rx_strip(f, dc[t], wc[t]);
                    dc[t] -= 4, tm[t] += 8;
                } else {
                    rx_copy(dc[t], wc[t]);
                }
            }
        }
#pragma GCC unroll 4
        for (int t = 0; t < NR; t++)
            wc[t] += 64, dc[t] += 64;
    }
    s->x[0] = x0, s->x[1] = x1, s->x[2] = x2, s->x[3] = x3;
    chains_finish(s, c, &pw, NR);
    advance(s, f->mo, jv, DW_MPA_FZ_STEP(NR));
}

static T_AVX512 void rx_alone(dw_mpa_fz *s, const fzc *f, size_t jv)
{
    const __m512i k = kz(K2048);
    __m512i x0 = s->x[0], x1 = s->x[1], x2 = s->x[2], x3 = s->x[3];
    uintptr_t d = s->u, w = (uintptr_t)f->wire + (uintptr_t)s->r;
    uint32_t pend = s->pending;
    for (size_t i = 0; i < jv; i++, d += 508, w += 512, pend = 0) {
        uintptr_t e = d + 60, a = w + 64; /* past the marker */
        FOLD_PERIOD(rx_mark_vec(f, d, w, pend), RX_LD);
    }
    s->x[0] = x0, s->x[1] = x1, s->x[2] = x2, s->x[3] = x3;
    s->pending = 0;
    advance(s, f->mo, jv, 512);
}

T_AVX512 void dw_mpa_fz_rx(dw_mpa_fz *s, const dw_mpa_img *im,
                           const uint8_t *wire, size_t jv, int chains)
{
    fzc f;
    fzc_init(&f, s, im, wire);
    if (chains && jv % 8 == 0)
        rx_chained(s, &f, jv, 1);
    else if (chains)
        rx_chained(s, &f, jv, 0);
    else
        rx_alone(s, &f, jv);
}

/* Periods from a marker on, as they arrive (mpa_rx.c): reg is the raw CRC
 * register before the marker; returns it after the j periods, whose
 * ULPDU octets went to dst. The accumulators start empty (folding zero
 * keeps zero), the register enters as the first dword. Folded alone:
 * chained steps here (8 of them over 11 periods, the rest alone) were
 * slower in the receiver's stream of 64 KiB reads on Zen 5 (rx 0.70-0.81
 * of the CRC against 0.68-0.88, rx-iov 0.78-0.95 against 0.77-0.89). */
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
