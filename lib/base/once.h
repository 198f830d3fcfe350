/* SPDX-License-Identifier: MIT */
/* A table filled once, without a lock: *state is 0 (not filled), 1 (being
 * filled) or 2 (ready). The first caller fills it; the others wait until it
 * is ready. The fast path is one acquire load. */
#ifndef DW_BASE_ONCE_H
#define DW_BASE_ONCE_H

static inline void dw_once(int *state, void (*fill)(void))
{
    int z = 0;
    if (__atomic_load_n(state, __ATOMIC_ACQUIRE) == 2)
        return;
    if (__atomic_compare_exchange_n(state, &z, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        fill();
        __atomic_store_n(state, 2, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(state, __ATOMIC_ACQUIRE) != 2)
        ;
}

#endif
