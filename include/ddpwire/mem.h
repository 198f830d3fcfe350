/* SPDX-License-Identifier: MIT */
/*
 * The allocator an embedder can give the library (the shape of ngtcp2_mem
 * and nghttp2_mem): every object that allocates takes one in its settings
 * (the `mem` field, NULL for the C library's) and makes every allocation of
 * its life through it. A failed allocation (NULL) makes the call that needed
 * it return DW_ERR_NOMEM and leaves the object usable or cleanly failed.
 */
#ifndef DDPWIRE_MEM_H
#define DDPWIRE_MEM_H

#include <ddpwire/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dw_mem {
    /** Passed to each function as its last argument. */
    void *user_data;
    /** As malloc(3): size octets, or NULL. */
    void *(*malloc)(size_t size, void *user_data);
    /** As free(3): ptr from this allocator, or NULL. */
    void (*free)(void *ptr, void *user_data);
    /** As calloc(3): nmemb * size zeroed octets, or NULL (also on overflow). */
    void *(*calloc)(size_t nmemb, size_t size, void *user_data);
    /** As realloc(3): NULL leaves ptr as it was. */
    void *(*realloc)(void *ptr, size_t size, void *user_data);
} dw_mem;

/** The C library's allocator (what a NULL mem means). */
DW_EXTERN const dw_mem *dw_mem_default(void);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_MEM_H */
