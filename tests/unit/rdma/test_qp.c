/* SPDX-License-Identifier: MIT */
/*
 * The RDMAP queue pair: two queue pairs back to back through real MPA
 * framing in memory (dw_mpa_tx_frame_pdu into a pipe, dw_mpa_rx out of it):
 * Sends (and SE / Invalidate), RDMA Write, RDMA Read, segmentation to
 * MULPDU, rping's exchange, the RFC 6581 RTR kinds; then hostile ULPDUs
 * built by hand, each answered by the Terminate the RFCs name (decoded
 * from what the queue pair sent) with guard octets around every region
 * left untouched; and a random storm of mutated ULPDUs.
 */
#include <ddpwire/qp.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#include "test.h"

#define PIPE 262144

typedef struct end {
    dw_qp *qp;
    dw_mpa_tx *tx;
    dw_mpa_rx *rx;
    struct end *peer;
    uint8_t pipe[PIPE]; /* FPDUs we sent, not yet fed to the peer */
    size_t fill;
    unsigned segs;      /* ULPDUs sent */
    size_t max_ulpdu;
    dw_qp_wc wc[64];
    unsigned nwc;
    dw_rdmap_term term;
    int terms_sent, terms_rcvd, last_rc;
    uint8_t last[128]; /* the last ULPDU we sent (headers) */
    size_t last_len;
} end;

static int qsend(dw_qp *qp, const uint8_t *h, size_t hl, const uint8_t *p, size_t pl, void *u)
{
    end *e = u;
    (void)qp;
    e->segs++;
    if (hl + pl > e->max_ulpdu)
        e->max_ulpdu = hl + pl;
    e->last_len = hl < sizeof e->last ? hl : sizeof e->last;
    memcpy(e->last, h, e->last_len);
    ssize_t n = dw_mpa_tx_frame_pdu_into(e->tx, h, hl, p, pl, e->pipe + e->fill,
                                         PIPE - e->fill, NULL);
    if (n < 0)
        return (int)n;
    e->fill += (size_t)n;
    return 0;
}

static void qwc(dw_qp *qp, const dw_qp_wc *wc, void *u)
{
    end *e = u;
    (void)qp;
    if (e->nwc < 64)
        e->wc[e->nwc] = *wc;
    e->nwc++;
}

static void qterm(dw_qp *qp, const dw_rdmap_term *t, int received, void *u)
{
    end *e = u;
    (void)qp;
    e->term = *t;
    received ? e->terms_rcvd++ : e->terms_sent++;
}

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    end *e = u;
    (void)rx, (void)off;
    e->last_rc = dw_qp_recv(e->qp, d, len);
    return 0;
}

static void make(end *e, const dw_qp_settings *qs)
{
    memset(e, 0, sizeof *e);
    dw_qp_callbacks cb = {qsend, qwc, qterm, NULL};
    CHECK(dw_qp_new(&e->qp, qs, &cb, e) == 0);
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = 0; /* as with siw */
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    rs.markers = 0;
    dw_mpa_rx_callbacks rcb = {on_ulpdu, NULL, NULL};
    CHECK(dw_mpa_tx_new(&e->tx, &ts) == 0);
    CHECK(dw_mpa_rx_new(&e->rx, &rs, &rcb, e) == 0);
}

static void unmake(end *e)
{
    dw_qp_del(e->qp);
    dw_mpa_tx_del(e->tx);
    dw_mpa_rx_del(e->rx);
}

/* Moves everything both ends sent to the other, until quiet. */
static void pump(end *a, end *b)
{
    while (a->fill || b->fill) {
        end *s = a->fill ? a : b, *r = s == a ? b : a;
        static uint8_t buf[PIPE];
        size_t n = s->fill;
        memcpy(buf, s->pipe, n);
        s->fill = 0;
        dw_mpa_rx_feed(r->rx, buf, n);
    }
}

static void pair(end *a, end *b, uint32_t mulpdu)
{
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    s.mulpdu = mulpdu;
    make(a, &s);
    make(b, &s);
}

static uint8_t pat(size_t i)
{
    return (uint8_t)(i * 131 + 7);
}

static void test_send_segments(void)
{
    static end a, b;
    pair(&a, &b, 128);
    static uint8_t src[5000], dst[5000 + 16];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = pat(i);
    memset(dst, 0xEE, sizeof dst);
    CHECK(dw_qp_post_recv(b.qp, 77, dst, 5000) == 0);
    CHECK(dw_qp_post_recv(b.qp, 78, dst, 0) == 0);
    CHECK(dw_qp_send(a.qp, 1, DW_RDMAP_SEND, 0, src, 1000) == 0);
    /* 110 octets after the 18-octet header: ceil(1000 / 110) segments */
    CHECK_EQ_U(a.segs, 10);
    CHECK_EQ_U(a.max_ulpdu, 128);
    CHECK(a.nwc == 1 && a.wc[0].op == DW_QP_WC_SEND && a.wc[0].len == 1000);
    /* the last segment's header, byte by byte: L, DV 1, RV 1, Send; QN 0, MSN 1, MO 990 */
    static const uint8_t last[18] = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0x03, 0xDE};
    CHECK(a.last_len == 18 && memcmp(a.last, last, 18) == 0);
    pump(&a, &b);
    CHECK(b.nwc == 1 && b.wc[0].op == DW_QP_WC_RECV && b.wc[0].wr_id == 77 && b.wc[0].len == 1000);
    CHECK(memcmp(dst, src, 1000) == 0 && dst[1000] == 0xEE);
    /* zero-length Send with SE: one segment, fills the empty buffer */
    CHECK(dw_qp_send(a.qp, 2, DW_RDMAP_SEND_SE, 0, NULL, 0) == 0);
    pump(&a, &b);
    CHECK(b.nwc == 2 && b.wc[1].wr_id == 78 && b.wc[1].len == 0 && b.wc[1].solicited);
    CHECK(b.terms_sent == 0 && a.terms_rcvd == 0);
    unmake(&a), unmake(&b);
}

/* seg_max: the sender's exact fill (dw_mpa_tx_fill_len at EMSS 1448, with
 * markers) cuts a long Send and a long Write: every FPDU but each message's
 * last is exactly EMSS octets, though the fill changes from one FPDU to the
 * next as markers fall in or out, except at the phases where none can be
 * (EMSS - 4 octets ending on a marker position); the data arrives whole. */
static size_t g_fill_calls;
static size_t fill_max(dw_qp *qp, void *u)
{
    (void)qp;
    g_fill_calls++;
    return dw_mpa_tx_fill_len(((end *)u)->tx);
}

static void test_seg_fill(void)
{
    static end a, b;
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    s.mulpdu = 1024;
    make(&a, &s);
    make(&b, &s);
    dw_qp_callbacks cb = {qsend, qwc, qterm, fill_max};
    dw_qp_del(a.qp);
    CHECK(dw_qp_new(&a.qp, &s, &cb, &a) == 0);
    dw_mpa_tx_del(a.tx), dw_mpa_rx_del(b.rx);
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.emss = 1448;
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    dw_mpa_rx_callbacks rcb = {on_ulpdu, NULL, NULL};
    CHECK(dw_mpa_tx_new(&a.tx, &ts) == 0 && dw_mpa_rx_new(&b.rx, &rs, &rcb, &b) == 0);
    static uint8_t src[100000], dst[100000], bm[100000];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = pat(i + 11);
    uint32_t bs;
    CHECK(dw_qp_reg_mr(b.qp, bm, sizeof bm, 0x5000, DW_QP_ACCESS_REMOTE_WRITE, &bs) == 0);
    CHECK(dw_qp_post_recv(b.qp, 9, dst, sizeof dst) == 0);
    CHECK(dw_qp_send(a.qp, 1, DW_RDMAP_SEND, 0, src, sizeof src) == 0);
    CHECK(dw_qp_write(a.qp, 2, src, sizeof src, bs, 0x5000) == 0);
    /* walk the FPDUs in the pipe: lengths of the two messages' segments */
    size_t at = 0, n = 0, emss = 0, other = 0, short4 = 0;
    uint32_t pos = 0;
    while (at < a.fill) {
        size_t ulen = 0, k = at;
        /* a marker may lead: at MPA positions that are multiples of 512 */
        if (pos % 512 == 0)
            k += 4;
        ulen = (size_t)a.pipe[k] << 8 | a.pipe[k + 1];
        size_t f = dw_mpa_fpdu_len(pos, ulen, 1);
        n++;
        if (f == 1448)
            emss++;
        else if (f == 1448 - 4 && (pos + f) % 512 == 0)
            short4++; /* no exact fill here: 4 octets more would take a marker */
        else
            other++;
        at += f, pos += (uint32_t)f;
    }
    CHECK_EQ_U(at, a.fill);
    CHECK_EQ_U(other, 2); /* each message's last segment */
    CHECK(emss > 120 && emss + short4 + other == n && g_fill_calls == n);
    CHECK(a.max_ulpdu > 1024); /* the fill, not the mulpdu setting */
    pump(&a, &b);
    CHECK(b.nwc == 1 && b.wc[0].len == sizeof src && memcmp(dst, src, sizeof src) == 0);
    CHECK(memcmp(bm, src, sizeof src) == 0 && b.terms_sent == 0);
    unmake(&a), unmake(&b);
}

static void test_write_read(void)
{
    static end a, b;
    pair(&a, &b, 512);
    static uint8_t am[3000], bm[4000], out[3000];
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = pat(i + 3);
    uint32_t as, bs;
    CHECK(dw_qp_reg_mr(a.qp, am, sizeof am, 0x10000, DW_QP_ACCESS_LOCAL_WRITE, &as) == 0);
    CHECK(dw_qp_reg_mr(b.qp, bm, sizeof bm, 0x7f0000001000ull,
                       DW_QP_ACCESS_REMOTE_WRITE | DW_QP_ACCESS_REMOTE_READ, &bs) == 0);
    CHECK(as != 0 && bs != 0);
    CHECK(dw_qp_write(a.qp, 5, out, 3000, bs, 0x7f0000001000ull + 1000) == 0);
    CHECK_EQ_U(a.segs, 7); /* 498 octets a segment */
    pump(&a, &b);
    CHECK(memcmp(bm + 1000, out, 3000) == 0 && b.nwc == 0 && b.terms_sent == 0);
    /* read them back into a's region at offset 0 */
    CHECK(dw_qp_read(a.qp, 6, as, 0x10000, 3000, bs, 0x7f0000001000ull + 1000) == 0);
    pump(&a, &b);
    CHECK(a.nwc == 2 && a.wc[1].op == DW_QP_WC_READ && a.wc[1].wr_id == 6 && a.wc[1].len == 3000);
    CHECK(memcmp(am, out, 3000) == 0);
    CHECK_EQ_U(b.segs, 7); /* 3000 / 498 Read Responses */
    /* local checks: a sink without LOCAL_WRITE, past its end */
    CHECK_EQ_U(dw_qp_read(a.qp, 7, bs, 0, 1, bs, 0), DW_ERR_INVAL);
    CHECK_EQ_U(dw_qp_read(a.qp, 7, as, 0x10000 + 2999, 2, bs, 0), DW_ERR_INVAL);
    /* Send with Invalidate: the STag dies, a later Write to it is refused */
    uint32_t is;
    static uint8_t rb[8];
    CHECK(dw_qp_reg_mr(b.qp, bm, 16, 0, DW_QP_ACCESS_REMOTE_WRITE | DW_QP_ACCESS_REMOTE_INV,
                       &is) == 0);
    CHECK(dw_qp_post_recv(b.qp, 40, rb, 8) == 0);
    CHECK(dw_qp_send(a.qp, 8, DW_RDMAP_SEND_SE_INV, is, out, 8) == 0);
    pump(&a, &b);
    CHECK(b.nwc == 1 && b.wc[0].invalidated && b.wc[0].inv_stag == is && b.wc[0].solicited);
    CHECK(dw_qp_write(a.qp, 9, out, 4, is, 0) == 0);
    pump(&a, &b);
    CHECK(b.terms_sent == 1 && a.terms_rcvd == 1 && a.term.layer == DW_TERM_LAYER_DDP &&
          a.term.etype == DW_TERM_DDP_TAGGED && a.term.code == DW_TERM_DDP_T_INVALID_STAG);
    CHECK(bm[0] == 0 && bm[3] == 0); /* nothing placed */
    unmake(&a), unmake(&b);
}

/* rping's loop (rdma-core rping.c) between two queue pairs. */
static void test_rping_exchange(void)
{
    static end c, s;
    pair(&c, &s, 1448);
    static uint8_t cstart[200], crdma[200], srdma[200], crecv[16], srecv[16], info[16];
    uint32_t cs, cr, sr;
    CHECK(dw_qp_reg_mr(c.qp, cstart, 200, (uintptr_t)cstart, DW_QP_ACCESS_REMOTE_READ, &cs) == 0);
    CHECK(dw_qp_reg_mr(c.qp, crdma, 200, (uintptr_t)crdma, DW_QP_ACCESS_REMOTE_WRITE, &cr) == 0);
    CHECK(dw_qp_reg_mr(s.qp, srdma, 200, 0, DW_QP_ACCESS_LOCAL_WRITE, &sr) == 0);
    for (int ping = 0; ping < 20; ping++) {
        snprintf((char *)cstart, 200, "rdma-ping-%d: ", ping);
        for (size_t i = strlen((char *)cstart); i < 199; i++)
            cstart[i] = (uint8_t)(65 + (i + (size_t)ping) % 58);
        cstart[199] = 0;
        memset(crdma, 0, 200);
        dw_rping_info ri = {(uintptr_t)cstart, cs, 200}, got;
        dw_rping_info_encode(info, 16, &ri);
        CHECK(dw_qp_post_recv(s.qp, 1, srecv, 16) == 0);
        CHECK(dw_qp_post_recv(c.qp, 2, crecv, 16) == 0);
        CHECK(dw_qp_post_recv(c.qp, 3, crecv, 16) == 0);
        CHECK(dw_qp_send(c.qp, 0, DW_RDMAP_SEND, 0, info, 16) == 0);
        pump(&c, &s);
        CHECK(dw_rping_info_decode(&got, srecv, 16) == 16 && got.rkey == cs && got.size == 200);
        CHECK(dw_qp_read(s.qp, 9, sr, 0, got.size, got.rkey, got.buf) == 0);
        pump(&c, &s);
        CHECK(dw_qp_post_recv(s.qp, 1, srecv, 16) == 0);
        CHECK(dw_qp_send(s.qp, 0, DW_RDMAP_SEND, 0, info, 16) == 0); /* go ahead */
        ri = (dw_rping_info){(uintptr_t)crdma, cr, 200};
        dw_rping_info_encode(info, 16, &ri);
        CHECK(dw_qp_send(c.qp, 0, DW_RDMAP_SEND, 0, info, 16) == 0);
        pump(&c, &s);
        dw_rping_info_decode(&got, srecv, 16);
        CHECK(dw_qp_write(s.qp, 0, srdma, strlen((char *)srdma) + 1, got.rkey, got.buf) == 0);
        CHECK(dw_qp_send(s.qp, 0, DW_RDMAP_SEND, 0, info, 16) == 0);
        pump(&c, &s);
        CHECK(memcmp(cstart, crdma, 200) == 0);
    }
    CHECK(c.terms_sent + s.terms_sent == 0);
    unmake(&c), unmake(&s);
}

static void test_rtr(void)
{
    for (unsigned k = 1; k <= 4; k <<= 1) {
        static end a, b;
        dw_qp_settings sa, sb;
        dw_qp_settings_default(&sa);
        dw_qp_settings_default(&sb);
        sa.rtr_send = (dw_mpa_rtr)k;
        sb.rtr_expect = (dw_mpa_rtr)k;
        make(&a, &sa), make(&b, &sb);
        static uint8_t x[4], rb[4];
        CHECK_EQ_U(dw_qp_state_get(b.qp), DW_QP_RTR_WAIT);
        CHECK_EQ_U(dw_qp_send(b.qp, 0, DW_RDMAP_SEND, 0, x, 4), DW_ERR_STATE);
        CHECK_EQ_U(dw_qp_send(a.qp, 0, DW_RDMAP_SEND, 0, x, 4), DW_ERR_STATE); /* RTR first */
        CHECK(dw_qp_rtr(a.qp) == 0);
        CHECK_EQ_U(dw_qp_rtr(a.qp), DW_ERR_STATE);
        pump(&a, &b);
        CHECK_EQ_U(dw_qp_state_get(b.qp), DW_QP_RTS);
        CHECK(a.nwc == 0 && b.nwc == 0 && a.terms_rcvd == 0 && b.terms_sent == 0);
        /* then a Send each way: MSNs follow the RTR's */
        CHECK(dw_qp_post_recv(b.qp, 1, rb, 4) == 0 && dw_qp_post_recv(a.qp, 1, rb, 4) == 0);
        CHECK(dw_qp_send(a.qp, 0, DW_RDMAP_SEND, 0, x, 4) == 0);
        CHECK(dw_qp_send(b.qp, 0, DW_RDMAP_SEND, 0, x, 4) == 0);
        pump(&a, &b);
        CHECK(a.nwc == 2 && b.nwc == 2 && b.terms_sent == 0 && a.terms_sent == 0);
        unmake(&a), unmake(&b);
    }
    /* a Write RTR where a Read RTR was agreed: no matching RTR */
    static end a, b;
    dw_qp_settings sa, sb;
    dw_qp_settings_default(&sa), dw_qp_settings_default(&sb);
    sa.rtr_send = DW_MPA_RTR_WRITE;
    sb.rtr_expect = DW_MPA_RTR_READ;
    make(&a, &sa), make(&b, &sb);
    CHECK(dw_qp_rtr(a.qp) == 0);
    pump(&a, &b);
    CHECK(b.terms_sent == 1 && a.terms_rcvd == 1);
    CHECK(a.term.layer == DW_TERM_LAYER_LLP && a.term.code == DW_TERM_MPA_NO_MATCHING_RTR);
    CHECK_EQ_U(dw_qp_state_get(a.qp), DW_QP_TERMINATED);
    unmake(&a), unmake(&b);
}

/* ---- hostile ULPDUs ---- */

#define GUARD 64
static uint8_t arena[3][GUARD + 256 + GUARD];

typedef struct victim {
    end e;
    uint32_t wstag, rstag, nstag; /* remote write, remote read, no access */
} victim;

static void victim_make(victim *v)
{
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    make(&v->e, &s);
    memset(arena, 0xA5, sizeof arena);
    dw_qp_reg_mr(v->e.qp, arena[0] + GUARD, 256, 0x1000, DW_QP_ACCESS_REMOTE_WRITE, &v->wstag);
    dw_qp_reg_mr(v->e.qp, arena[1] + GUARD, 256, 0x2000, DW_QP_ACCESS_REMOTE_READ, &v->rstag);
    dw_qp_reg_mr(v->e.qp, arena[2] + GUARD, 256, 0x3000, 0, &v->nstag);
    dw_qp_post_recv(v->e.qp, 1, arena[2] + GUARD, 256);
}

static int guards_ok(void)
{
    for (int r = 0; r < 3; r++)
        for (size_t i = 0; i < GUARD; i++)
            if (arena[r][i] != 0xA5 || arena[r][GUARD + 256 + i] != 0xA5)
                return 0;
    return 1;
}

static size_t ulpdu(uint8_t *o, const dw_ddp_hdr *h, const dw_rdmap_read_req *rr, size_t plen)
{
    dw_rdmap_msg m;
    memset(&m, 0, sizeof m);
    m.hdr = *h;
    if (rr)
        m.read_req = *rr;
    static uint8_t pay[1024];
    memset(pay, 0x5A, sizeof pay);
    m.payload = pay;
    m.payload_len = plen;
    return (size_t)dw_rdmap_encode(o, 2048, &m);
}

static dw_ddp_hdr hdr(unsigned op, int tagged, uint32_t stag, uint64_t to)
{
    dw_ddp_hdr h;
    memset(&h, 0, sizeof h);
    h.tagged = tagged, h.last = 1, h.ddp_ver = 1, h.rdmap_ver = 1, h.opcode = (uint8_t)op;
    h.stag = stag, h.to = to;
    h.qn = op == DW_RDMAP_READ_REQ ? 1 : 0;
    h.msn = 1;
    return h;
}

/* Feeds u to a fresh victim; checks the Terminate it sent and the guards. */
static void hostile(const char *what, const uint8_t *u, size_t n, unsigned layer,
                    unsigned etype, unsigned code, int copied_rr)
{
    static victim v;
    victim_make(&v);
    int rc = dw_qp_recv(v.e.qp, u, n);
    /* the Terminate and nothing else went out */
    int ok = rc == DW_ERR_PROTO && v.e.terms_sent == 1 && v.e.segs == 1 && guards_ok();
    /* the Terminate on the wire: decode what was sent */
    dw_rdmap_msg m;
    ssize_t k = dw_rdmap_decode(&m, v.e.last, v.e.last_len);
    ok = ok && k > 0 && m.hdr.opcode == DW_RDMAP_TERMINATE && m.hdr.qn == 2 && m.hdr.msn == 1 &&
         m.term.layer == layer && m.term.etype == etype && m.term.code == code && !m.term.swapped;
    ok = ok && m.term.d && m.term.m && m.term.ddp_seg_len == n &&
         memcmp(m.term.ddp_hdr, u, m.term.ddp_hdr_len) == 0 && m.term.r == copied_rr;
    if (!ok)
        fprintf(stderr, "hostile %s: rc %d, term %u/%u/%u\n", what, rc, m.term.layer,
                m.term.etype, m.term.code);
    CHECK(ok);
    /* stopped: nothing more either way */
    CHECK_EQ_U(dw_qp_recv(v.e.qp, u, n), DW_ERR_STATE);
    CHECK_EQ_U(dw_qp_send(v.e.qp, 0, DW_RDMAP_SEND, 0, u, 1), DW_ERR_STATE);
    unmake(&v.e);
}

static void test_hostile(void)
{
    static victim v;
    victim_make(&v); /* for the STag values */
    uint32_t w = v.wstag, r = v.rstag, no = v.nstag;
    unmake(&v.e);
    uint8_t u[2048];
    dw_ddp_hdr h;
    dw_rdmap_read_req rr;
    size_t n;
#define H(what, l, e, c, rrc) hostile(what, u, n, l, e, c, rrc)
    n = ulpdu(u, (h = hdr(0, 1, w ^ 0x100, 0x1000), &h), NULL, 8);
    H("write bad stag", 1, 1, 0x00, 0);
    n = ulpdu(u, (h = hdr(0, 1, w + 1, 0x1000), &h), NULL, 8); /* key differs */
    H("write stale key", 1, 1, 0x00, 0);
    n = ulpdu(u, (h = hdr(0, 1, w, 0x1000 + 249), &h), NULL, 8);
    H("write one past the end", 1, 1, 0x01, 0);
    n = ulpdu(u, (h = hdr(0, 1, w, 0xfff), &h), NULL, 8);
    H("write below base", 1, 1, 0x01, 0);
    n = ulpdu(u, (h = hdr(0, 1, w, UINT64_MAX - 3), &h), NULL, 8);
    H("write TO wrap", 1, 1, 0x03, 0);
    n = ulpdu(u, (h = hdr(0, 1, no, 0x3000), &h), NULL, 8);
    H("write without access", 0, 1, 0x02, 0);
    n = ulpdu(u, (h = hdr(0, 1, r, 0x2000), &h), NULL, 8);
    H("write to a read-only region", 0, 1, 0x02, 0);
    n = ulpdu(u, (h = hdr(2, 1, w, 0x1000), &h), NULL, 8);
    H("read response, no read outstanding", 0, 2, 0x06, 0);
    n = ulpdu(u, (h = hdr(3, 0, 0, 0), h.msn = 2, &h), NULL, 8);
    H("send MSN with no buffer", 1, 2, 0x02, 0);
    n = ulpdu(u, (h = hdr(3, 0, 0, 0), h.msn = 0, &h), NULL, 8);
    H("send old MSN", 1, 2, 0x03, 0);
    n = ulpdu(u, (h = hdr(3, 0, 0, 0), &h), NULL, 257);
    H("send too long", 1, 2, 0x05, 0);
    n = ulpdu(u, (h = hdr(3, 0, 0, 0), h.mo = 250, &h), NULL, 7);
    H("send MO past the buffer", 1, 2, 0x05, 0);
    n = ulpdu(u, (h = hdr(3, 0, 0, 0), h.qn = 3, &h), NULL, 7);
    H("invalid queue", 1, 2, 0x01, 0);
    n = ulpdu(u, (h = hdr(3, 0, 0, 0), h.ddp_ver = 0, &h), NULL, 7);
    H("DDP version 0", 1, 2, 0x06, 0);
    n = ulpdu(u, (h = hdr(0, 1, w, 0x1000), h.ddp_ver = 2, &h), NULL, 7);
    H("tagged DDP version 2", 1, 1, 0x04, 0);
    n = ulpdu(u, (h = hdr(9, 0, 0, 0), &h), NULL, 0);
    H("opcode 9", 0, 2, 0x06, 0);
    n = ulpdu(u, (h = hdr(4, 0, 0, 0), h.inv_stag = w, &h), NULL, 4);
    H("invalidate a region that forbids it", 0, 2, 0x09, 0);
    rr = (dw_rdmap_read_req){5, 0, 16, r ^ 0x300, 0x2000};
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), &h), &rr, 0);
    H("read request bad stag", 0, 1, 0x00, 1);
    rr = (dw_rdmap_read_req){5, 0, 16, r, 0x2000 + 241};
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), &h), &rr, 0);
    H("read request past the end", 0, 1, 0x01, 1);
    rr = (dw_rdmap_read_req){5, 0, 16, w, 0x1000};
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), &h), &rr, 0);
    H("read request without access", 0, 1, 0x02, 1);
    rr = (dw_rdmap_read_req){5, 0, 16, r, UINT64_MAX - 1};
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), &h), &rr, 0);
    H("read request TO wrap", 0, 1, 0x04, 1);
    rr = (dw_rdmap_read_req){5, UINT64_MAX - 7, 16, r, 0x2000}; /* fuzz_qp found it */
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), &h), &rr, 0);
    H("read request, the sink's TO wraps", 0, 1, 0x04, 1);
    rr = (dw_rdmap_read_req){5, 0, 16, r, 0x2000};
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), h.msn = 2, &h), &rr, 0);
    H("read request MSN", 1, 2, 0x03, 1);
#undef H
    /* the edges that are allowed: last octet, zero-length Write with STag 0 */
    victim_make(&v);
    n = ulpdu(u, (h = hdr(0, 1, w, 0x1000 + 248), &h), NULL, 8);
    CHECK(dw_qp_recv(v.e.qp, u, n) == 0 && arena[0][GUARD + 255] == 0x5A && guards_ok());
    n = ulpdu(u, (h = hdr(0, 1, 0, 0), &h), NULL, 0);
    CHECK(dw_qp_recv(v.e.qp, u, n) == 0);
    rr = (dw_rdmap_read_req){5, 0, 256, r, 0x2000};
    n = ulpdu(u, (h = hdr(1, 0, 0, 0), &h), &rr, 0);
    CHECK(dw_qp_recv(v.e.qp, u, n) == 0 && v.e.terms_sent == 0);
    CHECK_EQ_U(v.e.segs, 1); /* 256 octets in one Read Response */
    CHECK(v.e.last[0] == 0xC1 && v.e.last[1] == 0x42);
    /* a Write whose TO would wrap: refused before any segment goes */
    unsigned segs = v.e.segs;
    CHECK_EQ_U(dw_qp_write(v.e.qp, 1, u, 16, w, UINT64_MAX - 7), DW_ERR_INVAL);
    CHECK_EQ_U(dw_qp_write(v.e.qp, 1, u, 3000, w, UINT64_MAX - 2000), DW_ERR_INVAL);
    CHECK_EQ_U(v.e.segs, segs);
    /* a ULPDU too short for its header */
    CHECK_EQ_U(dw_qp_recv(v.e.qp, u, 5), DW_ERR_PROTO);
    CHECK(v.e.terms_sent == 1 && v.e.term.code == DW_TERM_RDMAP_UNSPECIFIED);
    unmake(&v.e);
}

/* siw 6.1's Terminate (test_ddp.c: its answer to a bad CRC) stops us. */
static void test_siw_terminate(void)
{
    static const uint8_t t[22] = {0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1,
                                  0, 0, 0, 0, 0x02, 0x02, 0, 0};
    static victim v;
    victim_make(&v);
    CHECK_EQ_U(dw_qp_recv(v.e.qp, t, sizeof t), DW_ERR_PROTO);
    CHECK(v.e.terms_rcvd == 1 && v.e.terms_sent == 0);
    const dw_rdmap_term *r = dw_qp_last_term(v.e.qp);
    CHECK(r && r->swapped && r->layer == DW_TERM_LAYER_LLP && r->code == DW_TERM_MPA_CRC);
    CHECK_EQ_U(dw_qp_state_get(v.e.qp), DW_QP_TERMINATED);
    unmake(&v.e);
    /* and ours in siw's layout when asked */
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    s.term_swapped = 1;
    make(&v.e, &s);
    CHECK(dw_qp_terminate(v.e.qp, DW_TERM_LAYER_LLP, DW_TERM_LLP_MPA, DW_TERM_MPA_CRC) == 0);
    CHECK(v.e.last_len == 22 && memcmp(v.e.last, t, 22) == 0);
    unmake(&v.e);
}

/* Random mutations of valid ULPDUs: never a write outside the regions. */
static void test_storm(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int rounds = getenv("DW_TEST_QUICK") ? 2000 : 20000;
    static victim v;
    static uint8_t u[2048];
    unsigned terms = 0;
    for (int i = 0; i < rounds; i++) {
        victim_make(&v);
        dw_ddp_hdr h = hdr((unsigned)(dw_rand(&seed) % 8), 0, 0, 0);
        h.tagged = h.opcode == 0 || h.opcode == 2;
        h.stag = dw_rand(&seed) & 1 ? v.wstag : v.rstag;
        h.to = 0x1000 + (dw_rand(&seed) % 0x3000);
        h.qn = h.opcode == 1 ? 1 : h.opcode == 7 ? 2 : 0;
        dw_rdmap_read_req rr = {v.wstag, 0, (uint32_t)(dw_rand(&seed) % 300), v.rstag,
                                0x2000 + dw_rand(&seed) % 300};
        size_t n = ulpdu(u, &h, &rr, (size_t)(dw_rand(&seed) % 300));
        for (int f = (int)(dw_rand(&seed) % 4); f > 0; f--)
            u[dw_rand(&seed) % n] ^= (uint8_t)(1u << dw_rand(&seed) % 8);
        int rc = dw_qp_recv(v.e.qp, u, n);
        terms += v.e.terms_sent;
        CHECK(rc == 0 || rc == DW_ERR_PROTO);
        if (!guards_ok()) {
            CHECK(0);
            break;
        }
        unmake(&v.e);
    }
    CHECK(terms > 0);
}

static void test_args(void)
{
    dw_qp *qp;
    dw_qp_callbacks cb = {qsend, qwc, NULL, NULL}, none = {NULL, qwc, NULL, NULL};
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    CHECK_EQ_U(dw_qp_new(&qp, &s, &none, NULL), DW_ERR_INVAL);
    s.mulpdu = 127;
    CHECK_EQ_U(dw_qp_new(&qp, &s, &cb, NULL), DW_ERR_INVAL);
    s.mulpdu = 1024, s.max_mr = 2;
    CHECK(dw_qp_new(&qp, &s, &cb, NULL) == 0);
    uint8_t b[8];
    uint32_t st[3];
    CHECK(dw_qp_reg_mr(qp, b, 8, 0, 0, &st[0]) == 0);
    CHECK(dw_qp_reg_mr(qp, b, 8, 0, 0, &st[1]) == 0);
    CHECK_EQ_U(dw_qp_reg_mr(qp, b, 8, 0, 0, &st[2]), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_qp_reg_mr(qp, b, 8, UINT64_MAX - 6, 0, &st[2]), DW_ERR_INVAL);
    CHECK(dw_qp_dereg_mr(qp, st[0]) == 0);
    CHECK_EQ_U(dw_qp_dereg_mr(qp, st[0]), DW_ERR_INVAL);
    CHECK(dw_qp_reg_mr(qp, b, 8, 0, 0, &st[2]) == 0 && st[2] != st[0]); /* new key */
    CHECK_EQ_U(dw_qp_send(qp, 0, DW_RDMAP_WRITE, 0, b, 1), DW_ERR_INVAL);
    CHECK_EQ_U(dw_qp_rtr(qp), DW_ERR_STATE);
    dw_qp_del(qp);
    dw_qp_del(NULL);
}

int main(void)
{
    RUN(test_send_segments);
    RUN(test_seg_fill);
    RUN(test_write_read);
    RUN(test_rping_exchange);
    RUN(test_rtr);
    RUN(test_hostile);
    RUN(test_siw_terminate);
    RUN(test_storm);
    RUN(test_args);
    return dw_test_finish();
}
