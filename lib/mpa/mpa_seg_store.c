/* SPDX-License-Identifier: MIT */
/*
 * The segment receiver's reassembly store: octets of out-of-order
 * segments kept by stream offset until their FPDUs can be assembled.
 *
 * Memory is fixed at creation: chunks of SEG_CHUNK octets, each holding
 * the octets of one aligned block of the stream, looked up through a
 * sorted array of block numbers, and a sorted array of held spans that
 * says which octets are valid.
 */
#include <stdlib.h>
#include <string.h>

#include "mpa/mpa_seg_internal.h"
#include "base/mem.h"

/* Span slots kept free for splits by dw_seg_store_drop(). */
#define SPLIT_RESERVE 8u

int dw_seg_store_init(seg_store *s, size_t bytes, const dw_mem *mem)
{
    memset(s, 0, sizeof *s);
    s->mem_ = mem;
    s->nchunk = (bytes + SEG_CHUNK - 1) / SEG_CHUNK;
    s->cap = 2 * s->nchunk + SPLIT_RESERVE + 8;
    s->mem = dw_mem_malloc(mem, s->nchunk * SEG_CHUNK + 1);
    s->key = dw_mem_malloc(mem, (s->nchunk + 1) * sizeof *s->key);
    s->slot = dw_mem_malloc(mem, (s->nchunk + 1) * sizeof *s->slot);
    s->freel = dw_mem_malloc(mem, (s->nchunk + 1) * sizeof *s->freel);
    s->held = dw_mem_malloc(mem, s->cap * sizeof *s->held);
    if (!s->mem || !s->key || !s->slot || !s->freel || !s->held) {
        dw_seg_store_fini(s);
        return DW_ERR_NOMEM;
    }
    for (size_t i = 0; i < s->nchunk; i++)
        s->freel[i] = (uint32_t)(s->nchunk - 1 - i);
    s->nfree = s->nchunk;
    return 0;
}

void dw_seg_store_fini(seg_store *s)
{
    dw_mem_free(s->mem_, s->mem);
    dw_mem_free(s->mem_, s->key);
    dw_mem_free(s->mem_, s->slot);
    dw_mem_free(s->mem_, s->freel);
    dw_mem_free(s->mem_, s->held);
    memset(s, 0, sizeof *s);
}

size_t dw_seg_store_find(const seg_store *s, uint64_t pos)
{
    size_t lo = 0, hi = s->nheld;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->held[mid].b > pos)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

const seg_span *dw_seg_store_span(const seg_store *s, uint64_t pos)
{
    size_t i = dw_seg_store_find(s, pos);
    return i < s->nheld && s->held[i].a <= pos ? &s->held[i] : NULL;
}

/* Index of chunk number k in key[], or where it would go. */
static size_t key_find(const seg_store *s, uint64_t k)
{
    size_t lo = 0, hi = s->nused;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->key[mid] >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

static uint8_t *chunk(const seg_store *s, uint64_t k)
{
    size_t i = key_find(s, k);
    if (i == s->nused || s->key[i] != k)
        return NULL;
    return s->mem + (size_t)s->slot[i] * SEG_CHUNK;
}

const uint8_t *dw_seg_store_piece(const seg_store *s, uint64_t pos,
                                  uint64_t lim, size_t *len)
{
    const seg_span *sp = s->nheld ? dw_seg_store_span(s, pos) : NULL;
    if (!sp)
        return NULL;
    uint64_t end = (pos / SEG_CHUNK + 1) * SEG_CHUNK;
    end = end < sp->b ? end : sp->b;
    end = end < lim ? end : lim;
    *len = (size_t)(end - pos);
    return chunk(s, pos / SEG_CHUNK) + pos % SEG_CHUNK;
}

/* Chunks that holding [a, b) needs and does not have. */
static size_t chunks_missing(const seg_store *s, uint64_t a, uint64_t b)
{
    uint64_t k = a / SEG_CHUNK, last = (b - 1) / SEG_CHUNK;
    size_t i = key_find(s, k), miss = 0;
    for (; k <= last; k++) {
        while (i < s->nused && s->key[i] < k)
            i++;
        if (i == s->nused || s->key[i] != k)
            miss++;
    }
    return miss;
}

static uint8_t *chunk_get(seg_store *s, uint64_t k)
{
    size_t i = key_find(s, k);
    if (i == s->nused || s->key[i] != k) { /* room was checked */
        memmove(s->key + i + 1, s->key + i, (s->nused - i) * sizeof *s->key);
        memmove(s->slot + i + 1, s->slot + i, (s->nused - i) * sizeof *s->slot);
        s->key[i] = k;
        s->slot[i] = s->freel[--s->nfree];
        s->nused++;
    }
    return s->mem + (size_t)s->slot[i] * SEG_CHUNK;
}

static void copy_in(seg_store *s, uint64_t a, const uint8_t *src, uint64_t b)
{
    while (a < b) {
        uint64_t end = (a / SEG_CHUNK + 1) * SEG_CHUNK;
        size_t n = (size_t)((end < b ? end : b) - a);
        memcpy(chunk_get(s, a / SEG_CHUNK) + a % SEG_CHUNK, src, n);
        a += n;
        src += n;
    }
}

int dw_seg_store_put(seg_store *s, uint64_t a, const uint8_t *src, size_t n)
{
    uint64_t b = a + n;
    if (!n)
        return 0;
    /* spans [i, j) touch [a, b) (overlap or adjacency): they merge */
    size_t i = dw_seg_store_find(s, a ? a - 1 : 0);
    if (i < s->nheld && s->held[i].b < a)
        i++;
    size_t j = i;
    while (j < s->nheld && s->held[j].a <= b)
        j++;
    if (j == i && s->nheld + 1 + SPLIT_RESERVE > s->cap)
        return DW_ERR_NOSPACE;
    size_t miss = 0; /* chunks needed by the gaps between those spans */
    uint64_t p = a;
    for (size_t k = i; k <= j && p < b; k++) {
        uint64_t e = k < j && s->held[k].a < b ? s->held[k].a : b;
        if (e > p)
            miss += chunks_missing(s, p, e);
        if (k < j)
            p = s->held[k].b > p ? s->held[k].b : p;
    }
    if (miss > s->nfree)
        return DW_ERR_NOSPACE;
    p = a;
    for (size_t k = i; k <= j && p < b; k++) { /* fill the gaps only */
        uint64_t e = k < j && s->held[k].a < b ? s->held[k].a : b;
        if (e > p)
            copy_in(s, p, src + (p - a), e);
        if (k < j)
            p = s->held[k].b > p ? s->held[k].b : p;
    }
    seg_span m = {a, b};
    for (size_t k = i; k < j; k++) {
        s->octets -= s->held[k].b - s->held[k].a;
        m.a = s->held[k].a < m.a ? s->held[k].a : m.a;
        m.b = s->held[k].b > m.b ? s->held[k].b : m.b;
    }
    if (j == i) {
        memmove(s->held + i + 1, s->held + i, (s->nheld - i) * sizeof *s->held);
        s->nheld++;
    } else if (j > i + 1) {
        memmove(s->held + i + 1, s->held + j, (s->nheld - j) * sizeof *s->held);
        s->nheld -= j - i - 1;
    }
    s->held[i] = m;
    s->octets += m.b - m.a;
    return 0;
}

/* Frees the chunks of [a, b) that no held span touches any more. */
static void free_chunks(seg_store *s, uint64_t a, uint64_t b)
{
    if (a >= b)
        return;
    uint64_t k = a / SEG_CHUNK, last = (b - 1) / SEG_CHUNK;
    size_t i = key_find(s, k);
    while (i < s->nused && s->key[i] <= last) {
        uint64_t c = s->key[i] * SEG_CHUNK;
        size_t h = dw_seg_store_find(s, c);
        if (h < s->nheld && s->held[h].a < c + SEG_CHUNK) {
            i++;
            continue;
        }
        s->freel[s->nfree++] = s->slot[i];
        memmove(s->key + i, s->key + i + 1, (s->nused - i - 1) * sizeof *s->key);
        memmove(s->slot + i, s->slot + i + 1, (s->nused - i - 1) * sizeof *s->slot);
        s->nused--;
    }
}

void dw_seg_store_drop(seg_store *s, uint64_t a, uint64_t b)
{
    if (!s->nheld || a >= b)
        return;
    uint64_t fa = a, fb = b; /* what was forgotten, for the chunks */
    size_t i = dw_seg_store_find(s, a);
    while (i < s->nheld && s->held[i].a < b) {
        seg_span *h = &s->held[i];
        if (h->a < a && h->b > b) { /* a split */
            if (s->nheld == s->cap) { /* renege on the shorter side */
                if (a - h->a < h->b - b)
                    a = h->a;
                else
                    b = h->b;
                fa = a < fa ? a : fa;
                fb = b > fb ? b : fb;
                continue;
            }
            memmove(h + 1, h, (s->nheld - i) * sizeof *h);
            s->nheld++;
            h[1].a = b;
            h->b = a;
            s->octets -= b - a;
            break;
        }
        if (h->a < a) { /* trim its end */
            s->octets -= h->b - a;
            h->b = a;
            i++;
            continue;
        }
        if (h->b > b) { /* trim its start */
            s->octets -= b - h->a;
            h->a = b;
            break;
        }
        s->octets -= h->b - h->a; /* wholly inside */
        memmove(h, h + 1, (s->nheld - i - 1) * sizeof *h);
        s->nheld--;
    }
    free_chunks(s, fa, fb);
}

/* ---- tables of positions ------------------------------------------ */

size_t dw_seg_tab_find(const seg_tab *t, uint64_t pos)
{
    size_t lo = t->lo, hi = t->hi;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->e[mid].start >= pos)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

seg_ent *dw_seg_tab_at(const seg_tab *t, uint64_t pos)
{
    size_t i = dw_seg_tab_find(t, pos);
    return i < t->hi && t->e[i].start == pos ? &t->e[i] : NULL;
}

seg_ent *dw_seg_tab_add(seg_tab *t, uint64_t pos)
{
    if (t->hi - t->lo == t->cap)
        return NULL;
    size_t i = dw_seg_tab_find(t, pos);
    if (i == t->lo && t->lo) { /* in front: no move */
        i = --t->lo;
    } else {
        if (t->hi == t->cap) { /* slide down */
            memmove(t->e, t->e + t->lo, (t->hi - t->lo) * sizeof *t->e);
            i -= t->lo;
            t->hi -= t->lo;
            t->lo = 0;
        }
        memmove(t->e + i + 1, t->e + i, (t->hi - i) * sizeof *t->e);
        t->hi++;
    }
    t->e[i] = (seg_ent){pos, 0, 0};
    return &t->e[i];
}

static void tab_remove(seg_tab *t, size_t i, size_t j) /* [i, j) */
{
    if (i == t->lo)
        t->lo = j;
    else {
        memmove(t->e + i, t->e + j, (t->hi - j) * sizeof *t->e);
        t->hi -= j - i;
    }
    if (t->lo == t->hi)
        t->lo = t->hi = 0;
}

void dw_seg_tab_del(seg_tab *t, size_t i)
{
    tab_remove(t, i, i + 1);
}

void dw_seg_tab_cut(seg_tab *t, uint64_t a, uint64_t b)
{
    if (a >= b)
        return;
    size_t i = dw_seg_tab_find(t, a), j = dw_seg_tab_find(t, b);
    if (i < j)
        tab_remove(t, i, j);
}
