/* SPDX-License-Identifier: MIT */
/*
 * The connection table: a power-of-two hash of chains keyed by the
 * unordered 4-tuple, and a doubly linked list in order of last use
 * (oldest first) for O(1) eviction.
 */
#include <ddpwire/flowtab.h>

#include "base/inline.h"
#include "base/mem.h"
#include "check/flowtab_int.h"

#include <stdlib.h>
#include <string.h>
#include "base/versioned.h"

DW_VERSIONS_1(flowtab_callbacks_v, dw_flowtab_callbacks, on_end);
DW_VERSIONS_1(flowtab_settings_v, dw_flowtab_settings, mem);

typedef struct ft_entry {
    dw_flow pub;
    size_t slot;
    struct ft_entry *next;             /* hash chain */
    struct ft_entry *lru_prev, *lru_next;
    void *room;                        /* the user's octets (dw_ft_room) */
    size_t block;                      /* octets of the entry and room */
} ft_entry;

struct dw_flowtab {
    dw_flowtab_settings s;
    dw_flowtab_callbacks cb;
    void *ud;
    ft_entry **table;
    size_t size, open;
    uint64_t seen;
    ft_entry *lru_head, *lru_tail;
    size_t block; /* octets of the flow table and its table, one block */
    size_t room;  /* the user's octets in each entry's block (dw_ft_set_room) */
};

static void entry_free(dw_flowtab *t, ft_entry *e)
{
    dw_inl_release(e, e->block);
    dw_mem_free(t->s.mem, e);
}

static void flowtab_settings_fill(dw_flowtab_settings *s)
{
    memset(s, 0, sizeof *s);
    s->max_flows = 256;
}

int dw_flowtab_settings_default_versioned(int settings_version, dw_flowtab_settings *s)
{
    dw_flowtab_settings cur;
    flowtab_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, flowtab_settings_v);
}

int dw_ft_settings_ok(const dw_flowtab_settings *s)
{
    return s->max_flows && s->max_flows <= (1u << 24);
}

static size_t buckets(const dw_flowtab_settings *s)
{
    size_t size = 64;
    while (size < 2 * s->max_flows)
        size <<= 1;
    return size;
}

size_t dw_ft_size(const dw_flowtab_settings *s)
{
    return dw_inl_round(sizeof(dw_flowtab)) + dw_inl_size(buckets(s) * sizeof(ft_entry *));
}

/* The flow table and its hash table in one block (base/inline.h). */
int dw_ft_init(dw_flowtab *t, const dw_flowtab_settings *s, const dw_flowtab_callbacks *cb,
               void *user_data)
{
    if (!dw_ft_settings_ok(s))
        return DW_ERR_INVAL;
    memset(t, 0, sizeof *t);
    t->s = *s;
    if (cb)
        t->cb = *cb;
    t->ud = user_data;
    t->size = buckets(s);
    t->block = dw_ft_size(s);
    uint8_t *at = (uint8_t *)t + dw_inl_round(sizeof *t);
    t->table = dw_inl_take(&at, t->size * sizeof *t->table);
    memset(t->table, 0, t->size * sizeof *t->table);
    return 0;
}

void dw_ft_fini(dw_flowtab *t)
{
    for (ft_entry *e = t->lru_head, *n; e; e = n) {
        n = e->lru_next;
        entry_free(t, e);
    }
    dw_inl_release(t, t->block);
}

void dw_ft_set_room(dw_flowtab *t, size_t room)
{
    t->room = room;
}

void *dw_ft_room(dw_flow *f)
{
    return ((ft_entry *)f)->room;
}

static int flowtab_new_latest(dw_flowtab **pt, const dw_flowtab_settings *s,
                              const dw_flowtab_callbacks *cb, void *user_data)
{
    dw_flowtab_settings d;
    if (!pt)
        return DW_ERR_INVAL;
    *pt = NULL;
    if (!s) {
        dw_flowtab_settings_default(&d);
        s = &d;
    }
    if (!dw_ft_settings_ok(s))
        return DW_ERR_INVAL;
    dw_flowtab *t = dw_mem_malloc(s->mem, dw_ft_size(s));
    if (!t)
        return DW_ERR_NOMEM;
    dw_ft_init(t, s, cb, user_data);
    *pt = t;
    return 0;
}

int dw_flowtab_new_versioned(dw_flowtab **pt, int settings_version,
                             const dw_flowtab_settings *s, int callbacks_version,
                             const dw_flowtab_callbacks *cb, void *user_data)
{
    dw_flowtab_settings s_cur;
    if (settings_version != DW_FLOWTAB_SETTINGS_VERSION)
        dw_flowtab_settings_default(&s_cur);
    dw_flowtab_callbacks cb_cur = {0};
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, flowtab_settings_v, err);
    DW_VERSIONED_IN(cb, cb_cur, callbacks_version, flowtab_callbacks_v, err);
    if (err)
        return err;
    return flowtab_new_latest(pt, s, cb, user_data);
}

void dw_flowtab_del(dw_flowtab *t)
{
    if (!t)
        return;
    const dw_mem *m = t->s.mem;
    dw_ft_fini(t);
    dw_mem_free(m, t);
}

/* FNV-1a over the endpoints in a fixed order, so both directions meet. */
static size_t hash_tuple(const dw_pkt_tcp *s, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    const uint8_t *a = s->src, *b = s->dst;
    uint16_t pa = s->sport, pb = s->dport;
    if (memcmp(a, b, 16) > 0 || (!memcmp(a, b, 16) && pa > pb)) {
        const uint8_t *x = a;
        a = b, b = x;
        uint16_t y = pa;
        pa = pb, pb = y;
    }
    for (int i = 0; i < 16; i++)
        h = (h ^ a[i]) * 1099511628211ull, h = (h ^ b[i]) * 1099511628211ull;
    h = (h ^ pa) * 1099511628211ull;
    h = (h ^ pb) * 1099511628211ull;
    return (size_t)(h & (uint64_t)(size - 1));
}

/* Which direction of f the segment travels, or -1 when it is not f's. */
static int match(const dw_flow *f, const dw_pkt_tcp *s)
{
    for (int k = 0; k < 2; k++)
        if (f->ip_version == s->ip_version && f->port[k] == s->sport &&
            f->port[!k] == s->dport && !memcmp(f->addr[k], s->src, 16) &&
            !memcmp(f->addr[!k], s->dst, 16))
            return k;
    return -1;
}

static void lru_unlink(dw_flowtab *t, ft_entry *e)
{
    *(e->lru_prev ? &e->lru_prev->lru_next : &t->lru_head) = e->lru_next;
    *(e->lru_next ? &e->lru_next->lru_prev : &t->lru_tail) = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_touch(dw_flowtab *t, ft_entry *e)
{
    if (t->lru_tail == e)
        return;
    if (e->lru_prev || e->lru_next || t->lru_head == e)
        lru_unlink(t, e);
    e->lru_prev = t->lru_tail;
    *(t->lru_tail ? &t->lru_tail->lru_next : &t->lru_head) = e;
    t->lru_tail = e;
}

dw_flow *dw_flowtab_find(dw_flowtab *t, const dw_pkt_tcp *seg, int *dir)
{
    if (!t || !seg)
        return NULL;
    int k = -1;
    ft_entry *e = t->table[hash_tuple(seg, t->size)];
    for (; e && (k = match(&e->pub, seg)) < 0; e = e->next)
        ;
    if (!e)
        return NULL;
    lru_touch(t, e);
    if (dir)
        *dir = k;
    return &e->pub;
}

void dw_flowtab_end(dw_flowtab *t, dw_flow *f)
{
    if (!t || !f)
        return;
    ft_entry *e = (ft_entry *)f;
    if (t->cb.on_end)
        t->cb.on_end(t, f, t->ud);
    for (ft_entry **pp = &t->table[e->slot]; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    lru_unlink(t, e);
    t->open--;
    entry_free(t, e);
}

int dw_flowtab_add(dw_flowtab *t, const dw_pkt_tcp *seg, dw_flow **pf, int *dir)
{
    if (!t || !seg || !pf)
        return DW_ERR_INVAL;
    if (t->open >= t->s.max_flows && t->lru_head)
        dw_flowtab_end(t, &t->lru_head->pub);
    /* one block: the entry and the user's room, not cleared (base/inline.h) */
    size_t head = dw_inl_round(sizeof(ft_entry));
    size_t block = head + (t->room ? dw_inl_size(t->room) : 0);
    ft_entry *e = dw_mem_malloc(t->s.mem, block);
    if (!e)
        return DW_ERR_NOMEM;
    memset(e, 0, sizeof *e);
    e->block = block;
    uint8_t *at = (uint8_t *)e + head;
    e->room = t->room ? dw_inl_take(&at, t->room) : NULL;
    /* the client sent the SYN; without one, the first packet's sender */
    int swap = (seg->flags & (DW_PKT_SYN | DW_PKT_ACK)) == (DW_PKT_SYN | DW_PKT_ACK);
    dw_flow *f = &e->pub;
    f->id = ++t->seen;
    f->ip_version = seg->ip_version;
    memcpy(f->addr[swap], seg->src, 16);
    memcpy(f->addr[!swap], seg->dst, 16);
    f->port[swap] = seg->sport;
    f->port[!swap] = seg->dport;
    e->slot = hash_tuple(seg, t->size);
    e->next = t->table[e->slot];
    t->table[e->slot] = e;
    t->open++;
    lru_touch(t, e);
    *pf = f;
    if (dir)
        *dir = swap;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const ft_entry *x = *(ft_entry *const *)a, *y = *(ft_entry *const *)b;
    return x->pub.id < y->pub.id ? -1 : x->pub.id > y->pub.id;
}

void dw_flowtab_finish(dw_flowtab *t)
{
    if (!t)
        return;
    ft_entry *few[16]; /* a few open: no allocation */
    ft_entry **all = t->open <= 16 ? few : dw_mem_malloc(t->s.mem, t->open * sizeof *all);
    if (all) {
        size_t n = 0;
        for (ft_entry *e = t->lru_head; e; e = e->lru_next)
            all[n++] = e;
        qsort(all, n, sizeof *all, by_id);
        for (size_t i = 0; i < n; i++)
            dw_flowtab_end(t, &all[i]->pub);
        if (all != few)
            dw_mem_free(t->s.mem, all);
    }
    while (t->lru_head) { /* out of memory for the list: the same order, slower */
        ft_entry *first = t->lru_head;
        for (ft_entry *e = first->lru_next; e; e = e->lru_next)
            first = e->pub.id < first->pub.id ? e : first;
        dw_flowtab_end(t, &first->pub);
    }
}

size_t dw_flowtab_open(const dw_flowtab *t)
{
    return t ? t->open : 0;
}

uint64_t dw_flowtab_seen(const dw_flowtab *t)
{
    return t ? t->seen : 0;
}
