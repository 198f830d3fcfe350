/* SPDX-License-Identifier: MIT */
/*
 * A deterministic network simulator between an MPA sender and
 * the segment receiver (tests, `ddpwire analyze`, `ddpwire bench ooo`).
 *
 * It takes the sender's output (the framed octet stream and each FPDU's
 * dw_mpa_fpdu_info, whose new_segment is the sender's segmentation
 * advice) and produces the TCP segments a receiver sees, in arrival
 * order: cut aligned (one FPDU per segment, MPA 7.3), packed, or by a
 * re-segmenting middlebox (random cuts, MPA 7.4.1); with segments lost
 * and sent again under a different segmentation (MPA 7.3), reordered,
 * duplicated; and the path MTU shrinking mid-stream, after which FPDUs
 * already framed for the old EMSS are cut as a plain stream (alignment
 * lost, MPA 7.3). Everything follows from the seed.
 *
 * Time is counted in slots, one per segment first sent. The simulator
 * allocates as it builds its schedule (dw_netsim_new(), dw_netsim_recover();
 * never dw_netsim_next()), every time through settings.mem.
 *
 * Test equipment: part of the uninstalled support library ddpwire_sim
 * (support/), linked by the tests, fuzzers and the CLI; not in libddpwire.
 */
#ifndef DDPWIRE_SIM_NETSIM_H
#define DDPWIRE_SIM_NETSIM_H

#include <ddpwire/mem.h>
#include <ddpwire/mpa_seg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dw_netsim_cut {
    DW_NETSIM_ALIGNED = 0, /* one FPDU per segment; longer ones split at EMSS */
    DW_NETSIM_PACKED,      /* whole FPDUs up to EMSS, following the advice */
    DW_NETSIM_RESEG        /* random cuts of reseg_min..EMSS octets */
} dw_netsim_cut;

typedef struct dw_netsim_settings {
    uint64_t seed;
    uint32_t start_seq;    /* sequence number of stream offset 0 */
    uint32_t emss;         /* segment payload limit (default 1460) */
    dw_netsim_cut cut;
    uint32_t reseg_min;    /* shortest random cut (default 1) */
    /* Path MTU shrink: from FPDU shrink_at on (0: never) segments hold at
     * most shrink_emss octets; the shrink_queue FPDUs from there were
     * framed for the old EMSS and are cut as a plain stream. */
    size_t shrink_at;
    uint32_t shrink_emss;
    size_t shrink_queue;
    uint32_t loss_ppm;     /* each segment sent is lost with this chance (1e-6) */
    uint32_t reorder_ppm;  /* ... arrives up to reorder_max slots late */
    uint32_t dup_ppm;      /* ... arrives a second time, later */
    uint32_t reorder_max;  /* default 8 */
    uint32_t rto;          /* slots until lost segments are sent again (default 16) */
    uint32_t recut_ppm;    /* chance they go out under new cuts (default 750000) */
    /* Optional: carries every allocation of the simulator (NULL: the C
     * library's); must outlive it. */
    const dw_mem *mem;
} dw_netsim_settings;

void dw_netsim_settings_default(dw_netsim_settings *s);

typedef struct dw_netsim dw_netsim;

/* One segment as it arrives. */
typedef struct dw_netsim_seg {
    uint32_t seq;
    uint32_t len;
    uint64_t off;          /* stream offset */
    const uint8_t *data;   /* into the stream given to dw_netsim_new() */
    int retrans;           /* a retransmission (or recovery) */
} dw_netsim_seg;

typedef struct dw_netsim_stats {
    uint64_t sent;         /* segments first sent */
    uint64_t arrived;      /* segments handed out so far */
    uint64_t aligned;      /* of which beginning with an FPDU */
    uint64_t lost, reordered, duplicated, retransmitted, recovered;
} dw_netsim_stats;

/*
 * Builds the schedule for the stream wire[0, len) made of the n FPDUs
 * described by fpdus (back to back from offset 0). The stream must stay
 * valid while segments are handed out. 0, DW_ERR_INVAL or DW_ERR_NOMEM
 * (an allocation failed: nothing is left allocated, *ps is NULL).
 */
int dw_netsim_new(dw_netsim **ps, const dw_netsim_settings *set,
                  const uint8_t *wire, size_t len,
                  const dw_mpa_fpdu_info *fpdus, size_t n);
void dw_netsim_del(dw_netsim *s);

/* The next segment to arrive: 1, or 0 when none is left. */
int dw_netsim_next(dw_netsim *s, dw_netsim_seg *out);

/*
 * The receiver acknowledged everything before ack and holds the SACK
 * blocks: schedules what it lacks again (cut at EMSS, none lost), as a
 * TCP sender does after a retransmission timeout. Returns the segments
 * added (0: the receiver has everything), or DW_ERR_NOMEM when the
 * schedule could not grow: then nothing is added and the simulator is as
 * it was (what is still scheduled arrives; the call may be made again).
 */
ssize_t dw_netsim_recover(dw_netsim *s, uint32_t ack,
                          const dw_mpa_seg_range *sack, size_t nsack);

void dw_netsim_stats_get(const dw_netsim *s, dw_netsim_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_SIM_NETSIM_H */
