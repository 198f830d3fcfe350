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

typedef struct dump_opts {
    int verbose, json, progress;
    dw_dissect_settings ds;
    uint64_t count; /* -c: packets, 0 all */
} dump_opts;

typedef struct dump {
    dump_opts o;
    FILE *out;
    dw_dissect *ds;
} dump;

/* dump_out.c: the dissector with the printer's callbacks */
int dump_open(dump *P);
const char *dump_dir_name(int dir);
void out_json_str(FILE *f, const char *s);
/* A per-direction text line's start ("flow 3 c2s "), and whether an error
 * line is shown in text mode (the first 20 per direction without -v). */
FILE *dump_text_line(dump *P, const dw_dissect_dir *d);
int dump_text_error(dump *P, const dw_dissect_dir *d);

/* dump_report.c */
void out_ipoib(dump *P, const dw_dissect_ipoib *ip);
void out_flow(dump *P, const dw_flow *f);
void out_summary(dump *P, int status);

#endif
