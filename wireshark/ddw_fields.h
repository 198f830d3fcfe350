/* SPDX-License-Identifier: MIT */
/* The plugin's fields, subtrees and expert items, and the tree of a frame. */
#ifndef DDW_FIELDS_H
#define DDW_FIELDS_H

#include "ddw.h"

#include <epan/expert.h>
#include <epan/packet.h>

typedef struct ddw_hf_ids {
    int conn, dir, framing, mode, error, error_text, verdict, event, late, startup, tcpopt, ipoib;
    int fpdu, fpdu_role, fpdu_pos, fpdu_offset, fpdu_seq, fpdu_ulen, fpdu_pad, fpdu_len;
    int fpdu_crc, fpdu_crc_ok, fpdu_crc_wire, fpdu_crc_calc, fpdu_first, fpdu_last;
    int fpdu_segments, fpdu_aligned, fpdu_packed, fpdu_resync, fpdu_markers;
    int marker, marker_fpduptr, marker_expected, marker_reserved, marker_ok;
    int ddp, rdmap_opcode, ddp_tagged, ddp_last, ddp_qn, ddp_msn, ddp_mo, ddp_stag, ddp_to;
    int ddp_len, ddp_inv_stag, rr_sink_stag, rr_sink_to, rr_size, rr_src_stag, rr_src_to;
    int ift, ift_role, ift_offset, ift_seq, ift_hsize, ift_psize, ift_hcrc, ift_pcrc, ift_first, ift_last;
    int sum, sum_dir, sum_packets, sum_fpdus, sum_crc_bad, sum_markers, sum_marker_errors;
    int sum_ift_frames, sum_ddp_messages, sum_ddp_violations, sum_protocol_errors;
    int sum_incomplete, sum_text;
} ddw_hf_ids;

typedef struct ddw_ett_ids {
    gint top, conn, fpdu, marker, ddp, ift, error, sum, sum_dir;
} ddw_ett_ids;

typedef struct ddw_ei_ids {
    expert_field error, crc, violation, incomplete, ddp, prefs, nomem;
} ddw_ei_ids;

extern ddw_hf_ids ddw_hf;
extern ddw_ett_ids ddw_ett;
extern ddw_ei_ids ddw_ei;
extern int ddw_proto;

void ddw_register_fields(int proto);
void ddw_show_frame(proto_tree *t, proto_item *top, packet_info *pinfo, tvbuff_t *tvb,
                    const ddw_frame *f);

#endif
