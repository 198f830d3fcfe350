/* SPDX-License-Identifier: MIT */
/* The connection's start-up (MPA 8.1; RFC 5044 7.1; RFC 6581) and its
 * receive side: enablement detection, the first-marker check, records. */
#include <string.h>

#include "base/mem.h"
#include "conn/conn_int.h"

int dw_conn_rx_on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                      size_t len, uint64_t off, void *u);
void dw_conn_rx_on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u);
uint8_t *dw_conn_rx_get_buffer(dw_fr_rx *rx, size_t len, void *u);
int dw_conn_start(dw_conn *c);

static void nego_settings(const dw_conn *c, dw_mpa_nego_settings *ns)
{
    dw_mpa_nego_settings_default(ns);
    ns->want_markers = c->s.markers;
    ns->want_crc = c->s.crc;
    ns->allow_markers = c->s.allow_markers;
    ns->pd = c->s.pd;
    ns->pd_len = c->s.pd_len;
    ns->rev = c->s.rev;
    ns->enhanced = c->s.enhanced;
    ns->ird = c->s.ird;
    ns->ord = c->s.ord;
    ns->p2p = c->s.p2p;
    ns->rtr = c->s.rtr;
}

/* At creation: MPA mode at once (immediate), or the initiator's request
 * to send (RFC 5044 7.1: the initiator speaks first). */
int dw_conn_start(dw_conn *c)
{
    if (c->s.startup == DW_CONN_IMMEDIATE) {
        int mk = c->s.framing == DW_FRAMING_MPA && c->s.markers; /* IFT: none */
        c->info.tx_markers = c->info.rx_markers = mk;
        c->info.crc = c->s.crc;
        return dw_conn_enter_mpa(c);
    }
    if (!c->s.initiator)
        return 0;
    dw_mpa_nego_settings ns;
    nego_settings(c, &ns);
    ssize_t n = dw_mpa_nego_request(&ns, c->su->ctrl, sizeof c->su->ctrl);
    if (n < 0)
        return (int)n;
    c->ctrl_len = (size_t)n;
    c->st.startup_out += (uint64_t)n;
    return 0;
}

static void keep_peer(dw_conn *c, const dw_mpa_nego_result *r)
{
    c->info.peer = r->peer;
    c->info.peer.pd = c->peer + DW_MPA_STARTUP_HDR_LEN;
    c->info.tx_markers = r->tx_markers;
    c->info.rx_markers = r->rx_markers;
    c->info.crc = r->crc;
    c->info.rev = r->rev;
    c->info.enhanced = r->enhanced;
    c->info.ird = r->ird;
    c->info.ord = r->ord;
    c->info.rtr = r->rtr;
    c->info.reason = r->reason;
}

/* The peer's frame, whole in peer[0..n): judged; a responder's reply
 * (accepting or not) waits to be sent; MPA mode when accepted. */
static int judged(dw_conn *c, const dw_mpa_nego_result *r, const uint8_t *reply, size_t rlen)
{
    keep_peer(c, r);
    if (!c->s.initiator) { /* our MPA mode starts right after the reply */
        memcpy(c->su->ctrl, reply, rlen);
        c->ctrl_at = 0, c->ctrl_len = rlen;
        c->st.startup_out += rlen;
    }
    if (!r->accepted)
        return DW_ERR_REJECTED;
    return dw_conn_enter_mpa(c);
}

/* Start-up octets: gathered until the peer's frame is whole (judged at
 * each step, so a peer that is not MPA is refused at its first wrong
 * octet). Returns the octets of in that belonged to the frame. */
static ssize_t startup_feed(dw_conn *c, const uint8_t *in, size_t len)
{
    size_t before = c->have, take = DW_CONN_PEER_MAX - c->have;
    take = len < take ? len : take;
    memcpy(c->peer + c->have, in, take);
    c->have += take;
    dw_mpa_nego_settings ns;
    dw_mpa_nego_result r;
    uint8_t reply[DW_CONN_CTRL_MAX];
    size_t rlen = 0;
    nego_settings(c, &ns);
    ssize_t n = c->s.initiator
                    ? dw_mpa_nego_on_reply(&ns, c->peer, c->have, &r)
                    : dw_mpa_nego_respond(&ns, c->peer, c->have, reply, sizeof reply,
                                          &rlen, &r);
    if (n == DW_ERR_NEED_MORE && c->have < DW_CONN_PEER_MAX) {
        c->st.startup_in += take;
        return (ssize_t)take;
    }
    if (n < 0) /* not a start-up frame (or one longer than any) */
        return n == DW_ERR_MALFORMED || n == DW_ERR_NEED_MORE ? DW_ERR_ENABLEMENT : n;
    c->have = (size_t)n; /* the frame; what followed it is MPA mode */
    c->st.startup_in += (size_t)n - before;
    int rc = judged(c, &r, reply, rlen);
    return rc ? rc : (ssize_t)((size_t)n - before);
}

/* Immediate mode with markers: MPA's first four octets are a zero marker
 * (MPA 8.1); anything else means the peer is not in MPA mode. */
static int first_marker_bad(dw_conn *c, const uint8_t *p, size_t n)
{
    for (; c->zero_seen < 4 && n; c->zero_seen++, p++, n--)
        if (*p)
            return 1;
    return 0;
}

/* IFT in immediate mode: a first frame whose sizes or header CRC are
 * wrong means the peer is not speaking IFT (enablement error). */
static int first_frame_bad(const dw_conn *c)
{
    int code = dw_fr_rx_failed(c->rx);
    return c->s.framing == DW_FRAMING_IFT && c->s.startup == DW_CONN_IMMEDIATE &&
           dw_fr_rx_delivered(c->rx) == 0 &&
           (code == DW_IFT_ERR_SIZE || code == DW_IFT_ERR_HEADER_CRC);
}

/* MPA mode: feeds until done or on_pdu asks to stop. */
static ssize_t feed(dw_conn *c, const uint8_t *p, size_t n)
{
    size_t done = 0;
    if (c->s.startup == DW_CONN_IMMEDIATE && c->info.rx_markers && first_marker_bad(c, p, n))
        return DW_ERR_ENABLEMENT;
    c->stop = 0;
    while (done < n && !c->stop) {
        ssize_t r = dw_fr_rx_feed(c->rx, p + done, n - done);
        if (r < 0)
            return first_frame_bad(c) ? DW_ERR_ENABLEMENT : r;
        if (c->empty) /* an empty record: the first, an IFT peer's frame */
            return dw_fr_rx_delivered(c->rx) == 1 ? DW_ERR_ENABLEMENT : DW_ERR_PROTO;
        done += (size_t)r;
    }
    c->st.octets_in += done;
    return (ssize_t)done;
}

static ssize_t fail(dw_conn *c, ssize_t rc)
{
    c->err = (int)rc;
    return rc;
}

ssize_t dw_conn_recv(dw_conn *c, const void *in, size_t len)
{
    if (c->err)
        return c->err;
    if (!in && len)
        return DW_ERR_INVAL;
    if (!len)
        return 0;
    ssize_t r = c->ready ? feed(c, in, len) : startup_feed(c, in, len);
    return r < 0 ? fail(c, r) : r;
}

int dw_conn_recv_end(dw_conn *c, dw_mpa_close_reason reason)
{
    if (c->err)
        return c->err;
    if (!c->ready) /* before MPA mode: no frame to end, only the start-up */
        return (int)fail(c, reason == DW_MPA_CLOSE_TIMEOUT ? DW_ERR_TIMEOUT : DW_ERR_CLOSED);
    int rc = dw_fr_rx_close(c->rx, reason); /* MPA 9 code 1 through on_error */
    if (reason == DW_MPA_CLOSE_TIMEOUT)
        return (int)fail(c, DW_ERR_TIMEOUT);
    return (int)fail(c, rc == 0 && reason == DW_MPA_CLOSE_FIN ? DW_ERR_CLOSED : DW_ERR_PROTO);
}

int dw_conn_in_frame(const dw_conn *c)
{
    if (!c->ready)
        return c->have > 0;
    return c->rx && dw_fr_rx_offset(c->rx) > c->frame_end;
}

/* ------------------------------------------------------------------ */
/* The receiver's callbacks                                            */
/* ------------------------------------------------------------------ */

/* Records go to the user's on_pdu, except an empty MPA ULPDU: records are
 * 1..64768 octets (MPA 5.2 senders never post 0), and an IFT peer's first
 * frame with an empty header reads as one under MPA without markers (its
 * header CRC then equals the FPDU's CRC). */
int dw_conn_rx_on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d,
                      size_t len, uint64_t off, void *u)
{
    dw_conn *c = u;
    c->frame_end = dw_fr_rx_offset(rx); /* the end of this frame */
    if (!len && !hlen && c->s.framing == DW_FRAMING_MPA)
        return c->empty = 1; /* stop here: dw_conn_recv refuses it */
    c->st.records_in++;
    c->stop = c->cb.on_pdu(c, hdr, hlen, d, len, off, c->user_data) != 0;
    size_t keep = c->s.rx_keep == DW_CONN_RX_KEEP_NONE ? 0 : c->s.rx_keep;
    if (d == c->asmb && c->asmb_cap > keep) { /* delivered: let it go */
        dw_mem_free(c->s.mem, c->asmb);
        c->asmb = NULL, c->asmb_cap = 0;
    }
    return c->stop;
}

/* As dw_conn_rx_on_pdu, the record in pieces (MPA only). */
int dw_conn_rx_on_pieces(dw_fr_rx *rx, const struct iovec *iov, int iovcnt, size_t len,
                         uint64_t off, void *u)
{
    dw_conn *c = u;
    c->frame_end = dw_fr_rx_offset(rx);
    if (!len)
        return c->empty = 1;
    c->st.records_in++;
    c->stop = c->iov_fn(c, iov, iovcnt, len, off, c->user_data) != 0;
    size_t keep = c->s.rx_keep == DW_CONN_RX_KEEP_NONE ? 0 : c->s.rx_keep;
    if (iovcnt == 1 && iov[0].iov_base == c->asmb && c->asmb_cap > keep) {
        dw_mem_free(c->s.mem, c->asmb);
        c->asmb = NULL, c->asmb_cap = 0;
    }
    return c->stop;
}

int dw_conn_set_iov_fn(dw_conn *c, dw_conn_iov_fn fn)
{
    if (!c)
        return DW_ERR_INVAL;
    if (c->s.framing != DW_FRAMING_MPA)
        return DW_ERR_UNSUPPORTED;
    c->iov_fn = fn;
    return c->rx ? dw_fr_rx_set_iov_fn(c->rx, fn ? dw_conn_rx_on_pieces : NULL) : 0;
}

void dw_conn_rx_on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    dw_conn *c = u;
    (void)rx;
    if (c->cb.on_error)
        c->cb.on_error(c, e, c->user_data);
}

/* The user's buffer, or ours, allocated (or grown) for the record; NULL
 * stops the receiver (DW_ERR_NOMEM). */
uint8_t *dw_conn_rx_get_buffer(dw_fr_rx *rx, size_t len, void *u)
{
    dw_conn *c = u;
    (void)rx;
    uint8_t *b = c->cb.get_buffer ? c->cb.get_buffer(c, len, c->user_data) : NULL;
    if (b)
        return b;
    if (len > c->asmb_cap) {
        dw_mem_free(c->s.mem, c->asmb);
        c->asmb = dw_mem_malloc(c->s.mem, len);
        c->asmb_cap = c->asmb ? len : 0;
    }
    return c->asmb;
}
