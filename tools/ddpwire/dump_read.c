/* SPDX-License-Identifier: MIT */
/*
 * ddpwire dump: the sources (capture files in turn, or a live interface)
 * through libpcap into the dissector, the progress line, and -w: every
 * packet read, or (--only-errors) the packets that errors name, kept in a
 * window of the last DUMP_RING packets until they leave it.
 */
#include <pcap/pcap.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "dump.h"

#define DUMP_RING 4096u

typedef struct held {
    struct pcap_pkthdr h;
    uint8_t *data;
    uint64_t pkt;
    int marked;
} held;

typedef struct dump_writer {
    cli_outfile file;    /* FILE.tmp-XXXXXX until complete */
    pcap_dumper_t *d;
    pcap_t *dead;        /* the link type of the file written */
    held *ring;          /* --only-errors */
    uint64_t next;       /* packets seen (the ring's end) */
    uint64_t written;
} dump_writer;

static volatile sig_atomic_t stop_flag;
static pcap_t *live_pc;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
    if (live_pc)
        pcap_breakloop(live_pc);
}

/* ---- -w ------------------------------------------------------------- */

void dump_fail(dump *P, const char *what, const char *why)
{
    if (!P->fail[0])
        snprintf(P->fail, sizeof P->fail, "%.150s: %.80s", what, why);
    stop_flag = 1; /* nothing after it would be whole */
}

static void w_put(dump *P, dump_writer *w, const struct pcap_pkthdr *h, const uint8_t *p)
{
    pcap_dump((u_char *)w->d, h, p);
    w->written++;
    if (cli_outfile_failed(&w->file) && !P->fail[0]) {
        char what[300];
        snprintf(what, sizeof what, "writing %s", P->o.write);
        dump_fail(P, what, strerror(w->file.err));
    }
}

void dump_mark(dump *P, uint64_t pkt)
{
    dump_writer *w = P->w;
    if (w && w->ring && pkt && pkt <= w->next && w->next - pkt < DUMP_RING)
        w->ring[(pkt - 1) % DUMP_RING].marked = 1;
}

/* The oldest of the window leaves it (written when marked). */
static void w_leave(dump *P, dump_writer *w, held *x)
{
    if (x->data && x->marked)
        w_put(P, w, &x->h, x->data);
    free(x->data);
    x->data = NULL;
    x->marked = 0;
}

static void w_packet(dump *P, const struct pcap_pkthdr *h, const uint8_t *p, uint64_t pkt)
{
    dump_writer *w = P->w;
    if (!w)
        return;
    if (!w->ring) {
        w_put(P, w, h, p);
        return;
    }
    held *x = &w->ring[(pkt - 1) % DUMP_RING];
    w_leave(P, w, x);
    x->h = *h;
    x->pkt = pkt;
    x->data = malloc(h->caplen ? h->caplen : 1);
    if (x->data)
        memcpy(x->data, p, h->caplen);
    else
        dump_fail(P, "holding a packet for -w", "out of memory");
    w->next = pkt;
}

static int w_open(dump *P, int linktype, int snaplen)
{
    dump_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->dead = pcap_open_dead(linktype, snaplen)) ||
        (P->o.only_errors && !(w->ring = calloc(DUMP_RING, sizeof *w->ring)))) {
        if (w && w->dead)
            pcap_close(w->dead);
        if (w)
            free(w->ring);
        free(w);
        return cli_nomem("ddpwire dump", "opening -w");
    }
    FILE *f = cli_outfile_open(&w->file, "ddpwire dump", P->o.write);
    w->d = f ? pcap_dump_fopen(w->dead, f) : NULL;
    if (!w->d) {
        if (f)
            fprintf(stderr, "ddpwire dump: -w %s: %s\n", P->o.write, pcap_geterr(w->dead));
        int nomem = cli_errno_resource(errno);
        cli_outfile_abort(&w->file);
        pcap_close(w->dead);
        free(w->ring);
        free(w);
        return nomem ? CLI_EXIT_RESOURCE : 2;
    }
    P->w = w;
    return 0;
}

void dump_write_close(dump *P, int keep)
{
    dump_writer *w = P->w;
    if (!w)
        return;
    if (w->ring) {
        for (uint64_t k = 0; k < DUMP_RING && keep; k++) /* in packet order */
            w_leave(P, w, &w->ring[(w->next + k) % DUMP_RING]);
        for (uint64_t k = 0; k < DUMP_RING; k++)
            free(w->ring[k].data);
        free(w->ring);
    }
    /* The pcap_dumper_t is the cli_outfile's FILE: the commit closes it
     * (pcap_dump_close would, without a status). */
    int had_tmp = w->file.tmp != NULL;
    if (keep && !P->fail[0] && cli_outfile_commit(&w->file, NULL)) {
        char what[300];
        snprintf(what, sizeof what, "writing %s", P->o.write);
        dump_fail(P, what, strerror(errno));
    }
    P->w_removed = had_tmp && P->fail[0];
    cli_outfile_abort(&w->file); /* not kept, or failed: removed */
    pcap_close(w->dead);
    free(w);
    P->w = NULL;
}

/* ---- the progress line ---------------------------------------------- */

typedef struct progress {
    int on;
    off_t size;
    double last; /* cli_now() */
} progress;

static void progress_tick(progress *pg, dump *P, pcap_t *pc, int final)
{
    if (!pg->on)
        return;
    double now = cli_now(), dt = now - pg->last;
    if (!final && dt < 0.5)
        return;
    pg->last = now;
    char pct[32] = "";
    FILE *f = pc ? pcap_file(pc) : NULL;
    long at = f ? ftell(f) : -1;
    if (at >= 0 && pg->size > 0)
        snprintf(pct, sizeof pct, " %5.1f%%", 100.0 * (double)at / (double)pg->size);
    dw_dissect_stats t;
    dw_dissect_stats_get(P->ds, &t);
    fprintf(stderr, "\r%s %llu packets, %llu flows (%llu open), %llu errors%s", pct,
            (unsigned long long)t.packets, (unsigned long long)t.flows_seen,
            (unsigned long long)t.flows_open, (unsigned long long)t.protocol_errors,
            final ? "\n" : "   ");
}

/* ---- one source ----------------------------------------------------- */

static pcap_t *open_source(const dump *P, const char *file, progress *pg)
{
    char err[PCAP_ERRBUF_SIZE] = "";
    errno = 0;
    pcap_t *pc = P->o.iface ? pcap_open_live(P->o.iface, 262144, 0, 100, err)
                            : pcap_open_offline(file, err);
    struct stat st;
    pg->size = 0;
    if (pc && file && strcmp(file, "-") && !stat(file, &st))
        pg->size = st.st_size;
    if (!pc)
        fprintf(stderr, "ddpwire dump: %s: %s\n", P->o.iface ? P->o.iface : file, err);
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

/* 1: stop reading (-c reached, or a signal). */
static int read_source(dump *P, pcap_t *pc, const char *name, progress *pg)
{
    struct pcap_pkthdr *h;
    const u_char *p;
    int rc;
    unsigned lt = (unsigned)pcap_datalink(pc);
    while (!stop_flag && (rc = pcap_next_ex(pc, &h, &p)) >= 0) {
        if (rc == 0)
            continue; /* live: timeout */
        uint64_t t = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
        w_packet(P, h, p, ++P->read); /* before: its own errors may mark it */
        int drawn = html_segment(P, (unsigned)lt, p, h->caplen);
        uint64_t n = dw_dissect_packet(P->ds, lt, t, p, h->caplen, h->len);
        if (!drawn)
            html_segment(P, (unsigned)lt, p, h->caplen);
        if (P->o.count && n >= P->o.count)
            return 1;
        if ((n & 255) == 0)
            progress_tick(pg, P, pc, 0);
    }
    if (!stop_flag && rc == PCAP_ERROR && !P->incomplete) {
        snprintf(P->why, sizeof P->why, "%s: %s", name, pcap_geterr(pc));
        P->incomplete = P->why; /* e.g. cut inside a packet */
    }
    return stop_flag != 0;
}

int dump_read(dump *P)
{
    progress pg = {P->o.progress, 0, 0};
    size_t n = P->o.iface ? 1 : P->o.nfiles;
    int status = 0, lt0 = -1;
    for (size_t i = 0; i < n && !status; i++) {
        const char *name = P->o.iface ? P->o.iface : P->o.files[i];
        pcap_t *pc = open_source(P, P->o.iface ? NULL : name, &pg);
        if (!pc || (P->o.filter[0] && set_filter(pc, P->o.filter))) {
            int nomem = errno == ENOMEM; /* libpcap's own allocation */
            if (pc)
                pcap_close(pc);
            if (nomem)
                dump_fail(P, name, "out of memory");
            return nomem ? CLI_EXIT_RESOURCE : 2;
        }
        int lt = pcap_datalink(pc);
        int wr = P->o.write && !P->w ? w_open(P, lt, pcap_snapshot(pc)) : 0;
        if (wr) {
            pcap_close(pc);
            return wr;
        }
        if (P->w && lt0 >= 0 && lt != lt0) {
            fprintf(stderr, "ddpwire dump: %s: link type %d, not the %d that -w writes\n", name,
                    lt, lt0);
            pcap_close(pc);
            return 2;
        }
        lt0 = lt;
        if (P->o.iface) {
            live_pc = pc;
            signal(SIGINT, on_signal);
            signal(SIGTERM, on_signal);
        }
        int stop = read_source(P, pc, name, &pg);
        live_pc = NULL;
        pcap_close(pc);
        if (stop)
            break;
    }
    progress_tick(&pg, P, NULL, 1);
    return status;
}
