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

#include <stdlib.h>
#include <string.h>

#define LOG_MAX 8192

typedef struct run {
    uint64_t log[LOG_MAX];
    size_t n;
    uint64_t fpdus, head_max;
    uint64_t end; /* stream octets fed so far */
} run;

static void put(run *r, uint64_t v)
{
    if (r->n < LOG_MAX)
        r->log[r->n++] = v;
}

static void on_fpdu(dw_mpa_check *c, const dw_mpa_check_fpdu *f, void *u)
{
    run *r = u;
    (void)c;
    if (f->head_len > f->ulpdu_len || f->head_len > r->head_max ||
        f->bad_markers > f->markers || f->index != r->fpdus ||
        f->offset + f->fpdu_len > r->end + 0x20000u)
        abort();
    if ((f->crc == DW_MPA_CHECK_CRC_GOOD) != (f->crc_wire == f->crc_calc) &&
        f->crc <= DW_MPA_CHECK_CRC_BAD)
        abort();
    r->fpdus++;
    put(r, f->offset ^ (uint64_t)f->fpdu_len << 40);
    put(r, (uint64_t)f->ulpdu_len << 32 | f->markers << 16 | f->bad_markers);
    put(r, (uint64_t)f->crc << 8 | (uint64_t)f->resync << 4 | (uint64_t)f->pad_nonzero);
    uint64_t h = 0;
    for (size_t i = 0; i < f->head_len; i++)
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
    put(u, (uint64_t)ev->kind << 56 ^ (uint64_t)ev->code << 52 ^ ev->offset);
    if (ev->kind != DW_MPA_CHECK_EV_GAP)
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

static void feed(dw_mpa_check *c, run *r, const plan *p, uint64_t seed, int fine)
{
    size_t o = 0;
    uint64_t pkt = 1;
    while (o < p->n) {
        int g = o == p->ga[0] ? 0 : o == p->ga[1] ? 1 : -1;
        if (g >= 0 && p->gb[g] > o) {
            dw_reasm_gap gp = {o, (uint32_t)o, p->gb[g] - o, DW_REASM_GAP_LOST, 0};
            dw_mpa_check_gap(c, &gp);
            o = p->gb[g];
            r->end = o;
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
            r->end = b;
            if (dw_mpa_check_data(c, p->d + a, b - a, &ch))
                abort();
            a = b;
        }
        pkt++;
        o = end;
    }
    dw_mpa_check_end(c);
}

static void check_stats(const dw_mpa_check *c, const run *r)
{
    dw_mpa_check_stats st;
    dw_mpa_check_stats_get(c, &st);
    if (st.fpdus != r->fpdus || st.crc_good + st.crc_bad + st.crc_unchecked != st.fpdus ||
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
    dw_mpa_check_callbacks cb = {on_fpdu, on_marker, on_event};
    for (int k = 0; k < 2; k++) {
        runs[k].n = runs[k].fpdus = runs[k].end = 0;
        runs[k].head_max = st.head_len;
        dw_mpa_check *c;
        if (dw_mpa_check_new(&c, &st, &cb, &runs[k]))
            abort();
        if (data[0] & 0x80)
            dw_mpa_check_set_mode(c, data[1] & 2 ? 1 : 0, data[1] & 4 ? 1 : 0);
        feed(c, &runs[k], &p, seed + (uint64_t)k * 977, k);
        check_stats(c, &runs[k]);
        dw_mpa_check_del(c);
    }
    if (runs[0].n != runs[1].n ||
        memcmp(runs[0].log, runs[1].log, runs[0].n * sizeof runs[0].log[0]))
        abort();
    return 0;
}
