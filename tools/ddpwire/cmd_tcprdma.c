/* SPDX-License-Identifier: MIT */
/*
 * ddpwire tcprdma synth: a pcap of one whole TCP connection (handshake,
 * request, reply segments with TCP RDMA options, ACKs, FINs) carrying a
 * workload, seen from the receiver of the reply: loss shows as a segment
 * missing until its retransmission, reordering as a swap, duplicates twice.
 * ddpwire tcprdma place: see tcprdma_place.c.
 */
#include <ddpwire/pkt.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tcprdma.h"

static void help(void)
{
    printf(
        "usage: ddpwire tcprdma synth -o FILE.pcap [options]\n"
        "       ddpwire tcprdma place FILE.pcap -o DIR [options]  (place --help)\n"
        "synth writes a capture of one TCP connection whose reply carries a workload,\n"
        "each body one RDMA transfer described by TCP RDMA options (kind 25):\n"
        "  --workload nfs|http|cifs|layout  NFSv3 READ replies (RID: XID), HTTP/1.1 GET\n"
        "                       responses (RID: request index), SMB READ_ANDX responses\n"
        "                       (RID: PID/MID), or --layout (default nfs)\n"
        "  --size N --count N   octets per body (default 65536) and bodies (default 1)\n"
        "  --layout SPEC        comma-separated: m:N message start + N octets, s:N stream\n"
        "                       octets, d:N data of the current transfer, n next transfer,\n"
        "                       z zero-length transfer, u unsolicited, o:N buffer offset\n"
        "                       (section 4's example: m:100,d:2000,s:100,m:100,d:2000)\n"
        "  --mss N              MSS (default 1460); payload is MSS less the options\n"
        "  --policy message|packed   section 4's two segmentations (default message)\n"
        "  --no-total --unsolicited --no-abit --timestamps   option variants\n"
        "  --loss P --reorder P --dup P   percent of reply segments (seeded)\n"
        "  --seed N --isn N     randomness; the server's initial sequence number\n"
        "  --link eth|vlan|sll|sll2|raw|ipv4|ipv6|null|loop|ipoib --ipv6 --snaplen N\n"
        "  --hostile bad-offset|oversize|total|rid-flood|misaligned|total-change\n"
        "                       break the options\n"
        "  --bodies DIR         also write each body as DIR/RID.bin (RID in 12 hex\n"
        "                       digits) and the expected pass-through streams as\n"
        "                       DIR/stream-SPORT-DPORT.bin, as place names them,\n"
        "                       and the whole reply stream as DIR/whole-SPORT-DPORT.bin\n");
}

typedef struct synth {
    tw_opts w;
    const char *out, *bodies, *hostile;
    uint32_t mss, isn_s, isn_c, snaplen;
    unsigned loss, reorder, dup;
    int v6, a_bit, ts, isn_set, policy, link;
    pcap_out po;
    dw_pkt_build b;
    uint64_t usec, rng;
    uint16_t sport, cport;
    uint32_t data_segs; /* reply segments with transfer data so far */
    int err;   /* a frame that could not be built or written */
    int nomem; /* an allocation failed: the capture would be cut */
} synth;

static const struct {
    const char *name;
    unsigned lt;
    int vlan;
} links[] = {
    {"eth", DW_PKT_LINK_ETHERNET, -1}, {"vlan", DW_PKT_LINK_ETHERNET, 42},
    {"sll", DW_PKT_LINK_SLL, -1},      {"sll2", DW_PKT_LINK_SLL2, -1},
    {"raw", DW_PKT_LINK_RAW, -1},      {"ipv4", DW_PKT_LINK_IPV4, -1},
    {"ipv6", DW_PKT_LINK_IPV6, -1},    {"null", DW_PKT_LINK_NULL, -1},
    {"loop", DW_PKT_LINK_LOOP, -1},    {"ipoib", DW_PKT_LINK_IPOIB, -1},
};

static const char *hostiles[] = {"bad-offset", "oversize", "total", "rid-flood",
                                 "misaligned", "total-change"};

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static int percent(synth *S, unsigned p)
{
    return p && rnd(&S->rng) % 100 < p;
}

/* One packet, captured at the client; from_server picks the direction. */
static void pkt(synth *S, int from_server, uint8_t flags, uint32_t seq, uint32_t ack,
                const uint8_t *opts, size_t olen, const uint8_t *pl, size_t len)
{
    static uint8_t frame[70000];
    static const uint8_t c4[4] = {10, 0, 0, 1}, s4[4] = {10, 0, 0, 2};
    static const uint8_t c6[16] = {0xfd, [15] = 1}, s6[16] = {0xfd, [15] = 2};
    static const uint8_t cm[6] = {2, 0, 0, 0, 0, 1}, sm[6] = {2, 0, 0, 0, 0, 2};
    dw_pkt_build *b = &S->b;
    const uint8_t *src = from_server ? (S->v6 ? s6 : s4) : (S->v6 ? c6 : c4);
    const uint8_t *dst = from_server ? (S->v6 ? c6 : c4) : (S->v6 ? s6 : s4);
    memset(b->src, 0, 16);
    memset(b->dst, 0, 16);
    memcpy(b->src, src, S->v6 ? 16 : 4);
    memcpy(b->dst, dst, S->v6 ? 16 : 4);
    memcpy(b->mac_src, from_server ? sm : cm, 6);
    memcpy(b->mac_dst, from_server ? cm : sm, 6);
    b->pkttype = from_server ? 0 : 4;
    b->sport = from_server ? S->sport : S->cport;
    b->dport = from_server ? S->cport : S->sport;
    b->ip_id++;
    b->flags = flags;
    b->seq = seq;
    b->ack = ack;
    b->window = 65535;
    b->options = opts;
    b->options_len = olen;
    b->payload = pl;
    b->payload_len = len;
    ssize_t n = dw_pkt_build_frame(frame, sizeof frame, b);
    S->usec += 20;
    if (n < 0 || pcap_out_write(&S->po, S->usec, frame, (size_t)n))
        S->err = 1;
}

/* Octets of options besides the RDMA option's 20 on reply segments. */
static uint32_t extra_opts(const synth *S)
{
    int mis = S->hostile && !strcmp(S->hostile, "misaligned");
    return (S->ts ? 12 : 0) + (mis ? 4 : 0);
}

/* Breaks an option as --hostile asks (data-carrying segments only). */
static void break_opt(synth *S, dw_tcpopt *o, size_t idx, uint32_t len)
{
    const char *h = S->hostile;
    if (!h || o->len < DW_TCPOPT_LEN_DATA)
        return;
    S->data_segs++;
    if (!strcmp(h, "bad-offset") && S->data_segs % 3 == 1)
        o->data_offset = (uint16_t)(len + 1);
    else if (!strcmp(h, "oversize"))
        o->buffer_offset += 0xf0000000u;
    else if (!strcmp(h, "total") && o->len == DW_TCPOPT_LEN_TOTAL)
        o->total_length = 0x7fffffff;
    else if (!strcmp(h, "total-change") && o->len == DW_TCPOPT_LEN_TOTAL && S->data_segs % 4 == 0)
        o->total_length += 1; /* breaks 3.1.4: one total per transfer */
    else if (!strcmp(h, "rid-flood"))
        o->rid = 0x100000 + idx, o->u = idx & 1;
}

static void data_seg(synth *S, const tw_work *w, const dw_tcpopt_segment *g, size_t idx,
                     uint32_t ack)
{
    uint8_t o[40];
    size_t n = 0;
    if (S->ts) { /* NOP NOP timestamps (RFC 7323): TSval in ms, TSecr 0 */
        uint32_t v = (uint32_t)(S->usec / 1000);
        uint8_t ts[12] = {1, 1, 8, 10, (uint8_t)(v >> 24), (uint8_t)(v >> 16),
                          (uint8_t)(v >> 8), (uint8_t)v, 0, 0, 0, 0};
        memcpy(o, ts, 12);
        n = 12;
    }
    dw_tcpopt opt = g->opt;
    break_opt(S, &opt, idx, g->len);
    if (opt.len) {
        int mis = S->hostile && !strcmp(S->hostile, "misaligned");
        if (mis)
            o[n++] = 1, o[n++] = 1; /* 3.1.8 broken: 2 off a 4-octet boundary */
        n += (size_t)dw_tcpopt_encode(o + n, sizeof o - n, &opt);
        while (n % 4)
            o[n++] = 0;
    }
    pkt(S, 1, DW_PKT_ACK | DW_PKT_PSH, g->seq, ack, o, n, w->resp + g->offset, g->len);
}

/* The client's cumulative ACK after segment idx arrived. */
typedef struct acker {
    uint8_t *got;
    size_t prefix, n, since;
} acker;

static void arrive(synth *S, acker *a, const dw_tcpopt_segment *seg, size_t idx,
                   uint32_t cseq, uint64_t resp_len)
{
    size_t before = a->prefix;
    a->got[idx] = 1;
    while (a->prefix < a->n && a->got[a->prefix])
        a->prefix++;
    uint64_t acked = a->prefix < a->n ? seg[a->prefix].offset : resp_len;
    /* delayed ACK every second in-order segment; out of order at once */
    if (a->prefix == before || ++a->since == 2 || a->prefix == a->n) {
        pkt(S, 0, DW_PKT_ACK, cseq, S->isn_s + 1 + (uint32_t)acked, NULL, 0, NULL, 0);
        a->since = 0;
    }
}

static void reply(synth *S, const tw_work *w, const dw_tcpopt_segment *seg, size_t n,
                  uint32_t cseq)
{
    acker a = {calloc(n + 1, 1), 0, n, 0};
    size_t *late = calloc(n + 1, sizeof *late), *due = calloc(n + 1, sizeof *due), nl = 0;
    if (!a.got || !late || !due) {
        S->nomem = 1;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < nl;) /* retransmissions, three segments later */
            if (due[k] <= i) {
                data_seg(S, w, &seg[late[k]], late[k], cseq);
                arrive(S, &a, seg, late[k], cseq, w->resp_len);
                late[k] = late[--nl], due[k] = due[nl];
            } else {
                k++;
            }
        if (percent(S, S->loss)) {
            late[nl] = i, due[nl++] = i + 3;
            continue;
        }
        int swap = i + 1 < n && percent(S, S->reorder);
        if (swap) { /* the next one overtakes this one */
            data_seg(S, w, &seg[i + 1], i + 1, cseq);
            arrive(S, &a, seg, i + 1, cseq, w->resp_len);
        }
        data_seg(S, w, &seg[i], i, cseq);
        arrive(S, &a, seg, i, cseq, w->resp_len);
        if (percent(S, S->dup))
            data_seg(S, w, &seg[i], i, cseq);
        i += (size_t)swap;
    }
    for (size_t k = 0; k < nl; k++) {
        data_seg(S, w, &seg[late[k]], late[k], cseq);
        arrive(S, &a, seg, late[k], cseq, w->resp_len);
    }
out:
    free(a.got);
    free(late);
    free(due);
}

static void connection(synth *S, const tw_work *w, const dw_tcpopt_segment *seg, size_t n)
{
    /* SYN and SYN-ACK: MSS, and the RDMA option of length 2 (3.2) on a
     * 4-octet boundary (3.1.8), then NOP NOP */
    uint8_t syn[8] = {2, 4, (uint8_t)(S->mss >> 8), (uint8_t)S->mss, 25, 2, 1, 1};
    uint32_t c = S->isn_c, s = S->isn_s;
    pkt(S, 0, DW_PKT_SYN, c, 0, syn, 8, NULL, 0);
    pkt(S, 1, DW_PKT_SYN | DW_PKT_ACK, s, c + 1, syn, 8, NULL, 0);
    pkt(S, 0, DW_PKT_ACK, c + 1, s + 1, NULL, 0, NULL, 0);
    size_t cmss = S->mss - 20;
    for (size_t off = 0; off < w->req_len; off += cmss) {
        size_t len = w->req_len - off < cmss ? w->req_len - off : cmss;
        pkt(S, 0, DW_PKT_ACK | DW_PKT_PSH, c + 1 + (uint32_t)off, s + 1, NULL, 0,
            w->req + off, len);
        pkt(S, 1, DW_PKT_ACK, s + 1, c + 1 + (uint32_t)(off + len), NULL, 0, NULL, 0);
    }
    uint32_t cend = c + 1 + (uint32_t)w->req_len, send = s + 1 + (uint32_t)w->resp_len;
    reply(S, w, seg, n, cend);
    pkt(S, 1, DW_PKT_FIN | DW_PKT_ACK, send, cend, NULL, 0, NULL, 0);
    pkt(S, 0, DW_PKT_ACK, cend, send + 1, NULL, 0, NULL, 0);
    pkt(S, 0, DW_PKT_FIN | DW_PKT_ACK, cend, send + 1, NULL, 0, NULL, 0);
    pkt(S, 1, DW_PKT_ACK, send + 1, cend + 1, NULL, 0, NULL, 0);
}

/* One body file, complete or removed: 0, 1 or CLI_EXIT_RESOURCE (said). */
#define P_SYNTH "ddpwire tcprdma synth"

static int write_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cli_outfile o;
    FILE *f = cli_outfile_open(&o, "ddpwire tcprdma synth", path);
    if (!f)
        return cli_errno_resource(errno) ? CLI_EXIT_RESOURCE : 1;
    if (n)
        fwrite(p, 1, n, f);
    return cli_outfile_commit(&o, "ddpwire tcprdma synth");
}

/* Each body as its buffer will hold it, and the pass-through streams: 0,
 * or the status after saying why. */
static int write_bodies(const synth *S, const tw_work *w)
{
    if (mkdir(S->bodies, 0777) && errno != EEXIST) {
        fprintf(stderr, "ddpwire tcprdma synth: %s: %s\n", S->bodies, strerror(errno));
        return cli_errno_resource(errno) ? CLI_EXIT_RESOURCE : 1;
    }
    int rc = 0;
    uint8_t *img = NULL;
    for (size_t i = 0; !rc && i < w->nx; i++) {
        const dw_tcpopt_transfer *x = &w->x[i];
        size_t len = (size_t)(x->buffer_offset + tw_xfer_len(x)), at = x->buffer_offset;
        img = calloc(len + 1, 1);
        for (size_t k = 0; img && k < x->nranges; k++) {
            memcpy(img + at, w->resp + x->ranges[k].offset, (size_t)x->ranges[k].length);
            at += (size_t)x->ranges[k].length;
        }
        char name[64];
        snprintf(name, sizeof name, "%012llx.bin", (unsigned long long)x->rid);
        rc = img ? write_file(S->bodies, name, img, len) : cli_nomem(P_SYNTH, "a body");
        free(img);
    }
    img = malloc(w->resp_len + 1); /* the reply less its transfers */
    size_t n = 0, r = 0;
    for (uint64_t p = 0; img && p < w->resp_len;) {
        while (r < w->nr && w->r[r].offset + w->r[r].length <= p)
            r++;
        if (r < w->nr && w->r[r].offset <= p) {
            p = w->r[r].offset + w->r[r].length;
            continue;
        }
        uint64_t end = r < w->nr ? w->r[r].offset : w->resp_len;
        memcpy(img + n, w->resp + p, (size_t)(end - p));
        n += (size_t)(end - p), p = end;
    }
    char name[64];
    snprintf(name, sizeof name, "stream-%u-%u.bin", S->sport, S->cport);
    if (!rc)
        rc = img ? write_file(S->bodies, name, img, n) : cli_nomem(P_SYNTH, "a stream");
    snprintf(name, sizeof name, "stream-%u-%u.bin", S->cport, S->sport);
    if (!rc)
        rc = write_file(S->bodies, name, w->req, w->req_len);
    snprintf(name, sizeof name, "whole-%u-%u.bin", S->sport, S->cport);
    if (!rc)
        rc = write_file(S->bodies, name, w->resp, w->resp_len);
    free(img);
    return rc;
}

static int synth_run(synth *S)
{
    tw_work *w = calloc(1, sizeof *w);
    if (!w)
        return cli_nomem(P_SYNTH, "building the workload");
    int bad = tw_build(w, &S->w);
    if (bad) {
        free(w);
        return bad < 0 ? 2 : bad;
    }
    dw_tcpopt_seg_settings ss;
    dw_tcpopt_seg_settings_default(&ss);
    ss.mss = S->mss - 20 - extra_opts(S);
    ss.policy = S->policy ? DW_TCPOPT_SEG_PACKED : DW_TCPOPT_SEG_MESSAGE;
    ss.a_bit = S->a_bit;
    ss.start_seq = S->isn_s + 1;
    ssize_t n = dw_tcpopt_segment_stream(NULL, 0, &ss, w->resp_len, w->x, w->nx, w->msgs, w->nm);
    dw_tcpopt_segment *seg = n > 0 ? calloc((size_t)n, sizeof *seg) : NULL;
    int status = 0;
    if (n > 0 && !seg) {
        status = cli_nomem(P_SYNTH, "segmenting the workload");
    } else if (n <= 0 ||
        dw_tcpopt_segment_stream(seg, (size_t)n, &ss, w->resp_len, w->x, w->nx, w->msgs,
                                 w->nm) != n) {
        fprintf(stderr, "ddpwire tcprdma synth: cannot segment this workload (%s)\n",
                n < 0 ? dw_strerror((int)n) : "empty");
        status = n < 0 ? 2 : 1;
    } else if (pcap_out_open(&S->po, S->out, links[S->link].lt, S->snaplen)) {
        if (cli_errno_resource(errno))
            status = cli_cannot_path(P_SYNTH, "creating", S->out, strerror(errno));
        else
            fprintf(stderr, "ddpwire tcprdma synth: %s: %s\n", S->out, strerror(errno)),
                status = 1;
    } else {
        S->sport = w->server_port;
        S->cport = 40001;
        S->b = (dw_pkt_build){.linktype = links[S->link].lt, .vlan = links[S->link].vlan,
                              .ip_version = (uint8_t)(S->v6 ? 6 : 4), .ttl = 64};
        S->usec = 1700000000ull * 1000000;
        connection(S, w, seg, (size_t)n);
        if (S->nomem) {
            pcap_out_abort(&S->po);
            status = cli_nomem(P_SYNTH, "synthesizing the capture");
        } else if (S->err && !cli_outfile_failed(&S->po.o)) {
            pcap_out_abort(&S->po);
            fprintf(stderr, "ddpwire tcprdma synth: %s: a frame could not be built\n", S->out);
            status = 1;
        } else {
            status = pcap_out_close(&S->po, P_SYNTH);
        }
        if (!status && S->bodies)
            status = write_bodies(S, w);
    }
    free(seg);
    tw_free(w);
    free(w);
    return status;
}

static int pick(const char *opt, const char *v, const char *const *names, size_t n, int *out)
{
    for (size_t i = 0; v && i < n; i++)
        if (!strcmp(v, names[i])) {
            *out = (int)i;
            return 0;
        }
    fprintf(stderr, "ddpwire tcprdma synth: %s: unknown value '%s'\n", opt, v ? v : "");
    return -1;
}

static const char *const workloads[] = {"nfs", "http", "cifs", "layout"};
static const char *const policies[] = {"message", "packed"};

static int opt_layout(void *out, const char *name, const char *v)
{
    synth *S = out;
    (void)name;
    S->w.layout = v, S->w.kind = "layout";
    return 0;
}

static int opt_workload(void *out, const char *name, const char *v)
{
    synth *S = out;
    int k;
    if (pick(name, v, workloads, 4, &k))
        return -1;
    S->w.kind = workloads[k];
    return 0;
}

static int opt_policy(void *out, const char *name, const char *v)
{
    return pick(name, v, policies, 2, out);
}

static int opt_link(void *out, const char *name, const char *v)
{
    const char *lnames[sizeof links / sizeof links[0]];
    for (size_t k = 0; k < sizeof links / sizeof links[0]; k++)
        lnames[k] = links[k].name;
    return pick(name, v, lnames, sizeof lnames / sizeof lnames[0], out);
}

static int opt_hostile(void *out, const char *name, const char *v)
{
    int k;
    if (pick(name, v, hostiles, sizeof hostiles / sizeof hostiles[0], &k))
        return -1;
    *(const char **)out = hostiles[k];
    return 0;
}

/* Every option's value: "needs a value" when it is missing. */
#define VAL(name, kind, T, p, min, max, fn)                                                      \
    CLI_OPT(name, kind, CLI_PTR_(T, p), min, max, "a value", fn)

/* The options into S: CLI_GO to run, else the exit status. */
static int synth_parse(synth *S, int argc, char **argv)
{
    uint64_t isn = UINT64_MAX; /* not given */
    const cli_opt t[] = {
        CLI_FLAG("--no-total", &S->w.no_total),
        CLI_FLAG("--unsolicited", &S->w.unsolicited),
        CLI_SET("--no-abit", &S->a_bit, 0),
        CLI_FLAG("--timestamps", &S->ts),
        CLI_FLAG("--ipv6", &S->v6),
        VAL("--size", CLI_K_U64, uint64_t, &S->w.size, 0, 1u << 30, NULL),
        VAL("--count", CLI_K_U32, uint32_t, &S->w.count, 1, TW_MAX_XFERS, NULL),
        VAL("--mss", CLI_K_U32, uint32_t, &S->mss, 64, 65535, NULL),
        VAL("--seed", CLI_K_U64, uint64_t, &S->w.seed, 0, UINT64_MAX, NULL),
        VAL("--isn", CLI_K_U64, uint64_t, &isn, 0, UINT32_MAX, NULL),
        VAL("--snaplen", CLI_K_U32, uint32_t, &S->snaplen, 1, 262144, NULL),
        VAL("--loss", CLI_K_U32, uint32_t, &S->loss, 0, 90, NULL),
        VAL("--reorder", CLI_K_U32, uint32_t, &S->reorder, 0, 100, NULL),
        VAL("--dup", CLI_K_U32, uint32_t, &S->dup, 0, 100, NULL),
        VAL("-o", CLI_K_STR, const char *, &S->out, 0, 0, NULL),
        VAL("--bodies", CLI_K_STR, const char *, &S->bodies, 0, 0, NULL),
        VAL("--layout", CLI_K_FN, synth, S, 0, 0, opt_layout),
        VAL("--workload", CLI_K_FN, synth, S, 0, 0, opt_workload),
        VAL("--policy", CLI_K_FN, int, &S->policy, 0, 0, opt_policy),
        VAL("--link", CLI_K_FN, int, &S->link, 0, 0, opt_link),
        VAL("--hostile", CLI_K_FN, const char *, &S->hostile, 0, 0, opt_hostile),
    };
    int r = cli_parse(argc, argv, "ddpwire tcprdma synth", help, t, CLI_N(t), NULL, NULL);
    if (isn <= UINT32_MAX)
        S->isn_s = (uint32_t)isn, S->isn_set = 1;
    return r;
}

int tcprdma_synth(int argc, char **argv)
{
    synth S = {.w = {.kind = "nfs", .size = 65536, .count = 1},
               .mss = 1460, .snaplen = 262144, .a_bit = 1};
    int r = synth_parse(&S, argc, argv);
    if (r != CLI_GO)
        return r;
    if (!S.out) {
        fprintf(stderr, "ddpwire tcprdma synth: -o FILE.pcap is required\n");
        return 2;
    }
    unsigned lt = links[S.link].lt;
    if ((S.v6 && lt == DW_PKT_LINK_IPV4) || (!S.v6 && lt == DW_PKT_LINK_IPV6)) {
        fprintf(stderr, "ddpwire tcprdma synth: --link %s cannot carry IPv%d\n",
                links[S.link].name, S.v6 ? 6 : 4);
        return 2;
    }
    if (S.mss < 20 + extra_opts(&S) + 1 + 20) {
        fprintf(stderr, "ddpwire tcprdma synth: --mss too small for the options\n");
        return 2;
    }
    S.rng = S.w.seed * 0xD1B54A32D192ED03ULL + 7;
    uint32_t isn = (uint32_t)rnd(&S.rng);
    S.isn_c = (uint32_t)rnd(&S.rng);
    if (!S.isn_set)
        S.isn_s = isn;
    return synth_run(&S);
}

int cmd_tcprdma(int argc, char **argv)
{
    static const cli_cmd cmds[] = {
        {"synth", tcprdma_synth, "a capture of TCP RDMA option transfers"},
        {"place", tcprdma_place, "a capture's transfers placed into files"},
    };
    const cli_group g = {"ddpwire tcprdma", "subcommand", cmds, CLI_N(cmds), NULL, help};
    return cli_dispatch(&g, argc, argv);
}
