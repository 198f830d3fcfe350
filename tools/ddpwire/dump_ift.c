/*
 * ddpwire dump: IFT in one direction's stream, through the core checker
 * (<ddpwire/ift.h>, dw_ift_check): frames with both CRC verdicts, and
 * after a header CRC error or a gap the next frame found by its header CRC.
 */
#include <ddpwire/crc32c.h>

#include <stdio.h>

#include "dump.h"

int dump_ift_probe(const uint8_t *p, size_t n)
{
    if (n < 8)
        return 0;
    size_t hsize = (size_t)p[0] << 8 | p[1];
    if (hsize < 4 || 4 + hsize + 4 > n)
        return 0; /* DDP headers are 14 octets or more; 4 leaves room for others */
    return dw_crc32c(0, p, 4 + hsize) == dw_crc32c_load(p + 4 + hsize);
}

static void on_frame(dw_ift_check *c, const dw_ift_check_frame *fr, void *u)
{
    (void)c;
    out_ift(u, fr);
}

static void on_event(dw_ift_check *c, const dw_ift_check_event *ev, void *u)
{
    (void)c;
    dump_dir *d = u;
    dump *D = d->flow->owner;
    if (ev->kind == DW_IFT_CHECK_EV_GAP && ev->offset + ev->len <= d->gap_shown_end)
        return; /* shown (and counted) before the framing was known */
    int error = ev->kind == DW_IFT_CHECK_EV_HEADER_CRC ||
                ev->kind == DW_IFT_CHECK_EV_PAYLOAD_CRC || ev->kind == DW_IFT_CHECK_EV_SIZE;
    if (ev->kind == DW_IFT_CHECK_EV_TRUNCATED)
        error = (d->fin || d->rst) ? 1 : -1; /* cut by the peer, or by the capture */
    if (error > 0) {
        d->protocol_errors++;
        D->protocol_errors++;
    } else if (error < 0) {
        d->incomplete++;
        D->incomplete++;
    }
    out_ift_event(d, dw_ift_check_event_name(ev->kind), (int)ev->code, ev->offset, ev->seq,
                  ev->pkt, ev->len, ev->detail, error != 0 || ev->kind == DW_IFT_CHECK_EV_GAP);
}

int dump_ift_create(dump_dir *d)
{
    dw_ift_check_callbacks cb = {on_frame, on_event};
    dw_ift_check_settings s;
    dw_ift_check_settings_default(&s);
    /* a capture that began after the SYN: the first frame is somewhere in
     * the first octets seen, found by its header CRC */
    s.search_start = !d->syn_seen;
    return dw_ift_check_new(&d->ift, &s, &cb, d);
}

void dump_ift_data(dump_dir *d, const uint8_t *p, size_t len, const dw_reasm_chunk *c)
{
    if (d->ift)
        dw_ift_check_data(d->ift, p, len, c);
}

void dump_ift_gap(dump_dir *d, const dw_reasm_gap *g)
{
    if (d->ift)
        dw_ift_check_gap(d->ift, g);
}

void dump_ift_end(dump_dir *d)
{
    if (d->ift)
        dw_ift_check_end(d->ift);
}
