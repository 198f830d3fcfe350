/* SPDX-License-Identifier: MIT */
/*
 * Interop with real Linux soft-iWARP traffic (tests/data/siw_*.bin: each
 * direction of two rping connections from ../shared/siw-peer/captures/
 * host_data.pcap, one with CRC negotiated (0x50), one without (0x10)).
 * siw negotiates no markers. Our receiver must accept every FPDU siw sent
 * and we sent, and our sender, given the same ULPDUs, must produce the
 * same octets.
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>

#include "test.h"

static const char *dir;

typedef struct col {
    int n, errs;
    uint8_t ulpdu[8][256];
    size_t len[8];
} col;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    col *c = u;
    (void)rx, (void)off;
    if (c->n < 8 && len <= 256) {
        memcpy(c->ulpdu[c->n], d, len);
        c->len[c->n] = len;
    }
    c->n++;
    return 0;
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    col *c = u;
    (void)rx;
    c->errs += !(e->code == DW_MPA_ERR_CLOSED && e->clean);
}

static void one(const char *name, int crc, int expect_fpdus, uint8_t first_ddp)
{
    char path[1024];
    uint8_t s[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    size_t n = fread(s, 1, sizeof s, f);
    fclose(f);
    dw_mpa_startup st;
    ssize_t h = dw_mpa_startup_decode(&st, s, n);
    CHECK_EQ_U(h, 24);
    CHECK_EQ_U(!!(st.flags & DW_MPA_FLAG_CRC), crc);
    CHECK(!(st.flags & DW_MPA_FLAG_MARKERS));
    /* MPA mode starts right after the frame: position 0, no markers */
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    rs.markers = 0;
    rs.crc = crc;
    col c = {0};
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, NULL};
    dw_mpa_rx *rx;
    CHECK(dw_mpa_rx_new(&rx, &rs, &cb, &c) == 0);
    for (size_t i = (size_t)h; i < n; i++) /* octet by octet */
        CHECK(dw_mpa_rx_feed(rx, s + i, 1) == 1);
    CHECK(dw_mpa_rx_close(rx, DW_CLOSE_FIN) == 0);
    dw_mpa_rx_del(rx);
    CHECK_EQ_U(c.n, expect_fpdus);
    CHECK_EQ_U(c.errs, 0);
    CHECK_EQ_U(c.ulpdu[0][0], first_ddp); /* DDP control of the first ULPDU */
    /* our sender reproduces the stream */
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = 0;
    ts.crc = crc;
    dw_mpa_tx *tx;
    uint8_t out[4096];
    size_t w = 0;
    CHECK(dw_mpa_tx_new(&tx, &ts) == 0);
    for (int i = 0; i < c.n && i < 8; i++)
        w += (size_t)dw_mpa_tx_frame_into(tx, c.ulpdu[i], c.len[i], out + w, sizeof out - w, NULL);
    dw_mpa_tx_del(tx);
    CHECK_EQ_U(w, n - (size_t)h);
    CHECK(memcmp(out, s + h, w) == 0);
    /* with CRC: any flipped bit in siw's FPDUs is caught */
    if (!crc)
        return;
    for (size_t bit = 0; bit < (n - (size_t)h) * 8; bit += 3) {
        uint8_t b[4096];
        memcpy(b, s + h, n - (size_t)h);
        b[bit / 8] ^= (uint8_t)(1u << bit % 8);
        col k = {0};
        CHECK(dw_mpa_rx_new(&rx, &rs, &cb, &k) == 0);
        ssize_t r = dw_mpa_rx_feed(rx, b, n - (size_t)h);
        dw_mpa_rx_close(rx, DW_CLOSE_FIN);
        dw_mpa_rx_del(rx);
        CHECK(r == DW_ERR_PROTO || k.errs == 1);
        CHECK(k.n < expect_fpdus);
    }
}

static void test_siw_streams(void)
{
    /* host -> siw: rping client's Send, then the RDMA Read Response */
    one("siw_crc_host2siw.bin", 1, 2, 0x41);
    one("siw_nocrc_host2siw.bin", 0, 2, 0x41);
    /* siw -> host: its RDMA Read Request, then its Send */
    one("siw_crc_siw2host.bin", 1, 2, 0x41);
    one("siw_nocrc_siw2host.bin", 0, 2, 0x41);
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : DW_TEST_DATA;
    RUN(test_siw_streams);
    return dw_test_finish();
}
