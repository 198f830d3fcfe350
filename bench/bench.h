/* SPDX-License-Identifier: MIT */
/* Benchmarks behind `ddpwire bench ...`, and the helpers they share. */
#ifndef DW_BENCH_H
#define DW_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The JSON string escaper of the program the benchmarks are linked into
 * (the CLI's one: tools/ddpwire/cli_rec.c). */
void cli_json_str(FILE *f, const char *s);

/* A published CRC32c kernel loaded at run time (bench_anchor.c). */
typedef uint32_t (*dw_bench_anchor_fn)(uint32_t crc0, const char *buf, size_t len);
typedef struct dw_bench_anchor {
    char name[32];
    int vs;             /* the dw_crc32c_impl it is compared with (0: auto) */
    dw_bench_anchor_fn fn;
    void *handle;
} dw_bench_anchor;

#define DW_BENCH_ANCHORS_MAX 8

typedef struct dw_bench_opts {
    int json;  /* one JSON object per line instead of a table */
    int quick; /* shorter runs (~2 ms instead of ~10 ms each) */
    size_t size; /* only this size (crc, mpa), 0: all */
    int nanchors;
    dw_bench_anchor anchors[DW_BENCH_ANCHORS_MAX]; /* crc only */
} dw_bench_opts;

/* Loads [IMPL:]NAME=PATH.so and checks it against the reference; 0 or -1
 * (a message on stderr). */
int dw_bench_anchor_load(dw_bench_anchor *a, const char *arg);
void dw_bench_anchor_unload(dw_bench_anchor *a);

/* Each returns 0, or non-zero when a self-check failed. */
int dw_bench_crc(const dw_bench_opts *o);
int dw_bench_mpa(const dw_bench_opts *o);
int dw_bench_socket(const dw_bench_opts *o);
int dw_bench_framing(const dw_bench_opts *o);
int dw_bench_ooo(const dw_bench_opts *o);

/* ---- helpers (bench_util.c) ---- */

/* Monotonic clock in seconds. */
double dw_bench_now(void);

/*
 * Reference cycles per second: the rate of the time-stamp counter (rdtsc)
 * measured once against the monotonic clock. On x86 the TSC ticks at a
 * fixed rate, NOT the (boosting) core clock. 0 where there is no TSC.
 */
double dw_bench_cycles_hz(void);

/*
 * Throughput of fn(ctx, size) in GB/s (1e9 octets per second of the
 * calling thread's CPU time, so a busy machine disturbs it less): calls fn
 * repeatedly so each run takes ~10 ms (~2 ms quick) and returns the median
 * of 15 runs (5 quick). fn must do `size` octets of work per call.
 */
double dw_bench_gbps(void (*fn)(void *ctx, size_t size), void *ctx,
                     size_t size, const dw_bench_opts *o);

/*
 * Speed of fa over fb (> 1: fa faster) on the same size, measured in
 * alternation: rounds of ~2 ms of each (~1 ms quick), in turn which goes
 * first, the median of the rounds' ratios (31, 9 quick). Load on the
 * machine that comes and goes then hits both alike, unlike two medians
 * taken one after the other.
 */
double dw_bench_ratio(void (*fa)(void *, size_t), void *ca,
                      void (*fb)(void *, size_t), void *cb, size_t size,
                      const dw_bench_opts *o);

/* 64-octet aligned, filled with pseudo-random octets; exits on failure. */
void *dw_bench_alloc(size_t size);
void dw_bench_free(void *p);

/*
 * --json: the first line, a metadata record like iperf3 -J's "start":
 * {"type": "meta", "tool": "ddpwire", "version", "bench", "mode" (quick or
 * full), "timing" (thread_cpu or wall), "time" (UTC, ISO 8601), "timestamp",
 * "cpu_model", "cpus_online", "system", "crc32c_impl" (the path in use),
 * "crc32c_forced" (DDPWIRE_CRC32C given), "crc32c_tuning", "tsc_hz"}. Table mode:
 * nothing.
 */
void dw_bench_meta(const dw_bench_opts *o, const char *bench, const char *timing);

/* The metadata record (--json, timing thread_cpu), or in table mode the
 * title and the header that explains the units. */
void dw_bench_header(const dw_bench_opts *o, const char *bench, const char *title);

/*
 * One result: a table row, or one JSON line
 * {"type": "result", "bench": "crc", "impl": "...", "size_octets": 1460,
 *  "octets_per_second": 1.2e10, "gbit_per_second": 98.7, ...}
 * followed by "octets_per_tsc_cycle" (where there is a TSC) and, when
 * ratio_key is not NULL, "ratio_<ratio_key>": ratio. gb_per_s is in GB/s
 * (1e9 octets per second).
 */
void dw_bench_report(const dw_bench_opts *o, const char *bench,
                     const char *impl, size_t size, double gb_per_s,
                     const char *ratio_key, double ratio);

/* The same with n extra fields: keys "ratio_*" and "nanoseconds_*" as given,
 * others become "ratio_<key>". */
void dw_bench_report_n(const dw_bench_opts *o, const char *bench,
                       const char *impl, size_t size, double gbps,
                       const char *const *keys, const double *ratios, int n);

/* A result that is only a ratio: JSON "ratio_<key>", no rate. */
void dw_bench_report_ratio(const dw_bench_opts *o, const char *bench, const char *impl,
                           size_t size, const char *key, double ratio);

/* Pieces of a JSON result line for benchmarks with their own fields:
 * open (type, bench, impl, size_octets), rate (octets_per_second,
 * gbit_per_second from GB/s), then the caller's fields, then close. */
void dw_bench_json_open(const char *bench, const char *impl, size_t size);
void dw_bench_json_rate(double gb_per_s);
void dw_bench_json_close(void);

#endif
