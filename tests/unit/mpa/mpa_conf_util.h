/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the MPA conformance suite (test_mpa_conformance.c: the sender
 * and the FPDU layout, MPA 6 to 7.3; test_mpa_conformance_rx.c: the
 * receiver, MPA 5.2, 7.4, 8.1, 9): a payload pattern, streams built by the
 * library's sender, a collecting receiver, and an independent reference
 * model of the sender's octets.
 */
#ifndef DW_TEST_MPA_CONF_UTIL_H
#define DW_TEST_MPA_CONF_UTIL_H

#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include "mpa_util.h"
/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

#define WCAP (1u << 18) /* every stream built here is shorter */
#define MAXREC 256

static uint8_t pat[70000];           /* payload pattern */
static uint8_t wire[WCAP], wire2[WCAP];
static uint8_t refw[WCAP] __attribute__((unused)); /* the sender's tests only */
static uint8_t place_buf[65536];

static inline void pat_init(void)
{
    for (size_t i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)(i * 131u + (i >> 9) + 7u);
}

/* Payload of record i: distinct for neighbouring records. */
static inline const uint8_t *payload(size_t i)
{
    return pat + (i * 37u) % 4096u;
}

static inline uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Stores the CRC32c of w[start, end - 4) in the last 4 octets (wire order). */
static inline void fix_crc(uint8_t *w, size_t start, size_t end)
{
    dw_crc32c_store(w + end - 4, dw_crc32c(0, w + start, end - 4 - start));
}

static inline dw_mpa_tx *tx_open(uint32_t start, int markers, int crc,
                          dw_mpa_ptr_base ptr, uint32_t emss,
                          dw_mpa_seg_mode seg)
{
    dw_mpa_tx_settings s;
    dw_mpa_tx_settings_default(&s);
    s.start_seq = start;
    s.markers = markers;
    s.crc = crc;
    s.ptr_base = ptr;
    s.emss = emss;
    s.seg_mode = seg;
    dw_mpa_tx *tx = NULL;
    CHECK(dw_mpa_tx_new(&tx, &s) == 0);
    return tx;
}

static inline dw_mpa_tx *tx_default(void)
{
    return tx_open(0, 1, 1, DW_MPA_PTR_DRAFT, 1460, DW_MPA_SEG_ALIGNED);
}

/* Frames n records (record i: lens[i] octets of payload(i)) through the
 * iovec (zero-copy) path into w. Returns the stream length. */
static inline size_t build(dw_mpa_tx *tx, const size_t *lens, size_t n, uint8_t *w,
                    dw_mpa_fpdu_info *info)
{
    static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        dw_mpa_fpdu_info tmp, *inf = info ? &info[i] : &tmp;
        ssize_t r = dw_mpa_tx_frame(tx, payload(i), lens[i], iov,
                                    DW_MPA_FPDU_IOV_MAX, inf);
        CHECK(r > 0);
        if (r <= 0)
            return at;
        size_t sum = 0;
        for (size_t k = 0; k < inf->iovcnt; k++) {
            if (at + sum + iov[k].iov_len > WCAP)
                abort(); /* a test bug, not a library one */
            memcpy(w + at + sum, iov[k].iov_base, iov[k].iov_len);
            sum += iov[k].iov_len;
        }
        CHECK_EQ_U(sum, r);
        CHECK_EQ_U(inf->len, r);
        CHECK_EQ_U(inf->pos, at);
        at += sum;
    }
    return at;
}

/* What a receiver delivered. */
typedef struct coll {
    size_t n;            /* ULPDUs delivered */
    size_t len[MAXREC];
    uint64_t off[MAXREC];
    uint8_t *data;       /* delivered octets, back to back */
    size_t dlen, dcap;
    int errs;            /* on_error calls */
    size_t after_err;    /* ULPDUs delivered after an error */
    dw_mpa_rx_error e;
    int close_in_cb;     /* call dw_mpa_rx_close() from on_ulpdu number 1 */
} coll;

static inline int c_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off,
                   void *u)
{
    coll *c = u;
    if (c->errs)
        c->after_err++;
    if (c->n < MAXREC) {
        c->len[c->n] = len;
        c->off[c->n] = off;
    }
    if (c->dlen + len <= c->dcap && len)
        memcpy(c->data + c->dlen, d, len);
    c->dlen += len;
    c->n++;
    if (c->close_in_cb && c->n == 1)
        dw_mpa_rx_close(rx, DW_CLOSE_FIN);
    return 0;
}

static inline void c_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    coll *c = u;
    (void)rx;
    c->errs++;
    c->e = *e;
}

static inline uint8_t *c_place(dw_mpa_rx *rx, size_t len, void *u)
{
    (void)rx, (void)u;
    return len <= sizeof place_buf ? place_buf : NULL;
}

static inline dw_mpa_rx *rx_open(coll *c, uint32_t start, int markers, int crc,
                          int check_markers, int place)
{
    memset(c, 0, sizeof *c);
    c->dcap = WCAP;
    c->data = malloc(c->dcap);
    dw_mpa_rx_settings s;
    dw_mpa_rx_settings_default(&s);
    s.start_seq = start;
    s.markers = markers;
    s.crc = crc;
    s.check_markers = check_markers;
    dw_mpa_rx_callbacks cb = {c_ulpdu, c_error, place ? c_place : NULL};
    dw_mpa_rx *rx = NULL;
    CHECK(dw_mpa_rx_new(&rx, &s, &cb, c) == 0);
    return rx;
}

static inline dw_mpa_rx *rx_default(coll *c)
{
    return rx_open(c, 0, 1, 1, 1, 0);
}

static inline void rx_close_free(dw_mpa_rx *rx, coll *c)
{
    dw_mpa_rx_del(rx);
    free(c->data);
    c->data = NULL;
}

/* Feeds len octets in pieces of `piece` octets (0: all at once). Returns 0
 * or the first negative result. */
static inline ssize_t feed(dw_mpa_rx *rx, const uint8_t *p, size_t len, size_t piece)
{
    if (!piece)
        piece = len ? len : 1;
    for (size_t i = 0; i < len; i += piece) {
        size_t n = len - i < piece ? len - i : piece;
        ssize_t r = dw_mpa_rx_feed(rx, p + i, n);
        if (r < 0)
            return r;
        CHECK_EQ_U(r, n);
    }
    return 0;
}

/* The receiver delivered exactly records 0..n-1, with their lengths, their
 * FPDU offsets and their octets, and nothing else. */
static inline void expect_records(const coll *c, const size_t *lens, size_t n,
                           const dw_mpa_fpdu_info *info)
{
    CHECK_EQ_U(c->n, n);
    CHECK_EQ_U(c->errs, 0);
    size_t at = 0;
    for (size_t i = 0; i < n && i < c->n && i < MAXREC; i++) {
        CHECK_EQ_U(c->len[i], lens[i]);
        CHECK_EQ_U(c->off[i], info[i].pos);
        CHECK(at + lens[i] <= c->dcap &&
              memcmp(c->data + at, payload(i), lens[i]) == 0);
        at += lens[i];
    }
    CHECK_EQ_U(c->dlen, at);
}

/*
 * Reference framer, written from the draft alone, octet by octet: the
 * FPDU of a ULPDU of len octets starting at MPA position pos (MPA 6: length,
 * ULPDU, zero PAD to a multiple of 4, CRC; 6.1/7.1: a marker at every
 * position p with p mod 512 == 0, FPDUPTR = p - FPDU start, 0 when the
 * marker leads the FPDU, or p - ULPDU_Length field for RFC 5044; 7.2: the
 * CRC covers everything before it, a marker right after the PAD included).
 * len may be 0..65535 (the receiver-side range). Returns the FPDU length.
 */
static inline size_t ref_frame(uint32_t pos, const uint8_t *u, size_t len, int markers,
                        int rfc5044, uint8_t *out)
{
    static uint8_t content[2 + 65535 + 3];
    size_t pad = (4 - (2 + len) % 4) % 4, clen = 2 + len + pad;
    content[0] = (uint8_t)(len >> 8);
    content[1] = (uint8_t)len;
    if (len)
        memcpy(content + 2, u, len);
    memset(content + 2 + len, 0, pad);
    uint32_t p = pos, hdr = pos;
    if (markers && pos % 512 == 0)
        hdr = pos + 4;
    size_t o = 0, i = 0;
    for (;;) {
        if (markers && p % 512 == 0) {
            uint16_t ptr = p == pos ? 0 : (uint16_t)(p - (rfc5044 ? hdr : pos));
            out[o++] = 0, out[o++] = 0;
            out[o++] = (uint8_t)(ptr >> 8), out[o++] = (uint8_t)ptr;
            p += 4;
            continue;
        }
        if (i == clen)
            break;
        out[o++] = content[i++];
        p++;
    }
    uint32_t crc = dw_crc32c(0, out, o);
    out[o++] = (uint8_t)crc; /* least significant octet first */
    out[o++] = (uint8_t)(crc >> 8);
    out[o++] = (uint8_t)(crc >> 16);
    out[o++] = (uint8_t)(crc >> 24);
    return o;
}

/* The 42-octet ULPDU of Figure 5 (DDP Send, MSN 1, 24 zero octets). */
static inline void fig5_ulpdu(uint8_t *u)
{
    memset(u, 0, 42);
    u[0] = 0x40;
    u[1] = 0x03;
    u[13] = 1;
}

/* MPA 6.1, 7.1: three FPDUs across five marker positions */
static const size_t mk_lens[3] = {505, 1500, 20};

static inline size_t mk_build(dw_mpa_fpdu_info *info)
{
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, mk_lens, 3, wire, info);
    dw_mpa_tx_del(tx);
    CHECK_EQ_U(total, 2068);
    CHECK(info[0].pos == 0 && info[1].pos == 520 && info[2].pos == 2036);
    CHECK(info[0].markers == 2 && info[1].markers == 2 && info[2].markers == 1);
    return total;
}

#endif
