/* SPDX-License-Identifier: MIT */
/* TCP's own counters for one connection (Linux TCP_INFO), for `perf`: read
 * here in the tool, not offered by the library. */
#ifndef DW_CLI_TCP_STATS_H
#define DW_CLI_TCP_STATS_H

#include <stdint.h>

typedef struct cli_tcp_stats {
    uint32_t total_retrans; /* segments retransmitted over the connection */
    uint64_t bytes_retrans; /* octets retransmitted (0 where not reported) */
    uint64_t bytes_acked;   /* octets the peer acknowledged (0 where not reported) */
    uint32_t rtt_us;        /* smoothed round-trip time, microseconds */
    uint32_t snd_mss;       /* the sending MSS the kernel uses now */
    uint32_t snd_cwnd;      /* congestion window, segments */
} cli_tcp_stats;

/* Reads the counters of a connected TCP socket: 0, or -1 (errno set). */
int cli_tcp_stats_get(int fd, cli_tcp_stats *st);

#endif
