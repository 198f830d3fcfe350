/* SPDX-License-Identifier: MIT */
/*
 * A table of the TCP connections seen in a capture: both directions of a
 * connection share one entry, found from either direction's segment in
 * O(1); the entries are kept in order of their last packet, so the one
 * idle longest is evicted first when the table is full.
 *
 * Each connection gets an id (1, 2, ... in order of first sight) and a
 * client side: the sender of a SYN without ACK, else the receiver of a
 * SYN with ACK, else the sender of the first segment seen. The caller
 * keeps its own per-connection state behind user_data; the table calls
 * on_end once for every entry it removes (eviction, dw_flowtab_end(),
 * dw_flowtab_finish()), before it frees the entry.
 *
 * No I/O, no clock. The hash table is allocated at creation; one small
 * allocation per connection.
 */
#ifndef DDPWIRE_FLOWTAB_H
#define DDPWIRE_FLOWTAB_H

#include <ddpwire/mem.h>
#include <ddpwire/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Directions of a connection. */
#define DW_FLOW_C2S 0 /* from the client */
#define DW_FLOW_S2C 1 /* from the server */

/** One connection; the table owns it, the caller may set user_data. */
typedef struct dw_flow {
    uint64_t id;
    uint8_t ip_version;
    /** [DW_FLOW_C2S] the client's address and port, [DW_FLOW_S2C] the server's. */
    uint8_t addr[2][16];
    uint16_t port[2];
    void *user_data;
} dw_flow;

typedef struct dw_flowtab dw_flowtab;

typedef struct dw_flowtab_callbacks {
    /** The entry is being removed (evicted, ended or finished). May be NULL. */
    void (*on_end)(dw_flowtab *t, dw_flow *f, void *user_data);
} dw_flowtab_callbacks;

/** The layout of dw_flowtab_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_FLOWTAB_CALLBACKS_VERSION 1

typedef struct dw_flowtab_settings {
    /** Connections held at once; adding one more evicts the oldest. */
    size_t max_flows;
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_flowtab_settings;

/** The layout of dw_flowtab_settings this header describes (see <ddpwire/common.h>). */
#define DW_FLOWTAB_SETTINGS_VERSION 1

/** Defaults: max_flows 256. */
DW_EXTERN int dw_flowtab_settings_default_versioned(int settings_version,
                                                    dw_flowtab_settings *s);
#define dw_flowtab_settings_default(s) \
    dw_flowtab_settings_default_versioned(DW_FLOWTAB_SETTINGS_VERSION, (s))

/** 0, DW_ERR_INVAL (max_flows 0 or over 2^24) or DW_ERR_NOMEM. */
DW_EXTERN int dw_flowtab_new_versioned(dw_flowtab **pt, int settings_version,
                                       const dw_flowtab_settings *s, int callbacks_version,
                                       const dw_flowtab_callbacks *cb, void *user_data);
#define dw_flowtab_new(pt, s, cb, user_data) \
    dw_flowtab_new_versioned((pt), DW_FLOWTAB_SETTINGS_VERSION, (s), \
        DW_FLOWTAB_CALLBACKS_VERSION, (cb), (user_data))

/** Frees the table and its entries without calling on_end. NULL-safe. */
DW_EXTERN void dw_flowtab_del(dw_flowtab *t);

/**
 * The connection of segment seg, or NULL when the table holds none; *dir
 * (may be NULL) says which way seg travels. The entry becomes the most
 * recently used.
 */
DW_EXTERN dw_flow *dw_flowtab_find(dw_flowtab *t, const dw_pkt_tcp *seg, int *dir);

/**
 * A new entry for seg's connection (the caller found none), evicting the
 * oldest when the table is full; *dir as above. 0, or DW_ERR_NOMEM.
 */
DW_EXTERN int dw_flowtab_add(dw_flowtab *t, const dw_pkt_tcp *seg, dw_flow **pf, int *dir);

/** Removes f now, calling on_end. */
DW_EXTERN void dw_flowtab_end(dw_flowtab *t, dw_flow *f);

/** Removes every entry in order of id, calling on_end for each. */
DW_EXTERN void dw_flowtab_finish(dw_flowtab *t);

/** Connections held now, and seen since creation. */
DW_EXTERN size_t dw_flowtab_open(const dw_flowtab *t);
DW_EXTERN uint64_t dw_flowtab_seen(const dw_flowtab *t);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_FLOWTAB_H */
