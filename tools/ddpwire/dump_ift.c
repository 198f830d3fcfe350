/*
 * ddpwire dump: IFT frames in one direction's stream (IFT 3.1: sizes,
 * DDP header, header CRC, payload, payload CRC; no pad, no markers),
 * walked as octets pass with running CRCs, never holding a frame.
 * Without markers nothing says where a frame begins, so after a header
 * CRC error (the sizes are not to be trusted, IFT 5.1) or a gap the rest
 * of the direction is counted as unchecked.
 */
#include <ddpwire/crc32c.h>

#include <stdio.h>
#include <string.h>

#include "dump.h"

enum { IS_SIZES = 0, IS_HEADER, IS_HCRC, IS_PAYLOAD, IS_PCRC, IS_LOST };

int dump_ift_probe(const uint8_t *p, size_t n)
{
    if (n < 8)
        return 0;
    size_t hsize = (size_t)p[0] << 8 | p[1];
    if (hsize < 4 || 4 + hsize + 4 > n)
        return 0; /* DDP headers are 14 octets or more; 4 leaves room for others */
    return dw_crc32c(0, p, 4 + hsize) == dw_crc32c_load(p + 4 + hsize);
}

static void enter(dump_ift *f, int state, uint32_t need)
{
    f->state = state;
    f->need = need;
    f->fill = 0;
}

static void lose(dump_dir *d, uint64_t offset, uint32_t seq, uint64_t pkt, const char *why)
{
    d->ift.state = IS_LOST;
    out_ift_event(d, "sync_lost", offset, seq, pkt, why);
}

static void frame_done(dump_dir *d, int payload_ok)
{
    dump_ift *f = &d->ift;
    f->frames++;
    if (!payload_ok) {
        f->payload_bad++;
        d->protocol_errors++;
        d->flow->owner->protocol_errors++;
    }
    out_ift(d, f, f->header_ok, payload_ok, 1);
    if (!payload_ok) {
        char why[96];
        snprintf(why, sizeof why, "payload CRC 0x%08x, computed 0x%08x (IFT error 3)",
                 (unsigned)dw_crc32c_load(f->crcbuf), (unsigned)f->pcrc);
        out_ift_event(d, "payload_crc", f->offset, f->seq, f->last_pkt, why);
    }
    f->index++;
    f->in_frame = 0;
    enter(f, IS_SIZES, 4);
}

/* The sizes are read: start the header. */
static void sizes_done(dump_ift *f)
{
    f->hsize = (uint16_t)(f->sizes[0] << 8 | f->sizes[1]);
    f->psize = (uint16_t)(f->sizes[2] << 8 | f->sizes[3]);
    f->hcrc = dw_crc32c(0, f->sizes, 4);
    enter(f, IS_HEADER, f->hsize);
}

/* The header CRC is read: judge it. Returns 0 to go on. */
static int hcrc_done(dump_dir *d, const dw_reasm_chunk *c, uint64_t at)
{
    dump_ift *f = &d->ift;
    f->header_ok = dw_crc32c_load(f->crcbuf) == f->hcrc;
    if (!f->header_ok) {
        f->header_bad++;
        f->frames++;
        d->protocol_errors++;
        d->flow->owner->protocol_errors++;
        out_ift(d, f, 0, 0, 0);
        char why[96];
        snprintf(why, sizeof why, "header CRC 0x%08x, computed 0x%08x (IFT error 2)",
                 (unsigned)dw_crc32c_load(f->crcbuf), (unsigned)f->hcrc);
        out_ift_event(d, "header_crc", f->offset, f->seq, c->pkt, why);
        lose(d, at, c->seq, c->pkt, "sizes not trusted after a header CRC error");
        return -1;
    }
    f->pcrc = 0;
    enter(f, IS_PAYLOAD, f->psize);
    return 0;
}

static void begin_frame(dump_ift *f, const dw_reasm_chunk *c, uint64_t at, uint32_t seq)
{
    enter(f, IS_SIZES, 4);
    f->in_frame = 1;
    f->offset = at;
    f->seq = seq;
    f->first_pkt = f->last_pkt = f->last_seg_pkt = c->pkt;
    f->segments = 1;
}

static void note_segment(dump_ift *f, const dw_reasm_chunk *c)
{
    if (c->pkt != f->last_seg_pkt) {
        f->segments++;
        f->last_seg_pkt = c->pkt;
    }
    f->last_pkt = c->pkt;
}

/* Consumes up to n octets into the current field; returns octets used. */
static size_t step(dump_dir *d, const uint8_t *p, size_t n, const dw_reasm_chunk *c, uint64_t at)
{
    dump_ift *f = &d->ift;
    size_t k = n < f->need ? n : f->need;
    switch (f->state) {
    case IS_SIZES:
        memcpy(f->sizes + f->fill, p, k);
        break;
    case IS_HEADER:
        f->hcrc = dw_crc32c(f->hcrc, p, k);
        if (f->fill < sizeof f->head) {
            size_t m = sizeof f->head - f->fill < k ? sizeof f->head - f->fill : k;
            memcpy(f->head + f->fill, p, m);
        }
        break;
    case IS_HCRC:
    case IS_PCRC:
        memcpy(f->crcbuf + f->fill, p, k);
        break;
    case IS_PAYLOAD:
        f->pcrc = dw_crc32c(f->pcrc, p, k);
        break;
    }
    f->fill += (uint32_t)k;
    f->need -= (uint32_t)k;
    f->octets += k;
    if (f->need)
        return k;
    switch (f->state) {
    case IS_SIZES: sizes_done(f); break;
    case IS_HEADER: enter(f, IS_HCRC, 4); break;
    case IS_HCRC: hcrc_done(d, c, at + k); break;
    case IS_PAYLOAD: enter(f, IS_PCRC, 4); break;
    case IS_PCRC: frame_done(d, dw_crc32c_load(f->crcbuf) == f->pcrc); break;
    }
    return k;
}

void dump_ift_data(dump_dir *d, const uint8_t *p, size_t len, const dw_reasm_chunk *c)
{
    dump_ift *f = &d->ift;
    uint64_t at = c->offset;
    while (len && f->state != IS_LOST) {
        if (!f->in_frame)
            begin_frame(f, c, at, c->seq + (uint32_t)(at - c->offset));
        else
            note_segment(f, c);
        size_t k = step(d, p, len, c, at);
        p += k, len -= k, at += k;
        /* a field of zero octets (empty header or payload) ends at once */
        while (f->in_frame && f->need == 0 && f->state != IS_LOST)
            step(d, p, 0, c, at);
    }
}

void dump_ift_gap(dump_dir *d, const dw_reasm_gap *g)
{
    if (d->ift.state == IS_LOST)
        return;
    if (d->ift.in_frame) {
        d->ift.frames++;
        out_ift(d, &d->ift, d->ift.state > IS_HCRC ? d->ift.header_ok : -1, -1, 0);
    }
    lose(d, g->offset, g->seq, g->pkt, "octets missing; IFT has no markers to resume at");
}

void dump_ift_end(dump_dir *d)
{
    dump_ift *f = &d->ift;
    if (f->state == IS_LOST || !f->in_frame)
        return;
    f->frames++;
    out_ift(d, f, f->state > IS_HCRC ? f->header_ok : -1, -1, 0);
    out_ift_event(d, "truncated", f->offset, f->seq, f->last_pkt,
                  "the stream ends inside a frame");
    if (d->fin || d->rst) {
        d->protocol_errors++;
        d->flow->owner->protocol_errors++;
    } else {
        d->incomplete++;
        d->flow->owner->incomplete++;
    }
}
