/* SPDX-License-Identifier: MIT */
/*
 * The dissector: captured packets in, per-connection and per-direction
 * events out. What `ddpwire dump` is, less libpcap and printing.
 *
 * Each captured frame is parsed (<ddpwire/pkt.h>); TCP segments go to their
 * connection in a table (<ddpwire/flowtab.h>, evicting the connection idle
 * longest when full); each direction is reassembled (<ddpwire/reasm.h>)
 * and its framing decided from its first octets:
 *
 * - an RFC 5044 start-up key: MPA, its start-up frames checked, markers and
 *   CRC learnt from both frames (RFC 5044 7.1: markers towards a side iff
 *   its frame set M; CRC iff either frame set C);
 * - settings.mpa_port: MPA from the first octet, or at sequence number
 *   mpa_seq in the direction from that port;
 * - an IFT header whose CRC verifies: IFT;
 * - otherwise (auto mode) both searches race over the stream: the MPA
 *   checker's strict search and an IFT search that must see two good
 *   frames in a row (or one that ends the stream); the first to be sure
 *   wins, the other is dropped; a direction where neither turns up within
 *   256 KiB is plain TCP, which is not an error.
 *
 * The chosen checker (<ddpwire/mpa_check.h>, <ddpwire/ift_check.h>) reports
 * every FPDU or frame and every problem through the callbacks below; the
 * ULPDUs with a good CRC (or none in use) go to the connection's DDP/RDMAP
 * checker (<ddpwire/rdma_check.h>), which judges them where they are
 * DDP/RDMAP; the
 * dissector counts each problem once, as a protocol error or as an
 * incomplete capture, per direction and in total. TCP RDMA options (kind
 * 25) are checked per segment (3.1.4: one total per transfer); frames of
 * link type 242 are decoded as IPoIB (with ARP's capability flags).
 *
 * Callbacks must not call back into the dissector. No I/O and no clock:
 * times are the caller's (capture time stamps); everything is allocated
 * per connection and freed when it ends.
 */
#ifndef DDPWIRE_DISSECT_H
#define DDPWIRE_DISSECT_H

#include <ddpwire/flowtab.h>
#include <ddpwire/ift_check.h>
#include <ddpwire/ipoib.h>
#include <ddpwire/mpa_check.h>
#include <ddpwire/mpa_seg.h>
#include <ddpwire/rdma_check.h>
#include <ddpwire/reasm.h>
#include <ddpwire/tcpopt.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dw_dissect dw_dissect;

/** What to look for in every connection. */
typedef enum dw_dissect_mode {
    DW_DISSECT_AUTO = 0, /* decided per direction, as above */
    DW_DISSECT_MPA,      /* MPA in every direction */
    DW_DISSECT_IFT,      /* IFT in every direction */
    DW_DISSECT_NONE      /* plain TCP: reassembly and TCP options only */
} dw_dissect_mode;

/** What a direction's stream turned out to carry. */
typedef enum dw_dissect_framing {
    DW_DISSECT_UNDECIDED = 0,
    DW_DISSECT_FOUND_MPA,
    DW_DISSECT_FOUND_IFT,
    DW_DISSECT_PLAIN
} dw_dissect_framing;

/** Name of a framing: "unknown", "mpa", "ift", "tcp". */
DW_EXTERN const char *dw_dissect_framing_name(dw_dissect_framing f);

#define DW_DISSECT_PORTS_MAX 16

typedef struct dw_dissect_settings {
    dw_dissect_mode mode;
    /** Force the MPA mode: 1, 0, or -1 to learn it (default). */
    int markers, crc;
    /** MPA begins on connections with this port (-1: none): at sequence
     * number mpa_seq of the direction from it when mpa_seq_set, else at
     * the first data octet of both directions. */
    int mpa_port;
    int mpa_seq_set;
    uint32_t mpa_seq;
    /** Only connections with one of these ports (0 ports: all). */
    uint16_t ports[DW_DISSECT_PORTS_MAX];
    size_t nports;
    /** Connections tracked at once (default 256). */
    size_t max_flows;
    /** Out-of-order octets held per direction (default 262144). */
    size_t store;
    /**
     * Placement analysis: each MPA direction whose start is known before
     * its data (after RFC 5044 frames, or mpa_port) is also fed, segment by
     * segment in capture order, to an MPA segment receiver
     * (<ddpwire/mpa_seg.h>) with placement_store octets of store: what an
     * MPA-aware receiver would have placed on arrival and held
     * (dw_dissect_dir_stats.placement). Default off.
     */
    int placement;
    size_t placement_store;
    /** The allocator of every allocation, the dissector's and every
     * object it makes (NULL: the C library's); see <ddpwire/mem.h>. Must
     * outlive the object. */
    const dw_mem *mem;
} dw_dissect_settings;

/** The layout of dw_dissect_settings this header describes (see <ddpwire/common.h>). */
#define DW_DISSECT_SETTINGS_VERSION 1

/** One direction of a connection, as the dissector sees it (read only). */
typedef struct dw_dissect_dir {
    const dw_flow *flow;
    int dir; /* DW_FLOW_C2S or DW_FLOW_S2C */
    dw_dissect_framing framing;
    /** Segments and payload octets (as on the wire) in this direction. */
    uint64_t packets, octets;
    /** TCP RDMA options seen, and of those invalid. */
    uint64_t tcpopts, tcpopt_bad;
    /** Problems counted: the peer's, or the capture's (gaps, cut). */
    uint64_t protocol_errors, incomplete;
    /** A FIN or RST was seen in this direction (RST: either). */
    int fin, rst;
} dw_dissect_dir;

/** A direction's statistics from its reassembler and checker. */
typedef struct dw_dissect_dir_stats {
    dw_reasm_stats reasm;
    /** Zero unless framing is FOUND_MPA / FOUND_IFT. */
    dw_mpa_check_stats mpa;
    dw_ift_check_stats ift;
    /** DDP/RDMAP (active 0 when no ULPDU was seen). */
    dw_rdma_check_stats rdma;
    /** Placement analysis (settings.placement): run when non-zero; the
     * receiver's counters; octets held after each segment, their mean; the
     * largest segment payload (EMSS as sent) and segments that began at or
     * before the in-order point (retransmissions, as TCP counts them); an
     * MPA error the receiver reported (0 none). */
    int placement;
    dw_mpa_seg_stats seg;
    uint64_t held_mean, emss, seg_retransmits;
    int seg_error;
} dw_dissect_dir_stats;

DW_EXTERN void dw_dissect_dir_stats_get(const dw_dissect_dir *d, dw_dissect_dir_stats *st);

/** The direction k (DW_FLOW_C2S / DW_FLOW_S2C) of a connection. */
DW_EXTERN const dw_dissect_dir *dw_dissect_flow_dir(const dw_flow *f, int k);

/** The upper protocol seen in a connection's first Sends (either way). */
DW_EXTERN dw_rdma_ulp dw_dissect_flow_ulp(const dw_flow *f);

/** The application's pointer for a connection (NULL until set). */
DW_EXTERN void dw_dissect_flow_set_app(const dw_flow *f, void *app);
DW_EXTERN void *dw_dissect_flow_app(const dw_flow *f);

/** A TCP RDMA option found in a segment. */
typedef struct dw_dissect_tcpopt {
    uint64_t pkt;
    dw_tcpopt_found found;
    /** Valid: every rule of 3.1 holds (with 3.1.4's total per transfer). */
    int valid;
    dw_tcpopt_reason reason;
} dw_dissect_tcpopt;

/** An IPoIB frame (link type 242). */
typedef struct dw_dissect_ipoib {
    uint64_t pkt;
    dw_ipoib_lt242 lt242;
    dw_ipoib_hdr hdr;
    /** An ARP packet (hdr.type DW_IPOIB_TYPE_ARP): arp_ok says whether it
     * decoded (a malformed one is a protocol error). */
    int is_arp, arp_ok;
    dw_ipoib_arp arp;
} dw_dissect_ipoib;

/**
 * Severity of a checker event as counted: 0 information, 1 protocol
 * error (the peer's), -1 incomplete (the capture's).
 */
typedef int dw_dissect_severity;

/**
 * How an event is presented (by `ddpwire dump` and the Wireshark plugin
 * alike): information, the peer's protocol error, the peer's violation of
 * a sender rule that leaves the framing intact (non-zero PAD, marker
 * RESERVED bits, a ULPDU above 64768), or the capture's own shortcoming
 * (octets missing, cut by the snap length or the capture's end). Every
 * verdict but DW_DISSECT_INFO names its packet as one with an error.
 */
typedef enum dw_dissect_verdict {
    DW_DISSECT_INFO = 0,
    DW_DISSECT_ERROR,
    DW_DISSECT_VIOLATION,
    DW_DISSECT_INCOMPLETE
} dw_dissect_verdict;

/** The verdict on an MPA checker event reported with severity sev. */
DW_EXTERN dw_dissect_verdict dw_dissect_mpa_verdict(const dw_mpa_check_event *ev,
                                                    dw_dissect_severity sev);
/** The verdict on an IFT checker event reported with severity sev. */
DW_EXTERN dw_dissect_verdict dw_dissect_ift_verdict(const dw_ift_check_event *ev,
                                                    dw_dissect_severity sev);
/** The verdict on a reassembly event reported with severity sev. */
DW_EXTERN dw_dissect_verdict dw_dissect_reasm_verdict(dw_dissect_severity sev);

typedef struct dw_dissect_callbacks {
    /** Every FPDU checked, with the markers inside it; ddp: its ULPDU
     * decoded when the direction is DDP/RDMAP and the CRC good or off,
     * else NULL. */
    void (*on_fpdu)(dw_dissect *D, const dw_dissect_dir *d, const dw_mpa_check_fpdu *fp,
                    const dw_mpa_check_marker *mk, size_t nmk, const dw_rdmap_msg *ddp,
                    void *user_data);
    /** Every MPA checker event (start-up frames have ev->frame). */
    void (*on_mpa_event)(dw_dissect *D, const dw_dissect_dir *d,
                         const dw_mpa_check_event *ev, dw_dissect_severity sev,
                         void *user_data);
    /** Every IFT frame; ddp as for on_fpdu. */
    void (*on_ift_frame)(dw_dissect *D, const dw_dissect_dir *d,
                         const dw_ift_check_frame *fr, const dw_rdmap_msg *ddp,
                         void *user_data);
    /** Every IFT checker event. */
    void (*on_ift_event)(dw_dissect *D, const dw_dissect_dir *d,
                         const dw_ift_check_event *ev, dw_dissect_severity sev,
                         void *user_data);
    /** Reassembly events (retransmissions, overlaps, mismatches, ...). */
    void (*on_reasm_event)(dw_dissect *D, const dw_dissect_dir *d,
                           const dw_reasm_event *ev, dw_dissect_severity sev,
                           void *user_data);
    /** A gap no checker reports (plain TCP, or before the framing is known). */
    void (*on_gap)(dw_dissect *D, const dw_dissect_dir *d, const dw_reasm_gap *g,
                   void *user_data);
    /** DDP/RDMAP events (d: the direction of the ULPDU concerned). */
    void (*on_rdma_event)(dw_dissect *D, const dw_dissect_dir *d,
                          const dw_rdma_check_event *ev, void *user_data);
    void (*on_tcpopt)(dw_dissect *D, const dw_dissect_dir *d, const dw_dissect_tcpopt *o,
                      void *user_data);
    void (*on_ipoib)(dw_dissect *D, const dw_dissect_ipoib *ip, void *user_data);
    /** A connection begins (its first segment is being handled). */
    void (*on_flow_start)(dw_dissect *D, const dw_flow *f, void *user_data);
    /** A connection ends (FIN/RST both ways, evicted, or finished); its
     * directions' statistics are final. Its application data is the
     * caller's to free here. */
    void (*on_flow_end)(dw_dissect *D, const dw_flow *f, void *user_data);
    /** Every TCP segment of a connection, before its octets are checked
     * (the packet's number is the one dw_dissect_packet() returns). */
    void (*on_segment)(dw_dissect *D, const dw_dissect_dir *d, const dw_pkt_tcp *seg,
                       void *user_data);
} dw_dissect_callbacks;

/** The layout of dw_dissect_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_DISSECT_CALLBACKS_VERSION 1

/** Totals over the capture. */
typedef struct dw_dissect_stats {
    uint64_t packets, tcp_packets, not_tcp, unreadable;
    uint64_t flows_seen, flows_open;
    uint64_t protocol_errors, incomplete;
    /** Connections or checkers not made, or that could not check all
     * they were given (DW_ERR_NOMEM), for want of memory (not checked). */
    uint64_t nomem;
} dw_dissect_stats;

DW_EXTERN int dw_dissect_settings_default_versioned(int settings_version,
                                                    dw_dissect_settings *s);
#define dw_dissect_settings_default(s) \
    dw_dissect_settings_default_versioned(DW_DISSECT_SETTINGS_VERSION, (s))

/**
 * Sets mpa_port, and with ":SEQ" mpa_seq and mpa_seq_set, from the text
 * "PORT" or "PORT:SEQ" in decimal digits (PORT 1..65535, SEQ 0..2^32-1):
 * the form of `ddpwire dump --mpa-start` and the Wireshark plugin's
 * preference. 0, or DW_ERR_INVAL with s untouched.
 */
DW_EXTERN int dw_dissect_settings_mpa_start(dw_dissect_settings *s, const char *text);

/** 0, DW_ERR_INVAL (bad settings) or DW_ERR_NOMEM. */
DW_EXTERN int dw_dissect_new_versioned(dw_dissect **pD, int settings_version,
                                       const dw_dissect_settings *s, int callbacks_version,
                                       const dw_dissect_callbacks *cb, void *user_data);
#define dw_dissect_new(pD, s, cb, user_data) \
    dw_dissect_new_versioned((pD), DW_DISSECT_SETTINGS_VERSION, (s), \
        DW_DISSECT_CALLBACKS_VERSION, (cb), (user_data))

/** Frees everything without reporting. NULL-safe. */
DW_EXTERN void dw_dissect_del(dw_dissect *D);

/**
 * One captured frame: its link type (DW_PKT_LINK_*, as in pcap), capture
 * time (any unit; kept, not judged), caplen octets captured of wirelen on
 * the wire. Packets are numbered from 1 in the order given. Returns the
 * packet's number.
 */
DW_EXTERN uint64_t dw_dissect_packet(dw_dissect *D, unsigned linktype, uint64_t time,
                                     const uint8_t *frame, size_t caplen, size_t wirelen);

/** Ends every connection (in the order they began): the capture is over. */
DW_EXTERN void dw_dissect_finish(dw_dissect *D);

DW_EXTERN void dw_dissect_stats_get(const dw_dissect *D, dw_dissect_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_DISSECT_H */
