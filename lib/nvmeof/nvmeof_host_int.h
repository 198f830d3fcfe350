/* SPDX-License-Identifier: MIT */
/* The NVMe-oF host's insides, shared by nvmeof_host.c (queues, commands)
 * and nvmeof_bringup.c (the controller's bring-up and Keep Alive). */
#ifndef DW_NVMEOF_HOST_INT_H
#define DW_NVMEOF_HOST_INT_H

#include <ddpwire/nvmeof.h>

/* Entries of the admin queue, as Linux (NVME_AQ_DEPTH). */
#define NV_AQ_ENTRIES 32u
/* A receive buffer: a response is 16 octets; a longer Send is reported. */
#define NV_RBUF 64u
/* CSTS.RDY polling period during bring-up. */
#define NV_POLL_MS 10u

/* Who a command belongs to: the caller, or a step of the host's own. */
typedef enum nv_kind { NV_USER = 0, NV_CONNECT, NV_STEP, NV_KA } nv_kind;

typedef struct nv_slot {
    int used;
    uint16_t cid;
    uint8_t gen, opcode;
    nv_kind kind;
    uint32_t stag; /* 0: no buffer registered */
    uint64_t tag;
    uint8_t capsule[DW_NVMEOF_SQE_LEN];
} nv_slot;

typedef struct nv_queue {
    struct dw_nvmeof_host *h;
    uint16_t qid;
    int started, live;
    unsigned entries; /* SQ entries asked for (HSQSIZE + 1) */
    unsigned depth;   /* commands outstanding at most */
    unsigned inflight, next;
    dw_qp *qp;
    nv_slot *slots;                /* entries of them */
    uint8_t (*rbuf)[NV_RBUF];      /* entries + 1 receive buffers */
    uint8_t cdata[DW_NVMEOF_CONNECT_DATA_LEN];
    int rc; /* the first error inside a queue pair callback */
} nv_queue;

/* Bring-up steps, in order (NVMe 1.4 7.6.1 for a Fabrics controller). */
typedef enum nv_step {
    NV_S_CONNECT = 0,
    NV_S_CAP,
    NV_S_VS,
    NV_S_CC,
    NV_S_CSTS,
    NV_S_ID_CTRL,
    NV_S_ID_NS,
    NV_S_DONE
} nv_step;

struct dw_nvmeof_host {
    dw_nvmeof_host_settings s;
    char subnqn[DW_NVMEOF_NQN_FIELD], hostnqn[DW_NVMEOF_NQN_FIELD];
    dw_nvmeof_host_callbacks cb;
    void *ud;
    dw_nvmeof_host_state state;
    int discovery;
    nv_step step;
    int step_busy;        /* a step's command is outstanding */
    unsigned nq;          /* io_queues + 1 */
    nv_queue *q;
    dw_nvmeof_ctrl_info info;
    uint8_t ns_raw[DW_NVMEOF_IDENTIFY_LEN];
    int have_clock, ka_busy;
    uint64_t now, last_ka, rdy_deadline, poll_at;
};

/* nvmeof_host.c */
int dw_nvh_submit(nv_queue *q, const dw_nvmeof_sqe *sqe, dw_nvmeof_dir dir, void *buf, size_t len,
              nv_kind kind, uint64_t tag);
int dw_nvh_fail(struct dw_nvmeof_host *h, const dw_nvmeof_error *e);

/* nvmeof_bringup.c */
int dw_nvh_step_next(struct dw_nvmeof_host *h);
int dw_nvh_step_done(struct dw_nvmeof_host *h, nv_queue *q, const nv_slot *sl,
                 const dw_nvmeof_cqe *c);
int dw_nvh_connect_done(struct dw_nvmeof_host *h, nv_queue *q, const dw_nvmeof_cqe *c);
int dw_nvh_send_connect(nv_queue *q);

#endif /* DW_NVMEOF_HOST_INT_H */
