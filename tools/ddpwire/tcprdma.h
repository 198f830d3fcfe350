/* SPDX-License-Identifier: MIT */
/* ddpwire tcprdma: shared pieces of synth (workloads, pcap writer) and place. */
#ifndef DW_TCPRDMA_H
#define DW_TCPRDMA_H

#include <ddpwire/tcpopt.h>

#include <stdint.h>
#include <stdio.h>

#include "pcap_out.h"

#define TW_MAX_XFERS 256
#define TW_MAX_RANGES 1024

/* A workload: the client's request stream and the server's reply stream,
 * whose transfers (RIDs, buffer offsets, stream ranges) are marked. */
typedef struct tw_work {
    uint8_t *req, *resp;
    size_t req_len, resp_len;
    dw_tcpopt_transfer x[TW_MAX_XFERS];
    dw_tcpopt_range r[TW_MAX_RANGES];
    size_t nx, nr;
    uint64_t msgs[TW_MAX_XFERS * 2];
    size_t nm;
    uint16_t server_port;
} tw_work;

typedef struct tw_opts {
    const char *kind;   /* nfs, http, cifs, layout */
    const char *layout; /* for layout */
    uint64_t size;      /* octets per body */
    unsigned count;     /* bodies */
    uint64_t seed;
    int no_total, unsolicited;
} tw_opts;

/* Builds the workload (allocates req/resp); prints a line and returns -1
 * on a bad layout or size. */
int tw_build(tw_work *w, const tw_opts *o); /* 0, -1 (bad options), CLI_EXIT_RESOURCE */
void tw_free(tw_work *w);

/* Octets of a transfer. */
uint64_t tw_xfer_len(const dw_tcpopt_transfer *x);


int tcprdma_synth(int argc, char **argv);
int tcprdma_place(int argc, char **argv);

#endif
