/* SPDX-License-Identifier: MIT */
/* The NVMe-oF host against a small target made of a second queue pair
 * per queue (nvmet-rdma's behaviour: RDMA Read of write data and of the
 * Connect data, RDMA Write of read data, Send with Invalidate when the SGL
 * asks for it). ULPDUs go through FIFOs, so neither side is re-entered. */
#include <ddpwire/nvmeof.h>

#include "test.h"

#define NQ 2
#define BLK 512
#define NBLK 256
#define FIFO 512

typedef struct msg {
    uint8_t b[2048];
    size_t n;
} msg;

typedef struct fifo {
    msg m[FIFO];
    unsigned head, n;
} fifo;

typedef struct tq {
    dw_qp *qp;
    uint8_t rq[8][64];
    uint8_t bounce[65536];
    uint32_t bstag;
    dw_nvmeof_sqe pend; /* the command whose RDMA Read is outstanding */
} tq;

typedef struct world {
    dw_nvmeof_host *h;
    tq t[NQ];
    fifo to_t[NQ], to_h[NQ];
    uint8_t disk[NBLK * BLK];
    uint32_t cc, csts_polls, ready_after; /* RDY once polled this many times */
    unsigned ready[NQ], done, errors, kas;
    dw_nvmeof_error last_err;
    dw_nvmeof_done last_done;
    /* faults: the next response of the target gets one */
    int f_cid, f_short, f_status, f_inv_key, f_connect_status, no_inv;
    uint8_t connect_data[1024];
} world;

static void push(fifo *f, const uint8_t *h, size_t hl, const uint8_t *p, size_t pl)
{
    msg *m = &f->m[(f->head + f->n++) % FIFO];
    memcpy(m->b, h, hl);
    if (pl)
        memcpy(m->b + hl, p, pl);
    m->n = hl + pl;
}

static int h_send(dw_nvmeof_host *h, uint16_t qid, const uint8_t *hd, size_t hl,
                  const uint8_t *p, size_t pl, void *u)
{
    (void)h;
    push(&((world *)u)->to_t[qid], hd, hl, p, pl);
    return 0;
}

static void h_ready(dw_nvmeof_host *h, uint16_t qid, void *u)
{
    (void)h;
    ((world *)u)->ready[qid]++;
}

static void h_done(dw_nvmeof_host *h, const dw_nvmeof_done *d, void *u)
{
    (void)h;
    ((world *)u)->done++;
    ((world *)u)->last_done = *d;
}

static void h_error(dw_nvmeof_host *h, const dw_nvmeof_error *e, void *u)
{
    (void)h;
    ((world *)u)->errors++;
    ((world *)u)->last_err = *e;
}

/* ---- the target ---- */

static world *W;

static int t_send(dw_qp *qp, const uint8_t *hd, size_t hl, const uint8_t *p, size_t pl, void *u)
{
    (void)qp;
    push(&W->to_h[(uintptr_t)u], hd, hl, p, pl);
    return 0;
}

static void respond(unsigned q, const dw_nvmeof_sqe *s, uint64_t result, uint16_t status)
{
    dw_nvmeof_cqe c = {result, 1, (uint16_t)q, s->cid, status};
    uint8_t b[16];
    if (W->f_cid)
        c.cid ^= 0x155, W->f_cid = 0;
    if (W->f_status)
        c.status = (uint16_t)(W->f_status << 1), W->f_status = 0;
    dw_nvmeof_cqe_encode(b, sizeof b, &c);
    size_t n = W->f_short ? 12 : 16;
    W->f_short = 0;
    uint32_t key = s->sgl.key ^ (W->f_inv_key ? 0x100u : 0);
    W->f_inv_key = 0;
    if (s->sgl.type == DW_NVMEOF_SGL_KEYED_INV && s->sgl.len && !W->no_inv)
        dw_qp_send(W->t[q].qp, 0, DW_RDMAP_SEND_INV, key, b, n);
    else
        dw_qp_send(W->t[q].qp, 0, DW_RDMAP_SEND, 0, b, n);
}

static uint64_t prop(world *w, const dw_nvmeof_sqe *s)
{
    switch (s->cdw11) {
    case DW_NVME_REG_CAP: return 0x000008200f00003full; /* MQES 63, TO 15 */
    case DW_NVME_REG_VS: return 0x00010300;
    case DW_NVME_REG_CC: return w->cc;
    case DW_NVME_REG_CSTS: return (w->cc & 1) && ++w->csts_polls > w->ready_after;
    default: return 0;
    }
}

static void identify(unsigned q, const dw_nvmeof_sqe *s)
{
    static uint8_t id[4096];
    memset(id, 0, sizeof id);
    if ((s->cdw10 & 0xff) == 1) {
        memcpy(id + 4, "SERIAL0001          ", 20);
        memcpy(id + 24, "Linux", 5);
        id[78] = 1;
    } else {
        id[1] = NBLK >> 8; /* nsze */
        id[130] = 9;       /* LBAF0: 512 */
    }
    dw_qp_write(W->t[q].qp, 0, id, sizeof id, s->sgl.key, s->sgl.addr);
    respond(q, s, 0, 0);
}

static void command(unsigned q, const dw_nvmeof_sqe *s)
{
    tq *t = &W->t[q];
    int fct = dw_nvmeof_sqe_fctype(s);
    size_t off = (size_t)s->cdw10 * BLK, len = ((s->cdw12 & 0xffff) + 1) * (size_t)BLK;
    if (fct == DW_NVMEOF_FCTYPE_CONNECT || s->opcode == DW_NVME_CMD_WRITE) {
        t->pend = *s; /* data first: RDMA Read it */
        dw_qp_read(t->qp, 0, t->bstag, (uintptr_t)t->bounce, s->sgl.len, s->sgl.key, s->sgl.addr);
    } else if (fct == DW_NVMEOF_FCTYPE_PROP_GET) {
        respond(q, s, prop(W, s), 0);
    } else if (fct == DW_NVMEOF_FCTYPE_PROP_SET) {
        W->cc = s->cdw12;
        respond(q, s, 0, 0);
    } else if (s->opcode == DW_NVME_ADMIN_IDENTIFY) {
        identify(q, s);
    } else if (s->opcode == DW_NVME_CMD_READ) {
        if (off + len > sizeof W->disk)
            return respond(q, s, 0, 0x80 << 1); /* LBA out of range */
        dw_qp_write(t->qp, 0, W->disk + off, len, s->sgl.key, s->sgl.addr);
        respond(q, s, 0, 0);
    } else {
        W->kas += s->opcode == DW_NVME_ADMIN_KEEP_ALIVE;
        respond(q, s, 0, 0);
    }
}

static void read_done(unsigned q)
{
    tq *t = &W->t[q];
    const dw_nvmeof_sqe *s = &t->pend;
    if (s->opcode == DW_NVME_FABRICS) {
        memcpy(W->connect_data, t->bounce, 1024);
        uint16_t st = W->f_connect_status ? (uint16_t)(W->f_connect_status << 1) : 0;
        return respond(q, s, 1, st);
    }
    size_t off = (size_t)s->cdw10 * BLK;
    memcpy(W->disk + off, t->bounce, s->sgl.len);
    respond(q, s, 0, 0);
}

static void t_wc(dw_qp *qp, const dw_qp_wc *wc, void *u)
{
    unsigned q = (unsigned)(uintptr_t)u;
    if (wc->op == DW_QP_WC_READ)
        return read_done(q);
    if (wc->op != DW_QP_WC_RECV)
        return;
    dw_nvmeof_sqe s;
    CHECK_EQ_U(wc->len, 64);
    dw_nvmeof_sqe_decode(&s, W->t[q].rq[wc->wr_id], 64);
    CHECK_EQ_U(s.flags, DW_NVME_FLAGS_SGL);
    dw_qp_post_recv(qp, wc->wr_id, W->t[q].rq[wc->wr_id], 64);
    command(q, &s);
}

static void target_new(world *w, unsigned q)
{
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    s.mulpdu = 1024;
    dw_qp_callbacks cb = {t_send, t_wc, NULL, NULL};
    CHECK(!dw_qp_new(&w->t[q].qp, &s, &cb, (void *)(uintptr_t)q));
    for (unsigned i = 0; i < 8; i++)
        dw_qp_post_recv(w->t[q].qp, i, w->t[q].rq[i], 64);
    dw_qp_reg_mr(w->t[q].qp, w->t[q].bounce, sizeof w->t[q].bounce, (uintptr_t)w->t[q].bounce,
                 DW_QP_ACCESS_LOCAL_WRITE, &w->t[q].bstag);
}

/* Delivers every queued ULPDU both ways until none is left. The host's
 * first error is returned (the rest of that FIFO is dropped). */
static int pump(world *w)
{
    int moved = 1, rc = 0;
    while (moved) {
        moved = 0;
        for (unsigned q = 0; q < NQ; q++) {
            while (w->to_t[q].n) {
                msg *m = &w->to_t[q].m[w->to_t[q].head];
                w->to_t[q].head = (w->to_t[q].head + 1) % FIFO, w->to_t[q].n--;
                dw_qp_recv(w->t[q].qp, m->b, m->n);
                moved = 1;
            }
            while (w->to_h[q].n) {
                msg *m = &w->to_h[q].m[w->to_h[q].head];
                w->to_h[q].head = (w->to_h[q].head + 1) % FIFO, w->to_h[q].n--;
                int r = dw_nvmeof_host_recv(w->h, (uint16_t)q, m->b, m->n);
                if (r && !rc)
                    rc = r;
                moved = 1;
            }
        }
    }
    return rc;
}

static const dw_nvmeof_host_callbacks HCB = {h_send, NULL, h_ready, h_done, h_error, NULL};

static world *world_new(int invalidate, uint32_t ready_after)
{
    world *w = calloc(1, sizeof *w);
    W = w;
    w->ready_after = ready_after;
    dw_nvmeof_host_settings s;
    dw_nvmeof_host_settings_default(&s);
    s.subnqn = "nqn.2024-01.org.ddpwire:siw-ram0";
    s.hostid[0] = 0xc8;
    s.queue_size = 128; /* more than CAP.MQES allows: clamped to 64 */
    s.invalidate = invalidate;
    CHECK(!dw_nvmeof_host_new(&w->h, &s, &HCB, w));
    for (unsigned q = 0; q < NQ; q++)
        target_new(w, q);
    return w;
}

static void world_del(world *w)
{
    dw_nvmeof_host_del(w->h);
    for (unsigned q = 0; q < NQ; q++)
        dw_qp_del(w->t[q].qp);
    free(w);
}

static int start(world *w, uint16_t qid, uint16_t crqsize)
{
    uint8_t pd[32], rep[32];
    CHECK_EQ_U(dw_nvmeof_host_cm_req(w->h, qid, pd, sizeof pd), 32);
    dw_nvmeof_cm_rep r = {0, crqsize};
    dw_nvmeof_cm_rep_encode(rep, sizeof rep, &r);
    dw_nvmeof_queue_conn c = {1024, DW_MPA_RTR_NONE, 16, rep, 32};
    return dw_nvmeof_host_queue_start(w->h, qid, &c);
}

/* Connect .. Identify, then the I/O queue; returns 0 when both are up. */
static int bring_up(world *w)
{
    uint64_t now = 1000;
    CHECK(!start(w, 0, 32));
    CHECK_EQ_U(dw_nvmeof_host_get_state(w->h), DW_NVMEOF_HOST_BRINGUP);
    for (int i = 0; i < 100 && dw_nvmeof_host_get_state(w->h) == DW_NVMEOF_HOST_BRINGUP; i++) {
        pump(w);
        dw_nvmeof_host_tick(w->h, now += 10, NULL);
    }
    if (dw_nvmeof_host_get_state(w->h) != DW_NVMEOF_HOST_READY)
        return -1;
    CHECK(!start(w, 1, 64));
    pump(w);
    return w->ready[1] == 1 ? 0 : -1;
}

static void test_bringup_connect_data(void)
{
    world *w = world_new(1, 3);
    uint8_t pd[32];
    CHECK_EQ_U(dw_nvmeof_host_cm_req(w->h, 1, pd, sizeof pd), DW_ERR_STATE);
    CHECK(!bring_up(w));
    CHECK_EQ_U(w->ready[0], 1);
    CHECK_EQ_U(w->errors, 0);
    const dw_nvmeof_ctrl_info *in = dw_nvmeof_host_info(w->h);
    CHECK_EQ_U(in->cntlid, 1);
    CHECK_EQ_U(in->vs, 0x00010300);
    CHECK_EQ_U(in->cc, 0x00460061); /* as Linux sets it (capture frame 21) */
    CHECK_EQ_U(w->csts_polls, 4);  /* three not ready, then RDY */
    CHECK(!strcmp(in->id.sn, "SERIAL0001"));
    CHECK(in->have_ns && in->ns.nsze == NBLK && in->ns.lba_size == 512);
    /* the Connect data the target read: hostid, cntlid of the I/O queue, NQNs */
    dw_nvmeof_connect_data d;
    CHECK_EQ_U(dw_nvmeof_connect_data_decode(&d, w->connect_data, 1024), 1024);
    CHECK_EQ_U(d.cntlid, 1);
    CHECK_EQ_U(d.hostid[0], 0xc8);
    CHECK(!strcmp(d.hostnqn, "nqn.2014-08.org.nvmexpress:uuid:c8000000-0000-0000-0000-000000000000"));
    /* the I/O queue was asked with CAP.MQES + 1 entries, not 128 */
    CHECK_EQ_U(dw_nvmeof_host_cm_req(w->h, 1, pd, sizeof pd), 32);
    CHECK(pd[4] == 64 && pd[6] == 63);
    CHECK_EQ_U(dw_nvmeof_host_depth(w->h, 1), 63);
    world_del(w);
}

static void rw(world *w, int inv)
{
    static uint8_t out[8 * BLK], in[8 * BLK];
    uint64_t seed = 7 + (uint64_t)inv;
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)dw_rand(&seed);
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_rw(&s, 1, 1, 16, 8);
    CHECK(!dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_TO_TARGET, out, sizeof out, 11));
    pump(w);
    CHECK_EQ_U(w->last_done.tag, 11);
    CHECK_EQ_U(w->last_done.invalidated, inv);
    CHECK(!memcmp(w->disk + 16 * BLK, out, sizeof out));
    dw_nvmeof_sqe_rw(&s, 0, 1, 16, 8);
    CHECK(!dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, in, sizeof in, 12));
    pump(w);
    CHECK_EQ_U(w->last_done.tag, 12);
    CHECK(!memcmp(in, out, sizeof in));
    CHECK_EQ_U(dw_nvmeof_host_inflight(w->h, 1), 0);
}

static void test_write_read_back(void)
{
    for (int inv = 0; inv < 2; inv++) {
        world *w = world_new(inv, 0);
        CHECK(!bring_up(w));
        rw(w, inv);
        rw(w, inv); /* the regions went: they can be registered again */
        CHECK_EQ_U(w->errors, 0);
        world_del(w);
    }
}

/* Commands outstanding stop at the depth; a completion frees one. */
static void test_queue_depth_bound(void)
{
    world *w = world_new(1, 0);
    CHECK(!bring_up(w));
    static uint8_t buf[64][BLK];
    dw_nvmeof_sqe s;
    unsigned n = 0;
    for (; n < 64; n++) {
        dw_nvmeof_sqe_rw(&s, 0, 1, n, 1);
        if (dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, buf[n], BLK, n))
            break;
    }
    CHECK_EQ_U(n, 63);
    CHECK_EQ_U(dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, buf[63], BLK, 63),
               DW_ERR_NOSPACE);
    pump(w);
    CHECK_EQ_U(w->done, 63);
    CHECK(!dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, buf[63], BLK, 63));
    pump(w);
    CHECK_EQ_U(w->done, 64);
    world_del(w);
}

static void test_status_reported(void)
{
    world *w = world_new(1, 0);
    CHECK(!bring_up(w));
    static uint8_t b[BLK];
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_rw(&s, 0, 1, NBLK, 1); /* past the end */
    CHECK(!dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, b, BLK, 5));
    pump(w);
    CHECK_EQ_U(w->errors, 1);
    CHECK_EQ_U(w->last_err.kind, DW_NVMEOF_E_STATUS);
    CHECK(!strcmp(dw_nvmeof_status_str(w->last_err.status, 0), "LBA out of range"));
    CHECK_EQ_U(w->last_done.tag, 5);
    CHECK_EQ_U(DW_NVME_SC(w->last_done.cqe.status), 0x80);
    CHECK_EQ_U(dw_nvmeof_host_get_state(w->h), DW_NVMEOF_HOST_READY); /* a command's error */
    world_del(w);
}

/* A fault: one response of the target broken; the host reports it, fails. */
static void fault(int which, dw_nvmeof_err_kind kind)
{
    world *w = world_new(1, 0);
    CHECK(!bring_up(w));
    static uint8_t b[BLK];
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_rw(&s, 0, 1, 0, 1);
    w->f_cid = which == 0;
    w->f_short = which == 1;
    w->f_inv_key = which == 2;
    CHECK(!dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, b, BLK, 1));
    int rc = pump(w);
    CHECK_EQ_U(w->errors, 1);
    CHECK_EQ_U(w->last_err.kind, kind);
    CHECK(rc < 0);
    CHECK_EQ_U(dw_nvmeof_host_get_state(w->h), DW_NVMEOF_HOST_FAILED);
    CHECK_EQ_U(dw_nvmeof_host_submit(w->h, 1, &s, DW_NVMEOF_FROM_TARGET, b, BLK, 2),
               DW_ERR_STATE);
    world_del(w);
}

static void test_bad_responses(void)
{
    fault(0, DW_NVMEOF_E_CID);
    fault(1, DW_NVMEOF_E_SHORT);
    fault(2, DW_NVMEOF_E_QP); /* another key: the queue pair refuses it (Terminate) */
}

static void test_connect_refused(void)
{
    world *w = world_new(1, 0);
    w->f_connect_status = 0x184; /* connect invalid host */
    CHECK(!start(w, 0, 32));
    CHECK(pump(w) == DW_ERR_PROTO);
    CHECK_EQ_U(w->last_err.kind, DW_NVMEOF_E_STATUS);
    CHECK(!strcmp(dw_nvmeof_status_str(w->last_err.status, 1), "connect invalid host"));
    CHECK_EQ_U(dw_nvmeof_host_get_state(w->h), DW_NVMEOF_HOST_FAILED);
    world_del(w);
}

static void test_bad_accept(void)
{
    world *w = world_new(1, 0);
    uint8_t rep[32] = {1}; /* record format 1 */
    dw_nvmeof_queue_conn c = {1024, DW_MPA_RTR_NONE, 16, rep, 32};
    CHECK_EQ_U(dw_nvmeof_host_queue_start(w->h, 0, &c), DW_ERR_PROTO);
    CHECK_EQ_U(w->last_err.kind, DW_NVMEOF_E_CM);
    world_del(w);
    w = world_new(1, 0);
    c.pd_len = 4;
    CHECK_EQ_U(dw_nvmeof_host_queue_start(w->h, 0, &c), DW_ERR_PROTO);
    CHECK_EQ_U(w->last_err.value, 4);
    world_del(w);
}

/* CSTS.RDY never set: the bring-up fails past CAP.TO (15 x 500 ms). */
static void test_ready_timeout(void)
{
    world *w = world_new(1, 1u << 30);
    CHECK(!start(w, 0, 32));
    uint64_t now = 0;
    int rc = 0;
    for (int i = 0; i < 2000 && !rc; i++) {
        pump(w);
        rc = dw_nvmeof_host_tick(w->h, now += 10, NULL);
    }
    CHECK_EQ_U(rc, DW_ERR_TIMEOUT);
    CHECK_EQ_U(w->last_err.kind, DW_NVMEOF_E_TIMEOUT);
    CHECK(now >= 7500 && now <= 7600);
    world_del(w);
}

static void test_keep_alive(void)
{
    world *w = world_new(1, 0);
    CHECK(!bring_up(w));
    uint64_t next = 0;
    dw_nvmeof_host_tick(w->h, 2000, &next);
    pump(w);
    unsigned k0 = w->kas;
    dw_nvmeof_host_tick(w->h, 1000 + 2499, NULL); /* KATO 5000: every 2500 */
    pump(w);
    CHECK_EQ_U(w->kas, k0);
    dw_nvmeof_host_tick(w->h, 1000 + 2600, &next);
    pump(w);
    CHECK_EQ_U(w->kas, k0 + 1);
    CHECK_EQ_U(next, 1000 + 2600 + 2500);
    CHECK_EQ_U(w->errors, 0);
    world_del(w);
}

static void test_args(void)
{
    dw_nvmeof_host *h;
    dw_nvmeof_host_settings s;
    dw_nvmeof_host_settings_default(&s);
    CHECK_EQ_U(dw_nvmeof_host_new(&h, &s, &HCB, NULL), DW_ERR_INVAL); /* no NQN */
    s.subnqn = DW_NVMEOF_DISCOVERY_NQN;
    s.queue_size = 1;
    CHECK_EQ_U(dw_nvmeof_host_new(&h, &s, &HCB, NULL), DW_ERR_INVAL);
    s.queue_size = 32;
    CHECK(!dw_nvmeof_host_new(&h, &s, &HCB, NULL));
    uint8_t pd[32];
    CHECK_EQ_U(dw_nvmeof_host_cm_req(h, 1, pd, sizeof pd), DW_ERR_INVAL);
    CHECK_EQ_U(dw_nvmeof_host_recv(h, 0, pd, 4), DW_ERR_STATE);
    dw_nvmeof_host_del(h);
    dw_nvmeof_host_del(NULL);
}

int main(void)
{
    RUN(test_bringup_connect_data);
    RUN(test_write_read_back);
    RUN(test_queue_depth_bound);
    RUN(test_status_reported);
    RUN(test_bad_responses);
    RUN(test_connect_refused);
    RUN(test_bad_accept);
    RUN(test_ready_timeout);
    RUN(test_keep_alive);
    RUN(test_args);
    return dw_test_finish();
}
