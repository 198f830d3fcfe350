/* SPDX-License-Identifier: MIT */
/*
 * TCP RDMA option receiver: placement on arrival in any order (reordering,
 * duplicates, overlapping re-cut retransmissions, sequence wrap), the
 * ordinary stream passed on byte-exact and in order around placed octets,
 * completion at the total length, zero-length transfers, the A bit, every
 * refusal (rules of 3.1.2-3.1.8, unknown RIDs, bounds and quotas of 6.1,
 * RID formats) with guard bytes proving nothing is written outside a
 * buffer, the store's window, and the API's argument checks.
 */
#include <ddpwire/tcpopt.h>

#include "test.h"

#define SMAX 200000 /* longest test stream */
#define GUARD 64
#define GB 0xA5

static int quick(void)
{
    return getenv("DW_TEST_QUICK") != NULL;
}

/* What the callbacks saw. */
typedef struct rec {
    const uint8_t *orig;   /* the stream sent */
    uint8_t seen[SMAX];    /* per stream octet: 1 passed on as stream */
    uint64_t stream_end;   /* end of the last on_stream */
    int order_ok, data_ok; /* offsets ascending; octets equal orig */
    unsigned ncomplete, nmsg, nrefused, nplaced;
    dw_tcpopt_rx_xfer done[32];
    uint64_t msg[64];
    dw_tcpopt_rx_refusal ref[64];
    uint8_t done_data[4][4096]; /* copies of unsolicited completions */
    int release_rc, feed_rc, reregister;
    void *rebuf;
} rec;

static rec R;

static void on_stream(dw_tcpopt_rx *rx, const uint8_t *d, size_t n, uint64_t off,
                      void *u)
{
    (void)rx, (void)u;
    if (off < R.stream_end || n == 0)
        R.order_ok = 0;
    R.stream_end = off + n;
    if (off + n > SMAX || (R.orig && memcmp(d, R.orig + off, n)))
        R.data_ok = 0;
    for (size_t i = 0; i < n && off + i < SMAX; i++)
        R.seen[off + i]++;
}

static void on_placed(dw_tcpopt_rx *rx, const dw_tcpopt_rx_place *p, void *u)
{
    (void)u;
    R.nplaced++;
    if (R.orig && memcmp(p->data, R.orig + p->stream_offset, p->len))
        R.data_ok = 0;
    R.release_rc = dw_tcpopt_rx_release(rx, p->rid); /* refused in here */
    R.feed_rc = dw_tcpopt_rx_segment(rx, 0, NULL, 0, NULL, 0);
}

static void on_complete(dw_tcpopt_rx *rx, const dw_tcpopt_rx_xfer *x, void *u)
{
    (void)u;
    if (x->unsolicited && R.ncomplete < 4 && x->extent <= 4096)
        memcpy(R.done_data[R.ncomplete], x->buf, (size_t)x->extent);
    if (R.ncomplete < 32)
        R.done[R.ncomplete] = *x;
    R.ncomplete++;
    if (R.reregister) /* the RID is free again */
        R.reregister = dw_tcpopt_rx_register(rx, x->rid, R.rebuf, 1) == 0 ? 2 : -1;
}

static void on_message(dw_tcpopt_rx *rx, uint64_t off, void *u)
{
    (void)rx, (void)u;
    if (R.nmsg < 64)
        R.msg[R.nmsg] = off;
    R.nmsg++;
}

static void on_refused(dw_tcpopt_rx *rx, const dw_tcpopt_rx_refusal *r, void *u)
{
    (void)rx, (void)u;
    if (R.nrefused < 64)
        R.ref[R.nrefused] = *r;
    R.nrefused++;
}

static uint8_t lazy_buf[8192];

static void on_unknown(dw_tcpopt_rx *rx, const dw_tcpopt *o, void *u)
{
    (void)u;
    if (o->rid == 0x77)
        dw_tcpopt_rx_register(rx, o->rid, lazy_buf, sizeof lazy_buf);
}

static const dw_tcpopt_rx_callbacks CB = {on_stream, on_placed, on_complete,
                                          on_message, on_refused, on_unknown};

static dw_tcpopt_rx *mk(const dw_tcpopt_rx_settings *s, const uint8_t *orig)
{
    memset(&R, 0, sizeof R);
    R.orig = orig;
    R.order_ok = R.data_ok = 1;
    dw_tcpopt_rx *rx = NULL;
    CHECK_EQ_U(dw_tcpopt_rx_new(&rx, s, &CB, NULL), 0);
    return rx;
}

/* Feeds payload [off, off+len) of orig with opt (len 0: none) at options
 * area offset at (NOPs before it). */
static void feed_at(dw_tcpopt_rx *rx, uint32_t start, const uint8_t *orig,
                    uint64_t off, size_t len, const dw_tcpopt *opt, size_t at)
{
    uint8_t area[40];
    size_t n = 0;
    if (opt && opt->len) {
        memset(area, 1, at);
        n = at + (size_t)dw_tcpopt_encode(area + at, sizeof area - at, opt);
        while (n % 4)
            area[n++] = 0;
    }
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, start + (uint32_t)off, area, n, orig + off, len), 0);
}

static void feed(dw_tcpopt_rx *rx, uint32_t start, const uint8_t *orig,
                 const dw_tcpopt_segment *g)
{
    feed_at(rx, start, orig, g->offset, g->len, &g->opt, 0);
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(dw_rand(&seed) >> 56);
}

static uint8_t orig[SMAX];
static uint8_t bufs[4][GUARD + 70000 + GUARD];
#define BUF(i) (bufs[i] + GUARD)

static void guard_init(void)
{
    memset(bufs, GB, sizeof bufs);
}

/* Guards intact, and buffer i holds only GB from `from` on. */
static int guards_ok(int i, size_t len)
{
    for (size_t k = 0; k < GUARD; k++)
        if (bufs[i][k] != GB || bufs[i][GUARD + len + k] != GB)
            return 0;
    return 1;
}

/* Every stream octet outside the transfer ranges passed on once; none inside. */
static int stream_exact(uint64_t len, const dw_tcpopt_range *r, size_t nr)
{
    for (uint64_t p = 0; p < len; p++) {
        int in = 0;
        for (size_t k = 0; k < nr; k++)
            in |= p >= r[k].offset && p < r[k].offset + r[k].length;
        if (R.seen[p] != !in)
            return 0;
    }
    return R.order_ok && R.data_ok;
}

/* Section 4's stream, both tables, in order: buffer, stream, completion, A. */
static void test_section4(void)
{
    static const dw_tcpopt_range rg[] = {{100, 2000}, {2300, 2000}};
    static const uint64_t msgs[] = {0, 2200};
    fill(orig, 4300, 1);
    for (int pol = 0; pol < 2; pol++) {
        dw_tcpopt_transfer x = {0x2a, 0, 0, 1, rg, 2};
        dw_tcpopt_seg_settings ss;
        dw_tcpopt_seg_settings_default(&ss);
        ss.mss = 1000;
        ss.policy = (dw_tcpopt_policy)pol;
        dw_tcpopt_segment seg[8];
        ssize_t n = dw_tcpopt_segment_stream(seg, 8, &ss, 4300, &x, 1, msgs, 2);
        guard_init();
        dw_tcpopt_rx *rx = mk(NULL, orig);
        CHECK_EQ_U(dw_tcpopt_rx_register(rx, 0x2a, BUF(0), 4000), 0);
        for (ssize_t i = 0; i < n; i++)
            feed(rx, 0, orig, &seg[i]);
        CHECK(memcmp(BUF(0), orig + 100, 2000) == 0);
        CHECK(memcmp(BUF(0) + 2000, orig + 2300, 2000) == 0);
        CHECK(guards_ok(0, 4000));
        CHECK(stream_exact(4300, rg, 2));
        CHECK_EQ_U(R.ncomplete, 1);
        CHECK_EQ_U(R.done[0].placed, 4000);
        CHECK_EQ_U(R.done[0].extent, 4000);
        CHECK_EQ_U(R.done[0].total, 4000);
        CHECK(R.done[0].buf == BUF(0));
        CHECK_EQ_U(R.nrefused, 0);
        CHECK_EQ_U(R.nmsg, pol ? 1 : 2); /* packed: 2200 is mid-segment */
        CHECK_EQ_U(R.msg[0], 0);
        CHECK_EQ_U(R.msg[1], pol ? 0 : 2200);
        CHECK_EQ_U(R.release_rc, DW_ERR_STATE); /* not from on_placed */
        CHECK_EQ_U(R.feed_rc, DW_ERR_STATE);    /* no re-entry */
        dw_tcpopt_rx_stats st;
        dw_tcpopt_rx_get_stats(rx, &st);
        CHECK_EQ_U(st.placed, 4000);
        CHECK_EQ_U(st.stream, 300);
        CHECK_EQ_U(st.next, 4300);
        CHECK_EQ_U(st.held, 0);
        CHECK_EQ_U(st.completed, 1);
        CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, 0x2a, &R.done[1]), DW_ERR_INVAL); /* forgotten */
        dw_tcpopt_rx_del(rx);
    }
}

/* A random stream: transfers with 1-3 ranges, stream octets between. */
typedef struct layout {
    uint64_t len;
    dw_tcpopt_range r[24];
    dw_tcpopt_transfer x[8];
    size_t nx, nr;
    uint64_t msgs[32];
    size_t nm;
} layout;

static void make_layout(layout *L, uint64_t *seed, uint64_t max)
{
    uint64_t pos = 0;
    L->nx = L->nr = L->nm = 0;
    size_t want = 1 + dw_rand(seed) % 6;
    while (L->nx < want) {
        dw_tcpopt_transfer *x = &L->x[L->nx];
        size_t nr = 1 + dw_rand(seed) % 3;
        x->rid = dw_rand(seed) & DW_TCPOPT_RID_MAX;
        x->buffer_offset = (uint32_t)(dw_rand(seed) % 3 ? 0 : dw_rand(seed) % 500);
        x->unsolicited = 0;
        x->total_known = dw_rand(seed) % 4 != 0;
        x->ranges = &L->r[L->nr];
        x->nranges = nr;
        uint64_t sum = 0;
        for (size_t k = 0; k < nr; k++) {
            pos += dw_rand(seed) % 300;
            if (k == 0 && L->nm < 32)
                L->msgs[L->nm++] = pos;
            uint64_t n = 1 + dw_rand(seed) % 6000;
            if (pos + n + 1000 > max || sum + n + x->buffer_offset > 30000)
                break;
            L->r[L->nr++] = (dw_tcpopt_range){pos, n};
            pos += n;
            sum += n;
        }
        x->nranges = (size_t)(&L->r[L->nr] - x->ranges);
        if (!x->nranges)
            break;
        L->nx++;
    }
    L->len = pos + dw_rand(seed) % 500;
}

static void shuffle(size_t *ord, size_t n, uint64_t *seed)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = dw_rand(seed) % i, t = ord[i - 1];
        ord[i - 1] = ord[j];
        ord[j] = t;
    }
}

/* Random layouts cut at two MSSes (overlapping retransmissions), fed in
 * random order with duplicates, from a start near the 2^32 wrap. */
static void test_any_order(void)
{
    static dw_tcpopt_segment seg[2][400];
    static size_t ord[900];
    uint64_t seed = dw_test_seed();
    int rounds = quick() ? 40 : 400;
    for (int round = 0; round < rounds; round++) {
        layout L;
        make_layout(&L, &seed, SMAX);
        fill(orig, (size_t)L.len, seed);
        uint32_t start = (uint32_t)(round % 3 == 0 ? 0xffffffffu - dw_rand(&seed) % 40000
                                                   : dw_rand(&seed));
        dw_tcpopt_seg_settings ss;
        dw_tcpopt_seg_settings_default(&ss);
        ss.start_seq = start;
        ss.policy = (dw_tcpopt_policy)(round & 1);
        ssize_t n[2];
        ss.mss = 536 + (uint32_t)(dw_rand(&seed) % 1000);
        n[0] = dw_tcpopt_segment_stream(seg[0], 400, &ss, L.len, L.x, L.nx, L.msgs, L.nm);
        ss.mss = 300 + (uint32_t)(dw_rand(&seed) % 1500);
        n[1] = dw_tcpopt_segment_stream(seg[1], 400, &ss, L.len, L.x, L.nx, L.msgs, L.nm);
        CHECK(n[0] > 0 && n[1] > 0);
        if (n[0] <= 0 || n[1] <= 0)
            return;
        size_t tot = 0;
        int mode = round % 4; /* 0 in order, 1 shuffled, 2 + second cut, 3 + dups */
        for (ssize_t i = 0; i < n[0]; i++)
            ord[tot++] = (size_t)i;
        if (mode >= 2)
            for (ssize_t i = 0; i < n[1]; i++)
                ord[tot++] = 400 + (size_t)i;
        if (mode == 3)
            for (int d = 0; d < 20 && tot < 900; d++)
                ord[tot++] = dw_rand(&seed) % (size_t)n[0];
        if (mode)
            shuffle(ord, tot, &seed);
        guard_init();
        dw_tcpopt_rx_settings rs;
        dw_tcpopt_rx_settings_default(&rs);
        rs.start_seq = start;
        rs.store = SMAX;
        dw_tcpopt_rx *rx = mk(&rs, orig);
        static uint8_t big[8][GUARD + 30000 + GUARD];
        memset(big, GB, sizeof big);
        for (size_t t = 0; t < L.nx; t++)
            CHECK_EQ_U(dw_tcpopt_rx_register(rx, L.x[t].rid, big[t] + GUARD, 30000), 0);
        for (size_t i = 0; i < tot; i++)
            feed(rx, start, orig, &seg[ord[i] / 400][ord[i] % 400]);
        CHECK(stream_exact(L.len, L.r, L.nr));
        size_t want_complete = 0;
        for (size_t t = 0; t < L.nx; t++) {
            const dw_tcpopt_transfer *x = &L.x[t];
            uint64_t b = x->buffer_offset;
            for (size_t k = 0; k < x->nranges; k++) {
                CHECK(memcmp(big[t] + GUARD + b, orig + x->ranges[k].offset,
                             (size_t)x->ranges[k].length) == 0);
                b += x->ranges[k].length;
            }
            for (size_t k = 0; k < GUARD; k++)
                CHECK(big[t][k] == GB && big[t][GUARD + 30000 + k] == GB);
            want_complete += x->total_known;
            dw_tcpopt_rx_xfer xi;
            if (!x->total_known) { /* 16-octet options: tracked until released */
                CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, x->rid, &xi), 0);
                CHECK_EQ_U(xi.placed, b - x->buffer_offset);
                CHECK_EQ_U(xi.extent, b);
                CHECK_EQ_U(dw_tcpopt_rx_release(rx, x->rid), 0);
            }
        }
        CHECK_EQ_U(R.ncomplete, want_complete);
        CHECK_EQ_U(R.nrefused, 0);
        dw_tcpopt_rx_stats st;
        dw_tcpopt_rx_get_stats(rx, &st);
        CHECK_EQ_U(st.next, L.len);
        CHECK_EQ_U(st.held, 0);
        CHECK_EQ_U(st.segments, tot);
        /* messages: each at a message start, once; one cut: all of them */
        size_t nmsg = 0;
        for (ssize_t i = 0; i < n[0]; i++)
            nmsg += seg[0][i].opt.a;
        if (mode < 2)
            CHECK_EQ_U(R.nmsg, nmsg);
        for (unsigned i = 0; i < R.nmsg && i < 64; i++) {
            int at_start = R.msg[i] == 0;
            for (size_t k = 0; k < L.nm; k++)
                at_start |= R.msg[i] == L.msgs[k];
            CHECK(at_start);
            for (unsigned j = 0; j < i; j++)
                CHECK(R.msg[i] != R.msg[j]);
        }
        dw_tcpopt_rx_del(rx);
    }
}


static dw_tcpopt O(uint64_t rid, int u, uint32_t boff, uint16_t doff, uint16_t dlen,
                   int64_t total)
{
    dw_tcpopt o = {total < 0 ? 16 : 20, 0, (uint8_t)u, rid, boff, doff, dlen,
                   total < 0 ? 0 : (uint32_t)total};
    return o;
}

/* The stream crosses 2^32; segments fed last to first. */
static void test_wrap_exact(void)
{
    static const dw_tcpopt_range rg[] = {{100, 800}};
    fill(orig, 1000, 7);
    uint32_t start = 0xffffff00u;
    dw_tcpopt_rx_settings rs;
    dw_tcpopt_rx_settings_default(&rs);
    rs.start_seq = start;
    guard_init();
    dw_tcpopt_rx *rx = mk(&rs, orig);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 9, BUF(0), 800), 0);
    for (int i = 4; i >= 0; i--) { /* 200-octet segments; 256 is the wrap */
        uint64_t off = (uint64_t)i * 200;
        uint64_t ds = off < 100 ? 100 : off, de = off + 200 > 900 ? 900 : off + 200;
        dw_tcpopt o = O(9, 0, (uint32_t)(ds - 100), (uint16_t)(ds - off),
                        (uint16_t)(de - ds), 800);
        feed_at(rx, start, orig, off, 200, &o, 0);
        CHECK_EQ_U(R.stream_end, i ? 0 : 1000); /* nothing in order until the first */
    }
    CHECK(memcmp(BUF(0), orig + 100, 800) == 0);
    CHECK(guards_ok(0, 800));
    CHECK(stream_exact(1000, rg, 1));
    CHECK_EQ_U(R.ncomplete, 1);
    /* an old segment from before the wrap, and one before offset 0 */
    feed_at(rx, start, orig, 0, 200, NULL, 0);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, start - 500, NULL, 0, orig, 300), 0);
    dw_tcpopt_rx_stats st;
    dw_tcpopt_rx_get_stats(rx, &st);
    CHECK_EQ_U(st.duplicates, 2);
    CHECK_EQ_U(st.next, 1000);
    dw_tcpopt_rx_del(rx);
    /* segments from before offset 0 whose option describes data there */
    guard_init();
    rx = mk(&rs, orig);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 9, BUF(0), 800), 0);
    uint8_t area[20];
    dw_tcpopt o = O(9, 0, 0, 10, 90, 800); /* data at -40 .. 50 */
    CHECK_EQ_U(dw_tcpopt_encode(area, 20, &o), 20);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, start - 500, area, 20, orig, 300), 0);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, start - 50, area, 20, orig, 100), 0);
    CHECK_EQ_U(R.nplaced, 1); /* only 0 .. 50, at buffer offset 40 */
    CHECK(memcmp(BUF(0) + 40, orig + 50, 50) == 0);
    CHECK(BUF(0)[39] == GB && BUF(0)[90] == GB);
    dw_tcpopt_rx_get_stats(rx, &st);
    CHECK_EQ_U(st.placed, 50);
    CHECK_EQ_U(st.next, 50);
    CHECK_EQ_U(R.nrefused, 0);
    o = O(9, 0, 0, 0, 10, 800); /* data at -20 .. -10, new octets at 50 .. 80 */
    CHECK_EQ_U(dw_tcpopt_encode(area, 20, &o), 20);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, start - 20, area, 20, orig, 100), 0);
    dw_tcpopt_rx_get_stats(rx, &st);
    CHECK_EQ_U(st.placed, 50);
    CHECK_EQ_U(st.next, 80);
    CHECK_EQ_U(R.stream_end, 80);
    dw_tcpopt_rx_del(rx);
}

static int refused_with(unsigned i, dw_tcpopt_reason r, uint32_t len)
{
    return R.nrefused > i && R.ref[i].reason == r && R.ref[i].len == len;
}

/* 6.1: nothing written past a buffer; refused data stays in the stream. */
static void test_bounds(void)
{
    fill(orig, 6000, 3);
    guard_init();
    dw_tcpopt_rx *rx = mk(NULL, orig);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 1, BUF(0), 1000), 0);
    dw_tcpopt o = O(1, 0, 990, 10, 20, -1); /* crosses the end */
    feed_at(rx, 0, orig, 0, 100, &o, 0);
    CHECK(refused_with(0, DW_TCPOPT_R_BUFFER_BOUNDS, 20));
    o = O(1, 0, 1000, 0, 1, -1); /* offset past it */
    feed_at(rx, 0, orig, 100, 100, &o, 0);
    CHECK(refused_with(1, DW_TCPOPT_R_BUFFER_BOUNDS, 1));
    o = O(1, 0, 0xffffffffu, 0, 100, -1); /* no 32-bit wrap */
    feed_at(rx, 0, orig, 200, 100, &o, 0);
    CHECK(refused_with(2, DW_TCPOPT_R_BUFFER_BOUNDS, 100));
    o = O(1, 0, 0, 0, 100, 1001); /* total larger than the buffer */
    feed_at(rx, 0, orig, 300, 100, &o, 0);
    CHECK(refused_with(3, DW_TCPOPT_R_TOO_LARGE, 100));
    for (size_t k = 0; k < 1000; k++)
        CHECK(BUF(0)[k] == GB);
    o = O(1, 0, 900, 0, 100, 1000); /* the last 100 octets: fit exactly */
    feed_at(rx, 0, orig, 400, 100, &o, 0);
    CHECK(memcmp(BUF(0) + 900, orig + 400, 100) == 0);
    CHECK(guards_ok(0, 1000));
    CHECK_EQ_U(R.nrefused, 4);
    static const dw_tcpopt_range rg[] = {{400, 100}};
    CHECK(stream_exact(500, rg, 1));
    dw_tcpopt_rx_xfer xi;
    CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, 1, &xi), 0);
    CHECK_EQ_U(xi.refused, 221);
    CHECK_EQ_U(xi.placed, 100);
    CHECK_EQ_U(xi.extent, 1000);
    dw_tcpopt_rx_stats st;
    dw_tcpopt_rx_get_stats(rx, &st);
    CHECK_EQ_U(st.refusals, 4);
    CHECK_EQ_U(st.refused, 221);
    CHECK_EQ_U(R.ref[0].seq, 0);
    CHECK_EQ_U(R.ref[1].stream_offset, 100);
    CHECK_EQ_U(R.ref[3].opt.total_length, 1001);
    dw_tcpopt_rx_del(rx);
}

/* 3.1.7: a solicited RID nobody registered is refused; on_unknown may register. */
static void test_unknown_rid(void)
{
    fill(orig, 1000, 4);
    dw_tcpopt_rx *rx = mk(NULL, orig);
    dw_tcpopt o = O(5, 0, 0, 0, 100, 100);
    feed_at(rx, 0, orig, 0, 100, &o, 0);
    CHECK(refused_with(0, DW_TCPOPT_R_UNKNOWN_RID, 100));
    o = O(0x77, 0, 0, 10, 80, 80);
    feed_at(rx, 0, orig, 100, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 1);
    CHECK(memcmp(lazy_buf, orig + 110, 80) == 0);
    o = O(6, 1, 0, 0, 100, 100); /* unsolicited: the pool */
    feed_at(rx, 0, orig, 200, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 2);
    CHECK(R.done[1].unsolicited);
    CHECK(memcmp(R.done_data[1], orig + 200, 100) == 0);
    static const dw_tcpopt_range rg[] = {{110, 80}, {200, 100}};
    CHECK(stream_exact(300, rg, 2));
    CHECK_EQ_U(R.nrefused, 1);
    dw_tcpopt_rx_del(rx);
}

/* 6.1 quotas on the number and size of unsolicited transfers. */
static void test_quotas(void)
{
    fill(orig, 8000, 5);
    dw_tcpopt_rx_settings rs;
    dw_tcpopt_rx_settings_default(&rs);
    rs.unsol_count = 2;
    rs.unsol_size = 1000;
    dw_tcpopt_rx *rx = mk(&rs, orig);
    dw_tcpopt o = O(10, 1, 0, 0, 100, 500);
    feed_at(rx, 0, orig, 0, 100, &o, 0);
    o = O(11, 1, 900, 0, 100, 1000); /* the slot's last octets */
    feed_at(rx, 0, orig, 100, 100, &o, 0);
    o = O(12, 1, 0, 0, 100, 100);
    feed_at(rx, 0, orig, 200, 100, &o, 0);
    CHECK(refused_with(0, DW_TCPOPT_R_UNSOL_COUNT, 100));
    o = O(11, 1, 990, 0, 20, 1000); /* past its slot (into the next) */
    feed_at(rx, 0, orig, 300, 100, &o, 0);
    CHECK(refused_with(1, DW_TCPOPT_R_UNSOL_SIZE, 20));
    dw_tcpopt_rx_xfer a, b;
    CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, 10, &a), 0);
    CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, 11, &b), 0);
    CHECK(a.unsolicited && b.unsolicited && a.buf_len == 1000);
    CHECK(a.buf + 1000 == b.buf || b.buf + 1000 == a.buf);
    CHECK(memcmp(a.buf, orig, 100) == 0);
    CHECK(memcmp(b.buf + 900, orig + 100, 100) == 0);
    CHECK_EQ_U(b.refused, 20);
    o = O(10, 1, 100, 0, 400, 500); /* completes 10: its slot is free again */
    feed_at(rx, 0, orig, 400, 400, &o, 0);
    CHECK_EQ_U(R.ncomplete, 1);
    CHECK(memcmp(R.done_data[0], orig, 100) == 0);
    CHECK(memcmp(R.done_data[0] + 100, orig + 400, 400) == 0);
    o = O(12, 1, 50, 0, 100, 100); /* slot of 10 again: zeroed, no old octet */
    feed_at(rx, 0, orig, 800, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 2);
    CHECK_EQ_U(R.done[1].extent, 150);
    for (int k = 0; k < 50; k++)
        CHECK(R.done_data[1][k] == 0);
    CHECK(memcmp(R.done_data[1] + 50, orig + 800, 100) == 0);
    o = O(13, 1, 0, 0, 100, 1001); /* total over the size quota */
    feed_at(rx, 0, orig, 900, 100, &o, 0);
    CHECK(refused_with(2, DW_TCPOPT_R_UNSOL_SIZE, 100));
    CHECK_EQ_U(dw_tcpopt_rx_release(rx, 11), 0); /* a stuck one, let go */
    CHECK_EQ_U(dw_tcpopt_rx_release(rx, 11), DW_ERR_INVAL);
    o = O(14, 1, 0, 0, 100, 100);
    feed_at(rx, 0, orig, 1000, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 3);
    CHECK_EQ_U(R.nrefused, 3);
    dw_tcpopt_rx_del(rx);
    /* no pool at all */
    rs.unsol_count = 0;
    rx = mk(&rs, orig);
    o = O(10, 1, 0, 0, 100, 100);
    feed_at(rx, 0, orig, 0, 100, &o, 0);
    CHECK(refused_with(0, DW_TCPOPT_R_UNSOL_COUNT, 100));
    dw_tcpopt_rx_del(rx);
}

/* 3.1.3/3.1.4/5.1.2: zero-length transfers complete on arrival, once. */
static void test_zero_length(void)
{
    fill(orig, 1000, 6);
    dw_tcpopt_rx *rx = mk(NULL, orig);
    uint8_t one;
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 3, NULL, 0), 0);
    dw_tcpopt o = O(3, 0, 0, 50, 0, 0); /* mid-segment */
    R.reregister = 1;
    R.rebuf = &one;
    feed_at(rx, 0, orig, 0, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 1);
    CHECK_EQ_U(R.done[0].placed, 0);
    CHECK_EQ_U(R.done[0].total_known, 1);
    CHECK_EQ_U(R.reregister, 2); /* registered again from on_complete */
    feed_at(rx, 0, orig, 0, 100, &o, 0); /* a retransmission: not again */
    CHECK_EQ_U(R.ncomplete, 1);
    o = O(8, 1, 0, 100, 0, 0); /* unsolicited, at the payload's end (3.1.2) */
    feed_at(rx, 0, orig, 100, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 2);
    CHECK(R.done[1].unsolicited);
    CHECK_EQ_U(R.done[1].extent, 0);
    o = O(99, 0, 0, 0, 0, -1); /* 16 octets, nothing said: no refusal */
    feed_at(rx, 0, orig, 200, 100, &o, 0);
    CHECK_EQ_U(R.ncomplete, 2);
    CHECK_EQ_U(R.nrefused, 0);
    CHECK(stream_exact(300, NULL, 0));
    dw_tcpopt_rx_del(rx);
}

/* 3.1.4: one total per transfer; completion at the total, not before. */
static void test_total(void)
{
    fill(orig, 8000, 8);
    guard_init();
    dw_tcpopt_rx *rx = mk(NULL, orig);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 4, BUF(0), 3000), 0);
    dw_tcpopt o = O(4, 0, 0, 0, 1000, 2000);
    feed_at(rx, 0, orig, 0, 1000, &o, 0);
    dw_tcpopt_rx_xfer xi;
    CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, 4, &xi), 0);
    CHECK(xi.total_known && xi.total == 2000 && xi.placed == 1000);
    o = O(4, 0, 1000, 0, 500, 2500);
    feed_at(rx, 0, orig, 1000, 500, &o, 0);
    CHECK(refused_with(0, DW_TCPOPT_R_TOTAL_CHANGED, 500));
    o = O(4, 0, 1000, 0, 1000, -1); /* 16 octets: no total, fine */
    feed_at(rx, 0, orig, 1500, 1000, &o, 0);
    CHECK_EQ_U(R.ncomplete, 1);
    CHECK(memcmp(BUF(0), orig, 1000) == 0);
    CHECK(memcmp(BUF(0) + 1000, orig + 1500, 1000) == 0);
    for (size_t k = 2000; k < 3000; k++)
        CHECK(BUF(0)[k] == GB);
    /* more octets than the total announced later */
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 5, BUF(1), 3000), 0);
    o = O(5, 0, 0, 0, 1500, -1);
    feed_at(rx, 0, orig, 2500, 1500, &o, 0);
    o = O(5, 0, 1500, 0, 10, 1000);
    feed_at(rx, 0, orig, 4000, 10, &o, 0);
    CHECK(refused_with(1, DW_TCPOPT_R_TOTAL_EXCEEDED, 10));
    CHECK(BUF(1)[1500] == GB);
    CHECK(guards_ok(0, 3000) && guards_ok(1, 3000));
    static const dw_tcpopt_range rg[] = {{0, 1000}, {1500, 2500}};
    CHECK(stream_exact(4010, rg, 2));
    dw_tcpopt_rx_del(rx);
}

/* 3.1.6: the A bit, once per message start, when its octet first arrives. */
static void test_a_bit(void)
{
    fill(orig, 1000, 9);
    dw_tcpopt_rx *rx = mk(NULL, orig);
    dw_tcpopt a4 = {4, 1, 0, 0, 0, 0, 0, 0};
    feed_at(rx, 0, orig, 300, 100, &a4, 0); /* out of order: reported now */
    CHECK_EQ_U(R.nmsg, 1);
    CHECK_EQ_U(R.msg[0], 300);
    CHECK_EQ_U(R.stream_end, 0);
    feed_at(rx, 0, orig, 300, 100, &a4, 0); /* duplicate */
    feed_at(rx, 0, orig, 250, 100, &a4, 0); /* its octet 250 is new */
    CHECK_EQ_U(R.nmsg, 2);
    CHECK_EQ_U(R.msg[1], 250);
    feed_at(rx, 0, orig, 0, 100, &a4, 4); /* after a NOP word: aligned */
    CHECK_EQ_U(R.nmsg, 3);
    feed_at(rx, 0, orig, 50, 100, &a4, 0); /* octet 50 was received */
    CHECK_EQ_U(R.nmsg, 3);
    feed_at(rx, 0, orig, 150, 100, &a4, 2); /* misaligned: refused, no A */
    CHECK_EQ_U(R.nmsg, 3);
    CHECK(refused_with(0, DW_TCPOPT_R_MISALIGNED, 0));
    CHECK(stream_exact(400, NULL, 0));
    dw_tcpopt_rx_del(rx);
}

/* 3.1.2, 3.1.3, 3.1.8, 3.3, 3.2: a broken option puts the whole payload
 * in the stream; options that are not ours change nothing. */
static void test_rules(void)
{
    fill(orig, 2000, 10);
    guard_init();
    dw_tcpopt_rx *rx = mk(NULL, orig);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 1, BUF(0), 1000), 0);
    dw_tcpopt o = O(1, 0, 0, 10, 50, 50);
    feed_at(rx, 0, orig, 0, 100, &o, 2);
    CHECK(refused_with(0, DW_TCPOPT_R_MISALIGNED, 50));
    o = O(1, 0, 0, 101, 0, 50);
    feed_at(rx, 0, orig, 100, 100, &o, 0);
    CHECK(refused_with(1, DW_TCPOPT_R_DATA_OFFSET, 0));
    o = O(1, 0, 0, 60, 50, 50);
    feed_at(rx, 0, orig, 200, 100, &o, 0);
    CHECK(refused_with(2, DW_TCPOPT_R_DATA_LENGTH, 40));
    static const uint8_t bad[] = {1, 1, 25, 1}, foreign[] = {25, 6, 0, 0, 0, 0, 1, 1},
                         neg[] = {25, 2, 1, 1};
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 300, bad, 4, orig + 300, 100), 0);
    CHECK(refused_with(3, DW_TCPOPT_R_OPTIONS_MALFORMED, 0));
    CHECK_EQ_U(R.ref[3].opt.len, 0);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 400, foreign, 8, orig + 400, 100), 0);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 500, neg, 4, orig + 500, 100), 0);
    CHECK_EQ_U(R.nrefused, 4);
    for (size_t k = 0; k < 1000; k++)
        CHECK(BUF(0)[k] == GB);
    /* 3.3: only the first RDMA option counts */
    uint8_t two[40];
    dw_tcpopt first = O(1, 0, 0, 0, 100, 100), second = O(2, 1, 0, 0, 50, 50);
    CHECK_EQ_U(dw_tcpopt_encode(two, 20, &first), 20);
    CHECK_EQ_U(dw_tcpopt_encode(two + 20, 20, &second), 20);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 600, two, 40, orig + 600, 100), 0);
    CHECK_EQ_U(R.ncomplete, 1);
    CHECK_EQ_U(R.done[0].rid, 1);
    CHECK(memcmp(BUF(0), orig + 600, 100) == 0);
    CHECK(guards_ok(0, 1000));
    static const dw_tcpopt_range rg[] = {{600, 100}};
    CHECK(stream_exact(700, rg, 1));
    dw_tcpopt_rx_del(rx);
}

/* The store's window: octets past it are dropped, taken on retransmission. */
static void test_window(void)
{
    static const dw_tcpopt_range rg[] = {{1000, 8000}};
    fill(orig, 10000, 11);
    dw_tcpopt_rx_settings rs;
    dw_tcpopt_rx_settings_default(&rs);
    rs.store = 4000; /* rounded up to 4096 */
    guard_init();
    dw_tcpopt_rx *rx = mk(&rs, orig);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 2, BUF(0), 8000), 0);
    for (int pass = 0; pass < 3; pass++)
        for (int i = pass ? 0 : 1; i < 10; i++) {
            uint64_t off = (uint64_t)i * 1000;
            dw_tcpopt o = O(2, 0, (uint32_t)(off - 1000), 0, 1000, 8000), none = {0};
            feed_at(rx, 0, orig, off, 1000, i && i < 9 ? &o : &none, 0);
        }
    dw_tcpopt_rx_stats st;
    dw_tcpopt_rx_get_stats(rx, &st);
    CHECK(st.beyond > 0);
    CHECK_EQ_U(st.next, 10000);
    CHECK_EQ_U(R.ncomplete, 1);
    CHECK(memcmp(BUF(0), orig + 1000, 8000) == 0);
    CHECK(guards_ok(0, 8000));
    CHECK(stream_exact(10000, rg, 1));
    dw_tcpopt_rx_del(rx);
}

/* Section 5's zero bits, checked on receive when a format is set. */
static void test_rid_format(void)
{
    static const struct {
        dw_tcpopt_rid_format f;
        unsigned ver;
        uint64_t rid;
        dw_tcpopt_reason r;
    } v[] = {
        {DW_TCPOPT_RID_NFS, 4, 1ULL << 40 | 5, DW_TCPOPT_R_RID_ZERO_BITS},
        {DW_TCPOPT_RID_NFS, 3, 1ULL << 32 | 5, DW_TCPOPT_R_NFS_OPERATION},
        {DW_TCPOPT_RID_NFS, 4, 1ULL << 32 | 5, DW_TCPOPT_R_OK},
        {DW_TCPOPT_RID_HTTP, 0, 1ULL << 32, DW_TCPOPT_R_RID_ZERO_BITS},
        {DW_TCPOPT_RID_HTTP, 0, 0xffffffffULL, DW_TCPOPT_R_OK},
        {DW_TCPOPT_RID_CIFS, 0, 1ULL << 45, DW_TCPOPT_R_RID_ZERO_BITS},
        {DW_TCPOPT_RID_CIFS, 0, 0xffffffffffULL, DW_TCPOPT_R_OK},
        {DW_TCPOPT_RID_ANY, 0, DW_TCPOPT_RID_MAX, DW_TCPOPT_R_OK},
    };
    fill(orig, 100, 12);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        DW_CASE_HERE("v[%zu]", i);
        dw_tcpopt_rx_settings rs;
        dw_tcpopt_rx_settings_default(&rs);
        rs.rid_format = v[i].f;
        rs.nfs_version = v[i].ver;
        dw_tcpopt_rx *rx = mk(&rs, orig);
        CHECK_EQ_U(dw_tcpopt_rx_register(rx, v[i].rid, BUF(0), 100), 0);
        dw_tcpopt o = O(v[i].rid, 0, 0, 0, 100, 100);
        feed_at(rx, 0, orig, 0, 100, &o, 0);
        if (v[i].r)
            CHECK(refused_with(0, v[i].r, 100));
        else
            CHECK_EQ_U(R.ncomplete, 1);
        dw_tcpopt_rx_del(rx);
    }
}

static void test_api(void)
{
    dw_tcpopt_rx *rx = NULL;
    dw_tcpopt_rx_callbacks none = {0};
    dw_tcpopt_rx_settings rs;
    dw_tcpopt_rx_settings_default(&rs);
    CHECK_EQ_U(rs.store, 256u << 10);
    CHECK_EQ_U(dw_tcpopt_rx_new(&rx, NULL, &none, NULL), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_new(&rx, NULL, NULL, NULL), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_new(NULL, NULL, &CB, NULL), DW_ERR_INVAL);
    rs.store = 0;
    CHECK_EQ_U(dw_tcpopt_rx_new(&rx, &rs, &CB, NULL), DW_ERR_INVAL);
    rs.store = (1u << 30) + 1;
    CHECK_EQ_U(dw_tcpopt_rx_new(&rx, &rs, &CB, NULL), DW_ERR_INVAL);
    rs.store = 1;
    rs.rid_format = (dw_tcpopt_rid_format)9;
    CHECK_EQ_U(dw_tcpopt_rx_new(&rx, &rs, &CB, NULL), DW_ERR_INVAL);
    rs.rid_format = DW_TCPOPT_RID_ANY;
    rs.max_buffers = 2;
    rx = mk(&rs, NULL);
    uint8_t b[4];
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, DW_TCPOPT_RID_MAX + 1, b, 4), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 1, NULL, 4), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 1, b, 4), 0);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 1, b, 4), DW_ERR_STATE);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, DW_TCPOPT_RID_MAX, b, 4), 0);
    CHECK_EQ_U(dw_tcpopt_rx_register(rx, 3, b, 4), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_tcpopt_rx_release(rx, 3), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_release(NULL, 3), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_transfer(rx, 1, NULL), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 0, NULL, 0, NULL, 1), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 0, NULL, 1, b, 1), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_segment(NULL, 0, NULL, 0, NULL, 0), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 0, NULL, 0, b, (1u << 30) + 1), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 0, NULL, 0, NULL, 0), 0);
    /* a store of 1 octet (64 in fact) still streams */
    CHECK_EQ_U(dw_tcpopt_rx_segment(rx, 0, NULL, 0, b, 4), 0);
    CHECK_EQ_U(R.stream_end, 4);
    dw_tcpopt_rx_del(rx);
    dw_tcpopt_rx_del(NULL);
    CHECK(strcmp(dw_tcpopt_reason_name(DW_TCPOPT_R_UNSOL_SIZE), "DW_TCPOPT_R_UNSOL_SIZE") == 0);
    CHECK(strstr(dw_tcpopt_reason_str(DW_TCPOPT_R_BUFFER_BOUNDS), "6.1") != NULL);
}

int main(void)
{
    RUN(test_section4);
    RUN(test_any_order);
    RUN(test_wrap_exact);
    RUN(test_bounds);
    RUN(test_unknown_rid);
    RUN(test_quotas);
    RUN(test_zero_length);
    RUN(test_total);
    RUN(test_a_bit);
    RUN(test_rules);
    RUN(test_window);
    RUN(test_rid_format);
    RUN(test_api);
    return dw_test_finish();
}
