/* SPDX-License-Identifier: MIT */
/*
 * IFT stream checker: one direction, frame by frame. Headers are judged
 * from the buffer (lib/check/ift_check_search.c); payloads stream past with a
 * running CRC. Unlike the receiver it never stops: errors are reported
 * and checking goes on, in sync or after a search.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>
#include <ddpwire/ift_check.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/inline.h"
#include "base/mem.h"
#include "check/ift_check_int.h"
#include "base/versioned.h"

DW_VERSIONS_1(ift_check_callbacks_v, dw_ift_check_callbacks, on_event);
DW_VERSIONS_1(ift_check_settings_v, dw_ift_check_settings, mem);

static void ift_check_settings_fill(dw_ift_check_settings *s)
{
    memset(s, 0, sizeof *s);
    s->max_header = DW_IFT_SIZE_MAX;
    s->max_payload = DW_IFT_SIZE_MAX;
    s->search_limit = 1u << 20;
    s->head_len = 64;
}

int dw_ift_check_settings_default_versioned(int settings_version, dw_ift_check_settings *s)
{
    dw_ift_check_settings cur;
    ift_check_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, ift_check_settings_v);
}

static int ift_check_new_latest(dw_ift_check **pc, const dw_ift_check_settings *settings,
                                const dw_ift_check_callbacks *callbacks, void *user_data)
{
    dw_ift_check_settings def;
    if (!pc)
        return DW_ERR_INVAL;
    *pc = NULL;
    if (!settings) {
        dw_ift_check_settings_default(&def);
        settings = &def;
    }
    if (settings->max_header > DW_IFT_SIZE_MAX || settings->head_len > DW_IC_HEAD_MAX)
        return DW_ERR_INVAL;
    size_t cap = DW_IFT_SIZES_LEN + settings->max_header + DW_IFT_CRC_LEN + DW_IC_WINDOW;
    size_t dcap = cap / 8 < DW_IC_DESC_CAP ? cap / 8 : DW_IC_DESC_CAP;
    /* one block: the checker, then its buffer's first arrays */
    size_t head = dw_inl_round(sizeof(dw_ift_check));
    size_t size = head + dw_cc_inline_size(cap, dcap);
    dw_ift_check *c = dw_mem_malloc(settings->mem, size);
    if (!c)
        return DW_ERR_NOMEM;
    memset(c, 0, sizeof *c);
    c->size = size;
    c->set = *settings;
    dw_cc_inline_init(&c->b, &c->crcs, (uint8_t *)c + head, cap, dcap, settings->mem);
    if (callbacks)
        c->cb = *callbacks;
    c->user = user_data;
    c->state = settings->search_start ? DW_IC_SEARCH : DW_IC_HEAD; /* else a frame at 0 */
    c->started = !settings->search_start;
    dw_cc_rec_bind(&c->tr, &c->rec.first_pkt, &c->rec.last_pkt, &c->rec.segments,
                   &c->rec.aligned, &c->rec.packed);
    dw_ic_buf_reset(c, 0);
    *pc = c;
    return 0;
}

int dw_ift_check_new_versioned(dw_ift_check **pc, int settings_version,
                               const dw_ift_check_settings *settings, int callbacks_version,
                               const dw_ift_check_callbacks *callbacks, void *user_data)
{
    dw_ift_check_settings settings_cur;
    if (settings_version != DW_IFT_CHECK_SETTINGS_VERSION)
        dw_ift_check_settings_default(&settings_cur);
    dw_ift_check_callbacks callbacks_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, ift_check_settings_v, err);
    DW_VERSIONED_IN(callbacks, callbacks_cur, callbacks_version, ift_check_callbacks_v, err);
    if (err)
        return err;
    return ift_check_new_latest(pc, settings, callbacks, user_data);
}

void dw_ift_check_del(dw_ift_check *c)
{
    if (!c)
        return;
    dw_cc_buf_free(&c->b);
    dw_cc_crcs_free(&c->crcs);
    dw_inl_release(c, c->size);
    dw_mem_free(c->set.mem, c);
}

void dw_ic_emit(dw_ift_check *c, dw_ift_check_event_kind kind, dw_ift_error code,
                uint64_t off, uint64_t pkt, uint64_t len)
{
    dw_cc_error(&c->in, (int)code, off, pkt);
    if (!c->cb.on_event)
        return;
    uint32_t seq = dw_cc_seq(&c->in, off, 0);
    dw_ift_check_event ev = {kind, code, off, seq, pkt, len, c->detail};
    c->in.in_cb++;
    c->cb.on_event(c, &ev, c->user);
    c->in.in_cb--;
}

static void lose(dw_ift_check *c, uint64_t off, uint64_t pkt, const char *why)
{
    snprintf(c->detail, sizeof c->detail, "%s", why);
    dw_ic_emit(c, DW_IFT_CHECK_EV_SYNC_LOST, DW_IFT_ERR_NONE, off, pkt, 0);
    c->state = DW_IC_SEARCH;
    c->searched = c->lost_skipped = 0;
    c->tr.have_prev = 0;
}

/* ------------------------------------------------------------------ */
/* Frame records and segments                                          */
/* ------------------------------------------------------------------ */

static void rec_begin(dw_ift_check *c, const dw_cc_slice *s)
{
    dw_ift_check_frame *r = &c->rec;
    memset(r, 0, sizeof *r);
    r->index = c->next_index;
    r->offset = s->off;
    r->seq = dw_cc_seq(&c->in, s->off, s->seq);
    r->header_crc = r->payload_crc = DW_IFT_CHECK_CRC_MISSING;
    r->resync = c->resync_next;
    c->resync_next = 0;
    c->in_frame = 1;
    if (!s->tagged)
        return;
    dw_cc_rec_begin(&c->tr, r->index, s->pkt, s->seg_start);
}

void dw_ic_rec_touch(dw_ift_check *c, const dw_cc_slice *s)
{
    if (s->tagged)
        dw_cc_rec_touch(&c->tr, c->rec.index, s->pkt);
}

static void count(dw_ift_check *c)
{
    const dw_ift_check_frame *r = &c->rec;
    dw_ift_check_stats *st = &c->st;
    st->frames++;
    st->header_crc_good += r->header_crc == DW_IFT_CHECK_CRC_GOOD;
    st->header_crc_bad += r->header_crc == DW_IFT_CHECK_CRC_BAD;
    st->header_crc_missing += r->header_crc == DW_IFT_CHECK_CRC_MISSING;
    st->payload_crc_good += r->payload_crc == DW_IFT_CHECK_CRC_GOOD;
    st->payload_crc_bad += r->payload_crc == DW_IFT_CHECK_CRC_BAD;
    st->payload_crc_missing += r->payload_crc == DW_IFT_CHECK_CRC_MISSING;
    if (r->header_crc == DW_IFT_CHECK_CRC_GOOD)
        st->payload_octets += r->payload_size;
    st->aligned += r->aligned != 0;
    st->packed += r->packed != 0;
}

/* more_in_seg: the segment of its last octet carries more after it. */
static void deliver(dw_ift_check *c, int more_in_seg)
{
    dw_ift_check_frame *r = &c->rec;
    r->packed |= more_in_seg;
    r->head = c->head;
    count(c);
    c->next_index++;
    c->in_frame = 0;
    dw_cc_rec_done(&c->tr);
    if (c->cb.on_frame) {
        c->in.in_cb++;
        c->cb.on_frame(c, r, c->user);
        c->in.in_cb--;
    }
}

/* Begins the record of a frame at the buffer's start; notes the segments
 * of its n buffered octets and keeps its first header octets. */
static int rec_from_buf(dw_ift_check *c, size_t n)
{
    dw_cc_slice s;
    dw_cc_piece_at(&c->b, c->b.start, &s);
    rec_begin(c, &s);
    int more = dw_ic_span_tags(c, c->b.start, n);
    dw_ift_check_frame *r = &c->rec;
    if (n >= DW_IFT_SIZES_LEN) {
        const uint8_t *p = c->b.buf + c->b.start;
        r->header_size = (uint16_t)(p[0] << 8 | p[1]);
        r->payload_size = (uint16_t)(p[2] << 8 | p[3]);
        r->frame_len = DW_IFT_OVERHEAD + r->header_size + r->payload_size;
        size_t hl = n - DW_IFT_SIZES_LEN;
        hl = hl < r->header_size ? hl : r->header_size;
        hl = hl < c->set.head_len ? hl : c->set.head_len;
        memcpy(c->head, p + DW_IFT_SIZES_LEN, hl);
        r->head_len = hl;
    }
    return more;
}

/* ------------------------------------------------------------------ */
/* Headers                                                             */
/* ------------------------------------------------------------------ */

/* IFT 5.1: the header verified, the payload may stream. */
static void head_ok(dw_ift_check *c, const dw_ic_trial *t)
{
    size_t n = DW_IFT_SIZES_LEN + t->h + DW_IFT_CRC_LEN;
    rec_from_buf(c, n);
    c->rec.header_crc = DW_IFT_CHECK_CRC_GOOD;
    c->rec.header_crc_wire = t->wire;
    c->rec.header_crc_calc = t->calc;
    dw_ic_buf_drop(c, n, 0);
    c->body_left = t->p + DW_IFT_CRC_LEN;
    c->pcrc = 0;
    c->body_missing = 0;
    c->state = DW_IC_BODY;
}

/* IFT error 2: the sizes cannot be trusted; search from the next octet. */
static void head_bad(dw_ift_check *c, const dw_ic_trial *t)
{
    dw_ift_check_frame *r = &c->rec;
    int more = rec_from_buf(c, DW_IFT_SIZES_LEN + t->h + DW_IFT_CRC_LEN);
    r->header_crc = DW_IFT_CHECK_CRC_BAD;
    r->header_crc_wire = t->wire;
    r->header_crc_calc = t->calc;
    snprintf(c->detail, sizeof c->detail,
             "header CRC 0x%08x, computed 0x%08x (header_size %u, payload_size %u)",
             t->wire, t->calc, t->h, t->p);
    dw_ic_emit(c, DW_IFT_CHECK_EV_HEADER_CRC, DW_IFT_ERR_HEADER_CRC, r->offset,
               r->first_pkt, DW_IFT_SIZES_LEN + t->h);
    deliver(c, more);
    lose(c, r->offset, r->first_pkt,
         "sizes not trusted after a header CRC error (IFT 5.1): searching");
    dw_ic_buf_drop(c, 1, 1);
}

/* IFT error 4: sizes over the limits (unverified, perhaps corrupted). */
static void head_size(dw_ift_check *c, const dw_ic_trial *t)
{
    dw_cc_slice s;
    dw_cc_piece_at(&c->b, c->b.start, &s);
    c->st.size_errors++;
    snprintf(c->detail, sizeof c->detail,
             "header_size %u (at most %zu), payload_size %u (at most %zu)", t->h,
             c->set.max_header, t->p, c->set.max_payload);
    dw_ic_emit(c, DW_IFT_CHECK_EV_SIZE, DW_IFT_ERR_SIZE, s.off, s.pkt,
               DW_IFT_SIZES_LEN);
    lose(c, s.off, s.pkt, "sizes over the limits: searching");
    dw_ic_buf_drop(c, 1, 1);
}

/* In sync, a verdict on the header at the buffer's start: 1 to go on. */
static int head_step(dw_ift_check *c, int r, const dw_ic_trial *t)
{
    if (r == DW_IC_T_MORE) {
        c->b.need = t->need;
        return 0;
    }
    if (r == DW_IC_T_OK)
        head_ok(c, t);
    else if (r == DW_IC_T_CRC)
        head_bad(c, t);
    else
        head_size(c, t);
    return 1;
}

static void give_up(dw_ift_check *c)
{
    snprintf(c->detail, sizeof c->detail, "no frame %s within %llu octets",
             c->started ? "boundary" : "start", (unsigned long long)c->set.search_limit);
    dw_ic_emit(c, DW_IFT_CHECK_EV_NO_SYNC, DW_IFT_ERR_NONE,
               c->b.base + c->b.start, 0, c->searched);
    c->state = DW_IC_DEAD;
}

/* Searching, a verdict on the candidate at the buffer's start. */
static int search_step(dw_ift_check *c, int r, const dw_ic_trial *t, int final)
{
    if (r == DW_IC_T_MORE && !final) {
        c->b.need = t->need;
        return 0;
    }
    if (r == DW_IC_T_OK && !c->started) {
        dw_cc_slice s;
        dw_cc_piece_at(&c->b, c->b.start, &s);
        snprintf(c->detail, sizeof c->detail,
                 "found by search at offset %llu: plausible sizes and matching header CRC",
                 (unsigned long long)s.off);
        dw_ic_emit(c, DW_IFT_CHECK_EV_START, DW_IFT_ERR_NONE, s.off, s.pkt,
                   c->lost_skipped);
        c->started = 1;
        head_ok(c, t);
        return 1;
    }
    if (r == DW_IC_T_OK) {
        dw_cc_slice s;
        dw_cc_piece_at(&c->b, c->b.start, &s);
        snprintf(c->detail, sizeof c->detail,
                 "header CRC matches at offset %llu after %llu octets skipped",
                 (unsigned long long)s.off, (unsigned long long)c->lost_skipped);
        dw_ic_emit(c, DW_IFT_CHECK_EV_RESYNC, DW_IFT_ERR_NONE, s.off, s.pkt,
                   c->lost_skipped);
        c->st.resyncs++;
        c->resync_next = 1;
        head_ok(c, t);
        return 1;
    }
    dw_ic_search_reject(c);
    return 1;
}

void dw_ic_search_reject(dw_ift_check *c)
{
    dw_ic_buf_drop(c, 1, 1);
    if (++c->searched > c->set.search_limit)
        give_up(c);
}

/* Searching: how many candidates from the buffer's start on the search
 * is sure to reject, at most max (a fast path, a few operations an octet
 * where dw_ic_try() takes a few dozen): sizes above the limits, a header
 * shorter than DW_IC_MIN_HEADER or, final, a header and CRC that do not
 * fit in what is left. The last 3 octets go the slow way. */
static size_t sure_rejects(const dw_ift_check *c, int final, size_t max)
{
    const uint8_t *p = c->b.buf + c->b.start;
    size_t n = c->b.len - c->b.start, k = 0;
    if (n < DW_IFT_SIZES_LEN)
        return 0;
    max = max < n - 3 ? max : n - 3; /* k + 4 <= n */
    for (; k < max; k++) {
        size_t h = (size_t)p[k] << 8 | p[k + 1], pl = (size_t)p[k + 2] << 8 | p[k + 3];
        if (h > c->set.max_header || pl > c->set.max_payload || h < DW_IC_MIN_HEADER)
            continue;
        if (!final || DW_IFT_SIZES_LEN + h + DW_IFT_CRC_LEN <= n - k)
            break;
    }
    return k;
}

/* Works through the buffer; final: no more octets will come before a gap
 * or the end (a search candidate that needs more is rejected). */
void dw_ic_scan(dw_ift_check *c, int final)
{
    while (c->b.start < c->b.len) {
        if (c->state == DW_IC_DEAD) {
            dw_ic_buf_drop(c, c->b.len - c->b.start, 1);
            return;
        }
        if (c->state == DW_IC_BODY) {
            dw_cc_slice s;
            size_t n = dw_cc_piece_at(&c->b, c->b.start, &s);
            dw_ic_buf_drop(c, dw_ic_body(c, c->b.buf + c->b.start, n, &s), 0);
            continue;
        }
        if (!final && c->b.len < c->b.need)
            return;
        if (c->state == DW_IC_SEARCH) { /* as many rejections one by one */
            uint64_t left = c->searched < c->set.search_limit ? c->set.search_limit - c->searched : 0;
            size_t m = sure_rejects(c, final, left < SIZE_MAX ? (size_t)left : SIZE_MAX);
            if (m) {
                dw_ic_buf_drop(c, m, 1);
                c->searched += m;
                continue;
            }
        }
        dw_ic_trial t;
        int search = c->state == DW_IC_SEARCH;
        dw_cc_crcs_sync(&c->crcs, &c->b);
        int r = dw_ic_try(c, c->b.start, search, &t);
        if (!(search ? search_step(c, r, &t, final) : head_step(c, r, &t)))
            return;
    }
}

/* ------------------------------------------------------------------ */
/* Payload and payload CRC                                             */
/* ------------------------------------------------------------------ */

static void body_end(dw_ift_check *c, int more_in_seg)
{
    dw_ift_check_frame *r = &c->rec;
    if (!c->body_missing) {
        r->payload_crc_wire = dw_crc32c_load(c->crcb);
        r->payload_crc_calc = c->pcrc; /* 0 for an empty payload */
        r->payload_crc = r->payload_crc_wire == r->payload_crc_calc
                             ? DW_IFT_CHECK_CRC_GOOD
                             : DW_IFT_CHECK_CRC_BAD;
    }
    c->state = DW_IC_HEAD;
    if (r->payload_crc == DW_IFT_CHECK_CRC_BAD) { /* IFT error 3: sync kept */
        snprintf(c->detail, sizeof c->detail, "payload CRC 0x%08x, computed 0x%08x",
                 r->payload_crc_wire, r->payload_crc_calc);
        dw_ic_emit(c, DW_IFT_CHECK_EV_PAYLOAD_CRC, DW_IFT_ERR_PAYLOAD_CRC,
                   r->offset, r->first_pkt, r->payload_size);
    }
    deliver(c, more_in_seg);
}

/* Up to n octets of the frame's payload and payload CRC (in NULL: missing
 * from the capture, s NULL). Returns the octets used. */
size_t dw_ic_body(dw_ift_check *c, const uint8_t *in, size_t n,
                  const dw_cc_slice *s)
{
    if (s)
        dw_ic_rec_touch(c, s);
    size_t k = n < c->body_left ? n : c->body_left;
    size_t pay = c->body_left > DW_IFT_CRC_LEN ? c->body_left - DW_IFT_CRC_LEN : 0;
    pay = pay < k ? pay : k;
    if (!in)
        c->body_missing = 1;
    else if (pay)
        c->pcrc = dw_crc32c(c->pcrc, in, pay);
    if (in && k > pay) /* IFT 3.1: the payload CRC, no pad before it */
        memcpy(c->crcb + (DW_IFT_CRC_LEN - (c->body_left - pay)), in + pay, k - pay);
    c->body_left -= (uint32_t)k;
    if (!c->body_left)
        body_end(c, s && (k < n || !s->seg_end));
    return k;
}

/* ------------------------------------------------------------------ */
/* Feeding                                                             */
/* ------------------------------------------------------------------ */

static void feed(dw_ift_check *c, const uint8_t *p, size_t len, dw_cc_slice s)
{
    while (len) {
        size_t k;
        if (c->state == DW_IC_DEAD) {
            k = len;
            c->st.skipped_octets += k;
            c->in.off += k;
        } else if (c->state == DW_IC_BODY && c->b.start == c->b.len) {
            k = dw_ic_body(c, p, len, &s);
            c->in.off += k;
        } else {
            k = dw_ic_buf_put(c, p, len, &s);
            c->in.off += k;
            if (!k) /* segment pieces full: a candidate waited too long */
                dw_ic_search_reject(c);
            dw_ic_scan(c, 0);
        }
        p += k;
        len -= k;
        dw_cc_slice_advance(&s, k);
    }
}

int dw_ift_check_data(dw_ift_check *c, const uint8_t *data, size_t len,
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
        dw_ift_check_gap(c, &hole);
    if (len)
        feed(c, data, len, s);
    return c->b.nomem ? DW_ERR_NOMEM : 0;
}

/* The record of a frame whose sizes, header or header CRC are cut short
 * (by a gap or the end): what is buffered of it. */
static int rec_partial(dw_ift_check *c)
{
    return rec_from_buf(c, c->b.len - c->b.start);
}

/* Missing octets inside a frame whose header was good: sync is kept if
 * they end inside it or at its end (the next header's place is known). */
static void body_gap(dw_ift_check *c, uint64_t len, uint64_t pkt)
{
    uint64_t k = len < c->body_left ? len : c->body_left;
    dw_ic_body(c, NULL, (size_t)k, NULL);
    if (len > k)
        lose(c, c->in.off + k, pkt, "the next frame's header is missing: searching after the gap");
}

static void head_gap(dw_ift_check *c, uint64_t pkt)
{
    if (c->b.start < c->b.len) {
        rec_partial(c);
        dw_ic_buf_drop(c, c->b.len - c->b.start, 0);
        deliver(c, 0);
        lose(c, c->in.off, pkt, "part of a header is missing: searching after the gap");
        return;
    }
    lose(c, c->in.off, pkt, "the next frame's header is missing: searching after the gap");
}

static void gap_apply(dw_ift_check *c, uint64_t len, uint64_t pkt)
{
    if (c->state == DW_IC_SEARCH)
        dw_ic_scan(c, 1); /* a header whole before the gap is found still */
    if (c->state == DW_IC_BODY)
        body_gap(c, len, pkt);
    else if (c->state == DW_IC_HEAD)
        head_gap(c, pkt);
    if (c->state != DW_IC_BODY)
        dw_ic_buf_drop(c, c->b.len - c->b.start, 1);
}

int dw_ift_check_gap(dw_ift_check *c, const dw_reasm_gap *g)
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
    dw_ic_emit(c, DW_IFT_CHECK_EV_GAP, DW_IFT_ERR_NONE, c->in.off, g->pkt, len);
    gap_apply(c, len, g->pkt);
    c->in.off += len;
    if (c->state != DW_IC_BODY)
        dw_ic_buf_reset(c, c->in.off);
    return 0;
}

/* IFT error 1: the stream ended inside a frame. */
static void truncated(dw_ift_check *c)
{
    if (c->state == DW_IC_HEAD)
        rec_partial(c);
    dw_ift_check_frame *r = &c->rec;
    uint64_t seen = c->in.off - r->offset;
    snprintf(c->detail, sizeof c->detail,
             "the stream ended %llu octets into a frame of %u",
             (unsigned long long)seen, (unsigned)r->frame_len);
    dw_ic_emit(c, DW_IFT_CHECK_EV_TRUNCATED, DW_IFT_ERR_CLOSED, r->offset,
               r->last_pkt, seen);
    deliver(c, 0);
}

int dw_ift_check_end(dw_ift_check *c)
{
    if (!c)
        return DW_ERR_INVAL;
    if (c->in.in_cb)
        return DW_ERR_STATE;
    if (c->b.nomem)
        return DW_ERR_NOMEM;
    if (c->in.ended)
        return 0;
    if (c->state == DW_IC_HEAD || c->state == DW_IC_SEARCH)
        dw_ic_scan(c, 1);
    if ((c->state == DW_IC_HEAD && c->b.start < c->b.len) || c->state == DW_IC_BODY) {
        truncated(c);
    } else if (c->state == DW_IC_SEARCH && c->lost_skipped) {
        snprintf(c->detail, sizeof c->detail,
                 c->started ? "the stream ended %llu octets after the boundaries were lost, none found"
                            : "no frame start found in %llu octets",
                 (unsigned long long)c->lost_skipped);
        dw_ic_emit(c, DW_IFT_CHECK_EV_NO_SYNC, DW_IFT_ERR_NONE, c->in.off, 0,
                   c->searched);
    }
    dw_ic_buf_drop(c, c->b.len - c->b.start, c->state != DW_IC_HEAD);
    c->end_sync = c->state == DW_IC_HEAD;
    c->state = DW_IC_DEAD;
    c->in.ended = 1;
    return 0;
}

void dw_ift_check_stats_get(const dw_ift_check *c, dw_ift_check_stats *stats)
{
    *stats = c->st;
    stats->seg_with_start = c->tr.seg_with_start;
    stats->seg_packed = c->tr.seg_packed;
    stats->first_error = (dw_ift_error)c->in.err;
    stats->first_error_offset = c->in.err_off;
    stats->first_error_pkt = c->in.err_pkt;
    stats->in_sync = c->state == DW_IC_HEAD || c->state == DW_IC_BODY || c->end_sync;
}

const char *dw_ift_check_event_name(dw_ift_check_event_kind kind)
{
    static const char *const names[] = {"header_crc", "payload_crc", "size",
                                        "gap", "sync_lost", "resync",
                                        "truncated", "no_sync", "start"};
    if ((unsigned)kind >= sizeof names / sizeof names[0])
        return "unknown";
    return names[kind];
}
