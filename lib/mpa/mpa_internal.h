/* SPDX-License-Identifier: MIT */
/* Internal: MPA layout helpers shared by lib/mpa*.c. */
#ifndef DW_LIB_MPA_INTERNAL_H
#define DW_LIB_MPA_INTERNAL_H

#include <ddpwire/mpa.h>

/* PAD octets after a ULPDU so the FPDU is a multiple of 4 (MPA 6). */
static inline size_t dw_mpa_pad_len(size_t ulpdu_len)
{
    return (4u - (2u + ulpdu_len) % 4u) % 4u;
}

/* FPDU octets without markers: length field, ULPDU, PAD, CRC. */
static inline size_t dw_mpa_content_len(size_t ulpdu_len)
{
    return 2u + ulpdu_len + dw_mpa_pad_len(ulpdu_len) + 4u;
}

/* Is MPA position pos the first octet of a marker? */
static inline int dw_mpa_is_marker_pos(uint64_t pos)
{
    return pos % DW_MPA_MARKER_INTERVAL == 0;
}

/* FPDUPTR of a marker at marker_pos in the FPDU that starts at fpdu_pos
 * (its leading marker, if any) and whose ULPDU_Length is at hdr_pos. */
static inline uint16_t dw_mpa_fpduptr(dw_mpa_ptr_base base, uint32_t marker_pos,
                                      uint32_t fpdu_pos, uint32_t hdr_pos)
{
    return (uint16_t)(marker_pos - (base == DW_MPA_PTR_RFC5044 ? hdr_pos : fpdu_pos));
}

#endif
