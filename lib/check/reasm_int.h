/* SPDX-License-Identifier: MIT */
/*
 * Internal: a reassembler placed in its owner's allocation (the
 * dissector's connection) instead of one of its own. dw_ra_size octets,
 * aligned as malloc's, at the start of an inline array (base/inline.h).
 */
#ifndef DW_LIB_CHECK_REASM_INT_H
#define DW_LIB_CHECK_REASM_INT_H

#include <ddpwire/reasm.h>

#include <stddef.h>

/* Octets a reassembler with settings st takes (itself, its first table). */
size_t dw_ra_size(const dw_reasm_settings *st);
/* Makes one at r (dw_ra_size(st) octets); DW_ERR_INVAL as dw_reasm_new. */
int dw_ra_init(dw_reasm *r, const dw_reasm_settings *st, const dw_reasm_callbacks *callbacks,
               void *user_data);
/* Frees what r allocated, not r itself. */
void dw_ra_fini(dw_reasm *r);

#endif
