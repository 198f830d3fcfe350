/* SPDX-License-Identifier: MIT */
/* Internal: the MPA stream checker's state, shared by lib/mpa_check*.c. */
#ifndef DW_LIB_MPA_CHECK_INT_H
#define DW_LIB_MPA_CHECK_INT_H

#include <ddpwire/mpa_check.h>
#include <ddpwire/mpa_startup.h>

#include "check/check_common.h"

/* Most ULPDU octets an FPDU record hands out. */
#define DW_CK_HEAD_MAX 256u
/* Search buffer: two of the largest FPDUs (a chain of two) and some. */
#define DW_CK_BUF_CAP (2u * DW_MPA_FPDU_MAX + 4096u)
/* Pieces of chunks the search buffer remembers (segment tags). MPA
 * leaves dw_cc_slice.tagged 0: untagged octets count as packet 0. */
#define DW_CK_DESC_CAP 4096u

/* What a framing step completed. */
enum { DW_CK_W_NONE = 0, DW_CK_W_MARKER, DW_CK_W_HDR, DW_CK_W_END };

/* FPDU parts after the leading marker. */
enum { DW_CK_P_HDR = 0, DW_CK_P_BODY, DW_CK_P_CRC };

/* One direction's FPDU framing, octet by octet, without any reporting:
 * used in sync and, on a copy, to try a candidate start. */
typedef struct dw_ck_fsm {
    uint64_t pos;      /* MPA position of the next octet */
    int markers;
    int in_fpdu;
    int part;
    uint64_t fpdu_pos; /* its first octet */
    int lead;          /* it began with a marker */
    uint32_t crc;      /* CRC32c so far */
    uint64_t missing;  /* its octets missing from the capture */
    uint8_t hold[4];   /* length or CRC field */
    unsigned held;
    int hold_missing;
    uint8_t mark[4];   /* a marker */
    int mark_missing;
    uint64_t mark_pos; /* of the last marker completed */
    uint32_t ulen, body_left, got;
    int pad_nonzero;
    uint32_t crc_wire;
    uint8_t *head;     /* NULL: keep no ULPDU octets */
    size_t head_cap, head_len;
    int head_hole;     /* a head octet was missing: stop keeping */
} dw_ck_fsm;

void dw_ck_fsm_init(dw_ck_fsm *f, uint64_t pos, int markers, uint8_t *head,
                    size_t head_cap);
/* Consumes 1..n octets (in NULL: missing octets), sets *what. */
size_t dw_ck_fsm_step(dw_ck_fsm *f, const uint8_t *in, size_t n, int *what);
/* Begins an FPDU with the marker just read as its leading marker. */
void dw_ck_fsm_lead(dw_ck_fsm *f);
/* MPA 7.1, 6.1: does FPDUPTR ptr fit the marker at mpos in f's FPDU? */
int dw_ck_marker_ok(const dw_ck_fsm *f, uint64_t mpos, uint16_t ptr,
                    uint16_t *expected);

/* Top-level states (FRAME to LOST_MK in a row: buffering() in mpa_check.c). */
enum dw_ck_state {
    DW_CK_BEFORE = 0, /* START_AT: octets before start_offset */
    DW_CK_FRAME,      /* reading an RFC 5044 frame */
    DW_CK_PEND,       /* start known, markers to be seen at position 0 */
    DW_CK_SEARCH,     /* looking for a valid FPDU chain */
    DW_CK_LOST_MK,    /* boundaries lost, waiting for a marker */
    DW_CK_SYNC,       /* in sync: streaming */
    DW_CK_DEAD        /* gave up or ended */
};

/* Trial verdicts. */
enum { DW_CK_T_REJECT = 0, DW_CK_T_ACCEPT, DW_CK_T_MORE };

struct dw_mpa_check {
    dw_mpa_check_settings set;
    dw_mpa_check_callbacks cb;
    void *user;
    dw_cc_in in;        /* input position, sequence numbers, first error */
    enum dw_ck_state state;
    int markers, crc;   /* mode in use, -1 unknown */
    int markers_given;  /* markers came from dw_mpa_check_set_mode() */
    uint64_t start_off; /* stream offset of MPA position 0 */
    int started;
    int pos_known;      /* SEARCH: MPA positions are known */
    /* in sync */
    dw_ck_fsm f;
    dw_mpa_check_fpdu rec; /* the FPDU being read */
    uint8_t head[DW_CK_HEAD_MAX];
    uint64_t next_index;
    int suspect;        /* a marker that disagrees now means lost sync */
    /* An FPDU above 64768 is kept in b from after its length field, to be
     * searched again if its CRC fails: 1 copied there as it passes, 2 in
     * place (met while replaying b) from index shadow_at */
    int shadow;
    size_t shadow_at;
    int replaying;      /* feeding octets of b */
    int moved;          /* a search again took b over while replaying it */
    const uint8_t *step_end; /* after the octets of the current framing step */

    int resync_next;    /* the next FPDU was found again */
    dw_cc_rec tr;       /* segments of the FPDU being read */
    dw_cc_slice mk_from; /* where the marker being read began */
    int mk_aligned, mk_has_pkt;
    dw_cc_buf b;        /* search buffer; SEARCH: need is the length to wait for */
    uint64_t scan;      /* SEARCH: stream offset of the next octet to try (0: b.start) */
    uint64_t cand;      /* SEARCH: stream offset of the start that waits for octets */
    uint64_t searched;  /* octets rejected by this search */
    uint64_t mk_next;   /* LOST_MK: stream offset of the next marker */
    uint64_t lost_skipped;
    dw_cc_crcs crcs;    /* CRC checkpoints over b, for the search */
    size_t size;        /* of the block: the checker and b's first arrays */
    dw_mpa_check_stats st;
    char detail[192];
};

/* lib/check/mpa_check.c */
size_t dw_ck_sync_feed(dw_mpa_check *c, const uint8_t *in, size_t n,
                       const dw_cc_slice *s);
void dw_ck_emit(dw_mpa_check *c, dw_mpa_check_event_kind kind,
                dw_mpa_error code, uint64_t off, uint32_t seq, uint64_t pkt,
                uint64_t len, const dw_mpa_startup *frame);
void dw_ck_lose(dw_mpa_check *c, uint64_t off);
void dw_ck_go_start(dw_mpa_check *c, uint64_t off, uint64_t pos, const char *how);
void dw_ck_enter_sync(dw_mpa_check *c, uint64_t off);


/* lib/check/mpa_check_search.c */
void dw_ck_buf_reset(dw_mpa_check *c, uint64_t off);
void dw_ck_buf_drop_all(dw_mpa_check *c);
size_t dw_ck_buf_put(dw_mpa_check *c, const uint8_t *in, size_t n,
                     const dw_cc_slice *s);
void dw_ck_scan(dw_mpa_check *c, int final);
/* Would a search of the whole buffer, now final, find a start? (No
 * change to the checker.) */
int dw_ck_buf_has_start(dw_mpa_check *c);

/* lib/check/mpa_check_fsm.c */
/* The first FPDU of the start at buffer index i, judged where the
 * framing puts its fields and by its CRC from the checkpoints (synced):
 * 0 when dw_ck_trial_fsm() would reject the start, 1 when it must run. */
int dw_ck_first_fpdu(const dw_mpa_check *c, size_t i, uint64_t pos, int markers,
                     int final);
/* Tries the start at buffer index i (MPA position pos): FPDU after FPDU
 * judged by their fields and CRCs from the checkpoints (synced) while the
 * layout allows, then octet by octet as dw_ck_trial_fsm. */
int dw_ck_trial(const dw_mpa_check *c, size_t i, uint64_t pos, int markers,
                int final, size_t *need, int *crc_out);
/* The same, octet by octet through the framing state machine. */
int dw_ck_trial_fsm(const dw_mpa_check *c, size_t i, uint64_t pos, int markers,
                    int final, size_t *need, int *crc_out);

#endif
