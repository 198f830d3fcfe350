/* SPDX-License-Identifier: MIT */
/* pcap files (classic format, microseconds, little-endian): the tool's one
 * writer, used by tcprdma synth and ipoib sim/pcap. */
#ifndef DW_PCAP_OUT_H
#define DW_PCAP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pcap_out {
    FILE *f;
    uint32_t snaplen;
} pcap_out;

/* Creates path and writes the file header. 0 or -1 (errno set). */
int pcap_out_open(pcap_out *p, const char *path, unsigned linktype, uint32_t snaplen);
/* One record at usec microseconds, cut at the snap length. 0 or -1. */
int pcap_out_write(pcap_out *p, uint64_t usec, const uint8_t *frame, size_t len);
/* Closes (NULL-safe); 0, or -1 when the file could not be completed. */
int pcap_out_close(pcap_out *p);

#endif
