/* SPDX-License-Identifier: MIT */
/* DDP segmentation (RFC 5041 5.1) and RDMAP opcode names (RFC 5040 4.2):
 * dw_ddp_segment_next/_count and dw_rdmap_opcode_str, table-driven. */
#include <ddpwire/ddp.h>
#include <ddpwire/rdmap.h>

#include "test.h"

typedef struct seg_case {
    const char *name;
    int tagged;
    size_t len, max_ulpdu;
    uint64_t to;      /* tagged: the message's first TO */
    size_t segments;  /* expected */
    size_t last_len;  /* the last segment's payload */
} seg_case;

static const seg_case cases[] = {
    {"tagged, one segment", 1, 100, 114, 0, 1, 100},
    {"tagged, exact two", 1, 200, 114, 0, 2, 100},
    {"tagged, a tail", 1, 250, 114, 4096, 3, 50},
    {"tagged, zero octets", 1, 0, 114, 7, 1, 0},
    {"untagged, one octet per segment", 0, 5, 19, 0, 5, 1},
    {"untagged, MULPDU 1448", 0, 65536, 1448, 0, 46, 65536 - 45 * 1430},
    {"untagged, zero octets", 0, 0, 19, 0, 1, 0},
};

/* Walks a case: TO/MO contiguous, L on the last only, sizes as promised. */
static void test_segment_table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const seg_case *c = &cases[i];
        DW_CASE("%s", c->name);
        dw_ddp_hdr msg = {.tagged = c->tagged, .ddp_ver = 1, .rdmap_ver = 1,
                          .opcode = c->tagged ? DW_RDMAP_WRITE : DW_RDMAP_SEND, .stag = 0x1234,
                          .to = c->to, .qn = 0, .msn = 9};
        size_t off = 0, n = 0, hl = DW_DDP_HDR_LEN(c->tagged), payload = 0, last_len = 0;
        int order_ok = 1, last_ok = 1;
        do {
            dw_ddp_hdr seg;
            size_t at = off;
            ssize_t got = dw_ddp_segment_next(&seg, &msg, c->len, &off, c->max_ulpdu);
            if (got < 0 || (size_t)got + hl > c->max_ulpdu)
                break;
            order_ok &= c->tagged ? seg.to == c->to + at : seg.mo == at;
            order_ok &= seg.msn == msg.msn && seg.stag == msg.stag && off == at + (size_t)got;
            last_ok &= !seg.last == (off < c->len);
            payload += (size_t)got, last_len = (size_t)got, n++;
        } while (off < c->len && n <= c->segments);
        CHECK_EQ_U(n, c->segments);
        CHECK_EQ_U(payload, c->len);
        CHECK_EQ_U(last_len, c->last_len);
        CHECK(order_ok);
        CHECK(last_ok);
        CHECK_EQ_U(dw_ddp_segment_count(c->len, c->max_ulpdu, c->tagged), c->segments);
    }
}

/* The segments come out as dw_ddp_encode/decode see them. */
static void test_segment_encodes(void)
{
    dw_ddp_hdr msg = {.tagged = 1, .ddp_ver = 1, .rdmap_ver = 1, .opcode = DW_RDMAP_READ_RESP,
                      .stag = 0xabcdef01, .to = 0x100000000ull};
    size_t off = 0;
    int n = 0;
    do {
        dw_ddp_hdr seg, back;
        uint8_t w[DW_DDP_TAGGED_HDR_LEN];
        ssize_t got = dw_ddp_segment_next(&seg, &msg, 3000, &off, 1024);
        CHECK(got > 0);
        CHECK(dw_ddp_encode(w, sizeof w, &seg) == (ssize_t)sizeof w);
        CHECK(dw_ddp_decode(&back, w, sizeof w) == (ssize_t)sizeof w);
        CHECK(back.to == seg.to && back.last == (off == 3000) && back.stag == msg.stag);
    } while (off < 3000 && ++n < 10);
    CHECK_EQ_U(off, 3000);
}

static void test_segment_errors(void)
{
    dw_ddp_hdr msg = {.tagged = 1}, seg;
    size_t off = 0;
    DW_CASE("max_ulpdu not above the header");
    CHECK(dw_ddp_segment_next(&seg, &msg, 10, &off, DW_DDP_TAGGED_HDR_LEN) == DW_ERR_INVAL);
    CHECK_EQ_U(dw_ddp_segment_count(10, DW_DDP_TAGGED_HDR_LEN, 1), 0);
    CHECK_EQ_U(dw_ddp_segment_count(10, DW_DDP_UNTAGGED_HDR_LEN, 0), 0);
    DW_CASE("offset past the message");
    off = 11;
    CHECK(dw_ddp_segment_next(&seg, &msg, 10, &off, 100) == DW_ERR_INVAL);
    off = 10;
    CHECK(dw_ddp_segment_next(&seg, &msg, 10, &off, 100) == DW_ERR_INVAL);
    DW_CASE("TO wraps (RFC 5041 7.2)");
    msg.to = UINT64_MAX - 35, off = 0; /* the last octet at the last TO */
    CHECK(dw_ddp_segment_next(&seg, &msg, 36, &off, 50) == 36 && seg.last);
    off = 0; /* one octet more: the second segment starts past the last TO */
    CHECK(dw_ddp_segment_next(&seg, &msg, 37, &off, 50) == 36);
    CHECK(dw_ddp_segment_next(&seg, &msg, 37, &off, 50) == DW_ERR_INVAL && off == 36);
    msg.to = UINT64_MAX - 5, off = 0; /* the first segment's own octets would wrap */
    CHECK(dw_ddp_segment_next(&seg, &msg, 100, &off, 50) == DW_ERR_INVAL && off == 0);
    DW_CASE("NULL arguments");
    CHECK(dw_ddp_segment_next(NULL, &msg, 1, &off, 50) == DW_ERR_INVAL);
    CHECK(dw_ddp_segment_next(&seg, NULL, 1, &off, 50) == DW_ERR_INVAL);
    CHECK(dw_ddp_segment_next(&seg, &msg, 1, NULL, 50) == DW_ERR_INVAL);
}

static void test_opcode_names(void)
{
    static const struct {
        unsigned op;
        const char *name;
    } t[] = {{DW_RDMAP_WRITE, "Write"},      {DW_RDMAP_READ_REQ, "ReadReq"},
             {DW_RDMAP_READ_RESP, "ReadResp"}, {DW_RDMAP_SEND, "Send"},
             {DW_RDMAP_SEND_INV, "SendInv"},  {DW_RDMAP_SEND_SE, "SendSE"},
             {DW_RDMAP_SEND_SE_INV, "SendSEInv"}, {DW_RDMAP_TERMINATE, "Terminate"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        DW_CASE("opcode %u", t[i].op);
        const char *n = dw_rdmap_opcode_str(t[i].op);
        CHECK(n && !strcmp(n, t[i].name));
    }
    for (unsigned op = 8; op < 16; op++) {
        DW_CASE("reserved opcode %u", op);
        CHECK(dw_rdmap_opcode_str(op) == NULL);
    }
}

int main(void)
{
    RUN(test_segment_table);
    RUN(test_segment_encodes);
    RUN(test_segment_errors);
    RUN(test_opcode_names);
    return dw_test_finish();
}
