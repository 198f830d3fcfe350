/* SPDX-License-Identifier: MIT */
/* MPA sender: ULPDU -> FPDU as iovecs (zero-copy) or into a buffer. */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "mpa/mpa_crc.h"
#include "mpa/mpa_internal.h"
#include "mpa/mpa_short.h"
#include "mpa/mpa_tx_internal.h"
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(mpa_tx_settings_v, dw_mpa_tx_settings, mem);

#define SCRATCH_PER_FPDU DW_MPA_TX_SCRATCH_PER_FPDU

static void mpa_tx_settings_fill(dw_mpa_tx_settings *s)
{
    memset(s, 0, sizeof *s);
    s->emss = 1460;
    s->markers = 1;
    s->crc = 1;
    s->ptr_base = DW_MPA_PTR_DRAFT;
    s->seg_mode = DW_MPA_SEG_ALIGNED;
    s->scratch_size = 131072;
}

int dw_mpa_tx_settings_default_versioned(int settings_version, dw_mpa_tx_settings *s)
{
    dw_mpa_tx_settings cur;
    mpa_tx_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, mpa_tx_settings_v);
}

static int mpa_tx_new_latest(dw_mpa_tx **ptx, const dw_mpa_tx_settings *settings)
{
    dw_mpa_tx_settings def;
    if (!ptx)
        return DW_ERR_INVAL;
    *ptx = NULL;
    if (!settings) {
        dw_mpa_tx_settings_default(&def);
        settings = &def;
    }
    if (settings->scratch_size < SCRATCH_PER_FPDU ||
        (unsigned)settings->ptr_base > DW_MPA_PTR_RFC5044 ||
        (unsigned)settings->seg_mode > DW_MPA_SEG_PACKED)
        return DW_ERR_INVAL;
    dw_mpa_tx *tx = dw_mem_calloc(settings->mem, 1, sizeof *tx);
    if (!tx)
        return DW_ERR_NOMEM;
    tx->set = *settings;
    tx->scratch = dw_mem_malloc(settings->mem, settings->scratch_size);
    if (!tx->scratch) {
        dw_mem_free(settings->mem, tx);
        return DW_ERR_NOMEM;
    }
    dw_mpa_tx_set_emss(tx, settings->emss ? settings->emss : 1460);
    *ptx = tx;
    return 0;
}

int dw_mpa_tx_new_versioned(dw_mpa_tx **ptx, int settings_version,
                            const dw_mpa_tx_settings *settings)
{
    dw_mpa_tx_settings settings_cur;
    if (settings_version != DW_MPA_TX_SETTINGS_VERSION)
        dw_mpa_tx_settings_default(&settings_cur);
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, mpa_tx_settings_v, err);
    if (err)
        return err;
    return mpa_tx_new_latest(ptx, settings);
}

void dw_mpa_tx_del(dw_mpa_tx *tx)
{
    if (!tx)
        return;
    dw_mem_free(tx->set.mem, tx->scratch);
    dw_mem_free(tx->set.mem, tx);
}

int dw_mpa_tx_set_emss(dw_mpa_tx *tx, uint32_t emss)
{
    if (!tx || !emss)
        return DW_ERR_INVAL;
    tx->emss = emss;
    tx->mulpdu = dw_mpa_mulpdu(emss, tx->set.markers);
    return 0;
}

uint32_t dw_mpa_tx_mulpdu(const dw_mpa_tx *tx)
{
    return tx->mulpdu;
}

uint32_t dw_mpa_tx_fill_len(const dw_mpa_tx *tx)
{
    return dw_mpa_fill_len(tx->pos, tx->emss, tx->set.markers);
}

uint32_t dw_mpa_tx_emss(const dw_mpa_tx *tx)
{
    return tx->emss;
}

uint32_t dw_mpa_tx_pos(const dw_mpa_tx *tx)
{
    return tx->pos;
}

int dw_mpa_tx_markers(const dw_mpa_tx *tx)
{
    return tx->set.markers;
}

/*
 * The output of one FPDU: either iovecs (payload referenced, the rest in
 * scratch) or a flat buffer. Both are fed the FPDU's pieces in wire order
 * by frame_walk(), which inserts the markers.
 */
typedef struct sink {
    struct iovec *iov; /* iovec mode when non-NULL */
    size_t iovcap, iovcnt;
    uint8_t *out;      /* write cursor: scratch (iovec mode) or the buffer */
    uint32_t crc;
    int do_crc;
} sink;

/* Reserves n scratch octets as the next iovec, merged with the previous
 * one when adjacent. */
static inline uint8_t *own(sink *k, size_t n)
{
    uint8_t *at = k->out;
    k->out += n;
    struct iovec *last = k->iovcnt ? &k->iov[k->iovcnt - 1] : NULL;
    if (last && (uint8_t *)last->iov_base + last->iov_len == at)
        last->iov_len += n; /* merge adjacent scratch pieces */
    else
        k->iov[k->iovcnt++] = (struct iovec){at, n};
    return at;
}

/* Octets produced by the FPDU's own code (header, marker, pad, CRC). */
static void put_own(sink *k, const uint8_t *b, size_t n)
{
    uint8_t *at = k->iov ? own(k, n) : (k->out += n) - n;
    memcpy(at, b, n);
    if (k->do_crc)
        k->crc = dw_crc32c(k->crc, at, n);
}

/* Octets of the caller's ULPDU. */
static void put_payload(sink *k, const uint8_t *b, size_t n)
{
    if (k->iov) {
        k->iov[k->iovcnt++] = (struct iovec){(void *)b, n};
        if (k->do_crc)
            k->crc = dw_crc32c(k->crc, b, n);
        return;
    }
    if (k->do_crc)
        k->crc = dw_crc32c_copy(k->crc, k->out, b, n);
    else
        memcpy(k->out, b, n);
    k->out += n;
}

typedef struct walk {
    const dw_mpa_tx *tx;
    uint32_t p;        /* MPA position of the next octet */
    uint32_t fpdu_pos; /* first octet of the FPDU */
    uint32_t hdr_pos;  /* its ULPDU_Length field */
    unsigned markers;
} walk;

/* MPA 7.1: a marker every 512 octets; inside the FPDU it points back. */
static void maybe_marker(walk *w, sink *k)
{
    if (!w->tx->set.markers || !dw_mpa_is_marker_pos(w->p))
        return;
    uint8_t m[4] = {0, 0, 0, 0};
    if (w->p != w->fpdu_pos) /* a leading marker stays 0x00000000 */
        dw_put_be16(m + 2, dw_mpa_fpduptr(w->tx->set.ptr_base, w->p,
                                          w->fpdu_pos, w->hdr_pos));
    put_own(k, m, 4);
    w->p += 4;
    w->markers++;
}

/* Content octets, split wherever a marker falls. */
static void put_content(walk *w, sink *k, const uint8_t *b, size_t n, int own)
{
    while (n) {
        maybe_marker(w, k);
        size_t room = w->tx->set.markers
                          ? DW_MPA_MARKER_INTERVAL - w->p % DW_MPA_MARKER_INTERVAL
                          : n;
        size_t take = n < room ? n : room;
        if (own)
            put_own(k, b, take);
        else
            put_payload(k, b, take);
        w->p += (uint32_t)take;
        b += take;
        n -= take;
    }
}

/* The ULPDU is the caller's header (hlen octets, copied into scratch when
 * short) followed by its payload (never copied in iovec mode). */
typedef struct pdu {
    const uint8_t *hdr, *payload;
    size_t hlen, plen;
} pdu;

#define HDR_COPY_MAX 64u

static void frame_walk(const dw_mpa_tx *tx, sink *k, const pdu *u, walk *w)
{
    static const uint8_t zeros[4];
    uint8_t hdr[2], crc[4];
    size_t len = u->hlen + u->plen;
    *w = (walk){tx, tx->pos, tx->pos, tx->pos, 0};
    if (tx->set.markers && dw_mpa_is_marker_pos(w->p))
        w->hdr_pos += 4; /* MPA 7.1: marker between FPDUs belongs to this one */
    dw_put_be16(hdr, (uint16_t)len);
    put_content(w, k, hdr, 2, 1);
    put_content(w, k, u->hdr, u->hlen, u->hlen <= HDR_COPY_MAX);
    put_content(w, k, u->payload, u->plen, 0);
    put_content(w, k, zeros, dw_mpa_pad_len(len), 1); /* MPA 6: zero PAD */
    maybe_marker(w, k); /* MPA 7.2: a marker after the PAD is covered */
    dw_crc32c_store(crc, k->do_crc ? k->crc : 0);
    k->do_crc = 0;
    put_content(w, k, crc, 4, 1);
}

/* The marker at offset m of the FPDU described by im (MPA 7.1). */
static inline void put_marker(uint8_t *at, const dw_mpa_img *im, uint32_t m)
{
    at[0] = at[1] = 0;
    dw_put_be16(at + 2, (uint16_t)(m - im->ptr_sub));
}

/*
 * iovecs with the one-pass CRC kernel: the same pieces as frame_walk()
 * (scratch pieces merged alike), written straight into scratch. Markers
 * split the ULPDU; after it come PAD, a marker if one falls there
 * (MPA 7.2: it is covered), and the CRC. Returns the CRC field.
 */
/* ULPDU octets [got, got + n): the part inside a header given apart is
 * copied into scratch, the rest referenced. */
static void iov_piece(sink *k, const dw_mpa_img *im, uint32_t got, uint32_t n)
{
    if (got < im->hlen) {
        uint32_t h = im->hlen - got < n ? im->hlen - got : n;
        memcpy(own(k, h), im->hdr + got, h);
        got += h, n -= h;
    }
    if (n)
        k->iov[k->iovcnt++] = (struct iovec){(void *)(im->ulpdu + got), n};
}

static uint8_t *iov_fast(sink *k, const dw_mpa_img *im)
{
    uint32_t r = im->hdr_off + 2, m = im->mark, len = im->len, got = 0;
    uint8_t *h = own(k, r);
    uint64_t z = 0;
    memcpy(h, &z, 4); /* a leading marker is zero (scratch has room) */
    dw_put_be16(h + im->hdr_off, (uint16_t)len);
    while (got < im->hlen) { /* m > r: markers on dwords, r 2 mod 4 */
        uint32_t take = len - got < m - r ? len - got : m - r;
        iov_piece(k, im, got, take);
        got += take, r += take;
        if (got == len)
            break;
        put_marker(own(k, 4), im, m);
        r += 4, m += DW_MPA_MARKER_INTERVAL;
    }
    /* the payload: a piece up to the next marker, then pairs of a marker
     * (its own scratch iovec: a payload piece lies between, nothing to
     * merge) and up to 508 octets, in a loop of fixed stride */
    struct iovec *v = k->iov + k->iovcnt;
    uint8_t *o = k->out;
    if (got < len) {
        uint32_t take = len - got < m - r ? len - got : m - r;
        *v++ = (struct iovec){(void *)(im->ulpdu + got), take};
        got += take, r += take;
    }
    if (got < len) { /* r == m */
        uint32_t left = len - got, nm = (left + 507) / 508, ptr = m - im->ptr_sub;
        const uint8_t *pu = im->ulpdu + got;
        dw_mpa_iov_periods(v, o, pu, nm - 1, ptr); /* 28-big: AVX2 stores */
        v += 2 * (nm - 1), o += 4 * (nm - 1), pu += 508 * (nm - 1), ptr += 512 * (nm - 1);
        uint32_t last = left - 508 * (nm - 1);
        dw_put_be32(o, ptr & 0xffffu); /* MPA 7.1: reserved 0, FPDUPTR */
        v[0] = (struct iovec){o, 4};
        v[1] = (struct iovec){(void *)pu, last};
        v += 2, o += 4;
        got = len, r += 4 * nm + left, m += DW_MPA_MARKER_INTERVAL * nm;
    }
    k->iovcnt = (size_t)(v - k->iov), k->out = o;
    uint32_t pad = (uint32_t)dw_mpa_pad_len(len), mk = m == r + pad ? 4 : 0;
    uint8_t *t = own(k, pad + mk + 4);
    memcpy(t, &z, 4); /* PAD: fixed-size stores, no call */
    if (mk)
        put_marker(t + pad, im, m);
    return t + pad + mk;
}

/* One FPDU through the kernel: iovecs, or the whole image into k->out. */
static void frame_fast(const dw_mpa_tx *tx, sink *k, const pdu *u, walk *w,
                       const dw_mpa_crc_ops *ops)
{
    dw_mpa_img im;
    size_t len = u->hlen + u->plen;
    /* with a header apart, the ULPDU's virtual start: never read below the
     * payload (the kernel and iov_piece take those octets from hdr) */
    const uint8_t *pl = u->plen ? u->payload : u->hdr + u->hlen; /* may be NULL */
    const uint8_t *base = (const uint8_t *)((uintptr_t)pl - u->hlen);
    dw_mpa_img_init(&im, base, len, tx->pos, tx->set.markers,
                    tx->set.ptr_base == DW_MPA_PTR_RFC5044);
    im.hdr = u->hdr;
    im.hlen = (uint32_t)u->hlen;
    uint8_t *crc;
    if (k->iov) {
        crc = iov_fast(k, &im);
        uint32_t v = !tx->set.markers            ? dw_mpa_crc_plain(&im)
                     : len < DW_MPA_CRC_SMALL_MAX ? dw_mpa_crc_small(&im)
                                                  : ops->tx(&im, NULL);
        dw_crc32c_store(crc, v);
    } else {
        crc = k->out + im.crc_off;
        dw_crc32c_store(crc, ops->tx(&im, k->out));
        k->out = crc + 4;
    }
    *w = (walk){tx, tx->pos + im.crc_off + 4, tx->pos, tx->pos + im.hdr_off,
                (unsigned)(im.crc_off + 4 - dw_mpa_content_len(len)) / 4};
}

/* Without markers a long ULPDU copied into a buffer is one piece:
 * dw_crc32c_copy() is faster there than the kernel's pure folding (into
 * iovecs the kernel path takes dw_crc32c() for it). */
#define NOMARK_WALK_MIN 4096u

/* The one-pass kernel when there is one, a CRC to send and any header
 * apart is short, else the walk. */
static void frame(const dw_mpa_tx *tx, sink *k, const pdu *u, walk *w)
{
    size_t len = u->hlen + u->plen;
    int use = u->hlen <= HDR_COPY_MAX && tx->set.crc &&
              (tx->set.markers || k->iov || len < NOMARK_WALK_MIN);
    const dw_mpa_crc_ops *ops = use ? dw_mpa_crc_fast() : NULL;
    if (ops)
        frame_fast(tx, k, u, w, ops);
    else
        frame_walk(tx, k, u, w);
}

static int check_len(const dw_mpa_tx *tx, const pdu *u)
{
    size_t len = u->hlen + u->plen;
    if (!tx || (!u->hdr && u->hlen) || (!u->payload && u->plen))
        return DW_ERR_INVAL;
    if (len == 0)
        return DW_ERR_EMPTY;
    if (len > DW_MPA_ULPDU_MAX) /* MPA 5.2 */
        return DW_ERR_TOO_LONG;
    return 0;
}

static void commit(dw_mpa_tx *tx, const walk *w, size_t fpdu_len,
                   dw_mpa_fpdu_info *info, size_t iovcnt)
{
    dw_mpa_tx_commit(tx, w->p, w->markers, fpdu_len, info, iovcnt);
}

static ssize_t frame_iov(dw_mpa_tx *tx, const pdu *u, struct iovec *iov,
                         size_t iovcap, dw_mpa_fpdu_info *info)
{
    int rc = check_len(tx, u);
    if (rc)
        return rc;
    if (!iov)
        return DW_ERR_INVAL;
    size_t len = u->hlen + u->plen;
    size_t fpdu_len = dw_mpa_fpdu_len(tx->pos, len, tx->set.markers);
    size_t n_mark = (fpdu_len - dw_mpa_content_len(len)) / 4;
    size_t extra = u->hlen > HDR_COPY_MAX && u->plen; /* header referenced */
    if (iovcap < 2 * n_mark + 3 + extra) /* worst case; checked before any change */
        return DW_ERR_NOSPACE;
    if (tx->head + SCRATCH_PER_FPDU > tx->set.scratch_size)
        tx->head = 0; /* ring: each FPDU's scratch is contiguous */
    sink k = {iov, iovcap, 0, tx->scratch + tx->head, 0, tx->set.crc};
    walk w;
    frame(tx, &k, u, &w);
    tx->head = (size_t)(k.out - tx->scratch);
    commit(tx, &w, fpdu_len, info, k.iovcnt);
    return (ssize_t)fpdu_len;
}

__attribute__((noinline)) ssize_t
dw_mpa_tx_frame_gen(dw_mpa_tx *tx, const void *ulpdu, size_t len, struct iovec *iov,
                    size_t iovcap, dw_mpa_fpdu_info *info)
{
    pdu u = {NULL, ulpdu, 0, len};
    return frame_iov(tx, &u, iov, iovcap, info);
}

ssize_t dw_mpa_tx_frame(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                        struct iovec *iov, size_t iovcap,
                        dw_mpa_fpdu_info *info)
{
    /* short ULPDUs: one straight-line pass (lib/mpa/mpa_crc_small_x86.c) */
    if (len - 8 < DW_MPA_CRC_SMALL_MAX - 8 && tx && ulpdu && iov && tx->set.crc)
        return dw_mpa_tx_short(tx, ulpdu, len, iov, iovcap, info);
    return dw_mpa_tx_frame_gen(tx, ulpdu, len, iov, iovcap, info);
}

ssize_t dw_mpa_tx_frame_pdu(dw_mpa_tx *tx, const void *hdr, size_t hlen,
                            const void *payload, size_t plen, struct iovec *iov,
                            size_t iovcap, dw_mpa_fpdu_info *info)
{
    pdu u = {hdr, payload, hlen, plen};
    return frame_iov(tx, &u, iov, iovcap, info);
}

static ssize_t frame_flat(dw_mpa_tx *tx, const pdu *u, uint8_t *out, size_t cap,
                          dw_mpa_fpdu_info *info)
{
    int rc = check_len(tx, u);
    if (rc)
        return rc;
    if (!out)
        return DW_ERR_INVAL;
    size_t len = u->hlen + u->plen;
    size_t fpdu_len = dw_mpa_fpdu_len(tx->pos, len, tx->set.markers);
    if (cap < fpdu_len)
        return DW_ERR_NOSPACE;
    sink k = {NULL, 0, 0, out, 0, tx->set.crc};
    walk w;
    frame(tx, &k, u, &w);
    commit(tx, &w, fpdu_len, info, 1);
    return (ssize_t)fpdu_len;
}

ssize_t dw_mpa_tx_frame_into(dw_mpa_tx *tx, const void *ulpdu, size_t len,
                             uint8_t *out, size_t cap, dw_mpa_fpdu_info *info)
{
    pdu u = {NULL, ulpdu, 0, len};
    return frame_flat(tx, &u, out, cap, info);
}

ssize_t dw_mpa_tx_frame_pdu_into(dw_mpa_tx *tx, const void *hdr, size_t hlen,
                                 const void *payload, size_t plen, uint8_t *out,
                                 size_t cap, dw_mpa_fpdu_info *info)
{
    pdu u = {hdr, payload, hlen, plen};
    return frame_flat(tx, &u, out, cap, info);
}
