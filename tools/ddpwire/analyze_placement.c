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
#include <string.h>

#include "analyze.h"
#include "cli.h"

typedef struct pl {
    int json;
    const char *file;
    uint64_t store;
    int mpa_port;
    uint64_t dirs, errors;
    uint64_t nomem; /* models not made for want of memory */
} pl;

static void help(void)
{
    printf("usage: ddpwire analyze placement [--json] [--store N] [--mpa-start PORT] FILE\n"
           "For every MPA direction of the capture whose start is known before its data\n"
           "(RFC 5044 frames, or --mpa-start PORT), feeds its TCP segments in capture\n"
           "order to an MPA segment receiver (--store octets of out-of-order store,\n"
           "default 1M): ULPDUs placed on arrival before their turn, octets held (peak,\n"
           "mean); and analyze buffers' model for the same EMSS, loss (segments sent\n"
           "again) and reordering (segments out of order), aligned or re-cut as the\n"
           "capture's FPDUs were. Exit 0, 1 when the receiver reported an MPA error,\n"
           "2 usage, 4 no MPA direction to analyse, 5 could not complete (memory).\n");
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
    if (P->json) {
        printf("{\"type\":\"placement\",\"flow\":%" PRIu64 ",\"dir\":\"%s\",\"ulpdus\":%" PRIu64
               ",\"placed_early\":%" PRIu64 ",\"held_peak\":%" PRIu64 ",\"held_mean\":%" PRIu64
               ",\"segments\":%" PRIu64 ",\"retransmits\":%" PRIu64 ",\"out_of_order\":%" PRIu64
               ",\"emss\":%" PRIu64 ",\"aligned\":%s,\"mpa_error\":%d,\"model\":",
               f->id, d->dir ? "s2c" : "c2s", s->placed, s->placed_early, s->held_peak,
               st.held_mean, s->segments, st.seg_retransmits, st.reasm.out_of_order, st.emss,
               recut ? "false" : "true", st.seg_error);
        if (mrc)
            printf("null}\n");
        else
            printf("{\"ulpdu_len\":%u,\"placed_early\":%" PRIu64 ",\"ulpdus\":%" PRIu64
                   ",\"held_peak\":%" PRIu64 "}}\n",
                   m.ulpdu_len, m.early, m.ulpdus, m.held_peak);
        return;
    }
    printf("flow %" PRIu64 " %s: %" PRIu64 " ULPDUs, %.1f %% placed before their turn; held "
           "peak %" PRIu64 " B, mean %" PRIu64 " B; %" PRIu64 " segments, %" PRIu64
           " sent again, %" PRIu64 " out of order; EMSS %" PRIu64 "%s%s\n",
           f->id, d->dir ? "s2c" : "c2s", s->placed, pct(s->placed_early, s->placed),
           s->held_peak, st.held_mean, s->segments, st.seg_retransmits, st.reasm.out_of_order,
           st.emss, recut ? ", FPDUs not aligned" : "", st.seg_error ? ", MPA ERROR" : "");
    if (!mrc)
        printf("  model (analyze buffers, %s, loss %.2f %%, reordering %.2f %%, %u-octet "
               "ULPDUs): %.1f %% placed before their turn, held peak %" PRIu64 " B\n",
               recut ? "re-cut" : "aligned", loss / 1e4, reorder / 1e4, m.ulpdu_len,
               pct(m.early, m.ulpdus), m.held_peak);
}

static void on_flow_end(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    for (int k = 0; k < 2; k++)
        one_dir(u, f, dw_dissect_flow_dir(f, k));
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
    while (pcap_next_ex(pc, &h, &p) == 1)
        dw_dissect_packet(D, lt, 0, p, h->caplen, h->len);
    pcap_close(pc);
    return 0;
}

int analyze_placement(int argc, char **argv)
{
    pl P = {0, NULL, 1u << 20, 0, 0, 0, 0};
    uint64_t port = 0;
    const cli_opt t[] = {
        CLI_FLAG("--json", &P.json),
        CLI_U64("--store", &P.store, 0, 1u << 30),
        CLI_U64("--mpa-start", &port, 1, 65535),
        CLI_ARG(&P.file),
    };
    int r = cli_parse(argc, argv, "ddpwire analyze placement", help, t, CLI_N(t), NULL, NULL);
    if (r != CLI_GO)
        return r;
    if (!P.file) {
        fprintf(stderr, "ddpwire analyze placement: a capture FILE is required\n");
        return 2;
    }
    dw_dissect_settings s;
    dw_dissect_settings_default(&s);
    s.placement = 1;
    s.placement_store = (size_t)P.store;
    s.mode = DW_DISSECT_MPA;
    if (port)
        s.mpa_port = (int)port;
    dw_dissect_callbacks cb = {.on_flow_end = on_flow_end};
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
        return 4;
    }
    return rc ? rc : P.errors ? 1 : 0;
}
