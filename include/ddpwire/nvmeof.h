/* SPDX-License-Identifier: MIT */
/*
 * NVMe over Fabrics, RDMA transport (NVMe-oF 1.1 section 7.3 and the NVMe
 * RDMA transport binding), host side, on ddpwire's queue pair (qp.h).
 *
 * Codecs (pure: no allocation, I/O or clock): the RDMA CM private data of a
 * queue (request, accept, reject), the 64-octet command capsule (SQE with
 * one SGL descriptor), the 16-octet response capsule (CQE), the 1024
 * octets of Fabrics Connect data, Identify controller/namespace data and
 * the Discovery Log Page.
 *
 * A host object (dw_nvmeof_host): one controller with an admin queue and
 * I/O queues, each queue one MPA connection with its own dw_qp inside the
 * host. The caller makes each connection (the CM private data of
 * dw_nvmeof_host_cm_req() in the MPA request, the peer's accept handed to
 * dw_nvmeof_host_queue_start()), feeds every verified ULPDU of queue q to
 * dw_nvmeof_host_recv() and sends the ULPDUs the send callback gives. The
 * host brings the controller up (Connect, Property Get CAP and VS, Property
 * Set CC.EN, Property Get CSTS until RDY, Identify controller and
 * namespace), sends Keep Alive when dw_nvmeof_host_tick() says it is time,
 * and carries the caller's commands: capsules by Send, data by the target's
 * RDMA Write into (reads) or RDMA Read from (writes) a buffer registered
 * for the one command (keyed SGL), responses by Send or Send with
 * Invalidate of that command's key. Every protocol error goes to on_error.
 */
#ifndef DDPWIRE_NVMEOF_H
#define DDPWIRE_NVMEOF_H

#include <ddpwire/common.h>
#include <ddpwire/mem.h>
#include <ddpwire/qp.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The IANA port of NVMe-oF over iWARP (RDMA transport). */
#define DW_NVMEOF_PORT 4420
/** The well-known NQN of a discovery controller. */
#define DW_NVMEOF_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"
/** Lengths: CM private data, command capsule, response capsule, Connect data. */
#define DW_NVMEOF_CM_LEN 32
#define DW_NVMEOF_CM_REJ_LEN 4
#define DW_NVMEOF_SQE_LEN 64
#define DW_NVMEOF_CQE_LEN 16
#define DW_NVMEOF_CONNECT_DATA_LEN 1024
/** An NQN field is 256 octets, NUL-terminated (at most 223 characters). */
#define DW_NVMEOF_NQN_FIELD 256
#define DW_NVMEOF_NQN_MAX 223
/** Identify data and a Discovery Log entry. */
#define DW_NVMEOF_IDENTIFY_LEN 4096
#define DW_NVMEOF_DISC_ENTRY_LEN 1024

/* ---- RDMA CM private data (NVMe-oF 1.1, 7.3.3.x) --------------------- */

/** The host's request: record format 0, queue id, host receive queue
 *  size (HRQSIZE) and 0's based host send queue size (HSQSIZE). */
typedef struct dw_nvmeof_cm_req {
    uint16_t recfmt, qid, hrqsize, hsqsize, cntlid;
} dw_nvmeof_cm_req;

/** The target's accept: record format and controller receive queue size. */
typedef struct dw_nvmeof_cm_rep {
    uint16_t recfmt, crqsize;
} dw_nvmeof_cm_rep;

/** The target's reject: record format and a DW_NVMEOF_CM_* status. */
typedef struct dw_nvmeof_cm_rej {
    uint16_t recfmt, sts;
} dw_nvmeof_cm_rej;

/** Reject status values (NVMe-oF 1.1 Figure 53). */
enum {
    DW_NVMEOF_CM_INVALID_LEN = 1,
    DW_NVMEOF_CM_INVALID_RECFMT = 2,
    DW_NVMEOF_CM_INVALID_QID = 3,
    DW_NVMEOF_CM_INVALID_HSQSIZE = 4,
    DW_NVMEOF_CM_INVALID_HRQSIZE = 5,
    DW_NVMEOF_CM_NO_RSC = 6,
    DW_NVMEOF_CM_INVALID_IRD = 7,
    DW_NVMEOF_CM_INVALID_ORD = 8,
    DW_NVMEOF_CM_INVALID_CNTLID = 9
};

/** Writes 32 octets (the rest reserved, zero). Returns 32, DW_ERR_NOSPACE
 *  or DW_ERR_INVAL. */
DW_EXTERN int dw_nvmeof_cm_req_encode(uint8_t *out, size_t cap, const dw_nvmeof_cm_req *r);
/** Reads a request (at least 32 octets). Returns 32, DW_ERR_NEED_MORE or
 *  DW_ERR_MALFORMED (record format not 0). */
DW_EXTERN int dw_nvmeof_cm_req_decode(dw_nvmeof_cm_req *r, const uint8_t *in, size_t len);
DW_EXTERN int dw_nvmeof_cm_rep_encode(uint8_t *out, size_t cap, const dw_nvmeof_cm_rep *r);
/** As dw_nvmeof_cm_req_decode() for the accept (32 octets). */
DW_EXTERN int dw_nvmeof_cm_rep_decode(dw_nvmeof_cm_rep *r, const uint8_t *in, size_t len);
/** Writes the 4-octet reject. */
DW_EXTERN int dw_nvmeof_cm_rej_encode(uint8_t *out, size_t cap, const dw_nvmeof_cm_rej *r);
/** Reads a reject (at least 4 octets). Returns 4 or DW_ERR_NEED_MORE. */
DW_EXTERN int dw_nvmeof_cm_rej_decode(dw_nvmeof_cm_rej *r, const uint8_t *in, size_t len);
/** Name of a reject status ("invalid HSQSIZE"); "unknown" otherwise. */
DW_EXTERN const char *dw_nvmeof_cm_rej_str(uint16_t sts);

/* ---- Command capsule (SQE) -------------------------------------------- */

/** Opcodes used here: admin, NVM I/O, and the Fabrics opcode. */
enum {
    DW_NVME_ADMIN_GET_LOG_PAGE = 0x02,
    DW_NVME_ADMIN_IDENTIFY = 0x06,
    DW_NVME_ADMIN_SET_FEATURES = 0x09,
    DW_NVME_ADMIN_KEEP_ALIVE = 0x18,
    DW_NVME_CMD_FLUSH = 0x00,
    DW_NVME_CMD_WRITE = 0x01,
    DW_NVME_CMD_READ = 0x02,
    DW_NVME_FABRICS = 0x7f
};
/** Fabrics command types (the octet at offset 4 of a Fabrics SQE). */
enum {
    DW_NVMEOF_FCTYPE_PROP_SET = 0x00,
    DW_NVMEOF_FCTYPE_CONNECT = 0x01,
    DW_NVMEOF_FCTYPE_PROP_GET = 0x04
};
/** Controller properties (NVMe-oF 1.1 Figure 35). */
enum { DW_NVME_REG_CAP = 0x00, DW_NVME_REG_VS = 0x08, DW_NVME_REG_CC = 0x14,
       DW_NVME_REG_CSTS = 0x1c };
/** Log page of a discovery controller. */
#define DW_NVME_LOG_DISCOVERY 0x70

/** SGL descriptor type octets (NVMe 1.4 Figure 114/117). */
/** Keyed SGL Data Block, address subtype: the target answers with Send. */
#define DW_NVMEOF_SGL_KEYED 0x40
/** Keyed SGL Data Block, invalidate-key subtype: Send with Invalidate. */
#define DW_NVMEOF_SGL_KEYED_INV 0x4f
/** SGL Data Block, offset subtype: data in the capsule. */
#define DW_NVMEOF_SGL_INCAPSULE 0x01
/** The flags octet's PSDT for SGLs (the Fabrics rule: always SGLs). */
#define DW_NVME_FLAGS_SGL 0x40

/** One SGL descriptor: keyed (len is 24 bits) or data block (32 bits). */
typedef struct dw_nvmeof_sgl {
    uint64_t addr;
    uint32_t len;
    uint32_t key;
    uint8_t type; /* DW_NVMEOF_SGL_*; the type and subtype octet */
} dw_nvmeof_sgl;

/**
 * A submission queue entry. For a Fabrics command (opcode 0x7f) the octet
 * at offset 4 is fctype (kept in nsid's low octet) and the command's own
 * fields are in cdw10..15 as on the wire (Connect: cdw10 = RECFMT | QID <<
 * 16, cdw11 = SQSIZE | CATTR << 16, cdw12 = KATO; Property Get/Set:
 * cdw10 = ATTRIB, cdw11 = OFST, cdw12/13 = VALUE).
 */
typedef struct dw_nvmeof_sqe {
    uint8_t opcode, flags;
    uint16_t cid;
    uint32_t nsid;
    uint32_t cdw2, cdw3;
    uint64_t mptr;
    dw_nvmeof_sgl sgl;
    uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
} dw_nvmeof_sqe;

/** Writes 64 octets. Returns 64, DW_ERR_NOSPACE or DW_ERR_INVAL (a keyed
 *  length above 2^24 - 1). */
DW_EXTERN int dw_nvmeof_sqe_encode(uint8_t *out, size_t cap, const dw_nvmeof_sqe *s);
/** Reads 64 octets. Returns 64 or DW_ERR_NEED_MORE. */
DW_EXTERN int dw_nvmeof_sqe_decode(dw_nvmeof_sqe *s, const uint8_t *in, size_t len);
/** The Fabrics command type of s, or -1 when it is not a Fabrics command. */
DW_EXTERN int dw_nvmeof_sqe_fctype(const dw_nvmeof_sqe *s);

/* Builders: zero s, then set the command (cid and SGL are the host's). */
/** Fabrics Connect of queue qid with 0's based sqsize, KATO in ms. */
DW_EXTERN void dw_nvmeof_sqe_connect(dw_nvmeof_sqe *s, uint16_t qid, uint16_t sqsize,
                                     uint32_t kato_ms);
/** Property Get of the property at ofst, 8 octets wide (size8) or 4. */
DW_EXTERN void dw_nvmeof_sqe_prop_get(dw_nvmeof_sqe *s, uint32_t ofst, int size8);
DW_EXTERN void dw_nvmeof_sqe_prop_set(dw_nvmeof_sqe *s, uint32_t ofst, int size8, uint64_t v);
/** Identify with CNS (0 namespace, 1 controller, 2 active namespace list). */
DW_EXTERN void dw_nvmeof_sqe_identify(dw_nvmeof_sqe *s, uint8_t cns, uint32_t nsid);
/** Get Log Page lid of len octets (a multiple of 4) from offset off. */
DW_EXTERN void dw_nvmeof_sqe_get_log(dw_nvmeof_sqe *s, uint8_t lid, uint32_t nsid, uint32_t len,
                                     uint64_t off);
DW_EXTERN void dw_nvmeof_sqe_keep_alive(dw_nvmeof_sqe *s);
/** Read / Write of nlb blocks (1..65536) at slba. */
DW_EXTERN void dw_nvmeof_sqe_rw(dw_nvmeof_sqe *s, int write, uint32_t nsid, uint64_t slba,
                                uint32_t nlb);
DW_EXTERN void dw_nvmeof_sqe_flush(dw_nvmeof_sqe *s, uint32_t nsid);

/* ---- Response capsule (CQE) ------------------------------------------- */

typedef struct dw_nvmeof_cqe {
    uint64_t result; /* command specific (DW0, DW1) */
    uint16_t sqhd, sqid, cid;
    uint16_t status; /* as on the wire: phase bit 0, SC 8:1, SCT 11:9, CRD, M, DNR */
} dw_nvmeof_cqe;

/** The status field without the phase bit: SCT << 8 | SC. 0 is success. */
#define DW_NVME_STATUS(st) ((uint16_t)(((st) >> 1) & 0x7ff))
#define DW_NVME_SCT(st) ((unsigned)(((st) >> 9) & 7))
#define DW_NVME_SC(st) ((unsigned)(((st) >> 1) & 0xff))
#define DW_NVME_DNR(st) ((unsigned)(((st) >> 15) & 1))

DW_EXTERN int dw_nvmeof_cqe_encode(uint8_t *out, size_t cap, const dw_nvmeof_cqe *c);
/** Reads 16 octets. Returns 16 or DW_ERR_NEED_MORE. */
DW_EXTERN int dw_nvmeof_cqe_decode(dw_nvmeof_cqe *c, const uint8_t *in, size_t len);
/**
 * The name of a completion status as on the wire (phase bit ignored):
 * "success", "invalid field in command", "LBA out of range", "connect
 * invalid host", ...; fabrics=1 reads command-specific codes as a Fabrics
 * command's (Connect, Property). "unknown status" when not named.
 */
DW_EXTERN const char *dw_nvmeof_status_str(uint16_t status, int fabrics);

/* ---- Fabrics Connect data (NVMe-oF 1.1 Figure 20) --------------------- */

typedef struct dw_nvmeof_connect_data {
    uint8_t hostid[16];
    uint16_t cntlid; /* 0xffff: any (the admin queue of a dynamic controller) */
    char subnqn[DW_NVMEOF_NQN_FIELD];
    char hostnqn[DW_NVMEOF_NQN_FIELD];
} dw_nvmeof_connect_data;

/** Writes 1024 octets. Returns 1024, DW_ERR_NOSPACE, or DW_ERR_INVAL (an
 *  NQN empty or longer than 223). */
DW_EXTERN int dw_nvmeof_connect_data_encode(uint8_t *out, size_t cap,
                                            const dw_nvmeof_connect_data *d);
/** Reads 1024 octets. Returns 1024, DW_ERR_NEED_MORE, or DW_ERR_MALFORMED
 *  (an NQN field without its NUL). */
DW_EXTERN int dw_nvmeof_connect_data_decode(dw_nvmeof_connect_data *d, const uint8_t *in,
                                            size_t len);

/* ---- Identify and Discovery Log data ---------------------------------- */

typedef struct dw_nvmeof_id_ctrl {
    uint16_t vid, ssvid, cntlid;
    char sn[21], mn[41], fr[9]; /* trailing spaces removed */
    uint8_t mdts;               /* 2^mdts minimum pages; 0: no limit */
    uint32_t ver;
    uint32_t nn; /* namespaces */
    uint32_t ioccsz, iorcsz; /* in 16-octet units */
    uint16_t maxcmd;
    char subnqn[DW_NVMEOF_NQN_FIELD];
} dw_nvmeof_id_ctrl;

typedef struct dw_nvmeof_id_ns {
    uint64_t nsze, ncap, nuse; /* in blocks */
    uint8_t flbas, nlbaf;
    uint32_t lba_size; /* of the format in use: 2^LBADS */
} dw_nvmeof_id_ns;

/** Reads 4096 octets of Identify Controller. Returns 4096 or DW_ERR_NEED_MORE. */
DW_EXTERN int dw_nvmeof_id_ctrl_decode(dw_nvmeof_id_ctrl *c, const uint8_t *in, size_t len);
/** Reads Identify Namespace. DW_ERR_MALFORMED: the format's LBADS is below
 *  9 or above 16 (a non-zero size field said so) or FLBAS above NLBAF. */
DW_EXTERN int dw_nvmeof_id_ns_decode(dw_nvmeof_id_ns *n, const uint8_t *in, size_t len);

typedef struct dw_nvmeof_disc_hdr {
    uint64_t genctr, numrec;
    uint16_t recfmt;
} dw_nvmeof_disc_hdr;

typedef struct dw_nvmeof_disc_entry {
    uint8_t trtype, adrfam, subtype, treq;
    uint16_t portid, cntlid, asqsz;
    char trsvcid[33], traddr[257], subnqn[DW_NVMEOF_NQN_FIELD + 1];
} dw_nvmeof_disc_entry;

/** The log's header (the first 1024 octets). Returns 1024 or NEED_MORE. */
DW_EXTERN int dw_nvmeof_disc_hdr_decode(dw_nvmeof_disc_hdr *h, const uint8_t *in, size_t len);
/** One 1024-octet entry. Returns 1024 or DW_ERR_NEED_MORE. */
DW_EXTERN int dw_nvmeof_disc_entry_decode(dw_nvmeof_disc_entry *e, const uint8_t *in,
                                          size_t len);
/** "rdma", "tcp", "fc", "loop", or "unknown" for a TRTYPE. */
DW_EXTERN const char *dw_nvmeof_trtype_str(uint8_t trtype);

/* ---- The host --------------------------------------------------------- */

typedef struct dw_nvmeof_host dw_nvmeof_host;

/** Where the controller's bring-up is. */
typedef enum dw_nvmeof_host_state {
    DW_NVMEOF_HOST_IDLE = 0,    /* admin queue not started */
    DW_NVMEOF_HOST_BRINGUP = 1, /* Connect .. Identify on the admin queue */
    DW_NVMEOF_HOST_READY = 2,   /* enabled and identified: I/O queues may connect */
    DW_NVMEOF_HOST_FAILED = 3   /* a protocol error stopped it (on_error said why) */
} dw_nvmeof_host_state;

/** What went wrong (on_error). */
typedef enum dw_nvmeof_err_kind {
    DW_NVMEOF_E_STATUS = 1,     /* a command completed with an error status */
    DW_NVMEOF_E_CM = 2,         /* the target's accept was bad */
    DW_NVMEOF_E_CID = 3,        /* a response with a command id not outstanding */
    DW_NVMEOF_E_SHORT = 4,      /* a response not 16 octets */
    DW_NVMEOF_E_INVALIDATE = 5, /* Send with Invalidate of another key */
    DW_NVMEOF_E_QP = 6,         /* the queue pair stopped (Terminate) */
    DW_NVMEOF_E_TIMEOUT = 7,    /* CSTS.RDY not set within CAP.TO */
    DW_NVMEOF_E_CONTROLLER = 8  /* CSTS.CFS set, or a value out of range */
} dw_nvmeof_err_kind;

typedef struct dw_nvmeof_error {
    dw_nvmeof_err_kind kind;
    int code;        /* the DW_ERR_* the failing call returns */
    uint16_t qid;    /* the queue */
    uint16_t cid;    /* STATUS, CID, INVALIDATE: the command id */
    uint16_t status; /* STATUS: as on the wire (dw_nvmeof_status_str) */
    uint8_t opcode;  /* STATUS: the command's opcode (0x7f: Fabrics) */
    uint32_t value;  /* SHORT: the length; INVALIDATE: the STag; CM: the field */
    const char *what; /* a short static description of the step */
} dw_nvmeof_error;

/** A command of the caller's that completed (on_done). */
typedef struct dw_nvmeof_done {
    uint64_t tag; /* the caller's, from dw_nvmeof_host_submit() */
    uint16_t qid;
    dw_nvmeof_cqe cqe;
    int invalidated; /* the response was a Send with Invalidate */
} dw_nvmeof_done;

typedef struct dw_nvmeof_host_callbacks {
    /** Required: send one ULPDU of queue qid (as dw_qp_callbacks.send). */
    int (*send)(dw_nvmeof_host *h, uint16_t qid, const uint8_t *hdr, size_t hlen,
                const uint8_t *payload, size_t plen, void *user_data);
    /** Optional: the largest ULPDU of queue qid (as dw_qp_callbacks.seg_max). */
    size_t (*seg_max)(dw_nvmeof_host *h, uint16_t qid, void *user_data);
    /** Optional: queue 0: the controller is READY; queue q > 0: connected. */
    void (*on_ready)(dw_nvmeof_host *h, uint16_t qid, void *user_data);
    /** Optional: a caller's command completed (any status: see also on_error). */
    void (*on_done)(dw_nvmeof_host *h, const dw_nvmeof_done *d, void *user_data);
    /** Optional: every protocol error, as it happens. */
    void (*on_error)(dw_nvmeof_host *h, const dw_nvmeof_error *e, void *user_data);
    /** Optional: a Terminate sent (received 0) or received on queue qid. */
    void (*on_terminate)(dw_nvmeof_host *h, uint16_t qid, const dw_rdmap_term *t, int received,
                         void *user_data);
} dw_nvmeof_host_callbacks;

typedef struct dw_nvmeof_host_settings {
    /** Required: the subsystem NQN (DW_NVMEOF_DISCOVERY_NQN: a discovery
     *  controller, which has no namespaces and no I/O queues). */
    const char *subnqn;
    /** The host NQN (default "nqn.2014-08.org.nvmexpress:uuid:" + hostid). */
    const char *hostnqn;
    /** The host identifier (default all zero: give one). */
    uint8_t hostid[16];
    /** I/O queues (default 1; 0..64; 0 for a discovery controller). */
    unsigned io_queues;
    /** Entries of each I/O queue (default 32; 2..1024); commands
     *  outstanding at once on one are one fewer, and no more than the
     *  controller's CAP.MQES and the accept's CRQSIZE allow. */
    unsigned queue_size;
    /** Keep Alive Timeout asked for in Connect, ms (default 5000; 0: none). */
    uint32_t kato_ms;
    /** Namespace to identify (default 1). */
    uint32_t nsid;
    /** Ask the target to answer with Send with Invalidate (default 1). */
    int invalidate;
    /** The allocator (NULL: the C library's). Must outlive the object. */
    const dw_mem *mem;
} dw_nvmeof_host_settings;

DW_EXTERN void dw_nvmeof_host_settings_default(dw_nvmeof_host_settings *s);

/** Creates a host (settings required, subnqn set; callbacks.send
 *  required). Returns 0, DW_ERR_INVAL or DW_ERR_NOMEM. */
DW_EXTERN int dw_nvmeof_host_new(dw_nvmeof_host **ph, const dw_nvmeof_host_settings *settings,
                                 const dw_nvmeof_host_callbacks *callbacks, void *user_data);
/** Frees a host and its queue pairs; NULL is allowed. */
DW_EXTERN void dw_nvmeof_host_del(dw_nvmeof_host *h);

/**
 * The CM private data for queue qid's MPA request (32 octets into out).
 * Returns 32, DW_ERR_INVAL (qid above io_queues) or DW_ERR_NOSPACE.
 */
DW_EXTERN int dw_nvmeof_host_cm_req(dw_nvmeof_host *h, uint16_t qid, uint8_t *out, size_t cap);

/** The MPA connection of a queue as agreed (from the start-up). */
typedef struct dw_nvmeof_queue_conn {
    uint32_t mulpdu;  /* MPA's MULPDU */
    dw_mpa_rtr rtr;   /* peer-to-peer RTR to send (DW_MPA_RTR_NONE: none) */
    uint16_t ird;     /* the Read Requests we agreed to take at once */
    const uint8_t *pd; /* the target's private data (after the IRD/ORD words) */
    size_t pd_len;
} dw_nvmeof_queue_conn;

/**
 * Starts queue qid on its connection: checks the accept (pd: a 32-octet
 * dw_nvmeof_cm_rep, record format 0, CRQSIZE at least 1), makes the queue
 * pair and sends the Connect capsule. Queue 0 first; an I/O queue only
 * once the controller is READY. Returns 0, DW_ERR_PROTO (a bad accept:
 * on_error says which field), DW_ERR_STATE, DW_ERR_INVAL, DW_ERR_NOMEM or
 * the send callback's error.
 */
DW_EXTERN int dw_nvmeof_host_queue_start(dw_nvmeof_host *h, uint16_t qid,
                                         const dw_nvmeof_queue_conn *c);

/** Feeds one verified ULPDU of queue qid. Returns 0, DW_ERR_PROTO (a
 *  protocol error: on_error said which; the host is FAILED), DW_ERR_STATE
 *  or the send callback's error. */
DW_EXTERN int dw_nvmeof_host_recv(dw_nvmeof_host *h, uint16_t qid, const uint8_t *ulpdu,
                                  size_t len);

/**
 * The caller's clock, in ms (any origin, never going back): sends Keep
 * Alive on the admin queue every KATO/2, polls CSTS.RDY during bring-up
 * and fails it past CAP.TO. Returns 0, DW_ERR_TIMEOUT (the host is FAILED)
 * or the send callback's error. *next_ms (may be NULL) receives when to
 * call again.
 */
DW_EXTERN int dw_nvmeof_host_tick(dw_nvmeof_host *h, uint64_t now_ms, uint64_t *next_ms);

/** Data direction of a command. */
typedef enum dw_nvmeof_dir {
    DW_NVMEOF_NONE = 0,
    DW_NVMEOF_FROM_TARGET = 1, /* a read: the target RDMA Writes into buf */
    DW_NVMEOF_TO_TARGET = 2    /* a write: the target RDMA Reads buf */
} dw_nvmeof_dir;

/**
 * Submits a command on queue qid (built by a dw_nvmeof_sqe_* builder; the
 * host sets cid, flags and the SGL): buf (len octets, 1..2^24-1, NULL
 * when dir is NONE) is registered for this one command until its response.
 * on_done reports it with tag. Returns 0, DW_ERR_NOSPACE (the queue's
 * commands outstanding are at the limit: wait for a completion),
 * DW_ERR_STATE (the queue is not connected, or the host FAILED),
 * DW_ERR_INVAL, or the send callback's error.
 */
DW_EXTERN int dw_nvmeof_host_submit(dw_nvmeof_host *h, uint16_t qid, const dw_nvmeof_sqe *sqe,
                                    dw_nvmeof_dir dir, void *buf, size_t len, uint64_t tag);

DW_EXTERN dw_nvmeof_host_state dw_nvmeof_host_get_state(const dw_nvmeof_host *h);
/** Commands outstanding on queue qid, and the most it takes at once. */
DW_EXTERN unsigned dw_nvmeof_host_inflight(const dw_nvmeof_host *h, uint16_t qid);
DW_EXTERN unsigned dw_nvmeof_host_depth(const dw_nvmeof_host *h, uint16_t qid);

/** What the bring-up learnt (valid once READY; id_ns only with namespaces). */
typedef struct dw_nvmeof_ctrl_info {
    uint16_t cntlid;
    uint64_t cap;
    uint32_t vs, cc, csts;
    dw_nvmeof_id_ctrl id;
    dw_nvmeof_id_ns ns;
    int have_ns;
    uint8_t id_raw[DW_NVMEOF_IDENTIFY_LEN]; /* Identify Controller as received */
} dw_nvmeof_ctrl_info;

DW_EXTERN const dw_nvmeof_ctrl_info *dw_nvmeof_host_info(const dw_nvmeof_host *h);

/** The queue pair of queue qid (NULL before it started): statistics, last
 *  Terminate. */
DW_EXTERN dw_qp *dw_nvmeof_host_qp(dw_nvmeof_host *h, uint16_t qid);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_NVMEOF_H */
