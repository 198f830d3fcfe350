/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump: read a capture (file or live), check MPA, IFT, TCP RDMA
 * options and IPoIB in it (the library's dissector, <ddpwire/dissect.h>),
 * report (dump_out.c, dump_report.c). This file: options, libpcap, the
 * progress line, the exit status (docs/DUMP.md).
 */
#include <pcap/pcap.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dump.h"

static void help(void)
{
    printf(
        "usage: ddpwire dump [OPTIONS] FILE          (pcap or pcapng; '-' for stdin)\n"
        "       ddpwire dump [OPTIONS] -i IFACE [BPF] (live, until Ctrl-C or -c COUNT)\n"
        "Reassembles each TCP connection per direction, finds MPA (RFC 5044 frames, the\n"
        "zero marker) or IFT in it, checks every FPDU (length, pad, CRC, every marker's\n"
        "FPDUPTR, header alignment, packing), decodes TCP RDMA options (kind 25) and\n"
        "IPoIB frames and ARP. A BPF filter may follow FILE too.\n"
        "  -v                   one line per FPDU, frame and event (default: per flow)\n"
        "  --json               JSON lines (docs/DUMP.md)\n"
        "  --mpa-start PORT[:SEQ]  MPA begins on connections with PORT: at sequence\n"
        "                       number SEQ of the direction from PORT, else at the\n"
        "                       first data octet of both directions\n"
        "  --framing auto|mpa|ift|none   what to look for (default auto)\n"
        "  --markers on|off  --crc on|off  force the MPA mode instead of learning it\n"
        "  --port PORT          only connections with this port (repeatable, 16 at most)\n"
        "  -c COUNT             stop after COUNT packets\n"
        "  --max-flows N        connections tracked at once (default 256)\n"
        "  --store BYTES        out-of-order octets held per direction (default 262144)\n"
        "  --no-progress        no progress line on a terminal\n"
        "exit: 0 all correct, 1 protocol error (or unreadable capture), 2 usage,\n"
        "      3 capture incomplete (gaps, cut by the snap length, ends inside a frame)\n");
}

static volatile sig_atomic_t stop_flag;
static pcap_t *live_pc;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
    if (live_pc)
        pcap_breakloop(live_pc);
}

static int onoff(const char *opt, const char *v, int *out)
{
    if (v && !strcmp(v, "on"))
        *out = 1;
    else if (v && !strcmp(v, "off"))
        *out = 0;
    else {
        fprintf(stderr, "ddpwire dump: %s takes on or off\n", opt);
        return -1;
    }
    return 0;
}

static int parse_mpa_start(dw_dissect_settings *o, const char *v)
{
    uint64_t n;
    char port[16];
    const char *colon = v ? strchr(v, ':') : NULL;
    size_t plen = colon ? (size_t)(colon - v) : (v ? strlen(v) : 0);
    if (!v || plen == 0 || plen >= sizeof port) {
        fprintf(stderr, "ddpwire dump: --mpa-start takes PORT or PORT:SEQ\n");
        return -1;
    }
    memcpy(port, v, plen);
    port[plen] = 0;
    if (cli_u64("--mpa-start", port, 1, 65535, &n))
        return -1;
    o->mpa_port = (int)n;
    if (colon) {
        if (cli_u64("--mpa-start", colon + 1, 0, UINT32_MAX, &n))
            return -1;
        o->mpa_seq = (uint32_t)n;
        o->mpa_seq_set = 1;
    }
    return 0;
}

static int parse_framing(dw_dissect_settings *o, const char *v)
{
    static const char *names[] = {"auto", "mpa", "ift", "none"};
    for (int k = 0; k < 4; k++)
        if (v && !strcmp(v, names[k])) {
            o->mode = (dw_dissect_mode)k;
            return 0;
        }
    fprintf(stderr, "ddpwire dump: --framing takes auto, mpa, ift or none\n");
    return -1;
}

/* One option at argv[*i]: 1 handled, 0 not an option, -1 bad. */
static int option(dump_opts *o, int argc, char **argv, int *i, const char **iface)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t n;
    int r = 0;
    if (!strcmp(a, "-v"))
        return o->verbose = 1;
    if (!strcmp(a, "--json"))
        return o->json = 1;
    if (!strcmp(a, "--no-progress")) {
        o->progress = 0;
        return 1;
    }
    if (!strcmp(a, "-i")) {
        if (!v) {
            fprintf(stderr, "ddpwire dump: -i takes an interface\n");
            return -1;
        }
        *iface = v;
    } else if (!strcmp(a, "--mpa-start"))
        r = parse_mpa_start(&o->ds, v);
    else if (!strcmp(a, "--framing"))
        r = parse_framing(&o->ds, v);
    else if (!strcmp(a, "--markers"))
        r = onoff(a, v, &o->ds.markers);
    else if (!strcmp(a, "--crc"))
        r = onoff(a, v, &o->ds.crc);
    else if (!strcmp(a, "--port")) {
        if (o->ds.nports == DW_DISSECT_PORTS_MAX) {
            fprintf(stderr, "ddpwire dump: at most 16 --port options\n");
            return -1;
        }
        r = cli_u64(a, v, 1, 65535, &n);
        o->ds.ports[o->ds.nports++] = (uint16_t)n;
    } else if (!strcmp(a, "-c"))
        r = cli_u64(a, v, 1, UINT64_MAX, &o->count);
    else if (!strcmp(a, "--max-flows")) {
        r = cli_u64(a, v, 1, 1u << 20, &n);
        o->ds.max_flows = (size_t)n;
    } else if (!strcmp(a, "--store")) {
        r = cli_u64(a, v, 0, 1u << 30, &n);
        o->ds.store = (size_t)n;
    } else
        return 0;
    (*i)++;
    return r ? -1 : 1;
}

typedef struct progress {
    int on;
    off_t size;        /* file size, 0 when unknown */
    struct timespec last;
    int shown;
} progress;

static void progress_tick(progress *pg, dump *P, pcap_t *pc, int final)
{
    if (!pg->on)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - pg->last.tv_sec) +
                (double)(now.tv_nsec - pg->last.tv_nsec) / 1e9;
    if (!final && dt < 0.5)
        return;
    pg->last = now;
    char pct[32] = "";
    FILE *f = pc ? pcap_file(pc) : NULL;
    if (f && pg->size > 0) {
        long at = ftell(f);
        if (at >= 0)
            snprintf(pct, sizeof pct, " %5.1f%%", 100.0 * (double)at / (double)pg->size);
    }
    dw_dissect_stats t;
    dw_dissect_stats_get(P->ds, &t);
    fprintf(stderr, "\r%s %llu packets, %llu flows (%llu open), %llu errors%s", pct,
            (unsigned long long)t.packets, (unsigned long long)t.flows_seen,
            (unsigned long long)t.flows_open, (unsigned long long)t.protocol_errors,
            final ? "\n" : "   ");
    pg->shown = 1;
}

static pcap_t *open_capture(const char *file, const char *iface, progress *pg)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    pcap_t *pc;
    if (iface) {
        pc = pcap_open_live(iface, 262144, 0, 100, err);
    } else {
        pc = pcap_open_offline(file, err);
        struct stat st;
        if (pc && strcmp(file, "-") && !stat(file, &st))
            pg->size = st.st_size;
    }
    if (!pc)
        fprintf(stderr, "ddpwire dump: %s\n", err);
    return pc;
}

static int set_filter(pcap_t *pc, const char *expr)
{
    struct bpf_program prog;
    if (pcap_compile(pc, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) ||
        pcap_setfilter(pc, &prog)) {
        fprintf(stderr, "ddpwire dump: filter '%s': %s\n", expr, pcap_geterr(pc));
        return -1;
    }
    pcap_freecode(&prog);
    return 0;
}

static int read_loop(dump *P, pcap_t *pc, progress *pg)
{
    struct pcap_pkthdr *h;
    const u_char *p;
    int rc;
    unsigned lt = (unsigned)pcap_datalink(pc);
    while (!stop_flag && (rc = pcap_next_ex(pc, &h, &p)) >= 0) {
        if (rc == 0)
            continue; /* live: timeout */
        uint64_t t = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
        uint64_t n = dw_dissect_packet(P->ds, lt, t, p, h->caplen, h->len);
        if (P->o.count && n >= P->o.count)
            break;
        if ((n & 255) == 0)
            progress_tick(pg, P, pc, 0);
    }
    if (!stop_flag && rc == PCAP_ERROR) {
        fprintf(stderr, "ddpwire dump: %s\n", pcap_geterr(pc));
        return -1;
    }
    return 0;
}

static int parse_args(dump_opts *o, int argc, char **argv, const char **file,
                      const char **iface, char *filter, size_t fcap)
{
    size_t flen = 0;
    for (int i = 1; i < argc; i++) {
        int r = option(o, argc, argv, &i, iface);
        if (r < 0)
            return -1;
        if (r)
            continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "ddpwire dump: unknown option %s\n", argv[i]);
            return -1;
        }
        if (!*file && !*iface) {
            *file = argv[i];
            continue;
        }
        size_t n = strlen(argv[i]);
        if (flen + n + 2 > fcap) {
            fprintf(stderr, "ddpwire dump: filter too long\n");
            return -1;
        }
        if (flen)
            filter[flen++] = ' ';
        memcpy(filter + flen, argv[i], n + 1);
        flen += n;
    }
    if (!*file && !*iface) {
        fprintf(stderr, "ddpwire dump: a capture FILE or -i IFACE is required\n");
        return -1;
    }
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help();
            return 0;
        }
    static dump D;
    memset(&D, 0, sizeof D);
    dw_dissect_settings_default(&D.o.ds);
    D.o.progress = isatty(2);
    const char *file = NULL, *iface = NULL;
    char filter[1024] = "";
    if (parse_args(&D.o, argc, argv, &file, &iface, filter, sizeof filter))
        return 2;
    if (file && iface) {
        fprintf(stderr, "ddpwire dump: give a FILE or -i IFACE, not both\n");
        return 2;
    }
    progress pg = {D.o.progress, 0, {0, 0}, 0};
    pcap_t *pc = open_capture(file, iface, &pg);
    if (!pc)
        return 1;
    if (filter[0] && set_filter(pc, filter)) {
        pcap_close(pc);
        return 2;
    }
    D.out = stdout;
    if (dump_open(&D)) {
        fprintf(stderr, "ddpwire dump: out of memory\n");
        pcap_close(pc);
        return 1;
    }
    if (iface) {
        live_pc = pc;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
    }
    int rerr = read_loop(&D, pc, &pg);
    progress_tick(&pg, &D, pc, 1);
    live_pc = NULL;
    pcap_close(pc);
    dw_dissect_finish(D.ds);
    dw_dissect_stats t;
    dw_dissect_stats_get(D.ds, &t);
    if (t.nomem)
        fprintf(stderr, "ddpwire dump: out of memory: %llu connections or checkers not checked\n",
                (unsigned long long)t.nomem);
    int status = (rerr || t.protocol_errors) ? 1 : t.incomplete ? 3 : 0;
    out_summary(&D, status);
    dw_dissect_del(D.ds);
    return status;
}
