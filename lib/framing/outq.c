/* SPDX-License-Identifier: MIT */
/* The output queue (outq.h): frames copied into a list of chunks. */
#include <ddpwire/outq.h>

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>
#include "base/versioned.h"

DW_VERSIONS_1(outq_settings_v, dw_outq_settings, mem);

/*
 * The chunks hold one octet stream: each frame is a 4-octet length (host
 * order) and its octets, either of which may run across chunks. (hc, ho)
 * is the next octet not yet given up, inside the first frame's octets
 * when a frame is queued; (tc, to) is where the next push writes.
 */
#define OQ_HDR 4u
#define OQ_FRAME_MAX ((size_t)1 << 31)

typedef struct oq_chunk {
    struct oq_chunk *next;
    uint8_t data[];
} oq_chunk;

struct dw_outq {
    dw_outq_settings set;
    oq_chunk *hc, *tc;
    size_t ho, to;
    size_t octets, frames;
    size_t first_left; /* octets of the first frame still queued */
};

static void outq_settings_fill(dw_outq_settings *s)
{
    memset(s, 0, sizeof *s);
    s->limit = 262144;
    s->chunk_size = 16384;
}

int dw_outq_settings_default_versioned(int settings_version, dw_outq_settings *s)
{
    dw_outq_settings cur;
    outq_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, outq_settings_v);
}

static int outq_new_latest(dw_outq **pq, const dw_outq_settings *settings)
{
    dw_outq_settings def;
    if (!pq)
        return DW_ERR_INVAL;
    *pq = NULL;
    if (!settings) {
        dw_outq_settings_default(&def);
        settings = &def;
    }
    if (!settings->limit || settings->chunk_size < 1024 ||
        settings->chunk_size > OQ_FRAME_MAX)
        return DW_ERR_INVAL;
    dw_outq *q = dw_mem_calloc(settings->mem, 1, sizeof *q);
    if (!q)
        return DW_ERR_NOMEM;
    q->set = *settings;
    *pq = q;
    return 0;
}

int dw_outq_new_versioned(dw_outq **pq, int settings_version, const dw_outq_settings *settings)
{
    dw_outq_settings settings_cur;
    if (settings_version != DW_OUTQ_SETTINGS_VERSION)
        dw_outq_settings_default(&settings_cur);
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, outq_settings_v, err);
    if (err)
        return err;
    return outq_new_latest(pq, settings);
}

static void free_chunks(const dw_mem *m, oq_chunk *c)
{
    while (c) {
        oq_chunk *n = c->next;
        dw_mem_free(m, c);
        c = n;
    }
}

void dw_outq_del(dw_outq *q)
{
    if (!q)
        return;
    free_chunks(q->set.mem, q->hc);
    dw_mem_free(q->set.mem, q);
}

int dw_outq_fits(const dw_outq *q, size_t len)
{
    return !q->frames || (q->octets <= q->set.limit && len <= q->set.limit - q->octets);
}

size_t dw_outq_octets(const dw_outq *q)
{
    return q->octets;
}

size_t dw_outq_frames(const dw_outq *q)
{
    return q->frames;
}

/* Room for n more stored octets: the chunks that would hold them, made
 * before anything is written, so a failure leaves the queue as it was. */
static int reserve(dw_outq *q, size_t n, oq_chunk **fresh)
{
    size_t cs = q->set.chunk_size, room = q->tc ? cs - q->to : 0;
    oq_chunk *first = NULL, **link = &first;
    while (room < n) {
        oq_chunk *c = dw_mem_malloc(q->set.mem, sizeof *c + cs);
        if (!c) {
            free_chunks(q->set.mem, first);
            return DW_ERR_NOMEM;
        }
        c->next = NULL;
        *link = c;
        link = &c->next;
        room += cs;
    }
    *fresh = first;
    return 0;
}

/* Appends n octets at the tail, moving into the fresh chunks as it fills. */
static void put(dw_outq *q, const uint8_t *p, size_t n, oq_chunk **fresh)
{
    while (n) {
        if (!q->tc || q->to == q->set.chunk_size) {
            oq_chunk *c = *fresh;
            *fresh = c->next;
            c->next = NULL;
            if (q->tc)
                q->tc->next = c;
            else
                q->hc = c, q->ho = 0;
            q->tc = c, q->to = 0;
        }
        size_t k = q->set.chunk_size - q->to;
        k = k < n ? k : n;
        memcpy(q->tc->data + q->to, p, k);
        q->to += k, p += k, n -= k;
    }
}

/* Reads n octets at (*c, *o) into out, moving the cursor along. */
static void get(const dw_outq *q, const oq_chunk **c, size_t *o, uint8_t *out, size_t n)
{
    while (n) {
        if (*o == q->set.chunk_size)
            *c = (*c)->next, *o = 0;
        size_t k = q->set.chunk_size - *o;
        k = k < n ? k : n;
        memcpy(out, (*c)->data + *o, k);
        *o += k, out += k, n -= k;
    }
}

static size_t iov_total(const struct iovec *iov, size_t n)
{
    size_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += iov[i].iov_len < OQ_FRAME_MAX ? iov[i].iov_len : OQ_FRAME_MAX;
    return t;
}

/* Moves the head on by n stored octets, freeing the chunks left behind
 * (n never runs past what is stored). */
static void drop(dw_outq *q, size_t n)
{
    while (n) {
        if (q->ho == q->set.chunk_size) {
            oq_chunk *next = q->hc->next;
            dw_mem_free(q->set.mem, q->hc);
            q->hc = next, q->ho = 0;
        }
        size_t k = q->set.chunk_size - q->ho;
        k = k < n ? k : n;
        q->ho += k, n -= k;
    }
}

ssize_t dw_outq_push(dw_outq *q, const struct iovec *iov, size_t iovcnt, size_t skip)
{
    if (!q || (!iov && iovcnt))
        return DW_ERR_INVAL;
    size_t total = iov_total(iov, iovcnt);
    if (total >= OQ_FRAME_MAX)
        return DW_ERR_TOO_LONG;
    if (skip >= total)
        return 0;
    size_t len = total - skip;
    if (!dw_outq_fits(q, len))
        return DW_ERR_AGAIN;
    oq_chunk *fresh;
    if (reserve(q, OQ_HDR + len, &fresh))
        return DW_ERR_NOMEM;
    uint32_t hdr = (uint32_t)len;
    put(q, (const uint8_t *)&hdr, OQ_HDR, &fresh);
    for (size_t i = 0; i < iovcnt; i++) {
        size_t k = iov[i].iov_len;
        if (skip >= k) {
            skip -= k;
            continue;
        }
        put(q, (const uint8_t *)iov[i].iov_base + skip, k - skip, &fresh);
        skip = 0;
    }
    if (!q->frames++) { /* the first frame: step over its length */
        q->first_left = len;
        drop(q, OQ_HDR);
    }
    q->octets += len;
    return (ssize_t)len;
}

/* The iovecs of len octets from (*c, *o); 0 when more than cap are needed. */
static size_t frame_iov(const dw_outq *q, const oq_chunk **c, size_t *o, size_t len,
                        struct iovec *iov, size_t cap)
{
    size_t n = 0;
    while (len) {
        if (*o == q->set.chunk_size)
            *c = (*c)->next, *o = 0;
        if (n == cap)
            return 0;
        size_t k = q->set.chunk_size - *o;
        k = k < len ? k : len;
        iov[n++] = (struct iovec){(void *)((*c)->data + *o), k};
        *o += k, len -= k;
    }
    return n;
}

size_t dw_outq_peek(const dw_outq *q, struct iovec *iov, size_t iovcap,
                    dw_outq_span *spans, size_t nspans)
{
    const oq_chunk *c = q->hc;
    size_t o = q->ho, used = 0, k = 0;
    size_t len = q->first_left;
    while (k < q->frames && k < nspans) {
        if (k) { /* the next frame's length, then its octets */
            uint32_t h;
            get(q, &c, &o, (uint8_t *)&h, OQ_HDR);
            len = h;
        }
        size_t n = frame_iov(q, &c, &o, len, iov + used, iovcap - used);
        if (!n)
            break;
        spans[k++] = (dw_outq_span){used, n, len};
        used += n;
    }
    return k;
}


int dw_outq_consume(dw_outq *q, size_t n)
{
    if (!q || n > q->octets)
        return DW_ERR_INVAL;
    q->octets -= n;
    while (n) {
        size_t k = n < q->first_left ? n : q->first_left;
        drop(q, k);
        n -= k;
        q->first_left -= k;
        if (q->first_left)
            break;
        if (--q->frames) { /* step over the next frame's length */
            uint32_t h;
            const oq_chunk *c = q->hc;
            size_t o = q->ho;
            get(q, &c, &o, (uint8_t *)&h, OQ_HDR);
            drop(q, OQ_HDR);
            q->first_left = h;
        }
    }
    if (!q->frames) { /* empty: hold nothing */
        free_chunks(q->set.mem, q->hc);
        q->hc = q->tc = NULL;
        q->ho = q->to = 0;
    }
    return 0;
}
