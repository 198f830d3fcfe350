/* SPDX-License-Identifier: MIT */
/* ddpwire's figures: SVG written directly (as perf timechart does), no
 * dependency. A line/point plot with axes, units, a legend, reference
 * lines (a text's claim) and a caption (the command that made it); and
 * the small pieces (escaping, numbers) the dump report shares. */
#ifndef DW_SVG_H
#define DW_SVG_H

#include <stddef.h>
#include <stdio.h>

enum { SVG_LINE = 1, SVG_POINTS = 2, SVG_SQUARES = 4 /* hollow */ };

typedef struct svg_series {
    const char *name; /* in the legend */
    const double *x, *y;
    size_t n;
    int style;  /* SVG_LINE, with SVG_POINTS or SVG_SQUARES */
    int dashed;
    int color;  /* palette index (colour-blind safe), 0..6 */
} svg_series;

/* A horizontal reference line, labelled (e.g. the text's claim). */
typedef struct svg_ref {
    double y;
    const char *label;
} svg_ref;

typedef struct svg_axis {
    const char *label; /* with its unit: "ULPDU size (octets)" */
    double min, max;   /* min == max: from the data (y from 0, or log) */
    int log;           /* base 10; values <= 0 are left out */
} svg_axis;

typedef struct svg_plot {
    const char *title;
    svg_axis x, y;
    const svg_series *series;
    size_t nseries;
    const svg_ref *refs;
    size_t nrefs;
    const char *note;    /* a line under the plot (inputs, model), or NULL */
    const char *caption; /* the command that made it */
} svg_plot;

/* The whole SVG document. */
void svg_plot_write(FILE *f, const svg_plot *p);

/* The palette's colour i (as "#rrggbb"). */
const char *svg_color(int i);

/* XML text or attribute value, escaped. */
void svg_esc(FILE *f, const char *s);

/* "ddpwire " + argv words joined (each quoted when it needs to be), for a
 * caption; malloc'd, NULL on no memory. */
char *svg_command(const char *prefix, int argc, char **argv);

/* Writes a figure to path through out_file (never over an input, complete
 * or removed); who names the command in messages. 0; -1 after saying why
 * on stderr (a bad name); CLI_EXIT_RESOURCE when it could not complete. */
int svg_plot_save(const svg_plot *p, const char *path, const char *const *inputs,
                  size_t ninputs, const char *who);

#endif
