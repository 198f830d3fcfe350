/* SPDX-License-Identifier: MIT */
/*
 * ddpwire analyze placement: a real capture's MPA directions through the
 * segment receiver of an MPA-aware TCP (the library's dissector with
 * placement on), segment by segment in capture order: the ULPDUs it would
 * have placed on arrival (before their turn), the octets it would have had
 * to hold (peak and mean), beside what analyze buffers' model predicts for
 * that direction's EMSS, loss and reordering (analysis text section 7).
 */
#include <ddpwire/dissect.h>

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"
#include "cli_rec.h"
#include "out_file.h"
#include "svg.h"

/* --svg: octets held over capture time, per direction (the first FIG_DIRS
 * with placement), sampled after every packet when they change. */
#define FIG_DIRS 8
#define FIG_FLOWS 64
#define FIG_MAXPTS (1u << 20)

typedef struct fig_series {
    uint64_t flow;
    int dir;
    size_t n, cap;
    double *t, *held;
    uint64_t last;
} fig_series;

typedef struct pl {
    int json;
    const char *file;
    uint64_t store;
    int mpa_port;
    uint64_t dirs, errors;
    const char *svg;
    const dw_flow *live[FIG_FLOWS]; /* flows being sampled */
    fig_series fs[FIG_DIRS];
    size_t nfs;
    double t0, now;
    int fig_cut;    /* the figure holds fewer points than there were */
    uint64_t nomem; /* models not made for want of memory */
} pl;

static void help(void)
{
    printf("usage: ddpwire analyze placement [--json] [--store N] [--mpa-start PORT]\n"
           "         [--svg FILE] FILE\n"
           "For every MPA direction of the capture whose start is known before its data\n"
           "(RFC 5044 frames, or --mpa-start PORT), feeds its TCP segments in capture\n"
           "order to an MPA segment receiver (--store octets of out-of-order store,\n"
           "default 1M): ULPDUs placed on arrival before their turn, octets held (peak,\n"
           "mean); and analyze buffers' model for the same EMSS, loss (segments sent\n"
           "again) and reordering (segments out of order), aligned or re-cut as the\n"
           "capture's FPDUs were. --svg FILE: a figure of the octets held against the\n"
           "capture's time, per direction (the first 8). Exit 0, 1 when the receiver\n"
           "reported an MPA error, 2 usage, 4 no MPA direction to analyse, 5 could not\n"
           "complete (memory).\n");
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void one_dir(pl *P, const dw_flow *f, const dw_dissect_dir *d)
{
    dw_dissect_dir_stats st;
    dw_dissect_dir_stats_get(d, &st);
    if (!st.placement)
        return;
    P->dirs++;
    P->errors += st.seg_error != 0;
    const dw_mpa_seg_stats *s = &st.seg;
    uint64_t segs = s->segments ? s->segments : 1;
    uint32_t loss = (uint32_t)(st.seg_retransmits * 1000000u / segs);
    uint32_t reorder = (uint32_t)(st.reasm.out_of_order * 1000000u / segs);
    int recut = st.mpa.fpdus && st.mpa.aligned * 10 < st.mpa.fpdus * 9;
    analyze_model m;
    size_t n = s->placed < 16 ? 16 : s->placed > 4096 ? 4096 : (size_t)s->placed;
    int mrc = st.emss >= 256 ? analyze_buffers_model((uint32_t)st.emss, n, loss, reorder, recut,
                                                     f->id, &m)
                             : -1;
    if (mrc && st.emss >= 256)
        P->nomem++; /* only memory fails it: the run cannot complete */
    cli_rec r;
    cli_rec_init(&r, "placement");
    cli_rec_u64(&r, "flow", f->id);
    cli_rec_str(&r, "dir", d->dir ? "s2c" : "c2s");
    cli_rec_u64(&r, "ulpdus", s->placed);
    cli_rec_u64(&r, "placed_early", s->placed_early);
    cli_rec_u64(&r, "held_peak", s->held_peak);
    cli_rec_u64(&r, "held_mean", st.held_mean);
    cli_rec_u64(&r, "segments", s->segments);
    cli_rec_u64(&r, "retransmits", st.seg_retransmits);
    cli_rec_u64(&r, "out_of_order", st.reasm.out_of_order);
    cli_rec_u64(&r, "emss", st.emss);
    cli_rec_bool(&r, "aligned", !recut);
    cli_rec_i64(&r, "mpa_error", st.seg_error);
    if (mrc) {
        cli_rec_null(&r, "model");
    } else {
        cli_rec_obj(&r, "model");
        cli_rec_u64(&r, "ulpdu_len", m.ulpdu_len);
        cli_rec_u64(&r, "placed_early", m.early);
        cli_rec_u64(&r, "ulpdus", m.ulpdus);
        cli_rec_u64(&r, "held_peak", m.held_peak);
        cli_rec_end(&r);
        cli_rec_f(&r, "model_early_pct", NULL, pct(m.early, m.ulpdus));
        cli_rec_hide(&r);
    }
    cli_rec_f(&r, "early_pct", NULL, pct(s->placed_early, s->placed));
    cli_rec_hide(&r);
    cli_rec_f(&r, "loss_pct", NULL, loss / 1e4);
    cli_rec_hide(&r);
    cli_rec_f(&r, "reorder_pct", NULL, reorder / 1e4);
    cli_rec_hide(&r);
    cli_rec_textf(&r, "notes", "%s%s", recut ? ", FPDUs not aligned" : "",
                  st.seg_error ? ", MPA ERROR" : "");
    cli_rec_textf(&r, "cut", "%s", recut ? "re-cut" : "aligned");
    cli_rec_emit(stdout, P->json, &r,
                 "flow %{flow} %{dir}: %{ulpdus} ULPDUs, %{early_pct:.1f} %% placed before their "
                 "turn; held peak %{held_peak} B, mean %{held_mean} B; %{segments} segments, "
                 "%{retransmits} sent again, %{out_of_order} out of order; EMSS %{emss}%{notes}\n");
    if (!mrc && !P->json)
        cli_rec_text(stdout, &r,
                     "  model (analyze buffers, %{cut}, loss %{loss_pct:.2f} %%, reordering "
                     "%{reorder_pct:.2f} %%, %{model.ulpdu_len}-octet ULPDUs): "
                     "%{model_early_pct:.1f} %% placed before their turn, held peak "
                     "%{model.held_peak} B\n");
}

/* The series of a direction, made when there is room; NULL if none. */
static fig_series *fig_of(pl *P, const dw_flow *f, int k)
{
    for (size_t i = 0; i < P->nfs; i++)
        if (P->fs[i].flow == f->id && P->fs[i].dir == k)
            return &P->fs[i];
    if (P->nfs == FIG_DIRS)
        return NULL;
    fig_series *s = &P->fs[P->nfs++];
    memset(s, 0, sizeof *s);
    s->flow = f->id, s->dir = k;
    return s;
}

static void fig_add(pl *P, fig_series *s, double t, uint64_t held)
{
    if (s->n && s->last == held)
        return;
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 1024;
        if (c > FIG_MAXPTS) { /* full: the figure ends here, said below */
            P->fig_cut = 1;
            return;
        }
        double *a = realloc(s->t, c * sizeof *a);
        double *b = a ? realloc(s->held, c * sizeof *b) : NULL;
        if (a)
            s->t = a;
        if (!b) { /* no memory: the run cannot complete */
            P->nomem++;
            return;
        }
        s->held = b, s->cap = c;
    }
    /* a step: the previous value up to now, then the new one */
    if (s->n && s->n + 1 < s->cap) {
        s->t[s->n] = t, s->held[s->n] = (double)s->last;
        s->n++;
    }
    s->t[s->n] = t, s->held[s->n] = (double)held;
    s->n++;
    s->last = held;
}

static void fig_sample(pl *P, const dw_flow *f)
{
    for (int k = 0; k < 2; k++) {
        dw_dissect_dir_stats st;
        dw_dissect_dir_stats_get(dw_dissect_flow_dir(f, k), &st);
        fig_series *s = st.placement ? fig_of(P, f, k) : NULL;
        if (s)
            fig_add(P, s, P->now - P->t0, st.seg.held);
    }
}

static void on_flow_start(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    pl *P = u;
    for (size_t i = 0; P->svg && i < FIG_FLOWS; i++)
        if (!P->live[i]) {
            P->live[i] = f;
            return;
        }
}

static void on_flow_end(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    pl *P = u;
    for (size_t i = 0; P->svg && i < FIG_FLOWS; i++)
        if (P->live[i] == f) {
            fig_sample(P, f);
            P->live[i] = NULL;
        }
    for (int k = 0; k < 2; k++)
        one_dir(u, f, dw_dissect_flow_dir(f, k));
}

/* At most two points (the lowest and highest) per 1/1000 of the time
 * axis, in place: the figure is bounded by its pixels, not the capture. */
static void fig_thin(fig_series *s, double tmax)
{
    size_t out = 0;
    for (size_t i = 0; i < s->n;) {
        long b = tmax > 0 ? (long)(s->t[i] / tmax * 1000.0) : 0;
        size_t lo = i, hi = i, j = i;
        for (; j < s->n && (tmax > 0 ? (long)(s->t[j] / tmax * 1000.0) : 0) == b; j++) {
            lo = s->held[j] < s->held[lo] ? j : lo;
            hi = s->held[j] > s->held[hi] ? j : hi;
        }
        size_t a = lo < hi ? lo : hi, c = lo < hi ? hi : lo;
        s->t[out] = s->t[a], s->held[out++] = s->held[a];
        if (c != a)
            s->t[out] = s->t[c], s->held[out++] = s->held[c];
        i = j;
    }
    s->n = out;
}

static int figure(pl *P, const char *cmd)
{
    double tmax = 0;
    for (size_t i = 0; i < P->nfs; i++)
        if (P->fs[i].n && P->fs[i].t[P->fs[i].n - 1] > tmax)
            tmax = P->fs[i].t[P->fs[i].n - 1];
    for (size_t i = 0; i < P->nfs; i++)
        fig_thin(&P->fs[i], tmax);
    svg_series s[FIG_DIRS];
    char names[FIG_DIRS][48];
    for (size_t i = 0; i < P->nfs; i++) {
        snprintf(names[i], sizeof names[i], "flow %llu %s", (unsigned long long)P->fs[i].flow,
                 P->fs[i].dir ? "s2c" : "c2s");
        s[i] = (svg_series){names[i], P->fs[i].t, P->fs[i].held, P->fs[i].n, SVG_LINE, 0,
                            (int)i};
    }
    char note[400];
    snprintf(note, sizeof note,
             "The capture's MPA directions fed segment by segment, in capture order, to an "
             "MPA-aware receiver (dw_mpa_seg, %llu octets of store): octets it holds (store "
             "plus the partial in-order FPDU) after each packet. Capture: %s.%s",
             (unsigned long long)P->store, P->file,
             P->fig_cut ? " Cut short: more points than the figure keeps." : "");
    svg_plot p = {"Placement: octets an MPA-aware receiver holds over the capture",
                  {"capture time (s, from the first packet)", 0, tmax > 0 ? tmax * 1.02 : 1, 0},
                  {"octets held (octets)", 0, 0, 0},
                  s, P->nfs, NULL, 0, note, cmd};
    const char *in[1] = {P->file};
    return svg_plot_save(&p, P->svg, in, 1, "ddpwire analyze placement");
}

static int read_file(pl *P, dw_dissect *D)
{
    char err[PCAP_ERRBUF_SIZE];
    errno = 0;
    pcap_t *pc = pcap_open_offline(P->file, err);
    if (!pc && errno == ENOMEM)
        return cli_cannot("ddpwire analyze placement", P->file, "out of memory");
    if (!pc) {
        fprintf(stderr, "ddpwire analyze placement: %s: %s\n", P->file, err);
        return 2;
    }
    unsigned lt = (unsigned)pcap_datalink(pc);
    struct pcap_pkthdr *h;
    const u_char *p;
    int first = 1;
    while (pcap_next_ex(pc, &h, &p) == 1) {
        P->now = (double)h->ts.tv_sec + (double)h->ts.tv_usec / 1e6;
        if (first)
            P->t0 = P->now, first = 0;
        dw_dissect_packet(D, lt, 0, p, h->caplen, h->len);
        for (size_t i = 0; P->svg && i < FIG_FLOWS; i++)
            if (P->live[i])
                fig_sample(P, P->live[i]);
    }
    pcap_close(pc);
    return 0;
}

int analyze_placement(int argc, char **argv)
{
    static pl P;
    memset(&P, 0, sizeof P);
    P.store = 1u << 20;
    uint64_t port = 0;
    const cli_opt t[] = {
        CLI_FLAG("--json", &P.json),
        CLI_U64("--store", &P.store, 0, 1u << 30),
        CLI_U64("--mpa-start", &port, 1, 65535),
        CLI_STR("--svg", &P.svg, "a file to write"),
        CLI_ARG(&P.file),
    };
    int r = cli_parse(argc, argv, "ddpwire analyze placement", help, t, CLI_N(t), NULL, NULL);
    if (r != CLI_GO)
        return r;
    if (!P.file) {
        fprintf(stderr, "ddpwire analyze placement: a capture FILE is required\n");
        return 2;
    }
    const char *in[1] = {P.file};
    if (P.svg && out_file_is_input(P.svg, in, 1)) {
        fprintf(stderr, "ddpwire analyze placement: --svg %s is the capture: not overwritten\n",
                P.svg);
        return 2;
    }
    dw_dissect_settings s;
    dw_dissect_settings_default(&s);
    s.placement = 1;
    s.placement_store = (size_t)P.store;
    s.mode = DW_DISSECT_MPA;
    if (port)
        s.mpa_port = (int)port;
    dw_dissect_callbacks cb = {.on_flow_start = on_flow_start, .on_flow_end = on_flow_end};
    dw_dissect *D;
    if (dw_dissect_new(&D, &s, &cb, &P))
        return cli_nomem("ddpwire analyze placement", "the dissector");
    int rc = read_file(&P, D);
    dw_dissect_stats ds;
    dw_dissect_stats_get(D, &ds);
    if (!rc && !ds.nomem)
        dw_dissect_finish(D);
    dw_dissect_stats_get(D, &ds);
    dw_dissect_del(D);
    if (!rc && (ds.nomem || P.nomem))
        return cli_nomem("ddpwire analyze placement", "connections or models not analysed");
    if (!rc && cli_stdout_done("ddpwire analyze placement"))
        return CLI_EXIT_RESOURCE;
    if (!rc && !P.dirs) {
        fprintf(stderr, "ddpwire analyze placement: no MPA direction whose start was seen "
                        "before its data in %s\n", P.file);
        rc = 4;
    }
    if (!rc && P.svg) {
        char *cmd = svg_command("ddpwire analyze", argc, argv);
        rc = !cmd ? cli_nomem("ddpwire analyze placement", "the figure") : figure(&P, cmd);
        rc = rc < 0 ? 1 : rc;
        free(cmd);
    }
    for (size_t i = 0; i < P.nfs; i++)
        free(P.fs[i].t), free(P.fs[i].held);
    return rc ? rc : P.errors ? 1 : 0;
}
