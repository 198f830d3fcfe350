/* SPDX-License-Identifier: MIT */
/*
 * MPA stream checker: one direction, in sync, FPDU by FPDU. The CRC is
 * computed as octets pass; only a header/tail state and the first
 * head_len ULPDU octets are kept. Unlike the receiver it never stops:
 * errors are reported and checking goes on (MPA 9 is the receiver's).
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa_check.h>
#include <ddpwire/mpa_startup.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/inline.h"
#include "base/mem.h"
#include "check/mpa_check_int.h"
#include "mpa/mpa_internal.h"
#include "base/versioned.h"

DW_VERSIONS_1(mpa_check_callbacks_v, dw_mpa_check_callbacks, on_event);
DW_VERSIONS_1(mpa_check_settings_v, dw_mpa_check_settings, mem);

static void mpa_check_settings_fill(dw_mpa_check_settings *s)
{
    memset(s, 0, sizeof *s);
    s->start = DW_MPA_CHECK_START_AUTO;
    s->markers = -1;
    s->crc = -1;
    s->search_limit = 1u << 20;
    s->head_len = 64;
}

int dw_mpa_check_settings_default_versioned(int settings_version, dw_mpa_check_settings *s)
{
    dw_mpa_check_settings cur;
    mpa_check_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, mpa_check_settings_v);
}

static int settings_ok(const dw_mpa_check_settings *s)
{
    return (unsigned)s->start <= DW_MPA_CHECK_START_SEARCH &&
           s->markers >= -1 && s->markers <= 1 && s->crc >= -1 &&
           s->crc <= 1 && s->head_len <= DW_CK_HEAD_MAX;
}

static enum dw_ck_state first_state(dw_mpa_check_start start)
{
    switch (start) {
    case DW_MPA_CHECK_START_AT:
        return DW_CK_BEFORE;
    case DW_MPA_CHECK_START_SEARCH:
        return DW_CK_SEARCH;
    default:
        return DW_CK_FRAME;
    }
}

static int mpa_check_new_latest(dw_mpa_check **pc, const dw_mpa_check_settings *settings,
                                const dw_mpa_check_callbacks *callbacks, void *user_data)
{
    dw_mpa_check_settings def;
    if (!pc)
        return DW_ERR_INVAL;
    *pc = NULL;
    if (!settings) {
        dw_mpa_check_settings_default(&def);
        settings = &def;
    }
    if (!settings_ok(settings))
        return DW_ERR_INVAL;
    /* one block: the checker, then its buffer's first arrays */
    size_t head = dw_inl_round(sizeof(dw_mpa_check));
    size_t size = head + dw_cc_inline_size(DW_CK_BUF_CAP, DW_CK_DESC_CAP);
    dw_mpa_check *c = dw_mem_malloc(settings->mem, size);
    if (!c)
        return DW_ERR_NOMEM;
    memset(c, 0, sizeof *c);
    c->size = size;
    c->set = *settings;
    dw_cc_inline_init(&c->b, &c->crcs, (uint8_t *)c + head, DW_CK_BUF_CAP, DW_CK_DESC_CAP,
                      settings->mem);
    if (callbacks)
        c->cb = *callbacks;
    c->user = user_data;
    c->markers = settings->markers;
    c->crc = settings->crc;
    c->state = first_state(settings->start);
    dw_cc_rec_bind(&c->tr, &c->rec.first_pkt, &c->rec.last_pkt, &c->rec.segments,
                   &c->rec.aligned, &c->rec.packed);
    *pc = c;
    return 0;
}

int dw_mpa_check_new_versioned(dw_mpa_check **pc, int settings_version,
                               const dw_mpa_check_settings *settings, int callbacks_version,
                               const dw_mpa_check_callbacks *callbacks, void *user_data)
{
    dw_mpa_check_settings settings_cur;
    if (settings_version != DW_MPA_CHECK_SETTINGS_VERSION)
        dw_mpa_check_settings_default(&settings_cur);
    dw_mpa_check_callbacks callbacks_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, mpa_check_settings_v, err);
    DW_VERSIONED_IN(callbacks, callbacks_cur, callbacks_version, mpa_check_callbacks_v, err);
    if (err)
        return err;
    return mpa_check_new_latest(pc, settings, callbacks, user_data);
}

void dw_mpa_check_del(dw_mpa_check *c)
{
    if (!c)
        return;
    dw_cc_buf_free(&c->b);
    dw_cc_crcs_free(&c->crcs);
    dw_inl_release(c, c->size);
    dw_mem_free(c->set.mem, c);
}

/* The packet of stream offset off: from the search buffer's tags when it
 * holds it, else the packet being fed. */
static uint64_t pkt_at(const dw_mpa_check *c, uint64_t off)
{
    if (off >= c->b.base + c->b.start && off < c->b.base + c->b.len) {
        dw_cc_slice s;
        dw_cc_piece_at(&c->b, (size_t)(off - c->b.base), &s);
        if (s.tagged)
            return s.pkt;
    }
    return c->in.pkt;
}

void dw_ck_emit(dw_mpa_check *c, dw_mpa_check_event_kind kind,
                dw_mpa_error code, uint64_t off, uint32_t seq, uint64_t pkt,
                uint64_t len, const dw_mpa_startup *frame)
{
    dw_cc_error(&c->in, (int)code, off, pkt);
    if (!c->cb.on_event)
        return;
    if (!pkt && (kind == DW_MPA_CHECK_EV_START || kind == DW_MPA_CHECK_EV_RESYNC ||
                 kind == DW_MPA_CHECK_EV_SYNC_LOST))
        pkt = pkt_at(c, off); /* the packet that carried that octet */
    seq = dw_cc_seq(&c->in, off, seq); /* a stream offset has one */
    dw_mpa_check_event ev = {kind, code, off, seq, pkt, len, c->detail, frame};
    c->in.in_cb++;
    c->cb.on_event(c, &ev, c->user);
    c->in.in_cb--;
}

void dw_ck_enter_sync(dw_mpa_check *c, uint64_t off)
{
    c->state = DW_CK_SYNC;
    dw_ck_fsm_init(&c->f, off - c->start_off, c->markers, c->head,
                   c->set.head_len);
}

/* MPA mode begins: stream offset off is MPA position pos (0 unless found
 * mid-stream, where only pos % 512 is known). */
void dw_ck_go_start(dw_mpa_check *c, uint64_t off, uint64_t pos, const char *how)
{
    c->started = 1;
    c->st.start_offset = off;
    c->start_off = off - pos; /* may wrap: positions are mod 2^64 */
    if (how != c->detail)
        snprintf(c->detail, sizeof c->detail, "%s", how);
    dw_ck_emit(c, DW_MPA_CHECK_EV_START, DW_MPA_ERR_NONE, off, 0, 0, 0, NULL);
    if (c->markers < 0 || c->markers_given)
        c->state = DW_CK_PEND; /* see position 0 first */
    else
        dw_ck_enter_sync(c, off);
}

void dw_ck_lose(dw_mpa_check *c, uint64_t off)
{
    c->lost_skipped = 0;
    c->searched = 0;
    c->b.need = 0;
    c->suspect = 0;
    c->tr.have_prev = 0;
    if (c->markers == 1) {
        uint64_t p = off - c->start_off;
        c->mk_next = c->start_off + ((p + 511u) & ~(uint64_t)511u);
        c->state = DW_CK_LOST_MK;
        return;
    }
    c->state = DW_CK_SEARCH;
    c->pos_known = c->markers == 0;
}

static void sync_lost(dw_mpa_check *c, uint64_t off, uint32_t seq, uint64_t pkt)
{
    dw_ck_emit(c, DW_MPA_CHECK_EV_SYNC_LOST, DW_MPA_ERR_NONE, off, seq, pkt, 0,
               NULL);
    dw_ck_lose(c, c->start_off + c->f.pos);
}

/* ------------------------------------------------------------------ */
/* Segments                                                            */
/* ------------------------------------------------------------------ */

/* An FPDU begins at off (pkt 0 when its first octet is missing). */
static void rec_begin(dw_mpa_check *c, uint64_t off, uint32_t seq,
                      uint64_t pkt, int have_pkt, int aligned)
{
    dw_mpa_check_fpdu *r = &c->rec;
    memset(r, 0, sizeof *r);
    r->index = c->next_index;
    r->pos = off - c->start_off;
    r->offset = off;
    r->seq = seq;
    r->crc = DW_MPA_CHECK_CRC_MISSING;
    r->resync = c->resync_next;
    c->resync_next = 0;
    if (!have_pkt)
        return;
    dw_cc_rec_begin(&c->tr, r->index, pkt, aligned); /* MPA 7.3: aligned */
}

/* ------------------------------------------------------------------ */
/* An FPDU above 64768 octets                                          */
/* ------------------------------------------------------------------ */

/* Keeps the FPDU from off (after its length field): copied to the empty
 * search buffer, or where it lies while the buffer is being replayed.
 * Without a CRC or markers there is nothing to judge it by. */
static void shadow_begin(dw_mpa_check *c, uint64_t off)
{
    if (c->markers != 1 && c->crc == 0)
        return;
    if (c->replaying) {
        c->shadow = 2;
        c->shadow_at = (size_t)(c->step_end - c->b.buf);
    } else if (c->b.start == c->b.len) {
        c->shadow = 1;
        dw_ck_buf_reset(c, off);
    }
}

/* Its length proved wrong: the boundaries are looked for again in what
 * followed its length field (kept in b). 0: it was not kept. */
static int shadow_lose(dw_mpa_check *c)
{
    if (!c->shadow)
        return 0;
    if (c->replaying) {
        c->b.start = c->shadow_at; /* what was replayed before it goes */
        c->moved = 1;
    }
    c->shadow = 0;
    dw_ck_lose(c, c->b.base + c->b.start);
    c->scan = c->cand = 0;
    return 1;
}

/* Copies the octets of the FPDU being read to the search buffer. */
static void shadow_put(dw_mpa_check *c, const uint8_t *in, size_t k, const dw_cc_slice *s,
                       size_t i)
{
    dw_cc_slice t;
    if (s) {
        t = *s;
        dw_cc_slice_advance(&t, i);
    }
    if (!s || dw_ck_buf_put(c, in, k, &t) != k) { /* a gap, or no room: trust it */
        c->shadow = 0;
        dw_ck_buf_reset(c, c->start_off + c->f.pos);
    }
}

/* Its CRC failed (or the stream ended inside it and FPDUs lie there):
 * the length may have been garbage, so what followed the length field is
 * searched again; FPDUs found there lie inside the one reported. */
static void search_again(dw_mpa_check *c, const char *why)
{
    uint64_t off = c->b.base + (c->replaying ? c->shadow_at : c->b.start);
    snprintf(c->detail, sizeof c->detail,
             "ULPDU_Length %u above %u %s: searching again from offset %llu",
             c->f.ulen, DW_MPA_ULPDU_MAX, why, (unsigned long long)off);
    dw_ck_emit(c, DW_MPA_CHECK_EV_SYNC_LOST, DW_MPA_ERR_NONE, off, 0, 0, 0, NULL);
    shadow_lose(c);
}

/* ------------------------------------------------------------------ */
/* Markers                                                             */
/* ------------------------------------------------------------------ */

/* After a bad CRC (or a resync) a marker that disagrees means the
 * boundaries are wrong: resume at the FPDU it names (MPA 7.1). Returns
 * non-zero when that FPDU begins with this very marker. */
static int lose_at_marker(dw_mpa_check *c, const dw_mpa_check_marker *m)
{
    if (c->shadow) { /* inside an FPDU taken on a length above 64768 */
        /* MPA 9 code 3: marker and ULPDU_Length disagree (a receiver says
         * so, or 2 or 1, at this FPDU: it is never delivered) */
        c->st.marker_errors++;
        snprintf(c->detail, sizeof c->detail,
                 "FPDUPTR %u of the marker at offset %llu disagrees with ULPDU_Length %u "
                 "of the FPDU at offset %llu",
                 m->fpduptr, (unsigned long long)m->offset, c->f.ulen,
                 (unsigned long long)c->rec.offset);
        dw_ck_emit(c, DW_MPA_CHECK_EV_MARKER, DW_MPA_ERR_MARKER, m->offset, m->seq, m->pkt,
                   4, NULL);
    }
    snprintf(c->detail, sizeof c->detail,
             c->shadow ? "FPDUPTR %u of the marker at offset %llu disagrees with a length above 64768"
                       : "FPDUPTR %u of the marker at offset %llu disagrees after a bad CRC",
             m->fpduptr, (unsigned long long)m->offset);
    dw_ck_emit(c, DW_MPA_CHECK_EV_SYNC_LOST, DW_MPA_ERR_NONE, m->offset,
               m->seq, m->pkt, 0, NULL);
    if (shadow_lose(c))
        return 0; /* an FPDU above 64768: look from after its length */
    if (m->fpduptr & 0xfffcu) { /* it began before: wait for the next */
        dw_ck_lose(c, m->offset + DW_MPA_MARKER_LEN);
        return 0;
    }
    snprintf(c->detail, sizeof c->detail, "at the zero marker at offset %llu",
             (unsigned long long)m->offset);
    dw_ck_emit(c, DW_MPA_CHECK_EV_RESYNC, DW_MPA_ERR_NONE, m->offset, m->seq,
               m->pkt, 0, NULL);
    c->st.resyncs++;
    c->resync_next = 1;
    c->tr.have_prev = 0;
    dw_ck_fsm_lead(&c->f);
    rec_begin(c, m->offset, m->seq, m->pkt, c->mk_has_pkt, c->mk_aligned);
    return 1;
}

static void on_marker(dw_mpa_check *c)
{
    const dw_ck_fsm *f = &c->f;
    if (f->mark_missing)
        return; /* partly in a gap: not judged */
    dw_mpa_check_marker m;
    m.pos = f->mark_pos;
    m.offset = c->start_off + f->mark_pos;
    m.seq = c->mk_from.seq;
    m.pkt = c->mk_from.pkt;
    m.reserved = dw_get_be16(f->mark);
    m.fpduptr = dw_get_be16(f->mark + 2);
    m.ok = dw_ck_marker_ok(f, m.pos, m.fpduptr, &m.expected);
    if (!m.ok && c->suspect) {
        int counted = c->shadow != 0; /* an MPA error (marker_errors): seen */
        if (!lose_at_marker(c, &m)) {
            c->st.markers_seen += counted;
            return;
        }
        m.ok = dw_ck_marker_ok(f, m.pos, m.fpduptr, &m.expected);
    }
    c->st.markers_seen++;
    c->rec.markers++;
    if (c->cb.on_marker) {
        c->in.in_cb++;
        c->cb.on_marker(c, &m, c->user);
        c->in.in_cb--;
    }
    if (m.reserved) { /* MPA 6.1: reserved, zero on transmit */
        c->st.marker_reserved++;
        snprintf(c->detail, sizeof c->detail, "marker reserved field 0x%04x",
                 m.reserved);
        dw_ck_emit(c, DW_MPA_CHECK_EV_MARKER_RESERVED, DW_MPA_ERR_NONE,
                   m.offset, m.seq, m.pkt, 4, NULL);
    }
    if (!m.ok) { /* MPA 9 code 3 */
        c->rec.bad_markers++;
        c->st.marker_errors++;
        snprintf(c->detail, sizeof c->detail, "FPDUPTR %u, expected %u",
                 m.fpduptr, m.expected);
        dw_ck_emit(c, DW_MPA_CHECK_EV_MARKER, DW_MPA_ERR_MARKER, m.offset,
                   m.seq, m.pkt, 4, NULL);
    }
}

/* ------------------------------------------------------------------ */
/* Header and end                                                      */
/* ------------------------------------------------------------------ */

static void on_hdr(dw_mpa_check *c, uint64_t off, uint32_t seq, uint64_t pkt)
{
    const dw_ck_fsm *f = &c->f;
    if (f->hold_missing) {
        snprintf(c->detail, sizeof c->detail, "ULPDU_Length missing from the capture");
        sync_lost(c, c->start_off + f->pos, seq, pkt);
        return;
    }
    if (f->ulen > DW_MPA_ULPDU_MAX && !c->suspect) {
        /* MPA 5.2 binds the sender; a receiver frames it all the same */
        c->st.oversize++;
        snprintf(c->detail, sizeof c->detail,
                 "peer sent ULPDU_Length %u, above %u (framing kept)", f->ulen,
                 DW_MPA_ULPDU_MAX);
        dw_ck_emit(c, DW_MPA_CHECK_EV_OVERSIZE, DW_MPA_ERR_NONE, off, seq, pkt, f->ulen,
                   NULL);
        c->suspect = 1; /* a marker inside that disagrees: the length was wrong */
        shadow_begin(c, off + 2);
    } else if (f->ulen == 0 || f->ulen > DW_MPA_ULPDU_MAX) { /* MPA 5.2 */
        c->st.length_errors++;
        snprintf(c->detail, sizeof c->detail, "ULPDU_Length %u (1..%u)",
                 f->ulen, DW_MPA_ULPDU_MAX);
        dw_ck_emit(c, DW_MPA_CHECK_EV_LENGTH, DW_MPA_ERR_NONE, off, seq, pkt,
                   f->ulen, NULL);
        sync_lost(c, off, seq, pkt);
        return;
    }
    c->rec.ulpdu_len = f->ulen;
    c->rec.pad = (uint32_t)dw_mpa_pad_len(f->ulen);
}

/* MPA 7.2: the verdict; learns the CRC mode from the first FPDU. */
static dw_mpa_check_crc crc_verdict(dw_mpa_check *c)
{
    const dw_ck_fsm *f = &c->f;
    if (f->missing)
        return DW_MPA_CHECK_CRC_MISSING;
    int match = f->crc == f->crc_wire;
    if (c->crc < 0) /* matching: on; a zero field: off; else on and bad */
        c->crc = match || f->crc_wire ? 1 : 0;
    if (!c->crc)
        return DW_MPA_CHECK_CRC_OFF;
    return match ? DW_MPA_CHECK_CRC_GOOD : DW_MPA_CHECK_CRC_BAD;
}

static void count(dw_mpa_check *c)
{
    const dw_mpa_check_fpdu *r = &c->rec;
    dw_mpa_check_stats *st = &c->st;
    st->fpdus++;
    st->ulpdu_octets += r->ulpdu_len;
    st->fpdu_octets += r->fpdu_len;
    st->crc_good += r->crc == DW_MPA_CHECK_CRC_GOOD;
    st->crc_bad += r->crc == DW_MPA_CHECK_CRC_BAD;
    st->crc_unchecked += r->crc >= DW_MPA_CHECK_CRC_OFF;
    st->pad_errors += r->pad_nonzero != 0;
    st->aligned += r->aligned != 0;
    st->packed += r->packed != 0;
}

static void deliver(dw_mpa_check *c)
{
    c->rec.head = c->head;
    c->rec.head_len = c->f.head_len;
    count(c);
    c->next_index++;
    dw_cc_rec_done(&c->tr);
    if (c->cb.on_fpdu) {
        c->in.in_cb++;
        c->cb.on_fpdu(c, &c->rec, c->user);
        c->in.in_cb--;
    }
}

static void on_end(dw_mpa_check *c, int more_in_seg)
{
    const dw_ck_fsm *f = &c->f;
    dw_mpa_check_fpdu *r = &c->rec;
    r->fpdu_len = (uint32_t)(f->pos - f->fpdu_pos);
    r->pad_nonzero = f->pad_nonzero;
    r->crc_wire = f->crc_wire;
    r->crc_calc = f->crc;
    r->crc = crc_verdict(c);
    r->packed |= more_in_seg;
    if (r->pad_nonzero) {
        snprintf(c->detail, sizeof c->detail, "non-zero PAD octet");
        dw_ck_emit(c, DW_MPA_CHECK_EV_PAD, DW_MPA_ERR_NONE, r->offset, r->seq,
                   r->last_pkt, r->pad, NULL);
    }
    if (r->crc == DW_MPA_CHECK_CRC_BAD) { /* MPA 9 code 2 */
        snprintf(c->detail, sizeof c->detail, "CRC 0x%08x, computed 0x%08x",
                 r->crc_wire, r->crc_calc);
        dw_ck_emit(c, DW_MPA_CHECK_EV_CRC, DW_MPA_ERR_CRC, r->offset, r->seq,
                   r->first_pkt, r->fpdu_len, NULL);
    }
    if (r->crc == DW_MPA_CHECK_CRC_BAD)
        c->suspect = 1;
    else if (!r->bad_markers && r->crc != DW_MPA_CHECK_CRC_MISSING)
        c->suspect = 0;
    int again = c->shadow && r->crc == DW_MPA_CHECK_CRC_BAD;
    deliver(c);
    if (again) {
        search_again(c, "not confirmed by a CRC"); /* a length above 64768 */
        return;
    }
    if (c->shadow == 1)
        dw_ck_buf_reset(c, c->start_off + f->pos);
    c->shadow = 0;
}

/* ------------------------------------------------------------------ */
/* Streaming                                                           */
/* ------------------------------------------------------------------ */

/* Before a step at in[i]: a new FPDU, a new segment, a marker's origin. */
static void before_step(dw_mpa_check *c, const dw_cc_slice *s, size_t i)
{
    uint64_t off = c->start_off + c->f.pos;
    uint32_t seq = s ? s->seq + (uint32_t)i : 0;
    int first = s && i == 0 && s->seg_start;
    if (c->f.markers && c->f.pos % DW_MPA_MARKER_INTERVAL == 0) {
        c->mk_from.off = off;
        c->mk_from.seq = seq;
        c->mk_from.pkt = s ? s->pkt : 0;
        c->mk_has_pkt = s != NULL;
        c->mk_aligned = first;
    }
    if (!c->f.in_fpdu)
        rec_begin(c, off, seq, s ? s->pkt : 0, s != NULL, first);
    else if (s && i == 0)
        dw_cc_rec_touch(&c->tr, c->rec.index, s->pkt);
}

static void after_step(dw_mpa_check *c, int what, const dw_cc_slice *s,
                       size_t i, size_t n)
{
    uint64_t pkt = s ? s->pkt : 0;
    uint32_t seq = s ? s->seq + (uint32_t)i : 0;
    if (what == DW_CK_W_MARKER)
        on_marker(c);
    else if (what == DW_CK_W_HDR)
        on_hdr(c, c->start_off + c->f.pos - 2, seq - 2, pkt);
    else if (what == DW_CK_W_END)
        on_end(c, s && (i < n || !s->seg_end));
}

size_t dw_ck_sync_feed(dw_mpa_check *c, const uint8_t *in, size_t n,
                       const dw_cc_slice *s)
{
    size_t i = 0;
    while (i < n && c->state == DW_CK_SYNC) {
        int w;
        before_step(c, s, i);
        size_t k = dw_ck_fsm_step(&c->f, in + i, n - i, &w);
        c->step_end = in + i + k;
        if (c->shadow == 1)
            shadow_put(c, in + i, k, s, i);
        i += k;
        after_step(c, w, s, i, n);
    }
    return i;
}

/* Octets missing in sync: FPDUs they touch lose their CRC verdict; a
 * length field among them loses the boundaries. */
static void sync_gap(dw_mpa_check *c, uint64_t len)
{
    while (len && c->state == DW_CK_SYNC) {
        int w;
        size_t n = len < SIZE_MAX ? (size_t)len : SIZE_MAX;
        before_step(c, NULL, 0);
        size_t k = dw_ck_fsm_step(&c->f, NULL, n, &w);
        if (c->shadow == 1)
            shadow_put(c, NULL, k, NULL, 0);
        c->shadow = 0; /* its CRC can no longer fail: none */
        len -= k;
        after_step(c, w, NULL, 0, 0);
    }
}

/* ------------------------------------------------------------------ */
/* API                                                                 */
/* ------------------------------------------------------------------ */

static size_t before_start(dw_mpa_check *c, size_t len)
{
    uint64_t left = c->set.start_offset - c->in.off;
    if (c->in.off >= c->set.start_offset) {
        snprintf(c->detail, sizeof c->detail, "at the given start offset %llu",
                 (unsigned long long)c->set.start_offset);
        dw_ck_go_start(c, c->in.off, 0, c->detail);
        return 0;
    }
    size_t k = left < len ? (size_t)left : len;
    c->st.skipped_octets += k;
    return k;
}

/* FRAME, PEND, SEARCH, LOST_MK: octets go to the search buffer (one
 * test per chunk where a chain of three was). */
_Static_assert(DW_CK_PEND == DW_CK_FRAME + 1 && DW_CK_SEARCH == DW_CK_FRAME + 2 &&
                   DW_CK_LOST_MK == DW_CK_FRAME + 3,
               "buffering(): FRAME to LOST_MK in a row");
static int buffering(enum dw_ck_state st)
{
    return (unsigned)st - DW_CK_FRAME <= (unsigned)(DW_CK_LOST_MK - DW_CK_FRAME);
}

static void feed(dw_mpa_check *c, const uint8_t *p, size_t len, dw_cc_slice *s)
{
    while (len) {
        size_t k;
        if (buffering(c->state)) {
            k = dw_ck_buf_put(c, p, len, s);
            c->in.off += k;
            if (k < len || c->state != DW_CK_SEARCH || c->b.len >= c->b.need)
                dw_ck_scan(c, 0); /* else a search that waits for octets */
        } else if (c->state == DW_CK_SYNC) {
            k = dw_ck_sync_feed(c, p, len, s);
            c->in.off += k;
        } else if (c->state == DW_CK_BEFORE) {
            k = before_start(c, len);
            c->in.off += k;
        } else { /* DW_CK_DEAD */
            k = len;
            c->st.skipped_octets += k;
            c->in.off += k;
        }
        p += k;
        len -= k;
        dw_cc_slice_advance(s, k);
    }
}

static void gap_in(dw_mpa_check *c, uint64_t len)
{
    switch (c->state) {
    case DW_CK_FRAME:
        if (c->set.start == DW_MPA_CHECK_START_FRAMES || c->b.len > c->b.start) {
            snprintf(c->detail, sizeof c->detail, "start-up frame cut by a gap");
            dw_ck_emit(c, DW_MPA_CHECK_EV_STARTUP_BAD, DW_MPA_ERR_NONE,
                       c->b.base + c->b.start, 0, 0, c->b.len - c->b.start, NULL);
        }
        c->state = DW_CK_SEARCH;
        c->pos_known = 0;
        break;
    case DW_CK_PEND:
        if (c->markers < 0)
            c->state = DW_CK_SEARCH, c->pos_known = 0;
        else
            dw_ck_lose(c, c->in.off);
        break;
    case DW_CK_SYNC:
        sync_gap(c, len);
        break;
    default:
        break;
    }
    if (c->state != DW_CK_SYNC)
        dw_ck_buf_drop_all(c);
}

static void gap(dw_mpa_check *c, uint64_t len)
{
    while (len) {
        if (c->state == DW_CK_BEFORE && c->in.off < c->set.start_offset) {
            uint64_t k = c->set.start_offset - c->in.off;
            k = k < len ? k : len;
            c->in.off += k;
            len -= k;
            continue;
        }
        if (c->state == DW_CK_BEFORE) {
            before_start(c, 1);
            continue;
        }
        gap_in(c, len);
        c->in.off += len;
        if (c->state != DW_CK_SYNC)
            dw_ck_buf_reset(c, c->in.off);
        len = 0;
    }
}

int dw_mpa_check_data(dw_mpa_check *c, const uint8_t *data, size_t len,
                      const dw_reasm_chunk *chunk)
{
    dw_cc_slice s;
    dw_reasm_gap hole;
    if (c && c->b.nomem)
        return DW_ERR_NOMEM;
    int r = dw_cc_data_begin(c ? &c->in : NULL, data, len, chunk, &s, &hole);
    if (r < 0)
        return r;
    if (r)
        dw_mpa_check_gap(c, &hole);
    s.tagged = 0; /* see DW_CK_DESC_CAP */
    if (len)
        feed(c, data, len, &s);
    if (c->b.nomem)
        return DW_ERR_NOMEM;
    return 0;
}

int dw_mpa_check_gap(dw_mpa_check *c, const dw_reasm_gap *g)
{
    uint64_t len = 0;
    if (c && c->b.nomem)
        return DW_ERR_NOMEM;
    int r = dw_cc_gap_begin(c ? &c->in : NULL, g, &len, c ? c->detail : NULL,
                            sizeof c->detail);
    if (r <= 0)
        return r;
    c->st.gaps++;
    c->st.gap_octets += len;
    dw_ck_emit(c, DW_MPA_CHECK_EV_GAP, DW_MPA_ERR_NONE, c->in.off, g->seq,
               g->pkt, len, NULL);
    gap(c, len);
    return c->b.nomem ? DW_ERR_NOMEM : 0;
}

static void truncated(dw_mpa_check *c)
{
    const dw_ck_fsm *f = &c->f;
    dw_mpa_check_fpdu *r = &c->rec;
    uint64_t seen = f->pos - f->fpdu_pos;
    r->fpdu_len = f->part != DW_CK_P_HDR
                      ? (uint32_t)dw_mpa_fpdu_len((uint32_t)f->fpdu_pos, f->ulen, f->markers)
                      : (uint32_t)seen;
    r->crc = DW_MPA_CHECK_CRC_MISSING;
    snprintf(c->detail, sizeof c->detail,
             "the stream ended %llu octets into an FPDU of %u",
             (unsigned long long)seen, r->fpdu_len);
    dw_ck_emit(c, DW_MPA_CHECK_EV_TRUNCATED, DW_MPA_ERR_CLOSED, r->offset,
               r->seq, r->last_pkt, seen, NULL);
    deliver(c);
}

int dw_mpa_check_end(dw_mpa_check *c)
{
    if (!c)
        return DW_ERR_INVAL;
    if (c->in.in_cb)
        return DW_ERR_STATE;
    if (c->b.nomem)
        return DW_ERR_NOMEM;
    if (c->in.ended)
        return 0;
    if (c->state != DW_CK_BEFORE && c->state != DW_CK_SYNC &&
        c->state != DW_CK_DEAD)
        dw_ck_scan(c, 1);
    if (c->state == DW_CK_SYNC && c->f.in_fpdu && c->shadow && dw_ck_buf_has_start(c)) {
        /* cut, and FPDUs lie inside: reported cut off as any FPDU the
         * stream ends inside (MPA 9 code 1: a receiver says so at it),
         * then searched again as after a bad CRC: its length was wrong */
        truncated(c);
        search_again(c, "cut off by the end of the stream, with FPDUs inside");
        dw_ck_scan(c, 1);
    }
    if (c->state == DW_CK_SYNC && c->f.in_fpdu)
        truncated(c); /* MPA 9 code 1, not between FPDUs */
    if (!c->started && c->state != DW_CK_DEAD && c->in.off) {
        snprintf(c->detail, sizeof c->detail, "no MPA start found in %llu octets",
                 (unsigned long long)c->in.off);
        dw_ck_emit(c, DW_MPA_CHECK_EV_NO_START, DW_MPA_ERR_NONE, c->in.off, 0,
                   0, c->in.off, NULL);
    }
    if (c->state != DW_CK_SYNC && c->state != DW_CK_BEFORE)
        dw_ck_buf_drop_all(c);
    c->state = DW_CK_DEAD;
    c->in.ended = 1;
    return 0;
}

static void mode_differs(dw_mpa_check *c, const char *what, int given, int seen)
{
    snprintf(c->detail, sizeof c->detail, "%s %s negotiated, the stream shows %s",
             what, given ? "on" : "off", seen ? "on" : "off");
    dw_ck_emit(c, DW_MPA_CHECK_EV_MODE, DW_MPA_ERR_NONE, c->in.off, 0, 0, 0,
               NULL);
}

int dw_mpa_check_set_mode(dw_mpa_check *c, int markers, int crc)
{
    if (!c || markers < -1 || markers > 1 || crc < -1 || crc > 1)
        return DW_ERR_INVAL;
    if (markers >= 0 && c->markers < 0) {
        c->markers = markers;
        c->markers_given = 1;
    } else if (markers >= 0 && c->markers != markers && c->state != DW_CK_PEND) {
        mode_differs(c, "markers", markers, c->markers);
    }
    if (crc >= 0 && c->crc < 0)
        c->crc = crc;
    else if (crc >= 0 && c->crc != crc)
        mode_differs(c, "CRC", crc, c->crc);
    return 0;
}

void dw_mpa_check_stats_get(const dw_mpa_check *c, dw_mpa_check_stats *stats)
{
    *stats = c->st;
    stats->seg_with_start = c->tr.seg_with_start;
    stats->seg_packed = c->tr.seg_packed;
    stats->first_error = (dw_mpa_error)c->in.err;
    stats->first_error_offset = c->in.err_off;
    stats->first_error_pkt = c->in.err_pkt;
    stats->started = c->started;
    stats->markers = c->markers;
    stats->crc = c->crc;
}

const char *dw_mpa_check_event_name(dw_mpa_check_event_kind kind)
{
    static const char *const names[] = {
        "startup", "start", "startup_bad", "no_start", "crc",
        "marker", "marker_reserved", "pad", "length", "gap",
        "sync_lost", "resync", "truncated", "mode", "oversize"};
    if ((unsigned)kind >= sizeof names / sizeof names[0])
        return "unknown";
    return names[kind];
}
