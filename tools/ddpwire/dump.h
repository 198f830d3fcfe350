/* SPDX-License-Identifier: MIT */
/* ddpwire dump: shared state of cmd_dump.c (capture loop, options),
 * dump_out.c (events) and dump_report.c (IPoIB, summaries), printing what
 * the library's dissector (<ddpwire/dissect.h>) reports. docs/DUMP.md is
 * the user's contract. */
#ifndef DW_DUMP_H
#define DW_DUMP_H

#include <ddpwire/dissect.h>

#include <stdint.h>
#include <stdio.h>

#define DUMP_FILES_MAX 64

typedef struct dump_opts {
    int verbose, json, progress, quiet;
    dw_dissect_settings ds;
    uint64_t count;          /* -c: packets, 0 all */
    uint64_t max_flows, store;
    const char *files[DUMP_FILES_MAX];
    size_t nfiles;
    const char *iface;       /* -i: live */
    char filter[1024];       /* -f or trailing words: BPF */
    const char *write;       /* -w: packets out */
    int only_errors;         /* --only-errors: -w keeps the packets errors name */
    const char *report;      /* --report: an HTML page */
} dump_opts;

struct dump_writer;
struct dump_html;

typedef struct dump {
    dump_opts o;
    FILE *out;
    dw_dissect *ds;
    struct dump_writer *w;   /* -w, or NULL */
    struct dump_html *html;  /* --report, or NULL */
    uint64_t ipoib;          /* IPoIB frames decoded */
    uint64_t read;           /* packets read */
    const char *incomplete;  /* why the capture itself is incomplete, or NULL */
    char why[256];
    uint64_t nomem;          /* the tool's own allocations that failed */
    char fail[240];
    int w_removed;           /* -w was not kept: removed */          /* the first resource failure, "" none */
} dump;

/* Records a resource failure (the first is reported; reading stops). */
void dump_fail(dump *P, const char *what, const char *why);

/* dump_out.c: the dissector with the printer's callbacks */
int dump_open(dump *P);
const char *dump_dir_name(int dir);
/* A per-direction text line's start ("flow 3 c2s "), and whether an error
 * line is shown in text mode (the first 20 per direction without -v). */
FILE *dump_text_line(dump *P, const dw_dissect_dir *d);
int dump_text_error(dump *P, const dw_dissect_dir *d);

/* An error names packet pkt (-w --only-errors keeps it). */
void dump_mark(dump *P, uint64_t pkt);

/* dump_read.c: reads every source (files in turn, or -i), writes -w;
 * returns 0, or 2 when a source cannot be opened or is not a capture
 * (said on stderr). Sets P->incomplete when a file is cut inside a packet. */
int dump_read(dump *P);
/* After the dissector finished: keep, writes what -w still holds and puts
 * the file in place (a failure goes to dump_fail); else removes it. */
void dump_write_close(dump *P, int keep);

/* dump_report.c */
void out_ipoib(dump *P, const dw_dissect_ipoib *ip);
void out_flow(dump *P, const dw_flow *f);
void out_summary(dump *P, int status);
const char *dump_verdict(int status);
/* Sender rules a peer broke with the framing intact (docs/DUMP.md): the
 * ones broken, into out[3]. */
typedef struct peer_rule {
    const char *key, *text;
    uint64_t count;
} peer_rule;
size_t peer_rules(const dw_mpa_check_stats *ms, peer_rule *out);

/* dump_html.c: --report FILE (each a no-op without one). html_open makes
 * the file's temporary (never an input, nor -w's file): 0, -1 said (a bad
 * name), or CLI_EXIT_RESOURCE said; html_close writes the page and renames
 * it into place (write 1), or removes it: 0, or non-zero when it could not
 * be written (said, removed). */
int html_open(dump *P, int argc, char **argv);
void html_flow_start(dump *P, const dw_flow *f);
void html_flow_end(dump *P, const dw_flow *f);
int html_segment(dump *P, unsigned linktype, const uint8_t *frame, size_t caplen);
void html_fpdu(dump *P, const dw_dissect_dir *d, uint64_t off, uint32_t seq, uint32_t len,
               int aligned, const dw_mpa_check_marker *mk, size_t nmk);
/* An event as dump prints it (line: its words after "flow N dir "):
 * errors are counted and listed; reasm: a reassembly event. */
void html_event(dump *P, const dw_dissect_dir *d, const char *kind, uint64_t off, uint32_t seq,
                uint64_t pkt, int error, int reasm, const char *line);
void html_gap(dump *P, const dw_dissect_dir *d, uint64_t off, uint32_t seq, uint64_t len,
              uint64_t pkt);
void html_global(dump *P, const char *line);
int html_close(dump *P, int status, int write);

#endif
