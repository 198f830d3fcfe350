/* SPDX-License-Identifier: MIT */
/*
 * A program that uses ddpwire as a distribution's user would: built with
 * `cc consumer.c $(pkg-config --cflags --libs ddpwire)` against the installed
 * libddpwire-dev, linked to the shared library (scripts/deb_test.sh), and by
 * ctest against the build's shared library (test pkg_consumer). It frames
 * records with the MPA sender, cuts the stream into odd pieces, deframes it
 * with the receiver and compares; prints "ok" and exits 0 when all is right.
 *
 *   consumer [--version]   --version: the headers' and the library's version
 */
#include <ddpwire/ddpwire.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RECORDS = 200, MAX_LEN = 3000 };

typedef struct got {
    uint8_t *data; /* every payload received, back to back */
    size_t len, n;
} got;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *data, size_t len, uint64_t offset,
                    void *user_data)
{
    got *g = user_data;
    (void)rx;
    (void)offset;
    memcpy(g->data + g->len, data, len);
    g->len += len;
    g->n++;
    return 0;
}

static int fail(const char *what, int err)
{
    fprintf(stderr, "consumer: %s: %s\n", what, err < 0 ? dw_strerror(err) : "wrong");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("%s %s\n", DW_VERSION_STRING, dw_version());
        return 0;
    }
    if (strcmp(DW_VERSION_STRING, dw_version()) != 0)
        return fail("the headers' version is not the library's", 1);
    if (dw_crc32c(0, "123456789", 9) != 0xE3069283u)
        return fail("CRC32c check value", 1);

    size_t cap = (size_t)RECORDS * (MAX_LEN + 64);
    uint8_t *sent = malloc(cap), *stream = malloc(cap), *recv = malloc(cap);
    if (!sent || !stream || !recv)
        return fail("malloc", 1);
    dw_mpa_tx *tx = NULL;
    int rc = dw_mpa_tx_new(&tx, NULL); /* defaults: markers and CRC on */
    if (rc < 0)
        return fail("dw_mpa_tx_new", rc);
    size_t slen = 0, tlen = 0;
    uint32_t seed = 1;
    for (int i = 0; i < RECORDS; i++) {
        size_t len = 1 + (seed = seed * 1103515245u + 12345u) % MAX_LEN;
        for (size_t k = 0; k < len; k++)
            sent[tlen + k] = (uint8_t)(i * 31 + k);
        ssize_t n = dw_mpa_tx_frame_into(tx, sent + tlen, len, stream + slen, cap - slen, NULL);
        if (n < 0)
            return fail("dw_mpa_tx_frame_into", (int)n);
        tlen += len;
        slen += (size_t)n;
    }
    dw_mpa_tx_del(tx);

    got g = {recv, 0, 0};
    dw_mpa_rx_callbacks cb = {0};
    cb.on_ulpdu = on_ulpdu;
    dw_mpa_rx *rx = NULL;
    if ((rc = dw_mpa_rx_new(&rx, NULL, &cb, &g)) < 0)
        return fail("dw_mpa_rx_new", rc);
    for (size_t off = 0, piece = 1; off < slen; piece = piece * 7 % 1531 + 1) {
        size_t n = piece < slen - off ? piece : slen - off;
        ssize_t used = dw_mpa_rx_feed(rx, stream + off, n);
        if (used < 0 || (size_t)used != n)
            return fail("dw_mpa_rx_feed", used < 0 ? (int)used : 1);
        off += n;
    }
    int bad = dw_mpa_rx_failed(rx) != 0;
    dw_mpa_rx_del(rx);
    if (bad || g.n != RECORDS || g.len != tlen || memcmp(sent, recv, tlen) != 0)
        return fail("the records deframed differ from those framed", 1);
    printf("ok: %d records, %zu octets framed into %zu, deframed alike (ddpwire %s)\n", RECORDS,
           tlen, slen, dw_version());
    free(sent);
    free(stream);
    free(recv);
    return 0;
}
