/* SPDX-License-Identifier: MIT */
/*
 * A Fabrics controller's bring-up on the admin queue (NVMe 1.4 7.6.1 and
 * NVMe-oF 1.1 3.3): Connect (cntlid 0xffff: any), Property Get CAP and
 * VS, Property Set CC (EN=1, 64-octet SQEs, 16-octet CQEs), Property Get
 * CSTS until RDY (within CAP.TO, polled on the caller's clock), Identify
 * Controller, Identify Namespace; then READY. I/O queues Connect with the
 * cntlid the admin Connect gave. Keep Alive every KATO/2 (NVMe 1.4 7.12).
 */
#include <string.h>

#include "nvmeof/nvmeof_host_int.h"

int dw_nvh_send_connect(nv_queue *q)
{
    dw_nvmeof_host *h = q->h;
    dw_nvmeof_connect_data d;
    memset(&d, 0, sizeof d);
    memcpy(d.hostid, h->s.hostid, 16);
    d.cntlid = q->qid ? h->info.cntlid : 0xffff;
    memcpy(d.subnqn, h->subnqn, sizeof d.subnqn);
    memcpy(d.hostnqn, h->hostnqn, sizeof d.hostnqn);
    dw_nvmeof_connect_data_encode(q->cdata, sizeof q->cdata, &d);
    dw_nvmeof_sqe x;
    dw_nvmeof_sqe_connect(&x, q->qid, (uint16_t)(q->entries - 1), q->qid ? 0 : h->s.kato_ms);
    return dw_nvh_submit(q, &x, DW_NVMEOF_TO_TARGET, q->cdata, sizeof q->cdata, NV_CONNECT, 0);
}

int dw_nvh_connect_done(dw_nvmeof_host *h, nv_queue *q, const dw_nvmeof_cqe *c)
{
    q->live = 1;
    if (q->qid) {
        if (h->cb.on_ready)
            h->cb.on_ready(h, q->qid, h->ud);
        return 0;
    }
    h->info.cntlid = (uint16_t)c->result; /* Connect response DW0 15:0 */
    h->step = NV_S_CAP;
    return dw_nvh_step_next(h);
}

static int step_cmd(dw_nvmeof_host *h, dw_nvmeof_sqe *x, void *buf)
{
    h->step_busy = 1;
    int rc = dw_nvh_submit(&h->q[0], x, buf ? DW_NVMEOF_FROM_TARGET : DW_NVMEOF_NONE, buf,
                       buf ? DW_NVMEOF_IDENTIFY_LEN : 0, NV_STEP, h->step);
    if (rc)
        h->step_busy = 0;
    return rc;
}

static void ready(dw_nvmeof_host *h)
{
    h->state = DW_NVMEOF_HOST_READY;
    if (h->cb.on_ready)
        h->cb.on_ready(h, 0, h->ud);
}

/* Sends the current step's command (none while CSTS waits for its poll). */
int dw_nvh_step_next(dw_nvmeof_host *h)
{
    dw_nvmeof_sqe x;
    unsigned css = (h->info.cap >> 43) & 1 ? 6u : 0u; /* CAP.CSS bit 6: all I/O sets */
    switch (h->step) {
    case NV_S_CAP: dw_nvmeof_sqe_prop_get(&x, DW_NVME_REG_CAP, 1); break;
    case NV_S_VS: dw_nvmeof_sqe_prop_get(&x, DW_NVME_REG_VS, 0); break;
    case NV_S_CC:
        h->info.cc = 1u | css << 4 | 6u << 16 | 4u << 20; /* EN, CSS, IOSQES, IOCQES */
        dw_nvmeof_sqe_prop_set(&x, DW_NVME_REG_CC, 0, h->info.cc);
        break;
    case NV_S_CSTS:
        if (h->poll_at && (!h->have_clock || h->now < h->poll_at))
            return 0; /* polled again at a tick */
        dw_nvmeof_sqe_prop_get(&x, DW_NVME_REG_CSTS, 0);
        break;
    case NV_S_ID_CTRL: return dw_nvmeof_sqe_identify(&x, 1, 0), step_cmd(h, &x, h->info.id_raw);
    case NV_S_ID_NS:
        if (h->discovery) {
            h->step = NV_S_DONE;
            return ready(h), 0;
        }
        dw_nvmeof_sqe_identify(&x, 0, h->s.nsid);
        return step_cmd(h, &x, h->ns_raw);
    default: return 0;
    }
    return step_cmd(h, &x, NULL);
}

static int bad_value(dw_nvmeof_host *h, const char *what, uint32_t v)
{
    dw_nvmeof_error e = {DW_NVMEOF_E_CONTROLLER, DW_ERR_PROTO, 0, 0, 0, 0, v, what};
    return dw_nvh_fail(h, &e);
}

/* CAP.TO is in 500 ms units (NVMe 1.4 Figure 67); at least one unit. */
static void cap_done(dw_nvmeof_host *h, uint64_t cap)
{
    h->info.cap = cap;
    uint64_t to = (cap >> 24) & 0xff;
    h->rdy_deadline = h->now + (to ? to : 1) * 500;
}

static int csts_done(dw_nvmeof_host *h, uint32_t csts)
{
    h->info.csts = csts;
    if (csts & 2)
        return bad_value(h, "CSTS.CFS: controller fatal status", csts);
    if (csts & 1)
        return 1;
    h->poll_at = h->now + NV_POLL_MS;
    return 0;
}

static int ids_done(dw_nvmeof_host *h)
{
    if (h->step == NV_S_ID_CTRL) {
        dw_nvmeof_id_ctrl_decode(&h->info.id, h->info.id_raw, DW_NVMEOF_IDENTIFY_LEN);
        return 0;
    }
    if (dw_nvmeof_id_ns_decode(&h->info.ns, h->ns_raw, DW_NVMEOF_IDENTIFY_LEN) < 0)
        return bad_value(h, "Identify Namespace: LBA format invalid", h->ns_raw[26]);
    h->info.have_ns = 1;
    return 0;
}

int dw_nvh_step_done(dw_nvmeof_host *h, nv_queue *q, const nv_slot *sl, const dw_nvmeof_cqe *c)
{
    (void)q, (void)sl;
    h->step_busy = 0;
    int rc = 0;
    switch (h->step) {
    case NV_S_CAP: cap_done(h, c->result); break;
    case NV_S_VS: h->info.vs = (uint32_t)c->result; break;
    case NV_S_CC: break;
    case NV_S_CSTS:
        rc = csts_done(h, (uint32_t)c->result);
        if (rc <= 0) /* an error, or not ready: poll again */
            return rc < 0 ? rc : dw_nvh_step_next(h);
        rc = 0;
        break;
    default: rc = ids_done(h); break;
    }
    if (rc)
        return rc;
    if (++h->step == NV_S_DONE)
        return ready(h), 0;
    return dw_nvh_step_next(h);
}

static int keep_alive(dw_nvmeof_host *h)
{
    uint64_t period = h->s.kato_ms / 2 ? h->s.kato_ms / 2 : 1;
    if (!h->s.kato_ms || h->ka_busy || !h->q[0].live || h->now - h->last_ka < period)
        return 0;
    dw_nvmeof_sqe x;
    dw_nvmeof_sqe_keep_alive(&x);
    int rc = dw_nvh_submit(&h->q[0], &x, DW_NVMEOF_NONE, NULL, 0, NV_KA, 0);
    if (rc == DW_ERR_NOSPACE) /* the admin queue is full: the next tick */
        return 0;
    if (!rc) {
        h->ka_busy = 1;
        h->last_ka = h->now;
    }
    return rc;
}

int dw_nvmeof_host_tick(dw_nvmeof_host *h, uint64_t now_ms, uint64_t *next_ms)
{
    if (!h)
        return DW_ERR_INVAL;
    if (!h->have_clock)
        h->last_ka = now_ms, h->have_clock = 1;
    h->now = now_ms;
    int rc = 0;
    if (h->state == DW_NVMEOF_HOST_BRINGUP && h->step == NV_S_CSTS && !h->step_busy) {
        if (h->rdy_deadline && now_ms > h->rdy_deadline) {
            dw_nvmeof_error e = {DW_NVMEOF_E_TIMEOUT, DW_ERR_TIMEOUT, 0, 0, 0, 0,
                                 h->info.csts, "CSTS.RDY not set within CAP.TO"};
            return dw_nvh_fail(h, &e);
        }
        rc = dw_nvh_step_next(h);
    }
    if (!rc && (h->state == DW_NVMEOF_HOST_READY || h->state == DW_NVMEOF_HOST_BRINGUP))
        rc = keep_alive(h);
    if (next_ms) {
        uint64_t n = h->s.kato_ms ? h->last_ka + (h->s.kato_ms / 2 ? h->s.kato_ms / 2 : 1)
                                  : now_ms + 1000;
        if (h->state == DW_NVMEOF_HOST_BRINGUP && h->step == NV_S_CSTS && h->poll_at < n)
            n = h->poll_at > now_ms ? h->poll_at : now_ms;
        *next_ms = n;
    }
    return rc;
}
