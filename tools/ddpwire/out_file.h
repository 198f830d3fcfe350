/* SPDX-License-Identifier: MIT */
/* The CLI's output files (figures, reports): never an input; written
 * through cli_outfile (cli.h): beside the target, renamed over it only when
 * every write succeeded, so the file is complete or absent, never cut. */
#ifndef DW_OUT_FILE_H
#define DW_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

typedef struct out_file {
    FILE *f;
    cli_outfile o;
} out_file;

/* Whether path names one of the inputs (the same name or file). */
int out_file_is_input(const char *path, const char *const *inputs, size_t ninputs);
/* Refuses (-1, said on stderr with who and opt) when path names one of
 * the inputs; else creates the temporary file: 0, -1 after "WHO: OPT PATH:
 * why", or CLI_EXIT_RESOURCE after "WHO: could not complete: creating PATH". */
int out_file_open(out_file *o, const char *path, const char *const *inputs, size_t ninputs,
                  const char *who, const char *opt);
/* Flushes, syncs and renames into place: 0; or removes what was written
 * and says why: CLI_EXIT_RESOURCE. */
int out_file_commit(out_file *o, const char *who);
/* Removes the temporary file (NULL-safe after a failed open). */
void out_file_abort(out_file *o);

#endif
