/* SPDX-License-Identifier: MIT */
/*
 * CRC32c of a short FPDU's image (lib/mpa_crc.h) with the crc32
 * instruction alone, straight from the ULPDU (and a header given apart):
 * for a few dozen octets one dependent chain is cheaper than setting up
 * and reducing 64-octet folds, and consecutive FPDUs overlap in the CPU.
 * The image: a leading zero marker, ULPDU_Length (big-endian), the ULPDU
 * with a marker every 512 octets (MPA 7.1), PAD, and a marker right after
 * the PAD if one falls there (MPA 7.2).
 */
#include <ddpwire/crc32c.h>
#include <immintrin.h>
#include <string.h>

#include "crc32c/crc32c_x86.h"
#include "mpa/mpa_crc.h"
#include "mpa/mpa_internal.h"
#include "mpa/mpa_short.h"
#include "mpa/mpa_tx_internal.h"

/* ULPDU octets [a, a + n): those inside a header given apart from it. */
INLINE T_SSE42 uint64_t sm_ulpdu(uint64_t c, const dw_mpa_img *im, uint32_t a,
                                 uint32_t n)
{
    if (a < im->hlen) {
        uint32_t h = im->hlen - a < n ? im->hlen - a : n;
        c = dw_x86_crc_chain(c, im->hdr + a, h);
        a += h, n -= h;
    }
    return n ? dw_x86_crc_chain(c, im->ulpdu + a, n) : c;
}

T_SSE42 uint32_t dw_mpa_crc_small(const dw_mpa_img *im)
{
    uint64_t c = 0xffffffffu;
    uint32_t len = im->len, got = 0, r = im->hdr_off + 2, m = im->mark;
    if (im->hdr_off) /* the leading marker is zero */
        c = _mm_crc32_u32((uint32_t)c, 0);
    c = _mm_crc32_u16((uint32_t)c, (uint16_t)(len >> 8 | (len & 0xffu) << 8));
    for (;;) { /* m > r: markers sit on dwords, r is 2 mod 4 */
        uint32_t take = len - got < m - r ? len - got : m - r;
        c = sm_ulpdu(c, im, got, take);
        got += take, r += take;
        if (got == len)
            break;
        c = _mm_crc32_u32((uint32_t)c, dw_mpa_img_marker(im, m));
        r += 4, m += DW_MPA_MARKER_INTERVAL;
    }
    uint32_t pad = (uint32_t)dw_mpa_pad_len(len);
    for (uint32_t i = 0; i < pad; i++) /* MPA 6: zero PAD */
        c = _mm_crc32_u8((uint32_t)c, 0);
    if (m == r + pad) /* MPA 7.2: covered */
        c = _mm_crc32_u32((uint32_t)c, dw_mpa_img_marker(im, m));
    return ~(uint32_t)c;
}

/* Without markers the image is the length, the ULPDU and PAD: the ULPDU
 * through dw_crc32c() (its long-buffer paths), the rest around it. */
T_SSE42 uint32_t dw_mpa_crc_plain(const dw_mpa_img *im)
{
    uint32_t len = im->len;
    if (len < DW_MPA_CRC_SMALL_MAX)
        return dw_mpa_crc_small(im);
    uint32_t c = ~(uint32_t)_mm_crc32_u16(0xffffffffu,
                                         (uint16_t)(len >> 8 | (len & 0xffu) << 8));
    if (im->hlen)
        c = dw_crc32c(c, im->hdr, im->hlen);
    c = ~dw_crc32c(c, im->ulpdu + im->hlen, len - im->hlen);
    for (size_t i = dw_mpa_pad_len(len); i; i--) /* MPA 6: zero PAD */
        c = _mm_crc32_u8(c, 0);
    return ~c;
}

/* n octets (a multiple of 4) at p. */
INLINE T_SSE42 uint64_t sm_dwords(uint64_t c, const uint8_t *p, size_t n)
{
    uint64_t q;
    uint32_t d;
    for (; n >= 8; n -= 8, p += 8) {
        memcpy(&q, p, 8);
        c = _mm_crc32_u64(c, q);
    }
    if (n) {
        memcpy(&d, p, 4);
        c = _mm_crc32_u32((uint32_t)c, d);
    }
    return c;
}

/* The length and the first two ULPDU octets make one dword; every piece
 * after them ends on a dword, the last one (with the PAD) taken from a
 * load that ends at the ULPDU's end, shifted: no octet-wise tail. */
INLINE T_SSE42 uint32_t short_crc(const uint8_t *u, uint32_t len, uint32_t lead,
                                  uint32_t g, uint32_t mk, uint32_t end_mk,
                                  int has_end_mk)
{
    uint64_t c = 0xffffffffu, x;
    uint16_t u01;
    memcpy(&u01, u, 2);
    if (lead) /* the leading marker is zero */
        c = _mm_crc32_u32((uint32_t)c, 0);
    c = _mm_crc32_u32((uint32_t)c, (len >> 8 & 0xffu) | (len & 0xffu) << 8 |
                                       (uint32_t)u01 << 16);
    uint32_t s = 2;
    if (g < len) { /* ULPDU octets [2, g), the marker */
        c = _mm_crc32_u32((uint32_t)sm_dwords(c, u + 2, g - 2), mk);
        s = g;
    }
    uint32_t n = len - s, pad = (2u - len) & 3u; /* MPA 6 */
    for (; n >= 8; n -= 8, s += 8) {
        memcpy(&x, u + s, 8);
        c = _mm_crc32_u64(c, x);
    }
    if (n + pad) { /* n octets then PAD: 4 or 8 octets; len >= 8 */
        memcpy(&x, u + len - 8, 8);
        x >>= 8 * (8 - n);
        c = n + pad == 4 ? _mm_crc32_u32((uint32_t)c, (uint32_t)x)
                         : _mm_crc32_u64(c, x);
    }
    if (has_end_mk) /* MPA 7.2 */
        c = _mm_crc32_u32((uint32_t)c, end_mk);
    return ~(uint32_t)c;
}

/* x^(64 t) x^-32 mod P, t = 0..16: a shift by 8 t octets in the scaling
 * of crc32c_shift_tab.h's shift_lo_x32 (its entries 8 t). */
static const uint32_t kx8[17] = {
    0xd610d67eu, 0x82f63b78u, 0xa66805ebu, 0x790606ffu, 0x5d27e147u, 0x9c25531du,
    0xec1631edu, 0x0e148e82u, 0x4f256efcu, 0x3a077781u, 0x1ce9d94bu, 0x041d3776u,
    0x817cdc51u, 0xe0b99ccbu, 0xa11bfaf3u, 0x156c8e18u, 0x069db049u};

/* Three crc32 chains (3 cycles a qword each) instead of one: c0 over
 * what comes first, c1 and c2 over t qwords each, merged as
 * c0 x^(128 t) + c1 x^(64 t) + c2 with one carry-less multiply each.
 * For a 64-octet ULPDU the one chain was ~30 cycles of latency per
 * FPDU, which back-to-back FPDUs could not hide. */
INLINE T_CLMUL uint64_t merge3(uint64_t c0, uint64_t c1, uint64_t c2, uint32_t t)
{
    __m128i a = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)(uint32_t)c0),
                                     _mm_cvtsi32_si128((int)kx8[2 * t]), 0);
    __m128i b = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)(uint32_t)c1),
                                     _mm_cvtsi32_si128((int)kx8[t]), 0);
    uint64_t m = (uint64_t)_mm_cvtsi128_si64(_mm_xor_si128(a, b)) << 1;
    return (uint32_t)_mm_crc32_u64(0, m) ^ (uint32_t)c2;
}

/* Tail chains per length: t qwords each, about a third of the n octets
 * (rounded up: c0 has the header's dwords too), c0 left at least `keep`
 * octets; at most 8 (the table's reach); 0: one chain. */
INLINE uint32_t tail_qwords(uint32_t n, uint32_t keep)
{
    uint32_t t = (n + 16) / 24, most = n > keep ? (n - keep) / 16 : 0;
    t = t < most ? t : most;
    return t > 8 ? 8 : t;
}

/* The receiver's short images on one chain: FPDUs back to back overlap
 * in the CPU, and there the three chains' extra instructions cost more
 * than their shorter latency saves (measured on Zen 3 at 64 octets). */
T_SSE42 uint32_t dw_mpa_crc_wire(const uint8_t *p, size_t n)
{
    return ~(uint32_t)sm_dwords(0xffffffffu, p, (uint32_t)n);
}

int dw_mpa_crc_hw(void)
{
    dw_crc32c_impl i = dw_crc32c_impl_get(); /* these imply PCLMULQDQ */
    return i == DW_CRC32C_PCLMUL || i == DW_CRC32C_AVX2 || i == DW_CRC32C_AVX512;
}

/*
 * short_crc() for an FPDU without a marker inside its ULPDU, in three
 * chains: c0 over [leading marker] length, the ULPDU's first octets, c1
 * and c2 over the last 16 t octets of ULPDU and PAD (the last qword
 * loaded to end at the ULPDU's end, shifted: PAD zeros come in), then
 * the marker after the PAD if any (MPA 7.2). e: image octets before
 * that marker (a multiple of 4).
 */
INLINE T_CLMUL uint32_t short_crc3(const uint8_t *u, uint32_t len, uint32_t lead,
                                   uint32_t e, uint32_t end_mk, int has_end_mk)
{
    uint32_t t = tail_qwords(e, lead + 4), pad = (2u - len) & 3u;
    if (!t)
        return short_crc(u, len, lead, len, 0, end_mk, has_end_mk);
    uint64_t c = 0xffffffffu, c1 = 0, c2 = 0, x, y;
    uint16_t u01;
    memcpy(&u01, u, 2);
    if (lead) /* the leading marker is zero */
        c = _mm_crc32_u32((uint32_t)c, 0);
    c = _mm_crc32_u32((uint32_t)c, (len >> 8 & 0xffu) | (len & 0xffu) << 8 |
                                       (uint32_t)u01 << 16);
    /* ULPDU octets [2, s) on c0 (e - 16 t >= lead + 4) */
    uint32_t s = e - 16 * t - lead - 2;
    c = sm_dwords(c, u + 2, s - 2);
    const uint8_t *p1 = u + s, *p2 = p1 + 8 * t;
    for (uint32_t i = 0; i < 8 * t - 8; i += 8) {
        memcpy(&x, p1 + i, 8);
        memcpy(&y, p2 + i, 8);
        c1 = _mm_crc32_u64(c1, x);
        c2 = _mm_crc32_u64(c2, y);
    }
    memcpy(&x, p1 + 8 * t - 8, 8);
    memcpy(&y, u + len - 8, 8); /* the ULPDU's end, then PAD */
    c1 = _mm_crc32_u64(c1, x);
    c2 = _mm_crc32_u64(c2, y >> (8 * pad));
    c = merge3(c, c1, c2, t);
    if (has_end_mk) /* MPA 7.2 */
        c = _mm_crc32_u32((uint32_t)c, end_mk);
    return ~(uint32_t)c;
}

T_SSE42 uint32_t dw_mpa_crc_short(const uint8_t *u, uint32_t len, uint32_t lead,
                                  uint32_t g, uint32_t mk, uint32_t end_mk,
                                  int has_end_mk)
{
    return short_crc(u, len, lead, g, mk, end_mk, has_end_mk);
}

/* The marker at image offset m of an FPDU whose FPDUPTR counts from
 * offset sub, as the little-endian dword of its wire octets (MPA 7.1). */
INLINE uint32_t marker_dword(uint32_t m, uint32_t sub)
{
    uint32_t ptr = (m - sub) & 0xffffu;
    return (ptr >> 8 | (ptr & 0xffu) << 8) << 16;
}

/* The ring's next FPDU scratch (each FPDU's scratch contiguous). */
INLINE uint8_t *scratch_at(const dw_mpa_tx *tx)
{
    size_t head = tx->head;
    if (head + DW_MPA_TX_SCRATCH_PER_FPDU > tx->set.scratch_size)
        head = 0;
    return tx->scratch + head;
}

/* The length field after lead octets of a leading (zero) marker: the
 * first 8 scratch octets of the FPDU. */
INLINE uint64_t head_qword(uint32_t n, uint32_t lead)
{
    return (uint64_t)(n >> 8 & 0xffu) << (8 * lead) | (uint64_t)(n & 0xffu) << (8 * lead + 8);
}

/*
 * A marker inside the ULPDU (MPA 7.1; at most one in a short FPDU):
 * [leading marker] length | ULPDU | marker | ULPDU | PAD [marker] CRC, the
 * ULPDU referenced, the rest in scratch, the CRC on one chain.
 */
static T_SSE42 __attribute__((noinline)) ssize_t
tx_short_mk(dw_mpa_tx *tx, const uint8_t *u, uint32_t n, uint32_t lead, uint32_t m,
            struct iovec *iov, dw_mpa_fpdu_info *info)
{
    uint32_t sub = tx->set.ptr_base == DW_MPA_PTR_RFC5044 ? lead : 0;
    uint32_t pad = (2u - n) & 3u, u0 = lead + 2, e = u0 + n + 4 + pad;
    uint8_t *h = scratch_at(tx);
    uint64_t hw = head_qword(n, lead), z = 0;
    memcpy(h, &hw, 8); /* a leading marker is zero; the length */
    uint32_t mk = marker_dword(m, sub), g = m - u0; /* ULPDU octets before it */
    uint8_t *t = h + u0;
    memcpy(t, &mk, 4);
    iov[0] = (struct iovec){h, u0};
    iov[1] = (struct iovec){(void *)u, g};
    iov[2] = (struct iovec){t, 4};
    iov[3] = (struct iovec){(void *)(u + g), n - g};
    t += 4;
    memcpy(t, &z, 8); /* PAD */
    dw_crc32c_store(t + pad, short_crc(u, n, lead, g, mk, 0, 0));
    iov[4] = (struct iovec){t, pad + 4};
    uint32_t flen = e + 4;
    tx->head = (size_t)(t + pad + 4 - tx->scratch);
    /* the next marker is 512 on: past the CRC (n < 508) */
    dw_mpa_tx_commit(tx, tx->pos + flen, (lead != 0) + 1, flen, info, 5);
    return (ssize_t)flen;
}

/*
 * Without a marker inside the ULPDU: [leading marker] length | ULPDU |
 * PAD [marker] CRC as three iovecs, the ULPDU referenced, the CRC in three
 * chains (short_crc3) overlapping the stores. Falls back to the general
 * path where this does not apply.
 */
T_CLMUL ssize_t dw_mpa_tx_short(dw_mpa_tx *tx, const uint8_t *u, size_t len,
                                struct iovec *iov, size_t iovcap,
                                dw_mpa_fpdu_info *info)
{
    uint32_t n = (uint32_t)len, pos = tx->pos, lead = 0, m = UINT32_MAX;
    if (tx->set.markers) { /* the first marker after octet 0 (MPA 7.1) */
        m = DW_MPA_MARKER_INTERVAL - pos % DW_MPA_MARKER_INTERVAL;
        lead = m == DW_MPA_MARKER_INTERVAL ? DW_MPA_MARKER_LEN : 0;
    }
    uint32_t pad = (2u - n) & 3u, u0 = lead + 2, e = u0 + n + pad;
    if (iovcap < 3u + 2u * (m < e) || !dw_mpa_crc_hw())
        return dw_mpa_tx_frame_gen(tx, u, len, iov, iovcap, info);
    if (m < e)
        return tx_short_mk(tx, u, n, lead, m, iov, info);
    uint32_t at_end = m == e; /* MPA 7.2: a marker after the PAD, covered */
    uint8_t *h = scratch_at(tx), *t = h + u0;
    uint64_t hw = head_qword(n, lead), z = 0;
    memcpy(h, &hw, 8); /* a leading marker is zero; the length */
    memcpy(t, &z, 8);  /* PAD */
    uint32_t mk = 0;
    if (at_end) {
        mk = marker_dword(m, tx->set.ptr_base == DW_MPA_PTR_RFC5044 ? lead : 0);
        memcpy(t + pad, &mk, 4);
    }
    uint32_t tl = pad + 4 * at_end + 4;
    iov[0] = (struct iovec){h, u0};
    iov[1] = (struct iovec){(void *)u, n};
    iov[2] = (struct iovec){t, tl};
    dw_crc32c_store(t + tl - 4, short_crc3(u, n, lead, e, mk, (int)at_end));
    tx->head = (size_t)(t + tl - tx->scratch);
    dw_mpa_tx_commit(tx, pos + e + tl - pad, (lead != 0) + at_end, e + tl - pad, info, 3);
    return (ssize_t)(e + tl - pad);
}
