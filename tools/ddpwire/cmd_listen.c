/* ddpwire listen: accept MPA connections, write what arrives to stdout. */
#include <ddpwire/mpa_sock.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void help(void)
{
    printf("usage: ddpwire listen [ADDR:]PORT [--records] [--keep-open]\n"
           "                      [--startup immediate|negotiate] [--no-markers]\n"
           "                      [--pack] [--timeout MS]\n"
           "Accepts an MPA connection and writes each verified record's payload to\n"
           "stdout (with --records: a 2-octet big-endian length before each). Exits\n"
           "when the first connection ends, unless --keep-open. Both ends must be\n"
           "given the same --startup (a mismatch is detected and reported).\n");
}

typedef struct ctx {
    int records;
    int werr;
    uint64_t n, bytes;
    dw_mpa_rx_error err;
    int failed;
} ctx;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    ctx *c = u;
    (void)rx, (void)off;
    uint8_t h[2] = {(uint8_t)(len >> 8), (uint8_t)len};
    if ((c->records && cli_write_all(STDOUT_FILENO, h, 2)) ||
        cli_write_all(STDOUT_FILENO, d, len))
        c->werr = 1;
    c->n++;
    c->bytes += len;
    return c->werr;
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    ctx *c = u;
    (void)rx;
    c->err = *e;
    c->failed = 1;
}

/* One connection: 0 when it ended cleanly. */
static int serve(int lfd, dw_sock_opts *o, ctx *c)
{
    char err[256];
    dw_sock *s;
    int records = c->records;
    memset(c, 0, sizeof *c);
    c->records = records;
    int rc = dw_sock_accept(&s, lfd, o, err, sizeof err);
    if (rc) {
        fprintf(stderr, "ddpwire listen: %s\n", err);
        return 1;
    }
    ssize_t r;
    while ((r = dw_sock_recv(s)) > 0 && !c->werr)
        ;
    if (r == DW_ERR_CLOSED && !c->werr)
        dw_sock_close(s);
    else
        dw_sock_abort(s); /* tell the sender with a reset */
    if (r == DW_ERR_CLOSED && !c->werr) {
        fprintf(stderr, "ddpwire listen: %llu records, %llu octets\n",
                (unsigned long long)c->n, (unsigned long long)c->bytes);
        return 0;
    }
    if (c->failed && c->err.code != DW_MPA_ERR_CLOSED)
        fprintf(stderr, "ddpwire listen: MPA error %d (%s) at stream offset %llu\n",
                (int)c->err.code, dw_mpa_strerror(c->err.code),
                (unsigned long long)c->err.offset);
    else if (r == DW_ERR_ENABLEMENT)
        fprintf(stderr, "ddpwire listen: enablement error: the peer's first octets are "
                        "not an MPA marker (is it in --startup negotiate, or not MPA?)\n");
    else
        fprintf(stderr, "ddpwire listen: connection ended: %s\n",
                c->werr ? "cannot write to stdout" : dw_strerror((int)r));
    return 1;
}

int cmd_listen(int argc, char **argv)
{
    dw_sock_opts o;
    ctx c;
    int keep = 0, records = 0;
    const char *where = NULL;
    dw_sock_opts_default(&o);
    o.timeout_ms = 0; /* a listener waits as long as its peer */
    for (int i = 1; i < argc; i++) {
        int r = cli_sock_option(&o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r)
            continue;
        if (!strcmp(argv[i], "--help")) {
            help();
            return 0;
        } else if (!strcmp(argv[i], "--keep-open")) {
            keep = 1;
        } else if (!strcmp(argv[i], "--records")) {
            records = 1;
        } else if (argv[i][0] != '-' && !where) {
            where = argv[i];
        } else {
            fprintf(stderr, "ddpwire listen: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    char host[256], port[32], err[256];
    if (!where || cli_hostport(where, host, sizeof host, port, sizeof port)) {
        fprintf(stderr, "ddpwire listen: give [ADDR:]PORT\n");
        return 2;
    }
    int lfd;
    if (dw_sock_listen(&lfd, host[0] ? host : NULL, port, err, sizeof err)) {
        fprintf(stderr, "ddpwire listen: %s\n", err);
        return 1;
    }
    o.cb = (dw_mpa_rx_callbacks){on_ulpdu, on_error, NULL};
    o.user_data = &c;
    int status;
    c.records = records;
    do
        status = serve(lfd, &o, &c);
    while (keep);
    close(lfd);
    return status;
}
