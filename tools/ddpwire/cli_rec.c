/* SPDX-License-Identifier: MIT */
/* The CLI's one output layer: records, their JSON and their text (cli_rec.h). */
#include "cli_rec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

static cli_field *add(cli_rec *r, const char *key, cli_vt t)
{
    static cli_field spare;
    if (r->n == CLI_REC_FIELDS) {
        r->overflow = 1;
        memset(&spare, 0, sizeof spare);
        return &spare;
    }
    cli_field *f = &r->f[r->n++];
    memset(f, 0, sizeof *f);
    f->key = key;
    f->t = t;
    return f;
}

void cli_rec_init(cli_rec *r, const char *type)
{
    r->n = r->depth = r->overflow = 0;
    r->used = 0;
    if (type)
        cli_rec_str(r, "type", type);
}

void cli_rec_u64(cli_rec *r, const char *key, uint64_t v)
{
    add(r, key, CLI_V_U64)->v.u = v;
}

void cli_rec_i64(cli_rec *r, const char *key, int64_t v)
{
    add(r, key, CLI_V_I64)->v.i = v;
}

void cli_rec_f(cli_rec *r, const char *key, const char *json_fmt, double v)
{
    cli_field *f = add(r, key, CLI_V_F);
    f->fmt = json_fmt;
    f->v.f = v;
}

void cli_rec_str(cli_rec *r, const char *key, const char *s)
{
    add(r, key, CLI_V_STR)->v.s = s ? s : "";
}

void cli_rec_raw(cli_rec *r, const char *key, const char *s)
{
    add(r, key, CLI_V_RAW)->v.s = s;
}

void cli_rec_bool(cli_rec *r, const char *key, int v)
{
    add(r, key, CLI_V_BOOL)->v.i = v != 0;
}

void cli_rec_null(cli_rec *r, const char *key)
{
    add(r, key, CLI_V_NULL);
}

void cli_rec_obj(cli_rec *r, const char *key)
{
    add(r, key, CLI_V_OBJ);
    r->depth++;
}

void cli_rec_arr(cli_rec *r, const char *key)
{
    add(r, key, CLI_V_ARR);
    r->depth++;
}

void cli_rec_end(cli_rec *r)
{
    add(r, NULL, CLI_V_END);
    r->depth--;
}

/* A copy of the formatted text in the record's buffer ("" when full). */
static const char *keep(cli_rec *r, const char *fmt, va_list ap)
{
    size_t room = sizeof r->buf - r->used;
    char *p = r->buf + r->used;
    int n = vsnprintf(p, room, fmt, ap);
    if (n < 0 || (size_t)n >= room) {
        r->overflow = 1;
        return "";
    }
    r->used += (size_t)n + 1;
    return p;
}

void cli_rec_strf(cli_rec *r, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *s = keep(r, fmt, ap);
    va_end(ap);
    cli_rec_str(r, key, s);
}

void cli_rec_u64s(cli_rec *r, const cli_field_u64 *m, size_t n, int hide)
{
    for (size_t i = 0; i < n; i++) {
        cli_rec_u64(r, m[i].key, m[i].v);
        r->f[r->n - 1].text_only = hide != 0;
    }
}

void cli_rec_hide(cli_rec *r)
{
    if (r->n > 0)
        r->f[r->n - 1].text_only = 1;
}

void cli_rec_textf(cli_rec *r, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *s = keep(r, fmt, ap);
    va_end(ap);
    cli_field *f = add(r, key, CLI_V_STR);
    f->v.s = s;
    f->text_only = 1;
}

void cli_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static void json_value(FILE *f, const cli_field *x)
{
    switch (x->t) {
    case CLI_V_U64: fprintf(f, "%" PRIu64, x->v.u); break;
    case CLI_V_I64: fprintf(f, "%" PRId64, x->v.i); break;
    case CLI_V_F: fprintf(f, x->fmt ? x->fmt : "%g", x->v.f); break;
    case CLI_V_STR: cli_json_str(f, x->v.s); break;
    case CLI_V_RAW: fputs(x->v.s, f); break;
    case CLI_V_BOOL: fputs(x->v.i ? "true" : "false", f); break;
    case CLI_V_NULL: fputs("null", f); break;
    case CLI_V_OBJ: fputc('{', f); break;
    case CLI_V_ARR: fputc('[', f); break;
    case CLI_V_END: break;
    }
}

void cli_rec_json(FILE *f, const cli_rec *r)
{
    char close[CLI_REC_FIELDS + 1];
    int depth = 0, first = 1;
    if (r->overflow) /* a bug of the tool: say it rather than drop members silently */
        fprintf(stderr, "ddpwire: internal error: a record has more than %d members or %d "
                        "octets of text\n", CLI_REC_FIELDS, CLI_REC_TEXT);
    fputc('{', f);
    for (int i = 0; i < r->n; i++) {
        const cli_field *x = &r->f[i];
        if (x->text_only)
            continue;
        if (x->t == CLI_V_END) {
            if (depth > 0)
                fputc(close[--depth], f);
            first = 0;
            continue;
        }
        if (!first)
            fputc(',', f);
        first = 0;
        if (x->key) {
            cli_json_str(f, x->key);
            fputc(':', f);
        }
        json_value(f, x);
        if (x->t == CLI_V_OBJ || x->t == CLI_V_ARR) {
            close[depth++] = x->t == CLI_V_OBJ ? '}' : ']';
            first = 1;
        }
    }
    while (depth > 0)
        fputc(close[--depth], f);
    fputs("}\n", f);
}

/* The member named by path[0..len) ("a.b": b inside object a), or NULL. */
static const cli_field *find(const cli_rec *r, const char *path, size_t len)
{
    const char *stack[8];
    int depth = 0;
    for (int i = 0; i < r->n; i++) {
        const cli_field *x = &r->f[i];
        if (x->t == CLI_V_END) {
            depth -= depth > 0;
            continue;
        }
        size_t at = 0;
        int match = x->key != NULL;
        for (int d = 0; match && d < depth; d++) {
            size_t k = stack[d] ? strlen(stack[d]) : 0;
            match = stack[d] && at + k < len && !strncmp(path + at, stack[d], k) &&
                    path[at + k] == '.';
            at += k + 1;
        }
        if (match && strlen(x->key) == len - at && !strncmp(path + at, x->key, len - at))
            return x;
        if ((x->t == CLI_V_OBJ || x->t == CLI_V_ARR) && depth < 8)
            stack[depth++] = x->key;
    }
    return NULL;
}

/* One member by a printf conversion spec ("" : its plain form). */
static void text_value(FILE *f, const cli_field *x, const char *spec, size_t sl)
{
    char fmt[32];
    if (!sl || sl > 20) {
        switch (x->t) {
        case CLI_V_F: fprintf(f, "%g", x->v.f); return;
        case CLI_V_BOOL: fputs(x->v.i ? "true" : "false", f); return;
        case CLI_V_NULL: fputs("null", f); return;
        case CLI_V_STR: case CLI_V_RAW: fputs(x->v.s, f); return;
        default: break;
        }
        sl = 0;
    }
    char conv = sl ? spec[sl - 1] : x->t == CLI_V_I64 ? 'd' : 'u';
    snprintf(fmt, sizeof fmt, "%%%.*s%s%c", (int)(sl ? sl - 1 : 0), spec,
             x->t == CLI_V_U64 || x->t == CLI_V_I64 ? "ll" : "", conv);
    switch (x->t) {
    case CLI_V_U64: fprintf(f, fmt, (unsigned long long)x->v.u); break;
    case CLI_V_I64: fprintf(f, fmt, (long long)x->v.i); break;
    case CLI_V_F: fprintf(f, fmt, x->v.f); break;
    case CLI_V_STR: case CLI_V_RAW: fprintf(f, fmt, x->v.s); break;
    case CLI_V_BOOL: fprintf(f, fmt, x->v.i ? "true" : "false"); break;
    default: fputs("?", f); break;
    }
}

/* Walks tmpl (keys inside object obj when not NULL); writes to f (when
 * not NULL); returns the unknown keys. */
static int render(FILE *f, const cli_rec *r, const char *obj, const char *tmpl)
{
    int unknown = 0;
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '%' && p[1] == '%') {
            if (f)
                fputc('%', f);
            p++;
            continue;
        }
        const char *end = p[0] == '%' && p[1] == '{' ? strchr(p, '}') : NULL;
        if (!end) {
            if (f)
                fputc(*p, f);
            continue;
        }
        const char *key = p + 2, *colon = memchr(key, ':', (size_t)(end - key));
        size_t kl = (size_t)((colon ? colon : end) - key);
        char path[128];
        if (obj) {
            int n = snprintf(path, sizeof path, "%s.%.*s", obj, (int)kl, key);
            key = path, kl = n > 0 && (size_t)n < sizeof path ? (size_t)n : 0;
        }
        const cli_field *x = find(r, key, kl);
        unknown += !x;
        if (f && x)
            text_value(f, x, colon ? colon + 1 : "", colon ? (size_t)(end - colon - 1) : 0);
        else if (f)
            fputc('?', f);
        p = end;
    }
    return unknown;
}

void cli_rec_text(FILE *f, const cli_rec *r, const char *tmpl)
{
    render(f, r, NULL, tmpl);
}

void cli_rec_text_in(FILE *f, const cli_rec *r, const char *obj, const char *tmpl)
{
    render(f, r, obj, tmpl);
}

void cli_rec_text_item(FILE *f, const cli_rec *r, const char *arr, size_t item,
                       const char *tmpl)
{
    static cli_rec v; /* the element's members, top level (strings stay r's) */
    v.n = v.depth = v.overflow = 0;
    v.used = 0;
    const cli_field *a = find(r, arr, strlen(arr));
    int depth = 0; /* inside the array: 1 in an element, more below it */
    size_t k = 0;
    for (int i = a && a->t == CLI_V_ARR ? (int)(a - r->f) + 1 : r->n; i < r->n; i++) {
        const cli_field *x = &r->f[i];
        if (x->t == CLI_V_END && depth == 0)
            break; /* the array's end */
        if (x->t == CLI_V_END && depth == 1) {
            depth = 0, k++;
            continue;
        }
        if (depth == 0) {
            depth += x->t == CLI_V_OBJ || x->t == CLI_V_ARR;
            continue;
        }
        if (k == item && v.n < CLI_REC_FIELDS)
            v.f[v.n++] = *x;
        if (x->t == CLI_V_OBJ || x->t == CLI_V_ARR)
            depth++;
        else if (x->t == CLI_V_END)
            depth--;
    }
    render(f, &v, NULL, tmpl);
}

int cli_rec_knows(const cli_rec *r, const char *tmpl)
{
    return render(NULL, r, NULL, tmpl) == 0;
}

void cli_rec_emit(FILE *f, int json, const cli_rec *r, const char *tmpl)
{
    if (json)
        cli_rec_json(f, r);
    else
        cli_rec_text(f, r, tmpl);
}
