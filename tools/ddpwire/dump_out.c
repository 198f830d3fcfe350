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

/* The members every per-direction record starts with. */
static void rec_head(cli_rec *r, const dw_dissect_dir *d, const char *type)
{
    cli_rec_init(r, type);
    cli_rec_u64(r, "flow", d->flow->id);
    cli_rec_str(r, "dir", dump_dir_name(d->dir));
}

/* The record as JSON, or its text after "flow N dir " (tmpl). */
static void rec_out(dump *P, const dw_dissect_dir *d, const cli_rec *r, const char *tmpl)
{
    if (P->o.json)
        cli_rec_json(P->out, r);
    else
        cli_rec_text(dump_text_line(P, d), r, tmpl);
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

static void marker_members(cli_rec *r, const dw_mpa_check_marker *mk, size_t n)
{
    cli_rec_arr(r, "markers");
    for (size_t i = 0; i < n; i++) {
        cli_rec_obj(r, NULL);
        const cli_field_u64 m[] = {{"pos", mk[i].pos},         {"seq", mk[i].seq},
                                   {"pkt", mk[i].pkt},         {"fpduptr", mk[i].fpduptr},
                                   {"reserved", mk[i].reserved}, {"expected", mk[i].expected}};
        cli_rec_u64s(r, m, sizeof m / sizeof m[0], 0);
        cli_rec_bool(r, "ok", mk[i].ok);
        cli_rec_end(r);
    }
    cli_rec_end(r);
}

static void on_fpdu(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_fpdu *fp,
                    const dw_mpa_check_marker *mk, size_t nmk, const dw_rdmap_msg *msg, void *u)
{
    (void)D;
    dump *P = u;
    char ddp[192];
    html_fpdu(P, d, fp->offset, fp->seq, fp->fpdu_len, fp->aligned, mk, nmk);
    if (P->o.quiet || (!P->o.json && !P->o.verbose))
        return;
    ddp_line(ddp, sizeof ddp, msg);
    static cli_rec r; /* markers make it large */
    rec_head(&r, d, "fpdu");
    const cli_field_u64 m[] = {{"index", fp->index},   {"pos", fp->pos},
                               {"offset", fp->offset}, {"seq", fp->seq},
                               {"ulpdu_len", fp->ulpdu_len}, {"pad", fp->pad},
                               {"fpdu_len", fp->fpdu_len}};
    cli_rec_u64s(&r, m, sizeof m / sizeof m[0], 0);
    cli_rec_str(&r, "crc", crc_name(fp->crc));
    cli_rec_strf(&r, "crc_wire", "0x%08x", (unsigned)fp->crc_wire);
    cli_rec_strf(&r, "crc_calc", "0x%08x", (unsigned)fp->crc_calc);
    const cli_field_u64 p[] = {{"first_pkt", fp->first_pkt}, {"last_pkt", fp->last_pkt},
                               {"segments", fp->segments}};
    cli_rec_u64s(&r, p, sizeof p / sizeof p[0], 0);
    cli_rec_bool(&r, "aligned", fp->aligned);
    cli_rec_bool(&r, "packed", fp->packed);
    cli_rec_bool(&r, "resync", fp->resync);
    cli_rec_bool(&r, "pad_nonzero", fp->pad_nonzero);
    marker_members(&r, mk, nmk);
    cli_rec_str(&r, "ddp", ddp);
    cli_rec_u64(&r, "nmarkers", fp->markers);
    cli_rec_hide(&r);
    cli_rec_textf(&r, "flags", "%s%s%s", fp->bad_markers ? " (bad)" : "",
                  fp->aligned ? " aligned" : "", fp->packed ? " packed" : "");
    cli_rec_textf(&r, "resync_text", "%s", fp->resync ? "resync " : "");
    cli_rec_textf(&r, "pad_text", "%s", fp->pad_nonzero ? " pad-not-zero" : "");
    rec_out(P, d, &r,
            "fpdu %{index} pos %{pos} seq %{seq} len %{ulpdu_len} pad %{pad} wire %{fpdu_len} "
            "crc %{crc} markers %{nmarkers}%{flags} pkts %{first_pkt}..%{last_pkt} "
            "(%{segments}) %{resync_text}%{ddp}%{pad_text}\n");
}

/* RFC 6581 IRD/ORD and SMB Direct's, from the private data: members
 * "enhanced" and "smbd", and their text "pd". */
static void pd_members(cli_rec *r, const dw_mpa_startup *fr)
{
    dw_rdma_pd_info pi;
    char text[256];
    size_t n = 0;
    text[0] = 0;
    if (dw_rdma_pd_info_get(fr, &pi)) {
        const dw_mpa_enh *e = &pi.enh;
        if (pi.enhanced) {
            cli_rec_obj(r, "enhanced");
            cli_rec_u64(r, "ird", e->ird);
            cli_rec_u64(r, "ord", e->ord);
            cli_rec_bool(r, "p2p", e->p2p);
            cli_rec_bool(r, "rtr_send", e->rtr & DW_MPA_RTR_SEND);
            cli_rec_bool(r, "rtr_write", e->rtr & DW_MPA_RTR_WRITE);
            cli_rec_bool(r, "rtr_read", e->rtr & DW_MPA_RTR_READ);
            cli_rec_end(r);
            n += (size_t)snprintf(text, sizeof text, ", RFC 6581 IRD %u ORD %u%s%s%s%s", e->ird,
                                  e->ord, e->p2p ? " peer-to-peer" : "",
                                  (e->rtr & DW_MPA_RTR_SEND) ? " RTR:Send" : "",
                                  (e->rtr & DW_MPA_RTR_WRITE) ? " RTR:Write" : "",
                                  (e->rtr & DW_MPA_RTR_READ) ? " RTR:Read" : "");
        }
        if (pi.smbd) {
            cli_rec_obj(r, "smbd");
            cli_rec_u64(r, "ird", pi.smbd_ird);
            cli_rec_u64(r, "ord", pi.smbd_ord);
            cli_rec_bool(r, "host_order", pi.smbd_host_order);
            cli_rec_end(r);
            if (n < sizeof text)
                snprintf(text + n, sizeof text - n, ", SMB Direct IRD %u ORD %u%s",
                         (unsigned)pi.smbd_ird, (unsigned)pi.smbd_ord,
                         pi.smbd_host_order ? " (little-endian words: cifs.ko writes host order)"
                                            : "");
        }
    }
    cli_rec_textf(r, "pd", "%s", text);
}

static void out_startup(dump *P, const dw_dissect_dir *d, const dw_mpa_check_event *ev)
{
    const dw_mpa_startup *fr = ev->frame;
    if (P->o.quiet || (!P->o.json && !P->o.verbose))
        return;
    cli_rec r;
    rec_head(&r, d, "startup");
    cli_rec_u64(&r, "pkt", ev->pkt);
    cli_rec_u64(&r, "offset", ev->offset);
    cli_rec_str(&r, "kind", fr->kind == DW_MPA_STARTUP_REQUEST ? "request" : "reply");
    cli_rec_bool(&r, "markers", fr->flags & DW_MPA_FLAG_MARKERS);
    cli_rec_bool(&r, "crc", fr->flags & DW_MPA_FLAG_CRC);
    cli_rec_bool(&r, "reject", fr->flags & DW_MPA_FLAG_REJECT);
    cli_rec_u64(&r, "rev", fr->rev);
    cli_rec_u64(&r, "pd_len", fr->pd_len);
    pd_members(&r, fr);
    const cli_field_u64 bits[] = {{"m", !!(fr->flags & DW_MPA_FLAG_MARKERS)},
                                  {"c", !!(fr->flags & DW_MPA_FLAG_CRC)},
                                  {"r", !!(fr->flags & DW_MPA_FLAG_REJECT)}};
    cli_rec_u64s(&r, bits, 3, 1);
    rec_out(P, d, &r,
            "RFC 5044 %{kind} (pkt %{pkt}): M=%{m} C=%{c} R=%{r} rev %{rev}, %{pd_len} octets "
            "of private data%{pd}\n");
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
        cli_rec r;
        rec_head(&r, d, "event");
        cli_rec_str(&r, "kind", e->kind);
        cli_rec_i64(&r, "code", e->code);
        cli_rec_u64(&r, "offset", e->offset);
        cli_rec_u64(&r, "seq", e->seq);
        cli_rec_u64(&r, "pkt", e->pkt);
        cli_rec_u64(&r, "len", e->len);
        cli_rec_str(&r, "detail", e->detail);
        cli_rec_json(P->out, &r);
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
    char ddp[192];
    html_fpdu(P, d, fr->offset, fr->seq, fr->frame_len, fr->aligned, NULL, 0);
    if (P->o.quiet)
        return;
    ddp_line(ddp, sizeof ddp, msg);
    int complete = fr->header_crc != DW_IFT_CHECK_CRC_MISSING &&
                   fr->payload_crc != DW_IFT_CHECK_CRC_MISSING;
    if (!P->o.json && !P->o.verbose)
        return;
    cli_rec r;
    rec_head(&r, d, "ift");
    const cli_field_u64 m[] = {{"index", fr->index},
                               {"offset", fr->offset},
                               {"seq", fr->seq},
                               {"header_size", fr->header_size},
                               {"payload_size", fr->payload_size}};
    cli_rec_u64s(&r, m, sizeof m / sizeof m[0], 0);
    cli_rec_str(&r, "header_crc", ift_verdict(fr->header_crc));
    cli_rec_str(&r, "payload_crc", ift_verdict(fr->payload_crc));
    cli_rec_bool(&r, "complete", complete);
    const cli_field_u64 p[] = {{"first_pkt", fr->first_pkt}, {"last_pkt", fr->last_pkt},
                               {"segments", fr->segments}};
    cli_rec_u64s(&r, p, sizeof p / sizeof p[0], 0);
    cli_rec_bool(&r, "aligned", fr->aligned);
    cli_rec_bool(&r, "packed", fr->packed);
    cli_rec_bool(&r, "resync", fr->resync);
    cli_rec_str(&r, "ddp", ddp);
    cli_rec_textf(&r, "flags", "%s%s%s", fr->aligned ? " aligned" : "",
                  fr->packed ? " packed" : "", fr->resync ? " resync" : "");
    rec_out(P, d, &r,
            "ift %{index} seq %{seq} header %{header_size} payload %{payload_size} header-crc "
            "%{header_crc} payload-crc %{payload_crc} pkts %{first_pkt}..%{last_pkt} "
            "(%{segments})%{flags} %{ddp}\n");
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
        cli_rec r;
        rec_head(&r, d, "tcpopt");
        cli_rec_u64(&r, "pkt", o->pkt);
        cli_rec_u64(&r, "len", t->len);
        cli_rec_bool(&r, "a", t->a);
        cli_rec_bool(&r, "u", t->u);
        cli_rec_strf(&r, "rid", "0x%012" PRIx64, t->rid);
        const cli_field_u64 m[] = {{"buffer_offset", t->buffer_offset},
                                   {"data_offset", t->data_offset},
                                   {"data_length", t->data_length},
                                   {"total_length", t->total_length},
                                   {"count", o->found.count},
                                   {"foreign", o->found.foreign}};
        cli_rec_u64s(&r, m, sizeof m / sizeof m[0], 0);
        cli_rec_bool(&r, "valid", o->valid);
        cli_rec_str(&r, "reason", o->valid ? "" : dw_tcpopt_reason_str(o->reason));
        cli_rec_json(P->out, &r);
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
