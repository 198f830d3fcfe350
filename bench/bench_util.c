/* SPDX-License-Identifier: MIT */
/* Shared benchmark helpers: clocks, the timing loop, and reporting. */
#define _POSIX_C_SOURCE 200112L
#include "bench.h"

#include <ddpwire/crc32c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define DW_HAVE_TSC 1
#endif

double dw_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double dw_bench_cycles_hz(void)
{
#ifdef DW_HAVE_TSC
    static double hz;
    if (hz == 0) {
        /* Median of 5 short windows of rdtsc against CLOCK_MONOTONIC. */
        double r[5];
        for (int i = 0; i < 5; i++) {
            double t0 = dw_bench_now(), t1;
            uint64_t c0 = __rdtsc(), c1;
            do {
                t1 = dw_bench_now();
                c1 = __rdtsc();
            } while (t1 - t0 < 0.004);
            r[i] = (double)(c1 - c0) / (t1 - t0);
        }
        for (int i = 1; i < 5; i++) /* insertion sort */
            for (int j = i; j > 0 && r[j] < r[j - 1]; j--) {
                double t = r[j];
                r[j] = r[j - 1];
                r[j - 1] = t;
            }
        hz = r[2];
    }
    return hz;
#else
    return 0;
#endif
}

/* CPU time of this thread: other processes sharing the cores (a busy
 * build machine) then slow a run only through the caches. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double run_once(void (*fn)(void *, size_t), void *ctx, size_t size,
                       unsigned long iters)
{
    double t0 = cpu_now();
    for (unsigned long i = 0; i < iters; i++)
        fn(ctx, size);
    return cpu_now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double dw_bench_gbps(void (*fn)(void *ctx, size_t size), void *ctx,
                     size_t size, const dw_bench_opts *o)
{
    const double target = o->quick ? 0.002 : 0.010;
    const int runs = o->quick ? 5 : 15;
    double r[15], t;
    unsigned long iters = 1;

    /* Grow the iteration count until one run takes ~target (warms up). */
    while ((t = run_once(fn, ctx, size, iters)) < target / 4)
        iters *= 4;
    iters = (unsigned long)(iters * (target / t)) + 1;

    for (int i = 0; i < runs; i++) {
        t = run_once(fn, ctx, size, iters);
        r[i] = (double)size * (double)iters / t * 1e-9;
    }
    qsort(r, (size_t)runs, sizeof r[0], cmp_double);
    return r[runs / 2];
}

/* Iterations of fn that take about t seconds (warms it up). */
static unsigned long calibrate(void (*fn)(void *, size_t), void *ctx,
                               size_t size, double t)
{
    unsigned long iters = 1;
    double u;
    while ((u = run_once(fn, ctx, size, iters)) < t / 4)
        iters *= 4;
    return (unsigned long)(iters * (t / u)) + 1;
}

double dw_bench_ratio(void (*fa)(void *, size_t), void *ca,
                      void (*fb)(void *, size_t), void *cb, size_t size,
                      const dw_bench_opts *o)
{
    const double target = o->quick ? 0.001 : 0.002;
    const int rounds = o->quick ? 9 : 31;
    double r[31];
    unsigned long ia = calibrate(fa, ca, size, target);
    unsigned long ib = calibrate(fb, cb, size, target);
    for (int i = 0; i < rounds; i++) { /* alternate which goes first */
        double ta, tb;
        if (i & 1) {
            tb = run_once(fb, cb, size, ib);
            ta = run_once(fa, ca, size, ia);
        } else {
            ta = run_once(fa, ca, size, ia);
            tb = run_once(fb, cb, size, ib);
        }
        r[i] = (tb / (double)ib) / (ta / (double)ia);
    }
    qsort(r, (size_t)rounds, sizeof r[0], cmp_double);
    return r[rounds / 2];
}

void *dw_bench_alloc(size_t size)
{
    size_t n = (size + 63) / 64 * 64;
    uint8_t *p = aligned_alloc(64, n ? n : 64);
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu octets)\n", size);
        exit(2);
    }
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ size;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        p[i] = (uint8_t)(s >> 24);
    }
    return p;
}

void dw_bench_free(void *p)
{
    free(p);
}

/* A JSON string on stdout, by the CLI's one escaper. */
static void json_str(const char *v)
{
    cli_json_str(stdout, v);
}

/* The first "model name" (x86, most others), "cpu model" or "Hardware"
 * line of /proc/cpuinfo, or "" when none (arm64 has none). */
static void cpu_model(char *out, size_t cap)
{
    static const char *const keys[] = {"model name", "cpu model", "Hardware"};
    char line[256];
    out[0] = 0;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !out[0]; k++) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        if (!f)
            return;
        size_t kl = strlen(keys[k]);
        while (fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (!c || strncmp(line, keys[k], kl) || strspn(line + kl, " \t") != (size_t)(c - line) - kl)
                continue;
            c += strspn(c + 1, " \t") + 1;
            c[strcspn(c, "\n")] = 0;
            snprintf(out, cap, "%s", c);
            break;
        }
        fclose(f);
    }
}

void dw_bench_meta(const dw_bench_opts *o, const char *bench, const char *timing)
{
    if (!o->json)
        return;
    char model[200], when[32];
    struct utsname u;
    time_t now = time(NULL);
    struct tm tm;
    cpu_model(model, sizeof model);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    const char *env = getenv("DDPWIRE_CRC32C");
    printf("{\"type\": \"meta\", \"tool\": \"ddpwire\", \"version\": ");
    json_str(dw_version());
    printf(", \"bench\": ");
    json_str(bench);
    printf(", \"mode\": \"%s\", \"timing\": \"%s\", \"time\": \"%s\", \"timestamp\": %lld",
           o->quick ? "quick" : "full", timing, when, (long long)now);
    printf(", \"cpu_model\": ");
    if (model[0])
        json_str(model);
    else
        printf("null");
    printf(", \"cpus_online\": %ld", sysconf(_SC_NPROCESSORS_ONLN));
    if (uname(&u) == 0) {
        printf(", \"system\": ");
        char sys[3 * sizeof u.release + 4];
        snprintf(sys, sizeof sys, "%s %s %s", u.sysname, u.release, u.machine);
        json_str(sys);
    }
    printf(", \"crc32c_impl\": \"%s\", \"crc32c_forced\": %s",
           dw_crc32c_impl_name(dw_crc32c_impl_get()), env && *env ? "true" : "false");
    printf(", \"crc32c_tuning\": \"%s\"", dw_crc32c_tuning_name(dw_crc32c_tuning_get()));
    double hz = dw_bench_cycles_hz();
    if (hz > 0)
        printf(", \"tsc_hz\": %.0f", hz);
    else
        printf(", \"tsc_hz\": null");
    printf("}\n");
    fflush(stdout);
}

void dw_bench_header(const dw_bench_opts *o, const char *bench, const char *title)
{
    if (o->json) {
        dw_bench_meta(o, bench, "thread_cpu");
        return;
    }
    double hz = dw_bench_cycles_hz();
    printf("%s\n", title);
    if (hz > 0)
        printf("B/cyc = octets per TSC reference cycle (TSC %.3f GHz, measured "
               "against CLOCK_MONOTONIC; not the core clock)\n",
               hz * 1e-9);
    printf("GB/s = 1e9 octets per second of the thread's CPU time, median of %d runs of ~%d ms each\n",
           o->quick ? 5 : 15, o->quick ? 2 : 10);
    printf("%-6s %-18s %8s %9s %7s\n", "bench", "impl", "size", "GB/s",
           "B/cyc");
}

void dw_bench_json_open(const char *bench, const char *impl, size_t size)
{
    printf("{\"type\": \"result\", \"bench\": \"%s\", \"impl\": \"%s\", \"size_octets\": %zu",
           bench, impl, size);
}

void dw_bench_json_rate(double gb_per_s)
{
    printf(", \"octets_per_second\": %.0f, \"gbit_per_second\": %.3f", gb_per_s * 1e9,
           gb_per_s * 8);
}

void dw_bench_json_close(void)
{
    printf("}\n");
    fflush(stdout);
}

void dw_bench_report(const dw_bench_opts *o, const char *bench,
                     const char *impl, size_t size, double gb_per_s,
                     const char *ratio_key, double ratio)
{
    dw_bench_report_n(o, bench, impl, size, gb_per_s, &ratio_key, &ratio,
                      ratio_key != NULL);
}

void dw_bench_report_n(const dw_bench_opts *o, const char *bench,
                       const char *impl, size_t size, double gb_per_s,
                       const char *const *keys, const double *ratios, int n)
{
    double hz = dw_bench_cycles_hz();
    double bpc = hz > 0 ? gb_per_s * 1e9 / hz : 0;
    if (o->json) {
        dw_bench_json_open(bench, impl, size);
        dw_bench_json_rate(gb_per_s);
        if (hz > 0)
            printf(", \"octets_per_tsc_cycle\": %.3f", bpc);
        for (int i = 0; i < n; i++) /* ratio_* and nanoseconds_* as given */
            printf(strncmp(keys[i], "ratio_", 6) && strncmp(keys[i], "nanoseconds_", 12)
                       ? ", \"ratio_%s\": %.3f" : ", \"%s\": %.3f",
                   keys[i], ratios[i]);
        dw_bench_json_close();
    } else {
        printf("%-6s %-18s %8zu %9.2f %7.2f", bench, impl, size, gb_per_s, bpc);
        for (int i = 0; i < n; i++) /* nanoseconds_*: a time, not a ratio */
            printf(strncmp(keys[i], "nanoseconds_", 12) ? "   %s %.2fx" : "   %s %.1f",
                   keys[i], ratios[i]);
        printf("\n");
        fflush(stdout);
    }
}

void dw_bench_report_ratio(const dw_bench_opts *o, const char *bench, const char *impl,
                           size_t size, const char *key, double ratio)
{
    if (o->json) {
        dw_bench_json_open(bench, impl, size);
        printf(", \"ratio_%s\": %.3f", key, ratio);
        dw_bench_json_close();
    } else {
        printf("%-6s %-18s %8zu %9.2f %7s\n", bench, impl, size, ratio, "-");
        fflush(stdout);
    }
}
