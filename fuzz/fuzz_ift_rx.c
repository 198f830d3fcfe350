/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the IFT receiver against a model of the stream built with
 * the whole-frame decoder, plus decode/encode/sender round trips.
 *
 * Input: a mode octet (CRC off, get_buffer, early returns, limits), a
 * count octet n (low 3 bits) and n piece sizes that chop the rest, the
 * stream, into feeds. Checked: callbacks only for frames whose CRCs the
 * model verified, in order, at the model's offsets, with the stream's
 * header and payload octets (streamed pieces in order, inside the fed
 * piece, adding up to the payload); the error the model predicts, once,
 * with nothing after it; re-encoding a decoded frame gives its octets.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>

#include <stdlib.h>
#include <string.h>

typedef struct model {
    size_t frames;   /* good frames */
    int hdr_ok;      /* the frame after them passed its header CRC */
    dw_ift_error err;
    uint64_t err_off;
    int boundary;    /* the stream ends between frames */
} model;

typedef struct st {
    const uint8_t *s;
    size_t len;
    dw_ift_rx_settings set;
    model m;
    int use_buf, stops;
    unsigned calls;
    int stopped;     /* a callback returned non-zero in this feed */
    uint64_t stop_at;
    /* progress */
    size_t k;        /* frames ended */
    uint64_t fo;     /* offset of frame k */
    int in_frame, failed, headers;
    size_t hl, pl, got;
    uint8_t *dst;
    const uint8_t *lo, *hi;
} st;

static size_t be16(const uint8_t *p)
{
    return (size_t)p[0] << 8 | p[1];
}

static void roundtrip(const uint8_t *f, size_t flen)
{
    static uint8_t out[DW_IFT_FRAME_MAX], cat[DW_IFT_FRAME_MAX];
    dw_ift_frame d;
    if (dw_ift_decode(&d, f, flen) != (ssize_t)flen)
        abort();
    if (dw_ift_encode(out, flen, d.header, d.header_len, d.payload,
                      d.payload_len) != (ssize_t)flen)
        abort();
    size_t hc = 4u + d.header_len, pc = flen - 4;
    if (memcmp(out, f, hc) || memcmp(out + hc + 4, f + hc + 4, pc - hc - 4) ||
        !memcmp(out + hc, f + hc, 4) != !!d.header_crc_ok ||
        !memcmp(out + pc, f + pc, 4) != !!d.payload_crc_ok)
        abort();
    dw_ift_tx *tx;
    struct iovec iov[DW_IFT_FRAME_IOV_MAX];
    dw_ift_frame_info info;
    if (dw_ift_tx_new(&tx, NULL))
        abort();
    if (dw_ift_tx_frame(tx, d.header, d.header_len, d.payload, d.payload_len,
                        iov, DW_IFT_FRAME_IOV_MAX, &info) != (ssize_t)flen)
        abort();
    size_t n = 0;
    for (size_t i = 0; i < info.iovcnt; i++) {
        memcpy(cat + n, iov[i].iov_base, iov[i].iov_len);
        n += iov[i].iov_len;
    }
    if (n != flen || memcmp(cat, out, flen))
        abort();
    dw_ift_tx_del(tx);
}

/* What the receiver must do with the whole stream. */
static void build_model(st *x)
{
    const uint8_t *s = x->s;
    size_t o = 0, len = x->len;
    model *m = &x->m;
    memset(m, 0, sizeof *m);
    for (;;) {
        if (o == len) {
            m->boundary = 1;
            return;
        }
        if (len - o < 4)
            return;
        size_t h = be16(s + o), p = be16(s + o + 2);
        if (h < x->set.min_header || h > x->set.max_header || p > x->set.max_payload) {
            m->err = DW_IFT_ERR_SIZE, m->err_off = o;
            return;
        }
        if (len - o < 8 + h)
            return;
        if (x->set.crc && dw_crc32c(0, s + o, 4 + h) != dw_crc32c_load(s + o + 4 + h)) {
            m->err = DW_IFT_ERR_HEADER_CRC, m->err_off = o;
            return;
        }
        m->hdr_ok = 1;
        size_t flen = dw_ift_frame_len(h, p);
        if (len - o < flen)
            return;
        roundtrip(s + o, flen);
        const uint8_t *pay = s + o + 8 + h;
        if (x->set.crc && dw_crc32c(0, pay, p) != dw_crc32c_load(pay + p)) {
            m->err = DW_IFT_ERR_PAYLOAD_CRC, m->err_off = o;
            return;
        }
        m->hdr_ok = 0;
        m->frames++;
        o += flen;
    }
}

/* Every third callback asks feed() to return: it must, right there. */
static int stop(st *x, const dw_ift_rx *rx)
{
    if (!x->stops || ++x->calls % 3)
        return 0;
    x->stopped = 1;
    x->stop_at = dw_ift_rx_offset(rx);
    return 1;
}

static int on_header(dw_ift_rx *rx, const uint8_t *hdr, size_t hl, size_t pl,
                     uint64_t off, void *u)
{
    st *x = u;
    if (x->failed || x->in_frame || off != x->fo || x->fo + 8 + hl > x->len)
        abort();
    const uint8_t *f = x->s + off;
    if (hl != be16(f) || pl != be16(f + 2) || memcmp(hdr, f + 4, hl))
        abort();
    if (x->k > x->m.frames || (x->k == x->m.frames && !x->m.hdr_ok))
        abort(); /* a header the model did not verify */
    x->in_frame = 1;
    x->headers++;
    x->hl = hl, x->pl = pl, x->got = 0, x->dst = NULL;
    return stop(x, rx);
}

static uint8_t *get_buffer(dw_ift_rx *rx, size_t pl, void *u)
{
    static uint8_t place[65535];
    st *x = u;
    (void)rx;
    if (!x->in_frame || pl != x->pl || !pl || x->got || x->dst)
        abort();
    if (!x->use_buf || (x->use_buf == 2 && x->headers % 2))
        return NULL;
    return x->dst = place;
}

static int on_payload(dw_ift_rx *rx, const uint8_t *d, size_t n, size_t at,
                      void *u)
{
    st *x = u;
    if (x->failed || !x->in_frame || x->dst || !n || at != x->got ||
        at + n > x->pl || d < x->lo || d + n > x->hi)
        abort();
    if (memcmp(d, x->s + x->fo + 8 + x->hl + at, n))
        abort();
    x->got += n;
    return stop(x, rx);
}

static int on_end(dw_ift_rx *rx, uint64_t off, void *u)
{
    st *x = u;
    (void)rx;
    if (x->failed || !x->in_frame || off != x->fo || x->k >= x->m.frames)
        abort();
    const uint8_t *pay = x->s + x->fo + 8 + x->hl;
    if (x->dst ? memcmp(x->dst, pay, x->pl) != 0 : x->got != x->pl)
        abort();
    x->fo += dw_ift_frame_len(x->hl, x->pl);
    if (dw_ift_rx_offset(rx) != x->fo)
        abort();
    x->k++;
    x->in_frame = 0;
    return stop(x, rx);
}

static void on_error(dw_ift_rx *rx, const dw_ift_rx_error *e, void *u)
{
    st *x = u;
    (void)rx;
    if (x->failed || e->code < DW_IFT_ERR_CLOSED || e->code > DW_IFT_ERR_SIZE)
        abort();
    if (e->code == DW_IFT_ERR_CLOSED) {
        if (x->m.err || e->reason != DW_CLOSE_LOST || !e->clean != !x->m.boundary ||
            e->offset != (e->clean ? x->len : x->fo))
            abort();
    } else if (e->code != x->m.err || e->offset != x->m.err_off || e->clean) {
        abort();
    }
    x->failed = 1;
}

static void settings(st *x, uint8_t mode)
{
    static const size_t max_h[4] = {64, 0, 20, 65535};
    dw_ift_rx_settings_default(&x->set);
    x->set.crc = !(mode & 1);
    x->use_buf = mode >> 1 & 3;
    x->stops = mode >> 3 & 1;
    x->set.max_header = max_h[mode >> 4 & 3];
    x->set.min_header = mode & 0x40 ? x->set.max_header / 2 : 0;
    x->set.max_payload = mode & 0x80 ? 100 : 65535;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size < 2u + (data[1] & 7u))
        return 0;
    size_t nsz = data[1] & 7u;
    const uint8_t *sizes = data + 2;
    st x;
    memset(&x, 0, sizeof x);
    settings(&x, data[0]);
    x.s = data + 2 + nsz;
    x.len = size - 2 - nsz;
    build_model(&x);
    dw_ift_rx_callbacks cb = {on_header, get_buffer, on_payload, on_end, on_error};
    dw_ift_rx *rx;
    if (dw_ift_rx_new(&rx, &x.set, &cb, &x) != 0)
        abort();
    size_t at = 0;
    for (size_t i = 0; at < x.len; i++) {
        size_t n = nsz ? sizes[i % nsz] : x.len;
        n = n ? n : 256;
        n = n < x.len - at ? n : x.len - at;
        x.lo = x.s + at, x.hi = x.s + at + n;
        x.stopped = 0;
        ssize_t r = dw_ift_rx_feed(rx, x.s + at, n);
        if (r < 0) {
            if (r != DW_ERR_PROTO || !x.failed)
                abort();
            break;
        }
        if ((size_t)r > n || r == 0 || dw_ift_rx_offset(rx) != at + (size_t)r)
            abort();
        if (x.stopped ? at + (size_t)r != x.stop_at : (size_t)r != n)
            abort();
        at += (size_t)r;
    }
    if (!x.failed)
        dw_ift_rx_close(rx, DW_CLOSE_LOST);
    if (!x.failed || x.k != x.m.frames || dw_ift_rx_feed(rx, x.s, x.len) != DW_ERR_PROTO)
        abort();
    dw_ift_rx_del(rx);
    return 0;
}
