/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump --report FILE.html: what the report keeps while the
 * capture is read. Per connection (the first HTML_ROWS) its summary at
 * its end; per direction of the first HTML_TIMELINES a timeline over
 * stream offsets: TCP segments (parsed here from the frames, placed by the
 * sequence number to offset mapping the dissector's events give),
 * retransmissions and other reassembly events, FPDU and frame boundaries,
 * markers, gaps and errors (with the words dump prints). dump_html_page.c
 * writes the page at the end, through out_file (complete or removed).
 */
#include <ddpwire/pkt.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "dump_html.h"
#include "svg.h"

static html_flow *flow_of(dump *P, uint64_t id)
{
    dump_html *H = P->html;
    return H && id && id <= H->nflow ? H->flow[id - 1] : NULL;
}

static html_dir *dir_of(dump *P, const dw_dissect_dir *d)
{
    html_flow *f = flow_of(P, d->flow->id);
    return f ? &f->dir[d->dir] : NULL;
}

int html_open(dump *P, int argc, char **argv)
{
    const char *in[DUMP_FILES_MAX + 1];
    size_t n = 0;
    for (size_t i = 0; i < P->o.nfiles; i++)
        in[n++] = P->o.files[i];
    if (P->o.write)
        in[n++] = P->o.write;
    dump_html *H = calloc(1, sizeof *H);
    if (!H || !(H->cmd = svg_command("ddpwire", argc, argv))) {
        free(H);
        return cli_nomem("ddpwire dump", "the report");
    }
    int rc = out_file_open(&H->out, P->o.report, in, n, "ddpwire dump", "--report");
    if (rc) {
        free(H->cmd);
        free(H);
        return rc;
    }
    P->html = H;
    return 0;
}

static void addr_str(char *buf, size_t cap, const dw_flow *f, int side)
{
    char ip[INET6_ADDRSTRLEN];
    inet_ntop(f->ip_version == 4 ? AF_INET : AF_INET6, f->addr[side], ip, sizeof ip);
    snprintf(buf, cap, f->ip_version == 4 ? "%s:%u" : "[%s]:%u", ip, (unsigned)f->port[side]);
}

void html_flow_start(dump *P, const dw_flow *f)
{
    dump_html *H = P->html;
    if (!H)
        return;
    H->flows_total++;
    if (f->id != H->nflow + 1 || H->nflow == HTML_ROWS)
        return;
    html_flow **a = realloc(H->flow, (H->nflow + 1) * sizeof *a);
    html_flow *r = calloc(1, sizeof *r);
    if (!a || !r) {
        free(r);
        if (a)
            H->flow = a;
        H->nomem = 1;
        return;
    }
    H->flow = a;
    H->flow[H->nflow++] = r;
    r->id = f->id;
    r->ip_version = f->ip_version;
    memcpy(r->addr, f->addr, sizeof r->addr);
    memcpy(r->port, f->port, sizeof r->port);
    addr_str(r->client, sizeof r->client, f, DW_FLOW_C2S);
    addr_str(r->server, sizeof r->server, f, DW_FLOW_S2C);
    if (H->ntimelines < HTML_TIMELINES) {
        for (int k = 0; k < 2; k++)
            if ((r->dir[k].tl = calloc(1, sizeof(html_tl))))
                for (size_t i = 0; i < HTML_BINS; i++)
                    r->dir[k].tl->bin[i].err_idx = -1;
            else
                H->nomem = 1;
        for (size_t i = 0; i < HTML_TIMELINES; i++)
            if (!H->live[i]) {
                H->live[i] = r;
                break;
            }
        H->ntimelines++;
    }
}

void html_flow_end(dump *P, const dw_flow *f)
{
    dump_html *H = P->html;
    html_flow *r = flow_of(P, f->id);
    if (!r)
        return;
    for (size_t i = 0; i < HTML_TIMELINES; i++)
        if (H->live[i] == r)
            H->live[i] = NULL;
    for (int k = 0; k < 2; k++) {
        const dw_dissect_dir *d = dw_dissect_flow_dir(f, k);
        r->dir[k].d = *d;
        r->dir[k].d.flow = NULL;
        dw_dissect_dir_stats_get(d, &r->dir[k].st);
    }
    const dw_dissect_dir *a = &r->dir[0].d, *b = &r->dir[1].d;
    r->framing = dw_dissect_framing_name(a->framing != DW_DISSECT_PLAIN ? a->framing : b->framing);
    r->ulp = dw_rdma_ulp_name(dw_dissect_flow_ulp(f));
    r->ok = !a->protocol_errors && !b->protocol_errors && !a->incomplete && !b->incomplete;
    r->ended = 1;
}

/* Bins twice as wide until off fits. */
static void tl_fit(html_tl *t, uint64_t off)
{
    while (off >> t->shift >= HTML_BINS) {
        for (size_t i = 0; i < HTML_BINS / 2; i++) {
            html_bin *a = &t->bin[2 * i], *b = &t->bin[2 * i + 1], m = *a;
            m.segs += b->segs, m.rexmit += b->rexmit, m.fpdus += b->fpdus;
            m.unaligned += b->unaligned, m.markers += b->markers;
            m.bad_markers += b->bad_markers, m.gaps += b->gaps;
            if (!a->errors) {
                m.err_idx = b->err_idx, m.err_pkt = b->err_pkt, m.err_kind = b->err_kind;
            }
            m.errors += b->errors;
            t->bin[i] = m;
        }
        for (size_t i = HTML_BINS / 2; i < HTML_BINS; i++) {
            memset(&t->bin[i], 0, sizeof t->bin[i]);
            t->bin[i].err_idx = -1;
        }
        t->shift++;
    }
}

static html_bin *tl_bin(html_tl *t, uint64_t off, uint64_t len)
{
    tl_fit(t, off);
    if (off + len > t->end)
        t->end = off + len;
    return &t->bin[off >> t->shift];
}

/* Where sequence numbers sit in the stream: from the dissector's events. */
static void tl_anchor(html_tl *t, uint64_t off, uint32_t seq)
{
    t->anchored = 1, t->a_off = off, t->a_seq = seq;
}

/* A TCP segment with data, on its direction's timeline: called before
 * the dissector sees it (a connection's last segment ends it), and again
 * after when no connection had it (its first segment starts one).
 * Returns 1 when the segment needs no second call. */
int html_segment(dump *P, unsigned linktype, const uint8_t *frame, size_t caplen)
{
    dump_html *H = P->html;
    dw_pkt_tcp t;
    dw_pkt_reason why;
    if (!H || !H->ntimelines || dw_pkt_parse(&t, &why, linktype, frame, caplen, 0, 0) ||
        !t.payload_len)
        return 1;
    for (size_t i = 0; i < HTML_TIMELINES; i++) {
        html_flow *r = H->live[i];
        if (!r || r->ip_version != t.ip_version)
            continue;
        int k = r->port[0] == t.sport && r->port[1] == t.dport &&
                        !memcmp(r->addr[0], t.src, 16) && !memcmp(r->addr[1], t.dst, 16)
                    ? 0
                : r->port[1] == t.sport && r->port[0] == t.dport &&
                        !memcmp(r->addr[1], t.src, 16) && !memcmp(r->addr[0], t.dst, 16)
                    ? 1
                    : -1;
        html_tl *tl = k < 0 ? NULL : r->dir[k].tl;
        if (k < 0)
            continue;
        if (!tl)
            return 1;
        if (!tl->anchored) /* no event yet: the first data octet seen is 0 */
            tl_anchor(tl, 0, t.seq);
        int64_t off = (int64_t)tl->a_off + (int32_t)(t.seq - tl->a_seq);
        if (off >= 0) {
            tl_bin(tl, (uint64_t)off, t.payload_len)->segs++;
            tl_anchor(tl, (uint64_t)off, t.seq); /* the same mapping, kept near */
        }
        return 1;
    }
    return 0;
}

void html_fpdu(dump *P, const dw_dissect_dir *d, uint64_t off, uint32_t seq, uint32_t len,
               int aligned, const dw_mpa_check_marker *mk, size_t nmk)
{
    html_dir *h = dir_of(P, d);
    html_tl *t = h ? h->tl : NULL;
    if (!t)
        return;
    tl_anchor(t, off, seq);
    html_bin *b = tl_bin(t, off, len);
    b->fpdus++;
    b->unaligned += !aligned;
    for (size_t i = 0; i < nmk; i++) {
        b = tl_bin(t, mk[i].offset, 4);
        b->markers++;
        b->bad_markers += !mk[i].ok;
    }
}

static void count_kind(html_dir *h, const char *kind)
{
    for (size_t i = 0; i < h->nkinds; i++)
        if (!strcmp(h->kind[i].kind, kind)) {
            h->kind[i].n++;
            return;
        }
    if (h->nkinds < HTML_KINDS)
        h->kind[h->nkinds++] = (html_kind){kind, 1};
}

void html_event(dump *P, const dw_dissect_dir *d, const char *kind, uint64_t off, uint32_t seq,
                uint64_t pkt, int error, int reasm, const char *line)
{
    html_dir *h = dir_of(P, d);
    if (!h)
        return;
    if (error) {
        h->errors++;
        count_kind(h, kind);
    }
    html_tl *t = h->tl;
    if (!t || (!error && !reasm))
        return;
    int32_t idx = -1;
    if (error && t->nlines < HTML_ERR_LIST && (t->lines[t->nlines] = strdup(line)))
        idx = (int32_t)t->nlines++;
    else if (error && t->nlines < HTML_ERR_LIST)
        P->html->nomem = 1;
    if (off == UINT64_MAX) /* no place in the stream (a TCP option): listed only */
        return;
    if (off && !reasm)
        tl_anchor(t, off, seq);
    html_bin *b = tl_bin(t, off, 0);
    if (reasm)
        b->rexmit++;
    if (!error)
        return;
    if (!b->errors) {
        b->err_pkt = pkt;
        b->err_kind = kind;
        b->err_idx = idx;
    }
    b->errors++;
}

void html_gap(dump *P, const dw_dissect_dir *d, uint64_t off, uint32_t seq, uint64_t len,
              uint64_t pkt)
{
    html_dir *h = dir_of(P, d);
    html_tl *t = h ? h->tl : NULL;
    if (!t)
        return;
    tl_anchor(t, off, seq);
    tl_bin(t, off, len)->gaps++;
    if (t->ngaps < HTML_GAPS)
        t->gap[t->ngaps++] = (html_span){off, len, pkt};
}

void html_global(dump *P, const char *line)
{
    dump_html *H = P->html;
    if (!H)
        return;
    H->global_total++;
    if (H->nglobal < HTML_GLOBAL && (H->global[H->nglobal] = strdup(line)))
        H->nglobal++;
    else if (H->nglobal < HTML_GLOBAL)
        H->nomem = 1;
}

static void html_free(dump_html *H)
{
    for (size_t i = 0; i < H->nflow; i++) {
        for (int k = 0; k < 2; k++) {
            html_tl *t = H->flow[i]->dir[k].tl;
            for (size_t j = 0; t && j < t->nlines; j++)
                free(t->lines[j]);
            free(t);
        }
        free(H->flow[i]);
    }
    for (size_t i = 0; i < H->nglobal; i++)
        free(H->global[i]);
    free(H->flow);
    free(H->cmd);
    free(H);
}

int html_close(dump *P, int status, int write)
{
    dump_html *H = P->html;
    int rc = 0;
    if (!H)
        return 0;
    if (write && H->nomem) { /* a page with a part missing is not written */
        out_file_abort(&H->out);
        rc = cli_nomem("ddpwire dump", "the report (removed)");
    } else if (write) {
        html_page(P, H, status);
        rc = out_file_commit(&H->out, "ddpwire dump");
    } else {
        out_file_abort(&H->out);
    }
    html_free(H);
    P->html = NULL;
    return rc;
}
