/* SPDX-License-Identifier: MIT */
/* The plugin's fields (ddpwire.*) and what a frame shows (ddw.h records). */
#include "ddw_fields.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const value_string opcode_vals[] = {
    {0, "RDMA Write"}, {1, "RDMA Read Request"}, {2, "RDMA Read Response"}, {3, "Send"},
    {4, "Send with Invalidate"}, {5, "Send with Solicited Event"},
    {6, "Send with Solicited Event and Invalidate"}, {7, "Terminate"}, {0, NULL}};

#define F(id, name, abbrev, type, disp, strs, blurb) \
    {&ddw_hf.id, {name, "ddpwire." abbrev, type, disp, strs, 0, blurb, HFILL}}

static hf_register_info hf[] = {
    F(conn, "Connection", "conn", FT_UINT64, BASE_DEC, NULL, "The connection's number (as dump's flow)"),
    F(dir, "Direction", "dir", FT_STRING, BASE_NONE, NULL, "c2s or s2c"),
    F(framing, "Framing", "framing", FT_STRING, BASE_NONE, NULL, "mpa, ift, tcp or unknown"),
    F(mode, "Mode", "mode", FT_STRING, BASE_NONE, NULL, "MPA markers and CRC, start-up"),
    F(error, "Error", "error", FT_STRING, BASE_NONE, NULL, "An error dump reports (its kind)"),
    F(error_text, "Words", "error.text", FT_STRING, BASE_NONE, NULL, "The error as dump words it"),
    F(verdict, "Verdict", "error.verdict", FT_STRING, BASE_NONE, NULL,
      "protocol error, sender rule, or incomplete capture"),
    F(event, "Event", "event", FT_STRING, BASE_NONE, NULL, "A milestone or information"),
    F(late, "Found now for frame", "late_frame", FT_FRAMENUM, BASE_NONE, NULL,
      "A verdict about an earlier frame, found at this one"),
    F(startup, "Start-up frame", "startup", FT_STRING, BASE_NONE, NULL, NULL),
    F(tcpopt, "TCP RDMA option", "tcpopt", FT_STRING, BASE_NONE, NULL, NULL),
    F(ipoib, "IPoIB", "ipoib", FT_STRING, BASE_NONE, NULL, NULL),
    F(fpdu, "FPDU", "fpdu", FT_UINT64, BASE_DEC, NULL, "The FPDU's index in its direction"),
    F(fpdu_role, "In this frame", "fpdu.role", FT_STRING, BASE_NONE, NULL, NULL),
    F(fpdu_pos, "MPA position", "fpdu.pos", FT_UINT64, BASE_DEC, NULL, NULL),
    F(fpdu_offset, "Stream offset", "fpdu.offset", FT_UINT64, BASE_DEC, NULL, NULL),
    F(fpdu_seq, "Sequence number", "fpdu.seq", FT_UINT32, BASE_DEC, NULL, NULL),
    F(fpdu_ulen, "ULPDU_Length", "fpdu.ulpdu_length", FT_UINT16, BASE_DEC, NULL, NULL),
    F(fpdu_pad, "Pad", "fpdu.pad", FT_UINT8, BASE_DEC, NULL, NULL),
    F(fpdu_len, "Length on the wire", "fpdu.length", FT_UINT32, BASE_DEC, NULL, NULL),
    F(fpdu_crc, "CRC", "fpdu.crc", FT_STRING, BASE_NONE, NULL, "good, bad, off or missing"),
    F(fpdu_crc_ok, "CRC good", "fpdu.crc_ok", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(fpdu_crc_wire, "CRC sent", "fpdu.crc_wire", FT_UINT32, BASE_HEX, NULL, NULL),
    F(fpdu_crc_calc, "CRC computed", "fpdu.crc_calc", FT_UINT32, BASE_HEX, NULL, NULL),
    F(fpdu_first, "First frame", "fpdu.first_frame", FT_FRAMENUM, BASE_NONE, NULL, NULL),
    F(fpdu_last, "Last frame", "fpdu.last_frame", FT_FRAMENUM, BASE_NONE, NULL, NULL),
    F(fpdu_segments, "Segments", "fpdu.segments", FT_UINT32, BASE_DEC, NULL, NULL),
    F(fpdu_aligned, "Aligned (MPA 7.3)", "fpdu.aligned", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(fpdu_packed, "Packed", "fpdu.packed", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(fpdu_resync, "Found again after a loss", "fpdu.resync", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(fpdu_markers, "Markers", "fpdu.markers", FT_UINT16, BASE_DEC, NULL, NULL),
    F(marker, "Marker", "marker", FT_UINT64, BASE_DEC, NULL, "A marker's MPA position"),
    F(marker_fpduptr, "FPDUPTR", "marker.fpduptr", FT_UINT16, BASE_DEC, NULL, NULL),
    F(marker_expected, "FPDUPTR expected", "marker.expected", FT_UINT16, BASE_DEC, NULL, NULL),
    F(marker_reserved, "RESERVED", "marker.reserved", FT_UINT16, BASE_HEX, NULL, NULL),
    F(marker_ok, "FPDUPTR right", "marker.ok", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(ddp, "DDP/RDMAP", "ddp", FT_NONE, BASE_NONE, NULL, NULL),
    F(rdmap_opcode, "RDMAP opcode", "rdmap.opcode", FT_UINT8, BASE_DEC, VALS(opcode_vals), NULL),
    F(ddp_tagged, "Tagged", "ddp.tagged", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(ddp_last, "Last", "ddp.last", FT_BOOLEAN, BASE_NONE, NULL, NULL),
    F(ddp_qn, "Queue", "ddp.qn", FT_UINT32, BASE_DEC, NULL, NULL),
    F(ddp_msn, "MSN", "ddp.msn", FT_UINT32, BASE_DEC, NULL, NULL),
    F(ddp_mo, "MO", "ddp.mo", FT_UINT32, BASE_DEC, NULL, NULL),
    F(ddp_stag, "STag", "ddp.stag", FT_UINT32, BASE_HEX, NULL, NULL),
    F(ddp_to, "Tagged offset", "ddp.to", FT_UINT64, BASE_HEX, NULL, NULL),
    F(ddp_len, "Payload length", "ddp.len", FT_UINT32, BASE_DEC, NULL, NULL),
    F(ddp_inv_stag, "Invalidate STag", "ddp.inv_stag", FT_UINT32, BASE_HEX, NULL, NULL),
    F(rr_sink_stag, "Data sink STag", "rdmap.sink_stag", FT_UINT32, BASE_HEX, NULL, NULL),
    F(rr_sink_to, "Data sink TO", "rdmap.sink_to", FT_UINT64, BASE_HEX, NULL, NULL),
    F(rr_size, "Read size", "rdmap.read_size", FT_UINT32, BASE_DEC, NULL, NULL),
    F(rr_src_stag, "Data source STag", "rdmap.src_stag", FT_UINT32, BASE_HEX, NULL, NULL),
    F(rr_src_to, "Data source TO", "rdmap.src_to", FT_UINT64, BASE_HEX, NULL, NULL),
    F(ift, "IFT frame", "ift", FT_UINT64, BASE_DEC, NULL, "The IFT frame's index"),
    F(ift_role, "In this frame", "ift.role", FT_STRING, BASE_NONE, NULL, NULL),
    F(ift_offset, "Stream offset", "ift.offset", FT_UINT64, BASE_DEC, NULL, NULL),
    F(ift_seq, "Sequence number", "ift.seq", FT_UINT32, BASE_DEC, NULL, NULL),
    F(ift_hsize, "Header size", "ift.header_size", FT_UINT16, BASE_DEC, NULL, NULL),
    F(ift_psize, "Payload size", "ift.payload_size", FT_UINT16, BASE_DEC, NULL, NULL),
    F(ift_hcrc, "Header CRC", "ift.header_crc", FT_STRING, BASE_NONE, NULL, NULL),
    F(ift_pcrc, "Payload CRC", "ift.payload_crc", FT_STRING, BASE_NONE, NULL, NULL),
    F(ift_first, "First frame", "ift.first_frame", FT_FRAMENUM, BASE_NONE, NULL, NULL),
    F(ift_last, "Last frame", "ift.last_frame", FT_FRAMENUM, BASE_NONE, NULL, NULL),
    F(sum, "Connection summary", "summary", FT_UINT64, BASE_DEC, NULL, "On a connection's last frame"),
    F(sum_dir, "Direction", "summary.dir", FT_STRING, BASE_NONE, NULL, NULL),
    F(sum_packets, "Packets", "summary.packets", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_fpdus, "FPDUs", "summary.fpdus", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_crc_bad, "CRC errors", "summary.crc_errors", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_markers, "Markers", "summary.markers", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_marker_errors, "Marker errors", "summary.marker_errors", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_ift_frames, "IFT frames", "summary.ift_frames", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_ddp_messages, "DDP/RDMAP messages", "summary.ddp_messages", FT_UINT64, BASE_DEC, NULL, NULL),
    F(sum_ddp_violations, "DDP/RDMAP violations", "summary.ddp_violations", FT_UINT64, BASE_DEC,
      NULL, NULL),
    F(sum_protocol_errors, "Protocol errors", "summary.protocol_errors", FT_UINT64, BASE_DEC, NULL,
      NULL),
    F(sum_incomplete, "Incomplete", "summary.incomplete", FT_UINT64, BASE_DEC, NULL,
      "Problems of the capture (gaps, cuts)"),
    F(sum_text, "Detail", "summary.text", FT_STRING, BASE_NONE, NULL, NULL),
};

#define E(id, name, group, sev, text) {&ddw_ei.id, {"ddpwire.expert." name, group, sev, text, EXPFILL}}

static ei_register_info ei[] = {
    E(error, "error", PI_PROTOCOL, PI_ERROR, "A protocol error (MPA, IFT, TCP RDMA option, IPoIB)"),
    E(crc, "crc", PI_CHECKSUM, PI_ERROR, "MPA CRC mismatch (MPA error 2)"),
    E(violation, "sender_rule", PI_PROTOCOL, PI_WARN,
      "The peer broke a sender rule; the framing is intact"),
    E(incomplete, "incomplete", PI_SEQUENCE, PI_WARN, "The capture lacks octets (gap, cut)"),
    E(ddp, "ddp", PI_PROTOCOL, PI_ERROR, "A DDP/RDMAP stream rule broken"),
    E(prefs, "prefs", PI_UNDECODED, PI_WARN, "A ddpwire preference could not be used"),
    E(nomem, "nomem", PI_UNDECODED, PI_ERROR, "ddpwire ran out of memory: not everything was checked"),
};

void ddw_register_fields(int proto)
{
    static gint *etts[] = {&ddw_ett.top, &ddw_ett.conn, &ddw_ett.fpdu, &ddw_ett.marker,
                           &ddw_ett.ddp, &ddw_ett.ift, &ddw_ett.error, &ddw_ett.sum,
                           &ddw_ett.sum_dir};
    memset(&ddw_hf, 0xff, sizeof ddw_hf); /* every id -1 until registered */
    memset(&ddw_ett, 0xff, sizeof ddw_ett);
    proto_register_field_array(proto, hf, array_length(hf));
    proto_register_subtree_array(etts, array_length(etts));
    expert_register_field_array(expert_register_protocol(proto), ei, array_length(ei));
}

static const char *dir_name(int dir)
{
    return dir == DW_FLOW_C2S ? "c2s" : "s2c";
}

static void addr_str(char *buf, size_t cap, const ddw_conn *c, int side)
{
    char ip[INET6_ADDRSTRLEN];
    inet_ntop(c->ip_version == 4 ? AF_INET : AF_INET6, c->addr[side], ip, sizeof ip);
    snprintf(buf, cap, c->ip_version == 4 ? "%s:%u" : "[%s]:%u", ip, (unsigned)c->port[side]);
}

static void mode_str(char *buf, size_t cap, const ddw_conn *c, int k)
{
    const char *fr = dw_dissect_framing_name(c->framing[k]);
    if (c->framing[k] != DW_DISSECT_FOUND_MPA) {
        snprintf(buf, cap, "%s", fr);
        return;
    }
    snprintf(buf, cap, "mpa, %s, %s%s", c->markers[k] > 0 ? "markers" : c->markers[k] == 0 ? "no markers" : "markers unknown",
             c->crc[k] > 0 ? "CRC" : c->crc[k] == 0 ? "no CRC" : "CRC unknown",
             c->startup[k] ? ", RFC 5044 start-up" : "");
}

static void show_conn(proto_tree *t, tvbuff_t *tvb, const ddw_conn *c, int dir)
{
    char a[64], b[64], m[96];
    addr_str(a, sizeof a, c, dir);
    addr_str(b, sizeof b, c, !dir);
    mode_str(m, sizeof m, c, dir);
    proto_item *ci = proto_tree_add_uint64_format_value(t, ddw_hf.conn, tvb, 0, 0, c->id,
                                                        "%" PRIu64 " %s, %s -> %s: %s", c->id,
                                                        dir_name(dir), a, b, m);
    proto_tree *ct = proto_item_add_subtree(ci, ddw_ett.conn);
    proto_tree_add_string(ct, ddw_hf.dir, tvb, 0, 0, dir_name(dir));
    proto_tree_add_string(ct, ddw_hf.framing, tvb, 0, 0, dw_dissect_framing_name(c->framing[dir]));
    proto_tree_add_string(ct, ddw_hf.mode, tvb, 0, 0, m);
}

static void show_ddp(proto_tree *t, tvbuff_t *tvb, const ddw_ddp *d)
{
    if (!d->present)
        return;
    proto_item *di = proto_tree_add_item(t, ddw_hf.ddp, tvb, 0, 0, ENC_NA);
    proto_item_append_text(di, ": %s%s", val_to_str_const(d->opcode, opcode_vals, "opcode?"),
                           d->last ? ", last" : "");
    proto_tree *dt = proto_item_add_subtree(di, ddw_ett.ddp);
    proto_tree_add_uint(dt, ddw_hf.rdmap_opcode, tvb, 0, 0, d->opcode);
    proto_tree_add_boolean(dt, ddw_hf.ddp_tagged, tvb, 0, 0, d->tagged);
    proto_tree_add_boolean(dt, ddw_hf.ddp_last, tvb, 0, 0, d->last);
    if (d->tagged) {
        proto_tree_add_uint(dt, ddw_hf.ddp_stag, tvb, 0, 0, d->stag);
        proto_tree_add_uint64(dt, ddw_hf.ddp_to, tvb, 0, 0, d->to);
    } else {
        proto_tree_add_uint(dt, ddw_hf.ddp_qn, tvb, 0, 0, d->qn);
        proto_tree_add_uint(dt, ddw_hf.ddp_msn, tvb, 0, 0, d->msn);
        proto_tree_add_uint(dt, ddw_hf.ddp_mo, tvb, 0, 0, d->mo);
        if (d->opcode == 4 || d->opcode == 6)
            proto_tree_add_uint(dt, ddw_hf.ddp_inv_stag, tvb, 0, 0, d->inv_stag);
    }
    if (!d->tagged && d->opcode == 1) {
        proto_tree_add_uint(dt, ddw_hf.rr_sink_stag, tvb, 0, 0, d->rr.sink_stag);
        proto_tree_add_uint64(dt, ddw_hf.rr_sink_to, tvb, 0, 0, d->rr.sink_to);
        proto_tree_add_uint(dt, ddw_hf.rr_size, tvb, 0, 0, d->rr.size);
        proto_tree_add_uint(dt, ddw_hf.rr_src_stag, tvb, 0, 0, d->rr.src_stag);
        proto_tree_add_uint64(dt, ddw_hf.rr_src_to, tvb, 0, 0, d->rr.src_to);
    }
    proto_tree_add_uint(dt, ddw_hf.ddp_len, tvb, 0, 0, d->len);
}

static void show_markers(proto_tree *t, tvbuff_t *tvb, const ddw_fpdu *o, uint32_t frame)
{
    for (uint16_t i = 0; i < o->nmk; i++) {
        const ddw_marker *m = &o->mk[i];
        if (m->frame != frame)
            continue;
        proto_item *mi = proto_tree_add_uint64_format_value(
            t, ddw_hf.marker, tvb, 0, 0, m->pos, "at MPA position %" PRIu64 ": FPDUPTR %u, %s",
            m->pos, m->fpduptr, m->ok ? "right" : "WRONG");
        proto_tree *mt = proto_item_add_subtree(mi, ddw_ett.marker);
        proto_tree_add_uint(mt, ddw_hf.marker_fpduptr, tvb, 0, 0, m->fpduptr);
        proto_tree_add_uint(mt, ddw_hf.marker_expected, tvb, 0, 0, m->expected);
        proto_tree_add_uint(mt, ddw_hf.marker_reserved, tvb, 0, 0, m->reserved);
        proto_tree_add_boolean(mt, ddw_hf.marker_ok, tvb, 0, 0, m->ok);
    }
}

static const char *role_name(int role)
{
    static const char *n[] = {"whole", "starts", "ends", "holds markers of it"};
    return n[role & 3];
}

static void show_fpdu(proto_tree *t, tvbuff_t *tvb, const ddw_rec *r, uint32_t frame)
{
    static const char *crc[] = {"good", "bad", "off", "missing"};
    const ddw_fpdu *o = r->u.fpdu;
    const char *cv = crc[o->crc & 3];
    proto_item *fi = proto_tree_add_uint64_format_value(
        t, ddw_hf.fpdu, tvb, 0, 0, o->index, "%" PRIu64 " %s (%s): ULPDU_Length %u, CRC %s%s",
        o->index, dir_name(r->dir), role_name(r->role), o->ulen, cv,
        o->nmk ? (o->bad_mk ? ", markers WRONG" : ", markers right") : "");
    proto_tree *ft = proto_item_add_subtree(fi, ddw_ett.fpdu);
    proto_tree_add_string(ft, ddw_hf.fpdu_role, tvb, 0, 0, role_name(r->role));
    if (r->role != 3) {
        proto_tree_add_uint64(ft, ddw_hf.fpdu_pos, tvb, 0, 0, o->pos);
        proto_tree_add_uint64(ft, ddw_hf.fpdu_offset, tvb, 0, 0, o->offset);
        proto_tree_add_uint(ft, ddw_hf.fpdu_seq, tvb, 0, 0, o->seq);
        proto_tree_add_uint(ft, ddw_hf.fpdu_ulen, tvb, 0, 0, o->ulen);
        proto_tree_add_uint(ft, ddw_hf.fpdu_pad, tvb, 0, 0, o->pad);
        proto_tree_add_uint(ft, ddw_hf.fpdu_len, tvb, 0, 0, o->flen);
        proto_tree_add_string(ft, ddw_hf.fpdu_crc, tvb, 0, 0, cv);
        if (o->crc <= 1) {
            proto_tree_add_boolean(ft, ddw_hf.fpdu_crc_ok, tvb, 0, 0, o->crc == 0);
            proto_tree_add_uint(ft, ddw_hf.fpdu_crc_wire, tvb, 0, 0, o->crc_wire);
            proto_tree_add_uint(ft, ddw_hf.fpdu_crc_calc, tvb, 0, 0, o->crc_calc);
        }
        proto_tree_add_uint(ft, ddw_hf.fpdu_first, tvb, 0, 0, o->first);
        proto_tree_add_uint(ft, ddw_hf.fpdu_last, tvb, 0, 0, o->last);
        proto_tree_add_uint(ft, ddw_hf.fpdu_segments, tvb, 0, 0, o->segments);
        proto_tree_add_boolean(ft, ddw_hf.fpdu_aligned, tvb, 0, 0, o->aligned);
        proto_tree_add_boolean(ft, ddw_hf.fpdu_packed, tvb, 0, 0, o->packed);
        proto_tree_add_boolean(ft, ddw_hf.fpdu_resync, tvb, 0, 0, o->resync);
        proto_tree_add_uint(ft, ddw_hf.fpdu_markers, tvb, 0, 0, o->nmk);
    }
    show_markers(ft, tvb, o, frame);
    if (r->role != 3)
        show_ddp(ft, tvb, &o->ddp);
}

static void show_ift(proto_tree *t, tvbuff_t *tvb, const ddw_rec *r)
{
    static const char *crc[] = {"good", "bad", "missing"};
    const ddw_ift *o = r->u.ift;
    proto_item *fi = proto_tree_add_uint64_format_value(
        t, ddw_hf.ift, tvb, 0, 0, o->index, "%" PRIu64 " %s (%s): payload %u, header CRC %s, payload CRC %s",
        o->index, dir_name(r->dir), role_name(r->role), o->payload_size, crc[o->header_crc % 3],
        crc[o->payload_crc % 3]);
    proto_tree *ft = proto_item_add_subtree(fi, ddw_ett.ift);
    proto_tree_add_string(ft, ddw_hf.ift_role, tvb, 0, 0, role_name(r->role));
    proto_tree_add_uint64(ft, ddw_hf.ift_offset, tvb, 0, 0, o->offset);
    proto_tree_add_uint(ft, ddw_hf.ift_seq, tvb, 0, 0, o->seq);
    proto_tree_add_uint(ft, ddw_hf.ift_hsize, tvb, 0, 0, o->header_size);
    proto_tree_add_uint(ft, ddw_hf.ift_psize, tvb, 0, 0, o->payload_size);
    proto_tree_add_string(ft, ddw_hf.ift_hcrc, tvb, 0, 0, crc[o->header_crc % 3]);
    proto_tree_add_string(ft, ddw_hf.ift_pcrc, tvb, 0, 0, crc[o->payload_crc % 3]);
    proto_tree_add_uint(ft, ddw_hf.ift_first, tvb, 0, 0, o->first);
    proto_tree_add_uint(ft, ddw_hf.ift_last, tvb, 0, 0, o->last);
    show_ddp(ft, tvb, &o->ddp);
}

static expert_field *ei_of(const ddw_event *e)
{
    switch (e->verdict) {
    case DW_DISSECT_VIOLATION:
        return &ddw_ei.violation;
    case DW_DISSECT_INCOMPLETE:
        return &ddw_ei.incomplete;
    default:
        return e->group == DDW_G_CRC ? &ddw_ei.crc
               : e->group == DDW_G_RDMA ? &ddw_ei.ddp
                                        : &ddw_ei.error;
    }
}

static void show_event(proto_tree *t, packet_info *pinfo, tvbuff_t *tvb, const ddw_rec *r)
{
    static const char *verdicts[] = {"information", "protocol error", "sender rule",
                                     "incomplete capture"};
    const ddw_event *e = r->u.ev;
    const char *who = r->conn ? dir_name(r->dir) : "";
    if (e->verdict == DW_DISSECT_INFO) {
        proto_tree_add_string_format_value(t, ddw_hf.event, tvb, 0, 0, e->kind, "%s%s%s", who,
                                           *who ? " " : "", e->text);
        return;
    }
    proto_item *it = proto_tree_add_string_format_value(t, ddw_hf.error, tvb, 0, 0, e->kind,
                                                        "%s%s%s", who, *who ? " " : "", e->text);
    proto_tree *et = proto_item_add_subtree(it, ddw_ett.error);
    proto_tree_add_string(et, ddw_hf.verdict, tvb, 0, 0, verdicts[e->verdict & 3]);
    proto_item_set_hidden(proto_tree_add_string(et, ddw_hf.error_text, tvb, 0, 0, e->text));
    expert_add_info_format(pinfo, it, ei_of(e), "%s", e->text);
}

static void show_dir_sum(proto_tree *t, tvbuff_t *tvb, const ddw_conn *c, int k)
{
    const struct ddw_dir_sum *s = &c->sum[k];
    const dw_mpa_check_stats *m = &s->st.mpa;
    const dw_rdma_check_stats *d = &s->st.rdma;
    char mode[96], text[256];
    mode_str(mode, sizeof mode, c, k);
    proto_item *di = proto_tree_add_string_format_value(
        t, ddw_hf.sum_dir, tvb, 0, 0, dir_name(k), "%s: %s, %" PRIu64 " packets, %" PRIu64
        " protocol errors, %" PRIu64 " incomplete", dir_name(k), mode, s->packets,
        s->protocol_errors, s->incomplete);
    proto_tree *dt = proto_item_add_subtree(di, ddw_ett.sum_dir);
    proto_tree_add_uint64(dt, ddw_hf.sum_packets, tvb, 0, 0, s->packets);
    if (c->framing[k] == DW_DISSECT_FOUND_MPA) {
        proto_tree_add_uint64(dt, ddw_hf.sum_fpdus, tvb, 0, 0, m->fpdus);
        proto_tree_add_uint64(dt, ddw_hf.sum_crc_bad, tvb, 0, 0, m->crc_bad);
        proto_tree_add_uint64(dt, ddw_hf.sum_markers, tvb, 0, 0, m->markers_seen);
        proto_tree_add_uint64(dt, ddw_hf.sum_marker_errors, tvb, 0, 0, m->marker_errors);
        snprintf(text, sizeof text, "%" PRIu64 " ULPDU octets; CRC %" PRIu64 " good, %" PRIu64
                 " bad, %" PRIu64 " unchecked; length errors %" PRIu64 ", pad errors %" PRIu64
                 "; ULPDUs above 64768 %" PRIu64 "; aligned %" PRIu64 ", packed %" PRIu64,
                 m->ulpdu_octets, m->crc_good, m->crc_bad, m->crc_unchecked, m->length_errors,
                 m->pad_errors, m->oversize, m->aligned, m->packed);
        proto_tree_add_string(dt, ddw_hf.sum_text, tvb, 0, 0, text);
    }
    if (c->framing[k] == DW_DISSECT_FOUND_IFT)
        proto_tree_add_uint64(dt, ddw_hf.sum_ift_frames, tvb, 0, 0, s->st.ift.frames);
    if (d->active > 0) {
        proto_tree_add_uint64(dt, ddw_hf.sum_ddp_messages, tvb, 0, 0, d->messages);
        proto_tree_add_uint64(dt, ddw_hf.sum_ddp_violations, tvb, 0, 0, d->violations);
    }
    proto_tree_add_uint64(dt, ddw_hf.sum_protocol_errors, tvb, 0, 0, s->protocol_errors);
    proto_tree_add_uint64(dt, ddw_hf.sum_incomplete, tvb, 0, 0, s->incomplete);
}

static void show_summary(proto_tree *t, tvbuff_t *tvb, const ddw_conn *c)
{
    char a[64], b[64];
    uint64_t pe = c->sum[0].protocol_errors + c->sum[1].protocol_errors;
    uint64_t inc = c->sum[0].incomplete + c->sum[1].incomplete;
    addr_str(a, sizeof a, c, 0);
    addr_str(b, sizeof b, c, 1);
    proto_item *si = proto_tree_add_uint64_format_value(
        t, ddw_hf.sum, tvb, 0, 0, c->id, "connection %" PRIu64 " %s -> %s%s%s: %s", c->id, a, b,
        c->ulp ? ", " : "", c->ulp ? dw_rdma_ulp_name(c->ulp) : "",
        pe ? "PROBLEMS" : inc ? "incomplete" : "ok");
    proto_tree *st = proto_item_add_subtree(si, ddw_ett.sum);
    show_dir_sum(st, tvb, c, 0);
    show_dir_sum(st, tvb, c, 1);
}

void ddw_show_frame(proto_tree *t, proto_item *top, packet_info *pinfo, tvbuff_t *tvb,
                    const ddw_frame *f)
{
    if (f->conn) {
        show_conn(t, tvb, f->conn, f->dir);
        proto_item_append_text(top, ", connection %" PRIu64 " %s", f->conn->id, dir_name(f->dir));
    }
    if (f->errors)
        proto_item_append_text(top, ", %u error%s", f->errors, f->errors == 1 ? "" : "s");
    for (const ddw_rec *r = f->head; r; r = r->next) {
        switch (r->kind) {
        case DDW_FPDU:
            show_fpdu(t, tvb, r, pinfo->num);
            break;
        case DDW_IFT:
            show_ift(t, tvb, r);
            break;
        case DDW_EVENT:
            show_event(t, pinfo, tvb, r);
            break;
        case DDW_STARTUP:
            proto_tree_add_string(t, ddw_hf.startup, tvb, 0, 0, r->u.text);
            break;
        case DDW_TCPOPT:
            proto_tree_add_string(t, ddw_hf.tcpopt, tvb, 0, 0, r->u.text);
            break;
        case DDW_IPOIB:
            proto_tree_add_string(t, ddw_hf.ipoib, tvb, 0, 0, r->u.text);
            break;
        case DDW_SUMMARY:
            show_summary(t, tvb, r->conn);
            break;
        }
    }
}
