/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump: IPoIB frames (link type 242) and the per-flow and final
 * summaries, as text or JSON lines (docs/DUMP.md).
 */
#include <ddpwire/ipoib.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

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

static void json_ib_addr(FILE *f, const char *name, const dw_ipoib_addr *a)
{
    char gid[INET6_ADDRSTRLEN], dr[32], rf[32];
    inet_ntop(AF_INET6, a->gid, gid, sizeof gid);
    caps_str(dr, sizeof dr, DW_IPOIB_PROFILE_DRAFT, a->flags);
    caps_str(rf, sizeof rf, DW_IPOIB_PROFILE_RFC4755, a->flags);
    fprintf(f, "\"%s\":{\"flags\":\"0x%02x\",\"qpn\":\"0x%06x\",\"gid\":\"%s\","
               "\"draft_caps\":\"%s\",\"rfc4755_caps\":\"%s\"}",
            name, (unsigned)a->flags, (unsigned)a->qpn, gid, dr, rf);
}

static void text_ib_addr(FILE *f, const dw_ipoib_addr *a)
{
    char gid[INET6_ADDRSTRLEN], dr[32], rf[32];
    inet_ntop(AF_INET6, a->gid, gid, sizeof gid);
    caps_str(dr, sizeof dr, DW_IPOIB_PROFILE_DRAFT, a->flags);
    caps_str(rf, sizeof rf, DW_IPOIB_PROFILE_RFC4755, a->flags);
    fprintf(f, "flags 0x%02x (draft %s, RFC 4755 %s) QPN 0x%06x GID %s", (unsigned)a->flags, dr,
            rf, (unsigned)a->qpn, gid);
}

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
    if (P->o.json) {
        fprintf(P->out, "{\"type\":\"ipoib\",\"pkt\":%" PRIu64 ",\"ethertype\":\"0x%04x\","
                        "\"arp\":{\"op\":%u,", ip->pkt, (unsigned)ip->hdr.type, (unsigned)a->op);
        json_ib_addr(P->out, "sender", &a->sha);
        fprintf(P->out, ",\"sender_ip\":\"%s\",", sip);
        json_ib_addr(P->out, "target", &a->tha);
        fprintf(P->out, ",\"target_ip\":\"%s\"}}\n", tip);
        return;
    }
    fprintf(P->out, "pkt %" PRIu64 " IPoIB ARP %s %s is-at ", ip->pkt,
            a->op == DW_IPOIB_ARP_REQUEST ? "request: who has" : "reply:", a->op == 1 ? tip : sip);
    text_ib_addr(P->out, a->op == DW_IPOIB_ARP_REQUEST ? &a->tha : &a->sha);
    fprintf(P->out, "; from %s ", sip);
    text_ib_addr(P->out, &a->sha);
    fputc('\n', P->out);
}

void out_ipoib(dump *P, const dw_dissect_ipoib *ip)
{
    if (ip->is_arp && !ip->arp_ok) {
        if (P->o.json)
            fprintf(P->out, "{\"type\":\"ipoib\",\"pkt\":%" PRIu64 ",\"ethertype\":"
                            "\"0x0806\",\"error\":\"malformed ARP\"}\n", ip->pkt);
        else
            fprintf(P->out, "pkt %" PRIu64 " ERROR malformed IPoIB ARP\n", ip->pkt);
        return;
    }
    if (ip->is_arp) {
        if (P->o.json || P->o.verbose)
            out_arp(P, ip);
        return;
    }
    if (P->o.json) {
        fprintf(P->out, "{\"type\":\"ipoib\",\"pkt\":%" PRIu64 ",\"ethertype\":\"0x%04x\",",
                ip->pkt, (unsigned)ip->hdr.type);
        if (ip->lt242.grh)
            fprintf(P->out, "\"multicast\":true,\"sqpn\":\"0x%06x\"}\n", (unsigned)ip->lt242.sqpn);
        else {
            json_ib_addr(P->out, "dest", &ip->lt242.dst);
            fputs("}\n", P->out);
        }
    } else if (P->o.verbose) {
        fprintf(P->out, "pkt %" PRIu64 " IPoIB type 0x%04x %s", ip->pkt, (unsigned)ip->hdr.type,
                ip->lt242.grh ? "multicast (GRH)" : "to ");
        if (!ip->lt242.grh)
            text_ib_addr(P->out, &ip->lt242.dst);
        fputc('\n', P->out);
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

static void json_rules(FILE *f, const dw_mpa_check_stats *ms)
{
    peer_rule r[3];
    size_t n = peer_rules(ms, r);
    fprintf(f, ",\"oversize\":%" PRIu64 ",\"marker_reserved\":%" PRIu64 ",\"peer_violations\":[",
            ms->oversize, ms->marker_reserved);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s{\"rule\":\"%s\",\"count\":%" PRIu64 ",\"text\":", i ? "," : "",
                r[i].key, r[i].count);
        out_json_str(f, r[i].text);
        fputc('}', f);
    }
    fputc(']', f);
}

static void text_rules(FILE *f, const dw_mpa_check_stats *ms, const char *who)
{
    peer_rule r[3];
    size_t n = peer_rules(ms, r);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s %s (%" PRIu64 " time%s)", i ? "; " : "\n    peer ", i ? "" : who,
                r[i].text, r[i].count, r[i].count == 1 ? "" : "s");
}

static void json_ddp(FILE *f, const dw_rdma_check_stats *r)
{
    fprintf(f, ",\"ddp\":{\"active\":%d,\"ulpdus\":%" PRIu64 ",\"messages\":%" PRIu64
               ",\"sends\":%" PRIu64 ",\"sends_invalidate\":%" PRIu64 ",\"writes\":%" PRIu64
               ",\"read_requests\":%" PRIu64 ",\"read_responses\":%" PRIu64
               ",\"terminates\":%" PRIu64 ",\"violations\":%" PRIu64 ",\"reads_answered\":%" PRIu64
               ",\"reads_pending\":%" PRIu64 ",\"reads_max_outstanding\":%" PRIu64
               ",\"ird\":%d,\"ord\":%d,\"ulp\":\"%s\"}",
            r->active, r->ulpdus, r->messages, r->sends, r->sends_inv, r->writes,
            r->read_requests, r->read_responses, r->terminates, r->violations, r->reads_answered,
            r->reads_pending, r->reads_max_outstanding, (int)r->ird, (int)r->ord,
            dw_rdma_ulp_name(r->ulp));
}

static void text_ddp(FILE *f, const dw_rdma_check_stats *r)
{
    if (r->active <= 0)
        return;
    fprintf(f, "\n    DDP/RDMAP: %" PRIu64 " messages (%" PRIu64 " Send, %" PRIu64 " with Invalidate, %" PRIu64
               " Write, %" PRIu64 " Read Request, %" PRIu64 " Read Response, %" PRIu64
               " Terminate); %" PRIu64 " violations",
            r->messages, r->sends, r->sends_inv, r->writes, r->read_requests, r->read_responses,
            r->terminates, r->violations);
    if (r->read_requests)
        fprintf(f, "; reads answered %" PRIu64 ", pending %" PRIu64 ", at most %" PRIu64
                   " outstanding",
                r->reads_answered, r->reads_pending, r->reads_max_outstanding);
    if (r->ird >= 0)
        fprintf(f, "; IRD %d ORD %d", (int)r->ird, (int)r->ord);
    if (r->ulp)
        fprintf(f, "; %s", dw_rdma_ulp_name(r->ulp));
}

static void json_dir(FILE *f, const dw_dissect_dir *d)
{
    dw_dissect_dir_stats st;
    dw_dissect_dir_stats_get(d, &st);
    const dw_reasm_stats rs = st.reasm;
    const dw_mpa_check_stats ms = st.mpa;
    const dw_ift_check_stats x = st.ift;
    fprintf(f, "\"%s\":{\"framing\":\"%s\",\"packets\":%" PRIu64 ",\"octets\":%" PRIu64
               ",\"fpdus\":%" PRIu64 ",\"ulpdu_octets\":%" PRIu64 ",\"crc_errors\":%" PRIu64
               ",\"marker_errors\":%" PRIu64 ",\"markers\":%" PRIu64 ",\"length_errors\":%" PRIu64
               ",\"pad_errors\":%" PRIu64 ",\"aligned\":%" PRIu64 ",\"packed\":%" PRIu64
               ",\"alignment_rate\":%.4f,\"packing_rate\":%.4f,\"ift_frames\":%" PRIu64
               ",\"ift_header_crc_errors\":%" PRIu64 ",\"ift_payload_crc_errors\":%" PRIu64
               ",\"tcpopts\":%" PRIu64 ",\"tcpopt_errors\":%" PRIu64 ",\"gaps\":%" PRIu64
               ",\"gap_octets\":%" PRIu64 ",\"resyncs\":%" PRIu64 ",\"retransmits\":%" PRIu64
               ",\"overlaps\":%" PRIu64 ",\"mismatches\":%" PRIu64 ",\"out_of_order\":%" PRIu64
               ",\"protocol_errors\":%" PRIu64 ",\"incomplete\":%" PRIu64,
            dump_dir_name(d->dir), dw_dissect_framing_name(d->framing), d->packets, d->octets,
            ms.fpdus, ms.ulpdu_octets, ms.crc_bad, ms.marker_errors, ms.markers_seen,
            ms.length_errors, ms.pad_errors, ms.aligned, ms.packed, rate(ms.aligned, ms.fpdus),
            rate(ms.seg_packed, ms.seg_with_start), x.frames, x.header_crc_bad,
            x.payload_crc_bad, d->tcpopts, d->tcpopt_bad, rs.gaps, rs.gap_octets,
            ms.resyncs + x.resyncs, rs.retransmits, rs.overlaps, rs.mismatches,
            rs.out_of_order, d->protocol_errors, d->incomplete);
    json_rules(f, &ms);
    json_ddp(f, &st.rdma);
    fputs(",\"first_error\":", f);
    if (ms.first_error)
        fprintf(f, "{\"code\":%d,\"offset\":%" PRIu64 ",\"pkt\":%" PRIu64 "}}",
                (int)ms.first_error, ms.first_error_offset, ms.first_error_pkt);
    else if (x.first_error)
        fprintf(f, "{\"code\":%d,\"offset\":%" PRIu64 ",\"pkt\":%" PRIu64 "}}",
                (int)x.first_error, x.first_error_offset, x.first_error_pkt);
    else
        fputs("null}", f);
}

static void text_dir(FILE *f, const dw_dissect_dir *d, const char *who)
{
    dw_dissect_dir_stats st;
    dw_dissect_dir_stats_get(d, &st);
    const dw_reasm_stats rs = st.reasm;
    fprintf(f, "  %s: %s, %" PRIu64 " packets, %" PRIu64 " octets", dump_dir_name(d->dir),
            dw_dissect_framing_name(d->framing), d->packets, d->octets);
    if (d->framing == DW_DISSECT_FOUND_MPA) {
        const dw_mpa_check_stats ms = st.mpa;
        fprintf(f, "\n    MPA%s%s: %" PRIu64 " FPDUs, %" PRIu64 " ULPDU octets; CRC %" PRIu64
                   " good, %" PRIu64 " bad, %" PRIu64 " unchecked; markers %" PRIu64 ", %" PRIu64
                   " wrong; length errors %" PRIu64 ", pad errors %" PRIu64
                   "\n    aligned %.1f%%, packed segments %.1f%%, resyncs %" PRIu64,
                ms.markers > 0 ? " markers" : ms.markers == 0 ? " no-markers" : "",
                ms.crc > 0 ? " crc" : ms.crc == 0 ? " no-crc" : "", ms.fpdus, ms.ulpdu_octets,
                ms.crc_good, ms.crc_bad, ms.crc_unchecked, ms.markers_seen, ms.marker_errors,
                ms.length_errors, ms.pad_errors, 100.0 * rate(ms.aligned, ms.fpdus),
                100.0 * rate(ms.seg_packed, ms.seg_with_start), ms.resyncs);
        text_rules(f, &ms, who);
        if (ms.first_error)
            fprintf(f, "\n    first error: MPA error %d (%s) at offset %" PRIu64 ", pkt %" PRIu64,
                    (int)ms.first_error, dw_mpa_strerror(ms.first_error), ms.first_error_offset,
                    ms.first_error_pkt);
    }
    if (d->framing == DW_DISSECT_FOUND_IFT) {
        const dw_ift_check_stats x = st.ift;
        fprintf(f, "\n    IFT: %" PRIu64 " frames, %" PRIu64 " payload octets; header CRC %" PRIu64
                   " good, %" PRIu64 " bad; payload CRC %" PRIu64 " good, %" PRIu64 " bad, %" PRIu64
                   " unchecked; size errors %" PRIu64 "\n    aligned %.1f%%, packed segments %.1f%%, "
                   "resyncs %" PRIu64,
                x.frames, x.payload_octets, x.header_crc_good, x.header_crc_bad,
                x.payload_crc_good, x.payload_crc_bad, x.payload_crc_missing, x.size_errors,
                100.0 * rate(x.aligned, x.frames), 100.0 * rate(x.seg_packed, x.seg_with_start),
                x.resyncs);
        if (x.first_error)
            fprintf(f, "\n    first error: IFT error %d (%s) at offset %" PRIu64 ", pkt %" PRIu64,
                    (int)x.first_error, dw_ift_strerror(x.first_error), x.first_error_offset,
                    x.first_error_pkt);
    }
    text_ddp(f, &st.rdma);
    if (d->tcpopts)
        fprintf(f, "\n    TCP RDMA options: %" PRIu64 ", %" PRIu64 " invalid", d->tcpopts,
                d->tcpopt_bad);
    fprintf(f, "\n    TCP: %" PRIu64 " gaps (%" PRIu64 " octets), %" PRIu64 " retransmits, %" PRIu64
               " overlaps, %" PRIu64 " mismatches, %" PRIu64 " out of order\n",
            rs.gaps, rs.gap_octets, rs.retransmits, rs.overlaps, rs.mismatches, rs.out_of_order);
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
    if (P->o.json) {
        fprintf(P->out, "{\"type\":\"flow\",\"flow\":%" PRIu64 ",\"client\":\"%s\",\"server\":"
                        "\"%s\",\"framing\":\"%s\",\"ulp\":\"%s\",", fl->id, c, s,
                dw_dissect_framing_name(fr), dw_rdma_ulp_name(dw_dissect_flow_ulp(fl)));
        json_dir(P->out, a);
        fputc(',', P->out);
        json_dir(P->out, b);
        fprintf(P->out, ",\"ok\":%s}\n", ok ? "true" : "false");
        return;
    }
    fprintf(P->out, "flow %" PRIu64 " %s -> %s %s: %s\n", fl->id, c, s,
            dw_dissect_framing_name(fr), ok ? "ok" : "PROBLEMS");
    text_dir(P->out, a, c);
    text_dir(P->out, b, s);
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
    if (P->o.json) {
        fprintf(P->out, "{\"type\":\"summary\",\"packets\":%" PRIu64 ",\"tcp_packets\":%" PRIu64
                        ",\"flows\":%" PRIu64 ",\"protocol_errors\":%" PRIu64
                        ",\"incomplete\":%" PRIu64 ",\"exit\":%d,\"verdict\":\"%s\",\"reason\":",
                t.packets, t.tcp_packets, t.flows_seen, t.protocol_errors, t.incomplete, status,
                dump_verdict(status));
        out_json_str(P->out, P->why);
        fputs("}\n", P->out);
        return;
    }
    fprintf(P->out, "%" PRIu64 " packets (%" PRIu64 " TCP, %" PRIu64 " other, %" PRIu64
                    " unreadable), %" PRIu64 " flows: %" PRIu64 " protocol errors, %" PRIu64
                    " incomplete -> %s%s%s\n",
            t.packets, t.tcp_packets, t.not_tcp, t.unreadable, t.flows_seen, t.protocol_errors,
            t.incomplete, dump_verdict(status), P->why[0] ? ": " : "", P->why);
}
