/* SPDX-License-Identifier: MIT */
/* RDMAP queue pair (RFC 5040 over RFC 5041): placement, queues, Terminate. */
#include <ddpwire/qp.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(qp_callbacks_v, dw_qp_callbacks, seg_max);
DW_VERSIONS_1(qp_settings_v, dw_qp_settings, mem);

typedef struct mr {
    uint8_t *addr;
    size_t len;
    uint64_t base;
    unsigned access;
    uint32_t stag; /* 0: free slot */
    int valid;     /* 0 once invalidated */
} mr;

typedef struct rq { /* a posted receive buffer */
    uint64_t wr_id;
    uint8_t *buf;
    size_t len;
    uint32_t msg_len;
    int done, se, inv;
    uint32_t inv_stag;
} rq;

typedef struct rd { /* one of our outstanding RDMA Reads */
    uint64_t wr_id;
    uint32_t lstag, len;
    uint64_t lto;
    int rtr; /* the RTR's zero-length Read: no completion */
} rd;

struct dw_qp {
    dw_qp_settings s;
    dw_qp_callbacks cb;
    void *u;
    dw_qp_state state;
    mr *mrs;
    rq *rqs;
    rd *rds;
    unsigned rq_head, rq_n, rd_head, rd_n;
    uint32_t tx_msn[3]; /* next MSN we send on queues 0, 1, 2 */
    uint32_t rx_msn[2]; /* next MSN expected on queues 0 (head buffer) and 1 */
    uint8_t key;        /* STag key octet, bumped per registration */
    int rtr_sent, have_term;
    dw_rdmap_term term;
    uint8_t term_copy[DW_DDP_UNTAGGED_HDR_LEN + DW_RDMAP_READ_REQ_LEN];
    uint8_t hdr[DW_RDMAP_TERM_MAX_LEN + DW_DDP_UNTAGGED_HDR_LEN];
};

static void qp_settings_fill(dw_qp_settings *s)
{
    memset(s, 0, sizeof *s);
    s->mulpdu = 1024;
    s->max_mr = 16;
    s->max_recv = 16;
    s->ord = 4;
}

int dw_qp_settings_default_versioned(int settings_version, dw_qp_settings *s)
{
    dw_qp_settings cur;
    qp_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, qp_settings_v);
}

static int mulpdu_ok(uint32_t m)
{
    return m >= DW_MPA_MULPDU_MIN && m <= DW_MPA_ULPDU_MAX;
}

static int qp_new_latest(dw_qp **pqp, const dw_qp_settings *settings,
                         const dw_qp_callbacks *callbacks, void *user_data)
{
    dw_qp_settings d;
    if (!settings)
        dw_qp_settings_default(&d), settings = &d;
    if (!pqp || !callbacks || !callbacks->send || !callbacks->on_wc ||
        !mulpdu_ok(settings->mulpdu) || !settings->max_mr || settings->max_mr > 0xFFFFFF ||
        !settings->max_recv || !settings->ord)
        return DW_ERR_INVAL;
    dw_qp *qp = dw_mem_calloc(settings->mem, 1, sizeof *qp);
    if (!qp)
        return DW_ERR_NOMEM;
    qp->s.mem = settings->mem; /* for dw_qp_del on failure */
    qp->mrs = dw_mem_calloc(settings->mem, settings->max_mr, sizeof *qp->mrs);
    qp->rqs = dw_mem_calloc(settings->mem, settings->max_recv, sizeof *qp->rqs);
    qp->rds = dw_mem_calloc(settings->mem, settings->ord, sizeof *qp->rds);
    if (!qp->mrs || !qp->rqs || !qp->rds) {
        dw_qp_del(qp);
        return DW_ERR_NOMEM;
    }
    qp->s = *settings;
    qp->cb = *callbacks;
    qp->u = user_data;
    qp->state = settings->rtr_expect ? DW_QP_RTR_WAIT : DW_QP_RTS;
    for (int i = 0; i < 3; i++)
        qp->tx_msn[i] = 1; /* RFC 5041: each queue's MSN starts at 1 */
    qp->rx_msn[0] = qp->rx_msn[1] = 1;
    *pqp = qp;
    return 0;
}

int dw_qp_new_versioned(dw_qp **pqp, int settings_version, const dw_qp_settings *settings,
                        int callbacks_version, const dw_qp_callbacks *callbacks,
                        void *user_data)
{
    dw_qp_settings settings_cur;
    if (settings_version != DW_QP_SETTINGS_VERSION)
        dw_qp_settings_default(&settings_cur);
    dw_qp_callbacks callbacks_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, qp_settings_v, err);
    DW_VERSIONED_IN(callbacks, callbacks_cur, callbacks_version, qp_callbacks_v, err);
    if (err)
        return err;
    return qp_new_latest(pqp, settings, callbacks, user_data);
}

void dw_qp_del(dw_qp *qp)
{
    if (!qp)
        return;
    dw_mem_free(qp->s.mem, qp->mrs);
    dw_mem_free(qp->s.mem, qp->rqs);
    dw_mem_free(qp->s.mem, qp->rds);
    dw_mem_free(qp->s.mem, qp);
}

dw_qp_state dw_qp_state_get(const dw_qp *qp)
{
    return qp->state;
}

int dw_qp_set_mulpdu(dw_qp *qp, uint32_t mulpdu)
{
    if (!qp || !mulpdu_ok(mulpdu))
        return DW_ERR_INVAL;
    qp->s.mulpdu = mulpdu;
    return 0;
}

const dw_rdmap_term *dw_qp_last_term(const dw_qp *qp)
{
    return qp->have_term ? &qp->term : NULL;
}

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* STag = slot + 1 in the upper 24 bits, a key in the low 8 (RFC 5040:
 * the consumer owns the key); never 0. */
static mr *find_mr(dw_qp *qp, uint32_t stag)
{
    uint32_t i = (stag >> 8) - 1;
    if ((stag >> 8) == 0 || i >= qp->s.max_mr || qp->mrs[i].stag != stag)
        return NULL;
    return &qp->mrs[i];
}

int dw_qp_reg_mr(dw_qp *qp, void *addr, size_t len, uint64_t base_to,
                 unsigned access, uint32_t *stag)
{
    if (!qp || !addr || !len || !stag || base_to + len - 1 < base_to)
        return DW_ERR_INVAL;
    for (unsigned i = 0; i < qp->s.max_mr; i++) {
        mr *m = &qp->mrs[i];
        if (m->stag)
            continue;
        *m = (mr){addr, len, base_to, access, (i + 1) << 8 | ++qp->key, 1};
        *stag = m->stag;
        return 0;
    }
    return DW_ERR_NOSPACE;
}

int dw_qp_dereg_mr(dw_qp *qp, uint32_t stag)
{
    mr *m = qp ? find_mr(qp, stag) : NULL;
    if (!m)
        return DW_ERR_INVAL;
    memset(m, 0, sizeof *m);
    return 0;
}

int dw_qp_post_recv(dw_qp *qp, uint64_t wr_id, void *buf, size_t len)
{
    if (!qp || (!buf && len))
        return DW_ERR_INVAL;
    if (qp->rq_n == qp->s.max_recv)
        return DW_ERR_NOSPACE;
    rq *r = &qp->rqs[(qp->rq_head + qp->rq_n++) % qp->s.max_recv];
    memset(r, 0, sizeof *r);
    r->wr_id = wr_id;
    r->buf = buf;
    r->len = len;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

static dw_ddp_hdr base_hdr(unsigned opcode, int tagged)
{
    dw_ddp_hdr h;
    memset(&h, 0, sizeof h);
    h.tagged = tagged;
    h.ddp_ver = DW_DDP_VERSION;
    h.rdmap_ver = DW_RDMAP_VERSION;
    h.opcode = (uint8_t)opcode;
    return h;
}

/* RFC 6581: an initiator's RTR goes first. */
static int can_send(const dw_qp *qp)
{
    return qp->state == DW_QP_RTS && (!qp->s.rtr_send || qp->rtr_sent);
}

/* One message in segments of at most MULPDU (RFC 5041: every segment
 * carries the message's MSN and its offset MO, or TO; L on the last). */
static int send_segments(dw_qp *qp, dw_ddp_hdr *h, const uint8_t *buf, size_t len)
{
    size_t hl = DW_DDP_HDR_LEN(h->tagged), off = 0;
    const dw_ddp_hdr msg = *h;
    do {
        size_t max = qp->cb.seg_max ? qp->cb.seg_max(qp, qp->u) : 0;
        max = max > hl && max <= DW_MPA_ULPDU_MAX ? max : qp->s.mulpdu;
        size_t at = off;
        ssize_t n = dw_ddp_segment_next(h, &msg, len, &off, max);
        if (n < 0)
            return (int)n;
        dw_ddp_encode(qp->hdr, sizeof qp->hdr, h);
        int rc = qp->cb.send(qp, qp->hdr, hl, buf ? buf + at : NULL, (size_t)n, qp->u);
        if (rc)
            return rc;
    } while (off < len);
    return 0;
}

static void complete(dw_qp *qp, dw_qp_wc_op op, uint64_t wr_id, size_t len)
{
    dw_qp_wc wc = {op, wr_id, (uint32_t)len, 0, 0, 0};
    qp->cb.on_wc(qp, &wc, qp->u);
}

int dw_qp_send(dw_qp *qp, uint64_t wr_id, dw_rdmap_opcode op, uint32_t inv_stag,
               const void *buf, size_t len)
{
    if (!qp || (!buf && len) || len > UINT32_MAX ||
        (op != DW_RDMAP_SEND && op != DW_RDMAP_SEND_INV && op != DW_RDMAP_SEND_SE &&
         op != DW_RDMAP_SEND_SE_INV))
        return DW_ERR_INVAL;
    if (!can_send(qp))
        return DW_ERR_STATE;
    dw_ddp_hdr h = base_hdr(op, 0);
    h.qn = DW_RDMAP_QN_SEND;
    h.msn = qp->tx_msn[0]++;
    h.inv_stag = op == DW_RDMAP_SEND_INV || op == DW_RDMAP_SEND_SE_INV ? inv_stag : 0;
    int rc = send_segments(qp, &h, buf, len);
    if (!rc)
        complete(qp, DW_QP_WC_SEND, wr_id, len);
    return rc;
}

int dw_qp_write(dw_qp *qp, uint64_t wr_id, const void *buf, size_t len,
                uint32_t rstag, uint64_t rto)
{
    if (!qp || (!buf && len) || len > UINT32_MAX)
        return DW_ERR_INVAL;
    if (len && rto + (len - 1) < rto)
        return DW_ERR_INVAL; /* RFC 5041 7.2: TO wrap; refused before any segment */
    if (!can_send(qp))
        return DW_ERR_STATE;
    dw_ddp_hdr h = base_hdr(DW_RDMAP_WRITE, 1);
    h.stag = rstag;
    h.to = rto;
    int rc = send_segments(qp, &h, buf, len);
    if (!rc)
        complete(qp, DW_QP_WC_WRITE, wr_id, len);
    return rc;
}

static int send_read_req(dw_qp *qp, const dw_rdmap_read_req *r)
{
    dw_ddp_hdr h = base_hdr(DW_RDMAP_READ_REQ, 0);
    h.last = 1;
    h.qn = DW_RDMAP_QN_READ_REQ;
    h.msn = qp->tx_msn[1]++;
    dw_ddp_encode(qp->hdr, sizeof qp->hdr, &h);
    dw_rdmap_read_req_encode(qp->hdr + DW_DDP_UNTAGGED_HDR_LEN, DW_RDMAP_READ_REQ_LEN, r);
    return qp->cb.send(qp, qp->hdr, DW_DDP_UNTAGGED_HDR_LEN + DW_RDMAP_READ_REQ_LEN, NULL, 0,
                       qp->u);
}

/* Where [to, to + n) lies in m, or NULL: the bounds rule. */
static uint8_t *in_bounds(const mr *m, uint64_t to, size_t n)
{
    if (to < m->base || to - m->base > m->len || n > m->len - (size_t)(to - m->base))
        return NULL;
    return m->addr + (to - m->base);
}

int dw_qp_read(dw_qp *qp, uint64_t wr_id, uint32_t lstag, uint64_t lto,
               uint32_t len, uint32_t rstag, uint64_t rto)
{
    if (!qp)
        return DW_ERR_INVAL;
    mr *m = find_mr(qp, lstag);
    if (!m || !m->valid || !(m->access & DW_QP_ACCESS_LOCAL_WRITE) || !in_bounds(m, lto, len))
        return DW_ERR_INVAL;
    if (!can_send(qp))
        return DW_ERR_STATE;
    if (qp->rd_n == qp->s.ord)
        return DW_ERR_NOSPACE;
    dw_rdmap_read_req r = {lstag, lto, len, rstag, rto};
    int rc = send_read_req(qp, &r);
    if (!rc)
        qp->rds[(qp->rd_head + qp->rd_n++) % qp->s.ord] = (rd){wr_id, lstag, len, lto, 0};
    return rc;
}

int dw_qp_rtr(dw_qp *qp)
{
    if (!qp)
        return DW_ERR_INVAL;
    if (qp->rtr_sent || qp->state != DW_QP_RTS || !qp->s.rtr_send)
        return DW_ERR_STATE;
    qp->rtr_sent = 1;
    dw_ddp_hdr h;
    switch (qp->s.rtr_send) {
    case DW_MPA_RTR_SEND:
        h = base_hdr(DW_RDMAP_SEND, 0);
        h.msn = qp->tx_msn[0]++;
        return send_segments(qp, &h, NULL, 0);
    case DW_MPA_RTR_WRITE:
        h = base_hdr(DW_RDMAP_WRITE, 1); /* STag 0, TO 0 */
        return send_segments(qp, &h, NULL, 0);
    case DW_MPA_RTR_READ: {
        if (qp->rd_n == qp->s.ord)
            return DW_ERR_NOSPACE;
        dw_rdmap_read_req r = {0, 0, 0, 0, 0};
        int rc = send_read_req(qp, &r);
        if (!rc)
            qp->rds[(qp->rd_head + qp->rd_n++) % qp->s.ord] = (rd){0, 0, 0, 0, 1};
        return rc;
    }
    default:
        return DW_ERR_INVAL;
    }
}

/* ------------------------------------------------------------------ */
/* Terminate                                                           */
/* ------------------------------------------------------------------ */

/* Sends t (RFC 5040 4.8: untagged, queue 2, one segment) and stops. */
static int send_term(dw_qp *qp, dw_rdmap_term *t)
{
    dw_ddp_hdr h = base_hdr(DW_RDMAP_TERMINATE, 0);
    h.last = 1;
    h.qn = DW_RDMAP_QN_TERMINATE;
    h.msn = qp->tx_msn[2]++;
    t->swapped = qp->s.term_swapped;
    dw_ddp_encode(qp->hdr, sizeof qp->hdr, &h);
    ssize_t n = dw_rdmap_term_encode(qp->hdr + DW_DDP_UNTAGGED_HDR_LEN,
                                     sizeof qp->hdr - DW_DDP_UNTAGGED_HDR_LEN, t);
    qp->state = DW_QP_TERMINATED;
    qp->term = *t;
    qp->have_term = 1;
    if (qp->cb.on_terminate)
        qp->cb.on_terminate(qp, t, 0, qp->u);
    if (n < 0)
        return (int)n;
    int rc = qp->cb.send(qp, qp->hdr, DW_DDP_UNTAGGED_HDR_LEN + (size_t)n, NULL, 0, qp->u);
    return rc ? rc : DW_ERR_PROTO;
}

int dw_qp_terminate(dw_qp *qp, uint8_t layer, uint8_t etype, uint8_t code)
{
    if (!qp || layer > 15 || etype > 15)
        return DW_ERR_INVAL;
    if (qp->state == DW_QP_TERMINATED)
        return DW_ERR_STATE;
    dw_rdmap_term t;
    memset(&t, 0, sizeof t);
    t.layer = layer, t.etype = etype, t.code = code;
    int rc = send_term(qp, &t);
    return rc == DW_ERR_PROTO ? 0 : rc;
}

/* A Terminate about the received ULPDU: its DDP header copied (D, with
 * the segment length, M), and a Read Request's RDMAP header (R). */
static int term_about(dw_qp *qp, const uint8_t *ulpdu, size_t len, const dw_ddp_hdr *h,
                      uint8_t layer, uint8_t etype, uint8_t code)
{
    dw_rdmap_term t;
    memset(&t, 0, sizeof t);
    t.layer = layer, t.etype = etype, t.code = code;
    size_t hl = DW_DDP_HDR_LEN(h->tagged);
    if (len >= hl && len <= 0xFFFF) {
        int rr = !h->tagged && h->opcode == DW_RDMAP_READ_REQ &&
                 len >= hl + DW_RDMAP_READ_REQ_LEN;
        memcpy(qp->term_copy, ulpdu, hl + (rr ? DW_RDMAP_READ_REQ_LEN : 0));
        t.m = t.d = 1;
        t.ddp_seg_len = (uint16_t)len;
        t.ddp_hdr = qp->term_copy;
        t.ddp_hdr_len = hl;
        if (rr) {
            t.r = 1;
            t.rdma_hdr = qp->term_copy + hl;
            t.rdma_hdr_len = DW_RDMAP_READ_REQ_LEN;
        }
    }
    return send_term(qp, &t);
}

/* ------------------------------------------------------------------ */
/* Receiving                                                           */
/* ------------------------------------------------------------------ */

typedef struct in {
    const uint8_t *ulpdu;
    size_t len;
    dw_rdmap_msg m;
} in;

#define TERM(qp, x, l, e, c) term_about(qp, (x)->ulpdu, (x)->len, &(x)->m.hdr, l, e, c)
#define TERM_DDP_T(qp, x, c) TERM(qp, x, DW_TERM_LAYER_DDP, DW_TERM_DDP_TAGGED, c)
#define TERM_DDP_U(qp, x, c) TERM(qp, x, DW_TERM_LAYER_DDP, DW_TERM_DDP_UNTAGGED, c)
#define TERM_RDMAP(qp, x, e, c) TERM(qp, x, DW_TERM_LAYER_RDMAP, e, c)

/* Tagged placement (RFC 5041 tagged buffer model): STag, access, wrap,
 * bounds, then the copy. Zero octets place nothing and check nothing
 * (the RTR's zero-length Write carries STag 0). */
static int place(dw_qp *qp, const in *x, unsigned need, uint64_t lo, uint64_t hi)
{
    const dw_ddp_hdr *h = &x->m.hdr;
    size_t n = x->m.payload_len;
    if (!n)
        return 0;
    mr *m = find_mr(qp, h->stag);
    if (!m || !m->valid)
        return TERM_DDP_T(qp, x, DW_TERM_DDP_T_INVALID_STAG);
    if (!(m->access & need))
        return TERM_RDMAP(qp, x, DW_TERM_RDMAP_PROTECTION, DW_TERM_RDMAP_ACCESS);
    if (h->to + n < h->to)
        return TERM_DDP_T(qp, x, DW_TERM_DDP_T_TO_WRAP);
    uint8_t *dst = in_bounds(m, h->to, n);
    if (!dst || h->to < lo || h->to + n > hi)
        return TERM_DDP_T(qp, x, DW_TERM_DDP_T_BASE_BOUNDS);
    memcpy(dst, x->m.payload, n);
    return 0;
}

static int on_read_resp(dw_qp *qp, const in *x)
{
    if (!qp->rd_n) /* no Read of ours outstanding */
        return TERM_RDMAP(qp, x, DW_TERM_RDMAP_OPERATION, DW_TERM_RDMAP_OPCODE);
    rd *r = &qp->rds[qp->rd_head];
    if (x->m.payload_len && x->m.hdr.stag != r->lstag)
        return TERM_DDP_T(qp, x, DW_TERM_DDP_T_STAG_NOT_ASSOC);
    int rc = place(qp, x, DW_QP_ACCESS_LOCAL_WRITE, r->lto, r->lto + r->len);
    if (rc || !x->m.hdr.last)
        return rc;
    qp->rd_head = (qp->rd_head + 1) % qp->s.ord;
    qp->rd_n--;
    if (!r->rtr)
        complete(qp, DW_QP_WC_READ, r->wr_id, r->len);
    return 0;
}

/* Read Request (queue 1): answered at once from registered memory. */
static int on_read_req(dw_qp *qp, const in *x)
{
    const dw_rdmap_read_req *r = &x->m.read_req;
    if (x->m.hdr.msn != qp->rx_msn[1])
        return TERM_DDP_U(qp, x, DW_TERM_DDP_U_MSN_RANGE);
    qp->rx_msn[1]++;
    const uint8_t *src = NULL;
    if (r->size) { /* RFC 5040: the data source's checks */
        mr *m = find_mr(qp, r->src_stag);
        if (!m || !m->valid)
            return TERM_RDMAP(qp, x, DW_TERM_RDMAP_PROTECTION, DW_TERM_RDMAP_INVALID_STAG);
        if (!(m->access & DW_QP_ACCESS_REMOTE_READ))
            return TERM_RDMAP(qp, x, DW_TERM_RDMAP_PROTECTION, DW_TERM_RDMAP_ACCESS);
        if (r->src_to + r->size < r->src_to)
            return TERM_RDMAP(qp, x, DW_TERM_RDMAP_PROTECTION, DW_TERM_RDMAP_TO_WRAP);
        if (!(src = in_bounds(m, r->src_to, r->size)))
            return TERM_RDMAP(qp, x, DW_TERM_RDMAP_PROTECTION, DW_TERM_RDMAP_BASE_BOUNDS);
    }
    /* the Read Response's TO: a sink whose octets would wrap the 64-bit TO
     * is refused before any segment goes (RFC 5041 7.2) */
    if (r->size && r->sink_to + (r->size - 1) < r->sink_to)
        return TERM_RDMAP(qp, x, DW_TERM_RDMAP_PROTECTION, DW_TERM_RDMAP_TO_WRAP);
    dw_ddp_hdr h = base_hdr(DW_RDMAP_READ_RESP, 1);
    h.stag = r->sink_stag;
    h.to = r->sink_to;
    return send_segments(qp, &h, src, r->size);
}

/* Completes posted buffers in MSN order. */
static void complete_recvs(dw_qp *qp)
{
    while (qp->rq_n && qp->rqs[qp->rq_head].done) {
        rq *b = &qp->rqs[qp->rq_head];
        qp->rq_head = (qp->rq_head + 1) % qp->s.max_recv;
        qp->rq_n--;
        qp->rx_msn[0]++;
        dw_qp_wc wc = {DW_QP_WC_RECV, b->wr_id, b->msg_len, b->se, b->inv, b->inv_stag};
        qp->cb.on_wc(qp, &wc, qp->u);
    }
}

/* Send on queue 0 (RFC 5041 untagged model): MSN picks the buffer. */
static int on_send(dw_qp *qp, const in *x)
{
    const dw_ddp_hdr *h = &x->m.hdr;
    uint32_t d = h->msn - qp->rx_msn[0];
    if (d >= qp->rq_n) /* behind us, or no buffer posted that far */
        return TERM_DDP_U(qp, x, d < 0x80000000u ? DW_TERM_DDP_U_MSN_NO_BUFFER
                                                 : DW_TERM_DDP_U_MSN_RANGE);
    rq *b = &qp->rqs[(qp->rq_head + d) % qp->s.max_recv];
    size_t n = x->m.payload_len;
    if (b->done)
        return TERM_DDP_U(qp, x, DW_TERM_DDP_U_MSN_RANGE);
    if (h->mo > b->len || n > b->len - h->mo)
        return TERM_DDP_U(qp, x, DW_TERM_DDP_U_TOO_LONG);
    if (n)
        memcpy(b->buf + h->mo, x->m.payload, n);
    if (!h->last)
        return 0;
    unsigned op = h->opcode;
    if (op == DW_RDMAP_SEND_INV || op == DW_RDMAP_SEND_SE_INV) {
        mr *m = find_mr(qp, h->inv_stag);
        if (!m || !m->valid || !(m->access & DW_QP_ACCESS_REMOTE_INV))
            return TERM_RDMAP(qp, x, DW_TERM_RDMAP_OPERATION, DW_TERM_RDMAP_CANNOT_INVALIDATE);
        m->valid = 0;
        b->inv = 1;
        b->inv_stag = h->inv_stag;
    }
    b->done = 1;
    b->msg_len = h->mo + (uint32_t)n;
    b->se = op == DW_RDMAP_SEND_SE || op == DW_RDMAP_SEND_SE_INV;
    complete_recvs(qp);
    return 0;
}

/* RFC 6581: the responder's first message must be the agreed RTR. */
static int on_rtr(dw_qp *qp, const in *x)
{
    const dw_ddp_hdr *h = &x->m.hdr;
    int ok = x->m.payload_len == 0 && h->last && !h->mo;
    switch (qp->s.rtr_expect) {
    case DW_MPA_RTR_SEND:
        ok = ok && h->opcode == DW_RDMAP_SEND && h->msn == qp->rx_msn[0];
        break;
    case DW_MPA_RTR_WRITE:
        ok = ok && h->opcode == DW_RDMAP_WRITE;
        break;
    default:
        ok = ok && h->opcode == DW_RDMAP_READ_REQ && x->m.read_req.size == 0;
    }
    if (!ok)
        return TERM(qp, x, DW_TERM_LAYER_LLP, DW_TERM_LLP_MPA, DW_TERM_MPA_NO_MATCHING_RTR);
    qp->state = DW_QP_RTS;
    if (h->opcode == DW_RDMAP_SEND)
        qp->rx_msn[0]++; /* consumed without a posted buffer */
    return h->opcode == DW_RDMAP_READ_REQ ? on_read_req(qp, x) : 0;
}

int dw_qp_recv(dw_qp *qp, const uint8_t *ulpdu, size_t len)
{
    if (!qp || (!ulpdu && len))
        return DW_ERR_INVAL;
    if (qp->state == DW_QP_TERMINATED)
        return DW_ERR_STATE;
    in x;
    memset(&x, 0, sizeof x);
    x.ulpdu = ulpdu;
    x.len = len;
    ssize_t n = dw_rdmap_decode(&x.m, ulpdu, len);
    if (n < 0) { /* too short for its own headers: nothing to copy */
        dw_rdmap_term t;
        memset(&t, 0, sizeof t);
        t.etype = DW_TERM_RDMAP_OPERATION;
        t.code = DW_TERM_RDMAP_UNSPECIFIED;
        return send_term(qp, &t);
    }
    dw_rdmap_reason why = dw_rdmap_validate(&x.m, qp->s.validate_flags);
    if (why != DW_RDMAP_OK) {
        dw_rdmap_term t;
        dw_rdmap_reason_term(&t, why, &x.m.hdr);
        return TERM(qp, &x, t.layer, t.etype, t.code);
    }
    if (x.m.hdr.opcode == DW_RDMAP_TERMINATE) {
        qp->state = DW_QP_TERMINATED;
        qp->term = x.m.term;
        if (x.m.term.ddp_hdr_len)
            memcpy(qp->term_copy, x.m.term.ddp_hdr, x.m.term.ddp_hdr_len);
        if (x.m.term.rdma_hdr_len)
            memcpy(qp->term_copy + x.m.term.ddp_hdr_len, x.m.term.rdma_hdr,
                   x.m.term.rdma_hdr_len);
        qp->term.ddp_hdr = x.m.term.ddp_hdr_len ? qp->term_copy : NULL;
        qp->term.rdma_hdr = x.m.term.rdma_hdr_len ? qp->term_copy + x.m.term.ddp_hdr_len : NULL;
        qp->have_term = 1;
        if (qp->cb.on_terminate)
            qp->cb.on_terminate(qp, &qp->term, 1, qp->u);
        return DW_ERR_PROTO;
    }
    if (qp->state == DW_QP_RTR_WAIT)
        return on_rtr(qp, &x);
    switch (x.m.hdr.opcode) {
    case DW_RDMAP_WRITE:
        return place(qp, &x, DW_QP_ACCESS_REMOTE_WRITE, 0, UINT64_MAX);
    case DW_RDMAP_READ_RESP:
        return on_read_resp(qp, &x);
    case DW_RDMAP_READ_REQ:
        return on_read_req(qp, &x);
    default:
        return on_send(qp, &x);
    }
}
