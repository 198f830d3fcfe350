/*
 * IFT checker: the buffer. Sizes, DDP header and header CRC of each frame
 * wait here with their segment tags until the header CRC can be judged;
 * after lost boundaries the search looks for a matching header CRC here.
 *
 * The search tries every position, each with its own header_size, so it
 * does not recompute CRC32c over each candidate header: the buffer keeps
 * CRC32c checkpoints from a fixed origin every 32 octets, and the CRC of
 * octets [a, b) is P(b) xor P(a) * x^(8 (b - a)) mod P, where P(i) is the
 * CRC32c from the origin to i (the identity behind dw_crc32c_combine()).
 */
#include <ddpwire/crc32c.h>

#include <string.h>

#include "bytes.h"
#include "crc32c_impl.h"
#include "ift_check_int.h"

/* ------------------------------------------------------------------ */
/* CRC of a buffered range                                             */
/* ------------------------------------------------------------------ */

void dw_ic_tables(dw_ift_check *c)
{
    c->xlo[0] = c->xhi[0] = 0x80000000u; /* 1, reflected */
    c->xlo[1] = 0x00800000u;             /* x^8 */
    for (unsigned k = 2; k < 256; k++)
        c->xlo[k] = dw_crc32c_gf2_mul(c->xlo[k - 1], c->xlo[1]);
    c->xhi[1] = dw_crc32c_gf2_mul(c->xlo[255], c->xlo[1]);
    for (unsigned k = 2; k < 257; k++)
        c->xhi[k] = dw_crc32c_gf2_mul(c->xhi[k - 1], c->xhi[1]);
}

/* CRC32c from the origin to buffer index i. */
static uint32_t prefix(const dw_ift_check *c, size_t i)
{
    size_t j = i / DW_IC_CP;
    return dw_crc32c(c->cp[j], c->buf + j * DW_IC_CP, i - j * DW_IC_CP);
}

/* CRC32c of buffer octets [a, b), b - a < 65792. */
static uint32_t range_crc(const dw_ift_check *c, size_t a, size_t b)
{
    size_t n = b - a;
    uint32_t x = dw_crc32c_gf2_mul(c->xlo[n & 255u], c->xhi[n >> 8]);
    return prefix(c, b) ^ dw_crc32c_gf2_mul(x, prefix(c, a));
}

/* ------------------------------------------------------------------ */
/* The buffer                                                          */
/* ------------------------------------------------------------------ */

void dw_ic_buf_reset(dw_ift_check *c, uint64_t off)
{
    c->bstart = c->blen = 0;
    c->dstart = c->dcount = 0;
    c->buf_base = off;
    c->need = 0;
    c->run = 0;
    c->cp[0] = 0;
}

/* Gives up the first n buffered octets (skipped: not checked). */
void dw_ic_buf_drop(dw_ift_check *c, size_t n, int skipped)
{
    c->bstart += n;
    c->need = 0;
    if (skipped) {
        c->st.skipped_octets += n;
        c->lost_skipped += n;
    }
    uint64_t o = c->buf_base + c->bstart;
    while (c->dstart < c->dcount &&
           c->desc[c->dstart].off + c->desc[c->dstart].len <= o)
        c->dstart++;
}

/* Moves the octets still wanted (from a checkpoint) to the front. */
static void compact(dw_ift_check *c)
{
    size_t d = c->bstart - c->bstart % DW_IC_CP;
    if (d) {
        memmove(c->buf, c->buf + d, c->blen - d);
        memmove(c->cp, c->cp + d / DW_IC_CP,
                ((c->blen - d) / DW_IC_CP + 1) * sizeof *c->cp);
        c->buf_base += d;
        c->blen -= d;
        c->bstart -= d;
        c->need = c->need > d ? c->need - d : 0;
    }
    if (c->dstart) {
        memmove(c->desc, c->desc + c->dstart,
                (c->dcount - c->dstart) * sizeof *c->desc);
        c->dcount -= c->dstart;
        c->dstart = 0;
    }
}

/* Does s go on the last piece's segment? */
static int continues(const dw_ift_check *c, const dw_ic_slice *s)
{
    const dw_ic_slice *l = c->dcount > c->dstart ? &c->desc[c->dcount - 1] : NULL;
    return l && l->pkt == s->pkt && l->tagged == s->tagged && !l->seg_end &&
           !s->seg_start && l->off + l->len == s->off;
}

static void add_desc(dw_ift_check *c, const dw_ic_slice *s, size_t k)
{
    dw_ic_slice *l = c->dcount > c->dstart ? &c->desc[c->dcount - 1] : NULL;
    if (l && (continues(c, s) || c->dcount == DW_IC_DESC_CAP)) {
        l->len += (uint32_t)k; /* when full: credited to l's segment */
        l->seg_end = s->seg_end && k == s->len;
        return;
    }
    dw_ic_slice d = *s;
    d.len = (uint32_t)k;
    d.seg_end = s->seg_end && k == s->len;
    c->desc[c->dcount++] = d;
}

size_t dw_ic_buf_put(dw_ift_check *c, const uint8_t *in, size_t n,
                     const dw_ic_slice *s)
{
    if (c->bstart == c->blen)
        dw_ic_buf_reset(c, s->off);
    if (c->cap - c->blen < n || c->dcount == DW_IC_DESC_CAP)
        compact(c);
    if (c->dcount == DW_IC_DESC_CAP && c->state == DW_IC_SEARCH && !continues(c, s))
        return 0; /* the caller gives up the candidate that waits */
    size_t k = c->cap - c->blen < n ? c->cap - c->blen : n;
    for (size_t done = 0; done < k;) {
        size_t m = DW_IC_CP - c->blen % DW_IC_CP;
        m = m < k - done ? m : k - done;
        memcpy(c->buf + c->blen, in + done, m);
        c->run = dw_crc32c(c->run, in + done, m);
        c->blen += m;
        done += m;
        if (c->blen % DW_IC_CP == 0)
            c->cp[c->blen / DW_IC_CP] = c->run;
    }
    if (k)
        add_desc(c, s, k);
    return k;
}

/* Octets buffered from index i within one piece, with its tags; the
 * search for the piece begins at piece *d (updated). */
static size_t piece_from(const dw_ift_check *c, size_t *d, size_t i, dw_ic_slice *s)
{
    uint64_t o = c->buf_base + i;
    while (*d + 1 < c->dcount && c->desc[*d].off + c->desc[*d].len <= o)
        ++*d;
    const dw_ic_slice *p = &c->desc[*d];
    uint32_t skip = (uint32_t)(o - p->off);
    *s = *p;
    s->off = o;
    s->seq = p->seq + skip;
    s->seg_start = p->seg_start && skip == 0;
    s->len = p->len - skip;
    size_t left = c->blen - i;
    return s->len < left ? s->len : left;
}

size_t dw_ic_piece_at(const dw_ift_check *c, size_t i, dw_ic_slice *s)
{
    size_t d = c->dstart;
    return piece_from(c, &d, i, s);
}

/* Notes the segments of buffered octets [i, i + n) in the frame record;
 * returns non-zero when their last segment goes on after them. */
int dw_ic_span_tags(dw_ift_check *c, size_t i, size_t n)
{
    size_t end = i + n, d = c->dstart;
    int more = 0;
    while (i < end) {
        dw_ic_slice s;
        size_t k = piece_from(c, &d, i, &s);
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
    if (c->blen - i < DW_IFT_SIZES_LEN) {
        t->need = i + DW_IFT_SIZES_LEN;
        return DW_IC_T_MORE;
    }
    const uint8_t *p = c->buf + i;
    t->h = dw_get_be16(p);
    t->p = dw_get_be16(p + 2);
    if (t->h > c->set.max_header || t->p > c->set.max_payload)
        return DW_IC_T_SIZE;
    if (search && t->h < DW_IC_MIN_HEADER)
        return DW_IC_T_SHORT;
    size_t end = i + DW_IFT_SIZES_LEN + t->h;
    if (c->blen < end + DW_IFT_CRC_LEN) {
        t->need = end + DW_IFT_CRC_LEN;
        return DW_IC_T_MORE;
    }
    t->wire = dw_crc32c_load(c->buf + end);
    t->calc = range_crc(c, i, end);
    return t->wire == t->calc ? DW_IC_T_OK : DW_IC_T_CRC;
}
