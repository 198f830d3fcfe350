/* SPDX-License-Identifier: MIT */
/* Internal: the IFT stream checker's state, shared by lib/ift_check*.c. */
#ifndef DW_LIB_IFT_CHECK_INT_H
#define DW_LIB_IFT_CHECK_INT_H

#include <ddpwire/ift.h>
#include <ddpwire/ift_check.h>

#include "check/check_common.h"

/* Most DDP header octets a frame record hands out. */
#define DW_IC_HEAD_MAX 256u
/* Buffer octets beyond the longest header a candidate needs. */
#define DW_IC_WINDOW 16384u
/* Pieces of segments the buffer remembers. */
#define DW_IC_DESC_CAP 8192u
/* The search accepts no DDP header shorter than this. */
#define DW_IC_MIN_HEADER 4u

enum dw_ic_state {
    DW_IC_HEAD = 0, /* in sync: sizes, header, header CRC (buffered) */
    DW_IC_BODY,     /* in sync: payload and payload CRC (streamed) */
    DW_IC_SEARCH,   /* boundaries lost: searching the buffer */
    DW_IC_DEAD      /* gave up or ended */
};

/* Trial verdicts for a header at a buffer index. */
enum { DW_IC_T_MORE = 0, DW_IC_T_OK, DW_IC_T_CRC, DW_IC_T_SIZE, DW_IC_T_SHORT };

typedef struct dw_ic_trial {
    uint16_t h, p;
    uint32_t wire, calc;
    size_t need;       /* T_MORE: buffer length needed */
} dw_ic_trial;

struct dw_ift_check {
    dw_ift_check_settings set;
    dw_ift_check_callbacks cb;
    void *user;
    dw_cc_in in;         /* input position, sequence numbers, first error */
    int end_sync;        /* ended in sync */
    int started;         /* a first frame is known (search_start: found) */
    enum dw_ic_state state;
    /* the frame being read */
    dw_ift_check_frame rec;
    int in_frame;
    uint8_t head[DW_IC_HEAD_MAX];
    uint64_t next_index;
    int resync_next;
    dw_cc_rec tr;        /* segments of the frame being read */
    uint32_t body_left;  /* payload and payload CRC octets to come */
    uint32_t pcrc;
    uint8_t crcb[4];
    int body_missing;
    dw_cc_buf b;         /* buffer; need: the length to wait for */
    dw_cc_crcs crcs;     /* CRC checkpoints over b, for the search */
    size_t size;         /* of the block: the checker and b's first arrays */
    uint64_t searched, lost_skipped;
    dw_ift_check_stats st;
    char detail[192];
};

/* lib/check/ift_check.c */
void dw_ic_emit(dw_ift_check *c, dw_ift_check_event_kind kind, dw_ift_error code,
                uint64_t off, uint64_t pkt, uint64_t len);
void dw_ic_rec_touch(dw_ift_check *c, const dw_cc_slice *s);
void dw_ic_deliver(dw_ift_check *c);
size_t dw_ic_body(dw_ift_check *c, const uint8_t *in, size_t n,
                  const dw_cc_slice *s);
void dw_ic_scan(dw_ift_check *c, int final);
void dw_ic_search_reject(dw_ift_check *c);

/* lib/check/ift_check_search.c */
void dw_ic_buf_reset(dw_ift_check *c, uint64_t off);
size_t dw_ic_buf_put(dw_ift_check *c, const uint8_t *in, size_t n,
                     const dw_cc_slice *s);
void dw_ic_buf_drop(dw_ift_check *c, size_t n, int skipped);
int dw_ic_span_tags(dw_ift_check *c, size_t i, size_t n);
int dw_ic_try(const dw_ift_check *c, size_t i, int search, dw_ic_trial *t);

#endif
