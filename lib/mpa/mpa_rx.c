/* SPDX-License-Identifier: MIT */
/* MPA in-order receiver: octet stream in, verified ULPDUs out. */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "mpa/mpa_crc.h"
#include "mpa/mpa_internal.h"
#include "mpa/mpa_short.h"
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(mpa_rx_callbacks_v, dw_mpa_rx_callbacks, get_buffer);
DW_VERSIONS_1(mpa_rx_settings_v, dw_mpa_rx_settings, mem);

enum state { ST_HDR, ST_BODY, ST_CRC };

struct dw_mpa_rx {
    dw_mpa_rx_settings set;
    dw_mpa_rx_callbacks cb;
    void *user;
    uint64_t off;      /* stream offset of the next octet */
    enum state st;
    dw_mpa_error failed;
    /* the FPDU being received */
    int started;       /* any of its octets (a leading marker) seen */
    uint64_t fpdu_off; /* its first octet */
    uint64_t hdr_off;  /* its ULPDU_Length field */
    uint32_t crc;
    size_t ulen;       /* ULPDU length */
    size_t got;        /* ULPDU octets placed */
    size_t body_left;  /* ULPDU + PAD octets still to come */
    int marker_bad;    /* a marker disagreed with this FPDU's start */
    uint8_t *dst;      /* where the ULPDU goes */
    uint8_t hold[4];   /* a partial length, marker or CRC field */
    unsigned held;
    uint8_t mark[4];   /* a partial marker */
    unsigned mheld;
    uint8_t *buf;      /* own ULPDU buffer, set.buf_size octets */
    int stop;          /* on_ulpdu asked feed() to return */
    int nobuf;         /* a ULPDU had nowhere to go: nothing more taken */
    dw_mpa_rx_iov_fn iov_fn; /* instead of on_ulpdu, when set */
    int niov;          /* iov_fn: pieces in iov (0: one, at the data) */
    struct iovec iov[DW_MPA_ULPDU_IOV_MAX];
};

static void mpa_rx_settings_fill(dw_mpa_rx_settings *s)
{
    memset(s, 0, sizeof *s);
    s->markers = 1;
    s->crc = 1;
    s->check_markers = 1;
    s->buf_size = 65535;
}

int dw_mpa_rx_settings_default_versioned(int settings_version, dw_mpa_rx_settings *s)
{
    dw_mpa_rx_settings cur;
    mpa_rx_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, mpa_rx_settings_v);
}

static int mpa_rx_new_latest(dw_mpa_rx **prx, const dw_mpa_rx_settings *settings,
                             const dw_mpa_rx_callbacks *cb, void *user_data)
{
    dw_mpa_rx_settings def;
    if (!prx || !cb || !cb->on_ulpdu)
        return DW_ERR_INVAL;
    *prx = NULL;
    if (!settings) {
        dw_mpa_rx_settings_default(&def);
        settings = &def;
    }
    dw_mpa_rx *rx = dw_mem_calloc(settings->mem, 1, sizeof *rx);
    if (!rx)
        return DW_ERR_NOMEM;
    rx->set = *settings;
    if (rx->set.buf_size > 65535)
        rx->set.buf_size = 65535; /* the largest ULPDU_Length */
    /* + 2: the ULPDU goes at buf + 2 (see ulpdu_dst) */
    rx->buf = rx->set.buf_size ? dw_mem_malloc(rx->set.mem, rx->set.buf_size + 2) : NULL;
    if (rx->set.buf_size && !rx->buf) {
        dw_mem_free(settings->mem, rx);
        return DW_ERR_NOMEM;
    }
    rx->cb = *cb;
    rx->user = user_data;
    *prx = rx;
    return 0;
}

int dw_mpa_rx_new_versioned(dw_mpa_rx **prx, int settings_version,
                            const dw_mpa_rx_settings *settings, int callbacks_version,
                            const dw_mpa_rx_callbacks *cb, void *user_data)
{
    dw_mpa_rx_settings settings_cur;
    if (settings_version != DW_MPA_RX_SETTINGS_VERSION)
        dw_mpa_rx_settings_default(&settings_cur);
    dw_mpa_rx_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, mpa_rx_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, mpa_rx_callbacks_v, err);
    if (err)
        return err;
    return mpa_rx_new_latest(prx, settings, cb, user_data);
}

void dw_mpa_rx_del(dw_mpa_rx *rx)
{
    if (!rx)
        return;
    dw_mem_free(rx->set.mem, rx->buf);
    dw_mem_free(rx->set.mem, rx);
}

int dw_mpa_rx_set_iov_fn(dw_mpa_rx *rx, dw_mpa_rx_iov_fn fn)
{
    if (!rx)
        return DW_ERR_INVAL;
    rx->iov_fn = fn;
    return 0;
}

uint64_t dw_mpa_rx_offset(const dw_mpa_rx *rx)
{
    return rx->off;
}

dw_mpa_error dw_mpa_rx_failed(const dw_mpa_rx *rx)
{
    return rx->failed;
}

static int fail(dw_mpa_rx *rx, dw_mpa_error code, dw_close_reason why,
                int clean)
{
    rx->failed = code;
    if (rx->cb.on_error) {
        dw_mpa_rx_error e = {code, rx->fpdu_off,
                             (uint32_t)(rx->set.start_seq + rx->fpdu_off),
                             why, clean};
        if (code == DW_MPA_ERR_CLOSED && clean)
            e.offset = rx->off, e.seq = (uint32_t)(rx->set.start_seq + rx->off);
        rx->cb.on_error(rx, &e, rx->user);
    }
    return DW_ERR_PROTO;
}

/* MPA 7.1: FPDUPTR (low two bits reserved, MPA 6.1) must name this FPDU's
 * start; the draft's and RFC 5044's readings are both accepted. */
static void check_marker(dw_mpa_rx *rx, const uint8_t *m, uint64_t at)
{
    if (!rx->set.check_markers)
        return;
    uint16_t ptr = dw_get_be16(m + 2) & 0xfffc;
    if (at == rx->fpdu_off) {
        rx->marker_bad |= ptr != 0;
        return;
    }
    rx->marker_bad |= ptr != (uint16_t)(at - rx->fpdu_off) &&
                      ptr != (uint16_t)(at - rx->hdr_off);
}

static void begin_fpdu(dw_mpa_rx *rx, uint64_t at)
{
    rx->started = 1;
    rx->fpdu_off = rx->hdr_off = at;
    rx->crc = 0;
    rx->marker_bad = 0;
}

/* Where a ULPDU that cannot be delivered in place goes: the caller's
 * buffer when get_buffer gives one, else our own if it is long enough;
 * NULL (and nothing more taken) when neither is there. Our own puts it
 * 2 octets past a malloc boundary, as on the wire (2 mod 4 from the FPDU's
 * start, so its octets after each marker land on dwords): the strip
 * kernel's stores are then 4-aligned, 0.83-0.89x of CRC-only alone on
 * Zen 3 against 0.65-0.75x at 2 mod 4 (28-big). */
static uint8_t *ulpdu_dst(dw_mpa_rx *rx, size_t ulen)
{
    static uint8_t none[1]; /* an empty ULPDU needs no room */
    uint8_t *d = ulen && rx->cb.get_buffer ? rx->cb.get_buffer(rx, ulen, rx->user)
                                           : NULL;
    if (!d)
        d = !ulen ? none : ulen <= rx->set.buf_size ? rx->buf + 2 : NULL;
    rx->nobuf = !d;
    return d;
}

static void set_length(dw_mpa_rx *rx, size_t ulen)
{
    rx->ulen = ulen;
    rx->got = 0;
    rx->body_left = ulen + dw_mpa_pad_len(ulen);
    rx->dst = ulpdu_dst(rx, ulen);
    rx->st = ST_BODY;
}

/* The FPDU's CRC field is complete: verify and deliver (MPA 7.2, 9). */
static int finish(dw_mpa_rx *rx, uint32_t wire_crc, const uint8_t *data)
{
    int k = rx->niov;
    rx->st = ST_HDR;
    rx->started = 0;
    rx->niov = 0;
    if (rx->set.crc && wire_crc != rx->crc)
        return fail(rx, DW_MPA_ERR_CRC, 0, 0);
    if (rx->marker_bad) /* MPA 9 code 3: only when the CRC is valid */
        return fail(rx, DW_MPA_ERR_MARKER, 0, 0);
    if (rx->iov_fn) {
        if (!k) {
            rx->iov[0].iov_base = (void *)(uintptr_t)data;
            rx->iov[0].iov_len = rx->ulen;
            k = 1;
        }
        rx->stop = rx->iov_fn(rx, rx->iov, k, rx->ulen, rx->fpdu_off, rx->user) != 0;
        return 0;
    }
    rx->stop = rx->cb.on_ulpdu(rx, data, rx->ulen, rx->fpdu_off, rx->user) != 0;
    return 0;
}

static uint32_t crc_add(const dw_mpa_rx *rx, uint32_t crc, const uint8_t *p,
                        size_t n)
{
    return rx->set.crc ? dw_crc32c(crc, p, n) : 0;
}

/* A whole FPDU at in (stream offset rx->off, markers inside its ULPDU):
 * its ULPDU to dst without markers, and its CRC into rx->crc. */
static void strip_copy(dw_mpa_rx *rx, const uint8_t *in, size_t ulen,
                       uint8_t *dst)
{
    dw_mpa_img im;
    dw_mpa_img_init(&im, NULL, ulen, (uint32_t)rx->off, 1, 0);
    if (!rx->set.crc) { /* no CRC to take: the copy alone */
        uint32_t got = 0, at = im.hdr_off + 2, m = im.mark;
        while (got < ulen) {
            uint32_t take = m - at < ulen - got ? m - at : (uint32_t)ulen - got;
            memcpy(dst + got, in + at, take);
            got += take, at = m + 4, m += DW_MPA_MARKER_INTERVAL;
        }
        return;
    }
    /* one pass (AVX-512: fold the image, scatter the ULPDU) or chunks (one
     * CRC call per chunk of the image, then its ULPDU copied out); the
     * portable reference takes the chunks too */
    const dw_mpa_crc_ops *ops = dw_mpa_crc_fast();
    rx->crc = (ops ? ops->rx : dw_mpa_chunk_rx)(&im, in, dst);
}

/* The ULPDU of a whole FPDU at in as pieces between its markers (MPA 7.1),
 * no copy: u its first octet, m its first marker after u (offsets in in). */
static int ulpdu_pieces(struct iovec *iov, const uint8_t *in, size_t u,
                        size_t ulen, size_t m)
{
    /* m > u, a marker inside: the piece before it, whole 508-octet pieces
     * (dw_mpa_iov_pieces, 28-big), the rest */
    iov[0] = (struct iovec){(void *)(uintptr_t)(in + u), m - u};
    ulen -= m - u;
    uint32_t f = (uint32_t)((ulen - 1) / 508);
    dw_mpa_iov_pieces(iov + 1, in + m, f);
    iov[f + 1] = (struct iovec){(void *)(uintptr_t)(in + m + 512 * (size_t)f + 4),
                                ulen - 508 * (size_t)f};
    return (int)f + 2;
}

/* dw_mpa_fpdu_len() inline: the FPDU at stream offset off with a ULPDU of
 * ulen octets, on the wire (MPA 6, 7.1). */
static inline size_t fpdu_len(uint64_t off, size_t ulen, int mk)
{
    size_t content = dw_mpa_content_len(ulen);
    if (!mk)
        return content;
    size_t n = 0, o = (size_t)(off % DW_MPA_MARKER_INTERVAL);
    if (!o) /* MPA 7.1: a marker between FPDUs leads this one */
        n = 1, o = DW_MPA_MARKER_LEN;
    size_t room = DW_MPA_MARKER_INTERVAL - o;
    if (content > room)
        n += 1 + (content - room - 1) / (DW_MPA_MARKER_INTERVAL - DW_MPA_MARKER_LEN);
    return content + DW_MPA_MARKER_LEN * n;
}

/*
 * Fast path: a whole FPDU at the start of the input, no partial state.
 * Returns octets consumed (0: not applicable), or a negative error.
 */
static ssize_t whole_fpdu(dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    int mk = rx->set.markers;
    size_t lead = mk && dw_mpa_is_marker_pos(rx->off) ? 4 : 0;
    if (n < lead + 2)
        return 0;
    size_t ulen = dw_get_be16(in + lead);
    size_t flen = fpdu_len(rx->off, ulen, mk);
    if (n < flen)
        return 0;
    begin_fpdu(rx, rx->off);
    rx->hdr_off = rx->off + lead;
    rx->ulen = ulen;
    const uint8_t *data = in + lead + 2;
    /* Markers at positions 512k in [off, off + flen). */
    uint64_t first = (rx->off + DW_MPA_MARKER_INTERVAL - 1) & ~(uint64_t)511;
    uint64_t m = first, end = rx->off + flen;
    if (mk && m == rx->off) /* leading (then m < end) */
        check_marker(rx, in, m), m += DW_MPA_MARKER_INTERVAL;
    uint32_t nm = mk && m < end ? (uint32_t)((end - m + 511) / 512) : 0;
    int inside = nm && m < rx->hdr_off + 2 + ulen; /* in the ULPDU octets */
    if (!inside || rx->iov_fn) /* the CRC over the wire octets alone */
        rx->crc = crc_add(rx, 0, in, flen - 4);
    if (inside && rx->iov_fn) { /* the ULPDU as pieces between markers */
        rx->niov = ulpdu_pieces(rx->iov, in, lead + 2, ulen, first - rx->off +
                                (first == rx->off ? DW_MPA_MARKER_INTERVAL : 0));
    } else if (inside) { /* strip markers while copying, CRC over all */
        uint8_t *dst = ulpdu_dst(rx, ulen);
        if (!dst)
            return DW_ERR_NOMEM;
        strip_copy(rx, in, ulen, dst);
        data = dst;
    }
    /* the other markers in one call (28-big), after the CRC: in L1 now */
    if (nm && rx->set.check_markers)
        rx->marker_bad |= dw_mpa_markers_bad(in + (m - rx->off), nm,
                                             (uint32_t)(m - rx->fpdu_off),
                                             (uint32_t)(m - rx->hdr_off));
    rx->off += flen;
    int rc = finish(rx, dw_crc32c_load(in + flen - 4), data);
    return rc ? rc : (ssize_t)flen;
}

/* Images (FPDU octets before the CRC field) up to this long take the
 * short path: fewer than 508 octets hold at most one marker after the
 * first octet (MPA 7.1). */
#define SHORT_IMG_MAX DW_MPA_CRC_WIRE_MAX

/* n octets (fewer than SHORT_IMG_MAX) in 16-octet moves, the last one
 * overlapping: no call, no string instruction's start-up. */
static inline void copy_short(uint8_t *d, const uint8_t *s, size_t n)
{
    if (n >= 16) {
        for (size_t i = 0; i + 16 < n; i += 16)
            memcpy(d + i, s + i, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        if (n > 8) {
            uint64_t x, y;
            memcpy(&x, s, 8);
            memcpy(&y, s + n - 8, 8);
            memcpy(d, &x, 8);
            memcpy(d + n - 8, &y, 8);
            return;
        }
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

/*
 * Short FPDUs back to back at the start of the input, no partial state,
 * the CRC on the crc32 instruction (dw_mpa_crc_wire): per FPDU the
 * length, one CRC call, the markers checked, delivery; no state machine.
 * Anything else (a longer FPDU, one cut by the read, a CRC or marker that
 * does not verify, no buffer) is left to whole_fpdu() and step(), which
 * report it. Returns octets consumed.
 */
static __attribute__((noinline)) ssize_t short_run(dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    const uint8_t *p = in;
    uint64_t off = rx->off;
    int mk = rx->set.markers, chk = rx->set.check_markers, stop = 0;
    while (!stop) {
        size_t o = mk ? (size_t)(off % DW_MPA_MARKER_INTERVAL) : 1;
        size_t lead = o ? 0 : DW_MPA_MARKER_LEN, left = (size_t)(in + n - p);
        if (left < lead + 2)
            break;
        size_t ulen = dw_get_be16(p + lead), img = lead + 2 + ulen + dw_mpa_pad_len(ulen);
        /* the first marker after octet 0: 512 on from a leading one */
        size_t m = mk ? DW_MPA_MARKER_INTERVAL - (lead ? 0 : o) : SIZE_MAX;
        size_t in_mk = m <= img; /* inside the ULPDU, or after its PAD (7.2) */
        img += DW_MPA_MARKER_LEN * in_mk;
        if (img > SHORT_IMG_MAX || left < img + 4)
            break;
        if (chk && ((lead && (dw_get_be16(p + 2) & 0xfffc)) ||
                    (in_mk && (dw_get_be16(p + m + 2) & 0xfffc) != m &&
                     (dw_get_be16(p + m + 2) & 0xfffc) != m - lead)))
            break; /* MPA 7.1: whole_fpdu() tells after the CRC */
        if (dw_mpa_crc_wire(p, img) != dw_crc32c_load(p + img))
            break; /* whole_fpdu() reports it */
        const uint8_t *data = p + lead + 2;
        size_t g = m - lead - 2; /* ULPDU octets before an inside marker */
        dw_mpa_rx_iov_fn fn = rx->iov_fn;
        int k = 1;
        rx->iov[0] = (struct iovec){(void *)(uintptr_t)data, ulen};
        if (in_mk && g < ulen) { /* MPA 7.1: a marker splits the ULPDU */
            if (fn) {
                rx->iov[0].iov_len = g;
                rx->iov[1] = (struct iovec){(void *)(uintptr_t)(p + m + 4), ulen - g};
                k = 2;
            } else {
                uint8_t *dst = ulpdu_dst(rx, ulen);
                if (!dst) { /* as whole_fpdu(): the FPDU begun, nothing more */
                    begin_fpdu(rx, off);
                    rx->hdr_off = off + lead;
                    rx->ulen = ulen;
                    return DW_ERR_NOMEM;
                }
                copy_short(dst, data, g);
                copy_short(dst + g, p + m + 4, ulen - g);
                data = dst;
            }
        }
        rx->fpdu_off = off; /* the callbacks may ask for rx->off */
        rx->off = off += img + 4;
        p += img + 4;
        stop = (fn ? fn(rx, rx->iov, k, ulen, rx->fpdu_off, rx->user)
                   : rx->cb.on_ulpdu(rx, data, ulen, rx->fpdu_off, rx->user)) != 0;
        rx->stop = stop;
        stop |= rx->failed != 0; /* a callback may close */
    }
    return (ssize_t)(p - in);
}

/* Whether the FPDU at in may be short (its ULPDU_Length alone says no
 * for longer ones): the batch loop is not entered for long FPDUs. */
static inline int short_next(const dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    size_t lead = rx->set.markers && !(rx->off % DW_MPA_MARKER_INTERVAL) ? DW_MPA_MARKER_LEN : 0;
    return n >= lead + 2 && dw_get_be16(in + lead) <= SHORT_IMG_MAX;
}

/* One step of the octet-at-a-time machine: consumes 1..n octets. */
static ssize_t marker_step(dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    size_t take = 4 - rx->off % 512;
    take = take < n ? take : n;
    if (!rx->started) /* MPA 7.1: a marker between FPDUs leads the next */
        begin_fpdu(rx, rx->off);
    memcpy(rx->mark + rx->mheld, in, take);
    rx->crc = crc_add(rx, rx->crc, in, take);
    rx->mheld += (unsigned)take;
    rx->off += take;
    if (rx->mheld == 4) {
        rx->mheld = 0;
        check_marker(rx, rx->mark, rx->off - 4);
    }
    return (ssize_t)take;
}

static ssize_t body_step(dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    size_t take = rx->body_left < n ? rx->body_left : n;
    if (rx->set.markers && take > 512 - rx->off % 512)
        take = 512 - rx->off % 512;
    size_t u = rx->ulen - rx->got;
    u = u < take ? u : take;
    if (rx->set.crc)
        rx->crc = dw_crc32c_copy(rx->crc, rx->dst + rx->got, in, u);
    else
        memcpy(rx->dst + rx->got, in, u);
    rx->crc = crc_add(rx, rx->crc, in + u, take - u); /* PAD */
    rx->got += u;
    rx->off += take;
    if (!(rx->body_left -= take))
        rx->st = ST_CRC;
    return (ssize_t)take;
}

/* Periods at least this many are folded in one pass (below: pieces). */
#define RUN_MIN 2

/*
 * An FPDU that spans reads, at one of its markers: the whole periods here
 * (MPA 7.1: the marker and 508 ULPDU octets) in one pass of the kernel,
 * the CRC register carried across. Returns octets consumed (0: not here).
 */
static ssize_t periods_step(dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    if (!rx->set.crc || rx->st != ST_BODY || rx->off % 512 || rx->mheld)
        return 0;
    size_t j = n / 512, jd = (rx->ulen - rx->got) / 508;
    j = j < jd ? j : jd;
    if (j < RUN_MIN)
        return 0;
    const dw_mpa_crc_ops *ops = dw_mpa_crc_fast();
    rx->crc = ~(ops ? ops->rx_run : dw_mpa_chunk_rx_run)(in, rx->dst + rx->got,
                                                          j, ~rx->crc);
    if (rx->set.check_markers) /* after the kernel (in L1); never leading */
        rx->marker_bad |= dw_mpa_markers_bad(in, (uint32_t)j,
                                             (uint32_t)(rx->off - rx->fpdu_off),
                                             (uint32_t)(rx->off - rx->hdr_off));
    rx->got += 508 * j;
    rx->off += 512 * j;
    if (!(rx->body_left -= 508 * j))
        rx->st = ST_CRC;
    return (ssize_t)(512 * j);
}

static ssize_t step(dw_mpa_rx *rx, const uint8_t *in, size_t n)
{
    ssize_t r = rx->set.markers ? periods_step(rx, in, n) : 0;
    if (r)
        return r;
    if (rx->set.markers && rx->off % 512 < 4)
        return marker_step(rx, in, n);
    if (rx->st == ST_BODY)
        return body_step(rx, in, n);
    size_t want = rx->st == ST_HDR ? 2 : 4;
    size_t take = want - rx->held < n ? want - rx->held : n;
    if (rx->st == ST_HDR) {
        if (!rx->started)
            begin_fpdu(rx, rx->off);
        if (!rx->held)
            rx->hdr_off = rx->off;
        rx->crc = crc_add(rx, rx->crc, in, take);
    }
    memcpy(rx->hold + rx->held, in, take);
    rx->held += (unsigned)take;
    rx->off += take;
    if (rx->held < want)
        return (ssize_t)take;
    rx->held = 0;
    if (rx->st == ST_HDR) {
        set_length(rx, dw_get_be16(rx->hold));
        return rx->nobuf ? DW_ERR_NOMEM : (ssize_t)take;
    }
    int rc = finish(rx, dw_crc32c_load(rx->hold), rx->dst);
    return rc ? rc : (ssize_t)take;
}

ssize_t dw_mpa_rx_feed(dw_mpa_rx *rx, const void *in, size_t len)
{
    if (!rx || (!in && len))
        return DW_ERR_INVAL;
    if (rx->failed) /* MPA 9: nothing more after an error */
        return DW_ERR_PROTO;
    if (rx->nobuf)
        return DW_ERR_NOMEM;
    const uint8_t *p = in;
    size_t left = len;
    rx->stop = 0;
    /* short FPDUs in a batch: the CRC path chosen once per read */
    int fast = -1, try_short = 1; /* fast: CRC path asked once per read */
    while (left && !rx->stop && !rx->failed) { /* a callback may close */
        ssize_t r = 0;
        if (try_short && rx->st == ST_HDR && !rx->started && short_next(rx, p, left) &&
            (fast < 0 ? (fast = rx->set.crc && dw_mpa_crc_hw()) : fast)) {
            ssize_t k = short_run(rx, p, left);
            if (k < 0)
                return k;
            p += k, left -= (size_t)k;
            if (!left || rx->stop || rx->failed)
                break;
        }
        if (rx->st == ST_HDR && !rx->started) {
            r = whole_fpdu(rx, p, left);
            /* after a long FPDU, the next is not looked at twice */
            try_short = r <= (ssize_t)(SHORT_IMG_MAX + 4);
        }
        if (r == 0)
            r = step(rx, p, left);
        if (r < 0)
            return r;
        p += r;
        left -= (size_t)r;
    }
    return rx->failed ? DW_ERR_PROTO : (ssize_t)(len - left);
}

int dw_mpa_rx_close(dw_mpa_rx *rx, dw_close_reason reason)
{
    if (!rx)
        return DW_ERR_INVAL;
    if (rx->failed)
        return DW_ERR_PROTO;
    int clean = !rx->started;
    fail(rx, DW_MPA_ERR_CLOSED, reason, clean); /* MPA 5.1, 9: code 1 */
    return clean ? 0 : DW_ERR_PROTO;
}
