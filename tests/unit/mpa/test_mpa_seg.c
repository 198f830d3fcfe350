/* SPDX-License-Identifier: MIT */
/*
 * The segment receiver (out-of-order placement, MPA 5.1, 5.2, 7.4, 9) on
 * hand-built streams: aligned segments placed on arrival with no store,
 * markers then lengths, header alignment only as a hint, error 3 in each
 * of its forms and error 2 on both paths, the store-full fallback,
 * sequence wrap, duplicates, no markers, the in-order fast path's guard,
 * the API. The simulated runs are in test_mpa_seg_sim.c.
 */
#include <ddpwire/mpa_seg.h>

#include "mpa_seg_util.h"

/* ------------------------------------------------------------------ */
/* Hand-built streams                                                    */
/* ------------------------------------------------------------------ */

typedef struct scen {
    sent s;
    uint8_t *w; /* the octets fed: a copy of the stream, to edit */
    chk k;
    dw_mpa_seg *r;
} scen;

static void scen_open(scen *sc, const size_t *sizes, size_t n, uint32_t start,
                      size_t store, int markers)
{
    uint64_t seed = 99 + n;
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.start_seq = start;
    ts.markers = markers;
    sent_build(&sc->s, &ts, sizes, n, n, 0, &seed);
    sc->w = malloc(sc->s.st.wire_len);
    memcpy(sc->w, sc->s.st.wire, sc->s.st.wire_len);
    chk k = {&sc->s, calloc(n, 1), 0, 0, 0, 0, {0}, {0}, 0};
    sc->k = k;
    dw_mpa_seg_settings rs;
    dw_mpa_seg_settings_default(&rs);
    rs.start_seq = start;
    rs.store_bytes = store;
    rs.markers = markers;
    CHECK(dw_mpa_seg_new(&sc->r, &rs, &cbs, &sc->k) == 0);
}

static void scen_close(scen *sc)
{
    dw_mpa_seg_del(sc->r);
    free(sc->k.placed);
    free(sc->w);
    sent_free(&sc->s);
}

/* Where FPDU i starts (i == n: the end of the stream). */
static uint64_t fo(const scen *sc, size_t i)
{
    return i < sc->s.st.nrec ? sc->s.st.recs[i].fpdu_off : sc->s.st.wire_len;
}

static int feed(scen *sc, uint64_t a, uint64_t b)
{
    return dw_mpa_seg_feed(sc->r, sc->s.start + (uint32_t)a, sc->w + a, (size_t)(b - a));
}

static int feed_fpdu(scen *sc, size_t i)
{
    return feed(sc, fo(sc, i), fo(sc, i + 1));
}

/* Stores the CRC32c of w[a, b - 4) in w[b - 4, b) (wire order). */
static void fix_crc(uint8_t *w, uint64_t a, uint64_t b)
{
    dw_crc32c_store(w + b - 4, dw_crc32c(0, w + a, (size_t)(b - 4 - a)));
}

static dw_mpa_seg_stats stats(const scen *sc)
{
    dw_mpa_seg_stats x;
    dw_mpa_seg_stats_get(sc->r, &x);
    return x;
}

/* The events so far equal want[0, n). */
static int events_are(const scen *sc, const int *want, size_t n)
{
    if (sc->k.nev != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (sc->k.ev[i] != want[i])
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Agreement with the in-order receiver (fuzz_diff's rule)               */
/* ------------------------------------------------------------------ */

/* What a receiver said: FPDU offsets delivered, then one error. */
typedef struct said {
    uint64_t off[64];
    size_t n;
    int code;
    uint64_t err_off;
} said;

static void said_deliver(dw_mpa_seg *r, const dw_mpa_seg_pdu *p, void *u)
{
    said *w = u;
    (void)r;
    if (w->n < 64)
        w->off[w->n++] = p->offset;
}

static void said_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r, (void)d, (void)p, (void)u;
}

static void said_error(dw_mpa_seg *r, const dw_mpa_rx_error *e, void *u)
{
    said *w = u;
    (void)r;
    if (!e->clean)
        w->code = e->code, w->err_off = e->offset;
}

static int said_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    said *w = u;
    (void)rx, (void)d, (void)len;
    if (w->n < 64)
        w->off[w->n++] = off;
    return 0;
}

static void said_rx_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    said *w = u;
    (void)rx;
    if (!e->clean)
        w->code = e->code, w->err_off = e->offset;
}

/* The in-order receiver's verdict on the octets sc->w. */
static said rx_says(const scen *sc)
{
    said w = {{0}, 0, 0, 0};
    dw_mpa_rx_settings s;
    dw_mpa_rx_settings_default(&s);
    s.start_seq = sc->s.start;
    dw_mpa_rx_callbacks cb = {said_ulpdu, said_rx_error, NULL};
    dw_mpa_rx *rx;
    CHECK(dw_mpa_rx_new(&rx, &s, &cb, &w) == 0);
    dw_mpa_rx_feed(rx, sc->w, sc->s.st.wire_len);
    dw_mpa_rx_close(rx, DW_CLOSE_FIN);
    dw_mpa_rx_del(rx);
    return w;
}

/* A segment receiver over sc->w reporting to w: it replaces sc->r. */
static void said_open(scen *sc, said *w)
{
    dw_mpa_seg_del(sc->r);
    memset(w, 0, sizeof *w);
    dw_mpa_seg_settings rs;
    dw_mpa_seg_settings_default(&rs);
    rs.start_seq = sc->s.start;
    dw_mpa_seg_callbacks cb = {said_place, said_deliver, said_error};
    CHECK(dw_mpa_seg_new(&sc->r, &rs, &cb, w) == 0);
}

static int said_same(const said *a, const said *b)
{
    if (a->n != b->n || a->code != b->code || (a->code && a->err_off != b->err_off))
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->off[i] != b->off[i])
            return 0;
    return 1;
}

/* MPA 5.1, 5.2, analysis 7: header-aligned segments out of order are
 * placed on arrival with no store at all, delivered when the gap closes. */
static void test_s51_aligned_placed_on_arrival(void)
{
    size_t sizes[6] = {1430, 1430, 1430, 1430, 1430, 1430};
    scen sc;
    scen_open(&sc, sizes, 6, 1000, 0, 1);
    static const size_t order[5] = {5, 3, 1, 4, 2};
    for (size_t i = 0; i < 5; i++) {
        CHECK(feed_fpdu(&sc, order[i]) == 0);
        CHECK_EQ_U(sc.k.nev, i + 1);
        CHECK_EQ_U(sc.k.ev[i], order[i] + 1); /* placed, not delivered */
        CHECK_EQ_U(sc.k.next, 0);
        CHECK_EQ_U(dw_mpa_seg_ack(sc.r), 1000);
    }
    dw_mpa_seg_stats x = stats(&sc);
    CHECK(x.placed_early == 5 && x.store_peak == 0 && x.held_peak == 0 && !x.fallbacks);
    dw_mpa_seg_range sack[4];
    CHECK_EQ_U(dw_mpa_seg_sack(sc.r, sack, 4), 1); /* FPDUs 1..5 in one block */
    CHECK(sack[0].seq == 1000 + fo(&sc, 1) && sack[0].len == fo(&sc, 6) - fo(&sc, 1));
    CHECK(feed_fpdu(&sc, 0) == 0);
    static const int want[] = {6, 4, 2, 5, 3, 1, -1, -2, -3, -4, -5, -6};
    CHECK(events_are(&sc, want, 12));
    CHECK(!sc.k.bad && sc.k.next == 6);
    CHECK_EQ_U(dw_mpa_seg_ack(sc.r), 1000 + fo(&sc, 6));
    CHECK_EQ_U(dw_mpa_seg_offset(sc.r), fo(&sc, 6));
    CHECK(dw_mpa_seg_close(sc.r, DW_CLOSE_FIN) == 0);
    CHECK(sc.k.errors == 1 && sc.k.err.code == DW_MPA_ERR_CLOSED && sc.k.err.clean);
    scen_close(&sc);
}

/* MPA 7.4 methods 2 and 3: a segment that starts inside an FPDU; a marker
 * locates the next FPDU, its length the one after. */
static void test_s74_marker_then_lengths(void)
{
    size_t sizes[4] = {600, 500, 40, 1000};
    scen sc;
    scen_open(&sc, sizes, 4, 0, 65536, 1);
    /* by hand: 4 + 2 + 600 + 2 + 4 + a marker at 512; 2 + 500 + 2 + 4 + a
     * marker at 1024; 2 + 40 + 2 + 4 and no marker */
    CHECK(fo(&sc, 1) == 616 && fo(&sc, 2) == 1128 && fo(&sc, 3) == 1176);
    CHECK(sc.w[1026] == 0x01 && sc.w[1027] == 0x98); /* FPDUPTR 1024 - 616 */
    CHECK(feed(&sc, 300, 1176) == 0);
    static const int want1[] = {2, 3};
    CHECK(events_are(&sc, want1, 2));
    dw_mpa_seg_stats x = stats(&sc);
    CHECK(x.placed_early == 2 && x.held == 616 - 300 && x.hints_taken == 0);
    CHECK(feed(&sc, 0, 300) == 0); /* FPDU 0 completes from the store */
    static const int want2[] = {2, 3, 1, -1, -2, -3};
    CHECK(events_are(&sc, want2, 6));
    CHECK(feed_fpdu(&sc, 3) == 0);
    x = stats(&sc);
    CHECK(sc.k.next == 4 && !sc.k.bad && x.held == 0 && x.store_used == 0);
    CHECK(x.held_peak == 316 && x.store_peak >= 316);
    scen_close(&sc);
}

/* Header alignment is a hint: small FPDUs without markers wait until their
 * lengths chain onto an FPDU located by a marker (mpa.h, segment receiver). */
static void test_hint_confirmed_by_lengths(void)
{
    size_t sizes[6] = {100, 100, 100, 100, 100, 300};
    for (int store = 0; store < 2; store++) {
        scen sc;
        scen_open(&sc, sizes, 6, 77, store ? 65536 : 0, 1);
        CHECK(fo(&sc, 4) < 512 && fo(&sc, 5) > 516); /* FPDU 4 holds the marker */
        for (size_t i = 1; i <= 3; i++)
            CHECK(feed_fpdu(&sc, i) == 0);
        CHECK_EQ_U(sc.k.nev, 0); /* alone, alignment proves nothing */
        CHECK(feed_fpdu(&sc, 4) == 0);
        dw_mpa_seg_stats x = stats(&sc);
        if (store) {
            static const int want[] = {5, 2, 3, 4};
            CHECK(events_are(&sc, want, 4));
            CHECK(x.hints_taken == 1 && x.placed_early == 4 && !x.fallbacks);
        } else { /* nothing held: FPDUs 1-3 come again, in order */
            static const int want[] = {5};
            CHECK(events_are(&sc, want, 1));
            CHECK(x.fallbacks == 3 && x.refused == fo(&sc, 4) - fo(&sc, 1));
            dw_mpa_seg_range sack[4];
            CHECK_EQ_U(dw_mpa_seg_sack(sc.r, sack, 4), 1);
            CHECK(sack[0].seq == 77 + fo(&sc, 4) && sack[0].len == fo(&sc, 5) - fo(&sc, 4));
        }
        CHECK(feed_fpdu(&sc, 0) == 0);
        if (!store)
            CHECK(feed(&sc, fo(&sc, 1), fo(&sc, 4)) == 0);
        CHECK(feed_fpdu(&sc, 5) == 0);
        CHECK(sc.k.next == 6 && !sc.k.bad && !sc.k.errors);
        scen_close(&sc);
    }
}

/* A segment that starts with what looks like a valid FPDU, but inside a
 * larger one: never placed (MPA 7.4.1: no dependence on alignment). */
static void test_hint_alone_not_trusted(void)
{
    size_t sizes[2] = {1400, 200};
    scen sc;
    scen_open(&sc, sizes, 2, 0, 65536, 1);
    /* a fake FPDU (ULPDU 20 octets, valid CRC) at offset 100 of FPDU 0 */
    uint8_t *f = sc.w + 100;
    f[0] = 0, f[1] = 20;
    memset(f + 2, 0x5a, 20);
    f[22] = f[23] = 0;
    fix_crc(sc.w, 100, 128);
    memcpy(sc.s.st.pool + sc.s.st.recs[0].at + 94, f, 28); /* the truth too */
    fix_crc(sc.w, 0, fo(&sc, 1));
    CHECK(feed(&sc, 100, 128) == 0);
    CHECK(feed(&sc, 128, 700) == 0);
    CHECK(feed(&sc, 700, 1000) == 0);
    CHECK_EQ_U(sc.k.nev, 0);
    CHECK(feed(&sc, 0, 100) == 0);
    CHECK(feed(&sc, 1000, fo(&sc, 2)) == 0);
    static const int want[] = {1, -1, 2, -2};
    CHECK(events_are(&sc, want, 4));
    dw_mpa_seg_stats x = stats(&sc);
    CHECK(!sc.k.bad && !sc.k.errors && x.hints_taken == 0);
    scen_close(&sc);
}

/* MPA 9 code 3, checked when a gap closes (9-f): the in-order FPDU's
 * ULPDU_Length runs into an FPDU placed early (v 0); with a bad CRC as
 * well the code is 2 (v 2). Over a start that only a marker named (v 1,
 * the FPDU that holds the marker not verified yet), the in-order FPDU
 * with a valid CRC is delivered and the FPDU that holds the marker is
 * judged in its turn, as the in-order receiver does. */
static void test_s9_gap_closes_on_disagreement(void)
{
    size_t sizes[3] = {200, 1430, 1430};
    for (int v = 0; v < 3; v++) {
        if (v == 1) {
            scen sc;
            said w;
            scen_open(&sc, sizes, 3, 5, 65536, 1);
            said_open(&sc, &w);
            uint64_t f1 = fo(&sc, 1), m = (f1 + 511) / 512 * 512;
            CHECK(feed(&sc, m - 40, m + 40) == 0);
            sc.w[5] = 204;
            fix_crc(sc.w, 0, f1 + 4);
            CHECK(feed(&sc, 0, f1 + 4) == 0 && !w.code && w.n == 1);
            feed(&sc, 0, fo(&sc, 3));
            dw_mpa_seg_close(sc.r, DW_CLOSE_FIN);
            said x = rx_says(&sc);
            CHECK(w.code && said_same(&w, &x));
            scen_close(&sc);
            continue;
        }
        scen sc;
        scen_open(&sc, sizes, 3, 5, 65536, 1);
        uint64_t f1 = fo(&sc, 1), m = (f1 + 511) / 512 * 512;
        CHECK(f1 == 212 && m < fo(&sc, 2));
        if (v == 0)
            CHECK(feed_fpdu(&sc, 1) == 0); /* placed early */
        else
            CHECK(feed(&sc, m - 40, m + 40) == 0); /* its marker only */
        CHECK_EQ_U(sc.k.nev, v == 0);
        sc.w[5] = 204; /* FPDU 0: ULPDU_Length 200 -> 204, 4 octets longer */
        if (v == 0)
            fix_crc(sc.w, 0, f1 + 4);
        int rc = feed(&sc, 0, f1 + 4);
        CHECK(rc == DW_ERR_PROTO);
        CHECK(sc.k.errors == 1 && sc.k.err.offset == 0 && sc.k.err.seq == 5);
        CHECK_EQ_U(sc.k.err.code, v == 2 ? DW_MPA_ERR_CRC : DW_MPA_ERR_MARKER);
        CHECK_EQ_U(sc.k.nev, v == 0);
        CHECK(feed_fpdu(&sc, 2) == DW_ERR_PROTO);
        CHECK(sc.k.nev == (v == 0) && sc.k.next == 0 && !sc.k.bad);
        CHECK(dw_mpa_seg_failed(sc.r) == sc.k.err.code);
        scen_close(&sc);
    }
}

/* Sets the FPDUPTR of the marker at m so that it names q. */
static void point(scen *sc, uint64_t m, uint64_t q)
{
    sc->w[m + 2] = (uint8_t)((m - q) >> 8);
    sc->w[m + 3] = (uint8_t)(m - q);
}

/*
 * MPA 9 code 3 "in the event that the CRC is valid", against FPDUs not
 * verified yet (found by fuzz_diff): a marker arriving out of order that
 * names a start inside the partial in-order FPDU (v 0), its start from
 * beyond its end (1; 2: before any of it arrived), or an anchored FPDU's
 * start from beyond its end (3) locates nothing and convicts no one: the
 * FPDU that holds it is judged in its turn, code 2 when the marker broke
 * its CRC, 3 when its CRC is valid, after every FPDU before it is
 * delivered, as the in-order receiver says. (Before: code 3 at once,
 * blaming the valid FPDU named, FPDU 0 or 1, nothing delivered.)
 */
static void test_s9_marker_beyond_pending_fpdu_judged_in_turn(void)
{
    size_t sizes[4] = {1430, 1430, 1430, 1430};
    for (int v = 0; v < 8; v++) {
        int crc_ok = v & 1, k = v >> 1;
        scen sc;
        said w;
        scen_open(&sc, sizes, 4, 0, 65536, 1);
        said_open(&sc, &w);
        uint64_t f1 = fo(&sc, 1), f2 = fo(&sc, 2), f3 = fo(&sc, 3);
        uint64_t m1 = (f1 + 511) / 512 * 512, m2 = (f2 + 511) / 512 * 512;
        uint64_t m = k < 3 ? m1 : m2, holder = k < 3 ? f1 : f2;
        point(&sc, m, k == 0 ? 200 : k < 3 ? 0 : f1);
        if (crc_ok)
            fix_crc(sc.w, holder, k < 3 ? f2 : f3);
        if (k < 2)
            CHECK(feed(&sc, 0, 100) == 0); /* FPDU 0 partly */
        CHECK(feed(&sc, m - 20, m + 20) == 0 && !w.code);
        if (k == 3)
            CHECK(feed_fpdu(&sc, 1) == 0 && !w.code);
        CHECK(feed(&sc, k < 2 ? 100 : 0, f1) == 0 && !w.code);
        CHECK_EQ_U(w.n, k == 3 ? 2 : 1);
        CHECK(feed(&sc, 0, fo(&sc, 4)) == DW_ERR_PROTO);
        CHECK_EQ_U(w.code, crc_ok ? DW_MPA_ERR_MARKER : DW_MPA_ERR_CRC);
        CHECK_EQ_U(w.err_off, holder);
        said x = rx_says(&sc);
        CHECK(said_same(&w, &x));
        scen_close(&sc);
    }
}

/* MPA 9 code 3 at once when a gap closes on it: the in-order FPDU's
 * ULPDU_Length runs into an FPDU placed early (those octets are placed
 * and gone, its CRC cannot be checked). */
static void test_s9_length_runs_into_placed_fpdu(void)
{
    size_t sizes[4] = {1430, 1430, 1430, 1430};
    scen sc;
    scen_open(&sc, sizes, 4, 0, 65536, 1);
    CHECK(feed_fpdu(&sc, 1) == 0);
    sc.w[4] ^= 0x02; /* FPDU 0 longer by 512: over FPDU 1 */
    CHECK(feed(&sc, 0, 100) == DW_ERR_PROTO);
    CHECK(sc.k.errors == 1 && sc.k.err.code == DW_MPA_ERR_MARKER && sc.k.err.offset == 0);
    CHECK_EQ_U(sc.k.nev, 1);
    CHECK(feed(&sc, 0, fo(&sc, 4)) == DW_ERR_PROTO && sc.k.nev == 1);
    scen_close(&sc);
}

/* MPA 9: code 3 only "in the event that the CRC is valid" (found by
 * fuzz_diff): a corrupted marker that names a point inside a placed FPDU,
 * in an FPDU whose CRC it breaks, is that FPDU's CRC error (code 2 at its
 * offset, as the in-order receiver says), not a marker error blaming the
 * valid FPDU it names. */
static void test_s9_bad_marker_in_bad_crc_fpdu_is_code_2(void)
{
    size_t sizes[4] = {1430, 1430, 1430, 1430};
    scen sc;
    scen_open(&sc, sizes, 4, 0xFFFFF000u, 65536, 1);
    CHECK(feed_fpdu(&sc, 1) == 0);
    uint64_t f3 = fo(&sc, 3), m = (f3 + 511) / 512 * 512, to = fo(&sc, 1) + 8;
    CHECK(m < fo(&sc, 4));
    sc.w[m + 2] = (uint8_t)((m - to) >> 8); /* its CRC not fixed */
    sc.w[m + 3] = (uint8_t)(m - to);
    int rc = feed_fpdu(&sc, 3);
    CHECK(rc == 0 || rc == DW_ERR_PROTO);
    if (!sc.k.errors)
        CHECK(feed(&sc, 0, fo(&sc, 4)) == DW_ERR_PROTO);
    CHECK(sc.k.errors == 1 && sc.k.err.code == DW_MPA_ERR_CRC);
    CHECK_EQ_U(sc.k.err.offset, f3);
    scen_close(&sc);
}

/* MPA 9 code 3 "any time a marker points to an already identified FPDU"
 * (9-g), "in the event that the CRC is valid": a marker in a later FPDU
 * that names a placed FPDU or a point inside it is the error of the FPDU
 * that holds it, once its CRC is found valid, as the in-order receiver
 * and the checker say (before fuzz_diff, the FPDU named was blamed, at
 * once: a valid one, when the marker's own FPDU had a bad CRC). Found
 * ahead of the in-order point, it is reported in its turn, after FPDUs
 * 0 to 2 (MPA 9 lets an MPA-aware TCP drop the segment instead of
 * reporting at once; before, 0 and 2 were never delivered). */
static void test_s9_marker_names_identified_fpdu(void)
{
    size_t sizes[4] = {1430, 1430, 1430, 1430};
    for (int v = 0; v < 3; v++) {
        scen sc;
        scen_open(&sc, sizes, 4, 0xFFFFF000u, 65536, 1);
        CHECK(feed_fpdu(&sc, 1) == 0);
        uint64_t f3 = fo(&sc, 3), m = (f3 + 511) / 512 * 512;
        uint64_t to = v == 0 ? fo(&sc, 1) + 8 : v == 1 ? fo(&sc, 1) : fo(&sc, 2);
        CHECK(m < fo(&sc, 4));
        sc.w[m + 2] = (uint8_t)((m - to) >> 8);
        sc.w[m + 3] = (uint8_t)(m - to);
        fix_crc(sc.w, f3, fo(&sc, 4));
        CHECK(feed_fpdu(&sc, 3) == 0 && !sc.k.errors);
        CHECK(feed_fpdu(&sc, 0) == 0 && feed_fpdu(&sc, 2) == DW_ERR_PROTO);
        CHECK(sc.k.errors == 1 && sc.k.err.code == DW_MPA_ERR_MARKER);
        CHECK_EQ_U(sc.k.err.offset, f3);
        static const int want[] = {2, 1, -1, -2, 3, -3};
        CHECK(events_are(&sc, want, 6) && !sc.k.bad);
        scen_close(&sc);
    }
}

/* MPA 7.4, 9 code 2 out of order and code 3 in order: a flipped bit in an
 * out-of-order FPDU located by its marker (not placed, held, reported in
 * its turn after FPDUs 0 and 1, with or without the store); a wrong
 * marker in order, with and without a valid CRC. */
static void test_s9_codes_both_paths(void)
{
    size_t sizes[4] = {1430, 1430, 1430, 1430};
    scen sc;
    for (int store = 0; store < 2; store++) {
        scen_open(&sc, sizes, 4, 0, store ? 65536 : 0, 1);
        sc.w[fo(&sc, 2) + 700] ^= 0x10;
        CHECK(feed_fpdu(&sc, 2) == 0 && !sc.k.errors && sc.k.nev == 0);
        CHECK(feed_fpdu(&sc, 0) == 0 && !sc.k.errors);
        int rc = feed_fpdu(&sc, 1);
        if (!store) /* refused, offered again */
            CHECK(rc == 0 && !sc.k.errors && feed_fpdu(&sc, 2) == DW_ERR_PROTO);
        else
            CHECK(rc == DW_ERR_PROTO);
        CHECK(sc.k.errors == 1 && sc.k.err.code == DW_MPA_ERR_CRC &&
              sc.k.err.offset == fo(&sc, 2));
        static const int want[] = {1, -1, 2, -2};
        CHECK(events_are(&sc, want, 4) && !sc.k.bad);
        scen_close(&sc);
    }
    for (int crc_ok = 0; crc_ok < 2; crc_ok++) {
        scen_open(&sc, sizes, 4, 0, 65536, 1);
        CHECK(feed_fpdu(&sc, 0) == 0);
        uint64_t m = (fo(&sc, 1) + 511) / 512 * 512;
        sc.w[m + 3] ^= 4; /* FPDUPTR off by 4 */
        if (crc_ok)
            fix_crc(sc.w, fo(&sc, 1), fo(&sc, 2));
        CHECK(feed_fpdu(&sc, 1) == DW_ERR_PROTO);
        CHECK(sc.k.errors == 1 && sc.k.err.offset == fo(&sc, 1));
        CHECK_EQ_U(sc.k.err.code, crc_ok ? DW_MPA_ERR_MARKER : DW_MPA_ERR_CRC);
        static const int want[] = {1, -1};
        CHECK(events_are(&sc, want, 2));
        scen_close(&sc);
    }
}

/* max_pending 4: no more than 4 FPDUs placed ahead (the table of placed
 * FPDUs is full), the others held and taken in order; all delivered once,
 * in order, nothing lost. */
static void test_max_pending_full(void)
{
    size_t sizes[9] = {1430, 1430, 1430, 1430, 1430, 1430, 1430, 1430, 1430};
    scen sc;
    scen_open(&sc, sizes, 9, 7, 65536, 1);
    dw_mpa_seg_del(sc.r);
    dw_mpa_seg_settings rs;
    dw_mpa_seg_settings_default(&rs);
    rs.start_seq = 7;
    rs.max_pending = 4;
    CHECK(dw_mpa_seg_new(&sc.r, &rs, &cbs, &sc.k) == 0);
    for (size_t i = 8; i >= 1; i--)
        CHECK(feed_fpdu(&sc, i) == 0);
    dw_mpa_seg_stats x = stats(&sc);
    CHECK(x.placed == 4 && sc.k.early == 4 && sc.k.next == 0);
    CHECK(feed_fpdu(&sc, 0) == 0);
    CHECK(sc.k.next == 9 && !sc.k.bad && !sc.k.errors);
    CHECK(dw_mpa_seg_close(sc.r, DW_CLOSE_FIN) == 0);
    scen_close(&sc);
}

/* The store-full fallback: octets that do not fit are not committed (not
 * in the SACK blocks) and are taken in order later, without loss. */
static void test_store_full_fallback(void)
{
    size_t sizes[4] = {1430, 1430, 1430, 1430};
    for (int store = 0; store < 2; store++) {
        scen sc;
        scen_open(&sc, sizes, 4, 123, store ? 512 : 0, 1);
        CHECK(feed(&sc, 700, 2000) == 0);
        dw_mpa_seg_stats x = stats(&sc);
        CHECK(x.fallbacks == 1 && x.refused == 1300 && x.held == 0 && x.placed == 0);
        dw_mpa_seg_range sack[4];
        CHECK_EQ_U(dw_mpa_seg_sack(sc.r, sack, 4), 0);
        CHECK(feed(&sc, 700, 1000) == 0); /* 300 octets: fit in 512 */
        x = stats(&sc);
        CHECK_EQ_U(x.held, store ? 300 : 0);
        CHECK_EQ_U(dw_mpa_seg_sack(sc.r, sack, 4), store ? 1 : 0);
        if (store)
            CHECK(sack[0].seq == 123 + 700 && sack[0].len == 300);
        CHECK(feed(&sc, 0, 700) == 0); /* in order: no store needed */
        CHECK_EQ_U(dw_mpa_seg_ack(sc.r), 123 + (store ? 1000 : 700));
        CHECK(feed(&sc, 700, fo(&sc, 4)) == 0);
        CHECK(sc.k.next == 4 && !sc.k.bad && !sc.k.errors);
        x = stats(&sc);
        CHECK(x.held == 0 && x.store_used == 0 && x.store_peak <= 512);
        scen_close(&sc);
    }
}

/* MPA 7.1: sequence numbers wrap; markers are found and followed back
 * across the wrap (FPDUs reversed, and re-cut, around 2^32). */
static void test_seq_wrap(void)
{
    size_t sizes[8] = {1430, 1430, 1430, 1430, 1430, 1430, 1430, 1430};
    scen sc;
    scen_open(&sc, sizes, 8, 0xFFFFEA00u, 65536, 1);
    CHECK((uint32_t)(0xFFFFEA00u + fo(&sc, 4)) < 0x1000); /* wraps by FPDU 4 */
    for (size_t i = 8; i-- > 1;)
        CHECK(feed_fpdu(&sc, i) == 0);
    CHECK(stats(&sc).placed_early == 7);
    CHECK(feed_fpdu(&sc, 0) == 0);
    CHECK(sc.k.next == 8 && !sc.k.bad);
    CHECK_EQ_U(dw_mpa_seg_ack(sc.r), (uint32_t)(0xFFFFEA00u + fo(&sc, 8)));
    scen_close(&sc);
    /* cuts of 1000 octets fed last to first */
    scen_open(&sc, sizes, 8, 0xFFFFF800u, 65536, 1);
    uint64_t end = fo(&sc, 8);
    for (uint64_t a = (end - 1) / 1000 * 1000;; a -= 1000) {
        CHECK(feed(&sc, a, a + 1000 < end ? a + 1000 : end) == 0);
        if (!a)
            break;
    }
    CHECK(sc.k.next == 8 && !sc.k.bad && stats(&sc).placed_early > 0);
    scen_close(&sc);
}

/* MPA 5.1: duplicates and overlaps of committed octets are not taken again
 * (each ULPDU placed once), even when they differ. */
static void test_s51_duplicates_ignored(void)
{
    size_t sizes[5] = {1430, 100, 1430, 700, 1430};
    scen sc;
    scen_open(&sc, sizes, 5, 0, 65536, 1);
    uint64_t end = fo(&sc, 5);
    CHECK(feed_fpdu(&sc, 2) == 0);
    CHECK(feed_fpdu(&sc, 2) == 0);
    CHECK(feed(&sc, fo(&sc, 2) - 300, fo(&sc, 3) + 300) == 0);
    CHECK(feed(&sc, 500, 2000) == 0);
    memset(sc.w + 600, 0xee, 100); /* a differing duplicate of held octets */
    CHECK(feed(&sc, 500, 2000) == 0);
    CHECK(feed(&sc, 0, end) == 0);
    CHECK(feed(&sc, 0, end) == 0);
    CHECK(sc.k.next == 5 && !sc.k.bad && !sc.k.errors);
    dw_mpa_seg_stats x = stats(&sc);
    CHECK(x.placed == 5 && x.delivered == 5 && x.dup_octets >= end);
    scen_close(&sc);
}

/* Without markers nothing can be located out of order (MPA 7.4): octets
 * are held, then taken in order. */
static void test_no_markers(void)
{
    size_t sizes[5] = {1400, 1400, 1400, 1400, 1400};
    scen sc;
    scen_open(&sc, sizes, 5, 0, 65536, 0);
    for (size_t i = 5; i-- > 1;)
        CHECK(feed_fpdu(&sc, i) == 0);
    CHECK(sc.k.nev == 0 && stats(&sc).held == fo(&sc, 5) - fo(&sc, 1));
    CHECK(feed_fpdu(&sc, 0) == 0);
    CHECK(sc.k.next == 5 && !sc.k.bad && stats(&sc).placed_early == 0);
    scen_close(&sc);
}

/*
 * The in-order fast path (a segment at the in-order point, its FPDUs
 * judged one by one straight from it) is taken only when nothing is
 * pending: here exactly one kind of position is pending with nothing held
 * (store 0), and a whole in-order FPDU must still go the full way: an
 * FPDU placed early is delivered after it, a stale hint or anchor is
 * dropped (the close is clean).
 */
static void test_fast_path_only_when_nothing_pending(void)
{
    size_t sizes[3] = {600, 600, 600};
    for (int kind = 0; kind < 3; kind++) {
        scen sc;
        scen_open(&sc, sizes, 3, 7, 0, 1);
        dw_mpa_seg_range sack[2];
        if (kind == 0) { /* a hint at 100 (4-aligned, no marker inside) */
            CHECK(feed(&sc, 100, 200) == 0);
        } else if (kind == 1) { /* the marker at 512 names FPDU 0: an anchor */
            CHECK(feed(&sc, 510, 530) == 0);
        } else { /* FPDU 1 placed early; FPDU 2's CRC fails: not placed */
            CHECK(feed_fpdu(&sc, 1) == 0);
            sc.w[fo(&sc, 2) + 50] ^= 1;
            CHECK(feed_fpdu(&sc, 2) == 0);
            sc.w[fo(&sc, 2) + 50] ^= 1;
            CHECK(dw_mpa_seg_sack(sc.r, sack, 2) == 1 && sack[0].seq == 7 + fo(&sc, 1));
        }
        dw_mpa_seg_stats x = stats(&sc);
        CHECK(x.fallbacks == 1 && x.held == 0 && !x.hints_dropped && !sc.k.errors);
        CHECK(feed_fpdu(&sc, 0) == 0);
        static const int want0[] = {1, -1}, want2[] = {2, 1, -1, -2};
        CHECK(kind == 2 ? events_are(&sc, want2, 4) : events_are(&sc, want0, 2));
        CHECK(dw_mpa_seg_sack(sc.r, sack, 2) == 0);
        CHECK(dw_mpa_seg_close(sc.r, DW_CLOSE_FIN) == 0 && sc.k.err.clean);
        scen_close(&sc);
    }
}

static int reenter_rc;
static void reenter_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p,
                          void *u)
{
    (void)d, (void)p, (void)u;
    reenter_rc = dw_mpa_seg_feed(r, 0, "", 0);
    if (reenter_rc == DW_ERR_STATE)
        reenter_rc = dw_mpa_seg_close(r, DW_CLOSE_FIN);
}

static uint64_t stats_dup(const dw_mpa_seg *r)
{
    dw_mpa_seg_stats x;
    dw_mpa_seg_stats_get(r, &x);
    return x.dup_octets;
}

static void test_api(void)
{
    dw_mpa_seg_settings s;
    dw_mpa_seg_settings_default(&s);
    CHECK(s.markers == 1 && s.crc == 1 && s.store_bytes == 65536 &&
          s.max_pending == 1024 && s.max_segment == 65535 && s.window == 16u << 20);
    dw_mpa_seg *r;
    dw_mpa_seg_callbacks none = {NULL, NULL, NULL};
    CHECK(dw_mpa_seg_new(&r, NULL, &none, NULL) == DW_ERR_INVAL);
    CHECK(dw_mpa_seg_new(NULL, NULL, &cbs, NULL) == DW_ERR_INVAL);
    s.window = (1u << 30) + 1;
    CHECK(dw_mpa_seg_new(&r, &s, &cbs, NULL) == DW_ERR_INVAL);
    dw_mpa_seg_settings_default(&s);
    s.max_pending = 3;
    CHECK(dw_mpa_seg_new(&r, &s, &cbs, NULL) == DW_ERR_INVAL);
    dw_mpa_seg_del(NULL);
    s.max_pending = 4;
    s.max_segment = 100;
    chk k = {0};
    CHECK(dw_mpa_seg_new(&r, &s, &cbs, &k) == 0);
    static uint8_t buf[200];
    CHECK(dw_mpa_seg_feed(r, 0, NULL, 1) == DW_ERR_INVAL);
    CHECK(dw_mpa_seg_feed(r, 0, buf, 101) == DW_ERR_TOO_LONG);
    CHECK(dw_mpa_seg_feed(r, 0, buf, 0) == 0);
    CHECK(dw_mpa_seg_feed(r, 0xFFFFFF00u, buf, 100) == 0); /* before the start */
    CHECK(stats_dup(r) == 100);
    CHECK(dw_mpa_seg_close(r, DW_CLOSE_RST) == 0);
    CHECK(k.errors == 1 && k.err.code == DW_MPA_ERR_CLOSED && k.err.clean &&
          k.err.reason == DW_CLOSE_RST);
    CHECK(dw_mpa_seg_feed(r, 0, buf, 4) == DW_ERR_PROTO);
    CHECK(dw_mpa_seg_close(r, DW_CLOSE_FIN) == DW_ERR_PROTO);
    dw_mpa_seg_del(r);
    /* a callback may not feed or close its receiver */
    size_t sizes[1] = {10};
    scen sc;
    scen_open(&sc, sizes, 1, 0, 0, 1);
    dw_mpa_seg_del(sc.r);
    dw_mpa_seg_callbacks re = {reenter_place, NULL, NULL};
    CHECK(dw_mpa_seg_new(&sc.r, NULL, &re, NULL) == 0);
    CHECK(feed_fpdu(&sc, 0) == 0 && reenter_rc == DW_ERR_STATE);
    scen_close(&sc);
    scen_open(&sc, sizes, 1, 0, 0, 1); /* closed inside an FPDU: not clean */
    CHECK(feed(&sc, 0, 10) == 0 && dw_mpa_seg_close(sc.r, DW_CLOSE_FIN) == DW_ERR_PROTO);
    CHECK(sc.k.err.code == DW_MPA_ERR_CLOSED && !sc.k.err.clean && sc.k.err.offset == 0);
    scen_close(&sc);
}

int main(void)
{
    RUN(test_s51_aligned_placed_on_arrival);
    RUN(test_s74_marker_then_lengths);
    RUN(test_hint_confirmed_by_lengths);
    RUN(test_hint_alone_not_trusted);
    RUN(test_s9_gap_closes_on_disagreement);
    RUN(test_s9_marker_names_identified_fpdu);
    RUN(test_s9_bad_marker_in_bad_crc_fpdu_is_code_2);
    RUN(test_s9_marker_beyond_pending_fpdu_judged_in_turn);
    RUN(test_s9_length_runs_into_placed_fpdu);
    RUN(test_s9_codes_both_paths);
    RUN(test_max_pending_full);
    RUN(test_store_full_fallback);
    RUN(test_seq_wrap);
    RUN(test_s51_duplicates_ignored);
    RUN(test_no_markers);
    RUN(test_fast_path_only_when_nothing_pending);
    RUN(test_api);
    return dw_test_finish();
}
