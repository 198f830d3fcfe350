/* SPDX-License-Identifier: MIT */
/* IFT: whole-frame codec and sender (header + payload -> frame). */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>

#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/mem.h"
#include "base/versioned.h"

DW_VERSIONS_1(ift_tx_settings_v, dw_ift_tx_settings, mem);

const char *dw_ift_strerror(dw_ift_error code)
{
    switch (code) {
    case DW_IFT_ERR_NONE:
        return "no error";
    case DW_IFT_ERR_CLOSED:
        return "TCP connection closed, terminated or lost";
    case DW_IFT_ERR_HEADER_CRC:
        return "header CRC mismatch";
    case DW_IFT_ERR_PAYLOAD_CRC:
        return "payload CRC mismatch";
    case DW_IFT_ERR_SIZE:
        return "header or payload size outside the receiver's limits";
    }
    return "unknown IFT error";
}

size_t dw_ift_frame_len(size_t header_len, size_t payload_len)
{
    return DW_IFT_OVERHEAD + header_len + payload_len;
}

ssize_t dw_ift_decode(dw_ift_frame *out, const uint8_t *in, size_t len)
{
    if (!out || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_IFT_SIZES_LEN)
        return DW_ERR_NEED_MORE;
    size_t h = dw_get_be16(in), p = dw_get_be16(in + 2);
    size_t flen = dw_ift_frame_len(h, p);
    if (len < flen)
        return DW_ERR_NEED_MORE;
    const uint8_t *hcrc = in + 4 + h, *pay = hcrc + 4;
    out->header_len = (uint16_t)h;
    out->payload_len = (uint16_t)p;
    out->header = in + 4;
    out->payload = pay;
    out->header_crc = dw_crc32c_load(hcrc);
    out->payload_crc = dw_crc32c_load(pay + p);
    /* IFT 3.1: the header CRC covers the size fields and the DDP header */
    out->header_crc_ok = dw_crc32c(0, in, 4 + h) == out->header_crc;
    out->payload_crc_ok = dw_crc32c(0, pay, p) == out->payload_crc;
    return (ssize_t)flen;
}

/* Argument checks shared by the encoder and the sender. */
static int check_args(const void *hdr, size_t hlen, const void *payload,
                      size_t plen)
{
    if ((!hdr && hlen) || (!payload && plen))
        return DW_ERR_INVAL;
    if (hlen > DW_IFT_SIZE_MAX || plen > DW_IFT_SIZE_MAX) /* 16-bit fields */
        return DW_ERR_TOO_LONG;
    return 0;
}

/* A whole frame into out (dw_ift_frame_len() octets), one pass over the
 * header and the payload each. */
static void write_frame(uint8_t *out, const void *hdr, size_t hlen,
                        const void *payload, size_t plen, int crc)
{
    dw_put_be16(out, (uint16_t)hlen);
    dw_put_be16(out + 2, (uint16_t)plen);
    uint8_t *h = out + 4, *pay = h + hlen + 4;
    uint32_t hc = 0, pc = 0;
    if (crc) {
        hc = dw_crc32c(0, out, 4);
        hc = dw_crc32c_copy(hc, h, hdr, hlen);
        pc = dw_crc32c_copy(0, pay, payload, plen);
    } else {
        if (hlen)
            memcpy(h, hdr, hlen);
        if (plen)
            memcpy(pay, payload, plen);
    }
    dw_crc32c_store(h + hlen, hc);
    dw_crc32c_store(pay + plen, pc); /* IFT 3.1: no pad before it */
}

ssize_t dw_ift_encode(uint8_t *out, size_t cap, const void *hdr, size_t hlen,
                      const void *payload, size_t plen)
{
    int rc = check_args(hdr, hlen, payload, plen);
    if (rc)
        return rc;
    if (!out && cap)
        return DW_ERR_INVAL;
    size_t flen = dw_ift_frame_len(hlen, plen);
    if (cap < flen)
        return DW_ERR_NOSPACE;
    write_frame(out, hdr, hlen, payload, plen, 1);
    return (ssize_t)flen;
}

/* ------------------------------------------------------------------ */
/* Sender                                                              */
/* ------------------------------------------------------------------ */

struct dw_ift_tx {
    dw_ift_tx_settings set;
    uint64_t off;     /* stream offset of the next frame */
    uint8_t *scratch; /* ring of set.scratch_size octets */
    size_t head;      /* next free scratch octet */
};

static void ift_tx_settings_fill(dw_ift_tx_settings *s)
{
    memset(s, 0, sizeof *s);
    s->scratch_size = 65536;
    s->crc = 1;
}

int dw_ift_tx_settings_default_versioned(int settings_version, dw_ift_tx_settings *s)
{
    dw_ift_tx_settings cur;
    ift_tx_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, ift_tx_settings_v);
}

static int ift_tx_new_latest(dw_ift_tx **ptx, const dw_ift_tx_settings *s)
{
    dw_ift_tx_settings def;
    if (!ptx)
        return DW_ERR_INVAL;
    *ptx = NULL;
    if (!s) {
        dw_ift_tx_settings_default(&def);
        s = &def;
    }
    if (s->scratch_size < DW_IFT_TX_SCRATCH_MIN)
        return DW_ERR_INVAL;
    dw_ift_tx *tx = dw_mem_calloc(s->mem, 1, sizeof *tx);
    if (!tx)
        return DW_ERR_NOMEM;
    tx->scratch = dw_mem_malloc(s->mem, s->scratch_size);
    if (!tx->scratch) {
        dw_mem_free(s->mem, tx);
        return DW_ERR_NOMEM;
    }
    tx->set = *s;
    *ptx = tx;
    return 0;
}

int dw_ift_tx_new_versioned(dw_ift_tx **ptx, int settings_version, const dw_ift_tx_settings *s)
{
    dw_ift_tx_settings s_cur;
    if (settings_version != DW_IFT_TX_SETTINGS_VERSION)
        dw_ift_tx_settings_default(&s_cur);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, ift_tx_settings_v, err);
    if (err)
        return err;
    return ift_tx_new_latest(ptx, s);
}

void dw_ift_tx_del(dw_ift_tx *tx)
{
    if (!tx)
        return;
    dw_mem_free(tx->set.mem, tx->scratch);
    dw_mem_free(tx->set.mem, tx);
}

uint64_t dw_ift_tx_offset(const dw_ift_tx *tx)
{
    return tx->off;
}

static void commit(dw_ift_tx *tx, size_t flen, size_t iovcnt,
                   dw_ift_frame_info *info)
{
    if (info) {
        info->len = flen;
        info->iovcnt = iovcnt;
        info->offset = tx->off;
    }
    tx->off += flen;
}

/* The iovecs a frame takes (see dw_ift_tx_frame()): the short header
 * lives in the first scratch piece, an empty payload's CRC is merged. */
static size_t iov_need(size_t hlen, size_t plen)
{
    size_t n = hlen <= DW_IFT_TX_INLINE_HEADER_MAX ? 1 : 3;
    return n + (plen ? 2 : 0);
}

ssize_t dw_ift_tx_frame(dw_ift_tx *tx, const void *hdr, size_t hlen,
                        const void *payload, size_t plen, struct iovec *iov,
                        size_t iovcap, dw_ift_frame_info *info)
{
    if (!tx || !iov)
        return DW_ERR_INVAL;
    int rc = check_args(hdr, hlen, payload, plen);
    if (rc)
        return rc;
    if (iovcap < iov_need(hlen, plen)) /* checked before any change */
        return DW_ERR_NOSPACE;
    if (tx->head + DW_IFT_TX_SCRATCH_PER_FRAME > tx->set.scratch_size)
        tx->head = 0; /* ring: each frame's scratch is contiguous */
    uint8_t *s = tx->scratch + tx->head, *t;
    int crc = tx->set.crc;
    size_t n = 0;
    dw_put_be16(s, (uint16_t)hlen);
    dw_put_be16(s + 2, (uint16_t)plen);
    uint32_t hc = crc ? dw_crc32c(0, s, 4) : 0;
    if (hlen <= DW_IFT_TX_INLINE_HEADER_MAX) { /* [sizes header hcrc] */
        if (hlen)
            hc = crc ? dw_crc32c_copy(hc, s + 4, hdr, hlen)
                     : (memcpy(s + 4, hdr, hlen), 0);
        t = s + 4 + hlen;
        iov[n++] = (struct iovec){s, 8 + hlen};
    } else { /* [sizes] [header] [hcrc] */
        hc = crc ? dw_crc32c(hc, hdr, hlen) : 0;
        t = s + 4;
        iov[n++] = (struct iovec){s, 4};
        iov[n++] = (struct iovec){(void *)hdr, hlen};
        iov[n++] = (struct iovec){t, 4};
    }
    dw_crc32c_store(t, hc);
    t += 4;
    if (plen) { /* the payload is referenced, never copied */
        iov[n++] = (struct iovec){(void *)payload, plen};
        iov[n++] = (struct iovec){t, 4};
    } else {
        iov[n - 1].iov_len += 4; /* right after the last scratch piece */
    }
    dw_crc32c_store(t, crc ? dw_crc32c(0, payload, plen) : 0);
    tx->head = (size_t)(t + 4 - tx->scratch);
    size_t flen = dw_ift_frame_len(hlen, plen);
    commit(tx, flen, n, info);
    return (ssize_t)flen;
}

ssize_t dw_ift_tx_frame_into(dw_ift_tx *tx, const void *hdr, size_t hlen,
                             const void *payload, size_t plen, uint8_t *out,
                             size_t cap, dw_ift_frame_info *info)
{
    if (!tx || !out)
        return DW_ERR_INVAL;
    int rc = check_args(hdr, hlen, payload, plen);
    if (rc)
        return rc;
    size_t flen = dw_ift_frame_len(hlen, plen);
    if (cap < flen)
        return DW_ERR_NOSPACE;
    write_frame(out, hdr, hlen, payload, plen, tx->set.crc);
    commit(tx, flen, 1, info);
    return (ssize_t)flen;
}
