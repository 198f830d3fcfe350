/* SPDX-License-Identifier: MIT */
/*
 * The MPA text's own examples, byte for byte: Figure 5 (first FPDU of a
 * stream, leading zero marker) and Figure 6 (second FPDU after a 492-octet
 * first one, with a marker inside). Also MULPDU (7.3.1) and FPDU sizes.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include "test.h"

/* DDP/RDMAP Send header of the figures (18 octets): control 0x4003,
 * reserved STag slot, Queue 0, MSN msn, MO 0. */
static void ddp_send_hdr(uint8_t *h, uint8_t msn)
{
    memset(h, 0, 18);
    h[0] = 0x40;
    h[1] = 0x03;
    h[13] = msn; /* MSN: octets 10..13, big-endian */
}

/* Parses the hex of a figure; returns octets written. */
static size_t hex(uint8_t *out, const char *s)
{
    size_t n = 0;
    unsigned v;
    int k;
    while (sscanf(s, " %2x%n", &v, &k) == 1) {
        out[n++] = (uint8_t)v;
        s += k;
    }
    return n;
}

/* Figure 5, as the text lays it out (offset: octets). */
static const char fig5_hex[] =
    "00 00 00 00" /* 0000 marker: reserved, FPDUPTR 0 */
    " 00 2a"      /* 0004 ULPDU_Length 42 */
    " 40 03"      /* 0006 DDP control: Send, Last */
    " 00 00 00 00" /* 0008 reserved (STag position) */
    " 00 00 00 00" /* 000c Queue 0 */
    " 00 00 00 01" /* 0010 MSN 1 */
    " 00 00 00 00" /* 0014 MO 0 */
    " 00 00 00 00 00 00 00 00 00 00 00 00"
    " 00 00 00 00 00 00 00 00 00 00 00 00" /* 0018 Send data, 24 zeros */
    " 4c 86 b3 84"; /* 0030 CRC32c */

/* Figure 6: octets 0x1ec..0x21f of the stream. */
static const char fig6_hex[] =
    "00 2a"        /* 01ec ULPDU_Length 42 */
    " 40 03"       /* 01ee DDP control */
    " 00 00 00 00" /* 01f0 reserved */
    " 00 00 00 00" /* 01f4 Queue 0 */
    " 00 00 00 02" /* 01f8 MSN 2 */
    " 00 00 00 00" /* 01fc MO 0 */
    " 00 00 00 14" /* 0200 marker: FPDUPTR 0x200 - 0x1ec = 20 */
    " 00 00 00 00 00 00 00 00 00 00 00 00"
    " 00 00 00 00 00 00 00 00 00 00 00 00" /* 0204 Send data */
    " a1 9c d1 03"; /* 021c CRC32c */

static uint8_t fig5[52], fig6[52];

static void test_figures_parse(void)
{
    CHECK_EQ_U(hex(fig5, fig5_hex), 52);
    CHECK_EQ_U(hex(fig6, fig6_hex), 52);
}

static uint8_t *flatten(const struct iovec *iov, size_t n, uint8_t *out)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(out + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
    }
    return out;
}

static void test_figure5_tx(void)
{
    dw_mpa_tx *tx;
    uint8_t ulpdu[42], out[128];
    struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    dw_mpa_fpdu_info info;
    ddp_send_hdr(ulpdu, 1);
    memset(ulpdu + 18, 0, 24);
    CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
    ssize_t n = dw_mpa_tx_frame(tx, ulpdu, sizeof ulpdu, iov, DW_MPA_FPDU_IOV_MAX, &info);
    CHECK_EQ_U(n, 52);
    CHECK(info.new_segment && info.markers == 1 && info.pos == 0);
    CHECK(memcmp(flatten(iov, info.iovcnt, out), fig5, 52) == 0);
    /* the payload is referenced, never copied */
    int referenced = 0;
    for (size_t i = 0; i < info.iovcnt; i++)
        referenced |= iov[i].iov_base == (void *)ulpdu;
    CHECK(referenced);
    dw_mpa_tx_del(tx);

    CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
    CHECK_EQ_U(dw_mpa_tx_frame_into(tx, ulpdu, 42, out, sizeof out, NULL), 52);
    CHECK(memcmp(out, fig5, 52) == 0);
    CHECK_EQ_U(dw_mpa_tx_frame_into(tx, ulpdu, 42, out, 10, NULL), DW_ERR_NOSPACE);
    dw_mpa_tx_del(tx);
    /* the CRC field is the iSCSI digest order of CRC32c 0x84B3864C */
    CHECK_EQ_U(dw_crc32c(0, fig5, 48), 0x84B3864Cu);
}

static void test_figure6_tx(void)
{
    /* First FPDU of 492 octets: ULPDU 482 (4 + 2 + 482 + 0 pad + 4). */
    dw_mpa_tx *tx;
    uint8_t first[482], ulpdu[42], out[1024];
    memset(first, 0, sizeof first);
    ddp_send_hdr(first, 1);
    ddp_send_hdr(ulpdu, 2);
    memset(ulpdu + 18, 0, 24);
    for (int ptr = 0; ptr < 2; ptr++) { /* both readings agree here */
        dw_mpa_tx_settings s;
        dw_mpa_tx_settings_default(&s);
        s.ptr_base = ptr ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
        CHECK(dw_mpa_tx_new(&tx, &s) == 0);
        CHECK_EQ_U(dw_mpa_tx_frame_into(tx, first, sizeof first, out, sizeof out, NULL), 492);
        dw_mpa_fpdu_info info;
        CHECK_EQ_U(dw_mpa_tx_frame_into(tx, ulpdu, 42, out + 492, 500, &info), 52);
        CHECK_EQ_U(info.pos, 0x1ec);
        CHECK(memcmp(out + 0x1ec, fig6, 52) == 0);
        dw_mpa_tx_del(tx);
    }
}

typedef struct got {
    int n, err;
    size_t len[8];
    uint8_t data[8][64];
    dw_mpa_rx_error e;
} got;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    got *g = u;
    (void)rx, (void)off;
    if (g->n < 8) {
        g->len[g->n] = len;
        memcpy(g->data[g->n], d, len < 64 ? len : 64);
    }
    g->n++;
    return 0;
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    got *g = u;
    (void)rx;
    g->err++;
    g->e = *e;
}

static const dw_mpa_rx_callbacks cbs = {on_ulpdu, on_error, NULL};

static void test_figures_rx(void)
{
    /* Figure 5 alone, fed whole and octet by octet. */
    for (int piece = 1; piece <= 52; piece += 51) {
        got g = {0};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, NULL, &cbs, &g) == 0);
        for (size_t i = 0; i < 52; i += (size_t)piece)
            CHECK(dw_mpa_rx_feed(rx, fig5 + i, (size_t)piece) == piece);
        CHECK(g.n == 1 && g.len[0] == 42 && g.err == 0);
        CHECK(g.data[0][0] == 0x40 && g.data[0][13] == 1);
        CHECK(dw_mpa_rx_close(rx, DW_MPA_CLOSE_FIN) == 0);
        CHECK(g.err == 1 && g.e.code == DW_MPA_ERR_CLOSED && g.e.clean);
        dw_mpa_rx_del(rx);
    }
    /* Figures 5-then-6 cannot share a stream (fig5 is 52 octets, not 492),
     * so build the stream the figure describes and check fig6 sits in it. */
    uint8_t stream[544], first[482];
    memset(first, 0, sizeof first);
    ddp_send_hdr(first, 1);
    dw_mpa_tx *tx;
    CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
    CHECK_EQ_U(dw_mpa_tx_frame_into(tx, first, sizeof first, stream, 492, NULL), 492);
    dw_mpa_tx_del(tx);
    memcpy(stream + 492, fig6, 52);
    for (size_t piece = 1; piece <= 544; piece = piece * 3 + 1) {
        got g = {0};
        dw_mpa_rx *rx;
        CHECK(dw_mpa_rx_new(&rx, NULL, &cbs, &g) == 0);
        for (size_t i = 0; i < 544; i += piece)
            dw_mpa_rx_feed(rx, stream + i, i + piece > 544 ? 544 - i : piece);
        CHECK(g.n == 2 && g.err == 0 && g.len[1] == 42 && g.data[1][13] == 2);
        dw_mpa_rx_del(rx);
    }
}

static void test_mulpdu(void)
{
    CHECK_EQ_U(dw_mpa_mulpdu(1460, 1), 1460 - (6 + 4 * 3 + 0));
    CHECK_EQ_U(dw_mpa_mulpdu(1448, 1), 1448 - (6 + 4 * 3 + 0));
    CHECK_EQ_U(dw_mpa_mulpdu(1461, 1), 1461 - (6 + 4 * 3 + 1));
    CHECK_EQ_U(dw_mpa_mulpdu(536, 1), 536 - (6 + 8 + 0));
    CHECK_EQ_U(dw_mpa_mulpdu(100, 1), 128);    /* MPA 7.3.1 floor */
    CHECK_EQ_U(dw_mpa_mulpdu(0, 1), 128);
    CHECK_EQ_U(dw_mpa_mulpdu(65495, 1), 64768); /* MPA 5.2 ceiling */
    CHECK_EQ_U(dw_mpa_mulpdu(1460, 0), 1454);
    /* an FPDU of MULPDU octets fits EMSS wherever it starts */
    for (uint32_t emss = 200; emss < 9000; emss += 13) {
        uint32_t m = dw_mpa_mulpdu(emss, 1);
        size_t worst = 0;
        for (uint32_t pos = 0; pos < 512; pos += 4) {
            size_t l = dw_mpa_fpdu_len(pos, m, 1);
            worst = l > worst ? l : worst;
        }
        CHECK(worst <= emss);
    }
}

/* The exact fill (dw_mpa_fill_len): an FPDU of exactly EMSS when EMSS is a
 * multiple of 4 (EMSS rounded down to 4 otherwise), 4 octets less where a
 * marker would be its last four (MPA 7.1: that marker leads the next one);
 * MULPDU or up to two markers' room more; and a sender framing a
 * stream of them produces FPDUs of EMSS octets, one after another. */
static void test_fill_len(void)
{
    static const uint32_t starts[] = {0, 4, 508, 512, 1020, 0xFFFFFE00u, 0xFFFFFFFCu};
    for (int mk = 0; mk < 2; mk++)
        for (uint32_t e = 140; e <= 66000; e += e < 9100 ? 1 : 97)
            for (uint32_t pos = 0; pos < 1024 + 7; pos += 4) {
                uint32_t p = pos < 1024 ? pos : starts[pos - 1024];
                uint32_t u = dw_mpa_fill_len(p, e, mk);
                size_t f = dw_mpa_fpdu_len(p, u, mk);
                uint32_t m = dw_mpa_mulpdu(e, mk);
                if (u == DW_MPA_ULPDU_MAX || u == DW_MPA_MULPDU_MIN)
                    CHECK(f <= e || u == DW_MPA_MULPDU_MIN);
                else if (mk && (p + (e & ~3u) - 4) % 512 == 0)
                    CHECK_EQ_U(f, (e & ~3u) - 4); /* a marker cannot end it */
                else
                    CHECK_EQ_U(f, e & ~3u);
                CHECK(u >= m && u <= m + 8u * (unsigned)mk);
            }
    for (int mk = 0; mk < 2; mk++) {
        static const uint32_t emss[] = {1448, 1460, 8948, 536, 1428};
        for (size_t k = 0; k < sizeof emss / sizeof emss[0]; k++) {
            DW_CASE_HERE("emss[%zu]", k);
            dw_mpa_tx_settings ts;
            dw_mpa_tx_settings_default(&ts);
            ts.markers = mk;
            ts.emss = emss[k];
            dw_mpa_tx *tx;
            CHECK_EQ_U(dw_mpa_tx_new(&tx, &ts), 0);
            static uint8_t buf[DW_MPA_ULPDU_MAX];
            struct iovec iov[DW_MPA_FPDU_IOV_MAX];
            int exact = 0;
            for (int i = 0; i < 2000; i++) {
                uint32_t at = dw_mpa_tx_pos(tx), u = dw_mpa_tx_fill_len(tx);
                dw_mpa_fpdu_info info;
                ssize_t n = dw_mpa_tx_frame(tx, buf, u, iov, DW_MPA_FPDU_IOV_MAX, &info);
                int short4 = mk && (at + emss[k] - 4) % 512 == 0;
                CHECK_EQ_U(n, emss[k] - (short4 ? 4 : 0));
                CHECK_EQ_U(dw_mpa_tx_pos(tx) - at, (uint32_t)n);
                exact += !short4;
            }
            CHECK(exact >= 1900); /* the short ones are rare */
            CHECK_EQ_U(dw_mpa_tx_emss(tx), emss[k]);
            dw_mpa_tx_del(tx);
        }
    }
}

static void test_refusals(void)
{
    dw_mpa_tx *tx;
    static uint8_t big[DW_MPA_ULPDU_MAX + 1];
    struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    CHECK(dw_mpa_tx_new(&tx, NULL) == 0);
    CHECK_EQ_U(dw_mpa_tx_frame(tx, big, 0, iov, DW_MPA_FPDU_IOV_MAX, NULL), DW_ERR_EMPTY);
    CHECK_EQ_U(dw_mpa_tx_frame(tx, big, sizeof big, iov, DW_MPA_FPDU_IOV_MAX, NULL),
               DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_mpa_tx_frame(tx, big, 5000, iov, 4, NULL), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_mpa_tx_pos(tx), 0); /* nothing half-sent */
    ssize_t n = dw_mpa_tx_frame(tx, big, DW_MPA_ULPDU_MAX, iov, DW_MPA_FPDU_IOV_MAX, NULL);
    CHECK_EQ_U(n, dw_mpa_fpdu_len(0, DW_MPA_ULPDU_MAX, 1));
    CHECK_EQ_U(dw_mpa_tx_pos(tx), (uint32_t)n);
    dw_mpa_tx_del(tx);
    dw_mpa_tx_del(NULL);
    dw_mpa_rx_del(NULL);
}

int main(void)
{
    RUN(test_figures_parse);
    RUN(test_figure5_tx);
    RUN(test_figure6_tx);
    RUN(test_figures_rx);
    RUN(test_mulpdu);
    RUN(test_fill_len);
    RUN(test_refusals);
    return dw_test_finish();
}
