/* SPDX-License-Identifier: MIT */
/*
 * The ddpwire Wireshark plugin: what the library's dissector
 * (<ddpwire/dissect.h>) found, kept per frame.
 *
 * Wireshark's first pass hands every frame in order to ddw_feed(), which
 * runs the library's dissector over it (exactly what `ddpwire dump`
 * does) and files each FPDU, IFT frame, event and summary under the
 * frame it names (its packet number), which may be an earlier frame. Later
 * passes (clicking a frame, tshark -2) only read what was filed: nothing
 * is recomputed out of order. Records live in Wireshark's file scope;
 * the library's state is per open connection.
 */
#ifndef DDW_H
#define DDW_H

#include <ddpwire/dissect.h>

#include <stdint.h>

/* A connection as shown (file scope: outlives the library's flow). */
typedef struct ddw_conn {
    uint64_t id;
    uint8_t ip_version;
    uint8_t addr[2][16];
    uint16_t port[2];
    /* Per direction: framing, MPA mode (-1 unknown), start-up frames. */
    dw_dissect_framing framing[2];
    int8_t markers[2], crc[2];
    uint8_t startup[2]; /* 1 an RFC 5044 frame seen */
    uint32_t last_frame;
    /* Filled when the connection ends: each direction's final counts. */
    struct ddw_dir_sum {
        uint64_t packets, octets, tcpopts, tcpopt_bad, protocol_errors, incomplete;
        dw_dissect_dir_stats st;
    } sum[2];
    dw_rdma_ulp ulp;
} ddw_conn;

typedef enum ddw_kind {
    DDW_FPDU = 0,
    DDW_IFT,
    DDW_EVENT,
    DDW_STARTUP,
    DDW_TCPOPT,
    DDW_IPOIB,
    DDW_SUMMARY
} ddw_kind;

/* A marker inside an FPDU (MPA 6.1). */
typedef struct ddw_marker {
    uint64_t pos;
    uint32_t frame;
    uint16_t fpduptr, expected, reserved;
    uint8_t ok;
} ddw_marker;

/* The DDP/RDMAP headers of a ULPDU (RFC 5041 5, RFC 5040 4). */
typedef struct ddw_ddp {
    uint8_t present, tagged, last, opcode;
    uint32_t qn, msn, mo, stag, inv_stag, len;
    uint64_t to;
    dw_rdmap_read_req rr;
} ddw_ddp;

typedef struct ddw_fpdu {
    uint64_t index, pos, offset;
    uint32_t seq, first, last, segments;
    uint16_t ulen, flen;
    uint8_t pad, crc, aligned, packed, resync;
    uint32_t crc_wire, crc_calc;
    uint16_t nmk, bad_mk;
    ddw_marker *mk;
    ddw_ddp ddp;
} ddw_fpdu;

typedef struct ddw_ift {
    uint64_t index, offset;
    uint32_t seq, first, last;
    uint16_t header_size, payload_size;
    uint8_t header_crc, payload_crc;
    ddw_ddp ddp;
} ddw_ift;

/* An event as dump words it. */
typedef struct ddw_event {
    const char *kind;
    const char *text; /* dump's line: "crc (MPA error 2) at offset ..." */
    dw_dissect_verdict verdict;
    uint8_t group;    /* DDW_G_* */
} ddw_event;

enum { DDW_G_MPA = 0, DDW_G_CRC, DDW_G_IFT, DDW_G_TCP, DDW_G_RDMA, DDW_G_TCPOPT, DDW_G_IPOIB };

typedef struct ddw_rec {
    struct ddw_rec *next;
    ddw_conn *conn; /* NULL for IPoIB */
    uint8_t kind, dir;
    /* An FPDU or IFT frame is filed under its first and last frame. */
    uint8_t role; /* 0 whole in this frame, 1 starts here, 2 ends here */
    union {
        ddw_fpdu *fpdu;
        ddw_ift *ift;
        ddw_event *ev;
        const char *text; /* STARTUP, TCPOPT, IPOIB (SUMMARY: conn->sum) */
    } u;
} ddw_rec;

/* What is filed under one frame, in the order it was found. */
typedef struct ddw_frame {
    ddw_rec *head, *tail;
    ddw_conn *conn;  /* the connection of its TCP segment, or NULL */
    uint8_t dir;
    uint32_t errors; /* events with a verdict other than INFO */
} ddw_frame;

/* The plugin's preferences, as dump's options. */
typedef struct ddw_prefs {
    int framing;           /* dw_dissect_mode */
    const char *mpa_start; /* "PORT[:SEQ]" or "" */
} ddw_prefs;

/* ddw_store.c: the library's dissector and the per-frame records. */
void ddw_open(const ddw_prefs *p);  /* at file open (Wireshark's init) */
void ddw_close(void);               /* at file close (cleanup) */
/* First pass: one frame, in order (frames are numbered from 1, as the
 * library numbers packets). */
void ddw_feed(uint32_t num, unsigned linktype, uint64_t time, const uint8_t *data,
              size_t caplen, size_t wirelen);
/* Later passes: ends the connections still open (once): the capture is
 * over, and their summaries and end-of-capture events are filed. */
void ddw_finish(void);
const ddw_frame *ddw_frame_get(uint32_t num);
/* Frames of records filed during the last ddw_feed() under earlier frames. */
size_t ddw_late(const uint32_t **frames);
/* A short note when the preferences could not be used (or NULL). */
const char *ddw_prefs_error(void);
/* What went wrong for want of memory (or NULL): shown on every frame. */
const char *ddw_problem(void);

#endif
