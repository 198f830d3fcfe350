/* SPDX-License-Identifier: MIT */
/* IPoIB node: address resolution over UD, routing, receive rules (sans-I/O). */
#include <ddpwire/ipoib_node.h>

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/mem.h"
#include "ipoib/ipoib_internal.h"
#include "base/versioned.h"

DW_VERSIONS_1(ipoib_node_callbacks_v, dw_ipoib_node_callbacks, on_event);
DW_VERSIONS_1(ipoib_node_settings_v, dw_ipoib_node_settings, mem);

static void ipoib_node_settings_fill(dw_ipoib_node_settings *s)
{
    memset(s, 0, sizeof *s);
    s->profile = DW_IPOIB_PROFILE_DRAFT;
    s->advertise = DW_IPOIB_ADVERTISE_CAPS;
    s->pkey = 0xffff;
    s->ud_mtu = DW_IPOIB_UD_MTU;
    s->mtu.offer = s->mtu.max = DW_IPOIB_CM_MTU;
    s->mtu.min = DW_IPOIB_MTU_MIN;
    s->sid_style = DW_IPOIB_SID_RFC4755;
    s->sid_listen_both = 1;
    s->sid_fallback = 1;
    s->mtu_retries = 1;
    s->cm_timeout = 100000;
    s->arp_timeout = 20000;
    s->arp_tries = 3;
    s->check_arp_source = 1;
    s->max_peers = 16;
    s->max_conns = 16;
    s->pend_max = 32;
}

int dw_ipoib_node_settings_default_versioned(int settings_version, dw_ipoib_node_settings *s)
{
    dw_ipoib_node_settings cur;
    ipoib_node_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, ipoib_node_settings_v);
}

static int settings_ok(const dw_ipoib_node_settings *s)
{
    if ((unsigned)s->profile > DW_IPOIB_PROFILE_RFC4755 ||
        (s->caps & ~dw_ipoib_profile_caps(s->profile)) || !dw_ipoib_qpn_valid(s->qpn) ||
        !dw_ipoib_qpn_valid(s->conn_qpn_base) || dw_ipoib_mtu_policy_check(&s->mtu) ||
        s->ud_mtu < DW_IPOIB_MTU_MIN || s->ud_mtu > 65535 || !s->max_peers ||
        s->n_services > DW_IPOIB_SERVICES_MAX)
        return 0;
    for (size_t i = 0; i < s->n_services; i++) {
        dw_ipoib_sid d;
        if (dw_ipoib_sid_split(&d, s->services[i].sid) ||
            !dw_ipoib_qpn_valid(s->services[i].qpn) || s->services[i].qpn == s->qpn)
            return 0;
    }
    return 1;
}

static int ipoib_node_new_latest(dw_ipoib_node **pn, const dw_ipoib_node_settings *s,
                                 const dw_ipoib_node_callbacks *cb, void *user_data)
{
    if (!pn || !s || !cb || !cb->send_ud || !cb->send_cm || !cb->send_conn || !cb->deliver ||
        !settings_ok(s))
        return DW_ERR_INVAL;
    dw_ipoib_node *n = dw_mem_calloc(s->mem, 1, sizeof *n);
    if (!n)
        return DW_ERR_NOMEM;
    n->s = *s;
    if (n->s.advertise == DW_IPOIB_ADVERTISE_CAPS)
        n->s.advertise = s->caps;
    n->cb = *cb;
    n->ud = user_data;
    const dw_mem *m = s->mem;
    n->peers = dw_mem_calloc(m, s->max_peers, sizeof *n->peers);
    n->conns = dw_mem_calloc(m, s->max_conns ? s->max_conns : 1, sizeof *n->conns);
    n->pend = dw_mem_calloc(m, s->pend_max ? s->pend_max : 1, sizeof *n->pend);
    n->pend_data = dw_mem_calloc(m, s->pend_max ? s->pend_max : 1, s->ud_mtu);
    if (!n->peers || !n->conns || !n->pend || !n->pend_data) {
        dw_ipoib_node_del(n);
        return DW_ERR_NOMEM;
    }
    n->next_id = (s->qpn << 8) | 1; /* distinct per node, never 0 */
    n->next_qpn = s->conn_qpn_base;
    *pn = n;
    return 0;
}

int dw_ipoib_node_new_versioned(dw_ipoib_node **pn, int settings_version,
                                const dw_ipoib_node_settings *s, int callbacks_version,
                                const dw_ipoib_node_callbacks *cb, void *user_data)
{
    dw_ipoib_node_settings s_cur;
    if (settings_version != DW_IPOIB_NODE_SETTINGS_VERSION)
        dw_ipoib_node_settings_default(&s_cur);
    dw_ipoib_node_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, ipoib_node_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, ipoib_node_callbacks_v, err);
    if (err)
        return err;
    return ipoib_node_new_latest(pn, s, cb, user_data);
}

void dw_ipoib_node_del(dw_ipoib_node *n)
{
    if (!n)
        return;
    const dw_mem *m = n->s.mem;
    dw_mem_free(m, n->peers);
    dw_mem_free(m, n->conns);
    dw_mem_free(m, n->pend);
    dw_mem_free(m, n->pend_data);
    dw_mem_free(m, n);
}

const dw_ipoib_node_settings *dw_ipoib_node_settings_get(const dw_ipoib_node *n)
{
    return &n->s;
}

void dw_ipoib_node_stats_get(const dw_ipoib_node *n, dw_ipoib_node_stats *st)
{
    *st = n->st;
}

void dw_ipoib_node_addr(const dw_ipoib_node *n, dw_ipoib_addr *out)
{
    /* 2.0: only the flags of what we support (a liar advertises more) */
    out->flags = dw_ipoib_flags_encode(n->s.profile, n->s.advertise);
    out->qpn = n->s.qpn;
    memcpy(out->gid, n->s.gid, DW_IPOIB_GID_LEN);
}

void dw_ipoib_node_event(dw_ipoib_node *n, dw_ipoib_event_kind k, uint32_t peer, dw_ipoib_mode m,
                 uint32_t mtu, uint64_t sid, const char *why)
{
    if (!n->cb.on_event)
        return;
    dw_ipoib_event ev = {k, peer, m, mtu, sid, why};
    n->cb.on_event(n, &ev, n->ud);
}

static ipoib_peer *peer_find(const dw_ipoib_node *n, uint32_t ip)
{
    for (unsigned i = 0; i < n->s.max_peers; i++)
        if (n->peers[i].used && n->peers[i].ip == ip)
            return &n->peers[i];
    return NULL;
}

static ipoib_peer *peer_get(dw_ipoib_node *n, uint32_t ip)
{
    ipoib_peer *p = peer_find(n, ip);
    for (unsigned i = 0; !p && i < n->s.max_peers; i++)
        if (!n->peers[i].used) {
            p = &n->peers[i];
            memset(p, 0, sizeof *p);
            p->used = 1;
            p->ip = ip;
        }
    return p;
}

/* ---- transmit ---- */

static int tx_ud(dw_ipoib_node *n, const uint8_t *gid, uint32_t qpn, uint16_t type,
                 const uint8_t *pkt, size_t len)
{
    dw_ipoib_ud to = {gid, qpn, n->s.gid, n->s.qpn};
    return n->cb.send_ud(n, &to, type, pkt, len, n->ud);
}

static const ipoib_svc *svc_up(const ipoib_peer *p, uint64_t sid)
{
    for (int i = 0; i < IPOIB_PEER_SVC_MAX; i++)
        if (p->svc[i].state == SVC_UP && p->svc[i].sid == sid)
            return &p->svc[i];
    return NULL;
}

static void links_of(const dw_ipoib_node *n, const ipoib_peer *p, uint64_t sid,
                     dw_ipoib_links *l)
{
    memset(l, 0, sizeof *l);
    l->mtu[DW_IPOIB_MODE_UD] = n->s.ud_mtu;
    if (p->state == DW_IPOIB_LINK_UP && dw_ipoib_mode_connected(p->chosen)) {
        l->up |= 1u << p->chosen;
        l->mtu[p->chosen] = p->mtu;
    }
    if (sid && svc_up(p, sid)) {
        l->up |= 1u << DW_IPOIB_MODE_QPN;
        l->mtu[DW_IPOIB_MODE_QPN] = n->s.ud_mtu;
    }
}

static int tx_on(dw_ipoib_node *n, const ipoib_peer *p, dw_ipoib_mode m, uint64_t sid,
                 uint16_t type, const uint8_t *pkt, size_t len)
{
    if (m == DW_IPOIB_MODE_UD) {
        n->st.tx_ud++;
        return tx_ud(n, p->addr.gid, p->addr.qpn, type, pkt, len);
    }
    if (m == DW_IPOIB_MODE_QPN) {
        n->st.tx_qpn++; /* 3.1: the QPN resolved for this service */
        return tx_ud(n, p->addr.gid, svc_up(p, sid)->qpn, type, pkt, len);
    }
    n->st.tx_conn++;
    return n->cb.send_conn(n, p->addr.gid, p->rqpn, p->lqpn, type, pkt, len, n->ud);
}

typedef struct ip_info {
    uint32_t dst;
    uint64_t sid;
} ip_info;

static int parse_ipv4(const uint8_t *pkt, size_t len, ip_info *ii)
{
    if (!pkt || len < 20 || (pkt[0] >> 4) != 4 || (pkt[0] & 15) < 5 ||
        (size_t)(pkt[0] & 15) * 4 > len)
        return DW_ERR_MALFORMED;
    size_t ihl = (size_t)(pkt[0] & 15) * 4;
    uint16_t port = len >= ihl + 4 ? dw_get_be16(pkt + ihl + 2) : 0;
    ii->dst = dw_get_be32(pkt + 16);
    ii->sid = dw_ipoib_sid_for(pkt[9], port); /* 4.1 */
    return 0;
}

/* A unicast IPv4 packet to a resolved peer; DW_ERR_NOMEM (not sent) when
 * the post of the set-up it starts was refused. */
static int peer_tx(dw_ipoib_node *n, ipoib_peer *p, const uint8_t *pkt, size_t len,
                   uint64_t sid, uint64_t now)
{
    dw_ipoib_links l;
    int r = dw_ipoib_node_cm_start(n, p, sid, now);
    if (r < 0)
        return r;
    links_of(n, p, sid, &l);
    int m = dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, len); /* 3.3 */
    if (m < 0)
        return m;
    r = tx_on(n, p, (dw_ipoib_mode)m, sid, DW_IPOIB_TYPE_IPV4, pkt, len);
    return r < 0 ? r : 0;
}

/* 0, or DW_ERR_NOMEM when the post was refused (other failures: lost). */
static int send_arp(dw_ipoib_node *n, uint16_t op, uint32_t tpa, const dw_ipoib_addr *tha)
{
    dw_ipoib_arp a = {0};
    uint8_t buf[DW_IPOIB_ARP_LEN], mgid[DW_IPOIB_GID_LEN];
    a.op = op;
    dw_ipoib_node_addr(n, &a.sha); /* 2.0: our flags ride in ARP */
    a.spa = n->s.ipv4;
    if (tha)
        a.tha = *tha;
    a.tpa = tpa;
    dw_ipoib_arp_encode(buf, sizeof buf, &a);
    n->st.tx_ud++;
    if (op == DW_IPOIB_ARP_REPLY)
        return dw_ipoib_posted(
            tx_ud(n, tha->gid, tha->qpn, DW_IPOIB_TYPE_ARP, buf, sizeof buf));
    n->st.tx_mcast++; /* 1.0, 3.0: resolution always over UD (broadcast) */
    dw_ipoib_mgid_ipv4(mgid, 0xFFFFFFFFu, n->s.pkey);
    return dw_ipoib_posted(
        tx_ud(n, mgid, DW_IPOIB_QPN_MAX, DW_IPOIB_TYPE_ARP, buf, sizeof buf));
}

/* The request counts as a try whether its post went or was refused. */
static int arp_request(dw_ipoib_node *n, ipoib_peer *p, uint64_t now)
{
    p->arp_out = 1;
    p->arp_tries++;
    p->arp_deadline = now + n->s.arp_timeout;
    return send_arp(n, DW_IPOIB_ARP_REQUEST, p->ip, NULL);
}

/* The slot taken, or DW_ERR_NOSPACE. */
static int pend_add(dw_ipoib_node *n, uint32_t ip, const uint8_t *pkt, size_t len)
{
    for (unsigned i = 0; i < n->s.pend_max; i++)
        if (!n->pend[i].used) {
            ipoib_pend *q = &n->pend[i];
            q->used = 1;
            q->ip = ip;
            q->seq = n->pend_seq++;
            q->len = len;
            memcpy(n->pend_data + (size_t)i * n->s.ud_mtu, pkt, len);
            return (int)i;
        }
    return DW_ERR_NOSPACE;
}

/* Packets that waited for ARP go out in the order they came; a packet whose
 * post is refused is given up (pend_dropped) and the others still go.
 * Returns 0, or DW_ERR_NOMEM when a post was refused. */
static int pend_flush(dw_ipoib_node *n, ipoib_peer *p, int drop, uint64_t now)
{
    int err = 0;
    for (;;) {
        ipoib_pend *q = NULL;
        unsigned at = 0;
        for (unsigned i = 0; i < n->s.pend_max; i++)
            if (n->pend[i].used && n->pend[i].ip == p->ip && (!q || n->pend[i].seq < q->seq)) {
                q = &n->pend[i];
                at = i;
            }
        if (!q)
            return err;
        q->used = 0;
        const uint8_t *pkt = n->pend_data + (size_t)at * n->s.ud_mtu;
        ip_info ii;
        int r = drop || parse_ipv4(pkt, q->len, &ii) ? DW_ERR_STATE
                                                     : peer_tx(n, p, pkt, q->len, ii.sid, now);
        if (r < 0)
            n->st.pend_dropped++;
        if (r == DW_ERR_NOMEM && !err)
            err = r;
    }
}

int dw_ipoib_node_send(dw_ipoib_node *n, const uint8_t *pkt, size_t len, uint64_t now)
{
    ip_info ii;
    if (!n)
        return DW_ERR_INVAL;
    if (parse_ipv4(pkt, len, &ii))
        return DW_ERR_MALFORMED;
    if (dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, pkt, len) == DW_IPOIB_PKT_MULTICAST) {
        uint8_t mgid[DW_IPOIB_GID_LEN];
        if (len > n->s.ud_mtu)
            return DW_ERR_TOO_LONG;
        dw_ipoib_mgid_ipv4(mgid, ii.dst, n->s.pkey); /* 3.3: multicast only over UD */
        n->st.tx_mcast++;
        int r = tx_ud(n, mgid, DW_IPOIB_QPN_MAX, DW_IPOIB_TYPE_IPV4, pkt, len);
        return r < 0 ? r : 0;
    }
    ipoib_peer *p = peer_get(n, ii.dst);
    if (!p)
        return DW_ERR_NOSPACE;
    if (p->resolved)
        return peer_tx(n, p, pkt, len, ii.sid, now);
    if (len > n->s.ud_mtu)
        return DW_ERR_TOO_LONG;
    int slot = pend_add(n, ii.dst, pkt, len);
    if (!p->arp_out && arp_request(n, p, now) < 0) {
        /* the request refused: as if this call had not been made (no
         * peer waits, nothing was queued; the next send asks again) */
        if (slot >= 0)
            n->pend[slot].used = 0;
        p->used = 0;
        return DW_ERR_NOMEM;
    }
    return slot < 0 ? slot : 0;
}

int dw_ipoib_node_send_via(dw_ipoib_node *n, uint32_t peer, uint16_t type, const uint8_t *pkt,
                           size_t len, dw_ipoib_mode via, uint64_t now)
{
    (void)now;
    ipoib_peer *p = n ? peer_find(n, peer) : NULL;
    if (!p || !p->resolved || (unsigned)via >= DW_IPOIB_MODE_COUNT)
        return DW_ERR_STATE;
    ip_info ii = {0, 0};
    if (type == DW_IPOIB_TYPE_IPV4)
        parse_ipv4(pkt, len, &ii);
    dw_ipoib_links l;
    links_of(n, p, ii.sid, &l);
    if (via != DW_IPOIB_MODE_UD && !(l.up >> via & 1u))
        return DW_ERR_STATE;
    if (!dw_ipoib_tx_allowed(dw_ipoib_classify(type, pkt, len), via))
        return DW_ERR_PROTO; /* 3.3 */
    if (len > l.mtu[via])
        return DW_ERR_TOO_LONG;
    int r = tx_on(n, p, via, ii.sid, type, pkt, len);
    return r < 0 ? r : 0;
}

/* ---- address resolution (draft 1.0, 2.0, 3.0; section 5) ---- */

static int learn(dw_ipoib_node *n, ipoib_peer *p, const dw_ipoib_addr *a, uint64_t now)
{
    p->resolved = 1;
    p->arp_out = 0;
    p->addr = *a;
    /* 2.0: ignore flags of capabilities we lack; UD-only ignores all */
    p->caps = dw_ipoib_flags_decode(n->s.profile, a->flags, n->s.caps);
    dw_ipoib_node_event(n, DW_IPOIB_EV_ARP_RESOLVED, p->ip, dw_ipoib_choose(n->s.caps, p->caps), 0, 0,
                NULL);
    return pend_flush(n, p, 0, now);
}

static int same_addr(const dw_ipoib_addr *a, const dw_ipoib_addr *b)
{
    return a->qpn == b->qpn && !memcmp(a->gid, b->gid, DW_IPOIB_GID_LEN);
}

static void arp_ignored(dw_ipoib_node *n, uint32_t ip, const char *why)
{
    n->st.arp_ignored++;
    dw_ipoib_node_event(n, DW_IPOIB_EV_ARP_IGNORED, ip, DW_IPOIB_MODE_UD, 0, 0, why);
}

/* 0, or DW_ERR_NOMEM when a post it made (the reply, the packets that
 * waited for the address) was refused: those are not sent. */
static int arp_input(dw_ipoib_node *n, const dw_ipoib_ud *from, const uint8_t *pkt,
                     size_t len, uint64_t now)
{
    dw_ipoib_arp a;
    if (dw_ipoib_arp_decode(&a, pkt, len) < 0) {
        arp_ignored(n, 0, "malformed ARP");
        return 0;
    }
    if (a.spa == n->s.ipv4 || !dw_ipoib_qpn_valid(a.sha.qpn)) {
        arp_ignored(n, a.spa, "bad sender address");
        return 0;
    }
    /* 5: an imposter may send someone else's address; ours must be the
     * datagram's own source */
    if (n->s.check_arp_source &&
        (a.sha.qpn != from->sqpn || memcmp(a.sha.gid, from->sgid, DW_IPOIB_GID_LEN))) {
        arp_ignored(n, a.spa, "sender address is not the datagram's source");
        return 0;
    }
    int for_me = a.tpa == n->s.ipv4;
    ipoib_peer *p = for_me && a.op == DW_IPOIB_ARP_REQUEST ? peer_get(n, a.spa)
                                                            : peer_find(n, a.spa);
    if (!p && !for_me)
        return 0; /* RFC 826: merge only what we know */
    if (!p) {
        arp_ignored(n, a.spa,
                    a.op == DW_IPOIB_ARP_REQUEST ? "no room for the peer" : "unsolicited reply");
        return 0;
    }
    int err = 0;
    if (p->resolved && !same_addr(&p->addr, &a.sha))
        arp_ignored(n, a.spa, "conflicting address: the first one is kept");
    else if (p->resolved)
        p->caps = dw_ipoib_flags_decode(n->s.profile, a.sha.flags, n->s.caps);
    else if (a.op == DW_IPOIB_ARP_REQUEST || p->arp_out)
        err = learn(n, p, &a.sha, now);
    else
        arp_ignored(n, a.spa, "unsolicited reply");
    if (for_me && a.op == DW_IPOIB_ARP_REQUEST) {
        int r = send_arp(n, DW_IPOIB_ARP_REPLY, a.spa, &a.sha);
        err = err ? err : r;
    }
    return err;
}

/* ---- receive ---- */

/* 0, or DW_ERR_NOMEM from the ARP handling. */
static int rx_frame(dw_ipoib_node *n, const uint8_t *frame, size_t len, dw_ipoib_mode via,
                    const dw_ipoib_ud *from, uint64_t now)
{
    dw_ipoib_hdr h;
    if (dw_ipoib_hdr_decode(&h, frame, len) < 0) {
        n->st.rx_unknown++;
        return 0;
    }
    const uint8_t *pkt = frame + DW_IPOIB_HDR_LEN;
    size_t plen = len - DW_IPOIB_HDR_LEN;
    dw_ipoib_pkt_class c = dw_ipoib_classify(h.type, pkt, plen);
    if (!dw_ipoib_rx_allowed(c, via)) { /* 3.3: ARP MUST only be over UD */
        n->st.rx_rule_drops++;
        dw_ipoib_node_event(n, DW_IPOIB_EV_RX_DROPPED, 0, via, 0, 0,
                    "ARP/ND or multicast over a connected link");
        return 0;
    }
    if (h.type == DW_IPOIB_TYPE_ARP)
        return from ? arp_input(n, from, pkt, plen, now) : 0;
    if (h.type != DW_IPOIB_TYPE_IPV4 && h.type != DW_IPOIB_TYPE_IPV6) {
        n->st.rx_unknown++;
        return 0;
    }
    n->st.delivered++; /* 3.3: UD-received packets are always processed */
    n->cb.deliver(n, h.type, pkt, plen, via, n->ud);
    return 0;
}

int dw_ipoib_node_has_ud_qpn(const dw_ipoib_node *n, uint32_t qpn)
{
    if (qpn == n->s.qpn)
        return 1;
    int qpn_mode = (n->s.caps & DW_IPOIB_CAP_QPN) != 0;
    for (size_t i = 0; qpn_mode && i < n->s.n_services; i++)
        if (n->s.services[i].qpn == qpn)
            return 1;
    return 0;
}

int dw_ipoib_node_input_ud(dw_ipoib_node *n, const dw_ipoib_ud *from, const uint8_t *frame,
                           size_t len, uint64_t now)
{
    if (!n || !from || !from->sgid || (!frame && len))
        return DW_ERR_INVAL;
    dw_ipoib_mode via = DW_IPOIB_MODE_UD;
    if (from->dqpn != DW_IPOIB_QPN_MAX && from->dqpn != n->s.qpn) {
        if (!dw_ipoib_node_has_ud_qpn(n, from->dqpn)) {
            n->st.rx_unknown++;
            return 0;
        }
        via = DW_IPOIB_MODE_QPN;
    }
    if (via == DW_IPOIB_MODE_QPN)
        n->st.rx_qpn++;
    else
        n->st.rx_ud++;
    return rx_frame(n, frame, len, via, from, now);
}

int dw_ipoib_node_input_conn(dw_ipoib_node *n, const uint8_t *sgid, uint32_t sqpn,
                             uint32_t dqpn, const uint8_t *frame, size_t len, uint64_t now)
{
    if (!n || !sgid || (!frame && len))
        return DW_ERR_INVAL;
    dw_ipoib_mode via = DW_IPOIB_MODE_UD;
    for (unsigned i = 0; i < n->s.max_peers && via == DW_IPOIB_MODE_UD; i++) {
        const ipoib_peer *p = &n->peers[i];
        if (p->used && p->state == DW_IPOIB_LINK_UP && p->lqpn == dqpn && p->rqpn == sqpn)
            via = p->chosen;
    }
    for (unsigned i = 0; i < n->s.max_conns && via == DW_IPOIB_MODE_UD; i++) {
        ipoib_conn *c = &n->conns[i];
        if (c->used && c->lqpn == dqpn && c->rqpn == sqpn &&
            !memcmp(c->gid, sgid, DW_IPOIB_GID_LEN)) {
            c->up = 1; /* data before RTU: communication established */
            via = c->mode;
        }
    }
    if (via == DW_IPOIB_MODE_UD) {
        n->st.rx_unknown++;
        return 0;
    }
    n->st.rx_conn++;
    return rx_frame(n, frame, len, via, NULL, now);
}

int dw_ipoib_node_input_cm(dw_ipoib_node *n, const uint8_t *sgid, const dw_ipoib_cm_msg *m,
                           uint64_t now)
{
    if (!n || !sgid || !m || m->pd_len > DW_IPOIB_CM_PD_MAX)
        return DW_ERR_INVAL;
    return dw_ipoib_node_cm_input(n, sgid, m, now);
}

/* ---- timers and state ---- */

void dw_ipoib_node_tick(dw_ipoib_node *n, uint64_t now)
{
    n->tick_err = 0;
    for (unsigned i = 0; i < n->s.max_peers; i++) {
        ipoib_peer *p = &n->peers[i];
        if (!p->used)
            continue;
        if (p->arp_out && now >= p->arp_deadline) {
            if (p->arp_tries < n->s.arp_tries) {
                /* refused: a try, as a lost request; told by tick_error */
                int r = arp_request(n, p, now);
                n->tick_err = n->tick_err ? n->tick_err : r;
            } else { /* unresolved: what waited is given up, the entry freed */
                pend_flush(n, p, 1, now);
                p->used = 0;
                continue;
            }
        }
        dw_ipoib_node_cm_tick(n, p, now);
    }
}

int dw_ipoib_node_tick_error(const dw_ipoib_node *n)
{
    return n ? n->tick_err : DW_ERR_INVAL;
}

uint64_t dw_ipoib_node_next_timer(const dw_ipoib_node *n)
{
    uint64_t t = UINT64_MAX;
    for (unsigned i = 0; i < n->s.max_peers; i++) {
        const ipoib_peer *p = &n->peers[i];
        if (!p->used)
            continue;
        if (p->arp_out && p->arp_deadline < t)
            t = p->arp_deadline;
        if (p->state == DW_IPOIB_LINK_PENDING && p->deadline < t)
            t = p->deadline;
        for (int k = 0; k < IPOIB_PEER_SVC_MAX; k++)
            if (p->svc[k].state == SVC_PENDING && p->svc[k].deadline < t)
                t = p->svc[k].deadline;
    }
    return t;
}

uint32_t dw_ipoib_node_path_mtu(const dw_ipoib_node *n, uint32_t ipv4)
{
    const ipoib_peer *p = peer_find(n, ipv4);
    uint32_t m = n->s.ud_mtu;
    if (p && p->state == DW_IPOIB_LINK_UP && dw_ipoib_mode_connected(p->chosen) && p->mtu > m)
        m = p->mtu;
    return m;
}

int dw_ipoib_node_peer(const dw_ipoib_node *n, uint32_t ipv4, dw_ipoib_peer_info *info)
{
    const ipoib_peer *p = n && info ? peer_find(n, ipv4) : NULL;
    if (!p)
        return DW_ERR_INVAL;
    memset(info, 0, sizeof *info);
    info->resolved = p->resolved;
    info->addr = p->addr;
    info->caps = p->caps;
    info->chosen = dw_ipoib_choose(n->s.caps, p->caps);
    info->state = p->state;
    if (info->chosen == DW_IPOIB_MODE_QPN) { /* the services' state */
        int pending = 0;
        for (int k = 0; k < IPOIB_PEER_SVC_MAX; k++)
            pending |= p->svc[k].state == SVC_PENDING;
        info->state = p->svc_up ? DW_IPOIB_LINK_UP
                      : pending ? DW_IPOIB_LINK_PENDING
                      : p->svc_failed ? DW_IPOIB_LINK_FAILED : DW_IPOIB_LINK_NONE;
    }
    info->mode = DW_IPOIB_MODE_UD;
    if (p->state == DW_IPOIB_LINK_UP && dw_ipoib_mode_connected(p->chosen))
        info->mode = p->chosen;
    else if (p->svc_up)
        info->mode = DW_IPOIB_MODE_QPN;
    info->mtu = dw_ipoib_node_path_mtu(n, ipv4);
    info->attempts = p->attempts;
    info->failures = p->failures;
    info->mtu_retries = p->mtu_retries;
    info->sid_retries = p->sid_retries;
    info->services_up = p->svc_up;
    info->services_failed = p->svc_failed;
    return 0;
}
