/* SPDX-License-Identifier: MIT */
/* ddpwire listen --keep-open: the event-loop server (listen_server.c). */
#ifndef DW_LISTEN_SERVER_H
#define DW_LISTEN_SERVER_H

#include <ddpwire/mpa_sock.h>

typedef struct srv_opts {
    int echo, records;       /* echo records back, or write them to stdout */
    uint64_t max_conns;      /* accept pauses when this many are open */
    int startup_ms;          /* accepted -> MPA mode (0: no limit) */
    int frame_ms;            /* a frame's first octet -> its last */
    int idle_ms;             /* no octet either way (0: no limit) */
    int stall_ms;            /* output queued and none of it taken */
    unsigned turn_records;   /* records per connection per loop turn */
    unsigned turn_reads;     /* reads per connection per loop turn */
    unsigned show;           /* failures described on stderr (then counted only) */
    int quiet;               /* no summary */
} srv_opts;

/* Serves connections on the listening lfd until SIGINT or SIGTERM, then
 * prints a summary; returns the exit status. */
int serve_many(int lfd, const dw_sock_settings *base, const srv_opts *so);

#endif
