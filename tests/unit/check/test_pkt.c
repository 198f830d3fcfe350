/* SPDX-License-Identifier: MIT */
/*
 * Packet codec: hand-built frames for every link type around IPv4 and
 * IPv6 TCP segments whose checksums were computed independently (python3,
 * RFC 1071, see the vectors below), the builder writing those same octets,
 * truncation at every length (into exactly-sized heap copies, so a read
 * past the capture is a sanitizer error), every malformed length, fragments,
 * other protocols, checksum verdicts, and random build/parse round trips.
 */
#include <ddpwire/pkt.h>

#include "test.h"

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

/*
 * Computed with python3 (struct + a one's complement sum, RFC 1071):
 * 192.0.2.1:2049 -> 198.51.100.2:700, seq 0x01020304, ack 0x05060708,
 * PSH|ACK, window 0xffff, IP id 0x1234 DF TTL 64, a 20-octet RDMA option,
 * payload "hello world!". IP checksum 3c45, TCP checksum fa2a. The IPv6
 * one (2001:db8::1 -> 2001:db8::2, hop limit 64): TCP checksum 8aed, with
 * and without an 8-octet hop-by-hop header (PadN).
 */
static const char *V4 =
    "450000481234400040063c45c0000201c6336402"
    "080102bc0102030405060708a018fffffa2a0000"
    "1914923456789abc0000100000040008"
    "00002000"
    "68656c6c6f20776f726c6421";
static const char *V6 =
    "60000000003c004020010db8000000000000000000000001"
    "20010db8000000000000000000000002"
    "0600010400000000"
    "080102bc0102030405060708a018ffff8aed0000"
    "1914923456789abc00001000000400080000200068656c6c6f20776f726c6421";
static const char *V6PLAIN =
    "600000000034064020010db8000000000000000000000001"
    "20010db8000000000000000000000002"
    "080102bc0102030405060708a018ffff8aed0000"
    "1914923456789abc00001000000400080000200068656c6c6f20776f726c6421";

static const uint8_t MAC_D[6] = {0x02, 0, 0, 0, 0, 0x02}, MAC_S[6] = {0x02, 0, 0, 0, 0, 0x01};

typedef struct link {
    unsigned lt;
    const char *hdr4, *hdr6; /* NULL: cannot carry that version */
    int vlan;
} link;

static const link links[] = {
    {DW_PKT_LINK_NULL, "02000000", "18000000", -1},
    {DW_PKT_LINK_LOOP, "00000002", "00000018", -1},
    {DW_PKT_LINK_ETHERNET, "020000000002 020000000001 0800", "020000000002 020000000001 86dd", -1},
    {DW_PKT_LINK_ETHERNET, "020000000002 020000000001 8100 0064 0800",
     "020000000002 020000000001 8100 0064 86dd", 100},
    {DW_PKT_LINK_SLL, "0004 0001 0006 020000000001 0000 0800",
     "0004 0001 0006 020000000001 0000 86dd", -1},
    {DW_PKT_LINK_SLL2, "0800 0000 00000001 0001 04 06 020000000001 0000",
     "86dd 0000 00000001 0001 04 06 020000000001 0000", -1},
    {DW_PKT_LINK_IPOIB,
     "0000000000000000000000000000000000000000"
     "00 020000 fe800000000000000000020000000002 0800 0000",
     "0000000000000000000000000000000000000000"
     "00 020000 fe800000000000000000020000000002 86dd 0000", -1},
    {DW_PKT_LINK_RAW, "", "", -1},
    {DW_PKT_LINK_IPV4, "", NULL, -1},
    {DW_PKT_LINK_IPV6, NULL, "", -1},
};

static const uint8_t SRC4[16] = {192, 0, 2, 1}, DST4[16] = {198, 51, 100, 2};
static const uint8_t SRC6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t DST6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

static size_t frame(uint8_t *f, const link *l, int v6, const char *ip)
{
    size_t n = hex(f, v6 ? l->hdr6 : l->hdr4);
    return n + hex(f + n, ip);
}

static void check_fields(const dw_pkt_tcp *t, int v6, size_t link_len, int vlan)
{
    CHECK_EQ_U(t->ip_version, v6 ? 6 : 4);
    CHECK_EQ_U(t->link_len, link_len);
    CHECK_EQ_U((unsigned)t->vlan, (unsigned)vlan);
    CHECK(memcmp(t->src, v6 ? SRC6 : SRC4, 16) == 0);
    CHECK(memcmp(t->dst, v6 ? DST6 : DST4, 16) == 0);
    CHECK_EQ_U(t->ttl, 64);
    CHECK_EQ_U(t->sport, 2049);
    CHECK_EQ_U(t->dport, 700);
    CHECK_EQ_U(t->seq, 0x01020304);
    CHECK_EQ_U(t->ack, 0x05060708);
    CHECK_EQ_U(t->flags, DW_PKT_PSH | DW_PKT_ACK);
    CHECK_EQ_U(t->window, 0xffff);
    CHECK_EQ_U(t->checksum, v6 ? 0x8aed : 0xfa2a);
    CHECK_EQ_U(t->tcp_hdr_len, 40);
    CHECK_EQ_U(t->options_len, 20);
    CHECK(t->options && t->options[0] == 25 && t->options[1] == 20);
    CHECK_EQ_U(t->payload_len, 12);
    CHECK_EQ_U(t->payload_caplen, 12);
    CHECK(t->payload && memcmp(t->payload, "hello world!", 12) == 0);
    CHECK_EQ_U(t->ip_csum, v6 ? DW_PKT_CSUM_UNCHECKED : DW_PKT_CSUM_GOOD);
    CHECK_EQ_U(t->tcp_csum, DW_PKT_CSUM_GOOD);
}

static void fill_build(dw_pkt_build *b, const link *l, int v6)
{
    static const uint8_t opt[20] = {25, 20, 0x92, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0, 0,
                                    0x10, 0, 0, 4, 0, 8, 0, 0, 0x20, 0};
    *b = (dw_pkt_build){.linktype = l->lt, .vlan = l->vlan, .pkttype = 4,
                        .ip_version = (uint8_t)(v6 ? 6 : 4), .ttl = 64, .ip_id = 0x1234,
                        .sport = 2049, .dport = 700, .seq = 0x01020304, .ack = 0x05060708,
                        .flags = DW_PKT_PSH | DW_PKT_ACK, .window = 0xffff,
                        .options = opt, .options_len = 20,
                        .payload = (const uint8_t *)"hello world!", .payload_len = 12};
    memcpy(b->mac_src, MAC_S, 6);
    memcpy(b->mac_dst, MAC_D, 6);
    memcpy(b->src, v6 ? SRC6 : SRC4, 16);
    memcpy(b->dst, v6 ? DST6 : DST4, 16);
}

/* Every link type, both IP versions: parse, and the builder's octets. */
static void test_links(void)
{
    uint8_t f[256], g[256];
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        for (int v6 = 0; v6 < 2; v6++) {
            const link *l = &links[i];
            const char *h = v6 ? l->hdr6 : l->hdr4;
            if (!h)
                continue;
            size_t ll = hex(f, h);
            for (int ext = 0; ext < 1 + v6; ext++) {
                size_t n = frame(f, l, v6, v6 ? (ext ? V6 : V6PLAIN) : V4);
                dw_pkt_tcp t;
                dw_pkt_reason why = DW_PKT_R_LINKTYPE;
                CHECK_EQ_U(dw_pkt_parse(&t, &why, l->lt, f, n, n, DW_PKT_VERIFY), 0);
                CHECK_EQ_U(why, DW_PKT_R_OK);
                check_fields(&t, v6, ll, l->vlan);
                CHECK_EQ_U(t.ip_hdr_len, v6 ? (ext ? 48 : 40) : 20);
                CHECK(t.payload == f + n - 12);
            }
            dw_pkt_build b;
            fill_build(&b, l, v6);
            size_t n = frame(f, l, v6, v6 ? V6PLAIN : V4);
            CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), n);
            CHECK(memcmp(f, g, n) == 0);
            CHECK_EQ_U(dw_pkt_build_frame(g, n - 1, &b), DW_ERR_NOSPACE);
            if (l->lt == DW_PKT_LINK_RAW) { /* DLT_RAW as libpcap reports it */
                dw_pkt_tcp t;
                CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_DLT_RAW, f, n, 0, DW_PKT_VERIFY), 0);
                check_fields(&t, v6, 0, -1);
            }
        }
    /* the null link type in the other byte order, and Linux's AF_INET6 */
    static const char *nulls[] = {"00000002", "0a000000", "1c000000", "1e000000"};
    for (int i = 0; i < 4; i++) {
        size_t n = hex(f, nulls[i]);
        n += hex(f + n, i ? V6PLAIN : V4);
        dw_pkt_tcp t;
        CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_NULL, f, n, n, DW_PKT_VERIFY), 0);
        CHECK_EQ_U(t.ip_version, i ? 6 : 4);
    }
    /* Ethernet padding after a short packet is not payload */
    size_t n = frame(f, &links[2], 0, V4);
    memset(f + n, 0, 6);
    dw_pkt_tcp t;
    CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_ETHERNET, f, n + 6, n + 6, DW_PKT_VERIFY), 0);
    CHECK_EQ_U(t.payload_len, 12);
    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_GOOD);
    /* checksums not asked for */
    CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_ETHERNET, f, n, n, 0), 0);
    CHECK_EQ_U(t.ip_csum, DW_PKT_CSUM_UNCHECKED);
    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_UNCHECKED);
}

/* Truncated captures at every length: an exact-size heap copy each time. */
static void test_truncation(void)
{
    uint8_t f[256];
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        for (int v6 = 0; v6 < 2; v6++) {
            const link *l = &links[i];
            const char *h = v6 ? l->hdr6 : l->hdr4;
            if (!h)
                continue;
            size_t ll = hex(f, h);
            size_t n = frame(f, l, v6, v6 ? V6 : V4);
            size_t hdrs = n - 12;
            for (size_t cut = 0; cut < n; cut++) {
                uint8_t *c = malloc(cut ? cut : 1);
                memcpy(c, f, cut);
                dw_pkt_tcp t;
                dw_pkt_reason why;
                int rc = dw_pkt_parse(&t, &why, l->lt, c, cut, n, DW_PKT_VERIFY);
                if (cut >= hdrs) { /* headers whole, payload cut */
                    CHECK_EQ_U(rc, 0);
                    CHECK_EQ_U(t.payload_len, 12);
                    CHECK_EQ_U(t.payload_caplen, cut - hdrs);
                    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_UNKNOWN);
                } else {
                    CHECK_EQ_U(rc, DW_ERR_NEED_MORE);
                    dw_pkt_reason want = cut < ll                 ? DW_PKT_R_TRUNC_LINK
                                         : cut < ll + (v6 ? 48 : 20) ? DW_PKT_R_TRUNC_IP
                                                                   : DW_PKT_R_TRUNC_TCP;
                    CHECK_EQ_U(why, want);
                }
                /* a frame that really is that short: lengths that cannot be */
                rc = dw_pkt_parse(&t, &why, l->lt, c, cut, cut, DW_PKT_VERIFY);
                if (cut >= ll + (v6 ? 40 : 20))
                    CHECK_EQ_U(rc, DW_ERR_MALFORMED);
                else
                    CHECK_EQ_U(rc, DW_ERR_NEED_MORE);
                free(c);
            }
        }
}

/* Lengths that cannot be, fragments, other protocols and link types. */
static void test_malformed(void)
{
    uint8_t f[256], g[256];
    size_t n = hex(f, V4);
    dw_pkt_tcp t;
    dw_pkt_reason why;
    static const struct {
        size_t at;
        uint8_t v;
        int rc;
        dw_pkt_reason r;
    } v4[] = {
        {0, 0x44, DW_ERR_MALFORMED, DW_PKT_R_IP_HEADER_LEN},   /* IHL 4 */
        {0, 0x4f, DW_ERR_MALFORMED, DW_PKT_R_IP_TOTAL_LEN},    /* IHL 60: TCP too short */
        {3, 0x13, DW_ERR_MALFORMED, DW_PKT_R_IP_HEADER_LEN},   /* total 19 */
        {3, 0x27, DW_ERR_MALFORMED, DW_PKT_R_IP_TOTAL_LEN},    /* total 39: TCP < 20 */
        {3, 0x49, DW_ERR_MALFORMED, DW_PKT_R_IP_TOTAL_LEN},    /* past the frame */
        {6, 0x60, DW_ERR_UNSUPPORTED, DW_PKT_R_FRAGMENT},      /* DF + MF */
        {7, 0x01, DW_ERR_UNSUPPORTED, DW_PKT_R_FRAGMENT},      /* offset 8 */
        {9, 17, DW_ERR_UNSUPPORTED, DW_PKT_R_NOT_TCP},         /* UDP */
        {32, 0x40, DW_ERR_MALFORMED, DW_PKT_R_TCP_DATA_OFFSET}, /* data offset 4 */
        {32, 0xf0, DW_ERR_MALFORMED, DW_PKT_R_TCP_DATA_OFFSET}, /* 60 > 52 */
        {0, 0x55, DW_ERR_MALFORMED, DW_PKT_R_IP_VERSION},
    };
    for (size_t i = 0; i < sizeof v4 / sizeof v4[0]; i++) {
        memcpy(g, f, n);
        g[v4[i].at] = v4[i].v;
        CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), v4[i].rc);
        CHECK_EQ_U(why, v4[i].r);
    }
    /* a checksum error each, found */
    memcpy(g, f, n);
    g[8] ^= 1; /* TTL: both checksums cover... only IP's */
    CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_RAW, g, n, n, DW_PKT_VERIFY), 0);
    CHECK_EQ_U(t.ip_csum, DW_PKT_CSUM_BAD);
    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_GOOD);
    memcpy(g, f, n);
    g[n - 1] ^= 0x80;
    CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_RAW, g, n, n, DW_PKT_VERIFY), 0);
    CHECK_EQ_U(t.ip_csum, DW_PKT_CSUM_GOOD);
    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_BAD);
    memcpy(g, f, n);
    g[12] ^= 1; /* source address: in the pseudo-header too */
    CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_RAW, g, n, n, DW_PKT_VERIFY), 0);
    CHECK(t.ip_csum == DW_PKT_CSUM_BAD && t.tcp_csum == DW_PKT_CSUM_BAD);
    /* link layer: version disagreeing, not IP, unknown link types */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_IPV6, f, n, n, 0), DW_ERR_MALFORMED);
    CHECK_EQ_U(why, DW_PKT_R_IP_VERSION);
    size_t m = hex(g, "020000000002 020000000001 86dd");
    memcpy(g + m, f, n);
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_ETHERNET, g, m + n, 0, 0), DW_ERR_MALFORMED);
    CHECK_EQ_U(why, DW_PKT_R_IP_VERSION);
    g[12] = 0x08, g[13] = 0x06; /* ARP */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_ETHERNET, g, m + n, 0, 0), DW_ERR_UNSUPPORTED);
    CHECK_EQ_U(why, DW_PKT_R_NOT_IP);
    static const uint8_t af7[4] = {7, 0, 0, 0};
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_NULL, af7, 4, 0, 0), DW_ERR_UNSUPPORTED);
    CHECK_EQ_U(why, DW_PKT_R_NOT_IP);
    CHECK_EQ_U(dw_pkt_parse(&t, &why, 147, f, n, n, 0), DW_ERR_UNSUPPORTED);
    CHECK_EQ_U(why, DW_PKT_R_LINKTYPE);
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, NULL, 1, 0, 0), DW_ERR_INVAL);
    CHECK_EQ_U(dw_pkt_parse(NULL, &why, DW_PKT_LINK_RAW, f, n, 0, 0), DW_ERR_INVAL);
    CHECK_EQ_U(dw_pkt_parse(&t, NULL, DW_PKT_LINK_RAW, NULL, 0, 0, 0), DW_ERR_NEED_MORE);
    CHECK(strcmp(dw_pkt_reason_str(DW_PKT_R_TRUNC_IP), "capture ends inside the IP header") == 0);
    CHECK(strcmp(dw_pkt_reason_str((dw_pkt_reason)99), "unknown reason") == 0);
}

/* IPv6 extension headers: walked, bounded, fragments refused. */
static void test_ipv6_ext(void)
{
    uint8_t f[512], g[512];
    size_t n = hex(f, V6);
    dw_pkt_tcp t;
    dw_pkt_reason why;
    memcpy(g, f, n);
    g[41] = 10; /* hop-by-hop of 88 octets: past the packet */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), DW_ERR_MALFORMED);
    CHECK_EQ_U(why, DW_PKT_R_IPV6_EXT);
    memcpy(g, f, n);
    g[5] = 0x3b; /* payload length one short of the TCP segment */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), 0);
    CHECK_EQ_U(t.payload_len, 11);
    g[5] = 0x3d; /* one longer than the frame */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), DW_ERR_MALFORMED);
    CHECK_EQ_U(why, DW_PKT_R_IP_TOTAL_LEN);
    /* fragment header: atomic passes, an offset or M is a fragment */
    size_t m = hex(g, "60000000003c2c4020010db8000000000000000000000001"
                      "20010db8000000000000000000000002"
                      "0600000000000001");
    memcpy(g + m, f + 48, n - 48);
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, DW_PKT_VERIFY), 0);
    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_GOOD);
    g[43] = 1; /* M */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), DW_ERR_UNSUPPORTED);
    CHECK_EQ_U(why, DW_PKT_R_FRAGMENT);
    g[43] = 8; /* offset 1 */
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), DW_ERR_UNSUPPORTED);
    /* AH (length in 4-octet words + 2), then TCP */
    m = hex(g, "600000000040334020010db8000000000000000000000001"
               "20010db8000000000000000000000002"
               "0601000000000000 00000000");
    memcpy(g + m, f + 48, n - 48);
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, m + n - 48, 0, DW_PKT_VERIFY), 0);
    CHECK_EQ_U(t.ip_hdr_len, 52);
    CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_GOOD);
    /* nine destination-options headers: too many */
    m = hex(g, "60000000 0048 3c 40 20010db8000000000000000000000001"
               "20010db8000000000000000000000002");
    for (int i = 0; i < 9; i++)
        m += hex(g + m, i < 8 ? "3c00010400000000" : "0600010400000000");
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, m, 0, 0), DW_ERR_MALFORMED);
    CHECK_EQ_U(why, DW_PKT_R_IPV6_EXT);
    /* ESP and UDP are not TCP */
    memcpy(g, f, n);
    g[40] = 50;
    CHECK_EQ_U(dw_pkt_parse(&t, &why, DW_PKT_LINK_RAW, g, n, n, 0), DW_ERR_UNSUPPORTED);
    CHECK_EQ_U(why, DW_PKT_R_NOT_TCP);
}

/* RFC 1071's example, checked with python3: 0001 f203 f4f5 f6f7 -> ~ddf2. */
static void test_checksum(void)
{
    static const uint8_t d[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7, 0xaa};
    CHECK_EQ_U(dw_pkt_csum_fold(dw_pkt_csum_add(0, d, 8)), 0x220d);
    CHECK_EQ_U(dw_pkt_csum_fold(dw_pkt_csum_add(0, d, 9)), 0x780c);
    CHECK_EQ_U(dw_pkt_csum_fold(dw_pkt_csum_add(dw_pkt_csum_add(0, d, 4), d + 4, 5)), 0x780c);
    CHECK_EQ_U(dw_pkt_csum_fold(0), 0xffff);
    static uint8_t ones[70000];
    memset(ones, 0xff, sizeof ones); /* many carries */
    CHECK_EQ_U(dw_pkt_csum_fold(dw_pkt_csum_add(0, ones, sizeof ones)), 0);
}

static void test_build_invalid(void)
{
    uint8_t g[70100];
    dw_pkt_build b;
    fill_build(&b, &links[2], 0);
    b.options_len = 18;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    b.options_len = 44;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    fill_build(&b, &links[2], 0);
    b.vlan = 4096;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    b.vlan = -1;
    static uint8_t big[65536];
    b.payload = big;
    b.payload_len = 65535 - 60; /* IPv4 total 65535 */
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), 65535 + 14);
    b.payload_len++;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    b.ip_version = 6;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), 14 + 40 + 40 + 65476);
    b.ip_version = 5;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    fill_build(&b, &links[8], 1); /* IPv6 on the IPv4-only link type */
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    b.linktype = DW_PKT_LINK_DLT_RAW;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    b.linktype = DW_PKT_LINK_RAW;
    b.options = NULL;
    CHECK_EQ_U(dw_pkt_build_frame(g, sizeof g, &b), DW_ERR_INVAL);
    CHECK_EQ_U(dw_pkt_build_frame(NULL, 9, &b), DW_ERR_INVAL);
}

/* Random segments on random link types: parse gives back what was built. */
static void test_roundtrip(void)
{
    static uint8_t g[70000], pl[1500], opts[40];
    uint64_t seed = dw_test_seed();
    int rounds = getenv("DW_TEST_QUICK") ? 300 : 3000;
    for (int r = 0; r < rounds; r++) {
        const link *l = &links[dw_rand(&seed) % (sizeof links / sizeof links[0])];
        int v6 = l->hdr4 ? (l->hdr6 ? (int)(dw_rand(&seed) & 1) : 0) : 1;
        dw_pkt_build b;
        fill_build(&b, l, v6);
        for (int i = 0; i < 16; i++) {
            b.src[i] = (uint8_t)dw_rand(&seed);
            b.dst[i] = (uint8_t)dw_rand(&seed);
        }
        if (!v6)
            memset(b.src + 4, 0, 12), memset(b.dst + 4, 0, 12);
        b.seq = (uint32_t)dw_rand(&seed);
        b.ack = (uint32_t)dw_rand(&seed);
        b.flags = (uint8_t)dw_rand(&seed);
        b.options_len = (size_t)(dw_rand(&seed) % 11) * 4;
        b.payload_len = (size_t)(dw_rand(&seed) % sizeof pl);
        for (size_t i = 0; i < sizeof opts; i++)
            opts[i] = (uint8_t)dw_rand(&seed);
        for (size_t i = 0; i < b.payload_len; i++)
            pl[i] = (uint8_t)dw_rand(&seed);
        b.options = opts;
        b.payload = pl;
        ssize_t n = dw_pkt_build_frame(g, sizeof g, &b);
        CHECK(n > 0);
        dw_pkt_tcp t;
        CHECK_EQ_U(dw_pkt_parse(&t, NULL, l->lt, g, (size_t)n, 0, DW_PKT_VERIFY), 0);
        CHECK(memcmp(t.src, b.src, 16) == 0 && memcmp(t.dst, b.dst, 16) == 0);
        CHECK(t.seq == b.seq && t.ack == b.ack && t.flags == b.flags);
        CHECK_EQ_U(t.options_len, b.options_len);
        CHECK(memcmp(t.options, opts, b.options_len) == 0);
        CHECK_EQ_U(t.payload_len, b.payload_len);
        CHECK(memcmp(t.payload, pl, b.payload_len) == 0);
        CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_GOOD);
        CHECK(v6 || t.ip_csum == DW_PKT_CSUM_GOOD);
        if (b.payload_len) { /* any flipped payload bit is caught */
            size_t at = (size_t)(dw_rand(&seed) % b.payload_len);
            g[(size_t)n - b.payload_len + at] ^= (uint8_t)(1u << (dw_rand(&seed) % 8));
            CHECK_EQ_U(dw_pkt_parse(&t, NULL, l->lt, g, (size_t)n, 0, DW_PKT_VERIFY), 0);
            CHECK_EQ_U(t.tcp_csum, DW_PKT_CSUM_BAD);
        }
    }
}

int main(void)
{
    RUN(test_links);
    RUN(test_truncation);
    RUN(test_malformed);
    RUN(test_ipv6_ext);
    RUN(test_checksum);
    RUN(test_build_invalid);
    RUN(test_roundtrip);
    return dw_test_finish();
}
