/* SPDX-License-Identifier: MIT */
/* ddpwire analyze: namespaces, veth, capture and the two sides (analyze_net.h). */
#include <ddpwire/ddp.h>
#include <ddpwire/pkt.h>

#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze_net.h"
#include "cli.h"

#define ADDR_A "10.199.9.1"
#define SIDE_ALARM_S 300 /* a stuck side dies */

static an_net *g_net; /* removed at exit and on signals */
static pid_t g_owner; /* by the process that made it, not a forked child's exit() */
static int an_res;    /* this process could not complete (memory ...): its status 5 */

int an_cannot(const char *what, const char *why)
{
    an_res = 1;
    cli_cannot("ddpwire analyze", what, why);
    return 1;
}

int an_resource_failed(void)
{
    return an_res;
}

size_t an_ddp_records(uint8_t *out, size_t cap, struct iovec *v, size_t nv, size_t len,
                      size_t maxu, uint32_t stag)
{
    const size_t h = DW_DDP_TAGGED_HDR_LEN;
    const dw_ddp_hdr msg = {.tagged = 1, .ddp_ver = DW_DDP_VERSION, .rdmap_ver = DW_RDMAP_VERSION,
                            .opcode = DW_RDMAP_WRITE, .stag = stag, .to = 0};
    size_t n = 0, used = 0, off = 0;
    if (dw_ddp_segment_count(len, maxu, 1) > nv)
        return 0;
    do {
        dw_ddp_hdr d;
        size_t at = off;
        ssize_t chunk = dw_ddp_segment_next(&d, &msg, len, &off, maxu);
        if (chunk < 0 || cap - used < h + (size_t)chunk ||
            dw_ddp_encode(out + used, h, &d) != (ssize_t)h)
            return 0;
        for (size_t i = 0; i < (size_t)chunk; i++)
            out[used + h + i] = (uint8_t)(at + i);
        v[n++] = (struct iovec){out + used, h + (size_t)chunk};
        used += h + (size_t)chunk;
    } while (off < len);
    return n;
}

const char *const an_ctr_names[AN_NCTR] = {
    "DelayedACKs", "PruneCalled", "TCPRcvCollapsed", "TCPRcvQDrop", "TCPBacklogDrop",
    "TCPOFOQueue", "RetransSegs", "TCPTimeouts", "TCPLossProbes", "TCPToZeroWindowAdv"};

/* One file of "Proto: names" / "Proto: values" line pairs. */
static void netstat_file(const char *path, uint64_t out[AN_NCTR])
{
    char names[8192], vals[8192];
    FILE *f = fopen(path, "r");
    while (f && fgets(names, sizeof names, f) && fgets(vals, sizeof vals, f)) {
        char *sn, *sv;
        char *n = strtok_r(names, " \n", &sn), *v = strtok_r(vals, " \n", &sv);
        while ((n = strtok_r(NULL, " \n", &sn)) && (v = strtok_r(NULL, " \n", &sv)))
            for (size_t i = 0; i < AN_NCTR; i++)
                if (!strcmp(n, an_ctr_names[i]))
                    out[i] = strtoull(v, NULL, 10);
    }
    if (f)
        fclose(f);
}

void an_netstat(uint64_t out[AN_NCTR])
{
    memset(out, 0, AN_NCTR * sizeof *out);
    netstat_file("/proc/net/netstat", out);
    netstat_file("/proc/net/snmp", out);
}

void an_print_ctrs(const char *who, const uint64_t a[AN_NCTR], const uint64_t b[AN_NCTR])
{
    int any = 0;
    for (size_t i = 0; i < AN_NCTR; i++)
        if (b[i] != a[i])
            printf("%s %s %llu", any++ ? "," : who, an_ctr_names[i],
                   (unsigned long long)(b[i] - a[i]));
    if (any)
        printf("\n");
}

/* Runs argv (stdout discarded); its stderr goes to err. Returns the exit
 * status (127: could not run it). */
static int run_cmd(char *const argv[], char *err, size_t errlen)
{
    int p[2];
    err[0] = 0;
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return 127;
    }
    pid_t pid = fork();
    if (pid < 0)
        snprintf(err, errlen, "fork: %s", strerror(errno));
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, STDOUT_FILENO);
        dup2(p[1], STDERR_FILENO);
        execvp(argv[0], argv);
        dprintf(p[1], "%s: %s", argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    size_t got = 0;
    ssize_t r;
    while (pid > 0 && (r = read(p[0], err + got, errlen - 1 - got)) > 0)
        got += (size_t)r;
    if (pid > 0)
        err[got] = 0;
    close(p[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return 127;
    err[strcspn(err, "\n")] = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}

/* Only root without a veth driver or namespaces cannot run here. */
static int cannot_here(const char *err)
{
    static const char *const pat[] = {"not permitted", "Permission denied", "not supported",
                                      "Unknown device type", "No such device"};
    for (size_t i = 0; i < sizeof pat / sizeof pat[0]; i++)
        if (strstr(err, pat[i]))
            return 1;
    return 0;
}

#define CMD(...) ((char *const[]){__VA_ARGS__, NULL})

static int step(char *const argv[], const char *what)
{
    char err[512];
    int rc = run_cmd(argv, err, sizeof err);
    if (!rc)
        return 0;
    /* out of memory or processes here, or in the tool run (its message) */
    if (strstr(err, strerror(ENOMEM)) || strstr(err, strerror(EAGAIN)))
        return an_cannot(what, err), CLI_EXIT_RESOURCE;
    fprintf(stderr, "ddpwire analyze: %s: %s\n", what, err[0] ? err : "failed");
    return cannot_here(err) ? 77 : 1;
}

void an_net_down(an_net *n)
{
    char err[256];
    if (!n)
        return;
    for (int i = 0; i < 2; i++)
        if (n->made_ns[i] && !run_cmd(CMD("ip", "netns", "del", n->ns[i]), err, sizeof err))
            n->made_ns[i] = 0;
    /* a veth dies with its namespace; one still in ours is removed */
    if (n->made_veth)
        run_cmd(CMD("ip", "link", "del", n->veth[0]), err, sizeof err);
    n->made_veth = 0;
    if (g_net == n)
        g_net = NULL;
}

static void at_exit(void)
{
    if (getpid() == g_owner)
        an_net_down(g_net);
}

static void on_signal(int sig)
{
    if (getpid() == g_owner)
        an_net_down(g_net);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int enter_ns(const char *ns)
{
    char p[64];
    snprintf(p, sizeof p, "/run/netns/%s", ns);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int r = setns(fd, CLONE_NEWNET);
    close(fd);
    return r;
}

/* Writes v to /proc/sys/<key> inside namespace ns. */
static int ns_sysctl(const char *ns, const char *key, const char *v)
{
    pid_t pid = fork();
    if (pid == 0) {
        char p[128];
        snprintf(p, sizeof p, "/proc/sys/%s", key);
        int fd = enter_ns(ns) ? -1 : open(p, O_WRONLY);
        _exit(fd >= 0 && write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : 1);
    }
    int st = 0;
    if (pid < 0 && cli_errno_resource(errno))
        return an_cannot("fork", strerror(errno)), CLI_EXIT_RESOURCE;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "ddpwire analyze: cannot set %s in %s\n", key, ns);
        return 1;
    }
    return 0;
}

/* Receive processing of side i's veth on side i's CPU (RPS): a sender's
 * segments then reach the peer through one backlog, in order, whichever
 * CPU sent them (its process, or its ACK processing). */
static int rps(const an_net *n, int i)
{
    char sh[160];
    if (n->cpu[i] < 0 || n->cpu[i] >= 32)
        return 0;
    snprintf(sh, sizeof sh, "echo %x > /sys/class/net/%s/queues/rx-0/rps_cpus",
             1u << n->cpu[i], n->veth[i]);
    return step(CMD("ip", "netns", "exec", (char *)n->ns[i], "sh", "-c", sh),
                "steering receive processing (RPS)");
}

static int configure(an_net *n, int timestamps)
{
    char mtu[16];
    snprintf(mtu, sizeof mtu, "%u", n->mtu);
    const char *addr[2] = {ADDR_A "/30", AN_ADDR_B "/30"};
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++) {
        char *ns = n->ns[i], *v = n->veth[i];
        rc = step(CMD("ip", "link", "set", v, "netns", ns), "moving the veth")
             || step(CMD("ip", "-n", ns, "addr", "add", (char *)addr[i], "dev", v), "address")
             || step(CMD("ip", "-n", ns, "link", "set", v, "mtu", mtu, "up"), "link up")
             || step(CMD("ip", "-n", ns, "link", "set", "lo", "up"), "loopback up")
             /* wire segments in the capture, not GSO/GRO super-packets */
             || step(CMD("ip", "netns", "exec", ns, "ethtool", "-K", v, "tso", "off", "gso",
                         "off", "gro", "off"),
                     "turning offloads off (Debian: ethtool)")
             || ns_sysctl(ns, "net/ipv4/tcp_timestamps", timestamps ? "1" : "0")
             || rps(n, i);
        if (i == 0 && !rc)
            n->made_veth = 0; /* in a namespace now: goes with it */
    }
    return rc;
}

int an_net_up(an_net *n, unsigned mtu, int timestamps)
{
    memset(n, 0, sizeof *n);
    n->mtu = mtu;
    cpu_set_t set;
    int k = 0;
    n->cpu[0] = n->cpu[1] = -1;
    if (!sched_getaffinity(0, sizeof set, &set))
        for (int c = 0; c < CPU_SETSIZE && k < 2; c++)
            if (CPU_ISSET(c, &set))
                n->cpu[k++] = c;
    if (k == 1)
        n->cpu[1] = n->cpu[0];
    if (geteuid() != 0) {
        fprintf(stderr, "ddpwire analyze: --measure needs root (network namespaces, capture)\n");
        return 77;
    }
    int pid = (int)getpid();
    snprintf(n->ns[0], sizeof n->ns[0], "dwanA.%d", pid);
    snprintf(n->ns[1], sizeof n->ns[1], "dwanB.%d", pid);
    snprintf(n->veth[0], sizeof n->veth[0], "dwna%d", pid);
    snprintf(n->veth[1], sizeof n->veth[1], "dwnb%d", pid);
    g_net = n;
    g_owner = getpid();
    static int hooked;
    if (!hooked) {
        atexit(at_exit);
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
        hooked = 1;
    }
    int rc = 0;
    for (int i = 0; i < 2 && !rc; i++)
        if (!(rc = step(CMD("ip", "netns", "add", n->ns[i]), "creating a network namespace")))
            n->made_ns[i] = 1;
    if (!rc && !(rc = step(CMD("ip", "link", "add", n->veth[0], "type", "veth", "peer", "name",
                               n->veth[1]),
                           "creating a veth pair")))
        n->made_veth = 1;
    if (!rc)
        rc = configure(n, timestamps);
    if (rc)
        an_net_down(n);
    return rc && an_res ? CLI_EXIT_RESOURCE : rc;
}

void an_ready(const an_ctx *c)
{
    char b = 'R';
    if (write(c->ready_fd, &b, 1) != 1)
        _exit(1);
}

static size_t read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    ssize_t r;
    while (got < len && ((r = read(fd, (uint8_t *)buf + got, len - got)) > 0 ||
                         (r < 0 && errno == EINTR)))
        got += r > 0 ? (size_t)r : 0;
    return got;
}

/* Waits up to ms for one octet on fd. */
static int wait_byte(int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    char b;
    return poll(&p, 1, ms) == 1 && read(fd, &b, 1) == 1 ? 0 : -1;
}

/* Capture ---------------------------------------------------------------- */

typedef struct cap_state {
    an_counts c;
    uint16_t port;
    int linktype;
    uint32_t hi[2]; /* highest sequence number sent + 1, per direction */
    int have_hi[2];
    uint32_t *start[2]; /* first octet of each data segment */
    size_t nstart[2], cap[2];
    uint64_t below[2]; /* data segments starting below hi */
    int nomem;         /* a start could not be kept: no counts */
} cap_state;

static void keep_start(cap_state *s, int dir, uint32_t seq)
{
    if (s->nstart[dir] == s->cap[dir]) {
        size_t c = s->cap[dir] ? 2 * s->cap[dir] : 4096;
        uint32_t *p = realloc(s->start[dir], c * sizeof *p);
        if (!p) {
            s->nomem = 1;
            return;
        }
        s->start[dir] = p, s->cap[dir] = c;
    }
    s->start[dir][s->nstart[dir]++] = seq;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Retransmitted: a start seen before (boundaries are kept on resending,
 * MSG_EOR); reordered: the rest of those that came below the highest. */
static void count_rexmit(cap_state *s)
{
    for (int d = 0; d < 2; d++) {
        uint64_t dup = 0;
        if (s->nstart[d])
            qsort(s->start[d], s->nstart[d], sizeof *s->start[d], cmp_u32);
        for (size_t i = 1; i < s->nstart[d]; i++)
            dup += s->start[d][i] == s->start[d][i - 1];
        s->c.d[d].rexmit = dup;
        s->c.d[d].reorder = s->below[d] > dup ? s->below[d] - dup : 0;
        free(s->start[d]);
    }
}

static void on_frame(uint8_t *u, const struct pcap_pkthdr *h, const uint8_t *f)
{
    cap_state *s = (cap_state *)u;
    dw_pkt_tcp t;
    if (dw_pkt_parse(&t, NULL, (unsigned)s->linktype, f, h->caplen, h->len, 0) ||
        (t.sport != s->port && t.dport != s->port))
        return; /* not the run's connection */
    int dir = t.dport == s->port ? 0 : 1;
    an_dir *d = &s->c.d[dir];
    d->frames++;
    d->octets += h->len;
    if (t.payload_len) {
        uint32_t end = t.seq + (uint32_t)t.payload_len;
        d->data++;
        d->payload += t.payload_len;
        if (t.payload_len > d->max_payload)
            d->max_payload = t.payload_len;
        if (s->have_hi[dir] && (int32_t)(t.seq - s->hi[dir]) < 0)
            s->below[dir]++;
        keep_start(s, dir, t.seq);
        if (!s->have_hi[dir] || (int32_t)(end - s->hi[dir]) > 0)
            s->hi[dir] = end;
        s->have_hi[dir] = 1;
    } else if (t.flags & (DW_PKT_SYN | DW_PKT_FIN | DW_PKT_RST)) {
        d->ctl++;
    } else {
        d->acks++;
    }
}

/* A failed pcap call: its message, as "could not complete" when it ran out
 * of memory (errno, or libpcap's own words for it). */
static void cap_fail(const char *dev, const char *msg, int e)
{
    char what[64];
    snprintf(what, sizeof what, "capture on %s", dev);
    if (e == ENOMEM || strstr(msg, "memory") || strstr(msg, "not enough core") ||
        strstr(msg, "alloc"))
        an_cannot(what, msg);
    else
        fprintf(stderr, "ddpwire analyze: %s: %s\n", what, msg);
}

/* No BPF filter: on_frame keeps the run's port (libpcap's filter compiler
 * exits the process when an allocation fails). */
static pcap_t *cap_open(const char *dev)
{
    char eb[PCAP_ERRBUF_SIZE];
    errno = 0;
    pcap_t *p = pcap_create(dev, eb);
    if (!p) {
        cap_fail(dev, eb, errno);
        return NULL;
    }
    pcap_set_snaplen(p, 128); /* headers only: lengths come from IP */
    pcap_set_immediate_mode(p, 1);
    pcap_set_buffer_size(p, 32 << 20);
    errno = 0;
    if (pcap_activate(p) < 0 || pcap_setnonblock(p, 1, eb)) {
        cap_fail(dev, pcap_geterr(p), errno);
        pcap_close(p);
        return NULL;
    }
    return p;
}

/* In the capture child: counts until ctl is readable, then drains and
 * writes the counts to res. */
static void cap_child(const an_net *n, uint16_t port, int ready, int ctl, int res)
{
    cap_state s = {.port = port};
    pcap_t *p = enter_ns(n->ns[1]) ? NULL : cap_open(n->veth[1]);
    if (!p)
        _exit(an_res ? CLI_EXIT_RESOURCE : 1);
    s.linktype = pcap_datalink(p);
    char b = 'R';
    if (write(ready, &b, 1) != 1)
        _exit(1);
    struct pollfd pf[2] = {{pcap_get_selectable_fd(p), POLLIN, 0}, {ctl, POLLIN, 0}};
    for (;;) {
        poll(pf, 2, 50);
        pcap_dispatch(p, -1, on_frame, (uint8_t *)&s);
        if (pf[1].revents)
            break;
    }
    while (pcap_dispatch(p, -1, on_frame, (uint8_t *)&s) > 0)
        ;
    struct pcap_stat st;
    if (!pcap_stats(p, &st))
        s.c.drops = st.ps_drop + st.ps_ifdrop;
    pcap_close(p);
    count_rexmit(&s);
    if (s.nomem) { /* the retransmission counts would be short */
        an_cannot("capture", strerror(ENOMEM));
        _exit(CLI_EXIT_RESOURCE);
    }
    _exit(write(res, &s.c, sizeof s.c) == (ssize_t)sizeof s.c ? 0 : 1);
}

/* Sides -------------------------------------------------------------------- */

typedef struct side {
    pid_t pid;
    int res; /* read end of its result pipe */
} side;

/* Forks fn into namespace ns; ready (may be -1) is the write end the
 * server signals on. */
static int side_start(side *sd, const char *ns, int cpu, an_fn fn, void *arg, uint16_t port,
                      int ready, size_t res_len)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -1;
    sd->pid = fork();
    if (sd->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(SIDE_ALARM_S);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        cpu_set_t set;
        CPU_ZERO(&set);
        if (cpu >= 0) {
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        uint8_t buf[AN_RES_MAX] = {0};
        an_ctx c = {port, ready};
        if (enter_ns(ns)) {
            fprintf(stderr, "ddpwire analyze: cannot enter %s: %s\n", ns, strerror(errno));
            _exit(1);
        }
        int rc = fn(arg, buf, &c);
        if (!rc && write(p[1], buf, res_len) != (ssize_t)res_len)
            rc = 1;
        _exit(rc && an_res ? CLI_EXIT_RESOURCE : rc ? 1 : 0);
    }
    close(p[1]);
    sd->res = p[0];
    if (sd->pid < 0 && cli_errno_resource(errno))
        return an_cannot("fork", strerror(errno)), CLI_EXIT_RESOURCE;
    return sd->pid < 0 ? 1 : 0;
}

/* A child's exit status: 0 ran to the end, CLI_EXIT_RESOURCE could not
 * complete (it said why), 1 otherwise. */
static int child_rc(int st)
{
    if (WIFEXITED(st) && WEXITSTATUS(st) == CLI_EXIT_RESOURCE)
        return CLI_EXIT_RESOURCE;
    return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

/* Collects a side's result: child_rc(), 1 also for a short result. */
static int side_end(side *sd, void *res, size_t res_len)
{
    size_t got = read_full(sd->res, res, res_len);
    close(sd->res);
    int st = 0;
    if (sd->pid > 0)
        waitpid(sd->pid, &st, 0);
    int rc = child_rc(st);
    return rc ? rc : got == res_len ? 0 : 1;
}

/* The worse of two results: could not complete over failed. */
static int worse(int a, int b)
{
    return a == CLI_EXIT_RESOURCE || b == CLI_EXIT_RESOURCE ? CLI_EXIT_RESOURCE : a ? a : b;
}

static void close2(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
}

int an_run(const an_net *n, uint16_t port, an_fn server, an_fn client, void *arg,
           void *sres, void *cres, size_t res_len, an_counts *counts)
{
    int rdy[2] = {-1, -1}, ctl[2] = {-1, -1}, res[2] = {-1, -1}, srdy[2] = {-1, -1};
    if (res_len > AN_RES_MAX || pipe2(rdy, O_CLOEXEC) || pipe2(ctl, O_CLOEXEC) ||
        pipe2(res, O_CLOEXEC) || pipe2(srdy, O_CLOEXEC)) {
        int e = errno;
        close2(rdy), close2(ctl), close2(res), close2(srdy);
        if (res_len <= AN_RES_MAX && cli_errno_resource(e))
            return an_cannot("pipe", strerror(e)), CLI_EXIT_RESOURCE;
        return 1;
    }
    fflush(stdout);
    pid_t cap = fork();
    if (cap < 0 && cli_errno_resource(errno))
        an_cannot("fork", strerror(errno));
    if (cap == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        cap_child(n, port, rdy[1], ctl[0], res[1]);
    }
    /* the children's ends: a child that dies then reads as end of file */
    close(rdy[1]), close(ctl[0]), close(res[1]);
    rdy[1] = ctl[0] = res[1] = -1;
    int rc = cap < 0 ? (an_res ? CLI_EXIT_RESOURCE : 1) : wait_byte(rdy[0], 10000) ? 1 : 0;
    side sv = {-1, -1}, cl = {-1, -1};
    if (!rc)
        rc = side_start(&sv, n->ns[1], n->cpu[1], server, arg, port, srdy[1], res_len);
    close(srdy[1]);
    srdy[1] = -1;
    if (!rc)
        rc = wait_byte(srdy[0], 10000);
    if (!rc)
        rc = side_start(&cl, n->ns[0], n->cpu[0], client, arg, port, -1, res_len);
    if (cl.res >= 0)
        rc = worse(rc, side_end(&cl, cres, res_len));
    if (rc && sv.pid > 0) { /* it may wait for a client that is gone */
        /* one that ends by itself (its result, or why it could not
         * complete: the client's failure may follow from its) says so */
        struct pollfd pf = {sv.res, POLLIN, 0};
        if (poll(&pf, 1, 1000) != 1)
            kill(sv.pid, SIGKILL);
    }
    if (sv.res >= 0)
        rc = worse(rc, side_end(&sv, sres, res_len));
    if (cap > 0) {
        usleep(300000); /* the last ACKs and FINs */
        char b = 'S';
        int st = 0;
        size_t got = write(ctl[1], &b, 1) == 1 ? read_full(res[0], counts, sizeof *counts) : 0;
        waitpid(cap, &st, 0);
        int cr = child_rc(st);
        rc = worse(rc, cr ? cr : got == sizeof *counts ? 0 : 1);
    }
    close2(rdy), close2(ctl), close2(res), close2(srdy);
    if (rc == 1)
        fprintf(stderr, "ddpwire analyze: the run on port %u failed\n", port);
    return rc;
}
