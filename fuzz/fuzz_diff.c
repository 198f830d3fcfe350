/* SPDX-License-Identifier: MIT */
/*
 * Differential fuzz target: one generated MPA stream, four objects that
 * must agree on it. The sender (dw_mpa_tx) frames the records; the wire
 * is corrupted once; then it is read by the in-order receiver (dw_mpa_rx,
 * fed in chunks), the segment receiver (dw_mpa_seg, fed the TCP segments
 * in a shuffled order, some twice, then all again in order as a TCP
 * sender retransmits) and the stream checker (dw_mpa_check, fed the
 * segments in order, after a prefix of other octets, START_AT).
 *
 * Input: settings (12 octets), then record lengths (2 octets each, at
 * most 48 records and 8 KiB of ULPDU, each 1..2048); record octets come
 * from a generator seeded by the input.
 *   0: bit 0 markers, 1 CRC, 2 RFC 5044 FPDUPTR reading, 3 cut segments at
 *      FPDU boundaries, 4-6 corruption (0 none, 1 flip a bit, 2 set an
 *      octet, 3 cut the stream short, 4 delete an octet, 5 insert an
 *      octet, 6-7 none), 7 the segment receiver remembers 4 positions of
 *      each kind (max_pending; else 1024)
 *   1-4: start_seq (big-endian); 5-6: where the corruption is (mod the
 *      wire length); 7: its bit or octet; 8: seed; 9: the checker's
 *      prefix (x 4 octets), 10: segment size, 11: the segment receiver's
 *      store and shuffling
 *
 * "Agree" means, offsets counted from MPA position 0 (the checker's
 * minus its prefix):
 *  - rx: the records delivered, in order, then at most one error (code,
 *    offset of the FPDU it names) or a clean close.
 *  - seg: its on_deliver sequence (with the octets given to on_place at
 *    that offset) equals rx's records, and its error (code, offset)
 *    equals rx's, and is reported at its in-order point (an error found
 *    ahead waits for its turn, MPA 9). One exception, when seg placed
 *    FPDUs early: a corrupted ULPDU_Length that makes the in-order FPDU
 *    overlap one placed ahead is code 3 (marker/length disagreement) at
 *    once, since the placed octets are gone and its CRC cannot be
 *    checked, where rx, which never saw the later FPDU, says 2 (CRC) or
 *    1 (it runs past the end) for the same FPDU; without the CRC rx may
 *    take that FPDU and err later (or never): then seg's records are
 *    rx's up to that FPDU.
 *  - check: a receiver's verdict per FPDU record (CRC BAD: code 2, a bad
 *    marker in an FPDU whose CRC is good or off: 3, CRC MISSING at the
 *    end: 1; MPA 9's order) gives the same records (offset, length, the
 *    first 256 octets) and the same first error at the same offset. The
 *    checker goes on after errors (what comes after is not compared) and
 *    it reports a ULPDU_Length of 0 as lost framing (EV_LENGTH, at the
 *    length field: 4 octets after the FPDU's offset when a marker leads
 *    it) where a receiver frames an empty ULPDU: with the CRC on, the
 *    receivers then report code 2 there; with it off they deliver an
 *    empty record there (or report code 3 there, a marker in it
 *    disagreeing) and their later records are not compared with the
 *    checker's; cut off by the end of the stream, it is code 1 there.
 *    A ULPDU_Length of 64769..65535 (MPA 5.2 forbids it; siw sends it) is
 *    framed by all; when a marker inside that FPDU disagrees with it, the
 *    checker reports code 3 at once (EV_MARKER, and its error's offset
 *    is the length field's), while a receiver judges the FPDU at its end
 *    (CRC first: 2, else 3) or at the close (1): same FPDU, any of
 *    those codes. Known and not fixed: such an FPDU that the stream ends
 *    inside, with FPDUs found inside it, is given up by the checker as
 *    lost framing (SYNC_LOST) with no MPA error, where the receivers
 *    report code 1 at it; accepted here until the checker reports it.
 *  - With no corruption: all three deliver exactly the sender's records
 *    at the sender's offsets and close cleanly. Without the CRC a
 *    corrupted payload is delivered as it is, by all three alike.
 *  - The sender: both framing calls (iovecs, contiguous) give the same
 *    octets, and info.len, info.pos and markers add up.
 */
#include <ddpwire/mpa.h>
#include <ddpwire/mpa_check.h>
#include <ddpwire/mpa_seg.h>

#include "fuzz_flags.h"

#ifdef DIFF_DEBUG
#include <stdio.h>
#endif

#include <stdlib.h>
#include <string.h>

#define MAX_RECS 48
#define MAX_ULPDU 8192
#define WIRE_MAX (MAX_ULPDU + MAX_RECS * 12 + 64 * 4 + 16 + 1024)
#define OUT_MAX 8192 /* records any reader can report (tiny FPDUs, CRC off) */
#define NONE UINT64_MAX

typedef struct rec {
    uint64_t off, hash, headhash;
    uint32_t len;
} rec;

typedef struct outcome {
    rec r[OUT_MAX];
    size_t n;
    int code;         /* 0: none */
    uint64_t err_off; /* NONE */
} outcome;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void add(outcome *o, uint64_t off, const uint8_t *d, size_t len)
{
    if (o->n == OUT_MAX)
        abort();
    o->r[o->n++] = (rec){off, hash(d, len), hash(d, len < 256 ? len : 256), (uint32_t)len};
}

static void set_err(outcome *o, int code, uint64_t off)
{
    if (o->code) /* one error only (MPA 9) */
        abort();
    o->code = code, o->err_off = off;
}

static struct {
    uint8_t ulpdu[MAX_ULPDU];
    size_t rlen[MAX_RECS], nrec;
    uint8_t wire[WIRE_MAX], scratch[WIRE_MAX];
    size_t wlen;
    outcome sent, rx, seg, ck;
    size_t cut[WIRE_MAX / 1 + 2], ncut; /* segment boundaries */
    size_t order[WIRE_MAX + 2];
    uint32_t start_seq;
    uint64_t prefix;
    /* segment receiver: what on_place gave, by offset */
    rec placed[OUT_MAX];
    size_t nplaced;
    int seg_early;
} g;

/* ---- the sender ------------------------------------------------------ */

static void frame(const uint8_t *cfg)
{
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.start_seq = g.start_seq;
    ts.markers = cfg[0] & 1;
    ts.crc = cfg[0] >> 1 & 1;
    ts.ptr_base = cfg[0] & 4 ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
    dw_mpa_tx *a, *b;
    if (dw_mpa_tx_new(&a, &ts) || dw_mpa_tx_new(&b, &ts))
        abort();
    static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    size_t at = 0;
    g.wlen = 0;
    for (size_t i = 0; i < g.nrec; i++) {
        dw_mpa_fpdu_info ia, ib;
        const uint8_t *u = g.ulpdu + at;
        size_t pos = g.wlen;
        ssize_t n = dw_mpa_tx_frame(a, u, g.rlen[i], iov, DW_MPA_FPDU_IOV_MAX, &ia);
        ssize_t m = dw_mpa_tx_frame_into(b, u, g.rlen[i], g.scratch, sizeof g.scratch, &ib);
        if (n <= 0 || n != m || ia.len != (size_t)n || ia.pos != (uint32_t)pos ||
            ib.pos != ia.pos || ia.markers != ib.markers ||
            (size_t)n != dw_mpa_fpdu_len((uint32_t)pos, g.rlen[i], ts.markers) ||
            pos + (size_t)n > WIRE_MAX)
            abort();
        for (size_t k = 0; k < ia.iovcnt; k++) {
            memcpy(g.wire + g.wlen, iov[k].iov_base, iov[k].iov_len);
            g.wlen += iov[k].iov_len;
        }
        if (g.wlen != pos + (size_t)n || memcmp(g.wire + pos, g.scratch, (size_t)n))
            abort();
        add(&g.sent, pos, u, g.rlen[i]);
        at += g.rlen[i];
    }
    dw_mpa_tx_del(a);
    dw_mpa_tx_del(b);
}

/* One corruption; returns non-zero when there is one. */
static int corrupt(const uint8_t *cfg)
{
    int kind = cfg[0] >> 4 & 7;
    if (!g.wlen || !kind || kind > 5)
        return 0;
    size_t at = ((size_t)cfg[5] << 8 | cfg[6]) % g.wlen;
    switch (kind) {
    case 1:
        g.wire[at] ^= (uint8_t)(1u << (cfg[7] & 7));
        break;
    case 2:
        if (g.wire[at] == cfg[7])
            return 0;
        g.wire[at] = cfg[7];
        break;
    case 3:
        g.wlen = at;
        break;
    case 4:
        memmove(g.wire + at, g.wire + at + 1, g.wlen - at - 1);
        g.wlen--;
        break;
    case 5:
        memmove(g.wire + at + 1, g.wire + at, g.wlen - at);
        g.wire[at] = cfg[7];
        g.wlen++;
        break;
    }
    return 1;
}

/* TCP segments: of 1..max octets, or FPDU-aligned (cut at each FPDU
 * start, and within an FPDU every max octets). Segments of a few octets
 * in a window of 4 KiB at a seeded offset (the others up to 1460): both
 * kinds in one stream. (It was 1 KiB while the segment receiver walked
 * over every remembered hint and anchor for each segment: thousands of
 * tiny out-of-order segments made an execution quadratic.) */
static void cut(const uint8_t *cfg, uint64_t *seed)
{
    static const size_t sizes[] = {2, 7, 64, 200, 536, 1460, 4000, 9000};
    size_t max = sizes[cfg[10] & 7], wa = 0, wb = g.wlen;
    if (max < 64 && g.wlen > 4096) { /* tiny segments in a 4 KiB window */
        wa = (size_t)(rnd(seed) % g.wlen);
        wb = wa + 4096;
    }
    g.ncut = 0;
    g.cut[g.ncut++] = 0;
    size_t next_fpdu = 0, k = 0;
    for (size_t o = 0; o < g.wlen;) {
        size_t end = o + 1 + (size_t)(rnd(seed) % (o >= wa && o < wb ? max : 1460));
        if (o < wa && end > wa)
            end = wa;
        if (cfg[0] & 8) {
            while (k < g.sent.n && next_fpdu <= o)
                next_fpdu = g.sent.r[k++].off;
            end = o + max;
            if (next_fpdu > o && next_fpdu < end)
                end = next_fpdu;
        }
        o = end > g.wlen ? g.wlen : end;
        g.cut[g.ncut++] = o;
    }
}

/* ---- the in-order receiver ------------------------------------------- */

static int rx_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    (void)rx, (void)u;
    add(&g.rx, off, d, len);
    return 0;
}

static void rx_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    (void)rx, (void)u;
    if (e->seq != (uint32_t)(g.start_seq + e->offset))
        abort();
    if (e->code == DW_MPA_ERR_CLOSED && e->clean)
        return; /* a clean close is no error */
    set_err(&g.rx, e->code, e->offset);
}

static void run_rx(const uint8_t *cfg, uint64_t seed)
{
    dw_mpa_rx_settings s;
    dw_mpa_rx_settings_default(&s);
    s.start_seq = g.start_seq;
    s.markers = cfg[0] & 1;
    s.crc = cfg[0] >> 1 & 1;
    dw_mpa_rx_callbacks cb = {rx_ulpdu, rx_error, NULL};
    dw_mpa_rx *rx;
    if (dw_mpa_rx_new(&rx, &s, &cb, NULL))
        abort();
    size_t max = 1 + (size_t)(seed % 2000);
    for (size_t o = 0; o < g.wlen;) {
        size_t n = 1 + (size_t)(rnd(&seed) % max);
        n = n > g.wlen - o ? g.wlen - o : n;
        ssize_t f = dw_mpa_rx_feed(rx, g.wire + o, n);
        if (f == DW_ERR_PROTO && g.rx.code)
            break;
        if (f != (ssize_t)n)
            abort();
        o += n;
    }
    int rc = dw_mpa_rx_close(rx, DW_MPA_CLOSE_FIN);
    if ((rc == 0) != (g.rx.code == 0))
        abort();
    dw_mpa_rx_del(rx);
}

/* ---- the segment receiver -------------------------------------------- */

static void seg_place(dw_mpa_seg *r, const uint8_t *d, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r, (void)u;
    if (g.nplaced == OUT_MAX || p->seq != (uint32_t)(g.start_seq + p->offset))
        abort();
    g.placed[g.nplaced++] = (rec){p->offset, hash(d, p->len), 0, p->len};
    g.seg_early |= p->early;
}

static void seg_deliver(dw_mpa_seg *r, const dw_mpa_seg_pdu *p, void *u)
{
    (void)r, (void)u;
    for (size_t i = 0; i < g.nplaced; i++)
        if (g.placed[i].off == p->offset) {
            if (g.placed[i].len != p->len || g.seg.n == OUT_MAX)
                abort();
            g.seg.r[g.seg.n++] = g.placed[i];
            return;
        }
    abort(); /* delivered, never placed */
}

static void seg_error(dw_mpa_seg *r, const dw_mpa_rx_error *e, void *u)
{
    (void)u;
    if (e->code == DW_MPA_ERR_CLOSED && e->clean)
        return;
    set_err(&g.seg, e->code, e->offset);
    if (dw_mpa_seg_offset(r) != e->offset) /* at its in-order point */
        abort();
}

static void seg_feed(dw_mpa_seg *r, size_t i)
{
    size_t a = g.cut[i], b = g.cut[i + 1];
    int rc = dw_mpa_seg_feed(r, (uint32_t)(g.start_seq + a), g.wire + a, b - a);
    if (rc && !(rc == DW_ERR_PROTO && g.seg.code))
        abort();
}

static void run_seg(const uint8_t *cfg, uint64_t seed)
{
    static const size_t stores[] = {65536, 0, 512, 4096};
    dw_mpa_seg_settings s;
    dw_mpa_seg_settings_default(&s);
    s.start_seq = g.start_seq;
    s.markers = cfg[0] & 1;
    s.crc = cfg[0] >> 1 & 1;
    s.store_bytes = stores[cfg[11] & 3];
    s.max_pending = cfg[0] & 0x80 ? 4 : 1024;
    s.max_segment = 65535;
    dw_mpa_seg_callbacks cb = {seg_place, seg_deliver, seg_error};
    dw_mpa_seg *r;
    if (dw_mpa_seg_new(&r, &s, &cb, NULL))
        abort();
    size_t n = g.ncut - 1, window = cfg[11] >> 2 & 15;
    for (size_t i = 0; i < n; i++)
        g.order[i] = i;
    for (size_t i = 0; window && i + 1 < n; i++) { /* local shuffling */
        size_t j = i + (size_t)(rnd(&seed) % (window + 1));
        j = j < n ? j : n - 1;
        size_t t = g.order[i];
        g.order[i] = g.order[j], g.order[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        seg_feed(r, g.order[i]);
        if (cfg[11] & 0x40 && rnd(&seed) % 8 == 0)
            seg_feed(r, g.order[i]); /* a duplicate */
    }
    for (size_t i = 0; i < n; i++) /* what was not acknowledged, again */
        seg_feed(r, i);
    int rc = dw_mpa_seg_close(r, DW_MPA_CLOSE_FIN);
    if ((rc == 0) != (g.seg.code == 0))
        abort();
    dw_mpa_seg_del(r);
}

/* ---- the checker ----------------------------------------------------- */

static int ck_lost; /* framing lost before any error: later records not compared */
static uint64_t ck_over; /* an FPDU above 64768 begun here (its length field), not ended */
static int ck_over_err;  /* the checker's first error: a marker inside it disagreed */
static int ck_over_lost; /* ... or it was given up at the end, no error (known) */

static void ck_fpdu(dw_mpa_check *c, const dw_mpa_check_fpdu *f, void *u)
{
    (void)c, (void)u;
    if (g.ck.code || ck_lost)
        return;
    uint64_t off = f->offset - g.prefix;
    ck_over = NONE;
    if (f->crc == DW_MPA_CHECK_CRC_BAD)
        set_err(&g.ck, DW_MPA_ERR_CRC, off);
    else if (f->crc == DW_MPA_CHECK_CRC_MISSING)
        set_err(&g.ck, DW_MPA_ERR_CLOSED, off);
    else if (f->bad_markers)
        set_err(&g.ck, DW_MPA_ERR_MARKER, off);
    else if (g.ck.n == OUT_MAX)
        abort();
    else
        g.ck.r[g.ck.n++] = (rec){off, 0, hash(f->head, f->head_len), f->ulpdu_len};
}

static void ck_event(dw_mpa_check *c, const dw_mpa_check_event *ev, void *u)
{
    (void)c, (void)u;
#ifdef DIFF_DEBUG
    fprintf(stderr, "check event %s code %d at %lld: %s\n", dw_mpa_check_event_name(ev->kind),
            (int)ev->code, (long long)(ev->offset - g.prefix), ev->detail);
#endif
    if (ev->kind == DW_MPA_CHECK_EV_START && ev->offset != g.prefix)
        abort();
    if (ev->kind == DW_MPA_CHECK_EV_NO_START && !g.wlen)
        return; /* cut before MPA's first octet: the start never seen */
    if (ev->kind == DW_MPA_CHECK_EV_STARTUP || ev->kind == DW_MPA_CHECK_EV_STARTUP_BAD ||
        ev->kind == DW_MPA_CHECK_EV_NO_START || ev->kind == DW_MPA_CHECK_EV_GAP ||
        ev->kind == DW_MPA_CHECK_EV_MODE)
        abort(); /* none of these can happen here */
    if (ev->kind == DW_MPA_CHECK_EV_OVERSIZE)
        ck_over = ev->offset - g.prefix;
    if (ev->kind == DW_MPA_CHECK_EV_MARKER && ev->code == DW_MPA_ERR_MARKER && ck_over != NONE &&
        !g.ck.code && !ck_lost) {
        set_err(&g.ck, DW_MPA_ERR_MARKER, ck_over);
        ck_over_err = 1;
    }
    if (ev->kind == DW_MPA_CHECK_EV_SYNC_LOST && ck_over != NONE && !g.ck.code && !ck_lost &&
        !ck_over_err) {
        ck_lost = ck_over_lost = 1;
        g.ck.err_off = ck_over;
    }
    if (ev->kind == DW_MPA_CHECK_EV_LENGTH && !g.ck.code && !ck_lost) {
        ck_lost = 1;
        g.ck.err_off = ev->offset - g.prefix; /* code stays 0: see the top */
    }
}

static void run_check(const uint8_t *cfg, uint64_t seed)
{
    dw_mpa_check_settings s;
    dw_mpa_check_settings_default(&s);
    s.start = DW_MPA_CHECK_START_AT;
    s.start_offset = g.prefix;
    s.markers = cfg[0] & 1;
    s.crc = cfg[0] >> 1 & 1;
    s.head_len = 256;
    dw_mpa_check_callbacks cb = {ck_fpdu, NULL, ck_event};
    dw_mpa_check *c;
    ck_lost = ck_over_err = ck_over_lost = 0;
    ck_over = NONE;
    if (dw_mpa_check_new(&c, &s, &cb, NULL))
        abort();
    uint64_t pkt = 1;
    uint32_t seq0 = g.start_seq - (uint32_t)g.prefix;
    for (uint64_t o = 0; o < g.prefix; o++) { /* other octets before MPA */
        uint8_t b = (uint8_t)rnd(&seed);
        dw_reasm_chunk ch = {o, seq0 + (uint32_t)o, pkt, seq0, (uint32_t)g.prefix, o == 0,
                             o + 1 == g.prefix};
        if (dw_mpa_check_data(c, &b, 1, &ch))
            abort();
    }
    for (size_t i = 0; i + 1 < g.ncut; i++) {
        size_t a = g.cut[i], b = g.cut[i + 1];
        dw_reasm_chunk ch = {g.prefix + a, g.start_seq + (uint32_t)a, ++pkt,
                             g.start_seq + (uint32_t)a, (uint32_t)(b - a), 1, 1};
        if (dw_mpa_check_data(c, g.wire + a, b - a, &ch))
            abort();
    }
    if (dw_mpa_check_end(c))
        abort();
    dw_mpa_check_del(c);
}

/* ---- agreement ------------------------------------------------------- */

#ifdef DIFF_DEBUG /* cc -DDIFF_DEBUG: what each reader said */
static void show(const char *who, const outcome *o)
{
    fprintf(stderr, "%s: %zu records, code %d at %lld:", who, o->n, o->code,
            (long long)o->err_off);
    for (size_t i = 0; i < o->n && i < 40; i++)
        fprintf(stderr, " %llu+%u", (unsigned long long)o->r[i].off, o->r[i].len);
    fprintf(stderr, "\n");
}
#define abort()                                                                  \
    (show("sent", &g.sent), show("rx", &g.rx), show("seg", &g.seg),                 \
     show("check", &g.ck),                                                         \
     fprintf(stderr, "line %d wlen %zu early %d lost %d\n", __LINE__, g.wlen,    \
             g.seg_early, ck_lost),                                                \
     abort())
#endif

static int same_recs(const outcome *a, const outcome *b, int full)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->r[i].off != b->r[i].off || a->r[i].len != b->r[i].len ||
            (full ? a->r[i].hash != b->r[i].hash : a->r[i].headhash != b->r[i].headhash))
            return 0;
    return 1;
}

/* The checker's EV_LENGTH names the ULPDU_Length field: the FPDU's
 * offset, 4 octets on when the FPDU begins with a marker. */
static int at_length(uint64_t fpdu_off, int markers)
{
    return g.ck.err_off == fpdu_off ||
           (markers && fpdu_off % DW_MPA_MARKER_INTERVAL == 0 && g.ck.err_off == fpdu_off + 4);
}

static void agree(int corrupted, int crc, int markers)
{
    /* seg and rx: the same records and error; the exception at the top
     * (a length over an FPDU placed early: code 3 there) */
    int overlap = g.seg_early && g.seg.code == DW_MPA_ERR_MARKER;
    int rx_took = overlap && !crc && (g.rx.code ? g.rx.err_off : NONE) > g.seg.err_off;
    if (rx_took ? g.seg.n > g.rx.n || (g.seg.n < g.rx.n && g.rx.r[g.seg.n].off != g.seg.err_off)
                : g.seg.n != g.rx.n)
        abort();
    for (size_t i = 0; i < g.seg.n; i++)
        if (g.seg.r[i].off != g.rx.r[i].off || g.seg.r[i].hash != g.rx.r[i].hash)
            abort();
    if (!rx_took && (g.rx.err_off != g.seg.err_off || (g.rx.code != g.seg.code && !overlap)))
        abort();
    /* check and rx */
    if (ck_over_lost) { /* known: see the top */
        if (!same_recs(&g.rx, &g.ck, 0) || !g.rx.code || !at_length(g.rx.err_off, markers))
            abort();
    } else if (ck_lost) { /* ULPDU_Length 0 at err_off */
        if (g.ck.n > g.rx.n)
            abort();
        outcome *t = &g.ck;
        size_t n = t->n;
        for (size_t i = 0; i < n; i++)
            if (t->r[i].off != g.rx.r[i].off || t->r[i].headhash != g.rx.r[i].headhash)
                abort();
        int empty = g.rx.n > n && at_length(g.rx.r[n].off, markers) && !g.rx.r[n].len;
        int there = g.rx.n == n && at_length(g.rx.err_off, markers);
        int cut_off = there && g.rx.code == DW_MPA_ERR_CLOSED;
        int marker3 = there && g.rx.code == DW_MPA_ERR_MARKER; /* a marker in it */
        if (crc ? !cut_off && (!there || g.rx.code != DW_MPA_ERR_CRC)
                : !empty && !marker3 && !cut_off)
            abort();
    } else if (ck_over_err) { /* at the FPDU above 64768: rx says 1, 2 or 3 there */
        if (!same_recs(&g.rx, &g.ck, 0) || !g.rx.code || !at_length(g.rx.err_off, markers))
            abort();
    } else if (!same_recs(&g.rx, &g.ck, 0) || g.rx.code != g.ck.code ||
               g.rx.err_off != g.ck.err_off) {
        abort();
    }
    if (!corrupted && (g.rx.code || !same_recs(&g.rx, &g.sent, 1)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 12)
        return 0;
    const uint8_t *cfg = data;
    g.rx.n = g.seg.n = g.ck.n = g.sent.n = g.nplaced = 0;
    g.rx.code = g.seg.code = g.ck.code = 0;
    g.rx.err_off = g.seg.err_off = g.ck.err_off = NONE;
    g.seg_early = 0;
    g.start_seq = (uint32_t)cfg[1] << 24 | (uint32_t)cfg[2] << 16 | (uint32_t)cfg[3] << 8 | cfg[4];
    g.prefix = (uint64_t)cfg[9] * 4;
    uint64_t seed = (uint64_t)cfg[8] << 32 | size | 1;
    size_t total = 0;
    g.nrec = 0;
    for (size_t i = 12; i + 1 < size && g.nrec < MAX_RECS; i += 2) {
        size_t len = 1 + (((size_t)data[i] << 8 | data[i + 1]) % 2048);
        if (total + len > MAX_ULPDU)
            break;
        g.rlen[g.nrec++] = len;
        total += len;
    }
    if (!g.nrec)
        return 0;
    for (size_t i = 0; i < total; i++)
        g.ulpdu[i] = (uint8_t)(rnd(&seed) >> 11);
    frame(cfg);
    int corrupted = corrupt(cfg);
    cut(cfg, &seed);
    run_rx(cfg, seed);
    run_seg(cfg, seed);
    run_check(cfg, seed);
    agree(corrupted, cfg[0] >> 1 & 1, cfg[0] & 1);
    return 0;
}
