/* SPDX-License-Identifier: MIT */
/* A tiny test harness: CHECK counts and reports, main() prints the
 * closing line "N passed, N failed" and exits non-zero on any failure. */
#ifndef DW_TEST_H
#define DW_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long dw_t_pass, dw_t_fail;

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (cond) {                                                           \
            dw_t_pass++;                                                      \
        } else {                                                              \
            dw_t_fail++;                                                      \
            if (dw_t_fail <= 25)                                              \
                fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,        \
                        __LINE__, #cond);                                     \
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
                fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx != 0x%llx\n", \
                        __FILE__, __LINE__, #a, #b, a_, b_);                  \
        }                                                                     \
    } while (0)

#define RUN(fn)                                                               \
    do {                                                                      \
        unsigned long f0_ = dw_t_fail;                                        \
        fn();                                                                 \
        fprintf(stderr, "%-40s %s\n", #fn, dw_t_fail == f0_ ? "ok" : "FAIL"); \
    } while (0)

static inline int dw_test_finish(void)
{
    printf("%lu passed, %lu failed\n", dw_t_pass, dw_t_fail);
    return dw_t_fail ? 1 : 0;
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
