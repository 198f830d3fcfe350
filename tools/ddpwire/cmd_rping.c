/* SPDX-License-Identifier: MIT */
/*
 * ddpwire rping: rdma-core's rping (librdmacm/examples/rping.c) over our
 * stack, either role. Per iteration the client Sends its start buffer's
 * address, STag and size; the server RDMA Reads it, Sends "go ahead"; the
 * client Sends its RDMA buffer's; the server RDMA Writes the data there and
 * Sends again; the client compares the two buffers (-V).
 */
#include <ddpwire/mpa_sock.h>
#include <ddpwire/qp.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define RPING_MIN 32u    /* rping: room for "rdma-ping-%d: " */
#define RPING_MAX 65535u /* rping: RPING_BUFSIZE - 1 */

typedef struct rp {
    int server, verbose, validate, persistent, quiet;
    uint64_t count, size, delay_ms;
    char host[256], port[32];
    dw_sock_settings o;
    /* one connection */
    dw_sock *s;
    dw_qp *qp;
    uint8_t *start, *rdma, recv[2][DW_RPING_INFO_LEN], send[DW_RPING_INFO_LEN];
    uint32_t start_stag, rdma_stag;
    unsigned recvs, reads; /* completions so far */
    int qp_rc;
    int nomem; /* a library call said DW_ERR_NOMEM: status 5 */
    uint64_t pdus, octets; /* ULPDUs our receiver verified */
    int debug;             /* -d */
} rp;

/* rc, noting DW_ERR_NOMEM (the run then ends with status 5). */
static int nm(rp *r, int rc)
{
    if (rc == DW_ERR_NOMEM)
        r->nomem = 1;
    return rc;
}

static void help(void)
{
    printf("usage: ddpwire rping -c|-s [-a ADDR] [-I ADDR] [-p PORT] [-C COUNT] [-S SIZE] [-V]\n"
           "                    [-v] [-d] [-P] [-t TOS] [--rev 1|2] [--no-crc] [--markers]\n"
           "                    [--retry-no-markers] [--p2p send|write|read] [--timeout MS]\n"
           "                    [--delay MS] [--quiet]\n"
           "rping's protocol (rdma-core) over MPA/DDP/RDMAP on TCP, negotiated start-up;\n"
           "rdma-core rping's flags mean the same here.\n"
           "  -c / -s        client / server role     -a ADDR  address (server: to bind)\n"
           "  -I ADDR        client: the source address to connect from\n"
           "  -t TOS         type of service of the connection's packets (0..255)\n"
           "  -d             debug: each work completion and Terminate on stderr\n"
           "  -q             accepted (rdma-core: a self-created QP; ours always is)\n"
           "  -p PORT        port (default 7174)      -C N     iterations (client; 0: forever)\n"
           "  -S SIZE        buffer size, %u..%u (default 64)\n"
           "  -V             verify the data          -v       print each ping's data\n"
           "  -P             server: serve connections one after another until killed\n"
           "  --rev N        MPA revision to ask for (default 2: RFC 6581 IRD/ORD)\n"
           "  --no-crc       do not ask for CRC (the peer may still)\n"
           "  --markers      ask for markers, and send them when asked (siw rejects them)\n"
           "  --retry-no-markers  after a reject, connect again without markers\n"
           "  --p2p KIND     RFC 6581 peer-to-peer with this RTR message (client offers it,\n"
           "                 server accepts it)\n"
           "  --delay MS     client: pause after the start-up before the first FPDU\n"
           "  --quiet        no summary line\n",
           RPING_MIN, RPING_MAX);
}

static int qsend(dw_qp *qp, const uint8_t *h, size_t hl, const uint8_t *p, size_t pl, void *u)
{
    (void)qp;
    return dw_sock_send_pdu(((rp *)u)->s, h, hl, p, pl);
}

/* DDP segments of the exact fill: each FPDU of a long message is EMSS octets */
static size_t qseg_max(dw_qp *qp, void *u)
{
    (void)qp;
    return dw_sock_fill_len(((rp *)u)->s);
}

static void qwc(dw_qp *qp, const dw_qp_wc *wc, void *u)
{
    rp *r = u;
    if (r->debug)
        fprintf(stderr, "ddpwire rping: completion op %d wr_id %llu len %u\n", (int)wc->op,
                (unsigned long long)wc->wr_id, (unsigned)wc->len);
    if (wc->op == DW_QP_WC_RECV) {
        if (wc->len != DW_RPING_INFO_LEN) /* rping: "Received bogus data" */
            r->qp_rc = DW_ERR_PROTO;
        r->recvs++;
        nm(r, dw_qp_post_recv(qp, wc->wr_id, r->recv[wc->wr_id], DW_RPING_INFO_LEN));
    } else if (wc->op == DW_QP_WC_READ) {
        r->reads++;
    }
}

static void qterm(dw_qp *qp, const dw_rdmap_term *t, int received, void *u)
{
    (void)qp, (void)u;
    fprintf(stderr, "ddpwire rping: Terminate %s: %s / %s / %s (0x%02x)\n",
            received ? "received" : "sent", dw_rdmap_term_layer_str(t->layer),
            dw_rdmap_term_etype_str(t->layer, t->etype),
            dw_rdmap_term_str(t->layer, t->etype, t->code), t->code);
}

/* Every ULPDU our MPA receiver verified (CRC, lengths) goes to the QP. */
static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hl, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    rp *r = u;
    (void)rx, (void)hdr, (void)hl, (void)off;
    r->pdus++;
    r->octets += len;
    int rc = dw_qp_recv(r->qp, d, len);
    if (rc && !r->qp_rc)
        r->qp_rc = rc;
    return rc != 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    (void)rx, (void)u;
    if (e->code != 1 || !e->clean)
        fprintf(stderr, "ddpwire rping: %s at stream offset %llu\n", dw_fr_error_str(e),
                (unsigned long long)e->offset);
}

/* Reads until *counter reaches want. 0, or an error (reported). */
static int wait_for(rp *r, const unsigned *counter, unsigned want, const char *what)
{
    while (*counter < want) {
        ssize_t n = dw_sock_recv(r->s);
        if (n == DW_ERR_NOMEM || r->qp_rc == DW_ERR_NOMEM || r->nomem) {
            r->nomem = 1;
            return DW_ERR_NOMEM;
        }
        if (r->qp_rc) {
            fprintf(stderr, "ddpwire rping: %s\n", r->qp_rc == DW_ERR_PROTO
                                                       ? "protocol error (see above)"
                                                       : dw_strerror(r->qp_rc));
            return -1;
        }
        if (n < 0) {
            if (n != DW_ERR_CLOSED || what)
                fprintf(stderr, "ddpwire rping: waiting for %s: %s\n", what ? what : "peer",
                        dw_strerror((int)n));
            return (int)n;
        }
    }
    return 0;
}

static int setup_qp(rp *r, int server)
{
    dw_sock_info si;
    dw_sock_info_get(r->s, &si);
    dw_qp_settings qs;
    dw_qp_settings_default(&qs);
    qs.mulpdu = si.mulpdu < DW_MPA_MULPDU_MIN ? DW_MPA_MULPDU_MIN : si.mulpdu;
    if (server)
        qs.rtr_expect = si.rtr;
    else
        qs.rtr_send = si.rtr;
    dw_qp_callbacks cb = {qsend, qwc, qterm, qseg_max};
    r->recvs = r->reads = 0;
    r->qp_rc = 0;
    r->pdus = r->octets = 0;
    if (nm(r, dw_qp_new(&r->qp, &qs, &cb, r)))
        return -1;
    unsigned la = server ? DW_QP_ACCESS_LOCAL_WRITE : DW_QP_ACCESS_REMOTE_WRITE;
    if (nm(r, dw_qp_reg_mr(r->qp, r->start, r->size, (uintptr_t)r->start,
                           DW_QP_ACCESS_REMOTE_READ, &r->start_stag)) ||
        nm(r, dw_qp_reg_mr(r->qp, r->rdma, r->size, (uintptr_t)r->rdma, la, &r->rdma_stag)) ||
        nm(r, dw_qp_post_recv(r->qp, 0, r->recv[0], DW_RPING_INFO_LEN)) ||
        nm(r, dw_qp_post_recv(r->qp, 1, r->recv[1], DW_RPING_INFO_LEN)))
        return -1;
    if (!server && r->delay_ms) /* siw 6.1 quirk: see tests/wire/siw_interop.sh */
        usleep((useconds_t)(r->delay_ms * 1000));
    if (qs.rtr_send && nm(r, dw_qp_rtr(r->qp))) /* RFC 6581: the RTR goes first */
        return -1;
    if (!r->quiet)
        fprintf(stderr, "ddpwire rping: MPA rev %u%s, CRC %s, markers %s/%s, MULPDU %u%s%s\n",
                si.rev ? si.rev : 1, si.enhanced ? " (enhanced, IRD/ORD)" : "",
                si.crc ? "on" : "off", si.tx_markers ? "on" : "off",
                si.rx_markers ? "on" : "off", qs.mulpdu,
                si.rtr ? ", peer-to-peer RTR " : "",
                si.rtr == DW_MPA_RTR_SEND ? "send" : si.rtr == DW_MPA_RTR_WRITE ? "write"
                : si.rtr == DW_MPA_RTR_READ ? "read" : "");
    return 0;
}

static int send_info(rp *r, const uint8_t *buf, uint32_t stag)
{
    dw_rping_info ri = {(uintptr_t)buf, stag, (uint32_t)r->size};
    dw_rping_info_encode(r->send, sizeof r->send, &ri);
    return nm(r, dw_qp_send(r->qp, 0, DW_RDMAP_SEND, 0, r->send, sizeof r->send));
}

/* rping_test_client's text: "rdma-ping-%d: " then letters from 'A'+ping. */
static void fill(rp *r, uint64_t ping)
{
    int cc = snprintf((char *)r->start, r->size, "rdma-ping-%d: ", (int)ping);
    unsigned c = 65 + (unsigned)(ping % 58);
    for (size_t i = (size_t)cc; i < r->size; i++) {
        r->start[i] = (uint8_t)c;
        if (++c > 122)
            c = 65;
    }
    r->start[r->size - 1] = 0;
}

#define OUT_FAILED 2 /* a write of stdout failed: the loop stops, no verdict */

static int client_loop(rp *r, uint64_t *done)
{
    for (uint64_t ping = 0; !r->count || ping < r->count; ping++) {
        fill(r, ping);
        memset(r->rdma, 0, r->size);
        unsigned base = r->recvs;
        if (send_info(r, r->start, r->start_stag) ||
            wait_for(r, &r->recvs, base + 1, "the server's go-ahead") ||
            send_info(r, r->rdma, r->rdma_stag) ||
            wait_for(r, &r->recvs, base + 2, "the server's RDMA Write"))
            return -1;
        if (r->validate && memcmp(r->start, r->rdma, r->size)) {
            fprintf(stderr, "ddpwire rping: data mismatch at ping %llu\n",
                    (unsigned long long)ping);
            return -1;
        }
        if (r->verbose)
            printf("ping data: %s\n", (char *)r->rdma);
        *done = ping + 1;
        if (cli_stdout_failed()) /* -C 0 would go on for ever */
            return OUT_FAILED;
    }
    return 0;
}

static int server_loop(rp *r, uint64_t *done)
{
    for (;;) {
        unsigned base = r->recvs;
        int rc = wait_for(r, &r->recvs, base + 1, NULL);
        if (rc == DW_ERR_CLOSED)
            return 0; /* the client is done */
        dw_rping_info ri;
        dw_rping_info_decode(&ri, r->recv[base % 2], DW_RPING_INFO_LEN);
        if (rc || ri.size > r->size) {
            if (!rc)
                fprintf(stderr, "ddpwire rping: the client's buffer (%u) exceeds ours (%llu)\n",
                        ri.size, (unsigned long long)r->size);
            return -1;
        }
        unsigned reads = r->reads;
        if (nm(r, dw_qp_read(r->qp, 0, r->rdma_stag, (uintptr_t)r->rdma, ri.size, ri.rkey,
                             ri.buf)) ||
            wait_for(r, &r->reads, reads + 1, "the RDMA Read Response"))
            return -1;
        if (r->verbose)
            printf("server ping data: %s\n", (char *)r->rdma);
        if (cli_stdout_failed())
            return OUT_FAILED;
        memset(r->send, 0, sizeof r->send);
        if (nm(r, dw_qp_send(r->qp, 0, DW_RDMAP_SEND, 0, r->send, sizeof r->send)) ||
            wait_for(r, &r->recvs, base + 2, "the client's RDMA buffer"))
            return -1;
        dw_rping_info_decode(&ri, r->recv[(base + 1) % 2], DW_RPING_INFO_LEN);
        size_t n = strnlen((char *)r->rdma, r->size - 1) + 1; /* rping: strlen + 1 */
        if (n > ri.size)
            n = ri.size;
        if (nm(r, dw_qp_write(r->qp, 0, r->rdma, n, ri.rkey, ri.buf)) ||
            nm(r, dw_qp_send(r->qp, 0, DW_RDMAP_SEND, 0, r->send, sizeof r->send)))
            return -1;
        ++*done;
    }
}

static void summary(rp *r, const char *role, uint64_t done, double t0, int rc)
{
    if (r->quiet)
        return;
    fprintf(stderr, "ddpwire rping %s: %llu iterations of %llu octets%s in %.3f s; "
            "%llu FPDUs received and verified (%llu ULPDU octets): %s\n",
            role, (unsigned long long)done, (unsigned long long)r->size,
            r->validate ? ", data verified" : "", cli_now() - t0, (unsigned long long)r->pdus,
            (unsigned long long)r->octets, rc ? "FAILED" : "ok");
}

static int one_connection(rp *r, int server)
{
    double t0 = cli_now();
    uint64_t done = 0;
    int rc = setup_qp(r, server);
    if (!rc)
        rc = server ? server_loop(r, &done) : client_loop(r, &done);
    if (rc == OUT_FAILED) {
        dw_sock_abort(r->s);
        dw_qp_del(r->qp);
        r->qp = NULL;
        return cli_stdout_done("ddpwire rping");
    }
    summary(r, server ? "server" : "client", done, t0, rc);
    if (!rc && !server) { /* disconnect: FIN, then wait for the server's */
        dw_sock_shutdown(r->s);
        while (dw_sock_recv(r->s) > 0)
            ;
    }
    rc ? dw_sock_abort(r->s) : dw_sock_close(r->s);
    dw_qp_del(r->qp);
    r->qp = NULL;
    if (r->nomem)
        return cli_nomem("ddpwire rping", "the queue pair or its connection");
    return rc ? 1 : 0;
}

static int run(rp *r)
{
    char err[256];
    r->o.cb = (dw_fr_rx_callbacks){on_pdu, on_error, NULL};
    r->o.user_data = r;
    if (!r->server) {
        int cr = dw_sock_connect(&r->s, r->host[0] ? r->host : "127.0.0.1", r->port, &r->o,
                                 err, sizeof err);
        if (cr) {
            if (cli_sock_resource(cr, errno))
                return cli_cannot("ddpwire rping", "connecting", err);
            fprintf(stderr, "ddpwire rping: %s\n", err);
            return 1;
        }
        return one_connection(r, 0);
    }
    int lfd, rc = 0;
    int lr = dw_sock_listen(&lfd, r->host[0] ? r->host : NULL, r->port, err, sizeof err);
    if (lr) {
        if (cli_sock_resource(lr, errno))
            return cli_cannot("ddpwire rping", "listening", err);
        fprintf(stderr, "ddpwire rping: %s\n", err);
        return 1;
    }
    do {
        int ar = dw_sock_accept(&r->s, lfd, &r->o, err, sizeof err);
        if (ar) {
            if (cli_sock_resource(ar, errno)) {
                rc = cli_cannot("ddpwire rping", "accepting", err);
                break;
            }
            fprintf(stderr, "ddpwire rping: %s\n", err);
            rc = 1;
            continue;
        }
        rc = one_connection(r, 1);
        if (rc != CLI_EXIT_RESOURCE && cli_stdout_done("ddpwire rping"))
            rc = CLI_EXIT_RESOURCE; /* each connection's lines written before the next */
        if (rc == CLI_EXIT_RESOURCE)
            break;
    } while (r->persistent);
    close(lfd);
    return rc;
}

static int p2p_kind(const char *v, unsigned *rtr)
{
    static const char *const names[] = {"send", "write", "read"};
    for (unsigned i = 0; v && i < 3; i++)
        if (!strcmp(v, names[i])) {
            *rtr = 1u << i;
            return 0;
        }
    fprintf(stderr, "ddpwire: --p2p takes send, write or read\n");
    return -1;
}

static int host(void *out, const char *name, const char *v)
{
    rp *r = out;
    if (!v || strlen(v) >= sizeof r->host)
        return fprintf(stderr, "ddpwire: %s takes an address\n", name), -1;
    strcpy(r->host, v);
    return 0;
}

static int p2p(void *out, const char *name, const char *v)
{
    dw_sock_settings *o = out;
    (void)name;
    if (p2p_kind(v, &o->rtr))
        return -1;
    o->p2p = 1;
    return 0;
}

static int unknown(void *ctx, int argc, char **argv, int *i)
{
    (void)ctx, (void)argc;
    fprintf(stderr, "ddpwire rping: unknown option '%s' (ddpwire rping --help)\n", argv[*i]);
    return -1;
}

/* The options into r: CLI_GO to run, else the exit status. */
static int parse(rp *r, int argc, char **argv)
{
    uint64_t port = 7174, rev = 2;
    int markers = 0, q_ignored = 0;
    const cli_opt t[] = {
        CLI_HELP("-h"),
        CLI_SET("-c", &r->server, 0),
        CLI_SET("-s", &r->server, 1),
        CLI_FLAG("-V", &r->validate),
        CLI_FLAG("-v", &r->verbose),
        CLI_FLAG("-P", &r->persistent),
        CLI_FLAG("--quiet", &r->quiet),
        CLI_FLAG("-q", &q_ignored),
        CLI_FLAG("-d", &r->debug),
        CLI_STR("-I", &r->o.local_addr, "a source address"),
        CLI_INT("-t", &r->o.tos, 0, 255),
        CLI_SET("--no-crc", &r->o.crc, 0),
        CLI_ONOFF("--markers", &markers),
        CLI_FLAG("--retry-no-markers", &r->o.retry_no_markers),
        CLI_U64("-C", &r->count, 0, UINT32_MAX),
        CLI_U64("--count", &r->count, 0, UINT32_MAX),
        CLI_U64("-S", &r->size, RPING_MIN, RPING_MAX),
        CLI_U64("--size", &r->size, RPING_MIN, RPING_MAX),
        CLI_FN("-a", r, host),
        CLI_U64("-p", &port, 1, 65535),
        CLI_U64("--rev", &rev, 1, 2),
        CLI_FN("--p2p", &r->o, p2p),
        CLI_INT("--timeout", &r->o.timeout_ms, 0, 3600000),
        CLI_U64("--delay", &r->delay_ms, 0, 60000),
    };
    int rc = cli_parse(argc, argv, "ddpwire rping", help, t, CLI_N(t), unknown, NULL);
    snprintf(r->port, sizeof r->port, "%u", (unsigned)port);
    r->o.rev = (uint8_t)rev;
    if (markers)
        r->o.markers = r->o.allow_markers = 1;
    (void)q_ignored;
    return rc;
}

int cmd_rping(int argc, char **argv)
{
    static rp r;
    memset(&r, 0, sizeof r);
    r.server = -1;
    r.size = 64;
    dw_sock_settings_default(&r.o);
    r.o.startup = DW_SOCK_NEGOTIATE;
    r.o.markers = 0;
    r.o.allow_markers = 0; /* as siw: markers are refused */
    int pr = parse(&r, argc, argv);
    if (pr != CLI_GO)
        return pr;
    if (r.server < 0) {
        fprintf(stderr, "ddpwire rping: say -c (client) or -s (server)\n");
        return 2;
    }
    r.start = calloc(1, r.size);
    r.rdma = calloc(1, r.size);
    int rc = r.start && r.rdma ? run(&r) : cli_nomem("ddpwire rping", "the buffers");
    free(r.start);
    free(r.rdma);
    return rc;
}
