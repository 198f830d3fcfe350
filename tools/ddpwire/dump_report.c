/*
 * ddpwire dump: IPoIB frames (link type 242) and the per-flow and final
 * summaries, as text or JSON lines (docs/DUMP.md).
 */
#include <ddpwire/ipoib.h>
#include <ddpwire/ift_check.h>

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

static void out_arp(dump *D, const dw_ipoib_arp *a, uint16_t type)
{
    char sip[16], tip[16];
    ipv4_str(sip, sizeof sip, a->spa);
    ipv4_str(tip, sizeof tip, a->tpa);
    if (D->o.json) {
        fprintf(D->out, "{\"type\":\"ipoib\",\"pkt\":%" PRIu64 ",\"ethertype\":\"0x%04x\","
                        "\"arp\":{\"op\":%u,", D->pkt, (unsigned)type, (unsigned)a->op);
        json_ib_addr(D->out, "sender", &a->sha);
        fprintf(D->out, ",\"sender_ip\":\"%s\",", sip);
        json_ib_addr(D->out, "target", &a->tha);
        fprintf(D->out, ",\"target_ip\":\"%s\"}}\n", tip);
        return;
    }
    fprintf(D->out, "pkt %" PRIu64 " IPoIB ARP %s %s is-at ", D->pkt,
            a->op == DW_IPOIB_ARP_REQUEST ? "request: who has" : "reply:", a->op == 1 ? tip : sip);
    text_ib_addr(D->out, a->op == DW_IPOIB_ARP_REQUEST ? &a->tha : &a->sha);
    fprintf(D->out, "; from %s ", sip);
    text_ib_addr(D->out, &a->sha);
    fputc('\n', D->out);
}

void out_ipoib(dump *D, const uint8_t *frame, size_t caplen)
{
    dw_ipoib_lt242 ph;
    dw_ipoib_hdr h;
    if (dw_ipoib_lt242_decode(&ph, frame, caplen) < 0 ||
        dw_ipoib_hdr_decode(&h, frame + DW_IPOIB_LT242_LEN, caplen - DW_IPOIB_LT242_LEN) < 0) {
        D->unreadable++;
        return;
    }
    const uint8_t *p = frame + DW_IPOIB_LT242_LEN + 4;
    size_t n = caplen - DW_IPOIB_LT242_LEN - 4;
    if (h.type == DW_IPOIB_TYPE_ARP) {
        dw_ipoib_arp a;
        if (dw_ipoib_arp_decode(&a, p, n) < 0) {
            D->protocol_errors++;
            if (D->o.json)
                fprintf(D->out, "{\"type\":\"ipoib\",\"pkt\":%" PRIu64 ",\"ethertype\":"
                                "\"0x0806\",\"error\":\"malformed ARP\"}\n", D->pkt);
            else
                fprintf(D->out, "pkt %" PRIu64 " ERROR malformed IPoIB ARP\n", D->pkt);
            return;
        }
        if (D->o.json || D->o.verbose)
            out_arp(D, &a, h.type);
        return;
    }
    if (D->o.json) {
        fprintf(D->out, "{\"type\":\"ipoib\",\"pkt\":%" PRIu64 ",\"ethertype\":\"0x%04x\",",
                D->pkt, (unsigned)h.type);
        if (ph.grh)
            fprintf(D->out, "\"multicast\":true,\"sqpn\":\"0x%06x\"}\n", (unsigned)ph.sqpn);
        else {
            json_ib_addr(D->out, "dest", &ph.dst);
            fputs("}\n", D->out);
        }
    } else if (D->o.verbose) {
        fprintf(D->out, "pkt %" PRIu64 " IPoIB type 0x%04x %s", D->pkt, (unsigned)h.type,
                ph.grh ? "multicast (GRH)" : "to ");
        if (!ph.grh)
            text_ib_addr(D->out, &ph.dst);
        fputc('\n', D->out);
    }
}

/* ---- flow summaries -------------------------------------------------- */

static const char *framing_name(int fr)
{
    static const char *n[] = {"unknown", "mpa", "ift", "tcp"};
    return (unsigned)fr < 4 ? n[fr] : "?";
}

static double rate(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

static void json_dir(FILE *f, const dump_dir *d)
{
    dw_reasm_stats rs;
    dw_mpa_check_stats ms;
    memset(&ms, 0, sizeof ms);
    dw_reasm_stats_get(d->reasm, &rs);
    if (d->mpa && d->framing == FR_MPA)
        dw_mpa_check_stats_get(d->mpa, &ms);
    dw_ift_check_stats x;
    memset(&x, 0, sizeof x);
    if (d->ift && d->framing == FR_IFT)
        dw_ift_check_stats_get(d->ift, &x);
    fprintf(f, "\"%s\":{\"framing\":\"%s\",\"packets\":%" PRIu64 ",\"octets\":%" PRIu64
               ",\"fpdus\":%" PRIu64 ",\"ulpdu_octets\":%" PRIu64 ",\"crc_errors\":%" PRIu64
               ",\"marker_errors\":%" PRIu64 ",\"markers\":%" PRIu64 ",\"length_errors\":%" PRIu64
               ",\"pad_errors\":%" PRIu64 ",\"aligned\":%" PRIu64 ",\"packed\":%" PRIu64
               ",\"alignment_rate\":%.4f,\"packing_rate\":%.4f,\"ift_frames\":%" PRIu64
               ",\"ift_header_crc_errors\":%" PRIu64 ",\"ift_payload_crc_errors\":%" PRIu64
               ",\"tcpopts\":%" PRIu64 ",\"tcpopt_errors\":%" PRIu64 ",\"gaps\":%" PRIu64
               ",\"gap_octets\":%" PRIu64 ",\"resyncs\":%" PRIu64 ",\"retransmits\":%" PRIu64
               ",\"overlaps\":%" PRIu64 ",\"mismatches\":%" PRIu64 ",\"out_of_order\":%" PRIu64
               ",\"protocol_errors\":%" PRIu64 ",\"incomplete\":%" PRIu64 ",\"first_error\":",
            dump_dir_name(d->dir), framing_name(d->framing), d->packets, d->octets, ms.fpdus,
            ms.ulpdu_octets, ms.crc_bad, ms.marker_errors, ms.markers_seen, ms.length_errors,
            ms.pad_errors, ms.aligned, ms.packed, rate(ms.aligned, ms.fpdus),
            rate(ms.seg_packed, ms.seg_with_start), x.frames, x.header_crc_bad,
            x.payload_crc_bad, d->tcpopts, d->tcpopt_bad, rs.gaps, rs.gap_octets,
            ms.resyncs + x.resyncs, rs.retransmits, rs.overlaps, rs.mismatches,
            rs.out_of_order, d->protocol_errors, d->incomplete);
    if (ms.first_error)
        fprintf(f, "{\"code\":%d,\"offset\":%" PRIu64 ",\"pkt\":%" PRIu64 "}}",
                (int)ms.first_error, ms.first_error_offset, ms.first_error_pkt);
    else if (x.first_error)
        fprintf(f, "{\"code\":%d,\"offset\":%" PRIu64 ",\"pkt\":%" PRIu64 "}}",
                (int)x.first_error, x.first_error_offset, x.first_error_pkt);
    else
        fputs("null}", f);
}

static void text_dir(FILE *f, const dump_dir *d)
{
    dw_reasm_stats rs;
    dw_reasm_stats_get(d->reasm, &rs);
    fprintf(f, "  %s: %s, %" PRIu64 " packets, %" PRIu64 " octets", dump_dir_name(d->dir),
            framing_name(d->framing), d->packets, d->octets);
    if (d->mpa && d->framing == FR_MPA) {
        dw_mpa_check_stats ms;
        dw_mpa_check_stats_get(d->mpa, &ms);
        fprintf(f, "\n    MPA%s%s: %" PRIu64 " FPDUs, %" PRIu64 " ULPDU octets; CRC %" PRIu64
                   " good, %" PRIu64 " bad, %" PRIu64 " unchecked; markers %" PRIu64 ", %" PRIu64
                   " wrong; length errors %" PRIu64 ", pad errors %" PRIu64
                   "\n    aligned %.1f%%, packed segments %.1f%%, resyncs %" PRIu64,
                ms.markers > 0 ? " markers" : ms.markers == 0 ? " no-markers" : "",
                ms.crc > 0 ? " crc" : ms.crc == 0 ? " no-crc" : "", ms.fpdus, ms.ulpdu_octets,
                ms.crc_good, ms.crc_bad, ms.crc_unchecked, ms.markers_seen, ms.marker_errors,
                ms.length_errors, ms.pad_errors, 100.0 * rate(ms.aligned, ms.fpdus),
                100.0 * rate(ms.seg_packed, ms.seg_with_start), ms.resyncs);
        if (ms.first_error)
            fprintf(f, "\n    first error: MPA error %d (%s) at offset %" PRIu64 ", pkt %" PRIu64,
                    (int)ms.first_error, dw_mpa_strerror(ms.first_error), ms.first_error_offset,
                    ms.first_error_pkt);
    }
    if (d->framing == FR_IFT && d->ift) {
        dw_ift_check_stats x;
        dw_ift_check_stats_get(d->ift, &x);
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
    if (d->tcpopts)
        fprintf(f, "\n    TCP RDMA options: %" PRIu64 ", %" PRIu64 " invalid", d->tcpopts,
                d->tcpopt_bad);
    fprintf(f, "\n    TCP: %" PRIu64 " gaps (%" PRIu64 " octets), %" PRIu64 " retransmits, %" PRIu64
               " overlaps, %" PRIu64 " mismatches, %" PRIu64 " out of order\n",
            rs.gaps, rs.gap_octets, rs.retransmits, rs.overlaps, rs.mismatches, rs.out_of_order);
}

void out_flow(dump_flow *fl)
{
    dump *D = fl->owner;
    char c[64], s[64];
    dump_addr(c, sizeof c, fl, DUMP_C2S);
    dump_addr(s, sizeof s, fl, DUMP_S2C);
    int ok = !fl->d[0].protocol_errors && !fl->d[1].protocol_errors &&
             !fl->d[0].incomplete && !fl->d[1].incomplete;
    int fr = fl->d[0].framing != FR_PLAIN ? fl->d[0].framing : fl->d[1].framing;
    if (D->o.json) {
        fprintf(D->out, "{\"type\":\"flow\",\"flow\":%" PRIu64 ",\"client\":\"%s\",\"server\":"
                        "\"%s\",\"framing\":\"%s\",", fl->id, c, s, framing_name(fr));
        json_dir(D->out, &fl->d[0]);
        fputc(',', D->out);
        json_dir(D->out, &fl->d[1]);
        fprintf(D->out, ",\"ok\":%s}\n", ok ? "true" : "false");
        return;
    }
    fprintf(D->out, "flow %" PRIu64 " %s -> %s %s: %s\n", fl->id, c, s, framing_name(fr),
            ok ? "ok" : "PROBLEMS");
    text_dir(D->out, &fl->d[0]);
    text_dir(D->out, &fl->d[1]);
}

void out_summary(dump *D, int status)
{
    if (D->o.json) {
        fprintf(D->out, "{\"type\":\"summary\",\"packets\":%" PRIu64 ",\"tcp_packets\":%" PRIu64
                        ",\"flows\":%" PRIu64 ",\"protocol_errors\":%" PRIu64
                        ",\"incomplete\":%" PRIu64 ",\"exit\":%d}\n",
                D->packets, D->tcp_packets, D->flows_seen, D->protocol_errors, D->incomplete,
                status);
        return;
    }
    fprintf(D->out, "%" PRIu64 " packets (%" PRIu64 " TCP, %" PRIu64 " other, %" PRIu64
                    " unreadable), %" PRIu64 " flows: %" PRIu64 " protocol errors, %" PRIu64
                    " incomplete -> %s\n",
            D->packets, D->tcp_packets, D->not_tcp, D->unreadable, D->flows_seen,
            D->protocol_errors, D->incomplete,
            status == 0 ? "all correct" : status == 1 ? "ERRORS" : "capture incomplete");
}
