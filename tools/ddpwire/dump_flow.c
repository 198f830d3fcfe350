/*
 * ddpwire dump: connections. Each TCP connection gets two directions, each
 * a reassembler (<ddpwire/reasm.h>) feeding the framing found at its start:
 * the MPA checker (<ddpwire/mpa_check.h>), the IFT walker (dump_ift.c) or
 * nothing (plain TCP). Flows end at FIN/RST both ways, on eviction or at
 * the end of the capture; memory is bounded by --max-flows x --store.
 */
#include <ddpwire/mpa_startup.h>
#include <ddpwire/ift_check.h>

#include <stdlib.h>
#include <string.h>

#include "dump.h"

static const uint8_t key_req[] = "MPA ID Req Frame", key_rep[] = "MPA ID Rep Frame";

static void count_error(dump_dir *d, int incomplete)
{
    dump *D = d->flow->owner;
    if (incomplete) {
        d->incomplete++;
        D->incomplete++;
    } else {
        d->protocol_errors++;
        D->protocol_errors++;
    }
}

/* ---- MPA checker callbacks ------------------------------------------ */

static void mpa_on_marker(dw_mpa_check *c, const dw_mpa_check_marker *m, void *u)
{
    (void)c;
    dump_dir *d = u;
    if (d->nmk < sizeof d->mk / sizeof d->mk[0])
        d->mk[d->nmk++] = *m;
}

static void mpa_on_fpdu(dw_mpa_check *c, const dw_mpa_check_fpdu *fp, void *u)
{
    (void)c;
    dump_dir *d = u;
    out_fpdu(d, fp, d->mk, d->nmk);
    d->nmk = 0;
}

static void apply_mode(dump_flow *f);

/* RFC 5044 7.1: markers towards a side iff its frame set M; CRC iff either set C. */
static void on_startup(dump_dir *d, const dw_mpa_startup *fr)
{
    d->frame_seen = 1;
    d->frame_m = !!(fr->flags & DW_MPA_FLAG_MARKERS);
    d->frame_c = !!(fr->flags & DW_MPA_FLAG_CRC);
    d->frame_r = !!(fr->flags & DW_MPA_FLAG_REJECT);
    apply_mode(d->flow);
}

static int is_error_event(dw_mpa_check_event_kind k)
{
    switch (k) {
    case DW_MPA_CHECK_EV_STARTUP_BAD:
    case DW_MPA_CHECK_EV_CRC:
    case DW_MPA_CHECK_EV_MARKER:
    case DW_MPA_CHECK_EV_MARKER_RESERVED:
    case DW_MPA_CHECK_EV_PAD:
    case DW_MPA_CHECK_EV_LENGTH:
    case DW_MPA_CHECK_EV_MODE:
        return 1;
    default:
        return 0;
    }
}

static void mpa_on_event(dw_mpa_check *c, const dw_mpa_check_event *ev, void *u)
{
    (void)c;
    dump_dir *d = u;
    if (ev->kind == DW_MPA_CHECK_EV_STARTUP && ev->frame)
        on_startup(d, ev->frame);
    if (is_error_event(ev->kind))
        count_error(d, 0);
    else if (ev->kind == DW_MPA_CHECK_EV_TRUNCATED)
        count_error(d, !(d->fin || d->rst)); /* cut by the capture, or by the peer */
    else if (ev->kind == DW_MPA_CHECK_EV_NO_START && d->flow->owner->o.framing == DUMP_MPA)
        count_error(d, 0);
    if (ev->kind == DW_MPA_CHECK_EV_GAP && ev->offset + ev->len <= d->gap_shown_end)
        return; /* shown (and counted) before the framing was known */
    if (d->searching && ev->kind == DW_MPA_CHECK_EV_NO_START) {
        d->framing = FR_PLAIN; /* the checker is freed later; IFT may still win */
        d->searching = 0;
        return;
    }
    if (ev->kind == DW_MPA_CHECK_EV_START)
        d->searching = 0;
    out_mpa_event(d, ev);
}

static int mpa_create(dump_dir *d, dw_mpa_check_start start, uint64_t start_offset)
{
    const dump_opts *o = &d->flow->owner->o;
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
    dw_mpa_check_callbacks cb = {mpa_on_fpdu, mpa_on_marker, mpa_on_event};
    if (dw_mpa_check_new(&d->mpa, &s, &cb, d))
        return -1;
    apply_mode(d->flow);
    return 0;
}

static void apply_mode(dump_flow *f)
{
    const dump_opts *o = &f->owner->o;
    dump_dir *a = &f->d[0], *b = &f->d[1];
    if (!a->frame_seen || !b->frame_seen)
        return;
    int crc = a->frame_c || b->frame_c;
    for (int k = 0; k < 2; k++) {
        dump_dir *d = &f->d[k], *peer = &f->d[!k];
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

static int want_more(const dump_dir *d)
{
    return d->pre_len < sizeof d->pre && d->pre_chunks < sizeof d->pre_chunk / sizeof d->pre_chunk[0];
}

/* Chooses the framing; final: nothing more will come to the buffer. */
static int decide(dump_dir *d, int final)
{
    dump_flow *f = d->flow;
    const dump_opts *o = &f->owner->o;
    const uint8_t *p = d->pre;
    size_t n = d->pre_len;
    int from_port = o->mpa_port >= 0 && f->port[d->dir] == o->mpa_port;
    if (o->framing == DUMP_NONE)
        return d->framing = FR_PLAIN;
    if (o->framing == DUMP_IFT)
        return d->framing = FR_IFT;
    if (f->framing_forced) {
        if (o->mpa_seq_set && from_port)
            return FR_MPA; /* START_AT, set up by the caller */
        if (!o->mpa_seq_set)
            return FR_MPA;
    }
    if (!final && n < 16 && prefix_of_key(p, n))
        return FR_UNKNOWN;
    if (n >= 16 && prefix_of_key(p, n))
        return FR_MPA;
    if (o->framing == DUMP_MPA || f->framing_forced)
        return FR_MPA;
    if (!final && want_more(d) && n < 64)
        return FR_UNKNOWN;
    if (dump_ift_probe(p, n))
        return FR_IFT;
    if (!final && want_more(d))
        return FR_UNKNOWN;
    /* issue 5: else MPA at the first octet or found by the checker's search,
     * each FPDU validated (CRC, markers), or IFT found by its search beside
     * it (settle); a direction where neither turns up is plain TCP, not an
     * error */
    d->searching = n > 0;
    return d->searching ? FR_MPA : FR_PLAIN;
}

static dw_mpa_check_start start_mode(dump_dir *d, uint64_t *at)
{
    dump_flow *f = d->flow;
    const dump_opts *o = &f->owner->o;
    /* the first octet seen: a gap may come before it */
    *at = d->pre_chunks ? d->pre_chunk[0].offset : 0;
    if (f->framing_forced && o->mpa_seq_set && f->port[d->dir] == o->mpa_port) {
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
static void end_race(dump_dir *d)
{
    if (d->framing != FR_MPA && d->mpa) {
        dw_mpa_check_del(d->mpa); /* its search found nothing, or IFT won */
        d->mpa = NULL;
    }
    if (d->ift_race && (d->ift_race_lost || (d->framing == FR_MPA && !d->searching))) {
        dw_ift_check_del(d->ift); /* nothing found, or MPA won */
        d->ift = NULL;
        d->ift_race = 0;
    }
}

static void feed_framing(dump_dir *d, const uint8_t *p, size_t n, const dw_reasm_chunk *c)
{
    end_race(d);
    if (d->framing == FR_MPA && d->mpa)
        dw_mpa_check_data(d->mpa, p, n, c);
    if (d->ift_race && !(d->framing == FR_MPA && !d->searching))
        dump_ift_data(d, p, n, c);
    else if (d->framing == FR_IFT)
        dump_ift_data(d, p, n, c);
    end_race(d);
}

/* Decides and replays the buffered start. */
static void settle(dump_dir *d, int final)
{
    int fr = decide(d, final);
    if (fr == FR_UNKNOWN)
        return;
    d->framing = fr;
    if (fr == FR_MPA) {
        uint64_t at;
        dw_mpa_check_start st = start_mode(d, &at);
        if (mpa_create(d, st, at) || (d->searching && dump_ift_create(d, 1))) {
            fprintf(stderr, "ddpwire dump: out of memory\n");
            d->framing = FR_PLAIN;
        }
    } else if (fr == FR_IFT && dump_ift_create(d, 0)) {
        fprintf(stderr, "ddpwire dump: out of memory\n");
        d->framing = FR_PLAIN;
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

static void learn_seq(dump_dir *d, uint32_t seq, uint64_t offset)
{
    if (!d->have_seq) {
        d->have_seq = 1;
        d->stream_seq = seq - (uint32_t)offset;
    }
}

static void on_data(dw_reasm *r, const uint8_t *p, size_t n, const dw_reasm_chunk *c, void *u)
{
    (void)r;
    dump_dir *d = u;
    learn_seq(d, c->seq, c->offset);
    if (d->framing != FR_UNKNOWN) {
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

static void on_gap(dw_reasm *r, const dw_reasm_gap *g, void *u)
{
    (void)r;
    dump_dir *d = u;
    learn_seq(d, g->seq, g->offset);
    count_error(d, 1);
    if (d->framing == FR_UNKNOWN && !d->pre_len) {
        out_gap(d, g); /* nothing to decide on yet: the framing starts after it */
        d->gap_shown_end = g->offset + g->len;
        return;
    }
    if (d->framing == FR_UNKNOWN)
        settle(d, 1);
    int raced = d->ift_race;
    if (raced)
        dump_ift_gap(d, g); /* silent: shown by MPA's checker or below */
    if (d->framing == FR_MPA && d->mpa)
        dw_mpa_check_gap(d->mpa, g);
    else if (d->framing == FR_IFT && d->ift && !raced)
        dump_ift_gap(d, g); /* the checker reports it */
    else
        out_gap(d, g);
    end_race(d);
}

static void on_event(dw_reasm *r, const dw_reasm_event *ev, void *u)
{
    (void)r;
    dump_dir *d = u;
    if (ev->kind == DW_REASM_EV_MISMATCH)
        count_error(d, 0);
    else if (ev->kind == DW_REASM_EV_DROPPED)
        count_error(d, 1);
    out_reasm_event(d, ev);
}

/* ---- the flow table ------------------------------------------------- */

static size_t hash_tuple(const dw_pkt_tcp *t, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    const uint8_t *a = t->src, *b = t->dst;
    uint16_t pa = t->sport, pb = t->dport;
    if (memcmp(a, b, 16) > 0 || (!memcmp(a, b, 16) && pa > pb)) {
        const uint8_t *x = a;
        a = b, b = x;
        uint16_t y = pa;
        pa = pb, pb = y;
    }
    for (int i = 0; i < 16; i++)
        h = (h ^ a[i]) * 1099511628211ull, h = (h ^ b[i]) * 1099511628211ull;
    h = (h ^ pa) * 1099511628211ull;
    h = (h ^ pb) * 1099511628211ull;
    return (size_t)(h & (size_t)(size - 1));
}

/* Which direction of f the segment travels, or -1 when it is not f's. */
static int match(const dump_flow *f, const dw_pkt_tcp *t)
{
    for (int k = 0; k < 2; k++)
        if (f->ipv == t->ip_version && f->port[k] == t->sport && f->port[!k] == t->dport &&
            !memcmp(f->addr[k], t->src, 16) && !memcmp(f->addr[!k], t->dst, 16))
            return k;
    return -1;
}

int dump_init(dump *D)
{
    size_t n = 64;
    while (n < 2 * D->o.max_flows)
        n <<= 1;
    D->table = calloc(n, sizeof *D->table);
    D->table_size = n;
    return D->table ? 0 : -1;
}

static void flow_free(dump_flow *f)
{
    for (int k = 0; k < 2; k++) {
        dw_reasm_del(f->d[k].reasm);
        dw_mpa_check_del(f->d[k].mpa);
        dw_ift_check_del(f->d[k].ift);
    }
    free(f);
}

/* The flows in order of their last packet, oldest first (O(1) eviction). */
static void lru_unlink(dump *D, dump_flow *f)
{
    *(f->lru_prev ? &f->lru_prev->lru_next : &D->lru_head) = f->lru_next;
    *(f->lru_next ? &f->lru_next->lru_prev : &D->lru_tail) = f->lru_prev;
    f->lru_prev = f->lru_next = NULL;
}

static void lru_touch(dump *D, dump_flow *f)
{
    if (D->lru_tail == f)
        return;
    if (f->lru_prev || f->lru_next || D->lru_head == f)
        lru_unlink(D, f);
    f->lru_prev = D->lru_tail;
    *(D->lru_tail ? &D->lru_tail->lru_next : &D->lru_head) = f;
    D->lru_tail = f;
}

static void unlink_flow(dump *D, dump_flow *f)
{
    for (dump_flow **pp = &D->table[f->slot]; *pp; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            return;
        }
}

static void finish_flow(dump *D, dump_flow *f)
{
    for (int k = 0; k < 2; k++) {
        dump_dir *d = &f->d[k];
        dw_reasm_flush(d->reasm);
        if (d->framing == FR_UNKNOWN)
            settle(d, 1);
        if (d->mpa && d->framing == FR_MPA)
            dw_mpa_check_end(d->mpa);
        end_race(d);
        int ended = d->ift_race;
        if (ended)
            dump_ift_race_end(d);
        if (d->searching)
            d->framing = FR_PLAIN; /* ended before MPA or IFT was found */
        if (d->framing == FR_IFT && !ended)
            dump_ift_end(d);
    }
    out_flow(f);
    unlink_flow(D, f);
    lru_unlink(D, f);
    D->flows_open--;
    flow_free(f);
}

static void evict_oldest(dump *D)
{
    if (D->lru_head)
        finish_flow(D, D->lru_head);
}

static dump_flow *new_flow(dump *D, const dw_pkt_tcp *t, size_t slot)
{
    if (D->flows_open >= D->o.max_flows)
        evict_oldest(D);
    dump_flow *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    /* the client sent the SYN; without one, the first packet's sender */
    int swap = (t->flags & (DW_PKT_SYN | DW_PKT_ACK)) == (DW_PKT_SYN | DW_PKT_ACK);
    f->owner = D;
    f->id = ++D->flows_seen;
    f->ipv = t->ip_version;
    memcpy(f->addr[swap], t->src, 16);
    memcpy(f->addr[!swap], t->dst, 16);
    f->port[swap] = t->sport;
    f->port[!swap] = t->dport;
    f->framing_forced = D->o.mpa_port >= 0 &&
                        (t->sport == D->o.mpa_port || t->dport == D->o.mpa_port);
    dw_reasm_settings rs;
    dw_reasm_settings_default(&rs);
    rs.store_bytes = (size_t)D->o.store;
    dw_reasm_callbacks cb = {on_data, on_gap, on_event};
    for (int k = 0; k < 2; k++) {
        f->d[k].flow = f;
        f->d[k].dir = k;
        if (dw_reasm_new(&f->d[k].reasm, &rs, &cb, &f->d[k])) {
            flow_free(f);
            return NULL;
        }
    }
    f->slot = slot;
    f->next = D->table[slot];
    D->table[slot] = f;
    D->flows_open++;
    return f;
}

static int port_wanted(const dump *D, const dw_pkt_tcp *t)
{
    if (!D->o.nports)
        return 1;
    for (int i = 0; i < D->o.nports; i++)
        if (t->sport == D->o.ports[i] || t->dport == D->o.ports[i])
            return 1;
    return 0;
}

static void tcp_segment(dump *D, const dw_pkt_tcp *t)
{
    size_t slot = hash_tuple(t, D->table_size);
    dump_flow *f = D->table[slot];
    int k = -1;
    for (; f && (k = match(f, t)) < 0; f = f->next)
        ;
    if (!f) {
        /* a pure ACK or RST of a connection already finished (or never
         * seen) starts nothing */
        if (!(t->flags & DW_PKT_SYN) && !t->payload_len)
            return;
        if (!(f = new_flow(D, t, slot))) {
            fprintf(stderr, "ddpwire dump: out of memory\n");
            return;
        }
        k = match(f, t);
    }
    dump_dir *d = &f->d[k];
    lru_touch(D, f);
    d->packets++;
    d->octets += t->payload_len;
    if (t->options_len)
        out_tcpopt(d, t->options, t->options_len, t->payload_len);
    if (t->flags & DW_PKT_SYN)
        d->syn_seen = 1;
    if (t->flags & DW_PKT_FIN)
        d->fin = 1;
    if (t->flags & DW_PKT_RST)
        d->rst = f->d[!k].rst = 1;
    dw_reasm_feed(d->reasm, D->pkt, t->seq, t->flags, t->payload, t->payload_caplen,
                  t->payload_len);
    if ((f->d[0].fin || f->d[0].rst) && (f->d[1].fin || f->d[1].rst))
        finish_flow(D, f);
}

void dump_packet(dump *D, const uint8_t *frame, size_t caplen, size_t wirelen)
{
    D->pkt = ++D->packets;
    if (D->linktype == DW_PKT_LINK_IPOIB)
        out_ipoib(D, frame, caplen);
    dw_pkt_tcp t;
    dw_pkt_reason why;
    int rc = dw_pkt_parse(&t, &why, D->linktype, frame, caplen, wirelen, 0);
    if (rc == DW_ERR_UNSUPPORTED) {
        D->not_tcp++;
        return;
    }
    if (rc) {
        D->unreadable++;
        return;
    }
    D->tcp_packets++;
    if (port_wanted(D, &t))
        tcp_segment(D, &t);
}

static int by_id(const void *a, const void *b)
{
    const dump_flow *x = *(dump_flow *const *)a, *y = *(dump_flow *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

void dump_finish(dump *D)
{
    /* finish in the order the flows began */
    size_t n = 0;
    for (dump_flow *f = D->lru_head; f; f = f->lru_next)
        n++;
    dump_flow **all = malloc((n ? n : 1) * sizeof *all);
    if (all) {
        n = 0;
        for (dump_flow *f = D->lru_head; f; f = f->lru_next)
            all[n++] = f;
        qsort(all, n, sizeof *all, by_id);
        for (size_t i = 0; i < n; i++)
            finish_flow(D, all[i]);
        free(all);
    }
    while (D->lru_head) /* out of memory for the list: any order */
        finish_flow(D, D->lru_head);
    free(D->table);
    D->table = NULL;
}
