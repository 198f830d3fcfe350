/* SPDX-License-Identifier: MIT */
/*
 * The long-buffer CRC32c paths (lib/crc32c_fuse_x86.c: folding and crc32
 * chains side by side) against the portable reference: every length and
 * alignment around the length thresholds and the step structure (steps,
 * left-over vector blocks, tails), the piece boundaries, random data and
 * random initial values, through dw_crc32c() and called directly.
 */
#include <ddpwire/crc32c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define FY_PATH(nv, q)                                                      \
    {DW_CRC32C_AVX2, dw_crc32c_fuse_avx2_##nv##_##q, DW_CRC32C_FUSE_AVX2_MIN, \
     DW_FY_STEP(nv, q), DW_FY_PIECE(nv, q), 32},
/* Every kernel; through dw_crc32c() the tuning in force picks among those
 * of one implementation, so the tests below run once per tuning. */
static const path paths[] = {
    {DW_CRC32C_AVX512, dw_crc32c_fuse_avx512, DW_CRC32C_FUSE_MIN, DW_FZ_STEP,
     DW_FZ_PIECE, 64},
    {DW_CRC32C_AVX512, dw_crc32c_fuse_avx512_q3, DW_CRC32C_FUSE_MIN,
     DW_FZ_STEP_Q(3), DW_FZ_PIECE_Q(3), 64},
    {DW_CRC32C_PCLMUL, dw_crc32c_fuse_clmul, DW_CRC32C_FUSE_CLMUL_MIN,
     DW_FX_STEP, DW_FX_PIECE, 16},
    DW_FY_INSTANCES(FY_PATH)
};
#define NPATHS (sizeof paths / sizeof paths[0])

/* The path's kernel is the one the tuning in force uses for its impl. */
static int in_force(const path *p)
{
    const dw_crc32c_tune_ops *t = dw_crc32c_tune_get(dw_crc32c_tuning_get());
    if (p->impl == DW_CRC32C_AVX512)
        return t->fuse_avx512 == p->fuse;
    if (p->impl == DW_CRC32C_AVX2)
        return t->fuse_avx2 == p->fuse;
    return 1;
}

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
    for (size_t i = 0; i < NPATHS; i++)
        if (usable(&paths[i], 0))
            CHECK(scan(&paths[i], 0, 3 * paths[i].step + 2 * paths[i].align, 1));
}

static void test_thresholds(void)
{
    for (size_t i = 0; i < NPATHS; i++) {
        const path *p = &paths[i];
        if (!in_force(p) || !usable(p, 1))
            continue;
        size_t lo = p->min - p->align - 8;
        CHECK(scan(p, lo, p->min + 3 * p->step + 2 * p->align, 0));
    }
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
}

static void test_pieces(void)
{
    for (size_t i = 0; i < NPATHS; i++) {
        const path *p = &paths[i];
        if (!in_force(p) || !usable(p, 1))
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
    for (size_t i = 0; i < NPATHS; i++) {
        const path *p = &paths[i];
        if (!in_force(p) || !usable(p, 1))
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

/* Each tuning forced in turn: its kernels against the reference. */
static void each_tuning(void (*t)(void))
{
    for (int k = DW_CRC32C_TUNE_GENERIC; k < DW_CRC32C_TUNE_COUNT; k++) {
        CHECK_EQ_U(dw_crc32c_tuning_set((dw_crc32c_tuning)k), 0);
        CHECK_EQ_U(dw_crc32c_tuning_get(), k);
        t();
    }
    dw_crc32c_tuning_set(DW_CRC32C_TUNE_AUTO);
}

static void test_tunings(void)
{
    each_tuning(test_thresholds);
    each_tuning(test_pieces);
    each_tuning(test_random);
    /* every tuning's kernels are in the table above, so all were run */
    for (int k = DW_CRC32C_TUNE_GENERIC; k < DW_CRC32C_TUNE_COUNT; k++) {
        const dw_crc32c_tune_ops *t = dw_crc32c_tune_get((dw_crc32c_tuning)k);
        int a = 0, b = 0;
        for (size_t i = 0; i < NPATHS; i++) {
            a |= paths[i].fuse == t->fuse_avx512;
            b |= paths[i].fuse == t->fuse_avx2;
        }
        CHECK(a && b);
    }
    CHECK_EQ_U(dw_crc32c_tuning_set(DW_CRC32C_TUNE_COUNT), DW_ERR_UNSUPPORTED);
    CHECK(strcmp(dw_crc32c_tuning_name(DW_CRC32C_TUNE_ZEN4), "zen4") == 0);
}

/* The tuning detected agrees with what the kernel says of this CPU. */
static void test_detect(void)
{
#if !defined(__x86_64__) && !defined(__i386__)
    /* No CPUID: every tuning but generic is x86's (and under qemu-user
     * /proc/cpuinfo describes the host, not the emulated CPU). */
    CHECK_EQ_U(dw_crc32c_tuning_detect(), DW_CRC32C_TUNE_GENERIC);
    return;
#endif
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) {
        DW_SKIP("no /proc/cpuinfo to compare the detected tuning with");
        return;
    }
    char line[256], vendor[64] = "";
    int fam = -1, model = -1;
    while (fgets(line, sizeof line, f) && (fam < 0 || model < 0 || !vendor[0])) {
        if (sscanf(line, "vendor_id : %63s", vendor) == 1)
            continue;
        if (sscanf(line, "cpu family : %d", &fam) == 1)
            continue;
        sscanf(line, "model : %d", &model);
    }
    fclose(f);
    if (fam < 0 || model < 0) {
        DW_SKIP("/proc/cpuinfo names no family and model");
        return;
    }
    dw_crc32c_tuning want = DW_CRC32C_TUNE_GENERIC;
    int amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
    if (amd && fam == 26)
        want = DW_CRC32C_TUNE_ZEN5;
    else if (amd && fam == 25 && (model < 16 || (model >= 32 && model < 96)))
        want = DW_CRC32C_TUNE_ZEN3;
    else if (amd && fam == 25 && (model < 32 || (model >= 96 && model < 128) ||
                                  (model >= 160 && model < 176)))
        want = DW_CRC32C_TUNE_ZEN4;
    fprintf(stderr, "  %s family %d model %d: tuning %s\n", vendor, fam, model,
            dw_crc32c_tuning_name(dw_crc32c_tuning_detect()));
    CHECK_EQ_U(dw_crc32c_tuning_detect(), want);
    CHECK_EQ_U(dw_crc32c_tuning_get(), want);
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
    RUN(test_tunings);
    RUN(test_detect);
    free(buf);
    return dw_test_finish();
}
