/* SPDX-License-Identifier: MIT */
/* Deterministic network simulator for MPA streams (support/include/ddpwire_sim/netsim.h). */
#include <stdlib.h>
#include <string.h>

#include <ddpwire_sim/netsim.h>
#include <ddpwire/mpa_seg.h>

#include "sim_mem.h"

typedef struct span {
    uint64_t off;
    uint32_t len;
} span;

typedef struct item {
    uint64_t key;   /* arrival slot * 4 + class, then insertion order */
    uint64_t order;
    uint64_t off;
    uint32_t len;
    int retrans;
} item;

struct dw_netsim {
    dw_netsim_settings set;
    const uint8_t *wire;
    size_t len;
    uint64_t *starts;  /* FPDU start offsets */
    size_t nstarts;
    span *base;        /* segments as first sent */
    size_t nbase, cbase;
    item *it;          /* the arrival schedule */
    size_t n, cap, next;
    size_t run0, run1; /* lost base segments [run0, run1) waiting to be resent */
    uint64_t run_t;
    uint64_t rng;
    int nomem;
    dw_netsim_stats st;
};

void dw_netsim_settings_default(dw_netsim_settings *s)
{
    memset(s, 0, sizeof *s);
    s->seed = 1;
    s->emss = 1460;
    s->cut = DW_NETSIM_ALIGNED;
    s->reseg_min = 1;
    s->reorder_max = 8;
    s->rto = 16;
    s->recut_ppm = 750000;
}

static uint64_t rnd(dw_netsim *s)
{
    s->rng ^= s->rng >> 12;
    s->rng ^= s->rng << 25;
    s->rng ^= s->rng >> 27;
    return s->rng * 0x2545F4914F6CDD1DULL;
}

static int chance(dw_netsim *s, uint32_t ppm)
{
    return ppm && rnd(s) % 1000000u < ppm;
}

/* p with room for need items (doubling); on failure p as it was and
 * s->nomem set. */
static void *grow(dw_netsim *s, void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 64;
    while (c < need && c <= SIZE_MAX / 2)
        c *= 2;
    void *q = c >= need ? dw_sim_realloc(s->set.mem, p, c, size) : NULL;
    if (!q) {
        s->nomem = 1;
        return p;
    }
    *cap = c;
    return q;
}

/* ---- first transmission: the cuts ----------------------------------- */

static void cut(dw_netsim *s, uint64_t off, uint64_t len)
{
    if (!len)
        return;
    s->base = grow(s, s->base, &s->cbase, s->nbase + 1, sizeof *s->base);
    if (s->nomem)
        return;
    s->base[s->nbase++] = (span){off, (uint32_t)len};
}

/* [a, b) in pieces of lo..hi octets (lo == hi: fixed, the last shorter). */
static void cut_stream(dw_netsim *s, uint64_t a, uint64_t b, uint32_t lo, uint32_t hi)
{
    while (a < b) {
        uint64_t n = lo >= hi ? hi : lo + rnd(s) % (hi - lo + 1);
        n = n < b - a ? n : b - a;
        cut(s, a, n);
        a += n;
    }
}

/* FPDUs [i, j) cut aligned or packed for emss. */
static void cut_fpdus(dw_netsim *s, const dw_mpa_fpdu_info *f, size_t i, size_t j,
                      uint32_t emss)
{
    uint64_t sa = s->starts[i], sb = sa;
    for (; i < j; i++) {
        uint64_t off = s->starts[i], len = f[i].len;
        int fresh = s->set.cut == DW_NETSIM_ALIGNED || f[i].new_segment ||
                    sb - sa + len > emss;
        if (fresh) {
            cut(s, sa, sb - sa);
            sa = sb = off;
        }
        if (len > emss) { /* alone, split at EMSS */
            cut_stream(s, off, off + len, emss, emss);
            sa = sb = off + len;
            continue;
        }
        sb = off + len;
    }
    cut(s, sa, sb - sa);
}

static void first_cuts(dw_netsim *s, const dw_mpa_fpdu_info *f, size_t n)
{
    const dw_netsim_settings *c = &s->set;
    size_t k = c->shrink_at && c->shrink_at < n ? c->shrink_at : n;
    size_t q = k + c->shrink_queue < n ? k + c->shrink_queue : n;
    uint32_t e2 = c->shrink_emss ? c->shrink_emss : c->emss;
    uint32_t lo = c->reseg_min ? c->reseg_min : 1;
    if (c->cut == DW_NETSIM_RESEG) {
        cut_stream(s, 0, s->starts[k], lo < c->emss ? lo : c->emss, c->emss);
        cut_stream(s, s->starts[k], s->len, lo < e2 ? lo : e2, e2);
        return;
    }
    cut_fpdus(s, f, 0, k, c->emss);
    cut_stream(s, s->starts[k], s->starts[q], e2, e2); /* framed before it knew */
    cut_fpdus(s, f, q, n, e2);
}

/* ---- the schedule --------------------------------------------------- */

static void emit(dw_netsim *s, uint64_t key, uint64_t off, uint32_t len, int re)
{
    s->it = grow(s, s->it, &s->cap, s->n + 1, sizeof *s->it);
    if (s->nomem)
        return;
    s->it[s->n] = (item){key, s->n, off, len, re};
    s->n++;
}

static void resend(dw_netsim *s, uint64_t t, uint64_t off, uint64_t len, int depth,
                   int recut);

/* A segment sent at slot t: lost, delayed, duplicated or on time. */
static void send(dw_netsim *s, uint64_t t, uint64_t off, uint32_t len, int re,
                 int depth)
{
    if (re && depth < 6 && chance(s, s->set.loss_ppm)) { /* (first sends: schedule()) */
        s->st.lost++;
        resend(s, t + s->set.rto, off, len, depth + 1, chance(s, s->set.recut_ppm));
        return;
    }
    uint64_t key = t * 4, late = 1 + rnd(s) % (s->set.reorder_max ? s->set.reorder_max : 1);
    if (chance(s, s->set.reorder_ppm)) {
        s->st.reordered++;
        key = (t + late) * 4 + 1;
    }
    emit(s, key, off, len, re);
    if (chance(s, s->set.dup_ppm)) {
        s->st.duplicated++;
        emit(s, (t + 1 + rnd(s) % 8) * 4 + 2, off, len, 1);
    }
}

/* Sends [off, off + len) again at slot t: as it was, or (recut) under a
 * new segmentation, random cuts of a quarter EMSS to EMSS (MPA 7.3: TCP
 * need not keep the old ones). */
static void resend(dw_netsim *s, uint64_t t, uint64_t off, uint64_t len, int depth,
                   int recut)
{
    if (!recut) {
        s->st.retransmitted++;
        send(s, t, off, (uint32_t)len, 1, depth);
        return;
    }
    uint32_t hi = s->set.shrink_emss && s->set.shrink_emss < s->set.emss
                      ? s->set.shrink_emss : s->set.emss;
    uint32_t lo = hi / 4 ? hi / 4 : 1;
    while (len) {
        uint64_t n = lo + rnd(s) % (hi - lo + 1);
        n = n < len ? n : len;
        s->st.retransmitted++;
        send(s, t, off, (uint32_t)n, 1, depth);
        off += n;
        len -= n;
    }
}

/* The lost base segments waiting in the run go out again. */
static void flush_run(dw_netsim *s)
{
    if (s->run0 == s->run1)
        return;
    uint64_t t = s->run_t + s->set.rto;
    if (!chance(s, s->set.recut_ppm)) { /* the original cuts kept (MPA 7.3 SHOULD) */
        for (size_t i = s->run0; i < s->run1; i++) {
            s->st.retransmitted++;
            send(s, t, s->base[i].off, s->base[i].len, 1, 1);
        }
    } else {
        uint64_t a = s->base[s->run0].off;
        uint64_t b = s->base[s->run1 - 1].off + s->base[s->run1 - 1].len;
        resend(s, t, a, b - a, 1, 1);
    }
    s->run0 = s->run1 = 0;
}

static void schedule(dw_netsim *s)
{
    for (size_t i = 0; i < s->nbase && !s->nomem; i++) {
        s->st.sent++;
        if (chance(s, s->set.loss_ppm)) {
            s->st.lost++;
            if (s->run1 != i)
                flush_run(s);
            if (s->run0 == s->run1)
                s->run0 = i, s->run_t = i;
            s->run1 = i + 1;
            continue;
        }
        send(s, i, s->base[i].off, s->base[i].len, 0, 0);
    }
    flush_run(s);
}

static int cmp_item(const void *x, const void *y)
{
    const item *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

int dw_netsim_new(dw_netsim **ps, const dw_netsim_settings *set,
                  const uint8_t *wire, size_t len,
                  const dw_mpa_fpdu_info *fpdus, size_t n)
{
    if (!ps || !set || (!wire && len) || (!fpdus && n) || !set->emss ||
        (unsigned)set->cut > DW_NETSIM_RESEG)
        return DW_ERR_INVAL;
    *ps = NULL;
    dw_netsim *s = dw_sim_calloc(set->mem, 1, sizeof *s);
    if (!s)
        return DW_ERR_NOMEM;
    s->set = *set;
    s->wire = wire;
    s->len = len;
    s->rng = set->seed * 0x9E3779B97F4A7C15ULL + 1;
    s->starts = n < SIZE_MAX / sizeof *s->starts
                    ? dw_sim_malloc(set->mem, (n + 1) * sizeof *s->starts) : NULL;
    if (!s->starts) {
        dw_netsim_del(s);
        return DW_ERR_NOMEM;
    }
    uint64_t at = 0;
    for (size_t i = 0; i < n; i++) {
        s->starts[i] = at;
        at += fpdus[i].len;
    }
    s->starts[n] = at;
    s->nstarts = n;
    if (at != len) {
        dw_netsim_del(s);
        return DW_ERR_INVAL;
    }
    first_cuts(s, fpdus, n);
    schedule(s);
    if (s->nomem) {
        dw_netsim_del(s);
        return DW_ERR_NOMEM;
    }
    qsort(s->it, s->n, sizeof *s->it, cmp_item);
    *ps = s;
    return 0;
}

void dw_netsim_del(dw_netsim *s)
{
    if (!s)
        return;
    const dw_mem *m = s->set.mem;
    dw_sim_free(m, s->starts);
    dw_sim_free(m, s->base);
    dw_sim_free(m, s->it);
    dw_sim_free(m, s);
}

static int is_start(const dw_netsim *s, uint64_t off)
{
    size_t lo = 0, hi = s->nstarts;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->starts[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nstarts && s->starts[lo] == off;
}

int dw_netsim_next(dw_netsim *s, dw_netsim_seg *out)
{
    if (s->next == s->n)
        return 0;
    const item *i = &s->it[s->next++];
    out->off = i->off;
    out->len = i->len;
    out->seq = (uint32_t)(s->set.start_seq + i->off);
    out->data = s->wire + i->off;
    out->retrans = i->retrans;
    s->st.arrived++;
    s->st.aligned += is_start(s, i->off);
    return 1;
}

ssize_t dw_netsim_recover(dw_netsim *s, uint32_t ack,
                          const dw_mpa_seg_range *sack, size_t nsack)
{
    size_t n0 = s->n; /* on failure the schedule is cut back to this */
    /* streams shorter than 4 GiB: offsets are sequence numbers' distances */
    uint64_t ack_off = (uint32_t)(ack - s->set.start_seq), at = ack_off, added = 0;
    for (size_t k = 0; k <= nsack && at < s->len; k++) {
        uint64_t to = s->len, next = s->len;
        if (k < nsack) {
            to = ack_off + (uint32_t)(sack[k].seq - ack);
            to = to < s->len ? to : s->len;
            next = to + sack[k].len;
        }
        for (; at < to; added++) {
            uint64_t n = to - at < s->set.emss ? to - at : s->set.emss;
            emit(s, UINT64_MAX, at, (uint32_t)n, 1);
            at += n;
        }
        at = next > at ? next : at;
    }
    if (s->nomem) { /* emit() could not grow the schedule: none of it */
        s->n = n0;
        s->nomem = 0;
        return DW_ERR_NOMEM;
    }
    s->st.recovered += added;
    return (ssize_t)added;
}

void dw_netsim_stats_get(const dw_netsim *s, dw_netsim_stats *st)
{
    *st = s->st;
}
