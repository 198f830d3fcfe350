/* SPDX-License-Identifier: MIT */
/*
 * ddpwire nvmeof ADDR[:PORT] --nqn NQN ACTION: an NVMe over Fabrics host
 * (RDMA transport) over ddpwire's own iWARP stack: discover, identify,
 * read, write, perf. Protocol in lib/nvmeof; sockets in nvmeof_io.c;
 * this file has options, the I/O loop and printing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"
#include "cli_rec.h"
#include "nvmeof_tool.h"

typedef struct opts {
    nvt t;
    char addr[300], portbuf[16];
    const char *target, *action, *a1, *a2, *out;
    uint64_t bs, qd, read_pct, seconds;
    int seq;
} opts;

static void help(void)
{
    printf("usage: ddpwire nvmeof ADDR[:PORT] --nqn NQN ACTION [options]\n"
           "An NVMe over Fabrics host (RDMA transport) over ddpwire's iWARP (MPA/DDP/RDMAP on\n"
           "TCP, RFC 6581 start-up): no RDMA device, no rdma-core. PORT defaults to 4420.\n"
           "actions:\n"
           "  discover              the discovery controller's log (--nqn not needed)\n"
           "  identify              controller and namespace\n"
           "  read LBA COUNT        COUNT blocks from LBA to stdout or -o FILE\n"
           "  write LBA FILE        FILE (a whole number of blocks) to LBA, then Flush\n"
           "  perf                  timed random or sequential I/O: IOPS, MB/s, latency, CPU\n"
           "options:\n"
           "  --nqn NQN             the subsystem NQN\n"
           "  --hostnqn NQN         our host NQN (default: from the host id, /etc/machine-id)\n"
           "  -o FILE               read: write the blocks to FILE\n"
           "  --nsid N              namespace (default 1)\n"
           "  --queues N            I/O queues (default 1; perf spreads over them)\n"
           "  --queue-size N        entries per I/O queue (default 128)\n"
           "  --kato MS             Keep Alive Timeout (default 5000; 0: none)\n"
           "  --no-crc              do not ask for MPA CRC\n"
           "  --no-invalidate       ask for responses by Send, not Send with Invalidate\n"
           "  --delay MS            pause after each MPA start-up (siw 6.1 quirk)\n"
           "  --timeout MS          connect and bring-up limit (default 30000)\n"
           "  --json                one JSON object on stdout\n"
           "perf: --bs N (default 4096) --qd N (default 1) --read-pct N (default 100)\n"
           "      --seq (sequential; default random) --seconds N (default 5)\n"
           "exit: 0 ok, 1 failed (the protocol error is printed), 2 usage\n");
}

/* ---- the I/O engine: up to qd commands outstanding, spread over queues ---- */

typedef struct job {
    opts *o;
    uint8_t *buf; /* perf: qd slices of bs octets; read/write: the transfer */
    uint64_t lba0, nblk, next_blk, done_blk, ns_blocks, seq_pos;
    unsigned lba_size, blk_per_cmd, qd, inflight, queues;
    int write, perf, stop, err;
    int64_t end_ms;
    uint64_t *lat; /* perf: ns per command */
    size_t nlat, caplat;
    uint64_t *t_sub;
    uint8_t *is_w;
    uint64_t seed, reads, writes, octets;
} job;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* The next command of slot i: 0 and its fields, or 1 when none is left. */
static int next_cmd(job *j, unsigned i, uint64_t *lba, uint32_t *nlb, uint8_t **b, int *w)
{
    *nlb = j->blk_per_cmd;
    if (!j->perf) {
        if (j->next_blk >= j->nblk)
            return 1;
        if (*nlb > j->nblk - j->next_blk)
            *nlb = (uint32_t)(j->nblk - j->next_blk);
        *lba = j->lba0 + j->next_blk;
        *b = j->buf + j->next_blk * j->lba_size;
        j->next_blk += *nlb;
        *w = j->write;
        return 0;
    }
    if (j->stop)
        return 1;
    uint64_t slots = j->ns_blocks / *nlb;
    if (j->seq_pos >= slots)
        j->seq_pos = 0;
    *lba = (j->o->seq ? j->seq_pos++ : rnd(&j->seed) % slots) * *nlb;
    *b = j->buf + (size_t)i * *nlb * j->lba_size;
    *w = rnd(&j->seed) % 100 >= j->o->read_pct;
    return 0;
}

static int submit(job *j, unsigned i)
{
    uint64_t lba;
    uint32_t nlb;
    uint8_t *b;
    int w;
    if (next_cmd(j, i, &lba, &nlb, &b, &w))
        return 0;
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_rw(&s, w, j->o->t.nsid, lba, nlb);
    j->t_sub[i] = now_ns();
    j->is_w[i] = (uint8_t)w;
    int rc = dw_nvmeof_host_submit(j->o->t.h, (uint16_t)(1 + i % j->queues), &s,
                                   w ? DW_NVMEOF_TO_TARGET : DW_NVMEOF_FROM_TARGET, b,
                                   (size_t)nlb * j->lba_size, i);
    if (rc) {
        fprintf(stderr, "ddpwire nvmeof: submit: %s\n", dw_strerror(rc));
        j->err = 1;
        return 1;
    }
    j->inflight++;
    return 0;
}

static void on_done(nvt *t, const dw_nvmeof_done *d)
{
    job *j = t->ud;
    unsigned i = (unsigned)d->tag;
    j->inflight--;
    if (DW_NVME_STATUS(d->cqe.status)) {
        j->err = 1;
        return;
    }
    if (j->lat && j->nlat < j->caplat)
        j->lat[j->nlat++] = now_ns() - j->t_sub[i];
    j->is_w[i] ? j->writes++ : j->reads++;
    j->octets += d->cqe.status ? 0 : (uint64_t)j->blk_per_cmd * j->lba_size;
    submit(j, i);
}

static int job_done(nvt *t)
{
    job *j = t->ud;
    if (j->perf && !j->stop && cli_now_ms() >= j->end_ms)
        j->stop = 1;
    return j->err || (!j->inflight && (j->perf ? j->stop : j->next_blk >= j->nblk));
}

static int run_job(opts *o, job *j)
{
    o->t.on_done = on_done;
    o->t.ud = j;
    j->t_sub = calloc(j->qd, sizeof *j->t_sub);
    j->is_w = calloc(j->qd, 1);
    if (!j->t_sub || !j->is_w)
        return fprintf(stderr, "ddpwire nvmeof: out of memory\n"), 1;
    for (unsigned i = 0; i < j->qd && !j->err; i++)
        submit(j, i);
    int rc = nvt_wait(&o->t, job_done, -1) || j->err;
    free(j->t_sub);
    free(j->is_w);
    return rc;
}

/* ---- actions ---- */

static const dw_nvmeof_ctrl_info *info(opts *o)
{
    return dw_nvmeof_host_info(o->t.h);
}

/* Largest transfer per command: MDTS (in 4 KiB pages: CAP.MPSMIN 0) and 128 KiB. */
static unsigned max_blocks(opts *o)
{
    const dw_nvmeof_ctrl_info *in = info(o);
    uint64_t m = 128 * 1024;
    if (in->id.mdts && (4096ull << in->id.mdts) < m)
        m = 4096ull << in->id.mdts;
    return (unsigned)(m / in->ns.lba_size);
}

#define ID_TEXT                                                                              \
    "controller %{cntlid}: NVMe %{vs}, model \"%{model}\", serial \"%{serial}\", firmware "      \
    "\"%{firmware}\"\n  subsystem %{subnqn}, %{namespaces} namespace(s), MDTS %{mdts}, CAP "     \
    "0x%{cap:016x} (MQES %{mqes})\n"
#define NS_TEXT                                                                              \
    "namespace %{nsid}: %{blocks} blocks of %{block_size_octets} octets (%{size_octets} octets)\n"

static void print_identify(opts *o)
{
    const dw_nvmeof_ctrl_info *in = info(o);
    static cli_rec r;
    cli_rec_init(&r, "identify");
    cli_rec_u64(&r, "cntlid", in->cntlid);
    cli_rec_strf(&r, "vs", "%u.%u.%u", in->vs >> 16, (in->vs >> 8) & 0xff, in->vs & 0xff);
    cli_rec_u64(&r, "cap", in->cap);
    cli_rec_u64(&r, "mqes", (in->cap & 0xffff) + 1);
    cli_rec_hide(&r);
    cli_rec_str(&r, "model", in->id.mn);
    cli_rec_str(&r, "serial", in->id.sn);
    cli_rec_str(&r, "firmware", in->id.fr);
    cli_rec_str(&r, "subnqn", in->id.subnqn);
    cli_rec_u64(&r, "mdts", in->id.mdts);
    cli_rec_u64(&r, "namespaces", in->id.nn);
    if (in->have_ns) {
        cli_rec_u64(&r, "nsid", o->t.nsid);
        cli_rec_u64(&r, "blocks", in->ns.nsze);
        cli_rec_u64(&r, "block_size_octets", in->ns.lba_size);
        cli_rec_u64(&r, "size_octets", in->ns.nsze * in->ns.lba_size);
    }
    cli_rec_emit(stdout, o->t.json, &r, in->have_ns ? ID_TEXT NS_TEXT : ID_TEXT);
}

static int g_admin_done;

static void admin_done(nvt *t, const dw_nvmeof_done *d)
{
    (void)t, (void)d;
    g_admin_done = 1;
}

static int admin_cond(nvt *t)
{
    (void)t;
    return g_admin_done;
}

/* One admin command with data from the target; 0 when it succeeded. */
static int one_admin(opts *o, dw_nvmeof_sqe *s, uint8_t *buf, size_t len)
{
    o->t.on_done = admin_done;
    g_admin_done = 0;
    int rc = dw_nvmeof_host_submit(o->t.h, 0, s, DW_NVMEOF_FROM_TARGET, buf, len, 0);
    if (rc)
        return fprintf(stderr, "ddpwire nvmeof: %s\n", dw_strerror(rc)), 1;
    return nvt_wait(&o->t, admin_cond, cli_now_ms() + 30000) || o->t.failed;
}

static int act_discover(opts *o)
{
    static uint8_t log[65 * 1024];
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_get_log(&s, DW_NVME_LOG_DISCOVERY, 0, 1024, 0);
    if (one_admin(o, &s, log, 1024))
        return 1;
    dw_nvmeof_disc_hdr h;
    dw_nvmeof_disc_hdr_decode(&h, log, 1024);
    uint64_t n = h.numrec > 64 ? 64 : h.numrec;
    dw_nvmeof_sqe_get_log(&s, DW_NVME_LOG_DISCOVERY, 0, (uint32_t)(1024 * (n + 1)), 0);
    if (n && one_admin(o, &s, log, 1024 * (n + 1)))
        return 1;
    static dw_nvmeof_disc_entry e[64];
    static cli_rec r;
    cli_rec_init(&r, "discover");
    cli_rec_u64(&r, "genctr", h.genctr);
    cli_rec_u64(&r, "records", h.numrec);
    cli_rec_arr(&r, "entries");
    for (uint64_t i = 0; i < n; i++) {
        dw_nvmeof_disc_entry_decode(&e[i], log + 1024 * (i + 1), 1024);
        cli_rec_obj(&r, NULL);
        cli_rec_str(&r, "trtype", dw_nvmeof_trtype_str(e[i].trtype));
        cli_rec_str(&r, "traddr", e[i].traddr);
        cli_rec_str(&r, "trsvcid", e[i].trsvcid);
        cli_rec_str(&r, "subnqn", e[i].subnqn);
        const cli_field_u64 m[] = {{"subtype", e[i].subtype}, {"portid", e[i].portid},
                                   {"cntlid", e[i].cntlid},   {"asqsz", e[i].asqsz}};
        cli_rec_u64s(&r, m, sizeof m / sizeof m[0], 0);
        cli_rec_end(&r);
    }
    cli_rec_end(&r);
    cli_rec_emit(stdout, o->t.json, &r,
                 "discovery log: generation %{genctr}, %{records} record(s)\n");
    for (uint64_t i = 0; !o->t.json && i < n; i++)
        cli_rec_text_item(stdout, &r, "entries", (size_t)i,
                          "  %{trtype} %{traddr}:%{trsvcid} subnqn %{subnqn} (subtype %{subtype}, "
                          "portid %{portid}, cntlid 0x%{cntlid:04x}, asqsz %{asqsz})\n");
    return 0;
}

static int transfer(opts *o, int write, uint64_t lba, uint64_t count, uint8_t *buf)
{
    const dw_nvmeof_ctrl_info *in = info(o);
    if (lba >= in->ns.nsze || count > in->ns.nsze - lba)
        return fprintf(stderr, "ddpwire nvmeof: LBA %llu + %llu blocks is past the namespace's "
                       "%llu\n", (unsigned long long)lba, (unsigned long long)count,
                       (unsigned long long)in->ns.nsze), 1;
    job j = {0};
    j.o = o;
    j.buf = buf;
    j.lba0 = lba;
    j.nblk = count;
    j.lba_size = in->ns.lba_size;
    j.blk_per_cmd = max_blocks(o);
    j.qd = 8;
    j.queues = o->t.queues;
    j.write = write;
    return run_job(o, &j);
}

static int flush(opts *o)
{
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_flush(&s, o->t.nsid);
    o->t.on_done = admin_done;
    g_admin_done = 0;
    if (dw_nvmeof_host_submit(o->t.h, 1, &s, DW_NVMEOF_NONE, NULL, 0, 0))
        return 1;
    return nvt_wait(&o->t, admin_cond, cli_now_ms() + 30000) || o->t.failed;
}

/* JSON on stdout; the text on stderr (the blocks may be on stdout), unless --quiet. */
static void print_xfer(opts *o, const char *what, uint64_t lba, uint64_t n, double secs)
{
    uint64_t oct = n * info(o)->ns.lba_size;
    char rate[64];
    static cli_rec r;
    cli_rec_init(&r, what);
    cli_rec_u64(&r, "lba", lba);
    cli_rec_u64(&r, "blocks", n);
    cli_rec_u64(&r, "octets", oct);
    cli_rec_f(&r, "seconds", "%.6f", secs);
    cli_rec_textf(&r, "rate", "%s", cli_rate(rate, sizeof rate, oct, secs));
    if (o->t.json || !o->t.quiet)
        cli_rec_emit(o->t.json ? stdout : stderr, o->t.json, &r,
                     "ddpwire nvmeof: %{type} %{blocks} blocks at LBA %{lba}: %{rate}\n");
}

static int act_read(opts *o)
{
    uint64_t lba, count;
    if (!o->a1 || !o->a2 || cli_u64("LBA", o->a1, 0, UINT64_MAX, &lba) ||
        cli_u64("COUNT", o->a2, 1, 1u << 30, &count))
        return fprintf(stderr, "ddpwire nvmeof: read LBA COUNT\n"), 2;
    uint64_t oct = count * info(o)->ns.lba_size;
    uint8_t *buf = oct <= (1ull << 30) ? malloc(oct) : NULL;
    if (!buf)
        return fprintf(stderr, "ddpwire nvmeof: %llu octets: too many at once\n",
                       (unsigned long long)oct), 1;
    double t0 = cli_now();
    int rc = transfer(o, 0, lba, count, buf);
    double secs = cli_now() - t0;
    FILE *f = !rc && o->out ? fopen(o->out, "wb") : stdout;
    if (!rc && !f)
        rc = (perror(o->out), 1);
    if (!rc && (fwrite(buf, 1, oct, f) != oct || (o->out ? fclose(f) : fflush(f))))
        rc = (fprintf(stderr, "ddpwire nvmeof: writing the blocks failed\n"), 5);
    if (!rc && o->out) /* on stdout the blocks are the output */
        print_xfer(o, "read", lba, count, secs);
    free(buf);
    return rc;
}

static int act_write(opts *o)
{
    uint64_t lba;
    if (!o->a1 || !o->a2 || cli_u64("LBA", o->a1, 0, UINT64_MAX, &lba))
        return fprintf(stderr, "ddpwire nvmeof: write LBA FILE\n"), 2;
    FILE *f = fopen(o->a2, "rb");
    if (!f)
        return perror(o->a2), 1;
    uint8_t *buf = malloc(1u << 30);
    size_t n = buf ? fread(buf, 1, 1u << 30, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    unsigned bs = info(o)->ns.lba_size;
    if (bad || !n || n % bs) {
        fprintf(stderr, "ddpwire nvmeof: %s: %s\n", o->a2,
                bad ? "cannot read" : "not a whole number of blocks (nor empty)");
        free(buf);
        return 1;
    }
    double t0 = cli_now();
    int rc = transfer(o, 1, lba, n / bs, buf) || flush(o);
    if (!rc)
        print_xfer(o, "write", lba, n / bs, cli_now() - t0);
    free(buf);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(const job *j, double p)
{
    if (!j->nlat)
        return 0;
    size_t i = (size_t)(p / 100.0 * (double)(j->nlat - 1) + 0.5);
    return (double)j->lat[i] / 1000.0;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

#define PERF_TEXT                                                                            \
    "perf: %{block_size_octets}-octet %{pattern_text}, %{read_percent} %% reads, QD "            \
    "%{queue_depth} over %{queues} queue(s), %{seconds:.1f} s\n"                                 \
    "  %{ios} I/Os (%{reads} reads, %{writes} writes): %{ios_per_second:.0f} IOPS, "             \
    "%{mb_per_second:.2f} MB/s\n"                                                                \
    "  latency us: p50 %{latency_microseconds.p50:.1f}  p99 %{latency_microseconds.p99:.1f}  "   \
    "p99.9 %{latency_microseconds.p99_9:.1f}  max %{latency_microseconds.max:.1f}\n"             \
    "  CPU %{cpu_percent:.1f} %% of one core (user + system)\n"

static void print_perf(opts *o, const job *j, double secs, double cpu)
{
    uint64_t ios = j->reads + j->writes;
    static cli_rec r;
    cli_rec_init(&r, "perf");
    cli_rec_u64(&r, "block_size_octets", o->bs);
    cli_rec_u64(&r, "queue_depth", j->qd);
    cli_rec_u64(&r, "queues", j->queues);
    cli_rec_str(&r, "pattern", o->seq ? "seq" : "rand");
    cli_rec_str(&r, "pattern_text", o->seq ? "sequential" : "random");
    cli_rec_hide(&r);
    cli_rec_u64(&r, "read_percent", o->read_pct);
    cli_rec_f(&r, "seconds", "%.3f", secs);
    const cli_field_u64 m[] = {{"ios", ios}, {"reads", j->reads}, {"writes", j->writes}};
    cli_rec_u64s(&r, m, sizeof m / sizeof m[0], 0);
    cli_rec_f(&r, "ios_per_second", "%.1f", (double)ios / secs);
    cli_rec_f(&r, "octets_per_second", "%.0f", (double)j->octets / secs);
    cli_rec_f(&r, "mb_per_second", NULL, (double)j->octets / secs / 1e6);
    cli_rec_hide(&r);
    cli_rec_obj(&r, "latency_microseconds");
    cli_rec_f(&r, "p50", "%.1f", pct(j, 50));
    cli_rec_f(&r, "p99", "%.1f", pct(j, 99));
    cli_rec_f(&r, "p99_9", "%.1f", pct(j, 99.9));
    cli_rec_f(&r, "max", "%.1f", pct(j, 100));
    cli_rec_end(&r);
    cli_rec_f(&r, "cpu_percent", "%.1f", 100 * cpu / secs);
    cli_rec_emit(stdout, o->t.json, &r, PERF_TEXT);
}

static int act_perf(opts *o)
{
    const dw_nvmeof_ctrl_info *in = info(o);
    unsigned bs = in->ns.lba_size;
    if (o->bs % bs || o->bs / bs > max_blocks(o) || o->bs / bs > in->ns.nsze)
        return fprintf(stderr, "ddpwire nvmeof: --bs %llu: not a multiple of %u up to %u\n",
                       (unsigned long long)o->bs, bs, max_blocks(o) * bs), 2;
    unsigned cap = o->t.queues * dw_nvmeof_host_depth(o->t.h, 1);
    job j = {0};
    j.o = o;
    j.perf = 1;
    j.qd = (unsigned)(o->qd < cap ? o->qd : cap);
    j.queues = o->t.queues < j.qd ? o->t.queues : j.qd;
    j.lba_size = bs;
    j.blk_per_cmd = (unsigned)(o->bs / bs);
    j.ns_blocks = in->ns.nsze;
    j.seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)now_ns();
    j.caplat = (size_t)(o->seconds * 400000 < 16000000 ? o->seconds * 400000 : 16000000);
    j.buf = calloc(j.qd, o->bs);
    j.lat = malloc(j.caplat * sizeof *j.lat);
    if (!j.buf || !j.lat)
        return fprintf(stderr, "ddpwire nvmeof: out of memory\n"), free(j.buf), free(j.lat), 1;
    if (j.qd < o->qd)
        fprintf(stderr, "ddpwire nvmeof: queue depth %u (the queues take no more)\n", j.qd);
    double t0 = cli_now(), c0 = cpu_s();
    j.end_ms = cli_now_ms() + (int64_t)o->seconds * 1000;
    int rc = run_job(o, &j);
    double secs = cli_now() - t0, cpu = cpu_s() - c0;
    qsort(j.lat, j.nlat, sizeof *j.lat, cmp_u64);
    if (!rc)
        print_perf(o, &j, secs, cpu);
    free(j.buf);
    free(j.lat);
    return rc;
}

/* ADDR[:PORT], [IPv6]:PORT, or IPv6 alone. */
static int split_target(opts *o)
{
    const char *t = o->target;
    const char *c = strrchr(t, ':');
    size_t n = strlen(t);
    if (t[0] == '[') {
        const char *e = strchr(t, ']');
        if (!e)
            return -1;
        n = (size_t)(e - t - 1), t++;
        c = e[1] == ':' ? e + 1 : NULL;
    } else if (c && strchr(t, ':') != c) {
        c = NULL; /* IPv6 without brackets: no port */
    } else if (c) {
        n = (size_t)(c - t);
    }
    if (!n || n >= sizeof o->addr)
        return -1;
    memcpy(o->addr, t, n);
    o->addr[n] = 0;
    snprintf(o->portbuf, sizeof o->portbuf, "%s", c && c[1] ? c + 1 : "4420");
    o->t.host = o->addr;
    o->t.port = o->portbuf;
    return 0;
}

static int parse(opts *o, int argc, char **argv)
{
    int nocrc = 0;
    uint64_t queues = 1, qsize = 128, kato = 5000, nsid = 1, delay = 0;
    const cli_opt t[] = {
        CLI_STR("--nqn", &o->t.nqn, "an NQN"),
        CLI_STR("--hostnqn", &o->t.hostnqn, "an NQN"),
        CLI_STR("-o", &o->out, "a file"),
        CLI_U64("--nsid", &nsid, 1, 0xfffffffe),
        CLI_U64("--queues", &queues, 1, NVT_MAXQ - 1),
        CLI_U64("--queue-size", &qsize, 2, 1024),
        CLI_U64("--kato", &kato, 0, 3600000),
        CLI_FLAG("--no-crc", &nocrc),
        CLI_FLAG("--no-invalidate", &o->t.no_invalidate),
        CLI_U64("--delay", &delay, 0, 60000),
        CLI_INT("--timeout", &o->t.timeout_ms, 0, 3600000),
        CLI_FLAG("--json", &o->t.json),
        CLI_FLAG("--quiet", &o->t.quiet),
        CLI_U64("--bs", &o->bs, 512, 1u << 24),
        CLI_U64("--qd", &o->qd, 1, 1024),
        CLI_U64("--read-pct", &o->read_pct, 0, 100),
        CLI_FLAG("--seq", &o->seq),
        CLI_U64("--seconds", &o->seconds, 1, 86400),
        CLI_ARG(&o->target),
        CLI_ARG(&o->action),
        CLI_ARG(&o->a1),
        CLI_ARG(&o->a2),
    };
    int rc = cli_parse(argc, argv, "ddpwire nvmeof", help, t, CLI_N(t), NULL, NULL);
    o->t.crc = !nocrc;
    o->t.queues = (unsigned)queues;
    o->t.queue_size = (unsigned)qsize;
    o->t.kato_ms = (uint32_t)kato;
    o->t.nsid = (uint32_t)nsid;
    o->t.delay_ms = (uint32_t)delay;
    return rc;
}

int cmd_nvmeof(int argc, char **argv)
{
    static opts o;
    memset(&o, 0, sizeof o);
    o.bs = 4096, o.qd = 1, o.read_pct = 100, o.seconds = 5;
    o.t.timeout_ms = 30000;
    int rc = parse(&o, argc, argv);
    if (rc != CLI_GO)
        return rc;
    static const char *const acts[] = {"discover", "identify", "read", "write", "perf"};
    int a = -1;
    for (int i = 0; o.action && i < 5; i++)
        if (!strcmp(o.action, acts[i]))
            a = i;
    if (!o.target || a < 0 || split_target(&o))
        return fprintf(stderr, "ddpwire nvmeof: say ADDR[:PORT] and one of discover, identify, "
                       "read, write, perf (ddpwire nvmeof --help)\n"), 2;
    if (a == 0 && !o.t.nqn)
        o.t.nqn = DW_NVMEOF_DISCOVERY_NQN;
    if (!o.t.nqn)
        return fprintf(stderr, "ddpwire nvmeof: --nqn NQN is needed\n"), 2;
    if (a == 0 && strcmp(o.t.nqn, DW_NVMEOF_DISCOVERY_NQN))
        return fprintf(stderr, "ddpwire nvmeof: discover talks to %s\n", DW_NVMEOF_DISCOVERY_NQN), 2;
    if (a == 0)
        o.t.kato_ms = 0; /* a discovery connection without keep alive, as nvme-cli's */
    rc = nvt_open(&o.t, a >= 2 ? o.t.queues : 0);
    if (!rc && a >= 1 && !info(&o)->have_ns)
        rc = (fprintf(stderr, "ddpwire nvmeof: no namespace %u\n", o.t.nsid), 1);
    if (!rc) {
        int (*const fn[])(opts *) = {act_discover, NULL, act_read, act_write, act_perf};
        rc = a == 1 ? (print_identify(&o), 0) : fn[a](&o);
    }
    if (rc && o.t.failed && o.t.json) { /* the text said it on stderr already */
        static cli_rec r;
        cli_rec_init(&r, "error");
        cli_rec_str(&r, "command", acts[a]);
        cli_rec_str(&r, "error", o.t.err);
        cli_rec_json(stdout, &r);
    }
    nvt_close(&o.t);
    return rc;
}
