/* SPDX-License-Identifier: MIT */
/*
 * One direction of a TCP stream put back in order (<ddpwire/reasm.h>).
 *
 * Held octets live in a ring indexed by stream offset (offset o at
 * o % store_bytes): everything held lies in [next, next + store_bytes),
 * so no two held octets share a slot and nothing fragments (only the
 * ring's first positions are allocated until held octets need more). A
 * sorted table of disjoint entries says what is held: octets (in the
 * ring) or a snap-length cut (no octets). A segment is first cut into pieces
 * against that table (kept entries, fresh octets in the holes), then
 * the pieces are either delivered (in order) or become the table.
 */
#include <ddpwire/pkt.h>
#include <ddpwire/reasm.h>

#include <stdlib.h>
#include <string.h>
#include "base/versioned.h"

DW_VERSIONS_1(reasm_callbacks_v, dw_reasm_callbacks, on_event);
DW_VERSIONS_1(reasm_settings_v, dw_reasm_settings, mem);

#include "base/inline.h"
#include "base/mem.h"
#include "check/reasm_int.h"

#define RA_STORE_MAX ((size_t)1 << 30)
#define RA_HELD_MAX ((size_t)1 << 20)
#define RA_LEN_MAX (65535u * 16u)
#define RA_FIRST 16u /* entries a table has at first */
#define RA_STORE_FIRST 4096u /* octets of the ring allocated at first */

/* A run of stream octets: held, or a piece of the segment being fed. */
typedef struct ra_ent {
    uint64_t off, len;
    uint64_t pkt;
    uint64_t seg_off; /* offset of the segment's first octet, mod 2^64 */
    uint32_t seg_seq, seg_len;
    uint8_t snap;  /* cut off by the snap length: a gap when reached */
    uint8_t fresh; /* pieces only: octets of the segment being fed */
} ra_ent;

/* The segment being fed; [lo, hi) is new to the stream, [lo, cmid)
 * of it captured. */
typedef struct ra_seg {
    uint64_t pkt;
    uint32_t seq, len;
    int64_t s0; /* stream offset of seq; negative: before the start */
    const uint8_t *p;
    size_t cap;
    uint64_t lo, cmid, hi;
} ra_seg;

/* What a segment's octets in [lo, hi) meet in the table. */
typedef struct ra_scan {
    uint64_t old;            /* held already */
    uint64_t mm_off, mm_len; /* first run that differs from held octets */
} ra_scan;

struct dw_reasm {
    dw_reasm_settings set;
    dw_reasm_callbacks cb;
    void *user;
    uint8_t *store; /* the ring's first store_alloc octets (grown as needed) */
    size_t store_alloc;
    int nomem;      /* an allocation failed: held as if full (feed says so) */
    ra_ent *ent;    /* held: sorted, disjoint, all after next */
    ra_ent *piece;  /* the pieces of the segment being fed */
    ra_ent *piece0; /* their first table, inline after the reassembler */
    size_t size;    /* the reassembler and piece0: dw_ra_size */
    size_t n, np, piece_cap;
    size_t ent_alloc, piece_alloc; /* allocated so far: both grow on demand */
    int overflow; /* more pieces than piece_cap, or no memory for them */
    uint64_t next, fin;
    uint64_t far_end; /* end of the last segment far ahead, if far_set */
    int far_set;
    uint32_t isn; /* sequence number of offset 0 */
    int started, has_fin, busy;
    dw_reasm_stats st;
};

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint32_t seq_at(const dw_reasm *r, uint64_t off)
{
    return r->isn + (uint32_t)off;
}

/* RFC 1982: a - b as a signed distance in [-2^31, 2^31). */
static int64_t serial_diff(uint32_t a, uint32_t b)
{
    uint32_t d = a - b;
    return d < 0x80000000u ? (int64_t)d : (int64_t)d - ((int64_t)1 << 32);
}

/* ---- callbacks ----------------------------------------------------------- */

static void event(dw_reasm *r, dw_reasm_event_kind k, uint64_t pkt, uint32_t seq,
                  uint32_t len, uint64_t off)
{
    uint64_t *c[] = {&r->st.retransmits, &r->st.overlaps, &r->st.mismatches,
                     &r->st.out_of_order, &r->st.dropped};
    if ((unsigned)k < sizeof c / sizeof c[0])
        (*c[k])++;
    dw_reasm_event e = {k, pkt, seq, len, off};
    if (r->cb.on_event)
        r->cb.on_event(r, &e, r->user);
}

static void seg_event(dw_reasm *r, dw_reasm_event_kind k, const ra_seg *s)
{
    event(r, k, s->pkt, s->seq, s->len, s->s0 > 0 ? (uint64_t)s->s0 : 0);
}

static void gap(dw_reasm *r, uint64_t len, dw_reasm_gap_kind kind, uint64_t pkt)
{
    if (!len)
        return;
    dw_reasm_gap g = {r->next, seq_at(r, r->next), len, kind, pkt};
    r->st.gaps++;
    r->st.gap_octets += len;
    r->next += len;
    if (r->cb.on_gap)
        r->cb.on_gap(r, &g, r->user);
}

/* len octets at the in-order point, from the segment src describes. */
static void data(dw_reasm *r, const uint8_t *p, uint64_t len, const ra_ent *src)
{
    dw_reasm_chunk c = {r->next, seq_at(r, r->next), src->pkt, src->seg_seq,
                        src->seg_len, r->next == src->seg_off,
                        r->next + len == src->seg_off + src->seg_len};
    r->st.delivered += len;
    r->next += len;
    r->cb.on_data(r, p, (size_t)len, &c, r->user);
}

/* ---- the ring ------------------------------------------------------------- */

static void ring_in(dw_reasm *r, uint64_t off, const uint8_t *p, uint64_t len)
{
    size_t sb = r->set.store_bytes, at = (size_t)(off % sb);
    size_t k = (size_t)min64(len, sb - at);
    memcpy(r->store + at, p, k);
    memcpy(r->store, p + k, (size_t)len - k);
}

/* Room in the ring for len octets at stream offset off: the allocated
 * part grows (doubling, at most store_bytes) to the last ring position
 * they use; ring positions stay o % store_bytes, so what is held and
 * delivered does not depend on it. 0: no memory. */
static int ring_room(dw_reasm *r, uint64_t off, uint64_t len)
{
    size_t sb = r->set.store_bytes, at = (size_t)(off % sb);
    size_t end = len > sb - at ? sb : at + (size_t)len;
    if (end <= r->store_alloc)
        return 1;
    size_t n = r->store_alloc ? r->store_alloc : RA_STORE_FIRST;
    while (n < end)
        n *= 2;
    n = n < sb ? n : sb;
    uint8_t *p = dw_mem_realloc(r->set.mem, r->store, n);
    if (!p)
        return 0;
    r->store = p;
    r->store_alloc = n;
    return 1;
}

/* Delivers an entry (or piece) that starts at the in-order point. */
static void deliver(dw_reasm *r, const ra_ent *e, const ra_seg *s)
{
    if (e->snap) {
        gap(r, e->len, DW_REASM_GAP_SNAPLEN, e->pkt);
        return;
    }
    if (e->fresh && s) { /* table entries are never fresh */
        data(r, s->p + (e->off - e->seg_off), e->len, e);
        return;
    }
    uint64_t left = e->len;
    while (left) {
        size_t at = (size_t)(r->next % r->set.store_bytes);
        uint64_t k = min64(left, r->set.store_bytes - at);
        data(r, r->store + at, k, e);
        left -= k;
    }
}

/* ---- the table -------------------------------------------------------------- */

static uint64_t held_octets(const ra_ent *e, size_t n)
{
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        h += e[i].snap ? 0 : e[i].len;
    return h;
}

static void drop_front(dw_reasm *r, size_t k)
{
    if (!k)
        return;
    r->st.held -= held_octets(r->ent, k);
    memmove(r->ent, r->ent + k, (r->n - k) * sizeof *r->ent);
    r->n -= k;
}

/* Delivers the held entries that continue the in-order point, up to
 * limit for cuts (a segment at limit may still fill the rest). */
static void drain_to(dw_reasm *r, uint64_t limit)
{
    size_t k = 0;
    while (k < r->n && r->ent[k].off == r->next && r->next < limit) {
        ra_ent *e = &r->ent[k];
        if (e->snap && e->off + e->len > limit) {
            gap(r, limit - e->off, DW_REASM_GAP_SNAPLEN, e->pkt);
            e->len -= limit - e->off;
            e->off = limit;
            break;
        }
        deliver(r, &r->ent[k++], NULL);
    }
    drop_front(r, k);
}

static void drain(dw_reasm *r)
{
    drain_to(r, UINT64_MAX);
}

/* First entry with an end after x (by_end) or a start at or after x. */
static size_t find(const dw_reasm *r, uint64_t x, int by_end)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ra_ent *e = &r->ent[mid];
        if (by_end ? e->off + e->len > x : e->off >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Snap-length cuts held beyond a FIN that arrived late go, as do octets. */
static void trim_after_fin(dw_reasm *r)
{
    while (r->n && r->ent[r->n - 1].off + r->ent[r->n - 1].len > r->fin) {
        ra_ent *e = &r->ent[r->n - 1];
        uint64_t cut = e->off >= r->fin ? e->len : e->off + e->len - r->fin;
        if (!e->snap)
            r->st.held -= cut;
        event(r, DW_REASM_EV_AFTER_FIN, e->pkt, e->seg_seq, e->seg_len, e->seg_off);
        if (cut < e->len) {
            e->len -= cut;
            break;
        }
        r->n--;
    }
}

/* ---- one segment against the table ------------------------------------------ */

static void compare(const dw_reasm *r, const ra_seg *s, uint64_t a, uint64_t b,
                    ra_scan *sc)
{
    for (uint64_t o = a; o < b; o++) {
        int d = s->p[o - (uint64_t)s->s0] != r->store[o % r->set.store_bytes];
        if (d && !sc->mm_len)
            sc->mm_off = o;
        if (d)
            sc->mm_len++;
        else if (sc->mm_len)
            return;
    }
}

/* Counts the octets of [lo, hi) held already; finds the first mismatch. */
static void analyze(const dw_reasm *r, const ra_seg *s, size_t i0, size_t i1,
                    ra_scan *sc)
{
    for (size_t i = i0; i < i1; i++) {
        const ra_ent *e = &r->ent[i];
        uint64_t a = max64(e->off, s->lo), b = min64(e->off + e->len, s->hi);
        if (e->snap) { /* a cut is old only where this copy is cut too */
            uint64_t u = max64(a, s->cmid);
            sc->old += b > u ? b - u : 0;
            continue;
        }
        sc->old += b - a;
        if (!sc->mm_len)
            compare(r, s, a, min64(b, s->cmid), sc);
    }
}

/* The tables start small (most directions never hold a segment) and
 * double up to their caps: 1 when *a now has room for want entries. */
static int grow(dw_reasm *r, void **a, size_t *have, size_t want, size_t cap)
{
    size_t n = *have ? *have : RA_FIRST;
    while (n < want)
        n *= 2;
    n = n < cap ? n : cap;
    size_t sz = sizeof(ra_ent); /* the inline one is the first table of pieces */
    void *p = want <= n ? dw_inl_regrow(r->set.mem, *a, r->piece0, *have * sz, n * sz) : NULL;
    if (!p) {
        r->nomem |= want <= n;
        return 0;
    }
    *a = p;
    *have = n;
    return 1;
}

static void put(dw_reasm *r, const ra_ent *e)
{
    if (r->np) {
        ra_ent *l = &r->piece[r->np - 1];
        if (l->fresh && e->fresh && l->snap == e->snap && l->off + l->len == e->off) {
            l->len += e->len;
            return;
        }
    }
    if (r->np == r->piece_alloc && !grow(r, (void **)&r->piece, &r->piece_alloc,
                                          r->np + 1, r->piece_cap))
        r->overflow = 1;
    else
        r->piece[r->np++] = *e;
}

static void put_fresh(dw_reasm *r, const ra_seg *s, uint64_t a, uint64_t b, int snap)
{
    if (a >= b)
        return;
    ra_ent e = {a, b - a, s->pkt, (uint64_t)s->s0, s->seq, s->len, (uint8_t)snap, 1};
    put(r, &e);
}

static void put_kept(dw_reasm *r, const ra_ent *e, uint64_t a, uint64_t b)
{
    if (a >= b)
        return;
    ra_ent k = *e;
    k.off = a;
    k.len = b - a;
    k.fresh = 0;
    put(r, &k);
}

/* A hole of the table: captured octets, then the cut-off tail. */
static void put_hole(dw_reasm *r, const ra_seg *s, uint64_t a, uint64_t b)
{
    put_fresh(r, s, a, min64(b, s->cmid), 0);
    put_fresh(r, s, max64(a, s->cmid), b, 1);
}

/* Pieces covering [lo, hi) and the entries i0..i1 it touches: held
 * octets stay (first arrival wins); captured octets fill cuts. */
static void build(dw_reasm *r, const ra_seg *s, size_t i0, size_t i1)
{
    uint64_t cur = s->lo;
    r->np = 0;
    r->overflow = 0;
    for (size_t i = i0; i < i1; i++) {
        const ra_ent *e = &r->ent[i];
        uint64_t end = e->off + e->len;
        if (e->off > cur)
            put_hole(r, s, cur, e->off);
        uint64_t ca = max64(e->off, s->lo), cb = min64(end, s->cmid);
        if (!e->snap || ca >= cb) {
            put_kept(r, e, e->off, end);
        } else {
            put_kept(r, e, e->off, ca);
            put_fresh(r, s, ca, cb, 0);
            put_kept(r, e, cb, end);
        }
        cur = end;
    }
    if (cur < s->hi)
        put_hole(r, s, cur, s->hi);
}

/* The segment continues the in-order point: deliver all its pieces. */
static void in_order(dw_reasm *r, const ra_seg *s, size_t i1)
{
    for (size_t i = 0; i < r->np; i++)
        deliver(r, &r->piece[i], s);
    drop_front(r, i1); /* i0 is 0: nothing held before next */
    drain(r);
}

static int fits(dw_reasm *r, const ra_seg *s, size_t i0, size_t i1)
{
    size_t n = r->n - (i1 - i0) + r->np;
    if (r->overflow || n > r->set.max_held || s->hi - r->next > r->set.store_bytes)
        return 0;
    if (n > r->ent_alloc && !grow(r, (void **)&r->ent, &r->ent_alloc, n, r->set.max_held + 1))
        return 0; /* no memory: as if the table were full */
    int ok = 1;
    for (size_t i = 0; i < r->np && ok; i++)
        if (r->piece[i].fresh && !r->piece[i].snap)
            ok = ring_room(r, r->piece[i].off, r->piece[i].len);
    r->nomem |= !ok;
    return ok; /* no memory: as if the store were full */
}

static void hold(dw_reasm *r, const ra_seg *s, size_t i0, size_t i1)
{
    for (size_t i = 0; i < r->np; i++) {
        ra_ent *p = &r->piece[i];
        if (p->fresh && !p->snap) {
            ring_in(r, p->off, s->p + (p->off - p->seg_off), p->len);
            r->st.held += p->len;
        }
        p->fresh = 0;
    }
    memmove(r->ent + i0 + r->np, r->ent + i1, (r->n - i1) * sizeof *r->ent);
    memcpy(r->ent + i0, r->piece, r->np * sizeof *r->ent);
    r->n = r->n - (i1 - i0) + r->np;
    r->st.held_peak = max64(r->st.held_peak, r->st.held);
}

/* Clips [lo, hi) to what is still ahead; 0 when nothing is. */
static int clip(const dw_reasm *r, ra_seg *s)
{
    int64_t end = s->s0 + (int64_t)s->cap;
    uint64_t ce = end > 0 ? (uint64_t)end : 0;
    s->lo = max64(s->lo, r->next);
    s->cmid = min64(max64(ce, s->lo), s->hi);
    return s->lo < s->hi;
}

/* Far ahead: beyond the store and 1 MiB. A jump there needs a second far
 * segment near the first (one corrupt sequence number must not throw the
 * rest of the stream away); unconfirmed, the segment is dropped. */
#define DW_RA_FAR ((uint64_t)1 << 20)

static int unconfirmed_jump(dw_reasm *r, const ra_seg *s)
{
    if (s->lo - r->next <= max64(r->set.store_bytes, DW_RA_FAR))
        return 0;
    int near = r->far_set && s->lo + DW_RA_FAR >= r->far_end &&
               s->lo <= r->far_end + DW_RA_FAR;
    r->far_set = !near;
    r->far_end = s->hi;
    return !near;
}

/* Gives up the hole before the earliest held entry (or the segment). */
static void give_up(dw_reasm *r, const ra_seg *s)
{
    uint64_t to = r->n ? min64(r->ent[0].off, s->lo) : s->lo;
    gap(r, to - r->next, DW_REASM_GAP_LOST, s->pkt);
    drain_to(r, s->lo);
}

/* Delivers or holds the new octets [lo, hi) of a segment. */
static void place(dw_reasm *r, ra_seg *s)
{
    for (int tries = 0;; tries++) {
        size_t i0 = find(r, s->lo, 1), i1 = find(r, s->hi, 0);
        build(r, s, i0, i1);
        if (s->lo == r->next && !r->overflow) {
            in_order(r, s, i1);
            return;
        }
        if (fits(r, s, i0, i1)) {
            hold(r, s, i0, i1);
            seg_event(r, DW_REASM_EV_OUT_OF_ORDER, s);
            return;
        }
        if (tries || r->overflow || unconfirmed_jump(r, s)) {
            seg_event(r, DW_REASM_EV_DROPPED, s);
            return;
        }
        give_up(r, s);
        if (!clip(r, s))
            return;
    }
}

/* The payload of a segment whose s0 is known. */
static void payload(dw_reasm *r, ra_seg *s)
{
    int64_t we = s->s0 + (int64_t)s->len;
    if (s->s0 < 0)
        seg_event(r, DW_REASM_EV_OUT_OF_WINDOW, s);
    if (we <= 0)
        return;
    uint64_t a = s->s0 > 0 ? (uint64_t)s->s0 : 0, old = 0;
    if (a < r->next)
        old = min64((uint64_t)we, r->next) - a;
    s->lo = a;
    s->hi = (uint64_t)we;
    if (r->has_fin && s->hi > r->fin) {
        seg_event(r, DW_REASM_EV_AFTER_FIN, s);
        s->hi = max64(r->fin, r->next);
    }
    ra_scan sc = {0, 0, 0};
    int fresh = clip(r, s);
    if (fresh)
        analyze(r, s, find(r, s->lo, 1), find(r, s->hi, 0), &sc);
    uint64_t add = fresh ? s->hi - s->lo - sc.old : 0;
    old += sc.old;
    if (sc.mm_len)
        event(r, DW_REASM_EV_MISMATCH, s->pkt, seq_at(r, sc.mm_off),
              (uint32_t)sc.mm_len, sc.mm_off);
    if (old)
        seg_event(r, add ? DW_REASM_EV_OVERLAP : DW_REASM_EV_RETRANSMIT, s);
    if (add)
        place(r, s);
}

static void set_fin(dw_reasm *r, const ra_seg *s)
{
    int64_t end = s->s0 + (int64_t)s->len;
    if (r->has_fin || end < 0 || (uint64_t)end < r->next)
        return;
    r->has_fin = 1;
    r->fin = (uint64_t)end;
    trim_after_fin(r);
}

static void segment(dw_reasm *r, uint64_t pkt, uint32_t seq, uint8_t flags,
                    const uint8_t *p, size_t caplen, size_t len)
{
    uint32_t dseq = seq + (flags & DW_PKT_SYN ? 1u : 0u);
    ra_seg s = {pkt, dseq, (uint32_t)len, 0, p, caplen, 0, 0, 0};
    if ((flags & DW_PKT_SYN) && r->started && dseq != r->isn) {
        seg_event(r, DW_REASM_EV_SYN, &s); /* another connection's SYN */
        return;
    }
    if (!r->started) {
        r->started = 1;
        r->isn = dseq;
    }
    s.s0 = (int64_t)r->next + serial_diff(dseq, seq_at(r, r->next));
    if (flags & DW_PKT_SYN)
        seg_event(r, DW_REASM_EV_SYN, &s);
    if (flags & DW_PKT_FIN)
        set_fin(r, &s);
    if (len)
        payload(r, &s);
    if (flags & DW_PKT_FIN)
        seg_event(r, DW_REASM_EV_FIN, &s);
    if (flags & DW_PKT_RST)
        seg_event(r, DW_REASM_EV_RST, &s);
}

/* ---- the API ------------------------------------------------------------------ */

static void reasm_settings_fill(dw_reasm_settings *settings)
{
    if (!settings)
        return;
    settings->mem = NULL;
    settings->store_bytes = 262144;
    settings->max_held = 1024;
}

int dw_reasm_settings_default_versioned(int settings_version, dw_reasm_settings *settings)
{
    dw_reasm_settings cur;
    reasm_settings_fill(&cur);
    return DW_VERSIONED_OUT(settings, cur, settings_version, reasm_settings_v);
}

static size_t first_pieces(const dw_reasm_settings *st)
{
    size_t cap = 3 * st->max_held + 4;
    return cap < RA_FIRST ? cap : RA_FIRST;
}

size_t dw_ra_size(const dw_reasm_settings *st)
{
    return dw_inl_round(sizeof(dw_reasm)) + dw_inl_size(first_pieces(st) * sizeof(ra_ent));
}

/* The reassembler and its first table of pieces in one block. */
int dw_ra_init(dw_reasm *r, const dw_reasm_settings *st, const dw_reasm_callbacks *callbacks,
               void *user_data)
{
    if (!callbacks || !callbacks->on_data || st->store_bytes > RA_STORE_MAX ||
        st->max_held > RA_HELD_MAX)
        return DW_ERR_INVAL;
    memset(r, 0, sizeof *r);
    r->size = dw_ra_size(st);
    r->set = *st;
    r->cb = *callbacks;
    r->user = user_data;
    r->piece_cap = 3 * st->max_held + 4;
    uint8_t *at = (uint8_t *)r + dw_inl_round(sizeof *r);
    r->piece = r->piece0 = dw_inl_take(&at, first_pieces(st) * sizeof(ra_ent));
    r->piece_alloc = first_pieces(st);
    return 0;
}

void dw_ra_fini(dw_reasm *r)
{
    dw_mem_free(r->set.mem, r->store);
    dw_mem_free(r->set.mem, r->ent);
    if (r->piece != r->piece0)
        dw_mem_free(r->set.mem, r->piece);
    dw_inl_release(r, r->size);
}

static int reasm_new_latest(dw_reasm **pr, const dw_reasm_settings *settings,
                            const dw_reasm_callbacks *callbacks, void *user_data)
{
    dw_reasm_settings def;
    dw_reasm_settings_default(&def);
    const dw_reasm_settings *st = settings ? settings : &def;
    if (!pr || !callbacks || !callbacks->on_data || st->store_bytes > RA_STORE_MAX ||
        st->max_held > RA_HELD_MAX)
        return DW_ERR_INVAL;
    *pr = NULL;
    dw_reasm *r = dw_mem_malloc(st->mem, dw_ra_size(st));
    if (!r)
        return DW_ERR_NOMEM;
    dw_ra_init(r, st, callbacks, user_data);
    *pr = r;
    return 0;
}

int dw_reasm_new_versioned(dw_reasm **pr, int settings_version,
                           const dw_reasm_settings *settings, int callbacks_version,
                           const dw_reasm_callbacks *callbacks, void *user_data)
{
    dw_reasm_settings settings_cur;
    if (settings_version != DW_REASM_SETTINGS_VERSION)
        dw_reasm_settings_default(&settings_cur);
    dw_reasm_callbacks callbacks_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, reasm_settings_v, err);
    DW_VERSIONED_IN(callbacks, callbacks_cur, callbacks_version, reasm_callbacks_v, err);
    if (err)
        return err;
    return reasm_new_latest(pr, settings, callbacks, user_data);
}

void dw_reasm_del(dw_reasm *r)
{
    if (!r)
        return;
    const dw_mem *m = r->set.mem;
    dw_ra_fini(r);
    dw_mem_free(m, r);
}

int dw_reasm_feed(dw_reasm *r, uint64_t pkt, uint32_t seq, uint8_t flags,
                  const uint8_t *payload_, size_t caplen, size_t payload_len)
{
    if (!r || (!payload_ && caplen) || caplen > payload_len || payload_len > RA_LEN_MAX)
        return DW_ERR_INVAL;
    if (r->busy)
        return DW_ERR_STATE;
    r->st.segments++;
    r->st.octets += payload_len;
    flags &= DW_PKT_SYN | DW_PKT_FIN | DW_PKT_RST;
    if (!flags && !payload_len)
        return 0; /* a pure ACK */
    r->busy = 1;
    segment(r, pkt, seq, flags, payload_, caplen, payload_len);
    r->busy = 0;
    return r->nomem ? DW_ERR_NOMEM : 0;
}

int dw_reasm_flush(dw_reasm *r)
{
    if (!r)
        return DW_ERR_INVAL;
    if (r->busy)
        return DW_ERR_STATE;
    r->busy = 1;
    while (r->n) {
        gap(r, r->ent[0].off - r->next, DW_REASM_GAP_LOST, UINT64_MAX);
        drain(r);
    }
    if (r->has_fin)
        gap(r, r->fin - r->next, DW_REASM_GAP_LOST, UINT64_MAX);
    r->busy = 0;
    return 0;
}

int dw_reasm_started(const dw_reasm *r)
{
    return r && r->started;
}

uint64_t dw_reasm_offset(const dw_reasm *r)
{
    return r ? r->next : 0;
}

void dw_reasm_stats_get(const dw_reasm *r, dw_reasm_stats *stats)
{
    if (r && stats)
        *stats = r->st;
}

const char *dw_reasm_event_name(dw_reasm_event_kind kind)
{
    static const char *const names[] = {
        "retransmit", "overlap", "mismatch", "out_of_order", "dropped",
        "out_of_window", "syn", "fin", "rst", "after_fin"};
    if ((unsigned)kind < sizeof names / sizeof names[0])
        return names[kind];
    return "unknown";
}
