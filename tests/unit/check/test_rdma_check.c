/* SPDX-License-Identifier: MIT */
/*
 * The DDP/RDMAP stream checker (<ddpwire/rdma_check.h>): clean exchanges
 * of every message kind produce no event, and each rule of RFC 5041 and
 * RFC 5040 it checks is caught when broken, once, in the right direction.
 */
#include <ddpwire/rdma_check.h>

#include <string.h>

#include "test.h"

typedef struct got {
    int n, kinds[16], errors;
    dw_rdma_check_event_kind last;
    int last_dir;
} got;

static void on_event(dw_rdma_check *c, const dw_rdma_check_event *ev, void *u)
{
    got *g = u;
    (void)c;
    g->n++;
    g->kinds[ev->kind]++;
    g->errors += ev->error;
    g->last = ev->kind;
    g->last_dir = ev->dir;
}

typedef struct fix {
    dw_rdma_check *c;
    got g;
    uint64_t pkt;
} fix;

static void open_fix(fix *f)
{
    memset(f, 0, sizeof *f);
    dw_rdma_check_callbacks cb = {on_event};
    CHECK(dw_rdma_check_new(&f->c, NULL, &cb, &f->g) == 0);
    dw_rdma_check_from_start(f->c, 0);
    dw_rdma_check_from_start(f->c, 1);
}

/* Feeds a ULPDU built from m (payload of plen octets); 1 when decoded. */
static int feed(fix *f, int dir, dw_rdmap_msg m, size_t plen)
{
    static uint8_t pay[70000], buf[70100];
    m.payload = pay;
    m.payload_len = plen;
    ssize_t n = dw_rdmap_encode(buf, sizeof buf, &m);
    CHECK(n > 0);
    dw_rdma_check_where at = {++f->pkt, f->pkt * 1000, 0};
    return dw_rdma_check_ulpdu(f->c, dir, buf, (size_t)n < 128 ? (size_t)n : 128, (uint32_t)n,
                               &at, NULL);
}

static dw_rdmap_msg send_seg(uint32_t msn, uint32_t mo, int last)
{
    dw_rdmap_msg m;
    memset(&m, 0, sizeof m);
    m.hdr.ddp_ver = 1, m.hdr.rdmap_ver = 1;
    m.hdr.opcode = DW_RDMAP_SEND;
    m.hdr.qn = 0, m.hdr.msn = msn, m.hdr.mo = mo, m.hdr.last = last;
    return m;
}

static dw_rdmap_msg tagged_seg(uint8_t op, uint32_t stag, uint64_t to, int last)
{
    dw_rdmap_msg m;
    memset(&m, 0, sizeof m);
    m.hdr.ddp_ver = 1, m.hdr.rdmap_ver = 1;
    m.hdr.tagged = 1, m.hdr.opcode = op, m.hdr.stag = stag, m.hdr.to = to, m.hdr.last = last;
    return m;
}

static dw_rdmap_msg read_req(uint32_t msn, uint32_t sink, uint64_t sto, uint32_t size)
{
    dw_rdmap_msg m;
    memset(&m, 0, sizeof m);
    m.hdr.ddp_ver = 1, m.hdr.rdmap_ver = 1;
    m.hdr.opcode = DW_RDMAP_READ_REQ, m.hdr.qn = 1, m.hdr.msn = msn, m.hdr.last = 1;
    m.read_req.sink_stag = sink, m.read_req.sink_to = sto, m.read_req.size = size;
    m.read_req.src_stag = 0x77, m.read_req.src_to = 0x1000;
    return m;
}

/* A clean exchange: Sends of one and three segments, a Write of two, a
 * Read of 3000 octets answered in three segments, a zero-length Read. */
static void clean(fix *f)
{
    CHECK(feed(f, 0, send_seg(1, 0, 1), 100));
    CHECK(feed(f, 0, send_seg(2, 0, 0), 1000));
    CHECK(feed(f, 0, send_seg(2, 1000, 0), 1000));
    CHECK(feed(f, 0, send_seg(2, 2000, 1), 7));
    CHECK(feed(f, 0, tagged_seg(DW_RDMAP_WRITE, 0x10, 0x5000, 0), 1400));
    CHECK(feed(f, 0, tagged_seg(DW_RDMAP_WRITE, 0x10, 0x5000 + 1400, 1), 600));
    CHECK(feed(f, 0, read_req(1, 0x20, 0x9000, 3000), 0));
    CHECK(feed(f, 0, read_req(2, 0x21, 0x100, 0), 0));
    CHECK(feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x20, 0x9000, 0), 1448));
    CHECK(feed(f, 1, send_seg(1, 0, 1), 30)); /* interleaved: other queue */
    CHECK(feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x20, 0x9000 + 1448, 0), 1448));
    CHECK(feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x20, 0x9000 + 2896, 1), 104));
    CHECK(feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x21, 0x100, 1), 0));
}

static void test_clean(void)
{
    fix f;
    open_fix(&f);
    clean(&f);
    dw_rdma_check_end(f.c);
    CHECK_EQ_U(f.g.n, 0);
    dw_rdma_check_stats a, b;
    dw_rdma_check_stats_get(f.c, 0, &a);
    dw_rdma_check_stats_get(f.c, 1, &b);
    CHECK_EQ_U(a.active, 1);
    CHECK_EQ_U(a.sends, 2);
    CHECK_EQ_U(a.writes, 1);
    CHECK_EQ_U(a.read_requests, 2);
    CHECK_EQ_U(a.reads_answered, 2);
    CHECK_EQ_U(a.reads_max_outstanding, 2);
    CHECK_EQ_U(b.read_responses, 2);
    CHECK_EQ_U(b.sends, 1);
    dw_rdma_check_del(f.c);
}

typedef void (*breaker)(fix *f);

static void b_msn_skip(fix *f)
{
    feed(f, 0, send_seg(1, 0, 1), 10);
    feed(f, 0, send_seg(3, 0, 1), 10);
}
static void b_msn_first(fix *f)
{
    feed(f, 0, send_seg(2, 0, 1), 10);
}
static void b_not_closed(fix *f)
{
    feed(f, 0, send_seg(1, 0, 0), 10);
    feed(f, 0, send_seg(2, 0, 1), 10);
}
static void b_mo_gap(fix *f)
{
    feed(f, 0, send_seg(1, 0, 0), 100);
    feed(f, 0, send_seg(1, 104, 1), 10);
}
static void b_mo_start(fix *f)
{
    feed(f, 0, send_seg(1, 8, 1), 10);
}
static void b_to_gap(fix *f)
{
    feed(f, 0, tagged_seg(DW_RDMAP_WRITE, 5, 0, 0), 100);
    feed(f, 0, tagged_seg(DW_RDMAP_WRITE, 5, 99, 1), 10);
}
static void b_stag_change(fix *f)
{
    feed(f, 0, tagged_seg(DW_RDMAP_WRITE, 5, 0, 0), 100);
    feed(f, 0, tagged_seg(DW_RDMAP_WRITE, 6, 100, 1), 10);
}
static void b_unmatched(fix *f)
{
    feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 5, 0, 1), 10);
}
static void b_wrong_stag(fix *f)
{
    feed(f, 0, read_req(1, 0x20, 0, 10), 0);
    feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x21, 0, 1), 10);
}
static void b_wrong_len(fix *f)
{
    feed(f, 0, read_req(1, 0x20, 0, 10), 0);
    feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x20, 0, 1), 12);
}
static void b_order(fix *f) /* answers the second request first */
{
    feed(f, 0, read_req(1, 0x20, 0, 10), 0);
    feed(f, 0, read_req(2, 0x30, 0, 10), 0);
    feed(f, 1, tagged_seg(DW_RDMAP_READ_RESP, 0x30, 0, 1), 10);
}
static void b_reserved(fix *f)
{
    dw_rdmap_msg m = send_seg(1, 0, 1);
    m.hdr.inv_stag = 0x1234; /* reserved in a plain Send */
    feed(f, 0, m, 10);
}
static void b_queue(fix *f)
{
    feed(f, 0, send_seg(1, 0, 1), 10);
    dw_rdmap_msg m = send_seg(2, 0, 1);
    m.hdr.qn = 1; /* a Send on the Read Request queue */
    feed(f, 0, m, 10);
}

/* Each breaker makes exactly one event of its kind, counted as an error. */
static void test_violations(void)
{
    static const struct {
        breaker fn;
        dw_rdma_check_event_kind kind;
    } cases[] = {
        {b_msn_skip, DW_RDMA_CHECK_EV_MSN},       {b_msn_first, DW_RDMA_CHECK_EV_MSN},
        {b_not_closed, DW_RDMA_CHECK_EV_MSN},     {b_mo_gap, DW_RDMA_CHECK_EV_MO},
        {b_mo_start, DW_RDMA_CHECK_EV_MO},        {b_to_gap, DW_RDMA_CHECK_EV_TAGGED},
        {b_stag_change, DW_RDMA_CHECK_EV_TAGGED}, {b_unmatched, DW_RDMA_CHECK_EV_READ_UNMATCHED},
        {b_wrong_stag, DW_RDMA_CHECK_EV_READ_MISMATCH},
        {b_wrong_len, DW_RDMA_CHECK_EV_READ_MISMATCH},
        {b_order, DW_RDMA_CHECK_EV_READ_MISMATCH}, {b_reserved, DW_RDMA_CHECK_EV_INVALID},
        {b_queue, DW_RDMA_CHECK_EV_INVALID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        DW_CASE_HERE("cases[%zu]", i);
        fix f;
        open_fix(&f);
        if (cases[i].kind != DW_RDMA_CHECK_EV_READ_UNMATCHED)
            feed(&f, 1, send_seg(1, 0, 1), 10); /* the other way is DDP too */
        cases[i].fn(&f);
        CHECK_EQ_U(f.g.kinds[cases[i].kind], 1);
        CHECK_EQ_U(f.g.errors, 1);
        dw_rdma_check_del(f.c);
    }
}

/* IRD from the responder's RFC 6581 frame: one Read outstanding at most. */
static void test_depth(void)
{
    fix f;
    open_fix(&f);
    uint8_t pd[4] = {0x00, 0x01, 0x00, 0x01}; /* IRD 1, ORD 1 */
    dw_mpa_startup fr = {DW_MPA_STARTUP_REPLY, DW_MPA_FLAG_ENHANCED, 2, pd, 4};
    dw_rdma_check_startup(f.c, 1, &fr);
    feed(&f, 0, read_req(1, 0x20, 0, 10), 0);
    CHECK_EQ_U(f.g.n, 0);
    feed(&f, 0, read_req(2, 0x21, 0, 10), 0);
    CHECK_EQ_U(f.g.kinds[DW_RDMA_CHECK_EV_READ_DEPTH], 1);
    dw_rdma_check_end(f.c);
    CHECK_EQ_U(f.g.kinds[DW_RDMA_CHECK_EV_READ_PENDING], 1);
    dw_rdma_check_del(f.c);
}

/* SMB Direct's 8 octets: big-endian as ksmbd reads them, or host order as
 * cifs.ko 6.1 writes them. */
static void test_pd_info(void)
{
    uint8_t be[8] = {0, 0, 0, 16, 0, 0, 0, 1}, le[8] = {32, 0, 0, 0, 1, 0, 0, 0};
    dw_mpa_startup a = {DW_MPA_STARTUP_REQUEST, 0, 1, be, 8}, b = a;
    b.pd = le;
    dw_rdma_pd_info pi;
    CHECK(dw_rdma_pd_info_get(&a, &pi) && pi.smbd && !pi.smbd_host_order);
    CHECK_EQ_U(pi.smbd_ird, 16);
    CHECK_EQ_U(pi.smbd_ord, 1);
    CHECK(dw_rdma_pd_info_get(&b, &pi) && pi.smbd && pi.smbd_host_order);
    CHECK_EQ_U(pi.smbd_ird, 32);
    uint8_t enh[12] = {0x80, 0x10, 0x40, 0x08, 0, 0, 0, 16, 0, 0, 0, 1};
    dw_mpa_startup c = {DW_MPA_STARTUP_REQUEST, DW_MPA_FLAG_ENHANCED, 2, enh, 12};
    CHECK(dw_rdma_pd_info_get(&c, &pi) && pi.enhanced && pi.smbd);
    CHECK_EQ_U(pi.enh.ird, 16);
    CHECK(pi.enh.p2p);
    uint8_t none[3] = {1, 2, 3};
    dw_mpa_startup d = {DW_MPA_STARTUP_REQUEST, 0, 1, none, 3};
    CHECK(!dw_rdma_pd_info_get(&d, &pi));
}

/* Records that are not DDP: one NOT_DDP, nothing judged, no decode. */
static void test_not_ddp(void)
{
    fix f;
    open_fix(&f);
    uint8_t rec[40];
    memset(rec, 0x5a, sizeof rec);
    dw_rdma_check_where at = {1, 0, 0};
    CHECK(!dw_rdma_check_ulpdu(f.c, 0, rec, sizeof rec, sizeof rec, &at, NULL));
    CHECK(!dw_rdma_check_ulpdu(f.c, 0, rec, sizeof rec, sizeof rec, &at, NULL));
    CHECK_EQ_U(f.g.kinds[DW_RDMA_CHECK_EV_NOT_DDP], 1);
    CHECK_EQ_U(f.g.errors, 0);
    dw_rdma_check_stats st;
    dw_rdma_check_stats_get(f.c, 0, &st);
    CHECK(st.active == -1);
    dw_rdma_check_del(f.c);
}

/* After a loss in a direction its MSNs are learnt again, and the other
 * direction's Read Responses are not called unmatched. */
static void test_gap(void)
{
    fix f;
    open_fix(&f);
    feed(&f, 0, send_seg(1, 0, 1), 10);
    feed(&f, 1, send_seg(1, 0, 1), 10);
    dw_rdma_check_gap(f.c, 0);
    feed(&f, 0, send_seg(7, 0, 1), 10);
    feed(&f, 0, send_seg(8, 0, 1), 10);
    feed(&f, 1, tagged_seg(DW_RDMAP_READ_RESP, 9, 0, 1), 10);
    CHECK_EQ_U(f.g.n, 0);
    feed(&f, 0, send_seg(10, 0, 1), 10); /* but once learnt, judged */
    CHECK_EQ_U(f.g.kinds[DW_RDMA_CHECK_EV_MSN], 1);
    dw_rdma_check_del(f.c);
}

/* A Terminate in siw 6.1's layout is decoded and reported. */
static void test_terminate(void)
{
    fix f;
    open_fix(&f);
    dw_rdmap_msg m;
    memset(&m, 0, sizeof m);
    m.hdr.ddp_ver = 1, m.hdr.rdmap_ver = 1, m.hdr.opcode = DW_RDMAP_TERMINATE;
    m.hdr.qn = 2, m.hdr.msn = 1, m.hdr.last = 1;
    m.term.layer = DW_TERM_LAYER_DDP, m.term.etype = DW_TERM_DDP_UNTAGGED;
    m.term.code = DW_TERM_DDP_U_MSN_NO_BUFFER, m.term.swapped = 1;
    feed(&f, 0, m, 0);
    CHECK_EQ_U(f.g.kinds[DW_RDMA_CHECK_EV_TERMINATE], 1);
    dw_rdma_check_stats st;
    dw_rdma_check_stats_get(f.c, 0, &st);
    CHECK_EQ_U(st.terminates, 1);
    dw_rdma_check_del(f.c);
}

/* The upper protocol from the first Send's payload. */
static void test_ulp(void)
{
    fix f;
    open_fix(&f);
    dw_rdmap_msg m = send_seg(1, 0, 1);
    static uint8_t smbd[20] = {0, 1, 0, 1, 0, 0, 10, 0};
    uint8_t buf[64];
    m.payload = smbd, m.payload_len = sizeof smbd;
    ssize_t n = dw_rdmap_encode(buf, sizeof buf, &m);
    dw_rdma_check_where at = {1, 0, 0};
    CHECK(dw_rdma_check_ulpdu(f.c, 1, buf, (size_t)n, (uint32_t)n, &at, NULL));
    dw_rdma_check_stats st;
    dw_rdma_check_stats_get(f.c, 1, &st);
    CHECK_EQ_U(st.ulp, DW_RDMA_ULP_SMBD);
    dw_rdma_check_del(f.c);
}

int main(void)
{
    RUN(test_clean);
    RUN(test_violations);
    RUN(test_depth);
    RUN(test_pd_info);
    RUN(test_not_ddp);
    RUN(test_gap);
    RUN(test_terminate);
    RUN(test_ulp);
    return dw_test_finish();
}
