/* SPDX-License-Identifier: MIT */
/*
 * A dw_mem for allocation-failure tests: its fail_at-th call fails (0:
 * none), and live counts the blocks not yet freed.
 */
#ifndef DW_TEST_FAILING_MEM_H
#define DW_TEST_FAILING_MEM_H

#include <ddpwire/mem.h>

#include <stdlib.h>

typedef struct counting {
    unsigned long calls, fail_at; /* fail_at 0: none */
    long live;
} counting;

static inline int fails(counting *c)
{
    return ++c->calls == c->fail_at;
}

static inline void *t_malloc(size_t n, void *u)
{
    void *p = fails(u) ? NULL : malloc(n);
    ((counting *)u)->live += p != NULL;
    return p;
}

static inline void t_free(void *p, void *u)
{
    ((counting *)u)->live -= p != NULL;
    free(p);
}

static inline void *t_calloc(size_t k, size_t n, void *u)
{
    void *p = fails(u) ? NULL : calloc(k, n);
    ((counting *)u)->live += p != NULL;
    return p;
}

static inline void *t_realloc(void *p, size_t n, void *u)
{
    if (fails(u))
        return NULL;
    void *q = realloc(p, n);
    ((counting *)u)->live += q && !p;
    return q;
}

#endif
