/* SPDX-License-Identifier: MIT */
/* A simulated InfiniBand fabric for IPoIB nodes: deterministic, seeded,
 * driven one message per step. Hosts on the nodes ping, echo and move bulk
 * UDP data (lib/sim/ipoib_host.c). */
#include <ddpwire/ipoib_node.h>

#include <stdlib.h>
#include <string.h>

#include "ipoib_sim_internal.h"
#include "sim_mem.h"

void dw_ipoib_fabric_settings_default(dw_ipoib_fabric_settings *s)
{
    memset(s, 0, sizeof *s);
    s->seed = 1;
    s->max_hosts = 8;
    s->ring_bytes = 6u << 20;
    s->defer_permille = 200;
    s->ud_mtu = DW_IPOIB_UD_MTU;
    s->conn_max = 1u << 20;
}

uint64_t dw_ipoib_sim_rand(dw_ipoib_fabric *f)
{
    uint64_t x = f->rng; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    f->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

int dw_ipoib_fabric_new(dw_ipoib_fabric **pf, const dw_ipoib_fabric_settings *s,
                        const dw_ipoib_fabric_callbacks *cb, void *user_data)
{
    dw_ipoib_fabric_settings d;
    if (!pf)
        return DW_ERR_INVAL;
    if (!s) {
        dw_ipoib_fabric_settings_default(&d);
        s = &d;
    }
    if (!s->max_hosts || s->conn_max < 65536 + REC_HDR ||
        s->ring_bytes < 3 * (s->conn_max + REC_HDR) || s->ud_mtu < DW_IPOIB_MTU_MIN)
        return DW_ERR_INVAL;
    dw_ipoib_fabric *f = dw_sim_calloc(s->mem, 1, sizeof *f);
    if (!f)
        return DW_ERR_NOMEM;
    f->s = *s;
    if (cb)
        f->cb = *cb;
    f->ud = user_data;
    f->rng = s->seed ? s->seed : 1;
    f->ring = dw_sim_malloc(s->mem, s->ring_bytes);
    f->scratch = dw_sim_malloc(s->mem, s->conn_max + REC_HDR + 8);
    f->pkt = dw_sim_malloc(s->mem, 65536);
    f->hosts = dw_sim_calloc(s->mem, s->max_hosts, sizeof *f->hosts);
    if (!f->ring || !f->scratch || !f->pkt || !f->hosts) {
        dw_ipoib_fabric_del(f);
        return DW_ERR_NOMEM;
    }
    f->wrap = SIZE_MAX;
    *pf = f;
    return 0;
}

void dw_ipoib_fabric_del(dw_ipoib_fabric *f)
{
    if (!f)
        return;
    const dw_mem *m = f->s.mem;
    for (unsigned i = 0; f->hosts && i < f->n_hosts; i++)
        dw_ipoib_node_del(f->hosts[i].node);
    dw_sim_free(m, f->hosts);
    dw_sim_free(m, f->ring);
    dw_sim_free(m, f->scratch);
    dw_sim_free(m, f->pkt);
    dw_sim_free(m, f);
}

dw_ipoib_node *dw_ipoib_fabric_node(dw_ipoib_fabric *f, int host)
{
    return host >= 0 && (unsigned)host < f->n_hosts ? f->hosts[host].node : NULL;
}

uint64_t dw_ipoib_fabric_now(const dw_ipoib_fabric *f)
{
    return f->now;
}

const dw_ipoib_fabric_stats *dw_ipoib_fabric_stats_get(const dw_ipoib_fabric *f)
{
    return &f->st;
}

int dw_ipoib_sim_node_rc(dw_ipoib_fabric *f, int rc, const char *call)
{
    if (rc >= 0)
        return rc;
    f->st.node_errors++;
    if (!f->err)
        f->err = rc, f->err_call = call;
    if (rc == DW_ERR_NOMEM && !f->fatal)
        f->fatal = rc;
    return rc;
}

int dw_ipoib_fabric_error(const dw_ipoib_fabric *f, const char **call)
{
    if (call)
        *call = f->err_call;
    return f->err;
}

/* ---- the ring of messages in flight: records never split, FIFO ---- */

static size_t rec_size(size_t len)
{
    return (REC_HDR + len + 7) & ~(size_t)7;
}

static uint8_t *ring_alloc(dw_ipoib_fabric *f, size_t size)
{
    if (!f->count)
        f->head = f->tail = 0, f->wrap = SIZE_MAX;
    uint8_t *p = NULL;
    if (f->tail >= f->head && f->s.ring_bytes - f->tail >= size) {
        p = f->ring + f->tail;
        f->tail += size;
    } else if (f->tail >= f->head && f->head > size) {
        f->wrap = f->tail; /* the readable region ends here */
        p = f->ring;
        f->tail = size;
    } else if (f->tail < f->head && f->head - f->tail > size) {
        p = f->ring + f->tail;
        f->tail += size;
    }
    if (p)
        f->count++;
    return p;
}

size_t dw_ipoib_sim_ring_free(const dw_ipoib_fabric *f)
{
    if (!f->count)
        return f->s.ring_bytes;
    if (f->tail >= f->head) {
        size_t end = f->s.ring_bytes - f->tail;
        return end > f->head ? end : f->head;
    }
    return f->head - f->tail;
}

static void ring_pop(dw_ipoib_fabric *f)
{
    rec_hdr h;
    memcpy(&h, f->ring + f->head, sizeof h);
    f->head += h.size;
    if (!--f->count)
        f->head = f->tail = 0, f->wrap = SIZE_MAX;
    else if (f->head == f->wrap)
        f->head = 0, f->wrap = SIZE_MAX;
}

int dw_ipoib_sim_push(dw_ipoib_fabric *f, const rec_hdr *h0, const void *a, size_t alen,
                   const void *b, size_t blen)
{
    size_t size = rec_size(alen + blen);
    if (alen + blen > f->s.conn_max)
        return DW_ERR_TOO_LONG;
    uint8_t *p = ring_alloc(f, size);
    if (!p) {
        f->st.ring_full++;
        return DW_ERR_NOSPACE;
    }
    rec_hdr h = *h0;
    h.size = (uint32_t)size;
    h.len = (uint32_t)(alen + blen);
    memcpy(p, &h, sizeof h);
    if (alen)
        memcpy(p + REC_HDR, a, alen);
    if (blen)
        memcpy(p + REC_HDR + alen, b, blen);
    return 0;
}

/* ---- node callbacks: the hardware puts messages on the wire ---- */

/* The post hook's verdict on a message host src posts: 0 or its error. */
static int post_refused(const sim_host *src, dw_ipoib_msg_kind kind, size_t len)
{
    dw_ipoib_fabric *f = src->f;
    int r = f->cb.post ? f->cb.post(f, src->idx, kind, len, f->ud) : 0;
    return r < 0 ? r : 0;
}

static void hdr_from(rec_hdr *h, const sim_host *src, int kind, const uint8_t *dgid)
{
    memset(h, 0, sizeof *h);
    h->kind = (uint8_t)kind;
    h->src = (int16_t)src->idx;
    memcpy(h->sgid, dw_ipoib_node_settings_get(src->node)->gid, DW_IPOIB_GID_LEN);
    memcpy(h->dgid, dgid, DW_IPOIB_GID_LEN);
}

static int cb_send_ud(dw_ipoib_node *n, const dw_ipoib_ud *to, uint16_t type,
                      const uint8_t *pkt, size_t len, void *ud)
{
    sim_host *src = ud;
    rec_hdr h;
    uint8_t eh[DW_IPOIB_HDR_LEN];
    dw_ipoib_hdr ih = {type, 0};
    (void)n;
    int r = post_refused(src, DW_IPOIB_MSG_UD, sizeof eh + len);
    if (r)
        return r;
    hdr_from(&h, src, DW_IPOIB_MSG_UD, to->dgid);
    h.sqpn = to->sqpn;
    h.dqpn = to->dqpn;
    dw_ipoib_hdr_encode(eh, sizeof eh, &ih);
    return dw_ipoib_sim_push(src->f, &h, eh, sizeof eh, pkt, len);
}

static int cb_send_cm(dw_ipoib_node *n, const uint8_t *dgid, const dw_ipoib_cm_msg *m, void *ud)
{
    sim_host *src = ud;
    rec_hdr h;
    (void)n;
    int r = post_refused(src, DW_IPOIB_MSG_CM, sizeof *m);
    if (r)
        return r;
    hdr_from(&h, src, DW_IPOIB_MSG_CM, dgid);
    h.sqpn = h.dqpn = 1; /* CM MADs travel on QP1 */
    return dw_ipoib_sim_push(src->f, &h, m, sizeof *m, NULL, 0);
}

static int cb_send_conn(dw_ipoib_node *n, const uint8_t *dgid, uint32_t dqpn, uint32_t sqpn,
                        uint16_t type, const uint8_t *pkt, size_t len, void *ud)
{
    sim_host *src = ud;
    rec_hdr h;
    uint8_t eh[DW_IPOIB_HDR_LEN];
    dw_ipoib_hdr ih = {type, 0};
    (void)n;
    int r = post_refused(src, DW_IPOIB_MSG_CONN, sizeof eh + len);
    if (r)
        return r;
    hdr_from(&h, src, DW_IPOIB_MSG_CONN, dgid);
    h.sqpn = sqpn;
    h.dqpn = dqpn;
    dw_ipoib_hdr_encode(eh, sizeof eh, &ih);
    return dw_ipoib_sim_push(src->f, &h, eh, sizeof eh, pkt, len);
}

static void cb_event(dw_ipoib_node *n, const dw_ipoib_event *ev, void *ud)
{
    sim_host *h = ud;
    (void)n;
    if (h->f->cb.on_event)
        h->f->cb.on_event(h->f, h->idx, ev, h->f->ud);
}

int dw_ipoib_fabric_add_host(dw_ipoib_fabric *f, const dw_ipoib_node_settings *s0)
{
    if (!f || !s0)
        return DW_ERR_INVAL;
    if (f->n_hosts >= f->s.max_hosts)
        return DW_ERR_NOSPACE;
    dw_ipoib_node_settings s = *s0;
    sim_host *h = &f->hosts[f->n_hosts];
    if (!s.qpn) { /* seeded addresses: QPN, GID, connected and service QPNs */
        uint64_t r = dw_ipoib_sim_rand(f);
        s.qpn = (uint32_t)(0x010000u * (f->n_hosts + 1) + 0x40 + (r & 0x3fu) * 0x100);
        s.conn_qpn_base = s.qpn + 0x10;
        for (size_t i = 0; i < s.n_services; i++)
            s.services[i].qpn = s.qpn + 1 + (uint32_t)i;
        static const uint8_t prefix[8] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0};
        memcpy(s.gid, prefix, 8);
        s.gid[8] = 0x00;
        s.gid[9] = 0x02;
        s.gid[10] = 0xc9;
        s.gid[11] = 0x03;
        s.gid[12] = (uint8_t)(r >> 8);
        s.gid[13] = (uint8_t)(r >> 16);
        s.gid[14] = (uint8_t)(r >> 24);
        s.gid[15] = (uint8_t)(f->n_hosts + 1);
    }
    dw_ipoib_node_callbacks cb = {cb_send_ud, cb_send_cm, cb_send_conn, dw_ipoib_host_deliver,
                                  cb_event};
    if (!s.mem)
        s.mem = f->s.mem;
    memset(h, 0, sizeof *h);
    h->f = f;
    h->idx = (int)f->n_hosts;
    int r = dw_ipoib_node_new(&h->node, &s, &cb, h);
    if (r < 0)
        return r;
    return (int)f->n_hosts++;
}

int dw_ipoib_fabric_inject_ud(dw_ipoib_fabric *f, int host_idx, const dw_ipoib_ud *to,
                              const uint8_t *frame, size_t len)
{
    if (!f || host_idx < 0 || (unsigned)host_idx >= f->n_hosts || !to || !to->dgid)
        return DW_ERR_INVAL;
    rec_hdr h;
    hdr_from(&h, &f->hosts[host_idx], DW_IPOIB_MSG_UD, to->dgid);
    /* the fabric stamps the true source, as the hardware does */
    h.sqpn = dw_ipoib_node_settings_get(f->hosts[host_idx].node)->qpn;
    h.dqpn = to->dqpn;
    return dw_ipoib_sim_push(f, &h, frame, len, NULL, 0);
}

/* ---- delivery ---- */

static sim_host *host_by_gid(dw_ipoib_fabric *f, const uint8_t *gid)
{
    for (unsigned i = 0; i < f->n_hosts; i++)
        if (!memcmp(dw_ipoib_node_settings_get(f->hosts[i].node)->gid, gid, DW_IPOIB_GID_LEN))
            return &f->hosts[i];
    return NULL;
}

static void deliver_to(dw_ipoib_fabric *f, sim_host *d, const dw_ipoib_msg *m)
{
    dw_ipoib_ud from = {m->dgid, m->dqpn, m->sgid, m->sqpn};
    if (m->kind == DW_IPOIB_MSG_UD)
        dw_ipoib_sim_node_rc(f, dw_ipoib_node_input_ud(d->node, &from, m->data, m->len, f->now),
                             "dw_ipoib_node_input_ud");
    else if (m->kind == DW_IPOIB_MSG_CM)
        dw_ipoib_sim_node_rc(f, dw_ipoib_node_input_cm(d->node, m->sgid, m->cm, f->now),
                             "dw_ipoib_node_input_cm");
    else
        dw_ipoib_sim_node_rc(f,
                             dw_ipoib_node_input_conn(d->node, m->sgid, m->sqpn, m->dqpn,
                                                      m->data, m->len, f->now),
                             "dw_ipoib_node_input_conn");
}

static void deliver(dw_ipoib_fabric *f, rec_hdr *h, uint8_t *payload)
{
    dw_ipoib_cm_msg cm;
    dw_ipoib_msg m = {0};
    m.kind = (dw_ipoib_msg_kind)h->kind;
    m.src = h->src;
    memcpy(m.sgid, h->sgid, DW_IPOIB_GID_LEN);
    memcpy(m.dgid, h->dgid, DW_IPOIB_GID_LEN);
    m.sqpn = h->sqpn;
    m.dqpn = h->dqpn;
    m.now = f->now;
    if (m.kind == DW_IPOIB_MSG_CM) {
        memcpy(&cm, payload, sizeof cm);
        m.cm = &cm;
    } else {
        m.data = payload;
        m.len = h->len;
    }
    int mcast = m.kind == DW_IPOIB_MSG_UD && dw_ipoib_gid_is_mcast(m.dgid);
    sim_host *d = mcast ? NULL : host_by_gid(f, m.dgid);
    m.dst = d ? d->idx : -1;
    if (m.kind == DW_IPOIB_MSG_UD && m.len > f->s.ud_mtu + DW_IPOIB_HDR_LEN) {
        f->st.ud_oversize++; /* larger than the UD MTU: never arrives */
        return;
    }
    if (!mcast && !d) {
        f->st.unroutable++;
        return;
    }
    if (f->cb.tamper && f->cb.tamper(f, &m, f->ud)) {
        f->st.tampered_drops++;
        return;
    }
    if (f->cb.tap)
        f->cb.tap(f, &m, f->ud);
    f->st.delivered++;
    for (unsigned i = 0; mcast && i < f->n_hosts; i++)
        if ((int)i != m.src) /* every member but the sender */
            deliver_to(f, &f->hosts[i], &m);
    if (d)
        deliver_to(f, d, &m);
}

/* Moves the front message: delivers it, or (UD and CM only, seeded) puts it
 * back behind the others. */
static void move_front(dw_ipoib_fabric *f)
{
    rec_hdr h;
    memcpy(&h, f->ring + f->head, sizeof h);
    int may_defer = h.kind != DW_IPOIB_MSG_CONN && h.defers < 3 && f->s.defer_permille;
    if (may_defer && dw_ipoib_sim_rand(f) % 1000 < f->s.defer_permille) {
        memcpy(f->scratch, f->ring + f->head, h.size);
        ring_pop(f);
        h.defers++;
        f->st.deferred++;
        /* it fits where it was unless the ring wrapped: then it is lost,
         * counted in ring_full (the pair fails) */
        (void)dw_ipoib_sim_push(f, &h, f->scratch + REC_HDR, h.len, NULL, 0);
        return;
    }
    /* copied out: delivery makes nodes send, which may reuse the space */
    memcpy(f->scratch, f->ring + f->head, h.size);
    ring_pop(f);
    deliver(f, &h, f->scratch + REC_HDR);
}

static void tick_all(dw_ipoib_fabric *f)
{
    for (unsigned i = 0; i < f->n_hosts; i++) {
        dw_ipoib_node_tick(f->hosts[i].node, f->now);
        dw_ipoib_sim_node_rc(f, dw_ipoib_node_tick_error(f->hosts[i].node),
                             "dw_ipoib_node_tick");
    }
}

int dw_ipoib_fabric_step(dw_ipoib_fabric *f)
{
    if (f->fatal)
        return f->fatal;
    f->now++;
    f->st.steps++;
    tick_all(f);
    if (f->fatal)
        return f->fatal;
    int gen = 0;
    for (unsigned i = 0; i < f->n_hosts; i++)
        if (dw_ipoib_sim_ring_free(f) >= 2 * (f->s.conn_max + REC_HDR))
            gen |= dw_ipoib_host_generate(&f->hosts[i]);
    if (f->count) {
        move_front(f);
        return f->fatal ? f->fatal : 1;
    }
    if (f->fatal)
        return f->fatal;
    if (gen)
        return 1;
    uint64_t t = UINT64_MAX;
    for (unsigned i = 0; i < f->n_hosts; i++) {
        uint64_t ti = dw_ipoib_node_next_timer(f->hosts[i].node);
        t = ti < t ? ti : t;
    }
    if (t == UINT64_MAX)
        return 0;
    f->now = t > f->now ? t : f->now; /* idle: jump to the next timer */
    tick_all(f);
    return f->fatal ? f->fatal : 1;
}

uint64_t dw_ipoib_fabric_run(dw_ipoib_fabric *f, uint64_t max_steps)
{
    uint64_t n = 0;
    while (n < max_steps && dw_ipoib_fabric_step(f) > 0)
        n++;
    return n;
}

ssize_t dw_ipoib_msg_lt242(const dw_ipoib_msg *m, uint8_t *out, size_t cap)
{
    if (!m || !out || m->kind != DW_IPOIB_MSG_UD)
        return DW_ERR_INVAL;
    if (cap < DW_IPOIB_LT242_LEN + m->len)
        return DW_ERR_NOSPACE;
    dw_ipoib_lt242 h = {0};
    h.grh = dw_ipoib_gid_is_mcast(m->dgid);
    if (h.grh) {
        h.sqpn = m->sqpn;
        memcpy(h.sgid, m->sgid, DW_IPOIB_GID_LEN);
        memcpy(h.dgid, m->dgid, DW_IPOIB_GID_LEN);
    } else {
        h.dst.qpn = m->dqpn;
        memcpy(h.dst.gid, m->dgid, DW_IPOIB_GID_LEN);
    }
    dw_ipoib_lt242_encode(out, cap, &h);
    memcpy(out + DW_IPOIB_LT242_LEN, m->data, m->len);
    return (ssize_t)(DW_IPOIB_LT242_LEN + m->len);
}
