/* SPDX-License-Identifier: MIT */
/*
 * Published CRC32c kernels loaded at run time as benchmark anchors
 * (`ddpwire bench crc --anchor [IMPL:]NAME=PATH`). PATH is a shared object
 * built outside this tree that exports
 *     uint32_t crc32_impl(uint32_t crc0, const char *buf, size_t len)
 * with the usual chaining (start from 0, feed the result back). It is
 * checked against the portable reference before it is timed. See
 * docs/PERFORMANCE.md for how the anchors used there are built.
 */
#include "bench.h"

#include <ddpwire/crc32c.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The implementation an anchor is compared with: auto unless IMPL: given. */
static int parse_vs(const char **arg)
{
    const char *colon = strchr(*arg, ':'), *eq = strchr(*arg, '=');
    if (!colon || (eq && colon > eq))
        return DW_CRC32C_AUTO;
    for (int i = 0; i < DW_CRC32C_IMPL_COUNT; i++) {
        const char *n = dw_crc32c_impl_name((dw_crc32c_impl)i);
        if (strlen(n) == (size_t)(colon - *arg) && !strncmp(*arg, n, strlen(n))) {
            *arg = colon + 1;
            return i;
        }
    }
    return -1;
}

/* Lengths 0..600 at every alignment 0..7, a few long ones, and chaining
 * from a non-zero CRC: the anchor must agree with dw_crc32c_portable. */
static int anchor_verify(dw_bench_anchor_fn fn, const char *name)
{
    static const size_t longs[] = {1023, 4096, 4097, 65536 + 13, 300000};
    uint8_t *buf = dw_bench_alloc(300000 + 64);
    int bad = 0;
    for (size_t a = 0; a < 8 && !bad; a++)
        for (size_t n = 0; n <= 600 && !bad; n++)
            bad = fn(0, (const char *)buf + a, n) != dw_crc32c_portable(0, buf + a, n);
    for (size_t i = 0; i < sizeof longs / sizeof longs[0] && !bad; i++) {
        uint32_t c = dw_crc32c_portable(0, buf, 7);
        bad = fn(c, (const char *)buf + 7, longs[i]) !=
              dw_crc32c_portable(c, buf + 7, longs[i]);
    }
    dw_bench_free(buf);
    if (bad)
        fprintf(stderr, "bench: anchor %s disagrees with the reference CRC32c; not timing it\n",
                name);
    return bad ? -1 : 0;
}

int dw_bench_anchor_load(dw_bench_anchor *a, const char *arg)
{
    memset(a, 0, sizeof *a);
    int vs = parse_vs(&arg);
    const char *eq = strchr(arg, '=');
    size_t nl = eq ? (size_t)(eq - arg) : 0;
    if (vs < 0 || !eq || !nl || nl >= sizeof a->name || !eq[1]) {
        fprintf(stderr, "bench: --anchor takes [IMPL:]NAME=PATH.so (IMPL: auto, pclmul, ...)\n");
        return -1;
    }
    memcpy(a->name, arg, nl);
    a->vs = vs;
    a->handle = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
    if (!a->handle) {
        fprintf(stderr, "bench: cannot load anchor %s: %s\n", a->name, dlerror());
        return -1;
    }
    void *sym = dlsym(a->handle, "crc32_impl");
    if (!sym) {
        fprintf(stderr, "bench: anchor %s has no crc32_impl\n", a->name);
        dlclose(a->handle);
        return -1;
    }
    memcpy(&a->fn, &sym, sizeof sym); /* object to function pointer (POSIX) */
    if (anchor_verify(a->fn, a->name)) {
        dlclose(a->handle);
        return -1;
    }
    return 0;
}

void dw_bench_anchor_unload(dw_bench_anchor *a)
{
    if (a->handle)
        dlclose(a->handle);
    a->handle = NULL;
}
