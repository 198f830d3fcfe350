/* SPDX-License-Identifier: MIT */
/*
 * The CLI's one output layer: a command builds each record once (typed
 * members, in order) and one renderer writes it as a JSON line (members in
 * that order, one escaper) or as text through a template over the same
 * members. Keys and units follow docs/JSON.md.
 */
#ifndef DW_CLI_REC_H
#define DW_CLI_REC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cli_vt {
    CLI_V_U64,
    CLI_V_I64,
    CLI_V_F,    /* a double, written in JSON with the member's format */
    CLI_V_STR,
    CLI_V_RAW,  /* a string written in JSON without quotes (a number kept as text) */
    CLI_V_BOOL,
    CLI_V_NULL,
    CLI_V_OBJ,  /* opens an object member; CLI_V_END closes it */
    CLI_V_ARR,  /* opens an array member (its elements: objects with key NULL) */
    CLI_V_END,
} cli_vt;

typedef struct cli_field {
    const char *key; /* NULL: an element of an array */
    cli_vt t;
    int text_only;   /* for the text template only, not in JSON */
    const char *fmt; /* CLI_V_F: the JSON format ("%.4f") */
    union {
        uint64_t u;
        int64_t i;
        double f;
        const char *s;
    } v;
} cli_field;

#define CLI_REC_FIELDS 1536
#define CLI_REC_TEXT 2048

/* One record. Strings are referenced, not copied (cli_rec_textf copies into
 * the record's own buffer): they must outlive the record's rendering. */
typedef struct cli_rec {
    cli_field f[CLI_REC_FIELDS];
    int n, depth, overflow;
    char buf[CLI_REC_TEXT];
    size_t used;
} cli_rec;

/* Starts a record; type (not NULL) becomes its first member "type". */
void cli_rec_init(cli_rec *r, const char *type);
void cli_rec_u64(cli_rec *r, const char *key, uint64_t v);
void cli_rec_i64(cli_rec *r, const char *key, int64_t v);
void cli_rec_f(cli_rec *r, const char *key, const char *json_fmt, double v);
void cli_rec_str(cli_rec *r, const char *key, const char *s);
/* A string member formatted now (copied into the record). */
void cli_rec_strf(cli_rec *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cli_rec_raw(cli_rec *r, const char *key, const char *s);
void cli_rec_bool(cli_rec *r, const char *key, int v);
void cli_rec_null(cli_rec *r, const char *key);
void cli_rec_obj(cli_rec *r, const char *key);
void cli_rec_arr(cli_rec *r, const char *key);
void cli_rec_end(cli_rec *r);
/* Several integer members at once (hide: for the text only). */
typedef struct cli_field_u64 {
    const char *key;
    uint64_t v;
} cli_field_u64;
void cli_rec_u64s(cli_rec *r, const cli_field_u64 *m, size_t n, int hide);
/* The last member added is for the text only (not in JSON). */
void cli_rec_hide(cli_rec *r);
/* A member the text template uses and JSON does not: formatted now. */
void cli_rec_textf(cli_rec *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The record as one JSON line: {"type":...,...}\n. */
void cli_rec_json(FILE *f, const cli_rec *r);

/*
 * Text from a template over the record's members: "%{key}" writes the
 * member in its plain form (integers in decimal, strings as they are,
 * doubles as %g, booleans true/false), "%{key:SPEC}" with a printf
 * conversion SPEC ("-8s", "7.2f", "12u", "06x"; integers take no length
 * modifier); "a.b" names member b of object member a; "%%" is '%'. A key
 * the record lacks writes "?" (a test catches it: every key is known).
 */
void cli_rec_text(FILE *f, const cli_rec *r, const char *tmpl);

/* The same with the keys taken inside object member obj ("c2s"). */
void cli_rec_text_in(FILE *f, const cli_rec *r, const char *obj, const char *tmpl);

/* The same with the keys inside element item (an object) of array member
 * arr ("entries"): one text line per element of a record's array. */
void cli_rec_text_item(FILE *f, const cli_rec *r, const char *arr, size_t item,
                       const char *tmpl);

/* Whether a template names only members the record has (for tests). */
int cli_rec_knows(const cli_rec *r, const char *tmpl);

/* The record as JSON (json) or text (tmpl). */
void cli_rec_emit(FILE *f, int json, const cli_rec *r, const char *tmpl);

/* The one JSON string escaper: quotes, backslashes and control octets. */
void cli_json_str(FILE *f, const char *s);

#endif
