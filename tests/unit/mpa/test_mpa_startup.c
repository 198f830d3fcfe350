/* SPDX-License-Identifier: MIT */
/*
 * RFC 5044 start-up frames: every frame Linux soft-iWARP (siw 6.1) sent or
 * received in ../shared/siw-peer/captures, decoded and re-encoded byte for
 * byte; refusals of non-MPA peers at their first differing octet.
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>

#include "test.h"

typedef struct vec {
    const char *key;
    uint8_t flags, rev;
    const char *pd_hex;
} vec;

/* flags, rev and private data exactly as in the siw captures */
static const vec siw[] = {
    {"MPA ID Req Frame", 0x10, 2, "00010001"}, /* rev 2, enhanced, IRD 1 ORD 1 */
    {"MPA ID Rep Frame", 0x10, 2, "00010001"},
    {"MPA ID Req Frame", 0x00, 1, ""},
    {"MPA ID Rep Frame", 0x00, 1, ""},
    {"MPA ID Req Frame", 0x40, 1, "68656c6c6f"}, /* CRC, "hello" */
    {"MPA ID Rep Frame", 0x40, 1, ""},
    {"MPA ID Req Frame", 0x90, 2, "00010001"}, /* markers wanted */
    {"MPA ID Rep Frame", 0x30, 2, "00000000"}, /* siw rejects: R set, M clear */
    {"MPA ID Req Frame", 0xd0, 2, "00010001"},
    {"MPA ID Rep Frame", 0x70, 2, "00000000"},
    {"MPA ID Req Frame", 0x10, 2, "80018001"},
    {"MPA ID Req Frame", 0x10, 2, "00c8012c"},
    {"MPA ID Rep Frame", 0x10, 2, "00800080"},
    {"MPA ID Req Frame", 0x50, 2, "00010001"},
    {"MPA ID Req Frame", 0x00, 3, ""}, /* rev 3: siw closes without reply */
};

static size_t unhex(uint8_t *o, const char *h)
{
    size_t n = 0;
    for (; h[0] && h[1]; h += 2) {
        unsigned v;
        sscanf(h, "%2x", &v);
        o[n++] = (uint8_t)v;
    }
    return n;
}

static void test_siw_frames(void)
{
    for (size_t i = 0; i < sizeof siw / sizeof siw[0]; i++) {
        DW_CASE_HERE("siw[%zu]", i);
        uint8_t wire[600], pd[600], out[600];
        size_t pdl = unhex(pd, siw[i].pd_hex);
        memcpy(wire, siw[i].key, 16);
        wire[16] = siw[i].flags;
        wire[17] = siw[i].rev;
        wire[18] = (uint8_t)(pdl >> 8);
        wire[19] = (uint8_t)pdl;
        memcpy(wire + 20, pd, pdl);
        dw_mpa_startup f;
        CHECK_EQ_U(dw_mpa_startup_decode(&f, wire, 20 + pdl), 20 + pdl);
        CHECK_EQ_U(f.kind, siw[i].key[9] == 'q' ? DW_MPA_STARTUP_REQUEST : DW_MPA_STARTUP_REPLY);
        CHECK_EQ_U(f.flags, siw[i].flags);
        CHECK_EQ_U(f.rev, siw[i].rev);
        CHECK_EQ_U(f.pd_len, pdl);
        CHECK(f.pd == wire + 20 && memcmp(f.pd, pd, pdl) == 0);
        CHECK_EQ_U(dw_mpa_startup_encode(out, sizeof out, &f), 20 + pdl);
        CHECK(memcmp(out, wire, 20 + pdl) == 0);
        /* every shorter prefix is "need more", never malformed */
        for (size_t k = 0; k < 20 + pdl; k++)
            CHECK_EQ_U(dw_mpa_startup_decode(&f, wire, k), DW_ERR_NEED_MORE);
    }
    /* the reject reply: R set, M cleared (siw has no markers) */
    CHECK((0x30 & DW_MPA_FLAG_REJECT) && !(0x30 & DW_MPA_FLAG_MARKERS));
}

/* A peer that is not MPA is refused at its first octet that no key has. */
static void test_not_mpa(void)
{
    static const char *const other[] = {"GET / HTTP/1.1\r\n", "\x16\x03\x01\x02\x00",
                                        "MPA ID Rex Frame", "MPA", "mpa ID Req Frame"};
    static const size_t fail_at[] = {1, 1, 10, 0, 1}; /* octets read when refused */
    dw_mpa_startup f;
    for (size_t i = 0; i < 5; i++) {
        const uint8_t *p = (const uint8_t *)other[i];
        size_t n = strlen(other[i]);
        for (size_t k = 1; k <= n; k++)
            CHECK_EQ_U(dw_mpa_startup_decode(&f, p, k),
                       fail_at[i] && k >= fail_at[i] ? DW_ERR_MALFORMED : DW_ERR_NEED_MORE);
    }
    /* private data over 512 is malformed */
    uint8_t w[20];
    memcpy(w, "MPA ID Rep Frame\x40\x01\x02\x01", 20);
    CHECK_EQ_U(dw_mpa_startup_decode(&f, w, 20), DW_ERR_MALFORMED);
    w[18] = 2, w[19] = 0; /* exactly 512: needs the data */
    CHECK_EQ_U(dw_mpa_startup_decode(&f, w, 20), DW_ERR_NEED_MORE);
}

static void test_encode_limits(void)
{
    static uint8_t pd[513], out[600];
    dw_mpa_startup f = {DW_MPA_STARTUP_REQUEST, DW_MPA_FLAG_CRC, 1, pd, 513};
    CHECK_EQ_U(dw_mpa_startup_encode(out, sizeof out, &f), DW_ERR_TOO_LONG);
    f.pd_len = 512;
    CHECK_EQ_U(dw_mpa_startup_encode(out, 531, &f), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_mpa_startup_encode(out, 532, &f), 532);
    f.pd = NULL;
    CHECK_EQ_U(dw_mpa_startup_encode(out, sizeof out, &f), DW_ERR_INVAL);
    f.pd_len = 0;
    CHECK_EQ_U(dw_mpa_startup_encode(out, sizeof out, &f), 20);
    CHECK(memcmp(out, "MPA ID Req Frame\x40\x01\x00\x00", 20) == 0);
    CHECK_EQ_U(dw_mpa_startup_decode(NULL, out, 20), DW_ERR_INVAL);
}

int main(void)
{
    RUN(test_siw_frames);
    RUN(test_not_mpa);
    RUN(test_encode_limits);
    return dw_test_finish();
}
