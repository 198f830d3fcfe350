/* SPDX-License-Identifier: MIT */
/* ddpwire bench: benchmarks with their anchors, measured in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifdef DW_HAVE_BENCH
#include "bench.h"
#endif

static void help(void)
{
    printf("usage: ddpwire bench crc|mpa|socket|framing|ooo|wire [--json] [--quick]\n"
           "       [--size N] [--anchor [IMPL:]NAME=PATH.so]...\n"
           "  crc  CRC32c: every implementation, copy+CRC, memcpy and ISA-L's\n"
           "       crc32_iscsi at 64 B .. 1 MiB (GB/s, bytes/cycle, ratios)\n"
           "  mpa  MPA framing into iovecs and in-order receive versus CRC-only\n"
           "       and memcpy at the same sizes\n"
           "  socket  MPA over loopback TCP vs plain TCP with the same write sizes:\n"
           "       throughput at 1 KiB and 16 KiB records, 64 B round-trip latency\n"
           "  framing  MPA with markers, MPA without and IFT on the same ULPDUs:\n"
           "       zero-copy and contiguous framing, iovecs per frame, receive into\n"
           "       caller buffers (64 B .. 64768 B)\n"
           "  ooo  the out-of-order segment receiver vs the in-order receiver:\n"
           "       aligned in-order and 5 %% reordered segments (segments/s, GB/s)\n"
           "  wire  (root) MPA, IFT and plain TCP (and iperf3) between two network\n"
           "       namespaces at MTU 1500 and 9000, offloads on, ends pinned: Gbit/s\n"
           "       and CPU per GB (each end's share too), medians of --repeats N (3)\n"
           "       runs of --seconds S (5; --quick: 1 run of 1 s), ratios to plain TCP\n"
           "       and to iperf3 in the same run (without iperf3 it says so and leaves\n"
           "       that column out; DDPWIRE_IPERF3=PATH for another); --mtu \"1500 9000\",\n"
           "       --modes \"plain iperf3 mpa ...\", --loss \"0.1 1\" (also with that %% of\n"
           "       segments dropped by a router); --alt PATH runs modes named MODE@alt\n"
           "       with another ddpwire (say main's), alternated with the rest: a\n"
           "       before/after in one run; exit 77 without root or namespaces\n"
           "       (runs scripts/bench_wire.sh; DDPWIRE_BENCH_WIRE=PATH for another)\n"
           "  --json   one JSON object per line\n"
           "  --quick  fewer, shorter runs (for CI smoke tests)\n"
           "  --size N  only ULPDUs / buffers of N octets (crc, mpa)\n"
           "  --anchor [IMPL:]NAME=PATH.so  (crc) also time crc32_impl() from a\n"
           "       shared object built outside the tree (a published kernel),\n"
           "       checked against the reference first; adds ratio_vs_NAME to the\n"
           "       auto row (or to IMPL's row, e.g. pclmul:NAME=...)\n");
}

/* bench wire: the script, given this very program. */
static int bench_wire(int argc, char **argv)
{
    const char *env = getenv("DDPWIRE_BENCH_WIRE"), *script = env;
    const char *cand[] = {DW_BENCH_WIRE_SRC, DW_BENCH_WIRE_INST};
    for (size_t i = 0; !script && i < 2; i++)
        if (access(cand[i], R_OK) == 0)
            script = cand[i];
    if (!script) {
        fprintf(stderr, "ddpwire bench wire: bench_wire.sh not found (set DDPWIRE_BENCH_WIRE)\n");
        return 2;
    }
    char *args[64] = {"bash", (char *)script, "/proc/self/exe"};
    int n = 3;
    for (int i = 1; i < argc && n < 63; i++)
        args[n++] = argv[i];
    args[n] = NULL;
    char self[4096];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l > 0) {
        self[l] = 0;
        args[2] = self;
    }
    execvp("bash", args);
    perror("ddpwire bench wire: bash");
    return 1;
}

#ifdef DW_HAVE_BENCH
static int anchor(void *out, const char *name, const char *v)
{
    dw_bench_opts *o = out;
    if (!v) {
        fprintf(stderr, "ddpwire bench: %s needs [IMPL:]NAME=PATH.so\n", name);
        return -1;
    }
    if (o->nanchors == DW_BENCH_ANCHORS_MAX) {
        fprintf(stderr, "ddpwire bench: at most %d anchors\n", DW_BENCH_ANCHORS_MAX);
        return -1;
    }
    if (dw_bench_anchor_load(&o->anchors[o->nanchors], v))
        return -1;
    o->nanchors++;
    return 0;
}

static const struct {
    const char *name;
    int (*run)(const dw_bench_opts *o);
} benches[] = {{"crc", dw_bench_crc},         {"mpa", dw_bench_mpa}, {"socket", dw_bench_socket},
               {"framing", dw_bench_framing}, {"ooo", dw_bench_ooo}};

/* One benchmark of this build: argv[0] names it. */
static int bench_one(int argc, char **argv)
{
    static dw_bench_opts o;
    uint64_t size = 0;
    const cli_opt t[] = {
        CLI_FLAG("--json", &o.json),
        CLI_FLAG("--quick", &o.quick),
        CLI_U64("--size", &size, 1, 1u << 20),
        CLI_FN("--anchor", &o, anchor),
    };
    for (size_t k = 0; k < sizeof benches / sizeof benches[0]; k++) {
        if (strcmp(argv[0], benches[k].name))
            continue;
        char prog[64];
        snprintf(prog, sizeof prog, "ddpwire bench %s", benches[k].name);
        int rc = cli_parse(argc, argv, prog, help, t, CLI_N(t), NULL, NULL);
        o.size = (size_t)size;
        if (rc == CLI_GO)
            rc = benches[k].run(&o);
        for (int i = 0; i < o.nanchors; i++)
            dw_bench_anchor_unload(&o.anchors[i]);
        return rc;
    }
    return 2;
}
#else
static int bench_one(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "ddpwire bench: this build has no benchmarks (DW_BUILD_BENCH=OFF)\n");
    return 2;
}
#endif

int cmd_bench(int argc, char **argv)
{
    static const cli_cmd cmds[] = {
        {"crc", bench_one, "CRC32c"},
        {"mpa", bench_one, "MPA framing and receive"},
        {"socket", bench_one, "MPA over loopback TCP"},
        {"framing", bench_one, "MPA and IFT framing"},
        {"ooo", bench_one, "the out-of-order segment receiver"},
        {"wire", bench_wire, "(root) between two network namespaces"},
    };
    const cli_group g = {"ddpwire bench", "benchmark", cmds, CLI_N(cmds), NULL, help};
    return cli_dispatch(&g, argc, argv);
}
