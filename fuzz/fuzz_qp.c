/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: ULPDUs into a queue pair with registered regions, posted
 * receive buffers and an outstanding RDMA Read, all inside guard octets.
 * Input: one settings octet (RTR expected, MULPDU), then records of a
 * 2-octet big-endian length and that many octets, each fed as a ULPDU.
 * Never a write outside a region or buffer; everything the queue pair
 * sends is a valid RDMAP ULPDU within MULPDU.
 */
#include <ddpwire/qp.h>
#include <ddpwire/mpa_startup.h>
#include <ddpwire/rdmap.h>

#include <stdlib.h>
#include <string.h>

#define GUARD 32
#define REG 192

static uint8_t mem[5][GUARD + REG + GUARD];
static uint32_t mulpdu;

static int on_send(dw_qp *qp, const uint8_t *h, size_t hl, const uint8_t *p, size_t pl, void *u)
{
    (void)qp, (void)u;
    static uint8_t buf[DW_MPA_ULPDU_MAX];
    if (hl + pl > mulpdu || hl > 128)
        abort();
    memcpy(buf, h, hl);
    if (pl)
        memcpy(buf + hl, p, pl);
    dw_rdmap_msg m;
    if (dw_rdmap_decode(&m, buf, hl + pl) < 0 || dw_rdmap_validate(&m, DW_RDMAP_STRICT))
        abort();
    return 0;
}

static void on_wc(dw_qp *qp, const dw_qp_wc *wc, void *u)
{
    (void)qp, (void)wc, (void)u;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    dw_qp_settings s;
    dw_qp_settings_default(&s);
    s.rtr_expect = (dw_mpa_rtr)(data[0] & 3 ? 1u << ((data[0] & 3) - 1) : 0);
    s.mulpdu = mulpdu = 128u << (data[0] >> 2 & 3);
    s.ord = 2;
    dw_qp_callbacks cb = {on_send, on_wc, NULL, NULL};
    dw_qp *qp;
    if (dw_qp_new(&qp, &s, &cb, NULL))
        abort();
    memset(mem, 0xA5, sizeof mem);
    static const unsigned acc[5] = {DW_QP_ACCESS_REMOTE_WRITE, DW_QP_ACCESS_REMOTE_READ,
                                    DW_QP_ACCESS_LOCAL_WRITE,
                                    DW_QP_ACCESS_REMOTE_WRITE | DW_QP_ACCESS_REMOTE_INV, 0};
    uint32_t stag[5];
    for (int i = 0; i < 4; i++) /* 1: STag 0x101 .. 4: 0x404 */
        dw_qp_reg_mr(qp, mem[i] + GUARD, REG, (uint64_t)i << 12, acc[i], &stag[i]);
    dw_qp_post_recv(qp, 1, mem[4] + GUARD, REG / 2);
    dw_qp_post_recv(qp, 2, mem[4] + GUARD + REG / 2, REG / 2);
    if (!s.rtr_expect)
        dw_qp_read(qp, 3, stag[2], 2u << 12, REG, 0x1234, 0);
    size_t i = 1;
    while (i + 2 <= size) {
        size_t n = (size_t)data[i] << 8 | data[i + 1];
        i += 2;
        if (n > size - i)
            n = size - i;
        int rc = dw_qp_recv(qp, data + i, n);
        i += n;
        if (rc && rc != DW_ERR_PROTO && rc != DW_ERR_STATE)
            abort();
    }
    for (int r = 0; r < 5; r++)
        for (size_t k = 0; k < GUARD; k++)
            if (mem[r][k] != 0xA5 || mem[r][GUARD + REG + k] != 0xA5)
                abort();
    dw_qp_del(qp);
    return 0;
}
