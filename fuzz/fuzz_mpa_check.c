/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the MPA stream checker. The first four input octets pick
 * the settings (start mode, markers, CRC, head length, search limit) and
 * seed the cuts and gaps; the rest is one direction's stream. It is fed
 * twice, cut differently (segments, chunks within segments), with the
 * same gaps: what the checker reports (FPDUs, markers, events) must not
 * depend on the cutting, every record must be consistent, and the
 * counters must add up.
 */
#include <ddpwire/mpa_check.h>

#define CF_CHECK dw_mpa_check
#define CF_DATA dw_mpa_check_data
#define CF_GAP dw_mpa_check_gap
#define CF_END dw_mpa_check_end
#include "check_fuzz_util.h"
#include "fuzz_flags.h"

static void on_fpdu(dw_mpa_check *c, const dw_mpa_check_fpdu *f, void *u)
{
    run *r = u;
    (void)c;
    if (f->head_len > f->ulpdu_len || f->head_len > r->head_max ||
        f->bad_markers > f->markers || f->index != r->recs ||
        f->offset + f->fpdu_len > r->end + 0x20000u)
        abort();
    if ((f->crc == DW_MPA_CHECK_CRC_GOOD) != (f->crc_wire == f->crc_calc) &&
        f->crc <= DW_MPA_CHECK_CRC_BAD)
        abort();
    r->recs++;
    put(r, f->offset ^ (uint64_t)f->fpdu_len << 40);
    put(r, (uint64_t)f->ulpdu_len << 32 | f->markers << 16 | f->bad_markers);
    put(r, (uint64_t)f->crc << 8 | (uint64_t)f->resync << 4 | (uint64_t)f->pad_nonzero);
    uint64_t h = 0;
    size_t i = 0;
    for (; i + 4 <= f->head_len; i += 4) /* 4 at a time: a traced test each */
        h = (((h * 131 + f->head[i]) * 131 + f->head[i + 1]) * 131 + f->head[i + 2]) * 131 +
            f->head[i + 3];
    for (; i < f->head_len; i++)
        h = h * 131 + f->head[i];
    put(r, h ^ f->head_len);
}

static void on_marker(dw_mpa_check *c, const dw_mpa_check_marker *m, void *u)
{
    (void)c;
    if (m->pos % 512)
        abort();
    put(u, m->offset ^ (uint64_t)m->fpduptr << 48 ^ (uint64_t)m->ok << 47);
}

static void on_event(dw_mpa_check *c, const dw_mpa_check_event *ev, void *u)
{
    (void)c;
    if (!ev->detail || (ev->kind == DW_MPA_CHECK_EV_STARTUP) != (ev->frame != NULL))
        abort();
    /* found mid-stream: only by search, before any FPDU */
    if (ev->kind == DW_MPA_CHECK_EV_START && strstr(ev->detail, "mid-stream") &&
        ((run *)u)->recs)
        abort();
    put(u, (uint64_t)ev->kind << 56 ^ (uint64_t)ev->code << 52 ^ ev->offset);
    if (ev->kind != DW_MPA_CHECK_EV_GAP)
        put(u, ev->len);
}

static void check_stats(const dw_mpa_check *c, const run *r)
{
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    if (st.fpdus != r->recs || st.crc_good + st.crc_bad + st.crc_unchecked != st.fpdus ||
        st.aligned > st.fpdus || st.packed > st.fpdus || st.seg_packed > st.seg_with_start ||
        st.marker_errors > st.markers_seen)
        abort();
    if ((st.crc_bad || st.marker_errors) && st.first_error == DW_MPA_ERR_NONE)
        abort();
}

static run runs[2];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    dw_mpa_check_settings st;
    dw_mpa_check_settings_default(&st);
    st.start = (dw_mpa_check_start)(data[0] & 3);
    st.markers = (data[0] >> 2) % 3 - 1;
    st.crc = (data[0] >> 4) % 3 - 1;
    st.head_len = data[1] >> 1;
    st.search_limit = data[1] & 1 ? 64 : st.search_limit;
    st.start_offset = data[2] % 64;
    uint64_t seed;
    plan p;
    plan_make(&p, data, size, &seed);
    dw_mpa_check_callbacks cb = {on_fpdu, on_marker, on_event};
    for (int k = 0; k < 2; k++) {
        run_begin(&runs[k], &p, st.head_len);
        dw_mpa_check *c;
        if (dw_mpa_check_new(&c, &st, &cb, &runs[k]))
            abort();
        if (data[0] & 0x80)
            dw_mpa_check_set_mode(c, data[1] & 2 ? 1 : 0, data[1] & 4 ? 1 : 0);
        feed(c, &runs[k], &p, seed + (uint64_t)k * 977, k);
        check_stats(c, &runs[k]);
        dw_mpa_check_del(c);
    }
    runs_same(&runs[0], &runs[1]);
    return 0;
}
