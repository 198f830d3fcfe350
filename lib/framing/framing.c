/* SPDX-License-Identifier: MIT */
/* MPA or IFT behind one sender/receiver interface (framing.h). */
#include <ddpwire/framing.h>

#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/versioned.h"

DW_VERSIONS_1(fr_rx_callbacks_v, dw_fr_rx_callbacks, get_buffer);
DW_VERSIONS_1(fr_rx_settings_v, dw_fr_rx_settings, mem);
DW_VERSIONS_1(fr_tx_settings_v, dw_fr_tx_settings, mem);

const char *dw_framing_name(dw_framing f)
{
    return f == DW_FRAMING_MPA ? "mpa" : f == DW_FRAMING_IFT ? "ift" : "?";
}

int dw_framing_parse(const char *name, dw_framing *f)
{
    if (name && !strcmp(name, "mpa"))
        *f = DW_FRAMING_MPA;
    else if (name && !strcmp(name, "ift"))
        *f = DW_FRAMING_IFT;
    else
        return DW_ERR_INVAL;
    return 0;
}

/* ---- sender --------------------------------------------------------- */

struct dw_fr_tx {
    dw_framing framing;
    const dw_mem *mem;
    dw_mpa_tx *mpa;
    dw_ift_tx *ift;
};

static void fr_tx_settings_fill(dw_fr_tx_settings *s, dw_framing f)
{
    memset(s, 0, sizeof *s);
    s->framing = f;
    dw_mpa_tx_settings_default(&s->mpa);
    dw_ift_tx_settings_default(&s->ift);
}

int dw_fr_tx_settings_default_versioned(int settings_version, dw_fr_tx_settings *s,
                                        dw_framing f)
{
    dw_fr_tx_settings cur;
    fr_tx_settings_fill(&cur, f);
    return DW_VERSIONED_OUT(s, cur, settings_version, fr_tx_settings_v);
}

static int fr_tx_new_latest(dw_fr_tx **ptx, const dw_fr_tx_settings *s)
{
    if (!ptx || !s || (unsigned)s->framing > DW_FRAMING_IFT)
        return DW_ERR_INVAL;
    *ptx = NULL;
    dw_fr_tx *tx = dw_mem_calloc(s->mem, 1, sizeof *tx);
    if (!tx)
        return DW_ERR_NOMEM;
    tx->framing = s->framing;
    tx->mem = s->mem;
    dw_mpa_tx_settings ms = s->mpa;
    dw_ift_tx_settings is = s->ift;
    ms.mem = ms.mem ? ms.mem : s->mem;
    is.mem = is.mem ? is.mem : s->mem;
    int rc = s->framing == DW_FRAMING_MPA ? dw_mpa_tx_new(&tx->mpa, &ms)
                                          : dw_ift_tx_new(&tx->ift, &is);
    if (rc) {
        dw_mem_free(s->mem, tx);
        return rc;
    }
    *ptx = tx;
    return 0;
}

int dw_fr_tx_new_versioned(dw_fr_tx **ptx, int settings_version, const dw_fr_tx_settings *s)
{
    dw_fr_tx_settings s_cur;
    if (settings_version != DW_FR_TX_SETTINGS_VERSION)
        dw_fr_tx_settings_default(&s_cur, DW_FRAMING_MPA);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, fr_tx_settings_v, err);
    if (err)
        return err;
    return fr_tx_new_latest(ptx, s);
}

void dw_fr_tx_del(dw_fr_tx *tx)
{
    if (!tx)
        return;
    dw_mpa_tx_del(tx->mpa);
    dw_ift_tx_del(tx->ift);
    dw_mem_free(tx->mem, tx);
}

dw_framing dw_fr_tx_framing(const dw_fr_tx *tx)
{
    return tx->framing;
}

int dw_fr_tx_set_emss(dw_fr_tx *tx, uint32_t emss)
{
    return tx->mpa ? dw_mpa_tx_set_emss(tx->mpa, emss) : 0;
}

size_t dw_fr_tx_max_pdu(const dw_fr_tx *tx)
{
    return tx->mpa ? dw_mpa_tx_mulpdu(tx->mpa) : DW_IFT_SIZE_MAX;
}

size_t dw_fr_tx_fill_len(const dw_fr_tx *tx)
{
    return tx->mpa ? dw_mpa_tx_fill_len(tx->mpa) : DW_IFT_SIZE_MAX;
}

size_t dw_fr_tx_frame_len(const dw_fr_tx *tx, size_t hlen, size_t plen)
{
    if (!tx->mpa)
        return dw_ift_frame_len(hlen, plen);
    return dw_mpa_fpdu_len(dw_mpa_tx_pos(tx->mpa), hlen + plen,
                           dw_mpa_tx_markers(tx->mpa));
}

static void from_mpa(dw_fr_frame_info *info, const dw_mpa_fpdu_info *m)
{
    if (info)
        *info = (dw_fr_frame_info){m->len, m->iovcnt, m->pos, m->new_segment};
}

static void from_ift(dw_fr_frame_info *info, const dw_ift_frame_info *f)
{
    if (info)
        *info = (dw_fr_frame_info){f->len, f->iovcnt, f->offset, 0};
}

ssize_t dw_fr_tx_frame(dw_fr_tx *tx, const void *hdr, size_t hlen,
                       const void *payload, size_t plen, struct iovec *iov,
                       size_t iovcap, dw_fr_frame_info *info)
{
    ssize_t n;
    if (tx->mpa) {
        dw_mpa_fpdu_info m;
        n = dw_mpa_tx_frame_pdu(tx->mpa, hdr, hlen, payload, plen, iov, iovcap, &m);
        if (n > 0)
            from_mpa(info, &m);
    } else {
        dw_ift_frame_info f;
        n = dw_ift_tx_frame(tx->ift, hdr, hlen, payload, plen, iov, iovcap, &f);
        if (n > 0)
            from_ift(info, &f);
    }
    return n;
}

ssize_t dw_fr_tx_frame_into(dw_fr_tx *tx, const void *hdr, size_t hlen,
                            const void *payload, size_t plen, uint8_t *out,
                            size_t cap, dw_fr_frame_info *info)
{
    ssize_t n;
    if (tx->mpa) {
        dw_mpa_fpdu_info m;
        n = dw_mpa_tx_frame_pdu_into(tx->mpa, hdr, hlen, payload, plen, out, cap, &m);
        if (n > 0)
            from_mpa(info, &m);
    } else {
        dw_ift_frame_info f;
        n = dw_ift_tx_frame_into(tx->ift, hdr, hlen, payload, plen, out, cap, &f);
        if (n > 0)
            from_ift(info, &f);
    }
    return n;
}

/* ---- receiver ------------------------------------------------------- */

struct dw_fr_rx {
    dw_framing framing;
    const dw_mem *mem;
    dw_fr_rx_callbacks cb;
    void *ud;
    dw_fr_rx_iov_fn iov_fn; /* MPA: pieces instead of on_pdu, or NULL */
    dw_mpa_rx *mpa;
    dw_ift_rx *ift;
    uint64_t delivered;
    /* IFT: the current frame's header, and where its payload goes (buf:
     * asked for when the payload cannot stay in the input) */
    uint8_t *hdr, *own, *buf;
    size_t own_size, hlen, plen;
    int nomem; /* PDU data had nowhere to go: nothing more taken */
    const uint8_t *zc; /* the whole payload in the current input */
};

static void fr_rx_settings_fill(dw_fr_rx_settings *s, dw_framing f)
{
    memset(s, 0, sizeof *s);
    s->framing = f;
    dw_mpa_rx_settings_default(&s->mpa);
    dw_ift_rx_settings_default(&s->ift);
    s->buf_size = 65535;
}

int dw_fr_rx_settings_default_versioned(int settings_version, dw_fr_rx_settings *s,
                                        dw_framing f)
{
    dw_fr_rx_settings cur;
    fr_rx_settings_fill(&cur, f);
    return DW_VERSIONED_OUT(s, cur, settings_version, fr_rx_settings_v);
}

static void report(dw_fr_rx *fr, int code, uint64_t off, int clean,
                   dw_close_reason why)
{
    dw_fr_error e = {fr->framing, code, off, clean, why};
    if (fr->cb.on_error)
        fr->cb.on_error(fr, &e, fr->ud);
}

static int mpa_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    dw_fr_rx *fr = u;
    (void)rx;
    fr->delivered++;
    return fr->cb.on_pdu(fr, NULL, 0, d, len, off, fr->ud);
}

static int mpa_pieces(dw_mpa_rx *rx, const struct iovec *iov, int iovcnt, size_t len,
                      uint64_t off, void *u)
{
    dw_fr_rx *fr = u;
    (void)rx;
    fr->delivered++;
    return fr->iov_fn(fr, iov, iovcnt, len, off, fr->ud);
}

int dw_fr_rx_set_iov_fn(dw_fr_rx *fr, dw_fr_rx_iov_fn fn)
{
    if (!fr)
        return DW_ERR_INVAL;
    if (!fr->mpa)
        return DW_ERR_UNSUPPORTED;
    fr->iov_fn = fn;
    return dw_mpa_rx_set_iov_fn(fr->mpa, fn ? mpa_pieces : NULL);
}

static void mpa_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    (void)rx;
    report(u, (int)e->code, e->offset, e->clean, e->reason);
}

static uint8_t *mpa_buffer(dw_mpa_rx *rx, size_t len, void *u)
{
    dw_fr_rx *fr = u;
    (void)rx;
    return fr->cb.get_buffer ? fr->cb.get_buffer(fr, len, fr->ud) : NULL;
}

/* IFT 5.1: the header is verified before any of its payload is taken. */
static int ift_header(dw_ift_rx *rx, const uint8_t *h, size_t hlen, size_t plen,
                      uint64_t off, void *u)
{
    dw_fr_rx *fr = u;
    (void)rx, (void)off;
    memcpy(fr->hdr, h, hlen);
    fr->hlen = hlen, fr->plen = plen, fr->zc = NULL, fr->buf = NULL;
    return 0;
}

/* The payload cannot stay in the input: the caller's buffer, else ours
 * when it is long enough; 0, or -1 (and nothing more taken) for neither. */
static int ift_buffer(dw_fr_rx *fr)
{
    if (fr->buf)
        return 0;
    fr->buf = fr->cb.get_buffer ? fr->cb.get_buffer(fr, fr->plen, fr->ud) : NULL;
    if (!fr->buf && fr->plen <= fr->own_size)
        fr->buf = fr->own;
    fr->nomem = !fr->buf;
    return fr->nomem ? -1 : 0;
}

/* A payload that arrives whole in one input is kept in place until its CRC
 * (dw_fr_rx_feed copies it if the CRC is still to come); pieces are
 * assembled in the buffer. */
static int ift_payload(dw_ift_rx *rx, const uint8_t *d, size_t len, size_t at, void *u)
{
    dw_fr_rx *fr = u;
    (void)rx;
    if (at == 0 && len == fr->plen)
        fr->zc = d;
    else if (ift_buffer(fr))
        return 1; /* stop: dw_fr_rx_feed reports it */
    else
        memcpy(fr->buf + at, d, len);
    return 0;
}

static int ift_end(dw_ift_rx *rx, uint64_t off, void *u)
{
    dw_fr_rx *fr = u;
    (void)rx;
    static const uint8_t none[1]; /* an empty payload */
    const uint8_t *data = fr->zc ? fr->zc : fr->plen ? fr->buf : none;
    fr->zc = NULL;
    fr->delivered++;
    return fr->cb.on_pdu(fr, fr->hdr, fr->hlen, data, fr->plen, off, fr->ud);
}

static void ift_error(dw_ift_rx *rx, const dw_ift_rx_error *e, void *u)
{
    (void)rx;
    report(u, (int)e->code, e->offset, e->clean, (dw_close_reason)e->reason);
}

static int make_ift(dw_fr_rx *fr, const dw_ift_rx_settings *s, size_t buf_size)
{
    fr->own_size = buf_size < s->max_payload ? buf_size : s->max_payload;
    fr->hdr = dw_mem_malloc(fr->mem, s->max_header ? s->max_header : 1);
    fr->own = fr->own_size ? dw_mem_malloc(fr->mem, fr->own_size) : NULL;
    if (!fr->hdr || (fr->own_size && !fr->own))
        return DW_ERR_NOMEM;
    dw_ift_rx_callbacks c = {ift_header, NULL, ift_payload, ift_end, ift_error};
    dw_ift_rx_settings is = *s;
    is.mem = is.mem ? is.mem : fr->mem;
    return dw_ift_rx_new(&fr->ift, &is, &c, fr);
}

static int fr_rx_new_latest(dw_fr_rx **prx, const dw_fr_rx_settings *s,
                            const dw_fr_rx_callbacks *cb, void *user_data)
{
    if (!prx || !s || !cb || !cb->on_pdu || (unsigned)s->framing > DW_FRAMING_IFT)
        return DW_ERR_INVAL;
    *prx = NULL;
    dw_fr_rx *fr = dw_mem_calloc(s->mem, 1, sizeof *fr);
    if (!fr)
        return DW_ERR_NOMEM;
    fr->framing = s->framing;
    fr->mem = s->mem;
    fr->cb = *cb;
    fr->ud = user_data;
    dw_mpa_rx_callbacks mc = {mpa_ulpdu, mpa_error, mpa_buffer};
    dw_mpa_rx_settings ms = s->mpa;
    ms.buf_size = s->buf_size;
    ms.mem = ms.mem ? ms.mem : s->mem;
    int rc = s->framing == DW_FRAMING_MPA ? dw_mpa_rx_new(&fr->mpa, &ms, &mc, fr)
                                          : make_ift(fr, &s->ift, s->buf_size);
    if (rc) {
        dw_fr_rx_del(fr);
        return rc;
    }
    *prx = fr;
    return 0;
}

int dw_fr_rx_new_versioned(dw_fr_rx **prx, int settings_version, const dw_fr_rx_settings *s,
                           int callbacks_version, const dw_fr_rx_callbacks *cb,
                           void *user_data)
{
    dw_fr_rx_settings s_cur;
    if (settings_version != DW_FR_RX_SETTINGS_VERSION)
        dw_fr_rx_settings_default(&s_cur, DW_FRAMING_MPA);
    dw_fr_rx_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, fr_rx_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, fr_rx_callbacks_v, err);
    if (err)
        return err;
    return fr_rx_new_latest(prx, s, cb, user_data);
}

void dw_fr_rx_del(dw_fr_rx *fr)
{
    if (!fr)
        return;
    dw_mpa_rx_del(fr->mpa);
    dw_ift_rx_del(fr->ift);
    dw_mem_free(fr->mem, fr->hdr);
    dw_mem_free(fr->mem, fr->own);
    dw_mem_free(fr->mem, fr);
}

ssize_t dw_fr_rx_feed(dw_fr_rx *fr, const void *in, size_t len)
{
    if (!fr)
        return DW_ERR_INVAL;
    if (fr->mpa)
        return dw_mpa_rx_feed(fr->mpa, in, len);
    if (fr->nomem)
        return DW_ERR_NOMEM;
    ssize_t n = dw_ift_rx_feed(fr->ift, in, len);
    if (fr->zc && !ift_buffer(fr)) /* the payload CRC comes in a later input */
        memcpy(fr->buf, fr->zc, fr->plen);
    fr->zc = NULL;
    return fr->nomem ? DW_ERR_NOMEM : n;
}

int dw_fr_rx_close(dw_fr_rx *fr, dw_close_reason reason)
{
    return fr->mpa ? dw_mpa_rx_close(fr->mpa, reason)
                   : dw_ift_rx_close(fr->ift, reason);
}

uint64_t dw_fr_rx_offset(const dw_fr_rx *fr)
{
    return fr->mpa ? dw_mpa_rx_offset(fr->mpa) : dw_ift_rx_offset(fr->ift);
}

uint64_t dw_fr_rx_delivered(const dw_fr_rx *fr)
{
    return fr->delivered;
}

int dw_fr_rx_failed(const dw_fr_rx *fr)
{
    return fr->mpa ? (int)dw_mpa_rx_failed(fr->mpa) : (int)dw_ift_rx_failed(fr->ift);
}

const char *dw_fr_error_str(const dw_fr_error *e)
{
    static _Thread_local char buf[96];
    const char *what = e->framing == DW_FRAMING_MPA
                           ? dw_mpa_strerror((dw_mpa_error)e->code)
                           : dw_ift_strerror((dw_ift_error)e->code);
    snprintf(buf, sizeof buf, "%s error %d: %s", e->framing == DW_FRAMING_MPA ? "MPA" : "IFT",
             e->code, what);
    return buf;
}
