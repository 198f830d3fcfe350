/* SPDX-License-Identifier: MIT */
/* A tiny test harness that says what ran. CHECK counts and reports (with
 * the table case being run, DW_CASE); RUN names each test: ok, FAIL,
 * "skipped: why" (DW_SKIP and no check) or FAIL when it ran no check;
 * dw_test_finish() prints "N passed, N failed[, N skipped]" and exits 1 on
 * any failure or when nothing at all was checked, 77 (ctest's
 * SKIP_RETURN_CODE) when every test skipped. */
#ifndef DW_TEST_H
#define DW_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long dw_t_pass, dw_t_fail, dw_t_skip, dw_t_skipped_runs;
static char dw_t_case[160];       /* the table case being checked ("" none) */
static char dw_t_skip_why[160];   /* the last skip's reason */

/* Names the table case the next checks are about: failures print it. */
#define DW_CASE(...) snprintf(dw_t_case, sizeof dw_t_case, __VA_ARGS__)
#define DW_CASE_END() (dw_t_case[0] = 0)
/* The same for the rest of the enclosing block (a table loop's body). */
static inline void dw_t_case_clear_(int *unused)
{
    (void)unused;
    DW_CASE_END();
}
#define DW_CASE_HERE(...)                                                     \
    __attribute__((cleanup(dw_t_case_clear_))) int dw_t_case_scope_ =        \
        (DW_CASE(__VA_ARGS__), 0);                                            \
    (void)dw_t_case_scope_

/* Says a test (or part of it) did not run, and why. */
#define DW_SKIP(...)                                                          \
    do {                                                                      \
        dw_t_skip++;                                                          \
        snprintf(dw_t_skip_why, sizeof dw_t_skip_why, __VA_ARGS__);           \
    } while (0)

#define DW_T_WHERE_ dw_t_case[0] ? " [case " : "", dw_t_case, dw_t_case[0] ? "]" : ""

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (cond) {                                                           \
            dw_t_pass++;                                                      \
        } else {                                                              \
            dw_t_fail++;                                                      \
            if (dw_t_fail <= 25)                                              \
                fprintf(stderr, "%s:%d:%s%s%s CHECK failed: %s\n", __FILE__,  \
                        __LINE__, DW_T_WHERE_, #cond);                        \
        }                                                                     \
    } while (0)

#define CHECK_EQ_U(a, b)                                                      \
    do {                                                                      \
        unsigned long long a_ = (unsigned long long)(a);                      \
        unsigned long long b_ = (unsigned long long)(b);                      \
        if (a_ == b_) {                                                       \
            dw_t_pass++;                                                      \
        } else {                                                              \
            dw_t_fail++;                                                      \
            if (dw_t_fail <= 25)                                              \
                fprintf(stderr, "%s:%d:%s%s%s %s == %s failed: 0x%llx != 0x%llx\n",\
                        __FILE__, __LINE__, DW_T_WHERE_, #a, #b, a_, b_);     \
        }                                                                     \
    } while (0)

#define RUN(fn) dw_test_run(#fn, fn)

static inline void dw_test_run(const char *name, void (*fn)(void))
{
    unsigned long f0 = dw_t_fail, n0 = dw_t_pass + dw_t_fail, s0 = dw_t_skip;
    fn();
    DW_CASE_END();
    unsigned long checks = dw_t_pass + dw_t_fail - n0;
    if (dw_t_fail != f0) {
        fprintf(stderr, "%-40s FAIL\n", name);
    } else if (!checks && dw_t_skip != s0) {
        dw_t_skipped_runs++;
        fprintf(stderr, "%-40s skipped: %s\n", name, dw_t_skip_why);
    } else if (!checks) {
        dw_t_fail++;
        fprintf(stderr, "%-40s FAIL: no check ran\n", name);
    } else if (dw_t_skip != s0) {
        fprintf(stderr, "%-40s ok (%lu checks; skipped: %s)\n", name, checks, dw_t_skip_why);
    } else {
        fprintf(stderr, "%-40s ok\n", name);
    }
}

static inline int dw_test_finish(void)
{
    if (dw_t_skipped_runs)
        printf("%lu passed, %lu failed, %lu skipped\n", dw_t_pass, dw_t_fail,
               dw_t_skipped_runs);
    else
        printf("%lu passed, %lu failed\n", dw_t_pass, dw_t_fail);
    if (dw_t_fail)
        return 1;
    if (dw_t_pass == 0 && dw_t_skip) {
        printf("skipped: %s\n", dw_t_skip_why);
        return 77;
    }
    if (dw_t_pass == 0) {
        printf("FAIL: no check ran\n");
        return 1;
    }
    return 0;
}

/* xorshift64*: deterministic randomness for property tests. */
static inline uint64_t dw_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Seed from DW_TEST_SEED or a fixed default; printed so runs reproduce. */
static inline uint64_t dw_test_seed(void)
{
    const char *e = getenv("DW_TEST_SEED");
    uint64_t s = e ? strtoull(e, NULL, 0) : 0x9E3779B97F4A7C15ULL;
    fprintf(stderr, "seed 0x%016" PRIx64 " (set DW_TEST_SEED to repeat)\n", s);
    return s ? s : 1;
}

#endif
