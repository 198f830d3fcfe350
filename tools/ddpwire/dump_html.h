/* SPDX-License-Identifier: MIT */
/* ddpwire dump --report: what the report keeps while the capture is read
 * (dump_html.c) and how it is written (dump_html_page.c). Memory and the
 * file are bounded by pixels and caps, not by the capture: each timeline
 * has HTML_BINS bins that double their width as the stream grows. */
#ifndef DW_DUMP_HTML_H
#define DW_DUMP_HTML_H

#include "dump.h"
#include "out_file.h"

#define HTML_BINS 800        /* timeline bins (pixels) per direction */
#define HTML_TIMELINES 128   /* connections drawn (the first ones) */
#define HTML_ROWS 2000       /* connections in the table */
#define HTML_ERR_LIST 50     /* error lines listed per direction */
#define HTML_GAPS 64         /* gap extents drawn per direction */
#define HTML_KINDS 24        /* error kinds counted per direction */
#define HTML_GLOBAL 50       /* errors outside connections (IPoIB) listed */

typedef struct html_bin {
    uint32_t segs, rexmit, fpdus, unaligned, markers, bad_markers, errors, gaps;
    int32_t err_idx; /* the first error's line in the list, or -1 */
    uint64_t err_pkt;
    const char *err_kind;
} html_bin;

typedef struct html_span {
    uint64_t off, len, pkt;
} html_span;

/* One direction's timeline: bins over stream offsets [0, HTML_BINS << shift). */
typedef struct html_tl {
    html_bin bin[HTML_BINS];
    unsigned shift;
    uint64_t end;
    int anchored;
    uint64_t a_off;
    uint32_t a_seq;
    char *lines[HTML_ERR_LIST];
    size_t nlines;
    html_span gap[HTML_GAPS];
    size_t ngaps;
} html_tl;

typedef struct html_kind {
    const char *kind;
    uint64_t n;
} html_kind;

typedef struct html_dir {
    dw_dissect_dir d;         /* at the end (d.flow not kept) */
    dw_dissect_dir_stats st;
    html_kind kind[HTML_KINDS];
    size_t nkinds;
    uint64_t errors;          /* error events seen */
    html_tl *tl;              /* NULL: not drawn */
} html_dir;

typedef struct html_flow {
    uint64_t id;
    char client[64], server[64];
    uint8_t ip_version, addr[2][16];
    uint16_t port[2];
    const char *framing, *ulp;
    int ended, ok;
    html_dir dir[2];
} html_flow;

typedef struct dump_html {
    out_file out;
    char *cmd;
    html_flow **flow;         /* by id - 1, up to HTML_ROWS */
    size_t nflow;
    uint64_t flows_total;
    html_flow *live[HTML_TIMELINES]; /* with a timeline, not ended */
    size_t ntimelines;
    char *global[HTML_GLOBAL];
    size_t nglobal;
    int nomem; /* an allocation failed: the page would leave something out */
    uint64_t global_total;
} dump_html;

/* dump_html_page.c: the whole page. */
void html_page(dump *P, dump_html *H, int status);

#endif
