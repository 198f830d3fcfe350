/* SPDX-License-Identifier: MIT */
/*
 * MPA revision 2 with the RFC 6581 enhanced connection set-up: the IRD/ORD
 * words byte by byte, our frames against what siw 6.1 sent and answered
 * (../shared/siw-peer/README.md), revision mismatch, IRD/ORD negotiation,
 * peer-to-peer RTR choice, and over loopback sockets: a reject reported
 * with its reason, the retry without markers, a start-up timeout.
 */
#include <ddpwire/mpa_sock.h>
#include <ddpwire/mpa_startup.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"
#include "sock_util.h"

static size_t frame(uint8_t *w, const char *key, uint8_t flags, uint8_t rev,
                    const uint8_t *pd, uint16_t n)
{
    memcpy(w, key, 16);
    w[16] = flags, w[17] = rev, w[18] = (uint8_t)(n >> 8), w[19] = (uint8_t)n;
    if (n)
        memcpy(w + 20, pd, n);
    return 20u + n;
}

static void test_enh_words(void)
{
    uint8_t b[8];
    dw_mpa_enh e = {1, 1, 0, 0}, d;
    CHECK_EQ_U(dw_mpa_enh_encode(b, sizeof b, &e), 4);
    CHECK(memcmp(b, "\x00\x01\x00\x01", 4) == 0);
    e = (dw_mpa_enh){0x3FFF, 0x0123, 1, DW_MPA_RTR_SEND | DW_MPA_RTR_WRITE | DW_MPA_RTR_READ};
    CHECK_EQ_U(dw_mpa_enh_encode(b, sizeof b, &e), 4);
    CHECK(memcmp(b, "\xff\xff\xc1\x23", 4) == 0);
    CHECK_EQ_U(dw_mpa_enh_decode(&d, b, 4), 4);
    CHECK(d.ird == 0x3FFF && d.ord == 0x123 && d.p2p && d.rtr == 7);
    e = (dw_mpa_enh){2, 0, 1, DW_MPA_RTR_READ};
    dw_mpa_enh_encode(b, sizeof b, &e);
    CHECK(memcmp(b, "\x80\x02\x40\x00", 4) == 0);
    /* each control bit alone */
    static const struct { uint8_t w[4]; int p2p; unsigned rtr; } bits[] = {
        {{0x80, 0, 0, 0}, 1, 0}, {{0x40, 0, 0, 0}, 0, DW_MPA_RTR_SEND},
        {{0, 0, 0x80, 0}, 0, DW_MPA_RTR_WRITE}, {{0, 0, 0x40, 0}, 0, DW_MPA_RTR_READ}};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_U(dw_mpa_enh_decode(&d, bits[i].w, 4), 4);
        CHECK(d.ird == 0 && d.ord == 0 && d.p2p == bits[i].p2p && d.rtr == bits[i].rtr);
    }
    CHECK_EQ_U(dw_mpa_enh_decode(&d, b, 3), DW_ERR_NEED_MORE);
    e.ird = 0x4000;
    CHECK_EQ_U(dw_mpa_enh_encode(b, sizeof b, &e), DW_ERR_INVAL);
    e.ird = 1, e.rtr = 8;
    CHECK_EQ_U(dw_mpa_enh_encode(b, sizeof b, &e), DW_ERR_INVAL);
    e.rtr = 0;
    CHECK_EQ_U(dw_mpa_enh_encode(b, 3, &e), DW_ERR_NOSPACE);
}

static void rev2(dw_mpa_nego_settings *s, int crc)
{
    dw_mpa_nego_settings_default(s);
    s->rev = 2;
    s->want_markers = 0;
    s->want_crc = crc;
    s->allow_markers = 0;
}

/* The exchange of the README table, both ways, byte for byte. */
static void test_siw_bytes(void)
{
    static const uint8_t words[4] = {0, 1, 0, 1};
    uint8_t want[64], got[64], rep[64];
    dw_mpa_nego_settings s;
    dw_mpa_nego_result r;
    for (int crc = 0; crc < 2; crc++) {
        rev2(&s, crc);
        uint8_t fl = crc ? 0x50 : 0x10;
        size_t n = frame(want, "MPA ID Req Frame", fl, 2, words, 4);
        CHECK_EQ_U(dw_mpa_nego_request(&s, got, sizeof got), n);
        CHECK(memcmp(got, want, n) == 0);
        /* siw's reply, as captured */
        n = frame(want, "MPA ID Rep Frame", fl, 2, words, 4);
        CHECK_EQ_U(dw_mpa_nego_on_reply(&s, want, n, &r), n);
        CHECK(r.accepted && r.enhanced && r.rev == 2 && r.crc == crc && !r.p2p);
        CHECK(r.ird == 1 && r.ord == 1 && r.pd_len == 0 && r.term_code == 0);
        /* our responder answers siw's own request as siw answered ours */
        size_t rl;
        n = frame(want, "MPA ID Req Frame", fl, 2, words, 4);
        CHECK_EQ_U(dw_mpa_nego_respond(&s, want, n, rep, sizeof rep, &rl, &r), n);
        n = frame(want, "MPA ID Rep Frame", fl, 2, words, 4);
        CHECK_EQ_U(rl, n);
        CHECK(memcmp(rep, want, n) == 0);
    }
    /* siw's reject of markers: R set, M cleared, zero words */
    rev2(&s, 0);
    s.want_markers = 1;
    uint8_t req[64];
    size_t n = (size_t)dw_mpa_nego_request(&s, req, sizeof req);
    CHECK_EQ_U(req[16], 0x90);
    static const uint8_t zero[4] = {0};
    n = frame(want, "MPA ID Rep Frame", 0x30, 2, zero, 4);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, want, n, &r), n);
    CHECK(!r.accepted && r.reason == DW_MPA_NEGO_PEER_REJECTED);
    CHECK(strstr(dw_mpa_nego_reason_str(r.reason), "R set") != NULL);
}

static void test_revisions(void)
{
    dw_mpa_nego_settings a, b;
    dw_mpa_nego_result ra, rb;
    uint8_t req[600], rep[600];
    size_t rl;
    for (int ra_ = 1; ra_ <= 2; ra_++)
        for (int rb_ = 1; rb_ <= 2; rb_++) {
            rev2(&a, 1), rev2(&b, 0);
            a.rev = (uint8_t)ra_, b.rev = (uint8_t)rb_;
            static const uint8_t pd[5] = "hello";
            a.pd = b.pd = pd, a.pd_len = b.pd_len = 5;
            ssize_t n = dw_mpa_nego_request(&a, req, sizeof req);
            CHECK_EQ_U(n, 25 + (ra_ == 2 ? 4 : 0));
            CHECK_EQ_U(dw_mpa_nego_respond(&b, req, (size_t)n, rep, sizeof rep, &rl, &rb), n);
            int both = ra_ == 2 && rb_ == 2, lo = ra_ < rb_ ? ra_ : rb_;
            CHECK_EQ_U(rep[17], lo); /* the lower revision */
            CHECK_EQ_U(!!(rep[16] & DW_MPA_FLAG_ENHANCED), both);
            CHECK_EQ_U(rl, 25u + (both ? 4 : 0));
            CHECK(rb.accepted && rb.enhanced == both && rb.rev == lo);
            CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, rl, &ra), rl);
            CHECK(ra.accepted && ra.enhanced == both && ra.rev == lo && ra.crc && rb.crc);
            /* the ULP's private data, past the words */
            CHECK(ra.pd_len == 5 && memcmp(ra.pd, "hello", 5) == 0);
            CHECK(rb.pd_len == 5 && memcmp(rb.pd, "hello", 5) == 0);
        }
    /* revisions 0 and 3: rejected by the responder, refused in a reply */
    rev2(&b, 0);
    for (int v = 0; v <= 3; v += 3) {
        size_t n = frame(req, "MPA ID Req Frame", 0x40, (uint8_t)v, NULL, 0);
        CHECK_EQ_U(dw_mpa_nego_respond(&b, req, n, rep, sizeof rep, &rl, &rb), n);
        CHECK(!rb.accepted && rb.reason == DW_MPA_NEGO_REVISION && (rep[16] & DW_MPA_FLAG_REJECT));
        n = frame(rep, "MPA ID Rep Frame", 0x40, (uint8_t)v, NULL, 0);
        CHECK_EQ_U(dw_mpa_nego_on_reply(&b, rep, n, &ra), n);
        CHECK(!ra.accepted && ra.reason == DW_MPA_NEGO_REVISION);
    }
    /* S without the words */
    static const uint8_t two[2] = {0, 1};
    size_t n = frame(req, "MPA ID Req Frame", 0x10, 2, two, 2);
    CHECK_EQ_U(dw_mpa_nego_respond(&b, req, n, rep, sizeof rep, &rl, &rb), n);
    CHECK(!rb.accepted && rb.reason == DW_MPA_NEGO_ENHANCED);
    n = frame(rep, "MPA ID Rep Frame", 0x10, 2, two, 2);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&b, rep, n, &ra), n);
    CHECK(!ra.accepted && ra.reason == DW_MPA_NEGO_ENHANCED && ra.term_code == 4);
    /* private data over 508 octets leaves no room for the words */
    static uint8_t big[509];
    b.pd = big, b.pd_len = 509;
    CHECK_EQ_U(dw_mpa_nego_request(&b, req, sizeof req), DW_ERR_TOO_LONG);
    b.pd_len = 508;
    CHECK_EQ_U(dw_mpa_nego_request(&b, req, sizeof req), 532);
}

static void test_ird_ord(void)
{
    dw_mpa_nego_settings a, b;
    dw_mpa_nego_result ra, rb;
    uint8_t req[64], rep[64];
    size_t rl;
    rev2(&a, 0), rev2(&b, 0);
    a.ird = 2, a.ord = 8;
    b.ird = 4, b.ord = 1;
    ssize_t n = dw_mpa_nego_request(&a, req, sizeof req);
    CHECK(memcmp(req + 20, "\x00\x02\x00\x08", 4) == 0);
    CHECK_EQ_U(dw_mpa_nego_respond(&b, req, (size_t)n, rep, sizeof rep, &rl, &rb), n);
    /* responder: IRD min(4, 8), ORD min(1, 2) */
    CHECK(rb.accepted && rb.ird == 4 && rb.ord == 1);
    CHECK(memcmp(rep + 20, "\x00\x04\x00\x01", 4) == 0);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, rl, &ra), rl);
    CHECK(ra.accepted && ra.ird == 2 && ra.ord == 4); /* ORD lowered to its IRD */
    /* a reply whose ORD exceeds our IRD: insufficient IRD */
    static const uint8_t w[4] = {0, 4, 0, 3};
    size_t k = frame(rep, "MPA ID Rep Frame", 0x00, 2 | 0, w, 4);
    rep[16] = DW_MPA_FLAG_ENHANCED;
    CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, k, &ra), k);
    CHECK(!ra.accepted && ra.reason == DW_MPA_NEGO_IRD && ra.term_code == 6);
}

static void test_p2p(void)
{
    dw_mpa_nego_settings a, b;
    dw_mpa_nego_result ra, rb;
    uint8_t req[64], rep[64];
    size_t rl;
    /* every offer against every allowance */
    for (unsigned off = 0; off < 8; off++)
        for (unsigned al = 0; al < 8; al++)
            for (int bp = 0; bp < 2; bp++) {
                rev2(&a, 0), rev2(&b, 0);
                a.p2p = 1, a.rtr = off;
                b.p2p = bp, b.rtr = al;
                ssize_t n = dw_mpa_nego_request(&a, req, sizeof req);
                CHECK_EQ_U(dw_mpa_nego_respond(&b, req, (size_t)n, rep, sizeof rep, &rl, &rb), n);
                unsigned both = off & al;
                unsigned pick = !bp ? 0 : both & 2 ? 2 : both & 4 ? 4 : both & 1 ? 1 : 0;
                int ok = !bp || pick;
                CHECK_EQ_U(rb.accepted, ok);
                CHECK_EQ_U(rb.rtr, pick);
                CHECK_EQ_U(!!(rep[16] & DW_MPA_FLAG_REJECT), !ok);
                if (!ok) {
                    CHECK(rb.reason == DW_MPA_NEGO_NO_RTR);
                    continue;
                }
                CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, rl, &ra), rl);
                CHECK(ra.accepted && ra.p2p == bp && ra.rtr == pick);
            }
    /* a reply picking a kind not offered, or two kinds: no matching RTR */
    rev2(&a, 0);
    a.p2p = 1, a.rtr = DW_MPA_RTR_WRITE;
    static const uint8_t rd[4] = {0x80, 1, 0x40, 1}, two[4] = {0x80, 1, 0xc0, 1};
    for (int i = 0; i < 2; i++) {
        size_t k = frame(rep, "MPA ID Rep Frame", 0x10, 2, i ? two : rd, 4);
        CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, k, &ra), k);
        CHECK(!ra.accepted && ra.reason == DW_MPA_NEGO_NO_RTR && ra.term_code == 7);
    }
    /* siw's answer to a peer-to-peer request (zero-length Write preferred) */
    a.rtr = DW_MPA_RTR_WRITE | DW_MPA_RTR_READ;
    static const uint8_t sw[4] = {0x80, 1, 0x80, 1};
    size_t k = frame(rep, "MPA ID Rep Frame", 0x10, 2, sw, 4);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, k, &ra), k);
    CHECK(ra.accepted && ra.p2p && ra.rtr == DW_MPA_RTR_WRITE);
}

/* ---- over sockets ---- */

typedef struct srv {
    int lfd, n, allow_markers, silent;
    int rc[2];
} srv;

static int on_pdu(dw_fr_rx *rx, const uint8_t *h, size_t hl, const uint8_t *d, size_t l,
                  uint64_t off, void *u)
{
    (void)rx, (void)h, (void)hl, (void)d, (void)l, (void)off, (void)u;
    return 0;
}

static void *serve(void *p)
{
    srv *s = p;
    for (int i = 0; i < s->n; i++) {
        if (s->silent) { /* accept, then say nothing */
            int fd = accept(s->lfd, NULL, NULL);
            usleep(600 * 1000);
            close(fd);
            continue;
        }
        dw_sock_settings o;
        dw_sock_settings_default(&o);
        o.startup = DW_SOCK_NEGOTIATE;
        o.markers = 0;
        o.allow_markers = s->allow_markers;
        o.rev = 2;
        o.timeout_ms = 3000;
        o.cb.on_pdu = on_pdu;
        dw_sock *c;
        char err[200];
        s->rc[i] = dw_sock_accept(&c, s->lfd, &o, err, sizeof err);
        if (!s->rc[i]) {
            while (dw_sock_recv(c) > 0)
                ;
            dw_sock_close(c);
        }
    }
    return NULL;
}

static int listen_any(char *port)
{
    return listen_any_on("127.0.0.1", port);
}

static int client(int n_srv, int silent, int retry, char *err, size_t errlen, dw_sock_info *info)
{
    char port[16];
    srv s = {listen_any(port), n_srv, 0, silent, {0, 0}};
    pthread_t t;
    pthread_create(&t, NULL, serve, &s);
    dw_sock_settings o;
    dw_sock_settings_default(&o);
    o.startup = DW_SOCK_NEGOTIATE;
    o.markers = 1;
    o.rev = 2;
    o.retry_no_markers = retry;
    o.timeout_ms = silent ? 200 : 3000;
    o.cb.on_pdu = on_pdu;
    dw_sock *c = NULL;
    int rc = dw_sock_connect(&c, "127.0.0.1", port, &o, err, errlen);
    if (!rc) {
        dw_sock_info_get(c, info);
        dw_sock_close(c);
    }
    pthread_join(t, NULL);
    close(s.lfd);
    return rc;
}

static void test_sock_reject_retry_timeout(void)
{
    char err[200] = "";
    dw_sock_info info;
    /* our responder rejects markers as siw does: reported with the reason */
    CHECK_EQ_U(client(1, 0, 0, err, sizeof err, &info), DW_ERR_REJECTED);
    CHECK(strstr(err, "rejected") != NULL);
    /* and again without markers when allowed */
    memset(&info, 0, sizeof info);
    CHECK_EQ_U(client(2, 0, 1, err, sizeof err, &info), 0);
    CHECK(info.retried && !info.rx_markers && !info.tx_markers && info.rev == 2 && info.enhanced);
    CHECK(info.ird == 1 && info.ord == 1 && info.crc);
    /* a peer that never replies: the start-up times out */
    CHECK_EQ_U(client(1, 1, 0, err, sizeof err, &info), DW_ERR_TIMEOUT);
    CHECK(strstr(err, "timed out") != NULL);
}

int main(void)
{
    RUN(test_enh_words);
    RUN(test_siw_bytes);
    RUN(test_revisions);
    RUN(test_ird_ord);
    RUN(test_p2p);
    RUN(test_sock_reject_retry_timeout);
    return dw_test_finish();
}
