/* SPDX-License-Identifier: MIT */
/*
 * Round trips: records framed by the sender and deframed by the receiver
 * are identical, under every chunking (1 octet to 64 KiB, random cuts),
 * with markers on and off, both FPDUPTR readings, iovec and contiguous
 * framing, the receiver's own buffer and caller buffers, delivery as one
 * ULPDU or as pieces between the markers, and sequence numbers that wrap
 * at 2^32.
 */
#include "mpa_util.h"

static uint8_t placement[65536];
static uint8_t *place(dw_mpa_rx *rx, size_t len, void *u)
{
    (void)rx, (void)u;
    return len <= sizeof placement ? placement : NULL;
}

static void one_config(int markers, dw_mpa_ptr_base ptr, int use_iov,
                       int use_place, uint32_t start, uint64_t *seed)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = markers;
    ts.ptr_base = ptr;
    ts.start_seq = start;
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    size_t sizes[120];
    for (size_t i = 0; i < 120; i++)
        sizes[i] = rand_size(seed);
    stream st;
    stream_build(&st, tx, sizes, 120, use_iov, seed);
    dw_mpa_tx_del(tx);

    static const size_t cuts[] = {1, 3, 7, 64, 511, 1460, 9000, 65536, 1 << 22};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        DW_CASE_HERE("cuts[%zu]", c);
        if (cuts[c] == 1 && st.wire_len > 300000)
            continue; /* octet-by-octet covered by the smaller streams below */
        dw_mpa_rx_settings rs;
        dw_mpa_rx_settings_default(&rs);
        rs.markers = markers;
        rs.start_seq = start;
        sink k = {&st, 0, 0, 0, {0}, (int)(c % 3)};
        dw_mpa_rx_callbacks cb = {sink_ulpdu, sink_error, use_place ? place : NULL};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, &rs, &cb, &k) == 0);
        sink_iov_markers = markers;
        if (c % 2) /* pieces between the markers, no copy */
            CHECK(dw_mpa_rx_set_iov_fn(rx, sink_ulpdu_iov) == 0);
        CHECK(feed_cuts(rx, st.wire, st.wire_len, cuts[c], seed) == 0);
        CHECK_EQ_U(k.next, st.nrec);
        CHECK_EQ_U(k.mismatches, 0);
        CHECK_EQ_U(k.errors, 0);
        CHECK_EQ_U(dw_mpa_rx_offset(rx), st.wire_len);
        CHECK(dw_mpa_rx_close(rx, DW_CLOSE_FIN) == 0);
        CHECK(k.errors == 1 && k.err.code == DW_MPA_ERR_CLOSED && k.err.clean);
        CHECK_EQ_U(k.err.seq, (uint32_t)(start + st.wire_len));
        dw_mpa_rx_del(rx);
    }
    stream_free(&st);
}

static void test_roundtrip_matrix(void)
{
    uint64_t seed = dw_test_seed();
    sink_iov_pieced = 0;
    static const uint32_t starts[] = {0, 11, 0xFFFFFF00u, 0xFFFFFFFCu};
    for (int markers = 0; markers < 2; markers++)
        for (int ptr = 0; ptr < 2; ptr++)
            for (int iov = 0; iov < 2; iov++)
                for (int pl = 0; pl < 2; pl++)
                    one_config(markers, ptr ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT,
                               iov, pl, starts[(markers + ptr + iov + pl) % 4], &seed);
    CHECK(sink_iov_pieced > 0); /* the pieces path ran */
}

/* Small records fed octet by octet: every state boundary is a cut. */
static void test_octet_feeding(void)
{
    uint64_t seed = 42;
    for (int markers = 0; markers < 2; markers++) {
        dw_mpa_tx_settings ts;
        dw_mpa_tx_settings_default(&ts);
        ts.markers = markers;
        dw_mpa_tx *tx;
        CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
        size_t sizes[400];
        for (size_t i = 0; i < 400; i++)
            sizes[i] = 1 + dw_rand(&seed) % (i % 5 ? 40 : 1100);
        stream st;
        stream_build(&st, tx, sizes, 400, 1, &seed);
        dw_mpa_tx_del(tx);
        dw_mpa_rx_settings rs;
        dw_mpa_rx_settings_default(&rs);
        rs.markers = markers;
        sink k = {&st, 0, 0, 0, {0}, 0};
        dw_mpa_rx_callbacks cb = {sink_ulpdu, sink_error, NULL};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, &rs, &cb, &k) == 0);
        CHECK(feed_cuts(rx, st.wire, st.wire_len, 1, &seed) == 0);
        CHECK(k.next == 400 && k.mismatches == 0 && k.errors == 0);
        dw_mpa_rx_del(rx);
        stream_free(&st);
    }
}

/* FPDUs that end exactly on a 512 boundary: the next marker leads the
 * next FPDU (MPA 7.1), and one that ends just before a marker position
 * puts the marker before its CRC (MPA 7.2). */
static void test_marker_boundaries(void)
{
    uint64_t seed = 7;
    for (size_t first = 1; first <= 1100; first++) {
        dw_mpa_tx *tx;
        CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
        size_t sizes[3] = {first, 1 + first % 37, 600};
        stream st;
        stream_build(&st, tx, sizes, 3, first & 1, &seed);
        dw_mpa_tx_del(tx);
        /* every marker position holds a marker that names its FPDU */
        for (size_t m = 0; m < st.wire_len; m += 512) {
            uint16_t ptr = (uint16_t)(st.wire[m + 2] << 8 | st.wire[m + 3]);
            size_t f = 0;
            while (f + 1 < 3 && st.recs[f + 1].fpdu_off <= m)
                f++;
            CHECK_EQ_U(ptr, m - st.recs[f].fpdu_off);
            CHECK(st.wire[m] == 0 && st.wire[m + 1] == 0);
        }
        sink k = {&st, 0, 0, 0, {0}, 0};
        dw_mpa_rx_callbacks cb = {sink_ulpdu, sink_error, NULL};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, NULL, &cb, &k) == 0);
        CHECK(feed_cuts(rx, st.wire, st.wire_len, 1 + first % 700, &seed) == 0);
        CHECK(k.next == 3 && k.mismatches == 0 && k.errors == 0);
        dw_mpa_rx_del(rx);
        stream_free(&st);
    }
}

/* The RFC 5044 reading: inside an FPDU led by a marker, further markers
 * point at ULPDU_Length (4 less than the draft's). */
static void test_ptr_readings(void)
{
    uint8_t rec[2000], out[2100];
    memset(rec, 0xab, sizeof rec);
    for (int ptr = 0; ptr < 2; ptr++) {
        dw_mpa_tx_settings ts;
        dw_mpa_tx_settings_default(&ts);
        ts.ptr_base = ptr ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
        dw_mpa_tx *tx;
        CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
        CHECK(dw_mpa_tx_frame_into(tx, rec, sizeof rec, out, sizeof out, NULL) > 0);
        CHECK(out[2] == 0 && out[3] == 0); /* the leading marker is zero */
        for (unsigned m = 512; m < 2000; m += 512) {
            unsigned v = (unsigned)(out[m + 2] << 8 | out[m + 3]);
            CHECK_EQ_U(v, ptr ? m - 4 : m);
        }
        dw_mpa_tx_del(tx);
    }
}

/* Packing advice: aligned mode starts every FPDU on a segment; packed
 * mode groups whole FPDUs up to EMSS. */
static void test_segment_advice(void)
{
    uint8_t rec[1500] = {0};
    struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    dw_mpa_fpdu_info info;
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.seg_mode = DW_MPA_SEG_PACKED;
    ts.emss = 1460;
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    int starts = 0;
    size_t fill = 0;
    for (int i = 0; i < 100; i++) {
        ssize_t n = dw_mpa_tx_frame(tx, rec, 100, iov, DW_MPA_FPDU_IOV_MAX, &info);
        if (info.new_segment)
            starts++, fill = 0;
        fill += (size_t)n;
        CHECK(fill <= 1460);
    }
    CHECK(starts >= 8 && starts <= 10); /* ~108-112 octets per FPDU, 13 per segment */
    CHECK_EQ_U(dw_mpa_tx_mulpdu(tx), 1442);
    CHECK(dw_mpa_tx_set_emss(tx, 536) == 0);
    CHECK_EQ_U(dw_mpa_tx_mulpdu(tx), 536 - 14);
    dw_mpa_tx_del(tx);
    dw_mpa_tx_settings_default(&ts);
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    for (int i = 0; i < 10; i++) {
        dw_mpa_tx_frame(tx, rec, 1 + (size_t)i * 100, iov, DW_MPA_FPDU_IOV_MAX, &info);
        CHECK(info.new_segment);
    }
    dw_mpa_tx_del(tx);
}

/* A stream longer than 4 GiB: MPA positions wrap at 2^32 and markers keep
 * their 512-octet rhythm (2^32 is a multiple of 512). */
typedef struct wrap_count {
    size_t n, bad;
} wrap_count;

static int wrap_on_ulpdu(dw_mpa_rx *r, const uint8_t *d, size_t len,
                         uint64_t off, void *u)
{
    wrap_count *c = u;
    (void)r, (void)off;
    c->n++;
    c->bad += d[0] != 0x5a || d[len - 1] != 0x5a;
    return 0;
}

static void test_position_wrap(void)
{
    if (getenv("DW_TEST_QUICK")) {
        DW_SKIP("DW_TEST_QUICK: 4 GiB through the receiver is for the full run");
        return;
    }
    static uint8_t rec[DW_MPA_ULPDU_MAX], flat[DW_MPA_FPDU_MAX];
    static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    memset(rec, 0x5a, sizeof rec);
    wrap_count c = {0, 0};
    dw_mpa_rx_callbacks cb = {wrap_on_ulpdu, NULL, NULL};
    dw_mpa_tx *tx;
    dw_mpa_rx *rx;
    CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
    CHECK(dw_mpa_rx_new(&rx, NULL, &cb, &c) == 0);
    uint64_t total = 0;
    size_t len = DW_MPA_ULPDU_MAX;
    dw_mpa_fpdu_info info;
    while (total < (1ull << 32) + 200000) {
        ssize_t n = dw_mpa_tx_frame(tx, rec, len, iov, DW_MPA_FPDU_IOV_MAX, &info);
        CHECK(n > 0);
        size_t at = 0;
        for (size_t k = 0; k < info.iovcnt; k++) {
            memcpy(flat + at, iov[k].iov_base, iov[k].iov_len);
            at += iov[k].iov_len;
        }
        CHECK(dw_mpa_rx_feed(rx, flat, at) == (ssize_t)at);
        total += at;
        len = len == DW_MPA_ULPDU_MAX ? 1001 : DW_MPA_ULPDU_MAX; /* vary phase */
    }
    CHECK(dw_mpa_tx_pos(tx) == (uint32_t)total && total > (1ull << 32));
    CHECK_EQ_U(dw_mpa_rx_offset(rx), total);
    CHECK(c.bad == 0 && c.n > 60000);
    dw_mpa_rx_del(rx);
    dw_mpa_tx_del(tx);
}

/* A ULPDU framed as header + payload (dw_mpa_tx_frame_pdu) is the same
 * FPDU as the ULPDU framed in one piece, through iovecs and flat. */
static void test_header_payload(void)
{
    static uint8_t ulpdu[DW_MPA_ULPDU_MAX], a[DW_MPA_FPDU_MAX], b[DW_MPA_FPDU_MAX],
        c[DW_MPA_FPDU_MAX];
    static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    uint64_t seed = 77;
    for (size_t i = 0; i < sizeof ulpdu; i++)
        ulpdu[i] = (uint8_t)dw_rand(&seed);
    for (int markers = 0; markers < 2; markers++) {
        for (int crc = 0; crc < 2; crc++) {
            dw_mpa_tx *t1, *t2, *t3;
            dw_mpa_tx_settings ts;
            dw_mpa_tx_settings_default(&ts);
            ts.markers = markers;
            ts.crc = crc;
            ts.start_seq = (uint32_t)dw_rand(&seed);
            dw_mpa_tx_new(&t1, &ts);
            dw_mpa_tx_new(&t2, &ts);
            dw_mpa_tx_new(&t3, &ts);
            int n = getenv("DW_TEST_QUICK") ? 100 : 600;
            for (int k = 0; k < n; k++) {
                size_t len = k < 40 ? (size_t)k + 1 : rand_size(&seed);
                size_t h = dw_rand(&seed) % 3 == 0 ? len : dw_rand(&seed) % (len < 100 ? len + 1 : 100);
                ssize_t la = dw_mpa_tx_frame_into(t1, ulpdu, len, a, sizeof a, NULL);
                ssize_t lb = dw_mpa_tx_frame_pdu_into(t2, ulpdu, h, ulpdu + h, len - h, b,
                                                      sizeof b, NULL);
                dw_mpa_fpdu_info fi;
                ssize_t lc = dw_mpa_tx_frame_pdu(t3, ulpdu, h, ulpdu + h, len - h, iov,
                                                 DW_MPA_FPDU_IOV_MAX, &fi);
                size_t at = 0;
                for (size_t v = 0; lc > 0 && v < fi.iovcnt; v++) {
                    memcpy(c + at, iov[v].iov_base, iov[v].iov_len);
                    at += iov[v].iov_len;
                }
                CHECK(la > 0 && la == lb && la == lc && (size_t)lc == at);
                CHECK(la > 0 && memcmp(a, b, (size_t)la) == 0 && memcmp(a, c, (size_t)la) == 0);
                CHECK(lc < 0 || fi.iovcnt <= 2 * fi.markers + 3 + (h > 64 && h < len));
            }
            /* a header alone, with no payload pointer at all */
            for (size_t h = 1; h <= 70; h++) {
                ssize_t la = dw_mpa_tx_frame_into(t1, ulpdu, h, a, sizeof a, NULL);
                ssize_t lb = dw_mpa_tx_frame_pdu_into(t2, ulpdu, h, NULL, 0, b, sizeof b, NULL);
                CHECK(la > 0 && la == lb && memcmp(a, b, (size_t)la) == 0);
                dw_mpa_tx_frame_pdu(t3, ulpdu, h, NULL, 0, iov, DW_MPA_FPDU_IOV_MAX, NULL);
            }
            CHECK_EQ_U(dw_mpa_tx_frame_pdu(t3, NULL, 0, NULL, 0, iov, 8, NULL), DW_ERR_EMPTY);
            CHECK_EQ_U(dw_mpa_tx_frame_pdu(t3, ulpdu, 64768, ulpdu, 1, iov, 8, NULL),
                       DW_ERR_TOO_LONG);
            CHECK_EQ_U(dw_mpa_tx_frame_pdu(t3, NULL, 4, ulpdu, 1, iov, 8, NULL), DW_ERR_INVAL);
            dw_mpa_tx_del(t1);
            dw_mpa_tx_del(t2);
            dw_mpa_tx_del(t3);
        }
    }
}

int main(void)
{
    RUN(test_roundtrip_matrix);
    RUN(test_octet_feeding);
    RUN(test_marker_boundaries);
    RUN(test_ptr_readings);
    RUN(test_segment_advice);
    RUN(test_position_wrap);
    RUN(test_header_payload);
    return dw_test_finish();
}
