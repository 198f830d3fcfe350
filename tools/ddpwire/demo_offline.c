/* SPDX-License-Identifier: MIT */
/*
 * ddpwire demo --offline: generates a workload of records of varied sizes,
 * frames them with the MPA sender (zero-copy iovecs), cuts the octet stream
 * into random TCP-like pieces, deframes it with the in-order receiver,
 * verifies every record, and shows that a corrupted FPDU is caught.
 */
#include <ddpwire/crc32c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define POOL (4u << 20)
#define BATCH 65536 /* records per batch at most */

static void help(void)
{
    printf("usage: ddpwire demo --offline [--bytes N] [--record-size N] [--no-markers] [--no-crc]\n"
           "                    [--emss N] [--ptr-base draft|rfc5044] [--seed N]\n"
           "Frames N octets of records (default 256M; sizes vary from 1 octet to\n"
           "64768 unless --record-size fixes them), deframes the stream cut into\n"
           "random pieces, verifies every record, and shows a corrupted FPDU being\n"
           "reported. Sizes take k, M, G suffixes.\n");
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Record contents: a function of the record number, so they can be checked. */
static void fill_record(uint8_t *p, size_t len, uint64_t idx)
{
    uint64_t s = idx * 0x9E3779B97F4A7C15ULL + 1;
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = rnd(&s);
        memcpy(p + i, &v, len - i < 8 ? len - i : 8);
    }
}

typedef struct rec {
    const uint8_t *data;
    size_t len;
} rec;

typedef struct demo {
    rec *recs;
    size_t nrec, next;
    uint64_t delivered, bad;
    dw_mpa_rx_error err;
    int errors;
} demo;

static int on_ulpdu(dw_mpa_rx *rx, const uint8_t *d, size_t len, uint64_t off, void *u)
{
    demo *dm = u;
    (void)rx, (void)off;
    if (dm->next >= dm->nrec || dm->recs[dm->next].len != len ||
        memcmp(dm->recs[dm->next].data, d, len))
        dm->bad++;
    dm->next++;
    dm->delivered++;
    return 0;
}

static void on_error(dw_mpa_rx *rx, const dw_mpa_rx_error *e, void *u)
{
    demo *dm = u;
    (void)rx;
    dm->err = *e;
    dm->errors++;
}

static size_t pick_size(uint64_t *s, uint64_t fixed, uint32_t mulpdu)
{
    if (fixed)
        return (size_t)fixed;
    uint64_t r = rnd(s) % 100;
    if (r < 30)
        return 1 + rnd(s) % 256;
    if (r < 80)
        return 1 + rnd(s) % mulpdu;
    return 1 + rnd(s) % DW_MPA_ULPDU_MAX;
}

/* Feeds the stream in random TCP-segment-like cuts: 0, or the receiver's
 * negative DW_ERR_* (DW_ERR_NOMEM: it could not complete). */
static int feed(dw_mpa_rx *rx, const uint8_t *w, size_t len, uint64_t *s)
{
    size_t at = 0;
    while (at < len) {
        size_t n = 1 + rnd(s) % 65536;
        n = n < len - at ? n : len - at;
        ssize_t r = dw_mpa_rx_feed(rx, w + at, n);
        if (r < 0)
            return (int)r;
        at += (size_t)r;
    }
    return 0;
}

/* Flips one bit in one FPDU of a fresh stream and shows the verdict. */
static int corruption_check(const cli_mpa_opts *mo)
{
    uint8_t recbuf[3000], wire[8192];
    fill_record(recbuf, sizeof recbuf, 7);
    dw_mpa_tx_settings ts;
    cli_mpa_tx_settings(mo, &ts);
    dw_mpa_tx *tx;
    if (dw_mpa_tx_new(&tx, &ts))
        return cli_nomem("ddpwire demo", "the corruption check's sender");
    size_t w = 0, sizes[3] = {1000, 3000, 500};
    uint64_t second = 0;
    for (int i = 0; i < 3; i++) {
        if (i == 1)
            second = w;
        w += (size_t)dw_mpa_tx_frame_into(tx, recbuf, sizes[i], wire + w, sizeof wire - w, NULL);
    }
    dw_mpa_tx_del(tx);
    wire[second + 1234] ^= 0x10;
    rec recs[3] = {{recbuf, 1000}, {recbuf, 3000}, {recbuf, 500}};
    demo dm = {recs, 3, 0, 0, 0, {0}, 0};
    dw_mpa_rx_settings rs;
    cli_mpa_rx_settings(mo, &rs);
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, NULL};
    dw_mpa_rx *rx;
    if (dw_mpa_rx_new(&rx, &rs, &cb, &dm))
        return cli_nomem("ddpwire demo", "the corruption check's receiver");
    uint64_t s = 3;
    int fr = feed(rx, wire, w, &s);
    dw_mpa_rx_del(rx);
    if (fr == DW_ERR_NOMEM)
        return cli_nomem("ddpwire demo", "the corruption check's receiver");
    int ok = dm.errors == 1 && dm.err.code == DW_MPA_ERR_CRC && dm.err.offset == second &&
             dm.delivered == 1 && dm.bad == 0;
    printf("corruption check: flipped one bit in FPDU 2 (stream offset %llu): "
           "MPA error %d (%s) at offset %llu, %llu of 3 records delivered before it: %s\n",
           (unsigned long long)second, (int)dm.err.code, dw_mpa_strerror(dm.err.code),
           (unsigned long long)dm.err.offset, (unsigned long long)dm.delivered,
           ok ? "as expected" : "UNEXPECTED");
    return !ok;
}

int demo_offline(int argc, char **argv)
{
    cli_mpa_opts mo;
    uint64_t total = 256u << 20, fixed = 0, seed = 1;
    int offline; /* how we got here */
    cli_mpa_defaults(&mo);
    const cli_opt t[] = {
        CLI_FLAG("--offline", &offline),
        CLI_U64("--bytes", &total, 1, 1ull << 40),
        CLI_U64("--record-size", &fixed, 1, DW_MPA_ULPDU_MAX),
        CLI_U64("--seed", &seed, 1, UINT64_MAX),
    };
    int r = cli_parse(argc, argv, "ddpwire demo", help, t, CLI_N(t), cli_mpa_option, &mo);
    if (r != CLI_GO)
        return r;
    dw_mpa_tx_settings ts;
    dw_mpa_rx_settings rs;
    cli_mpa_tx_settings(&mo, &ts);
    cli_mpa_rx_settings(&mo, &rs);
    demo dm = {0};
    dw_mpa_rx_callbacks cb = {on_ulpdu, on_error, NULL};
    dw_mpa_tx *tx;
    dw_mpa_rx *rx;
    uint8_t *pool = malloc(POOL), *wire = malloc(POOL + POOL / 8);
    dm.recs = malloc(BATCH * sizeof *dm.recs);
    struct iovec *iov = malloc(DW_MPA_FPDU_IOV_MAX * sizeof *iov);
    tx = NULL, rx = NULL;
    if (!pool || !wire || !dm.recs || !iov || dw_mpa_tx_new(&tx, &ts) ||
        dw_mpa_rx_new(&rx, &rs, &cb, &dm)) {
        dw_mpa_tx_del(tx);
        free(pool), free(wire), free(dm.recs), free(iov);
        return cli_nomem("ddpwire demo", "the buffers, sender and receiver");
    }
    printf("ddpwire demo: %llu octets of records, %s, markers %s, EMSS %u (MULPDU %u), "
           "CRC32c path %s\n", (unsigned long long)total,
           fixed ? "fixed size" : "sizes 1..64768", mo.markers ? "on" : "off", mo.emss,
           dw_mpa_tx_mulpdu(tx), dw_crc32c_impl_name(dw_crc32c_impl_get()));
    uint64_t s = seed, payload = 0, wire_total = 0, records = 0, markers = 0;
    int tty = isatty(STDERR_FILENO);
    double t0 = cli_now(), busy = 0;
    while (payload < total && !dm.errors && !dm.bad) {
        /* a batch: generate, frame (zero-copy), then deframe in random cuts */
        size_t used = 0, w = 0;
        dm.nrec = dm.next = 0;
        for (;;) {
            size_t len = pick_size(&s, fixed, dw_mpa_tx_mulpdu(tx));
            if (used + len > POOL || dm.nrec == BATCH)
                break;
            fill_record(pool + used, len, records + dm.nrec);
            dm.recs[dm.nrec++] = (rec){pool + used, len};
            used += len;
            payload += len;
            if (payload >= total)
                break;
        }
        double t1 = cli_now();
        for (size_t i = 0; i < dm.nrec; i++) {
            dw_mpa_fpdu_info info;
            ssize_t n = dw_mpa_tx_frame(tx, dm.recs[i].data, dm.recs[i].len, iov,
                                        DW_MPA_FPDU_IOV_MAX, &info);
            if (n == DW_ERR_NOMEM)
                return cli_nomem("ddpwire demo", "framing a record");
            if (n < 0) {
                fprintf(stderr, "ddpwire demo: frame: %s\n", dw_strerror((int)n));
                return 1;
            }
            for (size_t k = 0; k < info.iovcnt; k++) { /* the "wire" */
                memcpy(wire + w, iov[k].iov_base, iov[k].iov_len);
                w += iov[k].iov_len;
            }
            markers += info.markers;
        }
        if (feed(rx, wire, w, &s) == DW_ERR_NOMEM)
            return cli_nomem("ddpwire demo", "deframing a batch");
        busy += cli_now() - t1;
        records += dm.nrec;
        wire_total += w;
        if (tty)
            fprintf(stderr, "\r  %llu records, %.0f MB verified ...",
                    (unsigned long long)dm.delivered, payload / 1e6);
        if (dm.next != dm.nrec && !dm.errors)
            dm.bad++;
    }
    if (tty)
        fprintf(stderr, "\n");
    double el = cli_now() - t0;
    int fail = dm.errors || dm.bad || dm.delivered != records;
    printf("records     %llu framed, %llu delivered and verified, %llu mismatched\n",
           (unsigned long long)records, (unsigned long long)dm.delivered,
           (unsigned long long)dm.bad);
    printf("octets      %llu payload, %llu on the wire (overhead %.2f%%: %llu markers, "
           "length/pad/CRC)\n", (unsigned long long)payload,
           (unsigned long long)wire_total, 100.0 * (wire_total - payload) / payload,
           (unsigned long long)markers);
    printf("errors      %d MPA errors%s\n", dm.errors,
           dm.errors ? " (unexpected)" : "");
    printf("speed       frame + deframe %.2f GB/s of payload (%.2f s busy, %.2f s with "
           "generation)\n", payload / busy / 1e9, busy, el);
    dw_mpa_tx_del(tx);
    dw_mpa_rx_del(rx);
    free(pool), free(wire), free(dm.recs), free(iov);
    int cc = corruption_check(&mo);
    if (cc == CLI_EXIT_RESOURCE)
        return cc;
    fail |= cc;
    printf("result      %s\n", fail ? "FAILED" : "all records verified");
    return fail;
}
