/* SPDX-License-Identifier: MIT */
/*
 * The framing-neutral interface (framing.h): MPA and IFT streams of PDUs
 * (header + payload) framed through iovecs and flat buffers, fed back in
 * random chunks, delivered whole, in order and byte-exact, with and
 * without a caller buffer; corruption reported in the framing's own codes
 * with nothing delivered after it; a stream cut inside a frame is code 1.
 */
#include <ddpwire/framing.h>

#include "test.h"

#define NPDU 400
#define WIRE_CAP (NPDU * (DW_MPA_FPDU_MAX + 64))

typedef struct pdu {
    size_t h, p, at; /* header and payload octets, offset in the pool */
} pdu;

typedef struct got {
    dw_framing f;
    const pdu *want;
    const uint8_t *pool;
    size_t n, bad, errors, empty_hdrs;
    int code;
    uint8_t buf[DW_IFT_SIZE_MAX + DW_MPA_ULPDU_MAX];
    int use_buf;
} got;

static uint8_t pool[1 << 17];
static uint8_t wire[WIRE_CAP];

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                  size_t len, uint64_t off, void *u)
{
    got *g = u;
    (void)rx, (void)off;
    const pdu *w = &g->want[g->n++];
    if (g->f == DW_FRAMING_MPA) { /* the whole ULPDU as data */
        g->bad += hlen != 0 || len != w->h + w->p ||
                  memcmp(d, g->pool + w->at, len) != 0;
    } else {
        g->bad += hlen != w->h || len != w->p || memcmp(hdr, g->pool + w->at, hlen) != 0 ||
                  memcmp(d, g->pool + w->at + w->h, len) != 0;
    }
    return 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    got *g = u;
    (void)rx;
    g->errors++;
    g->code = e->code;
    CHECK(e->framing == g->f);
    CHECK(strstr(dw_fr_error_str(e), g->f == DW_FRAMING_MPA ? "MPA" : "IFT") != NULL);
}

static uint8_t *get_buffer(dw_fr_rx *rx, size_t len, void *u)
{
    got *g = u;
    (void)rx;
    return g->use_buf && len <= sizeof g->buf ? g->buf : NULL;
}

/* Frames the PDUs; returns the stream length. */
static size_t build(dw_framing f, const pdu *v, size_t n, int flat, int markers)
{
    dw_fr_tx_settings ts;
    dw_fr_tx *tx;
    static struct iovec iov[DW_FR_FRAME_IOV_MAX];
    dw_fr_tx_settings_default(&ts, f);
    ts.mpa.markers = markers;
    CHECK_EQ_U(dw_fr_tx_new(&tx, &ts), 0);
    CHECK(dw_fr_tx_framing(tx) == f);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t want = dw_fr_tx_frame_len(tx, v[i].h, v[i].p);
        const uint8_t *h = pool + v[i].at, *p = h + v[i].h;
        dw_fr_frame_info fi;
        ssize_t k = flat ? dw_fr_tx_frame_into(tx, h, v[i].h, p, v[i].p, wire + at,
                                               WIRE_CAP - at, &fi)
                         : dw_fr_tx_frame(tx, h, v[i].h, p, v[i].p, iov,
                                          DW_FR_FRAME_IOV_MAX, &fi);
        CHECK(k > 0 && (size_t)k == want && fi.len == want);
        if (k <= 0)
            break;
        for (size_t j = 0; !flat && j < fi.iovcnt; j++) {
            memcpy(wire + at, iov[j].iov_base, iov[j].iov_len);
            at += iov[j].iov_len;
        }
        at += flat ? (size_t)k : 0;
    }
    dw_fr_tx_del(tx);
    return at;
}

static dw_fr_rx *receiver(dw_framing f, got *g, int markers)
{
    dw_fr_rx_settings rs;
    dw_fr_rx *rx;
    dw_fr_rx_settings_default(&rs, f);
    rs.mpa.markers = markers;
    dw_fr_rx_callbacks cb = {on_pdu, on_error, get_buffer};
    CHECK_EQ_U(dw_fr_rx_new(&rx, &rs, &cb, g), 0);
    return rx;
}

/* Feeds len octets in random chunks (max_chunk 0: all at once). */
static void feed(dw_fr_rx *rx, const uint8_t *w, size_t len, size_t max_chunk, uint64_t *s)
{
    size_t at = 0;
    while (at < len) {
        size_t k = max_chunk ? 1 + dw_rand(s) % max_chunk : len;
        if (k > len - at)
            k = len - at;
        if (dw_fr_rx_feed(rx, w + at, k) < 0)
            return;
        at += k;
    }
}

static void make_pdus(pdu *v, size_t n, dw_framing f, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) {
        size_t h = dw_rand(s) % 3 ? dw_rand(s) % 29 : 0;
        size_t p = dw_rand(s) % 4 ? dw_rand(s) % 2000 : dw_rand(s) % 60000;
        if (f == DW_FRAMING_MPA && h + p == 0)
            p = 1; /* MPA refuses an empty ULPDU */
        v[i] = (pdu){h, p, dw_rand(s) % (sizeof pool - h - p)};
    }
}

static void test_round_trips(void)
{
    static pdu v[NPDU];
    static const size_t chunks[] = {0, 1, 7, 600, 70000};
    uint64_t s = 4242;
    for (size_t i = 0; i < sizeof pool; i++)
        pool[i] = (uint8_t)dw_rand(&s);
    int quick = getenv("DW_TEST_QUICK") != NULL;
    for (int f = 0; f < 2; f++)
        for (int mode = 0; mode < 8; mode++) {
            int flat = mode & 1, use_buf = mode >> 1 & 1, markers = mode >> 2;
            size_t n = quick ? 60 : NPDU;
            make_pdus(v, n, (dw_framing)f, &s);
            size_t len = build((dw_framing)f, v, n, flat, markers);
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                DW_CASE_HERE("chunks[%zu]", c);
                if (quick && chunks[c] == 1)
                    continue;
                static got g;
                memset(&g, 0, sizeof g);
                g = (got){.f = (dw_framing)f, .want = v, .pool = pool, .use_buf = use_buf};
                dw_fr_rx *rx = receiver((dw_framing)f, &g, markers);
                feed(rx, wire, len, chunks[c], &s);
                CHECK_EQ_U(g.n, n);
                CHECK_EQ_U(g.bad, 0);
                CHECK_EQ_U(dw_fr_rx_delivered(rx), n);
                CHECK_EQ_U(dw_fr_rx_offset(rx), len);
                CHECK_EQ_U(g.errors, 0);
                CHECK_EQ_U(dw_fr_rx_close(rx, DW_MPA_CLOSE_FIN), 0); /* between frames */
                CHECK(g.errors == 1 && g.code == 1); /* code 1, clean */
                dw_fr_rx_del(rx);
            }
        }
}

/* One flipped bit in the middle frame: frames before it delivered, the
 * error in the framing's codes, nothing after it. */
static void test_corruption(void)
{
    static pdu v[3] = {{8, 300, 100}, {18, 900, 5000}, {4, 50, 9000}};
    for (int f = 0; f < 2; f++) {
        size_t len = build((dw_framing)f, v, 3, 1, 1);
        size_t first = build((dw_framing)f, v, 1, 1, 1);
        for (size_t at = first; at < first + 40; at++) {
            size_t a = build((dw_framing)f, v, 3, 1, 1);
            CHECK_EQ_U(a, len);
            wire[at] ^= 0x10;
            got g = {.f = (dw_framing)f, .want = v, .pool = pool};
            dw_fr_rx *rx = receiver((dw_framing)f, &g, 1);
            feed(rx, wire, len, 0, NULL);
            /* a length made longer leaves the receiver waiting: the end of
             * the stream then comes inside a frame (code 1, not clean) */
            if (!g.errors)
                CHECK_EQ_U(dw_fr_rx_close(rx, DW_MPA_CLOSE_FIN), DW_ERR_PROTO);
            CHECK_EQ_U(g.n, 1);
            CHECK_EQ_U(g.errors, 1);
            CHECK(g.code >= 1); /* CRC (both), marker (MPA 3), size (IFT 4) */
            CHECK_EQ_U(dw_fr_rx_failed(rx), g.code);
            CHECK(dw_fr_rx_feed(rx, wire, 4) < 0);
            dw_fr_rx_del(rx);
        }
    }
}

/* The stream ends inside the second frame: code 1, not clean. */
static void test_cut(void)
{
    static pdu v[2] = {{0, 100, 0}, {6, 100, 200}};
    for (int f = 0; f < 2; f++) {
        size_t len = build((dw_framing)f, v, 2, 0, 1);
        got g = {.f = (dw_framing)f, .want = v, .pool = pool};
        dw_fr_rx *rx = receiver((dw_framing)f, &g, 1);
        feed(rx, wire, len - 3, 0, NULL);
        CHECK_EQ_U(dw_fr_rx_close(rx, DW_MPA_CLOSE_RST), DW_ERR_PROTO);
        CHECK_EQ_U(g.n, 1);
        CHECK_EQ_U(g.code, 1);
        dw_fr_rx_del(rx);
    }
}

/* No buffer of the receiver's own (buf_size 0): PDUs whole in the input
 * go out in place without asking get_buffer; one split across feeds asks
 * it and, given none, stops the receiver with DW_ERR_NOMEM for good. */
static void test_no_buffer(void)
{
    static pdu v[3] = {{0, 300, 100}, {8, 900, 5000}, {4, 50, 9000}};
    for (int f = 0; f < 2; f++)
        for (int use_buf = 0; use_buf < 2; use_buf++) {
            size_t len = build((dw_framing)f, v, 3, 1, 0); /* no markers */
            static got g;
            memset(&g, 0, sizeof g);
            g = (got){.f = (dw_framing)f, .want = v, .pool = pool, .use_buf = use_buf};
            dw_fr_rx_settings rs;
            dw_fr_rx *rx;
            dw_fr_rx_settings_default(&rs, (dw_framing)f);
            rs.mpa.markers = 0;
            rs.buf_size = 0;
            dw_fr_rx_callbacks cb = {on_pdu, on_error, get_buffer};
            CHECK_EQ_U(dw_fr_rx_new(&rx, &rs, &cb, &g), 0);
            ssize_t r1 = dw_fr_rx_feed(rx, wire, len / 2);
            ssize_t r = r1 < 0 ? r1 : dw_fr_rx_feed(rx, wire + len / 2, len - len / 2);
            if (use_buf) {
                CHECK_EQ_U(r1, len / 2);
                CHECK_EQ_U(r, len - len / 2);
                CHECK_EQ_U(g.n, 3);
            } else {
                CHECK_EQ_U(r, DW_ERR_NOMEM);
                CHECK(g.n < 3);
                CHECK_EQ_U(dw_fr_rx_feed(rx, wire, 4), DW_ERR_NOMEM);
            }
            CHECK_EQ_U(g.bad, 0);
            CHECK_EQ_U(g.errors, 0);
            dw_fr_rx_del(rx);
            memset(&g, 0, sizeof g); /* whole in one input: in place */
            g = (got){.f = (dw_framing)f, .want = v, .pool = pool};
            CHECK_EQ_U(dw_fr_rx_new(&rx, &rs, &cb, &g), 0);
            CHECK_EQ_U(dw_fr_rx_feed(rx, wire, len), len);
            CHECK_EQ_U(g.n, 3);
            dw_fr_rx_del(rx);
        }
}

static void test_names(void)
{
    dw_framing f;
    CHECK(dw_framing_parse("ift", &f) == 0 && f == DW_FRAMING_IFT);
    CHECK(dw_framing_parse("mpa", &f) == 0 && f == DW_FRAMING_MPA);
    CHECK_EQ_U(dw_framing_parse("sctp", &f), DW_ERR_INVAL);
    CHECK(!strcmp(dw_framing_name(DW_FRAMING_IFT), "ift"));
    dw_fr_tx_settings ts;
    dw_fr_tx *tx;
    dw_fr_tx_settings_default(&ts, DW_FRAMING_MPA);
    ts.framing = (dw_framing)7;
    CHECK_EQ_U(dw_fr_tx_new(&tx, &ts), DW_ERR_INVAL);
    dw_fr_tx_settings_default(&ts, DW_FRAMING_IFT);
    CHECK_EQ_U(dw_fr_tx_new(&tx, &ts), 0);
    CHECK_EQ_U(dw_fr_tx_max_pdu(tx), DW_IFT_SIZE_MAX);
    dw_fr_tx_del(tx);
    dw_fr_tx_settings_default(&ts, DW_FRAMING_MPA);
    CHECK_EQ_U(dw_fr_tx_new(&tx, &ts), 0);
    CHECK_EQ_U(dw_fr_tx_max_pdu(tx), dw_mpa_mulpdu(1460, 1));
    dw_fr_tx_set_emss(tx, 9000);
    CHECK_EQ_U(dw_fr_tx_max_pdu(tx), dw_mpa_mulpdu(9000, 1));
    dw_fr_tx_del(tx);
    dw_fr_tx_del(NULL);
    dw_fr_rx_del(NULL);
}

int main(void)
{
    RUN(test_names);
    RUN(test_round_trips);
    RUN(test_corruption);
    RUN(test_cut);
    RUN(test_no_buffer);
    return dw_test_finish();
}
