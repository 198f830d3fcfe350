/* SPDX-License-Identifier: MIT */
/*
 * DDP/RDMAP stream checker (<ddpwire/rdma_check.h>): per direction, the
 * untagged queues' MSN and MO, the tagged messages' STag and TO, the
 * Read Requests a direction sent and the Read Responses the other one
 * answers them with.
 */
#include <ddpwire/rdma_check.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/mem.h"
#include "base/versioned.h"
#include "check/rdma_check_int.h"

DW_VERSIONS_1(rdma_check_callbacks_v, dw_rdma_check_callbacks, on_event);
DW_VERSIONS_1(rdma_check_settings_v, dw_rdma_check_settings, mem);

/* Read Requests tracked per direction (more outstanding is a violation
 * of any IRD a real device announces). */
#define RC_READS 128u

typedef struct rc_read {
    uint32_t sink_stag, size;
    uint64_t sink_to, done;
} rc_read;

typedef struct rc_dir {
    int from_start, lost;
    uint32_t msn[3];
    int msn_known[3], in_msg[3];
    uint32_t mo[3];
    int t_in;               /* a tagged message is open */
    uint8_t t_op;
    uint32_t t_stag;
    uint64_t t_to;
    rc_read reads[RC_READS]; /* this direction's requests, oldest at rhead */
    size_t rhead, rcount;
    int reads_uncertain;    /* requests or responses may have been lost */
    int ulp_seen;
    dw_rdma_check_stats st;
} rc_dir;

struct dw_rdma_check {
    dw_rdma_check_callbacks cb;
    void *ud;
    rc_dir d[2];
    dw_rdma_check_where at; /* the ULPDU being checked */
    int dir;
    char detail[224];
    const dw_mem *mem;
};

static void rdma_check_settings_fill(dw_rdma_check_settings *s)
{
    memset(s, 0, sizeof *s);
}

int dw_rdma_check_settings_default_versioned(int settings_version, dw_rdma_check_settings *s)
{
    dw_rdma_check_settings cur;
    rdma_check_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, rdma_check_settings_v);
}

size_t dw_rc_size(void)
{
    return sizeof(dw_rdma_check);
}

void dw_rc_init(dw_rdma_check *c, const dw_mem *m, const dw_rdma_check_callbacks *cb,
                void *user_data)
{
    memset(c, 0, sizeof *c);
    c->mem = m;
    if (cb)
        c->cb = *cb;
    c->ud = user_data;
    for (int k = 0; k < 2; k++)
        c->d[k].st.ird = c->d[k].st.ord = -1;
}

static int rdma_check_new_latest(dw_rdma_check **pc, const dw_rdma_check_settings *settings,
                                 const dw_rdma_check_callbacks *cb, void *user_data)
{
    if (!pc)
        return DW_ERR_INVAL;
    const dw_mem *m = settings ? settings->mem : NULL;
    dw_rdma_check *c = dw_mem_malloc(m, sizeof *c);
    if (!(*pc = c))
        return DW_ERR_NOMEM;
    dw_rc_init(c, m, cb, user_data);
    return 0;
}

int dw_rdma_check_new_versioned(dw_rdma_check **pc, int settings_version,
                                const dw_rdma_check_settings *settings, int callbacks_version,
                                const dw_rdma_check_callbacks *cb, void *user_data)
{
    dw_rdma_check_settings settings_cur;
    if (settings_version != DW_RDMA_CHECK_SETTINGS_VERSION)
        dw_rdma_check_settings_default(&settings_cur);
    dw_rdma_check_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(settings, settings_cur, settings_version, rdma_check_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, rdma_check_callbacks_v, err);
    if (err)
        return err;
    return rdma_check_new_latest(pc, settings, cb, user_data);
}

void dw_rdma_check_del(dw_rdma_check *c)
{
    if (c)
        dw_mem_free(c->mem, c);
}

static void emit(dw_rdma_check *c, dw_rdma_check_event_kind k, int error)
{
    if (error)
        c->d[c->dir].st.violations++;
    if (!c->cb.on_event)
        return;
    dw_rdma_check_event ev = {k, c->dir, c->at.pkt, c->at.offset, c->at.seq, error, c->detail};
    c->cb.on_event(c, &ev, c->ud);
}

/* ---- start-up ------------------------------------------------------- */

int dw_rdma_pd_info_get(const dw_mpa_startup *fr, dw_rdma_pd_info *out)
{
    memset(out, 0, sizeof *out);
    const uint8_t *pd = fr->pd;
    size_t n = fr->pd_len;
    if (fr->rev == 2 && (fr->flags & DW_MPA_FLAG_ENHANCED) &&
        dw_mpa_enh_decode(&out->enh, pd, n) > 0) {
        out->enhanced = 1;
        pd += DW_MPA_ENH_LEN, n -= DW_MPA_ENH_LEN;
    }
    if (n == 8) { /* SMB Direct: IRD, ORD as 32-bit words */
        out->smbd = 1;
        out->smbd_ird = dw_get_be32(pd), out->smbd_ord = dw_get_be32(pd + 4);
        out->smbd_host_order = out->smbd_ird > 0xffff && (out->smbd_ird & 0xffff) == 0 &&
                               (out->smbd_ord & 0xffff) == 0;
        if (out->smbd_host_order)
            out->smbd_ird = dw_get_le32(pd), out->smbd_ord = dw_get_le32(pd + 4);
    }
    return out->enhanced || out->smbd;
}

void dw_rdma_check_startup(dw_rdma_check *c, int dir, const dw_mpa_startup *fr)
{
    dw_rdma_pd_info pi;
    if (!c || (dir & ~1) || !fr || !dw_rdma_pd_info_get(fr, &pi))
        return;
    rc_dir *d = &c->d[dir];
    if (pi.smbd) {
        d->st.ird = (int32_t)(pi.smbd_ird & 0x7fffffff);
        d->st.ord = (int32_t)(pi.smbd_ord & 0x7fffffff);
    } else {
        d->st.ird = pi.enh.ird;
        d->st.ord = pi.enh.ord;
    }
}

void dw_rdma_check_from_start(dw_rdma_check *c, int dir)
{
    if (c && !(dir & ~1))
        c->d[dir].from_start = 1;
}

/* ---- the upper protocol, from a Send's payload ----------------------- */

static dw_rdma_ulp guess_ulp(const uint8_t *p, size_t have, size_t len)
{
    if (len >= 64 && have >= 5 && p[0] == 0x7f && p[4] == 0x01)
        return DW_RDMA_ULP_NVMEOF; /* Fabrics command, Connect (NVMe-oF 1.1 3.3) */
    if ((len == 20 || len == 32) && have >= 6 && p[0] == 0 && p[1] == 1 && p[2] == 0 &&
        p[3] == 1)
        return DW_RDMA_ULP_SMBD; /* negotiate: versions 0x0100 (MS-SMBD 2.2.1, 2.2.2) */
    if (len >= 28 && have >= 16 && dw_get_be32(p + 4) == 1 && dw_get_be32(p + 12) <= 4)
        return DW_RDMA_ULP_RPCRDMA; /* vers 1, proc RDMA_MSG..RDMA_ERROR (RFC 8166) */
    return DW_RDMA_ULP_UNKNOWN;
}

const char *dw_rdma_ulp_name(dw_rdma_ulp u)
{
    static const char *n[] = {"unknown", "nvme-of", "smb-direct", "rpc-rdma", "rping"};
    return (unsigned)u < 5 ? n[u] : "unknown";
}

/* ---- untagged messages (RFC 5041 5.3) ------------------------------- */

static void untagged(dw_rdma_check *c, rc_dir *d, const dw_ddp_hdr *h, uint32_t plen)
{
    uint32_t q = h->qn;
    if (d->in_msg[q] && h->msn != d->msn[q]) {
        snprintf(c->detail, sizeof c->detail,
                 "queue %u: MSN %u begins while message %u is not closed (no Last)", q, h->msn,
                 d->msn[q]);
        emit(c, DW_RDMA_CHECK_EV_MSN, 1);
        d->in_msg[q] = 0;
    }
    if (!d->in_msg[q]) {
        int known = d->msn_known[q] || (d->from_start && !d->lost);
        uint32_t want = d->msn_known[q] ? d->msn[q] + 1 : 1;
        if (known && h->msn != want) {
            snprintf(c->detail, sizeof c->detail, "queue %u: MSN %u, expected %u", q, h->msn,
                     want);
            emit(c, DW_RDMA_CHECK_EV_MSN, 1);
        }
        d->msn[q] = h->msn;
        d->msn_known[q] = 1;
        d->mo[q] = 0;
        if (h->mo && known) {
            snprintf(c->detail, sizeof c->detail, "queue %u MSN %u: first MO %u, not 0", q,
                     h->msn, h->mo);
            emit(c, DW_RDMA_CHECK_EV_MO, 1);
        }
        if (!known)
            d->mo[q] = h->mo; /* learnt: a message begun before the capture */
    } else if (h->mo != d->mo[q]) {
        snprintf(c->detail, sizeof c->detail, "queue %u MSN %u: MO %u, expected %u", q, h->msn,
                 h->mo, d->mo[q]);
        emit(c, DW_RDMA_CHECK_EV_MO, 1);
    }
    d->mo[q] = h->mo + plen;
    d->in_msg[q] = !h->last;
    d->st.messages += h->last != 0;
}

/* ---- tagged messages and Read Responses (RFC 5041 5.2, RFC 5040 4.5) -- */

static rc_read *oldest(rc_dir *req)
{
    return req->rcount ? &req->reads[req->rhead] : NULL;
}

static void pop(rc_dir *req)
{
    req->rhead = (req->rhead + 1) % RC_READS;
    req->rcount--;
    req->st.reads_answered++;
}

/* The first segment of a Read Response: it answers the oldest request. */
static void response_begins(dw_rdma_check *c, rc_dir *req, const dw_ddp_hdr *h)
{
    rc_read *q = oldest(req);
    if (!q) {
        snprintf(c->detail, sizeof c->detail,
                 "Read Response STag 0x%08x TO 0x%" PRIx64 " answers no outstanding Read Request",
                 h->stag, h->to);
        if (!req->reads_uncertain)
            emit(c, DW_RDMA_CHECK_EV_READ_UNMATCHED, 1);
        return;
    }
    if (h->stag != q->sink_stag || h->to != q->sink_to) {
        snprintf(c->detail, sizeof c->detail,
                 "Read Response STag 0x%08x TO 0x%" PRIx64 ", the oldest Read Request asked for "
                 "STag 0x%08x TO 0x%" PRIx64,
                 h->stag, h->to, q->sink_stag, q->sink_to);
        emit(c, DW_RDMA_CHECK_EV_READ_MISMATCH, !req->reads_uncertain);
    }
}

static void response_segment(dw_rdma_check *c, rc_dir *req, const dw_ddp_hdr *h, uint32_t plen)
{
    rc_read *q = oldest(req);
    if (!q)
        return;
    q->done += plen;
    if (!h->last)
        return;
    if (q->done != q->size) {
        snprintf(c->detail, sizeof c->detail,
                 "Read Response of %" PRIu64 " octets to a Read Request of %u", q->done, q->size);
        emit(c, DW_RDMA_CHECK_EV_READ_MISMATCH, !req->reads_uncertain);
    }
    pop(req);
}

static void tagged(dw_rdma_check *c, rc_dir *d, rc_dir *other, const dw_ddp_hdr *h,
                   uint32_t plen)
{
    int resp = h->opcode == DW_RDMAP_READ_RESP;
    if (d->t_in && (h->stag != d->t_stag || h->to != d->t_to || h->opcode != d->t_op)) {
        snprintf(c->detail, sizeof c->detail,
                 "tagged message: STag 0x%08x TO 0x%" PRIx64 ", expected STag 0x%08x TO 0x%" PRIx64,
                 h->stag, h->to, d->t_stag, d->t_to);
        emit(c, DW_RDMA_CHECK_EV_TAGGED, 1);
        d->t_in = 0;
    }
    if (!d->t_in && resp)
        response_begins(c, other, h);
    if (resp)
        response_segment(c, other, h, plen);
    d->t_in = !h->last;
    d->t_op = h->opcode;
    d->t_stag = h->stag;
    d->t_to = h->to + plen;
    d->st.messages += h->last != 0;
}

/* ---- one ULPDU ------------------------------------------------------- */

static void read_request(dw_rdma_check *c, rc_dir *d, const rc_dir *resp, const dw_rdmap_msg *m)
{
    if (d->rcount == RC_READS) { /* forget the oldest: answers become uncertain */
        d->rhead = (d->rhead + 1) % RC_READS;
        d->rcount--;
        d->reads_uncertain = 1;
    }
    rc_read *q = &d->reads[(d->rhead + d->rcount++) % RC_READS];
    q->sink_stag = m->read_req.sink_stag;
    q->sink_to = m->read_req.sink_to;
    q->size = m->read_req.size;
    q->done = 0;
    if (d->rcount > d->st.reads_max_outstanding)
        d->st.reads_max_outstanding = d->rcount;
    if (resp->st.ird > 0 && d->rcount > (size_t)resp->st.ird) {
        snprintf(c->detail, sizeof c->detail,
                 "%zu Read Requests outstanding, the responder's IRD is %d", d->rcount,
                 (int)resp->st.ird);
        emit(c, DW_RDMA_CHECK_EV_READ_DEPTH, 1);
    }
}

static void terminate(dw_rdma_check *c, const dw_rdmap_msg *m)
{
    const dw_rdmap_term *t = &m->term;
    snprintf(c->detail, sizeof c->detail, "Terminate: %s, %s: %s (layer %u type %u code 0x%02x)%s%s",
             dw_rdmap_term_layer_str(t->layer), dw_rdmap_term_etype_str(t->layer, t->etype),
             dw_rdmap_term_str(t->layer, t->etype, t->code), t->layer, t->etype, t->code,
             t->d ? ", DDP header copied" : "", t->swapped ? " [siw 6.1 layout]" : "");
    emit(c, DW_RDMA_CHECK_EV_TERMINATE, 1);
}

static void count(rc_dir *d, const dw_ddp_hdr *h)
{
    d->st.writes += h->opcode == DW_RDMAP_WRITE && h->last;
    d->st.read_requests += h->opcode == DW_RDMAP_READ_REQ;
    d->st.read_responses += h->opcode == DW_RDMAP_READ_RESP && h->last;
    d->st.sends += h->opcode >= DW_RDMAP_SEND && h->opcode <= DW_RDMAP_SEND_SE_INV && h->last;
    d->st.sends_inv += (h->opcode == DW_RDMAP_SEND_INV || h->opcode == DW_RDMAP_SEND_SE_INV) &&
                       h->last;
    d->st.terminates += h->opcode == DW_RDMAP_TERMINATE;
}

/* Rules after which the message still has a place in its sequence. */
static int judgeable(dw_rdmap_reason r)
{
    return r == DW_RDMAP_OK || r == DW_RDMAP_BAD_NOT_LAST || r == DW_RDMAP_BAD_MO ||
           r == DW_RDMAP_BAD_LENGTH;
}

/* Decodes; the first ULPDU decides whether the direction is DDP at all:
 * versions 1, opcode, buffer model and queue (reserved bits aside). */
static int decode(dw_rdma_check *c, rc_dir *d, const uint8_t *head, size_t hl, uint32_t ulen,
                  dw_rdmap_msg *m)
{
    ssize_t n = dw_rdmap_decode(m, head, hl < ulen ? hl : ulen);
    dw_rdmap_reason r = DW_RDMAP_BAD_DDP_VERSION, strict = DW_RDMAP_OK;
    if (n >= 0) {
        m->payload_len = ulen - (size_t)n;
        r = dw_rdmap_validate(m, 0);
        strict = dw_rdmap_validate(m, DW_RDMAP_STRICT);
    }
    if (!d->st.active) {
        d->st.active = judgeable(r) ? 1 : -1;
        if (d->st.active < 0) {
            snprintf(c->detail, sizeof c->detail,
                     "the first ULPDU is not DDP/RDMAP (%s): this direction is not checked",
                     n < 0 ? "too short" : dw_rdmap_reason_str(r));
            emit(c, DW_RDMA_CHECK_EV_NOT_DDP, 0);
            return 0;
        }
    }
    if (n < 0) {
        snprintf(c->detail, sizeof c->detail, "ULPDU of %u octets: too short for its headers",
                 ulen);
        emit(c, DW_RDMA_CHECK_EV_INVALID, 1);
        return 0;
    }
    if (r != DW_RDMAP_OK || strict != DW_RDMAP_OK) {
        snprintf(c->detail, sizeof c->detail, "%s",
                 dw_rdmap_reason_str(r != DW_RDMAP_OK ? r : strict));
        emit(c, DW_RDMA_CHECK_EV_INVALID, 1);
    }
    return judgeable(r); /* else no sequence to judge it in */
}

int dw_rdma_check_ulpdu(dw_rdma_check *c, int dir, const uint8_t *head, size_t head_len,
                        uint32_t ulpdu_len, const dw_rdma_check_where *where, dw_rdmap_msg *msg)
{
    dw_rdmap_msg m;
    if (!c || (dir & ~1) || (!head && head_len) || !where)
        return 0;
    rc_dir *d = &c->d[dir], *o = &c->d[!dir];
    if (d->st.active < 0)
        return 0;
    c->dir = dir, c->at = *where;
    d->st.ulpdus++;
    if (!decode(c, d, head, head_len, ulpdu_len, &m))
        return 0;
    const dw_ddp_hdr *h = &m.hdr;
    uint32_t plen = (uint32_t)m.payload_len;
    count(d, h);
    if (h->tagged)
        tagged(c, d, o, h, plen);
    else
        untagged(c, d, h, plen);
    if (!h->tagged && h->opcode == DW_RDMAP_READ_REQ)
        read_request(c, d, o, &m);
    if (!h->tagged && h->opcode == DW_RDMAP_TERMINATE)
        terminate(c, &m);
    if (!d->ulp_seen && !h->tagged && h->opcode >= DW_RDMAP_SEND &&
        h->opcode <= DW_RDMAP_SEND_SE_INV) {
        d->ulp_seen = 1;
        size_t have = head_len - (size_t)(m.payload - head);
        d->st.ulp = guess_ulp(m.payload, have, m.payload_len);
    }
    if (msg)
        *msg = m;
    return 1;
}

void dw_rdma_check_gap(dw_rdma_check *c, int dir)
{
    if (!c || (dir & ~1))
        return;
    rc_dir *d = &c->d[dir];
    d->lost = 1;
    memset(d->msn_known, 0, sizeof d->msn_known);
    memset(d->in_msg, 0, sizeof d->in_msg);
    d->t_in = 0;
    d->reads_uncertain = 1;     /* requests it sent may be gone */
    c->d[!dir].reads_uncertain = 1; /* and answers to the other's */
}

void dw_rdma_check_end(dw_rdma_check *c)
{
    if (!c)
        return;
    for (int k = 0; k < 2; k++) {
        rc_dir *d = &c->d[k];
        d->st.reads_pending = d->rcount;
        if (!d->rcount)
            continue;
        c->dir = k;
        memset(&c->at, 0, sizeof c->at);
        snprintf(c->detail, sizeof c->detail, "%zu Read Request%s never answered in the capture",
                 d->rcount, d->rcount == 1 ? "" : "s");
        emit(c, DW_RDMA_CHECK_EV_READ_PENDING, 0);
    }
}

void dw_rdma_check_stats_get(const dw_rdma_check *c, int dir, dw_rdma_check_stats *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    st->ird = st->ord = -1;
    if (c && !(dir & ~1))
        *st = c->d[dir].st;
}

const char *dw_rdma_check_event_name(dw_rdma_check_event_kind k)
{
    static const char *const n[] = {"not_ddp",        "ddp_invalid",   "msn",
                                    "mo",             "tagged",        "read_unmatched",
                                    "read_mismatch",  "read_depth",    "terminate",
                                    "read_pending"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "unknown";
}
