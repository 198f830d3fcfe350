/* SPDX-License-Identifier: MIT */
/* The default allocator and the helpers every allocation of lib/ goes through. */
#include "base/mem.h"

#include <stdlib.h>

static void *c_malloc(size_t n, void *u)
{
    (void)u;
    return malloc(n);
}

static void c_free(void *p, void *u)
{
    (void)u;
    free(p);
}

static void *c_calloc(size_t k, size_t n, void *u)
{
    (void)u;
    return calloc(k, n);
}

static void *c_realloc(void *p, size_t n, void *u)
{
    (void)u;
    return realloc(p, n);
}

static const dw_mem libc_mem = {NULL, c_malloc, c_free, c_calloc, c_realloc};

const dw_mem *dw_mem_default(void)
{
    return &libc_mem;
}

void *dw_mem_malloc(const dw_mem *m, size_t n)
{
    return m ? m->malloc(n ? n : 1, m->user_data) : malloc(n ? n : 1);
}

void *dw_mem_calloc(const dw_mem *m, size_t k, size_t n)
{
    if (!k || !n)
        k = n = 1;
    return m ? m->calloc(k, n, m->user_data) : calloc(k, n);
}

void *dw_mem_realloc(const dw_mem *m, void *p, size_t n)
{
    return m ? m->realloc(p, n ? n : 1, m->user_data) : realloc(p, n ? n : 1);
}

void dw_mem_free(const dw_mem *m, void *p)
{
    if (!p)
        return;
    if (m)
        m->free(p, m->user_data);
    else
        free(p);
}
