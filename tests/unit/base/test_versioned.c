/* SPDX-License-Identifier: MIT */
/*
 * Versioned settings and callbacks (<ddpwire/common.h>): the one helper
 * every object converts through (lib/base/versioned.c), on a struct with
 * two versions, and every object's *_versioned entry points refusing a
 * version they do not know.
 */
#include <ddpwire/ddpwire.h>

#include "base/versioned.h"
#include "test.h"

/* A struct at version 2; version 1 ended after b (an "old" caller's). */
typedef struct demo_settings {
    uint32_t a;
    uint16_t b;
    uint64_t c; /* appended in version 2 */
    const void *d;
} demo_settings;
typedef struct demo_settings_v1 {
    uint32_t a;
    uint16_t b;
} demo_settings_v1;
DW_VERSIONS_2(demo_v, demo_settings, b, d);

static void demo_defaults(demo_settings *s)
{
    s->a = 1, s->b = 2, s->c = 3, s->d = &demo_v;
}

static void test_old_caller_takes_defaults(void)
{
    /* the old struct at the very end of a buffer: reading past it shows */
    unsigned char buf[64];
    memset(buf, 0xAA, sizeof buf);
    demo_settings_v1 *old = (demo_settings_v1 *)(void *)(buf + sizeof buf - sizeof *old);
    old->a = 70, old->b = 80;
    demo_settings cur;
    demo_defaults(&cur);
    int err = 0;
    const demo_settings *in = dw_versioned_in(&cur, old, 1, demo_v, 2, &err);
    CHECK(err == 0 && in == &cur);
    CHECK(in->a == 70 && in->b == 80);          /* the caller's */
    CHECK(in->c == 3 && in->d == (const void *)&demo_v); /* defaults */
    CHECK_EQ_U(demo_v[0], offsetof(demo_settings, b) + sizeof(uint16_t));
}

static void test_current_caller_not_copied(void)
{
    demo_settings mine = {5, 6, 7, NULL}, cur;
    demo_defaults(&cur);
    int err = 0;
    CHECK(dw_versioned_in(&cur, &mine, 2, demo_v, 2, &err) == &mine && err == 0);
    CHECK(dw_versioned_in(&cur, NULL, 1, demo_v, 2, &err) == NULL && err == 0);
}

static void test_unknown_version_refused(void)
{
    demo_settings mine = {5, 6, 7, NULL}, cur;
    demo_defaults(&cur);
    for (int v = -1; v <= 4; v += (v == 0 ? 3 : 1)) { /* -1, 0, 3, 4 */
        int err = 0;
        CHECK(dw_versioned_in(&cur, &mine, v, demo_v, 2, &err) == NULL);
        CHECK(err == DW_ERR_INVAL);
        CHECK(cur.a == 1 && cur.c == 3); /* nothing copied */
    }
}

static void test_defaults_written_as_far_as_the_caller_has(void)
{
    unsigned char buf[64];
    memset(buf, 0xAA, sizeof buf);
    demo_settings cur;
    demo_defaults(&cur);
    CHECK(dw_versioned_out(buf, &cur, 1, demo_v, 2) == 0);
    demo_settings_v1 got;
    memcpy(&got, buf, sizeof got);
    CHECK(got.a == 1 && got.b == 2);
    for (size_t i = demo_v[0]; i < sizeof buf; i++)
        CHECK(buf[i] == 0xAA); /* nothing past version 1's fields */
    CHECK(dw_versioned_out(buf, &cur, 3, demo_v, 2) == DW_ERR_INVAL);
    CHECK(dw_versioned_out(NULL, &cur, 1, demo_v, 2) == DW_ERR_INVAL);
}

/* Every object: version 0 and the next one are refused, nothing made. */
#define REFUSED(call, obj)                                                    \
    do {                                                                      \
        obj = (void *)&obj;                                                   \
        CHECK_EQ_U((call), (unsigned long long)DW_ERR_INVAL);                 \
        CHECK(obj == (void *)&obj);                                           \
    } while (0)

static int sock_on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                       size_t len, uint64_t off, void *u)
{
    (void)rx, (void)hdr, (void)hlen, (void)d, (void)len, (void)off, (void)u;
    return 0;
}

static void test_objects_refuse_unknown_versions(void)
{
    for (int k = 0; k < 2; k++) {
        int n = k ? 2 : 0; /* 2: newer than this library's 1 (the socket: its own) */
        void *o;
        dw_sock_settings sk;
        dw_sock_settings_default(&sk);
        sk.cb.on_pdu = sock_on_pdu;
        dw_mpa_tx_settings mt;
        CHECK(dw_mpa_tx_settings_default_versioned(n, &mt) == DW_ERR_INVAL);
        REFUSED(dw_mpa_tx_new_versioned((dw_mpa_tx **)&o, n, NULL), o);
        REFUSED(dw_mpa_rx_new_versioned((dw_mpa_rx **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_mpa_rx_new_versioned((dw_mpa_rx **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_mpa_seg_new_versioned((dw_mpa_seg **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_mpa_seg_new_versioned((dw_mpa_seg **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_ift_tx_new_versioned((dw_ift_tx **)&o, n, NULL), o);
        REFUSED(dw_ift_rx_new_versioned((dw_ift_rx **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_ift_rx_new_versioned((dw_ift_rx **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_fr_tx_new_versioned((dw_fr_tx **)&o, n, NULL), o);
        REFUSED(dw_fr_rx_new_versioned((dw_fr_rx **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_fr_rx_new_versioned((dw_fr_rx **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_outq_new_versioned((dw_outq **)&o, n, NULL), o);
        REFUSED(dw_qp_new_versioned((dw_qp **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_qp_new_versioned((dw_qp **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_tcpopt_rx_new_versioned((dw_tcpopt_rx **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_tcpopt_rx_new_versioned((dw_tcpopt_rx **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_ipoib_node_new_versioned((dw_ipoib_node **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_ipoib_node_new_versioned((dw_ipoib_node **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_reasm_new_versioned((dw_reasm **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_reasm_new_versioned((dw_reasm **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_mpa_check_new_versioned((dw_mpa_check **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_mpa_check_new_versioned((dw_mpa_check **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_ift_check_new_versioned((dw_ift_check **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_ift_check_new_versioned((dw_ift_check **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_rdma_check_new_versioned((dw_rdma_check **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_rdma_check_new_versioned((dw_rdma_check **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_flowtab_new_versioned((dw_flowtab **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_flowtab_new_versioned((dw_flowtab **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_dissect_new_versioned((dw_dissect **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_dissect_new_versioned((dw_dissect **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_conn_new_versioned((dw_conn **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_conn_new_versioned((dw_conn **)&o, 1, NULL, n, NULL, NULL), o);
        REFUSED(dw_nvmeof_host_new_versioned((dw_nvmeof_host **)&o, n, NULL, 1, NULL, NULL), o);
        REFUSED(dw_nvmeof_host_new_versioned((dw_nvmeof_host **)&o, 1, NULL, n, NULL, NULL), o);
        int ns_ = k ? DW_SOCK_SETTINGS_VERSION + 1 : 0; /* the socket's is at 2 */
        REFUSED(dw_sock_connect_versioned((dw_sock **)&o, "127.0.0.1", "1", ns_, &sk, NULL, 0), o);
        REFUSED(dw_sock_accept_versioned((dw_sock **)&o, -1, ns_, &sk, NULL, 0), o);
        dw_mpa_nego_settings ns;
        dw_mpa_nego_settings_default(&ns);
        uint8_t out[64];
        CHECK(dw_mpa_nego_request_versioned(n, &ns, out, sizeof out) == DW_ERR_INVAL);
        dw_tcpopt_seg_settings ts;
        dw_tcpopt_seg_settings_default(&ts);
        dw_tcpopt_seg sg;
        CHECK(dw_tcpopt_seg_init_versioned(&sg, n, &ts, 0, NULL, 0, NULL, 0) == DW_ERR_INVAL);
    }
}

/* Every settings struct: unknown versions (0 and the one after its
 * newest, next) refused and left untouched. */
#define DEFAULT_REFUSED_NEXT(T, fn, next)                                     \
    do {                                                                      \
        T s_;                                                                 \
        memset(&s_, 0x5A, sizeof s_);                                         \
        CHECK(fn(0, &s_) == DW_ERR_INVAL);                     \
        CHECK(fn(next, &s_) == DW_ERR_INVAL);                  \
        unsigned char z_[sizeof s_];                                          \
        memset(z_, 0x5A, sizeof z_);                                          \
        CHECK(memcmp(&s_, z_, sizeof s_) == 0);                               \
        CHECK(fn(1, &s_) == 0);                                \
        CHECK(memcmp(&s_, z_, sizeof s_) != 0);                               \
    } while (0)

#define DEFAULT_REFUSED(T, fn) DEFAULT_REFUSED_NEXT(T, fn, 2)

static int fr_tx_default_ift(int v, dw_fr_tx_settings *s)
{
    return dw_fr_tx_settings_default_versioned(v, s, DW_FRAMING_IFT);
}

static int fr_rx_default_mpa(int v, dw_fr_rx_settings *s)
{
    return dw_fr_rx_settings_default_versioned(v, s, DW_FRAMING_MPA);
}

static void test_defaults_refuse_unknown_versions(void)
{
    DEFAULT_REFUSED(dw_mpa_tx_settings, dw_mpa_tx_settings_default_versioned);
    DEFAULT_REFUSED(dw_mpa_rx_settings, dw_mpa_rx_settings_default_versioned);
    DEFAULT_REFUSED(dw_mpa_seg_settings, dw_mpa_seg_settings_default_versioned);
    DEFAULT_REFUSED(dw_mpa_nego_settings, dw_mpa_nego_settings_default_versioned);
    DEFAULT_REFUSED(dw_ift_tx_settings, dw_ift_tx_settings_default_versioned);
    DEFAULT_REFUSED(dw_ift_rx_settings, dw_ift_rx_settings_default_versioned);
    DEFAULT_REFUSED(dw_fr_tx_settings, fr_tx_default_ift);
    DEFAULT_REFUSED(dw_fr_rx_settings, fr_rx_default_mpa);
    DEFAULT_REFUSED(dw_outq_settings, dw_outq_settings_default_versioned);
    DEFAULT_REFUSED(dw_qp_settings, dw_qp_settings_default_versioned);
    DEFAULT_REFUSED(dw_tcpopt_seg_settings, dw_tcpopt_seg_settings_default_versioned);
    DEFAULT_REFUSED(dw_tcpopt_rx_settings, dw_tcpopt_rx_settings_default_versioned);
    DEFAULT_REFUSED(dw_ipoib_node_settings, dw_ipoib_node_settings_default_versioned);
    DEFAULT_REFUSED(dw_reasm_settings, dw_reasm_settings_default_versioned);
    DEFAULT_REFUSED(dw_mpa_check_settings, dw_mpa_check_settings_default_versioned);
    DEFAULT_REFUSED(dw_ift_check_settings, dw_ift_check_settings_default_versioned);
    DEFAULT_REFUSED(dw_flowtab_settings, dw_flowtab_settings_default_versioned);
    DEFAULT_REFUSED(dw_dissect_settings, dw_dissect_settings_default_versioned);
    DEFAULT_REFUSED(dw_conn_settings, dw_conn_settings_default_versioned);
    DEFAULT_REFUSED(dw_rdma_check_settings, dw_rdma_check_settings_default_versioned);
    DEFAULT_REFUSED(dw_nvmeof_host_settings, dw_nvmeof_host_settings_default_versioned);
    DEFAULT_REFUSED_NEXT(dw_sock_settings, dw_sock_settings_default_versioned,
                         DW_SOCK_SETTINGS_VERSION + 1);
    dw_sock_settings s2; /* version 2 writes its defaults as far as congestion */
    memset(&s2, 0x5A, sizeof s2);
    CHECK(dw_sock_settings_default_versioned(2, &s2) == 0 && s2.congestion == NULL);
}

/* The familiar names still work as before: the macros pass the header's version. */
static void test_macros_pass_the_current_version(void)
{
    dw_mpa_tx_settings s;
    CHECK(dw_mpa_tx_settings_default(&s) == 0);
    dw_mpa_tx *tx = NULL;
    CHECK(dw_mpa_tx_new(&tx, &s) == 0 && tx);
    dw_mpa_tx_del(tx);
    dw_outq *q = NULL;
    CHECK(dw_outq_new(&q, NULL) == 0 && q);
    dw_outq_del(q);
}

int main(void)
{
    RUN(test_old_caller_takes_defaults);
    RUN(test_current_caller_not_copied);
    RUN(test_unknown_version_refused);
    RUN(test_defaults_written_as_far_as_the_caller_has);
    RUN(test_objects_refuse_unknown_versions);
    RUN(test_defaults_refuse_unknown_versions);
    RUN(test_macros_pass_the_current_version);
    return dw_test_finish();
}
