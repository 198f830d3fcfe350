/* SPDX-License-Identifier: MIT */
/* The pieces the MPA and IFT stream checkers share (check_common.h). */
#include <ddpwire/crc32c.h>
#include <ddpwire/ddpwire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/inline.h"
#include "base/mem.h"
#include "check/check_common.h"
#include "crc32c/crc32c_impl.h"

void dw_cc_slice_advance(dw_cc_slice *s, size_t k)
{
    s->off += k;
    s->seq += (uint32_t)k;
    s->len -= (uint32_t)k;
    s->seg_start = s->seg_start && !k;
}

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

int dw_cc_data_begin(dw_cc_in *in, const uint8_t *data, size_t len,
                     const dw_reasm_chunk *chunk, dw_cc_slice *s, dw_reasm_gap *hole)
{
    if (!in || (!data && len) || len > UINT32_MAX)
        return DW_ERR_INVAL;
    if (in->in_cb || in->ended)
        return DW_ERR_STATE;
    /* field by field: a compound literal is a memcpy call under ASan */
    s->len = (uint32_t)len;
    if (!chunk) {
        s->off = in->off;
        s->pkt = 0;
        s->seq = 0;
        s->seg_start = s->seg_end = s->tagged = 0;
        return 0;
    }
    if (chunk->offset < in->off)
        return DW_ERR_INVAL;
    s->off = chunk->offset;
    s->pkt = chunk->pkt;
    s->seq = chunk->seq;
    s->seg_start = chunk->seg_start != 0;
    s->seg_end = chunk->seg_end != 0;
    s->tagged = 1;
    in->seq0 = chunk->seq - (uint32_t)chunk->offset;
    in->have_seq0 = 1;
    in->pkt = chunk->pkt;
    if (chunk->offset == in->off)
        return 0;
    *hole = (dw_reasm_gap){in->off, chunk->seq - (uint32_t)(chunk->offset - in->off),
                           chunk->offset - in->off, DW_REASM_GAP_LOST, chunk->pkt};
    return 1; /* an unreported hole */
}

int dw_cc_gap_begin(dw_cc_in *in, const dw_reasm_gap *g, uint64_t *len,
                    char *detail, size_t dsize)
{
    if (!in || !g || g->offset + g->len < in->off)
        return DW_ERR_INVAL;
    if (in->in_cb || in->ended)
        return DW_ERR_STATE;
    *len = g->offset + g->len - in->off;
    in->seq0 = g->seq - (uint32_t)g->offset;
    in->have_seq0 = 1;
    if (!*len)
        return 0;
    snprintf(detail, dsize, "%llu octets %s", (unsigned long long)*len,
             g->kind == DW_REASM_GAP_SNAPLEN ? "cut by the snap length"
                                             : "missing from the capture");
    return 1;
}

uint32_t dw_cc_seq(const dw_cc_in *in, uint64_t off, uint32_t dflt)
{
    return in->have_seq0 ? in->seq0 + (uint32_t)off : dflt;
}

void dw_cc_error(dw_cc_in *in, int code, uint64_t off, uint64_t pkt)
{
    if (code && !in->err) {
        in->err = code;
        in->err_off = off;
        in->err_pkt = pkt;
    }
}

/* ------------------------------------------------------------------ */
/* Segments                                                            */
/* ------------------------------------------------------------------ */

void dw_cc_rec_bind(dw_cc_rec *t, uint64_t *first_pkt, uint64_t *last_pkt,
                    uint32_t *segments, int *aligned, int *packed)
{
    t->first_pkt = first_pkt;
    t->last_pkt = last_pkt;
    t->segments = segments;
    t->aligned = aligned;
    t->packed = packed;
}

/* Record index touches segment pkt (start: with its first octet). */
static void seg_note(dw_cc_rec *t, uint64_t index, uint64_t pkt, int start)
{
    if (!t->seg_valid || t->seg_pkt != pkt) {
        t->seg_valid = 1;
        t->seg_pkt = pkt;
        t->seg_nrec = 0;
        t->seg_last_rec = UINT64_MAX;
        t->seg_has_start = t->seg_counted = 0;
    }
    if (t->seg_last_rec != index) {
        t->seg_last_rec = index;
        t->seg_nrec++;
    }
    if (start && !t->seg_has_start) {
        t->seg_has_start = 1;
        t->seg_with_start++;
    }
    if (t->seg_has_start && t->seg_nrec > 1 && !t->seg_counted) {
        t->seg_counted = 1;
        t->seg_packed++;
    }
}

void dw_cc_rec_begin(dw_cc_rec *t, uint64_t index, uint64_t pkt, int aligned)
{
    *t->first_pkt = *t->last_pkt = pkt;
    *t->segments = 1;
    *t->aligned = aligned;
    *t->packed = t->have_prev && t->prev_last_pkt == pkt;
    seg_note(t, index, pkt, 1);
}

void dw_cc_rec_touch(dw_cc_rec *t, uint64_t index, uint64_t pkt)
{
    if (*t->segments && *t->last_pkt == pkt)
        return;
    if (!*t->segments)
        *t->first_pkt = pkt;
    *t->last_pkt = pkt;
    ++*t->segments;
    seg_note(t, index, pkt, 0);
}

void dw_cc_rec_done(dw_cc_rec *t)
{
    t->have_prev = *t->segments != 0;
    t->prev_last_pkt = *t->last_pkt;
}

/* ------------------------------------------------------------------ */
/* Buffer                                                              */
/* ------------------------------------------------------------------ */

/* Both arrays start small and double as octets and pieces arrive, up to
 * cap and dcap: most connections never need the whole search window, and
 * a checker per direction of every flow made big allocations costly. The
 * first ones are in the checker's own block (base/inline.h). */
#define CC_BUF_FIRST 4096u
#define CC_DESC_FIRST 64u

/* Checkpoints for every offset a buffer of cap octets can hold. */
static size_t cp_count(size_t cap)
{
    return cap / DW_CC_CP + 2;
}

static size_t first(size_t cap, size_t most)
{
    return cap < most ? cap : most;
}

size_t dw_cc_inline_size(size_t cap, size_t dcap)
{
    return dw_inl_size(first(cap, CC_BUF_FIRST)) +
           dw_inl_size(first(dcap, CC_DESC_FIRST) * sizeof(dw_cc_slice)) +
           dw_inl_size(cp_count(first(cap, CC_BUF_FIRST)) * sizeof(uint32_t));
}

void dw_cc_inline_init(dw_cc_buf *b, dw_cc_crcs *k, uint8_t *at, size_t cap, size_t dcap,
                       const dw_mem *m)
{
    b->mem = k->mem = m;
    b->cap = cap;
    b->dcap = dcap;
    b->alloc = first(cap, CC_BUF_FIRST);
    b->dalloc = first(dcap, CC_DESC_FIRST);
    b->buf = b->buf0 = dw_inl_take(&at, b->alloc);
    b->desc = b->desc0 = dw_inl_take(&at, b->dalloc * sizeof *b->desc);
    k->n = cp_count(b->alloc); /* grows with the buffer */
    k->cp = k->cp0 = dw_inl_take(&at, k->n * sizeof *k->cp); /* each written before read */
    k->org = k->end = 0;
    k->run = 0;
    b->resets = k->resets = 0;
}

static size_t grown(size_t have, size_t want, size_t cap)
{
    size_t n = have;
    while (n < want)
        n *= 2;
    return n < cap ? n : cap;
}

void dw_cc_buf_grow(dw_cc_buf *b, size_t len)
{
    if (len <= b->alloc)
        return;
    size_t n = grown(b->alloc, len, b->cap);
    uint8_t *p = dw_inl_regrow(b->mem, b->buf, b->buf0, b->alloc, n);
    if (!p) { /* no memory: the buffer is as big as it gets */
        b->cap = b->alloc;
        b->nomem = 1;
        return;
    }
    b->buf = p;
    b->alloc = n;
}

/* Room for one more piece, or dcap shrinks to what there is. */
static void desc_grow(dw_cc_buf *b)
{
    if (b->dcount < b->dalloc)
        return;
    size_t n = grown(b->dalloc, b->dcount + 1, b->dcap);
    size_t sz = sizeof *b->desc;
    dw_cc_slice *p =
        n > b->dalloc ? dw_inl_regrow(b->mem, b->desc, b->desc0, b->dalloc * sz, n * sz) : NULL;
    if (!p) {
        b->nomem |= n > b->dalloc;
        b->dcap = b->dalloc;
        return;
    }
    b->desc = p;
    b->dalloc = n;
}

void dw_cc_buf_free(dw_cc_buf *b)
{
    if (b->buf != b->buf0)
        dw_mem_free(b->mem, b->buf);
    if (b->desc != b->desc0)
        dw_mem_free(b->mem, b->desc);
}

void dw_cc_buf_reset(dw_cc_buf *b, uint64_t off)
{
    b->start = b->len = 0;
    b->dstart = b->dcount = 0;
    b->base = off;
    b->need = 0;
    b->resets++;
}

void dw_cc_buf_trim(dw_cc_buf *b)
{
    uint64_t o = b->base + b->start;
    while (b->dstart < b->dcount && b->desc[b->dstart].off + b->desc[b->dstart].len <= o)
        b->dstart++;
}

void dw_cc_buf_skip(dw_cc_buf *b, size_t n)
{
    b->start += n;
    b->need = 0;
    dw_cc_buf_trim(b);
}

void dw_cc_buf_shift(dw_cc_buf *b, size_t d)
{
    if (d) {
        memmove(b->buf, b->buf + d, b->len - d);
        b->base += d;
        b->len -= d;
        b->start -= d;
        b->need = b->need > d ? b->need - d : 0;
    }
    if (b->dstart) {
        memmove(b->desc, b->desc + b->dstart, (b->dcount - b->dstart) * sizeof *b->desc);
        b->dcount -= b->dstart;
        b->dstart = 0;
    }
}

int dw_cc_piece_continues(const dw_cc_buf *b, const dw_cc_slice *s)
{
    const dw_cc_slice *l = b->dcount > b->dstart ? &b->desc[b->dcount - 1] : NULL;
    return l && l->pkt == s->pkt && l->tagged == s->tagged && !l->seg_end &&
           !s->seg_start && l->off + l->len == s->off;
}

void dw_cc_piece_add(dw_cc_buf *b, const dw_cc_slice *s, size_t k)
{
    desc_grow(b);
    if (b->dcount == b->dstart && b->dcount == b->dalloc)
        b->dstart = b->dcount = 0; /* none in use and no room: start over */
    dw_cc_slice *l = b->dcount > b->dstart ? &b->desc[b->dcount - 1] : NULL;
    if (l && (dw_cc_piece_continues(b, s) || b->dcount == b->dcap)) {
        l->len += (uint32_t)k;
        l->seg_end = s->seg_end && k == s->len;
        return;
    }
    dw_cc_slice *d = &b->desc[b->dcount++]; /* field by field: see dw_cc_data_begin */
    d->off = s->off;
    d->pkt = s->pkt;
    d->seq = s->seq;
    d->len = (uint32_t)k;
    d->seg_start = s->seg_start;
    d->seg_end = s->seg_end && k == s->len;
    d->tagged = s->tagged;
}

size_t dw_cc_piece_from(const dw_cc_buf *b, size_t *d, size_t i, dw_cc_slice *s)
{
    uint64_t o = b->base + i;
    while (*d + 1 < b->dcount && b->desc[*d].off + b->desc[*d].len <= o)
        ++*d;
    const dw_cc_slice *p = &b->desc[*d];
    uint32_t skip = (uint32_t)(o - p->off);
    s->off = o; /* field by field: see dw_cc_data_begin */
    s->pkt = p->pkt;
    s->seq = p->seq + skip;
    s->len = p->len - skip;
    s->seg_start = p->seg_start && skip == 0;
    s->seg_end = p->seg_end;
    s->tagged = p->tagged;
    size_t left = b->len - i;
    return s->len < left ? s->len : left;
}

/* The pieces are in stream order: a binary search finds the one holding
 * index i (a linear walk made replays over tiny segments quadratic). */
size_t dw_cc_piece_at(const dw_cc_buf *b, size_t i, dw_cc_slice *s)
{
    uint64_t o = b->base + i;
    size_t lo = b->dstart, hi = b->dcount ? b->dcount - 1 : 0;
    while (lo < hi) { /* the first piece that ends after o (or the last) */
        size_t mid = lo + (hi - lo) / 2;
        if (b->desc[mid].off + b->desc[mid].len <= o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return dw_cc_piece_from(b, &lo, i, s);
}

/* ------------------------------------------------------------------ */
/* CRC32c checkpoints                                                  */
/* ------------------------------------------------------------------ */

/* The buffer grew: a ring as long as it, and every checkpoint again (once
 * per doubling). Without memory the ring stays short and ranges are
 * computed octet by octet (dw_cc_crcs_range). */
static void cp_grow(dw_cc_crcs *k, const dw_cc_buf *b)
{
    size_t n = cp_count(b->alloc);
    size_t sz = sizeof *k->cp;
    uint32_t *p = n > k->n ? dw_inl_regrow(k->mem, k->cp, k->cp0, k->n * sz, n * sz) : NULL;
    if (!p) /* the same CRCs, computed octet by octet */
        return;
    k->cp = p;
    k->n = n;
    k->org = UINT64_MAX; /* begin again at the buffer's first octet */
}

void dw_cc_crcs_free(dw_cc_crcs *k)
{
    if (k->cp != k->cp0)
        dw_mem_free(k->mem, k->cp);
}

static uint32_t cp_get(const dw_cc_crcs *k, uint64_t o)
{
    return o == k->org ? 0 : k->cp[(o / DW_CC_CP) % k->n];
}

static void cp_add(dw_cc_crcs *k, const uint8_t *p, size_t n)
{
    while (n) {
        size_t m = DW_CC_CP - (size_t)(k->end % DW_CC_CP);
        m = m < n ? m : n;
        k->run = dw_crc32c(k->run, p, m);
        k->end += m;
        p += m;
        n -= m;
        if (k->end % DW_CC_CP == 0)
            k->cp[(k->end / DW_CC_CP) % k->n] = k->run;
    }
}

void dw_cc_crcs_sync(dw_cc_crcs *k, const dw_cc_buf *b)
{
    uint64_t lo = b->base + b->start, hi = b->base + b->len;
    if (k->end == hi && k->org <= lo && k->resets == b->resets)
        return; /* up to date */
    size_t want = cp_count(b->alloc);
    if (k->n < want) {
        cp_grow(k, b);
        if (k->n < want)
            return; /* no checkpoints: see dw_cc_crcs_range */
    }
    if (k->end < lo || k->end > hi || k->org > lo || k->resets != b->resets) {
        k->org = k->end = lo;
        k->run = 0;
        k->resets = b->resets;
    }
    cp_add(k, b->buf + (k->end - b->base), (size_t)(hi - k->end));
}

uint32_t dw_cc_crcs_range(const dw_cc_crcs *k, const dw_cc_buf *b, size_t a, size_t e)
{
    uint64_t oa = b->base + a, ob = b->base + e;
    uint64_t oc = oa == k->org ? oa : (oa + DW_CC_CP - 1) / DW_CC_CP * DW_CC_CP;
    uint64_t n = ob - oc;
    if (oc >= ob || n >= 257u * 256u || k->n < cp_count(b->alloc)) /* short, or beyond the
                                           shift tables, or no checkpoints (no memory) */
        return dw_crc32c(0, b->buf + a, e - a);
    uint64_t of = ob / DW_CC_CP * DW_CC_CP;
    of = of > oc ? of : oc;
    uint32_t pb = dw_crc32c(cp_get(k, of), b->buf + (of - b->base), (size_t)(ob - of));
    uint32_t ac = dw_crc32c(0, b->buf + a, (size_t)(oc - oa)) ^ cp_get(k, oc);
    return dw_crc32c_shift_by(ac, (size_t)n) ^ pb; /* [a, oc) then [oc, e) */
}
