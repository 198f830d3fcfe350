/* SPDX-License-Identifier: MIT */
/*
 * MPA checker: the search buffer. Octets that cannot be checked as they
 * pass (before the start is known, while FPDU boundaries are lost) wait
 * here with their segment tags; once a start is found they are replayed
 * through the in-sync path.
 *
 * A candidate's first FPDU is judged by its CRC before it is framed octet
 * by octet, from the checkpoints kept over the buffer (dw_cc_crcs).
 */
#include <ddpwire/mpa_startup.h>

#include <stdio.h>
#include <string.h>

#include "base/bytes.h"
#include "check/mpa_check_int.h"
#include "mpa/mpa_internal.h"

/* ------------------------------------------------------------------ */
/* The buffer                                                          */
/* ------------------------------------------------------------------ */

void dw_ck_buf_reset(dw_mpa_check *c, uint64_t off)
{
    dw_cc_buf_reset(&c->b, off);
}

/* Drops the first n buffered octets unchecked. */
static void drop(dw_mpa_check *c, size_t n)
{
    c->st.skipped_octets += n;
    c->lost_skipped += n;
    dw_cc_buf_skip(&c->b, n);
}

void dw_ck_buf_drop_all(dw_mpa_check *c)
{
    drop(c, c->b.len - c->b.start);
    dw_ck_buf_reset(c, c->in.off);
}

static void compact(dw_mpa_check *c)
{
    dw_cc_buf_shift(&c->b, c->b.start);
}

/* The buffer is full: give up its oldest octets. A search gives up half
 * of what lies before the start that waits (or the cursor), else that
 * start itself (it needs more than the buffer holds, or more pieces:
 * with segments of a few octets the search looks back less far). */
static void make_room(dw_mpa_check *c)
{
    size_t n = 1;
    if (c->state == DW_CK_SEARCH) {
        uint64_t lo = c->b.base + c->b.start;
        uint64_t lim = c->cand > lo ? c->cand : c->scan;
        if (lim > lo)
            n = (size_t)(lim - lo + 1) / 2;
        else
            c->searched++;
    } else if (c->b.dcount > c->b.dstart) { /* a whole piece */
        n = (size_t)(c->b.desc[c->b.dstart].off + c->b.desc[c->b.dstart].len -
                     (c->b.base + c->b.start));
    }
    drop(c, n);
    compact(c);
}

/* n octets into allocated room after octets kept, a piece to spare. */
static void put_room(dw_mpa_check *c, const uint8_t *in, size_t n, const dw_cc_slice *s)
{
    memcpy(c->b.buf + c->b.len, in, n);
    c->b.len += n;
    dw_cc_piece_add(&c->b, s, n);
}

size_t dw_ck_buf_put(dw_mpa_check *c, const uint8_t *in, size_t n,
                     const dw_cc_slice *s)
{
    if (c->b.start != c->b.len && n <= c->b.alloc - c->b.len && c->b.dcount < c->b.dcap) {
        put_room(c, in, n, s); /* the usual case: three tests, not eight */
        return n;
    }
    if (c->b.start == c->b.len)
        dw_ck_buf_reset(c, s->off);
    if (c->b.len == c->b.cap || c->b.dcount == c->b.dcap)
        compact(c);
    if (c->b.len == c->b.cap || c->b.dcount == c->b.dcap) {
        make_room(c); /* the caller scans, then comes back */
        return 0;
    }
    size_t k = c->b.cap - c->b.len < n ? c->b.cap - c->b.len : n;
    dw_cc_buf_grow(&c->b, c->b.len + k);
    k = c->b.alloc - c->b.len < k ? c->b.alloc - c->b.len : k;
    put_room(c, in, k, s);
    return k;
}

/* In sync again: the buffered octets go through the in-sync path. */
static void replay(dw_mpa_check *c)
{
    size_t d = c->b.dstart; /* pieces in order: walked, not searched */
    c->replaying = 1;
    while (c->state == DW_CK_SYNC && c->b.start < c->b.len) {
        dw_cc_slice s;
        if (d < c->b.dstart || d >= c->b.dcount)
            d = c->b.dstart;
        size_t at = c->b.start, n = dw_cc_piece_from(&c->b, &d, at, &s);
        size_t k = dw_ck_sync_feed(c, c->b.buf + at, n, &s);
        if (c->moved)
            break; /* a search again from inside what was replayed */
        c->b.start = at + k;
    }
    c->replaying = c->moved = 0;
    if (c->shadow == 2) { /* an FPDU above 64768 goes on past the buffer */
        c->b.start = c->shadow_at;
        c->shadow = 1;
    }
    dw_cc_buf_trim(&c->b);
    if (c->b.start == c->b.len)
        dw_ck_buf_reset(c, c->in.off);
}

/* ------------------------------------------------------------------ */
/* The states that buffer                                              */
/* ------------------------------------------------------------------ */

/* len: octets of a frame cut short (0: not a frame at all). */
static void frame_bad(dw_mpa_check *c, const char *why, size_t len)
{
    snprintf(c->detail, sizeof c->detail, "%s", why);
    dw_ck_emit(c, DW_MPA_CHECK_EV_STARTUP_BAD, DW_MPA_ERR_NONE,
               c->b.base + c->b.start, 0, 0, len, NULL);
    c->state = DW_CK_SEARCH; /* keep going: search from the first octet */
    c->pos_known = 0;
}

/* RFC 5044 7.1: a request or reply frame before MPA mode. */
static void frame_scan(dw_mpa_check *c, int final)
{
    dw_mpa_startup fr;
    size_t avail = c->b.len - c->b.start;
    ssize_t r = dw_mpa_startup_decode(&fr, c->b.buf + c->b.start, avail);
    if (r == DW_ERR_NEED_MORE) {
        if (final && avail)
            frame_bad(c, "the stream ended inside the start-up frame", avail);
        return;
    }
    if (r < 0) {
        if (c->set.start == DW_MPA_CHECK_START_FRAMES)
            frame_bad(c, "the stream does not begin with an MPA ID Req/Rep Frame", 0);
        else
            c->state = DW_CK_SEARCH, c->pos_known = 0;
        return;
    }
    uint64_t off = c->b.base + c->b.start;
    dw_cc_slice s;
    dw_cc_piece_at(&c->b, c->b.start, &s);
    snprintf(c->detail, sizeof c->detail, "MPA ID %s Frame, flags 0x%02x, rev %u, %u octets of private data",
             fr.kind == DW_MPA_STARTUP_REQUEST ? "Req" : "Rep", fr.flags,
             fr.rev, fr.pd_len);
    dw_ck_emit(c, DW_MPA_CHECK_EV_STARTUP, DW_MPA_ERR_NONE, off, s.seq, s.pkt,
               (uint64_t)r, &fr);
    if (c->crc < 0 && (fr.flags & DW_MPA_FLAG_CRC)) /* either C: CRC on */
        c->crc = 1;
    c->b.start += (size_t)r; /* checked, not skipped */
    snprintf(c->detail, sizeof c->detail, "after the MPA ID %s Frame",
             fr.kind == DW_MPA_STARTUP_REQUEST ? "Req" : "Rep");
    dw_ck_go_start(c, off + (uint64_t)r, 0, c->detail);
}

/* Start known, markers to be seen: a zero marker at position 0 means
 * markers (no FPDU begins with a zero ULPDU_Length). */
static void pend_scan(dw_mpa_check *c, int final)
{
    size_t avail = c->b.len - c->b.start;
    if (avail < 4 && !final)
        return;
    if (!avail)
        return; /* the stream ended at position 0: nothing to judge */
    const uint8_t *p = c->b.buf + c->b.start;
    int z = 1;
    for (size_t i = 0; i < 4 && i < avail; i++)
        z &= p[i] == 0 || (i == 3 && p[i] < 4);
    if (c->markers >= 0 && c->markers != z) {
        snprintf(c->detail, sizeof c->detail,
                 z ? "markers not negotiated, but the stream begins with a zero marker"
                   : "markers negotiated, but none at MPA position 0");
        dw_ck_emit(c, DW_MPA_CHECK_EV_MODE, DW_MPA_ERR_NONE, c->start_off, 0,
                   0, 0, NULL);
    }
    c->markers = z; /* follow the stream */
    c->markers_given = 0;
    dw_ck_enter_sync(c, c->start_off);
}

static void give_up(dw_mpa_check *c)
{
    snprintf(c->detail, sizeof c->detail, "no %s within %llu octets",
             c->started ? "FPDU boundary" : "MPA start",
             (unsigned long long)c->set.search_limit);
    dw_ck_emit(c, DW_MPA_CHECK_EV_NO_START, DW_MPA_ERR_NONE,
               c->b.base + c->b.start, 0, 0, c->searched, NULL);
    c->state = DW_CK_DEAD;
    dw_ck_buf_drop_all(c);
}

/* Is buffer index i a zero marker (MPA 7.1: the first marker is zero)? */
static int zero_marker(const dw_mpa_check *c, size_t i)
{
    const uint8_t *p = c->b.buf + i;
    return !p[0] && !p[1] && !p[2] && p[3] < 4;
}

/* Octets a search keeps behind its cursor: the most a marker's FPDUPTR
 * reaches back (MPA 6.1: 16 bits, low two ignored), and 4 more. */
#define DW_CK_LOOKBACK 65536u

static size_t lookback(const dw_mpa_check *c)
{
    return c->markers != 0 && !c->pos_known ? DW_CK_LOOKBACK : 0;
}

/* A candidate start: buffer index and MPA position of its first octet;
 * found mid-stream: the marker that named it (index, FPDUPTR as sent). */
typedef struct cand {
    size_t at, need;
    uint64_t pos;
    int mk, crc;
    int mid;
    size_t mark;
    uint16_t ptr;
} cand;

/*
 * MPA 6.1, 7.1: a marker at buffer index i with a non-zero FPDUPTR names
 * the FPDU holding it, FPDUPTR octets back (draft reading). MPA positions
 * are then known mod 512 only: i counts as the first multiple of 512 not
 * below FPDUPTR, so that FPDU's position is in 0..508. The FPDU must hold
 * the marker and be in the buffer whole. No FPDU begins 4 octets after a
 * marker (that marker would lead it): such an FPDUPTR is the RFC 5044
 * reading, naming the FPDU that begins with a zero marker 4 octets
 * further back, and that marker was tried as a start when the cursor
 * passed it (the very same trial).
 */
static int mid_stream(const dw_mpa_check *c, size_t i, int final, cand *k)
{
    const uint8_t *p = c->b.buf + i;
    uint16_t ptr = dw_get_be16(p + 2) & 0xfffcu;
    if (c->markers == 0 || p[0] || p[1] || !ptr || ptr > i - c->b.start)
        return DW_CK_T_REJECT;
    k->at = i - ptr;
    k->pos = (DW_MPA_MARKER_INTERVAL - ptr % DW_MPA_MARKER_INTERVAL) %
             DW_MPA_MARKER_INTERVAL;
    if (k->pos == DW_MPA_MARKER_LEN)
        return DW_CK_T_REJECT;
    size_t h = k->at + (k->pos ? 0 : DW_MPA_MARKER_LEN); /* ULPDU_Length */
    uint16_t ulen = dw_get_be16(c->b.buf + h);
    if (!ulen || dw_mpa_fpdu_len((uint32_t)k->pos, ulen, 1) <= ptr)
        return DW_CK_T_REJECT; /* it ends before the marker */
    k->mk = k->mid = 1;
    k->mark = i;
    k->ptr = dw_get_be16(p + 2);
    return dw_ck_trial(c, k->at, k->pos, 1, final, &k->need, &k->crc);
}

/* An empty candidate at buffer index i (field by field: a compound
 * literal is a memset or memcpy call under ASan, one per index). */
static void cand_init(cand *k, size_t i)
{
    k->at = i;
    k->need = k->mark = 0;
    k->pos = 0;
    k->mk = k->crc = k->mid = 0;
    k->ptr = 0;
}

/* The starts octets at buffer index i suggest, earliest first. */
static int candidate(const dw_mpa_check *c, size_t i, int final, cand *k)
{
    cand_init(k, i);
    if (c->pos_known) { /* no markers: FPDUs sit at multiples of 4 */
        k->pos = c->b.base + i - c->start_off;
        return dw_ck_trial(c, i, k->pos, 0, final, &k->need, &k->crc);
    }
    if (c->b.len - i < 4) {
        k->need = i + 4;
        return final ? DW_CK_T_REJECT : DW_CK_T_MORE;
    }
    int r = mid_stream(c, i, final, k);
    if (r != DW_CK_T_REJECT)
        return r;
    cand_init(k, i);
    k->mk = c->markers != 0 && zero_marker(c, i);
    if (!k->mk && c->markers == 1)
        return DW_CK_T_REJECT;
    return dw_ck_trial(c, i, 0, k->mk, final, &k->need, &k->crc);
}

static void start_detail(dw_mpa_check *c, const cand *k, uint64_t off)
{
    if (k->mid)
        snprintf(c->detail, sizeof c->detail,
                 "found by search mid-stream at offset %llu (marker at %llu, FPDUPTR %u, valid FPDU); pos counts from an arbitrary multiple of 512",
                 (unsigned long long)off,
                 (unsigned long long)(c->b.base + k->mark), k->ptr);
    else
        snprintf(c->detail, sizeof c->detail, "%s at offset %llu (%s)",
                 off ? "found by search" : "an FPDU", (unsigned long long)off,
                 k->mk ? "zero marker and valid FPDU" : "valid FPDU, no markers");
}

static void accept(dw_mpa_check *c, const cand *k)
{
    drop(c, k->at - c->b.start); /* before it: skipped */
    c->scan = c->cand = 0;
    uint64_t off = c->b.base + k->at;
    c->markers = k->mk;
    c->markers_given = 0; /* the stream has shown it */
    if (c->crc < 0)
        c->crc = k->crc;
    if (!c->started) {
        start_detail(c, k, off);
        dw_ck_go_start(c, off, c->pos_known ? off - c->start_off : k->pos,
                       c->detail);
        return;
    }
    if (!c->pos_known)
        c->start_off = off - k->pos;
    snprintf(c->detail, sizeof c->detail, "valid FPDU found by search%s",
             k->mid ? " mid-stream (pos counts from an arbitrary multiple of 512)" : "");
    dw_ck_emit(c, DW_MPA_CHECK_EV_RESYNC, DW_MPA_ERR_NONE, off, 0, 0,
               c->lost_skipped, NULL);
    c->st.resyncs++;
    c->resync_next = 1;
    c->suspect = 1;
    dw_ck_enter_sync(c, off);
}

/* The cursor moves past buffer index i; what falls out of reach goes. */
static void advance(dw_mpa_check *c, size_t i)
{
    c->scan = c->b.base + i + 1;
    size_t keep = lookback(c);
    if (i + 1 - c->b.start > keep)
        drop(c, i + 1 - keep - c->b.start);
}

/* Word tests over the indexes q[0..6] (q[7] is read): a mask with 0x80
 * in octet j where index j needs the octet loop. */
#define DW_CK_LO7 0x7f7f7f7f7f7f7f7full
#define DW_CK_HI7 0x0080808080808080ull

/* Markers on: both first octets zero (a marker). */
static uint64_t zero_pairs(const uint8_t *q)
{
    uint64_t w = dw_get_le64(q);
    uint64_t z = ~(((w & DW_CK_LO7) + DW_CK_LO7) | w | DW_CK_LO7); /* zero octets */
    return z & z >> 8 & DW_CK_HI7;
}

/* At the end, no markers: a first octet below u (<= 128), where an
 * ULPDU_Length of at least 256 u octets does not settle it. */
static uint64_t below(const uint8_t *q, unsigned u)
{
    uint64_t w = dw_get_le64(q);
    uint64_t ge = ((w & DW_CK_LO7) + (0x80u - u) * 0x0101010101010101ull) | w;
    return ~ge & DW_CK_HI7;
}

/* Indexes before the first that mask m marks (7 when none). */
static size_t clear_run(uint64_t m)
{
    return (size_t)__builtin_ctzll(m | 1ull << 63) / 8;
}

/*
 * How many buffer indexes from i on candidate() is sure to reject, at
 * most max: a fast path past what suggests nothing (most octets of a
 * stream that is not MPA, runs of zeros), a few operations an octet where
 * candidate() takes a few dozen. Sure at index j when
 * - its first two octets are not both zero (not a marker: no mid-stream
 *   or zero-marker reading) and the reading without a marker is rejected
 *   too: markers are known to be on, or, at the end, the FPDU its
 *   ULPDU_Length makes does not fit in what is left, or its first FPDU
 *   fails dw_ck_first_fpdu() (CRC and pad, from the checkpoints);
 * - or its first two octets are zero (a ULPDU_Length 0: the reading
 *   without a marker is rejected) and markers are known to be off, or
 *   its FPDUPTR (low two bits ignored) reaches back past the buffer (no
 *   mid-stream reading; not a zero marker), or it is 0 (no mid-stream
 *   reading) and the zero marker leads a ULPDU_Length 0.
 * Up to 7 indexes at a time are passed with one word test where it is
 * sure (markers on and no two zero octets; at the end, no ULPDU_Length
 * whose FPDU fits), 8 in a run of zeros. The pos_known search (no markers, MPA positions
 * known) and the last 5 octets go the slow way.
 */
static size_t sure_rejects(const dw_mpa_check *c, size_t i, int final, size_t max)
{
    const uint8_t *p = c->b.buf + i;
    size_t n = c->b.len - i, k = 0;
    if (c->pos_known || n < 6)
        return 0;
    int mk_on = c->markers == 1;
    /* word tests: markers on, or at the end while the first octet of an
     * ULPDU_Length can settle it (under 128 x 256 octets left) */
    int word = mk_on || (final && n < 128u * 256u);
    max = max < n - 5 ? max : n - 5; /* k + 6 <= n */
    for (; k < max; k++) {
        const uint8_t *q = p + k;
        if (word && k + 7 <= max) { /* up to 7 at a time */
            /* the FPDU of index j, at least 256 q[j] octets, is longer
             * than the n - k octets left when q[j] > (n - k) / 256 */
            size_t j = clear_run(mk_on ? zero_pairs(q) : below(q, (unsigned)((n - k) / 256 + 1)));
            if (j) {
                k += j - 1;
                continue;
            }
        }
        if (q[0] | q[1]) {
            if (mk_on || (final && dw_mpa_content_len((size_t)q[0] << 8 | q[1]) > n - k) ||
                !dw_ck_first_fpdu(c, i + k, 0, 0, final))
                continue;
            break;
        }
        if (k + 8 <= max && !(dw_get_le64(q + 2) | dw_get_le32(q + 9))) {
            k += 7; /* q[0..12] zero: indexes k..k+7 at once */
            continue;
        }
        size_t ptr = ((size_t)q[2] << 8 | q[3]) & 0xfffcu;
        if (!c->markers || (ptr ? ptr > i + k - c->b.start : !(q[4] | q[5])))
            continue;
        break;
    }
    return k;
}

/* Tries each buffer index in turn (the cursor), with what each suggests. */
static void search_scan(dw_mpa_check *c, int final)
{
    while (c->state == DW_CK_SEARCH) {
        if (c->scan < c->b.base + c->b.start)
            c->scan = c->b.base + c->b.start;
        size_t i = (size_t)(c->scan - c->b.base);
        if (i >= c->b.len || (!final && c->b.len < c->b.need))
            return;
        if (c->pos_known && (c->b.base + i - c->start_off) % 4) {
            advance(c, i);
            continue;
        }
        uint64_t left = c->searched < c->set.search_limit ? c->set.search_limit - c->searched : 0;
        dw_cc_crcs_sync(&c->crcs, &c->b);
        size_t m = sure_rejects(c, i, final, left < SIZE_MAX ? (size_t)left : SIZE_MAX);
        if (m) { /* as many rejections one by one: the same state after */
            advance(c, i + m - 1);
            c->searched += m;
            continue;
        }
        cand k;
        int r = candidate(c, i, final, &k);
        if (r == DW_CK_T_MORE) {
            c->b.need = k.need;
            c->cand = c->b.base + k.at;
            return;
        }
        if (r == DW_CK_T_ACCEPT) {
            accept(c, &k);
            return;
        }
        advance(c, i);
        if (++c->searched > c->set.search_limit)
            give_up(c);
    }
}

int dw_ck_buf_has_start(dw_mpa_check *c)
{
    int known = c->pos_known, r = DW_CK_T_REJECT;
    c->pos_known = c->markers == 0;
    dw_cc_crcs_sync(&c->crcs, &c->b);
    for (size_t i = c->b.start; i < c->b.len && r != DW_CK_T_ACCEPT; i++) {
        cand k;
        if (!c->pos_known || (c->b.base + i - c->start_off) % 4 == 0)
            r = candidate(c, i, 1, &k);
    }
    c->pos_known = known;
    return r == DW_CK_T_ACCEPT;
}

/* MPA 7.1: a marker tells where the FPDU holding it began; resume there
 * when those octets are here (after the loss or the gap). */
static void lost_scan(dw_mpa_check *c)
{
    uint64_t lo = c->b.base + c->b.start;
    if (c->mk_next < lo) /* markers before what we have (a gap): at once, not 512 at a time */
        c->mk_next += (lo - c->mk_next + DW_MPA_MARKER_INTERVAL - 1) / DW_MPA_MARKER_INTERVAL *
                      DW_MPA_MARKER_INTERVAL;
    while (c->mk_next + 4 <= c->b.base + c->b.len) {
        uint64_t m = c->mk_next;
        c->mk_next += DW_MPA_MARKER_INTERVAL;
        if (m < c->b.base + c->b.start)
            continue;
        const uint8_t *p = c->b.buf + (m - c->b.base);
        uint16_t ptr = dw_get_be16(p + 2) & 0xfffcu;
        uint64_t at = m - ptr;
        if (m < ptr || at < c->b.base + c->b.start)
            continue; /* it began before what we have: next marker */
        drop(c, (size_t)(at - (c->b.base + c->b.start)));
        snprintf(c->detail, sizeof c->detail,
                 "at the marker at offset %llu (FPDUPTR %u)",
                 (unsigned long long)m, dw_get_be16(p + 2));
        dw_ck_emit(c, DW_MPA_CHECK_EV_RESYNC, DW_MPA_ERR_NONE, at, 0, 0,
                   c->lost_skipped, NULL);
        c->st.resyncs++;
        c->resync_next = 1;
        c->suspect = 1;
        dw_ck_enter_sync(c, at);
        return;
    }
}

void dw_ck_scan(dw_mpa_check *c, int final)
{
    for (;;) {
        enum dw_ck_state st = c->state;
        if (st == DW_CK_FRAME)
            frame_scan(c, final);
        else if (st == DW_CK_PEND)
            pend_scan(c, final);
        else if (st == DW_CK_SEARCH)
            search_scan(c, final);
        else if (st == DW_CK_LOST_MK)
            lost_scan(c);
        if (c->state == DW_CK_SYNC) {
            replay(c); /* consumes at least one octet before any loss */
            if (c->state == DW_CK_SYNC)
                return;
            continue;
        }
        if (c->state == st || c->state == DW_CK_DEAD)
            return;
    }
}
