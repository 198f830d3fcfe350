/* SPDX-License-Identifier: MIT */
/*
 * Included by test_mem_torture.c after torture_digest(): its scenarios for the framing objects, the output queue,
 * the checkers, the reassembler, the flow table, the dissector and the
 * IPoIB node. Each returns 0 with a digest of everything it was told
 * (the torture compares it with the full run's: a failed allocation must
 * never change the result silently), DW_ERR_NOMEM, or another value
 * (wrong).
 */
#ifndef DW_TEST_MEM_TORTURE_CHECK_H
#define DW_TEST_MEM_TORTURE_CHECK_H

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211ull;
}

static uint64_t mix_bytes(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = mix(h, p[i]);
    return h;
}

static uint8_t payload[4096];

static void fill(void)
{
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 7 + (i >> 8));
}

/* ---- framing: sender and receiver of either framing ------------------ */

static int fr_pdu(dw_fr_rx *rx, const uint8_t *h, size_t hl, const uint8_t *p, size_t pl,
                  uint64_t off, void *u)
{
    (void)rx;
    uint64_t *d = u;
    *d = mix_bytes(mix(mix(*d, off), hl), h, hl);
    *d = mix_bytes(mix(*d, pl), p, pl);
    return 0;
}

static int fr_roundtrip(const dw_mem *m, uint64_t *digest, dw_framing fw)
{
    dw_fr_tx_settings ts;
    dw_fr_rx_settings rs;
    dw_fr_tx_settings_default(&ts, fw);
    dw_fr_rx_settings_default(&rs, fw);
    ts.mem = rs.mem = m;
    dw_fr_rx_callbacks cb = {0};
    cb.on_pdu = fr_pdu;
    dw_fr_tx *tx = NULL;
    dw_fr_rx *rx = NULL;
    *digest = 1;
    int rc = dw_fr_tx_new(&tx, &ts);
    if (!rc)
        rc = dw_fr_rx_new(&rx, &rs, &cb, digest);
    static uint8_t wire[8192];
    for (int k = 0; !rc && k < 12; k++) {
        ssize_t n = dw_fr_tx_frame_into(tx, payload, 16, payload + 16, 100 + (size_t)k * 300,
                                        wire, sizeof wire, NULL);
        if (n < 0) {
            rc = (int)n;
            break;
        }
        for (size_t off = 0; off < (size_t)n && !rc;) {
            size_t take = (size_t)n - off < 61 ? (size_t)n - off : 61;
            ssize_t f = dw_fr_rx_feed(rx, wire + off, take);
            rc = f < 0 ? (int)f : 0;
            off += take;
        }
    }
    dw_fr_tx_del(tx);
    dw_fr_rx_del(rx);
    return rc;
}

static int fr_mpa(const dw_mem *m, uint64_t *d)
{
    return fr_roundtrip(m, d, DW_FRAMING_MPA);
}

static int fr_ift(const dw_mem *m, uint64_t *d)
{
    return fr_roundtrip(m, d, DW_FRAMING_IFT);
}

/* ---- output queue ---------------------------------------------------- */

static int outq(const dw_mem *m, uint64_t *digest)
{
    dw_outq_settings s;
    dw_outq_settings_default(&s);
    s.chunk_size = 1024;
    s.mem = m;
    dw_outq *q = NULL;
    int rc = dw_outq_new(&q, &s);
    *digest = 1;
    for (int k = 0; !rc && k < 30; k++) {
        struct iovec iov = {payload, 700 + (size_t)k * 37};
        ssize_t n = dw_outq_push(q, &iov, 1, 0);
        if (n < 0) {
            rc = (int)n;
            break;
        }
        if (k % 3 == 2) { /* the socket takes what it can */
            struct iovec out[64];
            dw_outq_span sp[8];
            size_t f = dw_outq_peek(q, out, 64, sp, 8);
            for (size_t i = 0; i < (f ? sp[0].iovcnt : 0); i++)
                *digest = mix_bytes(*digest, out[i].iov_base, out[i].iov_len);
            rc = dw_outq_consume(q, f ? sp[0].len : 0);
        }
    }
    if (!rc)
        *digest = mix(mix(*digest, dw_outq_octets(q)), dw_outq_frames(q));
    dw_outq_del(q);
    return rc;
}

/* ---- MPA stream checker, searching ----------------------------------- */

static size_t mpa_stream(uint8_t *out, size_t cap, size_t junk)
{
    dw_mpa_tx *tx;
    if (dw_mpa_tx_new(&tx, NULL))
        return 0;
    size_t at = 0;
    for (size_t i = 0; i < junk; i++)
        out[at++] = (uint8_t)(i * 31 + 5);
    for (int k = 0; k < 40; k++) {
        ssize_t n = dw_mpa_tx_frame_into(tx, payload, 200 + (size_t)k * 61, out + at,
                                         cap - at, NULL);
        if (n < 0)
            break;
        at += (size_t)n;
    }
    dw_mpa_tx_del(tx);
    return at;
}

static void mc_fpdu(dw_mpa_check *c, const dw_mpa_check_fpdu *f, void *u)
{
    (void)c;
    uint64_t *d = u;
    *d = mix(mix(mix(*d, f->offset), f->ulpdu_len), (uint64_t)f->crc << 8 | f->bad_markers);
}

static void mc_event(dw_mpa_check *c, const dw_mpa_check_event *ev, void *u)
{
    (void)c;
    uint64_t *d = u;
    *d = mix(mix(*d, ev->kind), ev->offset);
}

static uint8_t stream[131072];

static int mpa_check(const dw_mem *m, uint64_t *digest)
{
    size_t n = mpa_stream(stream, sizeof stream, 700);
    dw_mpa_check_settings s;
    dw_mpa_check_settings_default(&s);
    s.start = DW_MPA_CHECK_START_SEARCH;
    s.mem = m;
    dw_mpa_check_callbacks cb = {mc_fpdu, NULL, mc_event};
    dw_mpa_check *c = NULL;
    *digest = 1;
    int rc = dw_mpa_check_new(&c, &s, &cb, digest);
    uint64_t pkt = 1;
    for (size_t o = 0; !rc && o < n; pkt++) { /* segments, a gap in the middle */
        size_t len = o < 3000 ? 3 : 1400;
        len = len < n - o ? len : n - o;
        dw_reasm_chunk ch = {o, (uint32_t)o, pkt, (uint32_t)o, (uint32_t)len, 1, 1};
        if (pkt == 2000) {
            dw_reasm_gap g = {o, (uint32_t)o, len, DW_REASM_GAP_LOST, pkt};
            rc = dw_mpa_check_gap(c, &g);
        } else {
            rc = dw_mpa_check_data(c, stream + o, len, &ch);
        }
        o += len;
    }
    if (!rc)
        rc = dw_mpa_check_end(c);
    dw_mpa_check_del(c);
    return rc;
}

/* ---- IFT stream checker, searching ----------------------------------- */

static void ic_frame(dw_ift_check *c, const dw_ift_check_frame *f, void *u)
{
    (void)c;
    uint64_t *d = u;
    *d = mix(mix(*d, f->offset), f->frame_len);
}

static void ic_event(dw_ift_check *c, const dw_ift_check_event *ev, void *u)
{
    (void)c;
    uint64_t *d = u;
    *d = mix(mix(*d, ev->kind), ev->offset);
}

static int ift_check(const dw_mem *m, uint64_t *digest)
{
    dw_ift_tx *tx;
    if (dw_ift_tx_new(&tx, NULL))
        return 1;
    size_t n = 0;
    for (size_t i = 0; i < 333; i++)
        stream[n++] = (uint8_t)(i * 17);
    for (int k = 0; k < 30; k++) {
        ssize_t f = dw_ift_tx_frame_into(tx, payload, 28, payload + 28, 100 + (size_t)k * 97,
                                         stream + n, sizeof stream - n, NULL);
        n += f > 0 ? (size_t)f : 0;
    }
    dw_ift_tx_del(tx);
    dw_ift_check_settings s;
    dw_ift_check_settings_default(&s);
    s.search_start = 1;
    s.mem = m;
    dw_ift_check_callbacks cb = {ic_frame, ic_event};
    dw_ift_check *c = NULL;
    *digest = 1;
    int rc = dw_ift_check_new(&c, &s, &cb, digest);
    uint64_t pkt = 1;
    for (size_t o = 0; !rc && o < n; pkt++) {
        size_t len = o < 2000 ? 2 : 1400;
        len = len < n - o ? len : n - o;
        dw_reasm_chunk ch = {o, (uint32_t)o, pkt, (uint32_t)o, (uint32_t)len, 1, 1};
        rc = dw_ift_check_data(c, stream + o, len, &ch);
        o += len;
    }
    if (!rc)
        rc = dw_ift_check_end(c);
    dw_ift_check_del(c);
    return rc;
}

/* ---- reassembler: segments out of order ------------------------------ */

static void ra_data(dw_reasm *r, const uint8_t *p, size_t n, const dw_reasm_chunk *c, void *u)
{
    (void)r;
    uint64_t *d = u;
    *d = mix_bytes(mix(*d, c->offset), p, n);
}

static void ra_gap(dw_reasm *r, const dw_reasm_gap *g, void *u)
{
    (void)r;
    uint64_t *d = u;
    *d = mix(mix(*d, g->offset), g->len | 1ull << 63);
}

static int reasm(const dw_mem *m, uint64_t *digest)
{
    dw_reasm_settings s;
    dw_reasm_settings_default(&s);
    s.mem = m;
    dw_reasm_callbacks cb = {ra_data, ra_gap, NULL};
    dw_reasm *r = NULL;
    *digest = 1;
    int rc = dw_reasm_new(&r, &s, &cb, digest);
    const uint32_t isn = 0xfffff000u; /* wraps */
    if (!rc)
        rc = dw_reasm_feed(r, 1, isn, DW_PKT_SYN, NULL, 0, 0);
    for (uint32_t i = 0; !rc && i < 40; i++) { /* 1..39 held, then 0 */
        uint32_t k = (i + 1) % 40;
        rc = dw_reasm_feed(r, i + 2, isn + 1 + k * 1000, 0, stream + k * 1000, 1000, 1000);
    }
    if (!rc)
        rc = dw_reasm_flush(r);
    dw_reasm_del(r);
    return rc;
}

/* ---- flow table ------------------------------------------------------ */

static void ft_end(dw_flowtab *t, dw_flow *f, void *u)
{
    (void)t;
    uint64_t *d = u;
    *d = mix(*d, f->id);
}

static int flowtab(const dw_mem *m, uint64_t *digest)
{
    dw_flowtab_settings s;
    dw_flowtab_settings_default(&s);
    s.max_flows = 6;
    s.mem = m;
    dw_flowtab_callbacks cb = {ft_end};
    dw_flowtab *t = NULL;
    *digest = 1;
    int rc = dw_flowtab_new(&t, &s, &cb, digest);
    for (int k = 0; !rc && k < 20; k++) {
        dw_pkt_tcp seg;
        memset(&seg, 0, sizeof seg);
        seg.ip_version = 4;
        seg.src[0] = 10, seg.src[3] = (uint8_t)(k % 9);
        seg.dst[0] = 10, seg.dst[3] = 200;
        seg.sport = (uint16_t)(40000 + k % 9), seg.dport = 5000;
        dw_flow *f = dw_flowtab_find(t, &seg, NULL);
        if (!f)
            rc = dw_flowtab_add(t, &seg, &f, NULL);
        *digest = mix(*digest, f ? f->id : 0);
    }
    dw_flowtab_finish(t);
    dw_flowtab_del(t);
    return rc;
}

/* ---- RDMAP checker, IPoIB node: their one-time allocations ------------ */

static int rdma_check(const dw_mem *m, uint64_t *digest)
{
    dw_rdma_check_settings s;
    dw_rdma_check_settings_default(&s);
    s.mem = m;
    dw_rdma_check *c = NULL;
    int rc = dw_rdma_check_new(&c, &s, NULL, NULL);
    *digest = 1;
    dw_rdma_check_del(c);
    return rc;
}

static int nd_ud(dw_ipoib_node *n, const dw_ipoib_ud *to, uint16_t type, const uint8_t *p,
                 size_t len, void *u)
{
    (void)n, (void)to, (void)type, (void)p, (void)len, (void)u;
    return 0;
}

static int nd_cm(dw_ipoib_node *n, const uint8_t *dgid, const dw_ipoib_cm_msg *msg, void *u)
{
    (void)n, (void)dgid, (void)msg, (void)u;
    return 0;
}

static int nd_conn(dw_ipoib_node *n, const uint8_t *dgid, uint32_t dqpn, uint32_t sqpn,
                   uint16_t type, const uint8_t *p, size_t len, void *u)
{
    (void)n, (void)dgid, (void)dqpn, (void)sqpn, (void)type, (void)p, (void)len, (void)u;
    return 0;
}

static void nd_deliver(dw_ipoib_node *n, uint16_t type, const uint8_t *p, size_t len,
                       dw_ipoib_mode from, void *u)
{
    (void)n, (void)type, (void)p, (void)len, (void)from, (void)u;
}

static int ipoib_node(const dw_mem *m, uint64_t *digest)
{
    dw_ipoib_node_settings s;
    dw_ipoib_node_settings_default(&s);
    s.qpn = 0x123;
    s.conn_qpn_base = 0x1000;
    s.mem = m;
    dw_ipoib_node_callbacks cb = {0};
    cb.send_ud = nd_ud, cb.send_cm = nd_cm, cb.send_conn = nd_conn, cb.deliver = nd_deliver;
    dw_ipoib_node *n = NULL;
    int rc = dw_ipoib_node_new(&n, &s, &cb, NULL);
    *digest = 1;
    dw_ipoib_node_del(n);
    return rc;
}

/* ---- dissector: one MPA connection in raw IPv4 packets ---------------- */

static size_t ip_tcp(uint8_t *p, int dir, uint32_t seq, uint8_t flags, const uint8_t *d,
                     size_t n)
{
    memset(p, 0, 40);
    size_t tot = 40 + n;
    p[0] = 0x45, p[2] = (uint8_t)(tot >> 8), p[3] = (uint8_t)tot, p[8] = 64, p[9] = 6;
    p[12] = 10, p[15] = (uint8_t)(1 + dir), p[16] = 10, p[19] = (uint8_t)(2 - dir);
    uint16_t sp = dir ? 5000 : 40000, dp = dir ? 40000 : 5000;
    uint8_t *t = p + 20;
    t[0] = (uint8_t)(sp >> 8), t[1] = (uint8_t)sp, t[2] = (uint8_t)(dp >> 8), t[3] = (uint8_t)dp;
    t[4] = (uint8_t)(seq >> 24), t[5] = (uint8_t)(seq >> 16), t[6] = (uint8_t)(seq >> 8);
    t[7] = (uint8_t)seq, t[12] = 5 << 4, t[13] = flags, t[14] = 0xff, t[15] = 0xff;
    if (n)
        memcpy(p + 40, d, n);
    return tot;
}

static void ds_fpdu(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_fpdu *fp,
                    const dw_mpa_check_marker *mk, size_t nmk, const dw_rdmap_msg *ddp, void *u)
{
    (void)D, (void)mk, (void)ddp;
    uint64_t *h = u;
    *h = mix(mix(mix(*h, (uint64_t)d->dir), fp->offset), (uint64_t)fp->crc << 32 | nmk);
}

static int dissect(const dw_mem *m, uint64_t *digest)
{
    size_t n = mpa_stream(stream, sizeof stream, 0);
    dw_dissect_settings s;
    dw_dissect_settings_default(&s);
    s.mpa_port = 5000;
    s.mem = m;
    dw_dissect_callbacks cb = {0};
    cb.on_fpdu = ds_fpdu;
    dw_dissect *D = NULL;
    *digest = 1;
    int rc = dw_dissect_new(&D, &s, &cb, digest);
    if (rc)
        return rc;
    static uint8_t pk[1600];
    uint64_t t = 0;
    const uint32_t isn = 1000;
    dw_dissect_packet(D, DW_PKT_LINK_IPV4, t++, pk, ip_tcp(pk, 0, isn - 1, 0x02, NULL, 0), 40);
    dw_dissect_packet(D, DW_PKT_LINK_IPV4, t++, pk, ip_tcp(pk, 1, 7, 0x12, NULL, 0), 40);
    size_t nseg = (n + 1459) / 1460;
    for (size_t i = 0; i < nseg; i++) {
        size_t k = i % 4 == 1 && i + 1 < nseg ? i + 1 : i % 4 == 2 ? i - 1 : i; /* swaps */
        size_t a = k * 1460, len = n - a < 1460 ? n - a : 1460;
        size_t l = ip_tcp(pk, 0, isn + (uint32_t)a, 0x18, stream + a, len);
        dw_dissect_packet(D, DW_PKT_LINK_IPV4, t++, pk, l, l);
    }
    dw_dissect_packet(D, DW_PKT_LINK_IPV4, t++, pk, ip_tcp(pk, 0, isn + (uint32_t)n, 0x11, NULL, 0), 40);
    dw_dissect_packet(D, DW_PKT_LINK_IPV4, t++, pk, ip_tcp(pk, 1, 8, 0x11, NULL, 0), 40);
    dw_dissect_finish(D);
    dw_dissect_stats st;
    dw_dissect_stats_get(D, &st);
    *digest = mix(mix(mix(*digest, st.flows_seen), st.protocol_errors), st.incomplete);
    dw_dissect_del(D);
    return st.nomem ? DW_ERR_NOMEM : 0;
}

static void mem_torture_check(void)
{
    fill();
    torture_digest("framing MPA (fr_tx + fr_rx)", fr_mpa);
    torture_digest("framing IFT (fr_tx + fr_rx)", fr_ift);
    torture_digest("output queue", outq);
    torture_digest("MPA checker (search)", mpa_check);
    torture_digest("IFT checker (search)", ift_check);
    torture_digest("reassembler (out of order)", reasm);
    torture_digest("flow table (evictions)", flowtab);
    torture_digest("RDMAP checker", rdma_check);
    torture_digest("IPoIB node", ipoib_node);
    torture_digest("dissector (MPA connection)", dissect);
}

#endif
