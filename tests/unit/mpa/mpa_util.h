/* SPDX-License-Identifier: MIT */
/* Test support: build MPA streams from records and collect what a
 * receiver delivers. */
#ifndef DW_TEST_MPA_UTIL_H
#define DW_TEST_MPA_UTIL_H

#include <ddpwire/mpa.h>

#include "test.h"

typedef struct rec_t {
    size_t len;
    size_t at;  /* offset in the payload pool */
    uint64_t fpdu_off;
} rec_t;

typedef struct stream {
    uint8_t *pool;   /* all payloads back to back */
    rec_t *recs;
    size_t nrec;
    uint8_t *wire;   /* the framed octet stream */
    size_t wire_len;
} stream;

/* A record size: mostly small and MTU-ish, sometimes up to 64768. */
static inline size_t rand_size(uint64_t *s)
{
    switch (dw_rand(s) % 8) {
    case 0: return 1 + dw_rand(s) % 8;
    case 1: case 2: return 1 + dw_rand(s) % 600;
    case 3: case 4: return 1 + dw_rand(s) % 1500;
    case 5: return 1 + dw_rand(s) % 9000;
    case 6: return 1 + dw_rand(s) % DW_MPA_ULPDU_MAX;
    default: return DW_MPA_ULPDU_MAX - dw_rand(s) % 4;
    }
}

/* Frames nrec records of the given sizes (random contents) with tx,
 * through iovecs (use_iov) or frame_into. */
static inline void stream_build(stream *st, dw_mpa_tx *tx, const size_t *sizes,
                                size_t nrec, int use_iov, uint64_t *seed)
{
    size_t total = 0, wire_cap = 0;
    for (size_t i = 0; i < nrec; i++)
        total += sizes[i];
    wire_cap = total + nrec * 16 + total / 100 + 1024;
    st->pool = malloc(total ? total : 1);
    st->recs = calloc(nrec ? nrec : 1, sizeof *st->recs);
    st->wire = malloc(wire_cap);
    st->nrec = nrec;
    for (size_t i = 0; i < total; i++)
        st->pool[i] = (uint8_t)dw_rand(seed);
    static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    size_t at = 0, w = 0;
    for (size_t i = 0; i < nrec; i++) {
        dw_mpa_fpdu_info info;
        ssize_t n;
        st->recs[i].len = sizes[i];
        st->recs[i].at = at;
        if (use_iov) {
            n = dw_mpa_tx_frame(tx, st->pool + at, sizes[i], iov,
                                DW_MPA_FPDU_IOV_MAX, &info);
            size_t sum = 0;
            for (size_t k = 0; n > 0 && k < info.iovcnt; k++) {
                memcpy(st->wire + w + sum, iov[k].iov_base, iov[k].iov_len);
                sum += iov[k].iov_len;
            }
            CHECK_EQ_U(sum, n);
        } else {
            n = dw_mpa_tx_frame_into(tx, st->pool + at, sizes[i], st->wire + w,
                                     wire_cap - w, &info);
        }
        CHECK(n > 0);
        if (n <= 0)
            break;
        st->recs[i].fpdu_off = w;
        CHECK_EQ_U(info.pos, (uint32_t)w);
        w += (size_t)n;
        at += sizes[i];
    }
    st->wire_len = w;
}

static inline void stream_free(stream *st)
{
    free(st->pool);
    free(st->recs);
    free(st->wire);
    memset(st, 0, sizeof *st);
}

/* What a receiver delivered, checked against the stream as it arrives. */
typedef struct sink {
    const stream *st;
    size_t next;      /* index of the next expected record */
    size_t mismatches;
    int errors;
    dw_mpa_rx_error err;
    int stop_every;   /* ask feed() to return after every Nth ULPDU */
} sink;

static inline int sink_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len,
                             uint64_t off, void *u)
{
    sink *k = u;
    (void)rx;
    if (k->errors || k->next >= k->st->nrec) {
        k->mismatches++;
        return 0;
    }
    const rec_t *r = &k->st->recs[k->next++];
    if (r->len != len || r->fpdu_off != off ||
        memcmp(k->st->pool + r->at, d, len) != 0)
        k->mismatches++;
    return k->stop_every && k->next % (size_t)k->stop_every == 0;
}

/* The same through dw_mpa_rx_set_iov_fn(): the pieces joined, checked
 * against the stream; pieces that point into it must skip every marker
 * (sink_iov_markers: the stream has them). sink_iov_pieced counts ULPDUs
 * that came in more than one piece (delivered without a copy). */
static int sink_iov_markers;
static size_t sink_iov_pieced;

static inline int sink_ulpdu_iov(dw_mpa_rx *rx, const struct iovec *iov, int n,
                                 size_t len, uint64_t off, void *u)
{
    static uint8_t flat[65536];
    sink *k = u;
    size_t at = 0;
    int bad = n < 1 || n > DW_MPA_ULPDU_IOV_MAX || len > sizeof flat;
    for (int i = 0; !bad && i < n; i++) {
        const uint8_t *p = iov[i].iov_base, *w = k->st->wire;
        size_t l = iov[i].iov_len;
        bad = l > len - at || (!l && n > 1);
        if (!bad && sink_iov_markers && p >= w && p < w + k->st->wire_len)
            for (size_t j = 0; j < l; j++)
                bad |= (size_t)(p + j - w) % 512 < 4; /* MPA 7.1 */
        if (!bad)
            memcpy(flat + at, p, l), at += l;
    }
    if (bad || at != len) {
        k->mismatches++;
        return 0;
    }
    sink_iov_pieced += n > 1;
    return sink_ulpdu(rx, flat, len, off, u);
}

static inline void sink_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    sink *k = u;
    (void)rx;
    k->errors++;
    k->err = *e;
}

/* Feeds buf to rx in random cuts; max_cut 1 means octet by octet. Returns
 * the last negative feed result, or 0. Handles early returns from stops. */
static inline ssize_t feed_cuts(dw_mpa_rx *rx, const uint8_t *buf, size_t len,
                                size_t max_cut, uint64_t *seed)
{
    size_t i = 0;
    while (i < len) {
        size_t n = 1 + (max_cut > 1 ? dw_rand(seed) % max_cut : 0);
        n = n < len - i ? n : len - i;
        while (n) {
            ssize_t r = dw_mpa_rx_feed(rx, buf + i, n);
            if (r < 0)
                return r;
            i += (size_t)r;
            n -= (size_t)r;
        }
    }
    return 0;
}

#endif
