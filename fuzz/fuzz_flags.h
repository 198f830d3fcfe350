/* SPDX-License-Identifier: MIT */
/*
 * Included by a fuzz target that runs with libFuzzer's entropic power
 * schedule off unless its command line says otherwise (-entropic=1): the
 * same for every runner (CI's loop, scripts/fuzz_speed.sh, fuzz_campaign).
 *
 * Why: clang 14's libFuzzer updates its feature frequencies for every
 * feature of every execution with a linear search of its list of rare
 * features, which holds every feature seen fewer than 256 times; with
 * these targets' corpora (thousands of features each) that bookkeeping
 * was 58-82 % of all CPU time (perf, docs/RELIABILITY.md), more than the
 * checks. What each input checks is unchanged: only which input libFuzzer
 * mutates next is chosen by the older schedule.
 *
 * ASan's quarantine (freed memory held back so a use after free is
 * reported) is 16 MiB here instead of 256: these targets free 20-500 KiB
 * an execution, all of it allocated in that execution, so a use after
 * free is caught as before; cycling through 256 MiB made every execution
 * fault in fresh pages (ASAN_OPTIONS still overrides it).
 */
#ifndef DW_FUZZ_FLAGS_H
#define DW_FUZZ_FLAGS_H

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    return "quarantine_size_mb=16";
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    for (int i = 1; i < *argc; i++)
        if (!strncmp((*argv)[i], "-entropic=", 10))
            return 0; /* the command line decides */
    static char off[] = "-entropic=0";
    char **v = malloc(((size_t)*argc + 2) * sizeof *v); /* lives as long as the run */
    if (!v)
        return 0;
    v[0] = (*argv)[0];
    v[1] = off; /* flags first: libFuzzer reads them wherever they are */
    memcpy(v + 2, *argv + 1, ((size_t)*argc - 1) * sizeof *v);
    v[*argc + 1] = NULL;
    ++*argc;
    *argv = v;
    return 0;
}

#endif
