/* SPDX-License-Identifier: MIT */
/* The sans-I/O connection: its life, MPA mode's sender and receiver, and
 * framing what the pump sends. The start-up and receiving: conn_rx.c. */
#include <string.h>

#include "base/mem.h"
#include "conn/conn_int.h"
#include "base/versioned.h"

DW_VERSIONS_1(conn_callbacks_v, dw_conn_callbacks, get_buffer);
DW_VERSIONS_1(conn_settings_v, dw_conn_settings, mem);

/* conn_rx.c: the receiver's callbacks, and the request of an initiator. */
int dw_conn_rx_on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                      size_t len, uint64_t off, void *u);
void dw_conn_rx_on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u);
uint8_t *dw_conn_rx_get_buffer(dw_fr_rx *rx, size_t len, void *u);
int dw_conn_start(dw_conn *c);

static void conn_settings_fill(dw_conn_settings *s)
{
    memset(s, 0, sizeof *s);
    s->framing = DW_FRAMING_MPA;
    s->startup = DW_CONN_IMMEDIATE;
    s->markers = s->crc = s->allow_markers = 1;
    s->seg_mode = DW_MPA_SEG_ALIGNED;
    s->rev = 1;
    s->enhanced = 1;
    s->ird = s->ord = 1;
}

int dw_conn_settings_default_versioned(int settings_version, dw_conn_settings *s)
{
    dw_conn_settings cur;
    conn_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, conn_settings_v);
}

/* The defaults and floors of the memory settings. */
static void sizes(dw_conn_settings *s)
{
    if (!s->tx_scratch)
        s->tx_scratch = DW_MPA_FPDU_MAX + 2048;
    s->tx_scratch = s->tx_scratch < 2048 ? 2048 : s->tx_scratch;
    if (!s->rx_keep)
        s->rx_keep = 65535;
}

static int check(const dw_conn_settings *s, const dw_conn_callbacks *cb)
{
    if (!s || !cb || !cb->on_pdu || (unsigned)s->framing > DW_FRAMING_IFT ||
        (unsigned)s->startup > DW_CONN_NEGOTIATE)
        return DW_ERR_INVAL;
    if (s->framing == DW_FRAMING_IFT && s->startup == DW_CONN_NEGOTIATE)
        return DW_ERR_UNSUPPORTED; /* IFT has no start-up exchange */
    if (s->pd_len > DW_MPA_STARTUP_PD_MAX)
        return DW_ERR_TOO_LONG;
    return s->pd_len && !s->pd ? DW_ERR_INVAL : 0;
}

/* Negotiate: the start-up buffers, and our private data copied there. */
static int copy_pd(dw_conn *c, const dw_conn_settings *s)
{
    if (!(c->su = dw_mem_malloc(c->s.mem, sizeof *c->su)) ||
        !(c->peer = dw_mem_malloc(c->s.mem, DW_CONN_PEER_MAX)))
        return DW_ERR_NOMEM;
    if (s->pd_len)
        memcpy(c->su->pd, s->pd, s->pd_len);
    c->s.pd = c->su->pd;
    return 0;
}

static int conn_new_latest(dw_conn **pc, const dw_conn_settings *settings,
                           const dw_conn_callbacks *callbacks, void *user_data)
{
    if (!pc)
        return DW_ERR_INVAL;
    *pc = NULL;
    int rc = check(settings, callbacks);
    if (rc)
        return rc;
    dw_conn *c = dw_mem_calloc(settings->mem, 1, sizeof *c);
    if (!c)
        return DW_ERR_NOMEM;
    c->s = *settings;
    sizes(&c->s);
    c->cb = *callbacks;
    c->user_data = user_data;
    c->info.framing = c->s.framing;
    c->s.pd = NULL; /* immediate: none; negotiate: our copy */
    rc = c->s.startup == DW_CONN_NEGOTIATE ? copy_pd(c, settings) : 0;
    if (!rc)
        rc = dw_conn_start(c);
    if (rc) {
        dw_conn_del(c);
        return rc;
    }
    *pc = c;
    return 0;
}

int dw_conn_new_versioned(dw_conn **pc, int settings_version, const dw_conn_settings *settings,
                          int callbacks_version, const dw_conn_callbacks *callbacks,
                          void *user_data)
{
    dw_conn_settings settings_cur;
    if (settings_version != DW_CONN_SETTINGS_VERSION)
        dw_conn_settings_default(&settings_cur);
    dw_conn_callbacks callbacks_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, conn_settings_v, err);
    DW_VERSIONED_IN(callbacks, callbacks_cur, callbacks_version, conn_callbacks_v, err);
    if (err)
        return err;
    return conn_new_latest(pc, settings, callbacks, user_data);
}

void dw_conn_del(dw_conn *c)
{
    if (!c)
        return;
    dw_fr_tx_del(c->tx);
    dw_fr_rx_del(c->rx);
    dw_mem_free(c->s.mem, c->asmb);
    dw_mem_free(c->s.mem, c->su);
    dw_mem_free(c->s.mem, c->peer);
    dw_mem_free(c->s.mem, c);
}

int dw_conn_enter_mpa(dw_conn *c)
{
    dw_fr_tx_settings ts;
    dw_fr_rx_settings rs;
    dw_fr_tx_settings_default(&ts, c->s.framing);
    ts.mpa.markers = c->info.tx_markers;
    ts.mpa.crc = ts.ift.crc = c->info.crc;
    ts.mpa.seg_mode = c->s.seg_mode;
    ts.mpa.ptr_base = c->s.ptr_base;
    ts.mpa.scratch_size = ts.ift.scratch_size = c->s.tx_scratch;
    ts.mpa.mem = ts.ift.mem = c->s.mem;
    dw_fr_rx_settings_default(&rs, c->s.framing);
    rs.mpa.markers = c->info.rx_markers;
    rs.mpa.crc = rs.ift.crc = c->info.crc;
    rs.mpa.mem = rs.ift.mem = c->s.mem;
    rs.buf_size = 0; /* ours comes from get_buffer, when a record needs it */
    dw_fr_rx_callbacks cb = {dw_conn_rx_on_pdu, dw_conn_rx_on_error, dw_conn_rx_get_buffer};
    int rc = dw_fr_tx_new(&c->tx, &ts);
    if (!rc)
        rc = dw_fr_rx_new(&c->rx, &rs, &cb, c);
    if (!rc && c->iov_fn)
        rc = dw_fr_rx_set_iov_fn(c->rx, dw_conn_rx_on_pieces);
    if (rc)
        return rc;
    if (c->info.emss)
        dw_fr_tx_set_emss(c->tx, c->info.emss);
    c->info.mulpdu = (uint32_t)dw_fr_tx_max_pdu(c->tx);
    c->ready = 1;
    dw_conn_su_done(c);
    return 0;
}

void dw_conn_su_done(dw_conn *c)
{
    if (!c->su || !c->ready || c->ctrl_len)
        return;
    dw_mem_free(c->s.mem, c->su);
    c->su = NULL;
    c->s.pd = NULL, c->s.pd_len = 0;
}

dw_fr_rx *dw_conn_fr_rx(dw_conn *c)
{
    return c->rx;
}

int dw_conn_ready(const dw_conn *c)
{
    return c->ready;
}

int dw_conn_failed(const dw_conn *c)
{
    return c->err;
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

size_t dw_conn_send_pending(const dw_conn *c, const uint8_t **p)
{
    *p = c->su ? c->su->ctrl + c->ctrl_at : NULL;
    return c->ctrl_len - c->ctrl_at;
}

void dw_conn_send_consume(dw_conn *c, size_t n)
{
    size_t left = c->ctrl_len - c->ctrl_at;
    c->ctrl_at += n < left ? n : left;
    if (c->ctrl_at == c->ctrl_len) {
        c->ctrl_at = c->ctrl_len = 0;
        dw_conn_su_done(c);
    }
}

/* Frames may be made: MPA mode and the start-up octets gone. A failed
 * receive direction leaves sending alone (a ULP may send a Terminate). */
static int may_frame(const dw_conn *c)
{
    return c->ready && c->ctrl_len == 0;
}

static void count_out(dw_conn *c, ssize_t f)
{
    if (f >= 0) {
        c->st.octets_out += (uint64_t)f;
        c->st.records_out++;
    }
}

ssize_t dw_conn_writev_iov(dw_conn *c, const void *hdr, size_t hlen, const void *payload,
                           size_t plen, struct iovec *iov, size_t iovcap,
                           dw_fr_frame_info *info)
{
    if (!may_frame(c))
        return DW_ERR_STATE;
    ssize_t f = dw_fr_tx_frame(c->tx, hdr, hlen, payload, plen, iov, iovcap, info);
    count_out(c, f);
    return f;
}

ssize_t dw_conn_write_into(dw_conn *c, const void *hdr, size_t hlen, const void *payload,
                           size_t plen, uint8_t *out, size_t cap, dw_fr_frame_info *info)
{
    if (!may_frame(c))
        return DW_ERR_STATE;
    ssize_t f = dw_fr_tx_frame_into(c->tx, hdr, hlen, payload, plen, out, cap, info);
    count_out(c, f);
    return f;
}

size_t dw_conn_frame_len(const dw_conn *c, size_t hlen, size_t plen)
{
    return c->tx ? dw_fr_tx_frame_len(c->tx, hlen, plen) : 0;
}

size_t dw_conn_fill_len(const dw_conn *c)
{
    return c->tx && c->ready ? dw_fr_tx_fill_len(c->tx) : 0;
}

size_t dw_conn_max_pdu(const dw_conn *c)
{
    return c->tx && c->ready ? dw_fr_tx_max_pdu(c->tx) : 0;
}

void dw_conn_set_emss(dw_conn *c, uint32_t emss)
{
    if (!emss)
        return;
    c->info.emss = emss;
    if (c->tx) {
        dw_fr_tx_set_emss(c->tx, emss); /* MPA 7.3.1: MULPDU follows EMSS */
        c->info.mulpdu = (uint32_t)dw_fr_tx_max_pdu(c->tx);
    }
}

void dw_conn_get_info(const dw_conn *c, dw_conn_info *info)
{
    *info = c->info;
}

void dw_conn_stats_get(const dw_conn *c, dw_conn_stats *st)
{
    *st = c->st;
}
