/* SPDX-License-Identifier: MIT */
/* The CLI's one output layer (tools/ddpwire/cli_rec.c): a record's JSON
 * line and its text from templates, the escaper, nested members. */
#include <stdlib.h>

#include "cli_rec.h"
#include "test.h"

/* What f(r) wrote, as a string (freed by the caller). */
static char *json_of(const cli_rec *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cli_rec_json(f, r);
    fclose(f);
    return buf;
}

static char *text_of(const cli_rec *r, const char *obj, const char *tmpl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (obj)
        cli_rec_text_in(f, r, obj, tmpl);
    else
        cli_rec_text(f, r, tmpl);
    fclose(f);
    return buf;
}

static void build(cli_rec *r)
{
    cli_rec_init(r, "flow");
    cli_rec_u64(r, "flow", 7);
    cli_rec_str(r, "client", "10.0.0.1:5000");
    cli_rec_i64(r, "delta", -3);
    cli_rec_f(r, "rate", "%.4f", 0.5);
    cli_rec_obj(r, "c2s");
    cli_rec_u64(r, "packets", 12);
    cli_rec_arr(r, "rules");
    cli_rec_obj(r, NULL);
    cli_rec_str(r, "rule", "pad");
    cli_rec_end(r);
    cli_rec_obj(r, NULL);
    cli_rec_str(r, "rule", "oversize");
    cli_rec_end(r);
    cli_rec_end(r);
    cli_rec_null(r, "first_error");
    cli_rec_textf(r, "note", "%s", ", hidden");
    cli_rec_end(r);
    cli_rec_bool(r, "ok", 1);
    cli_rec_f(r, "pct", NULL, 12.345);
    cli_rec_hide(r);
}

static void test_json_line(void)
{
    static cli_rec r;
    build(&r);
    char *j = json_of(&r);
    CHECK(j && !strcmp(j, "{\"type\":\"flow\",\"flow\":7,\"client\":\"10.0.0.1:5000\","
                          "\"delta\":-3,\"rate\":0.5000,\"c2s\":{\"packets\":12,\"rules\":"
                          "[{\"rule\":\"pad\"},{\"rule\":\"oversize\"}],\"first_error\":null},"
                          "\"ok\":true}\n"));
    if (dw_t_fail)
        fprintf(stderr, "  got %s", j ? j : "(nothing)\n");
    free(j);
    CHECK(!r.overflow);
}

static void test_text_templates(void)
{
    static cli_rec r;
    build(&r);
    static const struct {
        const char *obj, *tmpl, *want;
    } t[] = {
        {NULL, "flow %{flow} %{client}: %{ok}", "flow 7 10.0.0.1:5000: true"},
        {NULL, "%{flow:5u}|%{flow:-4u}|%{flow:x}", "    7|7   |7"},
        {NULL, "%{delta} %{delta:+d} %{rate:.2f} %{pct:.1f}%%", "-3 -3 0.50 12.3%"},
        {NULL, "%{client:-16s}|", "10.0.0.1:5000   |"},
        {NULL, "%{c2s.packets} packets%{c2s.note}", "12 packets, hidden"},
        {"c2s", "%{packets}%{note}", "12, hidden"},
        {NULL, "no such %{member}", "no such ?"},
        {NULL, "100%% %{rate}", "100% 0.5"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DW_CASE_HERE("template '%s'", t[i].tmpl);
        char *s = text_of(&r, t[i].obj, t[i].tmpl);
        CHECK(s && !strcmp(s, t[i].want));
        if (s && strcmp(s, t[i].want))
            fprintf(stderr, "  got '%s'\n", s);
        free(s);
    }
    CHECK(cli_rec_knows(&r, "%{flow} %{c2s.packets} %{pct}"));
    CHECK(!cli_rec_knows(&r, "%{flow} %{packets}")); /* packets lives in c2s */
}

static void test_escaper(void)
{
    static const struct {
        const char *in, *want;
    } t[] = {{"plain", "\"plain\""},
             {"a\"b\\c", "\"a\\\"b\\\\c\""},
             {"tab\tnl\n\x01", "\"tab\\u0009nl\\u000a\\u0001\""},
             {"caf\xc3\xa9", "\"caf\xc3\xa9\""},
             {"", "\"\""}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DW_CASE_HERE("escape row %zu", i);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        cli_json_str(f, t[i].in);
        fclose(f);
        CHECK(buf && !strcmp(buf, t[i].want));
        free(buf);
    }
}

/* One text line per element of an array member, from the same record. */
static void test_array_items(void)
{
    static cli_rec r;
    cli_rec_init(&r, "log");
    cli_rec_u64(&r, "records", 2);
    cli_rec_arr(&r, "entries");
    for (int i = 0; i < 2; i++) {
        cli_rec_obj(&r, NULL);
        cli_rec_str(&r, "name", i ? "b" : "a");
        cli_rec_obj(&r, "in");
        cli_rec_u64(&r, "x", (uint64_t)(10 + i));
        cli_rec_end(&r);
        cli_rec_u64(&r, "id", (uint64_t)i);
        cli_rec_end(&r);
    }
    cli_rec_end(&r);
    cli_rec_u64(&r, "id", 99);
    static const struct {
        size_t item;
        const char *tmpl, *want;
    } t[] = {{0, "%{name} %{in.x} %{id:02x}", "a 10 00"},
             {1, "%{name} %{in.x} %{id:02x}", "b 11 01"},
             {2, "%{name}", "?"},
             {0, "%{records}", "?"}}; /* only the element's members */
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DW_CASE_HERE("item %zu '%s'", t[i].item, t[i].tmpl);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        cli_rec_text_item(f, &r, "entries", t[i].item, t[i].tmpl);
        fclose(f);
        CHECK(buf && !strcmp(buf, t[i].want));
        if (buf && strcmp(buf, t[i].want))
            fprintf(stderr, "  got '%s'\n", buf);
        free(buf);
    }
    char *j = json_of(&r);
    CHECK(j && !strcmp(j, "{\"type\":\"log\",\"records\":2,\"entries\":[{\"name\":\"a\","
                          "\"in\":{\"x\":10},\"id\":0},{\"name\":\"b\",\"in\":{\"x\":11},"
                          "\"id\":1}],\"id\":99}\n"));
    free(j);
}

static void test_overflow_said(void)
{
    static cli_rec r;
    cli_rec_init(&r, "big");
    for (int i = 0; i < CLI_REC_FIELDS + 5; i++)
        cli_rec_u64(&r, "n", (uint64_t)i);
    CHECK(r.overflow);
    CHECK_EQ_U(r.n, CLI_REC_FIELDS);
}

int main(void)
{
    RUN(test_json_line);
    RUN(test_text_templates);
    RUN(test_escaper);
    RUN(test_array_items);
    RUN(test_overflow_said);
    return dw_test_finish();
}
