/* SPDX-License-Identifier: MIT */
/* ddpwire analyze: the texts' claims, measured. One mode per claim, each in
 * its own file (analyze_<mode>.c), listed in modes[]. */
#include <stdio.h>
#include <string.h>

#include "analyze.h"
#include "cli.h"

static void help(FILE *f);

static const cli_cmd modes[] = {
    {"buffers", analyze_buffers,
     "receive buffering, header-aligned vs re-segmented FPDUs (analysis text 7)"},
    {"packing", analyze_packing, "segments and ACKs with and without packing (analysis text 6)"},
    {"align", analyze_align, "segments when each holds whole FPDUs vs plain TCP (analysis text 7.2)"},
    {"placement", analyze_placement,
     "a capture's MPA connections through an MPA-aware receiver, beside the buffers model"},
};

static const cli_group group = {"ddpwire analyze", "mode", modes,
                                sizeof modes / sizeof modes[0], help, NULL};

static void help(FILE *f)
{
    fprintf(f, "usage: ddpwire analyze MODE [OPTIONS]   (ddpwire analyze MODE --help)\n\n");
    cli_group_list(&group, f);
}

int cmd_analyze(int argc, char **argv)
{
    return cli_dispatch(&group, argc, argv);
}
