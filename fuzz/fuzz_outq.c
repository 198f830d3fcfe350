/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the output queue (outq.h) against a model. Input: two
 * settings octets (limit, chunk size), then operations, each an opcode
 * octet and its arguments: push a frame of 1..4 pieces (lengths from the
 * input, octets a function of the frame's number and position) with some
 * octets skipped as already sent; peek with a number of iovecs and spans;
 * consume a share of what is queued (or more than is queued). Checked:
 * the queue takes a frame exactly when the model says it fits, never
 * holds more than its limit but for one frame alone, counts octets and
 * frames as the model, describes whole frames in order with their octets
 * and at most len / chunk_size + 2 iovecs each, refuses to give up more
 * than it holds, and frees everything (LeakSanitizer).
 */
#include <ddpwire/outq.h>

#include <stdlib.h>
#include <string.h>

#define MUST(c)                                                               \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

#define FRAMES_MAX 4096
#define PIECE_MAX 40000u

typedef struct model {
    uint32_t id[FRAMES_MAX], len[FRAMES_MAX];
    size_t first, n;   /* frames queued: a ring */
    size_t first_done; /* octets of the first frame given up */
    size_t octets;
    uint32_t next_id;
} model;

static model m;
static uint8_t src[4 * PIECE_MAX];
static struct iovec iov[600];
static dw_outq_span spans[64];

static uint8_t octet_of(uint32_t id, size_t j)
{
    return (uint8_t)(id * 131u + j * 7u + (j >> 9));
}

/* The next `bytes` input octets as a big-endian number (zeros past the end). */
static size_t arg(const uint8_t **d, size_t *n, size_t bytes)
{
    size_t v = 0;
    for (size_t i = 0; i < bytes; i++) {
        v <<= 8;
        if (*n) {
            v |= **d;
            ++*d, --*n;
        }
    }
    return v;
}

/* Octets skipped at the front of each queued frame (as sent already):
 * octet j of frame k's queued octets is octet_of(id, skip + j). */
static size_t skips_of[FRAMES_MAX];

static void push(dw_outq *q, const dw_outq_settings *st, const uint8_t **d, size_t *n)
{
    size_t pieces = 1 + arg(d, n, 1) % 4, total = 0;
    struct iovec v[4];
    for (size_t i = 0; i < pieces; i++) {
        size_t len = arg(d, n, 2); /* mostly short, now and then long */
        len = len & 0x8000 ? (len & 0x7fff) % PIECE_MAX : len & 0x3ff;
        v[i] = (struct iovec){src + total, len};
        total += len;
    }
    size_t skip = arg(d, n, 1);
    skip = skip < 200 ? skip * total / 200 : total + skip; /* now and then all */
    uint32_t id = m.next_id++;
    for (size_t j = 0; j < total; j++)
        src[j] = octet_of(id, j);
    size_t len = skip < total ? total - skip : 0;
    int fits = m.n == 0 || (m.octets <= st->limit && len <= st->limit - m.octets);
    MUST(dw_outq_fits(q, len) == fits);
    if (len && fits && m.n == FRAMES_MAX)
        return; /* the model's ring is full */
    ssize_t r = dw_outq_push(q, v, pieces, skip);
    if (!len || !fits) {
        MUST(r == (len ? DW_ERR_AGAIN : 0));
        return;
    }
    MUST(r == (ssize_t)len);
    size_t k = (m.first + m.n++) % FRAMES_MAX;
    m.id[k] = id;
    m.len[k] = (uint32_t)len;
    skips_of[k] = skip;
    m.octets += len;
    MUST(m.n == 1 || m.octets <= st->limit);
}

static void peek(dw_outq *q, const dw_outq_settings *st, const uint8_t **d, size_t *n)
{
    size_t cap = 1 + arg(d, n, 2) % (sizeof iov / sizeof iov[0]);
    size_t ns = 1 + arg(d, n, 1) % (sizeof spans / sizeof spans[0]);
    size_t k = dw_outq_peek(q, iov, cap, spans, ns);
    MUST(k <= m.n && k <= ns);
    size_t used = 0;
    for (size_t f = 0; f < k; f++) {
        size_t i = (m.first + f) % FRAMES_MAX;
        size_t done = f ? 0 : m.first_done, want = m.len[i] - done;
        MUST(spans[f].iov == used && spans[f].len == want);
        MUST(spans[f].iovcnt >= 1 && spans[f].iovcnt <= want / st->chunk_size + 2);
        size_t j = done, sum = 0;
        for (size_t v = spans[f].iov; v < spans[f].iov + spans[f].iovcnt; v++) {
            const uint8_t *p = iov[v].iov_base;
            MUST(iov[v].iov_len > 0);
            for (size_t t = 0; t < iov[v].iov_len; t++, j++)
                MUST(p[t] == octet_of(m.id[i], skips_of[i] + j));
            sum += iov[v].iov_len;
        }
        MUST(sum == want);
        used += spans[f].iovcnt;
    }
    MUST(used <= cap);
    /* the first frame is described whenever iovecs enough were given */
    if (m.n && cap >= (m.len[m.first] - m.first_done) / st->chunk_size + 2)
        MUST(k >= 1);
}

static void consume(dw_outq *q, const uint8_t **d, size_t *n)
{
    size_t share = arg(d, n, 2);
    size_t c = share < 60000 ? (size_t)((double)m.octets * share / 60000)
                             : m.octets + 1 + share % 100;
    int r = dw_outq_consume(q, c);
    if (c > m.octets) {
        MUST(r == DW_ERR_INVAL);
        return;
    }
    MUST(r == 0);
    m.octets -= c;
    while (c) {
        size_t left = m.len[m.first] - m.first_done;
        size_t t = c < left ? c : left;
        m.first_done += t, c -= t;
        if (m.first_done == m.len[m.first]) {
            m.first = (m.first + 1) % FRAMES_MAX;
            m.n--;
            m.first_done = 0;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    dw_outq_settings st;
    dw_outq_settings_default(&st);
    st.limit = 1 + (size_t)data[0] * 1000;
    st.chunk_size = 1024 + (size_t)(data[1] % 8) * 1000;
    dw_outq *q;
    MUST(dw_outq_new(&q, &st) == 0);
    memset(&m, 0, sizeof m);
    const uint8_t *d = data + 2;
    size_t n = size - 2;
    while (n) {
        unsigned op = arg(&d, &n, 1) % 3;
        if (op == 0)
            push(q, &st, &d, &n);
        else if (op == 1) {
            peek(q, &st, &d, &n);
        } else {
            consume(q, &d, &n);
        }
        MUST(dw_outq_octets(q) == m.octets && dw_outq_frames(q) == m.n);
    }
    dw_outq_del(q);
    return 0;
}
