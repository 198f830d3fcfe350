/* SPDX-License-Identifier: MIT */
/* IFT in-order receiver: octet stream in, verified headers and payloads out. */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(ift_rx_callbacks_v, dw_ift_rx_callbacks, on_error);
DW_VERSIONS_1(ift_rx_settings_v, dw_ift_rx_settings, mem);

/* Where the next octet belongs. Between frames: ST_SIZES with held 0. */
enum state { ST_SIZES, ST_HDR, ST_PAYLOAD, ST_PCRC };

struct dw_ift_rx {
    dw_ift_rx_settings set;
    dw_ift_rx_callbacks cb;
    void *user;
    uint64_t off;       /* stream offset of the next octet */
    enum state st;
    dw_ift_error failed;
    int stop;           /* a callback asked feed() to return */
    /* the frame being received */
    uint64_t frame_off; /* its first octet */
    size_t hlen, plen;
    size_t got;         /* payload octets consumed */
    uint32_t crc;       /* running payload CRC */
    uint8_t *dst;       /* get_buffer's destination, or NULL: streamed */
    int need_dst;       /* get_buffer still to be asked */
    size_t held;        /* octets in hold */
    uint8_t *hold;      /* sizes + header + header CRC, or a payload CRC */
};

static void ift_rx_settings_fill(dw_ift_rx_settings *s)
{
    memset(s, 0, sizeof *s);
    s->crc = 1;
    s->max_header = 64;
    s->min_header = 0;
    s->max_payload = DW_IFT_SIZE_MAX;
}

int dw_ift_rx_settings_default_versioned(int settings_version, dw_ift_rx_settings *s)
{
    dw_ift_rx_settings cur;
    ift_rx_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, ift_rx_settings_v);
}

static int ift_rx_new_latest(dw_ift_rx **prx, const dw_ift_rx_settings *s,
                             const dw_ift_rx_callbacks *cb, void *user_data)
{
    dw_ift_rx_settings def;
    if (!prx || !cb || !cb->on_end)
        return DW_ERR_INVAL;
    *prx = NULL;
    if (!s) {
        dw_ift_rx_settings_default(&def);
        s = &def;
    }
    dw_ift_rx_settings set = *s;
    if (set.max_header > DW_IFT_SIZE_MAX)
        set.max_header = DW_IFT_SIZE_MAX;
    if (set.min_header > set.max_header)
        return DW_ERR_INVAL;
    dw_ift_rx *rx = dw_mem_calloc(set.mem, 1, sizeof *rx);
    if (!rx)
        return DW_ERR_NOMEM;
    rx->hold = dw_mem_malloc(set.mem, set.max_header + DW_IFT_SIZES_LEN + DW_IFT_CRC_LEN);
    if (!rx->hold) {
        dw_mem_free(set.mem, rx);
        return DW_ERR_NOMEM;
    }
    rx->set = set;
    rx->cb = *cb;
    rx->user = user_data;
    *prx = rx;
    return 0;
}

int dw_ift_rx_new_versioned(dw_ift_rx **prx, int settings_version, const dw_ift_rx_settings *s,
                            int callbacks_version, const dw_ift_rx_callbacks *cb,
                            void *user_data)
{
    dw_ift_rx_settings s_cur;
    if (settings_version != DW_IFT_RX_SETTINGS_VERSION)
        dw_ift_rx_settings_default(&s_cur);
    dw_ift_rx_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, ift_rx_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, ift_rx_callbacks_v, err);
    if (err)
        return err;
    return ift_rx_new_latest(prx, s, cb, user_data);
}

void dw_ift_rx_del(dw_ift_rx *rx)
{
    if (!rx)
        return;
    dw_mem_free(rx->set.mem, rx->hold);
    dw_mem_free(rx->set.mem, rx);
}

uint64_t dw_ift_rx_offset(const dw_ift_rx *rx)
{
    return rx->off;
}

dw_ift_error dw_ift_rx_failed(const dw_ift_rx *rx)
{
    return rx->failed;
}

static ssize_t fail(dw_ift_rx *rx, dw_ift_error code, dw_close_reason reason, int clean)
{
    rx->failed = code;
    if (rx->cb.on_error) {
        dw_ift_rx_error e = {code, clean ? rx->off : rx->frame_off, clean,
                             reason};
        rx->cb.on_error(rx, &e, rx->user);
    }
    return DW_ERR_PROTO;
}

/*
 * Takes the size fields of the frame starting at rx->frame_off; zero when
 * outside the limits. They are not protected until the header CRC
 * arrives, so a SIZE error may also be a corrupted size field; it is
 * reported at once all the same, since a header over max_header cannot
 * be held to check its CRC.
 */
static int sizes_ok(dw_ift_rx *rx, const uint8_t *sz)
{
    rx->hlen = dw_get_be16(sz);
    rx->plen = dw_get_be16(sz + 2);
    return rx->hlen >= rx->set.min_header && rx->hlen <= rx->set.max_header &&
           rx->plen <= rx->set.max_payload;
}

/* Sizes and header (contiguous at sh) and the header CRC are in: verify,
 * then hand out the header (IFT 5.1: placement may begin). */
static ssize_t got_header(dw_ift_rx *rx, const uint8_t *sh, const uint8_t *hcrc)
{
    if (rx->set.crc &&
        dw_crc32c(0, sh, DW_IFT_SIZES_LEN + rx->hlen) != dw_crc32c_load(hcrc))
        return fail(rx, DW_IFT_ERR_HEADER_CRC, DW_CLOSE_FIN, 0);
    rx->st = rx->plen ? ST_PAYLOAD : ST_PCRC;
    rx->held = 0;
    rx->got = 0;
    rx->crc = 0;
    rx->dst = NULL;
    rx->need_dst = rx->plen && rx->cb.get_buffer;
    if (rx->cb.on_header)
        rx->stop = rx->cb.on_header(rx, sh + DW_IFT_SIZES_LEN, rx->hlen,
                                    rx->plen, rx->frame_off, rx->user) != 0;
    return 0;
}

/* Asks get_buffer once per frame, before the first payload octet. */
static void want_dst(dw_ift_rx *rx)
{
    if (!rx->need_dst)
        return;
    rx->need_dst = 0;
    rx->dst = rx->cb.get_buffer(rx, rx->plen, rx->user);
}

/* take payload octets: copied with the CRC, or streamed unverified. */
static void got_payload(dw_ift_rx *rx, const uint8_t *in, size_t take)
{
    size_t at = rx->got;
    if (rx->dst && rx->set.crc)
        rx->crc = dw_crc32c_copy(rx->crc, rx->dst + at, in, take);
    else if (rx->dst)
        memcpy(rx->dst + at, in, take);
    else if (rx->set.crc)
        rx->crc = dw_crc32c(rx->crc, in, take);
    rx->got += take;
    rx->off += take;
    if (rx->got == rx->plen)
        rx->st = ST_PCRC;
    if (!rx->dst && rx->cb.on_payload)
        rx->stop = rx->cb.on_payload(rx, in, take, at, rx->user) != 0;
}

/* The payload CRC is in: the frame ends, good or bad. */
static ssize_t got_pcrc(dw_ift_rx *rx, const uint8_t *pcrc)
{
    rx->st = ST_SIZES;
    rx->held = 0;
    if (rx->set.crc && dw_crc32c_load(pcrc) != rx->crc)
        return fail(rx, DW_IFT_ERR_PAYLOAD_CRC, DW_CLOSE_FIN, 0);
    rx->stop = rx->cb.on_end(rx, rx->frame_off, rx->user) != 0;
    return 0;
}

/* Streams a whole payload whose CRC field follows it in the input,
 * checked first: a corrupt one is never streamed. */
static ssize_t stream_whole(dw_ift_rx *rx, const uint8_t *pay)
{
    size_t p = rx->plen;
    uint32_t c = rx->set.crc ? dw_crc32c(0, pay, p) : 0;
    rx->off += p;
    rx->got = p;
    rx->st = ST_PCRC;
    if (rx->set.crc && c != dw_crc32c_load(pay + p)) {
        rx->off += DW_IFT_CRC_LEN;
        return fail(rx, DW_IFT_ERR_PAYLOAD_CRC, DW_CLOSE_FIN, 0);
    }
    rx->crc = c;
    if (rx->cb.on_payload)
        rx->stop = rx->cb.on_payload(rx, pay, p, 0, rx->user) != 0;
    return 0;
}

/* The rest of the frame (payload and its CRC) is in the input: one pass. */
static ssize_t whole_payload(dw_ift_rx *rx, const uint8_t *pay)
{
    size_t p = rx->plen;
    if (p) {
        want_dst(rx);
        if (rx->failed)
            return DW_ERR_PROTO;
        if (rx->dst)
            got_payload(rx, pay, p);
        else if (stream_whole(rx, pay))
            return DW_ERR_PROTO;
        if (rx->stop || rx->failed)
            return (ssize_t)p;
    }
    rx->off += DW_IFT_CRC_LEN;
    ssize_t rc = got_pcrc(rx, pay + p);
    return rc ? rc : (ssize_t)(p + DW_IFT_CRC_LEN);
}

/*
 * Fast path at a frame boundary: header in place when sizes, header and
 * header CRC are all in the input, and the whole frame in one pass when
 * it is. Returns octets consumed (0: not applicable) or an error.
 */
static ssize_t frame_fast(dw_ift_rx *rx, const uint8_t *in, size_t n)
{
    if (n < DW_IFT_SIZES_LEN)
        return 0;
    rx->frame_off = rx->off;
    if (!sizes_ok(rx, in)) {
        rx->off += DW_IFT_SIZES_LEN;
        return fail(rx, DW_IFT_ERR_SIZE, DW_CLOSE_FIN, 0);
    }
    ssize_t rc;
    size_t hl = DW_IFT_SIZES_LEN + rx->hlen + DW_IFT_CRC_LEN;
    if (n < hl)
        return 0;
    rx->off += hl;
    if ((rc = got_header(rx, in, in + hl - DW_IFT_CRC_LEN)) != 0)
        return rc;
    if (rx->stop || rx->failed || n - hl < rx->plen + DW_IFT_CRC_LEN)
        return (ssize_t)hl; /* the payload goes through step() */
    rc = whole_payload(rx, in + hl);
    return rc < 0 ? rc : (ssize_t)hl + rc;
}

/* Collects up to want octets into hold; non-zero when it has them. */
static int collect(dw_ift_rx *rx, const uint8_t *in, size_t n, size_t want,
                   size_t *took)
{
    size_t take = want - rx->held < n ? want - rx->held : n;
    memcpy(rx->hold + rx->held, in, take);
    rx->held += take;
    rx->off += take;
    *took = take;
    return rx->held == want;
}

/* One step of the machine for a frame split across feeds. */
static ssize_t step(dw_ift_rx *rx, const uint8_t *in, size_t n)
{
    size_t took = 0;
    ssize_t rc = 0;
    switch (rx->st) {
    case ST_SIZES:
        if (!rx->held)
            rx->frame_off = rx->off;
        if (!collect(rx, in, n, DW_IFT_SIZES_LEN, &took))
            break;
        if (sizes_ok(rx, rx->hold))
            rx->st = ST_HDR;
        else
            rc = fail(rx, DW_IFT_ERR_SIZE, DW_CLOSE_FIN, 0);
        break;
    case ST_HDR:
        if (collect(rx, in, n, DW_IFT_SIZES_LEN + rx->hlen + DW_IFT_CRC_LEN, &took))
            rc = got_header(rx, rx->hold, rx->hold + rx->held - DW_IFT_CRC_LEN);
        break;
    case ST_PAYLOAD:
        if (!rx->got && n >= rx->plen + DW_IFT_CRC_LEN)
            return whole_payload(rx, in); /* the rest of the frame is here */
        want_dst(rx);
        if (rx->failed)
            return DW_ERR_PROTO;
        took = rx->plen - rx->got < n ? rx->plen - rx->got : n;
        got_payload(rx, in, took);
        break;
    case ST_PCRC:
        if (collect(rx, in, n, DW_IFT_CRC_LEN, &took))
            rc = got_pcrc(rx, rx->hold);
        break;
    }
    return rc ? rc : (ssize_t)took;
}

ssize_t dw_ift_rx_feed(dw_ift_rx *rx, const void *in, size_t len)
{
    if (!rx || (!in && len))
        return DW_ERR_INVAL;
    if (rx->failed) /* nothing more after an error */
        return DW_ERR_PROTO;
    const uint8_t *p = in;
    size_t left = len;
    rx->stop = 0;
    while (left && !rx->stop && !rx->failed) { /* a callback may close */
        ssize_t r = 0;
        if (rx->st == ST_SIZES && !rx->held)
            r = frame_fast(rx, p, left);
        if (r == 0)
            r = step(rx, p, left);
        if (r < 0)
            return r;
        p += r;
        left -= (size_t)r;
    }
    return rx->failed ? DW_ERR_PROTO : (ssize_t)(len - left);
}

int dw_ift_rx_close(dw_ift_rx *rx, dw_close_reason reason)
{
    if (!rx)
        return DW_ERR_INVAL;
    if (rx->failed)
        return DW_ERR_PROTO;
    int clean = rx->st == ST_SIZES && !rx->held;
    fail(rx, DW_IFT_ERR_CLOSED, reason, clean);
    return clean ? 0 : DW_ERR_PROTO;
}
