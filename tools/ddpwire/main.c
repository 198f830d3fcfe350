/* SPDX-License-Identifier: MIT */
/* ddpwire: the command-line tool. One subcommand per file. */
#include <ddpwire/crc32c.h>
#include <ddpwire/ddpwire.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_cmd cmds[] = {
    {"frame", cmd_frame, "records on stdin -> MPA octet stream on stdout"},
    {"deframe", cmd_deframe, "MPA octet stream on stdin -> records on stdout"},
    {"demo", cmd_demo, "frame, deframe and verify a generated workload"},
    {"listen", cmd_listen, "accept MPA connections, write the records to stdout"},
    {"send", cmd_send, "send stdin or a file as records over MPA to a listener"},
    {"perf", cmd_perf, "throughput between two hosts (iperf3-like): MPA, IFT or plain TCP"},
    {"load", cmd_load, "many concurrent connections against listen --keep-open --echo"},
    {"rping", cmd_rping, "rdma-core rping's protocol over MPA/DDP/RDMAP (client or server)"},
    {"nvmeof", cmd_nvmeof, "NVMe over Fabrics host (RDMA transport) over our iWARP"},
    {"ipoib", cmd_ipoib, "IPoIB service IDs; simulated capability matrix and pcap"},
    {"tcprdma", cmd_tcprdma, "TCP RDMA option: synth a capture | place one into files"},
    {"dump", cmd_dump, "check MPA, IFT, TCP RDMA options, IPoIB in a capture (pcap/pcapng/live)"},
    {"analyze", cmd_analyze, "the texts' claims measured: analyze buffers"},
    {"bench", cmd_bench, "benchmarks: bench crc | mpa | socket | framing | ooo [--json] [--quick]"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: ddpwire COMMAND [OPTIONS]   (ddpwire help COMMAND, ddpwire COMMAND --help)\n"
               "       ddpwire --version | --help\n\n");
    const cli_group g = {"ddpwire", "command", cmds, sizeof cmds / sizeof cmds[0], NULL, NULL};
    cli_group_list(&g, f);
    fprintf(f, "  %-9s %s\n", "help", "help COMMAND: the command's options (as COMMAND --help)");
    fprintf(f, "\nEvery command takes --help and --version. Records are a 2-octet\n"
               "big-endian length followed by that many octets.\n"
               "DDPWIRE_CRC32C=portable|sse42|pclmul|avx512|avx2 forces a CRC32c path,\n"
               "DDPWIRE_CRC32C_TUNE=generic|zen3|zen4|zen5 its tuning.\n");
}

/* Lets a user (or a comparison run) force a CRC32c implementation. */
static int apply_crc_env(void)
{
    const char *e = getenv("DDPWIRE_CRC32C");
    if (!e || !*e)
        return 0;
    for (int i = 0; i < DW_CRC32C_IMPL_COUNT; i++)
        if (!strcmp(e, dw_crc32c_impl_name((dw_crc32c_impl)i))) {
            if (dw_crc32c_set_impl((dw_crc32c_impl)i) == 0)
                return 0;
            fprintf(stderr, "ddpwire: CRC32c path '%s' is not supported here\n", e);
            return -1;
        }
    fprintf(stderr, "ddpwire: unknown DDPWIRE_CRC32C '%s'\n", e);
    return -1;
}

/* ... and a tuning (which split of folding and crc32 chains). */
static int apply_tune_env(void)
{
    const char *e = getenv("DDPWIRE_CRC32C_TUNE");
    if (!e || !*e)
        return 0;
    for (int i = 0; i < DW_CRC32C_TUNE_COUNT; i++)
        if (!strcmp(e, dw_crc32c_tuning_name((dw_crc32c_tuning)i)))
            return dw_crc32c_tuning_set((dw_crc32c_tuning)i);
    fprintf(stderr, "ddpwire: unknown DDPWIRE_CRC32C_TUNE '%s'\n", e);
    return -1;
}

int main(int argc, char **argv)
{
    const cli_group g = {"ddpwire", "command", cmds, sizeof cmds / sizeof cmds[0], usage, NULL};
    if (argc >= 2 && argv[1][0] != '-' && (apply_crc_env() || apply_tune_env()))
        return 2;
    cli_stdout_init();
    char prog[64];
    snprintf(prog, sizeof prog, "ddpwire%s%s", argc >= 2 ? " " : "", argc >= 2 ? argv[1] : "");
    return cli_stdout_finish(prog, cli_dispatch(&g, argc, argv));
}
