/*
 * ddpwire dump: output, as text (a summary per flow; -v one line per FPDU,
 * frame and event) or JSON lines (docs/DUMP.md). Errors are printed in
 * text mode without -v too, the first MAX_TEXT_ERRORS per direction.
 */
#include <ddpwire/ddp.h>
#include <ddpwire/ipoib.h>
#include <ddpwire/tcpopt.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/ift_check.h>
#include <ddpwire/rdmap.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "dump.h"

#define MAX_TEXT_ERRORS 20u

const char *dump_dir_name(int dir)
{
    return dir == DUMP_C2S ? "c2s" : "s2c";
}

void dump_addr(char *buf, size_t cap, const dump_flow *f, int side)
{
    char ip[INET6_ADDRSTRLEN];
    inet_ntop(f->ipv == 4 ? AF_INET : AF_INET6, f->addr[side], ip, sizeof ip);
    snprintf(buf, cap, f->ipv == 4 ? "%s:%u" : "[%s]:%u", ip, (unsigned)f->port[side]);
}

void out_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static const char *tf(int v)
{
    return v ? "true" : "false";
}

/* The JSON members every per-direction record starts with. */
static void json_head(dump_dir *d, const char *type)
{
    fprintf(d->flow->owner->out, "{\"type\":\"%s\",\"flow\":%" PRIu64 ",\"dir\":\"%s\"", type,
            d->flow->id, dump_dir_name(d->dir));
}

/* Text lines: "flow 3 c2s ". */
static FILE *text_line(dump_dir *d)
{
    FILE *f = d->flow->owner->out;
    fprintf(f, "flow %" PRIu64 " %s ", d->flow->id, dump_dir_name(d->dir));
    return f;
}

/* Should an error line be printed in text mode? */
static int text_error(dump_dir *d)
{
    const dump_opts *o = &d->flow->owner->o;
    if (o->json)
        return 0;
    if (o->verbose)
        return 1;
    d->printed_errors++;
    if (d->printed_errors == MAX_TEXT_ERRORS + 1)
        fprintf(text_line(d), "... further errors not shown (-v shows all)\n");
    return d->printed_errors <= MAX_TEXT_ERRORS;
}

static const char *crc_name(dw_mpa_check_crc c)
{
    static const char *n[] = {"good", "bad", "off", "missing"};
    return (unsigned)c < 4 ? n[c] : "?";
}

static const char *op_name(unsigned op)
{
    static const char *n[] = {"Write", "ReadReq", "ReadResp", "Send", "SendInv",
                              "SendSE", "SendSEInv", "Terminate"};
    return op < 8 ? n[op] : "opcode?";
}

/* One line about the DDP/RDMAP header at the start of a ULPDU. */
static void ddp_line(char *buf, size_t cap, const uint8_t *p, size_t n)
{
    dw_rdmap_msg m;
    buf[0] = 0;
    if (n < DW_DDP_TAGGED_HDR_LEN || dw_rdmap_decode(&m, p, n) < 0)
        return;
    const dw_ddp_hdr *h = &m.hdr;
    if (h->tagged)
        snprintf(buf, cap, "%s STag 0x%08x TO 0x%" PRIx64 "%s", op_name(h->opcode),
                 (unsigned)h->stag, h->to, h->last ? " last" : "");
    else
        snprintf(buf, cap, "%s QN %u MSN %u MO %u%s", op_name(h->opcode), (unsigned)h->qn,
                 (unsigned)h->msn, (unsigned)h->mo, h->last ? " last" : "");
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

void out_fpdu(dump_dir *d, const dw_mpa_check_fpdu *fp, const dw_mpa_check_marker *mk,
              size_t nmk)
{
    const dump_opts *o = &d->flow->owner->o;
    FILE *f = d->flow->owner->out;
    char ddp[128];
    ddp_line(ddp, sizeof ddp, fp->head, fp->head_len);
    if (o->json) {
        json_head(d, "fpdu");
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
        out_json_str(f, ddp);
        fputs("}\n", f);
        return;
    }
    if (!o->verbose)
        return;
    fprintf(text_line(d), "fpdu %" PRIu64 " pos %" PRIu64 " seq %u len %u pad %u wire %u "
                          "crc %s markers %u%s%s%s pkts %" PRIu64 "..%" PRIu64 " (%u) %s%s%s\n",
            fp->index, fp->pos, (unsigned)fp->seq, (unsigned)fp->ulpdu_len, (unsigned)fp->pad,
            (unsigned)fp->fpdu_len, crc_name(fp->crc), (unsigned)fp->markers,
            fp->bad_markers ? " (bad)" : "", fp->aligned ? " aligned" : "",
            fp->packed ? " packed" : "", fp->first_pkt, fp->last_pkt, (unsigned)fp->segments,
            fp->resync ? "resync " : "", ddp, fp->pad_nonzero ? " pad-not-zero" : "");
}

static void out_startup(dump_dir *d, const dw_mpa_check_event *ev)
{
    const dw_mpa_startup *fr = ev->frame;
    FILE *f = d->flow->owner->out;
    const char *kind = fr->kind == DW_MPA_STARTUP_REQUEST ? "request" : "reply";
    if (d->flow->owner->o.json) {
        json_head(d, "startup");
        fprintf(f, ",\"pkt\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"kind\":\"%s\","
                   "\"markers\":%s,\"crc\":%s,\"reject\":%s,\"rev\":%u,\"pd_len\":%u}\n",
                ev->pkt, ev->offset, kind, tf(fr->flags & DW_MPA_FLAG_MARKERS),
                tf(fr->flags & DW_MPA_FLAG_CRC), tf(fr->flags & DW_MPA_FLAG_REJECT),
                (unsigned)fr->rev, (unsigned)fr->pd_len);
    } else if (d->flow->owner->o.verbose) {
        fprintf(text_line(d), "RFC 5044 %s (pkt %" PRIu64 "): M=%d C=%d R=%d rev %u, %u octets "
                              "of private data\n",
                kind, ev->pkt, !!(fr->flags & DW_MPA_FLAG_MARKERS),
                !!(fr->flags & DW_MPA_FLAG_CRC), !!(fr->flags & DW_MPA_FLAG_REJECT),
                (unsigned)fr->rev, (unsigned)fr->pd_len);
    }
}

/* A generic event: JSON always; text with -v, or when it is an error. */
static void out_event(dump_dir *d, const char *kind, int code, uint64_t offset, uint32_t seq,
                      uint64_t pkt, uint64_t len, const char *detail, int error)
{
    FILE *f = d->flow->owner->out;
    if (d->flow->owner->o.json) {
        json_head(d, "event");
        fprintf(f, ",\"kind\":\"%s\",\"code\":%d,\"offset\":%" PRIu64 ",\"seq\":%u,\"pkt\":%" PRIu64
                   ",\"len\":%" PRIu64 ",\"detail\":",
                kind, code, offset, (unsigned)seq, pkt, len);
        out_json_str(f, detail ? detail : "");
        fputs("}\n", f);
        return;
    }
    if (error ? !text_error(d) : !d->flow->owner->o.verbose)
        return;
    fprintf(text_line(d), "%s%s", error ? "ERROR " : "", kind);
    if (code)
        fprintf(f, " (%s error %d)", d->framing == FR_IFT ? "IFT" : "MPA", code);
    fprintf(f, " at offset %" PRIu64 " seq %u", offset, (unsigned)seq);
    if (pkt && pkt != UINT64_MAX)
        fprintf(f, " pkt %" PRIu64, pkt);
    fprintf(f, "%s%s\n", detail && *detail ? ": " : "", detail ? detail : "");
}

void out_mpa_event(dump_dir *d, const dw_mpa_check_event *ev)
{
    if (ev->kind == DW_MPA_CHECK_EV_STARTUP && ev->frame) {
        out_startup(d, ev);
        return;
    }
    int error = ev->code != DW_MPA_ERR_NONE || ev->kind == DW_MPA_CHECK_EV_LENGTH ||
                ev->kind == DW_MPA_CHECK_EV_PAD || ev->kind == DW_MPA_CHECK_EV_MARKER_RESERVED ||
                ev->kind == DW_MPA_CHECK_EV_STARTUP_BAD || ev->kind == DW_MPA_CHECK_EV_MODE ||
                ev->kind == DW_MPA_CHECK_EV_GAP;
    out_event(d, dw_mpa_check_event_name(ev->kind), (int)ev->code, ev->offset, ev->seq,
              ev->pkt, ev->len, ev->detail, error);
}

void out_reasm_event(dump_dir *d, const dw_reasm_event *ev)
{
    char detail[96];
    if (ev->kind == DW_REASM_EV_SYN || ev->kind == DW_REASM_EV_FIN)
        return; /* milestones every connection has */
    snprintf(detail, sizeof detail, "segment seq %u, %u octets", (unsigned)ev->seq,
             (unsigned)ev->len);
    int error = ev->kind == DW_REASM_EV_MISMATCH || ev->kind == DW_REASM_EV_DROPPED;
    out_event(d, dw_reasm_event_name(ev->kind), 0, ev->offset, ev->seq, ev->pkt, ev->len,
              detail, error);
}

void out_gap(dump_dir *d, const dw_reasm_gap *g)
{
    char detail[96];
    snprintf(detail, sizeof detail, "%" PRIu64 " octets %s", g->len,
             g->kind == DW_REASM_GAP_SNAPLEN ? "cut by the snap length" : "not in the capture");
    out_event(d, "gap", 0, g->offset, g->seq, g->pkt, g->len, detail, 1);
}

static const char *ift_verdict(dw_ift_check_crc v)
{
    return v == DW_IFT_CHECK_CRC_GOOD ? "good" : v == DW_IFT_CHECK_CRC_BAD ? "bad" : "missing";
}

void out_ift(dump_dir *d, const dw_ift_check_frame *fr)
{
    const dump_opts *o = &d->flow->owner->o;
    FILE *f = d->flow->owner->out;
    char ddp[128] = "";
    if (fr->header_crc == DW_IFT_CHECK_CRC_GOOD)
        ddp_line(ddp, sizeof ddp, fr->head, fr->head_len);
    int complete = fr->header_crc != DW_IFT_CHECK_CRC_MISSING &&
                   fr->payload_crc != DW_IFT_CHECK_CRC_MISSING;
    if (o->json) {
        json_head(d, "ift");
        fprintf(f, ",\"index\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"seq\":%u,\"header_size\":%u,"
                   "\"payload_size\":%u,\"header_crc\":\"%s\",\"payload_crc\":\"%s\","
                   "\"complete\":%s,\"first_pkt\":%" PRIu64 ",\"last_pkt\":%" PRIu64
                   ",\"segments\":%u,\"aligned\":%s,\"packed\":%s,\"resync\":%s,\"ddp\":",
                fr->index, fr->offset, (unsigned)fr->seq, (unsigned)fr->header_size,
                (unsigned)fr->payload_size, ift_verdict(fr->header_crc),
                ift_verdict(fr->payload_crc), tf(complete), fr->first_pkt, fr->last_pkt,
                (unsigned)fr->segments, tf(fr->aligned), tf(fr->packed), tf(fr->resync));
        out_json_str(f, ddp);
        fputs("}\n", f);
    } else if (o->verbose) {
        fprintf(text_line(d), "ift %" PRIu64 " seq %u header %u payload %u header-crc %s "
                              "payload-crc %s pkts %" PRIu64 "..%" PRIu64 " (%u)%s%s%s %s\n",
                fr->index, (unsigned)fr->seq, (unsigned)fr->header_size,
                (unsigned)fr->payload_size, ift_verdict(fr->header_crc),
                ift_verdict(fr->payload_crc), fr->first_pkt, fr->last_pkt,
                (unsigned)fr->segments, fr->aligned ? " aligned" : "", fr->packed ? " packed" : "",
                fr->resync ? " resync" : "", ddp);
    }
}

void out_ift_event(dump_dir *d, const char *kind, int code, uint64_t offset, uint32_t seq,
                   uint64_t pkt, uint64_t len, const char *detail, int error)
{
    out_event(d, kind, code, offset, seq, pkt, len, detail, error);
}

void out_tcpopt(dump_dir *d, const uint8_t *opts, size_t optlen, size_t payload_len)
{
    dw_tcpopt_found fo;
    dw_tcpopt_reason why = DW_TCPOPT_R_OK;
    int rc = dw_tcpopt_parse(&fo, &why, opts, optlen, payload_len);
    if (rc == 0 || (rc < 0 && why == DW_TCPOPT_R_OPTIONS_MALFORMED && !memchr(opts, 25, optlen)))
        return; /* no RDMA option (a malformed list without kind 25 is not ours) */
    dump *D = d->flow->owner;
    if (rc == 1 && DW_TCPOPT_HAS_DATA(&fo.opt)) { /* 3.1.4: one total per transfer */
        if (!d->ttot_set || d->ttot.rid != fo.opt.rid)
            dw_tcpopt_total_init(&d->ttot, fo.opt.rid);
        d->ttot_set = 1;
        why = dw_tcpopt_total_check(&d->ttot, &fo.opt);
        if (why != DW_TCPOPT_R_OK)
            rc = DW_ERR_MALFORMED;
    }
    int valid = rc == 1;
    d->tcpopts++;
    if (!valid) {
        d->tcpopt_bad++;
        d->protocol_errors++;
        D->protocol_errors++;
    }
    const dw_tcpopt *t = &fo.opt;
    if (D->o.json) {
        json_head(d, "tcpopt");
        fprintf(D->out, ",\"pkt\":%" PRIu64 ",\"len\":%u,\"a\":%s,\"u\":%s,\"rid\":\"0x%012" PRIx64
                        "\",\"buffer_offset\":%u,\"data_offset\":%u,\"data_length\":%u,"
                        "\"total_length\":%u,\"count\":%u,\"foreign\":%u,\"valid\":%s,\"reason\":",
                D->pkt, (unsigned)t->len, tf(t->a), tf(t->u), t->rid, (unsigned)t->buffer_offset,
                (unsigned)t->data_offset, (unsigned)t->data_length, (unsigned)t->total_length,
                fo.count, fo.foreign, tf(valid));
        out_json_str(D->out, valid ? "" : dw_tcpopt_reason_str(why));
        fputs("}\n", D->out);
    } else if (D->o.verbose || (!valid && text_error(d))) {
        fprintf(text_line(d), "%sTCP RDMA option pkt %" PRIu64 " len %u A=%u U=%u RID 0x%012" PRIx64
                              " buffer offset %u data %u+%u total %u%s%s\n",
                valid ? "" : "ERROR ", D->pkt, (unsigned)t->len, (unsigned)t->a, (unsigned)t->u,
                t->rid, (unsigned)t->buffer_offset, (unsigned)t->data_offset,
                (unsigned)t->data_length, (unsigned)t->total_length, valid ? "" : ": ",
                valid ? "" : dw_tcpopt_reason_str(why));
    }
}
