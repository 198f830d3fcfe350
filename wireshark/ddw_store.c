/* SPDX-License-Identifier: MIT */
/*
 * The library's dissector run over Wireshark's first pass, and what it
 * finds filed per frame (ddw.h). Records are allocated in Wireshark's
 * file scope; the frame index is one pointer per frame.
 */
#include "ddw.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dw_dissect *D;
static ddw_frame **frames;   /* [frame number] */
static size_t nframes, capframes;
static uint32_t cur;         /* the frame being fed */
static int finished;
static uint32_t *late;       /* frames given records during this feed */
static size_t nlate, caplate;
static char prefs_err[160];

/* The records' arena: 1 MiB chunks, freed whole at file close. Not
 * Wireshark's file scope: interleaved with TCP's per-segment lists there,
 * our records slowed TCP's walks of them several times over. */
#define ARENA_CHUNK (1u << 20)
typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used;
    _Alignas(16) unsigned char mem[];
} arena_chunk;
static arena_chunk *arena;
static int arena_failed;

static void *fs_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!arena || arena->used + n > ARENA_CHUNK) {
        size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        arena_chunk *c = malloc(sizeof *c + cap);
        if (!c) {
            arena_failed = 1;
            return NULL;
        }
        c->next = arena;
        c->used = 0;
        arena = c;
    }
    void *p = arena->mem + arena->used;
    arena->used += n;
    return memset(p, 0, n);
}

static const char *fs_strdup(const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *p = fs_alloc(n);
    if (p)
        memcpy(p, s ? s : "", n);
    return p ? p : "";
}

static void arena_free(void)
{
    while (arena) {
        arena_chunk *c = arena;
        arena = c->next;
        free(c);
    }
    arena_failed = 0;
}

static ddw_frame *frame_at(uint32_t num)
{
    if (num == 0)
        return NULL;
    if (num >= capframes) {
        size_t cap = capframes ? capframes : 4096;
        while (cap <= num)
            cap *= 2;
        ddw_frame **p = realloc(frames, cap * sizeof *p);
        if (!p) {
            arena_failed = 1;
            return NULL;
        }
        memset(p + capframes, 0, (cap - capframes) * sizeof *p);
        frames = p;
        capframes = cap;
    }
    if (num >= nframes)
        nframes = num + 1;
    if (!frames[num])
        frames[num] = fs_alloc(sizeof(ddw_frame));
    return frames[num];
}

static void note_late(uint32_t num)
{
    if (num >= cur || (nlate && late[nlate - 1] == num))
        return;
    for (size_t i = 0; i < nlate; i++)
        if (late[i] == num)
            return;
    if (nlate == caplate) {
        size_t cap = caplate ? 2 * caplate : 16;
        uint32_t *p = realloc(late, cap * sizeof *p);
        if (!p)
            return;
        late = p;
        caplate = cap;
    }
    late[nlate++] = num;
}

/* Files r under frame num (the current one when num is 0 or unknown). */
static void file_rec(uint64_t num, ddw_rec *r)
{
    if (!r)
        return;
    if (num == 0 || num == UINT64_MAX || num > UINT32_MAX)
        num = r->conn && r->conn->last_frame ? r->conn->last_frame : cur;
    ddw_frame *f = frame_at((uint32_t)num);
    if (!f)
        return;
    if (f->tail)
        f->tail->next = r;
    else
        f->head = r;
    f->tail = r;
    if (r->kind == DDW_EVENT && r->u.ev->verdict != DW_DISSECT_INFO)
        f->errors++;
    note_late((uint32_t)num);
}

static ddw_rec *rec_new(const dw_dissect_dir *d, ddw_kind kind)
{
    ddw_rec *r = fs_alloc(sizeof *r);
    if (!r)
        return NULL;
    r->kind = (uint8_t)kind;
    if (d) {
        r->conn = dw_dissect_flow_app(d->flow);
        r->dir = (uint8_t)d->dir;
    }
    return r;
}

/* The direction's framing, as the connection line shows it. */
static void learn_framing(const dw_dissect_dir *d)
{
    ddw_conn *c = dw_dissect_flow_app(d->flow);
    if (!c || (c->framing[d->dir] == d->framing &&
               (d->framing != DW_DISSECT_FOUND_MPA || c->markers[d->dir] >= 0)))
        return; /* known: no statistics copied per FPDU */
    c->framing[d->dir] = d->framing;
    if (d->framing == DW_DISSECT_FOUND_MPA) {
        dw_dissect_dir_stats st;
        dw_dissect_dir_stats_get(d, &st);
        c->markers[d->dir] = (int8_t)st.mpa.markers;
        c->crc[d->dir] = (int8_t)st.mpa.crc;
    }
}

static void copy_ddp(ddw_ddp *o, const dw_rdmap_msg *m)
{
    if (!m)
        return;
    const dw_ddp_hdr *h = &m->hdr;
    *o = (ddw_ddp){.present = 1, .tagged = !!h->tagged, .last = !!h->last, .opcode = h->opcode,
                   .qn = h->qn, .msn = h->msn, .mo = h->mo, .stag = h->stag,
                   .inv_stag = h->inv_stag, .len = (uint32_t)m->payload_len, .to = h->to,
                   .rr = m->read_req};
}

/* Files an FPDU or IFT frame under its first and last frames, and (for
 * markers) under each frame in between that carried one. */
static void file_span(const dw_dissect_dir *d, ddw_kind kind, void *obj, uint64_t first,
                      uint64_t last, const ddw_marker *mk, size_t nmk)
{
    for (int role = 1; role <= 2; role++) {
        if (role == 2 && last == first)
            break;
        ddw_rec *r = rec_new(d, kind);
        if (!r)
            return;
        r->role = (uint8_t)(first == last ? 0 : role);
        if (kind == DDW_FPDU)
            r->u.fpdu = obj;
        else
            r->u.ift = obj;
        file_rec(role == 1 ? first : last, r);
    }
    for (size_t i = 0; i < nmk; i++) {
        uint32_t f = mk[i].frame;
        if (f == first || f == last || (i && mk[i - 1].frame == f))
            continue;
        ddw_rec *r = rec_new(d, kind);
        if (!r)
            return;
        r->role = 3; /* carries markers of it */
        r->u.fpdu = obj;
        file_rec(f, r);
    }
}

static void on_fpdu(dw_dissect *Dp, const dw_dissect_dir *d, const dw_mpa_check_fpdu *fp,
                    const dw_mpa_check_marker *mk, size_t nmk, const dw_rdmap_msg *m, void *u)
{
    (void)Dp, (void)u;
    learn_framing(d);
    ddw_fpdu *o = fs_alloc(sizeof *o);
    if (!o)
        return;
    *o = (ddw_fpdu){.index = fp->index, .pos = fp->pos, .offset = fp->offset, .seq = fp->seq,
                    .first = (uint32_t)fp->first_pkt, .last = (uint32_t)fp->last_pkt,
                    .segments = fp->segments, .ulen = fp->ulpdu_len, .flen = (uint16_t)fp->fpdu_len,
                    .pad = fp->pad, .crc = (uint8_t)fp->crc, .aligned = !!fp->aligned,
                    .packed = !!fp->packed, .resync = !!fp->resync, .crc_wire = fp->crc_wire,
                    .crc_calc = fp->crc_calc, .nmk = (uint16_t)nmk};
    if (nmk) {
        o->mk = fs_alloc(nmk * sizeof *o->mk);
        if (!o->mk)
            nmk = o->nmk = 0;
        for (size_t i = 0; i < nmk; i++) {
            o->mk[i] = (ddw_marker){.pos = mk[i].pos, .frame = (uint32_t)mk[i].pkt,
                                    .fpduptr = mk[i].fpduptr, .expected = mk[i].expected,
                                    .reserved = mk[i].reserved, .ok = !!mk[i].ok};
            o->bad_mk += !mk[i].ok;
        }
    }
    copy_ddp(&o->ddp, m);
    file_span(d, DDW_FPDU, o, fp->first_pkt, fp->last_pkt, o->mk, nmk);
}

static void on_ift_frame(dw_dissect *Dp, const dw_dissect_dir *d, const dw_ift_check_frame *fr,
                         const dw_rdmap_msg *m, void *u)
{
    (void)Dp, (void)u;
    learn_framing(d);
    ddw_ift *o = fs_alloc(sizeof *o);
    if (!o)
        return;
    *o = (ddw_ift){.index = fr->index, .offset = fr->offset, .seq = fr->seq,
                   .first = (uint32_t)fr->first_pkt, .last = (uint32_t)fr->last_pkt,
                   .header_size = fr->header_size, .payload_size = fr->payload_size,
                   .header_crc = (uint8_t)fr->header_crc, .payload_crc = (uint8_t)fr->payload_crc};
    copy_ddp(&o->ddp, m);
    file_span(d, DDW_IFT, o, fr->first_pkt, fr->last_pkt, NULL, 0);
}

/* An event, in dump's words: "kind (MPA error 2) at offset O seq S: detail". */
static void event(const dw_dissect_dir *d, const char *kind, int group, int code,
                  uint64_t offset, uint32_t seq, uint64_t pkt, const char *detail,
                  dw_dissect_verdict v)
{
    char text[512];
    int n = 0;
    if (group == DDW_G_TCPOPT || group == DDW_G_IPOIB) /* dump's words: the detail alone */
        snprintf(text, sizeof text, "%s", detail ? detail : kind);
    else
        n = snprintf(text, sizeof text, "%s", kind);
    if (n && code)
        n += snprintf(text + n, sizeof text - (size_t)n, " (%s error %d)",
                      d && d->framing == DW_DISSECT_FOUND_IFT ? "IFT" : "MPA", code);
    if (n)
        n += snprintf(text + n, sizeof text - (size_t)n, " at offset %" PRIu64 " seq %u", offset,
                      (unsigned)seq);
    if (n && detail && *detail)
        snprintf(text + n, sizeof text - (size_t)n, ": %s", detail);
    ddw_event *e = fs_alloc(sizeof *e);
    if (!e)
        return;
    *e = (ddw_event){.kind = kind, .text = fs_strdup(text), .verdict = v, .group = (uint8_t)group};
    ddw_rec *r = rec_new(d, DDW_EVENT);
    if (!r)
        return;
    r->u.ev = e;
    file_rec(pkt, r);
}

static void startup_text(const dw_dissect_dir *d, const dw_mpa_check_event *ev)
{
    const dw_mpa_startup *fr = ev->frame;
    dw_rdma_pd_info pi;
    char text[256], pd[96] = "";
    if (dw_rdma_pd_info_get(fr, &pi) && pi.enhanced)
        snprintf(pd, sizeof pd, ", RFC 6581 IRD %u ORD %u", pi.enh.ird, pi.enh.ord);
    else if (dw_rdma_pd_info_get(fr, &pi) && pi.smbd)
        snprintf(pd, sizeof pd, ", SMB Direct IRD %u ORD %u", (unsigned)pi.smbd_ird,
                 (unsigned)pi.smbd_ord);
    snprintf(text, sizeof text, "RFC 5044 %s: M=%d C=%d R=%d rev %u, %u octets of private data%s",
             fr->kind == DW_MPA_STARTUP_REQUEST ? "request" : "reply",
             !!(fr->flags & DW_MPA_FLAG_MARKERS), !!(fr->flags & DW_MPA_FLAG_CRC),
             !!(fr->flags & DW_MPA_FLAG_REJECT), (unsigned)fr->rev, (unsigned)fr->pd_len, pd);
    ddw_rec *r = rec_new(d, DDW_STARTUP);
    if (!r)
        return;
    r->u.text = fs_strdup(text);
    if (r->conn)
        r->conn->startup[d->dir] = 1;
    file_rec(ev->pkt, r);
}

static void on_mpa_event(dw_dissect *Dp, const dw_dissect_dir *d, const dw_mpa_check_event *ev,
                         dw_dissect_severity sev, void *u)
{
    (void)Dp, (void)u;
    learn_framing(d);
    if (ev->kind == DW_MPA_CHECK_EV_STARTUP && ev->frame) {
        startup_text(d, ev);
        return;
    }
    int group = ev->kind == DW_MPA_CHECK_EV_CRC ? DDW_G_CRC : DDW_G_MPA;
    event(d, dw_mpa_check_event_name(ev->kind), group, (int)ev->code, ev->offset, ev->seq,
          ev->pkt, ev->detail, dw_dissect_mpa_verdict(ev, sev));
}

static void on_ift_event(dw_dissect *Dp, const dw_dissect_dir *d, const dw_ift_check_event *ev,
                         dw_dissect_severity sev, void *u)
{
    (void)Dp, (void)u;
    learn_framing(d);
    event(d, dw_ift_check_event_name(ev->kind), DDW_G_IFT, (int)ev->code, ev->offset, ev->seq,
          ev->pkt, ev->detail, dw_dissect_ift_verdict(ev, sev));
}

static void on_reasm_event(dw_dissect *Dp, const dw_dissect_dir *d, const dw_reasm_event *ev,
                           dw_dissect_severity sev, void *u)
{
    (void)Dp, (void)u;
    char detail[96];
    if (ev->kind == DW_REASM_EV_SYN || ev->kind == DW_REASM_EV_FIN)
        return; /* milestones every connection has (dump shows none) */
    snprintf(detail, sizeof detail, "segment seq %u, %u octets", (unsigned)ev->seq,
             (unsigned)ev->len);
    event(d, dw_reasm_event_name(ev->kind), DDW_G_TCP, 0, ev->offset, ev->seq, ev->pkt, detail,
          dw_dissect_reasm_verdict(sev));
}

static void on_gap(dw_dissect *Dp, const dw_dissect_dir *d, const dw_reasm_gap *g, void *u)
{
    (void)Dp, (void)u;
    char detail[96];
    snprintf(detail, sizeof detail, "%" PRIu64 " octets %s", g->len,
             g->kind == DW_REASM_GAP_SNAPLEN ? "cut by the snap length" : "not in the capture");
    event(d, "gap", DDW_G_TCP, 0, g->offset, g->seq, g->pkt, detail, DW_DISSECT_INCOMPLETE);
}

static void on_rdma_event(dw_dissect *Dp, const dw_dissect_dir *d, const dw_rdma_check_event *ev,
                          void *u)
{
    (void)Dp, (void)u;
    event(d, dw_rdma_check_event_name(ev->kind), DDW_G_RDMA, 0, ev->offset, ev->seq, ev->pkt,
          ev->detail, ev->error ? DW_DISSECT_ERROR : DW_DISSECT_INFO);
}

static void on_tcpopt(dw_dissect *Dp, const dw_dissect_dir *d, const dw_dissect_tcpopt *o,
                      void *u)
{
    (void)Dp, (void)u;
    const dw_tcpopt *t = &o->found.opt;
    char text[192];
    snprintf(text, sizeof text, "TCP RDMA option len %u A=%u U=%u RID 0x%012" PRIx64
             " buffer offset %u data %u+%u total %u", (unsigned)t->len, (unsigned)t->a,
             (unsigned)t->u, t->rid, (unsigned)t->buffer_offset, (unsigned)t->data_offset,
             (unsigned)t->data_length, (unsigned)t->total_length);
    if (!o->valid) {
        char detail[320];
        snprintf(detail, sizeof detail, "%s: %s", text, dw_tcpopt_reason_str(o->reason));
        event(d, "tcpopt", DDW_G_TCPOPT, 0, 0, 0, o->pkt, detail, DW_DISSECT_ERROR);
        return;
    }
    ddw_rec *r = rec_new(d, DDW_TCPOPT);
    if (!r)
        return;
    r->u.text = fs_strdup(text);
    file_rec(o->pkt, r);
}

static void on_ipoib(dw_dissect *Dp, const dw_dissect_ipoib *ip, void *u)
{
    (void)Dp, (void)u;
    char text[96];
    snprintf(text, sizeof text, "IPoIB frame, type 0x%04x%s", (unsigned)ip->hdr.type,
             ip->is_arp ? (ip->arp_ok ? ", ARP decoded" : ", ARP malformed") : "");
    ddw_rec *r = rec_new(NULL, DDW_IPOIB);
    if (r) {
        r->u.text = fs_strdup(text);
        file_rec(ip->pkt, r);
    }
    if (ip->is_arp && !ip->arp_ok)
        event(NULL, "ipoib", DDW_G_IPOIB, 0, 0, 0, ip->pkt, "malformed IPoIB ARP",
              DW_DISSECT_ERROR);
}

static void on_flow_start(dw_dissect *Dp, const dw_flow *f, void *u)
{
    (void)Dp, (void)u;
    ddw_conn *c = fs_alloc(sizeof *c);
    if (!c)
        return;
    c->id = f->id;
    c->ip_version = f->ip_version;
    memcpy(c->addr, f->addr, sizeof c->addr);
    memcpy(c->port, f->port, sizeof c->port);
    c->markers[0] = c->markers[1] = c->crc[0] = c->crc[1] = -1;
    dw_dissect_flow_set_app(f, c);
}

static void on_segment(dw_dissect *Dp, const dw_dissect_dir *d, const dw_pkt_tcp *seg, void *u)
{
    (void)Dp, (void)seg, (void)u;
    ddw_conn *c = dw_dissect_flow_app(d->flow);
    ddw_frame *f = frame_at(cur);
    if (!c || !f)
        return;
    c->last_frame = cur;
    f->conn = c;
    f->dir = (uint8_t)d->dir;
}

static void on_flow_end(dw_dissect *Dp, const dw_flow *f, void *u)
{
    (void)Dp, (void)u;
    ddw_conn *c = dw_dissect_flow_app(f);
    if (!c)
        return;
    for (int k = 0; k < 2; k++) {
        const dw_dissect_dir *d = dw_dissect_flow_dir(f, k);
        learn_framing(d);
        struct ddw_dir_sum *s = &c->sum[k];
        *s = (struct ddw_dir_sum){.packets = d->packets, .octets = d->octets,
                                  .tcpopts = d->tcpopts, .tcpopt_bad = d->tcpopt_bad,
                                  .protocol_errors = d->protocol_errors,
                                  .incomplete = d->incomplete};
        dw_dissect_dir_stats_get(d, &s->st);
    }
    c->ulp = dw_dissect_flow_ulp(f);
    ddw_rec *r = rec_new(dw_dissect_flow_dir(f, 0), DDW_SUMMARY);
    file_rec(c->last_frame, r);
    dw_dissect_flow_set_app(f, NULL);
}

/* --mpa-start PORT[:SEQ], as dump reads it (empty: not set). */
static int parse_mpa_start(const char *s, dw_dissect_settings *ds)
{
    return !s || !*s ? 0 : dw_dissect_settings_mpa_start(ds, s);
}

void ddw_open(const ddw_prefs *p)
{
    static const dw_dissect_callbacks cb = {
        .on_fpdu = on_fpdu,
        .on_mpa_event = on_mpa_event,
        .on_ift_frame = on_ift_frame,
        .on_ift_event = on_ift_event,
        .on_reasm_event = on_reasm_event,
        .on_gap = on_gap,
        .on_rdma_event = on_rdma_event,
        .on_tcpopt = on_tcpopt,
        .on_ipoib = on_ipoib,
        .on_flow_start = on_flow_start,
        .on_flow_end = on_flow_end,
        .on_segment = on_segment,
    };
    dw_dissect_settings s;
    ddw_close();
    dw_dissect_settings_default(&s);
    s.mode = (dw_dissect_mode)p->framing;
    prefs_err[0] = 0;
    if (parse_mpa_start(p->mpa_start, &s) < 0) {
        snprintf(prefs_err, sizeof prefs_err, "MPA start \"%s\" is not PORT[:SEQ]: ignored",
                 p->mpa_start);
        s.mpa_port = -1;
        s.mpa_seq_set = 0;
    }
    if (dw_dissect_new(&D, &s, &cb, NULL) < 0) {
        D = NULL;
        snprintf(prefs_err, sizeof prefs_err, "out of memory: nothing is checked");
    }
}

void ddw_close(void)
{
    dw_dissect_del(D); /* reports nothing: file scope is going away */
    D = NULL;
    free(frames);
    free(late);
    arena_free();
    frames = NULL;
    late = NULL;
    nframes = capframes = nlate = caplate = 0;
    cur = 0;
    finished = 0;
}

void ddw_feed(uint32_t num, unsigned linktype, uint64_t time, const uint8_t *data,
              size_t caplen, size_t wirelen)
{
    nlate = 0;
    if (!D || finished)
        return;
    cur = num;
    dw_dissect_packet(D, linktype, time, data, caplen, wirelen);
}

void ddw_finish(void)
{
    if (!D || finished)
        return;
    cur = (uint32_t)(nframes ? nframes - 1 : 0);
    nlate = 0;
    dw_dissect_finish(D);
    finished = 1;
}

const ddw_frame *ddw_frame_get(uint32_t num)
{
    return num < nframes ? frames[num] : NULL;
}

size_t ddw_late(const uint32_t **out)
{
    *out = late;
    return nlate;
}

const char *ddw_prefs_error(void)
{
    return prefs_err[0] ? prefs_err : NULL;
}

const char *ddw_problem(void)
{
    if (arena_failed)
        return "out of memory: ddpwire's records are incomplete from here on; its verdicts "
               "cannot be trusted";
    dw_dissect_stats st = {0};
    if (D)
        dw_dissect_stats_get(D, &st);
    return st.nomem ? "out of memory: some connections were not checked" : NULL;
}
