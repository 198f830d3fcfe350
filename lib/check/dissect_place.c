/* SPDX-License-Identifier: MIT */
/*
 * The dissector's placement analysis: an MPA direction's captured TCP
 * segments, in capture order, through the segment receiver of an
 * MPA-aware TCP (<ddpwire/mpa_seg.h>): what it would have placed on
 * arrival (MPA 5.1, 7.4) and what it would have had to hold.
 */
#include <stdlib.h>
#include <string.h>

#include "check/dissect_int.h"

static void on_place(dw_mpa_seg *r, const uint8_t *data, const dw_mpa_seg_pdu *pdu, void *u)
{
    (void)r, (void)data, (void)pdu, (void)u;
}

static void on_error(dw_mpa_seg *r, const dw_mpa_rx_error *err, void *u)
{
    (void)r;
    ds_dir *d = u;
    d->pl_error = (int)err->code;
}

/* MPA mode begins at stream offset start_offset (frames or mpa_port). */
void dw_ds_place_start(ds_dir *d, uint64_t start_offset)
{
    if (!d->flow->D->s.placement || d->pl_start_known || !d->have_seq)
        return;
    d->pl_start_known = 1;
    d->pl_start_seq = d->stream_seq + (uint32_t)start_offset;
}

/* The receiver, once the direction's mode is known (both frames seen, or
 * the checker has learnt it). */
static dw_mpa_seg *receiver(ds_dir *d)
{
    if (d->seg || !d->pl_start_known || !d->mpa || d->pl_error)
        return d->seg;
    dw_mpa_check_stats ms;
    dw_mpa_check_stats_get(d->mpa, &ms);
    if (ms.markers < 0 || ms.crc < 0)
        return NULL;
    dw_mpa_seg_settings s;
    dw_mpa_seg_settings_default(&s);
    s.start_seq = d->pl_start_seq;
    s.markers = ms.markers;
    s.crc = ms.crc;
    s.store_bytes = d->flow->D->s.placement_store;
    s.mem = d->flow->D->s.mem;
    dw_mpa_seg_callbacks cb = {on_place, NULL, on_error};
    if (dw_mpa_seg_new(&d->seg, &s, &cb, d))
        d->flow->D->st.nomem++;
    return d->seg;
}

void dw_ds_place_segment(ds_dir *d, const dw_pkt_tcp *t)
{
    if (!t->payload_len || t->payload_caplen < t->payload_len)
        return; /* only whole segments: a receiver gets every octet */
    dw_mpa_seg *r = receiver(d);
    if (!r)
        return;
    /* sent again: it begins before the in-order point (the first may begin
     * with the start-up frame), or fills the hole before held octets */
    uint32_t ack = dw_mpa_seg_ack(r);
    dw_mpa_seg_range sack[1];
    int old = (int32_t)(t->seq - ack) < 0 && ack != d->pl_start_seq;
    if (old || (t->seq == ack && dw_mpa_seg_sack(r, sack, 1)))
        d->pl_retrans++;
    if (t->payload_len > d->pl_emss)
        d->pl_emss = t->payload_len;
    dw_mpa_seg_feed(r, t->seq, t->payload, t->payload_len);
    dw_mpa_seg_stats st;
    dw_mpa_seg_stats_get(r, &st);
    d->pl_samples++;
    d->pl_held_sum += st.held;
}

void dw_ds_place_free(ds_dir *d)
{
    dw_mpa_seg_del(d->seg);
    d->seg = NULL;
}

void dw_ds_place_stats(const ds_dir *d, dw_dissect_dir_stats *st)
{
    if (!d->seg)
        return;
    st->placement = 1;
    dw_mpa_seg_stats_get(d->seg, &st->seg);
    st->held_mean = d->pl_samples ? d->pl_held_sum / d->pl_samples : 0;
    st->emss = d->pl_emss;
    st->seg_retransmits = d->pl_retrans;
    st->seg_error = d->pl_error;
}
