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
T_SSE42 uint32_t dw_mpa_crc_short(const uint8_t *u, uint32_t len, uint32_t lead,
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
