/* SPDX-License-Identifier: MIT */
/*
 * DDP/RDMAP stream checker: the rules of RFC 5041 and RFC 5040 that a
 * capture can show, over both directions of one connection, fed the
 * ULPDUs an MPA or IFT checker found (<ddpwire/mpa_check.h>,
 * <ddpwire/ift_check.h>).
 *
 * A direction is checked once its first ULPDU decodes as DDP/RDMAP: DDP
 * and RDMAP versions 1, a known opcode on the right buffer model and
 * queue. A direction whose first ULPDU does not (records of another ULP
 * framed by MPA) is reported once (NOT_DDP) and left alone.
 *
 * Per direction, for every ULPDU (dw_rdmap_validate(), strict), and:
 *  - untagged (RFC 5041 5.3; RFC 5040 5.1): per queue (0 Send, 1 Read
 *    Request, 2 Terminate) the MSN of each new message is the last plus
 *    one (the first is 1 when the stream's start was seen), MO starts at 0
 *    and is contiguous within a message, the Last flag closes it;
 *  - tagged (RFC 5041 5.2): within a message STag is constant and TO
 *    contiguous;
 *  - Read (RFC 5040 4.4, 4.5, 5.2): each Read Response (in the other
 *    direction) answers the oldest outstanding Read Request: its STag is
 *    the request's Data Sink STag, its TO begins at the Sink TO, its
 *    length is the request's; no more requests outstanding than the IRD
 *    the responder announced (RFC 6581, or the 8-octet IRD/ORD private
 *    data of SMB Direct over MPA revision 1);
 *  - Send with Invalidate carries the STag it invalidates (reported);
 *  - Terminate (RFC 5040 4.8) is decoded (layer, type, code, the copied
 *    headers; siw 6.1's layout recognised) and reported.
 * After a gap in a direction (octets lost, or an FPDU whose CRC failed)
 * its sequences are learnt again instead of judged, and a Read Response
 * is not called unmatched while requests may have been lost.
 *
 * No allocation after creation, no I/O. Callbacks must not feed the
 * checker they are called from.
 */
#ifndef DDPWIRE_RDMA_CHECK_H
#define DDPWIRE_RDMA_CHECK_H

#include <ddpwire/mem.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dw_rdma_check dw_rdma_check;

typedef enum dw_rdma_check_event_kind {
    /** The direction's first ULPDU is not DDP/RDMAP: not checked (information). */
    DW_RDMA_CHECK_EV_NOT_DDP = 0,
    /** A rule of dw_rdmap_validate() broken (detail names it). */
    DW_RDMA_CHECK_EV_INVALID,
    /** Untagged: MSN not the next of its queue (or the first not 1). */
    DW_RDMA_CHECK_EV_MSN,
    /** Untagged: MO not 0 at a message's start, or not contiguous. */
    DW_RDMA_CHECK_EV_MO,
    /** Tagged: STag changed or TO not contiguous within a message. */
    DW_RDMA_CHECK_EV_TAGGED,
    /** A Read Response with no Read Request outstanding. */
    DW_RDMA_CHECK_EV_READ_UNMATCHED,
    /** A Read Response whose STag, TO or length disagree with its request. */
    DW_RDMA_CHECK_EV_READ_MISMATCH,
    /** More Read Requests outstanding than the responder's IRD. */
    DW_RDMA_CHECK_EV_READ_DEPTH,
    /** A Terminate (decoded in detail): the peer reports an error. */
    DW_RDMA_CHECK_EV_TERMINATE,
    /** At the end: Read Requests never answered (information). */
    DW_RDMA_CHECK_EV_READ_PENDING
} dw_rdma_check_event_kind;

/** Name of an event kind ("msn", "read_mismatch", ...). */
DW_EXTERN const char *dw_rdma_check_event_name(dw_rdma_check_event_kind k);

typedef struct dw_rdma_check_event {
    dw_rdma_check_event_kind kind;
    /** The direction whose ULPDU it is about (0 or 1). */
    int dir;
    /** Where: the caller's packet number, stream offset and sequence
     * number of that ULPDU (0 at the end). */
    uint64_t pkt, offset;
    uint32_t seq;
    /** 1 a protocol error of the sender, 0 information. */
    int error;
    /** One line; valid during the callback. */
    const char *detail;
} dw_rdma_check_event;

typedef struct dw_rdma_check_callbacks {
    void (*on_event)(dw_rdma_check *c, const dw_rdma_check_event *ev, void *user_data);
} dw_rdma_check_callbacks;

/** The layout of dw_rdma_check_callbacks this header describes (see <ddpwire/common.h>). */
#define DW_RDMA_CHECK_CALLBACKS_VERSION 1

/** The upper protocol recognised from a direction's first messages. */
typedef enum dw_rdma_ulp {
    DW_RDMA_ULP_UNKNOWN = 0,
    DW_RDMA_ULP_NVMEOF,  /* an NVMe-oF command capsule (Connect) */
    DW_RDMA_ULP_SMBD,    /* an SMB Direct negotiate request or response */
    DW_RDMA_ULP_RPCRDMA, /* an RPC-over-RDMA version 1 header */
    DW_RDMA_ULP_RPING    /* rping's 16-octet message */
} dw_rdma_ulp;

/** "nvme-of", "smb-direct", "rpc-rdma", "rping", "unknown". */
DW_EXTERN const char *dw_rdma_ulp_name(dw_rdma_ulp u);

typedef struct dw_rdma_check_stats {
    /** 1 checked, 0 not yet known, -1 not DDP/RDMAP. */
    int active;
    uint64_t ulpdus, messages;
    uint64_t writes, read_requests, read_responses, sends, sends_inv, terminates;
    /** Violations (events with error set), and Read Requests from this
     * direction answered, pending at the end, most outstanding at once. */
    uint64_t violations, reads_answered, reads_pending, reads_max_outstanding;
    /** The IRD this side announced (RFC 6581 or SMB Direct), -1 unknown. */
    int32_t ird, ord;
    dw_rdma_ulp ulp;
} dw_rdma_check_stats;

/** IRD/ORD found in a start-up frame's private data. */
typedef struct dw_rdma_pd_info {
    /** RFC 6581 enhanced mode (revision 2, S flag): its words. */
    int enhanced;
    dw_mpa_enh enh;
    /** SMB Direct's 8 octets (cifs.ko, ksmbd): two 32-bit words, IRD then
     * ORD, big-endian as ksmbd reads them; host_order: they read sensibly
     * only as little-endian (cifs.ko 6.1 writes them in host order). */
    int smbd;
    uint32_t smbd_ird, smbd_ord;
    int smbd_host_order;
} dw_rdma_pd_info;

/** Reads the private data of a decoded start-up frame; 1 when either form is there. */
DW_EXTERN int dw_rdma_pd_info_get(const dw_mpa_startup *fr, dw_rdma_pd_info *out);

typedef struct dw_rdma_check_settings {
    /** The allocator of every allocation (NULL: the C library's);
     * see <ddpwire/mem.h>. Must outlive the object. */
    const dw_mem *mem;
} dw_rdma_check_settings;

/** The layout of dw_rdma_check_settings this header describes (see <ddpwire/common.h>). */
#define DW_RDMA_CHECK_SETTINGS_VERSION 1

/** Fills settings with the defaults (the C library's allocator). */
DW_EXTERN int dw_rdma_check_settings_default_versioned(int settings_version,
                                                       dw_rdma_check_settings *settings);
#define dw_rdma_check_settings_default(settings) \
    dw_rdma_check_settings_default_versioned(DW_RDMA_CHECK_SETTINGS_VERSION, (settings))

/** Creates a checker; settings may be NULL for the defaults. Returns 0,
 * DW_ERR_INVAL or DW_ERR_NOMEM. */
DW_EXTERN int dw_rdma_check_new_versioned(dw_rdma_check **pc, int settings_version,
                                          const dw_rdma_check_settings *settings,
                                          int callbacks_version,
                                          const dw_rdma_check_callbacks *cb, void *user_data);
#define dw_rdma_check_new(pc, settings, cb, user_data) \
    dw_rdma_check_new_versioned((pc), DW_RDMA_CHECK_SETTINGS_VERSION, (settings), \
        DW_RDMA_CHECK_CALLBACKS_VERSION, (cb), (user_data))
DW_EXTERN void dw_rdma_check_del(dw_rdma_check *c);

/** The start-up frame sent in direction dir (its IRD/ORD, if any). */
DW_EXTERN void dw_rdma_check_startup(dw_rdma_check *c, int dir, const dw_mpa_startup *fr);

/** Direction dir's ULPDUs begin at the stream's start (the first MSNs are 1). */
DW_EXTERN void dw_rdma_check_from_start(dw_rdma_check *c, int dir);

/**
 * One ULPDU of direction dir whose CRC was good (or not in use): its first
 * head_len octets and its length; pkt and offset say where it is. Returns
 * 1 with *msg decoded (its payload pointer into head) when the direction is
 * DDP/RDMAP and the ULPDU decodes, else 0. msg may be NULL.
 */
typedef struct dw_rdma_check_where {
    uint64_t pkt, offset;
    uint32_t seq;
} dw_rdma_check_where;

DW_EXTERN int dw_rdma_check_ulpdu(dw_rdma_check *c, int dir, const uint8_t *head,
                                  size_t head_len, uint32_t ulpdu_len,
                                  const dw_rdma_check_where *where, dw_rdmap_msg *msg);

/** ULPDUs of direction dir were lost (a gap, a bad CRC, a resync). */
DW_EXTERN void dw_rdma_check_gap(dw_rdma_check *c, int dir);

/** The capture ended: Read Requests still outstanding are reported. */
DW_EXTERN void dw_rdma_check_end(dw_rdma_check *c);

DW_EXTERN void dw_rdma_check_stats_get(const dw_rdma_check *c, int dir,
                                       dw_rdma_check_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_RDMA_CHECK_H */
