/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump: IPoIB frames (link type 242) and the per-flow and final
 * summaries, as text or JSON lines (docs/DUMP.md).
 */
#include <ddpwire/ipoib.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "cli_rec.h"
#include "dump.h"

/* "QPN,RC" under a profile, or "-". */
static void caps_str(char *buf, size_t cap, dw_ipoib_profile p, uint8_t flags)
{
    static const char *names[] = {"QPN", "RC", "UC", "RD"};
    unsigned caps = dw_ipoib_flags_decode(p, flags, dw_ipoib_profile_caps(p));
    size_t n = 0;
    buf[0] = 0;
    for (unsigned b = 0; b < 4; b++)
        if (caps & (1u << b))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "," : "", names[b]);
    if (!n)
        snprintf(buf, cap, "-");
}

/* An IPoIB address: object member name, with its text "NAME_text". */
static void ib_addr_members(cli_rec *r, const char *name, const dw_ipoib_addr *a)
{
    char gid[INET6_ADDRSTRLEN], dr[32], rf[32];
    inet_ntop(AF_INET6, a->gid, gid, sizeof gid);
    caps_str(dr, sizeof dr, DW_IPOIB_PROFILE_DRAFT, a->flags);
    caps_str(rf, sizeof rf, DW_IPOIB_PROFILE_RFC4755, a->flags);
    cli_rec_obj(r, name);
    cli_rec_strf(r, "flags", "0x%02x", (unsigned)a->flags);
    cli_rec_strf(r, "qpn", "0x%06x", (unsigned)a->qpn);
    cli_rec_strf(r, "gid", "%s", gid);
    cli_rec_strf(r, "draft_caps", "%s", dr);
    cli_rec_strf(r, "rfc4755_caps", "%s", rf);
    cli_rec_end(r);
}

#define IB_TEXT(n)                                                                                \
    "flags %{" n ".flags} (draft %{" n ".draft_caps}, RFC 4755 %{" n ".rfc4755_caps}) QPN "       \
    "%{" n ".qpn} GID %{" n ".gid}"

static void ipv4_str(char *buf, size_t cap, uint32_t host_order)
{
    uint32_t be = htonl(host_order);
    inet_ntop(AF_INET, &be, buf, (socklen_t)cap);
}

static void out_arp(dump *P, const dw_dissect_ipoib *ip)
{
    const dw_ipoib_arp *a = &ip->arp;
    char sip[16], tip[16];
    ipv4_str(sip, sizeof sip, a->spa);
    ipv4_str(tip, sizeof tip, a->tpa);
    cli_rec r;
    cli_rec_init(&r, "ipoib");
    cli_rec_u64(&r, "pkt", ip->pkt);
    cli_rec_strf(&r, "ethertype", "0x%04x", (unsigned)ip->hdr.type);
    cli_rec_obj(&r, "arp");
    cli_rec_u64(&r, "op", a->op);
    ib_addr_members(&r, "sender", &a->sha);
    cli_rec_str(&r, "sender_ip", sip);
    ib_addr_members(&r, "target", &a->tha);
    cli_rec_str(&r, "target_ip", tip);
    cli_rec_end(&r);
    if (P->o.json) {
        cli_rec_json(P->out, &r);
        return;
    }
    int req = a->op == DW_IPOIB_ARP_REQUEST;
    cli_rec_textf(&r, "what", "%s %s", req ? "request: who has" : "reply:", a->op == 1 ? tip : sip);
    cli_rec_text(P->out, &r, "pkt %{pkt} IPoIB ARP %{what} is-at ");
    cli_rec_text(P->out, &r, req ? IB_TEXT("arp.target") : IB_TEXT("arp.sender"));
    cli_rec_text(P->out, &r, "; from %{arp.sender_ip} " IB_TEXT("arp.sender") "\n");
}

void out_ipoib(dump *P, const dw_dissect_ipoib *ip)
{
    cli_rec r;
    cli_rec_init(&r, "ipoib");
    cli_rec_u64(&r, "pkt", ip->pkt);
    if (ip->is_arp && !ip->arp_ok) {
        cli_rec_str(&r, "ethertype", "0x0806");
        cli_rec_str(&r, "error", "malformed ARP");
        cli_rec_emit(P->out, P->o.json, &r, "pkt %{pkt} ERROR malformed IPoIB ARP\n");
        return;
    }
    if (ip->is_arp) {
        if (P->o.json || P->o.verbose)
            out_arp(P, ip);
        return;
    }
    if (!P->o.json && !P->o.verbose)
        return;
    cli_rec_strf(&r, "ethertype", "0x%04x", (unsigned)ip->hdr.type);
    if (ip->lt242.grh) {
        cli_rec_bool(&r, "multicast", 1);
        cli_rec_strf(&r, "sqpn", "0x%06x", (unsigned)ip->lt242.sqpn);
        cli_rec_emit(P->out, P->o.json, &r, "pkt %{pkt} IPoIB type %{ethertype} multicast (GRH)\n");
    } else {
        ib_addr_members(&r, "dest", &ip->lt242.dst);
        cli_rec_emit(P->out, P->o.json, &r, "pkt %{pkt} IPoIB type %{ethertype} to " IB_TEXT("dest") "\n");
    }
}

/* ---- flow summaries -------------------------------------------------- */

static double rate(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* Sender rules a peer broke with the framing intact (docs/DUMP.md). */
size_t peer_rules(const dw_mpa_check_stats *ms, peer_rule *out)
{
    const peer_rule all[] = {
        {"ulpdu_above_64768", "sends ULPDUs above 64768 (MPA 5.2)", ms->oversize},
        {"pad_nonzero", "sends non-zero PAD (MPA 6)", ms->pad_errors},
        {"marker_reserved", "sets marker RESERVED bits (MPA 6.1)", ms->marker_reserved}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i].count)
            out[n++] = all[i];
    return n;
}

/* The peer rules broken: JSON's array, and the text's clause. */
static void rules_members(cli_rec *r, const dw_mpa_check_stats *ms, const char *who)
{
    peer_rule pr[3];
    size_t n = peer_rules(ms, pr);
    cli_rec_u64(r, "oversize", ms->oversize);
    cli_rec_u64(r, "marker_reserved", ms->marker_reserved);
    cli_rec_arr(r, "peer_violations");
    for (size_t i = 0; i < n; i++) {
        cli_rec_obj(r, NULL);
        cli_rec_str(r, "rule", pr[i].key);
        cli_rec_u64(r, "count", pr[i].count);
        cli_rec_str(r, "text", pr[i].text);
        cli_rec_end(r);
    }
    cli_rec_end(r);
    char text[512];
    size_t at = 0;
    text[0] = 0;
    for (size_t i = 0; i < n && at < sizeof text; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%s %s (%" PRIu64 " time%s)",
                               i ? "; " : "\n    peer ", i ? "" : who, pr[i].text, pr[i].count,
                               pr[i].count == 1 ? "" : "s");
    cli_rec_textf(r, "rules_text", "%s", text);
}

static void ddp_members(cli_rec *r, const dw_rdma_check_stats *d)
{
    cli_rec_obj(r, "ddp");
    cli_rec_i64(r, "active", d->active);
    cli_rec_u64(r, "ulpdus", d->ulpdus);
    cli_rec_u64(r, "messages", d->messages);
    cli_rec_u64(r, "sends", d->sends);
    cli_rec_u64(r, "sends_invalidate", d->sends_inv);
    cli_rec_u64(r, "writes", d->writes);
    cli_rec_u64(r, "read_requests", d->read_requests);
    cli_rec_u64(r, "read_responses", d->read_responses);
    cli_rec_u64(r, "terminates", d->terminates);
    cli_rec_u64(r, "violations", d->violations);
    cli_rec_u64(r, "reads_answered", d->reads_answered);
    cli_rec_u64(r, "reads_pending", d->reads_pending);
    cli_rec_u64(r, "reads_max_outstanding", d->reads_max_outstanding);
    cli_rec_i64(r, "ird", d->ird);
    cli_rec_i64(r, "ord", d->ord);
    cli_rec_str(r, "ulp", dw_rdma_ulp_name(d->ulp));
    cli_rec_end(r);
}

static void text_pct(cli_rec *r, const char *key, uint64_t a, uint64_t b)
{
    cli_rec_f(r, key, NULL, 100.0 * rate(a, b));
    cli_rec_hide(r);
}

/* The text's members of the MPA and IFT checkers that JSON does not carry. */
static void checker_text_members(cli_rec *r, const dw_mpa_check_stats *ms,
                                 const dw_ift_check_stats *x)
{
    const cli_field_u64 u[] = {
        {"crc_good", ms->crc_good}, {"crc_unchecked", ms->crc_unchecked},
        {"mpa_resyncs", ms->resyncs}, {"ift_payload_octets", x->payload_octets},
        {"ift_header_crc_good", x->header_crc_good}, {"ift_payload_crc_good", x->payload_crc_good},
        {"ift_payload_crc_missing", x->payload_crc_missing}, {"ift_size_errors", x->size_errors},
        {"ift_resyncs", x->resyncs}};
    cli_rec_u64s(r, u, sizeof u / sizeof u[0], 1);
    cli_rec_textf(r, "mpa_modes", "%s%s",
                  ms->markers > 0 ? " markers" : ms->markers == 0 ? " no-markers" : "",
                  ms->crc > 0 ? " crc" : ms->crc == 0 ? " no-crc" : "");
    text_pct(r, "aligned_pct", ms->aligned, ms->fpdus);
    text_pct(r, "packed_pct", ms->seg_packed, ms->seg_with_start);
    text_pct(r, "ift_aligned_pct", x->aligned, x->frames);
    text_pct(r, "ift_packed_pct", x->seg_packed, x->seg_with_start);
    cli_rec_textf(r, "first_error_text", "%s",
                  ms->first_error ? dw_mpa_strerror(ms->first_error)
                  : x->first_error ? dw_ift_strerror(x->first_error) : "");
}

/* One direction: object member "c2s" or "s2c" (who: its address, for the text). */
static void dir_members(cli_rec *r, const dw_dissect_dir *d, const char *who)
{
    dw_dissect_dir_stats st;
    dw_dissect_dir_stats_get(d, &st);
    const dw_reasm_stats rs = st.reasm;
    const dw_mpa_check_stats ms = st.mpa;
    const dw_ift_check_stats x = st.ift;
    cli_rec_obj(r, dump_dir_name(d->dir));
    cli_rec_str(r, "framing", dw_dissect_framing_name(d->framing));
    const cli_field_u64 u[] = {
        {"packets", d->packets}, {"octets", d->octets}, {"fpdus", ms.fpdus},
        {"ulpdu_octets", ms.ulpdu_octets}, {"crc_errors", ms.crc_bad},
        {"marker_errors", ms.marker_errors}, {"markers", ms.markers_seen},
        {"length_errors", ms.length_errors}, {"pad_errors", ms.pad_errors},
        {"aligned", ms.aligned}, {"packed", ms.packed}};
    cli_rec_u64s(r, u, sizeof u / sizeof u[0], 0);
    cli_rec_f(r, "alignment_rate", "%.4f", rate(ms.aligned, ms.fpdus));
    cli_rec_f(r, "packing_rate", "%.4f", rate(ms.seg_packed, ms.seg_with_start));
    const cli_field_u64 v[] = {
        {"ift_frames", x.frames}, {"ift_header_crc_errors", x.header_crc_bad},
        {"ift_payload_crc_errors", x.payload_crc_bad}, {"tcpopts", d->tcpopts},
        {"tcpopt_errors", d->tcpopt_bad}, {"gaps", rs.gaps}, {"gap_octets", rs.gap_octets},
        {"resyncs", ms.resyncs + x.resyncs}, {"retransmits", rs.retransmits},
        {"overlaps", rs.overlaps}, {"mismatches", rs.mismatches},
        {"out_of_order", rs.out_of_order}, {"protocol_errors", d->protocol_errors},
        {"incomplete", d->incomplete}};
    cli_rec_u64s(r, v, sizeof v / sizeof v[0], 0);
    rules_members(r, &ms, who);
    ddp_members(r, &st.rdma);
    if (ms.first_error || x.first_error) {
        cli_rec_obj(r, "first_error");
        cli_rec_i64(r, "code", ms.first_error ? (int)ms.first_error : (int)x.first_error);
        cli_rec_u64(r, "offset", ms.first_error ? ms.first_error_offset : x.first_error_offset);
        cli_rec_u64(r, "pkt", ms.first_error ? ms.first_error_pkt : x.first_error_pkt);
        cli_rec_end(r);
    } else {
        cli_rec_null(r, "first_error");
    }
    checker_text_members(r, &ms, &x);
    cli_rec_textf(r, "dir", "%s", dump_dir_name(d->dir));
    cli_rec_end(r);
}

/* One direction's text, from its members. */
static void text_dir(FILE *f, const cli_rec *r, const dw_dissect_dir *d)
{
    dw_dissect_dir_stats st;
    dw_dissect_dir_stats_get(d, &st);
    const char *in = dump_dir_name(d->dir);
    cli_rec_text_in(f, r, in, "  %{dir}: %{framing}, %{packets} packets, %{octets} octets");
    if (d->framing == DW_DISSECT_FOUND_MPA) {
        cli_rec_text_in(f, r, in,
                        "\n    MPA%{mpa_modes}: %{fpdus} FPDUs, %{ulpdu_octets} ULPDU octets; CRC "
                        "%{crc_good} good, %{crc_errors} bad, %{crc_unchecked} unchecked; markers "
                        "%{markers}, %{marker_errors} wrong; length errors %{length_errors}, pad "
                        "errors %{pad_errors}\n    aligned %{aligned_pct:.1f}%%, packed segments "
                        "%{packed_pct:.1f}%%, resyncs %{mpa_resyncs}%{rules_text}");
        if (st.mpa.first_error)
            cli_rec_text_in(f, r, in, "\n    first error: MPA error %{first_error.code} "
                                      "(%{first_error_text}) at offset %{first_error.offset}, "
                                      "pkt %{first_error.pkt}");
    }
    if (d->framing == DW_DISSECT_FOUND_IFT) {
        cli_rec_text_in(f, r, in,
                        "\n    IFT: %{ift_frames} frames, %{ift_payload_octets} payload octets; "
                        "header CRC %{ift_header_crc_good} good, %{ift_header_crc_errors} bad; "
                        "payload CRC %{ift_payload_crc_good} good, %{ift_payload_crc_errors} "
                        "bad, %{ift_payload_crc_missing} unchecked; size errors "
                        "%{ift_size_errors}\n    aligned %{ift_aligned_pct:.1f}%%, packed "
                        "segments %{ift_packed_pct:.1f}%%, resyncs %{ift_resyncs}");
        if (st.ift.first_error)
            cli_rec_text_in(f, r, in, "\n    first error: IFT error %{first_error.code} "
                                      "(%{first_error_text}) at offset %{first_error.offset}, "
                                      "pkt %{first_error.pkt}");
    }
    const dw_rdma_check_stats *x = &st.rdma;
    if (x->active > 0) {
        cli_rec_text_in(f, r, in,
                        "\n    DDP/RDMAP: %{ddp.messages} messages (%{ddp.sends} Send, "
                        "%{ddp.sends_invalidate} with Invalidate, %{ddp.writes} Write, "
                        "%{ddp.read_requests} Read Request, %{ddp.read_responses} Read Response, "
                        "%{ddp.terminates} Terminate); %{ddp.violations} violations");
        if (x->read_requests)
            cli_rec_text_in(f, r, in, "; reads answered %{ddp.reads_answered}, pending "
                                      "%{ddp.reads_pending}, at most %{ddp.reads_max_outstanding} "
                                      "outstanding");
        if (x->ird >= 0)
            cli_rec_text_in(f, r, in, "; IRD %{ddp.ird} ORD %{ddp.ord}");
        if (x->ulp)
            cli_rec_text_in(f, r, in, "; %{ddp.ulp}");
    }
    if (d->tcpopts)
        cli_rec_text_in(f, r, in, "\n    TCP RDMA options: %{tcpopts}, %{tcpopt_errors} invalid");
    cli_rec_text_in(f, r, in,
                    "\n    TCP: %{gaps} gaps (%{gap_octets} octets), %{retransmits} retransmits, "
                    "%{overlaps} overlaps, %{mismatches} mismatches, %{out_of_order} out of "
                    "order\n");
}

static void addr_str(char *buf, size_t cap, const dw_flow *f, int side)
{
    char ip[INET6_ADDRSTRLEN];
    inet_ntop(f->ip_version == 4 ? AF_INET : AF_INET6, f->addr[side], ip, sizeof ip);
    snprintf(buf, cap, f->ip_version == 4 ? "%s:%u" : "[%s]:%u", ip, (unsigned)f->port[side]);
}

void out_flow(dump *P, const dw_flow *fl)
{
    char c[64], s[64];
    addr_str(c, sizeof c, fl, DW_FLOW_C2S);
    addr_str(s, sizeof s, fl, DW_FLOW_S2C);
    const dw_dissect_dir *a = dw_dissect_flow_dir(fl, 0), *b = dw_dissect_flow_dir(fl, 1);
    int ok = !a->protocol_errors && !b->protocol_errors && !a->incomplete && !b->incomplete;
    dw_dissect_framing fr = a->framing != DW_DISSECT_PLAIN ? a->framing : b->framing;
    if (P->o.quiet && !P->o.json)
        return;
    static cli_rec r; /* large: not on the stack */
    cli_rec_init(&r, "flow");
    cli_rec_u64(&r, "flow", fl->id);
    cli_rec_str(&r, "client", c);
    cli_rec_str(&r, "server", s);
    cli_rec_str(&r, "framing", dw_dissect_framing_name(fr));
    cli_rec_str(&r, "ulp", dw_rdma_ulp_name(dw_dissect_flow_ulp(fl)));
    dir_members(&r, a, c);
    dir_members(&r, b, s);
    cli_rec_bool(&r, "ok", ok);
    if (P->o.json) {
        cli_rec_json(P->out, &r);
        return;
    }
    cli_rec_textf(&r, "verdict", "%s", ok ? "ok" : "PROBLEMS");
    cli_rec_text(P->out, &r, "flow %{flow} %{client} -> %{server} %{framing}: %{verdict}\n");
    text_dir(P->out, &r, a);
    text_dir(P->out, &r, b);
}

const char *dump_verdict(int status)
{
    switch (status) {
    case 0:
        return "all correct";
    case 1:
        return "ERRORS";
    case 3:
        return "capture incomplete";
    case 4:
        return "nothing checked";
    case 5:
        return "could not complete";
    default:
        return "unreadable input";
    }
}

void out_summary(dump *P, int status)
{
    dw_dissect_stats t;
    dw_dissect_stats_get(P->ds, &t);
    cli_rec r;
    cli_rec_init(&r, "summary");
    cli_rec_u64(&r, "packets", t.packets);
    cli_rec_u64(&r, "tcp_packets", t.tcp_packets);
    cli_rec_u64(&r, "flows", t.flows_seen);
    cli_rec_u64(&r, "protocol_errors", t.protocol_errors);
    cli_rec_u64(&r, "incomplete", t.incomplete);
    cli_rec_i64(&r, "exit", status);
    cli_rec_str(&r, "verdict", dump_verdict(status));
    cli_rec_str(&r, "reason", P->why);
    cli_rec_u64(&r, "not_tcp", t.not_tcp);
    cli_rec_hide(&r);
    cli_rec_u64(&r, "unreadable", t.unreadable);
    cli_rec_hide(&r);
    cli_rec_textf(&r, "colon", "%s", P->why[0] ? ": " : "");
    cli_rec_emit(P->out, P->o.json, &r,
                 "%{packets} packets (%{tcp_packets} TCP, %{not_tcp} other, %{unreadable} "
                 "unreadable), %{flows} flows: %{protocol_errors} protocol errors, "
                 "%{incomplete} incomplete -> %{verdict}%{colon}%{reason}\n");
}
