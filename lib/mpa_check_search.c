/*
 * MPA checker: the search buffer. Octets that cannot be checked as they
 * pass (before the start is known, while FPDU boundaries are lost) wait
 * here with their segment tags; once a start is found they are replayed
 * through the in-sync path.
 */
#include <stdio.h>
#include <string.h>

#include "bytes.h"
#include "mpa_check_int.h"

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

/* The buffer is full: give up its oldest octets (for a search, the
 * candidate that needs more than the buffer holds). */
static void make_room(dw_mpa_check *c)
{
    size_t n = 1;
    if (c->state == DW_CK_SEARCH)
        c->searched++;
    else if (c->b.dcount > c->b.dstart) /* a whole piece */
        n = (size_t)(c->b.desc[c->b.dstart].off + c->b.desc[c->b.dstart].len -
                     (c->b.base + c->b.start));
    drop(c, n);
    compact(c);
}

size_t dw_ck_buf_put(dw_mpa_check *c, const uint8_t *in, size_t n,
                     const dw_cc_slice *s)
{
    if (c->b.start == c->b.len)
        dw_ck_buf_reset(c, s->off);
    if (c->b.len == DW_CK_BUF_CAP || c->b.dcount == DW_CK_DESC_CAP)
        compact(c);
    if (c->b.len == DW_CK_BUF_CAP || c->b.dcount == DW_CK_DESC_CAP) {
        make_room(c); /* the caller scans, then comes back */
        return 0;
    }
    size_t k = DW_CK_BUF_CAP - c->b.len < n ? DW_CK_BUF_CAP - c->b.len : n;
    memcpy(c->b.buf + c->b.len, in, k);
    c->b.len += k;
    dw_cc_piece_add(&c->b, s, k);
    return k;
}

/* In sync again: the buffered octets go through the in-sync path. */
static void replay(dw_mpa_check *c)
{
    while (c->state == DW_CK_SYNC && c->b.start < c->b.len) {
        dw_cc_slice s;
        size_t n = dw_cc_piece_at(&c->b, c->b.start, &s);
        c->b.start += dw_ck_sync_feed(c, c->b.buf + c->b.start, n, &s);
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
    dw_ck_go_start(c, off + (uint64_t)r, c->detail);
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

static int candidate(dw_mpa_check *c, size_t i, int final, size_t *need,
                     int *mk, int *crc)
{
    if (c->pos_known) { /* no markers: FPDUs sit at multiples of 4 */
        *mk = 0;
        return dw_ck_trial(c, i, c->b.base + i - c->start_off, 0, final,
                           need, crc);
    }
    if (c->b.len - i < 4) {
        *need = i + 4;
        return final ? DW_CK_T_REJECT : DW_CK_T_MORE;
    }
    *mk = c->markers != 0 && zero_marker(c, i);
    if (!*mk && c->markers == 1)
        return DW_CK_T_REJECT;
    return dw_ck_trial(c, i, 0, *mk, final, need, crc);
}

static void accept(dw_mpa_check *c, size_t i, int mk, int crc)
{
    uint64_t off = c->b.base + i;
    c->markers = mk;
    c->markers_given = 0; /* the stream has shown it */
    if (c->crc < 0)
        c->crc = crc;
    if (!c->pos_known)
        c->start_off = off;
    if (!c->started) {
        snprintf(c->detail, sizeof c->detail, "%s at offset %llu (%s)",
                 off ? "found by search" : "an FPDU", (unsigned long long)off,
                 mk ? "zero marker and valid FPDU" : "valid FPDU, no markers");
        dw_ck_go_start(c, off, c->detail);
        return;
    }
    snprintf(c->detail, sizeof c->detail, "valid FPDU found by search");
    dw_ck_emit(c, DW_MPA_CHECK_EV_RESYNC, DW_MPA_ERR_NONE, off, 0, 0,
               c->lost_skipped, NULL);
    c->st.resyncs++;
    c->resync_next = 1;
    c->suspect = 1;
    dw_ck_enter_sync(c, off);
}

static void search_scan(dw_mpa_check *c, int final)
{
    while (c->state == DW_CK_SEARCH && c->b.start < c->b.len) {
        if (!final && c->b.len < c->b.need)
            return;
        size_t i = c->b.start, need = 0;
        if (c->pos_known && (c->b.base + i - c->start_off) % 4) {
            drop(c, 1);
            continue;
        }
        int mk = 0, crc = 0;
        int r = candidate(c, i, final, &need, &mk, &crc);
        if (r == DW_CK_T_MORE) {
            c->b.need = need;
            return;
        }
        if (r == DW_CK_T_ACCEPT) {
            accept(c, i, mk, crc);
            return;
        }
        drop(c, 1);
        if (++c->searched > c->set.search_limit)
            give_up(c);
    }
}

/* MPA 7.1: a marker tells where the FPDU holding it began; resume there
 * when those octets are here (after the loss or the gap). */
static void lost_scan(dw_mpa_check *c)
{
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
