/* SPDX-License-Identifier: MIT */
/* IPoIB node: link set-up with CM REQ/REP/RTU/REJ and SIDR (draft 3.1, 3.2;
 * RFC 4755 profile). Every failure leaves the peer on IPoIB-UD. */
#include <ddpwire/ipoib_node.h>

#include <string.h>

#include "ipoib/ipoib_internal.h"

const char *dw_ipoib_cm_type_name(dw_ipoib_cm_type t)
{
    static const char *const names[] = {"?",    "REQ",  "REP",      "RTU",
                                        "REJ",  "DREQ", "DREP",     "SIDR_REQ",
                                        "SIDR_REP"};
    return (unsigned)t <= DW_IPOIB_CM_SIDR_REP ? names[t] : "?";
}

size_t dw_ipoib_cm_pd_size(dw_ipoib_cm_type t)
{
    /* InfiniBand CM private data sizes */
    static const uint8_t size[] = {0, 92, 196, 224, 148, 220, 224, 216, 136};
    return (unsigned)t <= DW_IPOIB_CM_SIDR_REP ? size[t] : 0;
}

static void msg_init(dw_ipoib_cm_msg *m, dw_ipoib_cm_type t)
{
    memset(m, 0, sizeof *m);
    m->type = t;
    m->pd_len = (uint16_t)dw_ipoib_cm_pd_size(t);
}

static const char *rej_text(uint16_t reason)
{
    switch (reason) {
    case DW_IPOIB_REJ_NO_RESOURCES:
        return "REJ reason 3 (no resources available)";
    case DW_IPOIB_REJ_INVALID_SID:
        return "REJ reason 8 (invalid service ID)";
    case DW_IPOIB_REJ_CONSUMER:
        return "REJ reason 28 (consumer reject)";
    default:
        return "REJ (another reason)";
    }
}

/* 0, or DW_ERR_NOMEM when the post was refused (other failures: lost). */
static int send_cm(dw_ipoib_node *n, const uint8_t *gid, const dw_ipoib_cm_msg *m)
{
    return dw_ipoib_posted(n->cb.send_cm(n, gid, m, n->ud));
}

static int send_rej(dw_ipoib_node *n, const uint8_t *gid, uint32_t remote_id, uint16_t reason,
                     const dw_ipoib_pd *mtu_pd)
{
    dw_ipoib_cm_msg m;
    msg_init(&m, DW_IPOIB_CM_REJ);
    m.local_id = n->next_id++;
    m.remote_id = remote_id;
    m.reason = reason;
    if (mtu_pd) {
        dw_ipoib_rej r = {reason, *mtu_pd};
        dw_ipoib_rej_encode(m.pd, m.pd_len, &r);
    }
    return send_cm(n, gid, &m);
}

/* ---- requester ---- */

void dw_ipoib_node_cm_fail(dw_ipoib_node *n, ipoib_peer *p, const char *why)
{
    p->state = DW_IPOIB_LINK_FAILED;
    p->failures++;
    n->st.failures++;
    dw_ipoib_node_event(n, DW_IPOIB_EV_LINK_FAILED, p->ip, p->chosen, 0, p->sid, why);
}

static int send_req(dw_ipoib_node *n, ipoib_peer *p, uint64_t now)
{
    dw_ipoib_cm_msg m;
    msg_init(&m, DW_IPOIB_CM_REQ);
    p->local_id = n->next_id++;
    p->deadline = now + n->s.cm_timeout;
    m.local_id = p->local_id;
    m.qpn = p->lqpn;
    m.transport = p->chosen;
    if (n->s.profile == DW_IPOIB_PROFILE_DRAFT) {
        /* 3.2: service ID of protocol and port; QPNs of ARP; our MTU */
        dw_ipoib_pd pd = {p->addr.qpn, n->s.qpn, p->req_mtu};
        m.service_id = p->sid;
        dw_ipoib_cm_pd_encode(m.pd, m.pd_len, &pd);
    } else {
        dw_ipoib_rfc_pd pd = {n->s.qpn, p->req_mtu + DW_IPOIB_HDR_LEN};
        m.service_id = dw_ipoib_sid_cm(p->style, p->addr.qpn);
        dw_ipoib_rfc_pd_encode(m.pd, m.pd_len, &pd);
    }
    return send_cm(n, p->addr.gid, &m);
}

/* A refused REQ starts nothing: the next packet to the peer tries again. */
static int start_link(dw_ipoib_node *n, ipoib_peer *p, dw_ipoib_mode mode, uint64_t sid,
                       uint64_t now)
{
    p->state = DW_IPOIB_LINK_PENDING;
    p->chosen = mode;
    p->sid = sid;
    p->lqpn = n->next_qpn++;
    p->req_mtu = n->s.mtu.offer;
    p->mtu_left = n->s.mtu_retries;
    p->style = n->s.sid_style;
    p->style_switched = 0;
    p->attempts++;
    n->st.attempts++;
    int r = send_req(n, p, now);
    if (r < 0) {
        p->state = DW_IPOIB_LINK_NONE;
        p->attempts--;
        n->st.attempts--;
    }
    return r;
}

/* A refused SIDR_REQ starts nothing, as a refused REQ. */
static int start_sidr(dw_ipoib_node *n, ipoib_peer *p, ipoib_svc *v, uint64_t sid,
                       uint64_t now)
{
    dw_ipoib_cm_msg m;
    dw_ipoib_pd pd = {p->addr.qpn, n->s.qpn, 0};
    msg_init(&m, DW_IPOIB_CM_SIDR_REQ);
    v->state = SVC_PENDING;
    v->sid = sid;
    v->req_id = n->next_id++;
    v->deadline = now + n->s.cm_timeout;
    p->attempts++;
    n->st.attempts++;
    m.local_id = v->req_id;
    m.service_id = sid; /* 3.1, 4.0 */
    dw_ipoib_sidr_pd_encode(m.pd, m.pd_len, &pd);
    int r = send_cm(n, p->addr.gid, &m);
    if (r < 0) {
        v->state = SVC_NONE;
        p->attempts--;
        n->st.attempts--;
    }
    return r;
}

int dw_ipoib_node_cm_start(dw_ipoib_node *n, ipoib_peer *p, uint64_t sid, uint64_t now)
{
    dw_ipoib_mode mode = dw_ipoib_choose(n->s.caps, p->caps); /* 2.0, 3.0 */
    if (dw_ipoib_mode_connected(mode))
        return p->state == DW_IPOIB_LINK_NONE ? start_link(n, p, mode, sid, now) : 0;
    /* QPN: one SIDR per service, but none more until one succeeded: a peer
     * that serves nothing costs one failed attempt and stays on UD */
    if (mode != DW_IPOIB_MODE_QPN || (!p->svc_up && p->svc_failed))
        return 0;
    ipoib_svc *free_slot = NULL;
    for (int i = 0; i < IPOIB_PEER_SVC_MAX; i++) {
        if (p->svc[i].state != SVC_NONE && (p->svc[i].sid == sid || !p->svc_up))
            return 0; /* resolved, pending or failed already; or a first pending */
        if (p->svc[i].state == SVC_NONE && !free_slot)
            free_slot = &p->svc[i];
    }
    return free_slot ? start_sidr(n, p, free_slot, sid, now) : 0;
}

void dw_ipoib_node_cm_tick(dw_ipoib_node *n, ipoib_peer *p, uint64_t now)
{
    if (p->state == DW_IPOIB_LINK_PENDING && now >= p->deadline)
        dw_ipoib_node_cm_fail(n, p, "timeout waiting for REP");
    for (int i = 0; i < IPOIB_PEER_SVC_MAX; i++)
        if (p->svc[i].state == SVC_PENDING && now >= p->svc[i].deadline) {
            p->svc[i].state = SVC_FAILED;
            p->svc_failed++;
            p->failures++;
            n->st.failures++;
            dw_ipoib_node_event(n, DW_IPOIB_EV_SVC_FAILED, p->ip, DW_IPOIB_MODE_QPN, 0, p->svc[i].sid,
                        "timeout waiting for SIDR_REP");
        }
}

static ipoib_peer *pending_by_id(dw_ipoib_node *n, const uint8_t *sgid, uint32_t id)
{
    for (unsigned i = 0; i < n->s.max_peers; i++) {
        ipoib_peer *p = &n->peers[i];
        if (p->used && p->state == DW_IPOIB_LINK_PENDING && p->local_id == id &&
            !memcmp(p->addr.gid, sgid, DW_IPOIB_GID_LEN))
            return p;
    }
    return NULL;
}

/* The REP's private data, checked against what ARP told us. */
static int rep_mtu(dw_ipoib_node *n, const ipoib_peer *p, const dw_ipoib_cm_msg *m,
                   uint32_t *mtu)
{
    if (n->s.profile == DW_IPOIB_PROFILE_DRAFT) {
        dw_ipoib_pd pd;
        if (dw_ipoib_cm_pd_decode(&pd, m->pd, m->pd_len) < 0 || pd.qpn_rcvd != n->s.qpn ||
            pd.qpn_sent != p->addr.qpn)
            return -1;
        *mtu = pd.mtu;
    } else {
        dw_ipoib_rfc_pd pd;
        if (dw_ipoib_rfc_pd_decode(&pd, m->pd, m->pd_len) < 0 || pd.qpn != p->addr.qpn)
            return -1;
        *mtu = pd.mtu - DW_IPOIB_HDR_LEN;
    }
    return 0;
}

/* The answers' posts refused (DW_ERR_NOMEM) are taken as lost: a REJ or
 * DREQ the peer never sees ends in its timeout; the link is up without
 * its RTU (the peer's first data establishes it). */
static int on_rep(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m)
{
    ipoib_peer *p = pending_by_id(n, sgid, m->remote_id);
    uint32_t peer_mtu, link_mtu;
    if (!p) /* late (we timed out) or forged: refuse it */
        return send_rej(n, sgid, m->local_id, DW_IPOIB_REJ_CONSUMER, NULL);
    if (rep_mtu(n, p, m, &peer_mtu) < 0) {
        n->st.cm_malformed++;
        int r = send_rej(n, sgid, m->local_id, DW_IPOIB_REJ_CONSUMER, NULL);
        dw_ipoib_node_cm_fail(n, p, "REP private data malformed or not ours");
        return r;
    }
    dw_ipoib_cm_msg r;
    p->remote_id = m->local_id;
    p->rqpn = m->qpn;
    if (dw_ipoib_on_rep_mtu(&n->s.mtu, p->req_mtu, peer_mtu, &link_mtu) ==
        DW_IPOIB_REP_DISCONNECT) { /* 3.2: the requester may disconnect */
        msg_init(&r, DW_IPOIB_CM_DREQ);
        r.local_id = p->local_id;
        r.remote_id = p->remote_id;
        int rc = send_cm(n, sgid, &r);
        n->st.disconnects++;
        dw_ipoib_node_cm_fail(n, p, "link MTU below our minimum: disconnected");
        return rc;
    }
    msg_init(&r, DW_IPOIB_CM_RTU);
    r.local_id = p->local_id;
    r.remote_id = p->remote_id;
    int rc = send_cm(n, sgid, &r);
    p->mtu = link_mtu; /* 3.2: the smaller value */
    p->state = DW_IPOIB_LINK_UP;
    dw_ipoib_node_event(n, DW_IPOIB_EV_LINK_UP, p->ip, p->chosen, link_mtu, p->sid, NULL);
    return rc;
}

static void free_conn(dw_ipoib_node *n, const uint8_t *sgid, uint32_t local_id)
{
    for (unsigned i = 0; i < n->s.max_conns; i++) {
        ipoib_conn *c = &n->conns[i];
        if (c->used && c->local_id == local_id && !memcmp(c->gid, sgid, DW_IPOIB_GID_LEN))
            c->used = 0;
    }
}

/* A retried REQ whose post is refused (DW_ERR_NOMEM) is taken as lost:
 * the link waits for its timeout and falls back to UD. */
static int on_rej(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                  uint64_t now)
{
    ipoib_peer *p = pending_by_id(n, sgid, m->remote_id);
    if (!p) { /* our REP refused */
        free_conn(n, sgid, m->remote_id);
        return 0;
    }
    dw_ipoib_rej rej = {m->reason, {0, 0, 0}};
    uint32_t retry;
    if (n->s.profile == DW_IPOIB_PROFILE_DRAFT &&
        dw_ipoib_rej_decode(&rej, m->reason, m->pd, m->pd_len) < 0) {
        n->st.cm_malformed++;
        dw_ipoib_node_cm_fail(n, p, "REJ private data malformed");
        return 0;
    }
    if (dw_ipoib_on_rej(n->s.profile, &n->s.mtu, &rej, p->mtu_left, &retry)) {
        p->mtu_left--; /* 3.2: retry with the MTU that would be acceptable */
        p->req_mtu = retry;
        p->mtu_retries++;
        n->st.retries++;
        dw_ipoib_node_event(n, DW_IPOIB_EV_LINK_RETRY, p->ip, p->chosen, retry, p->sid,
                    rej_text(m->reason));
        return send_req(n, p, now);
    }
    if (n->s.profile == DW_IPOIB_PROFILE_RFC4755 && m->reason == DW_IPOIB_REJ_INVALID_SID &&
        n->s.sid_fallback && !p->style_switched) {
        p->style_switched = 1; /* the other service ID form (RFC 4755 / Linux) */
        p->style = p->style == DW_IPOIB_SID_LINUX ? DW_IPOIB_SID_RFC4755 : DW_IPOIB_SID_LINUX;
        p->sid_retries++;
        n->st.retries++;
        dw_ipoib_node_event(n, DW_IPOIB_EV_LINK_RETRY, p->ip, p->chosen, 0,
                    dw_ipoib_sid_cm(p->style, p->addr.qpn), rej_text(m->reason));
        return send_req(n, p, now);
    }
    dw_ipoib_node_cm_fail(n, p, rej_text(m->reason));
    return 0;
}

static void on_sidr_rep(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m)
{
    for (unsigned i = 0; i < n->s.max_peers; i++) {
        ipoib_peer *p = &n->peers[i];
        if (!p->used || memcmp(p->addr.gid, sgid, DW_IPOIB_GID_LEN))
            continue;
        for (int k = 0; k < IPOIB_PEER_SVC_MAX; k++) {
            ipoib_svc *v = &p->svc[k];
            if (v->state != SVC_PENDING || v->req_id != m->local_id)
                continue;
            dw_ipoib_pd pd;
            int pd_ok = dw_ipoib_sidr_pd_decode(&pd, m->pd, m->pd_len) > 0 &&
                        pd.qpn_rcvd == n->s.qpn && pd.qpn_sent == p->addr.qpn;
            if (m->reason == DW_IPOIB_SIDR_OK && pd_ok && dw_ipoib_qpn_valid(m->qpn) &&
                m->service_id == v->sid) {
                v->state = SVC_UP; /* 3.1: this service's QPN from now on */
                v->qpn = m->qpn;
                p->svc_up++;
                dw_ipoib_node_event(n, DW_IPOIB_EV_SVC_UP, p->ip, DW_IPOIB_MODE_QPN, n->s.ud_mtu, v->sid,
                            NULL);
                return;
            }
            if (m->reason == DW_IPOIB_SIDR_OK)
                n->st.cm_malformed++;
            v->state = SVC_FAILED;
            p->svc_failed++;
            p->failures++;
            n->st.failures++;
            dw_ipoib_node_event(n, DW_IPOIB_EV_SVC_FAILED, p->ip, DW_IPOIB_MODE_QPN, 0, v->sid,
                        m->reason == DW_IPOIB_SIDR_OK ? "SIDR_REP malformed or not ours"
                        : m->reason == DW_IPOIB_SIDR_UNSUPPORTED
                            ? "SIDR_REP: service ID not supported"
                            : "SIDR_REP: rejected");
            return;
        }
    }
}

/* ---- responder ---- */

static int refuse(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                  uint16_t reason, const char *why)
{
    n->st.refused++;
    dw_ipoib_node_event(n, DW_IPOIB_EV_REFUSED, 0, m->transport, 0, m->service_id, why);
    return send_rej(n, sgid, m->local_id, reason, NULL);
}

/* The REQ's service ID names us? 0, or the REJ reason. */
static uint16_t req_sid_check(const dw_ipoib_node *n, uint64_t sid)
{
    dw_ipoib_sid d;
    dw_ipoib_sid_style style;
    uint32_t qpn;
    if (n->s.profile == DW_IPOIB_PROFILE_DRAFT)
        return dw_ipoib_sid_split(&d, sid) ? DW_IPOIB_REJ_INVALID_SID : 0; /* 4.0 */
    if (dw_ipoib_sid_cm_parse(sid, &style, &qpn) || qpn != n->s.qpn ||
        (style != n->s.sid_style && !n->s.sid_listen_both))
        return DW_IPOIB_REJ_INVALID_SID;
    return 0;
}

/* The REQ's private data: its MTU, and the requester's UD QPN. */
static int req_pd(const dw_ipoib_node *n, const dw_ipoib_cm_msg *m, uint32_t *mtu,
                  uint32_t *peer_qpn)
{
    if (n->s.profile == DW_IPOIB_PROFILE_DRAFT) {
        dw_ipoib_pd pd;
        if (dw_ipoib_cm_pd_decode(&pd, m->pd, m->pd_len) < 0 || pd.qpn_rcvd != n->s.qpn)
            return -1; /* 3.1: the QPNs tell which interface is meant */
        *mtu = pd.mtu;
        *peer_qpn = pd.qpn_sent;
    } else {
        dw_ipoib_rfc_pd pd;
        if (dw_ipoib_rfc_pd_decode(&pd, m->pd, m->pd_len) < 0)
            return -1;
        *mtu = pd.mtu - DW_IPOIB_HDR_LEN;
        *peer_qpn = pd.qpn;
    }
    return 0;
}

static ipoib_conn *conn_alloc(dw_ipoib_node *n)
{
    for (unsigned i = 0; i < n->s.max_conns; i++)
        if (!n->conns[i].used)
            return &n->conns[i];
    return NULL;
}

static int send_rep(dw_ipoib_node *n, const ipoib_conn *c, uint32_t peer_qpn, uint32_t mtu)
{
    dw_ipoib_cm_msg r;
    msg_init(&r, DW_IPOIB_CM_REP);
    r.local_id = c->local_id;
    r.remote_id = c->remote_id;
    r.qpn = c->lqpn;
    if (n->s.profile == DW_IPOIB_PROFILE_DRAFT) {
        dw_ipoib_pd pd = {peer_qpn, n->s.qpn, mtu}; /* 3.2: the MTU we prefer */
        dw_ipoib_cm_pd_encode(r.pd, r.pd_len, &pd);
    } else {
        dw_ipoib_rfc_pd pd = {n->s.qpn, mtu + DW_IPOIB_HDR_LEN};
        dw_ipoib_rfc_pd_encode(r.pd, r.pd_len, &pd);
    }
    return send_cm(n, c->gid, &r);
}

/* A REP whose post is refused (DW_ERR_NOMEM) accepts nothing: the slot is
 * freed and the requester times out; a refused REJ is taken as lost. */
static int on_req(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m)
{
    unsigned connected = n->s.caps & (DW_IPOIB_CAP_RC | DW_IPOIB_CAP_UC | DW_IPOIB_CAP_RD);
    uint16_t why = req_sid_check(n, m->service_id);
    if (!connected || why) /* nobody listens on that service ID */
        return refuse(n, sgid, m, DW_IPOIB_REJ_INVALID_SID, "service ID not ours");
    if (!dw_ipoib_mode_connected(m->transport) ||
        !(n->s.caps & dw_ipoib_mode_cap(m->transport)))
        return refuse(n, sgid, m, DW_IPOIB_REJ_CONSUMER, "transport not supported");
    uint32_t req_mtu, peer_qpn, mtu_out, link_mtu;
    if (req_pd(n, m, &req_mtu, &peer_qpn) < 0) {
        n->st.cm_malformed++;
        return refuse(n, sgid, m, DW_IPOIB_REJ_CONSUMER,
                      "REQ private data malformed or not ours");
    }
    if (dw_ipoib_on_req_mtu(n->s.profile, &n->s.mtu, req_mtu, &mtu_out, &link_mtu) ==
        DW_IPOIB_REQ_REJECT_MTU) { /* 3.2: REJ with the acceptable MTU, reason 3 */
        dw_ipoib_pd pd = {peer_qpn, n->s.qpn, mtu_out};
        n->st.refused++;
        dw_ipoib_node_event(n, DW_IPOIB_EV_REFUSED, 0, m->transport, mtu_out, m->service_id,
                    "MTU below our minimum");
        return send_rej(n, sgid, m->local_id, DW_IPOIB_REJ_NO_RESOURCES, &pd);
    }
    ipoib_conn *c = conn_alloc(n);
    if (!c)
        return refuse(n, sgid, m, DW_IPOIB_REJ_NO_RESOURCES, "no connection slot");
    memset(c, 0, sizeof *c);
    c->used = 1;
    memcpy(c->gid, sgid, DW_IPOIB_GID_LEN);
    c->local_id = n->next_id++;
    c->remote_id = m->local_id;
    c->lqpn = n->next_qpn++;
    c->rqpn = m->qpn;
    c->mtu = link_mtu;
    c->mode = m->transport;
    int r = send_rep(n, c, peer_qpn, mtu_out);
    if (r < 0) {
        c->used = 0;
        return r;
    }
    n->st.accepted++;
    dw_ipoib_node_event(n, DW_IPOIB_EV_ACCEPTED, 0, c->mode, link_mtu, m->service_id, NULL);
    return 0;
}

static const dw_ipoib_service *svc_lookup(const dw_ipoib_node *n, uint64_t sid)
{
    const dw_ipoib_service *wild = NULL;
    for (size_t i = 0; i < n->s.n_services; i++) {
        if (n->s.services[i].sid == sid)
            return &n->s.services[i];
        if (!wild && dw_ipoib_sid_match(n->s.services[i].sid, sid))
            wild = &n->s.services[i]; /* 4.1 rule 1 */
    }
    return wild;
}

static int on_sidr_req(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m)
{
    dw_ipoib_cm_msg r;
    dw_ipoib_pd pd;
    msg_init(&r, DW_IPOIB_CM_SIDR_REP);
    r.local_id = m->local_id;
    r.service_id = m->service_id;
    r.reason = DW_IPOIB_SIDR_UNSUPPORTED;
    const dw_ipoib_service *v = NULL;
    if (n->s.caps & DW_IPOIB_CAP_QPN)
        v = svc_lookup(n, m->service_id);
    if (v && (dw_ipoib_sidr_pd_decode(&pd, m->pd, m->pd_len) < 0 || pd.qpn_rcvd != n->s.qpn)) {
        n->st.cm_malformed++;
        r.reason = DW_IPOIB_SIDR_REJECTED; /* 3.1: not an interface of ours */
    } else if (v) {
        dw_ipoib_pd back = {pd.qpn_sent, n->s.qpn, 0};
        r.reason = DW_IPOIB_SIDR_OK;
        r.qpn = v->qpn;
        dw_ipoib_sidr_pd_encode(r.pd, r.pd_len, &back);
    }
    int rc = send_cm(n, sgid, &r); /* refused (DW_ERR_NOMEM): no answer, not counted */
    if (!rc && r.reason == DW_IPOIB_SIDR_OK)
        n->st.accepted++;
    else if (!rc && !v)
        n->st.refused++;
    return rc;
}

static int on_dreq(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m)
{
    dw_ipoib_cm_msg r;
    free_conn(n, sgid, m->remote_id);
    for (unsigned i = 0; i < n->s.max_peers; i++) {
        ipoib_peer *p = &n->peers[i];
        if (p->used && p->state == DW_IPOIB_LINK_UP && p->local_id == m->remote_id &&
            !memcmp(p->addr.gid, sgid, DW_IPOIB_GID_LEN)) {
            p->state = DW_IPOIB_LINK_FAILED; /* back to UD */
            dw_ipoib_node_event(n, DW_IPOIB_EV_LINK_DOWN, p->ip, p->chosen, 0, p->sid, "DREQ");
        }
    }
    msg_init(&r, DW_IPOIB_CM_DREP);
    r.local_id = m->remote_id;
    r.remote_id = m->local_id;
    return send_cm(n, sgid, &r);
}

int dw_ipoib_node_cm_input(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                   uint64_t now)
{
    if (n->s.cm_silent)
        return 0;
    switch (m->type) {
    case DW_IPOIB_CM_REQ:
        return on_req(n, sgid, m);
    case DW_IPOIB_CM_REP:
        return on_rep(n, sgid, m);
    case DW_IPOIB_CM_RTU:
        for (unsigned i = 0; i < n->s.max_conns; i++)
            if (n->conns[i].used && n->conns[i].local_id == m->remote_id &&
                !memcmp(n->conns[i].gid, sgid, DW_IPOIB_GID_LEN))
                n->conns[i].up = 1;
        break;
    case DW_IPOIB_CM_REJ:
        return on_rej(n, sgid, m, now);
    case DW_IPOIB_CM_DREQ:
        return on_dreq(n, sgid, m);
    case DW_IPOIB_CM_SIDR_REQ:
        return on_sidr_req(n, sgid, m);
    case DW_IPOIB_CM_SIDR_REP:
        on_sidr_rep(n, sgid, m);
        break;
    case DW_IPOIB_CM_DREP:
        break;
    default:
        return DW_ERR_MALFORMED;
    }
    return 0;
}
