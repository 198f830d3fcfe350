/* SPDX-License-Identifier: MIT */
/* ddpwire analyze: one sub-mode per claim of the texts (cmd_analyze.c). */
#ifndef DW_ANALYZE_H
#define DW_ANALYZE_H

/* Each: argv[0] is the mode's name. Returns the exit status. */
int analyze_buffers(int argc, char **argv);
int analyze_packing(int argc, char **argv);
int analyze_align(int argc, char **argv);
int analyze_placement(int argc, char **argv);

#include <stddef.h>
#include <stdint.h>

/* analyze buffers' model for one connection: FPDUs of MULPDU octets at
 * this EMSS through the network simulator (aligned, or re-cut by a
 * middlebox) under this loss and reordering, into the segment receiver. */
typedef struct analyze_model {
    uint64_t ulpdus, early, held_peak;
    uint32_t ulpdu_len;
} analyze_model;

int analyze_buffers_model(uint32_t emss, size_t fpdus, uint32_t loss_ppm, uint32_t reorder_ppm,
                          int middlebox, uint64_t seed, analyze_model *out);

#endif
