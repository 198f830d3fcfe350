/* SPDX-License-Identifier: MIT */
/*
 * One-pass CRC32c of an FPDU's wire image (lib/mpa/mpa_crc.h), AVX-512
 * VPCLMULQDQ. The image is folded as 64-octet vectors aligned to end at
 * the CRC field, so the first vector starts up to 60 octets before the
 * FPDU (those lanes are zero, and the initial register is xored into the
 * FPDU's first dword: leading zeros do not change a CRC). With markers
 * every 512 octets (MPA 7.1), at most one marker falls in a vector, always
 * on a dword lane. Vectors wholly inside the ULPDU's octets with no marker
 * are plain loads/stores; the rest ("edges") use byte-masked loads/stores
 * on either side of the marker, shifted by its 4 octets. Masked-out lanes
 * are never touched, so nothing outside the buffers is read or written.
 */
#include <ddpwire/crc32c.h>
#include <string.h>

#include "base/once.h"
#include "crc32c/crc32c_impl.h"
#include "crc32c/crc32c_x86.h"
#include "mpa/mpa_crc.h"
#include "mpa/mpa_crc_fuse_x86.h"
#include "mpa/mpa_internal.h"

enum mode { TX, TX_OUT, RX };

#define NO_MARK ((int64_t)1 << 40) /* beyond any image; no overflow */

/* What stays fixed while an image is walked (offsets from the FPDU). */
typedef struct vgen {
    int64_t ps, pe;     /* ULPDU octets (and markers among them): [ps, pe) */
    int64_t end;        /* the CRC field */
    uint64_t ma, mb;    /* lanes before / after a marker in its vector */
    __mmask16 mk;       /* the marker's dword lane */
    uint32_t hdr;       /* ULPDU_Length dword (big-endian length) */
    const dw_mpa_img *im;
    uintptr_t pay;      /* TX with a header apart: where the payload starts */
    uintptr_t hdelta;   /* header octet address = ULPDU address + hdelta */
} vgen;

/* The moving part: vector at offset r, ULPDU (TX) or destination (RX)
 * address u of its lane 0 as if no marker intervened, next marker m. */
typedef struct vpos {
    int64_t r, m;
    uintptr_t u;
} vpos;

/* Passes the marker in this vector: later ULPDU octets sit 4 further on. */
INLINE void pass_marker(const vgen *g, vpos *p)
{
    p->u -= 4;
    p->m += 512;
    if (p->m >= g->end)
        p->m = NO_MARK;
}

/* Lanes m of ULPDU octets from address s on; with a header apart, the
 * lanes below the payload come from the header instead. */
INLINE T_AVX512 __m512i tx_load(const vgen *g, uintptr_t s, uint64_t m)
{
    if (s >= g->pay)
        return _mm512_maskz_loadu_epi8(m, (const void *)s);
    uint64_t hm = dw_mpa_lanes(0, (int64_t)(g->pay - s)) & m;
    return _mm512_or_si512(_mm512_maskz_loadu_epi8(m & ~hm, (const void *)s),
                           _mm512_maskz_loadu_epi8(hm, (const void *)(s + g->hdelta)));
}

/* A vector of the sender's image; pm: its ULPDU lanes. */
INLINE T_AVX512 __m512i tx_vec(const vgen *g, vpos *p, uint64_t pm)
{
    uintptr_t s = p->u;
    if (p->m >= p->r + 64)
        return tx_load(g, s, pm);
    __m512i v = _mm512_or_si512(tx_load(g, s, pm & g->ma), tx_load(g, s - 4, pm & g->mb));
    v = _mm512_mask_set1_epi32(v, g->mk, (int)dw_mpa_img_marker(
                                             g->im, (uint32_t)p->m));
    pass_marker(g, p);
    return v;
}

/* Stores a received vector's ULPDU lanes pm, skipping a marker (MPA 7.1). */
INLINE T_AVX512 void rx_vec(const vgen *g, vpos *p, uint64_t pm, __m512i v)
{
    uint8_t *d = (uint8_t *)p->u;
    if (p->m >= p->r + 64) {
        _mm512_mask_storeu_epi8(d, pm, v);
        return;
    }
    _mm512_mask_storeu_epi8(d, pm & g->ma, v);
    _mm512_mask_storeu_epi8(d - 4, pm & g->mb, v);
    pass_marker(g, p);
}

/* Any vector of the image (first, last, length field, PAD: the edges).
 * TX_OUT also stores it, RX strips it; advances p. */
INLINE T_AVX512 __m512i edge_vec(const vgen *g, vpos *p, enum mode mode,
                                 const uint8_t *wire, uint8_t *out)
{
    uint64_t pm = dw_mpa_lanes(g->ps - p->r, g->pe - p->r);
    uint64_t live = dw_mpa_lanes(-p->r, 64); /* lanes inside the FPDU */
    int64_t h = (int64_t)g->im->hdr_off - p->r;
    __m512i v;
    if (mode == RX) {
        v = _mm512_maskz_loadu_epi8(live, (const void *)((uintptr_t)wire +
                                                         (uintptr_t)p->r));
        rx_vec(g, p, pm, v);
    } else {
        v = tx_vec(g, p, pm);
        if (h >= 0 && h < 64) /* the ULPDU's octets follow */
            v = _mm512_or_si512(v, _mm512_maskz_set1_epi32(
                                       (__mmask16)(1u << (h / 4)), (int)g->hdr));
    }
    if (mode == TX_OUT)
        _mm512_mask_storeu_epi8((void *)((uintptr_t)out + (uintptr_t)p->r),
                                live, v);
    p->r += 64;
    p->u += 64;
    return v;
}

/* A vector wholly inside the ULPDU's octets (perhaps with a marker). */
INLINE T_AVX512 __m512i inner_vec(const vgen *g, vpos *p, enum mode mode,
                                  const uint8_t *wire, uint8_t *out)
{
    __m512i v;
    if (mode == RX) {
        v = _mm512_loadu_si512((const void *)(wire + p->r));
        if (p->m < p->r + 64)
            rx_vec(g, p, ~0ull, v);
        else
            _mm512_storeu_si512((void *)p->u, v);
    } else {
        v = p->m < p->r + 64 ? tx_vec(g, p, ~0ull)
                             : _mm512_loadu_si512((const void *)p->u);
    }
    if (mode == TX_OUT)
        _mm512_storeu_si512((void *)(out + p->r), v);
    p->r += 64;
    p->u += 64;
    return v;
}

/* Four fold accumulators, oldest first; folding zero keeps it zero, so
 * they start at zero and any vector count takes the same path. */
#define ACC(v)                                                            \
    do {                                                                  \
        __m512i t_ = foldz(x0, k, (v));                                   \
        x0 = x1, x1 = x2, x2 = x3, x3 = t_;                               \
    } while (0)

/* Steps of periods and chains (DW_MPA_FZ_STEP octets) that make them pay;
 * a multiple of 8 keeps the chains' markers in step (any count above it
 * is taken too: a test a chain). */
#define FZ_CHAINS_MIN 8
/* Inner octets from which the period walk beats the vector walk. */
#define FZ_PERIODS_MIN 3072

INLINE T_AVX512 void fz_call(dw_mpa_fz *s, const vgen *g, enum mode mode,
                             const uint8_t *wire, size_t jv, int chains)
{
    if (mode == RX)
        dw_mpa_fz_rx(s, g->im, wire, jv, chains);
    else
        dw_mpa_fz_tx(s, g->im, jv, chains);
}

/* The middle by whole marker periods (lib/mpa_crc_fuse_x86.c): inner
 * vectors up to a marker vector, periods with crc32 chains beside the
 * folding when there is room, then periods alone; one inner vector stays
 * after them (it takes the chains' CRC). */
INLINE T_AVX512 void mid_periods(const vgen *g, vpos *q, enum mode mode,
                                 const uint8_t *wire, __m512i *x)
{
    const __m512i k = kz(K2048);
    while (q->m >= q->r + 64 && q->r + 128 <= g->pe) {
        __m512i t = foldz(x[0], k, inner_vec(g, q, mode, wire, NULL));
        x[0] = x[1], x[1] = x[2], x[2] = x[3], x[3] = t;
    }
    if (q->m >= q->r + 64 || q->r + 576 > g->pe)
        return;
    size_t room = (size_t)(g->pe - q->r) / 64 * 64 - 64;
    size_t st = DW_MPA_FZ_STEP(mode == RX ? DW_MPA_FZ_NCH_RX : DW_MPA_FZ_NCH_TX);
    size_t jc = room / st, js = jc / 8 * 8;
    /* chains out of step: all steps chained when the periods left alone
     * would cost more than the chains' tests */
    jc = jc % 8 >= jc / 16 && jc >= FZ_CHAINS_MIN ? jc : js;
    dw_mpa_fz s = {{x[0], x[1], x[2], x[3]}, q->r, q->m, q->u, 0};
    if (jc)
        fz_call(&s, g, mode, wire, jc, 1);
    size_t jv = jc % 8 ? 0 : (room - st * jc) / 512; /* from a marker vector */
    if (jv)
        fz_call(&s, g, mode, wire, jv, 0);
    q->r = s.r, q->u = s.u, q->m = s.m < g->end ? s.m : NO_MARK;
    __m512i v = inner_vec(g, q, mode, wire, NULL);
    v = _mm512_xor_si512(v, _mm512_maskz_set1_epi32(1, (int)s.pending));
    x[0] = s.x[1], x[1] = s.x[2], x[2] = s.x[3];
    x[3] = foldz(s.x[0], k, v);
}

/*
 * Folds the image: edge vectors before the ULPDU's octets, the inner ones,
 * edge vectors to the CRC field. The first vector gets the initial
 * register at the FPDU's first dword.
 */
INLINE T_AVX512 uint32_t img_fold(const dw_mpa_img *im, uintptr_t u,
                                  enum mode mode, const uint8_t *wire,
                                  uint8_t *out)
{
    int64_t r0 = (int64_t)im->crc_off - 64 * (((int64_t)im->crc_off + 63) / 64);
    int64_t mo = ((int64_t)im->mark - r0) % 64; /* same lane for every marker */
    vgen g = {(int64_t)im->hdr_off + 2, 0, im->crc_off, dw_mpa_lanes(0, mo),
              dw_mpa_lanes(mo + 4, 64), (__mmask16)(1u << (mo / 4)),
              (im->len >> 8 & 0xffu) | (im->len & 0xffu) << 8, im,
              im->hlen ? u + im->hlen : 0, (uintptr_t)im->hdr - u};
    g.pe = g.ps + dw_mpa_ulpdu_span(im, g.ps);
    vpos p = {r0, im->mark < im->crc_off ? (int64_t)im->mark : NO_MARK,
              u + (uintptr_t)(r0 - g.ps)};
    __m512i k = kz(K2048), x0, x1, x2, x3;
    x0 = x1 = x2 = _mm512_setzero_si512();
    x3 = _mm512_xor_si512(edge_vec(&g, &p, mode, wire, out),
                          _mm512_maskz_set1_epi32((__mmask16)(1u << (-r0 / 4)), -1));
    if (g.end <= 192) { /* up to three vectors: one accumulator */
        while (p.r < g.end)
            x3 = foldz(x3, kz(K512), edge_vec(&g, &p, mode, wire, out));
        return ~lane_crc(zmm_to_xmm(x3));
    }
    /* edges up to the ULPDU's octets, and past a header given apart (with
     * room for one marker among it): inner vectors read the payload only */
    int64_t head_end = g.ps + (im->hlen ? (int64_t)im->hlen + 4 : 0);
    while (p.r < head_end)
        ACC(edge_vec(&g, &p, mode, wire, out));
    vpos q = p; /* a copy the compiler keeps in registers */
    if (mode != TX_OUT && g.pe - q.r >= FZ_PERIODS_MIN) {
        __m512i xa[4] = {x0, x1, x2, x3};
        mid_periods(&g, &q, mode, wire, xa);
        x0 = xa[0], x1 = xa[1], x2 = xa[2], x3 = xa[3];
    }
    for (; q.r + 256 <= g.pe; ) { /* ACC four times, without the moves */
        x0 = foldz(x0, k, inner_vec(&g, &q, mode, wire, out));
        x1 = foldz(x1, k, inner_vec(&g, &q, mode, wire, out));
        x2 = foldz(x2, k, inner_vec(&g, &q, mode, wire, out));
        x3 = foldz(x3, k, inner_vec(&g, &q, mode, wire, out));
    }
    while (q.r + 64 <= g.pe)
        ACC(inner_vec(&g, &q, mode, wire, out));
    p = q;
    while (p.r < g.end)
        ACC(edge_vec(&g, &p, mode, wire, out));
    x0 = foldz(x0, kz(K1024), x2);
    x1 = foldz(x1, kz(K1024), x3);
    return ~lane_crc(zmm_to_xmm(foldz(x0, kz(K512), x1)));
}

/* Which images go on the grid that a marker opens (lib/mpa/mpa_crc_grid_x86.c;
 * markers on, no header apart) rather than the vector walk here. Zen 5
 * (family 26 model 2): the sender's image CRC alone at 1460 octets 44-47
 * against 50-55 ns, ahead up to 8000 octets (beyond, the period walk's
 * crc32 chains win); framing into a buffer ahead at every length (its walk
 * has no chains); the receiver's strip 0.63 against 0.60 of the CRC at 4096
 * octets in `bench mpa`, but 0.42 against 0.47 at 1460 (the kernel alone
 * there 47 against 48.5 ns: the stream's stores cost the grid more). */
#define GRID_TX_MAX 8192
#define GRID_TXO_MAX 65536
#define GRID_RX_MIN 2048
#define GRID_RX_MAX 4608

static T_AVX512 uint32_t tx_crc(const dw_mpa_img *im, uint8_t *out)
{
    int grid = !im->hlen && im->mark <= DW_MPA_MARKER_INTERVAL;
    if (out && grid && im->crc_off <= GRID_TXO_MAX)
        return dw_mpa_grid_tx(im, out);
    if (out)
        return img_fold(im, (uintptr_t)im->ulpdu, TX_OUT, NULL, out);
    if (grid && im->crc_off <= GRID_TX_MAX)
        return dw_mpa_grid_tx(im, NULL);
    return img_fold(im, (uintptr_t)im->ulpdu, TX, NULL, NULL);
}

static T_AVX512 uint32_t rx_crc(const dw_mpa_img *im, const uint8_t *wire,
                                uint8_t *dst)
{
    if (im->crc_off > GRID_RX_MIN && im->crc_off <= GRID_RX_MAX &&
        im->mark <= DW_MPA_MARKER_INTERVAL)
        return dw_mpa_grid_rx(im, wire, dst);
    return img_fold(im, (uintptr_t)dst, RX, wire, NULL);
}

/* Below this many whole periods the head and tail (each under a period,
 * one crc32 chain at these lengths) cost more than one chunked pass. */
#ifndef DW_MPA_PERIODS_MIN
#define DW_MPA_PERIODS_MIN 4
#endif

/* The receiver's bound: from one whole period the kernel with the head
 * and tail beside it (their CRCs on three chains from 224 octets) beat the
 * chunked pass on Zen 3 (1460-octet FPDUs: 111-120 against 126-145 ns). */
#ifndef DW_MPA_RX_PERIODS_MIN
#define DW_MPA_RX_PERIODS_MIN 1
#endif

/* AVX2 (no AVX-512): the image's whole periods inside the ULPDU in one
 * pass of CRC and strip (dw_crc32c_strip_avx2), the octets before and
 * after them (under a period each) through dw_crc32c() and memcpy. */
static uint32_t rx_avx2(const dw_mpa_img *im, const uint8_t *wire, uint8_t *dst)
{
    uint32_t u0 = im->hdr_off + 2, m0 = im->mark, len = im->len;
    uint32_t g0 = m0 - u0; /* ULPDU octets before the first marker */
    size_t j = m0 < im->crc_off && g0 < len ? (len - g0) / 508 : 0;
    if (j < DW_MPA_RX_PERIODS_MIN)
        return dw_mpa_chunk_rx(im, wire, dst);
    uint32_t crc = dw_crc32c(0, wire, m0);
    memcpy(dst, wire + u0, g0);
    crc = ~dw_crc32c_strip_avx2(~crc, wire + m0, dst + g0, j);
    uint32_t r = m0 + 512 * (uint32_t)j, got = g0 + 508 * (uint32_t)j;
    if (got < len) /* r: a marker, then the rest of the ULPDU */
        memcpy(dst + got, wire + r + 4, len - got);
    return dw_crc32c(crc, wire + r, im->crc_off - r);
}

/* AVX2 framing into a buffer: the whole periods after the ULPDU's first
 * marker (and past any header given apart) gathered from the ULPDU in one
 * pass; the octets before and after them chunk by chunk. */
static uint32_t tx_avx2_out(const dw_mpa_img *im, uint8_t *out)
{
    uint32_t u0 = im->hdr_off + 2, m0 = im->mark, len = im->len;
    uint32_t g0 = m0 - u0, k0 = 0;
    if (m0 >= im->crc_off || g0 >= len)
        return dw_mpa_chunk_tx(im, out);
    if (im->hlen > g0)
        k0 = (im->hlen - g0 + 507) / 508;
    uint32_t ms = m0 + 512 * k0, gs = g0 + 508 * k0;
    size_t j = gs < len ? (len - gs) / 508 : 0;
    if (j < DW_MPA_PERIODS_MIN)
        return dw_mpa_chunk_tx(im, out);
    uint32_t crc = dw_mpa_chunk_tx_range(im, out, 0, ms, 0);
    crc = ~dw_crc32c_gather_avx2(~crc, im->ulpdu + gs, out ? out + ms : NULL, j,
                                 ms - im->ptr_sub);
    return dw_mpa_chunk_tx_range(im, out, ms + 512 * (uint32_t)j, im->crc_off, crc);
}

/* ---- AVX2, CRC only (framing into iovecs): the image in one pass ----
 *
 * The image is cut at its first marker inside the ULPDU (m0) and at the
 * end of its last whole period (mt): the head [0, m0) and the tail
 * [mt, crc_off) are contiguous ULPDU octets but for a few dwords (the
 * leading marker, the length, the tail's marker, PAD, a marker after
 * it), so each runs straight from the ULPDU through three crc32 chains;
 * the whole periods go through dw_crc32c_gather_avx2. The three parts
 * start independently (the head from the initial register, the others
 * from 0) and are merged at the end with shifts by x^(8 n):
 *
 *     R(H B C) = (R(H) x^(8|B|) + R(B)) x^(8|C|) + R(C)
 *
 * No octet is copied and no part waits for another. */

INLINE T_SSE42 uint64_t tx_ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Shifts in dw_crc32c_xpow8_x32()'s scaling, from tables filled once:
 * x^(8 4i) for a tail or a chain (i <= TX_XP4_MAX) and x^(8 512 j) for j
 * whole periods (j <= 129), so the merges take no call. */
#define TX_XP4_MAX 160u
static uint32_t tx_xp4[TX_XP4_MAX + 1], tx_xp512[130];
static int tx_xp_state; /* 0 none, 1 filling, 2 ready */

static T_CLMUL void tx_xp_fill(void)
{
    for (uint32_t i = 0; i <= TX_XP4_MAX; i++)
        tx_xp4[i] = dw_crc32c_xpow8_x32(4 * i);
    for (uint32_t j = 0; j < 130; j++) { /* the tables stop below 65792 */
        size_t n = 512 * (size_t)j;
        tx_xp512[j] = n < 65536 ? dw_crc32c_xpow8_x32(n)
                                : dw_x86_mulx32(dw_crc32c_xpow8_x32(32768),
                                         dw_crc32c_xpow8_x32(n - 32768));
    }
}

/* x^(8 n), n a multiple of 4. */
INLINE uint32_t tx_xp(size_t n)
{
    return n / 4 <= TX_XP4_MAX ? tx_xp4[n / 4] : dw_crc32c_xpow8_x32(n);
}

/* Octets per chain from which three chains beat one. */
#define TX_RUN3_MIN 32u

/* Raw register c over n octets at p: three crc32 chains over the last
 * 3 l octets (l a multiple of 8), the first n - 3 l on the first chain
 * before its part, so the merge's shifts depend on l alone. */
INLINE T_CLMUL uint32_t tx_run3(uint64_t c, const uint8_t *p, size_t n)
{
    size_t l = n / 24 * 8;
    if (l < TX_RUN3_MIN)
        return (uint32_t)dw_x86_crc_chain(c, p, n);
    size_t t = n - 3 * l;
    c = dw_x86_crc_chain(c, p, t);
    p += t;
    const uint8_t *p1 = p + l, *p2 = p + 2 * l;
    uint64_t c1 = 0, c2 = 0;
    for (size_t i = 0; i < l; i += 8) {
        c = _mm_crc32_u64(c, tx_ld64(p + i));
        c1 = _mm_crc32_u64(c1, tx_ld64(p1 + i));
        c2 = _mm_crc32_u64(c2, tx_ld64(p2 + i));
    }
    return dw_x86_mulx32((uint32_t)c, tx_xp(2 * l)) ^ dw_x86_mulx32((uint32_t)c1, tx_xp(l)) ^
           (uint32_t)c2;
}

/* PAD (MPA 6: zero octets, 0..3). */
INLINE T_SSE42 uint32_t tx_pad(uint32_t c, uint32_t pad)
{
    if (pad & 2)
        c = _mm_crc32_u16(c, 0);
    if (pad & 1)
        c = _mm_crc32_u8(c, 0);
    return c;
}

/* The head's register: initial value, a leading (zero) marker, the
 * length, then n ULPDU octets (the first hlen from the header apart). */
INLINE T_CLMUL uint32_t tx_head(const dw_mpa_img *im, uint32_t n)
{
    uint64_t c = 0xffffffffu;
    uint32_t len = im->len, h = im->hlen < n ? im->hlen : n;
    if (im->hdr_off)
        c = _mm_crc32_u32((uint32_t)c, 0);
    c = _mm_crc32_u16((uint32_t)c, (uint16_t)(len >> 8 | (len & 0xffu) << 8));
    if (h)
        c = dw_x86_crc_chain(c, im->hdr, h);
    return tx_run3(c, im->ulpdu + h, n - h);
}

static T_CLMUL uint32_t tx_avx2_crc(const dw_mpa_img *im)
{
    dw_once(&tx_xp_state, tx_xp_fill);
    uint32_t u0 = im->hdr_off + 2, m0 = im->mark, len = im->len, end = im->crc_off;
    uint32_t pad = (uint32_t)dw_mpa_pad_len(len);
    if (m0 >= end || m0 - u0 >= len) { /* no marker inside the ULPDU */
        uint32_t c = tx_pad(tx_head(im, len), pad);
        if (m0 < end) /* MPA 7.2: right after the PAD, covered */
            c = _mm_crc32_u32(c, dw_mpa_img_marker(im, m0));
        return ~c;
    }
    uint32_t g0 = m0 - u0;
    if (im->hlen > g0) /* a header apart beyond the first marker */
        return tx_avx2_out(im, NULL);
    uint32_t j = (len - g0) / 508, mt = m0 + 512 * j, r = len - g0 - 508 * j;
    /* the periods first: the chains below then run beside their last
     * folds (the periods' own chains stop before their folds do) */
    uint32_t b = j ? dw_crc32c_gather_avx2(0, im->ulpdu + g0, NULL, j,
                                           m0 - im->ptr_sub)
                   : 0;
    /* the tail: a marker, r ULPDU octets, PAD, perhaps a marker (7.2) */
    uint32_t t = _mm_crc32_u32(0, dw_mpa_img_marker(im, mt));
    t = tx_pad(tx_run3(t, im->ulpdu + g0 + 508 * j, r), pad);
    if (4 + r + pad < end - mt)
        t = _mm_crc32_u32(t, dw_mpa_img_marker(im, mt + 512));
    uint32_t h = tx_head(im, g0);
    if (j)
        h = dw_x86_mulx32(h, tx_xp512[j]) ^ b;
    return ~(dw_x86_mulx32(h, tx_xp(end - mt)) ^ t);
}

static uint32_t tx_avx2(const dw_mpa_img *im, uint8_t *out)
{
    return out ? tx_avx2_out(im, out) : tx_avx2_crc(im);
}

static uint32_t rx_run_avx2(const uint8_t *in, uint8_t *dst, size_t j,
                            uint32_t reg)
{
    return dw_crc32c_strip_avx2(reg, in, dst, j);
}

/* The sender's iovecs over whole periods with 256-bit stores: a pair
 * {o, 4}, {pu, 508} is one store, eight markers' dwords another (the
 * scalar loop's five stores a period bound the framing at 64768 octets:
 * about 10 % of its time). */
#define T_AVX2 __attribute__((target("avx,avx2")))

static T_AVX2 void iov_periods_avx2(struct iovec *v, uint8_t *o,
                                    const uint8_t *pu, uint32_t n, uint32_t ptr)
{
    __m256i pair = _mm256_set_epi64x(508, (long long)(uintptr_t)pu, 4,
                                     (long long)(uintptr_t)o);
    const __m256i step = _mm256_set_epi64x(0, 508, 0, 4);
    __m256i p8 = _mm256_add_epi32(_mm256_set1_epi32((int)ptr),
                                  _mm256_set_epi32(3584, 3072, 2560, 2048, 1536,
                                                   1024, 512, 0));
    const __m256i k4096 = _mm256_set1_epi32(4096), ff = _mm256_set1_epi32(0xff0000);
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8, o += 32) { /* MPA 7.1: reserved 0, FPDUPTR BE */
        __m256i d = _mm256_or_si256(_mm256_slli_epi32(p8, 24),
                                    _mm256_and_si256(_mm256_slli_epi32(p8, 8), ff));
        _mm256_storeu_si256((__m256i *)(void *)o, d);
        p8 = _mm256_add_epi32(p8, k4096);
#pragma GCC unroll 8
        for (int t = 0; t < 8; t++, v += 2) {
            _mm256_storeu_si256((__m256i *)(void *)v, pair);
            pair = _mm256_add_epi64(pair, step);
        }
    }
    for (ptr += 512 * i; i < n; i++, v += 2, o += 4, ptr += 512) { /* < 8 */
        uint32_t p16 = ptr & 0xffffu;
        uint32_t d = (p16 >> 8 | (p16 & 0xffu) << 8) << 16;
        memcpy(o, &d, 4);
        _mm256_storeu_si256((__m256i *)(void *)v, pair);
        pair = _mm256_add_epi64(pair, step);
    }
    _mm256_zeroupper();
}

/* The receiver's mirror: two pieces' iovecs a store. */
static T_AVX2 void iov_pieces_avx2(struct iovec *v, const uint8_t *m, uint32_t n)
{
    __m256i pair = _mm256_set_epi64x(508, (long long)(uintptr_t)(m + 516), 508,
                                     (long long)(uintptr_t)(m + 4));
    const __m256i step = _mm256_set_epi64x(0, 1024, 0, 1024);
    uint32_t i = 0;
    for (; i + 2 <= n; i += 2) {
        _mm256_storeu_si256((__m256i *)(void *)(v + i), pair);
        pair = _mm256_add_epi64(pair, step);
    }
    _mm256_zeroupper();
    dw_mpa_iov_pieces_sw(v + i, m + 512 * (size_t)i, n - i);
}

/* Eight markers a step, gathered (stride 512), their FPDUPTRs compared as
 * dwords: octets 2-3 with the reserved bits masked off, against the
 * expected pointers built as in iov_periods_avx2 (unmasked, as
 * dw_mpa_markers_bad_sw compares them). */
static T_AVX2 int markers_bad_avx2(const uint8_t *m, uint32_t n, uint32_t a,
                                   uint32_t b)
{
    const __m256i idx = _mm256_set_epi32(3584, 3072, 2560, 2048, 1536, 1024, 512, 0);
    const __m256i k4096 = _mm256_set1_epi32(4096), ff = _mm256_set1_epi32(0xff0000);
    const __m256i mask = _mm256_set1_epi32((int)0xfcff0000u);
    __m256i pa = _mm256_add_epi32(_mm256_set1_epi32((int)a), idx);
    __m256i pb = _mm256_add_epi32(_mm256_set1_epi32((int)b), idx);
    __m256i bad = _mm256_setzero_si256();
    uint32_t i = 0;
    for (; i + 8 <= n; i += 8, m += 4096) {
        __m256i w = _mm256_and_si256(
            _mm256_i32gather_epi32((const int *)(const void *)m, idx, 1), mask);
        __m256i da = _mm256_or_si256(_mm256_slli_epi32(pa, 24),
                                     _mm256_and_si256(_mm256_slli_epi32(pa, 8), ff));
        __m256i db = _mm256_or_si256(_mm256_slli_epi32(pb, 24),
                                     _mm256_and_si256(_mm256_slli_epi32(pb, 8), ff));
        /* bad where w differs from both */
        bad = _mm256_or_si256(bad, _mm256_andnot_si256(
                                       _mm256_or_si256(_mm256_cmpeq_epi32(w, da),
                                                       _mm256_cmpeq_epi32(w, db)),
                                       _mm256_set1_epi32(-1)));
        pa = _mm256_add_epi32(pa, k4096);
        pb = _mm256_add_epi32(pb, k4096);
    }
    int r = !_mm256_testz_si256(bad, bad);
    _mm256_zeroupper();
    return r | dw_mpa_markers_bad_sw(m, n - i, a + 512 * i, b + 512 * i);
}

static int have_avx2(void)
{
    static int have; /* 0 unknown, 1 no, 2 AVX2 */
    int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
    if (!h) {
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx2") ? 2 : 1;
        __atomic_store_n(&have, h, __ATOMIC_RELAXED);
    }
    return h == 2;
}

void dw_mpa_iov_periods(struct iovec *v, uint8_t *o, const uint8_t *pu,
                        uint32_t n, uint32_t ptr)
{
    if (n >= 4 && have_avx2())
        iov_periods_avx2(v, o, pu, n, ptr);
    else
        dw_mpa_iov_periods_sw(v, o, pu, n, ptr);
}

void dw_mpa_iov_pieces(struct iovec *v, const uint8_t *m, uint32_t n)
{
    if (n >= 4 && have_avx2())
        iov_pieces_avx2(v, m, n);
    else
        dw_mpa_iov_pieces_sw(v, m, n);
}

int dw_mpa_markers_bad(const uint8_t *m, uint32_t n, uint32_t a, uint32_t b)
{
    if (n >= 8 && have_avx2())
        return markers_bad_avx2(m, n, a, b);
    return dw_mpa_markers_bad_sw(m, n, a, b);
}

const dw_mpa_crc_ops *dw_mpa_crc_fast(void)
{
    static const dw_mpa_crc_ops ops = {tx_crc, rx_crc, dw_mpa_fz_rx_run};
    static const dw_mpa_crc_ops chunk = {dw_mpa_chunk_tx, dw_mpa_chunk_rx,
                                         dw_mpa_chunk_rx_run};
    static const dw_mpa_crc_ops avx2 = {tx_avx2, rx_avx2, rx_run_avx2};
    dw_crc32c_impl i = dw_crc32c_impl_get();
    return i == DW_CRC32C_AVX512 ? &ops
           : i == DW_CRC32C_AVX2 ? &avx2
           : i == DW_CRC32C_PORTABLE ? NULL
                                     : &chunk;
}
