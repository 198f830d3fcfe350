/* SPDX-License-Identifier: MIT */
/* TCP RDMA option: receiver placement (3.1, 6.1) and the in-order stream. */
#include <ddpwire/tcpopt.h>
#include <ddpwire/tcpopt_rid.h>
#include <ddpwire/tcpopt_rx.h>

#include <stdlib.h>
#include <string.h>
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(tcpopt_rx_callbacks_v, dw_tcpopt_rx_callbacks, on_unknown);
DW_VERSIONS_1(tcpopt_rx_settings_v, dw_tcpopt_rx_settings, mem);

typedef struct xfer {
    dw_tcpopt_rx_xfer x;
    dw_tcpopt_total tot;
    uint8_t in_use;
} xfer;

struct dw_tcpopt_rx {
    dw_tcpopt_rx_settings s;
    dw_tcpopt_rx_callbacks cb;
    void *user;
    uint64_t cap;          /* store octets, a power of two */
    uint8_t *ring;         /* stream octets by position & (cap - 1) */
    uint64_t *have, *rdma; /* per position: received; placed (not stream) */
    uint64_t next;         /* next in-order stream offset */
    xfer *xf;              /* max_buffers registered, then the pool's */
    uint8_t *pool;
    int busy, placing;
    dw_tcpopt_rx_stats st;
};

/* One segment being fed: stream offsets may be negative before offset 0. */
typedef struct seg {
    uint32_t seq;
    int64_t s, e;
    const uint8_t *pl;
} seg;

static void tcpopt_rx_settings_fill(dw_tcpopt_rx_settings *s)
{
    *s = (dw_tcpopt_rx_settings){.store = 256u << 10, .max_buffers = 64,
                                 .unsol_count = 4, .unsol_size = 64u << 10};
}

int dw_tcpopt_rx_settings_default_versioned(int settings_version, dw_tcpopt_rx_settings *s)
{
    dw_tcpopt_rx_settings cur;
    tcpopt_rx_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, tcpopt_rx_settings_v);
}

/* ---- bitmaps over the store: stream positions within one window ---- */

/* First index in [a, b) of a linear bitmap whose bit is v, or b. */
static uint64_t bits_find(const uint64_t *bm, uint64_t a, uint64_t b, int v)
{
    while (a < b) {
        uint64_t w = bm[a >> 6] ^ (v ? 0 : ~UINT64_C(0));
        w &= ~UINT64_C(0) << (a & 63);
        if (w) {
            uint64_t i = (a & ~UINT64_C(63)) + (uint64_t)__builtin_ctzll(w);
            return i < b ? i : b;
        }
        a = (a | 63) + 1;
    }
    return b;
}

static void bits_mark(uint64_t *bm, uint64_t a, uint64_t b, int v)
{
    while (a < b) {
        unsigned lo = (unsigned)(a & 63);
        uint64_t n = b - a < 64 - lo ? b - a : 64 - lo;
        uint64_t m = (n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1)) << lo;
        if (v)
            bm[a >> 6] |= m;
        else
            bm[a >> 6] &= ~m;
        a += n;
    }
}

/* First stream position in [from, to) whose bit is v, or to (to - from <= cap). */
static uint64_t find(const dw_tcpopt_rx *rx, const uint64_t *bm, uint64_t from,
                     uint64_t to, int v)
{
    uint64_t i = from & (rx->cap - 1), n = to - from;
    uint64_t first = rx->cap - i < n ? rx->cap - i : n;
    uint64_t r = bits_find(bm, i, i + first, v);
    if (r < i + first || first == n)
        return from + (r - i);
    return from + first + bits_find(bm, 0, n - first, v);
}

static void mark(const dw_tcpopt_rx *rx, uint64_t *bm, uint64_t from, uint64_t to,
                 int v)
{
    uint64_t i = from & (rx->cap - 1), n = to - from;
    uint64_t first = rx->cap - i < n ? rx->cap - i : n;
    bits_mark(bm, i, i + first, v);
    bits_mark(bm, 0, n - first, v);
}

/* Positions in [from, to) whose bit is v. */
static uint64_t count(const dw_tcpopt_rx *rx, const uint64_t *bm, uint64_t from,
                      uint64_t to, int v)
{
    uint64_t n = 0;
    while ((from = find(rx, bm, from, to, v)) < to) {
        uint64_t q = find(rx, bm, from, to, !v);
        n += q - from;
        from = q;
    }
    return n;
}

/* ---- creation, buffers ---- */

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 64;
    while (p < n)
        p <<= 1;
    return p;
}

static int tcpopt_rx_new_latest(dw_tcpopt_rx **prx, const dw_tcpopt_rx_settings *settings,
                                const dw_tcpopt_rx_callbacks *callbacks, void *user_data)
{
    dw_tcpopt_rx_settings s;
    if (settings)
        s = *settings;
    else
        dw_tcpopt_rx_settings_default(&s);
    if (!prx || !callbacks || !callbacks->on_stream || s.store < 1 ||
        s.store > (1u << 30) || s.max_buffers > 65536 || s.unsol_count > 4096 ||
        (unsigned)s.rid_format > DW_TCPOPT_RID_CIFS ||
        (uint64_t)s.unsol_count * s.unsol_size > (UINT64_C(1) << 40) ||
        (uint64_t)s.unsol_count * s.unsol_size > SIZE_MAX / 2)
        return DW_ERR_INVAL;
    *prx = NULL;
    dw_tcpopt_rx *rx = dw_mem_calloc(s.mem, 1, sizeof *rx);
    if (!rx)
        return DW_ERR_NOMEM;
    rx->s = s;
    rx->cb = *callbacks;
    rx->user = user_data;
    rx->cap = pow2_at_least(s.store);
    rx->ring = dw_mem_malloc(s.mem, rx->cap);
    rx->have = dw_mem_calloc(s.mem, rx->cap / 64, sizeof *rx->have);
    rx->rdma = dw_mem_calloc(s.mem, rx->cap / 64, sizeof *rx->rdma);
    rx->xf = dw_mem_calloc(s.mem, (size_t)s.max_buffers + s.unsol_count + 1, sizeof *rx->xf);
    rx->pool = dw_mem_malloc(s.mem, (size_t)s.unsol_count * s.unsol_size + 1);
    if (!rx->ring || !rx->have || !rx->rdma || !rx->xf || !rx->pool) {
        dw_tcpopt_rx_del(rx);
        return DW_ERR_NOMEM;
    }
    *prx = rx;
    return 0;
}

int dw_tcpopt_rx_new_versioned(dw_tcpopt_rx **prx, int settings_version,
                               const dw_tcpopt_rx_settings *settings, int callbacks_version,
                               const dw_tcpopt_rx_callbacks *callbacks, void *user_data)
{
    dw_tcpopt_rx_settings settings_cur;
    if (settings_version != DW_TCPOPT_RX_SETTINGS_VERSION)
        dw_tcpopt_rx_settings_default(&settings_cur);
    dw_tcpopt_rx_callbacks callbacks_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, tcpopt_rx_settings_v, err);
    DW_VERSIONED_IN(callbacks, callbacks_cur, callbacks_version, tcpopt_rx_callbacks_v, err);
    if (err)
        return err;
    return tcpopt_rx_new_latest(prx, settings, callbacks, user_data);
}

void dw_tcpopt_rx_del(dw_tcpopt_rx *rx)
{
    if (!rx)
        return;
    const dw_mem *m = rx->s.mem;
    dw_mem_free(m, rx->ring);
    dw_mem_free(m, rx->have);
    dw_mem_free(m, rx->rdma);
    dw_mem_free(m, rx->xf);
    dw_mem_free(m, rx->pool);
    dw_mem_free(m, rx);
}

static size_t nxf(const dw_tcpopt_rx *rx)
{
    return (size_t)rx->s.max_buffers + rx->s.unsol_count;
}

static xfer *lookup(const dw_tcpopt_rx *rx, uint64_t rid)
{
    for (size_t i = 0; i < nxf(rx); i++)
        if (rx->xf[i].in_use && rx->xf[i].x.rid == rid)
            return &rx->xf[i];
    return NULL;
}

static void xfer_init(xfer *x, uint64_t rid, uint8_t *buf, size_t len)
{
    *x = (xfer){.x = {.rid = rid, .buf = buf, .buf_len = len}};
    dw_tcpopt_total_init(&x->tot, rid);
}

int dw_tcpopt_rx_register(dw_tcpopt_rx *rx, uint64_t rid, void *buf, size_t len)
{
    if (!rx || rid > DW_TCPOPT_RID_MAX || (!buf && len))
        return DW_ERR_INVAL;
    if (lookup(rx, rid))
        return DW_ERR_STATE;
    for (size_t i = 0; i < rx->s.max_buffers; i++)
        if (!rx->xf[i].in_use) {
            xfer_init(&rx->xf[i], rid, buf, len);
            rx->xf[i].in_use = 1;
            return 0;
        }
    return DW_ERR_NOSPACE;
}

int dw_tcpopt_rx_release(dw_tcpopt_rx *rx, uint64_t rid)
{
    xfer *x = rx ? lookup(rx, rid) : NULL;
    if (!x)
        return DW_ERR_INVAL;
    if (rx->placing)
        return DW_ERR_STATE;
    x->in_use = 0;
    return 0;
}

int dw_tcpopt_rx_transfer(const dw_tcpopt_rx *rx, uint64_t rid,
                          dw_tcpopt_rx_xfer *out)
{
    const xfer *x = rx ? lookup(rx, rid) : NULL;
    if (!x || !out)
        return DW_ERR_INVAL;
    *out = x->x;
    return 0;
}

void dw_tcpopt_rx_stats_get(const dw_tcpopt_rx *rx, dw_tcpopt_rx_stats *st)
{
    *st = rx->st;
    st->next = rx->next;
}

/* ---- judging and placing one option's data ---- */

static dw_tcpopt_reason rid_check(const dw_tcpopt_rx *rx, uint64_t rid)
{
    dw_tcpopt_rid_nfs n;
    dw_tcpopt_rid_http h;
    dw_tcpopt_rid_cifs c;
    switch (rx->s.rid_format) {
    case DW_TCPOPT_RID_NFS:
        return dw_tcpopt_rid_nfs_decode(&n, rid, rx->s.nfs_version);
    case DW_TCPOPT_RID_HTTP:
        return dw_tcpopt_rid_http_decode(&h, rid);
    case DW_TCPOPT_RID_CIFS:
        return dw_tcpopt_rid_cifs_decode(&c, rid);
    default:
        return DW_TCPOPT_R_OK;
    }
}

/* The transfer opt's data goes to: registered, or a pool slot not yet
 * claimed (in_use 0) for an unsolicited one. */
static dw_tcpopt_reason find_xfer(dw_tcpopt_rx *rx, const dw_tcpopt *opt, xfer **px)
{
    xfer *x = lookup(rx, opt->rid);
    if (!x && !opt->u && rx->cb.on_unknown) {
        rx->cb.on_unknown(rx, opt, rx->user);
        x = lookup(rx, opt->rid);
    }
    *px = x;
    if (x)
        return DW_TCPOPT_R_OK;
    if (!opt->u)
        return DW_TCPOPT_R_UNKNOWN_RID; /* 3.1.7: solicited, so expected */
    for (size_t i = rx->s.max_buffers; i < nxf(rx); i++)
        if (!rx->xf[i].in_use) {
            size_t slot = i - rx->s.max_buffers;
            xfer_init(&rx->xf[i], opt->rid, rx->pool + slot * rx->s.unsol_size,
                      rx->s.unsol_size);
            rx->xf[i].x.unsolicited = 1;
            *px = &rx->xf[i];
            return DW_TCPOPT_R_OK;
        }
    return DW_TCPOPT_R_UNSOL_COUNT; /* 6.1: quota on the number */
}

/* 6.1 bounds, then 3.1.4; learns the total only when everything passes. */
static dw_tcpopt_reason judge(xfer *x, const dw_tcpopt *opt, uint64_t fresh)
{
    int pool = x->x.unsolicited;
    if (DW_TCPOPT_HAS_TOTAL(opt) && opt->total_length > x->x.buf_len)
        return pool ? DW_TCPOPT_R_UNSOL_SIZE : DW_TCPOPT_R_TOO_LARGE;
    if ((uint64_t)opt->buffer_offset + opt->data_length > x->x.buf_len)
        return pool ? DW_TCPOPT_R_UNSOL_SIZE : DW_TCPOPT_R_BUFFER_BOUNDS;
    dw_tcpopt_total t = x->tot;
    dw_tcpopt_reason r = dw_tcpopt_total_check(&t, opt);
    if (r)
        return r;
    if (t.known && x->x.placed + fresh > t.total)
        return DW_TCPOPT_R_TOTAL_EXCEEDED;
    x->tot = t;
    x->x.total = t.total;
    x->x.total_known = t.known;
    return DW_TCPOPT_R_OK;
}

static void refuse(dw_tcpopt_rx *rx, const seg *g, dw_tcpopt_reason r,
                   const dw_tcpopt *opt, uint64_t fresh)
{
    rx->st.refusals++;
    rx->st.refused += fresh;
    if (rx->cb.on_refused) {
        dw_tcpopt_rx_refusal f = {r, *opt, g->seq, g->s > 0 ? (uint64_t)g->s : 0,
                                  (uint32_t)fresh};
        rx->cb.on_refused(rx, &f, rx->user);
    }
}

static void complete(dw_tcpopt_rx *rx, xfer *x)
{
    dw_tcpopt_rx_xfer info = x->x;
    x->in_use = 0; /* forgotten first: the callback may register the RID */
    rx->st.completed++;
    if (rx->cb.on_complete)
        rx->cb.on_complete(rx, &info, rx->user);
}

/* Copies the new octets of [a, b) (stream positions of data starting at
 * ds) into x's buffer, marking them received and placed. */
static void place_runs(dw_tcpopt_rx *rx, const seg *g, xfer *x,
                       const dw_tcpopt *opt, int64_t ds, uint64_t a, uint64_t b)
{
    rx->placing = 1;
    while ((a = find(rx, rx->have, a, b, 0)) < b) {
        uint64_t q = find(rx, rx->have, a, b, 1);
        uint64_t boff = opt->buffer_offset + (a - (uint64_t)ds);
        memcpy(x->x.buf + boff, g->pl + (a - (uint64_t)g->s), q - a);
        mark(rx, rx->have, a, q, 1);
        mark(rx, rx->rdma, a, q, 1);
        x->x.placed += q - a;
        if (boff + (q - a) > x->x.extent)
            x->x.extent = boff + (q - a);
        rx->st.placed += q - a;
        rx->st.held += q - a;
        if (rx->cb.on_placed) {
            dw_tcpopt_rx_place p = {opt->rid, (uint32_t)boff, (uint32_t)(q - a), a,
                                    x->x.buf + boff};
            rx->cb.on_placed(rx, &p, rx->user);
        }
        a = q;
    }
    rx->placing = 0;
}

/* The stream positions [*a, *b) of the data opt describes within [lo, hi)
 * (a segment may start before offset 0); returns how many are new. */
static uint64_t described(const dw_tcpopt_rx *rx, const seg *g, const dw_tcpopt *opt,
                          uint64_t lo, uint64_t hi, uint64_t *a, uint64_t *b)
{
    int64_t ds = g->s + opt->data_offset, de = ds + opt->data_length;
    *a = ds > (int64_t)lo ? (uint64_t)ds : lo;
    *b = de < (int64_t)hi ? (de > (int64_t)*a ? (uint64_t)de : *a) : hi;
    return *a < *b ? count(rx, rx->have, *a, *b, 0) : 0;
}

/* The data an honoured option describes, within the new positions [lo, hi). */
static void place(dw_tcpopt_rx *rx, const seg *g, const dw_tcpopt *opt,
                  uint64_t lo, uint64_t hi)
{
    int64_t ds = g->s + opt->data_offset;
    uint64_t a, b, fresh = described(rx, g, opt, lo, hi, &a, &b);
    if (opt->data_length ? !fresh : !DW_TCPOPT_HAS_TOTAL(opt))
        return; /* judged when these octets first arrived, or nothing said */
    xfer *x = NULL;
    dw_tcpopt_reason r = rid_check(rx, opt->rid);
    if (!r)
        r = find_xfer(rx, opt, &x);
    if (!r)
        r = judge(x, opt, fresh);
    if (r) {
        if (x && x->in_use)
            x->x.refused += fresh;
        refuse(rx, g, r, opt, fresh); /* the octets stay stream data */
        return;
    }
    if (!x->in_use && x->x.unsolicited) /* claims a pool slot: nothing of
                                          * the last transfer shows */
        memset(x->x.buf, 0, x->x.buf_len);
    x->in_use = 1;
    if (fresh)
        place_runs(rx, g, x, opt, ds, a, b);
    if (x->in_use && x->tot.known && x->x.placed == x->tot.total)
        complete(rx, x);
}

/* ---- the in-order stream ---- */

static void emit(dw_tcpopt_rx *rx, const uint8_t *p, uint64_t n, uint64_t off)
{
    rx->st.stream += n;
    rx->cb.on_stream(rx, p, (size_t)n, off, rx->user);
}

/* Passes on the stream octets of [from, to), skipping placed ones: from
 * src (stream offset of src[0] is base) or, with src NULL, the store. */
static void emit_runs(dw_tcpopt_rx *rx, uint64_t from, uint64_t to,
                      const uint8_t *src, int64_t base)
{
    while (from < to) {
        uint64_t q = find(rx, rx->rdma, from, to, 1);
        if (q > from && src) {
            emit(rx, src + (from - (uint64_t)base), q - from, from);
        } else if (q > from) {
            uint64_t i = from & (rx->cap - 1), n = q - from;
            uint64_t k = rx->cap - i < n ? rx->cap - i : n;
            emit(rx, rx->ring + i, k, from);
            if (n > k)
                emit(rx, rx->ring, n - k, from + k);
        }
        from = find(rx, rx->rdma, q, to, 0);
    }
}

static void consume(dw_tcpopt_rx *rx, uint64_t end)
{
    mark(rx, rx->have, rx->next, end, 0);
    mark(rx, rx->rdma, rx->next, end, 0);
    rx->st.held -= end - rx->next;
    rx->next = end;
}

static void advance(dw_tcpopt_rx *rx)
{
    uint64_t end = find(rx, rx->have, rx->next, rx->next + rx->cap, 0);
    if (end == rx->next)
        return;
    emit_runs(rx, rx->next, end, NULL, 0);
    consume(rx, end);
}

/* Keeps the new octets of [lo, hi) that were not placed. */
static void store(dw_tcpopt_rx *rx, const seg *g, uint64_t lo, uint64_t hi)
{
    while ((lo = find(rx, rx->have, lo, hi, 0)) < hi) {
        uint64_t q = find(rx, rx->have, lo, hi, 1);
        uint64_t i = lo & (rx->cap - 1), n = q - lo;
        uint64_t k = rx->cap - i < n ? rx->cap - i : n;
        const uint8_t *src = g->pl + (lo - (uint64_t)g->s);
        memcpy(rx->ring + i, src, k);
        memcpy(rx->ring, src + k, n - k);
        mark(rx, rx->have, lo, q, 1);
        rx->st.held += n;
        lo = q;
    }
}

/* ---- one segment ---- */

static void options(dw_tcpopt_rx *rx, const seg *g, const uint8_t *opts,
                    size_t olen, size_t len, uint64_t lo, uint64_t hi)
{
    dw_tcpopt_found f;
    dw_tcpopt_reason why;
    int rc = dw_tcpopt_parse(&f, &why, opts, olen, len);
    if (rc == 0)
        return;
    if (rc < 0) {
        uint64_t fresh = 0;
        uint64_t a, b;
        if (rc == DW_ERR_MALFORMED && DW_TCPOPT_HAS_DATA(&f.opt))
            fresh = described(rx, g, &f.opt, lo, hi, &a, &b);
        refuse(rx, g, why, &f.opt, fresh); /* the payload is all stream */
        return;
    }
    if (f.opt.a && g->s == (int64_t)lo &&
        find(rx, rx->have, lo, lo + 1, 0) == lo) { /* 3.1.6, once */
        rx->st.messages++;
        if (rx->cb.on_message)
            rx->cb.on_message(rx, lo, rx->user);
    }
    if (DW_TCPOPT_HAS_DATA(&f.opt))
        place(rx, g, &f.opt, lo, hi);
}

int dw_tcpopt_rx_segment(dw_tcpopt_rx *rx, uint32_t seq, const uint8_t *opts,
                         size_t opts_len, const uint8_t *payload, size_t len)
{
    if (!rx || (!opts && opts_len) || (!payload && len) || len > (1u << 30))
        return DW_ERR_INVAL;
    if (rx->busy)
        return DW_ERR_STATE;
    rx->st.segments++;
    if (!len)
        return 0; /* no octet to judge: an option here describes nothing */
    seg g = {seq, 0, 0, payload};
    g.s = (int64_t)rx->next +
          (int32_t)(seq - (uint32_t)(rx->s.start_seq + (uint32_t)rx->next));
    g.e = g.s + (int64_t)len;
    int64_t wend = (int64_t)(rx->next + rx->cap);
    int64_t slo = g.s > (int64_t)rx->next ? g.s : (int64_t)rx->next;
    int64_t shi = g.e < wend ? g.e : wend;
    if (g.e > wend)
        rx->st.beyond += (uint64_t)(g.e - (g.s > wend ? g.s : wend));
    uint64_t lo = (uint64_t)slo, hi = shi > slo ? (uint64_t)shi : lo;
    if (lo == hi || find(rx, rx->have, lo, hi, 0) == hi) {
        rx->st.duplicates++;
        return 0;
    }
    rx->busy = 1;
    /* nothing of [lo, hi) received yet and it comes next: no copy needed */
    int direct = lo == rx->next && find(rx, rx->have, lo, hi, 1) == hi;
    options(rx, &g, opts, opts_len, len, lo, hi);
    if (direct) {
        emit_runs(rx, lo, hi, payload, g.s);
        rx->st.held += hi - lo - count(rx, rx->have, lo, hi, 1);
        consume(rx, hi);
    } else {
        store(rx, &g, lo, hi);
    }
    advance(rx);
    rx->busy = 0;
    return 0;
}
