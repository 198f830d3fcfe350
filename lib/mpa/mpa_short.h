/* SPDX-License-Identifier: MIT */
/*
 * Internal: the sender's and in-order receiver's short-FPDU paths with the
 * crc32 instruction (lib/mpa/mpa_crc_small_x86.c; on other
 * CPUs lib/mpa/mpa_crc_none.c, where they never apply).
 */
#ifndef DW_LIB_MPA_SHORT_H
#define DW_LIB_MPA_SHORT_H

#include <ddpwire/mpa.h>

/* Whether the paths below apply now: the CRC32c implementation in use
 * has the crc32 instruction (a forced portable one turns them off, as
 * tests do). */
int dw_mpa_crc_hw(void);

/* The finished CRC32c of n octets at p, n a multiple of 4 and at most
 * DW_MPA_CRC_WIRE_MAX (an FPDU's image on the wire: the receiver's short
 * FPDUs); only when dw_mpa_crc_hw(). */
#define DW_MPA_CRC_WIRE_MAX 192u
uint32_t dw_mpa_crc_wire(const uint8_t *p, size_t n);

/*
 * A short ULPDU (8 <= len < DW_MPA_CRC_SMALL_MAX), CRC on, framed into
 * iovecs in one straight-line pass with its CRC computed inline: the same
 * iovecs and octets as the general path, dw_mpa_tx_frame_gen(), which it
 * hands the ULPDU to when it does not apply (too few iovecs, or not
 * dw_mpa_crc_hw()). Returns what dw_mpa_tx_frame() does.
 */
ssize_t dw_mpa_tx_short(dw_mpa_tx *tx, const uint8_t *u, size_t len,
                        struct iovec *iov, size_t iovcap, dw_mpa_fpdu_info *info);

/* dw_mpa_tx_frame() without the short path (lib/mpa/mpa_tx.c). */
ssize_t dw_mpa_tx_frame_gen(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                            struct iovec *iov, size_t iovcap, dw_mpa_fpdu_info *info);

#endif
