/* SPDX-License-Identifier: MIT */
/* No one-pass MPA CRC kernels on this architecture (lib/mpa/mpa_crc.h). */
#include "mpa/mpa_crc.h"
#include "mpa/mpa_short.h"

const dw_mpa_crc_ops *dw_mpa_crc_fast(void)
{
    return NULL;
}

uint32_t dw_mpa_crc_small(const dw_mpa_img *im)
{
    (void)im; /* never called: dw_mpa_crc_fast() gives no kernels here */
    return 0;
}

uint32_t dw_mpa_crc_plain(const dw_mpa_img *im)
{
    (void)im; /* never called, as above */
    return 0;
}

uint32_t dw_mpa_crc_short(const uint8_t *u, uint32_t len, uint32_t lead,
                          uint32_t g, uint32_t mk, uint32_t end_mk,
                          int has_end_mk)
{
    (void)u, (void)len, (void)lead, (void)g, (void)mk, (void)end_mk;
    (void)has_end_mk; /* never called, as above */
    return 0;
}

void dw_mpa_iov_periods(struct iovec *v, uint8_t *o, const uint8_t *pu,
                        uint32_t n, uint32_t ptr)
{
    dw_mpa_iov_periods_sw(v, o, pu, n, ptr);
}

void dw_mpa_iov_pieces(struct iovec *v, const uint8_t *m, uint32_t n)
{
    dw_mpa_iov_pieces_sw(v, m, n);
}

int dw_mpa_markers_bad(const uint8_t *m, uint32_t n, uint32_t a, uint32_t b)
{
    return dw_mpa_markers_bad_sw(m, n, a, b);
}

ssize_t dw_mpa_tx_short(dw_mpa_tx *tx, const uint8_t *u, size_t len,
                        struct iovec *iov, size_t iovcap, dw_mpa_fpdu_info *info)
{
    return dw_mpa_tx_frame_gen(tx, u, len, iov, iovcap, info); /* no crc32 here */
}

int dw_mpa_crc_hw(void)
{
    return 0;
}

uint32_t dw_mpa_crc_wire(const uint8_t *p, size_t n)
{
    (void)p, (void)n; /* never called: dw_mpa_crc_hw() is 0 here */
    return 0;
}
