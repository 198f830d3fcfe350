/* SPDX-License-Identifier: MIT */
/*
 * The sans-I/O connection (conn.h) fed under every segmentation: byte at a
 * time, small and large random chunks, whole. Two connections talk through
 * memory: both start-up forms (immediate; RFC 5044 and RFC 6581 enhanced),
 * both framings (MPA with and without markers and CRC; IFT), both
 * directions; and bad start-ups (wrong key, rejected, marker mismatch,
 * framing mismatch) give their DW_ERR_* and deliver nothing afterwards.
 */
#include <ddpwire/conn.h>

#include "failing_mem.h"
#include "test.h"

#define NREC 40
#define STREAM_MAX (1u << 20)

static uint64_t seed;

typedef struct side {
    dw_conn *c;
    uint8_t *got;         /* records delivered, back to back */
    size_t got_len;
    size_t nrec, lens[256];
    size_t hlens[256];
    int errors, err_code;
    int stop_every;       /* on_pdu returns non-zero every Nth record */
    int pieces;           /* records through dw_conn_set_iov_fn */
    size_t multi;         /* records that came in more than one piece */
} side;

static int on_pdu(dw_conn *c, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    side *s = u;
    (void)c, (void)off;
    if (hlen)
        memcpy(s->got + s->got_len, hdr, hlen);
    memcpy(s->got + s->got_len + hlen, d, len);
    s->got_len += hlen + len;
    if (s->nrec < 256)
        s->hlens[s->nrec] = hlen, s->lens[s->nrec] = len;
    s->nrec++;
    return s->stop_every && s->nrec % (size_t)s->stop_every == 0;
}

/* The same record in pieces: gathered where on_pdu would have copied it,
 * so a piece that took in a marker's octets shows as a mismatch. */
static int on_pieces(dw_conn *c, const struct iovec *iov, int iovcnt, size_t len,
                     uint64_t off, void *u)
{
    side *s = u;
    (void)c, (void)off;
    size_t sum = 0;
    CHECK(iovcnt >= 1 && iovcnt <= DW_MPA_ULPDU_IOV_MAX);
    for (int i = 0; i < iovcnt; i++) {
        CHECK(iov[i].iov_len > 0);
        memcpy(s->got + s->got_len + sum, iov[i].iov_base, iov[i].iov_len);
        sum += iov[i].iov_len;
    }
    CHECK(sum == len);
    s->got_len += len;
    s->multi += iovcnt > 1;
    if (s->nrec < 256)
        s->hlens[s->nrec] = 0, s->lens[s->nrec] = len;
    s->nrec++;
    return s->stop_every && s->nrec % (size_t)s->stop_every == 0;
}

static void on_error(dw_conn *c, const dw_fr_error *e, void *u)
{
    side *s = u;
    (void)c;
    s->errors++;
    s->err_code = e->code;
}

static const dw_conn_callbacks cbs = {on_pdu, on_error, NULL};

static int side_new(side *s, const dw_conn_settings *st)
{
    memset(s, 0, sizeof *s);
    s->got = malloc(STREAM_MAX);
    return dw_conn_new(&s->c, st, &cbs, s);
}

/* Both sides deliver through pieces from now on (before a negotiated
 * start-up: the receiver is made later and must get it too); every 7th
 * record stops dw_conn_recv, which must resume after it. */
static void use_pieces(side *s, const dw_conn_settings *st)
{
    int rc = dw_conn_set_iov_fn(s->c, on_pieces);
    CHECK(rc == (st->framing == DW_FRAMING_MPA ? 0 : DW_ERR_UNSUPPORTED));
    s->pieces = rc == 0;
    s->stop_every = 7;
}

static void side_del(side *s)
{
    dw_conn_del(s->c);
    free(s->got);
}

/* Segmentations: 0 whole, 1 byte at a time, 2 chunks of 1..97, 3 of 1..5000. */
#define NSEG 4
static size_t chunk(int seg, size_t left)
{
    size_t n = seg == 0   ? left
               : seg == 1 ? 1
               : seg == 2 ? 1 + dw_rand(&seed) % 97
                          : 1 + dw_rand(&seed) % 5000;
    return n < left ? n : left;
}

/* Feeds p[0..n) in chunks, each chunk again from where the connection
 * stopped. Returns 0 or the first error. */
static ssize_t feed(side *s, const uint8_t *p, size_t n, int seg)
{
    size_t at = 0;
    while (at < n) {
        size_t k = chunk(seg, n - at), used = 0;
        while (used < k) {
            ssize_t r = dw_conn_recv(s->c, p + at + used, k - used);
            if (r < 0)
                return r;
            if (r == 0)
                return DW_ERR_STATE; /* no progress: a bug */
            used += (size_t)r;
        }
        at += k;
    }
    return 0;
}

/* Appends what the connection must send first (start-up frames). */
static void take_pending(side *s, uint8_t *out, size_t *len)
{
    const uint8_t *p;
    size_t n = dw_conn_send_pending(s->c, &p);
    if (n)
        memcpy(out + *len, p, n);
    *len += n;
    dw_conn_send_consume(s->c, n);
}

/* Frames NREC records of random sizes (IFT: some with a header) from src,
 * flattening the iovecs into out; returns the payload octets used. */
static size_t frame_records(side *s, const uint8_t *src, uint8_t *out, size_t *len,
                            int ift)
{
    size_t used = 0;
    for (int i = 0; i < NREC; i++) {
        size_t max = dw_conn_max_pdu(s->c), hl = ift && i % 3 == 0 ? 14 : 0;
        size_t pl = 1 + dw_rand(&seed) % (i % 5 == 0 ? max - hl : 600);
        struct iovec iov[DW_FR_FRAME_IOV_MAX];
        dw_fr_frame_info fi;
        ssize_t f = dw_conn_writev_iov(s->c, hl ? src + used : NULL, hl, src + used + hl, pl,
                                       iov, DW_FR_FRAME_IOV_MAX, &fi);
        CHECK(f > 0);
        if (f <= 0)
            break;
        for (size_t v = 0; v < fi.iovcnt; v++) {
            memcpy(out + *len, iov[v].iov_base, iov[v].iov_len);
            *len += iov[v].iov_len;
        }
        used += hl + pl;
    }
    return used;
}

typedef struct cfg {
    const char *name;
    dw_framing framing;
    dw_conn_startup startup;
    int markers, crc;
    uint8_t rev;
} cfg;

static void settings(const cfg *k, int initiator, dw_conn_settings *st)
{
    dw_conn_settings_default(st);
    st->framing = k->framing;
    st->startup = k->startup;
    st->markers = k->markers;
    st->crc = k->crc;
    st->rev = k->rev;
    st->initiator = initiator;
}

/* One conversation: start-up, then records both ways, all fed in chunks. */
static void talk(const cfg *k, int seg, const uint8_t *src, int pieces)
{
    dw_conn_settings si, sr;
    side I, R;
    settings(k, 1, &si);
    settings(k, 0, &sr);
    si.ird = 4, si.ord = 2, sr.ird = 3, sr.ord = 8;
    CHECK(side_new(&I, &si) == 0 && side_new(&R, &sr) == 0);
    if (pieces)
        use_pieces(&I, &si), use_pieces(&R, &sr);
    int ift = k->framing == DW_FRAMING_IFT;
    uint8_t *wire = malloc(STREAM_MAX);
    size_t n = 0;
    /* initiator -> responder: the request alone (no FPDU before the reply) */
    take_pending(&I, wire, &n);
    CHECK((n != 0) == (k->startup == DW_CONN_NEGOTIATE));
    if (k->startup == DW_CONN_NEGOTIATE) { /* no FPDU before the reply */
        struct iovec v[DW_FR_FRAME_IOV_MAX];
        CHECK(dw_conn_writev_iov(I.c, NULL, 0, src, 1, v, DW_FR_FRAME_IOV_MAX, NULL) ==
              DW_ERR_STATE);
    }
    CHECK(feed(&R, wire, n, seg) == 0);
    CHECK(dw_conn_ready(R.c));
    /* responder -> initiator: the reply and records in one stream */
    n = 0;
    take_pending(&R, wire, &n);
    size_t rlen = frame_records(&R, src, wire, &n, ift);
    CHECK(feed(&I, wire, n, seg) == 0);
    CHECK(dw_conn_ready(I.c));
    CHECK_EQ_U(I.nrec, NREC);
    CHECK(I.got_len == rlen && memcmp(I.got, src, rlen) == 0);
    /* initiator -> responder: records */
    n = 0;
    size_t ilen = frame_records(&I, src + 7, wire, &n, ift);
    CHECK(feed(&R, wire, n, seg) == 0);
    CHECK_EQ_U(R.nrec, NREC);
    CHECK(R.got_len == ilen && memcmp(R.got, src + 7, ilen) == 0);
    CHECK(!I.errors && !R.errors);
    if (pieces && k->markers && !ift && seg == 0) /* whole: records span markers */
        CHECK(I.multi > 0 && R.multi > 0);
    if (!pieces || ift)
        CHECK(I.multi == 0 && R.multi == 0);
    if (ift)
        CHECK(R.hlens[0] == 14 && R.hlens[1] == 0);
    dw_conn_info ii, ri;
    dw_conn_get_info(I.c, &ii);
    dw_conn_get_info(R.c, &ri);
    int mk = k->markers && !ift;
    CHECK(ii.tx_markers == mk && ii.rx_markers == mk && ri.tx_markers == mk);
    CHECK(ii.crc == k->crc && ri.crc == k->crc);
    if (k->startup == DW_CONN_NEGOTIATE && k->rev == 2) { /* RFC 6581 */
        CHECK(ri.enhanced && ii.enhanced && ri.rev == 2);
        CHECK(ri.ird == 2 && ri.ord == 4); /* min(3, peer ORD 2), min(8, peer IRD 4) */
    }
    dw_conn_stats st;
    dw_conn_stats_get(R.c, &st);
    CHECK(st.records_in == NREC && st.records_out == NREC);
    CHECK(dw_conn_recv_end(R.c, DW_MPA_CLOSE_FIN) == DW_ERR_CLOSED); /* at a boundary */
    CHECK(dw_conn_recv(R.c, wire, 1) == DW_ERR_CLOSED);
    free(wire);
    side_del(&I);
    side_del(&R);
}

static const cfg cfgs[] = {
    {"mpa immediate markers crc", DW_FRAMING_MPA, DW_CONN_IMMEDIATE, 1, 1, 1},
    {"mpa immediate plain", DW_FRAMING_MPA, DW_CONN_IMMEDIATE, 0, 0, 1},
    {"mpa immediate crc", DW_FRAMING_MPA, DW_CONN_IMMEDIATE, 0, 1, 1},
    {"mpa negotiate markers crc", DW_FRAMING_MPA, DW_CONN_NEGOTIATE, 1, 1, 1},
    {"mpa negotiate plain", DW_FRAMING_MPA, DW_CONN_NEGOTIATE, 0, 0, 1},
    {"mpa enhanced markers crc", DW_FRAMING_MPA, DW_CONN_NEGOTIATE, 1, 1, 2},
    {"mpa enhanced crc", DW_FRAMING_MPA, DW_CONN_NEGOTIATE, 0, 1, 2},
    {"ift crc", DW_FRAMING_IFT, DW_CONN_IMMEDIATE, 0, 1, 1},
    {"ift no crc", DW_FRAMING_IFT, DW_CONN_IMMEDIATE, 0, 0, 1},
};

static void test_every_form_every_segmentation(void)
{
    uint8_t *src = malloc(STREAM_MAX);
    for (size_t i = 0; i < STREAM_MAX; i++)
        src[i] = (uint8_t)dw_rand(&seed);
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++)
        for (int seg = 0; seg < NSEG; seg++) {
            unsigned long f0 = dw_t_fail;
            for (int pieces = 0; pieces < 2; pieces++) {
                talk(&cfgs[k], seg, src, pieces);
                if (dw_t_fail != f0)
                    fprintf(stderr, "  case: %s, segmentation %d%s\n", cfgs[k].name, seg,
                            pieces ? ", pieces" : "");
            }
        }
    free(src);
}

/* Feeds p to a connection byte by byte (seg 1) or whole (seg 0): the error
 * it ends with, and then nothing more is delivered. */
static ssize_t bad_feed(side *s, const uint8_t *p, size_t n, int seg)
{
    ssize_t r = feed(s, p, n, seg);
    size_t before = s->nrec;
    uint8_t zeros[64] = {0};
    CHECK(r < 0 && dw_conn_recv(s->c, zeros, sizeof zeros) == r);
    CHECK(dw_conn_failed(s->c) == r);
    CHECK(s->nrec == before);
    return r;
}

/* RFC 5044 7.1: a responder refuses anything but a request at its first
 * wrong octet; an initiator anything but a reply (MPA 8.1 enablement). */
static void test_s71_wrong_key_is_enablement_error(void)
{
    static const char *bad[] = {"MPA ID Rep Frame", "GET / HTTP/1.1\r\n\r\n",
                                "MPA ID Req Framf"};
    dw_conn_settings st;
    settings(&cfgs[3], 0, &st);
    for (int seg = 0; seg < 2; seg++)
        for (size_t i = 0; i < 3; i++) {
            side R;
            CHECK(side_new(&R, &st) == 0);
            uint8_t buf[40] = {0};
            memcpy(buf, bad[i], strlen(bad[i]));
            CHECK(bad_feed(&R, buf, sizeof buf, seg) == DW_ERR_ENABLEMENT);
            CHECK(!dw_conn_ready(R.c));
            const uint8_t *p;
            CHECK(dw_conn_send_pending(R.c, &p) == 0); /* no reply to a stranger */
            side_del(&R);
        }
    settings(&cfgs[3], 1, &st);
    side I;
    CHECK(side_new(&I, &st) == 0);
    uint8_t req[64];
    size_t n = 0;
    take_pending(&I, req, &n); /* a request back at an initiator */
    CHECK(bad_feed(&I, req, n, 1) == DW_ERR_ENABLEMENT);
    side_del(&I);
}

/* RFC 5044 7.1: a responder that will not send markers rejects (R set);
 * the initiator sees DW_ERR_REJECTED with the reason. */
static void test_s71_rejected_both_sides(void)
{
    for (int seg = 0; seg < NSEG; seg++) {
        dw_conn_settings si, sr;
        settings(&cfgs[3], 1, &si);
        settings(&cfgs[3], 0, &sr);
        sr.allow_markers = 0;
        side I, R;
        CHECK(side_new(&I, &si) == 0 && side_new(&R, &sr) == 0);
        uint8_t w[600];
        size_t n = 0;
        take_pending(&I, w, &n);
        CHECK(bad_feed(&R, w, n, seg) == DW_ERR_REJECTED);
        dw_conn_info ri;
        dw_conn_get_info(R.c, &ri);
        CHECK(ri.reason == DW_MPA_NEGO_MARKERS);
        n = 0;
        take_pending(&R, w, &n); /* the reply with R set still goes out */
        CHECK(n >= DW_MPA_STARTUP_HDR_LEN && (w[16] & DW_MPA_FLAG_REJECT));
        uint8_t after[16] = {0}; /* octets after the reply change nothing */
        memcpy(w + n, after, sizeof after);
        CHECK(bad_feed(&I, w, n + sizeof after, seg) == DW_ERR_REJECTED);
        dw_conn_info ii;
        dw_conn_get_info(I.c, &ii);
        CHECK(ii.reason == DW_MPA_NEGO_PEER_REJECTED && !dw_conn_ready(I.c));
        CHECK(I.nrec == 0);
        side_del(&I);
        side_del(&R);
    }
}

/* Frames one record from a connection of settings st into w. */
static size_t one_record(const dw_conn_settings *st, uint8_t *w)
{
    side s;
    CHECK(side_new(&s, st) == 0);
    size_t n = 0;
    static const uint8_t rec[100] = {1, 2, 3};
    struct iovec iov[DW_FR_FRAME_IOV_MAX];
    dw_fr_frame_info fi;
    CHECK(dw_conn_writev_iov(s.c, NULL, 0, rec, sizeof rec, iov, DW_FR_FRAME_IOV_MAX, &fi) > 0);
    for (size_t v = 0; v < fi.iovcnt; v++, n += iov[v - 1].iov_len)
        memcpy(w + n, iov[v].iov_base, iov[v].iov_len);
    side_del(&s);
    return n;
}

/* MPA 8.1: in immediate mode with markers the first octets are a zero
 * marker; a peer without markers (or not MPA) is an enablement error, and
 * a marker where a receiver without markers expects a length reads as an
 * empty first record: the same. IFT's first frame judged as IFT's. */
static void test_s81_marker_and_framing_mismatch(void)
{
    static const struct { int tx_mk, rx_mk, crc; dw_framing tx, rx; } m[] = {
        {0, 1, 1, DW_FRAMING_MPA, DW_FRAMING_MPA}, /* no first marker */
        {1, 0, 0, DW_FRAMING_MPA, DW_FRAMING_MPA}, /* a marker read as length 0 */
        {0, 0, 1, DW_FRAMING_MPA, DW_FRAMING_IFT}, /* MPA at an IFT receiver */
        {0, 1, 1, DW_FRAMING_IFT, DW_FRAMING_MPA}, /* IFT at an MPA receiver */
    };
    for (int seg = 0; seg < 2; seg++)
        for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
            dw_conn_settings st;
            cfg k = {"", m[i].tx, DW_CONN_IMMEDIATE, m[i].tx_mk, m[i].crc, 1};
            settings(&k, 1, &st);
            uint8_t w[400];
            size_t n = one_record(&st, w);
            k.framing = m[i].rx, k.markers = m[i].rx_mk;
            settings(&k, 0, &st);
            side R;
            CHECK(side_new(&R, &st) == 0);
            ssize_t r = bad_feed(&R, w, n, seg);
            CHECK(r == DW_ERR_ENABLEMENT);
            if (r != DW_ERR_ENABLEMENT)
                fprintf(stderr, "  case %zu seg %d: %zd\n", i, seg, r);
            CHECK(R.nrec == 0);
            side_del(&R);
        }
}

/* A corrupted FPDU after good ones: DW_ERR_PROTO with MPA error 2 reported
 * once; the good ones delivered, nothing after. */
static void test_crc_error_then_nothing(void)
{
    dw_conn_settings st;
    settings(&cfgs[2], 1, &st); /* MPA with CRC, no markers: a copy is a valid record */
    uint8_t w[800];
    size_t n = one_record(&st, w);
    memcpy(w + n, w, n);
    w[2 * n - 1] ^= 1; /* the second record's CRC */
    settings(&cfgs[2], 0, &st);
    side R;
    CHECK(side_new(&R, &st) == 0);
    CHECK(bad_feed(&R, w, 2 * n, 1) == DW_ERR_PROTO);
    CHECK(R.nrec == 1 && R.errors == 1 && R.err_code == DW_MPA_ERR_CRC);
    side_del(&R);
}

/* on_pdu's non-zero return stops dw_conn_recv right after that record;
 * feeding the rest delivers the others (feed() loops on it). A stream that
 * ends inside a frame is MPA error 1 (MPA 9). */
static void test_stop_and_end_inside_frame(void)
{
    dw_conn_settings st;
    settings(&cfgs[2], 0, &st);
    uint8_t w[800];
    size_t n = one_record(&st, w);
    memcpy(w + n, w, n);
    side R;
    CHECK(side_new(&R, &st) == 0);
    R.stop_every = 1;
    CHECK(dw_conn_recv(R.c, w, n + 3) == (ssize_t)n && R.nrec == 1);
    CHECK(!dw_conn_in_frame(R.c));
    CHECK(dw_conn_recv(R.c, w + n, 3) == 3 && R.nrec == 1); /* part of a frame */
    CHECK(dw_conn_in_frame(R.c));
    CHECK(dw_conn_recv_end(R.c, DW_MPA_CLOSE_FIN) == DW_ERR_PROTO);
    CHECK(R.errors == 1 && R.err_code == DW_MPA_ERR_CLOSED);
    CHECK(dw_conn_recv(R.c, w, n) == DW_ERR_PROTO && R.nrec == 1);
    side_del(&R);
}

/* Every allocation goes through the settings' dw_mem; each failure point
 * gives DW_ERR_NOMEM from dw_conn_new or, for the negotiated sender and
 * receiver, from dw_conn_recv, and nothing leaks. */

static void test_mem_every_failure(void)
{
    int nomem_seen = 0;
    for (long at = 1; at < 40; at++) {
        counting t = {0, (unsigned long)at, 0};
        dw_mem mem = {&t, t_malloc, t_free, t_calloc, t_realloc};
        dw_conn_settings si, sr;
        settings(&cfgs[3], 1, &si);
        settings(&cfgs[3], 0, &sr);
        sr.mem = &mem;
        side I, R;
        CHECK(side_new(&I, &si) == 0);
        int rc = side_new(&R, &sr);
        uint8_t w[600];
        size_t n = 0;
        take_pending(&I, w, &n);
        ssize_t r = rc ? rc : feed(&R, w, n, 0);
        CHECK(r == 0 || r == DW_ERR_NOMEM);
        nomem_seen += r == DW_ERR_NOMEM;
        side_del(&I);
        side_del(&R);
        CHECK(t.live == 0);
        if (r == 0 && t.calls < (unsigned long)at)
            break; /* every allocation has failed once */
    }
    CHECK(nomem_seen >= 2); /* at creation and at MPA mode */
}

static void test_settings_refused(void)
{
    dw_conn_settings st;
    dw_conn *c = NULL;
    dw_conn_callbacks none = {0};
    dw_conn_settings_default(&st);
    CHECK(dw_conn_new(&c, &st, &none, NULL) == DW_ERR_INVAL && !c);
    st.framing = DW_FRAMING_IFT;
    st.startup = DW_CONN_NEGOTIATE;
    CHECK(dw_conn_new(&c, &st, &cbs, NULL) == DW_ERR_UNSUPPORTED);
    dw_conn_settings_default(&st);
    st.pd_len = 513;
    st.pd = (const uint8_t *)"";
    CHECK(dw_conn_new(&c, &st, &cbs, NULL) == DW_ERR_TOO_LONG);
    dw_conn_del(NULL);
}

int main(void)
{
    seed = dw_test_seed();
    RUN(test_every_form_every_segmentation);
    RUN(test_s71_wrong_key_is_enablement_error);
    RUN(test_s71_rejected_both_sides);
    RUN(test_s81_marker_and_framing_mismatch);
    RUN(test_crc_error_then_nothing);
    RUN(test_stop_and_end_inside_frame);
    RUN(test_mem_every_failure);
    RUN(test_settings_refused);
    return dw_test_finish();
}
