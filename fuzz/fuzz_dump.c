/*
 * Fuzz target: the whole `ddpwire dump` pipeline (tools/ddpwire/dump_*.c,
 * compiled in): dump_init, dump_packet per frame, dump_finish, the summary.
 *
 * Input: a pcap or pcapng file, read by libpcap from memory as the tool
 * reads a file; its last octet is the option selector (SEL below). An
 * input whose first octet begins no capture magic (d4, a1, 4d, 0a) is raw
 * packets instead: octet 1 picks the link type, octet 2 is SEL, then
 * frames, each a 2-octet big-endian word (low 14 bits: captured length,
 * top 2: how much longer the frame was on the wire) and its octets.
 *
 * Each input runs three times: text -v with SEL's options, --max-flows 2,
 * --store 256; --json -v with the other options, --max-flows 1, --store 0;
 * text with the tool's defaults. Every frame is copied to a buffer of
 * exactly its captured length (reads past it are sanitizer errors). The
 * counters must add up, at most --max-flows flows may be open, all must
 * be finished at the end, and every JSON line must be one JSON object.
 *
 * SEL: bits 0-1 --framing auto|mpa|ift|none; 2-3 and 4-5 --markers and
 * --crc (0, 1 learn, 2 off, 3 on); 6-7 nothing, --mpa-start 5000,
 * --mpa-start 5000:1001, or --port 5000 --mpa-start 40000:1001.
 */
#include <pcap/pcap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

static const unsigned links[] = {
    DW_PKT_LINK_NULL, DW_PKT_LINK_ETHERNET, DW_PKT_LINK_DLT_RAW, DW_PKT_LINK_RAW,
    DW_PKT_LINK_LOOP, DW_PKT_LINK_SLL,      DW_PKT_LINK_IPV4,    DW_PKT_LINK_IPV6,
    DW_PKT_LINK_IPOIB, DW_PKT_LINK_SLL2,    147};

static const size_t wire_extra[] = {0, 1, 64, 65535};

typedef struct run {
    dump D;
    char *json;       /* --json output (open_memstream) */
    size_t json_len;
    uint64_t fed;
} run;

/* ---- a strict JSON checker for the --json lines ---------------------- */

static const char *js_value(const char *p, const char *end, int depth);

static const char *js_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static const char *js_string(const char *p, const char *end)
{
    if (p == end || *p++ != '"')
        return NULL;
    while (p < end && *p != '"') {
        unsigned char c = (unsigned char)*p++;
        if (c < 0x20 || c >= 0x80)
            return NULL; /* control octets escaped; the tool prints ASCII */
        if (c != '\\')
            continue;
        if (p == end)
            return NULL;
        c = (unsigned char)*p++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++, p++)
                if (p == end || !strchr("0123456789abcdefABCDEF", *p) || !*p)
                    return NULL;
        } else if (!strchr("\"\\/bfnrt", c) || !c) {
            return NULL;
        }
    }
    return p < end ? p + 1 : NULL;
}

static const char *js_digits(const char *p, const char *end)
{
    const char *s = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p > s ? p : NULL;
}

static const char *js_number(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if (!(p = js_digits(p, end)))
        return NULL;
    if (p < end && *p == '.' && !(p = js_digits(p + 1, end)))
        return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        p = js_digits(p, end);
    }
    return p;
}

static const char *js_list(const char *p, const char *end, int depth, char close, int obj)
{
    p = js_ws(p + 1, end);
    if (p < end && *p == close)
        return p + 1;
    for (;;) {
        if (obj) {
            if (!(p = js_string(js_ws(p, end), end)))
                return NULL;
            p = js_ws(p, end);
            if (p == end || *p++ != ':')
                return NULL;
        }
        if (!(p = js_value(p, end, depth + 1)))
            return NULL;
        p = js_ws(p, end);
        if (p == end)
            return NULL;
        if (*p == close)
            return p + 1;
        if (*p++ != ',')
            return NULL;
    }
}

static const char *js_value(const char *p, const char *end, int depth)
{
    p = js_ws(p, end);
    if (p == end || depth > 16)
        return NULL;
    if (*p == '{')
        return js_list(p, end, depth, '}', 1);
    if (*p == '[')
        return js_list(p, end, depth, ']', 0);
    if (*p == '"')
        return js_string(p, end);
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(end - p) >= n && !memcmp(p, words[i], n))
            return p + n;
    }
    return js_number(p, end);
}

/* Every line one object with a "type" member first. */
static void check_json(const char *s, size_t len)
{
    const char *end = s + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl || strncmp(s, "{\"type\":\"", 9) || js_value(s, nl, 0) != nl)
            abort();
        s = nl + 1;
    }
}

/* ---- running the pipeline -------------------------------------------- */

static void set_opts(dump_opts *o, unsigned sel)
{
    static const int mode[] = {-1, -1, 0, 1};
    o->framing = (int)(sel & 3);
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

static FILE *devnull(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        abort();
    return f;
}

/* cfg 0: text -v SEL; 1: --json -v ~SEL; 2: the defaults. */
static int run_begin(run *r, int cfg, unsigned sel, unsigned linktype)
{
    dump *D = &r->D;
    memset(r, 0, sizeof *r);
    D->o.markers = D->o.crc = D->o.mpa_port = -1;
    D->o.max_flows = cfg == 0 ? 2 : cfg == 1 ? 1 : 256;
    D->o.store = cfg == 0 ? 256 : cfg == 1 ? 0 : 262144;
    D->o.verbose = cfg < 2;
    D->o.json = cfg == 1;
    if (cfg < 2)
        set_opts(&D->o, cfg ? ~sel & 0xff : sel);
    D->out = D->o.json ? open_memstream(&r->json, &r->json_len) : devnull();
    if (!D->out)
        abort();
    if (dump_init(D)) {
        if (D->o.json)
            fclose(D->out);
        free(r->json);
        return -1;
    }
    D->linktype = linktype;
    return 0;
}

static void run_packet(run *r, const uint8_t *p, size_t caplen, size_t wirelen)
{
    uint8_t *copy = malloc(caplen ? caplen : 1); /* exactly the capture */
    if (!copy)
        return;
    if (caplen)
        memcpy(copy, p, caplen);
    dump_packet(&r->D, caplen ? copy : NULL, caplen, wirelen);
    free(copy);
    r->fed++;
    if (r->D.flows_open > r->D.o.max_flows || r->D.packets != r->fed)
        abort();
}

static void run_end(run *r, int read_error)
{
    dump *D = &r->D;
    dump_finish(D);
    int status = (read_error || D->protocol_errors) ? 1 : D->incomplete ? 3 : 0;
    out_summary(D, status);
    uint64_t sorted = D->tcp_packets + D->not_tcp + D->unreadable;
    if (D->flows_open || D->table || sorted < D->packets ||
        (D->linktype != DW_PKT_LINK_IPOIB && sorted != D->packets))
        abort();
    if (D->o.json) {
        if (fclose(D->out))
            abort();
        check_json(r->json, r->json_len);
        free(r->json);
    }
}

/* ---- the two input forms --------------------------------------------- */

static void run_capture(const uint8_t *data, size_t size, int cfg)
{
    char err[PCAP_ERRBUF_SIZE];
    FILE *fp = fmemopen((void *)(uintptr_t)data, size, "rb");
    if (!fp)
        return;
    pcap_t *pc = pcap_fopen_offline(fp, err);
    if (!pc) {
        fclose(fp);
        return;
    }
    run r;
    if (run_begin(&r, cfg, data[size - 1], (unsigned)pcap_datalink(pc))) {
        pcap_close(pc);
        return;
    }
    struct pcap_pkthdr *h;
    const u_char *p;
    int rc;
    while ((rc = pcap_next_ex(pc, &h, &p)) >= 0)
        if (rc > 0)
            run_packet(&r, p, h->caplen, h->len);
    pcap_close(pc); /* closes fp */
    run_end(&r, rc == PCAP_ERROR);
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
    run_end(&r, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int capture = data[0] == 0xd4 || data[0] == 0xa1 || data[0] == 0x4d || data[0] == 0x0a;
    for (int cfg = 0; cfg < 3; cfg++) {
        if (capture)
            run_capture(data, size, cfg);
        else
            run_raw(data, size, cfg);
    }
    return 0;
}
