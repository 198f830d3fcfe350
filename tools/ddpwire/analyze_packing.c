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

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_net.h"
#include "cli.h"

#define ULPDU_LEN (DW_DDP_TAGGED_HDR_LEN + 1u) /* one octet of DDP payload */
#define MRK_INTVL 512.0
#define MRK_SIZE 4.0
#define HDRS_OCTETS 54u /* Ethernet 14 + IPv4 20 + TCP 20, no options */

typedef struct popts {
    uint64_t count;
    int measure, timestamps;
} popts;

/* One measured case. */
typedef struct pcase {
    unsigned mtu, mss; /* mss 0: from the MTU */
    dw_mpa_seg_mode mode;
    uint64_t count;
} pcase;

typedef struct pres {
    int32_t rc;
    uint32_t emss;
    uint64_t ulpdus, octets, ns;
    uint64_t ctr0[AN_NCTR], ctr[AN_NCTR]; /* namespace TCP counters, before/after */
} pres;

static void help(void)
{
    printf("usage: ddpwire analyze packing [--count N] [--measure] [--timestamps]\n"
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
           "measure (not root, no network namespaces or veth).\n");
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

static void sock_opts(dw_sock_opts *so, dw_mpa_seg_mode mode, pres *r)
{
    dw_sock_opts_default(so);
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

static int server(void *arg, void *res, const an_ctx *c)
{
    const pcase *pc = arg;
    pres *r = res;
    char port[8], err[256];
    int lfd, mss = (int)pc->mss;
    dw_sock_opts so;
    dw_sock *s;
    sock_opts(&so, pc->mode, r);
    snprintf(port, sizeof port, "%u", c->port);
    an_netstat(r->ctr0);
    if (dw_sock_listen(&lfd, AN_ADDR_B, port, err, sizeof err))
        return side_fail("listen", err);
    /* MSS 536: advertised in our SYN-ACK, so the sender's EMSS */
    if (mss && setsockopt(lfd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss))
        return side_fail("listen", "TCP_MAXSEG refused");
    an_ready(c);
    if (dw_sock_accept(&s, lfd, &so, err, sizeof err))
        return side_fail("accept", err);
    ssize_t n;
    while ((n = dw_sock_recv(s)) > 0)
        ;
    r->rc = n == DW_ERR_CLOSED ? 0 : (int32_t)n;
    dw_sock_close(s);
    close(lfd);
    an_netstat(r->ctr);
    return r->rc ? side_fail("receive", dw_strerror(r->rc)) : 0;
}

static int client(void *arg, void *res, const an_ctx *c)
{
    const pcase *pc = arg;
    pres *r = res, back = {0};
    char port[8], err[256];
    dw_sock_opts so;
    dw_sock *s;
    size_t n_rec = (size_t)pc->count;
    uint8_t *buf = malloc(n_rec * ULPDU_LEN);
    struct iovec *v = malloc(n_rec * sizeof *v);
    sock_opts(&so, pc->mode, &back);
    snprintf(port, sizeof port, "%u", c->port);
    an_netstat(r->ctr0);
    /* one ULPDU = one DDP message: its own 1-octet tagged Write */
    for (size_t i = 0; buf && v && i < n_rec; i++)
        if (an_ddp_records(buf + i * ULPDU_LEN, ULPDU_LEN, v + i, 1, 1, ULPDU_LEN,
                           0x100 + (uint32_t)i) != 1)
            break;
    if (!buf || !v || dw_sock_connect(&s, AN_ADDR_B, port, &so, err, sizeof err)) {
        free(buf), free(v);
        return side_fail("connect", buf && v ? err : "out of memory");
    }
    dw_sock_info info;
    dw_sock_get_info(s, &info);
    r->emss = info.emss;
    uint64_t t0 = an_now_ns();
    /* all queued at once: the packer sees every FPDU (text 7.2) */
    int rc = dw_sock_sendv(s, v, n_rec);
    r->ulpdus = n_rec;
    if (!rc)
        rc = dw_sock_shutdown(s);
    ssize_t n = 0;
    while (!rc && (n = dw_sock_recv(s)) > 0)
        ;
    r->ns = an_now_ns() - t0;
    r->rc = rc ? rc : n == DW_ERR_CLOSED ? 0 : (int32_t)n;
    dw_sock_close(s);
    free(buf), free(v);
    an_netstat(r->ctr);
    return r->rc ? side_fail("send", dw_strerror(r->rc)) : 0;
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
    if (an_run(net, port, server, client, pc, &sr, &cr, sizeof sr, &k))
        return 1;
    if (sr.ulpdus != pc->count || sr.octets != pc->count * ULPDU_LEN) {
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

static int measure(const popts *o)
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
                        o->count};
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
    }
    an_net_down(&net);
    return rc;
}

int analyze_packing(int argc, char **argv)
{
    popts o = {20000, 0, 0};
    const cli_opt t[] = {
        CLI_U64("--count", &o.count, 1, 1000000),
        CLI_FLAG("--measure", &o.measure),
        CLI_FLAG("--timestamps", &o.timestamps),
    };
    int rc = cli_parse(argc, argv, "ddpwire analyze packing", help, t, CLI_N(t), NULL, NULL);
    if (rc != CLI_GO)
        return rc;
    rc = print_formulas(&o);
    if (!rc && o.measure)
        rc = measure(&o);
    fflush(stdout);
    return rc;
}
