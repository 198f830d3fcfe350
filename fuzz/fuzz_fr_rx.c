/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the framing-neutral receiver (framing.h) for MPA and IFT,
 * with its own buffer of 65535, 0, 100 or 2000 octets and a get_buffer
 * that is absent, always gives, or refuses records over 600 octets. The
 * first octet picks those, the framing, CRC and markers; the second a
 * chunk size; the rest is the stream. The stream is fed in chunks and, to
 * a second receiver with a whole buffer, at once: the chunked one must
 * deliver the very same PDUs (lengths and octets) and the same error,
 * except that it may stop early with DW_ERR_NOMEM, and only when a PDU
 * could lack a buffer; after that every feed says DW_ERR_NOMEM and
 * nothing is delivered.
 */
#include <ddpwire/framing.h>

#include <stdlib.h>
#include <string.h>

#define MUST(c)                                                               \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

#define LOG_MAX 4096

typedef struct run {
    uint64_t log[LOG_MAX];
    size_t n;
    int errors, code, stopped;
    int gb_mode; /* 0 none, 1 always, 2 refuses over 600 */
} run;

static run runs[2];
static uint8_t place[65535];

static uint64_t hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) /* every octet read: ASan checks bounds */
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int on_pdu(dw_fr_rx *rx, const uint8_t *hdr, size_t hlen, const uint8_t *d, size_t len,
                  uint64_t off, void *u)
{
    run *r = u;
    (void)rx;
    MUST(!r->errors && !r->stopped && len <= 65535 && hlen <= 65535);
    if (r->n + 3 <= LOG_MAX) {
        r->log[r->n++] = off ^ (uint64_t)len << 32 ^ (uint64_t)hlen << 48;
        r->log[r->n++] = hash(hdr, hlen);
        r->log[r->n++] = hash(d, len);
    }
    return 0;
}

static void on_error(dw_fr_rx *rx, const dw_fr_error *e, void *u)
{
    run *r = u;
    (void)rx;
    MUST(!r->errors && !r->stopped);
    r->errors++;
    r->code = e->code;
}

static uint8_t *get_buffer(dw_fr_rx *rx, size_t len, void *u)
{
    run *r = u;
    (void)rx;
    MUST(len > 0 && len <= sizeof place);
    return r->gb_mode == 1 || (r->gb_mode == 2 && len <= 600) ? place : NULL;
}

static const size_t own_sizes[4] = {65535, 0, 100, 2000};

static dw_fr_rx *make(uint8_t mode, run *r, size_t buf_size, int gb)
{
    dw_fr_rx_settings s;
    dw_fr_rx *rx;
    dw_fr_rx_settings_default(&s, mode & 1 ? DW_FRAMING_IFT : DW_FRAMING_MPA);
    s.mpa.crc = s.ift.crc = !(mode & 0x20);
    s.mpa.markers = !(mode & 0x40);
    s.buf_size = buf_size;
    memset(r, 0, sizeof *r);
    r->gb_mode = gb;
    dw_fr_rx_callbacks cb = {on_pdu, on_error, gb ? get_buffer : NULL};
    MUST(dw_fr_rx_new(&rx, &s, &cb, r) == 0);
    return rx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t mode = data[0], chunk = data[1];
    data += 2, size -= 2;
    size_t own = own_sizes[mode >> 1 & 3];
    int gb = (mode >> 3 & 3) % 3;
    int may_lack = own < 65535 && gb != 1;
    dw_fr_rx *whole = make(mode, &runs[0], 65535, 0), *cut = make(mode, &runs[1], own, gb);
    ssize_t w = dw_fr_rx_feed(whole, data, size);
    int nomem = 0;
    size_t step = chunk ? chunk : 1;
    for (size_t i = 0; i < size && !nomem; i += step) {
        size_t n = size - i < step ? size - i : step;
        ssize_t r = dw_fr_rx_feed(cut, data + i, n);
        if (r == DW_ERR_NOMEM) {
            MUST(may_lack && !runs[1].errors);
            MUST(dw_fr_rx_feed(cut, data, size) == DW_ERR_NOMEM);
            runs[1].stopped = nomem = 1;
        } else if (r < 0) {
            MUST(r == DW_ERR_PROTO && runs[1].errors);
            break;
        } else {
            MUST((size_t)r == n);
        }
    }
    const run *a = &runs[0], *b = &runs[1];
    if (!nomem) { /* the same PDUs and the same verdict, however cut */
        MUST(a->n == b->n && !memcmp(a->log, b->log, a->n * sizeof a->log[0]));
        MUST(a->errors == b->errors && a->code == b->code);
        MUST((w < 0) == (b->errors != 0));
    } else { /* a prefix of them */
        MUST(b->n <= a->n && !memcmp(a->log, b->log, b->n * sizeof b->log[0]));
    }
    dw_fr_rx_del(whole);
    dw_fr_rx_del(cut);
    return 0;
}
