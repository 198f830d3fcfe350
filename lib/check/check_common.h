/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the MPA and IFT stream checkers share. The input
 * bookkeeping of their _data()/_gap() calls and the first error; the
 * packets a record touches and the per-segment accounting (alignment,
 * packing); the buffer of octets waiting with their segment tags, and
 * CRC32c checkpoints over it for the searches.
 */
#ifndef DW_LIB_CHECK_COMMON_H
#define DW_LIB_CHECK_COMMON_H

#include <ddpwire/mem.h>
#include <ddpwire/reasm.h>

#include <stddef.h>
#include <stdint.h>

/* Where octets came from: a chunk, or a piece of one. */
typedef struct dw_cc_slice {
    uint64_t off;      /* stream offset of the first octet */
    uint64_t pkt;
    uint32_t seq;
    uint32_t len;      /* in the buffer: octets the piece covers */
    uint8_t seg_start; /* first octet begins its segment */
    uint8_t seg_end;   /* last octet ends its segment */
    uint8_t tagged;    /* from a chunk (else pkt means nothing) */
} dw_cc_slice;

/* Consumes k octets of s. */
void dw_cc_slice_advance(dw_cc_slice *s, size_t k);

/* ------------------------------------------------------------------ */
/* Input position, sequence numbers, the first error                   */
/* ------------------------------------------------------------------ */

typedef struct dw_cc_in {
    uint64_t off;       /* stream offset of the next octet fed */
    uint32_t seq0;      /* sequence number of stream offset 0 */
    int have_seq0;
    int in_cb, ended;
    int err;            /* first error code, 0 none */
    uint64_t err_off, err_pkt;
    uint64_t pkt;       /* the packet of the last chunk fed (0: none) */
} dw_cc_in;

/* Checks a _data() call (in NULL: no checker); sets s to the data's tags
 * (tagged when chunk is given). Returns < 0 a DW_ERR_*, 1 when the hole
 * before the chunk must be reported first (as *hole), else 0. */
int dw_cc_data_begin(dw_cc_in *in, const uint8_t *data, size_t len,
                     const dw_reasm_chunk *chunk, dw_cc_slice *s, dw_reasm_gap *hole);
/* Checks a _gap() call (in NULL: no checker). Returns < 0 a DW_ERR_*, 0
 * when nothing is missing, 1 with *len octets missing from in->off on
 * and their description in detail. */
int dw_cc_gap_begin(dw_cc_in *in, const dw_reasm_gap *g, uint64_t *len,
                    char *detail, size_t dsize);
/* The sequence number of stream offset off, dflt when not known. */
uint32_t dw_cc_seq(const dw_cc_in *in, uint64_t off, uint32_t dflt);
/* Notes the first error (code 0: none). */
void dw_cc_error(dw_cc_in *in, int code, uint64_t off, uint64_t pkt);

/* ------------------------------------------------------------------ */
/* Segments of the record being read                                   */
/* ------------------------------------------------------------------ */

typedef struct dw_cc_rec {
    /* the checker's record fields (dw_cc_rec_bind) */
    uint64_t *first_pkt, *last_pkt;
    uint32_t *segments;
    int *aligned, *packed;
    int have_prev;      /* the previous record touched a segment */
    uint64_t prev_last_pkt;
    /* the segment being read, for seg_with_start / seg_packed */
    int seg_valid, seg_has_start, seg_counted;
    uint64_t seg_pkt, seg_last_rec;
    unsigned seg_nrec;
    uint64_t seg_with_start, seg_packed;
} dw_cc_rec;

void dw_cc_rec_bind(dw_cc_rec *t, uint64_t *first_pkt, uint64_t *last_pkt,
                    uint32_t *segments, int *aligned, int *packed);
/* Record index begins with an octet of segment pkt (aligned: the first
 * octet of the segment). */
void dw_cc_rec_begin(dw_cc_rec *t, uint64_t index, uint64_t pkt, int aligned);
/* Record index touches segment pkt. */
void dw_cc_rec_touch(dw_cc_rec *t, uint64_t index, uint64_t pkt);
/* The record is complete: the next one is packed after it when it
 * begins in its last segment. */
void dw_cc_rec_done(dw_cc_rec *t);

/* ------------------------------------------------------------------ */
/* Buffer of octets with their segment tags (pieces)                   */
/* ------------------------------------------------------------------ */

/* buf[start, len) are stream offsets base + i; desc[dstart, dcount) the
 * pieces they came in. */
typedef struct dw_cc_buf {
    uint8_t *buf;
    size_t cap, start, len, need;
    size_t alloc; /* octets allocated so far (<= cap) */
    uint64_t base;
    dw_cc_slice *desc;
    size_t dcap, dstart, dcount;
    size_t dalloc; /* pieces allocated so far (<= dcap) */
    const dw_mem *mem;
    int nomem; /* a growth failed: what follows is not checked as it should be */
    uint64_t resets; /* dw_cc_buf_reset() calls (dw_cc_crcs_sync begins again) */
    uint8_t *buf0;     /* the first arrays, inline in the checker's block */
    dw_cc_slice *desc0;
} dw_cc_buf;

typedef struct dw_cc_crcs dw_cc_crcs;

/* Octets the first arrays of a buffer (of up to cap octets and dcap
 * pieces) and of its checkpoint ring take inline after the checker. */
size_t dw_cc_inline_size(size_t cap, size_t dcap);
/* Up to cap octets and dcap pieces, allocated as they are needed: the
 * first ones (and k's first ring) at at, dw_cc_inline_size octets in the
 * checker's own block; growing moves an array to its own allocation. */
void dw_cc_inline_init(dw_cc_buf *b, dw_cc_crcs *k, uint8_t *at, size_t cap, size_t dcap,
                       const dw_mem *m);
/* Makes room for len octets in all (at most cap); when memory runs out,
 * cap becomes what is allocated, so the buffer is full sooner, and nomem
 * is set: the checker's calls return DW_ERR_NOMEM from then on. */
void dw_cc_buf_grow(dw_cc_buf *b, size_t len);
void dw_cc_buf_free(dw_cc_buf *b);
/* Empties the buffer; the next octet put is at stream offset off. */
void dw_cc_buf_reset(dw_cc_buf *b, uint64_t off);
/* Gives up the first n buffered octets. */
void dw_cc_buf_skip(dw_cc_buf *b, size_t n);
/* Forgets the pieces wholly before buffer index start. */
void dw_cc_buf_trim(dw_cc_buf *b);
/* Moves octets from index d and the pieces in use to the front. */
void dw_cc_buf_shift(dw_cc_buf *b, size_t d);
/* Does s go on the last piece's segment? */
int dw_cc_piece_continues(const dw_cc_buf *b, const dw_cc_slice *s);
/* Notes k octets of s just put (when full: credited to the last piece). */
void dw_cc_piece_add(dw_cc_buf *b, const dw_cc_slice *s, size_t k);
/* Octets buffered from index i within one piece, with its tags; the
 * search for the piece begins at piece *d (updated). */
size_t dw_cc_piece_from(const dw_cc_buf *b, size_t *d, size_t i, dw_cc_slice *s);
size_t dw_cc_piece_at(const dw_cc_buf *b, size_t i, dw_cc_slice *s);

/* ------------------------------------------------------------------ */
/* CRC32c of buffered ranges, from checkpoints                         */
/* ------------------------------------------------------------------ */

/* The CRC32c of any buffered range [a, b) without reading it whole:
 * P(b) xor P(a) x^(8 (b - a)) mod P, where P(o) is the CRC32c from an
 * origin to stream offset o, kept every DW_CC_CP octets in a ring keyed
 * by stream offset (so compacting the buffer leaves it alone). */
#define DW_CC_CP 32u

struct dw_cc_crcs {
    uint32_t *cp;     /* cp[(o / DW_CC_CP) % n] = P(o) */
    size_t n;
    uint64_t org, end; /* P known for [org, end] */
    uint32_t run;      /* P(end) */
    uint64_t resets;   /* the buffer's resets when last synced */
    const dw_mem *mem;
    uint32_t *cp0;     /* the first ring, inline (dw_cc_inline_init) */
};

void dw_cc_crcs_free(dw_cc_crcs *k);
/* Takes in what was appended to b since the last call (lazily, before
 * ranges are asked for: octets put a few at a time cost nothing until
 * then); begins again at b's first octet when b was reset or no longer
 * holds where the last call ended (skipped). */
void dw_cc_crcs_sync(dw_cc_crcs *k, const dw_cc_buf *b);
/* CRC32c of b's octets [a, e) (buffer indexes, taken in by sync). */
uint32_t dw_cc_crcs_range(const dw_cc_crcs *k, const dw_cc_buf *b, size_t a, size_t e);

#endif
