/* SPDX-License-Identifier: MIT */
/*
 * ddpwire tcprdma place: reads a capture with libpcap, runs one receiver
 * (dw_tcpopt_rx) per direction of every TCP connection in it, and writes
 * what it places: each transfer's buffer as DIR/RID.bin and each
 * direction's pass-through stream as DIR/stream-SPORT-DPORT.bin. Reports
 * per transfer what was placed directly and what was passed through as
 * stream octets; exits 1 on any refusal, incomplete transfer or unreadable
 * TCP frame.
 */
#include <ddpwire/flowtab.h>
#include <ddpwire/pkt.h>
#include <ddpwire/tcpopt.h>
#include <ddpwire/tcpopt_rx.h>

#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tcprdma.h"

#define MAX_FLOWS 32
#define MAX_SEEN 4096
#define MAX_EXPLICIT 64
#define MAX_LINES 20

typedef struct seen {
    uint64_t rid, placed, passed;
    uint8_t complete, written;
} seen;

typedef struct abuf {
    uint64_t rid;
    uint8_t *p;
} abuf;

struct place;

typedef struct flow {
    uint8_t ver, src[16], dst[16];
    uint16_t sport, dport;
    dw_tcpopt_rx *rx;
    cli_outfile stream; /* DIR/stream-SPORT-DPORT.bin, in place when complete */
    char *path;
    uint64_t segments, bad_csum;
    seen seen[MAX_SEEN];
    size_t nseen, untracked;
    abuf *bufs;
    size_t nbufs;
    struct place *P;
} flow;

typedef struct place {
    const char *in, *dir;
    uint64_t buffer_size, unsol_size, store;
    unsigned max_buffers, unsol_count, nfs_version;
    int auto_reg, verbose, drop_bad;
    dw_tcpopt_rid_format fmt;
    struct {
        uint64_t rid, size;
    } expl[MAX_EXPLICIT];
    size_t nexpl;
    flow *flows[MAX_FLOWS]; /* each direction's receiver, in order of creation */
    size_t nflows;
    dw_flowtab *conns;       /* connection -> its directions' receivers */
    uint64_t frames, not_tcp, unreadable, truncated, refusals, lines, io_err;
    uint64_t reasons[32];
    char fail[300]; /* the first resource failure: the run stops, no verdict */
} place;

static void place_fail(place *P, const char *what, const char *why)
{
    if (!P->fail[0])
        snprintf(P->fail, sizeof P->fail, "%.200s: %.80s", what, why);
}

static void help(void)
{
    printf("usage: ddpwire tcprdma place FILE.pcap -o DIR [options]\n"
           "Places the TCP RDMA option transfers of every connection in a pcap or\n"
           "pcapng capture (Ethernet, VLAN, Linux cooked v1/v2, raw IP, loopback,\n"
           "IPoIB) and writes DIR/RID.bin per transfer (RID in 12 hex digits, the\n"
           "buffer up to its highest octet written) and DIR/stream-SPORT-DPORT.bin,\n"
           "the ordinary in-order stream of each direction less the placed octets\n"
           "(RIDs are per connection: one seen on two connections keeps the later file).\n"
           "  --buffer-size N    buffer registered for each solicited RID when first\n"
           "                     seen (default 16M), as a client that posted one per\n"
           "                     request; --no-auto registers only --buffer RID:SIZE\n"
           "  --max-buffers N    registered buffers at once per direction (default 64)\n"
           "  --unsol-count N --unsol-size N   6.1 quotas (default 4, 1M)\n"
           "  --store N          reassembly store per direction (default 4M)\n"
           "  --rid-format any|nfs|nfs3|http|cifs   check section 5's zero bits\n"
           "  --drop-bad-checksums   ignore segments whose TCP checksum is wrong\n"
           "  -v                 every transfer and refusal (else the first %d)\n"
           "Exit status: 0 all placed; 1 refusals, incomplete transfers, unreadable\n"
           "TCP frames or write errors; 2 usage.\n", MAX_LINES);
}

static seen *find_seen(flow *f, uint64_t rid)
{
    for (size_t i = f->nseen; i-- > 0;)
        if (f->seen[i].rid == rid)
            return &f->seen[i];
    if (f->nseen == MAX_SEEN) {
        f->untracked++;
        return NULL;
    }
    f->seen[f->nseen] = (seen){.rid = rid};
    return &f->seen[f->nseen++];
}

static void write_xfer(flow *f, seen *s, const uint8_t *buf, uint64_t extent)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%012llx.bin", f->P->dir, (unsigned long long)s->rid);
    cli_outfile o;
    if (f->P->fail[0])
        return;
    if (!cli_outfile_open(&o, NULL, path) ||
        (extent && fwrite(buf, 1, (size_t)extent, o.f) != extent) ||
        cli_outfile_commit(&o, NULL)) {
        int e = o.err ? o.err : errno;
        cli_outfile_abort(&o);
        char what[4200];
        snprintf(what, sizeof what, "writing %s", path);
        place_fail(f->P, what, strerror(e));
        return;
    }
    s->written = 1;
}

static void free_buf(flow *f, uint64_t rid)
{
    for (size_t i = 0; i < f->nbufs; i++)
        if (f->bufs[i].rid == rid) {
            free(f->bufs[i].p);
            f->bufs[i] = f->bufs[--f->nbufs];
            return;
        }
}

static void on_stream(dw_tcpopt_rx *rx, const uint8_t *d, size_t n, uint64_t off, void *u)
{
    flow *f = u;
    (void)rx, (void)off;
    if (f->stream.f && fwrite(d, 1, n, f->stream.f) != n && !f->P->fail[0]) {
        char what[300];
        snprintf(what, sizeof what, "writing %s", f->stream.path);
        place_fail(f->P, what, strerror(f->stream.err ? f->stream.err : errno));
    }
}

static void on_placed(dw_tcpopt_rx *rx, const dw_tcpopt_rx_place *p, void *u)
{
    seen *s = find_seen(u, p->rid);
    (void)rx;
    if (s)
        s->placed += p->len;
}

static void on_complete(dw_tcpopt_rx *rx, const dw_tcpopt_rx_xfer *x, void *u)
{
    flow *f = u;
    seen *s = find_seen(f, x->rid);
    (void)rx;
    if (s) {
        s->complete = 1;
        write_xfer(f, s, x->buf, x->extent);
    }
    free_buf(f, x->rid);
}

static void on_refused(dw_tcpopt_rx *rx, const dw_tcpopt_rx_refusal *r, void *u)
{
    flow *f = u;
    place *P = f->P;
    (void)rx;
    P->refusals++;
    P->reasons[(unsigned)r->reason % 32]++;
    seen *s = DW_TCPOPT_HAS_DATA(&r->opt) ? find_seen(f, r->opt.rid) : NULL;
    if (s)
        s->passed += r->len;
    if (P->verbose || P->lines++ < MAX_LINES)
        printf("refused: port %u -> %u seq %u (stream offset %llu), RID 0x%012llx, "
               "%u octets passed on as stream: %s\n",
               f->sport, f->dport, r->seq, (unsigned long long)r->stream_offset,
               (unsigned long long)r->opt.rid, r->len, dw_tcpopt_reason_str(r->reason));
}

/* Solicited RIDs get a buffer when first seen (or an explicit one). */
static void on_unknown(dw_tcpopt_rx *rx, const dw_tcpopt *o, void *u)
{
    flow *f = u;
    place *P = f->P;
    uint64_t size = P->auto_reg ? P->buffer_size : 0;
    for (size_t i = 0; i < P->nexpl; i++)
        if (P->expl[i].rid == o->rid)
            size = P->expl[i].size;
    if ((!size && !P->auto_reg) || f->nbufs >= P->max_buffers)
        return;
    for (size_t i = 0; i < f->nbufs; i++)
        if (f->bufs[i].rid == o->rid)
            return; /* completed before: a second transfer is not expected */
    uint8_t *p = calloc((size_t)size + 1, 1);
    if (!p)
        place_fail(P, "a buffer for a transfer", "out of memory");
    if (!p || dw_tcpopt_rx_register(rx, o->rid, p, (size_t)size)) {
        free(p);
        return;
    }
    f->bufs[f->nbufs++] = (abuf){o->rid, p};
}

static flow *new_flow(place *P, const dw_pkt_tcp *t, uint32_t start)
{
    flow *f = calloc(1, sizeof *f);
    if (!f || !(f->bufs = calloc(P->max_buffers + 1, sizeof *f->bufs))) {
        free(f);
        place_fail(P, "a connection's receiver", "out of memory");
        return NULL;
    }
    f->P = P;
    f->ver = t->ip_version;
    memcpy(f->src, t->src, 16);
    memcpy(f->dst, t->dst, 16);
    f->sport = t->sport;
    f->dport = t->dport;
    dw_tcpopt_rx_settings s;
    dw_tcpopt_rx_settings_default(&s);
    s.start_seq = start;
    s.store = (size_t)P->store;
    s.max_buffers = P->max_buffers;
    s.unsol_count = P->unsol_count;
    s.unsol_size = (uint32_t)P->unsol_size;
    s.rid_format = P->fmt;
    s.nfs_version = P->nfs_version;
    static const dw_tcpopt_rx_callbacks cb = {on_stream, on_placed, on_complete, NULL,
                                              on_refused, on_unknown};
    char path[4096];
    snprintf(path, sizeof path, "%s/stream-%u-%u.bin", P->dir, f->sport, f->dport);
    int rc = 0;
    if (!(f->path = strdup(path)) || !cli_outfile_open(&f->stream, NULL, f->path) ||
        (rc = dw_tcpopt_rx_new(&f->rx, &s, &cb, f))) {
        int e = errno;
        place_fail(P, f->path && !rc ? f->path : "a connection's receiver",
                   f->path && !rc ? strerror(e) : "out of memory");
        cli_outfile_abort(&f->stream);
        free(f->path);
        free(f->bufs);
        free(f);
        return NULL;
    }
    P->flows[P->nflows++] = f;
    return f;
}

/* A connection's two directions (user_data of its flow table entry). */
typedef struct conn {
    flow *dir[2];
} conn;

static void flow_free(flow *f)
{
    for (size_t i = 0; i < f->nbufs; i++)
        free(f->bufs[i].p);
    cli_outfile_abort(&f->stream);
    dw_tcpopt_rx_del(f->rx);
    free(f->path);
    free(f->bufs);
    free(f);
}

static void conn_end(dw_flowtab *t, dw_flow *f, void *u)
{
    (void)t, (void)u;
    free(f->user_data); /* the receivers are finished in order of creation */
}

/* The receiver of t's direction; made when new, for a SYN or data, while
 * fewer than MAX_FLOWS exist. */
static flow *flow_of(place *P, const dw_pkt_tcp *t, uint32_t start)
{
    int k = 0;
    dw_flow *c = dw_flowtab_find(P->conns, t, &k);
    conn *cn = c ? c->user_data : NULL;
    if (cn && cn->dir[k])
        return cn->dir[k];
    if (P->nflows >= MAX_FLOWS || !((t->flags & DW_PKT_SYN) || t->payload_len))
        return NULL;
    if (!c && (dw_flowtab_add(P->conns, t, &c, &k) || !(c->user_data = calloc(1, sizeof *cn)))) {
        place_fail(P, "a connection", "out of memory");
        return NULL;
    }
    cn = c->user_data;
    return cn->dir[k] = new_flow(P, t, start);
}

static void frame(place *P, unsigned lt, const struct pcap_pkthdr *h, const uint8_t *d)
{
    dw_pkt_tcp t;
    dw_pkt_reason why;
    P->frames++;
    int rc = dw_pkt_parse(&t, &why, lt, d, h->caplen, h->len, DW_PKT_VERIFY);
    if (rc == DW_ERR_UNSUPPORTED) {
        P->not_tcp++;
        return;
    }
    if (rc == 0 && t.payload_caplen < t.payload_len)
        P->truncated++;
    if (rc || t.payload_caplen < t.payload_len) {
        P->unreadable++;
        if (P->verbose || P->lines++ < MAX_LINES)
            printf("frame %llu: %s\n", (unsigned long long)P->frames,
                   rc ? dw_pkt_reason_str(why) : "payload cut by the capture's snap length");
        return;
    }
    int syn = (t.flags & DW_PKT_SYN) != 0;
    flow *f = flow_of(P, &t, t.seq + (uint32_t)syn);
    if (!f)
        return;
    f->segments++;
    if (t.tcp_csum == DW_PKT_CSUM_BAD || t.ip_csum == DW_PKT_CSUM_BAD) {
        f->bad_csum++;
        if (P->drop_bad)
            return;
    }
    if (dw_tcpopt_rx_segment(f->rx, t.seq + (uint32_t)syn, t.options, t.options_len,
                             t.payload, t.payload_len) == DW_ERR_NOMEM)
        place_fail(P, "a connection's receiver", "out of memory");
}

/* Writes what is still tracked, prints the report, frees the flow. */
static int finish_flow(place *P, flow *f)
{
    int bad = 0;
    dw_tcpopt_rx_stats st;
    dw_tcpopt_rx_stats_get(f->rx, &st);
    printf("flow port %u -> %u: %llu segments (%llu duplicate), %llu octets placed, "
           "%llu passed on as stream, %llu refused in %llu refusals, %llu transfers complete"
           "%s\n", f->sport, f->dport, (unsigned long long)f->segments,
           (unsigned long long)st.duplicates, (unsigned long long)st.placed,
           (unsigned long long)st.stream, (unsigned long long)st.refused,
           (unsigned long long)st.refusals, (unsigned long long)st.completed,
           st.held ? " (octets missing: the stream stops)" : "");
    if (f->bad_csum)
        printf("  %llu segments with a bad checksum\n", (unsigned long long)f->bad_csum);
    if (f->untracked)
        printf("  %zu more RIDs not listed\n", f->untracked);
    for (size_t i = 0; i < f->nseen; i++) {
        seen *s = &f->seen[i];
        dw_tcpopt_rx_xfer x;
        int tracked = dw_tcpopt_rx_transfer(f->rx, s->rid, &x) == 0;
        if (!s->complete && tracked && !s->written && x.extent)
            write_xfer(f, s, x.buf, x.extent);
        bad |= !s->complete;
        if (P->verbose || i < MAX_LINES)
            printf("  RID 0x%012llx: %s, %llu octets placed directly, %llu passed through "
                   "as stream%s\n", (unsigned long long)s->rid,
                   s->complete ? "complete" : "incomplete", (unsigned long long)s->placed,
                   (unsigned long long)s->passed, s->written ? "" : " (nothing written)");
    }
    if (!P->verbose && f->nseen > MAX_LINES)
        printf("  ... %zu transfers in all (-v lists them)\n", f->nseen);
    if (!P->fail[0] && cli_outfile_commit(&f->stream, NULL)) {
        char what[300];
        snprintf(what, sizeof what, "writing %s", f->path);
        place_fail(P, what, strerror(errno));
    }
    flow_free(f);
    return bad;
}

static int bad_option(const char *a, const char *v)
{
    fprintf(stderr, "ddpwire tcprdma place: bad option '%s%s%s'\n", a, v ? " " : "",
            v ? v : "");
    return -1;
}

static int opt_dir(void *out, const char *name, const char *v)
{
    if (!v)
        return bad_option(name, v);
    *(const char **)out = v;
    return 0;
}

static int opt_rid_format(void *out, const char *name, const char *v)
{
    static const char *const f[] = {"any", "nfs", "nfs3", "http", "cifs"};
    static const dw_tcpopt_rid_format fm[] = {DW_TCPOPT_RID_ANY, DW_TCPOPT_RID_NFS,
                                              DW_TCPOPT_RID_NFS, DW_TCPOPT_RID_HTTP,
                                              DW_TCPOPT_RID_CIFS};
    place *P = out;
    for (int k = 0; v && k < 5; k++)
        if (!strcmp(v, f[k])) {
            P->fmt = fm[k];
            P->nfs_version = k == 2 ? 3 : 0;
            return 0;
        }
    return bad_option(name, v);
}

/* --buffer RID:SIZE */
static int opt_buffer(void *out, const char *name, const char *v)
{
    place *P = out;
    const char *colon = v ? strchr(v, ':') : NULL;
    char rid[64];
    if (!colon || P->nexpl >= MAX_EXPLICIT || (size_t)(colon - v) >= sizeof rid)
        return bad_option(name, v);
    memcpy(rid, v, (size_t)(colon - v));
    rid[colon - v] = 0;
    if (cli_u64("--buffer RID", rid, 0, DW_TCPOPT_RID_MAX, &P->expl[P->nexpl].rid) ||
        cli_u64("--buffer SIZE", colon + 1, 0, 1ull << 32, &P->expl[P->nexpl].size))
        return -1;
    P->nexpl++;
    return 0;
}

/* What the table does not know: a second capture, or a bad option. */
static int place_more(void *ctx, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    (void)ctx;
    if (a[0] != '-')
        return fprintf(stderr, "ddpwire tcprdma place: one capture only ('%s')\n", a), -1;
    ++*i;
    return bad_option(a, v);
}

/* The options into P: CLI_GO to run, else the exit status. */
static int place_parse(place *P, int argc, char **argv)
{
    const cli_opt t[] = {
        CLI_FLAG("-v", &P->verbose),
        CLI_SET("--no-auto", &P->auto_reg, 0),
        CLI_FLAG("--drop-bad-checksums", &P->drop_bad),
        CLI_ARG(&P->in),
        CLI_FN("-o", &P->dir, opt_dir),
        CLI_U64("--buffer-size", &P->buffer_size, 0, 1ull << 32),
        CLI_U64("--unsol-size", &P->unsol_size, 0, UINT32_MAX),
        CLI_U64("--store", &P->store, 1, 1u << 30),
        CLI_U32("--max-buffers", &P->max_buffers, 0, 65536),
        CLI_U32("--unsol-count", &P->unsol_count, 0, 4096),
        CLI_FN("--rid-format", P, opt_rid_format),
        CLI_FN("--buffer", P, opt_buffer),
    };
    return cli_parse(argc, argv, "ddpwire tcprdma place", help, t, CLI_N(t), place_more, NULL);
}

int tcprdma_place(int argc, char **argv)
{
    static place P0;
    place *P = &P0;
    *P = (place){.buffer_size = 16u << 20, .unsol_size = 1u << 20, .store = 4u << 20,
                 .max_buffers = 64, .unsol_count = 4, .auto_reg = 1};
    int pr = place_parse(P, argc, argv);
    if (pr != CLI_GO)
        return pr;
    if (!P->in || !P->dir) {
        fprintf(stderr, "ddpwire tcprdma place: FILE.pcap and -o DIR are required\n");
        return 2;
    }
    char err[PCAP_ERRBUF_SIZE];
    errno = 0;
    pcap_t *pc = pcap_open_offline(P->in, err);
    if (!pc && errno == ENOMEM)
        return cli_cannot("ddpwire tcprdma place", P->in, "out of memory");
    if (!pc) {
        fprintf(stderr, "ddpwire tcprdma place: %s\n", err);
        return 1;
    }
    struct stat st;
    int bad = mkdir(P->dir, 0777) && errno != EEXIST;
    if (!bad && (stat(P->dir, &st) || (!S_ISDIR(st.st_mode) && (errno = ENOTDIR)) ||
                 access(P->dir, W_OK | X_OK)))
        bad = 1;
    if (bad) {
        fprintf(stderr, "ddpwire tcprdma place: -o %s: %s\n", P->dir, strerror(errno));
        pcap_close(pc);
        return 1;
    }
    dw_flowtab_settings fs;
    dw_flowtab_settings_default(&fs);
    fs.max_flows = MAX_FLOWS; /* never evicts: a connection holds a receiver */
    dw_flowtab_callbacks fcb = {conn_end};
    if (dw_flowtab_new(&P->conns, &fs, &fcb, NULL)) {
        pcap_close(pc);
        return cli_nomem("ddpwire tcprdma place", "the connection table");
    }
    unsigned lt = (unsigned)pcap_datalink(pc);
    struct pcap_pkthdr *h;
    const u_char *d;
    int rc;
    while (!P->fail[0] && (rc = pcap_next_ex(pc, &h, &d)) == 1)
        frame(P, lt, h, d);
    if (!P->fail[0] && rc == PCAP_ERROR)
        fprintf(stderr, "ddpwire tcprdma place: %s: %s\n", P->in, pcap_geterr(pc));
    pcap_close(pc);
    int incomplete = 0;
    for (size_t i = 0; i < P->nflows; i++) {
        if (P->fail[0]) /* no verdict on half the capture; stream files removed */
            flow_free(P->flows[i]);
        else
            incomplete |= finish_flow(P, P->flows[i]);
    }
    dw_flowtab_finish(P->conns);
    dw_flowtab_del(P->conns);
    if (P->fail[0]) {
        fprintf(stderr, "ddpwire tcprdma place: could not complete: %s (no verdict; "
                        "unfinished files removed)\n", P->fail);
        return CLI_EXIT_RESOURCE;
    }
    printf("%llu frames: %llu not TCP over IP, %llu unreadable (%llu cut short); "
           "%llu refusals\n", (unsigned long long)P->frames, (unsigned long long)P->not_tcp,
           (unsigned long long)P->unreadable, (unsigned long long)P->truncated,
           (unsigned long long)P->refusals);
    for (unsigned r = 0; r < 32; r++)
        if (P->reasons[r])
            printf("  %llu x %s\n", (unsigned long long)P->reasons[r],
                   dw_tcpopt_reason_str((dw_tcpopt_reason)r));
    if (cli_stdout_done("ddpwire tcprdma place"))
        return CLI_EXIT_RESOURCE;
    return rc == PCAP_ERROR || P->refusals || P->unreadable || P->io_err || incomplete ? 1 : 0;
}
