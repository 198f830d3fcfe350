/* SPDX-License-Identifier: MIT */
/* MPA checker: FPDU framing octet by octet, and trying a candidate start. */
#include <ddpwire/crc32c.h>

#include <string.h>

#include "base/bytes.h"
#include "check/mpa_check_int.h"
#include "mpa/mpa_internal.h"

void dw_ck_fsm_init(dw_ck_fsm *f, uint64_t pos, int markers, uint8_t *head,
                    size_t head_cap)
{
    *f = (dw_ck_fsm){.pos = pos, .markers = markers, .head = head, .head_cap = head_cap};
}

static void begin(dw_ck_fsm *f)
{
    f->in_fpdu = 1;
    f->part = DW_CK_P_HDR;
    f->fpdu_pos = f->pos;
    f->lead = 0;
    f->crc = 0;
    f->missing = 0;
    f->held = 0;
    f->hold_missing = 0;
    f->ulen = f->body_left = f->got = 0;
    f->pad_nonzero = 0;
    f->crc_wire = 0;
    f->head_len = 0;
    f->head_hole = 0;
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

static void crc_add(dw_ck_fsm *f, const uint8_t *in, size_t k)
{
    if (in)
        f->crc = dw_crc32c(f->crc, in, k);
    else
        f->missing += k;
}

/* MPA 6.1: a marker at every position that is a multiple of 512. */
static size_t marker_step(dw_ck_fsm *f, const uint8_t *in, size_t n, int *what)
{
    unsigned r = (unsigned)(f->pos % DW_MPA_MARKER_INTERVAL);
    size_t k = min3(DW_MPA_MARKER_LEN - r, n, SIZE_MAX);
    if (r == 0) {
        f->mark_missing = 0;
        if (f->pos == f->fpdu_pos) /* MPA 7.1: between FPDUs, leads the next */
            f->lead = 1;
    }
    if (in)
        memcpy(f->mark + r, in, k);
    else
        f->mark_missing = 1;
    crc_add(f, in, k); /* MPA 7.2: markers are covered */
    f->pos += k;
    if (r + k == DW_MPA_MARKER_LEN) {
        f->mark_pos = f->pos - DW_MPA_MARKER_LEN;
        *what = DW_CK_W_MARKER;
    }
    return k;
}

static void field_done(dw_ck_fsm *f, int *what)
{
    f->held = 0;
    if (f->part == DW_CK_P_HDR) {
        f->ulen = f->hold_missing ? 0 : dw_get_be16(f->hold);
        f->body_left = (uint32_t)(f->ulen + dw_mpa_pad_len(f->ulen));
        f->part = f->body_left ? DW_CK_P_BODY : DW_CK_P_CRC;
        *what = DW_CK_W_HDR;
        return;
    }
    f->crc_wire = f->hold_missing ? 0 : dw_crc32c_load(f->hold);
    f->in_fpdu = 0;
    *what = DW_CK_W_END;
}

/* The 2-octet ULPDU_Length or the 4-octet CRC field. */
static size_t field_step(dw_ck_fsm *f, const uint8_t *in, size_t n,
                         size_t room, int *what)
{
    size_t want = f->part == DW_CK_P_HDR ? 2 : 4;
    size_t k = min3(want - f->held, n, room);
    if (f->held == 0)
        f->hold_missing = 0;
    if (in)
        memcpy(f->hold + f->held, in, k);
    else
        f->hold_missing = 1;
    if (f->part == DW_CK_P_HDR)
        crc_add(f, in, k);
    else if (!in)
        f->missing += k;
    f->held += (unsigned)k;
    f->pos += k;
    if (f->held == want)
        field_done(f, what);
    return k;
}

static void keep_head(dw_ck_fsm *f, const uint8_t *in, size_t u)
{
    if (!f->head || f->head_hole || f->got >= f->head_cap)
        return;
    if (!in) {
        f->head_hole = 1;
        return;
    }
    size_t c = f->head_cap - f->got < u ? f->head_cap - f->got : u;
    memcpy(f->head + f->got, in, c);
    f->head_len = f->got + c;
}

/* ULPDU and PAD octets (MPA 6: PAD is zero). */
static size_t body_step(dw_ck_fsm *f, const uint8_t *in, size_t n, size_t room)
{
    size_t k = min3(f->body_left, n, room);
    size_t u = f->ulen - f->got < k ? f->ulen - f->got : k;
    keep_head(f, in, u);
    for (size_t i = u; in && i < k; i++)
        f->pad_nonzero |= in[i] != 0;
    crc_add(f, in, k);
    f->got += (uint32_t)u;
    f->body_left -= (uint32_t)k;
    f->pos += k;
    if (!f->body_left)
        f->part = DW_CK_P_CRC;
    return k;
}

size_t dw_ck_fsm_step(dw_ck_fsm *f, const uint8_t *in, size_t n, int *what)
{
    *what = DW_CK_W_NONE;
    if (!f->in_fpdu)
        begin(f);
    unsigned r = (unsigned)(f->pos % DW_MPA_MARKER_INTERVAL);
    if (f->markers && r < DW_MPA_MARKER_LEN)
        return marker_step(f, in, n, what);
    size_t room = f->markers ? DW_MPA_MARKER_INTERVAL - r : SIZE_MAX;
    if (f->part == DW_CK_P_BODY)
        return body_step(f, in, n, room);
    return field_step(f, in, n, room, what);
}

int dw_ck_marker_ok(const dw_ck_fsm *f, uint64_t mpos, uint16_t ptr,
                    uint16_t *expected)
{
    uint16_t e = (uint16_t)(mpos - f->fpdu_pos);
    *expected = e;
    ptr &= 0xfffcu; /* MPA 6.1: low two bits reserved, zero on receive */
    if (ptr == e)
        return 1;
    /* RFC 5044 reading: back to the ULPDU_Length after a leading marker */
    return f->lead && mpos != f->fpdu_pos && ptr == (uint16_t)(e - 4u);
}

/* ------------------------------------------------------------------ */
/* Trying a candidate start in the search buffer                       */
/* ------------------------------------------------------------------ */

typedef struct chain {
    int need_match;  /* this FPDU is valid only with a matching CRC */
    unsigned count;  /* valid FPDUs so far */
    int matched;     /* one of them had a matching CRC */
    unsigned marks;  /* markers checked */
    unsigned ptrs;   /* of them, with a non-zero FPDUPTR */
    size_t first;    /* octets of the first FPDU */
    size_t fend;     /* buffer index where the current FPDU ends */
} chain;

/* A completed FPDU in a trial: CRC matching or (CRC not known to be on)
 * a zero CRC field. A sender rule broken with the framing intact (a
 * non-zero pad, a ULPDU_Length above 64768: Linux siw sends both) is
 * taken only with a matching CRC. */
static int end_fields_ok(const dw_mpa_check *c, uint32_t crc, uint32_t wire,
                         int pad_nonzero, chain *ch)
{
    int match = crc == wire;
    if ((pad_nonzero || ch->need_match) && !match)
        return 0;
    if (!match && (wire || c->crc == 1))
        return 0;
    ch->count++;
    ch->matched |= match;
    return 1;
}

static int end_ok(const dw_mpa_check *c, const dw_ck_fsm *f, chain *ch)
{
    return end_fields_ok(c, f->crc, f->crc_wire, f->pad_nonzero, ch);
}

/*
 * Accepting a chain: one FPDU with a matching CRC, or two valid ones in a
 * row (zero CRC fields). Without a matching CRC, a reading with markers
 * must have checked two (one alone is weak: a zero CRC field looks like a
 * zero marker). When markers are not known and this reading has none,
 * the chain must cover 516 octets, where a marker would show, after its
 * first FPDU unless that one's CRC matched (a run of garbage can end on a
 * zero CRC field). With final, a chain with a matching CRC that ends
 * exactly where the data ends is enough.
 */
static int chain_done(const dw_mpa_check *c, const chain *ch, size_t octets,
                      int markers, int at_end)
{
    if (!ch->count)
        return 0;
    if (c->set.strict_search && !c->started && !ch->matched && ch->ptrs < 2)
        return 0;
    if (at_end && ch->matched)
        return 1;
    if (!ch->matched && ch->count < 2)
        return 0;
    if (markers)
        return ch->matched || ch->marks >= 2;
    if (c->markers >= 0)
        return 1;
    return octets - (ch->matched ? 0 : ch->first) >= DW_MPA_MARKER_INTERVAL + 4u;
}

/* strict_search: this chain can no longer bring strong evidence (the
 * first FPDU's CRC did not match, so none will; no markers to check, or
 * eight checked and fewer than two pointing into an FPDU). */
static int hopeless(const dw_mpa_check *c, const chain *ch, int markers)
{
    return c->set.strict_search && !c->started && !ch->matched && ch->ptrs < 2 &&
           (!markers || ch->marks >= 8);
}

static int trial_event(const dw_mpa_check *c, const dw_ck_fsm *f, int what,
                       size_t at, chain *ch)
{
    if (what == DW_CK_W_MARKER) {
        uint16_t e, ptr = dw_get_be16(f->mark + 2);
        ch->marks++;
        if (dw_get_be16(f->mark) || !dw_ck_marker_ok(f, f->mark_pos, ptr, &e))
            return 0;
        ch->ptrs += (ptr & 0xfffcu) != 0;
        return 1;
    }
    if (what == DW_CK_W_HDR) {
        if (f->ulen == 0)
            return 0;
        ch->need_match = f->ulen > DW_MPA_ULPDU_MAX;
        ch->fend = at - (size_t)(f->pos - f->fpdu_pos) +
                   dw_mpa_fpdu_len((uint32_t)f->fpdu_pos, f->ulen, f->markers);
        return 1;
    }
    if (what == DW_CK_W_END)
        return end_ok(c, f, ch);
    return 1;
}

/* A trial's FPDU ended valid, `octets` after its start: the verdict it
 * settles (DW_CK_T_ACCEPT or _REJECT), or -1 to go on. */
static int fpdu_ended(const dw_mpa_check *c, chain *ch, size_t octets, int markers,
                      int *crc_out)
{
    if (ch->count == 1)
        ch->first = octets;
    if (chain_done(c, ch, octets, markers, 0)) {
        *crc_out = ch->matched ? 1 : 0;
        return DW_CK_T_ACCEPT;
    }
    return hopeless(c, ch, markers) ? DW_CK_T_REJECT : -1;
}

/* The trial of the start at buffer index i, framed octet by octet from
 * index at (MPA position pos, an FPDU boundary) with the chain so far
 * (the state machine between FPDUs is its initial state there). */
static int trial_from(const dw_mpa_check *c, size_t i, size_t at, uint64_t pos, int markers,
                      int final, chain *ch, size_t *need, int *crc_out)
{
    dw_ck_fsm f;
    dw_ck_fsm_init(&f, pos, markers, NULL, 0);
    size_t end = c->b.len;
    while (at < end) {
        int w;
        at += dw_ck_fsm_step(&f, c->b.buf + at, end - at, &w);
        if (!trial_event(c, &f, w, at, ch))
            return DW_CK_T_REJECT;
        if (w == DW_CK_W_HDR && ch->fend > end) { /* not all here yet */
            if (final)
                return DW_CK_T_REJECT;
            *need = ch->fend;
            return DW_CK_T_MORE;
        }
        int r = w == DW_CK_W_END ? fpdu_ended(c, ch, at - i, markers, crc_out) : -1;
        if (r >= 0)
            return r;
    }
    if (final && !f.in_fpdu && chain_done(c, ch, at - i, markers, 1)) {
        *crc_out = ch->matched ? 1 : 0;
        return DW_CK_T_ACCEPT;
    }
    if (final)
        return DW_CK_T_REJECT;
    *need = end + 1;
    return DW_CK_T_MORE;
}

int dw_ck_trial_fsm(const dw_mpa_check *c, size_t i, uint64_t pos, int markers,
                    int final, size_t *need, int *crc_out)
{
    chain ch = {0, 0, 0, 0, 0, 0, 0};
    return trial_from(c, i, i, pos, markers, final, &ch, need, crc_out);
}

/* MPA 6.1, 7.1: the markers of an FPDU, MPA positions [pos, e),
 * as trial_event() judges them: 0 when one is wrong. */
static int fpdu_markers(const dw_mpa_check *c, size_t i, uint64_t pos,
                         uint64_t e, chain *ch)
{
    dw_ck_fsm f; /* what dw_ck_marker_ok() reads (a whole init is an ASan memset) */
    f.fpdu_pos = pos;
    f.lead = pos % DW_MPA_MARKER_INTERVAL == 0;
    uint64_t m = (pos + DW_MPA_MARKER_INTERVAL - 1) / DW_MPA_MARKER_INTERVAL *
                 DW_MPA_MARKER_INTERVAL;
    for (; m < e; m += DW_MPA_MARKER_INTERVAL) {
        const uint8_t *p = c->b.buf + i + (size_t)(m - pos);
        uint16_t x, ptr = dw_get_be16(p + 2);
        ch->marks++;
        if (dw_get_be16(p) || !dw_ck_marker_ok(&f, m, ptr, &x))
            return 0;
        ch->ptrs += (ptr & 0xfffcu) != 0;
    }
    return 1;
}

/* What the fields of one FPDU say (fpdu_fields). */
enum { FF_REJECT, FF_VALID, FF_RUN };

/*
 * The FPDU at buffer index i (MPA position pos) once it is all here:
 * reads its ULPDU_Length, markers, pad and CRC field where the framing
 * puts them (positions multiples of 4: no marker splits a field or the
 * pad) and its CRC from the checkpoints, and adds it to the chain as
 * trial_event() would. FF_REJECT: the state machine would reject the
 * start at this FPDU's end or before; FF_VALID: it would pass this FPDU
 * (*len octets); FF_RUN: it must run from here (not all here, and not
 * final; or a layout the fields do not cover). final: an FPDU not all
 * here is rejected (as the state machine does, at its header or before).
 */
static int fpdu_fields(const dw_mpa_check *c, size_t i, uint64_t pos, int markers, int final,
                       chain *ch, size_t *len)
{
    unsigned r = (unsigned)(pos % DW_MPA_MARKER_INTERVAL);
    if (pos % 4)
        return FF_RUN;
    size_t h = i + (markers && r == 0 ? DW_MPA_MARKER_LEN : 0);
    if (c->b.len < h + 2)
        return final ? FF_REJECT : FF_RUN;
    uint16_t ulen = dw_get_be16(c->b.buf + h);
    if (ulen == 0)
        return FF_REJECT;
    *len = dw_mpa_fpdu_len((uint32_t)pos, ulen, markers);
    if (c->b.len - i < *len)
        return final ? FF_REJECT : FF_RUN; /* not all here yet */
    size_t crc_at = i + *len - 4, pad_end = crc_at;
    uint64_t cpos = pos + *len - 4; /* the CRC field's */
    if (markers && cpos % DW_MPA_MARKER_INTERVAL == 0)
        return FF_RUN; /* no FPDU ends with a marker */
    if (markers && (cpos - 4) % DW_MPA_MARKER_INTERVAL == 0)
        pad_end -= DW_MPA_MARKER_LEN; /* a marker between pad and CRC */
    ch->need_match = ulen > DW_MPA_ULPDU_MAX;
    /* MPA 6: PAD is zero; the 0-3 pad octets end the word before pad_end
     * (at or after i: an FPDU has 8 octets or more, 12 with that marker) */
    uint32_t pad = dw_get_be32(c->b.buf + pad_end - 4) &
                   (uint32_t)((1ull << (8 * dw_mpa_pad_len(ulen))) - 1);
    if (markers && !fpdu_markers(c, i, pos, cpos, ch))
        return FF_REJECT;
    uint32_t crc = dw_cc_crcs_range(&c->crcs, &c->b, i, crc_at);
    return end_fields_ok(c, crc, dw_crc32c_load(c->b.buf + crc_at), pad != 0, ch) ? FF_VALID
                                                                                   : FF_REJECT;
}

int dw_ck_first_fpdu(const dw_mpa_check *c, size_t i, uint64_t pos, int markers, int final)
{
    chain ch = {0, 0, 0, 0, 0, 0, 0};
    size_t len;
    int r = fpdu_fields(c, i, pos, markers, final, &ch, &len);
    return r == FF_RUN || (r == FF_VALID && !hopeless(c, &ch, markers));
}

/* FPDU after FPDU by their fields while they are all here and their
 * layout allows (most trials end at the first or second FPDU); from the
 * first one the fields cannot judge, octet by octet. */
int dw_ck_trial(const dw_mpa_check *c, size_t i, uint64_t pos, int markers,
                int final, size_t *need, int *crc_out)
{
    chain ch = {0, 0, 0, 0, 0, 0, 0};
    size_t at = i, len = 0;
    while (at < c->b.len) {
        int r = fpdu_fields(c, at, pos, markers, final, &ch, &len);
        if (r == FF_REJECT)
            return DW_CK_T_REJECT;
        if (r == FF_RUN)
            break;
        at += len;
        pos += len;
        r = fpdu_ended(c, &ch, at - i, markers, crc_out);
        if (r >= 0)
            return r;
    }
    return trial_from(c, i, at, pos, markers, final, &ch, need, crc_out);
}

void dw_ck_fsm_lead(dw_ck_fsm *f)
{
    begin(f);
    f->fpdu_pos = f->mark_pos;
    f->lead = 1;
    f->crc = dw_crc32c(0, f->mark, DW_MPA_MARKER_LEN);
}
