/* SPDX-License-Identifier: MIT */
/*
 * ddpwire analyze packing: the analysis text's section 6 ("No Packing").
 *
 * The claim: with ULPDUs of one octet of DDP payload the smallest FPDU is
 * 2 + 14 + 1 + 3 + 4 = 24 octets, so forbidding packing sends about
 * (1460 - 4 x 2.9) / 24 = 60 times as many segments on Ethernet and
 * (536 - 4 x 1.05) / 24 = 22 times as many with 536-octet packets, with
 * ACKs rising in proportion (120 segments, as many as 60 ACKs).
 *
 * Without --measure: the text's formulas with its inputs, and the exact
 * count our packer reaches (whole FPDUs, markers where the stream puts
 * them, a segment closed when the next FPDU would not fit). With
 * --measure (root): N such ULPDUs over real TCP between two namespaces,
 * aligned mode (one FPDU per segment) versus packed mode, counted in a
 * capture on the veth.
 */
#include <ddpwire/ddp.h>
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_net.h"
#include "cli.h"
#include "svg.h"

#define ULPDU_LEN (DW_DDP_TAGGED_HDR_LEN + 1u) /* one octet of DDP payload */
#define MRK_INTVL 512.0
#define MRK_SIZE 4.0
#define HDRS_OCTETS 54u /* Ethernet 14 + IPv4 20 + TCP 20, no options */

typedef struct popts {
    uint64_t count;
    int measure, timestamps;
    const char *svg; /* --svg FILE */
    char *cmd;       /* the command, for the figure's caption */
} popts;

/* One measured case. */
typedef struct pcase {
    unsigned mtu, mss; /* mss 0: from the MTU */
    dw_mpa_seg_mode mode;
    uint64_t count;
    size_t ulen; /* ULPDU octets: DDP header and payload */
} pcase;

typedef struct pres {
    int32_t rc;
    uint32_t emss;
    uint64_t ulpdus, octets, ns;
    uint64_t ctr0[AN_NCTR], ctr[AN_NCTR]; /* namespace TCP counters, before/after */
} pres;

static void help(void)
{
    printf("usage: ddpwire analyze packing [--count N] [--measure] [--timestamps] [--svg FILE]\n"
           "The analysis text's section 6 (\"No Packing\"): the minimum FPDU of 24\n"
           "octets and the segment count when each FPDU needs its own segment,\n"
           "about 60x on Ethernet (1460 octets) and 22x with 536-octet packets:\n"
           "the text's figures, its formulas, and the count of our packer (whole\n"
           "FPDUs with their markers) for --count ULPDUs (default 20000).\n"
           "--measure (root): sends them over real TCP between two network\n"
           "namespaces (veth, MTU 1500, offloads off; then MSS 536), aligned mode\n"
           "(no packing) versus packed mode, and counts data segments, pure ACKs\n"
           "and frame octets in a capture. TCP timestamps are off (EMSS = MSS as\n"
           "in the text) unless --timestamps. Exits 77 when this machine cannot\n"
           "measure (not root, no network namespaces or veth).\n"
           "--svg FILE: a figure of segments per 1000 ULPDUs against ULPDU size,\n"
           "packed and not (our packer's count); with --measure also measured at\n"
           "1, 16, 64, 256 and 1024 octets of payload, segments and pure ACKs.\n");
}

/* Segments our packer uses for n ULPDUs of ulen octets (dw_sock_sendv's
 * rule: a segment ends where the next FPDU would pass EMSS), and octets. */
static uint64_t pack_segments(uint64_t n, size_t ulen, uint32_t emss, int packed,
                              uint64_t *octets)
{
    uint32_t pos = 0;
    uint64_t segs = 0, group = 0;
    for (uint64_t i = 0; i < n; i++) {
        size_t f = dw_mpa_fpdu_len(pos, ulen, 1);
        if (!packed || !group || group + f > emss)
            segs++, group = 0;
        group += f;
        pos += (uint32_t)f;
    }
    *octets = pos;
    return segs;
}

static void formula(const char *name, double size, double text_mrk, double text_exp,
                    uint64_t n)
{
    double mrk = size / MRK_INTVL;
    double exp_text_in = (size - MRK_SIZE * text_mrk) / 24.0;
    double exp = (size - MRK_SIZE * mrk) / 24.0;
    uint64_t oct, segs_p = pack_segments(n, ULPDU_LEN, (uint32_t)size, 1, &oct);
    printf("%s (%.0f octets per segment)\n", name, size);
    printf("  markers per segment = %.0f / 512          text %-6.4g ours %.4f\n", size,
           text_mrk, mrk);
    printf("  FPDUs per segment   = (%.0f - 4 x markers) / 24\n", size);
    printf("                                           text ~%-5.4g its inputs %.2f, "
           "exact %.2f\n",
           text_exp, exp_text_in, exp);
    printf("  our packer, %llu ULPDUs: %llu segments packed, %llu not: %.2fx more\n",
           (unsigned long long)n, (unsigned long long)segs_p, (unsigned long long)n,
           (double)n / (double)segs_p);
}

static int print_formulas(const popts *o)
{
    size_t minf = dw_mpa_fpdu_len(4, ULPDU_LEN, 0);
    printf("Analysis text section 6, no packing: worst case, 1-octet ULPDUs\n\n");
    printf("MinFPDUSize = MPAHdr 2 + DDPHdr %u + DDPPayld 1 + MPAPad %u + MPACRC 4"
           " = %zu octets (text: 24)\n",
           DW_DDP_TAGGED_HDR_LEN, (unsigned)(minf - 2 - ULPDU_LEN - 4), minf);
    printf("  our framer: a %u-octet ULPDU (tagged DDP header + 1 octet) is a %zu-octet"
           " FPDU;\n  with markers every 512 octets of stream, %.4f octets on average\n\n",
           ULPDU_LEN, minf, minf * MRK_INTVL / (MRK_INTVL - MRK_SIZE));
    formula("Ethernet", 1460, 2.9, 60, o->count);
    formula("Default IP packets", 536, 1.05, 22, o->count);
    printf("\nACKs (text): 120 unpacked segments draw as many as 60 ACKs (one per two"
           " segments)\nwhere 2 packed ones draw 1: ACKs grow with the segment count.\n");
    if (minf != 24) {
        fprintf(stderr, "ddpwire analyze packing: minimum FPDU %zu, not 24\n", minf);
        return 1;
    }
    return 0;
}

/* Sides ------------------------------------------------------------------ */

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    (void)rx, (void)hdr, (void)hlen, (void)d, (void)off;
    pres *r = u;
    r->ulpdus++;
    r->octets += len;
    return 0;
}

static void sock_opts(dw_sock_settings *so, dw_mpa_seg_mode mode, pres *r)
{
    dw_sock_settings_default(so);
    so->startup = DW_SOCK_IMMEDIATE;
    so->markers = 1;
    so->crc = 1;
    so->seg_mode = mode;
    so->timeout_ms = 30000;
    so->cb = (dw_fr_rx_callbacks){on_pdu, NULL, NULL};
    so->user_data = r;
}

static int side_fail(const char *who, const char *what)
{
    fprintf(stderr, "ddpwire analyze packing: %s: %s\n", who, what);
    return 1;
}

/* A socket call's rc (errno for DW_ERR_IO): could not complete (the side
 * ends with status 5), or failed. */
static int sock_fail(const char *who, int rc, const char *what)
{
    return cli_sock_resource(rc, errno) ? an_cannot(who, what) : side_fail(who, what);
}

static int server(void *arg, void *res, const an_ctx *c)
{
    const pcase *pc = arg;
    pres *r = res;
    char port[8], err[256];
    int lfd, mss = (int)pc->mss;
    dw_sock_settings so;
    dw_sock *s;
    sock_opts(&so, pc->mode, r);
    snprintf(port, sizeof port, "%u", c->port);
    an_netstat(r->ctr0);
    int rc = dw_sock_listen(&lfd, AN_ADDR_B, port, err, sizeof err);
    if (rc)
        return sock_fail("listen", rc, err);
    /* MSS 536: advertised in our SYN-ACK, so the sender's EMSS */
    if (mss && setsockopt(lfd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss))
        return side_fail("listen", "TCP_MAXSEG refused");
    an_ready(c);
    if ((rc = dw_sock_accept(&s, lfd, &so, err, sizeof err)) != 0)
        return sock_fail("accept", rc, err);
    ssize_t n;
    while ((n = dw_sock_recv(s)) > 0)
        ;
    r->rc = n == DW_ERR_CLOSED ? 0 : (int32_t)n;
    dw_sock_close(s);
    close(lfd);
    an_netstat(r->ctr);
    return r->rc ? sock_fail("receive", r->rc, dw_strerror(r->rc)) : 0;
}

static int client(void *arg, void *res, const an_ctx *c)
{
    const pcase *pc = arg;
    pres *r = res, back = {0};
    char port[8], err[256];
    dw_sock_settings so;
    dw_sock *s;
    size_t n_rec = (size_t)pc->count;
    size_t ulen = pc->ulen;
    uint8_t *buf = malloc(n_rec * ulen);
    struct iovec *v = malloc(n_rec * sizeof *v);
    sock_opts(&so, pc->mode, &back);
    snprintf(port, sizeof port, "%u", c->port);
    an_netstat(r->ctr0);
    /* one ULPDU = one DDP message: its own 1-octet tagged Write */
    for (size_t i = 0; buf && v && i < n_rec; i++)
        if (an_ddp_records(buf + i * ulen, ulen, v + i, 1, ulen - DW_DDP_TAGGED_HDR_LEN, ulen,
                           0x100 + (uint32_t)i) != 1)
            break;
    if (!buf || !v) {
        free(buf), free(v);
        return an_cannot("records", "out of memory");
    }
    int cr = dw_sock_connect(&s, AN_ADDR_B, port, &so, err, sizeof err);
    if (cr) {
        free(buf), free(v);
        return sock_fail("connect", cr, err);
    }
    dw_sock_info info;
    dw_sock_info_get(s, &info);
    r->emss = info.emss;
    uint64_t t0 = cli_now_ns();
    /* all queued at once: the packer sees every FPDU (text 7.2) */
    int rc = dw_sock_sendv(s, v, n_rec);
    r->ulpdus = n_rec;
    if (!rc)
        rc = dw_sock_shutdown(s);
    ssize_t n = 0;
    while (!rc && (n = dw_sock_recv(s)) > 0)
        ;
    r->ns = cli_now_ns() - t0;
    r->rc = rc ? rc : n == DW_ERR_CLOSED ? 0 : (int32_t)n;
    dw_sock_close(s);
    free(buf), free(v);
    an_netstat(r->ctr);
    return r->rc ? sock_fail("send", r->rc, dw_strerror(r->rc)) : 0;
}

/* Measured ------------------------------------------------------------------ */

typedef struct pmeas {
    uint32_t emss;
    uint64_t segs, acks, octets, payload, rexmit, reord, maxp, ns;
    pres s, c;
} pmeas;

static int measure_one(const an_net *net, pcase *pc, uint16_t port, pmeas *m)
{
    pres sr = {0}, cr = {0};
    an_counts k;
    memset(&k, 0, sizeof k);
    int rc = an_run(net, port, server, client, pc, &sr, &cr, sizeof sr, &k);
    if (rc)
        return rc; /* 5: could not complete */
    if (sr.ulpdus != pc->count || sr.octets != pc->count * pc->ulen) {
        fprintf(stderr, "ddpwire analyze packing: %llu ULPDUs arrived of %llu\n",
                (unsigned long long)sr.ulpdus, (unsigned long long)pc->count);
        return 1;
    }
    if (k.drops)
        fprintf(stderr, "warning: the capture dropped %llu frames\n",
                (unsigned long long)k.drops);
    *m = (pmeas){cr.emss, k.d[0].data, k.d[1].acks, k.d[0].octets + k.d[1].octets,
                 k.d[0].payload, k.d[0].rexmit, k.d[0].reorder, k.d[0].max_payload, cr.ns, sr, cr};
    return 0;
}

static void print_row(const char *mode, const pmeas *m, uint64_t n, uint64_t pred)
{
    printf("  %-8s %8llu %8llu %7.2f %8llu %7.3f %10llu %6llu %6llu %5llu %7.1f\n", mode,
           (unsigned long long)m->segs, (unsigned long long)pred,
           m->segs ? (double)n / (double)m->segs : 0.0, (unsigned long long)m->acks,
           m->segs ? (double)m->acks / (double)m->segs : 0.0, (unsigned long long)m->octets,
           (unsigned long long)m->rexmit, (unsigned long long)m->reord,
           (unsigned long long)m->maxp, (double)m->ns / 1e6);
}

/* Measured points for the figure: per link and mode (aligned, packed),
 * segments and pure ACKs per 1000 ULPDUs at each payload size. */
#define FIG_SIZES 5
static const size_t fig_payload[FIG_SIZES] = {1, 16, 64, 256, 1024};

typedef struct pfig {
    int have[2][FIG_SIZES];
    double segs[2][2][FIG_SIZES], acks[2][2][FIG_SIZES];
} pfig;

static void fig_put(pfig *fg, size_t link, size_t k, const pmeas m[2], uint64_t n)
{
    fg->have[link][k] = 1;
    for (int p = 0; p < 2; p++) {
        fg->segs[link][p][k] = 1000.0 * (double)m[p].segs / (double)n;
        fg->acks[link][p][k] = 1000.0 * (double)m[p].acks / (double)n;
    }
}

/* --svg with --measure: the larger payloads, both modes (those that fit
 * one segment of the link). */
static int measure_sizes(const popts *o, const an_net *net, unsigned mss, size_t link,
                         uint32_t emss, uint16_t *port, pfig *fg)
{
    int rc = 0;
    for (size_t k = 1; !rc && k < FIG_SIZES; k++) {
        size_t ulen = DW_DDP_TAGGED_HDR_LEN + fig_payload[k];
        if (dw_mpa_fpdu_len(510, ulen, 1) > emss)
            continue;
        pmeas m[2];
        for (int p = 0; !rc && p < 2; p++) {
            pcase pc = {1500, mss, p ? DW_MPA_SEG_PACKED : DW_MPA_SEG_ALIGNED, o->count, ulen};
            rc = measure_one(net, &pc, (*port)++, &m[p]);
        }
        if (rc)
            break;
        fig_put(fg, link, k, m, o->count);
        printf("  payload %4zu: aligned %llu segments, %llu ACKs; packed %llu segments, %llu "
               "ACKs\n", fig_payload[k], (unsigned long long)m[0].segs,
               (unsigned long long)m[0].acks, (unsigned long long)m[1].segs,
               (unsigned long long)m[1].acks);
    }
    return rc;
}

static int measure(const popts *o, pfig *fg)
{
    static const struct {
        const char *name;
        unsigned mss;
        double text;
    } links[] = {{"MTU 1500", 0, 60}, {"MSS 536", 536, 22}};
    an_net net;
    int rc = an_net_up(&net, 1500, o->timestamps);
    if (rc)
        return rc;
    printf("\nMeasured: %llu ULPDUs of %u octets (1 octet of DDP payload), markers and"
           " CRC on,\nveth MTU 1500 between two namespaces, TSO/GSO/GRO off, TCP timestamps"
           " %s;\ncapture on the receiver's veth. segs: client data segments; ACKs: pure"
           " ACKs back.\n",
           (unsigned long long)o->count, ULPDU_LEN, o->timestamps ? "on" : "off");
    uint16_t port = 7101;
    for (size_t i = 0; !rc && i < sizeof links / sizeof links[0]; i++) {
        pmeas m[2];
        for (int p = 0; !rc && p < 2; p++) {
            pcase pc = {1500, links[i].mss, p ? DW_MPA_SEG_PACKED : DW_MPA_SEG_ALIGNED,
                        o->count, ULPDU_LEN};
            rc = measure_one(&net, &pc, port++, &m[p]);
        }
        if (rc)
            break;
        uint64_t oct, pa = pack_segments(o->count, ULPDU_LEN, m[0].emss, 0, &oct);
        uint64_t pp = pack_segments(o->count, ULPDU_LEN, m[1].emss, 1, &oct);
        double e = m[1].emss, f = (e - MRK_SIZE * e / MRK_INTVL) / 24.0;
        printf("\n%s: EMSS %u\n  %-8s %8s %8s %7s %8s %7s %10s %6s %6s %5s %7s\n",
               links[i].name, m[0].emss, "mode", "segs", "expected", "FPDU/seg", "ACKs",
               "ACK/seg", "frame-oct", "rexmit", "reord", "max", "ms");
        for (int p = 0; p < 2; p++) {
            print_row(p ? "packed" : "aligned", &m[p], o->count, p ? pp : pa);
            an_print_ctrs("    receiver:", m[p].s.ctr0, m[p].s.ctr);
            an_print_ctrs("    sender:", m[p].c.ctr0, m[p].c.ctr);
        }
        printf("  segments, no packing / packing: measured %.2fx; our packer %.2fx;"
               " formula %.2fx; text ~%.0fx\n",
               m[1].segs ? (double)m[0].segs / (double)m[1].segs : 0.0,
               (double)pa / (double)pp, f, links[i].text);
        printf("  pure ACKs, no packing / packing: measured %.2fx (text: in proportion)\n",
               m[1].acks ? (double)m[0].acks / (double)m[1].acks : 0.0);
        printf("  frame octets (Ethernet header on), no packing / packing: %.2fx\n",
               m[1].octets ? (double)m[0].octets / (double)m[1].octets : 0.0);
        fig_put(fg, i, 0, m, o->count);
        if (o->svg)
            rc = measure_sizes(o, &net, links[i].mss, i, m[0].emss, &port, fg);
    }
    an_net_down(&net);
    return rc;
}

/* The figure: our packer's segments per 1000 ULPDUs against payload size
 * for both links, packed and not, the text's two ratios, and what was
 * measured. */
#define FIG_N 12
static int figure(const popts *o, const pfig *fg)
{
    static const double emss[2] = {1460, 536};
    static const double pay[FIG_N] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024};
    double x[FIG_N], y[2][2][FIG_N], mx[FIG_SIZES], my[2][2][2][FIG_SIZES];
    svg_series s[12];
    size_t ns = 0;
    static const char *model_name[2][2] = {
        {"not packed, EMSS 1460 (our packer)", "packed, EMSS 1460 (our packer)"},
        {"not packed, EMSS 536 (our packer)", "packed, EMSS 536 (our packer)"}};
    for (size_t l = 0; l < 2; l++)
        for (int p = 0; p < 2; p++) {
            for (size_t i = 0; i < FIG_N; i++) {
                size_t ulen = DW_DDP_TAGGED_HDR_LEN + (size_t)pay[i];
                uint64_t oct, segs = pack_segments(1000, ulen, (uint32_t)emss[l], p, &oct);
                x[i] = pay[i];
                y[l][p][i] = dw_mpa_fpdu_len(510, ulen, 1) > emss[l] ? NAN : (double)segs;
            }
            s[ns++] = (svg_series){model_name[l][p], x, y[l][p], FIG_N, SVG_LINE, !p,
                                   (int)l};
        }
    static const char *meas_name[2][2] = {
        {"measured segments, MTU 1500", "measured pure ACKs, MTU 1500"},
        {"measured segments, MSS 536", "measured pure ACKs, MSS 536"}};
    for (size_t k = 0; k < FIG_SIZES; k++)
        mx[k] = (double)fig_payload[k];
    for (size_t l = 0; o->measure && l < 2; l++)
        for (int a = 0; a < 2; a++) {
            /* both modes in one series: the points sit on their lines */
            for (size_t k = 0; k < FIG_SIZES; k++)
                for (int p = 0; p < 2; p++)
                    my[l][a][p][k] = fg->have[l][k] ? (a ? fg->acks : fg->segs)[l][p][k] : NAN;
            for (int p = 0; p < 2; p++)
                s[ns++] = (svg_series){p ? "" : meas_name[l][a], mx, my[l][a][p], FIG_SIZES,
                                       a ? SVG_SQUARES : SVG_POINTS, 0, (int)l};
        }
    svg_ref refs[2] = {{1000.0 / 60, "text: 60x fewer segments packed, EMSS 1460"},
                       {1000.0 / 22, "text: 22x fewer packed, EMSS 536"}};
    svg_plot pl = {"Packing: segments per 1000 ULPDUs (analysis text section 6)",
                   {"DDP payload per ULPDU (octets; 14-octet tagged header on top)", 1, 1100, 1},
                   {"segments (or pure ACKs) per 1000 ULPDUs", 0, 0, 1},
                   s, ns, refs, 2,
                   o->measure ? "Lines: our packer's count (whole FPDUs with markers and CRC, "
                                "a segment closed when the next FPDU would not fit). Points: "
                                "measured over real TCP between two namespaces (veth MTU 1500, "
                                "then MSS 536), both modes at each size."
                              : "Lines: our packer's count (whole FPDUs with markers and CRC, "
                                "a segment closed when the next FPDU would not fit); run "
                                "with --measure for measured segments and ACKs.",
                   o->cmd};
    return svg_plot_save(&pl, o->svg, NULL, 0, "ddpwire analyze packing");
}

int analyze_packing(int argc, char **argv)
{
    popts o = {20000, 0, 0, NULL, NULL};
    const cli_opt t[] = {
        CLI_U64("--count", &o.count, 1, 1000000),
        CLI_FLAG("--measure", &o.measure),
        CLI_FLAG("--timestamps", &o.timestamps),
        CLI_STR("--svg", &o.svg, "a file to write"),
    };
    int rc = cli_parse(argc, argv, "ddpwire analyze packing", help, t, CLI_N(t), NULL, NULL);
    if (rc != CLI_GO)
        return rc;
    pfig fg;
    memset(&fg, 0, sizeof fg);
    rc = print_formulas(&o);
    if (!rc && o.measure)
        rc = measure(&o, &fg);
    fflush(stdout);
    if (!rc && o.svg) {
        o.cmd = svg_command("ddpwire analyze", argc, argv);
        rc = o.cmd && !figure(&o, &fg) ? 0 : 1;
        free(o.cmd);
    }
    return rc;
}
