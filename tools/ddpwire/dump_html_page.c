/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump --report: the page. One self-contained HTML file (inline
 * CSS and SVG, no script, no font or anything fetched), well-formed XML
 * too: the capture and verdict, a table of connections, and per
 * connection and direction a timeline of the stream (dump_html.c keeps
 * it). docs/DUMP.md describes it.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "dump_html.h"
#include "svg.h"

#define LBL 150.0  /* timeline: labels, plot width, row pitch and height */
#define PWD 790.0
#define PITCH 22.0
#define ROWH 18.0
#define NROWS 5

static const char *css =
    "body{font-family:sans-serif;font-size:14px;margin:1.5em;max-width:1200px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.6em}h3{font-size:1.1em;margin:1.4em 0 .2em}"
    "h4{font-size:1em;margin:.6em 0 .1em;font-weight:normal}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;"
    "text-align:left;vertical-align:top}th{background:#f0f0f0}td.n{text-align:right}"
    ".verdict{font-size:1.3em;font-weight:bold;padding:.4em .8em;display:inline-block}"
    ".v0{background:#dff0d8;color:#255625}.v1{background:#f8d7da;color:#842029}"
    ".v3,.v4,.v2{background:#fff3cd;color:#664d03}"
    ".ok{color:#255625}.bad{color:#b02a37;font-weight:bold}"
    "ol.errs{font-family:monospace;font-size:12px;margin:.2em 0 .2em 1em}"
    ".cmd{font-family:monospace;background:#f6f6f6;padding:2px 4px}"
    ".key span{display:inline-block;width:14px;height:10px;margin:0 4px 0 12px}"
    "svg.tl{display:block}";

static void esc(FILE *f, const char *s)
{
    svg_esc(f, s);
}

/* The items of an error list (dump's lines), and its end. */
static void err_items(FILE *f, char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs("<li class=\"err\">", f);
        esc(f, lines[i]);
        fputs("</li>\n", f);
    }
    fputs("</ol>\n", f);
}

/* 1536 -> "1.5 KiB" */
static void octets(char *b, size_t cap, double v)
{
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (v >= 1024 && i < 4)
        v /= 1024, i++;
    snprintf(b, cap, i ? "%.3g %s" : "%.0f %s", v, u[i]);
}

static void head(dump *P, dump_html *H, int status)
{
    FILE *f = H->out.f;
    dw_dissect_stats t;
    dw_dissect_stats_get(P->ds, &t);
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head>"
          "<meta charset=\"utf-8\"/><title>ddpwire dump report: ", f);
    esc(f, P->o.nfiles ? P->o.files[0] : P->o.iface ? P->o.iface : "capture");
    fprintf(f, "</title><style>%s</style></head>\n<body>\n<h1>ddpwire dump report</h1>\n", css);
    fprintf(f, "<p class=\"verdict v%d\" id=\"verdict\" data-exit=\"%d\">", status, status);
    esc(f, dump_verdict(status));
    if (P->why[0]) {
        fputs(": ", f);
        esc(f, P->why);
    }
    fputs("</p>\n<table id=\"capture\">\n<tr><th>capture</th><td>", f);
    for (size_t i = 0; i < P->o.nfiles; i++) {
        struct stat st;
        char sz[32] = "";
        if (strcmp(P->o.files[i], "-") && !stat(P->o.files[i], &st))
            octets(sz, sizeof sz, (double)st.st_size);
        fputs(i ? "<br/>" : "", f);
        esc(f, P->o.files[i]);
        fprintf(f, "%s%s%s", sz[0] ? " (" : "", sz, sz[0] ? ")" : "");
    }
    if (P->o.iface) {
        fputs("live on ", f);
        esc(f, P->o.iface);
    }
    if (P->o.filter[0]) {
        fputs(", filter <span class=\"cmd\">", f);
        esc(f, P->o.filter);
        fputs("</span>", f);
    }
    if (P->incomplete) {
        fputs("<br/>", f);
        esc(f, P->incomplete);
    }
    fprintf(f, "</td></tr>\n<tr><th>packets</th><td>%" PRIu64 " (%" PRIu64 " TCP, %" PRIu64
               " other, %" PRIu64 " unreadable); %" PRIu64 " IPoIB frames</td></tr>\n"
               "<tr><th>connections</th><td>%" PRIu64 "</td></tr>\n"
               "<tr><th>problems</th><td>%" PRIu64 " protocol errors (the peers'), %" PRIu64
               " incomplete (the capture's)</td></tr>\n<tr><th>made by</th><td class=\"cmd\">",
            t.packets, t.tcp_packets, t.not_tcp, t.unreadable, P->ipoib, t.flows_seen,
            t.protocol_errors, t.incomplete);
    esc(f, H->cmd);
    fprintf(f, "</td></tr>\n<tr><th>ddpwire</th><td>%s</td></tr>\n</table>\n", dw_version());
    if (H->nglobal) {
        fprintf(f, "<h2>Errors outside connections</h2>\n<ol class=\"errs\" id=\"global\">\n");
        err_items(f, H->global, H->nglobal);
        if (H->global_total > H->nglobal)
            fprintf(f, "<p>and %" PRIu64 " more (dump -v lists all)</p>\n",
                    H->global_total - H->nglobal);
    }
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void cell_kinds(FILE *f, const html_dir *h)
{
    fputs("<td>", f);
    for (size_t i = 0; i < h->nkinds; i++)
        fprintf(f, "%s%s %" PRIu64, i ? ", " : "", h->kind[i].kind, h->kind[i].n);
    if (!h->nkinds)
        fputs("none", f);
    fputs("</td>", f);
}

static void cell_ddp(FILE *f, const dw_rdma_check_stats *r)
{
    if (r->active <= 0) {
        fputs("<td>-</td>", f);
        return;
    }
    fprintf(f, "<td>%" PRIu64 " messages: %" PRIu64 " Send (%" PRIu64 " with Invalidate), %" PRIu64
               " Write, %" PRIu64 " Read Request, %" PRIu64 " Read Response, %" PRIu64
               " Terminate; <span class=\"%s\">%" PRIu64 " violations</span>",
            r->messages, r->sends, r->sends_inv, r->writes, r->read_requests, r->read_responses,
            r->terminates, r->violations ? "bad" : "ok", r->violations);
    if (r->reads_pending)
        fprintf(f, "; %" PRIu64 " Read Requests unanswered", r->reads_pending);
    fputs("</td>", f);
}

static void row(FILE *f, const html_flow *r, int k)
{
    const html_dir *h = &r->dir[k];
    const dw_dissect_dir *d = &h->d;
    const dw_mpa_check_stats *ms = &h->st.mpa;
    const dw_ift_check_stats *x = &h->st.ift;
    int ift = d->framing == DW_DISSECT_FOUND_IFT;
    uint64_t frames = ift ? x->frames : ms->fpdus, al = ift ? x->aligned : ms->aligned;
    char oc[32], alg[32] = "-";
    octets(oc, sizeof oc, (double)d->octets);
    if (frames)
        snprintf(alg, sizeof alg, "%.1f %%", pct(al, frames));
    fprintf(f, "<tr data-flow=\"%" PRIu64 "\" data-dir=\"%s\" data-protocol-errors=\"%" PRIu64
               "\" data-incomplete=\"%" PRIu64 "\">", r->id, dump_dir_name(k),
            d->protocol_errors, d->incomplete);
    if (!k) {
        int ulp = r->ulp && r->ulp[0] && strcmp(r->ulp, "none") && strcmp(r->ulp, "unknown");
        fprintf(f, "<td rowspan=\"2\"><a href=\"#flow-%" PRIu64 "\">%" PRIu64 "</a></td>"
                   "<td rowspan=\"2\">", r->id, r->id);
        esc(f, r->client);
        fputs(" &#8594; ", f);
        esc(f, r->server);
        fprintf(f, "</td><td rowspan=\"2\">%s%s%s</td><td rowspan=\"2\" class=\"%s\">%s</td>",
                r->framing, ulp ? ", " : "", ulp ? r->ulp : "", r->ok ? "ok" : "bad",
                r->ok ? "ok" : "PROBLEMS");
    }
    fprintf(f, "<td>%s</td><td>%s</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s</td>"
               "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%s</td>"
               "<td class=\"n%s\">%" PRIu64 "</td><td class=\"n%s\">%" PRIu64 "</td>",
            dump_dir_name(k), dw_dissect_framing_name(d->framing), d->packets, oc, frames, alg,
            d->protocol_errors ? " bad" : "", d->protocol_errors, d->incomplete ? " bad" : "",
            d->incomplete);
    cell_kinds(f, h);
    cell_ddp(f, &h->st.rdma);
    peer_rule pr[3];
    size_t n = d->framing == DW_DISSECT_FOUND_MPA ? peer_rules(ms, pr) : 0;
    fputs("<td>", f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? "; " : "", f);
        esc(f, pr[i].text);
        fprintf(f, " (%" PRIu64 " time%s)", pr[i].count, pr[i].count == 1 ? "" : "s");
    }
    fputs(n ? "</td></tr>\n" : "none</td></tr>\n", f);
}

static void table(dump_html *H)
{
    FILE *f = H->out.f;
    fputs("<h2>Connections</h2>\n<table id=\"flows\">\n<tr><th>flow</th><th>client &#8594; "
          "server</th><th>framing</th><th>verdict</th><th>dir</th><th>found</th><th>packets</th>"
          "<th>octets</th><th>FPDUs / frames</th><th>aligned</th><th>protocol errors</th>"
          "<th>incomplete</th><th>errors by kind</th><th>DDP/RDMAP</th>"
          "<th>peer sender-rule violations</th></tr>\n", f);
    for (size_t i = 0; i < H->nflow; i++)
        if (H->flow[i]->ended)
            for (int k = 0; k < 2; k++)
                row(f, H->flow[i], k);
    fputs("</table>\n", f);
    if (H->flows_total > H->nflow)
        fprintf(f, "<p>and %" PRIu64 " more connections, not listed (dump --json lists all)</p>\n",
                H->flows_total - H->nflow);
}

/* ---- timelines -------------------------------------------------------- */

static double xat(const html_tl *t, uint64_t off)
{
    double span = t->end ? (double)t->end : 1.0;
    double v = (double)off / span;
    return LBL + (v > 1 ? 1 : v) * PWD;
}

/* A count as a bar height: 1..4 steps, log scale against the row's most. */
static int level(uint32_t c, uint32_t max)
{
    if (!c)
        return 0;
    int l = 1 + (int)floor(3.0 * log2(1.0 + c) / log2(1.0 + (max ? max : 1)));
    return l > 4 ? 4 : l;
}

typedef struct rowdef {
    const char *label, *color, *bad_color;
} rowdef;

/* Row r of the bins, run-length merged: a rect per run of one level and
 * colour, so a uniform stream costs one element however long. */
static void tl_row(FILE *f, const html_tl *t, int r, const rowdef *rd)
{
    uint32_t v[HTML_BINS], bad[HTML_BINS], max = 0;
    for (size_t i = 0; i < HTML_BINS; i++) {
        const html_bin *b = &t->bin[i];
        v[i] = r == 0 ? b->segs : r == 1 ? b->rexmit : r == 2 ? b->fpdus : b->markers;
        bad[i] = r == 2 ? b->unaligned : r == 3 ? b->bad_markers : 0;
        max = v[i] > max ? v[i] : max;
    }
    double y0 = 6 + r * PITCH;
    for (size_t i = 0; i < HTML_BINS;) {
        int l = level(v[i], max), c = bad[i] > 0;
        size_t j = i + 1;
        while (j < HTML_BINS && level(v[j], max) == l && (bad[j] > 0) == c)
            j++;
        if (l) {
            double x0 = xat(t, (uint64_t)i << t->shift), x1 = xat(t, (uint64_t)j << t->shift);
            double h = ROWH * l / 4.0;
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>",
                    x0, y0 + ROWH - h, x1 - x0 < 0.6 ? 0.6 : x1 - x0, h,
                    c ? rd->bad_color : rd->color);
        }
        i = j;
    }
    fputc('\n', f);
}

static void tl_errors(FILE *f, const html_tl *t)
{
    double y = 6 + 4 * PITCH;
    for (size_t i = 0; i < HTML_BINS; i++) {
        const html_bin *b = &t->bin[i];
        if (!b->errors)
            continue;
        double x = xat(t, ((uint64_t)i << t->shift) + ((uint64_t)1 << t->shift) / 2);
        fprintf(f, "<path class=\"errmark\" data-pkt=\"%" PRIu64 "\" d=\"M%.1f %.1fl-6 %.1fh12z\" "
                   "fill=\"#b02a37\"><title>", b->err_pkt, x, y, ROWH);
        if (b->err_idx >= 0)
            esc(f, t->lines[b->err_idx]);
        else
            fprintf(f, "ERROR %s pkt %" PRIu64, b->err_kind ? b->err_kind : "", b->err_pkt);
        if (b->errors > 1)
            fprintf(f, " (and %u more errors here)", b->errors - 1);
        fputs("</title></path>\n", f);
    }
}

static void tl_axis(FILE *f, const html_tl *t)
{
    double span = t->end ? (double)t->end : 1.0, y = 6 + NROWS * PITCH, unit = 1;
    while (unit * 1024 <= span / 2)
        unit *= 1024; /* steps of 1, 2 or 5 (x 10^k) KiB, MiB ...: round labels */
    double raw = span / unit / 6, mag = pow(10, floor(log10(raw))), q = raw / mag;
    double step = (q < 1.5 ? 1 : q < 3.5 ? 2 : q < 7.5 ? 5 : 10) * mag * unit;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", LBL, y,
            LBL + PWD, y);
    for (double v = 0; v <= span + 1e-9; v += step) {
        char b[32];
        double x = LBL + v / span * PWD;
        octets(b, sizeof b, v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                x, y, x, y + 4, x, y + 16, b);
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">stream offset (octets)</text>\n", 4.0, y + 16);
}

static void timeline(FILE *f, const html_tl *t)
{
    static const rowdef rows[4] = {{"TCP segments", "#0072b2", "#0072b2"},
                                   {"retransmits, out of order", "#e69f00", "#e69f00"},
                                   {"FPDUs / frames", "#009e73", "#cc79a7"},
                                   {"markers", "#56b4e9", "#b02a37"}};
    double h = 6 + NROWS * PITCH + 24;
    fprintf(f, "<svg class=\"tl\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
               "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-size=\"11\">\n",
            LBL + PWD + 10, h, LBL + PWD + 10, h);
    for (int r = 0; r < NROWS; r++)
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f7f7f7\"/>"
                   "<text x=\"4\" y=\"%.1f\">%s</text>\n",
                LBL, 6 + r * PITCH, PWD, ROWH, 6 + r * PITCH + 13,
                r < 4 ? rows[r].label : "errors");
    for (int r = 0; r < 4; r++)
        tl_row(f, t, r, &rows[r]);
    for (size_t g = 0; g < t->ngaps; g++) {
        double x0 = xat(t, t->gap[g].off), x1 = xat(t, t->gap[g].off + t->gap[g].len);
        fprintf(f, "<rect class=\"gap\" x=\"%.1f\" y=\"4\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"#d55e00\" fill-opacity=\"0.45\"><title>gap: %" PRIu64 " octets at "
                   "offset %" PRIu64 " not in the capture", x0, x1 - x0 < 3 ? 3 : x1 - x0,
                NROWS * PITCH, t->gap[g].len, t->gap[g].off);
        if (t->gap[g].pkt && t->gap[g].pkt != UINT64_MAX)
            fprintf(f, " (pkt %" PRIu64 ")", t->gap[g].pkt);
        fputs("</title></rect>\n", f);
    }
    tl_errors(f, t);
    tl_axis(f, t);
    fputs("</svg>\n", f);
}

static void key(FILE *f)
{
    fputs("<p class=\"key\">Each timeline spans its direction's stream (octets since its "
          "first data octet); bar height: how many fall in a pixel (log scale)."
          "<br/><span style=\"background:#0072b2\"></span>TCP segments"
          "<span style=\"background:#e69f00\"></span>retransmissions, overlaps, out of order"
          "<span style=\"background:#009e73\"></span>FPDUs or IFT frames, header-aligned"
          "<span style=\"background:#cc79a7\"></span>some not aligned"
          "<span style=\"background:#56b4e9\"></span>markers"
          "<span style=\"background:#b02a37\"></span>wrong markers, errors (hover: the words "
          "dump prints)<span style=\"background:#d55e00;opacity:.3\"></span>gaps</p>\n", f);
}

static void flow_timelines(FILE *f, const html_flow *r)
{
    fprintf(f, "<section id=\"flow-%" PRIu64 "\"><h3>flow %" PRIu64 " ", r->id, r->id);
    esc(f, r->client);
    fputs(" &#8594; ", f);
    esc(f, r->server);
    fprintf(f, " %s: <span class=\"%s\">%s</span></h3>\n", r->framing, r->ok ? "ok" : "bad",
            r->ok ? "ok" : "PROBLEMS");
    for (int k = 0; k < 2; k++) {
        const html_dir *h = &r->dir[k];
        const html_tl *t = h->tl;
        fprintf(f, "<h4 id=\"flow-%" PRIu64 "-%s\">%s (", r->id, dump_dir_name(k),
                dump_dir_name(k));
        esc(f, k ? r->server : r->client);
        fprintf(f, " sends): %s, %" PRIu64 " packets, %" PRIu64 " octets, %" PRIu64
                   " protocol errors, %" PRIu64 " incomplete</h4>\n",
                dw_dissect_framing_name(h->d.framing), h->d.packets, h->d.octets,
                h->d.protocol_errors, h->d.incomplete);
        if (!h->d.packets && !h->errors)
            continue;
        timeline(f, t);
        if (!t->nlines)
            continue;
        fprintf(f, "<ol class=\"errs\" data-flow=\"%" PRIu64 "\" data-dir=\"%s\">\n", r->id,
                dump_dir_name(k));
        err_items(f, t->lines, t->nlines);
        if (h->errors > t->nlines)
            fprintf(f, "<p>and %" PRIu64 " more errors in this direction (dump -v lists all)</p>\n",
                    h->errors - t->nlines);
    }
    fputs("</section>\n", f);
}

void html_page(dump *P, dump_html *H, int status)
{
    FILE *f = H->out.f;
    head(P, H, status);
    table(H);
    fputs("<h2>Timelines</h2>\n", f);
    key(f);
    size_t drawn = 0;
    for (size_t i = 0; i < H->nflow; i++)
        if (H->flow[i]->ended && H->flow[i]->dir[0].tl && H->flow[i]->dir[1].tl) {
            flow_timelines(f, H->flow[i]);
            drawn++;
        }
    if (H->flows_total > drawn)
        fprintf(f, "<p>Timelines for the first %zu connections; %" PRIu64 " more are in the "
                   "table only.</p>\n", drawn, H->flows_total - drawn);
    fputs("</body></html>\n", f);
}
