/* SPDX-License-Identifier: MIT */
/*
 * IPoIB advanced capabilities: codecs byte for byte (the draft's service ID
 * examples, flags, private data, the RFC 4755 / Linux forms, ARP over
 * InfiniBand, pcap type 242) and every negotiation rule, each test named
 * after its section. Vectors are written out by hand from the figures, not
 * produced by the code under test. Hostile input ends the file, then a
 * node whose posts are refused (DW_ERR_NOMEM).
 */
#include <ddpwire/ipoib.h>
#include <ddpwire/ipoib_sid.h>
#include <ddpwire/ipoib_cm.h>
#include <ddpwire/ipoib_nego.h>
#include <ddpwire/ipoib_node.h>

#include "test.h"

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

static const uint8_t gid_a[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03,
                                  0x00, 0x00, 0x12, 0x34};

/* ---- 2.0: flags and the 20-octet address ---- */

static void test_s2_draft_flag_bits(void)
{
    /* figure: QPN | RC | UC | RD | 0 | 0 | 0 | 0, most significant first */
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, DW_IPOIB_CAP_QPN), 0x80);
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, DW_IPOIB_CAP_RC), 0x40);
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, DW_IPOIB_CAP_UC), 0x20);
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, DW_IPOIB_CAP_RD), 0x10);
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, DW_IPOIB_CAP_ALL), 0xF0);
    /* the default (UD-only) implementation sends no flags */
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, 0), 0x00);
    for (unsigned c = 0; c < 16; c++) /* reserved bits transmitted as zero */
        CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, c | 0xF0) & 0x0F, 0);
}

static void test_rfc4755_flag_bits(void)
{
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_RFC4755, DW_IPOIB_CAP_RC), 0x80);
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_RFC4755, DW_IPOIB_CAP_UC), 0x40);
    /* QPN and RD have no bit in RFC 4755 */
    CHECK_EQ_U(dw_ipoib_flags_encode(DW_IPOIB_PROFILE_RFC4755, DW_IPOIB_CAP_ALL), 0xC0);
    CHECK_EQ_U(dw_ipoib_profile_caps(DW_IPOIB_PROFILE_RFC4755),
               DW_IPOIB_CAP_RC | DW_IPOIB_CAP_UC);
    CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_RFC4755, 0xFF, DW_IPOIB_CAP_ALL),
               DW_IPOIB_CAP_RC | DW_IPOIB_CAP_UC);
    /* the profiles' bits collide: draft QPN is RFC RC, draft RC is RFC UC */
    CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_RFC4755, 0x80, DW_IPOIB_CAP_ALL),
               DW_IPOIB_CAP_RC);
    CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_DRAFT, 0x40, DW_IPOIB_CAP_ALL),
               DW_IPOIB_CAP_RC);
}

static void test_s2_ignore_on_receive(void)
{
    /* reserved bits are ignored */
    CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_DRAFT, 0x0F, DW_IPOIB_CAP_ALL), 0);
    CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_DRAFT, 0x4F, DW_IPOIB_CAP_ALL),
               DW_IPOIB_CAP_RC);
    /* a stack ignores flags of capabilities it does not support */
    CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_DRAFT, 0xF0, DW_IPOIB_CAP_UC),
               DW_IPOIB_CAP_UC);
    /* the UD-only default ignores every flag */
    for (unsigned f = 0; f < 256; f++)
        CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_DRAFT, (uint8_t)f, 0), 0);
    /* each flag decodes to exactly its capability */
    for (unsigned c = 0; c < 16; c++)
        CHECK_EQ_U(dw_ipoib_flags_decode(DW_IPOIB_PROFILE_DRAFT,
                                         dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, c),
                                         DW_IPOIB_CAP_ALL),
                   c);
}

static void test_s2_address_codec(void)
{
    uint8_t want[20], out[20];
    unhex(want, "c0000048fe800000000000000002c90300001234"); /* flags QPN|RC, QPN 0x48 */
    dw_ipoib_addr a = {0xc0, 0x48, {0}}, b;
    memcpy(a.gid, gid_a, 16);
    CHECK_EQ_U(dw_ipoib_addr_encode(out, sizeof out, &a), 20);
    CHECK(memcmp(out, want, 20) == 0);
    CHECK_EQ_U(dw_ipoib_addr_decode(&b, want, 20), 20);
    CHECK(b.flags == 0xc0 && b.qpn == 0x48 && memcmp(b.gid, gid_a, 16) == 0);
    for (size_t k = 0; k < 20; k++)
        CHECK_EQ_U(dw_ipoib_addr_decode(&b, want, k), (ssize_t)DW_ERR_NEED_MORE);
    CHECK_EQ_U(dw_ipoib_addr_encode(out, 19, &a), (ssize_t)DW_ERR_NOSPACE);
    a.qpn = 0x1000000;
    CHECK_EQ_U(dw_ipoib_addr_encode(out, 20, &a), (ssize_t)DW_ERR_INVAL);
    char text[64];
    a.qpn = 0x48;
    CHECK_EQ_U(dw_ipoib_addr_format(text, sizeof text, &a), 59);
    CHECK(strcmp(text, "c0:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:12:34") == 0);
    CHECK_EQ_U(dw_ipoib_addr_format(text, 59, &a), (ssize_t)DW_ERR_NOSPACE);
}

static void test_rfc4391_multicast_gid(void)
{
    uint8_t g[16], want[16];
    unhex(want, "ff12401bffff000000000000ffffffff");
    dw_ipoib_mgid_ipv4(g, 0xFFFFFFFFu, 0xffff);
    CHECK(memcmp(g, want, 16) == 0);
    unhex(want, "ff12401b800100000000000000000001"); /* 224.0.0.1, pkey 0x8001 */
    dw_ipoib_mgid_ipv4(g, 0xE0000001u, 0x8001);
    CHECK(memcmp(g, want, 16) == 0);
    unhex(want, "ff12401bffff0000000000000f123456"); /* 239.18.52.86: low 28 bits */
    dw_ipoib_mgid_ipv4(g, 0xEF123456u, 0xffff);
    CHECK(memcmp(g, want, 16) == 0);
    CHECK(dw_ipoib_gid_is_mcast(g) && !dw_ipoib_gid_is_mcast(gid_a));
}

/* ---- 4.0: service IDs ---- */

static void test_s42_service_id_examples(void)
{
    char t[DW_IPOIB_SID_TEXT_MAX];
    uint8_t want[8], out[8];
    /* 4.2 example 1: TCP port 40 */
    uint64_t tcp40 = dw_ipoib_sid_make(DW_IPOIB_PROTO_TCP, 40);
    CHECK_EQ_U(tcp40, 0x0100000600000028ull);
    CHECK_EQ_U(dw_ipoib_sid_format(t, sizeof t, tcp40), 16);
    CHECK(strcmp(t, "1:0:0:6:0:0:0:28") == 0);
    unhex(want, "0100000600000028");
    dw_ipoib_sid s = {6, 40, 0}, d;
    CHECK_EQ_U(dw_ipoib_sid_encode(out, sizeof out, &s), 8);
    CHECK(memcmp(out, want, 8) == 0);
    CHECK_EQ_U(dw_ipoib_sid_decode(&d, want, 8), 8);
    CHECK(d.protocol == 6 && d.subfield == 40 && !d.reserved_set);
    /* 4.2 example 2: all UDP communication */
    uint64_t udp = dw_ipoib_sid_make(DW_IPOIB_PROTO_UDP, 0);
    dw_ipoib_sid_format(t, sizeof t, udp);
    CHECK(strcmp(t, "1:0:0:11:0:0:0:0") == 0);
    uint64_t v;
    CHECK_EQ_U(dw_ipoib_sid_parse(&v, "1:0:0:6:0:0:0:28"), 0);
    CHECK_EQ_U(v, tcp40);
    CHECK_EQ_U(dw_ipoib_sid_parse(&v, "1:0:0:11:0:0:0:0"), 0);
    CHECK_EQ_U(v, udp);
    CHECK_EQ_U(dw_ipoib_sid_parse(&v, "01:00:00:84:00:00:ff:FF"), 0); /* SCTP 65535 */
    CHECK_EQ_U(v, 0x010000840000ffffull);
    CHECK_EQ_U(dw_ipoib_sid_format(t, 16, tcp40), (ssize_t)DW_ERR_NOSPACE);
}

static void test_s41_rule2_ports(void)
{
    /* rule 2: TCP, SCTP, UDP carry the port; others leave the subfield 0 */
    CHECK_EQ_U(dw_ipoib_sid_for(6, 80), 0x0100000600000050ull);
    CHECK_EQ_U(dw_ipoib_sid_for(17, 53), 0x0100001100000035ull);
    CHECK_EQ_U(dw_ipoib_sid_for(132, 9899), 0x01000084000026abull);
    CHECK_EQ_U(dw_ipoib_sid_for(1, 1234), 0x0100000100000000ull);
    CHECK_EQ_U(dw_ipoib_sid_for(47, 80), 0x0100002f00000000ull);
}

static void test_s41_rule1_wildcard(void)
{
    uint64_t udp_all = dw_ipoib_sid_make(17, 0), udp53 = dw_ipoib_sid_make(17, 53);
    CHECK(dw_ipoib_sid_match(udp_all, udp53));            /* zero: all */
    CHECK(dw_ipoib_sid_match(udp53, udp53));
    CHECK(!dw_ipoib_sid_match(udp53, dw_ipoib_sid_make(17, 54)));
    CHECK(!dw_ipoib_sid_match(udp53, udp_all));           /* a port does not serve all */
    CHECK(!dw_ipoib_sid_match(dw_ipoib_sid_make(6, 0), udp53)); /* other protocol */
    CHECK(dw_ipoib_sid_match(udp_all, udp53 | 0x00FF000000000000ull)); /* reserved ignored */
    CHECK(!dw_ipoib_sid_match(0x1000001100000000ull, udp53)); /* not the IETF block */
}

static void test_s4_reserved_fields(void)
{
    dw_ipoib_sid d;
    uint8_t in[8], out[8];
    /* received non-zero reserved octets are ignored (and reported) */
    unhex(in, "01aabb06ccdd0028");
    CHECK_EQ_U(dw_ipoib_sid_decode(&d, in, 8), 8);
    CHECK(d.protocol == 6 && d.subfield == 40 && d.reserved_set);
    /* ...and transmitted as zeros */
    CHECK_EQ_U(dw_ipoib_sid_encode(out, 8, &d), 8);
    unhex(in, "0100000600000028");
    CHECK(memcmp(out, in, 8) == 0);
    /* the first octet must be the IETF block, refused at once */
    unhex(in, "0200000600000028");
    CHECK_EQ_U(dw_ipoib_sid_decode(&d, in, 1), (ssize_t)DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_ipoib_sid_decode(&d, in, 8), (ssize_t)DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_ipoib_sid_split(&d, 0x1000000000000048ull), (ssize_t)DW_ERR_MALFORMED);
    unhex(in, "0100000600000028");
    for (size_t k = 0; k < 8; k++)
        CHECK_EQ_U(dw_ipoib_sid_decode(&d, in, k), (ssize_t)DW_ERR_NEED_MORE);
}

static void test_s42_text_form_refusals(void)
{
    static const char *const bad[] = {
        "", "1", "1:0:0:6:0:0:0", "1:0:0:6:0:0:0:28:0", "1:0:0:6:0:0:0:028", "1::0:6:0:0:0:28",
        "1:0:0:6:0:0:0:2g", " 1:0:0:6:0:0:0:28", "1:0:0:6:0:0:0:28 ", "1:0:0:6:0:0:0:",
        ":1:0:0:6:0:0:0",
        "1.0.0.6.0.0.0.28", "0x0100000600000028", "1:0:0:-6:0:0:0:28"};
    uint64_t v = 7;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        DW_CASE_HERE("bad[%zu]", i);
        CHECK_EQ_U(dw_ipoib_sid_parse(&v, bad[i]), (ssize_t)DW_ERR_MALFORMED);
        CHECK_EQ_U(v, 7); /* untouched on error */
    }
    /* every 64-bit value prints and parses back */
    uint64_t seed = dw_test_seed();
    char t[DW_IPOIB_SID_TEXT_MAX];
    for (int i = 0; i < 2000; i++) {
        uint64_t x = dw_rand(&seed) >> (dw_rand(&seed) % 64);
        CHECK(dw_ipoib_sid_format(t, sizeof t, x) > 0);
        CHECK(dw_ipoib_sid_parse(&v, t) == 0 && v == x);
    }
    CHECK_EQ_U(dw_ipoib_sid_format(t, sizeof t, ~0ull), 23);
    CHECK(strcmp(t, "ff:ff:ff:ff:ff:ff:ff:ff") == 0);
}

static void test_rfc4755_service_id(void)
{
    dw_ipoib_sid_style st;
    uint32_t q;
    CHECK_EQ_U(dw_ipoib_sid_cm(DW_IPOIB_SID_RFC4755, 0x48), 0x0100000000000048ull);
    CHECK_EQ_U(dw_ipoib_sid_cm(DW_IPOIB_SID_LINUX, 0x48), 0x1000000000000048ull);
    CHECK_EQ_U(dw_ipoib_sid_cm(DW_IPOIB_SID_RFC4755, 0xabcdef), 0x0100000000abcdefull);
    CHECK_EQ_U(dw_ipoib_sid_cm_parse(0x0100000000abcdefull, &st, &q), 0);
    CHECK(st == DW_IPOIB_SID_RFC4755 && q == 0xabcdef);
    CHECK_EQ_U(dw_ipoib_sid_cm_parse(0x1000000000000048ull, &st, &q), 0);
    CHECK(st == DW_IPOIB_SID_LINUX && q == 0x48);
    /* a draft service ID is neither form */
    CHECK_EQ_U(dw_ipoib_sid_cm_parse(0x0100000600000028ull, &st, &q), (ssize_t)DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_ipoib_sid_cm_parse(0x0100000001000048ull, &st, &q), (ssize_t)DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_ipoib_sid_cm_parse(0x1100000000000048ull, &st, &q), (ssize_t)DW_ERR_MALFORMED);
    char t[DW_IPOIB_SID_TEXT_MAX];
    dw_ipoib_sid_format(t, sizeof t, dw_ipoib_sid_cm(DW_IPOIB_SID_RFC4755, 0x48));
    CHECK(strcmp(t, "1:0:0:0:0:0:0:48") == 0);
}

/* ---- 3.1, 3.2: private data; RFC 4755's ---- */

static void test_s31_sidr_private_data(void)
{
    uint8_t in[216] = {0}, out[8];
    dw_ipoib_pd pd;
    /* QPN received 0x000048, pad, QPN sent 0x00abcd, pad; IB pads to 216 */
    unhex(in, "0000480000abcd00");
    CHECK_EQ_U(dw_ipoib_sidr_pd_decode(&pd, in, sizeof in), 8);
    CHECK(pd.qpn_rcvd == 0x48 && pd.qpn_sent == 0xabcd && pd.mtu == 0);
    CHECK_EQ_U(dw_ipoib_sidr_pd_encode(out, sizeof out, &pd), 8);
    CHECK(memcmp(out, in, 8) == 0);
    for (size_t k = 0; k < 8; k++)
        CHECK_EQ_U(dw_ipoib_sidr_pd_decode(&pd, in, k), (ssize_t)DW_ERR_NEED_MORE);
    /* the pad bytes must be set to 0 */
    for (int at = 3; at < 8; at += 4) {
        in[at] = 1;
        CHECK_EQ_U(dw_ipoib_sidr_pd_decode(&pd, in, 8), (ssize_t)DW_ERR_MALFORMED);
        in[at] = 0;
    }
    /* QPNs 0, 1 (special QPs) and 0xffffff (multicast) are no IPoIB QPN */
    static const char *const badq[] = {"0000000000abcd00", "0000010000abcd00",
                                       "ffffff0000abcd00", "0000480000000000"};
    for (size_t i = 0; i < 4; i++) {
        unhex(in, badq[i]);
        CHECK_EQ_U(dw_ipoib_sidr_pd_decode(&pd, in, 8), (ssize_t)DW_ERR_MALFORMED);
    }
    pd.qpn_rcvd = 1;
    CHECK_EQ_U(dw_ipoib_sidr_pd_encode(out, 8, &pd), (ssize_t)DW_ERR_INVAL);
    pd.qpn_rcvd = 0x48;
    CHECK_EQ_U(dw_ipoib_sidr_pd_encode(out, 7, &pd), (ssize_t)DW_ERR_NOSPACE);
}

static void test_s32_cm_private_data(void)
{
    uint8_t in[92] = {0}, out[12];
    dw_ipoib_pd pd;
    unhex(in, "0000480000abcd000000fff0"); /* MTU 65520 */
    CHECK_EQ_U(dw_ipoib_cm_pd_decode(&pd, in, sizeof in), 12);
    CHECK(pd.qpn_rcvd == 0x48 && pd.qpn_sent == 0xabcd && pd.mtu == 65520);
    CHECK_EQ_U(dw_ipoib_cm_pd_encode(out, sizeof out, &pd), 12);
    CHECK(memcmp(out, in, 12) == 0);
    for (size_t k = 0; k < 12; k++)
        CHECK_EQ_U(dw_ipoib_cm_pd_decode(&pd, in, k), (ssize_t)DW_ERR_NEED_MORE);
    static const struct {
        const char *mtu;
        ssize_t want;
    } m[] = {{"00000000", DW_ERR_MALFORMED}, {"00000043", DW_ERR_MALFORMED}, {"00000044", 12},
             {"80000000", 12}, {"80000001", DW_ERR_MALFORMED}, {"ffffffff", DW_ERR_MALFORMED}};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        DW_CASE_HERE("m[%zu]", i);
        unhex(in + 8, m[i].mtu);
        CHECK_EQ_U(dw_ipoib_cm_pd_decode(&pd, in, 12), m[i].want);
    }
    pd.mtu = 67;
    CHECK_EQ_U(dw_ipoib_cm_pd_encode(out, 12, &pd), (ssize_t)DW_ERR_INVAL);
    pd.mtu = 68;
    CHECK_EQ_U(dw_ipoib_cm_pd_encode(out, 11, &pd), (ssize_t)DW_ERR_NOSPACE);
}

static void test_rfc4755_private_data(void)
{
    uint8_t in[196] = {0}, out[8];
    dw_ipoib_rfc_pd pd;
    /* Linux ipoib_cm_data: be32 UD QPN, be32 IPOIB_CM_BUF_SIZE (65520 + 4) */
    unhex(in, "000000480000fff4");
    CHECK_EQ_U(dw_ipoib_rfc_pd_decode(&pd, in, sizeof in), 8);
    CHECK(pd.qpn == 0x48 && pd.mtu == 65524);
    CHECK_EQ_U(dw_ipoib_rfc_pd_encode(out, sizeof out, &pd), 8);
    CHECK(memcmp(out, in, 8) == 0);
    in[0] = 0xab; /* the reserved high octet is ignored */
    CHECK_EQ_U(dw_ipoib_rfc_pd_decode(&pd, in, 8), 8);
    CHECK(pd.qpn == 0x48);
    unhex(in, "0000004800000047"); /* 71: below IP's 68 + the 4-octet header */
    CHECK_EQ_U(dw_ipoib_rfc_pd_decode(&pd, in, 8), (ssize_t)DW_ERR_MALFORMED);
    unhex(in, "0000004800000048");
    CHECK_EQ_U(dw_ipoib_rfc_pd_decode(&pd, in, 8), 8);
    unhex(in, "000000010000fff4");
    CHECK_EQ_U(dw_ipoib_rfc_pd_decode(&pd, in, 8), (ssize_t)DW_ERR_MALFORMED);
    for (size_t k = 0; k < 8; k++)
        CHECK_EQ_U(dw_ipoib_rfc_pd_decode(&pd, in, k), (ssize_t)DW_ERR_NEED_MORE);
}

static void test_s32_rej_reason3_mtu(void)
{
    uint8_t pd[148] = {0}, want[12];
    dw_ipoib_rej r = {DW_IPOIB_REJ_NO_RESOURCES, {0xabcd, 0x48, 16384}}, d;
    unhex(want, "00abcd0000004800" "00004000");
    CHECK_EQ_U(dw_ipoib_rej_encode(pd, sizeof pd, &r), 12);
    CHECK(memcmp(pd, want, 12) == 0);
    CHECK_EQ_U(dw_ipoib_rej_decode(&d, 3, pd, sizeof pd), 12);
    CHECK(d.reason == 3 && d.pd.mtu == 16384 && d.pd.qpn_rcvd == 0xabcd);
    /* reason 3 without an MTU: an all-zero block */
    memset(pd, 0, sizeof pd);
    CHECK_EQ_U(dw_ipoib_rej_decode(&d, 3, pd, sizeof pd), 12);
    CHECK_EQ_U(d.pd.mtu, 0);
    dw_ipoib_rej z = {3, {0, 0, 0}};
    memset(pd, 0xee, sizeof pd);
    CHECK_EQ_U(dw_ipoib_rej_encode(pd, sizeof pd, &z), 12);
    CHECK(pd[0] == 0 && pd[11] == 0 && pd[12] == 0xee);
    /* other reasons carry nothing of ours */
    CHECK_EQ_U(dw_ipoib_rej_decode(&d, 8, want, 12), 0);
    CHECK(d.reason == 8 && d.pd.mtu == 0);
    r.reason = 8;
    CHECK_EQ_U(dw_ipoib_rej_encode(pd, sizeof pd, &r), (ssize_t)DW_ERR_INVAL);
    r.pd.mtu = 0;
    CHECK_EQ_U(dw_ipoib_rej_encode(pd, sizeof pd, &r), 0);
    /* reason 3 with a malformed block */
    unhex(want, "00abcd0100004800" "00004000");
    CHECK_EQ_U(dw_ipoib_rej_decode(&d, 3, want, 12), (ssize_t)DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_ipoib_rej_decode(&d, 3, want, 11), (ssize_t)DW_ERR_NEED_MORE);
}

/* ---- frames: IPoIB header, ARP (RFC 4391 5), pcap type 242 ---- */

static const char arp_hex[] =
    "0020" "0800" "14" "04" "0001"                    /* IB, IPv4, 20, 4, request */
    "f0000048fe800000000000000002c90300001234" "0a000001"
    "0000000000000000000000000000000000000000" "0a000002";

static void test_rfc4391_arp(void)
{
    uint8_t want[56], out[56];
    CHECK_EQ_U(unhex(want, arp_hex), 56);
    dw_ipoib_arp a = {0}, d;
    a.op = DW_IPOIB_ARP_REQUEST;
    a.sha.flags = 0xf0;
    a.sha.qpn = 0x48;
    memcpy(a.sha.gid, gid_a, 16);
    a.spa = 0x0a000001;
    a.tpa = 0x0a000002;
    CHECK_EQ_U(dw_ipoib_arp_encode(out, sizeof out, &a), 56);
    CHECK(memcmp(out, want, 56) == 0);
    CHECK_EQ_U(dw_ipoib_arp_decode(&d, want, 56), 56);
    CHECK(d.op == 1 && d.sha.flags == 0xf0 && d.sha.qpn == 0x48 && d.spa == 0x0a000001 &&
          d.tpa == 0x0a000002 && d.tha.qpn == 0);
    for (size_t k = 0; k < 56; k++)
        CHECK_EQ_U(dw_ipoib_arp_decode(&d, want, k), (ssize_t)DW_ERR_NEED_MORE);
    /* refused at the first octet that is not IPv4-over-IB ARP */
    static const struct {
        size_t at;
        uint8_t v;
    } bad[] = {{1, 1}, {2, 0x86}, {4, 6}, {5, 16}, {6, 1}, {7, 3}, {7, 0}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        DW_CASE_HERE("bad[%zu]", i);
        uint8_t x[56];
        memcpy(x, want, 56);
        x[bad[i].at] = bad[i].v;
        CHECK_EQ_U(dw_ipoib_arp_decode(&d, x, bad[i].at + 1), (ssize_t)DW_ERR_MALFORMED);
        CHECK_EQ_U(dw_ipoib_arp_decode(&d, x, 56), (ssize_t)DW_ERR_MALFORMED);
    }
    a.op = 3;
    CHECK_EQ_U(dw_ipoib_arp_encode(out, 56, &a), (ssize_t)DW_ERR_INVAL);
    a.op = 2;
    CHECK_EQ_U(dw_ipoib_arp_encode(out, 55, &a), (ssize_t)DW_ERR_NOSPACE);
}

static void test_rfc4391_header(void)
{
    uint8_t in[4] = {0x08, 0x06, 0x00, 0x00}, out[4];
    dw_ipoib_hdr h;
    CHECK_EQ_U(dw_ipoib_hdr_decode(&h, in, 4), 4);
    CHECK(h.type == DW_IPOIB_TYPE_ARP && h.reserved == 0);
    CHECK_EQ_U(dw_ipoib_hdr_encode(out, 4, &h), 4);
    CHECK(memcmp(in, out, 4) == 0);
    CHECK_EQ_U(dw_ipoib_hdr_decode(&h, in, 3), (ssize_t)DW_ERR_NEED_MORE);
}

static void test_pcap_lt242(void)
{
    uint8_t out[40], want[40];
    dw_ipoib_lt242 h = {0}, d;
    h.dst.flags = 0;
    h.dst.qpn = 0x48;
    memcpy(h.dst.gid, gid_a, 16);
    unhex(want, "0000000000000000000000000000000000000000"
                "00000048fe800000000000000002c90300001234");
    CHECK_EQ_U(dw_ipoib_lt242_encode(out, sizeof out, &h), 40);
    CHECK(memcmp(out, want, 40) == 0);
    CHECK(dw_ipoib_lt242_decode(&d, out, 40) == 40 && !d.grh && d.dst.qpn == 0x48);
    h.grh = 1;
    h.sqpn = 0x011d40;
    memcpy(h.sgid, gid_a, 16);
    dw_ipoib_mgid_ipv4(h.dgid, 0xFFFFFFFFu, 0xffff);
    unhex(want, "6000000000011d40" "fe800000000000000002c90300001234"
                "ff12401bffff000000000000ffffffff");
    CHECK_EQ_U(dw_ipoib_lt242_encode(out, sizeof out, &h), 40);
    CHECK(memcmp(out, want, 40) == 0);
    CHECK(dw_ipoib_lt242_decode(&d, out, 40) == 40 && d.grh && d.sqpn == 0x011d40 &&
          !memcmp(d.dgid, h.dgid, 16));
    want[0] = 0x40; /* a GRH must say IP version 6 */
    CHECK_EQ_U(dw_ipoib_lt242_decode(&d, want, 40), (ssize_t)DW_ERR_MALFORMED);
    memset(want, 0, 40);
    want[10] = 1; /* unicast form: the first 20 octets are zero */
    CHECK_EQ_U(dw_ipoib_lt242_decode(&d, want, 40), (ssize_t)DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_ipoib_lt242_decode(&d, want, 39), (ssize_t)DW_ERR_NEED_MORE);
}

/* ---- negotiation ---- */

/* Independent reference: the preference list written out. */
static dw_ipoib_mode ref_choose(unsigned a, unsigned b)
{
    static const struct {
        unsigned cap;
        dw_ipoib_mode m;
    } pref[] = {{DW_IPOIB_CAP_RC, DW_IPOIB_MODE_RC}, {DW_IPOIB_CAP_RD, DW_IPOIB_MODE_RD},
                {DW_IPOIB_CAP_UC, DW_IPOIB_MODE_UC}, {DW_IPOIB_CAP_QPN, DW_IPOIB_MODE_QPN}};
    for (int i = 0; i < 4; i++)
        if (a & b & pref[i].cap)
            return pref[i].m;
    return DW_IPOIB_MODE_UD;
}

static void test_s2_choose_best_common(void)
{
    for (unsigned a = 0; a < 16; a++)
        for (unsigned b = 0; b < 16; b++) {
            dw_ipoib_mode m = dw_ipoib_choose(a, b);
            CHECK_EQ_U(m, ref_choose(a, b));
            CHECK(m == DW_IPOIB_MODE_UD || (a & b & dw_ipoib_mode_cap(m))); /* both have it */
            CHECK_EQ_U(m, dw_ipoib_choose(b, a));                          /* symmetric */
        }
    /* 1.0: any mix interoperates; with a UD-only peer it is UD */
    CHECK_EQ_U(dw_ipoib_choose(DW_IPOIB_CAP_ALL, 0), DW_IPOIB_MODE_UD);
    CHECK_EQ_U(dw_ipoib_choose(DW_IPOIB_CAP_ALL, DW_IPOIB_CAP_UC | DW_IPOIB_CAP_QPN),
               DW_IPOIB_MODE_UC);
    CHECK(dw_ipoib_mode_connected(DW_IPOIB_MODE_RD) && !dw_ipoib_mode_connected(DW_IPOIB_MODE_QPN));
    CHECK(strcmp(dw_ipoib_mode_name(DW_IPOIB_MODE_QPN), "QPN") == 0);
}

static void test_s32_mtu_is_the_smaller(void)
{
    CHECK_EQ_U(dw_ipoib_mtu_agree(65520, 2044), 2044);
    CHECK_EQ_U(dw_ipoib_mtu_agree(2044, 65520), 2044);
    CHECK_EQ_U(dw_ipoib_mtu_agree(9000, 9000), 9000);
    dw_ipoib_mtu_policy pol = {65520, 68, 65520};
    uint32_t out, link;
    /* the reply's MTU may be less, the same or more than the request's */
    CHECK_EQ_U(dw_ipoib_on_req_mtu(DW_IPOIB_PROFILE_DRAFT, &pol, 9000, &out, &link),
               DW_IPOIB_REQ_ACCEPT);
    CHECK(out == 65520 && link == 9000);
    CHECK_EQ_U(dw_ipoib_on_rep_mtu(&pol, 65520, 4096, &link), DW_IPOIB_REP_RTU);
    CHECK_EQ_U(link, 4096);
    CHECK_EQ_U(dw_ipoib_on_rep_mtu(&pol, 4096, 65520, &link), DW_IPOIB_REP_RTU);
    CHECK_EQ_U(link, 4096);
}

static void test_s32_reject_with_acceptable_mtu(void)
{
    dw_ipoib_mtu_policy pol = {65520, 16384, 65520};
    uint32_t out = 0, link = 1;
    CHECK_EQ_U(dw_ipoib_on_req_mtu(DW_IPOIB_PROFILE_DRAFT, &pol, 4096, &out, &link),
               DW_IPOIB_REQ_REJECT_MTU);
    CHECK(out == 16384 && link == 0);
    CHECK_EQ_U(dw_ipoib_on_req_mtu(DW_IPOIB_PROFILE_DRAFT, &pol, 16384, &out, &link),
               DW_IPOIB_REQ_ACCEPT);
    /* RFC 4755 has no MTU in REJ: it accepts, each side sends <= the other's */
    CHECK_EQ_U(dw_ipoib_on_req_mtu(DW_IPOIB_PROFILE_RFC4755, &pol, 4096, &out, &link),
               DW_IPOIB_REQ_ACCEPT);
    CHECK_EQ_U(link, 4096);
}

static void test_s32_retry_or_give_up(void)
{
    dw_ipoib_mtu_policy pol = {4096, 1024, 32768};
    dw_ipoib_rej rej = {3, {0x48, 0xabcd, 16384}};
    uint32_t m = 0;
    CHECK(dw_ipoib_on_rej(DW_IPOIB_PROFILE_DRAFT, &pol, &rej, 1, &m) && m == 16384);
    CHECK(!dw_ipoib_on_rej(DW_IPOIB_PROFILE_DRAFT, &pol, &rej, 0, &m)); /* no retries left */
    rej.pd.mtu = 65520; /* more than we can do */
    CHECK(!dw_ipoib_on_rej(DW_IPOIB_PROFILE_DRAFT, &pol, &rej, 1, &m));
    rej.pd.mtu = 512; /* less than we accept */
    CHECK(!dw_ipoib_on_rej(DW_IPOIB_PROFILE_DRAFT, &pol, &rej, 1, &m));
    rej.pd.mtu = 0; /* no MTU offered */
    CHECK(!dw_ipoib_on_rej(DW_IPOIB_PROFILE_DRAFT, &pol, &rej, 1, &m));
    rej.pd.mtu = 16384;
    rej.reason = 8; /* not an MTU rejection */
    CHECK(!dw_ipoib_on_rej(DW_IPOIB_PROFILE_DRAFT, &pol, &rej, 1, &m));
    rej.reason = 3; /* RFC 4755: no MTU in REJ */
    CHECK(!dw_ipoib_on_rej(DW_IPOIB_PROFILE_RFC4755, &pol, &rej, 1, &m));
}

static void test_s32_requester_disconnects(void)
{
    dw_ipoib_mtu_policy pol = {65520, 32768, 65520};
    uint32_t link;
    CHECK_EQ_U(dw_ipoib_on_rep_mtu(&pol, 65520, 8192, &link), DW_IPOIB_REP_DISCONNECT);
    CHECK_EQ_U(link, 8192);
    CHECK_EQ_U(dw_ipoib_on_rep_mtu(&pol, 65520, 32768, &link), DW_IPOIB_REP_RTU);
    dw_ipoib_mtu_policy badp[] = {{100, 200, 300}, {300, 100, 200}, {50, 50, 50},
                                  {100, 68, 0x80000001u}};
    for (size_t i = 0; i < 4; i++)
        CHECK_EQ_U(dw_ipoib_mtu_policy_check(&badp[i]), (ssize_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ipoib_mtu_policy_check(&pol), 0);
}

static void ipv4(uint8_t *p, uint32_t dst)
{
    memset(p, 0, 28);
    p[0] = 0x45;
    p[9] = 17;
    p[16] = (uint8_t)(dst >> 24);
    p[17] = (uint8_t)(dst >> 16);
    p[18] = (uint8_t)(dst >> 8);
    p[19] = (uint8_t)dst;
}

static void test_s33_classify(void)
{
    uint8_t p[64] = {0};
    ipv4(p, 0x0a000002);
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, p, 28), DW_IPOIB_PKT_UNICAST);
    ipv4(p, 0xE0000001);
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, p, 28), DW_IPOIB_PKT_MULTICAST);
    ipv4(p, 0xFFFFFFFF);
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, p, 28), DW_IPOIB_PKT_MULTICAST);
    ipv4(p, 0xEFFFFFFF);
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, p, 28), DW_IPOIB_PKT_MULTICAST);
    ipv4(p, 0xDFFFFFFF);
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV4, p, 28), DW_IPOIB_PKT_UNICAST);
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_ARP, p, 28), DW_IPOIB_PKT_ARP);
    memset(p, 0, sizeof p); /* IPv6: NS (135) to a solicited-node group is ND */
    p[0] = 0x60;
    p[6] = 58;
    p[24] = 0xff;
    p[40] = 135;
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV6, p, 64), DW_IPOIB_PKT_ND);
    p[40] = 128; /* echo request to a group: multicast */
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV6, p, 64), DW_IPOIB_PKT_MULTICAST);
    p[24] = 0xfe;
    CHECK_EQ_U(dw_ipoib_classify(DW_IPOIB_TYPE_IPV6, p, 64), DW_IPOIB_PKT_UNICAST);
}

static void test_s33_which_link_may_carry(void)
{
    for (int m = 0; m < DW_IPOIB_MODE_COUNT; m++) {
        int ud = m == DW_IPOIB_MODE_UD;
        /* ARP/ND MUST only be over UD; multicast cannot use advanced modes */
        CHECK_EQ_U(dw_ipoib_tx_allowed(DW_IPOIB_PKT_ARP, (dw_ipoib_mode)m), ud);
        CHECK_EQ_U(dw_ipoib_tx_allowed(DW_IPOIB_PKT_ND, (dw_ipoib_mode)m), ud);
        CHECK_EQ_U(dw_ipoib_tx_allowed(DW_IPOIB_PKT_MULTICAST, (dw_ipoib_mode)m), ud);
        /* unicast MAY be sent over any link */
        CHECK_EQ_U(dw_ipoib_tx_allowed(DW_IPOIB_PKT_UNICAST, (dw_ipoib_mode)m), 1);
        /* anything received over UD MUST be processed */
        int udlike = ud || m == DW_IPOIB_MODE_QPN;
        for (int c = 0; c < 4; c++)
            CHECK_EQ_U(dw_ipoib_rx_allowed((dw_ipoib_pkt_class)c, (dw_ipoib_mode)m),
                       udlike || c == DW_IPOIB_PKT_UNICAST);
    }
}

static void test_s33_route(void)
{
    dw_ipoib_links l = {0, {0}};
    l.mtu[DW_IPOIB_MODE_UD] = 2044;
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 2044), DW_IPOIB_MODE_UD);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 2045), (ssize_t)DW_ERR_TOO_LONG);
    l.up = 1u << DW_IPOIB_MODE_RC | 1u << DW_IPOIB_MODE_QPN;
    l.mtu[DW_IPOIB_MODE_RC] = 65520;
    l.mtu[DW_IPOIB_MODE_QPN] = 2044;
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 100), DW_IPOIB_MODE_RC);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 65520), DW_IPOIB_MODE_RC);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 65521), (ssize_t)DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_ARP, &l, 56), DW_IPOIB_MODE_UD);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_MULTICAST, &l, 100), DW_IPOIB_MODE_UD);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_MULTICAST, &l, 3000), (ssize_t)DW_ERR_TOO_LONG);
    l.up = 1u << DW_IPOIB_MODE_QPN;
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 100), DW_IPOIB_MODE_QPN);
    l.up = 1u << DW_IPOIB_MODE_UC; /* a link smaller than UD: UD carries the rest */
    l.mtu[DW_IPOIB_MODE_UC] = 1500;
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 1500), DW_IPOIB_MODE_UC);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, &l, 1501), DW_IPOIB_MODE_UD);
    CHECK_EQ_U(dw_ipoib_route(DW_IPOIB_PKT_UNICAST, NULL, 1), (ssize_t)DW_ERR_INVAL);
}

/* ---- hostile input: every decoder on random and mutated octets ---- */

static void test_hostile_decoders(void)
{
    uint64_t seed = dw_test_seed() ^ 0x1b;
    int rounds = getenv("DW_TEST_QUICK") ? 20000 : 200000;
    uint8_t in[64], out[64];
    for (int i = 0; i < rounds; i++) {
        size_t len = dw_rand(&seed) % 64;
        for (size_t k = 0; k < len; k++)
            in[k] = (uint8_t)dw_rand(&seed);
        if (i & 1) { /* half near-valid: a good CM block with one bit flipped */
            memcpy(in, "\x00\x00\x48\x00\x00\xab\xcd\x00\x00\x00\xff\xf0", len < 12 ? len : 12);
            if (i & 2)
                in[dw_rand(&seed) % 12] ^= (uint8_t)(1u << (dw_rand(&seed) % 8));
        }
        dw_ipoib_pd pd, pd2;
        ssize_t n = dw_ipoib_cm_pd_decode(&pd, in, len);
        CHECK(n == 12 || n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED);
        if (n == 12) { /* what decodes re-encodes to the same octets */
            CHECK(dw_ipoib_cm_pd_encode(out, sizeof out, &pd) == 12 && !memcmp(out, in, 12));
            CHECK(dw_ipoib_cm_pd_decode(&pd2, out, 12) == 12 && pd2.mtu == pd.mtu);
        }
        n = dw_ipoib_sidr_pd_decode(&pd, in, len);
        CHECK(n == 8 || n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED);
        if (n == 8)
            CHECK(dw_ipoib_sidr_pd_encode(out, 8, &pd) == 8 && !memcmp(out, in, 8));
        dw_ipoib_rfc_pd rp;
        n = dw_ipoib_rfc_pd_decode(&rp, in, len);
        if (n == 8)
            CHECK(dw_ipoib_rfc_pd_encode(out, 8, &rp) == 8 && !memcmp(out + 1, in + 1, 7));
        dw_ipoib_rej rej;
        n = dw_ipoib_rej_decode(&rej, (uint16_t)(dw_rand(&seed) % 5), in, len);
        CHECK(n == 0 || n == 12 || n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED);
        dw_ipoib_sid s;
        n = dw_ipoib_sid_decode(&s, in, len);
        CHECK(n == 8 || n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED);
        CHECK(n != DW_ERR_MALFORMED || in[0] != 1);
        dw_ipoib_arp a;
        n = dw_ipoib_arp_decode(&a, in, len);
        CHECK(n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED); /* < 64 random: never 56 ok */
    }
    /* text parser on random printable strings never accepts a wrong shape */
    char t[32];
    for (int i = 0; i < rounds / 10; i++) {
        size_t len = dw_rand(&seed) % 31;
        for (size_t k = 0; k < len; k++)
            t[k] = "0123456789abcdefg:: x"[dw_rand(&seed) % 21];
        t[len] = '\0';
        uint64_t v;
        if (dw_ipoib_sid_parse(&v, t) == 0) {
            char back[DW_IPOIB_SID_TEXT_MAX];
            uint64_t w;
            dw_ipoib_sid_format(back, sizeof back, v);
            CHECK(dw_ipoib_sid_parse(&w, back) == 0 && w == v);
        }
    }
}

/* ---- a node whose posts are refused ---- */

/* Send callbacks that record each post and refuse it with DW_ERR_NOMEM
 * (a failing ibv_post_send) while refuse is set. */
typedef struct poster {
    int refuse;
    unsigned posts, refused, ud, cm, conn;
    uint16_t ud_type;
    dw_ipoib_cm_type cm_type;
} poster;

static int post(poster *p)
{
    p->posts++;
    p->refused += p->refuse != 0;
    return p->refuse ? DW_ERR_NOMEM : 0;
}

static int r_ud(dw_ipoib_node *n, const dw_ipoib_ud *to, uint16_t type, const uint8_t *pkt,
                size_t len, void *u)
{
    poster *p = u;
    (void)n, (void)to, (void)pkt, (void)len;
    p->ud++;
    p->ud_type = type;
    return post(p);
}

static int r_cm(dw_ipoib_node *n, const uint8_t *dgid, const dw_ipoib_cm_msg *m, void *u)
{
    poster *p = u;
    (void)n, (void)dgid;
    p->cm++;
    p->cm_type = m->type;
    return post(p);
}

static int r_conn(dw_ipoib_node *n, const uint8_t *dgid, uint32_t dqpn, uint32_t sqpn,
                  uint16_t type, const uint8_t *pkt, size_t len, void *u)
{
    poster *p = u;
    (void)n, (void)dgid, (void)dqpn, (void)sqpn, (void)type, (void)pkt, (void)len;
    p->conn++;
    return post(p);
}

static void r_deliver(dw_ipoib_node *n, uint16_t type, const uint8_t *pkt, size_t len,
                      dw_ipoib_mode via, void *u)
{
    (void)n, (void)type, (void)pkt, (void)len, (void)via, (void)u;
}

static const uint8_t gid_b[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03,
                                  0x00, 0x00, 0x56, 0x78};
#define QPN_A 0x000148u
#define QPN_B 0x000248u
#define NODE_IP_A 0x0A000001u
#define NODE_IP_B 0x0A000002u

/* An ARP message from B (draft, RC) to A, as input_ud takes it. */
static int arp_from_b(dw_ipoib_node *n, uint16_t op, uint64_t now)
{
    uint8_t fr[DW_IPOIB_HDR_LEN + DW_IPOIB_ARP_LEN];
    dw_ipoib_hdr h = {DW_IPOIB_TYPE_ARP, 0};
    dw_ipoib_arp a;
    memset(&a, 0, sizeof a);
    a.op = op;
    a.sha.flags = dw_ipoib_flags_encode(DW_IPOIB_PROFILE_DRAFT, DW_IPOIB_CAP_RC);
    a.sha.qpn = QPN_B;
    memcpy(a.sha.gid, gid_b, 16);
    a.spa = NODE_IP_B;
    dw_ipoib_node_addr(n, &a.tha);
    a.tpa = NODE_IP_A;
    CHECK(dw_ipoib_hdr_encode(fr, sizeof fr, &h) == DW_IPOIB_HDR_LEN);
    CHECK(dw_ipoib_arp_encode(fr + DW_IPOIB_HDR_LEN, DW_IPOIB_ARP_LEN, &a) == DW_IPOIB_ARP_LEN);
    dw_ipoib_ud from = {gid_a, QPN_A, gid_b, QPN_B};
    return dw_ipoib_node_input_ud(n, &from, fr, sizeof fr, now);
}

static int req_from_b(dw_ipoib_node *n, uint64_t now)
{
    dw_ipoib_cm_msg m;
    memset(&m, 0, sizeof m);
    m.type = DW_IPOIB_CM_REQ;
    m.local_id = 77;
    m.qpn = QPN_B + 0x10;
    m.transport = DW_IPOIB_MODE_RC;
    m.service_id = dw_ipoib_sid_make(DW_IPOIB_PROTO_UDP, 5001);
    m.pd_len = (uint16_t)dw_ipoib_cm_pd_size(DW_IPOIB_CM_REQ);
    dw_ipoib_pd pd = {QPN_A, QPN_B, 65520};
    CHECK(dw_ipoib_cm_pd_encode(m.pd, m.pd_len, &pd) > 0);
    return dw_ipoib_node_input_cm(n, gid_b, &m, now);
}

/* Each kind of post the node makes, refused once: the call that made it
 * says DW_ERR_NOMEM (dw_ipoib_node_tick_error() for a tick), and the node
 * is usable after: what the caller's send started is undone (the next
 * send asks again), a refused REP keeps no connection slot (max_conns 1:
 * the next REQ is accepted), a refused packet that waited for ARP is
 * counted given up. Before the fix each of these was a silent loss. */
static void test_node_refused_posts(void)
{
    poster p = {0};
    dw_ipoib_node_settings s;
    CHECK_EQ_U(dw_ipoib_node_settings_default(&s), 0);
    s.caps = DW_IPOIB_CAP_RC;
    s.ipv4 = NODE_IP_A;
    s.qpn = QPN_A;
    s.conn_qpn_base = QPN_A + 0x10;
    memcpy(s.gid, gid_a, 16);
    s.max_conns = 1;
    dw_ipoib_node_callbacks cb = {r_ud, r_cm, r_conn, r_deliver, NULL};
    dw_ipoib_node *n = NULL;
    CHECK_EQ_U(dw_ipoib_node_new(&n, &s, &cb, &p), 0);
    uint8_t pkt[28];
    ipv4(pkt, NODE_IP_B);
    pkt[2] = 0, pkt[3] = 28;
    dw_ipoib_peer_info pi;
    dw_ipoib_node_stats st;

    /* the ARP request a send needs, refused: nothing queued, no peer */
    CHECK_EQ_U(dw_ipoib_node_tick_error(n), 0);
    p.refuse = 1;
    CHECK_EQ_U((unsigned)-dw_ipoib_node_send(n, pkt, sizeof pkt, 1),
               (unsigned)-DW_ERR_NOMEM);
    CHECK_EQ_U(p.ud, 1);
    CHECK_EQ_U(p.ud_type, DW_IPOIB_TYPE_ARP);
    CHECK(dw_ipoib_node_peer(n, NODE_IP_B, &pi) < 0);
    CHECK(dw_ipoib_node_next_timer(n) == UINT64_MAX);
    p.refuse = 0;
    CHECK_EQ_U(dw_ipoib_node_send(n, pkt, sizeof pkt, 1), 0); /* queued, asked again */
    CHECK_EQ_U(p.ud, 2);
    CHECK(dw_ipoib_node_peer(n, NODE_IP_B, &pi) == 0 && !pi.resolved);
    uint64_t t = dw_ipoib_node_next_timer(n);
    CHECK(t == 1 + s.arp_timeout);

    /* ARP's retry from a tick, refused: a try, reported after the tick */
    p.refuse = 1;
    dw_ipoib_node_tick(n, t);
    CHECK_EQ_U(p.ud, 3);
    CHECK_EQ_U((unsigned)-dw_ipoib_node_tick_error(n), (unsigned)-DW_ERR_NOMEM);
    p.refuse = 0;
    dw_ipoib_node_tick(n, t + 1); /* nothing due */
    CHECK_EQ_U(dw_ipoib_node_tick_error(n), 0);
    CHECK_EQ_U(p.ud, 3);
    CHECK(dw_ipoib_node_next_timer(n) == t + s.arp_timeout); /* the next try */

    /* the reply comes: the waiting packet's REQ (B offers RC) refused: the
     * packet given up, no set-up started */
    p.refuse = 1;
    CHECK_EQ_U((unsigned)-arp_from_b(n, DW_IPOIB_ARP_REPLY, t + 2),
               (unsigned)-DW_ERR_NOMEM);
    CHECK_EQ_U(p.cm, 1);
    CHECK_EQ_U(p.cm_type, DW_IPOIB_CM_REQ);
    dw_ipoib_node_stats_get(n, &st);
    CHECK_EQ_U(st.pend_dropped, 1);
    CHECK_EQ_U(st.attempts, 0);
    CHECK(dw_ipoib_node_peer(n, NODE_IP_B, &pi) == 0 && pi.resolved);
    CHECK(pi.state == DW_IPOIB_LINK_NONE && pi.attempts == 0);

    /* a send to the resolved peer: its REQ refused, the packet not sent */
    unsigned ud = p.ud;
    CHECK_EQ_U((unsigned)-dw_ipoib_node_send(n, pkt, sizeof pkt, t + 3),
               (unsigned)-DW_ERR_NOMEM);
    CHECK_EQ_U(p.ud, ud);
    CHECK(dw_ipoib_node_peer(n, NODE_IP_B, &pi) == 0 && pi.state == DW_IPOIB_LINK_NONE);
    p.refuse = 0;
    CHECK_EQ_U(dw_ipoib_node_send(n, pkt, sizeof pkt, t + 3), 0); /* REQ, then UD */
    CHECK_EQ_U(p.cm, 3);
    CHECK_EQ_U(p.ud, ud + 1);
    CHECK(dw_ipoib_node_peer(n, NODE_IP_B, &pi) == 0 && pi.state == DW_IPOIB_LINK_PENDING &&
          pi.attempts == 1);
    /* the packet's own post refused */
    p.refuse = 1;
    CHECK_EQ_U((unsigned)-dw_ipoib_node_send(n, pkt, sizeof pkt, t + 4),
               (unsigned)-DW_ERR_NOMEM);

    /* B asks for our address: the reply refused */
    CHECK_EQ_U((unsigned)-arp_from_b(n, DW_IPOIB_ARP_REQUEST, t + 5),
               (unsigned)-DW_ERR_NOMEM);
    CHECK_EQ_U(p.ud_type, DW_IPOIB_TYPE_ARP);

    /* B's REQ: the REP refused keeps no slot (max_conns 1) */
    CHECK_EQ_U((unsigned)-req_from_b(n, t + 6), (unsigned)-DW_ERR_NOMEM);
    CHECK_EQ_U(p.cm_type, DW_IPOIB_CM_REP);
    dw_ipoib_node_stats_get(n, &st);
    CHECK_EQ_U(st.accepted, 0);
    p.refuse = 0;
    CHECK_EQ_U(req_from_b(n, t + 7), 0);
    CHECK_EQ_U(p.cm_type, DW_IPOIB_CM_REP);
    dw_ipoib_node_stats_get(n, &st);
    CHECK_EQ_U(st.accepted, 1);
    CHECK_EQ_U(st.refused, 0);
    CHECK_EQ_U(p.refused, 7); /* each kind once */
    dw_ipoib_node_del(n);
    CHECK_EQ_U((unsigned)-dw_ipoib_node_tick_error(NULL), (unsigned)-DW_ERR_INVAL);
}

int main(void)
{
    RUN(test_s2_draft_flag_bits);
    RUN(test_rfc4755_flag_bits);
    RUN(test_s2_ignore_on_receive);
    RUN(test_s2_address_codec);
    RUN(test_rfc4391_multicast_gid);
    RUN(test_s42_service_id_examples);
    RUN(test_s41_rule2_ports);
    RUN(test_s41_rule1_wildcard);
    RUN(test_s4_reserved_fields);
    RUN(test_s42_text_form_refusals);
    RUN(test_rfc4755_service_id);
    RUN(test_s31_sidr_private_data);
    RUN(test_s32_cm_private_data);
    RUN(test_rfc4755_private_data);
    RUN(test_s32_rej_reason3_mtu);
    RUN(test_rfc4391_arp);
    RUN(test_rfc4391_header);
    RUN(test_pcap_lt242);
    RUN(test_s2_choose_best_common);
    RUN(test_s32_mtu_is_the_smaller);
    RUN(test_s32_reject_with_acceptable_mtu);
    RUN(test_s32_retry_or_give_up);
    RUN(test_s32_requester_disconnects);
    RUN(test_s33_classify);
    RUN(test_s33_which_link_may_carry);
    RUN(test_s33_route);
    RUN(test_hostile_decoders);
    RUN(test_node_refused_posts);
    return dw_test_finish();
}
