/* SPDX-License-Identifier: MIT */
/*
 * Internal: a DDP/RDMAP checker placed in its owner's allocation (the
 * dissector's connection) instead of one of its own: dw_rc_size octets,
 * aligned as malloc's. It allocates nothing else: nothing to free.
 */
#ifndef DW_LIB_CHECK_RDMA_CHECK_INT_H
#define DW_LIB_CHECK_RDMA_CHECK_INT_H

#include <ddpwire/rdma_check.h>

#include <stddef.h>

size_t dw_rc_size(void);
/* Makes one at c, as dw_rdma_check_new with settings {m}. */
void dw_rc_init(dw_rdma_check *c, const dw_mem *m, const dw_rdma_check_callbacks *cb,
                void *user_data);

#endif
