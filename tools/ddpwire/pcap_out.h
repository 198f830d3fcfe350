/* SPDX-License-Identifier: MIT */
/* pcap files (classic format, microseconds, little-endian): the tool's one
 * writer, used by tcprdma synth and ipoib sim/pcap. Written through
 * cli_outfile: complete or removed, never cut. */
#ifndef DW_PCAP_OUT_H
#define DW_PCAP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

typedef struct pcap_out {
    FILE *f;
    cli_outfile o;
    uint32_t snaplen;
} pcap_out;

/* Creates path (its temporary) and writes the file header: 0, or -1 (errno
 * set, nothing said). */
int pcap_out_open(pcap_out *p, const char *path, unsigned linktype, uint32_t snaplen);
/* One record at usec microseconds, cut at the snap length. 0 or -1. */
int pcap_out_write(pcap_out *p, uint64_t usec, const uint8_t *frame, size_t len);
/* Completes the file (renamed into place): 0; or removes it and returns
 * CLI_EXIT_RESOURCE after "PROG: could not complete: writing PATH: why".
 * NULL-safe after a failed open (0). */
int pcap_out_close(pcap_out *p, const char *prog);
/* Removes the file (another failure is being reported); NULL-safe. */
void pcap_out_abort(pcap_out *p);

#endif
