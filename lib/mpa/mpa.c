/* SPDX-License-Identifier: MIT */
/* MPA: sizes shared by the sender and the receivers. */
#include <ddpwire/mpa.h>

#include "mpa/mpa_internal.h"

uint32_t dw_mpa_mulpdu(uint32_t emss, int markers)
{
    /* MPA 7.3.1: EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4) */
    uint64_t overhead = 6u + emss % 4u;
    if (markers)
        overhead += 4u * (((uint64_t)emss + 511u) / 512u);
    uint64_t m = emss > overhead ? emss - overhead : 0;
    if (m < DW_MPA_MULPDU_MIN) /* MPA 7.3.1: never below 128 */
        m = DW_MPA_MULPDU_MIN;
    if (m > DW_MPA_ULPDU_MAX) /* MPA 5.2: range 128..64768 */
        m = DW_MPA_ULPDU_MAX;
    return (uint32_t)m;
}

/*
 * An FPDU of exactly E octets (E a multiple of 4) from position pos holds
 * the markers at every multiple of 512 in [pos, pos + E) (MPA 7.1: one
 * at the end position leads the next FPDU), so its content is E - 4m and
 * its ULPDU E - 4m - 6, which needs no PAD (MPA 6) because E - 4m - 4 is
 * a multiple of 4. Where a marker position is the last four octets of
 * [pos, pos + E) it cannot be in this FPDU (it leads the next, 7.1): the
 * same ULPDU then makes an FPDU of E - 4.
 */
uint32_t dw_mpa_fill_len(uint32_t pos, uint32_t emss, int markers)
{
    uint64_t e = emss & ~3u, m = 0, o = pos % DW_MPA_MARKER_INTERVAL;
    if (markers && e)
        m = o ? (o + e - 1) / DW_MPA_MARKER_INTERVAL
              : (e - 1) / DW_MPA_MARKER_INTERVAL + 1;
    uint64_t over = 6u + DW_MPA_MARKER_LEN * m;
    uint64_t u = e > over ? e - over : 0;
    if (u < DW_MPA_MULPDU_MIN) /* MPA 7.3.1-e: a tiny EMSS cannot be filled */
        u = DW_MPA_MULPDU_MIN;
    return u > DW_MPA_ULPDU_MAX ? DW_MPA_ULPDU_MAX : (uint32_t)u; /* MPA 5.2 */
}

size_t dw_mpa_fpdu_len(uint32_t pos, size_t ulpdu_len, int markers)
{
    size_t content = dw_mpa_content_len(ulpdu_len);
    if (!markers)
        return content;
    size_t n = 0;
    uint32_t off = pos % DW_MPA_MARKER_INTERVAL;
    if (off == 0) /* MPA 7.1: marker between FPDUs leads this one */
        n = 1, off = DW_MPA_MARKER_LEN;
    size_t room = DW_MPA_MARKER_INTERVAL - off;
    if (content > room) /* one marker per 508 further content octets */
        n += 1 + (content - room - 1) / (DW_MPA_MARKER_INTERVAL - DW_MPA_MARKER_LEN);
    return content + DW_MPA_MARKER_LEN * n;
}

const char *dw_mpa_strerror(dw_mpa_error code)
{
    switch (code) {
    case DW_MPA_ERR_NONE:
        return "no error";
    case DW_MPA_ERR_CLOSED:
        return "TCP connection closed, terminated or lost";
    case DW_MPA_ERR_CRC:
        return "CRC mismatch";
    case DW_MPA_ERR_MARKER:
        return "marker and ULPDU_Length disagree";
    }
    return "unknown MPA error";
}
