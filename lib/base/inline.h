/* SPDX-License-Identifier: MIT */
/*
 * An object's first arrays carved out of its own allocation (one
 * allocation per object). Each array sits behind a redzone that ASan is
 * told about (poisoned), and so is its tail up to the next one: an
 * overrun from one array into the next, or into the object, is still
 * reported. An array that grows moves to its own allocation; its inline
 * place is poisoned then. Before the block goes back to its allocator,
 * dw_inl_release unpoisons it (the allocator may not be ASan's).
 */
#ifndef DW_BASE_INLINE_H
#define DW_BASE_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DW_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(DW_ASAN)
#define DW_ASAN 1
#endif

#ifdef DW_ASAN
#include <sanitizer/asan_interface.h>
#define DW_POISON(p, n) __asan_poison_memory_region((p), (n))
#define DW_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define DW_POISON(p, n) ((void)(p), (void)(n))
#define DW_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define DW_INL_RZ 32u /* redzone before each inline array */

static inline size_t dw_inl_round(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* Octets an inline array of n octets takes: its redzone and itself. */
static inline size_t dw_inl_size(size_t n)
{
    return DW_INL_RZ + dw_inl_round(n);
}

/* The array of n octets at *at (moved past it), fenced off. */
static inline void *dw_inl_take(uint8_t **at, size_t n)
{
    uint8_t *p = *at + DW_INL_RZ;
    DW_POISON(*at, DW_INL_RZ);
    DW_POISON(p + n, dw_inl_round(n) - n);
    *at = p + dw_inl_round(n);
    return p;
}

/* The inline array p of n octets was given up for its own allocation. */
static inline void dw_inl_drop(void *p, size_t n)
{
    DW_POISON(p, n);
}

/* realloc of p (have octets) to n octets; p0 is its inline place: from
 * there it moves to an allocation of its own, and p0 is poisoned. */
static inline void *dw_inl_regrow(const dw_mem *m, void *p, const void *p0, size_t have,
                                  size_t n)
{
    if (p != p0)
        return dw_mem_realloc(m, p, n);
    void *q = dw_mem_malloc(m, n);
    if (q) {
        memcpy(q, p, have);
        dw_inl_drop(p, have);
    }
    return q;
}

/* The block of n octets is about to be freed. */
static inline void dw_inl_release(void *blk, size_t n)
{
    DW_UNPOISON(blk, n);
}

#endif
