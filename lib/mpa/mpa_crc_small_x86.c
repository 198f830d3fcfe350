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

/* One crc32 chain, unrolled: q qwords at p (q <= QW_MAX), one crc32 with
 * a memory operand each, entered at the qword count (one predicted
 * jump). Short FPDUs cost instructions more than latency: back-to-back
 * FPDUs overlap in the CPU, so loop counters, index arithmetic and
 * merging several chains (tried: three chains and a carry-less merge)
 * cost more than the chain's 3 cycles a qword (measured on Zen 3). */
#define QW_MAX 24u
#define QW(k)                                                  \
    case k:                                                    \
        memcpy(&x, p - 8 * (k), 8);                            \
        c = _mm_crc32_u64(c, x);                               \
        __attribute__((fallthrough))

INLINE T_SSE42 uint64_t qwords(uint64_t c, const uint8_t *p, uint32_t q)
{
    uint64_t x;
    p += 8 * (size_t)q; /* case k: the k-th qword from the end */
    switch (q) {
        QW(24); QW(23); QW(22); QW(21); QW(20); QW(19); QW(18); QW(17);
        QW(16); QW(15); QW(14); QW(13); QW(12); QW(11); QW(10); QW(9);
        QW(8); QW(7); QW(6); QW(5); QW(4); QW(3); QW(2); QW(1);
    default:
        break;
    }
    return c;
}
#undef QW

/* Raw register c over n octets at p (n a multiple of 4, < 8 QW_MAX + 8). */
INLINE T_SSE42 uint64_t dwords_short(uint64_t c, const uint8_t *p, uint32_t n)
{
    if (n & 4) {
        uint32_t d;
        memcpy(&d, p, 4);
        c = _mm_crc32_u32((uint32_t)c, d);
        p += 4;
    }
    return qwords(c, p, n / 8);
}

/* The receiver's short images (at most DW_MPA_CRC_WIRE_MAX octets). */
T_SSE42 uint32_t dw_mpa_crc_wire(const uint8_t *p, size_t n)
{
    return ~(uint32_t)dwords_short(0xffffffffu, p, (uint32_t)n);
}

int dw_mpa_crc_hw(void)
{
    return dw_crc32c_impl_get() != DW_CRC32C_PORTABLE; /* all have crc32 */
}

/* The raw register after a leading zero marker: crc32 of a zero dword
 * from 0xffffffff, a constant (MPA 7.1: a leading marker is zero). */
#define LEAD_REG 0xb798b438u

/*
 * short_crc() for an FPDU without a marker inside its ULPDU: [leading
 * marker] length and the first two ULPDU octets as one dword, the rest
 * on one unrolled chain, the last qword loaded to end at the ULPDU's end
 * and shifted (PAD zeros come in), then the marker after the PAD if any
 * (MPA 7.2).
 */
INLINE T_SSE42 uint32_t short_crc1(const uint8_t *u, uint32_t len, uint32_t lead,
                                   uint32_t end_mk, int has_end_mk)
{
    uint32_t pad = (2u - len) & 3u, r = len - 2 + pad - 8; /* before the last qword */
    uint64_t c = lead ? LEAD_REG : 0xffffffffu, y;
    uint16_t u01;
    memcpy(&u01, u, 2);
    c = _mm_crc32_u32((uint32_t)c, (len >> 8 & 0xffu) | (len & 0xffu) << 8 |
                                       (uint32_t)u01 << 16);
    c = dwords_short(c, u + 2, r);
    memcpy(&y, u + len - 8, 8); /* the ULPDU's end, then PAD */
    c = _mm_crc32_u64(c, y >> (8 * pad));
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
    uint64_t be = (n >> 8 & 0xffu) | (n & 0xffu) << 8;
    return lead ? be << 32 : be;
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
 * chain (short_crc1) overlapping the stores. Falls back to the general
 * path where this does not apply.
 */
T_SSE42 ssize_t dw_mpa_tx_short(dw_mpa_tx *tx, const uint8_t *u, size_t len,
                                struct iovec *iov, size_t iovcap,
                                dw_mpa_fpdu_info *info)
{
    /* first, while only the arguments are live; with fewer than 5
     * iovecs the general path decides what fits */
    if (iovcap < 5 || !dw_mpa_crc_hw())
        return dw_mpa_tx_frame_gen(tx, u, len, iov, iovcap, info);
    uint32_t n = (uint32_t)len, pos = tx->pos, lead = 0, m = UINT32_MAX;
    if (tx->set.markers) { /* the first marker after octet 0 (MPA 7.1) */
        m = DW_MPA_MARKER_INTERVAL - pos % DW_MPA_MARKER_INTERVAL;
        lead = m == DW_MPA_MARKER_INTERVAL ? DW_MPA_MARKER_LEN : 0;
    }
    uint32_t pad = (2u - n) & 3u, u0 = lead + 2, e = u0 + n + pad;
    if (m < e)
        return tx_short_mk(tx, u, n, lead, m, iov, info);
    uint32_t at_end = m == e; /* MPA 7.2: a marker after the PAD, covered */
    uint8_t *h = scratch_at(tx), *t = h + u0;
    uint64_t hw = head_qword(n, lead), z = 0;
    memcpy(h, &hw, 8); /* a leading marker is zero; the length */
    memcpy(t, &z, 8);  /* PAD */
    uint32_t mk = 0;
    if (at_end) {
        mk = marker_dword(m, 0); /* no leading marker then: FPDUPTR alike */
        memcpy(t + pad, &mk, 4);
    }
    uint32_t tl = pad + 4 * at_end + 4, flen = u0 + n + tl;
    iov[0] = (struct iovec){h, u0};
    iov[1] = (struct iovec){(void *)u, n};
    iov[2] = (struct iovec){t, tl};
    dw_crc32c_store(t + tl - 4, short_crc1(u, n, lead, mk, (int)at_end));
    tx->head = (size_t)(t + tl - tx->scratch);
    dw_mpa_tx_commit(tx, pos + flen, (lead != 0) + at_end, flen, info, 3);
    return (ssize_t)flen;
}
