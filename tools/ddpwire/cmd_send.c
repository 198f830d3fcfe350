/* ddpwire send: stdin or a file, cut into records, over MPA to a listener. */
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define CHUNK (1u << 20)

static void help(void)
{
    printf("usage: ddpwire send HOST:PORT [FILE|-] [--record-size N]\n"
           "                    [--framing mpa|ift] [--startup immediate|negotiate] [--no-markers]\n"
           "                    [--pack] [--timeout MS]\n"
           "Connects to an MPA listener and sends the input cut into records of at\n"
           "most MULPDU octets (or N), then closes and waits for the peer to close.\n");
}

static int on_ulpdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                    uint64_t off, void *u)
{
    (void)hdr, (void)hlen;
    (void)rx, (void)d, (void)len, (void)off, (void)u;
    return 0; /* the listener sends nothing back */
}

/* Sends buf[0..n) as records of at most rs octets, in batches. */
static int send_chunk(dw_sock *s, const uint8_t *buf, size_t n, size_t rs)
{
    struct iovec v[256];
    size_t k = 0;
    for (size_t at = 0; at < n; at += rs) {
        v[k++] = (struct iovec){(void *)(buf + at), n - at < rs ? n - at : rs};
        if (k == 256 || at + rs >= n) {
            int rc = dw_sock_sendv(s, v, k);
            if (rc)
                return rc;
            k = 0;
        }
    }
    return 0;
}

int cmd_send(int argc, char **argv)
{
    dw_sock_opts o;
    uint64_t rs = 0;
    const char *where = NULL, *file = NULL;
    dw_sock_opts_default(&o);
    for (int i = 1; i < argc; i++) {
        int r = cli_sock_option(&o, argc, argv, &i);
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (r < 0)
            return 2;
        if (r)
            continue;
        if (!strcmp(argv[i], "--help")) {
            help();
            return 0;
        } else if (!strcmp(argv[i], "--record-size")) {
            if (cli_u64(argv[i++], v, 1, DW_MPA_ULPDU_MAX, &rs))
                return 2;
        } else if (argv[i][0] != '-' && !where) {
            where = argv[i];
        } else if ((argv[i][0] != '-' || !strcmp(argv[i], "-")) && !file) {
            file = argv[i];
        } else {
            fprintf(stderr, "ddpwire send: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    char host[256], port[32], err[256];
    if (!where || cli_hostport(where, host, sizeof host, port, sizeof port) || !host[0]) {
        fprintf(stderr, "ddpwire send: give HOST:PORT\n");
        return 2;
    }
    int in = file && strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
    if (in < 0) {
        perror(file);
        return 1;
    }
    o.cb = (dw_fr_rx_callbacks){on_ulpdu, NULL, NULL};
    dw_sock *s;
    if (dw_sock_connect(&s, host, port, &o, err, sizeof err)) {
        fprintf(stderr, "ddpwire send: %s\n", err);
        return 1;
    }
    dw_sock_info info;
    dw_sock_get_info(s, &info);
    size_t rec = rs ? (size_t)rs : info.mulpdu;
    uint8_t *buf = malloc(CHUNK);
    uint64_t total = 0;
    int rc = buf ? 0 : DW_ERR_NOMEM;
    size_t fill = 0; /* a partial record waits for the next read */
    ssize_t n = 1;
    while (!rc && n > 0) {
        n = cli_read_some(in, buf + fill, CHUNK - fill);
        if (n < 0) {
            rc = DW_ERR_IO;
            break;
        }
        fill += (size_t)n;
        total += (uint64_t)n;
        size_t whole = n ? fill / rec * rec : fill; /* at EOF: the rest too */
        rc = send_chunk(s, buf, whole, rec);
        memmove(buf, buf + whole, fill - whole);
        fill -= whole;
    }
    if (!rc)
        rc = dw_sock_shutdown(s);
    ssize_t r = 0;
    while (!rc && (r = dw_sock_recv(s)) > 0) /* wait for the peer's close */
        ;
    int e = errno;
    if (!rc && r != DW_ERR_CLOSED)
        rc = (int)r;
    dw_sock_close(s);
    free(buf);
    if (rc) {
        fprintf(stderr, "ddpwire send: %s%s\n",
                rc == DW_ERR_IO ? strerror(e) : dw_strerror(rc),
                rc == DW_ERR_IO || rc == DW_ERR_PROTO
                    ? " (did the listener refuse? both ends need the same --startup)"
                    : "");
        return 1;
    }
    fprintf(stderr, "ddpwire send: %llu octets in records of up to %zu (EMSS %u, %s, markers %s)\n",
            (unsigned long long)total, rec, info.emss,
            o.startup == DW_SOCK_NEGOTIATE ? "negotiated" : "immediate",
            info.tx_markers ? "on" : "off");
    return 0;
}
