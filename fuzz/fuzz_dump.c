/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the library's dissector (<ddpwire/dissect.h>), the whole of
 * `ddpwire dump` but the printing: dw_dissect_packet per frame, then
 * dw_dissect_finish.
 *
 * Input: a pcap or pcapng file, read by libpcap from memory as the tool
 * reads a file (once: its frames are kept for the three runs); its last
 * octet is the option selector (SEL below). An input whose first octet
 * begins no capture magic (d4, a1, 4d, 0a) is raw packets instead:
 * octet 1 picks the link type, octet 2 is SEL, then frames, each a
 * 2-octet big-endian word (low 14 bits: captured length, top 2: how much
 * longer the frame was on the wire) and its octets.
 *
 * Each input runs three times: with SEL's options, max_flows 2, store 256;
 * with the other options, max_flows 1, store 0; with the defaults. Every
 * frame is copied to a buffer of exactly its captured length (reads
 * before or past it are sanitizer errors: frame_copy). The counters must add up: packets, flows begun
 * and ended against those open (never more than max_flows), protocol
 * errors against the events that reported them; every event names an open
 * flow and a direction whose framing fits the event; all flows are
 * finished at the end.
 *
 * SEL: bits 0-1 mode auto|mpa|ift|none; 2-3 and 4-5 markers and crc (0,
 * 1 learn, 2 off, 3 on); 6-7 nothing, mpa_port 5000, mpa_port 5000 at
 * sequence number 1001, or port 5000 only with mpa_port 40000 at 1001.
 */
#include <ddpwire/dissect.h>

#include "fuzz_flags.h"

#include <pcap/pcap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned links[] = {
    DW_PKT_LINK_NULL, DW_PKT_LINK_ETHERNET, DW_PKT_LINK_DLT_RAW, DW_PKT_LINK_RAW,
    DW_PKT_LINK_LOOP, DW_PKT_LINK_SLL,      DW_PKT_LINK_IPV4,    DW_PKT_LINK_IPV6,
    DW_PKT_LINK_IPOIB, DW_PKT_LINK_SLL2,    147};

static const size_t wire_extra[] = {0, 1, 64, 65535};

typedef struct run {
    dw_dissect_settings s;
    dw_dissect *D;
    unsigned linktype;
    uint64_t fed, started, ended, errors;
} run;

/* ---- invariants of the events ---------------------------------------- */

static void check_dir(run *r, const dw_dissect_dir *d)
{
    dw_dissect_stats st;
    dw_dissect_stats_get(r->D, &st);
    if (!d || !d->flow || (d->dir != DW_FLOW_C2S && d->dir != DW_FLOW_S2C) ||
        dw_dissect_flow_dir(d->flow, d->dir) != d || d->flow->id > st.flows_seen)
        abort();
}

static void count(run *r, dw_dissect_severity sev)
{
    if (sev > 1 || sev < -1)
        abort();
    r->errors += sev > 0;
}

/* A decoded ULPDU lies within what was captured of it. */
static void check_ddp(const dw_rdmap_msg *m, const uint8_t *head, size_t head_len)
{
    if (m && (m->payload < head || m->payload > head + head_len || m->hdr.ddp_ver != 1 ||
              m->hdr.rdmap_ver != 1))
        abort();
}

static void on_fpdu(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_fpdu *fp,
                    const dw_mpa_check_marker *mk, size_t nmk, const dw_rdmap_msg *ddp, void *u)
{
    (void)D;
    check_dir(u, d);
    /* an FPDU cut off inside its length field has only the octets seen */
    if (d->framing != DW_DISSECT_FOUND_MPA || (nmk && !mk) || !fp->fpdu_len ||
        (fp->fpdu_len < 6 && fp->crc != DW_MPA_CHECK_CRC_MISSING) ||
        fp->head_len > fp->ulpdu_len)
        abort();
    check_ddp(ddp, fp->head, fp->head_len);
}

static void on_mpa_event(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_event *ev,
                         dw_dissect_severity sev, void *u)
{
    (void)D;
    check_dir(u, d);
    if (d->framing != DW_DISSECT_FOUND_MPA || !dw_mpa_check_event_name(ev->kind))
        abort();
    count(u, sev);
}

static void on_ift_frame(dw_dissect *D, const dw_dissect_dir *d, const dw_ift_check_frame *fr,
                         const dw_rdmap_msg *ddp, void *u)
{
    (void)D;
    check_dir(u, d);
    if (d->framing != DW_DISSECT_FOUND_IFT)
        abort();
    check_ddp(ddp, fr->head, fr->head_len);
}

static void on_rdma_event(dw_dissect *D, const dw_dissect_dir *d, const dw_rdma_check_event *ev,
                          void *u)
{
    (void)D;
    check_dir(u, d);
    if (ev->dir != d->dir || !ev->detail || (ev->error & ~1))
        abort();
    ((run *)u)->errors += ev->error;
}

static void on_ift_event(dw_dissect *D, const dw_dissect_dir *d, const dw_ift_check_event *ev,
                         dw_dissect_severity sev, void *u)
{
    (void)D;
    check_dir(u, d);
    if (d->framing != DW_DISSECT_FOUND_IFT || !dw_ift_check_event_name(ev->kind))
        abort();
    count(u, sev);
}

static void on_reasm_event(dw_dissect *D, const dw_dissect_dir *d, const dw_reasm_event *ev,
                           dw_dissect_severity sev, void *u)
{
    (void)D;
    check_dir(u, d);
    if (!dw_reasm_event_name(ev->kind))
        abort();
    count(u, sev);
}

static void on_gap(dw_dissect *D, const dw_dissect_dir *d, const dw_reasm_gap *g, void *u)
{
    (void)D;
    check_dir(u, d);
    if (!g->len)
        abort();
}

static void on_tcpopt(dw_dissect *D, const dw_dissect_dir *d, const dw_dissect_tcpopt *o,
                      void *u)
{
    (void)D;
    check_dir(u, d);
    ((run *)u)->errors += !o->valid;
}

static void on_ipoib(dw_dissect *D, const dw_dissect_ipoib *ip, void *u)
{
    (void)D;
    if (!ip->is_arp && ip->arp_ok)
        abort();
    ((run *)u)->errors += ip->is_arp && !ip->arp_ok;
}

static void on_flow_start(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    run *r = u;
    r->started++;
    if (f->id != r->started || r->started - r->ended > r->s.max_flows)
        abort();
}

static void on_flow_end(dw_dissect *D, const dw_flow *f, void *u)
{
    (void)D;
    run *r = u;
    r->ended++;
    for (int k = 0; k < 2; k++) {
        const dw_dissect_dir *d = dw_dissect_flow_dir(f, k);
        check_dir(r, d);
        dw_dissect_dir_stats st;
        dw_dissect_dir_stats_get(d, &st);
        if (d->framing == DW_DISSECT_UNDECIDED || d->tcpopt_bad > d->tcpopts ||
            (d->framing != DW_DISSECT_FOUND_MPA && st.mpa.fpdus) ||
            (d->framing != DW_DISSECT_FOUND_IFT && st.ift.frames))
            abort();
    }
}

/* ---- running the dissector ------------------------------------------ */

static void set_opts(dw_dissect_settings *o, unsigned sel)
{
    static const int mode[] = {-1, -1, 0, 1};
    o->mode = (dw_dissect_mode)(sel & 3);
    o->markers = mode[sel >> 2 & 3];
    o->crc = mode[sel >> 4 & 3];
    switch (sel >> 6 & 3) {
    case 1:
        o->mpa_port = 5000;
        break;
    case 2:
        o->mpa_port = 5000, o->mpa_seq_set = 1, o->mpa_seq = 1001;
        break;
    case 3:
        o->mpa_port = 40000, o->mpa_seq_set = 1, o->mpa_seq = 1001;
        o->ports[o->nports++] = 5000;
        break;
    }
}

/* cfg 0: SEL; 1: ~SEL, one flow, no store; 2: the defaults. */
static int run_begin(run *r, int cfg, unsigned sel, unsigned linktype)
{
    static const dw_dissect_callbacks cb = {
        .on_fpdu = on_fpdu, .on_mpa_event = on_mpa_event, .on_ift_frame = on_ift_frame,
        .on_ift_event = on_ift_event, .on_reasm_event = on_reasm_event, .on_gap = on_gap,
        .on_rdma_event = on_rdma_event, .on_tcpopt = on_tcpopt, .on_ipoib = on_ipoib, .on_flow_start = on_flow_start,
        .on_flow_end = on_flow_end};
    memset(r, 0, sizeof *r);
    dw_dissect_settings_default(&r->s);
    r->s.max_flows = cfg == 0 ? 2 : cfg == 1 ? 1 : 256;
    r->s.store = cfg == 0 ? 256 : cfg == 1 ? 0 : 262144;
    if (cfg < 2)
        set_opts(&r->s, cfg ? ~sel & 0xff : sel);
    r->linktype = linktype;
    return dw_dissect_new(&r->D, &r->s, &cb, r);
}

/* Each frame is copied to the start of a buffer aligned to ASan's 8-octet
 * granule, everything around it poisoned: a read one octet before or after
 * the frame is reported, as with a malloc of exactly its length (which cost
 * an allocation, its stack trace and its fill per frame). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DW_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(DW_FUZZ_ASAN)
#define DW_FUZZ_ASAN 1
#endif
#ifdef DW_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

#define FRAME_ROOM (0x3fffu + 64u) /* the largest frame (raw form, pcap's) and a redzone */
static _Alignas(16) uint8_t frame_buf[32 + FRAME_ROOM];

static const uint8_t *frame_copy(const uint8_t *p, size_t caplen)
{
    uint8_t *f = frame_buf + 32;
    ASAN_UNPOISON_MEMORY_REGION(f, caplen);
    memcpy(f, p, caplen);
    ASAN_POISON_MEMORY_REGION(frame_buf, 32);
    ASAN_POISON_MEMORY_REGION(f + caplen, sizeof frame_buf - 32 - caplen);
    return f;
}

static void run_packet(run *r, const uint8_t *p, size_t caplen, size_t wirelen)
{
    const uint8_t *copy = NULL;
    uint8_t *big = NULL;
    if (caplen + 64 <= FRAME_ROOM) {
        copy = frame_copy(p, caplen);
    } else { /* a pcap frame above 16 KiB: exactly its length on the heap */
        if (!(big = malloc(caplen)))
            return;
        memcpy(big, p, caplen);
        copy = big;
    }
    uint64_t n = dw_dissect_packet(r->D, r->linktype, r->fed, caplen ? copy : NULL, caplen,
                                   wirelen);
    free(big);
    r->fed++;
    dw_dissect_stats st;
    dw_dissect_stats_get(r->D, &st);
    if (n != r->fed || st.packets != r->fed || st.flows_open > r->s.max_flows ||
        st.flows_open != r->started - r->ended || st.protocol_errors != r->errors)
        abort();
}

static void run_end(run *r)
{
    dw_dissect_finish(r->D);
    dw_dissect_stats st;
    dw_dissect_stats_get(r->D, &st);
    uint64_t sorted = st.tcp_packets + st.not_tcp + st.unreadable;
    if (st.flows_open || r->started != r->ended || r->started != st.flows_seen ||
        st.protocol_errors != r->errors || sorted < st.packets ||
        (r->linktype != DW_PKT_LINK_IPOIB && sorted != st.packets))
        abort();
    dw_dissect_del(r->D);
}

/* ---- the two input forms --------------------------------------------- */

/* A capture's frames, read once by libpcap for the three runs: their
 * headers and octets, kept from input to input (grown, never freed). */
typedef struct frame {
    size_t at, caplen, len; /* octets[at, at + caplen) */
} frame;

static struct {
    frame *f;
    size_t n, cap;
    uint8_t *octets;
    size_t used, room;
} cap_;

static int keep(const struct pcap_pkthdr *h, const u_char *p)
{
    if (cap_.n == cap_.cap) {
        size_t n = cap_.cap ? 2 * cap_.cap : 256;
        frame *f = realloc(cap_.f, n * sizeof *f);
        if (!f)
            return -1;
        cap_.f = f, cap_.cap = n;
    }
    if (h->caplen > cap_.room - cap_.used) {
        size_t n = cap_.room ? cap_.room : 65536;
        while (h->caplen > n - cap_.used)
            n *= 2;
        uint8_t *o = realloc(cap_.octets, n);
        if (!o)
            return -1;
        cap_.octets = o, cap_.room = n;
    }
    if (h->caplen)
        memcpy(cap_.octets + cap_.used, p, h->caplen);
    cap_.f[cap_.n++] = (frame){cap_.used, h->caplen, h->len};
    cap_.used += h->caplen;
    return 0;
}

/* Reads the capture and its link type; -1 when libpcap cannot open it. */
static int read_capture(const uint8_t *data, size_t size, unsigned *link)
{
    char err[PCAP_ERRBUF_SIZE];
    cap_.n = cap_.used = 0;
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        return -1;
    pcap_t *pc = pcap_fopen_offline(fp, err);
    if (!pc) {
        fclose(fp);
        return -1;
    }
    *link = (unsigned)pcap_datalink(pc);
    struct pcap_pkthdr *h;
    const u_char *p;
    int rc;
    while ((rc = pcap_next_ex(pc, &h, &p)) >= 0)
        if (rc > 0 && keep(h, p))
            abort(); /* the harness's own memory */
    pcap_close(pc); /* closes fp */
    return 0;
}

static void run_capture(unsigned link, unsigned sel, int cfg)
{
    run r;
    if (run_begin(&r, cfg, sel, link))
        return;
    for (size_t i = 0; i < cap_.n; i++)
        run_packet(&r, cap_.octets + cap_.f[i].at, cap_.f[i].caplen, cap_.f[i].len);
    run_end(&r);
}

static void run_raw(const uint8_t *data, size_t size, int cfg)
{
    run r;
    if (size < 3 ||
        run_begin(&r, cfg, data[2], links[data[1] % (sizeof links / sizeof links[0])]))
        return;
    size_t at = 3;
    while (size - at >= 2) {
        unsigned w = (unsigned)data[at] << 8 | data[at + 1];
        size_t cap = w & 0x3fff, left = size - at - 2;
        if (cap > left)
            cap = left;
        run_packet(&r, data + at + 2, cap, cap + wire_extra[w >> 14]);
        at += 2 + cap;
    }
    run_end(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int capture = data[0] == 0xd4 || data[0] == 0xa1 || data[0] == 0x4d || data[0] == 0x0a;
    unsigned link = 0;
    if (capture && read_capture(data, size, &link))
        return 0;
    for (int cfg = 0; cfg < 3; cfg++) {
        if (capture)
            run_capture(link, data[size - 1], cfg);
        else
            run_raw(data, size, cfg);
    }
    return 0;
}
