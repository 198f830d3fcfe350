/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: DDP headers and whole RDMAP ULPDUs. Whatever decodes must
 * lie inside the input, re-encode to the very same octets, and be "need
 * more" one octet shorter; the Terminate layouts must agree with auto
 * detection; validation and its Terminate mapping must give table codes.
 */
#include <ddpwire/ddp.h>
#include <ddpwire/rdmap.h>

#include <stdlib.h>
#include <string.h>

static void check_ddp(const uint8_t *data, size_t size)
{
    dw_ddp_hdr h;
    uint8_t out[DW_DDP_UNTAGGED_HDR_LEN];
    ssize_t n = dw_ddp_decode(&h, data, size);
    if (n == DW_ERR_NEED_MORE) {
        if (size >= 2 && size >= DW_DDP_HDR_LEN(data[0] & 0x80))
            abort();
        return;
    }
    if ((n != 14 && n != 18) || (size_t)n > size || n != (ssize_t)DW_DDP_HDR_LEN(h.tagged))
        abort();
    if (dw_ddp_encode(out, sizeof out, &h) != n || memcmp(out, data, (size_t)n))
        abort();
    if (dw_ddp_decode(&h, data, (size_t)n - 1) != DW_ERR_NEED_MORE)
        abort();
}

static int inside(const uint8_t *p, size_t n, const uint8_t *data, size_t size)
{
    return !n || (p >= data && p <= data + size && n <= (size_t)(data + size - p));
}

/* The three layouts: auto equals one of the forced ones. */
static void check_term(const uint8_t *in, size_t len)
{
    dw_rdmap_term a, r, s;
    ssize_t na = dw_rdmap_term_decode(&a, in, len);
    ssize_t nr = dw_rdmap_term_decode_as(&r, in, len, DW_RDMAP_TERM_RFC);
    ssize_t ns = dw_rdmap_term_decode_as(&s, in, len, DW_RDMAP_TERM_SIW);
    if (na < 0) {
        if (na != DW_ERR_NEED_MORE || (nr >= 0 && ns >= 0))
            abort();
    } else if (na != (a.swapped ? ns : nr)) {
        abort();
    }
    if (na >= 0 && a.ambiguous && (a.swapped || !a.known || s.layer == r.layer))
        abort();
    if (nr >= 0 && (r.swapped || !inside(r.ddp_hdr, r.ddp_hdr_len, in, len) ||
                    !inside(r.rdma_hdr, r.rdma_hdr_len, in, len)))
        abort();
    if (ns >= 0 && !s.swapped)
        abort();
}

static void check_msg(const uint8_t *data, size_t size)
{
    dw_rdmap_msg m;
    ssize_t n = dw_rdmap_decode(&m, data, size);
    if (n < 0) {
        if (n != DW_ERR_NEED_MORE)
            abort();
        return;
    }
    if ((size_t)n > size || m.payload != data + n || m.payload_len != size - (size_t)n ||
        !inside(m.term.ddp_hdr, m.term.ddp_hdr_len, data, size) ||
        !inside(m.term.rdma_hdr, m.term.rdma_hdr_len, data, size))
        abort();
    uint8_t *out = malloc(size); /* exact size: ASan sees any overrun */
    if (!out)
        return;
    if (dw_rdmap_encode(out, size, &m) != (ssize_t)size || memcmp(out, data, size))
        abort();
    if (size && dw_rdmap_encode(out, size - 1, &m) != DW_ERR_NOSPACE)
        abort();
    free(out);
    dw_rdmap_msg p;
    if (dw_rdmap_decode(&p, data, (size_t)n - 1) != DW_ERR_NEED_MORE)
        abort();
    for (unsigned f = 0; f < 2; f++) {
        dw_rdmap_reason why = dw_rdmap_validate(&m, f);
        dw_rdmap_term t;
        if (!dw_rdmap_reason_str(why))
            abort();
        if (why == DW_RDMAP_OK)
            continue;
        if (dw_rdmap_reason_term(&t, why, &m.hdr) || !dw_rdmap_term_known(t.layer, t.etype, t.code))
            abort();
    }
    if (!dw_rdmap_term_str(m.term.layer, m.term.etype, m.term.code) ||
        !dw_rdmap_term_etype_str(m.term.layer, m.term.etype) ||
        !dw_rdmap_term_layer_str(m.term.layer))
        abort();
}

static void check_fixed(const uint8_t *data, size_t size)
{
    uint8_t out[DW_RDMAP_READ_REQ_LEN];
    dw_rdmap_read_req rr;
    dw_rping_info ri;
    ssize_t n = dw_rdmap_read_req_decode(&rr, data, size);
    if (n != (size >= 28 ? 28 : DW_ERR_NEED_MORE))
        abort();
    if (n > 0 && (dw_rdmap_read_req_encode(out, sizeof out, &rr) != 28 || memcmp(out, data, 28)))
        abort();
    n = dw_rping_info_decode(&ri, data, size);
    if (n != (size >= 16 ? 16 : DW_ERR_NEED_MORE))
        abort();
    if (n > 0 && (dw_rping_info_encode(out, sizeof out, &ri) != 16 || memcmp(out, data, 16)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_ddp(data, size);
    check_msg(data, size);
    check_fixed(data, size);
    check_term(data, size);
    if (size > DW_DDP_UNTAGGED_HDR_LEN)
        check_term(data + DW_DDP_UNTAGGED_HDR_LEN, size - DW_DDP_UNTAGGED_HDR_LEN);
    return 0;
}
