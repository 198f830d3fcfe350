/* SPDX-License-Identifier: MIT */
/* ddpwire nvmeof: the socket glue around the library's NVMe-oF host (one
 * MPA connection per queue) shared by the subcommands of cmd_nvmeof.c. */
#ifndef DW_NVMEOF_TOOL_H
#define DW_NVMEOF_TOOL_H

#include <ddpwire/mpa_sock.h>
#include <ddpwire/nvmeof.h>

#define NVT_MAXQ 17

typedef struct nvt {
    /* options */
    const char *host, *port, *nqn, *hostnqn;
    int crc, json, quiet;
    unsigned queues, queue_size;
    uint32_t kato_ms, nsid, delay_ms;
    int timeout_ms, no_invalidate;
    /* state */
    dw_nvmeof_host *h;
    dw_sock *s[NVT_MAXQ];
    unsigned nq;
    int failed;           /* a protocol error was reported */
    char err[512];        /* the first one, for the summary */
    unsigned ready_io, want_io; /* I/O queues connected, wanted */
    void (*on_done)(struct nvt *t, const dw_nvmeof_done *d);
    void *ud;
} nvt;

/* Connects the admin queue and brings the controller up (READY), then
 * connects io I/O queues. 0, or 1 after printing why. */
int nvt_open(nvt *t, unsigned io);
/* Reads and feeds until cond(t) or until_ms (cli_now_ms) passes (-1: no
 * limit), ticking the host. 0, or 1 after printing why. */
int nvt_wait(nvt *t, int (*cond)(nvt *t), int64_t until_ms);
/* One round: waits at most ms for input on any queue and feeds it. */
int nvt_poll(nvt *t, int ms);
void nvt_close(nvt *t);

#endif /* DW_NVMEOF_TOOL_H */
