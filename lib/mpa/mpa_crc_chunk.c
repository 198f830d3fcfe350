/* SPDX-License-Identifier: MIT */
/*
 * The FPDU image CRC (lib/mpa/mpa_crc.h) where there is no one-pass vector
 * kernel (no AVX-512): chunk by chunk, one dw_crc32c() call per chunk of
 * the image, so the CRC runs on its long-buffer paths (folding beside
 * crc32 chains) instead of restarting at every marker on 508-octet pieces.
 *
 * Sender: each chunk of the image is written (into the caller's buffer, or
 * into a staging buffer on the stack when only the CRC is wanted) and its
 * CRC taken while it is in L1. Receiver: the image is contiguous in the
 * input, so the CRC needs no copy; each chunk's ULPDU octets are then
 * copied out around the markers while the chunk is in L1.
 */
#include <ddpwire/crc32c.h>
#include <string.h>

#include "base/bytes.h"
#include "mpa/mpa_crc.h"

/* Octets per CRC call: several times the CRC's fused threshold (its
 * set-up and merge are per call), inside L1 with the copy beside it; the
 * sender's staging is on the stack, so smaller. */
#ifndef DW_MPA_CHUNK_RX
#define DW_MPA_CHUNK_RX 16384u
#endif
#ifndef DW_MPA_CHUNK_TX
#define DW_MPA_CHUNK_TX 8192u
#endif

/* Writes image octets [r, e) of im at o (o: where octet r goes). */
static void img_write(const dw_mpa_img *im, uint8_t *o, uint32_t r, uint32_t e)
{
    uint32_t u0 = im->hdr_off + 2; /* the first ULPDU octet */
    while (r < e && r < u0) { /* a leading marker is zero; the length */
        *o++ = r < im->hdr_off ? 0 : r == im->hdr_off ? (uint8_t)(im->len >> 8)
                                                       : (uint8_t)im->len;
        r++;
    }
    if (r >= e)
        return;
    /* markers before r: at im->mark + 512 k; ULPDU octets before r */
    uint32_t m = im->mark, nm = 0; /* r and markers are on dwords */
    if (m < r) {
        nm = (r - m - 1) / DW_MPA_MARKER_INTERVAL + 1;
        m += nm * DW_MPA_MARKER_INTERVAL;
    }
    uint32_t got = r - u0 - 4 * nm; /* beyond len: in the PAD */
    while (r < e) {
        if (r == m) {
            o[0] = o[1] = 0;
            dw_put_be16(o + 2, (uint16_t)(m - im->ptr_sub));
            o += 4, r += 4;
            m += DW_MPA_MARKER_INTERVAL;
            continue;
        }
        uint32_t take = (m < e ? m : e) - r;
        if (got < im->len) {
            take = take < im->len - got ? take : im->len - got;
            uint32_t h = got < im->hlen ? im->hlen - got : 0;
            h = h < take ? h : take;
            if (h)
                memcpy(o, im->hdr + got, h);
            if (take > h)
                memcpy(o + h, im->ulpdu + got + h, take - h);
            got += take;
        } else {
            memset(o, 0, take); /* PAD (MPA 6) */
        }
        o += take, r += take;
    }
}

uint32_t dw_mpa_chunk_tx_range(const dw_mpa_img *im, uint8_t *out, uint32_t r,
                               uint32_t end, uint32_t crc)
{
    uint8_t stage[DW_MPA_CHUNK_TX];
    while (r < end) {
        uint32_t e = end - r > DW_MPA_CHUNK_TX ? r + DW_MPA_CHUNK_TX : end;
        uint8_t *o = out ? out + r : stage;
        img_write(im, o, r, e);
        crc = dw_crc32c(crc, o, e - r);
        r = e;
    }
    return crc;
}

uint32_t dw_mpa_chunk_tx(const dw_mpa_img *im, uint8_t *out)
{
    return dw_mpa_chunk_tx_range(im, out, 0, im->crc_off, 0);
}

/* Copies the ULPDU octets among image octets [r, e) of wire to dst;
 * *got: ULPDU octets already copied, *m: the next marker. */
static void strip(const dw_mpa_img *im, const uint8_t *wire, uint8_t *dst,
                  uint32_t r, uint32_t e, uint32_t *got, uint32_t *m)
{
    while (r < e && *got < im->len) {
        if (r == *m) {
            r += 4;
            *m += DW_MPA_MARKER_INTERVAL;
            continue;
        }
        uint32_t take = (*m < e ? *m : e) - r;
        take = take < im->len - *got ? take : im->len - *got;
        memcpy(dst + *got, wire + r, take);
        *got += take, r += take;
    }
}

uint32_t dw_mpa_chunk_rx(const dw_mpa_img *im, const uint8_t *wire,
                         uint8_t *dst)
{
    uint32_t crc = 0, got = 0, m = im->mark;
    uint32_t r = im->hdr_off + 2; /* copied up to here */
    for (uint32_t c = 0; c < im->crc_off;) {
        uint32_t e = im->crc_off - c > DW_MPA_CHUNK_RX ? c + DW_MPA_CHUNK_RX
                                                       : im->crc_off;
        crc = dw_crc32c(crc, wire + c, e - c);
        if (e > r) {
            strip(im, wire, dst, r, e, &got, &m);
            r = e;
        }
        c = e;
    }
    return crc;
}

uint32_t dw_mpa_chunk_rx_run(const uint8_t *in, uint8_t *dst, size_t j,
                             uint32_t reg)
{
    const size_t per = DW_MPA_CHUNK_RX / DW_MPA_MARKER_INTERVAL;
    for (size_t k = 0; k < j; k += per) {
        size_t n = j - k < per ? j - k : per;
        reg = ~dw_crc32c(~reg, in + 512 * k, 512 * n);
        for (size_t i = k; i < k + n; i++)
            memcpy(dst + 508 * i, in + 512 * i + 4, 508);
    }
    return reg;
}

void dw_mpa_iov_periods_sw(struct iovec *v, uint8_t *o, const uint8_t *pu,
                           uint32_t n, uint32_t ptr)
{
    for (uint32_t i = 0; i < n; i++, v += 2, o += 4, pu += 508, ptr += 512) {
        dw_put_be32(o, ptr & 0xffffu); /* MPA 7.1: reserved 0, FPDUPTR */
        v[0] = (struct iovec){o, 4};
        v[1] = (struct iovec){(void *)(uintptr_t)pu, 508};
    }
}

void dw_mpa_iov_pieces_sw(struct iovec *v, const uint8_t *m, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++, m += 512)
        v[i] = (struct iovec){(void *)(uintptr_t)(m + 4), 508};
}

int dw_mpa_markers_bad_sw(const uint8_t *m, uint32_t n, uint32_t a, uint32_t b)
{
    int bad = 0;
    for (uint32_t i = 0; i < n; i++, m += 512, a += 512, b += 512) {
        uint32_t p = (uint32_t)(m[2] << 8 | (m[3] & 0xfcu));
        bad |= p != (a & 0xffffu) && p != (b & 0xffffu);
    }
    return bad;
}
