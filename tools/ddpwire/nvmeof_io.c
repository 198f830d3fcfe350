/* SPDX-License-Identifier: MIT */
/*
 * ddpwire nvmeof's socket glue: one blocking MPA connection per NVMe-oF
 * queue (RFC 6581 enhanced start-up, the queue's CM private data in the
 * request), each verified ULPDU fed to the library's host, the host's
 * ULPDUs sent as FPDUs, and the host's clock ticked. The protocol is all
 * in lib/nvmeof; this file only moves bytes (dw_conn can take it over).
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "nvmeof_tool.h"

static int h_send(dw_nvmeof_host *h, uint16_t q, const uint8_t *hd, size_t hl,
                  const uint8_t *p, size_t pl, void *u)
{
    (void)h;
    return dw_sock_send_pdu(((nvt *)u)->s[q], hd, hl, p, pl);
}

static size_t h_seg_max(dw_nvmeof_host *h, uint16_t q, void *u)
{
    (void)h;
    return dw_sock_fill_len(((nvt *)u)->s[q]);
}

static void h_ready(dw_nvmeof_host *h, uint16_t q, void *u)
{
    (void)h;
    if (q)
        ((nvt *)u)->ready_io++;
}

static void h_done(dw_nvmeof_host *h, const dw_nvmeof_done *d, void *u)
{
    nvt *t = u;
    (void)h;
    if (t->on_done)
        t->on_done(t, d);
}

static void h_error(dw_nvmeof_host *h, const dw_nvmeof_error *e, void *u)
{
    nvt *t = u;
    (void)h;
    char b[sizeof t->err];
    if (e->kind == DW_NVMEOF_E_STATUS)
        snprintf(b, sizeof b, "queue %u: %s (opcode 0x%02x, cid %u) failed: %s (SCT %u SC 0x%02x%s)",
                 e->qid, e->what, e->opcode, e->cid,
                 dw_nvmeof_status_str(e->status, e->opcode == DW_NVME_FABRICS),
                 DW_NVME_SCT(e->status), DW_NVME_SC(e->status), DW_NVME_DNR(e->status) ? ", DNR" : "");
    else
        snprintf(b, sizeof b, "queue %u: %s (cid %u, value %u)", e->qid, e->what, e->cid,
                 (unsigned)e->value);
    if (!t->failed)
        memcpy(t->err, b, sizeof b);
    t->failed = 1;
    fprintf(stderr, "ddpwire nvmeof: %s\n", b);
}

static void h_term(dw_nvmeof_host *h, uint16_t q, const dw_rdmap_term *tm, int received, void *u)
{
    (void)h, (void)u;
    fprintf(stderr, "ddpwire nvmeof: queue %u: Terminate %s: %s / %s / %s (0x%02x)\n", q,
            received ? "received" : "sent", dw_rdmap_term_layer_str(tm->layer),
            dw_rdmap_term_etype_str(tm->layer, tm->etype),
            dw_rdmap_term_str(tm->layer, tm->etype, tm->code), tm->code);
}

typedef struct pdu_ctx {
    nvt *t;
    uint16_t q;
} pdu_ctx;
static pdu_ctx ctxs[NVT_MAXQ];

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hl, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    pdu_ctx *c = u;
    (void)rx, (void)hdr, (void)hl, (void)off;
    return dw_nvmeof_host_recv(c->t->h, c->q, d, len) != 0;
}

static void on_fr_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    (void)rx, (void)u;
    if (e->code != 1 || !e->clean)
        fprintf(stderr, "ddpwire nvmeof: %s at stream offset %llu\n", dw_fr_error_str(e),
                (unsigned long long)e->offset);
}

static int connect_queue(nvt *t, uint16_t q)
{
    uint8_t pd[DW_NVMEOF_CM_LEN];
    if (dw_nvmeof_host_cm_req(t->h, q, pd, sizeof pd) < 0)
        return fprintf(stderr, "ddpwire nvmeof: queue %u: no CM request\n", q), 1;
    dw_sock_settings o;
    dw_sock_settings_default(&o);
    o.startup = DW_SOCK_NEGOTIATE;
    o.markers = o.allow_markers = 0; /* siw has none */
    o.crc = t->crc;
    o.rev = 2;
    o.enhanced = 1;
    o.ird = 16; /* the target's RDMA Reads of write data at once */
    o.ord = 0;
    o.pd = pd;
    o.pd_len = sizeof pd;
    o.timeout_ms = t->timeout_ms;
    ctxs[q] = (pdu_ctx){t, q};
    o.cb = (dw_fr_rx_callbacks){on_pdu, on_fr_error, NULL};
    o.user_data = &ctxs[q];
    char err[256];
    if (dw_sock_connect(&t->s[q], t->host, t->port, &o, err, sizeof err))
        return fprintf(stderr, "ddpwire nvmeof: queue %u: %s\n", q, err), 1;
    dw_sock_info si;
    dw_sock_info_get(t->s[q], &si);
    size_t skip = si.enhanced && si.peer.pd_len >= 4 ? 4 : 0;
    dw_nvmeof_queue_conn c = {si.mulpdu < DW_MPA_MULPDU_MIN ? DW_MPA_MULPDU_MIN : si.mulpdu,
                              si.rtr, si.ird, si.peer.pd + skip, si.peer.pd_len - skip};
    if (t->delay_ms) /* siw 6.1: see tests/wire/siw_interop.sh */
        usleep(t->delay_ms * 1000u);
    if (dw_nvmeof_host_queue_start(t->h, q, &c))
        return fprintf(stderr, "ddpwire nvmeof: queue %u: could not start%s%s\n", q,
                       t->failed ? ": " : "", t->err), 1;
    return 0;
}

int nvt_poll(nvt *t, int ms)
{
    struct pollfd p[NVT_MAXQ];
    unsigned n = 0;
    for (unsigned q = 0; q < t->nq; q++)
        if (t->s[q]) {
            if (dw_sock_pending(t->s[q]))
                ms = 0;
            p[n++] = (struct pollfd){dw_sock_fd(t->s[q]), POLLIN, 0};
        }
    if (poll(p, n, ms) < 0)
        return 0;
    n = 0;
    for (unsigned q = 0; q < t->nq; q++) {
        if (!t->s[q])
            continue;
        if (!(p[n++].revents & (POLLIN | POLLERR | POLLHUP)) && !dw_sock_pending(t->s[q]))
            continue;
        ssize_t r = dw_sock_recv(t->s[q]);
        if (t->failed)
            return 1;
        if (r < 0) {
            fprintf(stderr, "ddpwire nvmeof: queue %u: %s\n", q, dw_strerror((int)r));
            return 1;
        }
    }
    return 0;
}

int nvt_wait(nvt *t, int (*cond)(nvt *t), int64_t until_ms)
{
    while (!cond(t)) {
        uint64_t next = 0;
        int64_t now = cli_now_ms();
        if (t->failed || dw_nvmeof_host_get_state(t->h) == DW_NVMEOF_HOST_FAILED)
            return 1;
        if (until_ms >= 0 && now > until_ms)
            return fprintf(stderr, "ddpwire nvmeof: timed out\n"), 1;
        int rc = dw_nvmeof_host_tick(t->h, (uint64_t)now, &next);
        if (rc || t->failed)
            return t->failed ? 1 : (fprintf(stderr, "ddpwire nvmeof: %s\n", dw_strerror(rc)), 1);
        int64_t ms = (int64_t)next - now;
        if (nvt_poll(t, ms < 0 ? 0 : ms > 100 ? 100 : (int)ms))
            return 1;
    }
    return 0;
}

static int host_new(nvt *t, unsigned io)
{
    dw_nvmeof_host_settings s;
    dw_nvmeof_host_settings_default(&s);
    s.subnqn = t->nqn;
    s.hostnqn = t->hostnqn;
    s.io_queues = io;
    s.queue_size = t->queue_size;
    s.kato_ms = t->kato_ms;
    s.nsid = t->nsid;
    s.invalidate = !t->no_invalidate;
    FILE *f = fopen("/etc/machine-id", "r"); /* a stable host id for this machine */
    for (unsigned i = 0, v; f && i < 16 && fscanf(f, "%2x", &v) == 1; i++)
        s.hostid[i] = (uint8_t)v;
    if (f)
        fclose(f);
    dw_nvmeof_host_callbacks cb = {h_send, h_seg_max, h_ready, h_done, h_error, h_term};
    if (dw_nvmeof_host_new(&t->h, &s, &cb, t))
        return fprintf(stderr, "ddpwire nvmeof: bad settings (NQN length?)\n"), 1;
    t->nq = io + 1;
    return 0;
}

static int admin_ready(nvt *t)
{
    return dw_nvmeof_host_get_state(t->h) == DW_NVMEOF_HOST_READY;
}

static int io_ready(nvt *t)
{
    return t->ready_io >= t->want_io;
}

int nvt_open(nvt *t, unsigned io)
{
    if (host_new(t, io))
        return 1;
    dw_nvmeof_host_tick(t->h, (uint64_t)cli_now_ms(), NULL);
    int64_t until = cli_now_ms() + (t->timeout_ms ? t->timeout_ms : 30000);
    if (connect_queue(t, 0) || nvt_wait(t, admin_ready, until))
        return 1;
    for (unsigned q = 1; q <= io; q++) {
        t->want_io = q;
        if (connect_queue(t, (uint16_t)q) || nvt_wait(t, io_ready, until))
            return 1;
    }
    return 0;
}

void nvt_close(nvt *t)
{
    for (unsigned q = t->nq; q-- > 0;)
        if (t->s[q]) {
            if (t->failed)
                dw_sock_abort(t->s[q]);
            else
                dw_sock_close(t->s[q]);
            t->s[q] = NULL;
        }
    dw_nvmeof_host_del(t->h);
    t->h = NULL;
}
