/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump: the dissector's events as text (a summary per flow; -v one
 * line per FPDU, frame and event) or JSON lines (docs/DUMP.md). Errors are
 * printed in text mode without -v too, the first MAX_TEXT_ERRORS per
 * direction.
 */
#include <ddpwire/ddp.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_rec.h"
#include "dump.h"

#define MAX_TEXT_ERRORS 20u

/* Per flow: the error lines shown per direction. */
typedef struct dump_app {
    uint64_t printed_errors[2];
} dump_app;

const char *dump_dir_name(int dir)
{
    return dir == DW_FLOW_C2S ? "c2s" : "s2c";
}

static const char *tf(int v)
{
    return v ? "true" : "false";
}

/* The JSON members every per-direction record starts with. */
static void json_head(dump *P, const dw_dissect_dir *d, const char *type)
{
    fprintf(P->out, "{\"type\":\"%s\",\"flow\":%" PRIu64 ",\"dir\":\"%s\"", type,
            d->flow->id, dump_dir_name(d->dir));
}

/* Text lines: "flow 3 c2s ". */
FILE *dump_text_line(dump *P, const dw_dissect_dir *d)
{
    fprintf(P->out, "flow %" PRIu64 " %s ", d->flow->id, dump_dir_name(d->dir));
    return P->out;
}

/* Should an error line be printed in text mode? */
int dump_text_error(dump *P, const dw_dissect_dir *d)
{
    if (P->o.json)
        return 0;
    if (P->o.verbose)
        return 1;
    dump_app *a = dw_dissect_flow_app(d->flow);
    uint64_t n = a ? ++a->printed_errors[d->dir] : 1;
    if (n == MAX_TEXT_ERRORS + 1)
        fprintf(dump_text_line(P, d), "... further errors not shown (-v shows all)\n");
    return n <= MAX_TEXT_ERRORS;
}

static const char *crc_name(dw_mpa_check_crc c)
{
    static const char *n[] = {"good", "bad", "off", "missing"};
    return (unsigned)c < 4 ? n[c] : "?";
}

static const char *op_name(unsigned op)
{
    const char *n = dw_rdmap_opcode_str(op);
    return n ? n : "opcode?";
}

/* One line about a ULPDU the dissector decoded as DDP/RDMAP ("" when not). */
static void ddp_line(char *buf, size_t cap, const dw_rdmap_msg *m)
{
    buf[0] = 0;
    if (!m)
        return;
    const dw_ddp_hdr *h = &m->hdr;
    if (h->tagged)
        snprintf(buf, cap, "%s STag 0x%08x TO 0x%" PRIx64 " len %zu%s", op_name(h->opcode),
                 (unsigned)h->stag, h->to, m->payload_len, h->last ? " last" : "");
    else if (h->opcode == DW_RDMAP_READ_REQ)
        snprintf(buf, cap, "ReadReq MSN %u sink 0x%08x:0x%" PRIx64 " len %u src 0x%08x:0x%" PRIx64,
                 (unsigned)h->msn, (unsigned)m->read_req.sink_stag, m->read_req.sink_to,
                 (unsigned)m->read_req.size, (unsigned)m->read_req.src_stag, m->read_req.src_to);
    else
        snprintf(buf, cap, "%s QN %u MSN %u MO %u len %zu%s", op_name(h->opcode),
                 (unsigned)h->qn, (unsigned)h->msn, (unsigned)h->mo, m->payload_len,
                 h->last ? " last" : "");
    if (!h->tagged && (h->opcode == DW_RDMAP_SEND_INV || h->opcode == DW_RDMAP_SEND_SE_INV)) {
        size_t n = strlen(buf);
        snprintf(buf + n, cap - n, " invalidate 0x%08x", (unsigned)h->inv_stag);
    }
}

static void json_markers(FILE *f, const dw_mpa_check_marker *mk, size_t n)
{
    fputs(",\"markers\":[", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s{\"pos\":%" PRIu64 ",\"seq\":%u,\"pkt\":%" PRIu64 ",\"fpduptr\":%u,"
                   "\"reserved\":%u,\"expected\":%u,\"ok\":%s}",
                i ? "," : "", mk[i].pos, (unsigned)mk[i].seq, mk[i].pkt,
                (unsigned)mk[i].fpduptr, (unsigned)mk[i].reserved, (unsigned)mk[i].expected,
                tf(mk[i].ok));
    fputc(']', f);
}

static void on_fpdu(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_fpdu *fp,
                    const dw_mpa_check_marker *mk, size_t nmk, const dw_rdmap_msg *msg, void *u)
{
    (void)D;
    dump *P = u;
    FILE *f = P->out;
    char ddp[192];
    html_fpdu(P, d, fp->offset, fp->seq, fp->fpdu_len, fp->aligned, mk, nmk);
    if (P->o.quiet)
        return;
    ddp_line(ddp, sizeof ddp, msg);
    if (P->o.json) {
        json_head(P, d, "fpdu");
        fprintf(f, ",\"index\":%" PRIu64 ",\"pos\":%" PRIu64 ",\"offset\":%" PRIu64
                   ",\"seq\":%u,\"ulpdu_len\":%u,\"pad\":%u,\"fpdu_len\":%u,\"crc\":\"%s\","
                   "\"crc_wire\":\"0x%08x\",\"crc_calc\":\"0x%08x\",\"first_pkt\":%" PRIu64
                   ",\"last_pkt\":%" PRIu64 ",\"segments\":%u,\"aligned\":%s,\"packed\":%s,"
                   "\"resync\":%s,\"pad_nonzero\":%s",
                fp->index, fp->pos, fp->offset, (unsigned)fp->seq, (unsigned)fp->ulpdu_len,
                (unsigned)fp->pad, (unsigned)fp->fpdu_len, crc_name(fp->crc),
                (unsigned)fp->crc_wire, (unsigned)fp->crc_calc, fp->first_pkt, fp->last_pkt,
                (unsigned)fp->segments, tf(fp->aligned), tf(fp->packed), tf(fp->resync),
                tf(fp->pad_nonzero));
        json_markers(f, mk, nmk);
        fputs(",\"ddp\":", f);
        cli_json_str(f, ddp);
        fputs("}\n", f);
        return;
    }
    if (!P->o.verbose)
        return;
    fprintf(dump_text_line(P, d),
            "fpdu %" PRIu64 " pos %" PRIu64 " seq %u len %u pad %u wire %u "
            "crc %s markers %u%s%s%s pkts %" PRIu64 "..%" PRIu64 " (%u) %s%s%s\n",
            fp->index, fp->pos, (unsigned)fp->seq, (unsigned)fp->ulpdu_len, (unsigned)fp->pad,
            (unsigned)fp->fpdu_len, crc_name(fp->crc), (unsigned)fp->markers,
            fp->bad_markers ? " (bad)" : "", fp->aligned ? " aligned" : "",
            fp->packed ? " packed" : "", fp->first_pkt, fp->last_pkt, (unsigned)fp->segments,
            fp->resync ? "resync " : "", ddp, fp->pad_nonzero ? " pad-not-zero" : "");
}

/* RFC 6581 IRD/ORD and SMB Direct's, from the private data. */
static void pd_text(char *buf, size_t cap, const dw_mpa_startup *fr, int json)
{
    dw_rdma_pd_info pi;
    size_t n = 0;
    buf[0] = 0;
    if (!dw_rdma_pd_info_get(fr, &pi))
        return;
    const dw_mpa_enh *e = &pi.enh;
    if (pi.enhanced)
        n += (size_t)snprintf(buf + n, cap - n,
                              json ? ",\"enhanced\":{\"ird\":%u,\"ord\":%u,\"p2p\":%s,"
                                     "\"rtr_send\":%s,\"rtr_write\":%s,\"rtr_read\":%s}"
                                   : ", RFC 6581 IRD %u ORD %u%s%s%s%s",
                              e->ird, e->ord, json ? tf(e->p2p) : e->p2p ? " peer-to-peer" : "",
                              json ? tf(e->rtr & DW_MPA_RTR_SEND) : (e->rtr & DW_MPA_RTR_SEND) ? " RTR:Send" : "",
                              json ? tf(e->rtr & DW_MPA_RTR_WRITE) : (e->rtr & DW_MPA_RTR_WRITE) ? " RTR:Write" : "",
                              json ? tf(e->rtr & DW_MPA_RTR_READ) : (e->rtr & DW_MPA_RTR_READ) ? " RTR:Read" : "");
    if (pi.smbd && n < cap)
        snprintf(buf + n, cap - n,
                 json ? ",\"smbd\":{\"ird\":%u,\"ord\":%u,\"host_order\":%s}"
                      : ", SMB Direct IRD %u ORD %u%s",
                 (unsigned)pi.smbd_ird, (unsigned)pi.smbd_ord,
                 json ? tf(pi.smbd_host_order)
                      : pi.smbd_host_order ? " (little-endian words: cifs.ko writes host order)" : "");
}

static void out_startup(dump *P, const dw_dissect_dir *d, const dw_mpa_check_event *ev)
{
    const dw_mpa_startup *fr = ev->frame;
    FILE *f = P->out;
    const char *kind = fr->kind == DW_MPA_STARTUP_REQUEST ? "request" : "reply";
    char pd[256];
    if (P->o.quiet)
        return;
    pd_text(pd, sizeof pd, fr, P->o.json);
    if (P->o.json) {
        json_head(P, d, "startup");
        fprintf(f, ",\"pkt\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"kind\":\"%s\","
                   "\"markers\":%s,\"crc\":%s,\"reject\":%s,\"rev\":%u,\"pd_len\":%u%s}\n",
                ev->pkt, ev->offset, kind, tf(fr->flags & DW_MPA_FLAG_MARKERS),
                tf(fr->flags & DW_MPA_FLAG_CRC), tf(fr->flags & DW_MPA_FLAG_REJECT),
                (unsigned)fr->rev, (unsigned)fr->pd_len, pd);
    } else if (P->o.verbose) {
        fprintf(dump_text_line(P, d),
                "RFC 5044 %s (pkt %" PRIu64 "): M=%d C=%d R=%d rev %u, %u octets "
                "of private data%s\n",
                kind, ev->pkt, !!(fr->flags & DW_MPA_FLAG_MARKERS),
                !!(fr->flags & DW_MPA_FLAG_CRC), !!(fr->flags & DW_MPA_FLAG_REJECT),
                (unsigned)fr->rev, (unsigned)fr->pd_len, pd);
    }
}

/* A generic event: JSON always; text with -v, or when it is an error. */
typedef struct ev_line {
    const char *kind;
    int code;
    uint64_t offset;
    uint32_t seq;
    uint64_t pkt, len;
    const char *detail;
    int reasm; /* a reassembly event */
} ev_line;

/* Appends to b (cap octets, *n used), cut at the end. */
static void app(char *b, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void app(char *b, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (*n < cap) {
        int k = vsnprintf(b + *n, cap - *n, fmt, ap);
        *n += k > 0 ? (size_t)k : 0;
    }
    va_end(ap);
}

/* An event's text line after "flow N dir " (the report shows it too). */
static void ev_text(char *b, size_t cap, const dw_dissect_dir *d, const ev_line *e, int error)
{
    size_t n = 0;
    app(b, cap, &n, "%s%s", error ? "ERROR " : "", e->kind);
    if (e->code)
        app(b, cap, &n, " (%s error %d)", d->framing == DW_DISSECT_FOUND_IFT ? "IFT" : "MPA",
            e->code);
    app(b, cap, &n, " at offset %" PRIu64 " seq %u", e->offset, (unsigned)e->seq);
    if (e->pkt && e->pkt != UINT64_MAX)
        app(b, cap, &n, " pkt %" PRIu64, e->pkt);
    app(b, cap, &n, "%s%s", e->detail && *e->detail ? ": " : "", e->detail ? e->detail : "");
}

static void out_event(dump *P, const dw_dissect_dir *d, const ev_line *e, int error)
{
    FILE *f = P->out;
    char line[1024];
    if (error && e->pkt && e->pkt != UINT64_MAX)
        dump_mark(P, e->pkt);
    if (P->html && (error || e->reasm)) {
        ev_text(line, sizeof line, d, e, error);
        html_event(P, d, e->kind, e->offset, e->seq, e->pkt, error, e->reasm, line);
    }
    if (P->o.quiet)
        return;
    if (P->o.json) {
        json_head(P, d, "event");
        fprintf(f, ",\"kind\":\"%s\",\"code\":%d,\"offset\":%" PRIu64 ",\"seq\":%u,\"pkt\":%" PRIu64
                   ",\"len\":%" PRIu64 ",\"detail\":",
                e->kind, e->code, e->offset, (unsigned)e->seq, e->pkt, e->len);
        cli_json_str(f, e->detail ? e->detail : "");
        fputs("}\n", f);
        return;
    }
    if (error ? !dump_text_error(P, d) : !P->o.verbose)
        return;
    ev_text(line, sizeof line, d, e, error);
    fprintf(dump_text_line(P, d), "%s\n", line);
}

static void on_mpa_event(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_event *ev,
                         dw_dissect_severity sev, void *u)
{
    (void)D;
    dump *P = u;
    if (ev->kind == DW_MPA_CHECK_EV_STARTUP && ev->frame) {
        out_startup(P, d, ev);
        return;
    }
    if (ev->kind == DW_MPA_CHECK_EV_GAP)
        html_gap(P, d, ev->offset, ev->seq, ev->len, ev->pkt);
    int error = dw_dissect_mpa_verdict(ev, sev) != DW_DISSECT_INFO;
    ev_line e = {dw_mpa_check_event_name(ev->kind), (int)ev->code, ev->offset, ev->seq,
                 ev->pkt, ev->len, ev->detail, 0};
    out_event(P, d, &e, error);
}

static void on_reasm_event(dw_dissect *D, const dw_dissect_dir *d, const dw_reasm_event *ev,
                           dw_dissect_severity sev, void *u)
{
    (void)D;
    char detail[96];
    if (ev->kind == DW_REASM_EV_SYN || ev->kind == DW_REASM_EV_FIN)
        return; /* milestones every connection has */
    snprintf(detail, sizeof detail, "segment seq %u, %u octets", (unsigned)ev->seq,
             (unsigned)ev->len);
    ev_line e = {dw_reasm_event_name(ev->kind), 0, ev->offset, ev->seq, ev->pkt, ev->len, detail,
                 1};
    out_event(u, d, &e, dw_dissect_reasm_verdict(sev) != DW_DISSECT_INFO);
}

static void on_gap(dw_dissect *D, const dw_dissect_dir *d, const dw_reasm_gap *g, void *u)
{
    (void)D;
    char detail[96];
    snprintf(detail, sizeof detail, "%" PRIu64 " octets %s", g->len,
             g->kind == DW_REASM_GAP_SNAPLEN ? "cut by the snap length" : "not in the capture");
    ev_line e = {"gap", 0, g->offset, g->seq, g->pkt, g->len, detail, 0};
    html_gap(u, d, g->offset, g->seq, g->len, g->pkt);
    out_event(u, d, &e, 1);
}

static const char *ift_verdict(dw_ift_check_crc v)
{
    return v == DW_IFT_CHECK_CRC_GOOD ? "good" : v == DW_IFT_CHECK_CRC_BAD ? "bad" : "missing";
}

static void on_ift_frame(dw_dissect *D, const dw_dissect_dir *d, const dw_ift_check_frame *fr,
                         const dw_rdmap_msg *msg, void *u)
{
    (void)D;
    dump *P = u;
    FILE *f = P->out;
    char ddp[192];
    html_fpdu(P, d, fr->offset, fr->seq, fr->frame_len, fr->aligned, NULL, 0);
    if (P->o.quiet)
        return;
    ddp_line(ddp, sizeof ddp, msg);
    int complete = fr->header_crc != DW_IFT_CHECK_CRC_MISSING &&
                   fr->payload_crc != DW_IFT_CHECK_CRC_MISSING;
    if (P->o.json) {
        json_head(P, d, "ift");
        fprintf(f, ",\"index\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"seq\":%u,\"header_size\":%u,"
                   "\"payload_size\":%u,\"header_crc\":\"%s\",\"payload_crc\":\"%s\","
                   "\"complete\":%s,\"first_pkt\":%" PRIu64 ",\"last_pkt\":%" PRIu64
                   ",\"segments\":%u,\"aligned\":%s,\"packed\":%s,\"resync\":%s,\"ddp\":",
                fr->index, fr->offset, (unsigned)fr->seq, (unsigned)fr->header_size,
                (unsigned)fr->payload_size, ift_verdict(fr->header_crc),
                ift_verdict(fr->payload_crc), tf(complete), fr->first_pkt, fr->last_pkt,
                (unsigned)fr->segments, tf(fr->aligned), tf(fr->packed), tf(fr->resync));
        cli_json_str(f, ddp);
        fputs("}\n", f);
    } else if (P->o.verbose) {
        fprintf(dump_text_line(P, d),
                "ift %" PRIu64 " seq %u header %u payload %u header-crc %s "
                "payload-crc %s pkts %" PRIu64 "..%" PRIu64 " (%u)%s%s%s %s\n",
                fr->index, (unsigned)fr->seq, (unsigned)fr->header_size,
                (unsigned)fr->payload_size, ift_verdict(fr->header_crc),
                ift_verdict(fr->payload_crc), fr->first_pkt, fr->last_pkt,
                (unsigned)fr->segments, fr->aligned ? " aligned" : "", fr->packed ? " packed" : "",
                fr->resync ? " resync" : "", ddp);
    }
}

static void on_ift_event(dw_dissect *D, const dw_dissect_dir *d, const dw_ift_check_event *ev,
                         dw_dissect_severity sev, void *u)
{
    (void)D;
    ev_line e = {dw_ift_check_event_name(ev->kind), (int)ev->code, ev->offset, ev->seq,
                 ev->pkt, ev->len, ev->detail, 0};
    if (ev->kind == DW_IFT_CHECK_EV_GAP)
        html_gap(u, d, ev->offset, ev->seq, ev->len, ev->pkt);
    out_event(u, d, &e, dw_dissect_ift_verdict(ev, sev) != DW_DISSECT_INFO);
}

static void on_tcpopt(dw_dissect *D, const dw_dissect_dir *d, const dw_dissect_tcpopt *o,
                      void *u)
{
    (void)D;
    dump *P = u;
    const dw_tcpopt *t = &o->found.opt;
    char line[512];
    snprintf(line, sizeof line,
             "%sTCP RDMA option pkt %" PRIu64 " len %u A=%u U=%u RID 0x%012" PRIx64
             " buffer offset %u data %u+%u total %u%s%s",
             o->valid ? "" : "ERROR ", o->pkt, (unsigned)t->len, (unsigned)t->a, (unsigned)t->u,
             t->rid, (unsigned)t->buffer_offset, (unsigned)t->data_offset,
             (unsigned)t->data_length, (unsigned)t->total_length, o->valid ? "" : ": ",
             o->valid ? "" : dw_tcpopt_reason_str(o->reason));
    if (!o->valid) {
        dump_mark(P, o->pkt);
        html_event(P, d, "tcpopt", UINT64_MAX, 0, o->pkt, 1, 0, line);
    }
    if (P->o.quiet)
        return;
    if (P->o.json) {
        json_head(P, d, "tcpopt");
        fprintf(P->out, ",\"pkt\":%" PRIu64 ",\"len\":%u,\"a\":%s,\"u\":%s,\"rid\":\"0x%012" PRIx64
                        "\",\"buffer_offset\":%u,\"data_offset\":%u,\"data_length\":%u,"
                        "\"total_length\":%u,\"count\":%u,\"foreign\":%u,\"valid\":%s,\"reason\":",
                o->pkt, (unsigned)t->len, tf(t->a), tf(t->u), t->rid, (unsigned)t->buffer_offset,
                (unsigned)t->data_offset, (unsigned)t->data_length, (unsigned)t->total_length,
                o->found.count, o->found.foreign, tf(o->valid));
        cli_json_str(P->out, o->valid ? "" : dw_tcpopt_reason_str(o->reason));
        fputs("}\n", P->out);
    } else if (P->o.verbose || (!o->valid && dump_text_error(P, d))) {
        fprintf(dump_text_line(P, d), "%s\n", line);
    }
}

static void on_rdma_event(dw_dissect *D, const dw_dissect_dir *d, const dw_rdma_check_event *ev,
                          void *u)
{
    (void)D;
    ev_line e = {dw_rdma_check_event_name(ev->kind), 0, ev->offset, ev->seq, ev->pkt, 0,
                 ev->detail, 0};
    out_event(u, d, &e, ev->error);
}

static void on_ipoib(dw_dissect *D, const dw_dissect_ipoib *ip, void *u)
{
    (void)D;
    dump *P = u;
    P->ipoib++;
    if (ip->is_arp && !ip->arp_ok) {
        char line[96];
        snprintf(line, sizeof line, "pkt %" PRIu64 " ERROR malformed IPoIB ARP", ip->pkt);
        dump_mark(P, ip->pkt);
        html_global(P, line);
    }
    if (!P->o.quiet)
        out_ipoib(P, ip);
}

static void on_flow_start(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    dump_app *a = calloc(1, sizeof(dump_app));
    if (!a)
        ((dump *)u)->nomem++; /* its error lines would not be counted */
    dw_dissect_flow_set_app(f, a);
    html_flow_start(u, f);
}

static void on_flow_end(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    html_flow_end(u, f);
    out_flow(u, f);
    free(dw_dissect_flow_app(f));
    dw_dissect_flow_set_app(f, NULL);
}

int dump_open(dump *P)
{
    static const dw_dissect_callbacks cb = {
        .on_fpdu = on_fpdu,
        .on_mpa_event = on_mpa_event,
        .on_ift_frame = on_ift_frame,
        .on_ift_event = on_ift_event,
        .on_reasm_event = on_reasm_event,
        .on_gap = on_gap,
        .on_rdma_event = on_rdma_event,
        .on_tcpopt = on_tcpopt,
        .on_ipoib = on_ipoib,
        .on_flow_start = on_flow_start,
        .on_flow_end = on_flow_end,
    };
    return dw_dissect_new(&P->ds, &P->o.ds, &cb, P);
}
