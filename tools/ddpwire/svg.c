/* SPDX-License-Identifier: MIT */
/* ddpwire's figures as SVG (svg.h): layout, axes with ticks, series,
 * reference lines, legend and caption; a fixed size, system fonts only. */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out_file.h"

#define W 800.0
#define PL 86.0  /* plot area: left, top, width, height */
#define PT 44.0
#define PW 690.0
#define PH 320.0

const char *svg_color(int i)
{
    static const char *pal[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                "#e69f00", "#56b4e9", "#000000"};
    return pal[(unsigned)i % 7];
}

/* The first n octets of s (up to its end), escaped: no copy, no allocation. */
static void esc_n(FILE *f, const char *s, size_t n)
{
    for (; s && *s && n; s++, n--)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, f);
        }
}

void svg_esc(FILE *f, const char *s)
{
    esc_n(f, s, (size_t)-1);
}

char *svg_command(const char *prefix, int argc, char **argv)
{
    size_t n = strlen(prefix) + 1;
    for (int i = 0; i < argc; i++)
        n += 2 * strlen(argv[i]) + 4;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    p += sprintf(p, "%s", prefix);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int q = !*a || strpbrk(a, " \t'\"\\$|&;<>()*?") != NULL;
        *p++ = ' ';
        if (q)
            *p++ = '\'';
        for (; *a; a++) {
            if (q && *a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        }
        if (q)
            *p++ = '\'';
    }
    *p = 0;
    return s;
}

/* The range of an axis: given, or from the data. */
static void range(const svg_plot *p, int y, double *lo, double *hi)
{
    const svg_axis *a = y ? &p->y : &p->x;
    if (a->min != a->max) {
        *lo = a->min, *hi = a->max;
        return;
    }
    double mn = INFINITY, mx = -INFINITY;
    for (size_t s = 0; s < p->nseries; s++)
        for (size_t i = 0; i < p->series[s].n; i++) {
            double v = y ? p->series[s].y[i] : p->series[s].x[i];
            if (!isfinite(v) || (a->log && v <= 0))
                continue;
            mn = v < mn ? v : mn, mx = v > mx ? v : mx;
        }
    for (size_t r = 0; y && r < p->nrefs; r++)
        mn = p->refs[r].y < mn ? p->refs[r].y : mn, mx = p->refs[r].y > mx ? p->refs[r].y : mx;
    if (!isfinite(mn))
        mn = a->log ? 1 : 0, mx = a->log ? 10 : 1;
    if (a->log) {
        mn = pow(10, floor(log10(mn)));
        mx = pow(10, ceil(log10(mx)));
        if (mx <= mn)
            mx = mn * 10;
    } else {
        if (y && mn > 0)
            mn = 0;
        if (mx <= mn)
            mx = mn + 1;
        mx += (mx - mn) * 0.06;
    }
    *lo = mn, *hi = mx;
}

static double nice_step(double span)
{
    double raw = span / 6, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

typedef struct frame {
    double x0, x1, y0, y1;
    int xlog, ylog;
} frame;

static double px(const frame *fr, double v)
{
    double t = fr->xlog ? (log10(v) - log10(fr->x0)) / (log10(fr->x1) - log10(fr->x0))
                        : (v - fr->x0) / (fr->x1 - fr->x0);
    return PL + t * PW;
}

static double py(const frame *fr, double v)
{
    double t = fr->ylog ? (log10(v) - log10(fr->y0)) / (log10(fr->y1) - log10(fr->y0))
                        : (v - fr->y0) / (fr->y1 - fr->y0);
    return PT + PH - t * PH;
}

static void tick_label(char *b, size_t cap, double v)
{
    double a = fabs(v);
    if (a >= 1e6 && fmod(a, 1e5) == 0)
        snprintf(b, cap, "%gM", v / 1e6);
    else if (a >= 1e4 && fmod(a, 100) == 0)
        snprintf(b, cap, "%gk", v / 1e3);
    else
        snprintf(b, cap, "%g", fabs(v) < 1e-12 ? 0.0 : v);
}

/* Ticks, grid and labels of one axis. */
static void axis(FILE *f, const frame *fr, int y)
{
    double lo = y ? fr->y0 : fr->x0, hi = y ? fr->y1 : fr->x1;
    int lg = y ? fr->ylog : fr->xlog;
    double step = lg ? 0 : nice_step(hi - lo);
    double v = lg ? lo : ceil(lo / step - 1e-9) * step;
    for (int k = 0; k < 40 && v <= hi * (1 + 1e-9) + 1e-12; k++) {
        char b[32];
        tick_label(b, sizeof b, v);
        if (y) {
            double yy = py(fr, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"g\"/>\n"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    PL, yy, PL + PW, yy, PL - 6, yy + 4, b);
        } else {
            double xx = px(fr, v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"g\"/>\n"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    xx, PT, xx, PT + PH, xx, PT + PH + 16, b);
        }
        v = lg ? v * 10 : v + step;
    }
}

/* A point: a filled circle, or a hollow square. */
static void point(FILE *f, const svg_series *s, double x, double y)
{
    if (s->style & SVG_SQUARES)
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" "
                   "stroke=\"%s\" stroke-width=\"2\"/>\n", x - 4, y - 4, svg_color(s->color));
    else
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x, y,
                svg_color(s->color));
}

static void series(FILE *f, const frame *fr, const svg_series *s)
{
    const char *c = svg_color(s->color);
    int open = 0;
    for (size_t i = 0; (s->style & SVG_LINE) && i < s->n; i++) {
        int ok = isfinite(s->y[i]) && (!fr->ylog || s->y[i] > 0) && (!fr->xlog || s->x[i] > 0);
        if (!ok) {
            if (open)
                fputs("\"/>\n", f);
            open = 0;
            continue;
        }
        if (!open)
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", c,
                    s->dashed ? " stroke-dasharray=\"6 4\"" : "");
        fprintf(f, "%s%.1f,%.1f", open ? " " : "", px(fr, s->x[i]), py(fr, s->y[i]));
        open = 1;
    }
    if (open)
        fputs("\"/>\n", f);
    for (size_t i = 0; (s->style & (SVG_POINTS | SVG_SQUARES)) && i < s->n; i++)
        if (isfinite(s->y[i]) && (!fr->ylog || s->y[i] > 0))
            point(f, s, px(fr, s->x[i]), py(fr, s->y[i]));
}

/* Text wrapped at about n characters per line, from y down. Returns y after. */
static double wrapped(FILE *f, const char *s, double x, double y, size_t n, const char *cls)
{
    size_t len = strlen(s);
    while (len) {
        size_t k = len <= n ? len : n;
        if (k < len) /* break at the last space */
            for (size_t j = k; j > n / 2; j--)
                if (s[j] == ' ') {
                    k = j;
                    break;
                }
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\">", x, y, cls);
        esc_n(f, s, k);
        fputs("</text>\n", f);
        s += k, len -= k;
        while (*s == ' ')
            s++, len--;
        y += 15;
    }
    return y;
}

void svg_plot_write(FILE *f, const svg_plot *p)
{
    frame fr = {0, 0, 0, 0, p->x.log, p->y.log};
    range(p, 0, &fr.x0, &fr.x1);
    range(p, 1, &fr.y0, &fr.y1);
    size_t named = p->nrefs;
    for (size_t s = 0; s < p->nseries; s++)
        named += p->series[s].name && p->series[s].name[0];
    size_t rows = (named + 1) / 2;
    double h = PT + PH + 56 + 20.0 * (double)rows + 30 + (p->note ? 30 : 0) +
               15.0 * (double)(strlen(p->caption ? p->caption : "") / 100 + 1);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
               "<style>.g{stroke:#ddd}.c{font-family:monospace;font-size:11px;fill:#333}"
               ".n{font-size:11px;fill:#333}</style>\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            W, h, W, h);
    fprintf(f, "<text x=\"%.1f\" y=\"24\" font-size=\"15\" font-weight=\"bold\">", PL);
    svg_esc(f, p->title);
    fputs("</text>\n", f);
    axis(f, &fr, 0);
    axis(f, &fr, 1);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
               "stroke=\"#333\"/>\n", PL, PT, PW, PH);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", PL + PW / 2, PT + PH + 36);
    svg_esc(f, p->x.label);
    fprintf(f, "</text>\n<text transform=\"translate(18 %.1f) rotate(-90)\" "
               "text-anchor=\"middle\">", PT + PH / 2);
    svg_esc(f, p->y.label);
    fputs("</text>\n", f);
    for (size_t r = 0; r < p->nrefs; r++)
        if (p->refs[r].y >= fr.y0 && p->refs[r].y <= fr.y1 && (!fr.ylog || p->refs[r].y > 0))
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                       "stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n",
                    PL, py(&fr, p->refs[r].y), PL + PW, py(&fr, p->refs[r].y));
    for (size_t s = 0; s < p->nseries; s++)
        series(f, &fr, &p->series[s]);
    /* legend: two columns under the axis label */
    double ly = PT + PH + 60;
    for (size_t k = 0, e = 0; k < p->nseries + p->nrefs; k++) {
        const svg_series *s = k < p->nseries ? &p->series[k] : NULL;
        if (s && (!s->name || !s->name[0]))
            continue; /* no legend entry (a series split in two) */
        double x = PL + (double)(e % 2) * PW / 2, y = ly + 20.0 * (double)(e / 2);
        e++;
        if (s && (s->style & SVG_LINE))
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"2\"%s/>\n", x, y - 4, x + 28, y - 4, svg_color(s->color),
                    s->dashed ? " stroke-dasharray=\"6 4\"" : "");
        if (s && (s->style & (SVG_POINTS | SVG_SQUARES)))
            point(f, s, x + 14, y - 4);
        if (!s)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                       "stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n", x, y - 4, x + 28, y - 4);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 36, y);
        svg_esc(f, s ? s->name : p->refs[k - p->nseries].label);
        fputs("</text>\n", f);
    }
    double y = ly + 20.0 * (double)rows + 8;
    if (p->note)
        y = wrapped(f, p->note, PL - 60, y, 118, "n");
    wrapped(f, "made by:", PL - 60, y + 4, 100, "n");
    wrapped(f, p->caption ? p->caption : "", PL - 4, y + 4, 100, "c");
    fputs("</svg>\n", f);
}

int svg_plot_save(const svg_plot *p, const char *path, const char *const *inputs,
                  size_t ninputs, const char *who)
{
    out_file o;
    int rc = out_file_open(&o, path, inputs, ninputs, who, "--svg");
    if (rc)
        return rc;
    svg_plot_write(o.f, p);
    return out_file_commit(&o, who);
}
