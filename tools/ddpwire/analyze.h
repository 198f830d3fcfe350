/* SPDX-License-Identifier: MIT */
/* ddpwire analyze: one sub-mode per claim of the texts (cmd_analyze.c). */
#ifndef DW_ANALYZE_H
#define DW_ANALYZE_H

/* Each: argv[0] is the mode's name. Returns the exit status. */
int analyze_buffers(int argc, char **argv);
int analyze_packing(int argc, char **argv);
int analyze_align(int argc, char **argv);

#endif
