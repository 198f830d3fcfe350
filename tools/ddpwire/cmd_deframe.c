/* SPDX-License-Identifier: MIT */
/* ddpwire deframe: MPA stream on stdin -> length-prefixed records on stdout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define IN_CAP (1u << 20)
#define OUT_CAP (1u << 20)

static void help(void)
{
    printf("usage: ddpwire deframe [--start-seq N] [--no-markers] [--no-crc] < stream > records\n"
           "Checks every FPDU (CRC, markers, lengths) of an MPA stream that starts at\n"
           "MPA position 0 and writes each ULPDU as a record: a 2-octet big-endian\n"
           "length and the octets. On a bad stream it writes the records before the\n"
           "bad FPDU, prints one line naming the MPA error code (1, 2 or 3) and the\n"
           "FPDU's stream offset, and exits 1. Markers are checked in both FPDUPTR\n"
           "readings, so --ptr-base and --emss are accepted and not needed.\n");
}

typedef struct ctx {
    uint8_t *out;
    size_t fill;
    int wfail; /* errno of the failed write */
    uint64_t records;
    dw_mpa_rx_error err;
    int failed;
} ctx;

static int flush(ctx *c)
{
    if (!c->wfail && cli_write_all(STDOUT_FILENO, c->out, c->fill))
        c->wfail = errno ? errno : EIO;
    c->fill = 0;
    return c->wfail;
}

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)off;
    if (c->fill + 2 + len > OUT_CAP && flush(c))
        return 1;
    c->out[c->fill++] = (uint8_t)(len >> 8);
    c->out[c->fill++] = (uint8_t)len;
    memcpy(c->out + c->fill, d, len);
    c->fill += len;
    c->records++;
    return 0;
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    ctx *c = u;
    (void)rx;
    c->err = *e;
    c->failed = 1;
}

static void report(const ctx *c)
{
    const dw_mpa_rx_error *e = &c->err;
    const char *what = e->code == DW_MPA_ERR_CLOSED ? "stream ends inside the FPDU"
                                                    : dw_mpa_strerror(e->code);
    fprintf(stderr,
            "ddpwire deframe: MPA error %d (%s) in the FPDU at stream offset %llu "
            "(TCP seq %u); %llu records written before it\n",
            (int)e->code, what, (unsigned long long)e->offset, e->seq,
            (unsigned long long)c->records);
}

int cmd_deframe(int argc, char **argv)
{
    cli_mpa_opts mo;
    cli_mpa_defaults(&mo);
    int pr = cli_parse(argc, argv, "ddpwire deframe", help, NULL, 0, cli_mpa_option, &mo);
    if (pr != CLI_GO)
        return pr;
    dw_mpa_rx_settings rs;
    cli_mpa_rx_settings(&mo, &rs);
    ctx c = {0};
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, NULL};
    dw_mpa_rx *rx = NULL;
    uint8_t *in = malloc(IN_CAP);
    c.out = malloc(OUT_CAP);
    if (!in || !c.out || dw_mpa_rx_new(&rx, &rs, &cb, &c) != 0) {
        free(in);
        free(c.out);
        dw_mpa_rx_del(rx);
        return cli_nomem("ddpwire deframe", "the receiver and its buffers");
    }
    int status = 0, nomem = 0;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, in, IN_CAP);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            status = cli_cannot("ddpwire deframe", "reading stdin", strerror(errno));
            break;
        }
        if (n == 0) {
            dw_mpa_rx_close(rx, DW_CLOSE_FIN); /* MPA 9: code 1 if mid-FPDU */
            break;
        }
        size_t at = 0;
        while (at < (size_t)n && !c.failed && !c.wfail) {
            ssize_t r = dw_mpa_rx_feed(rx, in + at, (size_t)n - at);
            if (r == DW_ERR_NOMEM) {
                nomem = 1;
                break;
            }
            if (r < 0)
                break;
            at += (size_t)r;
        }
        if (c.failed || c.wfail || nomem)
            break;
    }
    flush(&c);
    if (c.wfail) /* what was not written was not checked either */
        status = cli_cannot("ddpwire deframe", "writing stdout", strerror(c.wfail));
    else if (nomem)
        status = cli_nomem("ddpwire deframe", "the receiver");
    else if (c.failed && !(c.err.code == DW_MPA_ERR_CLOSED && c.err.clean)) {
        report(&c);
        status = 1;
    }
    dw_mpa_rx_del(rx);
    free(in);
    free(c.out);
    return status;
}
