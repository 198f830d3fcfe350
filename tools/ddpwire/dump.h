/* ddpwire dump: shared state of cmd_dump.c (capture loop, options),
 * dump_flow.c (connections, reassembly, framing) and dump_out.c (text and
 * JSON output). docs/DUMP.md is the user's contract. */
#ifndef DW_DUMP_H
#define DW_DUMP_H

#include <ddpwire/ift.h>
#include <ddpwire/mpa_check.h>
#include <ddpwire/pkt.h>
#include <ddpwire/reasm.h>
#include <ddpwire/tcpopt.h>
#include <ddpwire/ift_check.h>

#include <stdint.h>
#include <stdio.h>

enum { DUMP_AUTO = 0, DUMP_MPA, DUMP_IFT, DUMP_NONE };
enum { DUMP_C2S = 0, DUMP_S2C = 1 };

typedef struct dump_opts {
    int verbose, json, progress;
    int framing;          /* DUMP_AUTO ... */
    int markers, crc;     /* -1: learn */
    int mpa_port;         /* --mpa-start PORT, -1 none */
    int mpa_seq_set;
    uint32_t mpa_seq;
    int ports[16];
    int nports;
    uint64_t max_flows;
    uint64_t store;
    uint64_t count;       /* -c: packets, 0 all */
} dump_opts;

/* What a direction's stream turned out to carry. */
enum { FR_UNKNOWN = 0, FR_MPA, FR_IFT, FR_PLAIN };

struct dump_flow;

/* One direction of a connection. */
typedef struct dump_dir {
    struct dump_flow *flow;
    int dir;                 /* DUMP_C2S / DUMP_S2C */
    dw_reasm *reasm;
    dw_mpa_check *mpa;
    dw_ift_check *ift;
    int framing;             /* FR_* */
    int searching;           /* auto mode: MPA searched for, not yet found */
    /* auto mode: IFT searched for beside MPA (dump_ift.c), until two
     * frames in a row with both CRCs good confirm it (start and first
     * frame held until then) */
    int ift_race, ift_race_lost, race_started, race_frames;
    dw_ift_check_event race_start;
    char race_detail[128];
    dw_ift_check_frame race_fr;
    uint8_t race_head[256];
    uint64_t gap_shown_end;  /* gaps reported before the framing was decided */
    int have_seq;
    uint32_t stream_seq;     /* sequence number of stream offset 0 */
    /* octets held at the start until the framing is decided */
    uint8_t pre[256];
    size_t pre_len;
    dw_reasm_chunk pre_chunk[64];
    size_t pre_chunks;
    int fin, rst;
    int syn_seen;            /* the stream's start is known */
    uint64_t packets, octets, tcpopts, tcpopt_bad;
    dw_tcpopt_total ttot;    /* 3.1.4: the transfer being sent, its total */
    int ttot_set;
    /* the RFC 5044 frame seen in this direction */
    int frame_seen, frame_m, frame_c, frame_r;
    /* markers of the FPDU being checked (on_marker comes before on_fpdu) */
    dw_mpa_check_marker mk[136];
    size_t nmk;
    uint64_t printed_errors;
    uint64_t protocol_errors, incomplete;
} dump_dir;

typedef struct dump_flow {
    uint64_t id;
    uint8_t ipv;
    uint8_t addr[2][16];
    uint16_t port[2];        /* [DUMP_C2S] client's, [DUMP_S2C] server's */
    dump_dir d[2];
    int framing_forced;      /* --mpa-start matched */
    size_t slot;             /* hash bucket */
    struct dump_flow *next;  /* hash chain */
    struct dump_flow *lru_prev, *lru_next; /* by last packet, oldest first */
    struct dump *owner;
} dump_flow;

typedef struct dump {
    dump_opts o;
    FILE *out;
    unsigned linktype;
    uint64_t pkt;            /* current packet number, from 1 */
    uint64_t packets, tcp_packets, not_tcp, unreadable;
    uint64_t flows_seen, flows_open;
    uint64_t protocol_errors, incomplete;
    dump_flow **table;
    size_t table_size;
    dump_flow *lru_head, *lru_tail;
} dump;

/* dump_flow.c */
int dump_init(dump *D);
void dump_packet(dump *D, const uint8_t *frame, size_t caplen, size_t wirelen);
void dump_finish(dump *D);

/* dump_ift.c: the IFT checker of a direction; feeds in-order octets / a gap.
 * race: searched for beside MPA, silent until confirmed. */
int dump_ift_create(dump_dir *d, int race);
void dump_ift_data(dump_dir *d, const uint8_t *p, size_t len, const dw_reasm_chunk *c);
void dump_ift_gap(dump_dir *d, const dw_reasm_gap *g);
void dump_ift_end(dump_dir *d);
void dump_ift_race_end(dump_dir *d);
int dump_ift_probe(const uint8_t *p, size_t len);

/* dump_out.c */
const char *dump_dir_name(int dir);
void dump_addr(char *buf, size_t cap, const dump_flow *f, int side);
void out_fpdu(dump_dir *d, const dw_mpa_check_fpdu *fp, const dw_mpa_check_marker *mk,
              size_t nmk);
void out_mpa_event(dump_dir *d, const dw_mpa_check_event *ev);
void out_reasm_event(dump_dir *d, const dw_reasm_event *ev);
void out_gap(dump_dir *d, const dw_reasm_gap *g);
void out_ift(dump_dir *d, const dw_ift_check_frame *fr);
void out_ift_event(dump_dir *d, const char *kind, int code, uint64_t offset, uint32_t seq,
                   uint64_t pkt, uint64_t len, const char *detail, int error);
void out_tcpopt(dump_dir *d, const uint8_t *opts, size_t optlen, size_t payload_len);
void out_ipoib(dump *D, const uint8_t *frame, size_t caplen);
void out_flow(dump_flow *f);
void out_summary(dump *D, int status);
void out_json_str(FILE *f, const char *s);

#endif
