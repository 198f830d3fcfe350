/* SPDX-License-Identifier: MIT */
/* `ddpwire bench crc`: CRC32c implementations, the fused copy, memcpy,
 * (when built with it) ISA-L's crc32_iscsi and any published kernels given
 * with --anchor (bench_anchor.c), all in one run. */
#include "bench.h"

#include <ddpwire/crc32c.h>
#include <stdio.h>
#include <string.h>

#ifdef DW_HAVE_ISAL
#include <isa-l/crc.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

typedef struct crc_ctx {
    const uint8_t *src;
    uint8_t *dst;
    uint32_t sink;
} crc_ctx;

static void run_crc(void *v, size_t n)
{
    crc_ctx *c = v;
    c->sink += dw_crc32c(0, c->src, n);
}

static void run_copy(void *v, size_t n)
{
    crc_ctx *c = v;
    c->sink += dw_crc32c_copy(0, c->dst, c->src, n);
}

static void run_memcpy(void *v, size_t n)
{
    crc_ctx *c = v;
    memcpy(c->dst, c->src, n);
    c->sink += c->dst[n - 1];
}

/* ISA-L 2.30's AVX-512 CRC returns with dirty upper vector state (no
 * vzeroupper); legacy-SSE code run after it is then up to 2x slower on
 * Zen 4. Clear it after timing ISA-L so the other rows are not skewed. */
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx"))) static void zeroupper_avx(void)
{
    _mm256_zeroupper();
}

static void clear_upper(void)
{
    if (__builtin_cpu_supports("avx"))
        zeroupper_avx();
}
#else
static void clear_upper(void)
{
}
#endif

#ifdef DW_HAVE_ISAL
/* Standard CRC32c from ISA-L: it neither inverts on entry nor on exit. */
static uint32_t isal_crc32c(const uint8_t *p, size_t n)
{
    return ~crc32_iscsi((unsigned char *)p, (int)n, 0xFFFFFFFFu);
}

static void run_isal(void *v, size_t n)
{
    crc_ctx *c = v;
    c->sink += isal_crc32c(c->src, n);
}

/* ISA-L must agree with us before its numbers mean anything. */
static int isal_check(const uint8_t *buf, size_t max)
{
    static const size_t lens[] = {0, 1, 2, 3, 4, 6, 7, 9, 15, 16, 31, 64, 100,
                                  255, 256, 511, 1460, 4096, 65536};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t n = lens[i] < max ? lens[i] : max;
        if (isal_crc32c(buf + 1, n) != dw_crc32c_portable(0, buf + 1, n)) {
            fprintf(stderr, "bench crc: ISA-L crc32_iscsi disagrees with "
                            "dw_crc32c at %zu octets; not timing it\n", n);
            return -1;
        }
    }
    clear_upper();
    return 0;
}
#endif

static const size_t sizes[] = {64, 256, 512, 1460, 4096, 16384, 65536,
                               262144, 1048576};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXSIZE 1048576

/* Times one dw implementation (crc or copy); -1 when unsupported. */
static double time_impl(dw_crc32c_impl impl, int copy, crc_ctx *c, size_t n,
                        const dw_bench_opts *o)
{
    if (dw_crc32c_set_impl(impl) != 0)
        return -1;
    double g = dw_bench_gbps(copy ? run_copy : run_crc, c, n, o);
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
    return g;
}

static dw_bench_anchor_fn cur_anchor;

static void run_anchor(void *v, size_t n)
{
    crc_ctx *c = v;
    c->sink += cur_anchor(0, (const char *)c->src, n);
}

/* The ratios of a row to ISA-L and the anchors: speed of the row over
 * theirs, measured in alternation (dw_bench_ratio). */
typedef struct ratios {
    char key[DW_BENCH_ANCHORS_MAX + 1][48];
    const char *keys[DW_BENCH_ANCHORS_MAX + 1];
    double val[DW_BENCH_ANCHORS_MAX + 1];
    int n;
} ratios;

static void add_ratio(ratios *r, const char *name, double v)
{
    snprintf(r->key[r->n], sizeof r->key[0], "ratio_vs_%s", name);
    r->keys[r->n] = r->key[r->n];
    r->val[r->n++] = v;
}

/* impl (auto too) against another kernel, measured in alternation. */
static double ratio_vs(crc_ctx *c, int impl, void (*other)(void *, size_t),
                       size_t n, const dw_bench_opts *o)
{
    dw_crc32c_set_impl((dw_crc32c_impl)impl);
    double r = dw_bench_ratio(run_crc, c, other, c, n, o);
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
    clear_upper();
    return r;
}

/* A row of impl with its ratios to ISA-L (auto only) and to the anchors
 * compared with it. */
static void report_impl(crc_ctx *c, const dw_bench_opts *o, int impl,
                        const char *name, size_t n, double g, int have_isal)
{
    ratios r;
    r.n = 0;
    (void)have_isal;
#ifdef DW_HAVE_ISAL
    if (impl == DW_CRC32C_AUTO && have_isal)
        add_ratio(&r, "isal", ratio_vs(c, impl, run_isal, n, o));
#endif
    for (int i = 0; i < o->nanchors; i++)
        if (o->anchors[i].vs == impl) {
            cur_anchor = o->anchors[i].fn;
            add_ratio(&r, o->anchors[i].name, ratio_vs(c, impl, run_anchor, n, o));
        }
    dw_bench_report_n(o, "crc", name, n, g, r.keys, r.val, r.n);
}

static void bench_size(crc_ctx *c, size_t n, const dw_bench_opts *o,
                       int have_isal)
{
    char name[48];
    double isal = 0, mem = 0, autog = 0, autoc = 0;
    double ag[DW_BENCH_ANCHORS_MAX];
    (void)have_isal;
#ifdef DW_HAVE_ISAL
    if (have_isal)
        isal = dw_bench_gbps(run_isal, c, n, o);
#endif
    clear_upper();
    for (int i = 0; i < o->nanchors; i++) {
        cur_anchor = o->anchors[i].fn;
        ag[i] = dw_bench_gbps(run_anchor, c, n, o);
        clear_upper();
    }
    mem = dw_bench_gbps(run_memcpy, c, n, o);
    for (int i = DW_CRC32C_PORTABLE; i < DW_CRC32C_IMPL_COUNT; i++) {
        double g = time_impl((dw_crc32c_impl)i, 0, c, n, o);
        if (g >= 0)
            report_impl(c, o, i, dw_crc32c_impl_name(i), n, g, 0);
    }
    autog = time_impl(DW_CRC32C_AUTO, 0, c, n, o);
    snprintf(name, sizeof name, "auto(%s)",
             dw_crc32c_impl_name(dw_crc32c_impl_get()));
    report_impl(c, o, DW_CRC32C_AUTO, o->json ? "auto" : name, n, autog, isal > 0);
    if (isal > 0)
        dw_bench_report(o, "crc", "isal", n, isal, NULL, 0);
    for (int i = 0; i < o->nanchors; i++) {
        snprintf(name, sizeof name, "anchor-%s", o->anchors[i].name);
        dw_bench_report(o, "crc", name, n, ag[i], NULL, 0);
    }
    for (int i = DW_CRC32C_PORTABLE; i < DW_CRC32C_IMPL_COUNT; i++) {
        double g = time_impl((dw_crc32c_impl)i, 1, c, n, o);
        snprintf(name, sizeof name, "copy-%s", dw_crc32c_impl_name(i));
        if (g >= 0)
            dw_bench_report(o, "crc", name, n, g, "vs_memcpy", g / mem);
    }
    autoc = time_impl(DW_CRC32C_AUTO, 1, c, n, o);
    dw_bench_report(o, "crc", "copy-auto", n, autoc, "vs_memcpy",
                    autoc / mem);
    dw_bench_report(o, "crc", "memcpy", n, mem, NULL, 0);
}

static int has_size(size_t n)
{
    for (size_t i = 0; i < NSIZES; i++)
        if (sizes[i] == n)
            return 1;
    return 0;
}

int dw_bench_crc(const dw_bench_opts *o)
{
    crc_ctx c;
    int have_isal = 0;
    uint8_t *src = dw_bench_alloc(MAXSIZE + 64);
    uint8_t *dst = dw_bench_alloc(MAXSIZE + 64);
    c.src = src;
    c.dst = dst;
    c.sink = 0;
#ifdef DW_HAVE_ISAL
    if (isal_check(src, MAXSIZE) != 0) {
        dw_bench_free(src);
        dw_bench_free(dst);
        return 1;
    }
    have_isal = 1;
#endif
    dw_bench_header(o, "crc", "CRC32c throughput (buffers reused: hot in L1/L2 up to "
                       "64 KiB; 1 MiB is about L2-sized)");
    if (!o->json && !have_isal)
        printf("(ISA-L not built in: no isal rows)\n");
    if (!o->json)
        printf("ratio_vs_X: speed over X measured in alternation with it (median of "
               "%d rounds of ~%d ms each)\n", o->quick ? 9 : 31, o->quick ? 1 : 2);
    for (size_t i = 0; i < NSIZES; i++)
        if (!o->size || o->size == sizes[i])
            bench_size(&c, sizes[i], o, have_isal);
    if (o->size && o->size <= MAXSIZE && !has_size(o->size))
        bench_size(&c, o->size, o, have_isal);
    dw_bench_free(src);
    dw_bench_free(dst);
    return 0;
}
