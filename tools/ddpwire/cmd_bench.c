/* SPDX-License-Identifier: MIT */
/* ddpwire bench: benchmarks with their anchors, measured in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef DW_HAVE_BENCH
#include "bench.h"
#endif

static void help(void)
{
    printf("usage: ddpwire bench crc|mpa|socket|framing|ooo [--json] [--quick]\n"
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
           "  --json   one JSON object per line\n"
           "  --quick  fewer, shorter runs (for CI smoke tests)\n"
           "  --size N  only ULPDUs / buffers of N octets (crc, mpa)\n"
           "  --anchor [IMPL:]NAME=PATH.so  (crc) also time crc32_impl() from a\n"
           "       shared object built outside the tree (a published kernel),\n"
           "       checked against the reference first; adds ratio_vs_NAME to the\n"
           "       auto row (or to IMPL's row, e.g. pclmul:NAME=...)\n");
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        help();
        return argc < 2 ? 2 : 0;
    }
#ifdef DW_HAVE_BENCH
    static dw_bench_opts o;
    int rc;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            o.json = 1;
        else if (!strcmp(argv[i], "--quick"))
            o.quick = 1;
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            o.size = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--anchor") && i + 1 < argc) {
            if (o.nanchors == DW_BENCH_ANCHORS_MAX ||
                dw_bench_anchor_load(&o.anchors[o.nanchors], argv[++i]))
                return 2;
            o.nanchors++;
        } else {
            fprintf(stderr, "ddpwire bench: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!strcmp(argv[1], "crc"))
        rc = dw_bench_crc(&o);
    else if (!strcmp(argv[1], "mpa"))
        rc = dw_bench_mpa(&o);
    else if (!strcmp(argv[1], "socket"))
        rc = dw_bench_socket(&o);
    else if (!strcmp(argv[1], "framing"))
        rc = dw_bench_framing(&o);
    else if (!strcmp(argv[1], "ooo"))
        rc = dw_bench_ooo(&o);
    else {
        fprintf(stderr, "ddpwire bench: unknown benchmark '%s'\n", argv[1]);
        rc = 2;
    }
    for (int i = 0; i < o.nanchors; i++)
        dw_bench_anchor_unload(&o.anchors[i]);
    return rc;
#else
    fprintf(stderr, "ddpwire bench: this build has no benchmarks (DW_BUILD_BENCH=OFF)\n");
    return 2;
#endif
}
