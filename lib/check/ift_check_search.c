/* SPDX-License-Identifier: MIT */
/*
 * IFT checker: the buffer. Sizes, DDP header and header CRC of each frame
 * wait here with their segment tags until the header CRC can be judged;
 * after lost boundaries the search looks for a matching header CRC here.
 *
 * The search tries every position, each with its own header_size, so it
 * does not recompute CRC32c over each candidate header: the CRC of a
 * candidate comes from the checkpoints kept over the buffer (dw_cc_crcs).
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift_check.h>

#include <string.h>

#include "base/bytes.h"
#include "check/ift_check_int.h"

/* ------------------------------------------------------------------ */
/* The buffer                                                          */
/* ------------------------------------------------------------------ */

void dw_ic_buf_reset(dw_ift_check *c, uint64_t off)
{
    dw_cc_buf_reset(&c->b, off);
}

/* Gives up the first n buffered octets (skipped: not checked). */
void dw_ic_buf_drop(dw_ift_check *c, size_t n, int skipped)
{
    if (skipped) {
        c->st.skipped_octets += n;
        c->lost_skipped += n;
    }
    dw_cc_buf_skip(&c->b, n);
}


size_t dw_ic_buf_put(dw_ift_check *c, const uint8_t *in, size_t n,
                     const dw_cc_slice *s)
{
    if (c->b.start == c->b.len)
        dw_ic_buf_reset(c, s->off);
    if (c->b.cap - c->b.len < n || c->b.dcount == c->b.dcap)
        dw_cc_buf_shift(&c->b, c->b.start); /* the octets still wanted to the front */
    if (c->b.dcount == c->b.dcap && c->state == DW_IC_SEARCH &&
        !dw_cc_piece_continues(&c->b, s))
        return 0; /* the caller gives up the candidate that waits */
    size_t k = c->b.cap - c->b.len < n ? c->b.cap - c->b.len : n;
    dw_cc_buf_grow(&c->b, c->b.len + k);
    k = c->b.alloc - c->b.len < k ? c->b.alloc - c->b.len : k;
    memcpy(c->b.buf + c->b.len, in, k);
    c->b.len += k;
    if (k)
        dw_cc_piece_add(&c->b, s, k);
    return k;
}

/* Notes the segments of buffered octets [i, i + n) in the frame record;
 * returns non-zero when their last segment goes on after them. */
int dw_ic_span_tags(dw_ift_check *c, size_t i, size_t n)
{
    size_t end = i + n, d = c->b.dstart;
    int more = 0;
    while (i < end) {
        dw_cc_slice s;
        size_t k = dw_cc_piece_from(&c->b, &d, i, &s);
        dw_ic_rec_touch(c, &s);
        more = k > end - i || !s.seg_end;
        i += k < end - i ? k : end - i;
    }
    return more;
}

/* ------------------------------------------------------------------ */
/* A header at buffer index i                                          */
/* ------------------------------------------------------------------ */

/* IFT 3.1: sizes, DDP header, header CRC over both. search: a header
 * shorter than DW_IC_MIN_HEADER is not a candidate. */
int dw_ic_try(const dw_ift_check *c, size_t i, int search, dw_ic_trial *t)
{
    if (c->b.len - i < DW_IFT_SIZES_LEN) {
        t->need = i + DW_IFT_SIZES_LEN;
        return DW_IC_T_MORE;
    }
    const uint8_t *p = c->b.buf + i;
    t->h = dw_get_be16(p);
    t->p = dw_get_be16(p + 2);
    if (t->h > c->set.max_header || t->p > c->set.max_payload)
        return DW_IC_T_SIZE;
    if (search && t->h < DW_IC_MIN_HEADER)
        return DW_IC_T_SHORT;
    size_t end = i + DW_IFT_SIZES_LEN + t->h;
    if (c->b.len < end + DW_IFT_CRC_LEN) {
        t->need = end + DW_IFT_CRC_LEN;
        return DW_IC_T_MORE;
    }
    t->wire = dw_crc32c_load(c->b.buf + end);
    t->calc = dw_cc_crcs_range(&c->crcs, &c->b, i, end);
    return t->wire == t->calc ? DW_IC_T_OK : DW_IC_T_CRC;
}
