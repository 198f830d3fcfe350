/*
 * Fuzz target: the IFT stream checker. The first four input octets pick
 * the settings (limits, head length, search limit) and seed the cuts and
 * gaps; the rest is one direction's stream. It is fed twice, cut
 * differently (segments, chunks within segments), with the same gaps:
 * what the checker reports (frames, events) must not depend on the
 * cutting, every record must be consistent, and the counters must add up.
 */
#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>

#include <stdlib.h>
#include <string.h>

#define LOG_MAX 8192

typedef struct run {
    uint64_t log[LOG_MAX];
    size_t n;
    uint64_t frames, head_max;
    const uint8_t *d;
    size_t len;
} run;

static void put(run *r, uint64_t v)
{
    if (r->n < LOG_MAX)
        r->log[r->n++] = v;
}

static void on_frame(dw_ift_check *c, const dw_ift_check_frame *f, void *u)
{
    run *r = u;
    (void)c;
    if (f->head_len > f->header_size || f->head_len > r->head_max ||
        f->index != r->frames || f->offset >= r->len)
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
    r->frames++;
    put(r, f->offset ^ (uint64_t)f->frame_len << 40);
    put(r, (uint64_t)f->header_size << 32 | f->payload_size);
    put(r, (uint64_t)f->header_crc << 8 | (uint64_t)f->payload_crc << 4 | (uint64_t)f->resync);
    put(r, (uint64_t)f->header_crc_calc << 32 | f->payload_crc_calc);
}

static void on_event(dw_ift_check *c, const dw_ift_check_event *ev, void *u)
{
    (void)c;
    if (!ev->detail)
        abort();
    put(u, (uint64_t)ev->kind << 56 ^ (uint64_t)ev->code << 52 ^ ev->offset);
    put(u, ev->len);
}

typedef struct plan {
    const uint8_t *d;
    size_t n;
    size_t ga[2], gb[2]; /* gaps */
} plan;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void feed(dw_ift_check *c, const plan *p, uint64_t seed, int fine)
{
    size_t o = 0;
    uint64_t pkt = 1;
    while (o < p->n) {
        int g = o == p->ga[0] ? 0 : o == p->ga[1] ? 1 : -1;
        if (g >= 0 && p->gb[g] > o) {
            dw_reasm_gap gp = {o, (uint32_t)o, p->gb[g] - o, DW_REASM_GAP_LOST, 0};
            if (dw_ift_check_gap(c, &gp))
                abort();
            o = p->gb[g];
            continue;
        }
        size_t seg = 1 + rnd(&seed) % (fine ? 3 : 1500), end = o + seg;
        end = end > p->n ? p->n : end;
        for (int i = 0; i < 2; i++)
            if (p->ga[i] > o && p->ga[i] < end)
                end = p->ga[i];
        for (size_t a = o; a < end;) { /* one segment, 1 or 2 chunks */
            size_t b = end - a > 1 && rnd(&seed) % 4 == 0 ? a + 1 + rnd(&seed) % (end - a - 1) : end;
            dw_reasm_chunk ch = {a, (uint32_t)a, pkt, (uint32_t)o, (uint32_t)seg, a == o, b == end};
            if (dw_ift_check_data(c, p->d + a, b - a, &ch))
                abort();
            a = b;
        }
        pkt++;
        o = end;
    }
    if (dw_ift_check_end(c))
        abort();
}

static void check_stats(const dw_ift_check *c, const run *r)
{
    dw_ift_check_stats st;
    dw_ift_check_stats_get(c, &st);
    if (st.frames != r->frames ||
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
    uint64_t seed = (uint64_t)data[2] << 8 | data[3] | 1;
    plan p = {data + 4, size - 4 > 4000 ? 4000 : size - 4, {SIZE_MAX, SIZE_MAX}, {0, 0}};
    if (data[0] & 0x40 && p.n > 8) {
        for (int i = 0; i < 2; i++) {
            p.ga[i] = (size_t)(rnd(&seed) % p.n);
            p.gb[i] = p.ga[i] + 1 + (size_t)(rnd(&seed) % 600);
            p.gb[i] = p.gb[i] > p.n ? p.n : p.gb[i];
        }
        if (p.ga[1] < p.gb[0] && p.gb[1] > p.ga[0]) /* overlapping: one gap */
            p.ga[1] = SIZE_MAX;
    }
    dw_ift_check_callbacks cb = {on_frame, on_event};
    for (int k = 0; k < 2; k++) {
        runs[k].n = runs[k].frames = 0;
        runs[k].head_max = st.head_len;
        runs[k].d = p.d;
        runs[k].len = p.n;
        dw_ift_check *c;
        if (dw_ift_check_new(&c, &st, &cb, &runs[k]))
            abort();
        feed(c, &p, seed + (uint64_t)k * 977, k);
        check_stats(c, &runs[k]);
        dw_ift_check_del(c);
    }
    if (runs[0].n != runs[1].n ||
        memcmp(runs[0].log, runs[1].log, runs[0].n * sizeof runs[0].log[0]))
        abort();
    return 0;
}
