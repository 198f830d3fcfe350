/* SPDX-License-Identifier: MIT */
/* ddpwire analyze: the texts' claims, measured. One mode per claim, each in
 * its own file (analyze_<mode>.c), listed in modes[]. */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *help;
} modes[] = {
    {"buffers", analyze_buffers,
     "receive buffering, header-aligned vs re-segmented FPDUs (analysis text 7)"},
    {"packing", analyze_packing, "segments and ACKs with and without packing (analysis text 6)"},
    {"align", analyze_align, "segments when each holds whole FPDUs vs plain TCP (analysis text 7.2)"},
    {"placement", analyze_placement,
     "a capture's MPA connections through an MPA-aware receiver, beside the buffers model"},
};

static void help(FILE *f)
{
    fprintf(f, "usage: ddpwire analyze MODE [OPTIONS]   (ddpwire analyze MODE --help)\n\n");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        fprintf(f, "  %-9s %s\n", modes[i].name, modes[i].help);
}

int cmd_analyze(int argc, char **argv)
{
    if (argc < 2) {
        help(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        help(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version"))
        return cli_version("ddpwire analyze");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(argv[1], modes[i].name))
            return modes[i].run(argc - 1, argv + 1);
    fprintf(stderr, "ddpwire analyze: unknown mode '%s'\n", argv[1]);
    return 2;
}
