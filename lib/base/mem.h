/* SPDX-License-Identifier: MIT */
/* The library's allocations, through a settings' dw_mem (NULL: libc). */
#ifndef DW_BASE_MEM_H
#define DW_BASE_MEM_H

#include <ddpwire/mem.h>

void *dw_mem_malloc(const dw_mem *m, size_t n);
void *dw_mem_calloc(const dw_mem *m, size_t nmemb, size_t size);
void *dw_mem_realloc(const dw_mem *m, void *p, size_t n);
void dw_mem_free(const dw_mem *m, void *p);

#endif
