/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the MPA in-order receiver. The first octets choose the
 * settings (markers, CRC, marker checks, own buffer size, a get_buffer
 * that may give no buffer) and a chunking; the rest is the stream. Checks
 * the receiver's promises: delivered lengths match the FPDU's length field,
 * nothing is delivered after an error or after a ULPDU had no buffer (and
 * that happens only when a buffer could be missing), offsets only grow.
 * Half the inputs take ULPDUs as pieces (dw_mpa_rx_set_iov_fn): 1 to
 * DW_MPA_ULPDU_IOV_MAX of them, their lengths adding up to the ULPDU's.
 */
#include <ddpwire/mpa.h>

#include <stdlib.h>
#include <string.h>

typedef struct st {
    int failed, nomem;
    size_t refuse_over; /* get_buffer gives none for longer ULPDUs */
    uint64_t last_off;
    int any;
} st;

static void touch(const uint8_t *d, size_t len) /* every octet: ASan checks bounds */
{
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < len; i++)
        sink ^= d[i];
    (void)sink;
}

static int delivered(st *s, size_t len, uint64_t off)
{
    if (s->failed || s->nomem || (s->any && off <= s->last_off) || len > 65535)
        abort();
    s->last_off = off;
    s->any = 1;
    return 0;
}

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    (void)rx;
    touch(d, len);
    return delivered(u, len, off);
}

static int on_iov(dw_mpa_rx *rx, const struct iovec *iov, int iovcnt, size_t len,
                  uint64_t off, void *u)
{
    if (iovcnt < 1 || iovcnt > DW_MPA_ULPDU_IOV_MAX)
        abort();
    (void)rx;
    size_t sum = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (!iov[i].iov_len && iovcnt > 1)
            abort();
        sum += iov[i].iov_len;
        touch(iov[i].iov_base, iov[i].iov_len);
    }
    if (sum != len)
        abort();
    return delivered(u, len, off);
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
    st *s = u;
    (void)rx;
    return len <= sizeof place && len <= s->refuse_over ? place : NULL;
}

static const size_t own_sizes[4] = {65535, 0, 100, 1000};

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
    set.buf_size = own_sizes[mode >> 4 & 3];
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, (mode & 8) ? get_buffer : NULL};
    st s = {0};
    s.refuse_over = mode & 0x40 ? 600 : 65535;
    /* a ULPDU can lack a buffer only with a short own buffer, or with no
     * get_buffer beside it or one that refuses */
    int may_lack = set.buf_size < 65535 && (!(mode & 8) || (mode & 0x40));
    dw_mpa_rx *rx;
    if (dw_mpa_rx_new(&rx, &set, &cb, &s) != 0)
        return 0;
    if ((mode & 0x80) && dw_mpa_rx_set_iov_fn(rx, on_iov) != 0)
        abort();
    size_t step = chunk ? chunk : size ? size : 1;
    for (size_t i = 0; i < size; i += step) {
        size_t n = size - i < step ? size - i : step;
        ssize_t r = dw_mpa_rx_feed(rx, data + i, n);
        if (r == DW_ERR_NOMEM) {
            if (!may_lack || s.failed)
                abort();
            s.nomem = 1;
            if (dw_mpa_rx_feed(rx, data + i, n) != DW_ERR_NOMEM) /* nothing more */
                abort();
            break;
        }
        if (r < 0) {
            if (r != DW_ERR_PROTO || !s.failed)
                abort();
            break;
        }
        if ((size_t)r != n)
            abort();
    }
    dw_mpa_rx_close(rx, DW_CLOSE_FIN);
    dw_mpa_rx_del(rx);
    return 0;
}
