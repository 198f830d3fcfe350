/* SPDX-License-Identifier: MIT */
/*
 * The segment receiver's FPDU parser: takes one FPDU from pieces of
 * octets given in stream order, checks its markers and CRC, and strips the
 * markers from its ULPDU (MPA 6, 7.1, 7.2). Whole FPDUs in one piece take
 * a single pass (the one-pass CRC kernel when markers split the ULPDU).
 */
#include <ddpwire/crc32c.h>

#include <string.h>

#include "base/bytes.h"
#include "mpa/mpa_crc.h"
#include "mpa/mpa_internal.h"
#include "mpa/mpa_seg_internal.h"

static int marker_ok(const seg_fsm *f, const uint8_t *m, uint64_t at)
{
    return dw_seg_marker_ok(m, at, f->fpdu, f->hdr);
}

static uint32_t crc_add(const seg_fsm *f, uint32_t crc, const uint8_t *p, size_t n)
{
    return f->crc_on ? dw_crc32c(crc, p, n) : 0;
}

static void finish(seg_fsm *f, uint32_t wire_crc, const uint8_t *data,
                   int *done, seg_done *out)
{
    out->data = data;
    out->ulen = f->ulen;
    out->fpdu = f->fpdu;
    out->end = f->pos;
    out->crc_ok = !f->crc_on || wire_crc == f->crc;
    out->marker_ok = !f->bad;
    *done = 1;
    f->st = SEG_IDLE;
    f->end = 0;
}

uint32_t dw_seg_strip_copy(int crc_on, uint64_t pos, uint64_t hdr, uint32_t ulen,
                           size_t flen, const uint8_t *in, uint8_t *dst)
{
    const dw_mpa_crc_ops *ops = crc_on ? dw_mpa_crc_fast() : NULL;
    if (ops) { /* one pass: fold the image, scatter the ULPDU */
        uint32_t first = DW_MPA_MARKER_INTERVAL - (uint32_t)(pos % DW_MPA_MARKER_INTERVAL);
        dw_mpa_img im = {.len = ulen, .crc_off = (uint32_t)flen - 4,
                         .hdr_off = (uint32_t)(hdr - pos), .mark = first,
                         .ptr_sub = 0}; /* as dw_mpa_img_init(), flen known */
        return ops->rx(&im, in, dst);
    }
    size_t at = (size_t)(hdr - pos) + 2, got = 0;
    uint32_t crc = crc_on ? dw_crc32c(0, in, at) : 0;
    while (got < ulen) {
        uint64_t p = pos + at;
        if (dw_mpa_is_marker_pos(p)) {
            crc = crc_on ? dw_crc32c(crc, in + at, 4) : 0;
            at += 4;
            continue;
        }
        size_t room = DW_MPA_MARKER_INTERVAL - p % DW_MPA_MARKER_INTERVAL;
        size_t take = ulen - got < room ? ulen - got : room;
        crc = crc_on ? dw_crc32c_copy(crc, dst + got, in + at, take)
                     : (memcpy(dst + got, in + at, take), 0);
        got += take;
        at += take;
    }
    return crc_on ? dw_crc32c(crc, in + at, flen - 4 - at) : 0;
}

/* Fast path: a whole FPDU at the start of in. Returns its length, or 0. */
static size_t whole(seg_fsm *f, const uint8_t *in, size_t n, int *done,
                    seg_done *out)
{
    size_t flen = dw_seg_whole(f->markers, f->crc_on, f->pos, in, n, f->dst, out);
    if (flen) {
        f->pos += flen;
        *done = 1; /* (st stays SEG_IDLE, end 0) */
    }
    return flen;
}

static void begin(seg_fsm *f)
{
    f->st = SEG_HDR;
    f->fpdu = f->hdr = f->pos;
    f->crc = 0;
    f->bad = 0;
    f->end = 0;
}

static size_t marker_step(seg_fsm *f, const uint8_t *in, size_t n)
{
    size_t take = 4 - f->pos % DW_MPA_MARKER_INTERVAL;
    take = take < n ? take : n;
    if (f->st == SEG_IDLE) /* MPA 7.1: a marker between FPDUs leads the next */
        begin(f);
    memcpy(f->mark + f->mheld, in, take);
    f->crc = crc_add(f, f->crc, in, take);
    f->mheld += (unsigned)take;
    f->pos += take;
    if (f->mheld == 4) {
        f->mheld = 0;
        f->bad |= !marker_ok(f, f->mark, f->pos - 4);
    }
    return take;
}

static size_t body_step(seg_fsm *f, const uint8_t *in, size_t n)
{
    size_t take = f->body_left < n ? f->body_left : n;
    if (f->markers && take > DW_MPA_MARKER_INTERVAL - f->pos % DW_MPA_MARKER_INTERVAL)
        take = DW_MPA_MARKER_INTERVAL - f->pos % DW_MPA_MARKER_INTERVAL;
    size_t u = f->ulen - f->got;
    u = u < take ? u : take;
    if (f->crc_on)
        f->crc = dw_crc32c_copy(f->crc, f->dst + f->got, in, u);
    else
        memcpy(f->dst + f->got, in, u);
    f->crc = crc_add(f, f->crc, in + u, take - u); /* PAD */
    f->got += (uint32_t)u;
    f->pos += take;
    if (!(f->body_left -= (uint32_t)take))
        f->st = SEG_CRC;
    return take;
}

/* Length field or CRC field octets. */
static size_t field_step(seg_fsm *f, const uint8_t *in, size_t n, int *done,
                         seg_done *out)
{
    if (f->st == SEG_IDLE)
        begin(f);
    size_t want = f->st == SEG_HDR ? 2 : 4;
    size_t take = want - f->held < n ? want - f->held : n;
    if (f->st == SEG_HDR) {
        if (!f->held)
            f->hdr = f->pos;
        f->crc = crc_add(f, f->crc, in, take);
    }
    memcpy(f->hold + f->held, in, take);
    f->held += (unsigned)take;
    f->pos += take;
    if (f->held < want)
        return take;
    f->held = 0;
    if (f->st == SEG_HDR) {
        f->ulen = dw_get_be16(f->hold);
        f->got = 0;
        f->body_left = f->ulen + (uint32_t)dw_mpa_pad_len(f->ulen);
        f->end = f->fpdu + dw_mpa_fpdu_len((uint32_t)f->fpdu, f->ulen, f->markers);
        f->st = SEG_BODY;
        if (!f->body_left)
            f->st = SEG_CRC;
        return take;
    }
    finish(f, dw_crc32c_load(f->hold), f->dst, done, out);
    return take;
}

size_t dw_seg_fsm_feed(seg_fsm *f, const uint8_t *in, size_t n, int *done,
                       seg_done *out)
{
    size_t used = 0;
    *done = 0;
    if (f->st == SEG_IDLE && (used = whole(f, in, n, done, out)) != 0)
        return used;
    while (used < n && !*done) {
        const uint8_t *p = in + used;
        size_t left = n - used;
        if (f->markers && f->pos % DW_MPA_MARKER_INTERVAL < 4)
            used += marker_step(f, p, left);
        else if (f->st == SEG_BODY)
            used += body_step(f, p, left);
        else
            used += field_step(f, p, left, done, out);
    }
    return used;
}
