/* SPDX-License-Identifier: MIT */
/*
 * Internal: the segment receiver's reassembly store (lib/mpa/mpa_seg_store.c)
 * and FPDU parser (lib/mpa/mpa_seg_fsm.c), used by lib/mpa/mpa_seg.c.
 *
 * Positions are 64-bit stream offsets (octets since MPA start); MPA
 * positions are their low 32 bits, and 2^32 is a multiple of 512, so
 * marker positions are offsets that are multiples of 512 (MPA 7.1).
 */
#ifndef DW_LIB_MPA_SEG_INTERNAL_H
#define DW_LIB_MPA_SEG_INTERNAL_H

#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include <string.h>

#include "base/bytes.h"
#include "base/mem.h"
#include "mpa/mpa_internal.h"

/* ------------------------------------------------------------------ */
/* Store: held octets by stream offset, in fixed chunks                */
/* ------------------------------------------------------------------ */

#define SEG_CHUNK 128u

typedef struct seg_span {
    uint64_t a, b; /* [a, b) */
} seg_span;

typedef struct seg_store {
    uint8_t *mem;      /* nchunk chunks of SEG_CHUNK octets */
    size_t nchunk;
    uint64_t *key;     /* chunk numbers (offset / SEG_CHUNK) in use, sorted */
    uint32_t *slot;    /* key[i] lives in mem + slot[i] * SEG_CHUNK */
    size_t nused;
    uint32_t *freel;   /* free slots */
    size_t nfree;
    seg_span *held;    /* held octets: sorted, disjoint, never adjacent */
    size_t nheld, cap;
    uint64_t octets;   /* sum of held spans */
    const dw_mem *mem_; /* the allocator (mem: the octets) */
} seg_store;

/* Allocates a store of about bytes octets (0: none). 0 or DW_ERR_NOMEM. */
int dw_seg_store_init(seg_store *s, size_t bytes, const dw_mem *mem);
void dw_seg_store_fini(seg_store *s);

/* Index of the first held span with b > pos (nheld if none). */
size_t dw_seg_store_find(const seg_store *s, uint64_t pos);

/* The held span holding pos, or NULL. */
const seg_span *dw_seg_store_span(const seg_store *s, uint64_t pos);

/* Held octets at pos up to the end of their chunk and of lim: a pointer
 * and *len, or NULL when pos is not held. */
const uint8_t *dw_seg_store_piece(const seg_store *s, uint64_t pos,
                                  uint64_t lim, size_t *len);

/* Holds the octets of [a, a + n) from src that are not held yet (held ones
 * stay as they are: committed). 0, or DW_ERR_NOSPACE with nothing held. */
int dw_seg_store_put(seg_store *s, uint64_t a, const uint8_t *src, size_t n);

/* Forgets held octets in [a, b); chunks left empty are freed. Splitting a
 * span with no span slot left forgets its shorter side too (SACK
 * reneging: the caller offers those octets again). */
void dw_seg_store_drop(seg_store *s, uint64_t a, uint64_t b);

/* Store memory in use (whole chunks). */
static inline uint64_t dw_seg_store_used(const seg_store *s)
{
    return (uint64_t)s->nused * SEG_CHUNK;
}

/* ------------------------------------------------------------------ */
/* Tables of positions ahead of the in-order point, sorted by start      */
/* ------------------------------------------------------------------ */

typedef struct seg_ent {
    uint64_t start;
    uint64_t x;    /* anchors: 1 + the farthest marker naming it; placed: end */
    uint32_t ulen; /* placed: the ULPDU's length */
} seg_ent;

/* e[lo, hi) in use, sorted by start, at most cap; allocated at creation.
 * Empty: lo = hi = 0 (the fast path tests hi alone). */
typedef struct seg_tab {
    seg_ent *e;
    size_t lo, hi, cap;
} seg_tab;

/* Index of the first entry with start >= pos (hi if none). */
size_t dw_seg_tab_find(const seg_tab *t, uint64_t pos);

/* The entry at pos, or NULL. */
seg_ent *dw_seg_tab_at(const seg_tab *t, uint64_t pos);

/* A new entry at pos (none there yet), or NULL when the table is full. */
seg_ent *dw_seg_tab_add(seg_tab *t, uint64_t pos);

/* Deletes entry i; the entries with start in [a, b). */
void dw_seg_tab_del(seg_tab *t, size_t i);
void dw_seg_tab_cut(seg_tab *t, uint64_t a, uint64_t b);

/* An entry with start in [a, b)? */
static inline int dw_seg_tab_any(const seg_tab *t, uint64_t a, uint64_t b)
{
    size_t i = dw_seg_tab_find(t, a);
    return i < t->hi && t->e[i].start < b;
}

static inline size_t dw_seg_tab_len(const seg_tab *t)
{
    return t->hi - t->lo;
}

/* ------------------------------------------------------------------ */
/* FPDU parser: one FPDU from pieces of octets in stream order          */
/* ------------------------------------------------------------------ */

enum { SEG_IDLE = 0, SEG_HDR, SEG_BODY, SEG_CRC };

typedef struct seg_fsm {
    int markers, crc_on;
    uint8_t *dst;      /* 65535 octets for a ULPDU that is not in place */
    uint64_t pos;      /* next octet */
    int st;
    uint64_t fpdu;     /* the FPDU's first octet */
    uint64_t hdr;      /* its ULPDU_Length field */
    uint64_t end;      /* its end, once the length is known (else 0) */
    uint32_t crc;
    uint32_t ulen, got, body_left;
    int bad;           /* a marker did not name this FPDU (MPA 7.1) */
    uint8_t hold[4];   /* partial length or CRC field */
    unsigned held;
    uint8_t mark[4];   /* partial marker */
    unsigned mheld;
} seg_fsm;

/* A finished FPDU. */
typedef struct seg_done {
    const uint8_t *data; /* its ULPDU: in the input or in dst */
    uint32_t ulen;
    uint64_t fpdu, end;
    int crc_ok;          /* CRC matched (or CRC off) */
    int marker_ok;       /* every marker inside named this FPDU */
} seg_done;

/* Starts at pos, an FPDU boundary. */
static inline void dw_seg_fsm_reset(seg_fsm *f, uint64_t pos)
{
    f->pos = pos;
    f->st = SEG_IDLE;
    f->held = f->mheld = 0;
    f->end = 0;
}

/*
 * Consumes octets of in[0, n) (stream offset f->pos), at most up to the
 * end of the current FPDU. Returns the octets consumed; *done is set when
 * the FPDU finished (its verdict in out). A whole FPDU in the input is
 * taken in one pass, its ULPDU left in place when no marker splits it.
 */
size_t dw_seg_fsm_feed(seg_fsm *f, const uint8_t *in, size_t n, int *done,
                       seg_done *out);

/* Octets from the FPDU start at p to its ULPDU_Length field (a leading
 * marker, MPA 7.1). */
static inline unsigned dw_seg_lead(int markers, uint64_t p)
{
    return markers && p % DW_MPA_MARKER_INTERVAL == 0 ? DW_MPA_MARKER_LEN : 0;
}

/* dw_mpa_fpdu_len() inline (2^32 is a multiple of 512: the stream offset
 * pos stands for its MPA position; MPA 6, 7.1). */
static inline size_t dw_seg_fpdu_len(uint64_t pos, size_t ulen, int markers)
{
    size_t content = dw_mpa_content_len(ulen);
    if (!markers)
        return content;
    size_t n = 0, o = (size_t)(pos % DW_MPA_MARKER_INTERVAL);
    if (!o) /* a marker between FPDUs leads this one */
        n = 1, o = DW_MPA_MARKER_LEN;
    size_t room = DW_MPA_MARKER_INTERVAL - o;
    if (content > room)
        n += 1 + (content - room - 1) / (DW_MPA_MARKER_INTERVAL - DW_MPA_MARKER_LEN);
    return content + DW_MPA_MARKER_LEN * n;
}

/* MPA 7.1: the marker m at stream offset at names the FPDU that starts at
 * fpdu (draft) or, led by a marker, its ULPDU_Length at hdr (RFC 5044);
 * low two bits reserved (MPA 6.1). */
static inline int dw_seg_marker_ok(const uint8_t *m, uint64_t at, uint64_t fpdu,
                                   uint64_t hdr)
{
    uint16_t ptr = dw_get_be16(m + 2) & 0xfffc;
    if (at == fpdu)
        return ptr == 0;
    return ptr == (uint16_t)(at - fpdu) || ptr == (uint16_t)(at - hdr);
}

/* The CRC of the whole FPDU of flen octets at in (stream offset pos, its
 * ULPDU_Length at hdr) whose ULPDU markers split, its ULPDU copied to dst
 * without them (crc_on 0: the copy alone, 0 returned). */
uint32_t dw_seg_strip_copy(int crc_on, uint64_t pos, uint64_t hdr, uint32_t ulen,
                           size_t flen, const uint8_t *in, uint8_t *dst);

/* FPDUs up to this long (one marker inside at most) are taken by one CRC
 * call over their wire octets and a copy of the ULPDU around the marker,
 * not by the marker-stripping kernels (whose set-up costs more there). */
#define SEG_SHORT_FPDU DW_MPA_MARKER_INTERVAL

/* Copies the ULPDU of ulen octets at in + u (its first marker at in + m,
 * m >= u) to dst without its markers (MPA 7.1). */
static inline void dw_seg_unmark(const uint8_t *in, size_t u, size_t m,
                                 uint32_t ulen, uint8_t *dst)
{
    for (size_t got = 0; got < ulen;) {
        size_t take = m - u < ulen - got ? m - u : ulen - got;
        memcpy(dst + got, in + u, take);
        got += take;
        u = m + DW_MPA_MARKER_LEN;
        m += DW_MPA_MARKER_INTERVAL;
    }
}

/*
 * A whole FPDU at in (stream offset pos, an FPDU boundary), one pass: its
 * length, its verdict in out (its ULPDU left in place, or copied to dst
 * without markers when markers split it), or 0 when in[0, n) does not
 * hold it all. Shared by the parser and the receiver's in-order loop.
 */
static inline size_t dw_seg_whole(int markers, int crc_on, uint64_t pos,
                                  const uint8_t *in, size_t n, uint8_t *dst,
                                  seg_done *out)
{
    unsigned lead = dw_seg_lead(markers, pos);
    if (n < lead + 2u)
        return 0;
    uint32_t ulen = dw_get_be16(in + lead);
    size_t flen = dw_seg_fpdu_len(pos, ulen, markers);
    if (n < flen)
        return 0;
    uint64_t hdr = pos + lead;
    int bad = 0, inside = 0; /* inside: a marker among the ULPDU octets */
    if (markers) {
        uint64_t m = (pos + DW_MPA_MARKER_INTERVAL - 1) & ~(uint64_t)(DW_MPA_MARKER_INTERVAL - 1);
        for (; m < pos + flen; m += DW_MPA_MARKER_INTERVAL) {
            bad |= !dw_seg_marker_ok(in + (m - pos), m, pos, hdr);
            inside |= m > hdr && m < hdr + 2 + ulen;
        }
    }
    uint32_t crc = 0;
    out->data = in + lead + 2;
    if (!inside) {
        crc = crc_on ? dw_crc32c(0, in, flen - 4) : 0;
    } else if (flen <= SEG_SHORT_FPDU) { /* the CRC covers the markers (MPA 6) */
        crc = crc_on ? dw_crc32c(0, in, flen - 4) : 0;
        uint64_t m = (hdr + 2 + DW_MPA_MARKER_INTERVAL - 1) &
                     ~(uint64_t)(DW_MPA_MARKER_INTERVAL - 1);
        dw_seg_unmark(in, (size_t)(hdr + 2 - pos), (size_t)(m - pos), ulen, dst);
        out->data = dst;
    } else {
        crc = dw_seg_strip_copy(crc_on, pos, hdr, ulen, flen, in, dst);
        out->data = dst;
    }
    out->ulen = ulen;
    out->fpdu = pos;
    out->end = pos + flen;
    out->crc_ok = !crc_on || crc == dw_crc32c_load(in + flen - 4);
    out->marker_ok = !bad;
    return flen;
}

/* The FPDU start a marker at m with FPDUPTR field ptr names, or UINT64_MAX
 * when it points before the stream. The low two bits are reserved (MPA
 * 6.1). A pointer to m - 4 mod 512 + 4 is RFC 5044's reading of an FPDU
 * led by a marker (no FPDU starts 4 octets after a marker position). */
static inline uint64_t dw_seg_marker_target(uint64_t m, uint16_t ptr)
{
    ptr &= 0xfffc;
    if (ptr > m)
        return UINT64_MAX;
    uint64_t q = m - ptr;
    if (q % DW_MPA_MARKER_INTERVAL == DW_MPA_MARKER_LEN)
        q -= DW_MPA_MARKER_LEN;
    return q;
}

#endif
