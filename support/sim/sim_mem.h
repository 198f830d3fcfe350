/* SPDX-License-Identifier: MIT */
/* The simulators' allocations, through their settings' dw_mem (NULL: the C
 * library's), as the library's objects do (<ddpwire/mem.h>); support/ links
 * the library's public API only, so these are its own. */
#ifndef DW_SIM_MEM_H
#define DW_SIM_MEM_H

#include <ddpwire/mem.h>

#include <stdint.h>
#include <stdlib.h>

static inline void *dw_sim_malloc(const dw_mem *m, size_t n)
{
    n = n ? n : 1;
    return m ? m->malloc(n, m->user_data) : malloc(n);
}

static inline void *dw_sim_calloc(const dw_mem *m, size_t k, size_t n)
{
    if (!k || !n)
        k = n = 1;
    return m ? m->calloc(k, n, m->user_data) : calloc(k, n);
}

/* NULL (p left as it was) also when k * n overflows. */
static inline void *dw_sim_realloc(const dw_mem *m, void *p, size_t k, size_t n)
{
    if (n && k > SIZE_MAX / n)
        return NULL;
    size_t b = k && n ? k * n : 1;
    return m ? m->realloc(p, b, m->user_data) : realloc(p, b);
}

static inline void dw_sim_free(const dw_mem *m, void *p)
{
    if (!p)
        return;
    if (m)
        m->free(p, m->user_data);
    else
        free(p);
}

#endif
