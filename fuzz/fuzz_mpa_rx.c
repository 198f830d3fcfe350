/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the MPA in-order receiver. The first octets choose the
 * settings and a chunking; the rest is the stream. Checks the receiver's
 * promises: delivered lengths match the FPDU's length field, nothing is
 * delivered after an error, offsets only grow.
 */
#include <ddpwire/mpa.h>

#include <stdlib.h>
#include <string.h>

typedef struct st {
    int failed;
    uint64_t last_off;
    int any;
} st;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    st *s = u;
    (void)rx;
    if (s->failed || (s->any && off <= s->last_off) || len > 65535)
        abort();
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < len; i++) /* touch every octet: ASan checks bounds */
        sink ^= d[i];
    (void)sink;
    s->last_off = off;
    s->any = 1;
    return 0;
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    st *s = u;
    (void)rx;
    if (s->failed || e->code < 1 || e->code > 3)
        abort();
    s->failed = 1;
}

static uint8_t *get_buffer(dw_mpa_rx *rx, size_t len, void *u)
{
    static uint8_t place[65535];
    (void)rx, (void)u;
    return len <= sizeof place ? place : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t mode = data[0], chunk = data[1];
    data += 2, size -= 2;
    dw_mpa_rx_settings set;
    dw_mpa_rx_settings_default(&set);
    set.markers = !(mode & 1);
    set.crc = !(mode & 2);
    set.check_markers = !(mode & 4);
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, (mode & 8) ? get_buffer : NULL};
    st s = {0};
    dw_mpa_rx *rx;
    if (dw_mpa_rx_new(&rx, &set, &cb, &s) != 0)
        return 0;
    size_t step = chunk ? chunk : size ? size : 1;
    for (size_t i = 0; i < size; i += step) {
        size_t n = size - i < step ? size - i : step;
        ssize_t r = dw_mpa_rx_feed(rx, data + i, n);
        if (r < 0) {
            if (r != DW_ERR_PROTO || !s.failed)
                abort();
            break;
        }
        if ((size_t)r != n)
            abort();
    }
    dw_mpa_rx_close(rx, DW_MPA_CLOSE_FIN);
    dw_mpa_rx_del(rx);
    return 0;
}
