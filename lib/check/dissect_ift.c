/* SPDX-License-Identifier: MIT */
/*
 * The dissector's IFT side: one direction's IFT checker (<ddpwire/ift_check.h>)
 * whose frames and events go to the caller, and in auto mode the IFT
 * search that races the MPA search, silent until it is sure.
 */
#include <ddpwire/crc32c.h>

#include <stdio.h>
#include <string.h>

#include "check/dissect_int.h"

/* A stream that begins with an IFT header whose CRC verifies. */
int dw_ds_ift_probe(const uint8_t *p, size_t n)
{
    if (n < 8)
        return 0;
    size_t hsize = (size_t)p[0] << 8 | p[1];
    if (hsize < 4 || 4 + hsize + 4 > n)
        return 0; /* DDP headers are 14 octets or more; 4 leaves room for others */
    return dw_crc32c(0, p, 4 + hsize) == dw_crc32c_load(p + 4 + hsize);
}

static void emit_frame(ds_dir *d, const dw_ift_check_frame *fr)
{
    dw_dissect *D = d->flow->D;
    dw_rdmap_msg m;
    int ok = fr->header_crc == DW_IFT_CHECK_CRC_GOOD && fr->payload_crc == DW_IFT_CHECK_CRC_GOOD;
    /* the IFT header is the DDP/RDMAP header; the payload follows it */
    dw_rdma_check_where at = {fr->first_pkt, fr->offset, fr->seq};
    const dw_rdmap_msg *ddp =
        dw_ds_ulpdu(d, ok, fr->head, fr->head_len, fr->header_size + fr->payload_size, &at, &m);
    if (D->cb.on_ift_frame)
        D->cb.on_ift_frame(D, &d->pub, fr, ddp, D->ud);
}

static void on_event(dw_ift_check *c, const dw_ift_check_event *ev, void *u);

/* The race is won: the held start event and first frame come out. */
static void race_win(ds_dir *d)
{
    d->ift_race = 0;
    d->pub.framing = DW_DISSECT_FOUND_IFT; /* the MPA search is dropped (dissect.c) */
    d->searching = 0;
    d->race_start.detail = d->race_detail;
    on_event(d->ift, &d->race_start, d);
    d->race_fr.head = d->race_head;
    emit_frame(d, &d->race_fr);
}

/* Racing: IFT wins with two frames in a row whose CRCs are all good (one
 * header CRC is 2^-32 for random octets, too weak over 256 KiB of many
 * flows), or one such frame that ends the stream; anything else before
 * that, and it drops out. */
static void race_frame(ds_dir *d, const dw_ift_check_frame *fr)
{
    if (d->ift_race_lost || !d->race_started || fr->header_crc != DW_IFT_CHECK_CRC_GOOD ||
        fr->payload_crc != DW_IFT_CHECK_CRC_GOOD) {
        d->ift_race_lost = 1;
        return;
    }
    if (!d->race_frames++) {
        d->race_fr = *fr;
        d->race_fr.head_len = fr->head_len < sizeof d->race_head ? fr->head_len
                                                                 : sizeof d->race_head;
        memcpy(d->race_head, fr->head, d->race_fr.head_len);
        return;
    }
    race_win(d);
    emit_frame(d, fr);
}

static void race_event(ds_dir *d, const dw_ift_check_event *ev)
{
    if (ev->kind == DW_IFT_CHECK_EV_START) {
        d->race_start = *ev;
        snprintf(d->race_detail, sizeof d->race_detail, "%s", ev->detail ? ev->detail : "");
        d->race_started = 1;
    } else if (ev->kind != DW_IFT_CHECK_EV_GAP) {
        d->ift_race_lost = 1; /* a CRC or size error, or nothing found */
    }
}

static void on_frame(dw_ift_check *c, const dw_ift_check_frame *fr, void *u)
{
    (void)c;
    ds_dir *d = u;
    if (d->ift_race)
        race_frame(d, fr);
    else
        emit_frame(d, fr);
}

static void on_event(dw_ift_check *c, const dw_ift_check_event *ev, void *u)
{
    (void)c;
    ds_dir *d = u;
    dw_dissect *D = d->flow->D;
    if (d->ift_race) {
        race_event(d, ev);
        return;
    }
    if (ev->kind == DW_IFT_CHECK_EV_GAP || ev->kind == DW_IFT_CHECK_EV_HEADER_CRC)
        dw_ds_ulpdu_gap(d);
    if (ev->kind == DW_IFT_CHECK_EV_GAP && ev->offset + ev->len <= d->gap_shown_end)
        return; /* shown (and counted) before the framing was known */
    int sev = ev->kind == DW_IFT_CHECK_EV_HEADER_CRC ||
              ev->kind == DW_IFT_CHECK_EV_PAYLOAD_CRC || ev->kind == DW_IFT_CHECK_EV_SIZE;
    if (ev->kind == DW_IFT_CHECK_EV_TRUNCATED)
        sev = (d->pub.fin || d->pub.rst) ? 1 : -1; /* cut by the peer, or by the capture */
    if (sev)
        dw_ds_count(d, sev < 0);
    if (D->cb.on_ift_event)
        D->cb.on_ift_event(D, &d->pub, ev, sev, D->ud);
}

int dw_ds_ift_create(ds_dir *d, int race)
{
    dw_ift_check_callbacks cb = {on_frame, on_event};
    dw_ift_check_settings s;
    dw_ift_check_settings_default(&s);
    /* a capture that began after the SYN: the first frame is somewhere in
     * the first octets seen, found by its header CRC */
    s.search_start = race || !d->syn_seen;
    if (race) {
        s.search_limit = 262144; /* as the MPA search: most flows are neither */
        s.max_header = 1024;     /* DDP/RDMAP headers are short; a small buffer */
    }
    s.mem = d->flow->D->s.mem;
    d->ift_race = race;
    d->ift_race_lost = d->race_started = d->race_frames = 0;
    return dw_ift_check_new(&d->ift, &s, &cb, d);
}

void dw_ds_ift_data(ds_dir *d, const uint8_t *p, size_t len, const dw_reasm_chunk *c)
{
    if (d->ift)
        dw_ds_nomem(d, dw_ift_check_data(d->ift, p, len, c));
}

void dw_ds_ift_gap(ds_dir *d, const dw_reasm_gap *g)
{
    if (d->ift)
        dw_ds_nomem(d, dw_ift_check_gap(d->ift, g));
}

void dw_ds_ift_end(ds_dir *d)
{
    if (d->ift)
        dw_ds_nomem(d, dw_ift_check_end(d->ift));
}

void dw_ds_ift_race_end(ds_dir *d)
{
    dw_ds_ift_end(d); /* its last scan may still find frames */
    if (d->ift_race && !d->ift_race_lost && d->race_frames == 1)
        race_win(d); /* one good frame, and the stream ended right after it */
}
