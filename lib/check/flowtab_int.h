/* SPDX-License-Identifier: MIT */
/*
 * Internal: a flow table placed in its owner's allocation (the
 * dissector's), and room for the owner's per-connection state in each
 * entry's own allocation (one allocation per connection).
 */
#ifndef DW_LIB_CHECK_FLOWTAB_INT_H
#define DW_LIB_CHECK_FLOWTAB_INT_H

#include <ddpwire/flowtab.h>

#include <stddef.h>

/* Whether dw_flowtab_new takes s's max_flows (1 .. 2^24). */
int dw_ft_settings_ok(const dw_flowtab_settings *s);
/* Octets a flow table with settings s takes (itself, its hash table). */
size_t dw_ft_size(const dw_flowtab_settings *s);
/* Makes one at t (dw_ft_size(s) octets, aligned as malloc's);
 * DW_ERR_INVAL as dw_flowtab_new. */
int dw_ft_init(dw_flowtab *t, const dw_flowtab_settings *s, const dw_flowtab_callbacks *cb,
               void *user_data);
/* Frees the entries (reporting nothing), not t itself. */
void dw_ft_fini(dw_flowtab *t);
/* Entries made from now on have room octets for the owner (dw_ft_room),
 * uninitialized, behind a redzone, freed with the entry after on_end. */
void dw_ft_set_room(dw_flowtab *t, size_t room);
void *dw_ft_room(dw_flow *f);

#endif
