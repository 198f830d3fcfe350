/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the NVMe-oF decoders and the host. Input: a selector octet,
 * then octets. Selector 0..7: one decoder over the rest (CM request,
 * accept, reject, SQE, CQE, Connect data, Identify controller/namespace,
 * Discovery Log header and entries), each decoded value encoded again
 * where an encoder exists and required to give the same octets. Selector
 * 8 and above: a host whose admin queue started (a Connect outstanding)
 * fed records of a 2-octet big-endian length and that many octets as
 * ULPDUs. Never a crash; the host reports, or fails, but never reads or
 * writes outside its buffers.
 */
#include <ddpwire/nvmeof.h>

#include <stdlib.h>
#include <string.h>

static void roundtrip(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (memcmp(a, b, n))
        abort();
}

static void decoders(unsigned sel, const uint8_t *d, size_t n)
{
    static uint8_t out[1024];
    switch (sel) {
    case 0: {
        dw_nvmeof_cm_req r;
        if (dw_nvmeof_cm_req_decode(&r, d, n) == 32 && dw_nvmeof_cm_req_encode(out, 32, &r) == 32)
            roundtrip(out, d, 10);
        break;
    }
    case 1: {
        dw_nvmeof_cm_rep r;
        if (dw_nvmeof_cm_rep_decode(&r, d, n) == 32 && dw_nvmeof_cm_rep_encode(out, 32, &r) == 32)
            roundtrip(out, d, 4);
        dw_nvmeof_cm_rej j;
        if (dw_nvmeof_cm_rej_decode(&j, d, n) == 4 && !dw_nvmeof_cm_rej_str(j.sts))
            abort();
        break;
    }
    case 2: {
        dw_nvmeof_sqe s;
        if (dw_nvmeof_sqe_decode(&s, d, n) == 64) {
            if (dw_nvmeof_sqe_encode(out, 64, &s) != 64)
                abort();
            /* a data block's reserved octets are written as zero */
            if ((s.sgl.type >> 4) == 4)
                roundtrip(out, d, 64);
        }
        break;
    }
    case 3: {
        dw_nvmeof_cqe c;
        if (dw_nvmeof_cqe_decode(&c, d, n) == 16) {
            dw_nvmeof_cqe_encode(out, 16, &c);
            roundtrip(out, d, 16);
            if (!dw_nvmeof_status_str(c.status, c.result & 1))
                abort();
        }
        break;
    }
    case 4: {
        static dw_nvmeof_connect_data c;
        if (dw_nvmeof_connect_data_decode(&c, d, n) == 1024 &&
            (strlen(c.subnqn) > 255 || strlen(c.hostnqn) > 255))
            abort();
        break;
    }
    case 5: {
        static dw_nvmeof_id_ctrl c;
        dw_nvmeof_id_ns ns;
        if (dw_nvmeof_id_ctrl_decode(&c, d, n) == 4096 && strlen(c.subnqn) > 255)
            abort();
        if (dw_nvmeof_id_ns_decode(&ns, d, n) == 4096 && (ns.lba_size < 512 || ns.lba_size > 65536))
            abort();
        break;
    }
    default: {
        dw_nvmeof_disc_hdr h;
        static dw_nvmeof_disc_entry e;
        dw_nvmeof_disc_hdr_decode(&h, d, n);
        for (size_t o = 1024; o + 1024 <= n; o += 1024)
            if (dw_nvmeof_disc_entry_decode(&e, d + o, n - o) != 1024 || strlen(e.traddr) > 256 ||
                !dw_nvmeof_trtype_str(e.trtype))
                abort();
        break;
    }
    }
}

static int on_send(dw_nvmeof_host *h, uint16_t q, const uint8_t *hd, size_t hl,
                   const uint8_t *p, size_t pl, void *u)
{
    (void)h, (void)q, (void)u;
    if (hl > 128 || (pl && !p) || !hd) /* a Terminate copies headers: up to 128 */
        abort();
    return 0;
}

static void host(const uint8_t *d, size_t n)
{
    dw_nvmeof_host_settings s;
    dw_nvmeof_host_settings_default(&s);
    s.subnqn = "nqn.2024-01.org.ddpwire:fuzz";
    dw_nvmeof_host_callbacks cb = {on_send, NULL, NULL, NULL, NULL, NULL};
    dw_nvmeof_host *h;
    if (dw_nvmeof_host_new(&h, &s, &cb, NULL))
        abort();
    uint8_t rep[32] = {0, 0, 32};
    dw_nvmeof_queue_conn c = {1024, DW_MPA_RTR_NONE, 16, rep, sizeof rep};
    dw_nvmeof_host_tick(h, 0, NULL);
    if (dw_nvmeof_host_queue_start(h, 0, &c))
        abort();
    uint64_t now = 0;
    while (n >= 2) {
        size_t len = (size_t)d[0] << 8 | d[1];
        d += 2, n -= 2;
        if (len > n)
            len = n;
        dw_nvmeof_host_recv(h, 0, d, len);
        dw_nvmeof_host_tick(h, now += 100, NULL);
        d += len, n -= len;
    }
    dw_nvmeof_host_del(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    if (data[0] < 8)
        decoders(data[0], data + 1, size - 1);
    else
        host(data + 1, size - 1);
    return 0;
}
