/* SPDX-License-Identifier: MIT */
/* ddpwire analyze: a real link for the measured modes (packing, align).
 *
 * Two network namespaces of our own, joined by a veth pair (segmentation
 * and receive offloads off, so a capture shows wire segments), a server
 * in namespace B and a client in namespace A, each in a child process, and
 * a libpcap capture on B's end that counts segments per direction. Needs
 * root; everything made is removed on every exit path. */
#ifndef DW_ANALYZE_NET_H
#define DW_ANALYZE_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define AN_ADDR_B "10.199.9.2" /* the server's address (namespace B) */
#define AN_RES_MAX 256u        /* largest result a side hands back */

typedef struct an_net {
    char ns[2][32];   /* 0: A (client), 1: B (server) */
    char veth[2][16];
    int made_ns[2], made_veth;
    unsigned mtu;
    /* client and server each stay on one CPU (-1: anywhere): a sender
     * that moves between CPUs feeds the veth through two backlogs, which
     * reorders; two CPUs when there are, like two hosts */
    int cpu[2];
} an_net;

/* One direction of the capture (0: client to server, 1: back). */
typedef struct an_dir {
    uint64_t frames;   /* all TCP segments */
    uint64_t data;     /* segments with payload */
    uint64_t acks;     /* pure ACKs: no payload, no SYN/FIN/RST */
    uint64_t ctl;      /* SYN, FIN or RST without payload */
    uint64_t octets;   /* frame octets as captured (Ethernet header on) */
    uint64_t payload;  /* TCP payload octets */
    uint64_t rexmit;   /* data segments starting where an earlier one did */
    uint64_t reorder;  /* others arriving below the highest sequence seen */
    uint64_t max_payload;
} an_dir;

typedef struct an_counts {
    an_dir d[2];
    uint64_t drops; /* kernel drops reported by libpcap */
} an_counts;

/* Where a side runs. */
typedef struct an_ctx {
    uint16_t port;
    int ready_fd; /* server: an_ready() once listening */
} an_ctx;

/* A side's work, in its namespace in a child process: fills res (res_len
 * octets of an_run, at most AN_RES_MAX) and returns 0, or 1 after printing
 * why. */
typedef int (*an_fn)(void *arg, void *res, const an_ctx *c);

/* Creates the namespaces and the veth with this MTU; TCP timestamps off
 * in both unless timestamps (so EMSS = MTU - 40 as in the analysis text).
 * Returns 0, 77 when this machine cannot (not root, no namespaces, no
 * veth: printed), 5 when it could not complete (out of memory or
 * processes: said), or 1 after printing why. */
int an_net_up(an_net *n, unsigned mtu, int timestamps);

/* Removes what an_net_up made; also run at exit and on SIGINT/TERM/HUP. */
void an_net_down(an_net *n);

/* In a side (or the capture): "ddpwire analyze: could not complete: WHAT:
 * WHY" on stderr, and the process ends with status 5 (CLI_EXIT_RESOURCE)
 * whatever it returns then. Returns 1 (a side's failure). */
int an_cannot(const char *what, const char *why);
/* Whether an_cannot() was said in this process. */
int an_resource_failed(void);

/* Server: listening now. */
void an_ready(const an_ctx *c);

/* Runs server (namespace B) and, once it listens, client (namespace A) on
 * port, with the capture around them (the last ACKs and FIN included).
 * sres/cres (res_len octets each) receive the sides' results. Returns 0,
 * 5 when a side, the capture or this process could not complete (it said
 * why: an_cannot()), or 1 after printing why. */
int an_run(const an_net *n, uint16_t port, an_fn server, an_fn client, void *arg,
           void *sres, void *cres, size_t res_len, an_counts *counts);

/* Cuts a message of len octets into DDP tagged segments (RDMA Write, TO
 * from 0, L on the last) of at most maxu octets each, header included,
 * one after another in out, each one an entry of v. Returns the number of
 * records, 0 when out (cap) or v (nv) is too small or maxu <= 14. */
size_t an_ddp_records(uint8_t *out, size_t cap, struct iovec *v, size_t nv, size_t len,
                      size_t maxu, uint32_t stag);

/* TCP counters of the current namespace that explain a run (/proc/net
 * netstat and snmp): out[i] is an_ctr_names[i], 0 when absent. */
#define AN_NCTR 10
extern const char *const an_ctr_names[AN_NCTR];
void an_netstat(uint64_t out[AN_NCTR]);

/* Prints "who: name delta, ..." for the counters that moved from a to b. */
void an_print_ctrs(const char *who, const uint64_t a[AN_NCTR], const uint64_t b[AN_NCTR]);

#endif
