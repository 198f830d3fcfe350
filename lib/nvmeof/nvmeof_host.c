/* SPDX-License-Identifier: MIT */
/*
 * The NVMe-oF host: queues on queue pairs, commands by Send, responses
 * matched by command id (NVMe-oF 1.1 7.3: RDMA transport binding).
 *
 * A command's data buffer is registered for it alone and advertised in a
 * keyed SGL data block descriptor (address = the region's tagged offset,
 * key = its STag); the target RDMA Writes into it or RDMA Reads from it,
 * and answers with Send, or with Send with Invalidate of that key when the
 * descriptor's subtype asked for it (NVMe-oF 1.1 7.3.4). The region goes
 * at the response, invalidated or not.
 */
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "nvmeof/nvmeof_host_int.h"

void dw_nvmeof_host_settings_default(dw_nvmeof_host_settings *s)
{
    memset(s, 0, sizeof *s);
    s->io_queues = 1;
    s->queue_size = 32;
    s->kato_ms = 5000;
    s->nsid = 1;
    s->invalidate = 1;
}

static int settings_ok(const dw_nvmeof_host_settings *s)
{
    size_t n = s->subnqn ? strlen(s->subnqn) : 0;
    size_t m = s->hostnqn ? strlen(s->hostnqn) : 0;
    return n >= 1 && n <= DW_NVMEOF_NQN_MAX && m <= DW_NVMEOF_NQN_MAX && s->io_queues <= 64 &&
           s->queue_size >= 2 && s->queue_size <= 1024;
}

/* "nqn.2014-08.org.nvmexpress:uuid:" and the host id as a UUID (NVMe 1.4 7.9). */
static void default_hostnqn(char *out, const uint8_t *id)
{
    int n = snprintf(out, DW_NVMEOF_NQN_FIELD, "nqn.2014-08.org.nvmexpress:uuid:");
    for (int i = 0; i < 16; i++)
        n += snprintf(out + n, (size_t)(DW_NVMEOF_NQN_FIELD - n), "%s%02x",
                      i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", id[i]);
}

static int queue_alloc(dw_nvmeof_host *h, nv_queue *q, uint16_t qid, unsigned entries)
{
    q->h = h;
    q->qid = qid;
    q->entries = entries;
    q->slots = dw_mem_calloc(h->s.mem, entries, sizeof *q->slots);
    q->rbuf = dw_mem_calloc(h->s.mem, entries + 1, sizeof *q->rbuf);
    return q->slots && q->rbuf ? 0 : DW_ERR_NOMEM;
}

int dw_nvmeof_host_new(dw_nvmeof_host **ph, const dw_nvmeof_host_settings *settings,
                       const dw_nvmeof_host_callbacks *callbacks, void *user_data)
{
    if (!ph || !settings || !callbacks || !callbacks->send || !settings_ok(settings))
        return DW_ERR_INVAL;
    dw_nvmeof_host *h = dw_mem_calloc(settings->mem, 1, sizeof *h);
    if (!h)
        return DW_ERR_NOMEM;
    h->s = *settings;
    h->cb = *callbacks;
    h->ud = user_data;
    memcpy(h->subnqn, settings->subnqn, strlen(settings->subnqn) + 1);
    if (settings->hostnqn && settings->hostnqn[0])
        memcpy(h->hostnqn, settings->hostnqn, strlen(settings->hostnqn) + 1);
    else
        default_hostnqn(h->hostnqn, settings->hostid);
    h->s.subnqn = h->subnqn;
    h->s.hostnqn = h->hostnqn;
    h->discovery = !strcmp(h->subnqn, DW_NVMEOF_DISCOVERY_NQN);
    h->nq = h->discovery ? 1 : settings->io_queues + 1;
    h->q = dw_mem_calloc(settings->mem, h->nq, sizeof *h->q);
    int rc = h->q ? 0 : DW_ERR_NOMEM;
    for (unsigned i = 0; !rc && i < h->nq; i++)
        rc = queue_alloc(h, &h->q[i], (uint16_t)i, i ? settings->queue_size : NV_AQ_ENTRIES);
    if (rc) {
        dw_nvmeof_host_del(h);
        return rc;
    }
    *ph = h;
    return 0;
}

void dw_nvmeof_host_del(dw_nvmeof_host *h)
{
    if (!h)
        return;
    for (unsigned i = 0; h->q && i < h->nq; i++) {
        dw_qp_del(h->q[i].qp);
        dw_mem_free(h->s.mem, h->q[i].slots);
        dw_mem_free(h->s.mem, h->q[i].rbuf);
    }
    dw_mem_free(h->s.mem, h->q);
    dw_mem_free(h->s.mem, h);
}

static nv_queue *queue_of(const dw_nvmeof_host *h, uint16_t qid)
{
    return h && qid < h->nq ? &h->q[qid] : NULL;
}

int dw_nvh_fail(dw_nvmeof_host *h, const dw_nvmeof_error *e)
{
    if (h->state != DW_NVMEOF_HOST_FAILED && h->cb.on_error)
        h->cb.on_error(h, e, h->ud);
    if (e->kind != DW_NVMEOF_E_STATUS || h->state != DW_NVMEOF_HOST_READY)
        h->state = DW_NVMEOF_HOST_FAILED;
    return e->code;
}

int dw_nvmeof_host_cm_req(dw_nvmeof_host *h, uint16_t qid, uint8_t *out, size_t cap)
{
    nv_queue *q = queue_of(h, qid);
    if (!q)
        return DW_ERR_INVAL;
    if (qid && h->state != DW_NVMEOF_HOST_READY)
        return DW_ERR_STATE;
    if (qid && q->entries > (h->info.cap & 0xffff) + 1) /* CAP.MQES, 0's based */
        q->entries = (unsigned)(h->info.cap & 0xffff) + 1;
    dw_nvmeof_cm_req r = {0, qid, (uint16_t)q->entries, (uint16_t)(q->entries - 1), 0};
    return dw_nvmeof_cm_req_encode(out, cap, &r);
}

/* ---- The queue pair's callbacks ------------------------------------- */

static int qp_send(dw_qp *qp, const uint8_t *hd, size_t hl, const uint8_t *p, size_t pl, void *u)
{
    nv_queue *q = u;
    (void)qp;
    return q->h->cb.send(q->h, q->qid, hd, hl, p, pl, q->h->ud);
}

static size_t qp_seg_max(dw_qp *qp, void *u)
{
    nv_queue *q = u;
    (void)qp;
    return q->h->cb.seg_max ? q->h->cb.seg_max(q->h, q->qid, q->h->ud) : 0;
}

static void qp_term(dw_qp *qp, const dw_rdmap_term *t, int received, void *u)
{
    nv_queue *q = u;
    (void)qp;
    if (q->h->cb.on_terminate)
        q->h->cb.on_terminate(q->h, q->qid, t, received, q->h->ud);
    dw_nvmeof_error e = {DW_NVMEOF_E_QP, DW_ERR_PROTO, q->qid, 0, 0, 0, received,
                         received ? "the target sent a Terminate" : "we sent a Terminate"};
    q->rc = dw_nvh_fail(q->h, &e);
}

/* The response: its slot's region goes (checking an invalidation), the
 * slot is free, then it is the caller's or a step's. */
static int response(nv_queue *q, const dw_nvmeof_cqe *c, const dw_qp_wc *wc)
{
    dw_nvmeof_host *h = q->h;
    unsigned i = c->cid & 0x3ff;
    nv_slot *sl = i < q->entries ? &q->slots[i] : NULL;
    if (!sl || !sl->used || sl->cid != c->cid) {
        dw_nvmeof_error e = {DW_NVMEOF_E_CID, DW_ERR_PROTO, q->qid, c->cid, c->status, 0, 0,
                             "a response to no outstanding command"};
        return dw_nvh_fail(h, &e);
    }
    if (wc->invalidated && (!sl->stag || wc->inv_stag != sl->stag)) {
        dw_nvmeof_error e = {DW_NVMEOF_E_INVALIDATE, DW_ERR_PROTO, q->qid, c->cid, 0, 0,
                             wc->inv_stag, "Send with Invalidate of a key not the command's"};
        return dw_nvh_fail(h, &e);
    }
    if (sl->stag)
        dw_qp_dereg_mr(q->qp, sl->stag);
    nv_slot done = *sl;
    memset(sl, 0, sizeof *sl);
    sl->gen = (uint8_t)(done.gen + 1);
    q->inflight--;
    if (done.kind == NV_KA)
        h->ka_busy = 0;
    if (DW_NVME_STATUS(c->status)) {
        dw_nvmeof_error e = {DW_NVMEOF_E_STATUS, DW_ERR_PROTO, q->qid, c->cid, c->status,
                             done.opcode, 0, done.kind == NV_USER ? "command" : "bring-up"};
        dw_nvh_fail(h, &e);
        if (done.kind != NV_USER)
            return DW_ERR_PROTO;
    }
    if (done.kind == NV_USER) {
        dw_nvmeof_done d = {done.tag, q->qid, *c, wc->invalidated};
        if (h->cb.on_done)
            h->cb.on_done(h, &d, h->ud);
        return 0;
    }
    if (done.kind == NV_CONNECT)
        return dw_nvh_connect_done(h, q, c);
    return done.kind == NV_STEP ? dw_nvh_step_done(h, q, &done, c) : 0;
}

static void qp_wc(dw_qp *qp, const dw_qp_wc *wc, void *u)
{
    nv_queue *q = u;
    if (wc->op != DW_QP_WC_RECV || q->rc)
        return;
    dw_nvmeof_cqe c;
    int short_ = wc->len != DW_NVMEOF_CQE_LEN;
    if (!short_)
        dw_nvmeof_cqe_decode(&c, q->rbuf[wc->wr_id], DW_NVMEOF_CQE_LEN);
    dw_qp_post_recv(qp, wc->wr_id, q->rbuf[wc->wr_id], NV_RBUF);
    if (short_) {
        dw_nvmeof_error e = {DW_NVMEOF_E_SHORT, DW_ERR_PROTO, q->qid, 0, 0, 0, wc->len,
                             "a response capsule not 16 octets"};
        q->rc = dw_nvh_fail(q->h, &e);
        return;
    }
    q->rc = response(q, &c, wc);
}

/* ---- Queues --------------------------------------------------------- */

static int check_accept(dw_nvmeof_host *h, nv_queue *q, const dw_nvmeof_queue_conn *c)
{
    dw_nvmeof_cm_rep rep;
    int rc = dw_nvmeof_cm_rep_decode(&rep, c->pd, c->pd_len);
    const char *what = rc == DW_ERR_NEED_MORE ? "accept private data shorter than 32 octets"
                       : rc < 0               ? "accept record format not 0"
                       : !rep.crqsize         ? "accept CRQSIZE 0"
                                              : NULL;
    if (what) {
        dw_nvmeof_error e = {DW_NVMEOF_E_CM, DW_ERR_PROTO, q->qid, 0, 0, 0,
                             rc == DW_ERR_NEED_MORE ? (uint32_t)c->pd_len
                             : rc < 0               ? rep.recfmt
                                                    : rep.crqsize,
                             what};
        return dw_nvh_fail(h, &e);
    }
    /* a full SQ holds entries - 1; the target's RQ holds crqsize */
    q->depth = q->entries - 1 < rep.crqsize ? q->entries - 1 : rep.crqsize;
    return 0;
}

static int make_qp(dw_nvmeof_host *h, nv_queue *q, const dw_nvmeof_queue_conn *c)
{
    dw_qp_settings qs;
    dw_qp_settings_default(&qs);
    qs.mulpdu = c->mulpdu;
    qs.max_mr = q->entries + 1;
    qs.max_recv = q->entries + 1;
    qs.ord = 1; /* the host never reads */
    qs.rtr_send = c->rtr;
    qs.mem = h->s.mem;
    dw_qp_callbacks cb = {qp_send, qp_wc, qp_term, qp_seg_max};
    int rc = dw_qp_new(&q->qp, &qs, &cb, q);
    for (unsigned i = 0; !rc && i <= q->entries; i++)
        rc = dw_qp_post_recv(q->qp, i, q->rbuf[i], NV_RBUF);
    if (!rc && c->rtr)
        rc = dw_qp_rtr(q->qp);
    return rc;
}

int dw_nvmeof_host_queue_start(dw_nvmeof_host *h, uint16_t qid, const dw_nvmeof_queue_conn *c)
{
    nv_queue *q = queue_of(h, qid);
    if (!q || !c || (c->pd_len && !c->pd))
        return DW_ERR_INVAL;
    if (q->started || h->state == DW_NVMEOF_HOST_FAILED ||
        (qid ? h->state != DW_NVMEOF_HOST_READY : h->state != DW_NVMEOF_HOST_IDLE))
        return DW_ERR_STATE;
    int rc = check_accept(h, q, c);
    if (rc)
        return rc;
    if ((rc = make_qp(h, q, c)))
        return rc;
    q->started = 1;
    if (!qid)
        h->state = DW_NVMEOF_HOST_BRINGUP;
    return dw_nvh_send_connect(q);
}

int dw_nvmeof_host_recv(dw_nvmeof_host *h, uint16_t qid, const uint8_t *ulpdu, size_t len)
{
    nv_queue *q = queue_of(h, qid);
    if (!q || !q->qp)
        return DW_ERR_STATE;
    if (h->state == DW_NVMEOF_HOST_FAILED)
        return DW_ERR_STATE;
    q->rc = 0;
    int rc = dw_qp_recv(q->qp, ulpdu, len);
    return q->rc ? q->rc : rc;
}

/* ---- Commands ------------------------------------------------------- */

static nv_slot *slot_get(nv_queue *q)
{
    for (unsigned n = 0; n < q->entries; n++) {
        unsigned i = (q->next + n) % q->entries;
        if (!q->slots[i].used) {
            q->next = i + 1;
            return &q->slots[i];
        }
    }
    return NULL;
}

static int reg(nv_queue *q, nv_slot *sl, dw_nvmeof_sqe *x, dw_nvmeof_dir dir, void *buf,
               size_t len)
{
    x->sgl = (dw_nvmeof_sgl){0, 0, 0, DW_NVMEOF_SGL_KEYED};
    if (dir == DW_NVMEOF_NONE)
        return 0;
    unsigned acc = dir == DW_NVMEOF_FROM_TARGET ? DW_QP_ACCESS_REMOTE_WRITE
                                                 : DW_QP_ACCESS_REMOTE_READ;
    if (q->h->s.invalidate)
        acc |= DW_QP_ACCESS_REMOTE_INV;
    int rc = dw_qp_reg_mr(q->qp, buf, len, (uintptr_t)buf, acc, &sl->stag);
    if (rc)
        return rc;
    x->sgl = (dw_nvmeof_sgl){(uintptr_t)buf, (uint32_t)len, sl->stag,
                             q->h->s.invalidate ? DW_NVMEOF_SGL_KEYED_INV : DW_NVMEOF_SGL_KEYED};
    return 0;
}

int dw_nvh_submit(nv_queue *q, const dw_nvmeof_sqe *sqe, dw_nvmeof_dir dir, void *buf, size_t len,
              nv_kind kind, uint64_t tag)
{
    if (!q->qp || dw_qp_get_state(q->qp) == DW_QP_TERMINATED)
        return DW_ERR_STATE;
    if (q->inflight >= q->depth)
        return DW_ERR_NOSPACE;
    nv_slot *sl = slot_get(q);
    if (!sl)
        return DW_ERR_NOSPACE;
    dw_nvmeof_sqe x = *sqe;
    x.flags = DW_NVME_FLAGS_SGL;
    x.cid = (uint16_t)((sl->gen & 0x3f) << 10 | (unsigned)(sl - q->slots));
    int rc = reg(q, sl, &x, dir, buf, len);
    if (rc)
        return rc;
    dw_nvmeof_sqe_encode(sl->capsule, sizeof sl->capsule, &x);
    sl->used = 1;
    sl->cid = x.cid;
    sl->opcode = x.opcode;
    sl->kind = kind;
    sl->tag = tag;
    q->inflight++;
    rc = dw_qp_send(q->qp, (uint64_t)(sl - q->slots), DW_RDMAP_SEND, 0, sl->capsule,
                    DW_NVMEOF_SQE_LEN);
    if (rc) { /* not sent: nothing outstanding */
        if (sl->stag)
            dw_qp_dereg_mr(q->qp, sl->stag);
        uint8_t gen = sl->gen;
        memset(sl, 0, sizeof *sl);
        sl->gen = gen;
        q->inflight--;
    }
    return rc;
}

int dw_nvmeof_host_submit(dw_nvmeof_host *h, uint16_t qid, const dw_nvmeof_sqe *sqe,
                          dw_nvmeof_dir dir, void *buf, size_t len, uint64_t tag)
{
    nv_queue *q = queue_of(h, qid);
    if (!q || !sqe || (dir != DW_NVMEOF_NONE && (!buf || !len || len > 0xffffff)) ||
        (unsigned)dir > DW_NVMEOF_TO_TARGET)
        return DW_ERR_INVAL;
    if (!q->live || h->state != DW_NVMEOF_HOST_READY)
        return DW_ERR_STATE;
    return dw_nvh_submit(q, sqe, dir, buf, len, NV_USER, tag);
}

dw_nvmeof_host_state dw_nvmeof_host_get_state(const dw_nvmeof_host *h)
{
    return h ? h->state : DW_NVMEOF_HOST_FAILED;
}

unsigned dw_nvmeof_host_inflight(const dw_nvmeof_host *h, uint16_t qid)
{
    const nv_queue *q = queue_of(h, qid);
    return q ? q->inflight : 0;
}

unsigned dw_nvmeof_host_depth(const dw_nvmeof_host *h, uint16_t qid)
{
    const nv_queue *q = queue_of(h, qid);
    return q ? q->depth : 0;
}

const dw_nvmeof_ctrl_info *dw_nvmeof_host_info(const dw_nvmeof_host *h)
{
    return h ? &h->info : NULL;
}

dw_qp *dw_nvmeof_host_qp(dw_nvmeof_host *h, uint16_t qid)
{
    nv_queue *q = queue_of(h, qid);
    return q ? q->qp : NULL;
}
