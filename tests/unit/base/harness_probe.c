/* SPDX-License-Identifier: MIT */
/* The harness's own test (harness_test.sh runs it): one behaviour per
 * argument, so the script can see each verdict the harness gives. */
#include <string.h>

#include "test.h"

static void none(void)
{
}

static void skipped(void)
{
    DW_SKIP("no such CPU path here");
}

static void one_check(void)
{
    CHECK(1);
}

static void table(void)
{
    static const struct {
        const char *name;
        int in, want;
    } t[] = {{"first row", 1, 2}, {"second row", 2, 5}, {"third row", 3, 6}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DW_CASE("%s", t[i].name);
        CHECK_EQ_U(t[i].in * 2, t[i].want);
    }
}

/* A table that passes, then a failure after it: no case named. */
static void after_table(void)
{
    static const int t[] = {1, 2, 3};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DW_CASE_HERE("row %zu", i);
        CHECK(t[i] > 0);
    }
    CHECK(t[0] == 5);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "zero")) { /* a binary that checks nothing */
        RUN(none);
    } else if (!strcmp(m, "empty-run")) { /* one test of several checks nothing */
        RUN(one_check);
        RUN(none);
    } else if (!strcmp(m, "skip")) { /* every test skipped */
        RUN(skipped);
    } else if (!strcmp(m, "partial")) { /* one skipped, one ran */
        RUN(skipped);
        RUN(one_check);
    } else if (!strcmp(m, "table")) { /* the second row fails */
        RUN(table);
    } else if (!strcmp(m, "bare")) { /* no RUN, no check (a main of its own) */
    } else if (!strcmp(m, "after-table")) {
        RUN(after_table);
    } else {
        RUN(one_check);
    }
    return dw_test_finish();
}
