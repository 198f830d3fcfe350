/* SPDX-License-Identifier: MIT */
/*
 * DDP (RFC 5041) / RDMAP (RFC 5040) codecs: every ULPDU of the four real
 * siw streams (tests/data/siw_*.bin, rping over MPA) against values read
 * from the bytes by hand and cross-checked with a separate python parser;
 * the MPA text's Figure 5 ULPDU; a real siw Terminate and hand-built
 * Terminates in both layouts (the siw layout cross-checked with ctypes
 * little-endian bit-fields); every validation rule; truncation.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ddp.h>
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#include "test.h"

static char data_dir[1024];

static size_t unhex(uint8_t *o, const char *h)
{
    size_t n = 0;
    while (h[0] && h[1]) {
        if (h[0] == ' ') {
            h++;
            continue;
        }
        unsigned v;
        sscanf(h, "%2x", &v);
        o[n++] = (uint8_t)v;
        h += 2;
    }
    return n;
}

/* Decode, re-encode byte for byte, and "need more" at every prefix that
 * cuts a header. Returns the header length. */
static ssize_t decode_checked(dw_rdmap_msg *m, const uint8_t *u, size_t len)
{
    ssize_t n = dw_rdmap_decode(m, u, len);
    CHECK(n > 0 && (size_t)n <= len);
    if (n <= 0)
        return n;
    CHECK(m->payload == u + n && m->payload_len == len - (size_t)n);
    uint8_t out[600];
    CHECK_EQ_U(dw_rdmap_encode(out, sizeof out, m), len);
    CHECK(memcmp(out, u, len) == 0);
    for (size_t k = 0; k < len; k++) /* every smaller buffer */
        CHECK_EQ_U(dw_rdmap_encode(out, k, m), DW_ERR_NOSPACE);
    dw_rdmap_msg p;
    for (size_t k = 0; k < (size_t)n; k++)
        CHECK_EQ_U(dw_rdmap_decode(&p, u, k), DW_ERR_NEED_MORE);
    return n;
}

/* ---- the siw streams ------------------------------------------------- */

typedef struct col {
    int n;
    uint8_t u[4][128];
    size_t len[4];
} col;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *user)
{
    col *c = user;
    (void)rx, (void)off;
    if (c->n < 4 && len <= 128) {
        memcpy(c->u[c->n], d, len);
        c->len[c->n] = len;
    }
    c->n++;
    return 0;
}

/* The ULPDUs of one stream file, verified by our MPA receiver. */
static int load(col *c, const char *name, int crc)
{
    char path[1200];
    uint8_t s[4096];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return -1;
    size_t n = fread(s, 1, sizeof s, f);
    fclose(f);
    dw_mpa_startup st;
    ssize_t h = dw_mpa_startup_decode(&st, s, n);
    CHECK_EQ_U(h, 24);
    dw_mpa_rx_settings rs;
    dw_mpa_rx_settings_default(&rs);
    rs.markers = 0;
    rs.crc = crc;
    dw_mpa_rx_callbacks cb = {on_ulpdu, NULL, NULL};
    dw_mpa_rx *rx;
    memset(c, 0, sizeof *c);
    CHECK(dw_mpa_rx_new(&rx, &rs, &cb, c) == 0);
    CHECK_EQ_U(dw_mpa_rx_feed(rx, s + h, n - (size_t)h), n - (size_t)h);
    dw_mpa_rx_del(rx);
    CHECK_EQ_U(c->n, 2);
    return c->n == 2 ? 0 : -1;
}

static const char rping_text[] = "rdma-ping-0: hello siw, from a python MPA peer on the host";

/* host -> siw: rping's Send (our buffer), then our RDMA Read Response. */
static void host2siw(const char *name, int crc, uint32_t resp_stag)
{
    col c;
    if (load(&c, name, crc))
        return;
    dw_rdmap_msg m;
    /* 41 43: untagged, L, DDP v1, RDMAP v1, Send; QN 0, MSN 1, MO 0 */
    CHECK_EQ_U(c.len[0], 34);
    CHECK_EQ_U(decode_checked(&m, c.u[0], c.len[0]), 18);
    CHECK_EQ_U(m.hdr.ctrl, 0x4143);
    CHECK(!m.hdr.tagged && m.hdr.last);
    CHECK_EQ_U(m.hdr.ddp_ver, 1);
    CHECK_EQ_U(m.hdr.rdmap_ver, 1);
    CHECK_EQ_U(m.hdr.opcode, DW_RDMAP_SEND);
    CHECK_EQ_U(m.hdr.inv_stag, 0);
    CHECK_EQ_U(m.hdr.qn, 0);
    CHECK_EQ_U(m.hdr.msn, 1);
    CHECK_EQ_U(m.hdr.mo, 0);
    CHECK_EQ_U(m.payload_len, 16);
    CHECK_EQ_U(dw_rdmap_validate(&m, DW_RDMAP_STRICT), DW_RDMAP_OK);
    dw_rping_info ri;
    CHECK_EQ_U(dw_rping_info_decode(&ri, m.payload, m.payload_len), 16);
    CHECK_EQ_U(ri.buf, 0x00007f0000001000ull);
    CHECK_EQ_U(ri.rkey, 0xabcd0001u);
    CHECK_EQ_U(ri.size, 64);
    uint8_t out[16];
    CHECK_EQ_U(dw_rping_info_encode(out, sizeof out, &ri), 16);
    CHECK(memcmp(out, m.payload, 16) == 0);
    /* c1 42: tagged, L, v1, v1, Read Response; STag, TO, 64 octets of data */
    CHECK_EQ_U(c.len[1], 78);
    CHECK_EQ_U(decode_checked(&m, c.u[1], c.len[1]), 14);
    CHECK_EQ_U(m.hdr.ctrl, 0xc142);
    CHECK(m.hdr.tagged && m.hdr.last);
    CHECK_EQ_U(m.hdr.opcode, DW_RDMAP_READ_RESP);
    CHECK_EQ_U(m.hdr.stag, resp_stag);
    CHECK_EQ_U(m.hdr.to, 0x00007f375c000e00ull);
    CHECK_EQ_U(m.payload_len, 64);
    CHECK(memcmp(m.payload, rping_text, sizeof rping_text - 1) == 0);
    CHECK_EQ_U(dw_rdmap_validate(&m, DW_RDMAP_STRICT), DW_RDMAP_OK);
}

/* siw -> host: siw's RDMA Read Request of our buffer, then its Send. */
static void siw2host(const char *name, int crc, uint32_t sink_stag)
{
    col c;
    if (load(&c, name, crc))
        return;
    dw_rdmap_msg m;
    /* 41 41: Read Request on queue 1, MSN 1, then 28 octets */
    CHECK_EQ_U(c.len[0], 46);
    CHECK_EQ_U(decode_checked(&m, c.u[0], c.len[0]), 46);
    CHECK_EQ_U(m.hdr.ctrl, 0x4141);
    CHECK_EQ_U(m.hdr.opcode, DW_RDMAP_READ_REQ);
    CHECK_EQ_U(m.hdr.qn, 1);
    CHECK_EQ_U(m.hdr.msn, 1);
    CHECK_EQ_U(m.hdr.mo, 0);
    CHECK_EQ_U(m.read_req.sink_stag, sink_stag); /* = the Read Response's STag */
    CHECK_EQ_U(m.read_req.sink_to, 0x00007f375c000e00ull);
    CHECK_EQ_U(m.read_req.size, 64);                   /* = rping's size */
    CHECK_EQ_U(m.read_req.src_stag, 0xabcd0001u);      /* = rping's rkey */
    CHECK_EQ_U(m.read_req.src_to, 0x00007f0000001000ull); /* = rping's buf */
    CHECK_EQ_U(m.payload_len, 0);
    CHECK_EQ_U(dw_rdmap_validate(&m, DW_RDMAP_STRICT), DW_RDMAP_OK);
    uint8_t rr[28];
    CHECK_EQ_U(dw_rdmap_read_req_encode(rr, sizeof rr, &m.read_req), 28);
    CHECK(memcmp(rr, c.u[0] + 18, 28) == 0);
    /* 41 43: siw's Send, queue 0, MSN 1, 16 zero octets */
    CHECK_EQ_U(c.len[1], 34);
    CHECK_EQ_U(decode_checked(&m, c.u[1], c.len[1]), 18);
    CHECK_EQ_U(m.hdr.opcode, DW_RDMAP_SEND);
    CHECK_EQ_U(m.hdr.qn, 0);
    CHECK_EQ_U(m.hdr.msn, 1);
    dw_rping_info ri;
    CHECK_EQ_U(dw_rping_info_decode(&ri, m.payload, m.payload_len), 16);
    CHECK(ri.buf == 0 && ri.rkey == 0 && ri.size == 0);
    CHECK_EQ_U(dw_rdmap_validate(&m, DW_RDMAP_STRICT), DW_RDMAP_OK);
}

static void test_siw_streams(void)
{
    host2siw("siw_crc_host2siw.bin", 1, 0x842f9200u);
    host2siw("siw_nocrc_host2siw.bin", 0, 0x4b997800u);
    siw2host("siw_crc_siw2host.bin", 1, 0x842f9200u);
    siw2host("siw_nocrc_siw2host.bin", 0, 0x4b997800u);
}

/* ---- the MPA text's Figure 5 ----------------------------------------- */

static void test_figure5(void)
{
    uint8_t f[52] = {0};
    size_t n = unhex(f, "00000000 002a 4003 00000000 00000000 00000001 00000000");
    CHECK_EQ_U(n, 24);
    /* the figure's CRC proves the octets: CRC32c over 0000..002f */
    CHECK_EQ_U(dw_crc32c(0, f, 48), 0x84B3864Cu);
    const uint8_t *u = f + 6;
    dw_rdmap_msg m;
    CHECK_EQ_U(decode_checked(&m, u, 42), 18);
    CHECK(!m.hdr.tagged && m.hdr.last);
    CHECK_EQ_U(m.hdr.opcode, DW_RDMAP_SEND);
    CHECK_EQ_U(m.hdr.ddp_ver, 0); /* the draft's example: version 0 */
    CHECK_EQ_U(m.hdr.rdmap_ver, 0);
    CHECK_EQ_U(m.hdr.qn, 0);
    CHECK_EQ_U(m.hdr.msn, 1);
    CHECK_EQ_U(m.hdr.mo, 0);
    CHECK_EQ_U(m.payload_len, 24);
    CHECK_EQ_U(dw_rdmap_validate(&m, 0), DW_RDMAP_BAD_DDP_VERSION);
    dw_rdmap_term t = {0};
    CHECK_EQ_U(dw_rdmap_reason_term(&t, DW_RDMAP_BAD_DDP_VERSION, &m.hdr), 0);
    CHECK(t.layer == DW_TERM_LAYER_DDP && t.etype == DW_TERM_DDP_UNTAGGED &&
          t.code == DW_TERM_DDP_U_VERSION);
}

/* ---- Terminate -------------------------------------------------------- */

/* siw 6.1's answer to an FPDU with a bad CRC (siw-peer captures,
 * host_misc.pcap, 127.0.0.1:57964): the whole FPDU with its CRC. */
static const char siw_term_fpdu[] =
    "0016 4147 00000000 00000002 00000001 00000000 02020000 75d367ed";

static void test_term_siw_real(void)
{
    uint8_t f[64];
    size_t n = unhex(f, siw_term_fpdu);
    CHECK_EQ_U(n, 28);
    CHECK_EQ_U(dw_crc32c(0, f, 24), dw_crc32c_load(f + 24)); /* transcribed right */
    const uint8_t *u = f + 2;
    dw_rdmap_msg m;
    CHECK_EQ_U(decode_checked(&m, u, 22), 22);
    CHECK_EQ_U(m.hdr.opcode, DW_RDMAP_TERMINATE);
    CHECK(!m.hdr.tagged && m.hdr.last);
    CHECK_EQ_U(m.hdr.qn, DW_RDMAP_QN_TERMINATE);
    CHECK_EQ_U(m.hdr.msn, 1);
    CHECK_EQ_U(m.hdr.mo, 0);
    const dw_rdmap_term *t = &m.term;
    CHECK(t->swapped && t->known && !t->ambiguous);
    CHECK_EQ_U(t->layer, DW_TERM_LAYER_LLP);
    CHECK_EQ_U(t->etype, DW_TERM_LLP_MPA);
    CHECK_EQ_U(t->code, DW_TERM_MPA_CRC);
    CHECK(!t->m && !t->d && !t->r && t->reserved == 0);
    CHECK(t->ddp_hdr_len == 0 && t->rdma_hdr_len == 0);
    CHECK(strcmp(dw_rdmap_term_str(t->layer, t->etype, t->code), "MPA CRC error") == 0);
    CHECK_EQ_U(dw_rdmap_validate(&m, DW_RDMAP_STRICT), DW_RDMAP_OK);
    /* read as the RFC says, it is RDMAP / remote operation / code 2: no such code */
    dw_rdmap_term r;
    CHECK_EQ_U(dw_rdmap_term_decode_as(&r, u + 18, 4, DW_RDMAP_TERM_RFC), 4);
    CHECK(!r.swapped && !r.known && r.layer == 0 && r.etype == 2 && r.code == 2);
}

typedef struct term_vec {
    const char *hex; /* the Terminate header (after the DDP header) */
    int swapped, ambiguous, known;
    uint8_t layer, etype, code;
    int m, d, r;
    uint16_t seg_len;
    size_t ddp_len, rdma_len;
} term_vec;

/* copied headers */
#define SEND_HDR "4143 00000000 00000000 00000005 00000000"
#define SINV_HDR "4144 0000abcd 00000000 00000002 00000000"
#define RREQ_HDR "4141 00000000 00000001 00000003 00000000"
#define RREQ_BODY "11111111 2222222222222222 00000040 33333333 4444444444444444"
#define WRITE_HDR "8140 12345678 0000000000001000"

static const term_vec term_vecs[] = {
    /* DDP, untagged buffer, invalid MSN (no buffer); M, D; the Send copied */
    {"1202c000 0022 " SEND_HDR, 0, 0, 1, 1, 2, 2, 1, 1, 0, 0x22, 18, 0},
    {"21020300 0022 " SEND_HDR, 1, 0, 1, 1, 2, 2, 1, 1, 0, 0x22, 18, 0},
    /* RDMAP, remote protection, invalid STag on a Read Request; M, D, R */
    {"0100e000 002e " RREQ_HDR RREQ_BODY, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0x2e, 18, 28},
    {"10000700 002e " RREQ_HDR RREQ_BODY, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0x2e, 18, 28},
    /* siw: R with a copied Send with Invalidate: no RDMAP header follows */
    {"10090700 0000 " SINV_HDR, 1, 0, 1, 0, 1, 9, 1, 1, 1, 0, 18, 0},
    {"0109e000 0000 " SINV_HDR, 0, 0, 1, 0, 1, 9, 1, 1, 1, 0, 18, 0},
    /* DDP, tagged buffer, base or bounds; a Write copied (14 octets) */
    {"1101c000 0040 " WRITE_HDR, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0x40, 14, 0},
    {"11010300 0040 " WRITE_HDR, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0x40, 14, 0},
    /* R without D: the Read Request header alone */
    {"01002000 " RREQ_BODY, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 28},
    {"10000400 " RREQ_BODY, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 28},
    /* both readings valid: LLP/MPA/insufficient IRD (RFC) or RDMAP/operation/opcode (siw) */
    {"20060000", 0, 1, 1, 2, 0, 6, 0, 0, 0, 0, 0, 0},
    /* RDMAP local catastrophic, unspecified: the same in both layouts */
    {"00ff0000", 0, 0, 1, 0, 0, 0xff, 0, 0, 0, 0, 0, 0},
    /* neither reading valid: reported as read by the RFC */
    {"33010000", 0, 0, 0, 3, 3, 1, 0, 0, 0, 0, 0, 0},
    /* a known code with reserved bits is invalid, the siw reading too: RFC kept */
    {"20020001", 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0},
};

static void one_term(const term_vec *v)
{
    uint8_t in[128], out[128];
    size_t n = unhex(in, v->hex);
    dw_rdmap_term t;
    CHECK_EQ_U(dw_rdmap_term_decode(&t, in, n), n);
    CHECK_EQ_U(t.swapped, v->swapped);
    CHECK_EQ_U(t.ambiguous, v->ambiguous);
    CHECK_EQ_U(t.known, v->known);
    CHECK(t.layer == v->layer && t.etype == v->etype && t.code == v->code);
    CHECK(t.m == v->m && t.d == v->d && t.r == v->r);
    CHECK_EQ_U(t.ddp_seg_len, v->seg_len);
    CHECK_EQ_U(t.ddp_hdr_len, v->ddp_len);
    CHECK_EQ_U(t.rdma_hdr_len, v->rdma_len);
    if (v->ddp_len)
        CHECK(t.ddp_hdr == in + 6);
    if (v->rdma_len)
        CHECK(t.rdma_hdr == in + n - 28);
    if (v->ddp_len) { /* the copy decodes as a DDP header */
        dw_ddp_hdr h;
        CHECK_EQ_U(dw_ddp_decode(&h, t.ddp_hdr, t.ddp_hdr_len), v->ddp_len);
    }
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), n);
    CHECK(memcmp(out, in, n) == 0);
    for (size_t k = 0; k < n; k++) {
        dw_rdmap_term p;
        CHECK_EQ_U(dw_rdmap_term_decode(&p, in, k), DW_ERR_NEED_MORE);
        CHECK_EQ_U(dw_rdmap_term_encode(out, k, &t), DW_ERR_NOSPACE);
    }
    /* the other layout, written from the same fields, reads back when forced */
    t.swapped = !t.swapped;
    ssize_t w = dw_rdmap_term_encode(out, sizeof out, &t);
    CHECK_EQ_U(w, n);
    dw_rdmap_term b;
    dw_rdmap_term_layout lay = t.swapped ? DW_RDMAP_TERM_SIW : DW_RDMAP_TERM_RFC;
    CHECK_EQ_U(dw_rdmap_term_decode_as(&b, out, n, lay), n);
    CHECK(b.layer == t.layer && b.etype == t.etype && b.code == t.code && b.m == t.m &&
          b.d == t.d && b.r == t.r && b.reserved == t.reserved);
    /* as a whole ULPDU behind its untagged DDP header */
    uint8_t u[160];
    size_t h = unhex(u, "4147 00000000 00000002 00000001 00000000");
    memcpy(u + h, in, n);
    dw_rdmap_msg m;
    CHECK_EQ_U(decode_checked(&m, u, h + n), h + n);
    CHECK(m.term.layer == v->layer && m.term.swapped == v->swapped);
    CHECK_EQ_U(dw_rdmap_validate(&m, 0), DW_RDMAP_OK);
}

static void test_term_vectors(void)
{
    for (size_t i = 0; i < sizeof term_vecs / sizeof term_vecs[0]; i++)
        one_term(&term_vecs[i]);
    /* forcing the layout */
    uint8_t w[4] = {0x20, 0x06, 0x00, 0x00};
    dw_rdmap_term t;
    CHECK_EQ_U(dw_rdmap_term_decode_as(&t, w, 4, DW_RDMAP_TERM_SIW), 4);
    CHECK(t.swapped && !t.ambiguous && t.layer == DW_TERM_LAYER_RDMAP &&
          t.etype == DW_TERM_RDMAP_OPERATION && t.code == DW_TERM_RDMAP_OPCODE);
    CHECK_EQ_U(dw_rdmap_term_decode_as(&t, w, 4, DW_RDMAP_TERM_RFC), 4);
    CHECK(!t.swapped && !t.ambiguous && t.layer == DW_TERM_LAYER_LLP &&
          t.code == DW_TERM_MPA_INSUFFICIENT_IRD);
    CHECK_EQ_U(dw_rdmap_term_decode_as(&t, w, 4, (dw_rdmap_term_layout)3), DW_ERR_INVAL);
    /* reserved bits in siw's order (ctypes: rsvd 0x1234 -> 00 00 a0 91) */
    uint8_t r[4] = {0x00, 0x00, 0xa0, 0x91};
    CHECK_EQ_U(dw_rdmap_term_decode_as(&t, r, 4, DW_RDMAP_TERM_SIW), 4);
    CHECK_EQ_U(t.reserved, 0x1234);
    CHECK(!t.m && !t.d && !t.r);
    uint8_t r2[4] = {0x00, 0x00, 0x1f, 0xff};
    CHECK_EQ_U(dw_rdmap_term_decode_as(&t, r2, 4, DW_RDMAP_TERM_RFC), 4);
    CHECK_EQ_U(t.reserved, 0x1fff);
    CHECK(!t.m && !t.d && !t.r);
}

static void test_term_encode_errors(void)
{
    uint8_t out[64], hdr[18] = {0x41, 0x43};
    dw_rdmap_term t = {0};
    t.layer = 16;
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), DW_ERR_INVAL);
    t.layer = 0;
    t.reserved = 0x2000;
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), DW_ERR_INVAL);
    t.reserved = 0;
    t.d = 1; /* no copy given */
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), DW_ERR_INVAL);
    t.ddp_hdr = hdr;
    t.ddp_hdr_len = 14; /* untagged copy must be 18 */
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), DW_ERR_INVAL);
    t.ddp_hdr_len = 18;
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), 24);
    t.r = 1;
    t.rdma_hdr_len = 28; /* a Send has no RDMAP header */
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), DW_ERR_INVAL);
    t.rdma_hdr_len = 0;
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), 24);
    t.d = 0; /* copy without D */
    CHECK_EQ_U(dw_rdmap_term_encode(out, sizeof out, &t), DW_ERR_INVAL);
    CHECK_EQ_U(dw_rdmap_term_encode(NULL, 64, &t), DW_ERR_INVAL);
}

static void test_term_names(void)
{
    /* every table entry has a name; a few by value */
    static const struct {
        uint8_t l, e, c;
        const char *name;
    } v[] = {
        {0, 0, 0x42, "local catastrophic error"},
        {0, 1, 0x00, "invalid STag"},
        {0, 1, 0x09, "STag cannot be invalidated"},
        {0, 2, 0x06, "unexpected opcode"},
        {0, 2, 0xff, "unspecified error"},
        {1, 1, 0x04, "invalid DDP version"},
        {1, 2, 0x02, "invalid MSN - no buffer available"},
        {1, 2, 0x06, "invalid DDP version"},
        {2, 0, 0x07, "no matching RTR"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        DW_CASE_HERE("v[%zu]", i);
        CHECK(dw_rdmap_term_known(v[i].l, v[i].e, v[i].c));
        CHECK(strcmp(dw_rdmap_term_str(v[i].l, v[i].e, v[i].c), v[i].name) == 0);
    }
    CHECK(!dw_rdmap_term_known(0, 1, 0x05)); /* version is an operation error */
    CHECK(!dw_rdmap_term_known(0, 2, 0x00));
    CHECK(!dw_rdmap_term_known(1, 2, 0x00));
    CHECK(!dw_rdmap_term_known(1, 3, 0x00));
    CHECK(!dw_rdmap_term_known(2, 0, 0x00));
    CHECK(!dw_rdmap_term_known(2, 1, 0x01));
    CHECK(!dw_rdmap_term_known(3, 0, 0x00));
    CHECK(strcmp(dw_rdmap_term_str(2, 0, 8), "unknown error code") == 0);
    CHECK(strcmp(dw_rdmap_term_layer_str(1), "DDP") == 0);
    CHECK(strcmp(dw_rdmap_term_layer_str(7), "unknown layer") == 0);
    CHECK(strcmp(dw_rdmap_term_etype_str(1, 2), "untagged buffer error") == 0);
    CHECK(strcmp(dw_rdmap_term_etype_str(0, 1), "remote protection error") == 0);
    CHECK(strcmp(dw_rdmap_term_etype_str(2, 1), "unknown error type") == 0);
    /* exhaustive: known codes are exactly the named ones */
    unsigned known = 0;
    for (unsigned l = 0; l < 16; l++)
        for (unsigned e = 0; e < 16; e++)
            for (unsigned c = 0; c < 256; c++) {
                int k = dw_rdmap_term_known(l, e, c);
                known += (unsigned)k;
                CHECK(k == (strcmp(dw_rdmap_term_str(l, e, c), "unknown error code") != 0));
            }
    /* 256 + 7 + 6 (RDMAP) + 256 + 5 + 6 (DDP) + 7 (MPA) */
    CHECK_EQ_U(known, 256 + 7 + 6 + 256 + 5 + 6 + 7);
}

/* ---- validation -------------------------------------------------------- */

static void set_untagged(dw_rdmap_msg *m, unsigned op, uint32_t qn)
{
    memset(m, 0, sizeof *m);
    m->hdr.last = 1;
    m->hdr.ddp_ver = 1;
    m->hdr.rdmap_ver = 1;
    m->hdr.opcode = (uint8_t)op;
    m->hdr.qn = qn;
    m->hdr.msn = 1;
}

/* each rule: one message that breaks exactly it, checked through the wire */
static void expect(const dw_rdmap_msg *m, unsigned flags, dw_rdmap_reason want,
                   uint8_t layer, uint8_t etype, uint8_t code)
{
    uint8_t w[128];
    ssize_t n = dw_rdmap_encode(w, sizeof w, m);
    CHECK(n > 0);
    dw_rdmap_msg d;
    CHECK_EQ_U(dw_rdmap_decode(&d, w, (size_t)n), n - (ssize_t)m->payload_len);
    dw_rdmap_reason r = dw_rdmap_validate(&d, flags);
    CHECK_EQ_U(r, want);
    if (r != want)
        fprintf(stderr, "  got %s want %s\n", dw_rdmap_reason_str(r), dw_rdmap_reason_str(want));
    if (want == DW_RDMAP_OK)
        return;
    CHECK_EQ_U(dw_rdmap_validate(&d, flags & ~DW_RDMAP_STRICT),
               flags & DW_RDMAP_STRICT ? DW_RDMAP_OK : want);
    dw_rdmap_term t = {0};
    CHECK_EQ_U(dw_rdmap_reason_term(&t, r, &d.hdr), 0);
    CHECK(t.layer == layer && t.etype == etype && t.code == code);
    CHECK(dw_rdmap_term_known(t.layer, t.etype, t.code));
}

static void test_validate(void)
{
    static const uint8_t two[2] = {1, 2};
    dw_rdmap_msg m;
    /* the good ones */
    for (unsigned op = DW_RDMAP_SEND; op <= DW_RDMAP_SEND_SE_INV; op++) {
        set_untagged(&m, op, 0);
        m.hdr.inv_stag = (op == DW_RDMAP_SEND_INV || op == DW_RDMAP_SEND_SE_INV) ? 0x1234 : 0;
        expect(&m, DW_RDMAP_STRICT, DW_RDMAP_OK, 0, 0, 0);
    }
    set_untagged(&m, DW_RDMAP_READ_REQ, 1);
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_OK, 0, 0, 0);
    set_untagged(&m, DW_RDMAP_TERMINATE, 2);
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_OK, 0, 0, 0);
    set_untagged(&m, DW_RDMAP_WRITE, 0);
    m.hdr.tagged = 1;
    m.hdr.last = 0;
    m.payload = two;
    m.payload_len = 2;
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_OK, 0, 0, 0);
    m.hdr.opcode = DW_RDMAP_READ_RESP;
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_OK, 0, 0, 0);

    /* RFC 5041: DDP version 1; tagged and untagged codes differ */
    set_untagged(&m, DW_RDMAP_SEND, 0);
    m.hdr.ddp_ver = 2;
    expect(&m, 0, DW_RDMAP_BAD_DDP_VERSION, 1, 2, 6);
    m.hdr.tagged = 1;
    m.hdr.opcode = DW_RDMAP_WRITE;
    expect(&m, 0, DW_RDMAP_BAD_DDP_VERSION, 1, 1, 4);
    set_untagged(&m, DW_RDMAP_SEND, 0);
    m.hdr.ddp_rsvd = 8;
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_BAD_DDP_RSVD, 0, 2, 0xff);
    set_untagged(&m, DW_RDMAP_SEND, 3);
    expect(&m, 0, DW_RDMAP_BAD_QN, 1, 2, 1);
    set_untagged(&m, DW_RDMAP_SEND, 0);
    m.hdr.rdmap_ver = 0;
    expect(&m, 0, DW_RDMAP_BAD_RDMAP_VERSION, 0, 2, 5);
    set_untagged(&m, DW_RDMAP_SEND, 0);
    m.hdr.rdmap_rsvd = 1;
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_BAD_RDMAP_RSVD, 0, 2, 0xff);
    for (unsigned op = 8; op < 16; op++) {
        set_untagged(&m, op, 0);
        expect(&m, 0, DW_RDMAP_BAD_OPCODE, 0, 2, 6);
    }
    /* buffer model: Write / Read Response tagged, the rest untagged */
    set_untagged(&m, DW_RDMAP_WRITE, 0);
    expect(&m, 0, DW_RDMAP_BAD_BUFFER_MODEL, 0, 2, 6);
    set_untagged(&m, DW_RDMAP_READ_RESP, 0);
    expect(&m, 0, DW_RDMAP_BAD_BUFFER_MODEL, 0, 2, 6);
    set_untagged(&m, DW_RDMAP_SEND, 0);
    m.hdr.tagged = 1;
    expect(&m, 0, DW_RDMAP_BAD_BUFFER_MODEL, 0, 2, 6);
    set_untagged(&m, DW_RDMAP_READ_REQ, 1);
    m.hdr.tagged = 1;
    expect(&m, 0, DW_RDMAP_BAD_BUFFER_MODEL, 0, 2, 6);
    /* queue per opcode */
    set_untagged(&m, DW_RDMAP_SEND_SE, 1);
    expect(&m, 0, DW_RDMAP_BAD_QUEUE, 0, 2, 6);
    set_untagged(&m, DW_RDMAP_READ_REQ, 0);
    expect(&m, 0, DW_RDMAP_BAD_QUEUE, 0, 2, 6);
    set_untagged(&m, DW_RDMAP_TERMINATE, 1);
    expect(&m, 0, DW_RDMAP_BAD_QUEUE, 0, 2, 6);
    /* one segment: L, MO 0, nothing after the header */
    set_untagged(&m, DW_RDMAP_READ_REQ, 1);
    m.hdr.last = 0;
    expect(&m, 0, DW_RDMAP_BAD_NOT_LAST, 0, 2, 0xff);
    set_untagged(&m, DW_RDMAP_TERMINATE, 2);
    m.hdr.last = 0;
    expect(&m, 0, DW_RDMAP_BAD_NOT_LAST, 0, 2, 0xff);
    set_untagged(&m, DW_RDMAP_READ_REQ, 1);
    m.hdr.mo = 28;
    expect(&m, 0, DW_RDMAP_BAD_MO, 1, 2, 4);
    set_untagged(&m, DW_RDMAP_TERMINATE, 2);
    m.hdr.mo = 4;
    expect(&m, 0, DW_RDMAP_BAD_MO, 1, 2, 4);
    set_untagged(&m, DW_RDMAP_READ_REQ, 1);
    m.payload = two;
    m.payload_len = 1;
    expect(&m, 0, DW_RDMAP_BAD_LENGTH, 1, 2, 5);
    set_untagged(&m, DW_RDMAP_TERMINATE, 2);
    m.payload = two;
    m.payload_len = 2;
    expect(&m, 0, DW_RDMAP_BAD_LENGTH, 1, 2, 5);
    /* reserved fields, strict only */
    set_untagged(&m, DW_RDMAP_SEND, 0);
    m.hdr.inv_stag = 5;
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_BAD_ULP_RSVD, 0, 2, 0xff);
    set_untagged(&m, DW_RDMAP_TERMINATE, 2);
    m.term.reserved = 1;
    expect(&m, DW_RDMAP_STRICT, DW_RDMAP_BAD_TERM_RSVD, 0, 2, 0xff);
    /* names, and no Terminate for OK */
    CHECK(strcmp(dw_rdmap_reason_str(DW_RDMAP_BAD_QN), "DW_RDMAP_BAD_QN") == 0);
    CHECK(strcmp(dw_rdmap_reason_str((dw_rdmap_reason)99), "DW_RDMAP_UNKNOWN") == 0);
    dw_rdmap_term t;
    CHECK_EQ_U(dw_rdmap_reason_term(&t, DW_RDMAP_OK, &m.hdr), DW_ERR_INVAL);
    CHECK_EQ_U(dw_rdmap_reason_term(&t, (dw_rdmap_reason)99, &m.hdr), DW_ERR_INVAL);
}

/* ---- DDP header details ---------------------------------------------- */

static void test_ddp_fields(void)
{
    /* every control field value decodes, re-encodes, and splits as the bits say */
    for (unsigned c = 0; c < 0x10000; c++) {
        uint8_t in[18], out[18];
        for (int i = 0; i < 18; i++)
            in[i] = (uint8_t)(0x11 * i + c);
        in[0] = (uint8_t)(c >> 8);
        in[1] = (uint8_t)c;
        dw_ddp_hdr h;
        size_t want = (c & 0x8000) ? 14 : 18;
        ssize_t n = dw_ddp_decode(&h, in, sizeof in);
        CHECK_EQ_U(n, want);
        if (h.ctrl != c || h.tagged != !!(c & 0x8000) || h.last != !!(c & 0x4000) ||
            h.ddp_rsvd != (c >> 10 & 15) || h.ddp_ver != (c >> 8 & 3) ||
            h.rdmap_ver != (c >> 6 & 3) || h.rdmap_rsvd != (c >> 4 & 3) || h.opcode != (c & 15))
            CHECK(0);
        CHECK_EQ_U(dw_ddp_encode(out, sizeof out, &h), want);
        if (memcmp(in, out, want) != 0)
            CHECK(0);
        CHECK_EQ_U(dw_ddp_decode(&h, in, want - 1), DW_ERR_NEED_MORE);
    }
    /* field order and width, tagged and untagged */
    uint8_t t[14], u[18];
    unhex(t, "8000 01020304 05060708090a0b0c");
    unhex(u, "0000 01020304 05060708 090a0b0c 0d0e0f10");
    dw_ddp_hdr h;
    CHECK_EQ_U(dw_ddp_decode(&h, t, 14), 14);
    CHECK(h.stag == 0x01020304u && h.to == 0x05060708090a0b0cull);
    CHECK_EQ_U(dw_ddp_decode(&h, u, 18), 18);
    CHECK(h.inv_stag == 0x01020304u && h.qn == 0x05060708u && h.msn == 0x090a0b0cu &&
          h.mo == 0x0d0e0f10u);
    CHECK_EQ_U(dw_ddp_decode(&h, u, 0), DW_ERR_NEED_MORE);
    CHECK_EQ_U(dw_ddp_decode(&h, u, 1), DW_ERR_NEED_MORE);
    CHECK_EQ_U(dw_ddp_decode(NULL, u, 18), DW_ERR_INVAL);
    CHECK_EQ_U(dw_ddp_decode(&h, NULL, 18), DW_ERR_INVAL);
    /* fields wider than their bits */
    uint8_t out[18];
    dw_ddp_hdr e = {0};
    e.ddp_ver = 4;
    CHECK_EQ_U(dw_ddp_encode(out, sizeof out, &e), DW_ERR_INVAL);
    e.ddp_ver = 1;
    e.opcode = 16;
    CHECK_EQ_U(dw_ddp_encode(out, sizeof out, &e), DW_ERR_INVAL);
    e.opcode = 0;
    e.rdmap_rsvd = 4;
    CHECK_EQ_U(dw_ddp_encode(out, sizeof out, &e), DW_ERR_INVAL);
    e.rdmap_rsvd = 0;
    e.ddp_rsvd = 16;
    CHECK_EQ_U(dw_ddp_encode(out, sizeof out, &e), DW_ERR_INVAL);
    e.ddp_rsvd = 0;
    CHECK_EQ_U(dw_ddp_encode(out, 17, &e), DW_ERR_NOSPACE);
    e.tagged = 1;
    CHECK_EQ_U(dw_ddp_encode(out, 13, &e), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_ddp_encode(out, 14, &e), 14);
    /* Read Request and rping too short / no room */
    dw_rdmap_read_req rr;
    dw_rping_info ri = {0};
    CHECK_EQ_U(dw_rdmap_read_req_decode(&rr, u, 18), DW_ERR_NEED_MORE);
    CHECK_EQ_U(dw_rdmap_read_req_encode(out, 18, &rr), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_rping_info_decode(&ri, u, 15), DW_ERR_NEED_MORE);
    CHECK_EQ_U(dw_rping_info_encode(out, 15, &ri), DW_ERR_NOSPACE);
}

/* random messages: encode, decode, equal fields, encode again, equal octets */
static void rand_msg(dw_rdmap_msg *m, uint64_t *s, uint8_t *pay, size_t pay_cap, uint8_t *copy)
{
    uint64_t r = dw_rand(s);
    memset(m, 0, sizeof *m);
    dw_ddp_hdr *h = &m->hdr;
    h->tagged = (int)(r & 1);
    h->last = (int)(r >> 1 & 1);
    h->ddp_ver = (uint8_t)(r >> 2 & 3);
    h->rdmap_ver = (uint8_t)(r >> 4 & 3);
    h->ddp_rsvd = (uint8_t)(r >> 6 & 15);
    h->rdmap_rsvd = (uint8_t)(r >> 10 & 3);
    h->opcode = (uint8_t)(r >> 12 & 7);
    h->stag = (uint32_t)dw_rand(s);
    h->to = dw_rand(s);
    h->inv_stag = (uint32_t)dw_rand(s);
    h->qn = (uint32_t)dw_rand(s) % 4;
    h->msn = (uint32_t)dw_rand(s);
    h->mo = (uint32_t)dw_rand(s);
    m->read_req.sink_stag = (uint32_t)dw_rand(s);
    m->read_req.sink_to = dw_rand(s);
    m->read_req.size = (uint32_t)dw_rand(s);
    m->read_req.src_stag = (uint32_t)dw_rand(s);
    m->read_req.src_to = dw_rand(s);
    dw_rdmap_term *t = &m->term;
    t->layer = (uint8_t)(r >> 16 & 15);
    t->etype = (uint8_t)(r >> 20 & 15);
    t->code = (uint8_t)(r >> 24);
    t->m = (int)(r >> 32 & 1);
    t->d = (int)(r >> 33 & 1);
    t->r = (int)(r >> 34 & 1);
    t->reserved = (uint16_t)(r >> 35 & 0x1fff);
    t->swapped = (int)(r >> 48 & 1);
    t->ddp_seg_len = (uint16_t)(r >> 49);
    for (size_t k = 0; k < 48; k++)
        copy[k] = (uint8_t)dw_rand(s);
    copy[0] = (uint8_t)((copy[0] & 0x80) | 0x41); /* tagged or not; L, v1 */
    copy[1] = (uint8_t)(r >> 63 ? 0x41 : 0x43);   /* Read Request or Send */
    if (t->d) {
        t->ddp_hdr = copy;
        t->ddp_hdr_len = DW_DDP_HDR_LEN(copy[0] & 0x80);
    }
    int copy_rreq = !(copy[0] & 0x80) && (copy[1] & 15) == DW_RDMAP_READ_REQ;
    if (t->r && (!t->d || copy_rreq)) {
        t->rdma_hdr = copy + 20;
        t->rdma_hdr_len = 28;
    }
    m->payload = pay;
    m->payload_len = (size_t)(dw_rand(s) % pay_cap);
    for (size_t k = 0; k < m->payload_len; k++)
        pay[k] = (uint8_t)dw_rand(s);
}

/* A Terminate read in the layout it was written in gives its fields back. */
static void check_term_forced(const dw_rdmap_term *t, const uint8_t *w, size_t len)
{
    dw_rdmap_term x;
    dw_rdmap_term_layout lay = t->swapped ? DW_RDMAP_TERM_SIW : DW_RDMAP_TERM_RFC;
    CHECK_EQ_U(dw_rdmap_term_decode_as(&x, w, len, lay), len);
    CHECK(x.layer == t->layer && x.etype == t->etype && x.code == t->code && x.m == t->m &&
          x.d == t->d && x.r == t->r && x.reserved == t->reserved &&
          x.ddp_hdr_len == t->ddp_hdr_len && x.rdma_hdr_len == t->rdma_hdr_len);
    if (t->d)
        CHECK(x.ddp_seg_len == t->ddp_seg_len &&
              memcmp(x.ddp_hdr, t->ddp_hdr, t->ddp_hdr_len) == 0);
    if (t->rdma_hdr_len)
        CHECK(memcmp(x.rdma_hdr, t->rdma_hdr, t->rdma_hdr_len) == 0);
}

static void check_hdr_equal(const dw_ddp_hdr *a, const dw_ddp_hdr *b)
{
    CHECK(a->tagged == b->tagged && a->last == b->last && a->opcode == b->opcode &&
          a->ddp_ver == b->ddp_ver && a->rdmap_ver == b->rdmap_ver &&
          a->ddp_rsvd == b->ddp_rsvd && a->rdmap_rsvd == b->rdmap_rsvd);
    if (a->tagged)
        CHECK(a->stag == b->stag && a->to == b->to);
    else
        CHECK(a->inv_stag == b->inv_stag && a->qn == b->qn && a->msn == b->msn && a->mo == b->mo);
}

static void test_random_roundtrip(void)
{
    uint64_t s = dw_test_seed();
    int iters = getenv("DW_TEST_QUICK") ? 2000 : 50000;
    for (int i = 0; i < iters; i++) {
        uint8_t w[256], w2[256], pay[64], copy[48];
        dw_rdmap_msg m, d;
        rand_msg(&m, &s, pay, sizeof pay, copy);
        ssize_t n = dw_rdmap_encode(w, sizeof w, &m);
        CHECK(n > 0);
        if (n <= 0)
            continue;
        int term = !m.hdr.tagged && m.hdr.opcode == DW_RDMAP_TERMINATE;
        if (term)
            check_term_forced(&m.term, w + 18, (size_t)n - 18 - m.payload_len);
        ssize_t h = dw_rdmap_decode(&d, w, (size_t)n);
        if (term && h < 0) { /* auto read the other layout, whose flags want more */
            CHECK_EQ_U(h, DW_ERR_NEED_MORE);
            continue;
        }
        if (!term) { /* (auto may read a Terminate in the other layout) */
            CHECK_EQ_U(h + (ssize_t)m.payload_len, n);
            CHECK(d.payload_len == m.payload_len && memcmp(d.payload, pay, m.payload_len) == 0);
        }
        check_hdr_equal(&d.hdr, &m.hdr);
        if (!m.hdr.tagged && m.hdr.opcode == DW_RDMAP_READ_REQ)
            CHECK(memcmp(&d.read_req, &m.read_req, sizeof d.read_req) == 0);
        CHECK_EQ_U(dw_rdmap_encode(w2, sizeof w2, &d), n);
        CHECK(memcmp(w, w2, (size_t)n) == 0);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        snprintf(data_dir, sizeof data_dir, "%s", argv[1]);
    } else {
        snprintf(data_dir, sizeof data_dir, "%s", DW_TEST_DATA);
    }
    RUN(test_siw_streams);
    RUN(test_figure5);
    RUN(test_term_siw_real);
    RUN(test_term_vectors);
    RUN(test_term_encode_errors);
    RUN(test_term_names);
    RUN(test_validate);
    RUN(test_ddp_fields);
    RUN(test_random_roundtrip);
    return dw_test_finish();
}
