/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the IFT stream checker. The first four input octets pick
 * the settings (limits, head length, search limit, search start: 0x80 of
 * the first) and seed the cuts and
 * gaps; the rest is one direction's stream. It is fed twice, cut
 * differently (segments, chunks within segments), with the same gaps:
 * what the checker reports (frames, events) must not depend on the
 * cutting, every record must be consistent, and the counters must add up.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>
#include <ddpwire/ift_check.h>

#define CF_CHECK dw_ift_check
#define CF_DATA dw_ift_check_data
#define CF_GAP dw_ift_check_gap
#define CF_END dw_ift_check_end
#include "check_fuzz_util.h"

static void on_frame(dw_ift_check *c, const dw_ift_check_frame *f, void *u)
{
    run *r = u;
    (void)c;
    if (f->head_len > f->header_size || f->head_len > r->head_max ||
        f->index != r->recs || f->offset >= r->len)
        abort();
    if ((f->header_crc == DW_IFT_CHECK_CRC_GOOD) != (f->header_crc_wire == f->header_crc_calc) &&
        f->header_crc != DW_IFT_CHECK_CRC_MISSING)
        abort();
    if ((f->payload_crc == DW_IFT_CHECK_CRC_GOOD) != (f->payload_crc_wire == f->payload_crc_calc) &&
        f->payload_crc != DW_IFT_CHECK_CRC_MISSING)
        abort();
    if (f->header_crc != DW_IFT_CHECK_CRC_GOOD && f->payload_crc != DW_IFT_CHECK_CRC_MISSING)
        abort();
    if (f->header_crc != DW_IFT_CHECK_CRC_MISSING) { /* the header is here: recheck */
        size_t h = f->header_size;
        if (f->offset + 8 + h > r->len ||
            dw_crc32c(0, r->d + f->offset, 4 + h) != f->header_crc_calc ||
            memcmp(f->head, r->d + f->offset + 4, f->head_len))
            abort();
    }
    r->recs++;
    put(r, f->offset ^ (uint64_t)f->frame_len << 40);
    put(r, (uint64_t)f->header_size << 32 | f->payload_size);
    put(r, (uint64_t)f->header_crc << 8 | (uint64_t)f->payload_crc << 4 | (uint64_t)f->resync);
    put(r, (uint64_t)f->header_crc_calc << 32 | f->payload_crc_calc);
}

static int search_start, starts;

static void on_event(dw_ift_check *c, const dw_ift_check_event *ev, void *u)
{
    (void)c;
    /* EV_START once, with search_start only, before any frame */
    if (ev->kind == DW_IFT_CHECK_EV_START &&
        (!search_start || starts++ || ((run *)u)->recs))
        abort();
    if (!ev->detail)
        abort();
    put(u, (uint64_t)ev->kind << 56 ^ (uint64_t)ev->code << 52 ^ ev->offset);
    put(u, ev->len);
}

static void check_stats(const dw_ift_check *c, const run *r)
{
    dw_ift_check_stats st;
    dw_ift_check_stats_get(c, &st);
    if (st.frames != r->recs ||
        st.header_crc_good + st.header_crc_bad + st.header_crc_missing != st.frames ||
        st.payload_crc_good + st.payload_crc_bad + st.payload_crc_missing != st.frames ||
        st.aligned > st.frames || st.packed > st.frames || st.seg_packed > st.seg_with_start)
        abort();
    if ((st.header_crc_bad || st.payload_crc_bad || st.size_errors) &&
        st.first_error == DW_IFT_ERR_NONE)
        abort();
}

static run runs[2];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    dw_ift_check_settings st;
    dw_ift_check_settings_default(&st);
    if (data[0] & 1)
        st.max_header = 16u << (data[0] >> 1 & 7); /* 16 .. 2048 */
    if (data[0] & 0x10)
        st.max_payload = (size_t)data[2] * 16;
    st.head_len = data[1] >> 1;
    st.search_limit = data[1] & 1 ? 64 : st.search_limit;
    st.search_start = search_start = data[0] >> 7;
    uint64_t seed;
    plan p;
    plan_make(&p, data, size, &seed);
    dw_ift_check_callbacks cb = {on_frame, on_event};
    for (int k = 0; k < 2; k++) {
        run_begin(&runs[k], &p, st.head_len);
        starts = 0;
        dw_ift_check *c;
        if (dw_ift_check_new(&c, &st, &cb, &runs[k]))
            abort();
        feed(c, &runs[k], &p, seed + (uint64_t)k * 977, k);
        check_stats(c, &runs[k]);
        dw_ift_check_del(c);
    }
    runs_same(&runs[0], &runs[1]);
    return 0;
}
