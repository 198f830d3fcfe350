/* SPDX-License-Identifier: MIT */
/* Test support for the segment receiver: build MPA streams with each
 * FPDU's framing advice, and check what a receiver places and delivers
 * (every ULPDU placed once, byte-exact, delivered once in order). */
#ifndef DW_TEST_MPA_SEG_UTIL_H
#define DW_TEST_MPA_SEG_UTIL_H

#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include "mpa_util.h"
#include <ddpwire_sim/netsim.h>
#include <ddpwire/mpa_seg.h>

static inline int quick(void)
{
    return getenv("DW_TEST_QUICK") != NULL;
}

/* ------------------------------------------------------------------ */
/* A stream and what a receiver did with it                             */
/* ------------------------------------------------------------------ */

typedef struct sent {
    stream st;
    dw_mpa_fpdu_info *info;
    uint32_t start;
} sent;

/* Frames sizes[0, n) with tx; the first k at EMSS emss1, the rest after
 * dw_mpa_tx_set_emss(emss2) (k == n: never). */
static inline void sent_build(sent *s, dw_mpa_tx_settings *ts, const size_t *sizes,
                       size_t n, size_t k, uint32_t emss2, uint64_t *seed)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += sizes[i];
    size_t cap = total + n * 16 + total / 100 + 1024;
    memset(s, 0, sizeof *s);
    s->start = ts->start_seq;
    s->st.pool = malloc(total ? total : 1);
    s->st.recs = calloc(n ? n : 1, sizeof *s->st.recs);
    s->st.wire = malloc(cap);
    s->info = calloc(n ? n : 1, sizeof *s->info);
    s->st.nrec = n;
    for (size_t i = 0; i < total; i++)
        s->st.pool[i] = (uint8_t)dw_rand(seed);
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, ts) == 0);
    size_t at = 0, w = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == k)
            dw_mpa_tx_set_emss(tx, emss2);
        ssize_t r = dw_mpa_tx_frame_into(tx, s->st.pool + at, sizes[i],
                                         s->st.wire + w, cap - w, &s->info[i]);
        CHECK(r > 0);
        s->st.recs[i] = (rec_t){sizes[i], at, w};
        w += (size_t)r;
        at += sizes[i];
    }
    s->st.wire_len = w;
    dw_mpa_tx_del(tx);
}

static inline void sent_free(sent *s)
{
    stream_free(&s->st);
    free(s->info);
}

typedef struct chk {
    const sent *s;
    unsigned char *placed; /* per record */
    size_t next;           /* next record to deliver */
    size_t bad;            /* anything wrong */
    size_t early;
    int errors;
    dw_mpa_rx_error err;
    int ev[512];           /* +(i + 1) placed, -(i + 1) delivered */
    size_t nev;
} chk;

static inline void log_ev(chk *k, int e)
{
    if (k->nev < sizeof k->ev / sizeof k->ev[0])
        k->ev[k->nev++] = e;
}

static inline size_t rec_at(const stream *st, uint64_t off)
{
    size_t lo = 0, hi = st->nrec;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->recs[mid].fpdu_off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nrec && st->recs[lo].fpdu_off == off ? lo : SIZE_MAX;
}

static inline uint64_t fo_sent(const sent *s, size_t i)
{
    return i < s->st.nrec ? s->st.recs[i].fpdu_off : s->st.wire_len;
}

static inline uint64_t fpdu_len_of(const stream *st, size_t i)
{
    uint64_t end = i + 1 < st->nrec ? st->recs[i + 1].fpdu_off : st->wire_len;
    return end - st->recs[i].fpdu_off;
}

static inline void on_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p,
                     void *u)
{
    chk *k = u;
    const stream *st = &k->s->st;
    (void)r;
    size_t i = rec_at(st, p->offset);
    log_ev(k, i == SIZE_MAX ? 0 : (int)i + 1);
    if (k->errors || i == SIZE_MAX || k->placed[i]) {
        k->bad++;
        return;
    }
    k->placed[i] = 1;
    const rec_t *rc = &st->recs[i];
    k->early += p->early != 0;
    if (rc->len != p->len || memcmp(st->pool + rc->at, d, p->len) ||
        p->seq != (uint32_t)(k->s->start + p->offset) ||
        p->fpdu_len != fpdu_len_of(st, i) || (p->early ? i <= k->next : i != k->next))
        k->bad++;
}

static inline void on_deliver(dw_mpa_seg *r, const dw_mpa_seg_pdu *p, void *u)
{
    chk *k = u;
    const stream *st = &k->s->st;
    (void)r;
    size_t i = rec_at(st, p->offset);
    log_ev(k, i == SIZE_MAX ? 0 : -(int)i - 1);
    if (k->errors || i != k->next || !k->placed[i] || st->recs[i].len != p->len) {
        k->bad++;
        return;
    }
    k->next++;
}

static inline void on_error(dw_mpa_seg *r, const dw_mpa_rx_error *e, void *u)
{
    chk *k = u;
    (void)r;
    k->errors++;
    k->err = *e;
}

static const dw_mpa_seg_callbacks cbs = {on_place, on_deliver, on_error};

static inline size_t pick_size(uint64_t *seed, uint32_t mulpdu)
{
    switch (dw_rand(seed) % 6) {
    case 0: return 1 + dw_rand(seed) % 40;
    case 1: return 1 + dw_rand(seed) % 600;
    case 2: case 3: return mulpdu - dw_rand(seed) % 8;
    case 4: return 1 + dw_rand(seed) % mulpdu;
    default: return 1 + dw_rand(seed) % 5000;
    }
}

/* Feeds everything the simulator hands out, then recovers what the
 * receiver did not commit until it has it all. */
static inline void drive(dw_mpa_seg *r, dw_netsim *ns, chk *k)
{
    dw_netsim_seg sg;
    for (int round = 0; round < 200; round++) {
        while (dw_netsim_next(ns, &sg)) {
            int rc = dw_mpa_seg_feed(r, sg.seq, sg.data, sg.len);
            if (rc)
                k->bad += !k->errors, k->errors += !k->errors;
        }
        dw_mpa_seg_range sack[64];
        size_t n = dw_mpa_seg_sack(r, sack, 64);
        if (n > 64)
            n = 64;
        if (dw_netsim_recover(ns, dw_mpa_seg_ack(r), sack, n) <= 0) /* none left, or out of memory */
            break;
    }
}

#endif
