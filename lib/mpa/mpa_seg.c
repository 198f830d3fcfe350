/* SPDX-License-Identifier: MIT */
/*
 * MPA segment receiver: TCP segments in arrival order in, ULPDUs placed
 * as soon as they are located and verified, delivered in sender order
 * (MPA 5.1, 5.2, 7.4, 9). See include/ddpwire/mpa.h for the rules.
 *
 * State: the in-order point (rcv_nxt, an FPDU boundary) and the octets
 * consumed in order (cons: beyond rcv_nxt while an FPDU is partial, kept
 * by the in-order parser); a sorted table of positions ahead of cons
 * (FPDU starts named by markers or by lengths, segment starts that may be
 * FPDU starts, and placed FPDUs waiting for delivery); the store of held
 * out-of-order octets.
 */
#include <ddpwire/mpa_seg.h>

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "mpa/mpa_internal.h"
#include "mpa/mpa_seg_internal.h"
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(mpa_seg_callbacks_v, dw_mpa_seg_callbacks, on_error);
DW_VERSIONS_1(mpa_seg_settings_v, dw_mpa_seg_settings, mem);

typedef seg_ent ent;

/* The segment being fed: octets [a, b) at p. */
typedef struct view {
    const uint8_t *p;
    uint64_t a, b;
} view;

/* Hint chains longer than this (FPDUs) are left for later. */
#define WALK_MAX 64

struct dw_mpa_seg {
    dw_mpa_seg_settings set;
    dw_mpa_seg_callbacks cb;
    void *user;
    dw_mpa_error failed;
    int busy;          /* inside a callback */
    uint64_t rcv_nxt;  /* every FPDU before it delivered */
    uint64_t cons;     /* octets consumed in order */
    seg_fsm in;        /* the in-order FPDU */
    seg_fsm oo;        /* out-of-order FPDUs */
    /* positions ahead of cons: segment starts that may be FPDU starts,
     * FPDU starts named by markers or by lengths, placed FPDUs [start,
     * x) waiting for delivery; each sorted, looked up in O(log n) */
    seg_tab hint, anc, pl;
    void *tabs;        /* their memory */
    seg_store st;
    uint8_t *inbuf, *scratch; /* 64-aligned inside inbuf_raw, scratch_raw */
    void *inbuf_raw, *scratch_raw;
    dw_mpa_seg_stats stats;
};

static void mpa_seg_settings_fill(dw_mpa_seg_settings *s)
{
    memset(s, 0, sizeof *s);
    s->markers = 1;
    s->crc = 1;
    s->store_bytes = 65536;
    s->max_pending = 1024;
    s->max_segment = 65535;
    s->window = 16u << 20;
}

int dw_mpa_seg_settings_default_versioned(int settings_version, dw_mpa_seg_settings *s)
{
    dw_mpa_seg_settings cur;
    mpa_seg_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, mpa_seg_settings_v);
}

static uint8_t *align64(void *p)
{
    return p ? (uint8_t *)(((uintptr_t)p + 63) & ~(uintptr_t)63) : NULL;
}

static int mpa_seg_new_latest(dw_mpa_seg **pr, const dw_mpa_seg_settings *settings,
                              const dw_mpa_seg_callbacks *cb, void *user_data)
{
    dw_mpa_seg_settings def;
    if (!pr || !cb || !cb->on_place)
        return DW_ERR_INVAL;
    *pr = NULL;
    if (!settings) {
        dw_mpa_seg_settings_default(&def);
        settings = &def;
    }
    if (settings->max_pending < 4 || settings->max_pending > (1u << 24) ||
        !settings->max_segment || settings->max_segment > (1u << 30) ||
        !settings->window || settings->window > (1u << 30) ||
        settings->store_bytes > ((size_t)1 << 32))
        return DW_ERR_INVAL;
    dw_mpa_seg *r = dw_mem_calloc(settings->mem, 1, sizeof *r);
    if (!r)
        return DW_ERR_NOMEM;
    r->set = *settings;
    r->cb = *cb;
    r->user = user_data;
    size_t cap = settings->max_pending;
    r->tabs = dw_mem_malloc(settings->mem, 3 * cap * sizeof(ent));
    if (r->tabs) {
        seg_tab *t[3] = {&r->hint, &r->anc, &r->pl};
        for (int i = 0; i < 3; i++)
            *t[i] = (seg_tab){(ent *)r->tabs + (size_t)i * cap, 0, 0, cap};
    }
    /* whole cache lines for the kernel's stores */
    r->inbuf = align64(r->inbuf_raw = dw_mem_malloc(settings->mem, 65536 + 63));
    r->scratch = align64(r->scratch_raw = dw_mem_malloc(settings->mem, 65536 + 63));
    if (!r->tabs || !r->inbuf || !r->scratch ||
        dw_seg_store_init(&r->st, settings->store_bytes, settings->mem)) {
        dw_mpa_seg_del(r);
        return DW_ERR_NOMEM;
    }
    r->in.markers = r->oo.markers = settings->markers != 0;
    r->in.crc_on = r->oo.crc_on = settings->crc != 0;
    r->in.dst = r->inbuf;
    r->oo.dst = r->scratch;
    *pr = r;
    return 0;
}

int dw_mpa_seg_new_versioned(dw_mpa_seg **pr, int settings_version,
                             const dw_mpa_seg_settings *settings, int callbacks_version,
                             const dw_mpa_seg_callbacks *cb, void *user_data)
{
    dw_mpa_seg_settings settings_cur;
    if (settings_version != DW_MPA_SEG_SETTINGS_VERSION)
        dw_mpa_seg_settings_default(&settings_cur);
    dw_mpa_seg_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, mpa_seg_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, mpa_seg_callbacks_v, err);
    if (err)
        return err;
    return mpa_seg_new_latest(pr, settings, cb, user_data);
}

void dw_mpa_seg_del(dw_mpa_seg *r)
{
    if (!r)
        return;
    dw_seg_store_fini(&r->st);
    dw_mem_free(r->set.mem, r->tabs);
    dw_mem_free(r->set.mem, r->inbuf_raw);
    dw_mem_free(r->set.mem, r->scratch_raw);
    dw_mem_free(r->set.mem, r);
}

/* ---- the table ---------------------------------------------------- */

/* Nothing located, placed or hinted ahead. */
static int no_entries(const dw_mpa_seg *r)
{
    return !dw_seg_tab_len(&r->hint) && !dw_seg_tab_len(&r->anc) && !dw_seg_tab_len(&r->pl);
}

/* pos is an FPDU start named by lengths, or by a marker at m - 1 (m 0:
 * none). A full table forgets it: it only speeds placement up. */
static void anchor(dw_mpa_seg *r, uint64_t pos, uint64_t m)
{
    if (dw_seg_tab_at(&r->pl, pos))
        return;
    ent *e = dw_seg_tab_at(&r->anc, pos);
    if (!e && pos >= r->cons && (e = dw_seg_tab_add(&r->anc, pos)) != NULL)
        dw_seg_tab_cut(&r->hint, pos, pos + 1); /* a hint there: now known */
    if (e)
        e->x = m > e->x ? m : e->x;
}

/* The last placed FPDU that starts before pos, or NULL. */
static const ent *placed_before(const dw_mpa_seg *r, uint64_t pos)
{
    size_t i = dw_seg_tab_find(&r->pl, pos);
    return i > r->pl.lo ? &r->pl.e[i - 1] : NULL;
}

/* Entries starting in (a, b): returns 2 when a placed FPDU starts there,
 * 1 for an anchor. drop: 1 drops the hints there (they were not FPDU
 * starts), 2 the anchors too. */
static int inner(dw_mpa_seg *r, uint64_t a, uint64_t b, int drop)
{
    int worst = dw_seg_tab_any(&r->pl, a + 1, b) ? 2 : dw_seg_tab_any(&r->anc, a + 1, b);
    if (drop)
        dw_seg_tab_cut(&r->hint, a + 1, b);
    if (drop == 2)
        dw_seg_tab_cut(&r->anc, a + 1, b);
    return worst;
}

/* ---- callbacks ---------------------------------------------------- */

static void fail(dw_mpa_seg *r, dw_mpa_error code, uint64_t off)
{
    if (r->failed)
        return;
    r->failed = code;
    if (r->cb.on_error) {
        dw_mpa_rx_error e = {code, off, (uint32_t)(r->set.start_seq + off), 0, 0};
        r->busy = 1;
        r->cb.on_error(r, &e, r->user);
        r->busy = 0;
    }
}

static dw_mpa_seg_pdu pdu_of(const dw_mpa_seg *r, uint64_t start, uint64_t end,
                             uint32_t ulen, int early)
{
    dw_mpa_seg_pdu p = {start, (uint32_t)(r->set.start_seq + start), ulen,
                        (uint32_t)(end - start), early};
    return p;
}

static void place(dw_mpa_seg *r, const seg_done *d, int early)
{
    dw_mpa_seg_pdu p = pdu_of(r, d->fpdu, d->end, d->ulen, early);
    r->stats.placed++;
    r->stats.placed_early += early != 0;
    r->busy = 1;
    r->cb.on_place(r, d->data, &p, r->user);
    r->busy = 0;
}

static void deliver(dw_mpa_seg *r, uint64_t start, uint64_t end, uint32_t ulen,
                    int early)
{
    dw_mpa_seg_pdu p = pdu_of(r, start, end, ulen, early);
    r->stats.delivered++;
    if (r->cb.on_deliver) {
        r->busy = 1;
        r->cb.on_deliver(r, &p, r->user);
        r->busy = 0;
    }
}

/* ---- octets at hand: held ones first (committed), then the segment -- */

static const uint8_t *piece(const dw_mpa_seg *r, const view *v, uint64_t pos,
                            uint64_t lim, size_t *len)
{
    const uint8_t *p = r->st.nheld ? dw_seg_store_piece(&r->st, pos, lim, len)
                                   : NULL;
    if (p || !v || pos < v->a || pos >= v->b)
        return p;
    uint64_t end = v->b < lim ? v->b : lim;
    if (r->st.nheld) {
        size_t i = dw_seg_store_find(&r->st, pos);
        if (i < r->st.nheld && r->st.held[i].a < end)
            end = r->st.held[i].a;
    }
    *len = (size_t)(end - pos);
    return v->p + (pos - v->a);
}

static int read_at(const dw_mpa_seg *r, const view *v, uint64_t pos,
                   uint8_t *out, size_t n)
{
    while (n) {
        size_t len;
        const uint8_t *p = piece(r, v, pos, pos + n, &len);
        if (!p)
            return 0;
        memcpy(out, p, len);
        out += len, pos += len, n -= len;
    }
    return 1;
}

/* Every octet of [a, b) at hand? */
static int have(const dw_mpa_seg *r, const view *v, uint64_t a, uint64_t b)
{
    while (a < b) {
        const seg_span *s = r->st.nheld ? dw_seg_store_span(&r->st, a) : NULL;
        if (s)
            a = s->b;
        else if (v && a >= v->a && a < v->b)
            a = v->b;
        else
            return 0;
    }
    return 1;
}

/* ---- in order ------------------------------------------------------ */

/*
 * The in-order FPDU is judged on its own octets, as the in-order receiver
 * does: CRC first (MPA 9 code 2), then the markers inside it (code 3).
 * A marker outside it that names its start or a point inside it is the
 * error of the FPDU that holds that marker, when that one is verified in
 * its turn (code 3 only "in the event that the CRC is valid"); the
 * positions it located (anchors inside) are dropped.
 */
static void in_done(dw_mpa_seg *r, const seg_done *d)
{
    int in = inner(r, d->fpdu, d->end, 2);
    if (!d->crc_ok) {
        fail(r, DW_MPA_ERR_CRC, d->fpdu);
        return;
    }
    if (!d->marker_ok || in == 2) {
        fail(r, DW_MPA_ERR_MARKER, d->fpdu);
        return;
    }
    place(r, d, 0);
    if (r->failed)
        return;
    r->rcv_nxt = d->end;
    deliver(r, d->fpdu, d->end, d->ulen, 0);
}

/*
 * The fast path: FPDUs of a segment at cons with nothing pending (no
 * partial FPDU, no table entry, nothing held), each judged in one pass
 * (dw_seg_whole(): no parser state, no table), placed and delivered
 * straight from the segment; a partial FPDU at its end goes to the
 * parser. cons, rcv_nxt and the counts are current in the callbacks.
 */
static void in_order_fast(dw_mpa_seg *r, const uint8_t *p, size_t n)
{
    int mk = r->in.markers, crc_on = r->in.crc_on;
    seg_done d;
    size_t used;
    r->busy = 1; /* (only callbacks see it) */
    while ((used = dw_seg_whole(mk, crc_on, r->cons, p, n, r->inbuf, &d)) != 0) {
        p += used;
        n -= used;
        r->cons += used;
        if (!d.crc_ok || !d.marker_ok) { /* MPA 9: the CRC first */
            r->busy = 0;
            r->in.pos = r->cons;
            fail(r, d.crc_ok ? DW_MPA_ERR_MARKER : DW_MPA_ERR_CRC, d.fpdu);
            return;
        }
        dw_mpa_seg_pdu u = pdu_of(r, d.fpdu, d.end, d.ulen, 0);
        r->rcv_nxt = d.end;
        r->stats.placed++;
        r->stats.delivered++;
        r->cb.on_place(r, d.data, &u, r->user);
        if (r->cb.on_deliver)
            r->cb.on_deliver(r, &u, r->user);
    }
    r->busy = 0;
    r->in.pos = r->cons;
    if (n) { /* the start of an FPDU: streamed into the buffer */
        int done;
        r->cons += dw_seg_fsm_feed(&r->in, p, n, &done, &d);
    }
}

/* Consumes octets at cons from the segment and the store while they
 * continue the stream: the ordered stream of MPA 7.4 method 1. */
static void in_order(dw_mpa_seg *r, const view *v)
{
    while (!r->failed) {
        if (r->in.st == SEG_IDLE) { /* hints and anchors at cons: done */
            dw_seg_tab_cut(&r->hint, 0, r->cons + 1);
            dw_seg_tab_cut(&r->anc, 0, r->cons + 1);
            dw_seg_tab_cut(&r->pl, 0, r->cons); /* (none) */
        }
        if (r->in.st == SEG_IDLE && dw_seg_tab_len(&r->pl) &&
            r->pl.e[r->pl.lo].start == r->cons) {
            ent e = r->pl.e[r->pl.lo];
            dw_seg_tab_del(&r->pl, r->pl.lo);
            r->cons = r->rcv_nxt = e.x; /* placed early: its turn now */
            r->in.pos = e.x;
            deliver(r, e.start, e.x, e.ulen, 1);
            continue;
        }
        size_t len;
        const uint8_t *p = piece(r, v, r->cons, UINT64_MAX, &len);
        if (!p)
            break;
        uint64_t known = r->in.end;
        int done;
        seg_done d;
        size_t used = dw_seg_fsm_feed(&r->in, p, len, &done, &d);
        if (r->st.nheld)
            dw_seg_store_drop(&r->st, r->cons, r->cons + used);
        r->cons += used;
        if (done) {
            in_done(r, &d);
        } else if (!known && r->in.end && inner(r, r->in.fpdu, r->in.end, 2) == 2) {
            /* its length runs into a placed FPDU: a gap closes on a
             * disagreement (MPA 9); those octets are gone, so now.
             * (Positions located inside it are dropped.) */
            fail(r, DW_MPA_ERR_MARKER, r->in.fpdu);
        }
    }
}

/* ---- out of order -------------------------------------------------- */

/* Runs the parser over [q, ...) (all at hand). 0 when not finished. */
static int check_fpdu(dw_mpa_seg *r, const view *v, uint64_t q, uint64_t y,
                      seg_done *d)
{
    int done = 0;
    dw_seg_fsm_reset(&r->oo, q);
    while (!done) {
        size_t len;
        const uint8_t *p = piece(r, v, r->oo.pos, y, &len);
        if (!p || !len) /* (the parser found another length: not at hand) */
            return 0;
        dw_seg_fsm_feed(&r->oo, p, len, &done, d);
    }
    return 1;
}

/* The end of the FPDU at q from its length field, or 0 when not at hand
 * (or q is no FPDU start: FPDUs are multiples of 4 octets, MPA 6). */
static uint64_t fpdu_end(const dw_mpa_seg *r, const view *v, uint64_t q)
{
    uint8_t h[2];
    if (q % 4 || !read_at(r, v, q + dw_seg_lead(r->set.markers, q), h, 2))
        return 0;
    return q + dw_mpa_fpdu_len((uint32_t)q, dw_get_be16(h), r->set.markers);
}

/*
 * An anchor whose FPDU is not verified (CRC, markers), or that disagrees
 * with markers or FPDUs already identified, is not located unambiguously
 * (MPA 7.4 method 2: "in FPDUs with valid CRCs"): it is dropped and its
 * octets wait for their turn in order, where an error is reported at its
 * stream offset after every FPDU before it (MPA 9 lets an MPA-aware TCP
 * drop such a segment rather than report at once; the in-order receiver
 * reports the same error at the same point).
 */
static void unanchor(dw_mpa_seg *r, uint64_t q)
{
    dw_seg_tab_cut(&r->anc, q, q + 1);
}

/*
 * Places the FPDU at anchor q when it is all at hand and verified (MPA 7.4
 * methods 2 and 3). Returns its end, 0 when not possible (yet).
 */
static uint64_t try_anchor(dw_mpa_seg *r, const view *v, uint64_t q)
{
    uint64_t y = fpdu_end(r, v, q);
    if (!y)
        return 0;
    if (inner(r, q, y, 0) == 2 || (r->in.end && q < r->in.end)) {
        /* runs into a placed FPDU, or starts inside the in-order one */
        unanchor(r, q);
        return 0;
    }
    seg_done d;
    if (dw_seg_tab_len(&r->pl) == r->pl.cap || !have(r, v, q, y) ||
        !check_fpdu(r, v, q, y, &d))
        return 0; /* (no room to remember it placed: it waits) */
    const ent *e = dw_seg_tab_at(&r->anc, q);
    if (!d.crc_ok || !d.marker_ok || e->x > y || inner(r, q, y, 0)) {
        unanchor(r, q);
        return 0;
    }
    inner(r, q, y, 1);
    unanchor(r, q);
    ent *pe = dw_seg_tab_add(&r->pl, q);
    *pe = (ent){q, y, d.ulen};
    place(r, &d, 1);
    if (r->st.nheld)
        dw_seg_store_drop(&r->st, q, y);
    anchor(r, y, 0); /* method 3: the next FPDU starts there */
    return y;
}

/* Anchors in [ra, rb) whose FPDUs are complete now, in stream order. */
static void place_anchors(dw_mpa_seg *r, const view *v, uint64_t ra, uint64_t rb)
{
    uint64_t pos = ra;
    while (!r->failed) {
        size_t i = dw_seg_tab_find(&r->anc, pos);
        if (i == r->anc.hi || r->anc.e[i].start >= rb)
            return;
        pos = r->anc.e[i].start;
        uint64_t y = try_anchor(r, v, pos);
        pos = y ? y : pos + 1;
    }
}

/*
 * Is the hint at c an FPDU start? Follows ULPDU lengths through complete,
 * CRC-valid FPDUs: 1 when they land on a located FPDU start, -1 when one
 * fails or crosses a located start, 0 when the octets run out (*need:
 * octets up to there were missing; it is not walked again before).
 */
static int walk(dw_mpa_seg *r, const view *v, uint64_t c, uint64_t *need)
{
    uint64_t x = c;
    for (int n = 0; n < WALK_MAX; n++) {
        if (x != c && (dw_seg_tab_at(&r->anc, x) || dw_seg_tab_at(&r->pl, x)))
            return 1;
        uint64_t y = fpdu_end(r, v, x);
        if (!y) {
            *need = x + dw_seg_lead(r->set.markers, x) + 2;
            return 0;
        }
        if (inner(r, x, y, 0))
            return -1;
        seg_done d;
        *need = y;
        if (!have(r, v, x, y) || !check_fpdu(r, v, x, y, &d))
            return 0;
        if (!d.crc_ok || !d.marker_ok)
            return -1;
        x = y;
    }
    *need = x + 1;
    return 0;
}

static void try_hints(dw_mpa_seg *r, const view *v, uint64_t ra, uint64_t rb)
{
    size_t i = dw_seg_tab_find(&r->hint, ra);
    while (!r->failed && i < r->hint.hi && r->hint.e[i].start < rb) {
        ent *h = &r->hint.e[i];
        uint64_t c = h->start;
        if (h->x > rb) { /* (x: octets it waits for) */
            i++;
            continue;
        }
        int w = walk(r, v, c, &h->x);
        if (w > 0 && dw_seg_tab_len(&r->anc) < r->anc.cap) {
            r->stats.hints_taken++;
            anchor(r, c, 0); /* (drops the hint) */
            place_anchors(r, v, c, rb);
        } else if (w < 0) {
            r->stats.hints_dropped++;
            dw_seg_tab_cut(&r->hint, c, c + 1);
        } else {
            i++;
            continue;
        }
        i = dw_seg_tab_find(&r->hint, c + 1);
    }
}

/*
 * A marker at m whose FPDUPTR field is ptr (MPA 7.1, 7.4 method 2): an
 * anchor, unless it disagrees with FPDUs already identified (the in-order
 * one, a placed one). Such a marker is not used, and not an error here:
 * MPA 9 code 3 holds "in the event that the CRC is valid", and the FPDU
 * that holds it is judged when it is verified in its turn: its CRC (code
 * 2) or this marker (code 3, checked with every marker inside it).
 */
static void marker(dw_mpa_seg *r, uint64_t m, uint16_t ptr)
{
    uint64_t q = dw_seg_marker_target(m, ptr);
    if (q == UINT64_MAX || q < r->cons) /* across octets taken in order */
        return;
    if (r->in.end && q < r->in.end) /* inside the in-order FPDU */
        return;
    const ent *p = placed_before(r, m + 1);
    if (p && q < p->x) /* in a placed FPDU (committed), or naming one */
        return;
    anchor(r, q, m + 1);
}

static void scan_markers(dw_mpa_seg *r, const view *v)
{
    uint64_t m = v->a >= 3 ? v->a - 3 : 0;
    m = (m + DW_MPA_MARKER_INTERVAL - 1) & ~(uint64_t)(DW_MPA_MARKER_INTERVAL - 1);
    for (; m < v->b && !r->failed; m += DW_MPA_MARKER_INTERVAL) {
        uint8_t mk[4];
        if (m >= r->cons && read_at(r, v, m, mk, 4))
            marker(r, m, dw_get_be16(mk + 2));
    }
}

/* Holds the segment's octets that no placed FPDU covers. */
static void keep(dw_mpa_seg *r, const view *v)
{
    const ent *p = placed_before(r, v->a + 1);
    uint64_t at = p && p->x > v->a ? p->x : v->a, refused = 0;
    size_t i = dw_seg_tab_find(&r->pl, at);
    while (at < v->b) {
        uint64_t to = i < r->pl.hi && r->pl.e[i].start < v->b ? r->pl.e[i].start : v->b;
        if (to > at &&
            dw_seg_store_put(&r->st, at, v->p + (at - v->a), (size_t)(to - at)))
            refused += to - at;
        if (to == v->b)
            break;
        at = r->pl.e[i++].x;
    }
    if (refused) {
        r->stats.fallbacks++;
        r->stats.refused += refused;
    }
}

static void out_of_order(dw_mpa_seg *r, const view *v)
{
    if (r->set.markers) { /* a segment start inside a known FPDU is none */
        scan_markers(r, v);
        const ent *p = placed_before(r, v->a + 1);
        if (!r->failed && v->a % 4 == 0 && !dw_seg_tab_at(&r->hint, v->a) &&
            !dw_seg_tab_at(&r->anc, v->a) && !(p && p->x > v->a) &&
            !(r->in.end && v->a < r->in.end))
            dw_seg_tab_add(&r->hint, v->a);
    }
    /* the octets at hand around the segment */
    const seg_span *s = r->st.nheld && v->a ? dw_seg_store_span(&r->st, v->a - 1) : NULL;
    uint64_t ra = s ? s->a : v->a, rb = v->b;
    s = r->st.nheld ? dw_seg_store_span(&r->st, v->b) : NULL;
    rb = s ? s->b : rb;
    place_anchors(r, v, ra, rb);
    if (r->set.markers)
        try_hints(r, v, ra, rb);
    if (!r->failed)
        keep(r, v);
}

/* ---- the API ------------------------------------------------------- */

static void account(dw_mpa_seg *r)
{
    dw_mpa_seg_stats *s = &r->stats;
    s->held = r->st.octets + (r->cons - r->rcv_nxt);
    s->held_peak = s->held > s->held_peak ? s->held : s->held_peak;
    s->store_used = dw_seg_store_used(&r->st);
    s->store_peak = s->store_used > s->store_peak ? s->store_used : s->store_peak;
}

/* A segment off the fast path: anywhere in the window, any state. */
static __attribute__((noinline)) int feed_any(dw_mpa_seg *r, uint32_t seq,
                                              const void *data, size_t len)
{
    /* unwrap: the offset nearest the in-order point (2^31 either side) */
    int32_t d = (int32_t)(seq - (uint32_t)(r->set.start_seq + r->cons));
    int64_t a = (int64_t)r->cons + d, b = a + (int64_t)len;
    int64_t lo = (int64_t)r->cons, hi = lo + (int64_t)r->set.window;
    int64_t ca = a > lo ? a : lo, cb = b < hi ? b : hi;
    if (ca >= cb) {
        r->stats.dup_octets += len;
        return 0;
    }
    r->stats.dup_octets += (uint64_t)((ca - a) + (b - cb));
    view v = {(const uint8_t *)data + (ca - a), (uint64_t)ca, (uint64_t)cb};
    if (v.a == r->cons)
        in_order(r, &v);
    else
        out_of_order(r, &v);
    account(r);
    return r->failed ? DW_ERR_PROTO : 0;
}

int dw_mpa_seg_feed(dw_mpa_seg *r, uint32_t seq, const void *data, size_t len)
{
    if (!r || (!data && len))
        return DW_ERR_INVAL;
    if (r->busy)
        return DW_ERR_STATE;
    if (r->failed) /* MPA 9: nothing more after an error */
        return DW_ERR_PROTO;
    if (len > r->set.max_segment)
        return DW_ERR_TOO_LONG;
    r->stats.segments++;
    r->stats.octets += len;
    /* the fast path: at the in-order point with nothing pending (no
     * partial FPDU; no table entry: an empty table has hi 0; nothing held) */
    if (seq != (uint32_t)(r->set.start_seq + r->cons) || len > r->set.window ||
        (r->hint.hi | r->anc.hi | r->pl.hi | r->st.nheld) || r->in.st != SEG_IDLE)
        return feed_any(r, seq, data, len);
    in_order_fast(r, data, len);
    if (r->in.st == SEG_IDLE || r->failed) /* nothing held */
        return r->failed ? DW_ERR_PROTO : 0;
    account(r);
    return 0;
}

int dw_mpa_seg_close(dw_mpa_seg *r, dw_close_reason reason)
{
    if (!r)
        return DW_ERR_INVAL;
    if (r->busy)
        return DW_ERR_STATE;
    if (r->failed)
        return DW_ERR_PROTO;
    int clean = r->in.st == SEG_IDLE && no_entries(r) && !r->st.nheld;
    r->failed = DW_MPA_ERR_CLOSED; /* MPA 5.1, 9: code 1 */
    if (r->cb.on_error) {
        uint64_t off = clean ? r->cons : r->rcv_nxt;
        dw_mpa_rx_error e = {DW_MPA_ERR_CLOSED, off,
                             (uint32_t)(r->set.start_seq + off), reason, clean};
        r->busy = 1;
        r->cb.on_error(r, &e, r->user);
        r->busy = 0;
    }
    return clean ? 0 : DW_ERR_PROTO;
}

uint32_t dw_mpa_seg_ack(const dw_mpa_seg *r)
{
    return (uint32_t)(r->set.start_seq + r->cons);
}

size_t dw_mpa_seg_sack(const dw_mpa_seg *r, dw_mpa_seg_range *out, size_t max)
{
    size_t n = 0, h = 0, e = r->pl.lo;
    uint64_t a = 0, b = 0; /* the block being built */
    for (;;) {
        int from_h = h < r->st.nheld &&
                     (e == r->pl.hi || r->st.held[h].a < r->pl.e[e].start);
        if (!from_h && e == r->pl.hi)
            break;
        uint64_t sa = from_h ? r->st.held[h].a : r->pl.e[e].start;
        uint64_t sb = from_h ? r->st.held[h].b : r->pl.e[e].x;
        from_h ? h++ : e++;
        if (b && sa <= b) {
            b = sb > b ? sb : b;
            continue;
        }
        if (b && n++ < max)
            out[n - 1] = (dw_mpa_seg_range){(uint32_t)(r->set.start_seq + a),
                                            (uint32_t)(b - a)};
        a = sa, b = sb;
    }
    if (b && n++ < max)
        out[n - 1] = (dw_mpa_seg_range){(uint32_t)(r->set.start_seq + a),
                                        (uint32_t)(b - a)};
    return n;
}

uint64_t dw_mpa_seg_offset(const dw_mpa_seg *r)
{
    return r->rcv_nxt;
}

dw_mpa_error dw_mpa_seg_failed(const dw_mpa_seg *r)
{
    return r->failed;
}

void dw_mpa_seg_stats_get(const dw_mpa_seg *r, dw_mpa_seg_stats *stats)
{
    *stats = r->stats;
}
