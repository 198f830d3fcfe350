/* SPDX-License-Identifier: MIT */
/*
 * The dissector: frames to connections (<ddpwire/flowtab.h>), each
 * direction reassembled (<ddpwire/reasm.h>) and handed to the framing its
 * first octets decide: the MPA checker, the IFT checker (dissect_ift.c) or
 * nothing (plain TCP). Connections end at FIN/RST both ways, on eviction
 * or at dw_dissect_finish(); memory is bounded by max_flows x store.
 */
#include <stdlib.h>
#include <string.h>

#include "base/inline.h"
#include "base/mem.h"
#include "check/dissect_int.h"
#include "check/flowtab_int.h"
#include "check/rdma_check_int.h"
#include "check/reasm_int.h"
#include "base/versioned.h"

DW_VERSIONS_1(dissect_callbacks_v, dw_dissect_callbacks, on_segment);
DW_VERSIONS_1(dissect_settings_v, dw_dissect_settings, mem);

static const uint8_t key_req[] = "MPA ID Req Frame", key_rep[] = "MPA ID Rep Frame";

void dw_ds_count(ds_dir *d, int incomplete)
{
    dw_dissect *D = d->flow->D;
    if (incomplete) {
        d->pub.incomplete++;
        D->st.incomplete++;
    } else {
        d->pub.protocol_errors++;
        D->st.protocol_errors++;
    }
}

void dw_ds_nomem(ds_dir *d, int rc)
{
    if (rc == DW_ERR_NOMEM && !d->nomem) {
        d->nomem = 1;
        d->flow->D->st.nomem++;
    }
}

/* ---- DDP/RDMAP ------------------------------------------------------- */

static void rdma_on_event(dw_rdma_check *c, const dw_rdma_check_event *ev, void *u)
{
    (void)c;
    ds_flow *f = u;
    ds_dir *d = &f->d[ev->dir];
    if (ev->error)
        dw_ds_count(d, 0);
    if (f->D->cb.on_rdma_event)
        f->D->cb.on_rdma_event(f->D, &d->pub, ev, f->D->ud);
}

static dw_rdma_check *rdma_of(ds_dir *d)
{
    ds_flow *f = d->flow;
    dw_rdma_check_callbacks cb = {rdma_on_event};
    if (!f->rdma) { /* its place is in the connection's block */
        f->rdma = f->rdma_room;
        dw_rc_init(f->rdma, f->D->s.mem, &cb, f);
    }
    return f->rdma;
}

const dw_rdmap_msg *dw_ds_ulpdu(ds_dir *d, int crc_ok, const uint8_t *head, size_t head_len,
                                uint32_t ulpdu_len, const dw_rdma_check_where *at,
                                dw_rdmap_msg *msg)
{
    dw_rdma_check *r = rdma_of(d);
    if (!r)
        return NULL;
    if (!crc_ok) {
        dw_rdma_check_gap(r, d->pub.dir);
        return NULL;
    }
    return dw_rdma_check_ulpdu(r, d->pub.dir, head, head_len, ulpdu_len, at, msg) ? msg : NULL;
}

void dw_ds_ulpdu_gap(ds_dir *d)
{
    if (d->flow->rdma)
        dw_rdma_check_gap(d->flow->rdma, d->pub.dir);
}

/* ---- MPA checker callbacks ------------------------------------------ */

static void mpa_on_marker(dw_mpa_check *c, const dw_mpa_check_marker *m, void *u)
{
    (void)c;
    ds_dir *d = u;
    if (d->nmk < sizeof d->mk / sizeof d->mk[0])
        d->mk[d->nmk++] = *m;
}

static void mpa_on_fpdu(dw_mpa_check *c, const dw_mpa_check_fpdu *fp, void *u)
{
    (void)c;
    ds_dir *d = u;
    dw_dissect *D = d->flow->D;
    dw_rdmap_msg m;
    int ok = fp->crc == DW_MPA_CHECK_CRC_GOOD || fp->crc == DW_MPA_CHECK_CRC_OFF;
    dw_rdma_check_where at = {fp->first_pkt, fp->offset, fp->seq};
    const dw_rdmap_msg *ddp = dw_ds_ulpdu(d, ok, fp->head, fp->head_len, fp->ulpdu_len, &at, &m);
    if (D->cb.on_fpdu)
        D->cb.on_fpdu(D, &d->pub, fp, d->mk, d->nmk, ddp, D->ud);
    d->nmk = 0;
}

static void apply_mode(ds_flow *f);

/* RFC 5044 7.1: markers towards a side iff its frame set M; CRC iff either set C. */
static void on_startup(ds_dir *d, const dw_mpa_startup *fr)
{
    d->frame_seen = 1;
    d->frame_m = !!(fr->flags & DW_MPA_FLAG_MARKERS);
    d->frame_c = !!(fr->flags & DW_MPA_FLAG_CRC);
    d->frame_r = !!(fr->flags & DW_MPA_FLAG_REJECT);
    apply_mode(d->flow);
}

/* How an MPA checker event counts. */
static int mpa_severity(const ds_dir *d, dw_mpa_check_event_kind k)
{
    switch (k) {
    case DW_MPA_CHECK_EV_STARTUP_BAD:
    case DW_MPA_CHECK_EV_CRC:
    case DW_MPA_CHECK_EV_MARKER:
    case DW_MPA_CHECK_EV_MARKER_RESERVED:
    case DW_MPA_CHECK_EV_PAD:
    case DW_MPA_CHECK_EV_LENGTH:
    case DW_MPA_CHECK_EV_OVERSIZE:
    case DW_MPA_CHECK_EV_MODE:
        return 1;
    case DW_MPA_CHECK_EV_TRUNCATED: /* cut by the capture, or by the peer */
        return (d->pub.fin || d->pub.rst) ? 1 : -1;
    case DW_MPA_CHECK_EV_NO_START:
        return d->flow->D->s.mode == DW_DISSECT_MPA;
    default:
        return 0;
    }
}

static void mpa_on_event(dw_mpa_check *c, const dw_mpa_check_event *ev, void *u)
{
    (void)c;
    ds_dir *d = u;
    dw_dissect *D = d->flow->D;
    if (ev->kind == DW_MPA_CHECK_EV_STARTUP && ev->frame) {
        on_startup(d, ev->frame);
        if (rdma_of(d))
            dw_rdma_check_startup(d->flow->rdma, d->pub.dir, ev->frame);
    }
    if (ev->kind == DW_MPA_CHECK_EV_START &&
        (d->frame_seen || d->flow->framing_forced) && !d->searching)
        dw_ds_place_start(d, ev->offset);
    if (ev->kind == DW_MPA_CHECK_EV_START && d->syn_seen && rdma_of(d) &&
        !strstr(ev->detail ? ev->detail : "", "mid-stream"))
        dw_rdma_check_from_start(d->flow->rdma, d->pub.dir);
    if (ev->kind == DW_MPA_CHECK_EV_GAP || ev->kind == DW_MPA_CHECK_EV_SYNC_LOST)
        dw_ds_ulpdu_gap(d);
    int sev = mpa_severity(d, ev->kind);
    if (sev)
        dw_ds_count(d, sev < 0);
    if (ev->kind == DW_MPA_CHECK_EV_GAP && ev->offset + ev->len <= d->gap_shown_end)
        return; /* shown (and counted) before the framing was known */
    if (d->searching && ev->kind == DW_MPA_CHECK_EV_NO_START) {
        d->pub.framing = DW_DISSECT_PLAIN; /* the checker goes later; IFT may still win */
        d->searching = 0;
        return;
    }
    if (ev->kind == DW_MPA_CHECK_EV_START)
        d->searching = 0;
    if (D->cb.on_mpa_event)
        D->cb.on_mpa_event(D, &d->pub, ev, sev, D->ud);
}

static int mpa_create(ds_dir *d, dw_mpa_check_start start, uint64_t start_offset)
{
    const dw_dissect_settings *o = &d->flow->D->s;
    dw_mpa_check_settings s;
    dw_mpa_check_settings_default(&s);
    s.start = start;
    s.start_offset = start_offset;
    s.markers = o->markers;
    s.crc = o->crc;
    if (d->searching) {
        s.search_limit = 262144; /* auto: most flows are not MPA */
        s.strict_search = 1;     /* ... and some carry runs of zeros */
    }
    s.head_len = 128; /* DDP/RDMAP headers, a Terminate's copies, a ULP's first octets */
    s.mem = o->mem;
    dw_mpa_check_callbacks cb = {mpa_on_fpdu, mpa_on_marker, mpa_on_event};
    if (dw_mpa_check_new(&d->mpa, &s, &cb, d))
        return -1;
    apply_mode(d->flow);
    return 0;
}

static void apply_mode(ds_flow *f)
{
    const dw_dissect_settings *o = &f->D->s;
    ds_dir *a = &f->d[0], *b = &f->d[1];
    if (!a->frame_seen || !b->frame_seen)
        return;
    int crc = a->frame_c || b->frame_c;
    for (int k = 0; k < 2; k++) {
        ds_dir *d = &f->d[k], *peer = &f->d[!k];
        if (d->mpa)
            dw_mpa_check_set_mode(d->mpa, o->markers >= 0 ? o->markers : peer->frame_m,
                                  o->crc >= 0 ? o->crc : crc);
    }
}

/* ---- deciding a direction's framing -------------------------------- */

static int prefix_of_key(const uint8_t *p, size_t n)
{
    size_t k = n < 16 ? n : 16;
    return !memcmp(p, key_req, k) || !memcmp(p, key_rep, k);
}

static int want_more(const ds_dir *d)
{
    return d->pre_len < sizeof d->pre &&
           d->pre_chunks < sizeof d->pre_chunk / sizeof d->pre_chunk[0];
}

/* Chooses the framing; final: nothing more will come to the buffer. */
static dw_dissect_framing decide(ds_dir *d, int final)
{
    ds_flow *f = d->flow;
    const dw_dissect_settings *o = &f->D->s;
    const uint8_t *p = d->pre;
    size_t n = d->pre_len;
    int from_port = o->mpa_port >= 0 && f->f->port[d->pub.dir] == o->mpa_port;
    if (o->mode == DW_DISSECT_NONE)
        return DW_DISSECT_PLAIN;
    if (o->mode == DW_DISSECT_IFT)
        return DW_DISSECT_FOUND_IFT;
    if (f->framing_forced && (!o->mpa_seq_set || from_port))
        return DW_DISSECT_FOUND_MPA; /* START_AT, set up by start_mode() */
    if (!final && n < 16 && prefix_of_key(p, n))
        return DW_DISSECT_UNDECIDED;
    if (n >= 16 && prefix_of_key(p, n))
        return DW_DISSECT_FOUND_MPA;
    if (o->mode == DW_DISSECT_MPA || f->framing_forced)
        return DW_DISSECT_FOUND_MPA;
    if (!final && want_more(d) && n < 64)
        return DW_DISSECT_UNDECIDED;
    if (dw_ds_ift_probe(p, n))
        return DW_DISSECT_FOUND_IFT;
    if (!final && want_more(d))
        return DW_DISSECT_UNDECIDED;
    /* else MPA at the first octet or found by the checker's search, each
     * FPDU validated (CRC, markers), or IFT found by its search beside it;
     * a direction where neither turns up is plain TCP, not an error */
    d->searching = n > 0;
    return d->searching ? DW_DISSECT_FOUND_MPA : DW_DISSECT_PLAIN;
}

static dw_mpa_check_start start_mode(ds_dir *d, uint64_t *at)
{
    ds_flow *f = d->flow;
    const dw_dissect_settings *o = &f->D->s;
    /* the first octet seen: a gap may come before it */
    *at = d->pre_chunks ? d->pre_chunk[0].offset : 0;
    if (f->framing_forced && o->mpa_seq_set && f->f->port[d->pub.dir] == o->mpa_port) {
        *at = (uint32_t)(o->mpa_seq - d->stream_seq);
        return DW_MPA_CHECK_START_AT;
    }
    if (f->framing_forced && !o->mpa_seq_set)
        return DW_MPA_CHECK_START_AT;
    if (d->pre_len >= 16 && prefix_of_key(d->pre, d->pre_len))
        return DW_MPA_CHECK_START_FRAMES;
    return DW_MPA_CHECK_START_AUTO; /* an FPDU at the first octet, else search */
}

/* Auto mode's two searches: the loser's checker goes (never inside its
 * own callback). */
static void end_race(ds_dir *d)
{
    if (d->pub.framing != DW_DISSECT_FOUND_MPA && d->mpa) {
        dw_mpa_check_del(d->mpa); /* its search found nothing, or IFT won */
        d->mpa = NULL;
    }
    if (d->ift_race &&
        (d->ift_race_lost || (d->pub.framing == DW_DISSECT_FOUND_MPA && !d->searching))) {
        dw_ift_check_del(d->ift); /* nothing found, or MPA won */
        d->ift = NULL;
        d->ift_race = 0;
    }
}

static void feed_framing(ds_dir *d, const uint8_t *p, size_t n, const dw_reasm_chunk *c)
{
    end_race(d);
    int mpa = d->pub.framing == DW_DISSECT_FOUND_MPA;
    if (mpa && d->mpa)
        dw_ds_nomem(d, dw_mpa_check_data(d->mpa, p, n, c));
    if (d->ift_race ? !(d->pub.framing == DW_DISSECT_FOUND_MPA && !d->searching)
                    : d->pub.framing == DW_DISSECT_FOUND_IFT)
        dw_ds_ift_data(d, p, n, c);
    end_race(d);
}

/* Decides and replays the buffered start. */
static void settle(ds_dir *d, int final)
{
    dw_dissect_framing fr = decide(d, final);
    if (fr == DW_DISSECT_UNDECIDED)
        return;
    d->pub.framing = fr;
    int fail = 0;
    if (fr == DW_DISSECT_FOUND_MPA) {
        uint64_t at;
        dw_mpa_check_start st = start_mode(d, &at);
        fail = mpa_create(d, st, at) || (d->searching && dw_ds_ift_create(d, 1));
    } else if (fr == DW_DISSECT_FOUND_IFT) {
        fail = dw_ds_ift_create(d, 0) != 0;
    }
    if (fail) {
        d->flow->D->st.nomem++;
        d->pub.framing = DW_DISSECT_PLAIN;
    }
    size_t off = 0;
    for (size_t i = 0; i < d->pre_chunks; i++) {
        size_t clen = (i + 1 < d->pre_chunks)
                          ? (size_t)(d->pre_chunk[i + 1].offset - d->pre_chunk[i].offset)
                          : d->pre_len - off;
        feed_framing(d, d->pre + off, clen, &d->pre_chunk[i]);
        off += clen;
    }
    d->pre_len = d->pre_chunks = 0;
}

/* ---- reassembler callbacks ------------------------------------------ */

static void learn_seq(ds_dir *d, uint32_t seq, uint64_t offset)
{
    if (!d->have_seq) {
        d->have_seq = 1;
        d->stream_seq = seq - (uint32_t)offset;
    }
}

static void on_data(dw_reasm *r, const uint8_t *p, size_t n, const dw_reasm_chunk *c, void *u)
{
    (void)r;
    ds_dir *d = u;
    learn_seq(d, c->seq, c->offset);
    if (d->pub.framing != DW_DISSECT_UNDECIDED) {
        feed_framing(d, p, n, c);
        return;
    }
    size_t room = sizeof d->pre - d->pre_len, take = n < room ? n : room;
    dw_reasm_chunk head = *c;
    head.seg_end = take == n ? c->seg_end : 0;
    d->pre_chunk[d->pre_chunks++] = head;
    memcpy(d->pre + d->pre_len, p, take);
    d->pre_len += take;
    settle(d, take < n || !want_more(d));
    if (take < n) {
        dw_reasm_chunk rest = *c;
        rest.offset += take;
        rest.seq += (uint32_t)take;
        rest.seg_start = 0;
        feed_framing(d, p + take, n - take, &rest);
    }
}

static void emit_gap(ds_dir *d, const dw_reasm_gap *g)
{
    dw_dissect *D = d->flow->D;
    if (D->cb.on_gap)
        D->cb.on_gap(D, &d->pub, g, D->ud);
}

static void on_gap(dw_reasm *r, const dw_reasm_gap *g, void *u)
{
    (void)r;
    ds_dir *d = u;
    learn_seq(d, g->seq, g->offset);
    dw_ds_count(d, 1);
    if (d->pub.framing == DW_DISSECT_UNDECIDED && !d->pre_len) {
        emit_gap(d, g); /* nothing to decide on yet: the framing starts after it */
        d->gap_shown_end = g->offset + g->len;
        return;
    }
    if (d->pub.framing == DW_DISSECT_UNDECIDED)
        settle(d, 1);
    int raced = d->ift_race;
    if (raced)
        dw_ds_ift_gap(d, g); /* silent: shown by MPA's checker or below */
    if (d->pub.framing == DW_DISSECT_FOUND_MPA && d->mpa)
        dw_ds_nomem(d, dw_mpa_check_gap(d->mpa, g));
    else if (d->pub.framing == DW_DISSECT_FOUND_IFT && d->ift && !raced)
        dw_ds_ift_gap(d, g); /* the checker reports it */
    else
        emit_gap(d, g);
    end_race(d);
}

static void on_event(dw_reasm *r, const dw_reasm_event *ev, void *u)
{
    (void)r;
    ds_dir *d = u;
    dw_dissect *D = d->flow->D;
    int sev = ev->kind == DW_REASM_EV_MISMATCH ? 1 : ev->kind == DW_REASM_EV_DROPPED ? -1 : 0;
    if (sev)
        dw_ds_count(d, sev < 0);
    if (D->cb.on_reasm_event)
        D->cb.on_reasm_event(D, &d->pub, ev, sev, D->ud);
}

/* ---- connections ---------------------------------------------------- */

static void flow_free(ds_flow *f)
{
    for (int k = 0; k < 2; k++) {
        dw_ds_place_free(&f->d[k]);
        if (f->d[k].reasm)
            dw_ra_fini(f->d[k].reasm);
        dw_mpa_check_del(f->d[k].mpa);
        dw_ift_check_del(f->d[k].ift);
    }
    /* the block is the flow table entry's: freed after on_flow_end */
}

static void end_dir(ds_dir *d)
{
    dw_reasm_flush(d->reasm);
    if (d->pub.framing == DW_DISSECT_UNDECIDED)
        settle(d, 1);
    if (d->mpa && d->pub.framing == DW_DISSECT_FOUND_MPA)
        dw_ds_nomem(d, dw_mpa_check_end(d->mpa));
    end_race(d);
    int raced = d->ift_race;
    if (raced)
        dw_ds_ift_race_end(d);
    if (d->searching)
        d->pub.framing = DW_DISSECT_PLAIN; /* ended before MPA or IFT was found */
    if (d->pub.framing == DW_DISSECT_FOUND_IFT && !raced)
        dw_ds_ift_end(d);
}

static void on_flow_end(dw_flowtab *t, dw_flow *fl, void *u)
{
    (void)t;
    dw_dissect *D = u;
    ds_flow *f = fl->user_data;
    if (!f)
        return;
    for (int k = 0; k < 2; k++)
        end_dir(&f->d[k]);
    dw_rdma_check_end(f->rdma);
    if (D->cb.on_flow_end)
        D->cb.on_flow_end(D, fl, D->ud);
    flow_free(f);
    fl->user_data = NULL;
}

static void reasm_settings(const dw_dissect *D, dw_reasm_settings *rs)
{
    dw_reasm_settings_default(rs);
    rs->store_bytes = D->s.store;
    rs->mem = D->s.mem;
}

/* A connection, its two reassemblers and its DDP/RDMAP checker: one
 * block, each behind a redzone (base/inline.h), in the room the flow
 * table leaves for it in its entry's block (one allocation). */
static size_t flow_size(const dw_dissect *D)
{
    dw_reasm_settings rs;
    reasm_settings(D, &rs);
    return dw_inl_round(sizeof(ds_flow)) + 2 * dw_inl_size(dw_ra_size(&rs)) +
           dw_inl_size(dw_rc_size());
}

static ds_flow *flow_new(dw_dissect *D, dw_flow *fl, const dw_pkt_tcp *t)
{
    dw_reasm_settings rs;
    reasm_settings(D, &rs);
    ds_flow *f = dw_ft_room(fl);
    /* what is read before it is written: not the held arrays (17 KiB
     * a connection; clearing them was 4 % of fuzz_dump's time) */
    memset(f, 0, offsetof(ds_flow, d));
    for (int k = 0; k < 2; k++)
        memset(&f->d[k], 0, DS_DIR_CLEAR);
    f->f = fl;
    f->D = D;
    f->framing_forced = D->s.mpa_port >= 0 &&
                        (t->sport == D->s.mpa_port || t->dport == D->s.mpa_port);
    dw_reasm_callbacks cb = {on_data, on_gap, on_event};
    uint8_t *at = (uint8_t *)f + dw_inl_round(sizeof *f);
    f->rdma_room = dw_inl_take(&at, dw_rc_size());
    for (int k = 0; k < 2; k++) {
        f->d[k].flow = f;
        f->d[k].pub.flow = fl;
        f->d[k].pub.dir = k;
        dw_reasm *r = dw_inl_take(&at, dw_ra_size(&rs));
        if (dw_ra_init(r, &rs, &cb, &f->d[k])) {
            flow_free(f);
            return NULL;
        }
        f->d[k].reasm = r;
    }
    fl->user_data = f;
    return f;
}

/* The connection of t, made when new (not for a pure ACK or RST of one
 * already finished or never seen); NULL: none. */
static ds_flow *flow_of(dw_dissect *D, const dw_pkt_tcp *t, int *k)
{
    dw_flow *fl = dw_flowtab_find(D->flows, t, k);
    if (fl)
        return fl->user_data;
    if (!(t->flags & DW_PKT_SYN) && !t->payload_len)
        return NULL;
    ds_flow *f = NULL;
    if (dw_flowtab_add(D->flows, t, &fl, k) || !(f = flow_new(D, fl, t))) {
        D->st.nomem++;
        if (fl)
            dw_flowtab_end(D->flows, fl);
        return NULL;
    }
    if (D->cb.on_flow_start)
        D->cb.on_flow_start(D, fl, D->ud);
    return f;
}

/* TCP RDMA option (kind 25) in a segment: checked, counted, reported. */
static void tcp_options(ds_dir *d, const dw_pkt_tcp *t)
{
    dw_dissect *D = d->flow->D;
    dw_dissect_tcpopt o;
    memset(&o, 0, sizeof o);
    o.pkt = D->pkt;
    o.reason = DW_TCPOPT_R_OK;
    int rc = dw_tcpopt_parse(&o.found, &o.reason, t->options, t->options_len, t->payload_len);
    if (rc == 0 || (rc < 0 && o.reason == DW_TCPOPT_R_OPTIONS_MALFORMED &&
                    !memchr(t->options, 25, t->options_len)))
        return; /* no RDMA option (a malformed list without kind 25 is not ours) */
    if (rc == 1 && DW_TCPOPT_HAS_DATA(&o.found.opt)) { /* 3.1.4: one total per transfer */
        if (!d->ttot_set || d->ttot.rid != o.found.opt.rid)
            dw_tcpopt_total_init(&d->ttot, o.found.opt.rid);
        d->ttot_set = 1;
        o.reason = dw_tcpopt_total_check(&d->ttot, &o.found.opt);
        if (o.reason != DW_TCPOPT_R_OK)
            rc = DW_ERR_MALFORMED;
    }
    o.valid = rc == 1;
    d->pub.tcpopts++;
    if (!o.valid) {
        d->pub.tcpopt_bad++;
        dw_ds_count(d, 0);
    }
    if (D->cb.on_tcpopt)
        D->cb.on_tcpopt(D, &d->pub, &o, D->ud);
}

static void tcp_segment(dw_dissect *D, const dw_pkt_tcp *t)
{
    int k = 0;
    ds_flow *f = flow_of(D, t, &k);
    if (!f)
        return;
    ds_dir *d = &f->d[k];
    d->pub.packets++;
    d->pub.octets += t->payload_len;
    if (D->cb.on_segment)
        D->cb.on_segment(D, &d->pub, t, D->ud);
    if (t->options_len)
        tcp_options(d, t);
    if (t->flags & DW_PKT_SYN)
        d->syn_seen = 1;
    if (t->flags & DW_PKT_FIN)
        d->pub.fin = 1;
    if (t->flags & DW_PKT_RST)
        d->pub.rst = f->d[!k].pub.rst = 1;
    dw_ds_nomem(d, dw_reasm_feed(d->reasm, D->pkt, t->seq, t->flags, t->payload,
                                 t->payload_caplen, t->payload_len));
    if (d->pl_start_known)
        dw_ds_place_segment(d, t);
    const dw_dissect_dir *a = &f->d[0].pub, *b = &f->d[1].pub;
    if ((a->fin || a->rst) && (b->fin || b->rst))
        dw_flowtab_end(D->flows, f->f);
}

/* IPoIB (link type 242): the frame's address and type, and ARP's. */
static void ipoib_frame(dw_dissect *D, const uint8_t *frame, size_t caplen)
{
    dw_dissect_ipoib ip;
    memset(&ip, 0, sizeof ip);
    ip.pkt = D->pkt;
    if (dw_ipoib_lt242_decode(&ip.lt242, frame, caplen) < 0 ||
        dw_ipoib_hdr_decode(&ip.hdr, frame + DW_IPOIB_LT242_LEN,
                            caplen - DW_IPOIB_LT242_LEN) < 0) {
        D->st.unreadable++;
        return;
    }
    if (ip.hdr.type == DW_IPOIB_TYPE_ARP) {
        ip.is_arp = 1;
        ip.arp_ok = dw_ipoib_arp_decode(&ip.arp, frame + DW_IPOIB_LT242_LEN + 4,
                                        caplen - DW_IPOIB_LT242_LEN - 4) >= 0;
        if (!ip.arp_ok)
            D->st.protocol_errors++;
    }
    if (D->cb.on_ipoib)
        D->cb.on_ipoib(D, &ip, D->ud);
}

static int port_wanted(const dw_dissect *D, const dw_pkt_tcp *t)
{
    if (!D->s.nports)
        return 1;
    for (size_t i = 0; i < D->s.nports; i++)
        if (t->sport == D->s.ports[i] || t->dport == D->s.ports[i])
            return 1;
    return 0;
}

uint64_t dw_dissect_packet(dw_dissect *D, unsigned linktype, uint64_t time,
                           const uint8_t *frame, size_t caplen, size_t wirelen)
{
    if (!D || (!frame && caplen))
        return 0;
    D->pkt = ++D->st.packets;
    D->time = time;
    if (linktype == DW_PKT_LINK_IPOIB)
        ipoib_frame(D, frame, caplen);
    dw_pkt_tcp t;
    dw_pkt_reason why;
    int rc = dw_pkt_parse(&t, &why, linktype, frame, caplen, wirelen, 0);
    if (rc == DW_ERR_UNSUPPORTED) {
        D->st.not_tcp++;
    } else if (rc) {
        D->st.unreadable++;
    } else {
        D->st.tcp_packets++;
        if (port_wanted(D, &t))
            tcp_segment(D, &t);
    }
    return D->pkt;
}

/* ---- the object ----------------------------------------------------- */

static void dissect_settings_fill(dw_dissect_settings *s)
{
    memset(s, 0, sizeof *s);
    s->mode = DW_DISSECT_AUTO;
    s->markers = s->crc = s->mpa_port = -1;
    s->max_flows = 256;
    s->store = 262144;
    s->placement_store = 1u << 20;
}

int dw_dissect_settings_default_versioned(int settings_version, dw_dissect_settings *s)
{
    dw_dissect_settings cur;
    dissect_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, dissect_settings_v);
}

/* Decimal digits up to end (or the string's end), at most max; -1 if none,
 * anything else, or above max. */
static int64_t dissect_decimal(const char *p, const char *end, uint64_t max)
{
    uint64_t v = 0;
    if (p == end || !*p)
        return -1;
    for (; p != end && *p; p++) {
        if (*p < '0' || *p > '9' || (v = v * 10 + (uint64_t)(*p - '0')) > max)
            return -1;
    }
    return (int64_t)v;
}

int dw_dissect_settings_mpa_start(dw_dissect_settings *s, const char *text)
{
    if (!s || !text)
        return DW_ERR_INVAL;
    const char *colon = strchr(text, ':');
    int64_t port = dissect_decimal(text, colon, 65535);
    int64_t seq = colon ? dissect_decimal(colon + 1, NULL, UINT32_MAX) : 0;
    if (port < 1 || seq < 0)
        return DW_ERR_INVAL;
    s->mpa_port = (int)port;
    if (colon) {
        s->mpa_seq = (uint32_t)seq;
        s->mpa_seq_set = 1;
    }
    return 0;
}

static int dissect_new_latest(dw_dissect **pD, const dw_dissect_settings *s,
                              const dw_dissect_callbacks *cb, void *user_data)
{
    dw_dissect_settings d;
    if (!pD)
        return DW_ERR_INVAL;
    *pD = NULL;
    if (!s) {
        dw_dissect_settings_default(&d);
        s = &d;
    }
    if ((unsigned)s->mode > DW_DISSECT_NONE || s->nports > DW_DISSECT_PORTS_MAX ||
        s->mpa_port > 65535 || s->markers > 1 || s->crc > 1)
        return DW_ERR_INVAL;
    dw_flowtab_settings fs;
    dw_flowtab_settings_default(&fs);
    fs.max_flows = s->max_flows;
    fs.mem = s->mem;
    if (!dw_ft_settings_ok(&fs))
        return DW_ERR_INVAL; /* as dw_flowtab_new */
    /* one block: the dissector and its flow table (base/inline.h) */
    size_t head = dw_inl_round(sizeof(dw_dissect));
    size_t size = head + dw_inl_size(dw_ft_size(&fs));
    dw_dissect *D = dw_mem_malloc(s->mem, size);
    if (!D)
        return DW_ERR_NOMEM;
    memset(D, 0, sizeof *D);
    D->size = size;
    D->s = *s;
    if (cb)
        D->cb = *cb;
    D->ud = user_data;
    dw_flowtab_callbacks fcb = {on_flow_end};
    uint8_t *at = (uint8_t *)D + head;
    D->flows = dw_inl_take(&at, dw_ft_size(&fs));
    dw_ft_init(D->flows, &fs, &fcb, D);
    dw_ft_set_room(D->flows, flow_size(D));
    *pD = D;
    return 0;
}

int dw_dissect_new_versioned(dw_dissect **pD, int settings_version,
                             const dw_dissect_settings *s, int callbacks_version,
                             const dw_dissect_callbacks *cb, void *user_data)
{
    dw_dissect_settings s_cur;
    if (settings_version != DW_DISSECT_SETTINGS_VERSION)
        dw_dissect_settings_default(&s_cur);
    dw_dissect_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, dissect_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, dissect_callbacks_v, err);
    if (err)
        return err;
    return dissect_new_latest(pD, s, cb, user_data);
}

void dw_dissect_finish(dw_dissect *D)
{
    if (D)
        dw_flowtab_finish(D->flows);
}

void dw_dissect_del(dw_dissect *D)
{
    if (!D)
        return;
    /* free without reporting: detach the callbacks first */
    memset(&D->cb, 0, sizeof D->cb);
    dw_flowtab_finish(D->flows);
    dw_ft_fini(D->flows);
    dw_inl_release(D, D->size);
    dw_mem_free(D->s.mem, D);
}

void dw_dissect_stats_get(const dw_dissect *D, dw_dissect_stats *st)
{
    if (!D || !st)
        return;
    *st = D->st;
    st->flows_seen = dw_flowtab_seen(D->flows);
    st->flows_open = dw_flowtab_open(D->flows);
}

const char *dw_dissect_framing_name(dw_dissect_framing f)
{
    static const char *n[] = {"unknown", "mpa", "ift", "tcp"};
    return (unsigned)f < 4 ? n[f] : "?";
}

/* ---- per-direction views -------------------------------------------- */

const dw_dissect_dir *dw_dissect_flow_dir(const dw_flow *f, int k)
{
    const ds_flow *x = f ? f->user_data : NULL;
    return x && (k == 0 || k == 1) ? &x->d[k].pub : NULL;
}

void dw_dissect_flow_set_app(const dw_flow *f, void *app)
{
    ds_flow *x = f ? f->user_data : NULL;
    if (x)
        x->app = app;
}

void *dw_dissect_flow_app(const dw_flow *f)
{
    const ds_flow *x = f ? f->user_data : NULL;
    return x ? x->app : NULL;
}

void dw_dissect_dir_stats_get(const dw_dissect_dir *pd, dw_dissect_dir_stats *st)
{
    if (!pd || !st)
        return;
    const ds_dir *d = (const ds_dir *)pd; /* pub is the first member */
    memset(st, 0, sizeof *st);
    dw_reasm_stats_get(d->reasm, &st->reasm);
    if (d->mpa && d->pub.framing == DW_DISSECT_FOUND_MPA)
        dw_mpa_check_stats_get(d->mpa, &st->mpa);
    if (d->ift && d->pub.framing == DW_DISSECT_FOUND_IFT)
        dw_ift_check_stats_get(d->ift, &st->ift);
    dw_rdma_check_stats_get(d->flow->rdma, d->pub.dir, &st->rdma);
    dw_ds_place_stats(d, st);
}

dw_rdma_ulp dw_dissect_flow_ulp(const dw_flow *f)
{
    const ds_flow *x = f ? f->user_data : NULL;
    dw_rdma_check_stats a, b;
    if (!x || !x->rdma)
        return DW_RDMA_ULP_UNKNOWN;
    dw_rdma_check_stats_get(x->rdma, 0, &a);
    dw_rdma_check_stats_get(x->rdma, 1, &b);
    return a.ulp ? a.ulp : b.ulp;
}
