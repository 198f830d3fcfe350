/* SPDX-License-Identifier: MIT */
/* Internal: the dissector's per-connection state, shared by dissect.c
 * (connections, reassembly, the framing decision, MPA) and dissect_ift.c
 * (IFT, and its race beside the MPA search). */
#ifndef DW_LIB_DISSECT_INT_H
#define DW_LIB_DISSECT_INT_H

#include <ddpwire/dissect.h>

#include <stddef.h>

struct dw_dissect;

typedef struct ds_dir {
    dw_dissect_dir pub;
    struct ds_flow *flow;
    dw_reasm *reasm;
    dw_mpa_check *mpa;
    dw_ift_check *ift;
    int searching;           /* auto mode: MPA searched for, not yet found */
    /* auto mode: IFT searched for beside MPA until two frames in a row
     * with both CRCs good confirm it (start and first frame held) */
    int ift_race, ift_race_lost, race_started, race_frames;
    uint64_t gap_shown_end;  /* gaps reported before the framing was decided */
    int have_seq;
    uint32_t stream_seq;     /* sequence number of stream offset 0 */
    /* octets held at the start until the framing is decided (pre, pre_chunk) */
    size_t pre_len;
    size_t pre_chunks;
    int syn_seen;            /* the stream's start is known */
    dw_tcpopt_total ttot;    /* TCP RDMA option 3.1.4: the transfer's total */
    int ttot_set;
    int frame_seen, frame_m, frame_c, frame_r; /* its RFC 5044 frame */
    size_t nmk;              /* markers of the FPDU being checked (mk) */
    /* placement analysis: the MPA start (sequence number), its receiver */
    int pl_start_known;
    uint32_t pl_start_seq;
    dw_mpa_seg *seg;
    uint64_t pl_samples, pl_held_sum, pl_emss, pl_retrans;
    int pl_error;
    int nomem;               /* a checker of this direction said DW_ERR_NOMEM */
    /* From here on, not cleared when a connection is made (DS_DIR_CLEAR):
     * each array is written before it is read, as far as its count says
     * (nmk, pre_len, pre_chunks; race_frames, race_started). They are 17
     * KiB of a connection's 20. */
    dw_ift_check_event race_start;
    char race_detail[128];
    dw_ift_check_frame race_fr;
    uint8_t race_head[256];
    uint8_t pre[256];
    dw_reasm_chunk pre_chunk[64];
    dw_mpa_check_marker mk[136];
} ds_dir;

/* The octets of a ds_dir cleared when its connection is made. */
#define DS_DIR_CLEAR offsetof(ds_dir, race_start)

typedef struct ds_flow {
    dw_flow *f;
    struct dw_dissect *D;
    int framing_forced;      /* settings.mpa_port matched */
    dw_rdma_check *rdma;     /* DDP/RDMAP, both ways: made at the first ULPDU */
    dw_rdma_check *rdma_room; /* where, in this block (flow_new) */
    void *app;
    ds_dir d[2];             /* last: see DS_DIR_CLEAR */
} ds_flow;

struct dw_dissect {
    dw_dissect_settings s;
    dw_dissect_callbacks cb;
    void *ud;
    dw_flowtab *flows;
    uint64_t pkt, time;
    dw_dissect_stats st;
    size_t size; /* of the block: the dissector and its flow table */
};

/* Counts a problem: incomplete (the capture's) or a protocol error. */
void dw_ds_count(ds_dir *d, int incomplete);
/* A checker's return: DW_ERR_NOMEM is counted (stats.nomem), once per direction. */
void dw_ds_nomem(ds_dir *d, int rc);

/* A ULPDU found in direction d (crc_ok: its CRC good or not in use): to
 * the DDP/RDMAP checker; msg set when it decodes there. Else a loss. */
const dw_rdmap_msg *dw_ds_ulpdu(ds_dir *d, int crc_ok, const uint8_t *head, size_t head_len,
                                uint32_t ulpdu_len, const dw_rdma_check_where *at,
                                dw_rdmap_msg *msg);
void dw_ds_ulpdu_gap(ds_dir *d);

/* dissect_place.c: the placement analysis of a direction. */
void dw_ds_place_start(ds_dir *d, uint64_t start_offset);
void dw_ds_place_segment(ds_dir *d, const dw_pkt_tcp *t);
void dw_ds_place_free(ds_dir *d);
void dw_ds_place_stats(const ds_dir *d, dw_dissect_dir_stats *st);

/* dissect_ift.c: a direction's IFT checker (race: searched for beside MPA,
 * silent until confirmed), its input, its end, and the probe of a
 * stream's first octets. */
int dw_ds_ift_create(ds_dir *d, int race);
void dw_ds_ift_data(ds_dir *d, const uint8_t *p, size_t len, const dw_reasm_chunk *c);
void dw_ds_ift_gap(ds_dir *d, const dw_reasm_gap *g);
void dw_ds_ift_end(ds_dir *d);
void dw_ds_ift_race_end(ds_dir *d);
int dw_ds_ift_probe(const uint8_t *p, size_t len);

#endif
