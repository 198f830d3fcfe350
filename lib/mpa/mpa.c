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
