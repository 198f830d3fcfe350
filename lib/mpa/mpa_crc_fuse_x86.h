/* SPDX-License-Identifier: MIT */
/*
 * Internal: the middle of an FPDU image in the one-pass MPA kernel
 * (lib/mpa_crc_x86.c), by whole marker periods (MPA 7.1: a marker every
 * 512 octets), with or without crc32 chains beside the folding
 * (lib/mpa_crc_fuse_x86.c). AVX-512 VPCLMULQDQ only.
 */
#ifndef DW_LIB_MPA_CRC_FUSE_X86_H
#define DW_LIB_MPA_CRC_FUSE_X86_H

#include <immintrin.h>
#include <stdint.h>

#include "mpa/mpa_crc.h"

/* crc32 chains beside the folding of whole periods (one 64-octet vector
 * each a period), and the image octets a step of both takes: on Zen 5
 * four for the sender (the crc32 unit's 32 a period match the folds)
 * and three for the receiver (its copies' stores share the step). */
#ifndef DW_MPA_FZ_NCH_TX
#define DW_MPA_FZ_NCH_TX 4
#endif
#ifndef DW_MPA_FZ_NCH_RX
#define DW_MPA_FZ_NCH_RX 3
#endif
#define DW_MPA_FZ_STEP(n) (512 + 64 * (size_t)(n))

/* A walk over an image, stopped at a 64-octet vector that holds a marker. */
typedef struct dw_mpa_fz {
    __m512i x[4];      /* the fold accumulators, oldest first */
    int64_t r;         /* image offset of the next vector */
    int64_t m;         /* its marker: r <= m < r + 64 */
    uintptr_t u;       /* TX: ULPDU source of its lane 0, RX: destination,
                        * as if no marker came before in it */
    uint32_t pending;  /* xored into the first vector's first dword; out:
                        * the same for the next vector */
} dw_mpa_fz;

/*
 * Folds jv periods of 512 octets from s->r (TX: built from the ULPDU with
 * the markers set in; RX: read from wire, the ULPDU octets stored at
 * s->u without the markers). With chains (jv a multiple of 8), the
 * 3 x 64 jv octets after them go through three crc32 chains meanwhile;
 * their CRC is left in s->pending and the accumulators are moved past
 * them. All of it lies inside the ULPDU's octets, and a vector follows.
 * Returns with s at the next vector (a marker vector after chains).
 */
void dw_mpa_fz_tx(dw_mpa_fz *s, const dw_mpa_img *im, size_t jv, int chains);
void dw_mpa_fz_rx(dw_mpa_fz *s, const dw_mpa_img *im, const uint8_t *wire,
                  size_t jv, int chains);

/*
 * RX of an FPDU that spans reads: j whole periods at in, starting at a
 * marker, all inside the ULPDU's octets. reg: the raw CRC register before
 * them; returns it after them. Their ULPDU octets go to dst.
 */
uint32_t dw_mpa_fz_rx_run(const uint8_t *in, uint8_t *dst, size_t j,
                          uint32_t reg);

#endif
