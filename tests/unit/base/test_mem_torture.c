/* SPDX-License-Identifier: MIT */
/*
 * The library's allocator hook (<ddpwire/mem.h>) under torture (issue 27):
 * each object's scenario runs once per allocation with that allocation
 * failing (a counting dw_mem), for every allocation of the scenario, and
 * must end with the full result or DW_ERR_NOMEM, every allocation freed
 * (ASan in make check-asan sees the rest).
 */
#include <ddpwire/ddpwire.h>

#include "../failing_mem.h"
#include "../test.h"


/* ---- scenarios: 0 full result, DW_ERR_NOMEM, or another value (wrong) */

static uint64_t got_records, got_octets;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    (void)rx, (void)d, (void)off, (void)u;
    got_records++;
    got_octets += len;
    return 0;
}

static int mpa_roundtrip(const dw_mem *m)
{
    dw_mpa_tx_settings ts;
    dw_mpa_rx_settings rs;
    dw_mpa_tx_settings_default(&ts);
    dw_mpa_rx_settings_default(&rs);
    ts.mem = rs.mem = m;
    dw_mpa_tx *tx = NULL;
    dw_mpa_rx *rx = NULL;
    dw_mpa_rx_callbacks cb = {on_ulpdu, NULL, NULL};
    int rc = dw_mpa_tx_new(&tx, &ts);
    if (!rc)
        rc = dw_mpa_rx_new(&rx, &rs, &cb, NULL);
    got_records = got_octets = 0;
    uint8_t rec[1000], wire[4096];
    for (size_t i = 0; i < sizeof rec; i++)
        rec[i] = (uint8_t)(i * 13);
    for (int k = 0; !rc && k < 20; k++) {
        struct iovec iov[DW_MPA_FPDU_IOV_MAX];
        dw_mpa_fpdu_info info;
        ssize_t n = dw_mpa_tx_frame(tx, rec, 100 + (size_t)k * 40, iov, DW_MPA_FPDU_IOV_MAX, &info);
        if (n < 0) {
            rc = (int)n;
            break;
        }
        size_t at = 0;
        for (size_t i = 0; i < info.iovcnt; i++) {
            memcpy(wire + at, iov[i].iov_base, iov[i].iov_len);
            at += iov[i].iov_len;
        }
        for (size_t off = 0; off < at && !rc;) { /* in pieces of 7 */
            ssize_t f = dw_mpa_rx_feed(rx, wire + off, at - off < 7 ? at - off : 7);
            if (f < 0)
                rc = (int)f;
            else
                off += (size_t)f;
        }
    }
    if (!rc && (got_records != 20 || got_octets != 20 * 100 + 40 * 190))
        rc = 1;
    dw_mpa_tx_del(tx);
    dw_mpa_rx_del(rx);
    return rc;
}

static void on_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r, (void)d, (void)p, (void)u;
}

static int seg_new(const dw_mem *m)
{
    dw_mpa_seg_settings s;
    dw_mpa_seg_settings_default(&s);
    s.mem = m;
    dw_mpa_seg_callbacks cb = {0};
    cb.on_place = on_place;
    dw_mpa_seg *r = NULL;
    int rc = dw_mpa_seg_new(&r, &s, &cb, NULL);
    dw_mpa_seg_del(r);
    return rc;
}

static int ift_end(dw_ift_rx *rx, uint64_t off, void *u)
{
    (void)rx, (void)off, (void)u;
    return 0;
}

static void on_stream(dw_tcpopt_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    (void)rx, (void)d, (void)len, (void)off, (void)u;
}

static int ift_new(const dw_mem *m)
{
    dw_ift_tx_settings ts;
    dw_ift_rx_settings rs;
    dw_ift_tx_settings_default(&ts);
    dw_ift_rx_settings_default(&rs);
    ts.mem = rs.mem = m;
    dw_ift_tx *tx = NULL;
    dw_ift_rx *rx = NULL;
    dw_ift_rx_callbacks cb = {0};
    cb.on_end = ift_end;
    int rc = dw_ift_tx_new(&tx, &ts);
    if (!rc)
        rc = dw_ift_rx_new(&rx, &rs, &cb, NULL);
    dw_ift_tx_del(tx);
    dw_ift_rx_del(rx);
    return rc;
}

static int tcpopt_new(const dw_mem *m)
{
    dw_tcpopt_rx_settings s;
    dw_tcpopt_rx_settings_default(&s);
    s.mem = m;
    dw_tcpopt_rx_callbacks cb = {0};
    cb.on_stream = on_stream;
    dw_tcpopt_rx *rx = NULL;
    int rc = dw_tcpopt_rx_new(&rx, &s, &cb, NULL);
    dw_tcpopt_rx_del(rx);
    return rc;
}

static int qp_send(dw_qp *qp, const uint8_t *h, size_t hl, const uint8_t *p, size_t pl, void *u)
{
    (void)qp, (void)h, (void)hl, (void)p, (void)pl, (void)u;
    return 0;
}

static void qp_wc(dw_qp *qp, const dw_qp_wc *wc, void *u)
{
    (void)qp, (void)wc, (void)u;
}

static int qp_new(const dw_mem *m)
{
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    s.mem = m;
    dw_qp_callbacks cb = {0};
    cb.send = qp_send;
    cb.on_wc = qp_wc;
    dw_qp *qp = NULL;
    int rc = dw_qp_new(&qp, &s, &cb, NULL);
    dw_qp_del(qp);
    return rc;
}

/* Every allocation of the scenario fails once; returns how many there are. */
static unsigned long torture(const char *name, int (*scenario)(const dw_mem *))
{
    counting c = {0, 0, 0};
    dw_mem m = {&c, t_malloc, t_free, t_calloc, t_realloc};
    CHECK_EQ_U(scenario(&m), 0); /* the full run, counted */
    CHECK_EQ_U(c.live, 0);
    unsigned long total = c.calls;
    CHECK(total > 0);
    for (unsigned long n = 1; n <= total; n++) {
        c = (counting){0, n, 0};
        int rc = scenario(&m);
        CHECK(rc == 0 || rc == DW_ERR_NOMEM);
        CHECK(c.calls >= n); /* the failure was reached */
        CHECK_EQ_U(c.live, 0);
        if (rc != 0 && rc != DW_ERR_NOMEM)
            fprintf(stderr, "%s: allocation %lu failing: %d\n", name, n, rc);
    }
    printf("%-28s %lu allocations, each failed once\n", name, total);
    return total;
}

/* As torture(), for a scenario that also gives a digest of its result: a
 * run whose allocation failed and that still says 0 must give the full
 * run's digest (never a different result without DW_ERR_NOMEM). */
static unsigned long torture_digest(const char *name, int (*scenario)(const dw_mem *, uint64_t *))
{
    counting c = {0, 0, 0};
    dw_mem m = {&c, t_malloc, t_free, t_calloc, t_realloc};
    uint64_t full = 0, d = 0;
    CHECK_EQ_U(scenario(&m, &full), 0);
    CHECK_EQ_U(c.live, 0);
    unsigned long total = c.calls, nomem = 0;
    CHECK(total > 0);
    for (unsigned long n = 1; n <= total; n++) {
        c = (counting){0, n, 0};
        int rc = scenario(&m, &d);
        CHECK(rc == DW_ERR_NOMEM || (rc == 0 && d == full));
        CHECK(c.calls >= n);
        CHECK_EQ_U(c.live, 0);
        nomem += rc == DW_ERR_NOMEM;
        if (rc != DW_ERR_NOMEM && (rc != 0 || d != full))
            fprintf(stderr, "%s: allocation %lu failing: %d, digest %s\n", name, n, rc,
                    d == full ? "same" : "different");
    }
    printf("%-28s %lu allocations, each failed once (%lu said DW_ERR_NOMEM)\n", name, total,
           nomem);
    return total;
}

#include "mem_torture_check.h"
#include "mem_torture_sim.h"

int main(void)
{
    CHECK(dw_mem_default() && dw_mem_default()->malloc);
    torture("MPA sender + receiver", mpa_roundtrip);
    torture("MPA segment receiver", seg_new);
    torture("IFT sender + receiver", ift_new);
    torture("TCP RDMA option receiver", tcpopt_new);
    torture("QP", qp_new);
    mem_torture_check();
    mem_torture_sim();
    return dw_test_finish();
}
