/* SPDX-License-Identifier: MIT */
/* ddpwire frame: length-prefixed records on stdin -> MPA stream on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define IN_CAP (4u << 20)
#define IOV_CAP 4096
#define FLUSH_AT 65536 /* keeps unsent scratch well inside the sender's ring */

static void help(void)
{
    printf("usage: ddpwire frame [--start-seq N] [--emss N] [--no-markers] [--no-crc]\n"
           "                     [--ptr-base draft|rfc5044] < records > stream\n"
           "Frames each record (2-octet big-endian length, then the octets) as one\n"
           "MPA FPDU, starting at MPA position 0. Records of 0 or more than 64768\n"
           "octets are refused (MPA 5.2). --start-seq only changes reported sequence\n"
           "numbers; --emss sets the segmentation advice and MULPDU shown with -v.\n"
           "--no-markers, --no-crc (or --markers off, --crc off): FPDUs without\n"
           "markers or with a zero CRC field (RFC 5044's modes; Linux siw: no markers).\n");
}

typedef struct out {
    struct iovec iov[IOV_CAP];
    int n;
    size_t bytes;
} out;

static int flush(out *o)
{
    int rc = cli_writev_all(STDOUT_FILENO, o->iov, o->n);
    o->n = 0;
    o->bytes = 0;
    return rc;
}

int cmd_frame(int argc, char **argv)
{
    cli_mpa_opts mo;
    int verbose = 0;
    cli_mpa_defaults(&mo);
    const cli_opt t[] = {CLI_FLAG("-v", &verbose)};
    int r = cli_parse(argc, argv, "ddpwire frame", help, t, CLI_N(t), cli_mpa_option, &mo);
    if (r != CLI_GO)
        return r;
    dw_mpa_tx_settings ts;
    cli_mpa_tx_settings(&mo, &ts);
    dw_mpa_tx *tx = NULL;
    uint8_t *in = malloc(IN_CAP);
    out *o = calloc(1, sizeof *o);
    if (!in || !o || dw_mpa_tx_new(&tx, &ts) != 0) {
        free(in);
        free(o);
        dw_mpa_tx_del(tx);
        return cli_nomem("ddpwire frame", "the sender and its buffers");
    }
    if (verbose)
        fprintf(stderr, "ddpwire frame: EMSS %u, MULPDU %u, markers %s\n", mo.emss,
                dw_mpa_tx_mulpdu(tx), mo.markers ? "on" : "off");
    size_t fill = 0, records = 0;
    uint64_t wire = 0, in_base = 0; /* input offset of in[0] */
    int status = 0, eof = 0;
    while (!eof && !status) {
        ssize_t n = cli_read_some(STDIN_FILENO, in + fill, IN_CAP - fill);
        if (n < 0) {
            status = cli_cannot("ddpwire frame", "reading stdin", strerror(errno));
            break;
        }
        eof = n == 0 || (size_t)n < IN_CAP - fill;
        fill += (size_t)n;
        size_t at = 0;
        while (fill - at >= 2) {
            size_t len = (size_t)in[at] << 8 | in[at + 1];
            if (fill - at < 2 + len)
                break;
            size_t need = dw_mpa_fpdu_len(dw_mpa_tx_pos(tx), len, mo.markers);
            if (o->bytes && (o->bytes + need > FLUSH_AT || o->n + DW_MPA_FPDU_IOV_MAX > IOV_CAP) &&
                flush(o)) {
                status = -1;
                break;
            }
            dw_mpa_fpdu_info info;
            ssize_t f = dw_mpa_tx_frame(tx, in + at + 2, len, o->iov + o->n,
                                        IOV_CAP - (size_t)o->n, &info);
            if (f == DW_ERR_NOMEM) {
                status = cli_nomem("ddpwire frame", "framing a record");
                break;
            }
            if (f < 0) {
                fprintf(stderr, "ddpwire frame: record %zu (input offset %zu, %zu octets): %s\n",
                        records, (size_t)(in_base + at), len, dw_strerror((int)f));
                status = 1;
                break;
            }
            o->n += (int)info.iovcnt;
            o->bytes += (size_t)f;
            wire += (uint64_t)f;
            records++;
            at += 2 + len;
        }
        if (status > 0)
            break;
        if (flush(o)) /* the iovecs point into in[]: send before moving it */
            status = -1;
        if (status)
            break;
        memmove(in, in + at, fill - at);
        fill -= at;
        in_base += at;
    }
    if (status < 0) /* a failed write: nothing after it was framed */
        status = cli_cannot("ddpwire frame", "writing stdout", strerror(errno));
    if (!status && fill) {
        fprintf(stderr, "ddpwire frame: input ends inside a record (%zu octets left over)\n", fill);
        status = 1;
    }
    if (verbose)
        fprintf(stderr, "ddpwire frame: %zu records, %llu octets of MPA stream\n", records,
                (unsigned long long)wire);
    dw_mpa_tx_del(tx);
    free(in);
    free(o);
    return status;
}
