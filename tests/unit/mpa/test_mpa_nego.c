/* SPDX-License-Identifier: MIT */
/*
 * RFC 5044 start-up negotiation: both roles against each other for every
 * combination of wishes, against the replies Linux siw really sent, and
 * enablement errors (a peer that is not an MPA peer of the other role).
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>

#include "test.h"

static void test_pairs(void)
{
    for (unsigned m = 0; m < 64; m++) {
        dw_mpa_nego_settings a, b;
        dw_mpa_nego_settings_default(&a);
        dw_mpa_nego_settings_default(&b);
        a.want_markers = m & 1, a.want_crc = m >> 1 & 1, a.allow_markers = m >> 2 & 1;
        b.want_markers = m >> 3 & 1, b.want_crc = m >> 4 & 1, b.allow_markers = m >> 5 & 1;
        static const uint8_t pd[5] = "hello";
        a.pd = pd, a.pd_len = 5;
        uint8_t req[600], rep[600];
        ssize_t rl = dw_mpa_nego_request(&a, req, sizeof req);
        CHECK_EQ_U(rl, 25);
        dw_mpa_nego_result rb, ra;
        size_t repl = 0;
        CHECK_EQ_U(dw_mpa_nego_respond(&b, req, (size_t)rl, rep, sizeof rep, &repl, &rb), rl);
        CHECK(rb.peer.pd_len == 5 && memcmp(rb.peer.pd, "hello", 5) == 0);
        CHECK_EQ_U(dw_mpa_nego_on_reply(&a, rep, repl, &ra), repl);
        /* the responder refuses only to send markers it does not allow */
        int ok = !(a.want_markers && !b.allow_markers);
        CHECK_EQ_U(rb.accepted, ok);
        CHECK_EQ_U(ra.accepted, ok && !(b.want_markers && !a.allow_markers));
        CHECK_EQ_U(!!(rep[16] & DW_MPA_FLAG_REJECT), !ok);
        if (!ok)
            continue;
        /* both sides agree on each direction */
        CHECK_EQ_U(ra.tx_markers, rb.rx_markers);
        CHECK_EQ_U(ra.rx_markers, rb.tx_markers);
        CHECK_EQ_U(ra.tx_markers, b.want_markers);
        CHECK_EQ_U(ra.rx_markers, a.want_markers);
        CHECK_EQ_U(ra.crc, rb.crc);
        CHECK_EQ_U(ra.crc, a.want_crc || b.want_crc);
    }
}

static size_t frame(uint8_t *w, const char *key, uint8_t flags, uint8_t rev,
                    const uint8_t *pd, uint16_t n)
{
    memcpy(w, key, 16);
    w[16] = flags, w[17] = rev, w[18] = (uint8_t)(n >> 8), w[19] = (uint8_t)n;
    if (n)
        memcpy(w + 20, pd, n);
    return 20u + n;
}

/* The replies siw 6.1 sent (../shared/siw-peer/captures). */
static void test_siw_replies(void)
{
    static const uint8_t ird_ord[4] = {0, 1, 0, 1}, zero[4] = {0};
    uint8_t w[64];
    dw_mpa_nego_settings s;
    dw_mpa_nego_result r;
    dw_mpa_nego_settings_default(&s);
    s.want_markers = 0;
    size_t n = frame(w, "MPA ID Rep Frame", 0x50, 2, ird_ord, 4); /* CRC on */
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, w, n, &r), n);
    CHECK(r.accepted && r.crc && !r.tx_markers && !r.rx_markers);
    n = frame(w, "MPA ID Rep Frame", 0x40, 1, NULL, 0);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, w, n, &r), n);
    CHECK(r.accepted && r.crc && r.peer.rev == 1);
    /* siw rejects markers: R set, M cleared */
    s.want_markers = 1;
    n = frame(w, "MPA ID Rep Frame", 0x30, 2, zero, 4);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, w, n, &r), n);
    CHECK(!r.accepted);
    /* our responder rejects a request for markers the way siw does */
    dw_mpa_nego_settings_default(&s);
    s.allow_markers = 0;
    s.want_markers = 0;
    n = frame(w, "MPA ID Req Frame", 0x90, 2, ird_ord, 4);
    uint8_t rep[64];
    size_t rl;
    CHECK_EQ_U(dw_mpa_nego_respond(&s, w, n, rep, sizeof rep, &rl, &r), n);
    CHECK(!r.accepted && (rep[16] & DW_MPA_FLAG_REJECT) && !(rep[16] & DW_MPA_FLAG_MARKERS));
    /* revision 3: rejected */
    dw_mpa_nego_settings_default(&s);
    n = frame(w, "MPA ID Req Frame", 0x00, 3, NULL, 0);
    CHECK_EQ_U(dw_mpa_nego_respond(&s, w, n, rep, sizeof rep, &rl, &r), n);
    CHECK(!r.accepted && (rep[16] & DW_MPA_FLAG_REJECT));
}

/* Enablement errors: refused at the first octet that gives them away. */
static void test_enablement_errors(void)
{
    dw_mpa_nego_settings s;
    dw_mpa_nego_result r;
    uint8_t rep[64], w[64];
    size_t rl;
    dw_mpa_nego_settings_default(&s);
    /* a plain TCP client talking to our responder */
    CHECK_EQ_U(dw_mpa_nego_respond(&s, (const uint8_t *)"GET / HTTP/1.1\r\n", 16, rep,
                                   sizeof rep, &rl, &r), DW_ERR_MALFORMED);
    /* an immediate-mode MPA peer: its first octets are a zero marker */
    static const uint8_t fpdu[8] = {0};
    CHECK_EQ_U(dw_mpa_nego_respond(&s, fpdu, 1, rep, sizeof rep, &rl, &r), DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, fpdu, 1, &r), DW_ERR_MALFORMED);
    /* two initiators: a request where a reply belongs, and back */
    size_t n = frame(w, "MPA ID Req Frame", 0xc0, 1, NULL, 0);
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, w, n, &r), DW_ERR_MALFORMED);
    n = frame(w, "MPA ID Rep Frame", 0xc0, 1, NULL, 0);
    CHECK_EQ_U(dw_mpa_nego_respond(&s, w, n, rep, sizeof rep, &rl, &r), DW_ERR_MALFORMED);
    /* partial frames wait */
    CHECK_EQ_U(dw_mpa_nego_on_reply(&s, w, 19, &r), DW_ERR_NEED_MORE);
    CHECK_EQ_U(dw_mpa_nego_respond(&s, w, 0, rep, sizeof rep, &rl, &r), DW_ERR_NEED_MORE);
    /* reply buffer too small */
    n = frame(w, "MPA ID Req Frame", 0xc0, 1, NULL, 0);
    CHECK_EQ_U(dw_mpa_nego_respond(&s, w, n, rep, 10, &rl, &r), DW_ERR_NOSPACE);
}

int main(void)
{
    RUN(test_pairs);
    RUN(test_siw_replies);
    RUN(test_enablement_errors);
    return dw_test_finish();
}
