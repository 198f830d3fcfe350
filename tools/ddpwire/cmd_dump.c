/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump: read captures (files or live), check MPA, IFT, DDP/RDMAP,
 * TCP RDMA options and IPoIB in them (the library's dissector,
 * <ddpwire/dissect.h>), report (dump_out.c, dump_report.c). This file:
 * options and the exit status (docs/DUMP.md); dump_read.c reads.
 */
#include <pcap/pcap.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dump.h"

static void help(void)
{
    printf(
        "usage: ddpwire dump [OPTIONS] FILE... [BPF]   (pcap or pcapng; '-' for stdin)\n"
        "       ddpwire dump [OPTIONS] -r FILE [-r FILE...] [BPF]\n"
        "       ddpwire dump [OPTIONS] -i IFACE [BPF]   (live, until Ctrl-C or -c COUNT)\n"
        "Reassembles each TCP connection per direction, finds MPA (RFC 5044 frames, the\n"
        "zero marker) or IFT in it, checks every FPDU (length, pad, CRC, every marker's\n"
        "FPDUPTR, header alignment, packing) and the DDP/RDMAP rules above it (MSN, MO,\n"
        "tagged offsets, Read Requests and Responses, Terminate), decodes TCP RDMA\n"
        "options (kind 25) and IPoIB frames and ARP. Several files are read in turn as\n"
        "one capture (connections go on across them).\n"
        "  -r FILE              read FILE (repeatable; as the positional FILE)\n"
        "  -i IFACE             capture live on IFACE\n"
        "  -f BPF               capture filter (the words after the files also are one)\n"
        "  -c COUNT             stop after COUNT packets\n"
        "  -w FILE              write the packets read to FILE (pcap); never an input\n"
        "  --only-errors        with -w: only the packets that errors name\n"
        "  --report FILE.html   also a self-contained HTML report: verdict, connections,\n"
        "                       a timeline per direction; never an input, never cut\n"
        "  -v, -V               one line per FPDU, frame and event (default: per flow)\n"
        "  -q                   only the final summary (JSON: flows and summary)\n"
        "  --json               JSON lines (docs/DUMP.md)\n"
        "  --mpa-start PORT[:SEQ]  MPA begins on connections with PORT: at sequence\n"
        "                       number SEQ of the direction from PORT, else at the\n"
        "                       first data octet of both directions\n"
        "  --framing auto|mpa|ift|none   what to look for (default auto)\n"
        "  --markers on|off  --crc on|off  force the MPA mode instead of learning it\n"
        "  --port PORT          only connections with this port (repeatable, 16 at most)\n"
        "  --max-flows N        connections tracked at once (default 256)\n"
        "  --store BYTES        out-of-order octets held per direction (default 262144)\n"
        "  --no-progress        no progress line on a terminal\n"
        "exit: 0 all correct, 1 protocol errors, 2 usage error, a source that cannot be\n"
        "      read as a capture or a report that cannot be created, 3 capture incomplete\n"
        "      (gaps, cut by the snap length or\n"
        "      inside a packet, ends inside a frame), 4 nothing checked (no TCP data or\n"
        "      IPoIB frame: unsupported link type, a filter that matched nothing), 5 could\n"
        "      not complete (out of memory, a failed write: no verdict; -w removed)\n");
}

static int parse_mpa_start(void *out, const char *opt, const char *v)
{
    if (!v || dw_dissect_settings_mpa_start(out, v) < 0) {
        fprintf(stderr, "ddpwire dump: %s takes PORT or PORT:SEQ (PORT 1-65535, SEQ 0-4294967295)\n",
                opt);
        return -1;
    }
    return 0;
}

static int parse_framing(void *out, const char *opt, const char *v)
{
    static const char *names[] = {"auto", "mpa", "ift", "none"};
    for (int k = 0; k < 4; k++)
        if (v && !strcmp(v, names[k])) {
            ((dw_dissect_settings *)out)->mode = (dw_dissect_mode)k;
            return 0;
        }
    fprintf(stderr, "ddpwire dump: %s takes auto, mpa, ift or none\n", opt);
    return -1;
}

static int add_port(void *out, const char *opt, const char *v)
{
    dw_dissect_settings *o = out;
    uint64_t n;
    if (o->nports == DW_DISSECT_PORTS_MAX) {
        fprintf(stderr, "ddpwire dump: at most 16 %s options\n", opt);
        return -1;
    }
    if (cli_u64(opt, v, 1, 65535, &n))
        return -1;
    o->ports[o->nports++] = (uint16_t)n;
    return 0;
}

static int add_file(void *out, const char *opt, const char *v)
{
    dump_opts *o = out;
    if (!v) {
        fprintf(stderr, "ddpwire dump: %s needs a capture file\n", opt);
        return -1;
    }
    if (o->nfiles == DUMP_FILES_MAX) {
        fprintf(stderr, "ddpwire dump: at most %d capture files\n", DUMP_FILES_MAX);
        return -1;
    }
    o->files[o->nfiles++] = v;
    return 0;
}

static int add_filter(dump_opts *o, const char *w)
{
    size_t flen = strlen(o->filter), n = strlen(w);
    if (flen + n + 2 > sizeof o->filter) {
        fprintf(stderr, "ddpwire dump: filter too long\n");
        return -1;
    }
    if (flen)
        o->filter[flen++] = ' ';
    memcpy(o->filter + flen, w, n + 1);
    return 0;
}

static int set_filter_opt(void *out, const char *opt, const char *v)
{
    if (!v) {
        fprintf(stderr, "ddpwire dump: %s needs a BPF expression\n", opt);
        return -1;
    }
    return add_filter(out, v);
}

/* Positional words: capture files (before any -r/-i, while they name a
 * file or '-'), then the words of a BPF filter. */
static int positional(void *ctx, int argc, char **argv, int *i)
{
    dump_opts *o = ctx;
    const char *a = argv[*i];
    (void)argc;
    if (a[0] == '-' && a[1])
        return 0;
    struct stat st;
    if (!o->iface && !o->filter[0] && (!strcmp(a, "-") || !stat(a, &st) || !o->nfiles))
        return add_file(o, "FILE", a) ? -1 : 1;
    return add_filter(o, a) ? -1 : 1;
}

/* Inputs are only read: -w must name none of them. */
static int check_output(const dump_opts *o)
{
    struct stat w, r;
    if (!o->write)
        return 0;
    if (stat(o->write, &w))
        return 0;
    for (size_t i = 0; i < o->nfiles; i++)
        if (!stat(o->files[i], &r) && r.st_dev == w.st_dev && r.st_ino == w.st_ino) {
            fprintf(stderr, "ddpwire dump: -w %s is an input: not overwritten\n", o->write);
            return -1;
        }
    return 0;
}

static int parse(dump_opts *o, int argc, char **argv)
{
    int verbose = 0;
    const cli_opt t[] = {
        CLI_COUNT("-v", &verbose),
        CLI_COUNT("-V", &verbose),
        CLI_FLAG("--json", &o->json),
        CLI_FLAG("-q", &o->quiet),
        CLI_SET("--no-progress", &o->progress, 0),
        CLI_FN("-r", o, add_file),
        CLI_STR("-i", &o->iface, "an interface"),
        CLI_FN("-f", o, set_filter_opt),
        CLI_STR("-w", &o->write, "a file to write"),
        CLI_FLAG("--only-errors", &o->only_errors),
        CLI_STR("--report", &o->report, "a file to write"),
        CLI_U64("-c", &o->count, 1, UINT64_MAX),
        CLI_FN("--mpa-start", &o->ds, parse_mpa_start),
        CLI_FN("--framing", &o->ds, parse_framing),
        CLI_ONOFF("--markers", &o->ds.markers),
        CLI_ONOFF("--crc", &o->ds.crc),
        CLI_FN("--port", &o->ds, add_port),
        CLI_OPT("--max-flows", CLI_K_U64, &o->max_flows, 1, 1u << 20, NULL, NULL),
        CLI_OPT("--store", CLI_K_U64, &o->store, 0, 1u << 30, NULL, NULL),
    };
    int r = cli_parse(argc, argv, "ddpwire dump", help, t, CLI_N(t), positional, o);
    o->verbose = verbose > 0;
    o->ds.max_flows = (size_t)o->max_flows;
    o->ds.store = (size_t)o->store;
    if (r != CLI_GO)
        return r;
    if (!o->nfiles && !o->iface) {
        fprintf(stderr, "ddpwire dump: a capture FILE, -r FILE or -i IFACE is required\n");
        return 2;
    }
    if (o->nfiles && o->iface) {
        fprintf(stderr, "ddpwire dump: give capture files or -i IFACE, not both\n");
        return 2;
    }
    if (o->only_errors && !o->write) {
        fprintf(stderr, "ddpwire dump: --only-errors needs -w FILE\n");
        return 2;
    }
    return check_output(o) ? 2 : CLI_GO;
}

/* 0 correct, 1 errors, 3 incomplete, 4 nothing checked: and why. */
static int status_of(dump *P)
{
    dw_dissect_stats t;
    dw_dissect_stats_get(P->ds, &t);
    if (t.protocol_errors)
        return 1;
    if (t.incomplete || P->incomplete) {
        if (!P->incomplete)
            snprintf(P->why, sizeof P->why, "%llu gaps or cut FPDUs (see the flows)",
                     (unsigned long long)t.incomplete);
        return 3;
    }
    if (!t.flows_seen && !P->ipoib) {
        if (!t.packets)
            snprintf(P->why, sizeof P->why, "no packets%s", P->o.filter[0] ? " matched the filter" : "");
        else if (t.tcp_packets)
            snprintf(P->why, sizeof P->why, "no TCP segment carried data%s",
                     P->o.ds.nports ? " on the ports given" : "");
        else
            snprintf(P->why, sizeof P->why,
                     "no TCP or IPoIB in %llu packets (%llu unreadable; link types other than "
                     "Ethernet, SLL, raw IP, loopback and IPoIB are not read)",
                     (unsigned long long)t.packets, (unsigned long long)t.unreadable);
        return 4;
    }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    static dump D;
    memset(&D, 0, sizeof D);
    dw_dissect_settings_default(&D.o.ds);
    D.o.max_flows = 256;
    D.o.store = 262144;
    D.o.progress = isatty(2);
    int r = parse(&D.o, argc, argv);
    if (r != CLI_GO)
        return r;
    D.out = stdout;
    if (D.o.report && (r = html_open(&D, argc, argv)))
        return r < 0 ? 2 : r;
    if (dump_open(&D)) {
        html_close(&D, CLI_EXIT_RESOURCE, 0);
        return cli_nomem("ddpwire dump", "the dissector");
    }
    int rerr = dump_read(&D);
    dw_dissect_stats t;
    dw_dissect_stats_get(D.ds, &t);
    if ((t.nomem || D.nomem) && !D.fail[0]) {
        char n[64];
        snprintf(n, sizeof n, "%llu connections or checkers not checked",
                 (unsigned long long)(t.nomem + D.nomem));
        dump_fail(&D, n, "out of memory");
    }
    if (!D.fail[0] && rerr != CLI_EXIT_RESOURCE)
        dw_dissect_finish(D.ds); /* else the open flows get no verdict (del: silently) */
    dw_dissect_stats_get(D.ds, &t);
    if (t.nomem && !D.fail[0])
        dump_fail(&D, "checking the connections still open", "out of memory");
    dump_write_close(&D, !rerr && !D.fail[0]);
    int status = rerr ? rerr : D.fail[0] ? CLI_EXIT_RESOURCE : status_of(&D);
    if (status == CLI_EXIT_RESOURCE && D.fail[0])
        snprintf(D.why, sizeof D.why, "%s", D.fail);
    if (!rerr || t.packets)
        out_summary(&D, status);
    /* no report on half a capture; one that cannot be written is removed */
    if (html_close(&D, status, !rerr && !D.fail[0]) && !rerr && !D.fail[0])
        status = CLI_EXIT_RESOURCE; /* html_close said which file */
    if (D.fail[0])
        fprintf(stderr, "ddpwire dump: could not complete: %s%s\n", D.fail,
                D.w_removed ? " (-w file removed)" : "");
    else if (cli_stdout_done("ddpwire dump"))
        status = CLI_EXIT_RESOURCE;
    dw_dissect_del(D.ds);
    return status;
}
