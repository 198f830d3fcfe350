/* SPDX-License-Identifier: MIT */
/*
 * ddpwire analyze buffers: the analysis text's section 7, reproduced.
 *
 * The claim: a receiver of FPDUs that are not aligned with TCP segments
 * must hold parts of FPDUs per connection, BufferSizeNAF = K1 x EMSS x
 * connections + K2 x EMSS (its example: 1 Gb/s, 10,000 connections, EMSS
 * 1500 B, 15 MB), where header alignment needs only BufferSizeAF = K2 x
 * EMSS, whatever the number of connections.
 *
 * The same MPA stream (FPDUs of MULPDU octets) is sent per connection
 * through the network simulator, aligned (one FPDU per segment, kept on
 * retransmission, MPA 7.3) or through a re-segmenting middlebox (random
 * cuts), under the same loss, into the segment receiver. Held octets (the
 * store plus the partial in-order FPDU) are followed after every segment;
 * connections are interleaved round robin, each segment of each one a time
 * slot, and the peak of their sum is taken.
 */
#include <ddpwire/mpa.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ddpwire_sim/netsim.h>
#include <ddpwire/mpa_seg.h>
#include "analyze.h"
#include "cli.h"
#include "svg.h"

typedef struct opts {
    uint64_t emss, fpdus, loss_ppm, reorder_ppm, cut_min, seed, max_conns;
    const char *svg; /* --svg FILE */
} opts;

typedef struct stream {
    uint8_t *wire;
    size_t len, n;
    dw_mpa_fpdu_info *info;
    uint32_t ulpdu;
} stream;

/* What one case gave. */
typedef struct res {
    uint64_t ulpdus, early, fallbacks, incomplete;
    uint64_t conn_peak_max, conn_peak_sum, total_peak;
    size_t nconn;
} res;

/* Changes of the held total, by time slot (arrival * connections + conn). */
typedef struct series {
    int64_t *d;
    size_t cap;
} series;

static void help(void)
{
    printf("usage: ddpwire analyze buffers [--emss N] [--fpdus N] [--loss-ppm N]\n"
           "         [--reorder-ppm N] [--cut-min N] [--seed N] [--max-conns N] [--svg FILE]\n"
           "Receive buffering of header-aligned FPDUs versus FPDUs re-cut by a\n"
           "middlebox, under the same loss (analysis text section 7: BufferSizeAF\n"
           "versus BufferSizeNAF). Each connection sends --fpdus FPDUs of MULPDU\n"
           "octets (default 32, EMSS 1500); segments are lost with --loss-ppm\n"
           "(default 10000: 1 %%) and sent again; the middlebox cuts segments of\n"
           "--cut-min (default EMSS/2) to EMSS octets. Prints the share of ULPDUs\n"
           "placed before their turn, peak octets held per connection, and the peak\n"
           "total for 1, 100 and 10,000 connections interleaved (--max-conns limits).\n"
           "--svg FILE: a figure of the peak held per connection against the loss rate\n"
           "and against the reordering rate (0..5 %%), aligned and re-cut, for 100\n"
           "connections (or --max-conns when fewer), with the text's 15 MB example.\n");
}

static int build(stream *s, uint32_t emss, size_t n)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.emss = emss;
    dw_mpa_tx *tx;
    if (dw_mpa_tx_new(&tx, &ts))
        return -1;
    s->ulpdu = dw_mpa_tx_mulpdu(tx);
    size_t cap = n * (dw_mpa_fpdu_len(0, s->ulpdu, 1) + 8);
    uint8_t *rec = malloc(s->ulpdu);
    s->wire = malloc(cap);
    s->info = calloc(n, sizeof *s->info);
    s->n = n;
    s->len = 0;
    int rc = rec && s->wire && s->info ? 0 : -1;
    for (size_t i = 0; rec && i < s->ulpdu; i++)
        rec[i] = (uint8_t)(i * 131u + 7u);
    for (size_t i = 0; !rc && i < n; i++) {
        ssize_t w = dw_mpa_tx_frame_into(tx, rec, s->ulpdu, s->wire + s->len,
                                         cap - s->len, &s->info[i]);
        rc = w > 0 ? 0 : -1;
        s->len += w > 0 ? (size_t)w : 0;
    }
    free(rec);
    dw_mpa_tx_del(tx);
    if (rc) {
        free(s->wire);
        free(s->info);
    }
    return rc;
}

static int series_add(series *s, size_t t, int64_t v)
{
    if (t >= s->cap) {
        size_t c = s->cap ? s->cap : 1u << 16;
        while (c <= t)
            c *= 2;
        int64_t *d = realloc(s->d, c * sizeof *d);
        if (!d)
            return -1;
        memset(d + s->cap, 0, (c - s->cap) * sizeof *d);
        s->d = d;
        s->cap = c;
    }
    s->d[t] += v;
    return 0;
}

static void on_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r, (void)d, (void)p, (void)u;
}

/* Feeds one connection's segments; every change of its held octets goes
 * into the series at its time slots. */
static int one_conn(const opts *o, const stream *st, int middlebox, size_t store,
                    size_t c, size_t nconn, series *ts, res *out)
{
    dw_netsim_settings ns;
    dw_netsim_settings_default(&ns);
    ns.seed = o->seed * 1000003u + c;
    ns.cut = middlebox ? DW_NETSIM_RESEG : DW_NETSIM_ALIGNED;
    ns.emss = (uint32_t)o->emss;
    ns.reseg_min = (uint32_t)(o->cut_min ? o->cut_min : o->emss / 2);
    ns.loss_ppm = (uint32_t)o->loss_ppm;
    ns.reorder_ppm = (uint32_t)o->reorder_ppm;
    ns.recut_ppm = middlebox ? 1000000 : 0; /* MPA 7.3: aligned keeps its cuts */
    dw_mpa_seg_settings rs;
    dw_mpa_seg_settings_default(&rs);
    rs.store_bytes = store;
    rs.max_pending = 4096;
    dw_mpa_seg_callbacks cb = {on_place, NULL, NULL};
    dw_netsim *sim;
    dw_mpa_seg *r;
    if (dw_netsim_new(&sim, &ns, st->wire, st->len, st->info, st->n))
        return -1;
    if (dw_mpa_seg_new(&r, &rs, &cb, NULL)) {
        dw_netsim_del(sim);
        return -1;
    }
    dw_mpa_seg_stats x;
    dw_netsim_seg sg;
    size_t j = 0;
    uint64_t prev = 0;
    int rc = 0;
    for (int round = 0; round < 1000 && !rc; round++) {
        while (!rc && dw_netsim_next(sim, &sg)) {
            if (dw_mpa_seg_feed(r, sg.seq, sg.data, sg.len) == DW_ERR_NOMEM) {
                rc = -1; /* out of memory: no figure from half a connection */
                break;
            }
            dw_mpa_seg_stats_get(r, &x);
            rc = series_add(ts, j++ * nconn + c, (int64_t)x.held - (int64_t)prev);
            prev = x.held;
        }
        dw_mpa_seg_range sack[64];
        size_t n = dw_mpa_seg_sack(r, sack, 64);
        ssize_t added = rc ? 0 : dw_netsim_recover(sim, dw_mpa_seg_ack(r), sack, n < 64 ? n : 64);
        if (added < 0)
            rc = -1; /* the schedule could not grow */
        if (added <= 0)
            break;
    }
    dw_mpa_seg_stats_get(r, &x);
    out->ulpdus += x.placed;
    out->early += x.placed_early;
    out->fallbacks += x.fallbacks;
    out->incomplete += x.delivered != st->n || dw_mpa_seg_failed(r);
    out->conn_peak_max = x.held_peak > out->conn_peak_max ? x.held_peak : out->conn_peak_max;
    out->conn_peak_sum += x.held_peak;
    dw_mpa_seg_del(r);
    dw_netsim_del(sim);
    return rc;
}

static int measure(const opts *o, const stream *st, int middlebox, size_t nconn,
                   size_t store, res *out)
{
    series s = {NULL, 0};
    memset(out, 0, sizeof *out);
    out->nconn = nconn;
    for (size_t c = 0; c < nconn; c++)
        if (one_conn(o, st, middlebox, store, c, nconn, &s, out)) {
            free(s.d);
            return -1;
        }
    int64_t sum = 0, peak = 0;
    for (size_t t = 0; t < s.cap; t++) {
        sum += s.d[t];
        peak = sum > peak ? sum : peak;
    }
    out->total_peak = (uint64_t)peak;
    free(s.d);
    return 0;
}

int analyze_buffers_model(uint32_t emss, size_t fpdus, uint32_t loss_ppm, uint32_t reorder_ppm,
                          int middlebox, uint64_t seed, analyze_model *out)
{
    opts o = {emss, fpdus, loss_ppm, reorder_ppm, 0, seed, 1, NULL};
    stream st;
    res r;
    memset(out, 0, sizeof *out);
    if (build(&st, emss, fpdus))
        return -1;
    int rc = measure(&o, &st, middlebox, 1, 1u << 20, &r);
    free(st.wire);
    free(st.info);
    if (rc)
        return -1;
    out->ulpdus = r.ulpdus;
    out->early = r.early;
    out->held_peak = r.conn_peak_max;
    out->ulpdu_len = st.ulpdu;
    return 0;
}

/* Octets in B, kB or MB (powers of 1000, as the text's "15 MB"). */
static const char *human(uint64_t v, char *buf, size_t cap)
{
    if (v < 10000)
        snprintf(buf, cap, "%llu B", (unsigned long long)v);
    else if (v < 1000000)
        snprintf(buf, cap, "%.1f kB", (double)v / 1e3);
    else
        snprintf(buf, cap, "%.2f MB", (double)v / 1e6);
    return buf;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

#define NUM(name, field, min, max)                                                               \
    CLI_OPT(name, CLI_K_U64, CLI_PTR_(uint64_t, &o->field), min, max, "a value", NULL)

/* CLI_GO to run, else the exit status. */
static int parse(int argc, char **argv, opts *o)
{
    const cli_opt t[] = {
        NUM("--emss", emss, 256, 65535),
        NUM("--fpdus", fpdus, 1, 1000000),
        NUM("--loss-ppm", loss_ppm, 0, 500000),
        NUM("--reorder-ppm", reorder_ppm, 0, 1000000),
        NUM("--cut-min", cut_min, 1, 65535),
        NUM("--seed", seed, 0, UINT64_MAX),
        NUM("--max-conns", max_conns, 1, 100000),
        CLI_STR("--svg", &o->svg, "a file to write"),
    };
    int r = cli_parse(argc, argv, "ddpwire analyze buffers", help, t, CLI_N(t), NULL, NULL);
    if (r == CLI_GO && o->cut_min > o->emss) {
        fprintf(stderr, "ddpwire analyze buffers: --cut-min is larger than --emss\n");
        return 2;
    }
    return r;
}

static void report(const opts *o, const stream *st, const res *al, const res *mb,
                   const res *al0, const res *mb0, size_t nrow)
{
    char a[32], b[32], c[32];
    printf("ddpwire analyze buffers: EMSS %llu, FPDUs of %u-octet ULPDUs (MULPDU), "
           "%llu per connection,\nloss %.2f %%, reordering %.2f %%, middlebox cuts "
           "%llu..%llu octets, seed %llu\n\n",
           (unsigned long long)o->emss, st->ulpdu, (unsigned long long)o->fpdus,
           (double)o->loss_ppm / 1e4, (double)o->reorder_ppm / 1e4,
           (unsigned long long)(o->cut_min ? o->cut_min : o->emss / 2),
           (unsigned long long)o->emss, (unsigned long long)o->seed);
    const res *la = &al[nrow - 1], *lm = &mb[nrow - 1];
    printf("%-44s %12s %12s\n", "", "aligned", "middlebox");
    printf("%-44s %10.1f %% %10.1f %%\n", "ULPDUs placed before their turn",
           pct(la->early, la->ulpdus), pct(lm->early, lm->ulpdus));
    printf("%-44s %10.1f %% %10.1f %%\n", "  the same with no reassembly store",
           pct(al0->early, al0->ulpdus), pct(mb0->early, mb0->ulpdus));
    printf("%-44s %12s %12s\n", "peak held by one connection (largest)",
           human(la->conn_peak_max, a, sizeof a), human(lm->conn_peak_max, b, sizeof b));
    printf("%-44s %12s %12s\n", "peak held by one connection (mean)",
           human(la->conn_peak_sum / la->nconn, a, sizeof a),
           human(lm->conn_peak_sum / lm->nconn, b, sizeof b));
    printf("\npeak held in total, connections interleaved:\n");
    printf("%12s %14s %14s %16s\n", "connections", "aligned", "middlebox",
           "per connection");
    for (size_t i = 0; i < nrow; i++)
        printf("%12zu %14s %14s %16s\n", al[i].nconn,
               human(al[i].total_peak, a, sizeof a), human(mb[i].total_peak, b, sizeof b),
               human(mb[i].total_peak / mb[i].nconn, c, sizeof c));
    double k2 = (double)la->total_peak / (double)o->emss;
    double k1 = ((double)lm->total_peak - (double)la->total_peak) /
                ((double)o->emss * (double)lm->nconn);
    printf("\nBufferSizeAF  = K2 x EMSS:                    K2 = %.2f\n", k2);
    printf("BufferSizeNAF = K1 x EMSS x N + K2 x EMSS:    K1 = %.2f (N = %zu)\n", k1,
           lm->nconn);
    printf("The text's example, 10,000 connections on 1 Gb/s with EMSS 1500 (link speed\n"
           "does not enter K1 x EMSS x N): K1 = 1 gives %s; K1 = %.2f as measured\n"
           "gives %s non-aligned, against %s aligned.\n",
           human(10000ull * 1500, a, sizeof a), k1,
           human((uint64_t)(k1 * 1500.0 * 10000.0 + k2 * 1500.0), b, sizeof b),
           human((uint64_t)(k2 * 1500.0), c, sizeof c));
    uint64_t bad = 0;
    for (size_t i = 0; i < nrow; i++)
        bad += al[i].incomplete + mb[i].incomplete + al[i].fallbacks + mb[i].fallbacks;
    if (bad)
        printf("warning: %llu connections incomplete or short of store\n",
               (unsigned long long)bad);
}

/* The figure: peak octets held per connection against the loss rate (no
 * reordering) and the reordering rate (no loss), aligned and re-cut. */
#define FIG_N 7
static int figure(const opts *o, const stream *st, const char *cmd)
{
    static const double rate[FIG_N] = {0, 0.25, 0.5, 1, 2, 3, 5}; /* percent */
    size_t nconn = o->max_conns < 100 ? (size_t)o->max_conns : 100;
    double y[2][2][FIG_N]; /* [loss/reorder][aligned/middlebox] */
    for (int k = 0; k < 2; k++)
        for (int mb = 0; mb < 2; mb++)
            for (size_t i = 0; i < FIG_N; i++) {
                opts c = *o;
                res r;
                c.loss_ppm = k ? 0 : (uint64_t)(rate[i] * 1e4);
                c.reorder_ppm = k ? (uint64_t)(rate[i] * 1e4) : 0;
                if (measure(&c, st, mb, nconn, 1u << 20, &r))
                    return cli_nomem("ddpwire analyze buffers", "the figure's model");
                y[k][mb][i] = (double)r.total_peak / (double)nconn;
            }
    svg_series s[4] = {
        {"re-cut by a middlebox, loss", rate, y[0][1], FIG_N, SVG_LINE | SVG_POINTS, 0, 1},
        {"header-aligned, loss", rate, y[0][0], FIG_N, SVG_LINE | SVG_POINTS, 0, 0},
        {"re-cut by a middlebox, reordering", rate, y[1][1], FIG_N, SVG_LINE | SVG_SQUARES, 1, 1},
        {"header-aligned, reordering", rate, y[1][0], FIG_N, SVG_LINE | SVG_SQUARES, 1, 0}};
    svg_ref refs[1] = {{(double)o->emss,
                        "text: K1 x EMSS per connection, K1 = 1 (15 MB / 10,000 conns)"}};
    char note[320];
    snprintf(note, sizeof note,
             "Network simulator into the MPA segment receiver: %zu connections interleaved, "
             "%llu FPDUs of %u-octet ULPDUs each, EMSS %llu; the middlebox cuts %llu..%llu "
             "octets; lost segments sent again; seed %llu. Peak of the total held, divided by "
             "the connections.",
             nconn, (unsigned long long)o->fpdus, st->ulpdu, (unsigned long long)o->emss,
             (unsigned long long)(o->cut_min ? o->cut_min : o->emss / 2),
             (unsigned long long)o->emss, (unsigned long long)o->seed);
    svg_plot pl = {"Receive buffering: octets held per connection (analysis text section 7)",
                   {"segments lost, or reordered (% of segments)", 0, 5.2, 0},
                   {"peak octets held per connection (octets)", 0, 0, 0},
                   s, 4, refs, 1, note, cmd};
    return svg_plot_save(&pl, o->svg, NULL, 0, "ddpwire analyze buffers");
}

int analyze_buffers(int argc, char **argv)
{
    opts o = {1500, 32, 10000, 0, 0, 1, 10000, NULL};
    int p = parse(argc, argv, &o);
    if (p != CLI_GO)
        return p;
    stream st;
    if (build(&st, (uint32_t)o.emss, (size_t)o.fpdus))
        return cli_nomem("ddpwire analyze buffers", "the stream");
    static const size_t counts[3] = {1, 100, 10000};
    res al[3], mb[3], al0, mb0;
    size_t nrow = 0, store = 1u << 20;
    int rc = 0;
    for (size_t i = 0; i < 3 && !rc && counts[i] <= o.max_conns; i++, nrow++)
        rc = measure(&o, &st, 0, counts[i], store, &al[i]) ||
             measure(&o, &st, 1, counts[i], store, &mb[i]);
    if (!rc) /* the same connections with no store */
        rc = measure(&o, &st, 0, counts[nrow - 1], 0, &al0) ||
             measure(&o, &st, 1, counts[nrow - 1], 0, &mb0);
    if (!rc)
        report(&o, &st, al, mb, &al0, &mb0, nrow);
    else
        rc = cli_nomem("ddpwire analyze buffers", "the model");
    if (!rc && o.svg) {
        char *cmd = svg_command("ddpwire analyze", argc, argv);
        rc = !cmd ? cli_nomem("ddpwire analyze buffers", "the figure") : figure(&o, &st, cmd);
        rc = rc < 0 ? 1 : rc;
        free(cmd);
    }
    free(st.wire);
    free(st.info);
    return rc;
}
