/* SPDX-License-Identifier: MIT */
/*
 * IPoIB on the simulated fabric: the full pairwise matrix of node kinds
 * (every pair interoperates, picks the best common mode and the smaller
 * MTU: checked against a table written here from the kinds' description),
 * the draft 3.2 MTU exchange (REJ reason 3, retry, disconnect), the 3.3
 * packet rules, and section 5's imposters: wrong flags or addresses cost at
 * most one failed attempt and leave the pair on UD without losing a packet.
 */
#include <ddpwire_sim/ipoib_sim.h>
#include <ddpwire/ipoib_node.h>

#include "../failing_mem.h"
#include "test.h"

static int quick(void)
{
    return getenv("DW_TEST_QUICK") != NULL;
}

/* ---- the matrix ---- */

/* The kinds as documented (ipoib_sim.h): profile family, capabilities, MTU. */
static const struct {
    const char *name;
    char family; /* D draft, R RFC 4755 (Linux included) */
    const char *caps;
    uint32_t mtu;
} kinds[] = {
    {"draft-ud", 'D', "", 65520},    {"draft-qpn", 'D', "Q", 65520},
    {"draft-rc", 'D', "R", 65520},   {"draft-uc", 'D', "U", 32768},
    {"draft-rd", 'D', "D", 16384},   {"draft-all", 'D', "QRUD", 65520},
    {"rfc-ud", 'R', "", 65520},      {"rfc-rc", 'R', "R", 65520},
    {"rfc-uc", 'R', "U", 32768},     {"rfc-rcuc", 'R', "RU", 65520},
    {"linux-rc", 'R', "R", 65520},
};
#define NK (sizeof kinds / sizeof kinds[0])

/* Best common mode: RC, RD, UC, QPN, else UD; the profiles' flags differ,
 * so a draft and an RFC 4755 interface share only UD. */
static dw_ipoib_mode expect_mode(size_t a, size_t b)
{
    static const char order[] = "RDUQ";
    static const dw_ipoib_mode modes[] = {DW_IPOIB_MODE_RC, DW_IPOIB_MODE_RD, DW_IPOIB_MODE_UC,
                                          DW_IPOIB_MODE_QPN};
    if (kinds[a].family != kinds[b].family)
        return DW_IPOIB_MODE_UD;
    for (int i = 0; i < 4; i++)
        if (strchr(kinds[a].caps, order[i]) && strchr(kinds[b].caps, order[i]))
            return modes[i];
    return DW_IPOIB_MODE_UD;
}

static uint32_t expect_mtu(size_t a, size_t b, dw_ipoib_mode m)
{
    if (m == DW_IPOIB_MODE_UD || m == DW_IPOIB_MODE_QPN)
        return 2044;
    return kinds[a].mtu < kinds[b].mtu ? kinds[a].mtu : kinds[b].mtu;
}

static void test_matrix_every_pair(void)
{
    CHECK_EQ_U(dw_ipoib_kind_count(), NK);
    dw_ipoib_pair_settings o;
    dw_ipoib_pair_settings_default(&o);
    if (quick())
        o.bulk = 64u << 10;
    fprintf(stderr, "%-10s %-10s A>B  MTU    B>A  MTU    failed retries\n", "A", "B");
    for (size_t a = 0; a < NK; a++)
        for (size_t b = 0; b < NK; b++) {
            CHECK(strcmp(dw_ipoib_kind_name(a), kinds[a].name) == 0);
            dw_ipoib_pair_result r;
            CHECK_EQ_U(dw_ipoib_pair_run(a, b, &o, &r), 0);
            dw_ipoib_mode m = expect_mode(a, b);
            fprintf(stderr, "%-10s %-10s %-4s %-6u %-4s %-6u %u %u\n", kinds[a].name,
                    kinds[b].name, dw_ipoib_mode_name(r.mode_ab), r.mtu_ab,
                    dw_ipoib_mode_name(r.mode_ba), r.mtu_ba, r.failed, r.retries);
            CHECK_EQ_U(r.mode_ab, m);
            CHECK_EQ_U(r.mode_ba, m);
            CHECK_EQ_U(r.mtu_ab, expect_mtu(a, b, m));
            CHECK_EQ_U(r.mtu_ba, expect_mtu(a, b, m));
            /* every pair interoperates, nothing lost */
            CHECK(r.ok);
            CHECK_EQ_U(r.lost, 0);
            CHECK_EQ_U(r.echo_replies, o.pings);
            CHECK_EQ_U(r.bulk_rcvd, o.bulk);
            /* a misread peer costs at most one failed attempt per direction */
            CHECK(r.failed <= 2);
            if (kinds[a].family == kinds[b].family)
                CHECK_EQ_U(r.failed, 0);
        }
    /* a few rows spelled out */
    dw_ipoib_pair_result r;
    dw_ipoib_pair_run((size_t)dw_ipoib_kind_find("draft-all"),
                      (size_t)dw_ipoib_kind_find("draft-uc"), &o, &r);
    CHECK(r.mode_ab == DW_IPOIB_MODE_UC && r.mtu_ab == 32768);
    dw_ipoib_pair_run((size_t)dw_ipoib_kind_find("rfc-rc"),
                      (size_t)dw_ipoib_kind_find("linux-rc"), &o, &r);
    /* Linux listens for its own service ID only: one retry with that form */
    CHECK(r.mode_ab == DW_IPOIB_MODE_RC && r.retries == 1 && r.failed == 0);
    dw_ipoib_pair_run((size_t)dw_ipoib_kind_find("draft-all"),
                      (size_t)dw_ipoib_kind_find("rfc-rc"), &o, &r);
    CHECK(r.mode_ab == DW_IPOIB_MODE_UD && r.failed == 2 && r.ok);
    dw_ipoib_pair_run((size_t)dw_ipoib_kind_find("draft-qpn"),
                      (size_t)dw_ipoib_kind_find("draft-all"), &o, &r);
    CHECK(r.mode_ab == DW_IPOIB_MODE_QPN && r.mode_ba == DW_IPOIB_MODE_QPN && r.ok);
}

static void test_matrix_seeds(void)
{
    dw_ipoib_pair_settings o;
    dw_ipoib_pair_settings_default(&o);
    o.bulk = 32u << 10;
    o.defer_permille = 500;
    dw_ipoib_pair_result r1, r2;
    int seeds = quick() ? 4 : 20;
    for (int s = 1; s <= seeds; s++) {
        o.seed = (uint64_t)s * 7919;
        size_t a = (size_t)s % NK, b = (size_t)(s * 3) % NK;
        CHECK_EQ_U(dw_ipoib_pair_run(a, b, &o, &r1), 0);
        CHECK_EQ_U(dw_ipoib_pair_run(a, b, &o, &r2), 0);
        CHECK_EQ_U(r1.steps, r2.steps); /* deterministic */
        CHECK(r1.ok && r1.mode_ab == expect_mode(a, b) && r1.mode_ba == expect_mode(a, b));
    }
}

/* ---- scenario harness ---- */

typedef struct ctx ctx;
struct ctx {
    int (*tamper)(ctx *c, dw_ipoib_msg *m);
    unsigned cm_seen[16];
    unsigned rej3, rej8, rej28;
    uint32_t rej_mtu;
    unsigned ud_mcast;
    uint64_t req_sid, sidr_sid[2];
    unsigned sidr_a;
    int have_conn;
    uint32_t conn_sqpn, conn_dqpn;
    unsigned fired;
    uint8_t rec[2][200];
    size_t rec_len[2];
};

static int tamper_cb(dw_ipoib_fabric *f, dw_ipoib_msg *m, void *ud)
{
    ctx *c = ud;
    (void)f;
    return c->tamper ? c->tamper(c, m) : 0;
}

static void tap_cb(dw_ipoib_fabric *f, const dw_ipoib_msg *m, void *ud)
{
    ctx *c = ud;
    (void)f;
    if (m->kind == DW_IPOIB_MSG_CM) {
        c->cm_seen[m->cm->type]++;
        if (m->cm->type == DW_IPOIB_CM_REQ && !c->req_sid && m->src == 0)
            c->req_sid = m->cm->service_id;
        if (m->cm->type == DW_IPOIB_CM_SIDR_REQ && m->src == 0 && c->sidr_a < 2)
            c->sidr_sid[c->sidr_a++] = m->cm->service_id;
        if (m->cm->type == DW_IPOIB_CM_REJ) {
            dw_ipoib_rej r;
            c->rej3 += m->cm->reason == 3;
            c->rej8 += m->cm->reason == 8;
            c->rej28 += m->cm->reason == 28;
            if (dw_ipoib_rej_decode(&r, m->cm->reason, m->cm->pd, m->cm->pd_len) == 12)
                c->rej_mtu = r.pd.mtu;
        }
    } else if (m->kind == DW_IPOIB_MSG_CONN && m->src == 0 && !c->have_conn) {
        c->have_conn = 1;
        c->conn_sqpn = m->sqpn;
        c->conn_dqpn = m->dqpn;
    } else if (m->kind == DW_IPOIB_MSG_UD) {
        int mc = dw_ipoib_gid_is_mcast(m->dgid);
        c->ud_mcast += mc;
        if (m->len == 60 && !c->rec_len[!mc]) /* first ARP of each form */
            c->rec_len[!mc] = (size_t)dw_ipoib_msg_lt242(m, c->rec[!mc], sizeof c->rec[0]);
    }
}

static const uint32_t IP_A = 0x0A000001, IP_B = 0x0A000002, IP_C = 0x0A000003;

static dw_ipoib_node_settings kind(const char *name, uint32_t ip)
{
    dw_ipoib_node_settings s;
    dw_ipoib_kind_settings((size_t)dw_ipoib_kind_find(name), ip, &s);
    return s;
}

static dw_ipoib_fabric *mk(ctx *c, const dw_ipoib_node_settings *a,
                           const dw_ipoib_node_settings *b, unsigned defer)
{
    static dw_ipoib_fabric_callbacks cb = {tamper_cb, tap_cb, NULL, NULL};
    dw_ipoib_fabric_settings fs;
    dw_ipoib_fabric_settings_default(&fs);
    fs.defer_permille = defer;
    dw_ipoib_fabric *f = NULL;
    CHECK_EQ_U(dw_ipoib_fabric_new(&f, &fs, &cb, c), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, a), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, b), 1);
    return f;
}

/* A pings B and sends it bulk data; checks nothing was lost. */
static void start_traffic(dw_ipoib_fabric *f, uint64_t bulk)
{
    CHECK_EQ_U(dw_ipoib_fabric_ping(f, 0, IP_B, 3, 56), 0);
    CHECK_EQ_U(dw_ipoib_fabric_bulk(f, 0, IP_B, 5001, bulk), 0);
}

static void finish_traffic(dw_ipoib_fabric *f, uint64_t bulk)
{
    dw_ipoib_fabric_run(f, 5000000);
    const dw_ipoib_host_stats *a = dw_ipoib_fabric_host_stats_get(f, 0);
    const dw_ipoib_host_stats *b = dw_ipoib_fabric_host_stats_get(f, 1);
    CHECK_EQ_U(a->echo_replies, 3);
    CHECK_EQ_U(b->bulk_rcvd, bulk);
    CHECK_EQ_U(b->bulk_pkts_rcvd, a->bulk_pkts_sent);
    CHECK(!b->bulk_bad && !b->bulk_dups && !a->send_errors && !b->send_errors);
    const dw_ipoib_fabric_stats *fs = dw_ipoib_fabric_stats_get(f);
    CHECK(!fs->ud_oversize && !fs->ring_full && !fs->unroutable);
}

static void traffic(dw_ipoib_fabric *f, uint64_t bulk)
{
    start_traffic(f, bulk);
    finish_traffic(f, bulk);
}

static dw_ipoib_peer_info peer(dw_ipoib_fabric *f, int host, uint32_t ip)
{
    dw_ipoib_peer_info p;
    memset(&p, 0, sizeof p);
    CHECK_EQ_U(dw_ipoib_node_peer(dw_ipoib_fabric_node(f, host), ip, &p), 0);
    return p;
}

static dw_ipoib_node_stats nst(dw_ipoib_fabric *f, int host)
{
    dw_ipoib_node_stats st;
    dw_ipoib_node_stats_get(dw_ipoib_fabric_node(f, host), &st);
    return st;
}

/* ---- draft 3.2: the MTU ---- */

static void test_s32_rej_reason3_then_retry(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-rc", IP_A), b = kind("draft-rc", IP_B);
    a.mtu = (dw_ipoib_mtu_policy){4096, 68, 65520}; /* offers little, can do more */
    b.mtu = (dw_ipoib_mtu_policy){65520, 16384, 65520};
    dw_ipoib_fabric *f = mk(&c, &a, &b, 200);
    traffic(f, 200000);
    /* B: REJ reason 3 with the acceptable MTU; A: a new REQ with it */
    CHECK(c.rej3 >= 1 && c.rej_mtu == 16384);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    CHECK(p.mode == DW_IPOIB_MODE_RC && p.mtu == 16384 && p.mtu_retries == 1 && !p.failures);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 1)->max_rx_len, 16384);
    /* B's own link: A replies with its 4096, below B's minimum: B disconnects */
    p = peer(f, 1, IP_A);
    CHECK(p.state == DW_IPOIB_LINK_FAILED && p.mode == DW_IPOIB_MODE_UD && p.mtu == 2044);
    CHECK_EQ_U(nst(f, 1).disconnects, 1);
    CHECK(c.cm_seen[DW_IPOIB_CM_DREQ] == 1 && c.cm_seen[DW_IPOIB_CM_DREP] == 1);
    dw_ipoib_fabric_del(f);
}

static void test_s32_rej_mtu_out_of_reach(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-rc", IP_A), b = kind("draft-rc", IP_B);
    a.mtu = (dw_ipoib_mtu_policy){4096, 68, 8192};
    b.mtu = (dw_ipoib_mtu_policy){65520, 16384, 65520};
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    CHECK(c.rej3 >= 1 && p.mode == DW_IPOIB_MODE_UD && p.failures == 1 && !p.mtu_retries);
    dw_ipoib_fabric_del(f);
}

static void test_s32_link_mtu_is_the_smaller(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-rc", IP_A), b = kind("draft-rc", IP_B);
    a.mtu.offer = a.mtu.max = 9000;
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 100000);
    CHECK(peer(f, 0, IP_B).mtu == 9000 && peer(f, 1, IP_A).mtu == 9000);
    /* 3.2: the REQ's service ID is the first packet's (ICMP: all ICMP) */
    CHECK_EQ_U(c.req_sid, 0x0100000100000000ull);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 1)->max_rx_len, 9000);
    dw_ipoib_fabric_del(f);
}

/* ---- draft 3.1: a QPN per service ---- */

static void test_s31_one_qpn_per_service(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-qpn", IP_A), b = kind("draft-all", IP_B);
    b.caps = DW_IPOIB_CAP_QPN; /* QPN only, bound services as the kind has */
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    /* two services of one IP address, each resolved by SIDR to its own QPN:
     * all ICMP (rule 1 wildcard) and UDP port 5001 (rule 2) */
    CHECK(p.mode == DW_IPOIB_MODE_QPN && p.services_up == 2 && !p.failures);
    CHECK_EQ_U(c.sidr_sid[0], 0x0100000100000000ull);
    CHECK_EQ_U(c.sidr_sid[1], 0x0100001100001389ull);
    const dw_ipoib_host_stats *hb = dw_ipoib_fabric_host_stats_get(f, 1);
    CHECK(hb->rx_via[DW_IPOIB_MODE_QPN] > 0 && hb->rx_via[DW_IPOIB_MODE_UD] > 0);
    CHECK(nst(f, 0).tx_qpn > 0 && nst(f, 1).rx_qpn == nst(f, 0).tx_qpn);
    /* the ARP QPN is still the default for the rest */
    CHECK(p.addr.qpn == dw_ipoib_node_settings_get(dw_ipoib_fabric_node(f, 1))->qpn);
    dw_ipoib_fabric_del(f);
}

/* ---- draft 3.3: which link ---- */

static void test_s33_no_packet_waits_for_a_link(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-rc", IP_A), b = kind("draft-rc", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 300000);
    const dw_ipoib_host_stats *hb = dw_ipoib_fabric_host_stats_get(f, 1);
    /* the first packets went over UD while the REQ was out; then RC */
    CHECK(hb->rx_via[DW_IPOIB_MODE_UD] > 0 && hb->rx_via[DW_IPOIB_MODE_RC] > 0);
    CHECK(hb->max_rx_len > 2044 && hb->max_rx_len <= 65520);
    dw_ipoib_fabric_del(f);
}

static size_t udp_pkt(uint8_t *p, uint32_t src, uint32_t dst, size_t len)
{
    memset(p, 0, len);
    p[0] = 0x45;
    p[2] = (uint8_t)(len >> 8);
    p[3] = (uint8_t)len;
    p[8] = 64;
    p[9] = 17;
    for (int i = 0; i < 4; i++) {
        p[12 + i] = (uint8_t)(src >> (24 - 8 * i));
        p[16 + i] = (uint8_t)(dst >> (24 - 8 * i));
    }
    uint32_t s = 0;
    for (int i = 0; i < 20; i += 2)
        s += (uint32_t)p[i] << 8 | p[i + 1];
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    p[10] = (uint8_t)(~s >> 8);
    p[11] = (uint8_t)~s;
    p[22] = 0x00; /* UDP to port 7 */
    p[23] = 7;
    p[24] = (uint8_t)((len - 20) >> 8);
    p[25] = (uint8_t)(len - 20);
    return len;
}

static void test_s33_ud_received_is_processed(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-rc", IP_A), b = kind("draft-rc", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 50000);
    CHECK(peer(f, 0, IP_B).mode == DW_IPOIB_MODE_RC);
    uint8_t pkt[200];
    size_t n = udp_pkt(pkt, IP_A, IP_B, 200);
    dw_ipoib_node *na = dw_ipoib_fabric_node(f, 0);
    uint64_t ud0 = dw_ipoib_fabric_host_stats_get(f, 1)->rx_via[DW_IPOIB_MODE_UD];
    uint64_t del0 = nst(f, 1).delivered;
    /* unicast MAY go over UD although an RC link is up; B MUST process it */
    CHECK_EQ_U(dw_ipoib_node_send_via(na, IP_B, DW_IPOIB_TYPE_IPV4, pkt, n, DW_IPOIB_MODE_UD, 0),
               0);
    dw_ipoib_fabric_run(f, 1000);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 1)->rx_via[DW_IPOIB_MODE_UD], ud0 + 1);
    CHECK_EQ_U(nst(f, 1).delivered, del0 + 1);
    /* the sender's side of the rules */
    uint8_t arp[56] = {0, 32, 8, 0, 20, 4, 0, 1};
    CHECK_EQ_U(dw_ipoib_node_send_via(na, IP_B, DW_IPOIB_TYPE_ARP, arp, 56, DW_IPOIB_MODE_RC, 0),
               (ssize_t)DW_ERR_PROTO);
    uint8_t mc[100];
    udp_pkt(mc, IP_A, 0xE0000001, 100);
    CHECK_EQ_U(dw_ipoib_node_send_via(na, IP_B, DW_IPOIB_TYPE_IPV4, mc, 100, DW_IPOIB_MODE_RC, 0),
               (ssize_t)DW_ERR_PROTO);
    CHECK_EQ_U(dw_ipoib_node_send_via(na, IP_B, DW_IPOIB_TYPE_IPV4, pkt, n, DW_IPOIB_MODE_UC, 0),
               (ssize_t)DW_ERR_STATE);
    CHECK_EQ_U(dw_ipoib_node_send_via(na, IP_C, DW_IPOIB_TYPE_IPV4, pkt, n, DW_IPOIB_MODE_UD, 0),
               (ssize_t)DW_ERR_STATE);
    dw_ipoib_fabric_del(f);
}

static void test_s33_arp_over_a_connection_is_dropped(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-rc", IP_A), b = kind("draft-rc", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 50000);
    CHECK(c.have_conn);
    dw_ipoib_node *nb = dw_ipoib_fabric_node(f, 1);
    const uint8_t *gid_a = dw_ipoib_node_settings_get(dw_ipoib_fabric_node(f, 0))->gid;
    uint8_t fr[4 + 200] = {0x08, 0x06, 0, 0, 0, 32, 8, 0, 20, 4, 0, 2};
    uint64_t drops = nst(f, 1).rx_rule_drops, ign = nst(f, 1).arp_ignored;
    uint64_t del = nst(f, 1).delivered;
    dw_ipoib_node_input_conn(nb, gid_a, c.conn_sqpn, c.conn_dqpn, fr, 60, 0);
    CHECK_EQ_U(nst(f, 1).rx_rule_drops, drops + 1); /* ARP MUST only be over UD */
    CHECK_EQ_U(nst(f, 1).arp_ignored, ign);         /* not even looked at */
    fr[0] = 0x08;
    fr[1] = 0x00;
    udp_pkt(fr + 4, IP_A, 0xE0000001, 100);
    dw_ipoib_node_input_conn(nb, gid_a, c.conn_sqpn, c.conn_dqpn, fr, 104, 0);
    CHECK_EQ_U(nst(f, 1).rx_rule_drops, drops + 2); /* multicast cannot use it */
    udp_pkt(fr + 4, IP_A, IP_B, 100);
    dw_ipoib_node_input_conn(nb, gid_a, c.conn_sqpn, c.conn_dqpn, fr, 104, 0);
    CHECK_EQ_U(nst(f, 1).delivered, del + 1);
    dw_ipoib_node_input_conn(nb, gid_a, c.conn_sqpn ^ 1, c.conn_dqpn, fr, 104, 0);
    CHECK_EQ_U(nst(f, 1).delivered, del + 1); /* not our connection */
    dw_ipoib_fabric_del(f);
}

static void test_s33_multicast_over_ud(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-all", IP_A), b = kind("draft-rc", IP_B);
    dw_ipoib_node_settings s3 = kind("rfc-ud", IP_C);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &s3), 2);
    traffic(f, 50000);
    unsigned mc0 = c.ud_mcast;
    CHECK_EQ_U(dw_ipoib_fabric_mcast(f, 0, 0xE0000001, 300), 0);
    CHECK_EQ_U(dw_ipoib_fabric_mcast(f, 0, 0xFFFFFFFF, 300), 0);
    dw_ipoib_fabric_run(f, 1000);
    CHECK_EQ_U(c.ud_mcast, mc0 + 2);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 1)->mcast_rcvd, 2); /* though RC is up */
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 2)->mcast_rcvd, 2);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 0)->mcast_rcvd, 0); /* not to the sender */
    CHECK_EQ_U(dw_ipoib_fabric_mcast(f, 0, 0xE0000001, 2100), (ssize_t)DW_ERR_INVAL);
    dw_ipoib_fabric_del(f);
}

/* ---- section 5: imposters ---- */

static int flags_on_b_arp(ctx *c, dw_ipoib_msg *m)
{
    /* B's ARP frames: set every capability flag in B's address */
    if (m->kind == DW_IPOIB_MSG_UD && m->src == 1 && m->len >= 60 && m->data[1] == 0x06) {
        m->data[4 + 8] = (uint8_t)(c->fired ? c->fired : 0xF0);
        c->cm_seen[15]++;
    }
    return 0;
}

static void test_s5_forged_flags_draft(void)
{
    ctx c = {0};
    c.tamper = flags_on_b_arp;
    dw_ipoib_node_settings a = kind("draft-all", IP_A), b = kind("draft-ud", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 200);
    traffic(f, 200000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    CHECK(c.cm_seen[15] >= 1);
    /* A believed RC, tried once, was refused, stays on UD */
    CHECK(p.chosen == DW_IPOIB_MODE_RC && p.mode == DW_IPOIB_MODE_UD && p.mtu == 2044);
    CHECK(p.attempts == 1 && p.failures == 1 && c.rej8 == 1);
    dw_ipoib_fabric_del(f);
}

static void test_s5_forged_flags_rfc4755(void)
{
    ctx c = {0};
    c.tamper = flags_on_b_arp;
    c.fired = 0xC0;
    dw_ipoib_node_settings a = kind("rfc-rcuc", IP_A), b = kind("rfc-ud", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    /* REJ "invalid service ID" twice: the RFC 4755 form, then Linux's */
    CHECK(p.mode == DW_IPOIB_MODE_UD && p.failures == 1 && p.sid_retries == 1 && c.rej8 == 2);
    dw_ipoib_fabric_del(f);
}

static void test_s5_lying_silent_peer(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-all", IP_A), b = kind("draft-ud", IP_B);
    b.advertise = DW_IPOIB_CAP_ALL; /* claims all, implements none, answers no CM */
    b.cm_silent = 1;
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    CHECK(p.state == DW_IPOIB_LINK_FAILED && p.mode == DW_IPOIB_MODE_UD && p.failures == 1);
    CHECK(dw_ipoib_fabric_now(f) >= a.cm_timeout); /* it took the timeout */
    CHECK_EQ_U(c.cm_seen[DW_IPOIB_CM_REQ], 1);
    dw_ipoib_fabric_del(f);
}

static void test_s5_lying_qpn_peer(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-qpn", IP_A), b = kind("draft-ud", IP_B);
    b.advertise = DW_IPOIB_CAP_QPN;
    dw_ipoib_fabric *f = mk(&c, &a, &b, 200);
    traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    /* one SIDR, "not supported", no further SIDR to that peer */
    CHECK(p.mode == DW_IPOIB_MODE_UD && p.services_failed == 1 && p.failures == 1);
    CHECK_EQ_U(c.cm_seen[DW_IPOIB_CM_SIDR_REQ], 1);
    dw_ipoib_fabric_del(f);
}

static void inject_arp_reply(dw_ipoib_fabric *f, int from, const dw_ipoib_addr *sha,
                             uint32_t spa)
{
    dw_ipoib_node *na = dw_ipoib_fabric_node(f, 0);
    dw_ipoib_arp a = {0};
    uint8_t fr[60] = {0x08, 0x06};
    a.op = DW_IPOIB_ARP_REPLY;
    a.sha = *sha;
    a.spa = spa;
    dw_ipoib_node_addr(na, &a.tha);
    a.tpa = IP_A;
    CHECK_EQ_U(dw_ipoib_arp_encode(fr + 4, 56, &a), 56);
    dw_ipoib_ud to = {a.tha.gid, a.tha.qpn, NULL, 0};
    CHECK_EQ_U(dw_ipoib_fabric_inject_ud(f, from, &to, fr, 60), 0);
}

static void test_s5_spoofed_arp_is_ignored(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-all", IP_A), b = kind("draft-rc", IP_B);
    dw_ipoib_node_settings imp = kind("draft-ud", IP_C);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 200);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &imp), 2);
    dw_ipoib_addr real, forged, bogus;
    dw_ipoib_node_addr(dw_ipoib_fabric_node(f, 1), &real);
    forged = real;
    forged.flags = 0xF0; /* B's address with flags it never sent */
    bogus = real;
    bogus.qpn = 0x123456;
    bogus.gid[15] ^= 0x5a; /* nobody's address */
    /* the imposter (host 2) answers for B before B can */
    start_traffic(f, 100000); /* A's ARP request goes out at the first step */
    inject_arp_reply(f, 2, &forged, IP_B);
    inject_arp_reply(f, 2, &bogus, IP_B);
    finish_traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    CHECK(nst(f, 0).arp_ignored >= 2);
    CHECK(p.addr.qpn == real.qpn && !memcmp(p.addr.gid, real.gid, 16) && p.addr.flags == 0x40);
    CHECK(p.mode == DW_IPOIB_MODE_RC && !p.failures);
    dw_ipoib_fabric_del(f);

    /* without the check the bogus address wins and packets are lost:
     * the counter-measure is what keeps them */
    memset(&c, 0, sizeof c);
    a.check_arp_source = 0;
    f = mk(&c, &a, &b, 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &imp), 2);
    CHECK_EQ_U(dw_ipoib_fabric_ping(f, 0, IP_B, 3, 56), 0);
    inject_arp_reply(f, 2, &bogus, IP_B);
    dw_ipoib_fabric_run(f, 1000000);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 0)->echo_replies, 0);
    CHECK(dw_ipoib_fabric_stats_get(f)->unroutable > 0);
    dw_ipoib_fabric_del(f);
}

static int break_pd(ctx *c, dw_ipoib_msg *m)
{
    /* only the messages of A's set-up: requests from A, replies from B */
    int reply = c->fired == DW_IPOIB_CM_REP || c->fired == DW_IPOIB_CM_SIDR_REP;
    if (m->kind == DW_IPOIB_MSG_CM && m->cm->type == (dw_ipoib_cm_type)c->fired &&
        m->src == reply && !c->cm_seen[14]++) {
        if (m->cm->type == DW_IPOIB_CM_SIDR_REP)
            m->cm->pd[6] ^= 1; /* "QPN sent" is not the ARP QPN */
        else
            m->cm->pd[3] = 0x55; /* a pad octet */
    }
    return 0;
}

static void test_s5_malformed_private_data(void)
{
    static const struct {
        dw_ipoib_cm_type t;
        const char *a;
    } cases[] = {{DW_IPOIB_CM_REQ, "draft-rc"},
                 {DW_IPOIB_CM_REP, "draft-rc"},
                 {DW_IPOIB_CM_SIDR_REQ, "draft-qpn"},
                 {DW_IPOIB_CM_SIDR_REP, "draft-qpn"}};
    for (size_t i = 0; i < 4; i++) {
        ctx c = {0};
        c.tamper = break_pd;
        c.fired = cases[i].t;
        dw_ipoib_node_settings a = kind(cases[i].a, IP_A), b = kind(cases[i].a, IP_B);
        dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
        traffic(f, 50000);
        dw_ipoib_peer_info p = peer(f, 0, IP_B);
        CHECK(p.mode == DW_IPOIB_MODE_UD && p.failures == 1);
        CHECK_EQ_U(nst(f, 0).cm_malformed + nst(f, 1).cm_malformed, 1);
        if (cases[i].t == DW_IPOIB_CM_REQ || cases[i].t == DW_IPOIB_CM_REP)
            CHECK(c.rej28 == 1); /* refused with a REJ, by B or by A */
        /* B's own link to A was not disturbed */
        CHECK(peer(f, 1, IP_A).failures == 0 && peer(f, 1, IP_A).mode != DW_IPOIB_MODE_UD);
        dw_ipoib_fabric_del(f);
    }
}

static int drop_rep(ctx *c, dw_ipoib_msg *m)
{
    return m->kind == DW_IPOIB_MSG_CM && m->cm->type == DW_IPOIB_CM_REP && m->dst == 0 &&
           !c->cm_seen[13]++;
}

static void test_s5_lost_reply_times_out(void)
{
    ctx c = {0};
    c.tamper = drop_rep;
    dw_ipoib_node_settings a = kind("rfc-rc", IP_A), b = kind("rfc-rc", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 100000);
    dw_ipoib_peer_info p = peer(f, 0, IP_B);
    CHECK(p.mode == DW_IPOIB_MODE_UD && p.failures == 1 && c.cm_seen[13] == 1);
    CHECK(dw_ipoib_fabric_stats_get(f)->tampered_drops == 1);
    dw_ipoib_fabric_del(f);
}

/* ---- the fabric itself ---- */

static void test_ud_mtu_and_limits(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-ud", IP_A), b = kind("draft-ud", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    static uint8_t fr[4 + 2045];
    fr[0] = 0x08;
    udp_pkt(fr + 4, IP_A, IP_B, 2045);
    const dw_ipoib_node_settings *sb = dw_ipoib_node_settings_get(dw_ipoib_fabric_node(f, 1));
    dw_ipoib_ud to = {sb->gid, sb->qpn, NULL, 0};
    CHECK_EQ_U(dw_ipoib_fabric_inject_ud(f, 0, &to, fr, 4 + 2045), 0);
    CHECK_EQ_U(dw_ipoib_fabric_inject_ud(f, 0, &to, fr, 4 + 2044), 0);
    dw_ipoib_fabric_run(f, 100);
    CHECK_EQ_U(dw_ipoib_fabric_stats_get(f)->ud_oversize, 1); /* 2045 never arrives */
    CHECK_EQ_U(nst(f, 1).delivered, 1);
    /* the node never offers UD more than its MTU */
    CHECK_EQ_U(dw_ipoib_node_send(dw_ipoib_fabric_node(f, 0), fr + 4, 2045, 0),
               (ssize_t)DW_ERR_TOO_LONG);
    dw_ipoib_fabric_del(f);
}

static void test_arp_gives_up(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-ud", IP_A), b = kind("draft-ud", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    CHECK_EQ_U(dw_ipoib_fabric_ping(f, 0, 0x0A000009, 1, 56), 0);
    dw_ipoib_fabric_run(f, 1000000);
    CHECK_EQ_U(dw_ipoib_fabric_host_stats_get(f, 0)->echo_replies, 0);
    CHECK_EQ_U(nst(f, 0).pend_dropped, 1);
    dw_ipoib_peer_info p;
    CHECK(dw_ipoib_node_peer(dw_ipoib_fabric_node(f, 0), 0x0A000009, &p) < 0); /* freed */
    dw_ipoib_fabric_del(f);
}

static void test_pcap_records(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-all", IP_A), b = kind("draft-rc", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    traffic(f, 10000);
    dw_ipoib_lt242 h;
    dw_ipoib_arp arp;
    const dw_ipoib_node_settings *sa = dw_ipoib_node_settings_get(dw_ipoib_fabric_node(f, 0));
    CHECK_EQ_U(c.rec_len[0], 100); /* 40 + 4 + 56: the broadcast request */
    CHECK(dw_ipoib_lt242_decode(&h, c.rec[0], 100) == 40 && h.grh && h.sqpn == sa->qpn);
    CHECK(h.dgid[0] == 0xff && h.dgid[15] == 0xff && !memcmp(h.sgid, sa->gid, 16));
    CHECK(c.rec[0][40] == 0x08 && c.rec[0][41] == 0x06);
    CHECK(dw_ipoib_arp_decode(&arp, c.rec[0] + 44, 56) == 56 && arp.sha.flags == 0xF0);
    CHECK_EQ_U(c.rec_len[1], 100); /* the unicast reply */
    CHECK(dw_ipoib_lt242_decode(&h, c.rec[1], 100) == 40 && !h.grh && h.dst.qpn == sa->qpn);
    CHECK(dw_ipoib_arp_decode(&arp, c.rec[1] + 44, 56) == 56 && arp.op == 2 &&
          arp.sha.flags == 0x40);
    dw_ipoib_fabric_del(f);
}

static void test_settings_refused(void)
{
    ctx c = {0};
    dw_ipoib_node_settings a = kind("draft-ud", IP_A), b = kind("draft-ud", IP_B);
    dw_ipoib_fabric *f = mk(&c, &a, &b, 0);
    dw_ipoib_node_settings s = kind("rfc-rc", IP_C);
    s.caps |= DW_IPOIB_CAP_QPN; /* RFC 4755 cannot say QPN */
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &s), (ssize_t)DW_ERR_INVAL);
    s = kind("draft-rc", IP_C);
    s.mtu.min = 70000; /* min above offer */
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &s), (ssize_t)DW_ERR_INVAL);
    s = kind("draft-rc", IP_C);
    s.qpn = 1; /* the GSI QP */
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &s), (ssize_t)DW_ERR_INVAL);
    dw_ipoib_fabric_del(f);
}

/* ---- what the fabric does with a node call's error ---- */

/* A CM message of a type no node knows: dw_ipoib_node_input_cm() returns
 * DW_ERR_MALFORMED. The fabric used to drop that return: the pair's retry
 * hid it and the run was "ok". */
static int bad_cm_type(dw_ipoib_fabric *f, dw_ipoib_msg *m, void *ud)
{
    unsigned *fired = ud;
    (void)f;
    if (m->kind == DW_IPOIB_MSG_CM && !*fired) {
        m->cm->type = (dw_ipoib_cm_type)0x5a;
        ++*fired;
    }
    return 0;
}

static void test_node_error_is_recorded(void)
{
    unsigned fired = 0;
    dw_ipoib_fabric_callbacks cb = {bad_cm_type, NULL, NULL, NULL};
    dw_ipoib_pair_settings o;
    dw_ipoib_pair_settings_default(&o);
    o.bulk = 16u << 10;
    o.cb = &cb;
    o.cb_user_data = &fired;
    dw_ipoib_pair_result r;
    size_t a = (size_t)dw_ipoib_kind_find("draft-rc");
    CHECK_EQ_U(dw_ipoib_pair_run(a, a, &o, &r), 0);
    CHECK_EQ_U(fired, 1);
    CHECK_EQ_U(r.node_errors, 1);
    CHECK_EQ_U((unsigned)-r.first_error, (unsigned)-DW_ERR_MALFORMED);
    CHECK(r.first_error_call && !strcmp(r.first_error_call, "dw_ipoib_node_input_cm"));
    CHECK(r.finished && !r.ok); /* a node refused what its peer sent: the pair failed */
    /* without the tamper: no error, ok */
    o.cb = NULL;
    CHECK_EQ_U(dw_ipoib_pair_run(a, a, &o, &r), 0);
    CHECK(r.ok && r.finished && !r.node_errors && !r.first_error && !r.first_error_call);
}

/* Every allocation of a pair's run (the fabric's and both nodes') fails
 * once: DW_ERR_NOMEM, nothing left allocated; the run after the last
 * point is whole and ok. */
static void test_pair_run_nomem(void)
{
    size_t a = (size_t)dw_ipoib_kind_find("draft-all"), b = (size_t)dw_ipoib_kind_find("draft-rc");
    counting c = {0, 0, 0};
    dw_mem m = {&c, t_malloc, t_free, t_calloc, t_realloc};
    dw_ipoib_pair_settings o;
    dw_ipoib_pair_settings_default(&o);
    o.bulk = 16u << 10;
    o.mem = &m;
    dw_ipoib_pair_result r;
    CHECK_EQ_U(dw_ipoib_pair_run(a, b, &o, &r), 0);
    CHECK(r.ok);
    unsigned long total = c.calls;
    CHECK(total >= 15); /* the fabric's 5, each node's 5 */
    CHECK_EQ_U(c.live, 0);
    for (unsigned long k = 1; k <= total; k++) {
        c = (counting){0, k, 0};
        CHECK_EQ_U((unsigned)-dw_ipoib_pair_run(a, b, &o, &r), (unsigned)-DW_ERR_NOMEM);
        CHECK_EQ_U(c.live, 0);
    }
    fprintf(stderr, "pair run: %lu allocations, each failed once: DW_ERR_NOMEM\n", total);
}

/* ---- a node that runs out of memory mid-run ---- */

/* The post hook: counts host A's UD posts (ARP, then the bulk data of a
 * UD link) and all posts, and refuses one of them with DW_ERR_NOMEM, as an
 * adapter out of memory would (a failing ibv_post_send): the fail_at-th of
 * host A's UD posts (all 0) or of all posts (all 1); fail_at 0: none. */
typedef struct posts {
    unsigned long ud_a, any, fail_at;
    int all, failed;
} posts;

static int post_cb(dw_ipoib_fabric *f, int host, dw_ipoib_msg_kind kind, size_t len, void *ud)
{
    posts *p = ud;
    (void)f, (void)len;
    unsigned long k = p->all ? ++p->any : host == 0 && kind == DW_IPOIB_MSG_UD ? ++p->ud_a : 0;
    p->any += !p->all;
    if (k && k == p->fail_at && !p->failed) {
        p->failed = 1;
        return DW_ERR_NOMEM;
    }
    return 0;
}

/* Long after creation (the address resolved, the bulk data flowing) host
 * A's node gets DW_ERR_NOMEM from a post and returns it from
 * dw_ipoib_node_send(): the fabric records it (the first error, the call,
 * node_errors) and stops, every later step says DW_ERR_NOMEM doing
 * nothing, and dw_ipoib_pair_run() returns DW_ERR_NOMEM (no verdict on half
 * a run); nothing is left allocated. */
static void test_node_nomem_mid_run(void)
{
    size_t a = (size_t)dw_ipoib_kind_find("draft-ud");
    counting c = {0, 0, 0};
    dw_mem m = {&c, t_malloc, t_free, t_calloc, t_realloc};
    posts p = {0, 0, 0, 0, 0};
    dw_ipoib_fabric_callbacks cb = {NULL, NULL, NULL, post_cb};
    dw_ipoib_pair_settings o;
    dw_ipoib_pair_settings_default(&o);
    o.bulk = 64u << 10;
    o.cb = &cb;
    o.cb_user_data = &p;
    o.mem = &m;
    dw_ipoib_pair_result r;
    CHECK_EQ_U(dw_ipoib_pair_run(a, a, &o, &r), 0); /* the full run, counted */
    CHECK(r.ok);
    unsigned long ud_a = p.ud_a, any = p.any, allocs = c.calls;
    CHECK(ud_a > 30); /* 64 KiB in 2044-octet datagrams */
    CHECK_EQ_U(c.live, 0);

    /* a fabric of its own, to see the steps: host A's 20th UD post fails */
    dw_ipoib_node_settings sa = kind("draft-ud", IP_A), sb = kind("draft-ud", IP_B);
    dw_ipoib_fabric_settings fs;
    dw_ipoib_fabric_settings_default(&fs);
    fs.mem = &m;
    p = (posts){0, 0, 20, 0, 0};
    c = (counting){0, 0, 0};
    dw_ipoib_fabric *f = NULL;
    CHECK_EQ_U(dw_ipoib_fabric_new(&f, &fs, &cb, &p), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &sa), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &sb), 1);
    CHECK_EQ_U(dw_ipoib_fabric_bulk(f, 0, IP_B, 5001, 64u << 10), 0);
    unsigned long made = c.calls;
    int rc = 1;
    uint64_t steps = 0;
    while (rc == 1 && steps < 1000000)
        rc = dw_ipoib_fabric_step(f), steps++;
    CHECK_EQ_U((unsigned)-rc, (unsigned)-DW_ERR_NOMEM);
    CHECK(p.failed);
    CHECK_EQ_U(c.calls, made); /* no allocation since creation */
    /* mid-run: B has had a dozen of the bulk packets */
    CHECK(dw_ipoib_fabric_stats_get(f)->delivered >= 10);
    CHECK(dw_ipoib_fabric_host_stats_get(f, 1)->bulk_pkts_rcvd >= 10);
    const dw_ipoib_host_stats *ha = dw_ipoib_fabric_host_stats_get(f, 0);
    CHECK(ha->bulk_pkts_sent >= 15 && ha->bulk_pkts_sent < ud_a);
    const char *call = NULL;
    CHECK_EQ_U((unsigned)-dw_ipoib_fabric_error(f, &call), (unsigned)-DW_ERR_NOMEM);
    CHECK(call && !strcmp(call, "dw_ipoib_node_send"));
    CHECK_EQ_U(dw_ipoib_fabric_stats_get(f)->node_errors, 1);
    CHECK_EQ_U(ha->send_errors, 1);
    uint64_t st = dw_ipoib_fabric_stats_get(f)->steps, sent = ha->bulk_pkts_sent;
    CHECK_EQ_U((unsigned)-dw_ipoib_fabric_step(f), (unsigned)-DW_ERR_NOMEM); /* stopped */
    CHECK_EQ_U(dw_ipoib_fabric_stats_get(f)->steps, st);
    CHECK_EQ_U(ha->bulk_pkts_sent, sent);
    dw_ipoib_fabric_del(f);
    CHECK_EQ_U(c.live, 0);

    /* the pair: each of host A's UD posts refused once, then each post of
     * the run (both hosts, any kind): every run ends in DW_ERR_NOMEM. The
     * first five of A's (the ARP request, the four packets that waited for
     * the address) are posted from within the node's ARP handling, which
     * took a refused post as a lost datagram: those runs ended as a failed
     * pair, or an ok one after ARP's retry (33 of 38; 37 of 43). */
    CHECK(any > ud_a);
    for (int all = 0; all <= 1; all++) {
        unsigned long n = all ? any : ud_a, nomem = 0;
        for (unsigned long k = 1; k <= n; k++) {
            p = (posts){0, 0, k, all, 0};
            c = (counting){0, 0, 0};
            rc = dw_ipoib_pair_run(a, a, &o, &r);
            CHECK(p.failed);
            CHECK_EQ_U(c.live, 0);
            CHECK_EQ_U((unsigned)-rc, (unsigned)-DW_ERR_NOMEM);
            nomem += rc == DW_ERR_NOMEM;
        }
        CHECK_EQ_U(nomem, n);
        fprintf(stderr, "pair run: %s, %lu (%lu allocations, all at creation), each "
                        "refused once: %lu DW_ERR_NOMEM\n",
                all ? "every post of the run" : "host A's UD posts", n, allocs, nomem);
    }
}

/* A run of a pair of kind ka/kb (pings, 64 KiB of bulk) whose k-th post
 * (any host, any kind) is refused; the fabric's error and its call. */
static int refused_run(const char *ka, const char *kb, posts *p, const char **call,
                       uint64_t *node_errors)
{
    dw_ipoib_fabric_callbacks cb = {NULL, NULL, NULL, post_cb};
    dw_ipoib_fabric_settings fs;
    dw_ipoib_fabric_settings_default(&fs);
    dw_ipoib_node_settings sa = kind(ka, IP_A), sb = kind(kb, IP_B);
    dw_ipoib_fabric *f = NULL;
    CHECK_EQ_U(dw_ipoib_fabric_new(&f, &fs, &cb, p), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &sa), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &sb), 1);
    CHECK_EQ_U(dw_ipoib_fabric_ping(f, 0, IP_B, 4, 56), 0);
    CHECK_EQ_U(dw_ipoib_fabric_bulk(f, 0, IP_B, 5001, 64u << 10), 0);
    dw_ipoib_fabric_run(f, 5000000);
    int rc = dw_ipoib_fabric_error(f, call);
    *node_errors = dw_ipoib_fabric_stats_get(f)->node_errors;
    dw_ipoib_fabric_del(f);
    return rc;
}

/* Every post of a run refused once, for kinds that post ARP, UD, CM
 * (REQ/REP/RTU), SIDR and connected data: each stops the fabric with one
 * DW_ERR_NOMEM that names the node call that made the post; and an ARP
 * retry (a peer that never answers) refused in dw_ipoib_node_tick(). */
static void test_refused_post_names_its_call(void)
{
    static const char *const pairs[][2] = {
        {"draft-ud", "draft-ud"}, {"draft-rc", "draft-rc"}, {"draft-qpn", "draft-all"},
        {"rfc-rc", "linux-rc"}};
    static const char *const calls[] = {"dw_ipoib_node_send", "dw_ipoib_node_input_ud",
                                        "dw_ipoib_node_input_cm", "dw_ipoib_node_tick"};
    unsigned long by_call[5] = {0}, total = 0; /* [4]: none of them */
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        posts p = {0, 0, 0, 1, 0};
        const char *call = NULL;
        uint64_t errs = 0;
        CHECK_EQ_U(refused_run(pairs[i][0], pairs[i][1], &p, &call, &errs), 0);
        CHECK(!call && !errs);
        unsigned long n = p.any;
        CHECK(n >= 20);
        fprintf(stderr, "%s-%s: %lu posts\n", pairs[i][0], pairs[i][1], n);
        for (unsigned long k = 1; k <= n; k++) {
            p = (posts){0, 0, k, 1, 0};
            int rc = refused_run(pairs[i][0], pairs[i][1], &p, &call, &errs);
            CHECK(p.failed);
            CHECK_EQ_U((unsigned)-rc, (unsigned)-DW_ERR_NOMEM);
            CHECK_EQ_U(errs, 1);
            size_t j = 0;
            while (j < 4 && !(call && !strcmp(call, calls[j])))
                j++;
            CHECK(j < 4);
            by_call[j]++;
            total++;
        }
    }
    CHECK(by_call[0] && by_call[1] && by_call[2]);
    /* ARP asks three times for a host that is not there: the second
     * request, from a tick, refused */
    dw_ipoib_node_settings a = kind("draft-ud", IP_A), b = kind("draft-ud", IP_B);
    posts p = {0, 0, 2, 1, 0};
    dw_ipoib_fabric_callbacks cb = {NULL, NULL, NULL, post_cb};
    dw_ipoib_fabric_settings fs;
    dw_ipoib_fabric_settings_default(&fs);
    dw_ipoib_fabric *f = NULL;
    CHECK_EQ_U(dw_ipoib_fabric_new(&f, &fs, &cb, &p), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &a), 0);
    CHECK_EQ_U(dw_ipoib_fabric_add_host(f, &b), 1);
    CHECK_EQ_U(dw_ipoib_fabric_ping(f, 0, 0x0A000009, 1, 56), 0);
    dw_ipoib_fabric_run(f, 1000000);
    const char *call = NULL;
    CHECK_EQ_U((unsigned)-dw_ipoib_fabric_error(f, &call), (unsigned)-DW_ERR_NOMEM);
    CHECK(call && !strcmp(call, "dw_ipoib_node_tick"));
    CHECK_EQ_U(p.any, 2); /* nothing posted after */
    CHECK_EQ_U((unsigned)-dw_ipoib_fabric_step(f), (unsigned)-DW_ERR_NOMEM);
    dw_ipoib_fabric_del(f);
    fprintf(stderr, "every post of 4 pairs' runs refused once: %lu runs, DW_ERR_NOMEM from "
                    "send %lu, input_ud %lu, input_cm %lu, tick %lu, none %lu; and an ARP "
                    "retry refused in a tick: %s\n",
            total, by_call[0], by_call[1], by_call[2], by_call[3], by_call[4],
            call ? call : "no error");
}

int main(void)
{
    RUN(test_matrix_every_pair);
    RUN(test_matrix_seeds);
    RUN(test_s32_rej_reason3_then_retry);
    RUN(test_s32_rej_mtu_out_of_reach);
    RUN(test_s32_link_mtu_is_the_smaller);
    RUN(test_s31_one_qpn_per_service);
    RUN(test_s33_no_packet_waits_for_a_link);
    RUN(test_s33_ud_received_is_processed);
    RUN(test_s33_arp_over_a_connection_is_dropped);
    RUN(test_s33_multicast_over_ud);
    RUN(test_s5_forged_flags_draft);
    RUN(test_s5_forged_flags_rfc4755);
    RUN(test_s5_lying_silent_peer);
    RUN(test_s5_lying_qpn_peer);
    RUN(test_s5_spoofed_arp_is_ignored);
    RUN(test_s5_malformed_private_data);
    RUN(test_s5_lost_reply_times_out);
    RUN(test_ud_mtu_and_limits);
    RUN(test_arp_gives_up);
    RUN(test_pcap_records);
    RUN(test_settings_refused);
    RUN(test_node_error_is_recorded);
    RUN(test_pair_run_nomem);
    RUN(test_node_nomem_mid_run);
    RUN(test_refused_post_names_its_call);
    return dw_test_finish();
}
