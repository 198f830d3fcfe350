/* SPDX-License-Identifier: MIT */
/* The verdict on each event, shared by every front end (dump, the
 * Wireshark plugin) so they name the same packets with the same words. */
#include <ddpwire/dissect.h>

dw_dissect_verdict dw_dissect_mpa_verdict(const dw_mpa_check_event *ev, dw_dissect_severity sev)
{
    switch (ev->kind) {
    case DW_MPA_CHECK_EV_PAD:
    case DW_MPA_CHECK_EV_MARKER_RESERVED:
    case DW_MPA_CHECK_EV_OVERSIZE: /* MPA 5.2, 6.1: sender rules, framing intact */
        return DW_DISSECT_VIOLATION;
    case DW_MPA_CHECK_EV_GAP:
        return DW_DISSECT_INCOMPLETE;
    case DW_MPA_CHECK_EV_TRUNCATED:
        return sev < 0 ? DW_DISSECT_INCOMPLETE : DW_DISSECT_ERROR;
    case DW_MPA_CHECK_EV_LENGTH:
    case DW_MPA_CHECK_EV_STARTUP_BAD:
    case DW_MPA_CHECK_EV_MODE:
        return DW_DISSECT_ERROR;
    default:
        return ev->code != DW_MPA_ERR_NONE ? DW_DISSECT_ERROR : DW_DISSECT_INFO;
    }
}

dw_dissect_verdict dw_dissect_ift_verdict(const dw_ift_check_event *ev, dw_dissect_severity sev)
{
    if (ev->kind == DW_IFT_CHECK_EV_GAP || sev < 0)
        return DW_DISSECT_INCOMPLETE;
    return sev > 0 ? DW_DISSECT_ERROR : DW_DISSECT_INFO;
}

dw_dissect_verdict dw_dissect_reasm_verdict(dw_dissect_severity sev)
{
    return sev > 0 ? DW_DISSECT_ERROR : sev < 0 ? DW_DISSECT_INCOMPLETE : DW_DISSECT_INFO;
}
