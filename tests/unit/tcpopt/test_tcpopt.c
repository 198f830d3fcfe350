/* SPDX-License-Identifier: MIT */
/*
 * TCP RDMA option codec: octets hand-built from the figure of 3.1 and the
 * octet order of 3.1.1, "not ours" lengths, truncation, the options-area
 * walker (3.3), every receive rule of 3.1.2-3.1.8 failing and passing, the
 * RID formats of section 5, and random round trips.
 */
#include <ddpwire/tcpopt.h>

#include "test.h"

static size_t hex(uint8_t *out, const char *s)
{
    size_t n = 0;
    unsigned v;
    int k;
    while (sscanf(s, " %2x%n", &v, &k) == 1) {
        out[n++] = (uint8_t)v;
        s += k;
    }
    return n;
}

static int same(const dw_tcpopt *a, const dw_tcpopt *b)
{
    return a->len == b->len && a->a == b->a && a->u == b->u && a->rid == b->rid &&
           a->buffer_offset == b->buffer_offset && a->data_offset == b->data_offset &&
           a->data_length == b->data_length && a->total_length == b->total_length;
}

typedef struct vec {
    const char *octets;
    dw_tcpopt opt;
} vec;

/* Fields: len, A, U, RID, buffer offset, data offset, data length, total. */
static const vec vecs[] = {
    /* octet 2: A (bit 7) | RID 45..40 = 0x12; octet 3 RID 39..32 = 0x34 */
    {"19 14 92 34 56 78 9a bc 01 02 03 04 05 06 07 08 09 0a 0b 0c",
     {20, 1, 0, 0x123456789abcULL, 0x01020304, 0x0506, 0x0708, 0x090a0b0c}},
    /* U (bit 6) | all 46 RID bits */
    {"19 10 7f ff ff ff ff ff ff ff ff fe 00 64 03 84",
     {16, 0, 1, 0x3fffffffffffULL, 0xfffffffe, 100, 900, 0}},
    /* 3.1.1: RID bits 0-7 in octet 7 */
    {"19 14 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00",
     {20, 0, 0, 1, 0, 0, 0, 0}},
    /* RID bit 40 is bit 0 of octet 2; bit 45 is bit 5 */
    {"19 10 01 00 00 00 00 00 00 00 00 00 00 00 00 00",
     {16, 0, 0, 1ULL << 40, 0, 0, 0, 0}},
    {"19 10 20 00 00 00 00 00 00 00 00 00 00 00 00 00",
     {16, 0, 0, 1ULL << 45, 0, 0, 0, 0}},
    /* RID bit 32 is bit 0 of octet 3; bit 31 is bit 7 of octet 4 */
    {"19 10 00 01 80 00 00 00 00 00 00 00 00 00 00 00",
     {16, 0, 0, 1ULL << 32 | 1ULL << 31, 0, 0, 0, 0}},
    /* section 4, first table, segment 4, with the total (4000) */
    {"19 14 00 00 00 00 00 07 00 00 07 d0 00 64 03 84 00 00 0f a0",
     {20, 0, 0, 7, 2000, 100, 900, 4000}},
    /* 3.1.6: the 4-octet option, message aligned only */
    {"19 04 80 00", {4, 1, 0, 0, 0, 0, 0, 0}},
    {"19 04 c0 00", {4, 1, 1, 0, 0, 0, 0, 0}},
    /* a sender's stray RID bits in octets 2-3 are kept, for re-encoding */
    {"19 04 41 02", {4, 0, 1, 0x0102ULL << 32, 0, 0, 0, 0}},
    /* 3.2: negotiation */
    {"19 02", {2, 0, 0, 0, 0, 0, 0, 0}},
    /* 3.1.3, 3.1.4: zero data length and zero total are valid */
    {"19 14 00 00 ca fe ba be 00 00 00 00 00 10 00 00 00 00 00 00",
     {20, 0, 0, 0xcafebabe, 0, 16, 0, 0}},
};

static void test_vectors(void)
{
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
        DW_CASE_HERE("vecs[%zu]", i);
        uint8_t w[32], out[32];
        size_t n = hex(w, vecs[i].octets);
        CHECK_EQ_U(n, vecs[i].opt.len);
        dw_tcpopt o;
        memset(&o, 0xa5, sizeof o);
        CHECK_EQ_U(dw_tcpopt_decode(&o, w, n), n);
        CHECK(same(&o, &vecs[i].opt));
        memset(out, 0xee, sizeof out);
        CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &vecs[i].opt), n);
        CHECK(memcmp(out, w, n) == 0);
        CHECK_EQ_U(out[n], 0xee); /* nothing written past the option */
        CHECK_EQ_U(dw_tcpopt_encode(out, n - 1, &vecs[i].opt), DW_ERR_NOSPACE);
        /* longer input: only the option is consumed */
        w[n] = 1;
        CHECK_EQ_U(dw_tcpopt_decode(&o, w, n + 1), n);
    }
}

/* Kind 25 with any other length is somebody else's option (specs README). */
static void test_not_ours(void)
{
    uint8_t w[300];
    dw_tcpopt o, sentinel;
    memset(&sentinel, 0x5a, sizeof sentinel);
    unsigned ours = 0;
    for (unsigned len = 0; len < 256; len++) {
        memset(w, 0x77, sizeof w);
        w[0] = 25;
        w[1] = (uint8_t)len;
        o = sentinel;
        ssize_t r = dw_tcpopt_decode(&o, w, sizeof w);
        int mine = len == 2 || len == 4 || len == 16 || len == 20;
        ours += mine;
        CHECK_EQ_U(r, mine ? len : 0);
        if (!mine)
            CHECK(memcmp(&o, &sentinel, sizeof o) == 0);
        /* truncated to exactly the declared length: still not ours */
        if (!mine && len >= 2)
            CHECK_EQ_U(dw_tcpopt_decode(&o, w, len), 0);
    }
    CHECK_EQ_U(ours, 4);
    /* 26 and 27, as other software sends them, specifically */
    static const char *const other[] = {
        "19 1a 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17",
        "19 1b 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18"};
    for (int i = 0; i < 2; i++) {
        size_t n = hex(w, other[i]);
        CHECK_EQ_U(n, 26u + (unsigned)i);
        CHECK_EQ_U(dw_tcpopt_decode(&o, w, n), 0);
        dw_tcpopt_found f;
        CHECK_EQ_U(dw_tcpopt_find(&f, w, n), 0);
        CHECK_EQ_U(f.foreign, 1);
        CHECK_EQ_U(f.count, 0);
        dw_tcpopt_reason why = DW_TCPOPT_R_MISALIGNED;
        CHECK_EQ_U(dw_tcpopt_parse(&f, &why, w, n, 1000), 0); /* segment stays fine */
        CHECK_EQ_U(why, DW_TCPOPT_R_OK);
    }
    /* other kinds */
    w[0] = 2, w[1] = 4; /* MSS */
    CHECK_EQ_U(dw_tcpopt_decode(&o, w, 4), 0);
    w[0] = 24, w[1] = 16;
    CHECK_EQ_U(dw_tcpopt_decode(&o, w, 16), 0);
    w[0] = 26, w[1] = 20;
    CHECK_EQ_U(dw_tcpopt_decode(&o, w, 20), 0);
}

static void test_truncated(void)
{
    uint8_t w[32] = {25};
    static const unsigned lens[] = {2, 4, 16, 20};
    dw_tcpopt o;
    for (int i = 0; i < 4; i++) {
        w[1] = (uint8_t)lens[i];
        for (size_t k = 0; k < lens[i]; k++)
            CHECK_EQ_U(dw_tcpopt_decode(&o, w, k), DW_ERR_NEED_MORE);
        CHECK_EQ_U(dw_tcpopt_decode(&o, w, lens[i]), lens[i]);
        /* in an options area that ends early, the list is malformed */
        dw_tcpopt_found f;
        for (size_t k = 1; k < lens[i]; k++)
            CHECK_EQ_U(dw_tcpopt_find(&f, w, k), DW_ERR_MALFORMED);
    }
    CHECK_EQ_U(dw_tcpopt_decode(NULL, w, 4), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_decode(&o, NULL, 4), DW_ERR_INVAL);
}

static void test_encode_invalid(void)
{
    uint8_t out[32];
    dw_tcpopt o = {20, 0, 0, DW_TCPOPT_RID_MAX + 1, 0, 0, 0, 0};
    CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &o), DW_ERR_INVAL);
    o.rid = DW_TCPOPT_RID_MAX;
    CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &o), 20);
    o.a = 2;
    CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &o), DW_ERR_INVAL);
    o.a = 0, o.u = 2;
    CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &o), DW_ERR_INVAL);
    for (unsigned len = 0; len < 64; len++) {
        dw_tcpopt z = {(uint8_t)len, 0, 0, 0, 0, 0, 0, 0};
        int mine = len == 2 || len == 4 || len == 16 || len == 20;
        CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &z), mine ? (ssize_t)len : DW_ERR_INVAL);
    }
    /* a field the length does not carry */
    const dw_tcpopt bad[] = {
        {2, 1, 0, 0, 0, 0, 0, 0}, {2, 0, 1, 0, 0, 0, 0, 0}, {2, 0, 0, 1ULL << 32, 0, 0, 0, 0},
        {4, 0, 0, 1, 0, 0, 0, 0}, {4, 0, 0, 0, 1, 0, 0, 0}, {4, 0, 0, 0, 0, 1, 0, 0},
        {4, 0, 0, 0, 0, 0, 1, 0}, {16, 0, 0, 0, 0, 0, 0, 1}, {4, 0, 0, 0, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &bad[i]), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_encode(NULL, 32, &o), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_encode(out, 32, NULL), DW_ERR_INVAL);
}

/* A realistic area: NOP, NOP, timestamps (kind 8, 10 octets), the option. */
static void test_find(void)
{
    uint8_t a[40];
    size_t n = hex(a, "01 01 08 0a 00 00 00 01 00 00 00 02"
                      " 19 10 00 00 00 00 00 2a 00 00 00 00 00 00 00 08");
    dw_tcpopt_found f;
    CHECK_EQ_U(dw_tcpopt_find(&f, a, n), 1);
    CHECK_EQ_U(f.offset, 12);
    CHECK_EQ_U(f.count, 1);
    CHECK_EQ_U(f.foreign, 0);
    CHECK_EQ_U(f.opt.rid, 42);
    CHECK_EQ_U(f.opt.data_length, 8);
    /* EOL ends the list: what follows it is padding, never an option */
    uint8_t e[20];
    size_t m = hex(e, "01 00 19 10 00 00 00 00 00 2a 00 00 00 00 00 00 00 08");
    CHECK_EQ_U(dw_tcpopt_find(&f, e, m), 0);
    CHECK_EQ_U(f.count, 0);
    CHECK_EQ_U(dw_tcpopt_find(&f, e, 0), 0);
    CHECK_EQ_U(dw_tcpopt_find(&f, NULL, 0), 0);
    CHECK_EQ_U(dw_tcpopt_find(NULL, e, m), DW_ERR_INVAL);
    /* a foreign kind-25 option (27 octets) is skipped, ours after it found */
    uint8_t g[60];
    size_t k = hex(g, "19 1b 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18"
                      " 01 19 04 80 00");
    CHECK_EQ_U(dw_tcpopt_find(&f, g, k), 1);
    CHECK_EQ_U(f.foreign, 1);
    CHECK_EQ_U(f.offset, 28);
    CHECK_EQ_U(f.opt.len, 4);
    CHECK_EQ_U(f.opt.a, 1);
}

/* Option lists that cannot be walked. */
static void test_malformed_lists(void)
{
    static const char *const bad[] = {
        "02",                /* a kind without its length */
        "02 01",             /* length below 2 */
        "02 00 00 00",       /* length 0 */
        "19 00 00 00",       /* kind 25, length 0: cannot be skipped */
        "19 01 00 00",       /* kind 25, length 1 */
        "01 01 19 14 00 00", /* length past the area */
        "08 0a 00 00 00 01", /* timestamps cut short */
        "19 1a 00 00",       /* a foreign length past the area */
        "19 04 80 00 03",    /* a window scale without its length */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        DW_CASE_HERE("bad[%zu]", i);
        uint8_t a[40];
        size_t n = hex(a, bad[i]);
        dw_tcpopt_found f;
        dw_tcpopt_reason why;
        CHECK_EQ_U(dw_tcpopt_find(&f, a, n), DW_ERR_MALFORMED);
        CHECK_EQ_U(dw_tcpopt_parse(&f, &why, a, n, 100), DW_ERR_MALFORMED);
        CHECK_EQ_U(why, DW_TCPOPT_R_OPTIONS_MALFORMED);
    }
}

/* 3.3: only the first RDMA option counts. */
static void test_multiple(void)
{
    uint8_t a[40];
    /* the first is valid, the second describes data past the payload */
    size_t n = hex(a, "19 10 00 00 00 00 00 01 00 00 00 00 00 00 00 04"
                      " 19 10 00 00 00 00 00 02 00 00 00 00 00 00 ff ff");
    dw_tcpopt_found f;
    dw_tcpopt_reason why;
    CHECK_EQ_U(dw_tcpopt_parse(&f, &why, a, n, 4), 1);
    CHECK_EQ_U(why, DW_TCPOPT_R_OK);
    CHECK_EQ_U(f.count, 2);
    CHECK_EQ_U(f.opt.rid, 1);
    CHECK_EQ_U(f.offset, 0);
    /* swapped: the invalid first one is not rescued by the valid second */
    uint8_t b[40];
    memcpy(b, a + 16, 16);
    memcpy(b + 16, a, 16);
    CHECK_EQ_U(dw_tcpopt_parse(&f, &why, b, n, 4), DW_ERR_MALFORMED);
    CHECK_EQ_U(why, DW_TCPOPT_R_DATA_LENGTH);
    CHECK_EQ_U(f.opt.rid, 2);
    CHECK_EQ_U(f.count, 2);
}

/* Parses area "pre" + option o, returns the reason. */
static dw_tcpopt_reason parse_one(const dw_tcpopt *o, size_t pad, size_t payload)
{
    uint8_t a[40];
    memset(a, 1, pad); /* NOPs */
    ssize_t n = dw_tcpopt_encode(a + pad, sizeof a - pad, o);
    CHECK(n > 0);
    dw_tcpopt_found f;
    dw_tcpopt_reason why = DW_TCPOPT_R_RID_RANGE;
    int rc = dw_tcpopt_parse(&f, &why, a, pad + (size_t)n, payload);
    CHECK_EQ_U(rc, why == DW_TCPOPT_R_OK ? 1 : DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_tcpopt_check(o, pad, payload), why);
    return why;
}

/* 3.1.2, 3.1.3, 3.1.8 and the total of 3.1.4: each fails and passes. */
static void test_rules(void)
{
    dw_tcpopt o = {16, 0, 0, 9, 0, 100, 900, 0};
    /* 3.1.8: 4-octet boundary relative to the TCP header */
    CHECK_EQ_U(parse_one(&o, 0, 1000), DW_TCPOPT_R_OK);
    CHECK_EQ_U(parse_one(&o, 4, 1000), DW_TCPOPT_R_OK);
    for (size_t pad = 1; pad < 4; pad++)
        CHECK_EQ_U(parse_one(&o, pad, 1000), DW_TCPOPT_R_MISALIGNED);
    dw_tcpopt two = {2, 0, 0, 0, 0, 0, 0, 0}, four = {4, 1, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_U(parse_one(&two, 2, 0), DW_TCPOPT_R_MISALIGNED);
    CHECK_EQ_U(parse_one(&two, 8, 0), DW_TCPOPT_R_OK);
    CHECK_EQ_U(parse_one(&four, 3, 10), DW_TCPOPT_R_MISALIGNED);
    CHECK_EQ_U(parse_one(&four, 0, 10), DW_TCPOPT_R_OK);
    /* 3.1.2: data offset may equal the payload length, not exceed it */
    o.data_length = 0;
    o.data_offset = 1000;
    CHECK_EQ_U(parse_one(&o, 0, 1000), DW_TCPOPT_R_OK);
    o.data_offset = 1001;
    CHECK_EQ_U(parse_one(&o, 0, 1000), DW_TCPOPT_R_DATA_OFFSET);
    o.data_offset = 0;
    CHECK_EQ_U(parse_one(&o, 0, 0), DW_TCPOPT_R_OK); /* empty payload, empty data */
    o.data_offset = 1;
    CHECK_EQ_U(parse_one(&o, 0, 0), DW_TCPOPT_R_DATA_OFFSET);
    /* 3.1.3: the described bytes end inside the segment */
    o.data_offset = 100, o.data_length = 900;
    CHECK_EQ_U(parse_one(&o, 0, 1000), DW_TCPOPT_R_OK);
    o.data_length = 901;
    CHECK_EQ_U(parse_one(&o, 0, 1000), DW_TCPOPT_R_DATA_LENGTH);
    o.data_offset = 0xffff, o.data_length = 0xffff; /* no 16-bit wrap */
    CHECK_EQ_U(parse_one(&o, 0, 0xffff), DW_TCPOPT_R_DATA_LENGTH);
    CHECK_EQ_U(parse_one(&o, 0, 0x1fffe), DW_TCPOPT_R_OK);
    /* the buffer offset and total are not this check's business (6.1) */
    dw_tcpopt t = {20, 0, 0, 9, 0xffffffff, 0, 100, 4000};
    CHECK_EQ_U(parse_one(&t, 0, 100), DW_TCPOPT_R_OK);
    t.buffer_offset = 0, t.data_length = 0, t.total_length = 0; /* zero-length transfer */
    CHECK_EQ_U(parse_one(&t, 0, 100), DW_TCPOPT_R_OK);
    /* without a total, the buffer offset is the receiver's to bound */
    o.buffer_offset = 0xffffffff, o.data_offset = 0, o.data_length = 100;
    CHECK_EQ_U(parse_one(&o, 0, 100), DW_TCPOPT_R_OK);
}

/* 3.1.4: the total stays the same across the transfer. */
static void test_total(void)
{
    dw_tcpopt_total t;
    dw_tcpopt a = {16, 0, 0, 5, 0, 0, 1000, 0};
    dw_tcpopt_total_init(&t, 5);
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &a), DW_TCPOPT_R_OK); /* nothing known */
    CHECK_EQ_U(t.known, 0);
    dw_tcpopt b = {20, 0, 0, 5, 1000, 0, 1000, 4000};
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &b), DW_TCPOPT_R_OK);
    CHECK_EQ_U(t.known, 1);
    CHECK_EQ_U(t.total, 4000);
    b.total_length = 4001;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &b), DW_TCPOPT_R_TOTAL_CHANGED);
    b.total_length = 3999;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &b), DW_TCPOPT_R_TOTAL_CHANGED);
    b.total_length = 0;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &b), DW_TCPOPT_R_TOTAL_CHANGED);
    CHECK_EQ_U(t.total, 4000); /* a refused option teaches nothing */
    b.total_length = 4000;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &b), DW_TCPOPT_R_OK);
    /* "when present": a 16-octet option after the total is fine */
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &a), DW_TCPOPT_R_OK);
    a.rid = 6;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &a), DW_TCPOPT_R_WRONG_RID);
    b.rid = 6;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &b), DW_TCPOPT_R_WRONG_RID);
    /* lengths 2 and 4 describe no data */
    dw_tcpopt four = {4, 1, 0, 0, 0, 0, 0, 0};
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &four), DW_TCPOPT_R_OK);
    /* a zero total is a total like any other */
    dw_tcpopt_total_init(&t, 5);
    dw_tcpopt z = {20, 0, 0, 5, 0, 0, 0, 0};
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &z), DW_TCPOPT_R_OK);
    CHECK_EQ_U(t.known, 1);
    z.total_length = 1;
    CHECK_EQ_U(dw_tcpopt_total_check(&t, &z), DW_TCPOPT_R_TOTAL_CHANGED);
}

static void test_rid_nfs(void)
{
    uint64_t rid = 0;
    dw_tcpopt_rid_nfs f = {0xdeadbeef, 2}, g;
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(&rid, &f, 4), 0);
    CHECK_EQ_U(rid, 0x02deadbeefULL); /* 5.1.1: op in 39..32, XID in 31..0 */
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(&rid, &f, 0), 0);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(&rid, &f, 3), DW_ERR_INVAL); /* 5.1.1.2 */
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(&rid, &f, 2), DW_ERR_INVAL);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_decode(&g, 0x02deadbeefULL, 4), DW_TCPOPT_R_OK);
    CHECK_EQ_U(g.xid, 0xdeadbeef);
    CHECK_EQ_U(g.op, 2);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_decode(&g, 0x02deadbeefULL, 3), DW_TCPOPT_R_NFS_OPERATION);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_decode(&g, 0x02deadbeefULL, 2), DW_TCPOPT_R_NFS_OPERATION);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_decode(&g, 0xdeadbeefULL, 3), DW_TCPOPT_R_OK);
    f.op = 0;
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(&rid, &f, 3), 0);
    CHECK_EQ_U(rid, 0xdeadbeefULL);
    f = (dw_tcpopt_rid_nfs){0xffffffff, 0xff};
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(&rid, &f, 4), 0);
    CHECK_EQ_U(rid, 0xffffffffffULL);
    /* 5.1.1.3: bits 40-45 are received as zeros */
    for (int b = 40; b < 46; b++)
        CHECK_EQ_U(dw_tcpopt_rid_nfs_decode(&g, 1ULL << b, 4), DW_TCPOPT_R_RID_ZERO_BITS);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_decode(&g, 1ULL << 46, 4), DW_TCPOPT_R_RID_RANGE);
    CHECK_EQ_U(dw_tcpopt_rid_nfs_encode(NULL, &f, 4), DW_ERR_INVAL);
    /* through the option: octets 2..7 are 00 02 de ad be ef */
    uint8_t w[20], want[20];
    hex(want, "19 14 00 02 de ad be ef 00 00 00 00 00 00 00 00 00 00 00 00");
    dw_tcpopt o = {20, 0, 0, 0x02deadbeefULL, 0, 0, 0, 0};
    CHECK_EQ_U(dw_tcpopt_encode(w, sizeof w, &o), 20);
    CHECK(memcmp(w, want, 20) == 0);
}

static void test_rid_http(void)
{
    uint64_t rid = 1;
    dw_tcpopt_rid_http f = {0}, g;
    CHECK_EQ_U(dw_tcpopt_rid_http_encode(&rid, &f), 0);
    CHECK_EQ_U(rid, 0); /* the first request is index 0 */
    f.request = 0xfedcba98;
    CHECK_EQ_U(dw_tcpopt_rid_http_encode(&rid, &f), 0);
    CHECK_EQ_U(rid, 0xfedcba98ULL);
    CHECK_EQ_U(dw_tcpopt_rid_http_decode(&g, rid), DW_TCPOPT_R_OK);
    CHECK_EQ_U(g.request, 0xfedcba98);
    for (int b = 32; b < 46; b++) /* 5.2.1: bits 45..32 zero */
        CHECK_EQ_U(dw_tcpopt_rid_http_decode(&g, 1ULL << b | 7), DW_TCPOPT_R_RID_ZERO_BITS);
    CHECK_EQ_U(dw_tcpopt_rid_http_decode(&g, 1ULL << 46), DW_TCPOPT_R_RID_RANGE);
    CHECK_EQ_U(dw_tcpopt_rid_http_encode(&rid, NULL), DW_ERR_INVAL);
}

static void test_rid_cifs(void)
{
    uint64_t rid = 0;
    dw_tcpopt_rid_cifs f = {0x1234, 0x5678, 3}, g;
    CHECK_EQ_U(dw_tcpopt_rid_cifs_encode(&rid, &f), 0);
    CHECK_EQ_U(rid, 0x0312345678ULL); /* op 39..32, PID 31..16, MID 15..0 */
    CHECK_EQ_U(dw_tcpopt_rid_cifs_decode(&g, rid), DW_TCPOPT_R_OK);
    CHECK_EQ_U(g.pid, 0x1234);
    CHECK_EQ_U(g.mid, 0x5678);
    CHECK_EQ_U(g.op, 3);
    f = (dw_tcpopt_rid_cifs){0xffff, 0, 0};
    CHECK_EQ_U(dw_tcpopt_rid_cifs_encode(&rid, &f), 0);
    CHECK_EQ_U(rid, 0xffff0000ULL);
    f = (dw_tcpopt_rid_cifs){0, 0xffff, 0xff};
    CHECK_EQ_U(dw_tcpopt_rid_cifs_encode(&rid, &f), 0);
    CHECK_EQ_U(rid, 0xff0000ffffULL);
    for (int b = 40; b < 46; b++) /* 5.3.1.3 */
        CHECK_EQ_U(dw_tcpopt_rid_cifs_decode(&g, 1ULL << b), DW_TCPOPT_R_RID_ZERO_BITS);
    CHECK_EQ_U(dw_tcpopt_rid_cifs_decode(&g, 0xffffffffffULL), DW_TCPOPT_R_OK);
    CHECK_EQ_U(dw_tcpopt_rid_cifs_decode(&g, 1ULL << 46), DW_TCPOPT_R_RID_RANGE);
    CHECK_EQ_U(dw_tcpopt_rid_cifs_encode(&rid, NULL), DW_ERR_INVAL);
}

static void test_reason_names(void)
{
    const char *seen[16];
    for (int r = 0; r <= DW_TCPOPT_R_NFS_OPERATION; r++) {
        seen[r] = dw_tcpopt_reason_str((dw_tcpopt_reason)r);
        CHECK(strcmp(seen[r], "unknown reason") != 0);
        CHECK(strncmp(dw_tcpopt_reason_name((dw_tcpopt_reason)r), "DW_TCPOPT_R_", 12) == 0);
        for (int q = 0; q < r; q++)
            CHECK(strcmp(seen[q], seen[r]) != 0);
    }
    CHECK(strcmp(dw_tcpopt_reason_name(DW_TCPOPT_R_DATA_OFFSET), "DW_TCPOPT_R_DATA_OFFSET") == 0);
    CHECK(strcmp(dw_tcpopt_reason_str((dw_tcpopt_reason)99), "unknown reason") == 0);
}

static void test_random(void)
{
    uint64_t s = dw_test_seed();
    unsigned n = getenv("DW_TEST_QUICK") ? 20000 : 200000;
    static const uint8_t lens[] = {2, 4, 16, 20};
    for (unsigned i = 0; i < n; i++) {
        uint64_t r = dw_rand(&s);
        /* random octets of one of our lengths: decode, re-encode the same */
        uint8_t w[20], out[20];
        for (int k = 0; k < 20; k += 8) {
            uint64_t v = dw_rand(&s);
            memcpy(w + k, &v, k + 8 <= 20 ? 8 : 4);
        }
        w[0] = 25;
        w[1] = lens[r & 3];
        dw_tcpopt o, p;
        CHECK_EQ_U(dw_tcpopt_decode(&o, w, 20), w[1]);
        CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &o), w[1]);
        CHECK(memcmp(out, w, w[1]) == 0);
        CHECK(o.rid <= DW_TCPOPT_RID_MAX);
        /* a random options area: walking it never fails oddly */
        uint8_t a[40];
        size_t al = (size_t)(r >> 8) % 41;
        for (size_t k = 0; k < al; k++)
            a[k] = (uint8_t)(dw_rand(&s) % 6 == 0 ? 25 : dw_rand(&s) % 30);
        dw_tcpopt_found f;
        dw_tcpopt_reason why;
        int rc = dw_tcpopt_parse(&f, &why, a, al, (size_t)(r >> 16) % 2000);
        CHECK(rc == 0 || rc == 1 || rc == DW_ERR_MALFORMED);
        if (rc >= 0 && f.count) {
            CHECK(f.offset + f.opt.len <= al);
            CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &f.opt), f.opt.len);
            CHECK(memcmp(out, a + f.offset, f.opt.len) == 0);
        }
        /* a random valid option struct: encode, decode the same */
        memset(&p, 0, sizeof p);
        p.len = lens[(r >> 2) & 3];
        if (p.len >= 4) {
            p.a = (r >> 4) & 1;
            p.u = (r >> 5) & 1;
            p.rid = dw_rand(&s) & DW_TCPOPT_RID_MAX;
            if (p.len == 4)
                p.rid &= ~UINT64_C(0xffffffff);
        }
        if (p.len >= 16) {
            uint64_t v = dw_rand(&s);
            p.buffer_offset = (uint32_t)v;
            p.data_offset = (uint16_t)(v >> 32);
            p.data_length = (uint16_t)(v >> 48);
        }
        if (p.len == 20)
            p.total_length = (uint32_t)dw_rand(&s);
        CHECK_EQ_U(dw_tcpopt_encode(out, sizeof out, &p), p.len);
        CHECK_EQ_U(dw_tcpopt_decode(&o, out, p.len), p.len);
        CHECK(same(&o, &p));
    }
}

int main(void)
{
    RUN(test_vectors);
    RUN(test_not_ours);
    RUN(test_truncated);
    RUN(test_encode_invalid);
    RUN(test_find);
    RUN(test_malformed_lists);
    RUN(test_multiple);
    RUN(test_rules);
    RUN(test_total);
    RUN(test_rid_nfs);
    RUN(test_rid_http);
    RUN(test_rid_cifs);
    RUN(test_reason_names);
    RUN(test_random);
    return dw_test_finish();
}
