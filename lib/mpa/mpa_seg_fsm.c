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

/* MPA 7.1: a marker names its FPDU's first octet (draft) or, in an FPDU
 * led by a marker, its ULPDU_Length (RFC 5044); low two bits reserved. */
static int marker_ok(const seg_fsm *f, const uint8_t *m, uint64_t at)
{
    uint16_t ptr = dw_get_be16(m + 2) & 0xfffc;
    if (at == f->fpdu)
        return ptr == 0;
    return ptr == (uint16_t)(at - f->fpdu) || ptr == (uint16_t)(at - f->hdr);
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

/* A whole FPDU at in (offset f->pos) whose ULPDU markers split: ULPDU to
 * f->dst without markers, CRC into f->crc. */
static void strip_copy(seg_fsm *f, const uint8_t *in, size_t flen)
{
    const dw_mpa_crc_ops *ops = f->crc_on ? dw_mpa_crc_fast() : NULL;
    if (ops) { /* one pass: fold the image, scatter the ULPDU */
        uint32_t first = DW_MPA_MARKER_INTERVAL - (uint32_t)(f->pos % DW_MPA_MARKER_INTERVAL);
        dw_mpa_img im = {.len = f->ulen, .crc_off = (uint32_t)flen - 4,
                         .hdr_off = (uint32_t)(f->hdr - f->pos), .mark = first,
                         .ptr_sub = 0}; /* as dw_mpa_img_init(), flen known */
        f->crc = ops->rx(&im, in, f->dst);
        return;
    }
    size_t at = (size_t)(f->hdr - f->pos) + 2, got = 0;
    uint32_t crc = crc_add(f, 0, in, at);
    while (got < f->ulen) {
        uint64_t pos = f->pos + at;
        if (dw_mpa_is_marker_pos(pos)) {
            crc = crc_add(f, crc, in + at, 4);
            at += 4;
            continue;
        }
        size_t room = DW_MPA_MARKER_INTERVAL - pos % DW_MPA_MARKER_INTERVAL;
        size_t take = f->ulen - got < room ? f->ulen - got : room;
        crc = f->crc_on ? dw_crc32c_copy(crc, f->dst + got, in + at, take)
                        : (memcpy(f->dst + got, in + at, take), 0);
        got += take;
        at += take;
    }
    f->crc = crc_add(f, crc, in + at, flen - 4 - at);
}

/* Fast path: a whole FPDU at the start of in. Returns its length, or 0. */
static size_t whole(seg_fsm *f, const uint8_t *in, size_t n, int *done,
                    seg_done *out)
{
    unsigned lead = dw_seg_lead(f->markers, f->pos);
    if (n < lead + 2u)
        return 0;
    f->ulen = dw_get_be16(in + lead);
    size_t flen = dw_mpa_fpdu_len((uint32_t)f->pos, f->ulen, f->markers);
    if (n < flen)
        return 0;
    f->fpdu = f->pos;
    f->hdr = f->pos + lead;
    f->bad = 0;
    const uint8_t *data = in + lead + 2;
    int inside = 0; /* a marker among the ULPDU octets */
    if (f->markers) {
        uint64_t m = (f->pos + DW_MPA_MARKER_INTERVAL - 1) & ~(uint64_t)511;
        for (; m < f->pos + flen; m += DW_MPA_MARKER_INTERVAL) {
            f->bad |= !marker_ok(f, in + (m - f->pos), m);
            inside |= m > f->hdr && m < f->hdr + 2 + f->ulen;
        }
    }
    if (!inside) {
        f->crc = crc_add(f, 0, in, flen - 4);
    } else {
        strip_copy(f, in, flen);
        data = f->dst;
    }
    f->pos += flen;
    finish(f, dw_crc32c_load(in + flen - 4), data, done, out);
    return flen;
}

size_t dw_seg_fsm_whole(seg_fsm *f, const uint8_t *in, size_t n, seg_done *out)
{
    int done;
    return f->st == SEG_IDLE ? whole(f, in, n, &done, out) : 0;
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
