/* SPDX-License-Identifier: MIT */
/*
 * IFT (draft-williams-iwarp-ift-00): hand-built vectors, codec, sender and
 * receiver (round trips under every segmentation, corruption, sizes,
 * close, early return).
 *
 * The vectors are written out octet by octet. Their CRC fields were
 * computed outside ddpwire with a table-free bitwise CRC32c in python3
 * (checked on "123456789" -> 0xE3069283):
 *
 *     def crc32c(b):
 *         c = 0xffffffff
 *         for x in b:
 *             c ^= x
 *             for _ in range(8):
 *                 c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
 *         return c ^ 0xffffffff
 *
 * header CRC = crc32c(size octets + header), payload CRC = crc32c(payload),
 * each stored least significant octet first. Two are well-known values:
 * CRC32c of four zero octets is 0x48674BC7, of "abc" 0x364B3FB7.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>

#include "test.h"

typedef struct vec {
    const char *name;
    const uint8_t *hdr;
    size_t hlen;
    const uint8_t *pay;
    size_t plen;
    const uint8_t *wire;
    size_t wlen;
    uint32_t hcrc, pcrc;
    size_t iovcnt; /* dw_ift_tx_frame() */
} vec;

/* Empty header and payload: sizes 0/0, CRC of 00000000, CRC of nothing. */
static const uint8_t w_empty[] = {
    0x00, 0x00, 0x00, 0x00,       /* header_size 0, payload_size 0 */
    0xc7, 0x4b, 0x67, 0x48,       /* header CRC 0x48674bc7 */
    0x00, 0x00, 0x00, 0x00};      /* payload CRC 0 */

/* Unaligned, like the text's second figure: 18-octet header, 5 payload. */
static const uint8_t h18[] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
                              0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1};
static const uint8_t p5[] = "hello";
static const uint8_t w_h18p5[] = {
    0x00, 0x12, 0x00, 0x05,                         /* 18, 5 */
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, /* header */
    0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
    0xb0, 0xb1,
    0x24, 0x96, 0x84, 0xf7,                         /* header CRC 0xf7849624 */
    0x68, 0x65, 0x6c, 0x6c, 0x6f,                   /* "hello" */
    0x4c, 0xbb, 0x71, 0x9a};                        /* payload CRC 0x9a71bb4c */

/* Aligned, like the first figure: 12-octet header, 8 payload. */
static const uint8_t h12[] = {0x41, 0x01, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2};
static const uint8_t p8[] = "ABCDEFGH";
static const uint8_t w_h12p8[] = {
    0x00, 0x0c, 0x00, 0x08,
    0x41, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
    0x3b, 0x82, 0x14, 0x73,                         /* 0x7314823b */
    0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
    0x0a, 0xe6, 0xc4, 0xcd};                        /* 0xcdc4e60a */

/* Empty header, payload "abc". */
static const uint8_t p3[] = "abc";
static const uint8_t w_h0p3[] = {
    0x00, 0x00, 0x00, 0x03,
    0x33, 0xb8, 0x37, 0x5b,                         /* 0x5b37b833 */
    0x61, 0x62, 0x63,
    0xb7, 0x3f, 0x4b, 0x36};                        /* 0x364b3fb7 */

/* 4-octet header, empty payload. */
static const uint8_t h4[] = {0xde, 0xad, 0xbe, 0xef};
static const uint8_t w_h4p0[] = {
    0x00, 0x04, 0x00, 0x00,
    0xde, 0xad, 0xbe, 0xef,
    0x12, 0x4b, 0x73, 0x90,                         /* 0x90734b12 */
    0x00, 0x00, 0x00, 0x00};

static const vec vecs[] = {
    {"empty", NULL, 0, NULL, 0, w_empty, sizeof w_empty, 0x48674bc7, 0, 1},
    {"h18p5", h18, 18, p5, 5, w_h18p5, sizeof w_h18p5, 0xf7849624, 0x9a71bb4c, 3},
    {"h12p8", h12, 12, p8, 8, w_h12p8, sizeof w_h12p8, 0x7314823b, 0xcdc4e60a, 3},
    {"h0p3", NULL, 0, p3, 3, w_h0p3, sizeof w_h0p3, 0x5b37b833, 0x364b3fb7, 3},
    {"h4p0", h4, 4, NULL, 0, w_h4p0, sizeof w_h4p0, 0x90734b12, 0, 1},
};
#define NVEC (sizeof vecs / sizeof vecs[0])

static int quick(void)
{
    const char *e = getenv("DW_TEST_QUICK");
    return e && *e && *e != '0';
}

/* Concatenates iovecs into out; returns the length. */
static size_t gather(uint8_t *out, const struct iovec *iov, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(out + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    return len;
}

/* ------------------------------------------------------------------ */
/* Receiver checker: the expected frames, and what was delivered       */
/* ------------------------------------------------------------------ */

#define MAXF 2000

typedef struct stream {
    size_t n;
    size_t hl[MAXF], pl[MAXF];
    const uint8_t *h[MAXF], *p[MAXF];
    uint64_t off[MAXF + 1];
    uint8_t *wire;
    size_t len;
} stream;

typedef struct chk {
    const stream *s;
    uint64_t *rng;
    int buf_mode;      /* 0 stream, 1 always a buffer, 2 every other frame */
    int stops;         /* callbacks return non-zero now and then */
    size_t k;          /* frame expected next */
    int in_frame, stopped;
    size_t got;
    uint8_t *buf, *cur;
    const uint8_t *lo, *hi; /* the octets being fed */
    unsigned headers, pieces, ends, errors, bufs;
    dw_ift_rx_error err;
    dw_ift_rx *rx;
    int close_in_end;  /* on_end closes the receiver */
} chk;

static int maybe_stop(chk *c)
{
    int s = c->stops && dw_rand(c->rng) % 4 == 0;
    c->stopped |= s;
    return s;
}

static int on_header(dw_ift_rx *rx, const uint8_t *hdr, size_t hlen,
                     size_t plen, uint64_t off, void *u)
{
    chk *c = u;
    const stream *s = c->s;
    CHECK(rx == c->rx && !c->errors && !c->in_frame && c->k < s->n);
    if (c->k >= s->n)
        return 0;
    CHECK_EQ_U(hlen, s->hl[c->k]);
    CHECK_EQ_U(plen, s->pl[c->k]);
    CHECK_EQ_U(off, s->off[c->k]);
    CHECK(hlen == s->hl[c->k] && (!hlen || !memcmp(hdr, s->h[c->k], hlen)));
    c->in_frame = 1;
    c->got = 0;
    c->cur = NULL;
    c->headers++;
    return maybe_stop(c);
}

static uint8_t *get_buffer(dw_ift_rx *rx, size_t plen, void *u)
{
    chk *c = u;
    (void)rx;
    CHECK(c->in_frame && c->got == 0 && !c->cur && plen > 0);
    CHECK(c->k < c->s->n && plen == c->s->pl[c->k]);
    c->bufs++;
    if (c->buf_mode == 0 || (c->buf_mode == 2 && c->k % 2))
        return NULL;
    memset(c->buf, 0xee, plen);
    return c->cur = c->buf;
}

static int on_payload(dw_ift_rx *rx, const uint8_t *d, size_t len, size_t at,
                      void *u)
{
    chk *c = u;
    (void)rx;
    CHECK(c->in_frame && !c->cur && !c->errors && len > 0);
    CHECK(d >= c->lo && d + len <= c->hi); /* zero copy: in the fed input */
    CHECK_EQ_U(at, c->got);
    if (c->k < c->s->n && at + len <= c->s->pl[c->k])
        CHECK(!memcmp(d, c->s->p[c->k] + at, len));
    else
        CHECK(0);
    c->got += len;
    c->pieces++;
    return maybe_stop(c);
}

static int on_end(dw_ift_rx *rx, uint64_t off, void *u)
{
    chk *c = u;
    const stream *s = c->s;
    CHECK(c->in_frame && !c->errors && c->k < s->n);
    if (c->k >= s->n)
        return 0;
    size_t pl = s->pl[c->k];
    if (c->cur)
        CHECK(!memcmp(c->cur, s->p[c->k], pl));
    else
        CHECK_EQ_U(c->got, pl);
    CHECK_EQ_U(off, s->off[c->k]);
    CHECK_EQ_U(dw_ift_rx_offset(rx), s->off[c->k + 1]);
    c->k++;
    c->in_frame = 0;
    c->ends++;
    if (c->close_in_end)
        CHECK_EQ_U(dw_ift_rx_close(rx, 7), 0);
    return maybe_stop(c);
}

static void on_error(dw_ift_rx *rx, const dw_ift_rx_error *e, void *u)
{
    chk *c = u;
    (void)rx;
    CHECK(!c->errors);
    c->errors++;
    c->err = *e;
}

static const dw_ift_rx_callbacks all_cb = {on_header, get_buffer, on_payload,
                                           on_end, on_error};

static void chk_init(chk *c, const stream *s, uint64_t *rng, uint8_t *buf)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->rng = rng;
    c->buf = buf;
}

static dw_ift_rx *new_rx(chk *c, const dw_ift_rx_settings *set)
{
    dw_ift_rx *rx = NULL;
    CHECK_EQ_U(dw_ift_rx_new(&rx, set, &all_cb, c), 0);
    c->rx = rx;
    return rx;
}

/* Feeds one piece, again after each early return. Returns 0, or the
 * negative feed result. */
static ssize_t feed_piece(dw_ift_rx *rx, chk *c, const uint8_t *p, size_t n)
{
    while (n) {
        uint64_t before = dw_ift_rx_offset(rx);
        c->lo = p, c->hi = p + n;
        c->stopped = 0;
        ssize_t r = dw_ift_rx_feed(rx, p, n);
        if (r < 0)
            return r;
        CHECK((size_t)r <= n && (r == (ssize_t)n || c->stopped));
        CHECK_EQ_U(dw_ift_rx_offset(rx), before + (uint64_t)r);
        if (r == 0 && !c->stopped)
            return DW_ERR_STATE;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Vectors, codec, sender                                              */
/* ------------------------------------------------------------------ */

static void test_vectors(void)
{
    uint8_t out[64], cat[64];
    struct iovec iov[DW_IFT_FRAME_IOV_MAX];
    dw_ift_tx *tx;
    CHECK_EQ_U(dw_ift_tx_new(&tx, NULL), 0);
    for (size_t i = 0; i < NVEC; i++) {
        const vec *v = &vecs[i];
        CHECK_EQ_U(dw_ift_frame_len(v->hlen, v->plen), v->wlen);
        /* the library's CRC32c against the independently computed fields */
        CHECK_EQ_U(dw_crc32c(0, v->wire, 4 + v->hlen), v->hcrc);
        CHECK_EQ_U(dw_crc32c(0, v->pay, v->plen), v->pcrc);
        CHECK_EQ_U(dw_ift_encode(out, v->wlen, v->hdr, v->hlen, v->pay, v->plen), v->wlen);
        CHECK(!memcmp(out, v->wire, v->wlen));
        CHECK_EQ_U(dw_ift_encode(out, v->wlen - 1, v->hdr, v->hlen, v->pay, v->plen),
                   (size_t)DW_ERR_NOSPACE);
        dw_ift_frame f;
        CHECK_EQ_U(dw_ift_decode(&f, v->wire, v->wlen), v->wlen);
        CHECK(f.header_len == v->hlen && f.payload_len == v->plen);
        CHECK(f.header == v->wire + 4 && f.payload == v->wire + 8 + v->hlen);
        CHECK(f.header_crc == v->hcrc && f.payload_crc == v->pcrc);
        CHECK(f.header_crc_ok && f.payload_crc_ok);
        for (size_t n = 0; n < v->wlen; n++)
            CHECK_EQ_U(dw_ift_decode(&f, v->wire, n), (size_t)DW_ERR_NEED_MORE);
        /* the sender: iovecs and contiguous, both the vector */
        dw_ift_frame_info info;
        uint64_t off = dw_ift_tx_offset(tx);
        CHECK_EQ_U(dw_ift_tx_frame(tx, v->hdr, v->hlen, v->pay, v->plen, iov,
                                   DW_IFT_FRAME_IOV_MAX, &info), v->wlen);
        CHECK(info.len == v->wlen && info.iovcnt == v->iovcnt && info.offset == off);
        CHECK_EQ_U(gather(cat, iov, info.iovcnt), v->wlen);
        CHECK(!memcmp(cat, v->wire, v->wlen));
        if (v->plen)
            CHECK(iov[1].iov_base == (void *)v->pay && iov[1].iov_len == v->plen);
        memset(out, 0, sizeof out);
        CHECK_EQ_U(dw_ift_tx_frame_into(tx, v->hdr, v->hlen, v->pay, v->plen, out,
                                        v->wlen, &info), v->wlen);
        CHECK(info.iovcnt == 1 && info.offset == off + v->wlen);
        CHECK(!memcmp(out, v->wire, v->wlen));
        CHECK_EQ_U(dw_ift_tx_offset(tx), off + 2 * v->wlen);
    }
    dw_ift_tx_del(tx);
}

/* The vectors back to back through the receiver, in every two-cut split. */
static void test_vectors_rx(void)
{
    static stream s;
    uint8_t buf[64];
    uint64_t rng = 1;
    memset(&s, 0, sizeof s);
    uint8_t wire[256];
    for (size_t i = 0; i < NVEC; i++) {
        s.hl[i] = vecs[i].hlen, s.h[i] = vecs[i].hdr;
        s.pl[i] = vecs[i].plen, s.p[i] = vecs[i].pay;
        s.off[i] = s.len;
        memcpy(wire + s.len, vecs[i].wire, vecs[i].wlen);
        s.len += vecs[i].wlen;
    }
    s.n = NVEC;
    s.off[NVEC] = s.len;
    s.wire = wire;
    for (size_t a = 0; a <= s.len; a++) {
        for (size_t b = a; b <= s.len; b++) {
            chk c;
            chk_init(&c, &s, &rng, buf);
            c.buf_mode = (int)((a + b) % 3);
            dw_ift_rx *rx = new_rx(&c, NULL);
            CHECK_EQ_U(feed_piece(rx, &c, wire, a), 0);
            CHECK_EQ_U(feed_piece(rx, &c, wire + a, b - a), 0);
            CHECK_EQ_U(feed_piece(rx, &c, wire + b, s.len - b), 0);
            CHECK(c.k == NVEC && c.ends == NVEC && !c.errors);
            dw_ift_rx_del(rx);
        }
    }
}

static void test_codec_errors(void)
{
    static uint8_t big[DW_IFT_FRAME_MAX];
    static uint8_t data[65536];
    uint8_t out[16];
    dw_ift_frame f;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7 + 3);
    CHECK_EQ_U(dw_ift_encode(out, sizeof out, data, 65536, NULL, 0), (size_t)DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_ift_encode(out, sizeof out, NULL, 0, data, 65536), (size_t)DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_ift_encode(out, sizeof out, NULL, 1, NULL, 0), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_encode(out, sizeof out, NULL, 0, NULL, 1), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_encode(NULL, 12, NULL, 0, NULL, 0), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_encode(NULL, 0, NULL, 0, NULL, 0), (size_t)DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_ift_decode(NULL, w_empty, 12), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_decode(&f, NULL, 12), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_decode(&f, NULL, 0), (size_t)DW_ERR_NEED_MORE);
    /* any four octets are sizes: never MALFORMED */
    static const uint8_t ff[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    CHECK_EQ_U(dw_ift_decode(&f, ff, sizeof ff), (size_t)DW_ERR_NEED_MORE);
    /* the largest frame */
    CHECK_EQ_U(dw_ift_encode(big, sizeof big, data, 65535, data + 1, 65535), DW_IFT_FRAME_MAX);
    CHECK(big[0] == 0xff && big[1] == 0xff && big[2] == 0xff && big[3] == 0xff);
    CHECK_EQ_U(dw_ift_decode(&f, big, sizeof big), DW_IFT_FRAME_MAX);
    CHECK(f.header_len == 65535 && f.payload_len == 65535 && f.header_crc_ok &&
          f.payload_crc_ok && f.payload == big + 65535 + 8);
    /* CRC verdicts: one flipped bit in each part */
    uint8_t w[sizeof w_h18p5];
    for (size_t bit = 0; bit < 8 * sizeof w; bit++) {
        memcpy(w, w_h18p5, sizeof w);
        w[bit / 8] ^= (uint8_t)(1u << bit % 8);
        ssize_t r = dw_ift_decode(&f, w, sizeof w);
        if (bit < 8 * 4) { /* sizes: other length, or a bad header CRC */
            CHECK(r == DW_ERR_NEED_MORE || (r > 0 && !f.header_crc_ok));
        } else if (bit < 8 * 26) {
            CHECK(r == (ssize_t)sizeof w && !f.header_crc_ok && f.payload_crc_ok);
        } else {
            CHECK(r == (ssize_t)sizeof w && f.header_crc_ok && !f.payload_crc_ok);
        }
    }
    CHECK(strcmp(dw_ift_strerror(DW_IFT_ERR_HEADER_CRC), "header CRC mismatch") == 0);
}

static void test_tx(void)
{
    static uint8_t data[65536 + 128], exp[DW_IFT_FRAME_MAX], cat[DW_IFT_FRAME_MAX];
    struct iovec iov[DW_IFT_FRAME_IOV_MAX];
    dw_ift_frame_info info;
    dw_ift_tx *tx;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 13 + 1);
    CHECK_EQ_U(dw_ift_tx_new(&tx, NULL), 0);
    static const struct { size_t h, p, n; } shapes[] = {
        {0, 0, 1}, {64, 0, 1}, {64, 1, 3}, {65, 0, 3}, {65, 10, 5},
        {1000, 1000, 5}, {65535, 65535, 5}, {0, 65535, 3}, {7, 0, 1}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        DW_CASE_HERE("shapes[%zu]", i);
        size_t h = shapes[i].h, p = shapes[i].p;
        const uint8_t *pay = data + 100;
        ssize_t len = dw_ift_encode(exp, sizeof exp, data, h, pay, p);
        uint64_t off = dw_ift_tx_offset(tx);
        CHECK_EQ_U(dw_ift_tx_frame(tx, data, h, pay, p, iov, shapes[i].n - 1, &info),
                   (size_t)DW_ERR_NOSPACE);
        CHECK_EQ_U(dw_ift_tx_offset(tx), off);
        CHECK_EQ_U(dw_ift_tx_frame(tx, data, h, pay, p, iov, shapes[i].n, &info), len);
        CHECK(info.iovcnt == shapes[i].n && info.offset == off && info.len == (size_t)len);
        CHECK_EQ_U(gather(cat, iov, info.iovcnt), len);
        CHECK(!memcmp(cat, exp, (size_t)len));
        if (h > DW_IFT_TX_INLINE_HEADER_MAX) /* a long header is referenced */
            CHECK(iov[1].iov_base == (void *)data && iov[1].iov_len == h);
        if (p) /* the payload is referenced, never copied */
            CHECK(iov[info.iovcnt - 2].iov_base == (void *)pay &&
                  iov[info.iovcnt - 2].iov_len == p);
    }
    /* errors leave the sender unchanged */
    uint64_t off = dw_ift_tx_offset(tx);
    CHECK_EQ_U(dw_ift_tx_frame(tx, data, 65536, NULL, 0, iov, 5, &info), (size_t)DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_ift_tx_frame(tx, NULL, 0, data, 65536, iov, 5, &info), (size_t)DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_ift_tx_frame(tx, NULL, 3, NULL, 0, iov, 5, &info), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_tx_frame(tx, NULL, 0, NULL, 0, NULL, 5, &info), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_tx_frame_into(tx, data, 3, data, 3, cat, 17, &info), (size_t)DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_ift_tx_frame_into(tx, data, 3, data, 3, NULL, 18, &info), (size_t)DW_ERR_INVAL);
    CHECK_EQ_U(dw_ift_tx_frame_into(tx, data, 3, data, 65536, cat, sizeof cat, &info),
               (size_t)DW_ERR_TOO_LONG);
    CHECK_EQ_U(dw_ift_tx_offset(tx), off);
    CHECK_EQ_U(dw_ift_tx_frame(tx, NULL, 0, NULL, 0, iov, 5, NULL), 12);
    dw_ift_tx_del(tx);
    dw_ift_tx_del(NULL);

    /* CRC off: zero CRC fields, the rest as encoded */
    dw_ift_tx_settings set;
    dw_ift_tx_settings_default(&set);
    CHECK(set.crc == 1 && set.scratch_size == 65536);
    set.crc = 0;
    CHECK_EQ_U(dw_ift_tx_new(&tx, &set), 0);
    for (size_t h = 0; h < 70; h += 69) {
        ssize_t len = dw_ift_encode(exp, sizeof exp, data, h, data + 5, 9);
        memset(exp + 4 + h, 0, 4);
        memset(exp + 8 + h + 9, 0, 4);
        CHECK_EQ_U(dw_ift_tx_frame(tx, data, h, data + 5, 9, iov, 5, &info), len);
        CHECK_EQ_U(gather(cat, iov, info.iovcnt), len);
        CHECK(!memcmp(cat, exp, (size_t)len));
        CHECK_EQ_U(dw_ift_tx_frame_into(tx, data, h, data + 5, 9, cat, sizeof cat, NULL), len);
        CHECK(!memcmp(cat, exp, (size_t)len));
    }
    dw_ift_tx_del(tx);
    set.scratch_size = DW_IFT_TX_SCRATCH_MIN - 1;
    CHECK_EQ_U(dw_ift_tx_new(&tx, &set), (size_t)DW_ERR_INVAL);
    CHECK(tx == NULL);
}

/* The scratch ring keeps a frame's pieces for the promised number of
 * further frames. */
static void test_tx_scratch(void)
{
    enum { SCR = 1000, KEEP = SCR / DW_IFT_TX_SCRATCH_PER_FRAME - 2, N = 500 };
    static struct iovec iov[N][DW_IFT_FRAME_IOV_MAX];
    static size_t cnt[N], hl[N], pl[N];
    static uint8_t data[256], exp[512], cat[512];
    uint64_t rng = 42;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)dw_rand(&rng);
    dw_ift_tx_settings set;
    dw_ift_tx_settings_default(&set);
    set.scratch_size = SCR;
    dw_ift_tx *tx;
    CHECK_EQ_U(dw_ift_tx_new(&tx, &set), 0);
    for (size_t i = 0; i < N; i++) {
        hl[i] = dw_rand(&rng) % 80;
        pl[i] = dw_rand(&rng) % 3 ? dw_rand(&rng) % 100 : 0;
        dw_ift_frame_info info;
        CHECK(dw_ift_tx_frame(tx, data, hl[i], data + 50, pl[i], iov[i], 5, &info) > 0);
        cnt[i] = info.iovcnt;
        for (size_t j = i >= KEEP ? i - KEEP : 0; j <= i; j++) {
            ssize_t len = dw_ift_encode(exp, sizeof exp, data, hl[j], data + 50, pl[j]);
            CHECK_EQ_U(gather(cat, iov[j], cnt[j]), len);
            CHECK(!memcmp(cat, exp, (size_t)len));
        }
    }
    dw_ift_tx_del(tx);
}

/* ------------------------------------------------------------------ */
/* Receiver round trips                                                */
/* ------------------------------------------------------------------ */

static size_t rand_plen(uint64_t *rng)
{
    unsigned r = (unsigned)(dw_rand(rng) % 10);
    if (r < 7)
        return dw_rand(rng) % 65;
    if (r < 9)
        return dw_rand(rng) % 1501;
    return dw_rand(rng) % 65536;
}

/* n random frames (headers up to max_h) built with the sender, header and
 * payload slices of pool. */
static void make_stream(stream *s, size_t n, size_t max_h, const uint8_t *pool,
                        size_t pool_len, uint64_t *rng)
{
    dw_ift_tx *tx;
    CHECK_EQ_U(dw_ift_tx_new(&tx, NULL), 0);
    s->n = n;
    s->len = 0;
    for (size_t i = 0; i < n; i++) {
        s->hl[i] = dw_rand(rng) % (max_h + 1);
        s->pl[i] = rand_plen(rng);
        s->h[i] = pool + dw_rand(rng) % (pool_len - 65536);
        s->p[i] = pool + dw_rand(rng) % (pool_len - 65536);
        s->len += dw_ift_frame_len(s->hl[i], s->pl[i]);
    }
    s->wire = malloc(s->len);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        s->off[i] = at;
        ssize_t r = dw_ift_tx_frame_into(tx, s->h[i], s->hl[i], s->p[i], s->pl[i],
                                         s->wire + at, s->len - at, NULL);
        CHECK(r > 0);
        at += (size_t)r;
    }
    s->off[n] = at;
    dw_ift_tx_del(tx);
}

enum seg { SEG_ONE, SEG_BYTE, SEG_SMALL, SEG_64K, SEG_COUNT };

static void run_stream(const stream *s, enum seg seg, int buf_mode, int stops,
                       size_t max_h, uint64_t *rng)
{
    static uint8_t buf[65536];
    chk c;
    chk_init(&c, s, rng, buf);
    c.buf_mode = buf_mode;
    c.stops = stops;
    dw_ift_rx_settings set;
    dw_ift_rx_settings_default(&set);
    set.max_header = max_h;
    dw_ift_rx *rx = new_rx(&c, &set);
    size_t at = 0;
    while (at < s->len) {
        size_t n = s->len - at;
        if (seg == SEG_BYTE)
            n = 1;
        else if (seg == SEG_SMALL)
            n = 1 + dw_rand(rng) % 40;
        else if (seg == SEG_64K)
            n = 1 + dw_rand(rng) % 65536;
        n = n < s->len - at ? n : s->len - at;
        if (feed_piece(rx, &c, s->wire + at, n) != 0)
            break;
        at += n;
    }
    CHECK(at == s->len && c.k == s->n && c.ends == s->n && !c.errors);
    CHECK_EQ_U(dw_ift_rx_offset(rx), s->len);
    CHECK_EQ_U(dw_ift_rx_close(rx, 3), 0); /* between frames: clean */
    CHECK(c.errors == 1 && c.err.code == DW_IFT_ERR_CLOSED && c.err.clean &&
          c.err.offset == s->len && c.err.reason == 3);
    CHECK_EQ_U(dw_ift_rx_failed(rx), DW_IFT_ERR_CLOSED);
    dw_ift_rx_del(rx);
}

static void test_rx_roundtrip(void)
{
    size_t pool_len = 65536 * 3;
    uint8_t *pool = malloc(pool_len);
    static stream s;
    uint64_t rng = dw_test_seed();
    for (size_t i = 0; i < pool_len; i++)
        pool[i] = (uint8_t)dw_rand(&rng);
    size_t frames = quick() ? 100 : 1000;
    unsigned long total = 0;
    for (int seg = 0; seg < SEG_COUNT; seg++)
        for (int mh = 0; mh < 2; mh++) {
            size_t max_h = mh ? 2000 : 64;
            make_stream(&s, seg == SEG_BYTE ? frames / 4 : frames, max_h, pool,
                        pool_len, &rng);
            for (int bm = 0; bm < 3; bm++)
                for (int stops = 0; stops < 2; stops++) {
                    run_stream(&s, (enum seg)seg, bm, stops, max_h, &rng);
                    total += s.n;
                }
            free(s.wire);
        }
    fprintf(stderr, "  %lu frames received\n", total);
    free(pool);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

/* vecs[1] (h18p5) at offset 32, after vecs[2], followed by two more
 * vecs[2]: 32 + 35 + 64 octets. */
static void corrupt_stream(stream *s, uint8_t *wire)
{
    memset(s, 0, sizeof *s);
    const vec *a = &vecs[2], *b = &vecs[1];
    const vec *order[4] = {a, b, a, a};
    for (size_t i = 0; i < 4; i++) {
        s->hl[i] = order[i]->hlen, s->h[i] = order[i]->hdr;
        s->pl[i] = order[i]->plen, s->p[i] = order[i]->pay;
        s->off[i] = s->len;
        memcpy(wire + s->len, order[i]->wire, order[i]->wlen);
        s->len += order[i]->wlen;
    }
    s->n = 4;
    s->off[4] = s->len;
    s->wire = wire;
}

/* Feeds s (seg 0: whole, 1: 1-octet pieces, 2: cut after frame 1's
 * header CRC) and checks what comes after an error. */
static void feed_bad(dw_ift_rx *rx, chk *c, const stream *s, int seg)
{
    ssize_t r = 0;
    for (size_t at = 0, n; at < s->len && r == 0; at += n) {
        n = seg == 1 ? 1 : seg == 2 && at < 58 ? 58 : s->len - at;
        r = feed_piece(rx, c, s->wire + at, n);
    }
    CHECK_EQ_U(r, (size_t)DW_ERR_PROTO);
    unsigned h = c->headers, p = c->pieces, e = c->ends;
    CHECK_EQ_U(dw_ift_rx_feed(rx, s->wire, s->len), (size_t)DW_ERR_PROTO);
    CHECK_EQ_U(dw_ift_rx_close(rx, 0), (size_t)DW_ERR_PROTO);
    CHECK(c->headers == h && c->pieces == p && c->ends == e && c->errors == 1);
}

static void test_rx_corrupt(void)
{
    static stream s;
    uint8_t wire[160], buf[64];
    uint64_t rng = 5;
    for (int seg = 0; seg < 3; seg++)
        for (int mp = 0; mp < 2; mp++)
            for (size_t bit = 0; bit < 35 * 8; bit++) {
                corrupt_stream(&s, wire);
                wire[32 + bit / 8] ^= (uint8_t)(1u << bit % 8);
                s.p[1] = wire + 58; /* streamed pieces are unverified */
                chk c;
                chk_init(&c, &s, &rng, buf);
                c.buf_mode = (int)(bit % 3);
                dw_ift_rx_settings set;
                dw_ift_rx_settings_default(&set);
                set.max_payload = mp ? 1000 : 65535;
                dw_ift_rx *rx = new_rx(&c, &set);
                feed_bad(rx, &c, &s, seg);
                CHECK_EQ_U(c.ends, 1); /* the frame before */
                CHECK_EQ_U(c.err.offset, 32);
                CHECK(!c.err.clean);
                if (bit < 26 * 8) { /* sizes, header, header CRC */
                    size_t h = 18, p = 5;
                    unsigned v = 1u << bit % 8; /* in a big-endian field */
                    if (bit < 16)
                        h ^= bit < 8 ? v << 8 : v;
                    else if (bit < 32)
                        p ^= bit < 24 ? v << 8 : v;
                    int size_err = h > 64 || p > set.max_payload;
                    CHECK_EQ_U(c.err.code, size_err ? DW_IFT_ERR_SIZE : DW_IFT_ERR_HEADER_CRC);
                    CHECK_EQ_U(c.headers, 1); /* never on_header for it */
                    CHECK_EQ_U(dw_ift_rx_offset(rx), size_err ? 36 : 32 + 8 + h);
                } else { /* payload, payload CRC */
                    CHECK_EQ_U(c.err.code, DW_IFT_ERR_PAYLOAD_CRC);
                    CHECK_EQ_U(c.headers, 2);
                    CHECK_EQ_U(dw_ift_rx_offset(rx), 67);
                    if (seg != 1) /* payload and CRC in one feed: checked
                                   * first; only frame 0 streamed (mode 0) */
                        CHECK_EQ_U(c.pieces, c.buf_mode == 0);
                    else if (c.buf_mode != 1)
                        CHECK_EQ_U(c.pieces, (c.buf_mode == 0 ? 8u : 0u) + 5u);
                }
                CHECK_EQ_U(dw_ift_rx_failed(rx), c.err.code);
                dw_ift_rx_del(rx);
            }
    /* CRCs off: every flip after the sizes is delivered as it is */
    for (size_t bit = 4 * 8; bit < 35 * 8; bit++) {
        corrupt_stream(&s, wire);
        wire[32 + bit / 8] ^= (uint8_t)(1u << bit % 8);
        s.h[1] = wire + 36; /* expect the flipped octets */
        s.p[1] = wire + 58;
        chk c;
        chk_init(&c, &s, &rng, buf);
        dw_ift_rx_settings set;
        dw_ift_rx_settings_default(&set);
        set.crc = 0;
        dw_ift_rx *rx = new_rx(&c, &set);
        c.lo = wire, c.hi = wire + s.len;
        CHECK_EQ_U(dw_ift_rx_feed(rx, wire, s.len), s.len);
        CHECK(c.ends == 4 && !c.errors);
        dw_ift_rx_del(rx);
    }
}

/* SIZE is reported from the four size octets alone. */
static void test_rx_sizes(void)
{
    static stream s;
    uint8_t wire[160], buf[64];
    uint64_t rng = 9;
    static const struct { uint8_t sz[4]; } bad[] = {
        {{0, 11, 0, 5}}, {{0, 19, 0, 5}}, {{0, 18, 0, 9}}, {{0xff, 0xff, 0, 0}}};
    for (size_t i = 0; i < 4; i++)
        for (int bytes = 0; bytes < 2; bytes++) {
            corrupt_stream(&s, wire);
            memcpy(wire + 32, bad[i].sz, 4);
            chk c;
            chk_init(&c, &s, &rng, buf);
            dw_ift_rx_settings set;
            dw_ift_rx_settings_default(&set);
            set.min_header = 12;
            set.max_header = 18;
            set.max_payload = 8;
            dw_ift_rx *rx = new_rx(&c, &set);
            if (i == 0 && !bytes) {
                /* frame 0 of h12p8 then only the four size octets */
                c.lo = wire, c.hi = wire + 36;
                CHECK_EQ_U(dw_ift_rx_feed(rx, wire, 36), (size_t)DW_ERR_PROTO);
                CHECK(c.ends == 1 && c.errors == 1 && c.err.code == DW_IFT_ERR_SIZE);
                dw_ift_rx_del(rx);
                continue;
            }
            feed_bad(rx, &c, &s, bytes);
            CHECK(c.ends == 1 && c.headers == 1 && c.err.code == DW_IFT_ERR_SIZE &&
                  c.err.offset == 32 && !c.err.clean);
            CHECK_EQ_U(dw_ift_rx_offset(rx), 36);
            dw_ift_rx_del(rx);
        }
    /* settings */
    chk c;
    chk_init(&c, &s, &rng, buf);
    dw_ift_rx_settings set;
    dw_ift_rx_settings_default(&set);
    CHECK(set.crc == 1 && set.max_header == 64 && set.min_header == 0 &&
          set.max_payload == 65535);
    dw_ift_rx *rx = (dw_ift_rx *)&c;
    set.min_header = 65;
    CHECK_EQ_U(dw_ift_rx_new(&rx, &set, &all_cb, &c), (size_t)DW_ERR_INVAL);
    CHECK(rx == NULL);
    dw_ift_rx_callbacks cb = all_cb;
    cb.on_end = NULL;
    CHECK_EQ_U(dw_ift_rx_new(&rx, NULL, &cb, &c), (size_t)DW_ERR_INVAL);
    /* max_header over 65535 acts as 65535: the largest frame passes */
    static uint8_t big[DW_IFT_FRAME_MAX];
    static uint8_t data[65535];
    set.min_header = 0;
    set.max_header = (size_t)-1;
    stream *b = &s;
    memset(b, 0, sizeof *b);
    b->n = 1, b->hl[0] = b->pl[0] = 65535, b->h[0] = b->p[0] = data;
    b->off[1] = b->len = DW_IFT_FRAME_MAX;
    b->wire = big;
    CHECK_EQ_U(dw_ift_encode(big, sizeof big, data, 65535, data, 65535), DW_IFT_FRAME_MAX);
    for (int bm = 0; bm < 2; bm++) {
        static uint8_t pbuf[65536];
        chk_init(&c, b, &rng, pbuf);
        c.buf_mode = bm;
        rx = new_rx(&c, &set);
        CHECK_EQ_U(feed_piece(rx, &c, big, 70000), 0);
        CHECK_EQ_U(feed_piece(rx, &c, big + 70000, sizeof big - 70000), 0);
        CHECK(c.ends == 1 && !c.errors);
        dw_ift_rx_del(rx);
    }
    dw_ift_rx_del(NULL);
}

static void test_rx_close(void)
{
    static stream s;
    uint8_t wire[160], buf[64];
    uint64_t rng = 11;
    corrupt_stream(&s, wire);
    /* mid-frame at every octet of frame 1: unclean, the frame's offset */
    for (size_t n = 33; n < 67; n++) {
        chk c;
        chk_init(&c, &s, &rng, buf);
        dw_ift_rx *rx = new_rx(&c, NULL);
        CHECK_EQ_U(feed_piece(rx, &c, wire, n), 0);
        CHECK_EQ_U(dw_ift_rx_close(rx, 2), (size_t)DW_ERR_PROTO);
        CHECK(c.errors == 1 && c.err.code == DW_IFT_ERR_CLOSED && !c.err.clean &&
              c.err.offset == 32 && c.err.reason == 2);
        CHECK_EQ_U(c.headers, n >= 32 + 26 ? 2u : 1u);
        CHECK_EQ_U(dw_ift_rx_feed(rx, wire + n, 1), (size_t)DW_ERR_PROTO);
        CHECK_EQ_U(dw_ift_rx_close(rx, 2), (size_t)DW_ERR_PROTO);
        CHECK(c.errors == 1 && c.ends == 1);
        dw_ift_rx_del(rx);
    }
    /* at the start and between frames: clean */
    for (size_t f = 0; f < 4; f++) {
        chk c;
        chk_init(&c, &s, &rng, buf);
        dw_ift_rx *rx = new_rx(&c, NULL);
        CHECK_EQ_U(feed_piece(rx, &c, wire, s.off[f]), 0);
        CHECK_EQ_U(dw_ift_rx_close(rx, 1), 0);
        CHECK(c.errors == 1 && c.err.clean && c.err.offset == s.off[f]);
        dw_ift_rx_del(rx);
    }
    /* closed from within on_end: nothing more, feed says PROTO */
    chk c;
    chk_init(&c, &s, &rng, buf);
    c.close_in_end = 1;
    dw_ift_rx *rx = new_rx(&c, NULL);
    c.lo = wire, c.hi = wire + s.len;
    CHECK_EQ_U(dw_ift_rx_feed(rx, wire, s.len), (size_t)DW_ERR_PROTO);
    CHECK(c.ends == 1 && c.headers == 1 && c.errors == 1 && c.err.clean &&
          c.err.offset == 32 && c.err.reason == 7);
    dw_ift_rx_del(rx);
}

/* Early returns at fixed points: each feed stops right after the callback
 * that asked, and the next one goes on from there. */
static int stop_all(dw_ift_rx *rx, const uint8_t *h, size_t hl, size_t pl,
                    uint64_t off, void *u)
{
    (void)rx, (void)h, (void)hl, (void)pl, (void)off;
    ++*(int *)u;
    return 1;
}
static int stop_piece(dw_ift_rx *rx, const uint8_t *d, size_t n, size_t at, void *u)
{
    (void)rx, (void)d, (void)n, (void)at;
    ++*(int *)u;
    return 1;
}
static int stop_end(dw_ift_rx *rx, uint64_t off, void *u)
{
    (void)rx, (void)off;
    ++*(int *)u;
    return 1;
}

static void test_rx_early_return(void)
{
    static stream s;
    uint8_t wire[160];
    corrupt_stream(&s, wire); /* h12p8, h18p5, h12p8, h12p8 */
    dw_ift_rx_callbacks cb = {stop_all, NULL, stop_piece, stop_end, NULL};
    int calls = 0;
    dw_ift_rx *rx;
    CHECK_EQ_U(dw_ift_rx_new(&rx, NULL, &cb, &calls), 0);
    /* per frame: header (4+h+4), payload (p), CRC (4) */
    static const size_t expect[] = {20, 8, 4, 26, 5, 4, 20, 8, 4, 20, 8, 4};
    size_t at = 0;
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        DW_CASE_HERE("expect[%zu]", i);
        ssize_t r = dw_ift_rx_feed(rx, wire + at, s.len - at);
        CHECK_EQ_U(r, expect[i]);
        CHECK_EQ_U(calls, i + 1);
        at += r > 0 ? (size_t)r : 0;
    }
    CHECK_EQ_U(at, s.len);
    CHECK_EQ_U(dw_ift_rx_feed(rx, wire, 0), 0);
    dw_ift_rx_del(rx);
}

int main(void)
{
    RUN(test_vectors);
    RUN(test_vectors_rx);
    RUN(test_codec_errors);
    RUN(test_tx);
    RUN(test_tx_scratch);
    RUN(test_rx_roundtrip);
    RUN(test_rx_corrupt);
    RUN(test_rx_sizes);
    RUN(test_rx_close);
    RUN(test_rx_early_return);
    return dw_test_finish();
}
