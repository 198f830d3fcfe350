/* SPDX-License-Identifier: MIT */
/* ddpwire ipoib: IPoIB service IDs, the simulated pairwise matrix, and a
 * simulated scenario written as a pcap (link type 242). */
#include <ddpwire_sim/ipoib_sim.h>
#include <ddpwire/ipoib_node.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "pcap_out.h"

static void help(void)
{
    printf("usage: ddpwire ipoib service-id PROTO PORT     draft 4.0 text form\n"
           "                                                (tcp 40 -> 1:0:0:6:0:0:0:28)\n"
           "       ddpwire ipoib service-id TEXT           read one back (-> tcp 40)\n"
           "       ddpwire ipoib service-id --rfc4755 QPN | --linux QPN | --cm TEXT\n"
           "                                                RFC 4755 / Linux connected-mode form\n"
           "       ddpwire ipoib kinds                      the node kinds of the matrix\n"
           "       ddpwire ipoib matrix [--seed N] [--bulk N] [--pings N]\n"
           "                                                every pair of kinds, simulated\n"
           "       ddpwire ipoib sim [A B] [-w FILE] [--seed N] [--bulk N] [--pings N] [-v]\n"
           "       ddpwire ipoib pcap -w FILE [A B]         = sim -w FILE (or --pcap FILE)\n"
           "PROTO is tcp, udp, sctp, icmp or a number 0..255; PORT 0..65535 (0: all).\n"
           "--hex also prints the 64-bit value. The pcap holds the UD frames (ARP with\n"
           "20-octet addresses, IPoIB headers) in link type 242, as Wireshark reads it.\n");
}

static const struct {
    const char *name;
    unsigned num;
} protos[] = {{"icmp", 1}, {"tcp", 6}, {"udp", 17}, {"sctp", 132}};

static int proto_parse(const char *s, unsigned *out)
{
    for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++)
        if (!strcasecmp(s, protos[i].name)) {
            *out = protos[i].num;
            return 0;
        }
    uint64_t v;
    if (cli_u64("PROTO", s, 0, 255, &v))
        return -1;
    *out = (unsigned)v;
    return 0;
}

static const char *proto_name(unsigned p)
{
    for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++)
        if (protos[i].num == p)
            return protos[i].name;
    return NULL;
}

static int print_sid(uint64_t sid, int hex)
{
    char t[DW_IPOIB_SID_TEXT_MAX];
    dw_ipoib_sid_format(t, sizeof t, sid);
    if (hex)
        printf("%s 0x%016llx\n", t, (unsigned long long)sid);
    else
        printf("%s\n", t);
    return 0;
}

static int sid_read_back(const char *text, int cm, int hex)
{
    uint64_t v;
    dw_ipoib_sid s;
    dw_ipoib_sid_style style;
    uint32_t qpn;
    if (dw_ipoib_sid_parse(&v, text)) {
        fprintf(stderr, "ddpwire ipoib: '%s' is not a service ID: eight groups of 1-2 hex "
                        "digits separated by ':' expected\n", text);
        return 2;
    }
    if (cm) {
        if (dw_ipoib_sid_cm_parse(v, &style, &qpn)) {
            fprintf(stderr, "ddpwire ipoib: %s is not a connected-mode service ID "
                            "(0x01 or 0x10, zeros, then a 24-bit QPN)\n", text);
            return 1;
        }
        printf("%s qpn 0x%06x\n", style == DW_IPOIB_SID_LINUX ? "linux" : "rfc4755", qpn);
        return 0;
    }
    if (dw_ipoib_sid_split(&s, v)) {
        fprintf(stderr, "ddpwire ipoib: %s is outside the IETF block (first octet must be 1)\n",
                text);
        return 1;
    }
    const char *n = proto_name(s.protocol);
    if (n)
        printf("%s %u", n, s.subfield);
    else
        printf("%u %u", s.protocol, s.subfield);
    if (hex)
        printf(" 0x%016llx", (unsigned long long)v);
    printf("%s\n", s.reserved_set ? " (reserved octets set: ignored)" : "");
    return 0;
}

static int cmd_service_id(int argc, char **argv)
{
    int hex = 0, n = 0;
    const char *arg[2] = {NULL, NULL}, *mode = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hex"))
            hex = 1;
        else if (!strcmp(argv[i], "--rfc4755") || !strcmp(argv[i], "--linux") ||
                 !strcmp(argv[i], "--cm"))
            mode = argv[i];
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "ddpwire ipoib service-id: unknown option '%s'\n", argv[i]);
            return 2;
        } else if (n < 2)
            arg[n++] = argv[i];
        else {
            fprintf(stderr, "ddpwire ipoib service-id: too many arguments\n");
            return 2;
        }
    }
    if (mode && !strcmp(mode, "--cm") && n == 1)
        return sid_read_back(arg[0], 1, hex);
    if (mode && n == 1) {
        uint64_t q;
        if (cli_u64("QPN", arg[0], 2, DW_IPOIB_QPN_MAX - 1, &q))
            return 2;
        return print_sid(dw_ipoib_sid_cm(strcmp(mode, "--linux") ? DW_IPOIB_SID_RFC4755
                                                                   : DW_IPOIB_SID_LINUX,
                                         (uint32_t)q), hex);
    }
    if (!mode && n == 1)
        return sid_read_back(arg[0], 0, hex);
    if (!mode && n == 2) {
        unsigned proto;
        uint64_t port;
        if (proto_parse(arg[0], &proto) || cli_u64("PORT", arg[1], 0, 65535, &port))
            return 2;
        return print_sid(dw_ipoib_sid_make((uint8_t)proto, (uint16_t)port), hex);
    }
    fprintf(stderr, "ddpwire ipoib service-id: expected PROTO PORT, TEXT, or --rfc4755/--linux "
                    "QPN, or --cm TEXT (see --help)\n");
    return 2;
}

/* ---- simulation ---- */

typedef struct sim_opts {
    dw_ipoib_pair_settings po;
    const char *pcap;
    const char *a, *b;
    int verbose;
} sim_opts;

static int pcap_name(void *out, const char *name, const char *v)
{
    if (!v)
        return fprintf(stderr, "ddpwire ipoib: %s needs a file name\n", name), -1;
    *(const char **)out = v;
    return 0;
}

/* The simulation's options (sim: also --pcap, -v and the two kinds): CLI_GO
 * to run, else the exit status. */
static int sim_parse(sim_opts *o, int argc, char **argv, const char *prog, int sim)
{
    const cli_opt t[] = { /* matrix: the first three */
        CLI_U64("--seed", &o->po.seed, 0, UINT64_MAX),
        CLI_U64("--bulk", &o->po.bulk, 0, 8u << 20),
        CLI_U32("--pings", &o->po.pings, 0, 1000),
        CLI_FN("--pcap", &o->pcap, pcap_name),
        CLI_FN("-w", &o->pcap, pcap_name),
        CLI_FLAG("-v", &o->verbose),
        CLI_ARG(&o->a),
        CLI_ARG(&o->b),
    };
    return cli_parse(argc, argv, prog, help, t, sim ? CLI_N(t) : 3, NULL, NULL);
}

static void result_row(const char *a, const char *b, const dw_ipoib_pair_result *r)
{
    printf("%-10s %-10s %-4s %6u  %-4s %6u  %u/%u  %8llu  %6u %7u  %s\n", a, b,
           dw_ipoib_mode_name(r->mode_ab), r->mtu_ab, dw_ipoib_mode_name(r->mode_ba), r->mtu_ba,
           r->echo_replies, r->echo_sent, (unsigned long long)r->bulk_rcvd, r->failed, r->retries,
           r->ok ? "ok" : "FAILED");
}

/* A node call that failed in the run (the pair is FAILED): which, on stderr. */
static void node_errors(const char *prog, const char *a, const char *b,
                        const dw_ipoib_pair_result *r)
{
    if (r->node_errors)
        fprintf(stderr, "%s: %s %s: %s returned %s (%llu node call%s failed)\n", prog, a, b,
                r->first_error_call ? r->first_error_call : "a node call",
                dw_err_name(r->first_error), (unsigned long long)r->node_errors,
                r->node_errors == 1 ? "" : "s");
}

/* "the simulation of A B" */
static int sim_nomem(const char *prog, const char *a, const char *b)
{
    char what[96];
    snprintf(what, sizeof what, "the simulation of %s %s", a, b);
    return cli_nomem(prog, what);
}

static void result_head(void)
{
    printf("%-10s %-10s %-4s %6s  %-4s %6s  %-4s %9s %6s %7s  %s\n", "A", "B", "A>B", "MTU",
           "B>A", "MTU", "echo", "bulk", "failed", "retries", "result");
}

static int cmd_matrix(int argc, char **argv)
{
    sim_opts o = {0};
    dw_ipoib_pair_settings_default(&o.po);
    int pr = sim_parse(&o, argc, argv, "ddpwire ipoib matrix", 0);
    if (pr != CLI_GO)
        return pr;
    size_t k = dw_ipoib_kind_count(), bad = 0;
    result_head();
    for (size_t a = 0; a < k; a++)
        for (size_t b = 0; b < k; b++) {
            dw_ipoib_pair_result r;
            const char *na = dw_ipoib_kind_name(a), *nb = dw_ipoib_kind_name(b);
            int rc = dw_ipoib_pair_run(a, b, &o.po, &r);
            if (rc == DW_ERR_NOMEM) /* no verdict on a half-run matrix */
                return sim_nomem("ddpwire ipoib matrix", na, nb);
            if (rc < 0) {
                fprintf(stderr, "ddpwire ipoib matrix: the simulation could not start\n");
                return 1;
            }
            result_row(na, nb, &r);
            node_errors("ddpwire ipoib matrix", na, nb, &r);
            bad += !r.ok;
        }
    printf("%zu pairs, %zu failed\n", k * k, bad);
    return bad ? 1 : 0;
}

typedef struct tap_ctx {
    pcap_out pcap; /* pcap.f NULL: no capture */
    int verbose, err;
    unsigned long frames;
    uint8_t *buf;
} tap_ctx;

static void tap(dw_ipoib_fabric *f, const dw_ipoib_msg *m, void *ud)
{
    tap_ctx *t = ud;
    (void)f;
    if (t->verbose && m->kind == DW_IPOIB_MSG_CM)
        fprintf(stderr, "t=%llu host %d -> %d CM %s\n", (unsigned long long)m->now, m->src,
                m->dst, dw_ipoib_cm_type_name(m->cm->type));
    if (!t->pcap.f || m->kind != DW_IPOIB_MSG_UD)
        return;
    ssize_t n = dw_ipoib_msg_lt242(m, t->buf, 65536 + 64);
    if (n < 0)
        return;
    t->err |= pcap_out_write(&t->pcap, m->now, t->buf, (size_t)n) != 0;
    t->frames++;
}

static void on_event(dw_ipoib_fabric *f, int host, const dw_ipoib_event *ev, void *ud)
{
    static const char *const kinds[] = {"arp-resolved", "arp-ignored", "link-up", "link-retry",
                                        "link-failed", "link-down", "accepted", "refused",
                                        "service-up", "service-failed", "rx-dropped"};
    tap_ctx *t = ud;
    if (!t->verbose)
        return;
    fprintf(stderr, "t=%llu host %d %s peer %u.%u.%u.%u mode %s mtu %u%s%s\n",
            (unsigned long long)dw_ipoib_fabric_now(f), host, kinds[ev->kind], ev->peer >> 24,
            ev->peer >> 16 & 255, ev->peer >> 8 & 255, ev->peer & 255,
            dw_ipoib_mode_name(ev->mode), ev->mtu, ev->why ? ": " : "", ev->why ? ev->why : "");
}

/* 0, or the status after saying why. */
static int pcap_open(tap_ctx *t, const char *path)
{
    if (pcap_out_open(&t->pcap, path, DW_IPOIB_PCAP_LINKTYPE, 262144) == 0)
        return 0;
    if (cli_errno_resource(errno))
        return cli_cannot_path("ddpwire ipoib", "creating", path, strerror(errno));
    perror(path);
    return 1;
}

static int cmd_sim(int argc, char **argv, const char *pcap)
{
    sim_opts o = {0};
    dw_ipoib_pair_settings_default(&o.po);
    o.pcap = pcap;
    int pr = sim_parse(&o, argc, argv, "ddpwire ipoib sim", 1);
    if (pr != CLI_GO)
        return pr;
    o.a = o.a ? o.a : "draft-all";
    o.b = o.b ? o.b : "draft-rc";
    int ka = dw_ipoib_kind_find(o.a), kb = dw_ipoib_kind_find(o.b);
    if (ka < 0 || kb < 0) {
        fprintf(stderr, "ddpwire ipoib sim: unknown kind '%s' (see ddpwire ipoib kinds)\n",
                ka < 0 ? o.a : o.b);
        return 2;
    }
    tap_ctx t = {0};
    t.verbose = o.verbose;
    t.buf = malloc(65536 + 128);
    dw_ipoib_fabric_callbacks cb = {NULL, tap, on_event, NULL};
    o.po.cb = &cb;
    o.po.cb_user_data = &t;
    dw_ipoib_pair_result r;
    int status = 0, rc = 0;
    if (!t.buf)
        status = cli_nomem("ddpwire ipoib", "the frame buffer");
    else if (o.pcap && (status = pcap_open(&t, o.pcap)) != 0)
        ;
    else if ((rc = dw_ipoib_pair_run((size_t)ka, (size_t)kb, &o.po, &r)) < 0) {
        if (rc == DW_ERR_NOMEM)
            status = sim_nomem("ddpwire ipoib sim", o.a, o.b);
        else
            fprintf(stderr, "ddpwire ipoib sim: the simulation could not start\n"), status = 1;
    } else {
        result_head();
        result_row(o.a, o.b, &r);
        node_errors("ddpwire ipoib sim", o.a, o.b, &r);
        status = !r.ok;
    }
    int opened = t.pcap.f != NULL;
    if (opened && status == CLI_EXIT_RESOURCE) {
        pcap_out_abort(&t.pcap);
    } else if (opened) {
        int wrc = pcap_out_close(&t.pcap, "ddpwire ipoib");
        status = wrc ? wrc : status;
        if (!wrc && !status)
            fprintf(stderr, "ddpwire ipoib: %lu UD frames written to %s\n", t.frames, o.pcap);
    }
    free(t.buf);
    return status;
}

static int cmd_sim_run(int argc, char **argv)
{
    return cmd_sim(argc, argv, NULL);
}

/* An output is named with -w: a bare FILE is never written. */
static int cmd_pcap(int argc, char **argv)
{
    int w = 0;
    for (int i = 1; i < argc; i++)
        w |= !strcmp(argv[i], "-w") || !strncmp(argv[i], "-w=", 3);
    if (!w) {
        fprintf(stderr, "ddpwire ipoib pcap: name the capture to write with -w FILE "
                        "(to read a capture: ddpwire dump FILE)\n");
        return 2;
    }
    return cmd_sim(argc, argv, NULL);
}

static int cmd_kinds(int argc, char **argv)
{
    (void)argc, (void)argv;
    for (size_t k = 0; k < dw_ipoib_kind_count(); k++)
        printf("%s\n", dw_ipoib_kind_name(k));
    return 0;
}

int cmd_ipoib(int argc, char **argv)
{
    static const cli_cmd cmds[] = {
        {"service-id", cmd_service_id, "the service ID of a port"},
        {"matrix", cmd_matrix, "the simulated capability matrix"},
        {"sim", cmd_sim_run, "one simulated pair"},
        {"pcap", cmd_pcap, "one simulated pair written as a capture (-w FILE)"},
        {"kinds", cmd_kinds, "the simulated node kinds"},
    };
    const cli_group g = {"ddpwire ipoib", "subcommand", cmds, CLI_N(cmds), NULL, help};
    for (int i = 2; i < argc; i++) /* --help after a subcommand: the whole help */
        if (!strcmp(argv[i], "--help")) {
            help();
            return 0;
        }
    return cli_dispatch(&g, argc, argv);
}
