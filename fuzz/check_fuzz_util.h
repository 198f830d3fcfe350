/* SPDX-License-Identifier: MIT */
/*
 * Shared by fuzz_mpa_check.c and fuzz_ift_check.c: the log of what a
 * checker reported, the input decoded into a stream and its gaps, and
 * feeding it cut into segments and chunks. Before including it, name the
 * checker and its calls: CF_CHECK, CF_DATA, CF_GAP, CF_END.
 */
#ifndef DW_FUZZ_CHECK_FUZZ_UTIL_H
#define DW_FUZZ_CHECK_FUZZ_UTIL_H

#include <ddpwire/reasm.h>

#include <stdlib.h>
#include <string.h>

#define LOG_MAX 8192

typedef struct run {
    uint64_t log[LOG_MAX];
    size_t n;
    uint64_t recs, head_max; /* records so far, the head_len setting */
    uint64_t end;            /* stream octets fed so far */
    const uint8_t *d;        /* the stream */
    size_t len;
} run;

static void put(run *r, uint64_t v)
{
    if (r->n < LOG_MAX)
        r->log[r->n++] = v;
}

typedef struct plan {
    const uint8_t *d;
    size_t n;
    size_t ga[2], gb[2]; /* gaps */
} plan;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The stream after the 4 settings octets (size >= 4) and, when data[0]
 * has 0x40, up to two gaps; sets the seed of the cuts. */
static void plan_make(plan *p, const uint8_t *data, size_t size, uint64_t *seed)
{
    *seed = (uint64_t)data[2] << 8 | data[3] | 1;
    *p = (plan){data + 4, size - 4 > 4000 ? 4000 : size - 4, {SIZE_MAX, SIZE_MAX}, {0, 0}};
    if (!(data[0] & 0x40 && p->n > 8))
        return;
    for (int i = 0; i < 2; i++) {
        p->ga[i] = (size_t)(rnd(seed) % p->n);
        p->gb[i] = p->ga[i] + 1 + (size_t)(rnd(seed) % 600);
        p->gb[i] = p->gb[i] > p->n ? p->n : p->gb[i];
    }
    if (p->ga[1] < p->gb[0] && p->gb[1] > p->ga[0]) /* overlapping: one gap */
        p->ga[1] = SIZE_MAX;
}

/* The fine cutting's window: one input in eight is cut in 1..3-octet
 * segments throughout; the others in a window of 16..1039 octets at a
 * seeded offset (every offset is some input's window), which keeps a
 * run's callbacks few: cutting everything finely made each execution
 * about 800 checker calls per KiB, the most of its cost. */
static void fine_window(const plan *p, uint64_t *seed, size_t *wa, size_t *wb)
{
    *wa = 0, *wb = p->n;
    if (rnd(seed) % 8 == 0 || !p->n)
        return;
    *wa = (size_t)(rnd(seed) % p->n);
    *wb = *wa + 16 + (size_t)(rnd(seed) % 1024);
}

/* The first place at or after o where a segment must end: a gap's first
 * octet or the fine window's (w); SIZE_MAX when none. */
static size_t next_stop(const plan *p, size_t o, size_t w)
{
    size_t s = SIZE_MAX, at[3] = {p->ga[0], p->ga[1], w};
    for (int i = 0; i < 3; i++)
        if (at[i] >= o && at[i] < s)
            s = at[i];
    return s;
}

/* Segments of 1..1500 octets (fine: 1..3 in the window), some as two
 * chunks. The places where a segment must end are found once each, not
 * tested for every segment (a few comparisons per segment, each traced
 * by libFuzzer, were a tenth of an execution). */
static void feed(CF_CHECK *c, run *r, const plan *p, uint64_t seed, int fine)
{
    size_t o = 0, wa = SIZE_MAX, wb = 0;
    uint64_t pkt = 1;
    if (fine)
        fine_window(p, &seed, &wa, &wb);
    size_t stop = next_stop(p, 0, wa);
    while (o < p->n) {
        if (o == stop) { /* a gap, or the window, begins here */
            int g = o == p->ga[0] ? 0 : o == p->ga[1] ? 1 : -1;
            if (g >= 0) {
                dw_reasm_gap gp = {o, (uint32_t)o, p->gb[g] - o, DW_REASM_GAP_LOST, 0};
                if (CF_GAP(c, &gp))
                    abort();
                o = p->gb[g];
                r->end = o;
                stop = next_stop(p, o, wa);
                continue;
            }
            stop = next_stop(p, o + 1, wa);
        }
        int small = o >= wa && o < wb;
        size_t seg = 1 + rnd(&seed) % (small ? 3 : 1500), end = o + seg;
        end = end > p->n ? p->n : end;
        end = end > stop ? stop : end; /* a gap or the window begins a segment */
        for (size_t a = o; a < end;) { /* one segment, 1 or 2 chunks */
            size_t b = end - a > 1 && rnd(&seed) % 4 == 0 ? a + 1 + rnd(&seed) % (end - a - 1) : end;
            dw_reasm_chunk ch = {a, (uint32_t)a, pkt, (uint32_t)o, (uint32_t)seg, a == o, b == end};
            r->end = b;
            if (CF_DATA(c, p->d + a, b - a, &ch))
                abort();
            a = b;
        }
        pkt++;
        o = end;
    }
    if (CF_END(c))
        abort();
}

/* Run k of the same plan, fresh: records and log empty. */
static void run_begin(run *r, const plan *p, uint64_t head_max)
{
    r->n = r->recs = r->end = 0;
    r->head_max = head_max;
    r->d = p->d;
    r->len = p->n;
}

/* What the checker reports must not depend on the cutting. */
static void runs_same(const run *a, const run *b)
{
    if (a->n != b->n || memcmp(a->log, b->log, a->n * sizeof a->log[0]))
        abort();
}

#endif
