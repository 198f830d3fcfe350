/* SPDX-License-Identifier: MIT */
/*
 * The long-buffer CRC32c paths (lib/crc32c_fuse_x86.c: folding and crc32
 * chains side by side) against the portable reference: every length and
 * alignment around the length thresholds and the step structure (steps,
 * left-over vector blocks, tails), the piece boundaries, random data and
 * random initial values, through dw_crc32c() and called directly.
 */
#include <ddpwire/crc32c.h>

#include <stdlib.h>

#include "crc32c/crc32c_impl.h"
#include "test.h"

#define BIG (3u << 20)

static uint8_t *buf;
static uint64_t seed;

typedef struct path {
    dw_crc32c_impl impl;
    uint32_t (*fuse)(uint32_t c, const uint8_t *p, size_t n);
    size_t min, step, piece, align;
} path;

static const path paths[] = {
    {DW_CRC32C_AVX512, dw_crc32c_fuse_avx512, DW_CRC32C_FUSE_MIN, DW_FZ_STEP,
     DW_FZ_PIECE, 64},
    {DW_CRC32C_PCLMUL, dw_crc32c_fuse_clmul, DW_CRC32C_FUSE_CLMUL_MIN,
     DW_FX_STEP, DW_FX_PIECE, 16},
};

/* Lengths [lo, hi) at every alignment below 2 align, against the
 * reference grown octet by octet; direct: the kernel itself (raw
 * register), else dw_crc32c() with the path forced. */
static int scan(const path *p, size_t lo, size_t hi, int direct)
{
    int ok = 1;
    for (size_t a = 0; a < 2 * p->align; a++) {
        uint32_t init = (uint32_t)dw_rand(&seed);
        uint32_t ref = dw_crc32c_portable(init, buf + a, lo);
        for (size_t n = lo; n < hi; n++) {
            uint32_t got = direct ? ~p->fuse(~init, buf + a, n)
                                  : dw_crc32c(init, buf + a, n);
            if (got != ref) {
                fprintf(stderr, "  %s%s: length %zu align %zu\n",
                        dw_crc32c_impl_name(p->impl), direct ? " (kernel)" : "",
                        n, a);
                ok = 0;
                break;
            }
            ref = dw_crc32c_portable(ref, buf + a + n, 1);
        }
    }
    return ok;
}

/* A length: at a few alignments through dw_crc32c(). */
static int one(const path *p, size_t n)
{
    static const size_t al[] = {0, 1, 63};
    int ok = 1;
    for (size_t i = 0; i < sizeof al / sizeof al[0] && n + al[i] <= BIG; i++) {
        uint32_t init = (uint32_t)dw_rand(&seed);
        ok &= dw_crc32c(init, buf + al[i], n) ==
              dw_crc32c_portable(init, buf + al[i], n);
    }
    if (!ok)
        fprintf(stderr, "  %s: length %zu\n", dw_crc32c_impl_name(p->impl), n);
    return ok;
}

/* Whether this CPU has the path (force: and it is now forced); else the
 * test says it skipped it. */
static int usable(const path *p, int force)
{
    if (dw_crc32c_impl_supported(p->impl) && (!force || !dw_crc32c_set_impl(p->impl))) {
        DW_CASE("%s", dw_crc32c_impl_name(p->impl));
        return 1;
    }
    DW_SKIP("%s: not supported by this CPU", dw_crc32c_impl_name(p->impl));
    return 0;
}

static void test_small_kernel(void)
{
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (usable(&paths[i], 0))
            CHECK(scan(&paths[i], 0, 3 * paths[i].step + 2 * paths[i].align, 1));
}

static void test_thresholds(void)
{
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        const path *p = &paths[i];
        if (!usable(p, 1))
            continue;
        size_t lo = p->min - p->align - 8;
        CHECK(scan(p, lo, p->min + 3 * p->step + 2 * p->align, 0));
    }
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
}

static void test_pieces(void)
{
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        const path *p = &paths[i];
        if (!usable(p, 1))
            continue;
        int ok = 1;
        const size_t d[] = {0, 1, 2, p->align - 1, p->align, p->align + 1,
                            2 * p->align, 2 * p->align + 1};
        for (size_t k = 1; k <= 3; k++)
            for (size_t j = 0; j < sizeof d / sizeof d[0]; j++) {
                ok &= one(p, k * p->piece + p->step - p->align - 1 + d[j]);
                ok &= one(p, k * p->piece - p->align - 1 + d[j]);
            }
        CHECK(ok);
    }
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
}

static void test_random(void)
{
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        const path *p = &paths[i];
        if (!usable(p, 1))
            continue;
        int ok = 1;
        for (int t = 0; t < 40; t++) {
            size_t n = p->min + dw_rand(&seed) % (BIG - 64 - p->min);
            size_t a = dw_rand(&seed) % 64;
            uint32_t init = (uint32_t)dw_rand(&seed);
            ok &= dw_crc32c(init, buf + a, n) == dw_crc32c_portable(init, buf + a, n);
        }
        CHECK(ok);
    }
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
}

int main(void)
{
    seed = dw_test_seed();
    buf = malloc(BIG + 64);
    if (!buf)
        return 1;
    for (size_t i = 0; i < BIG + 64; i++)
        buf[i] = (uint8_t)(dw_rand(&seed) >> 56);
    RUN(test_small_kernel);
    RUN(test_thresholds);
    RUN(test_pieces);
    RUN(test_random);
    free(buf);
    return dw_test_finish();
}
