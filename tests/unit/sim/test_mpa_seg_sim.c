/* SPDX-License-Identifier: MIT */
/*
 * The segment receiver fed by the network simulator (<ddpwire_sim/netsim.h>): the
 * simulator's own promises; every combination of aligned, packed and
 * re-segmented cuts, loss with retransmission under a new segmentation,
 * reordering, duplication and a path MTU that shrinks, with stores from
 * none to the default, thousands of seeds (every ULPDU placed exactly once,
 * byte-exact, delivered exactly once in order); a flipped bit in one
 * segment of each run never placed; everything random at once.
 * DW_TEST_QUICK=1 runs a tenth of the seeds.
 */
#include <ddpwire/mpa_seg.h>
#include <ddpwire_sim/netsim.h>

#include "mpa/mpa_seg_util.h"

/* ------------------------------------------------------------------ */
/* The simulated matrix                                                  */
/* ------------------------------------------------------------------ */

typedef struct cfg {
    dw_netsim_cut cut;
    int faults;     /* bit 0 loss, 1 reorder, 2 duplication */
    int shrink;
    int store;      /* 0 default, 1 tiny, 2 none */
    int markers;
    int ptr;        /* FPDUPTR reading */
    uint32_t start;
} cfg;

typedef struct totals {
    uint64_t runs, placed, early, fallbacks, hints, held_peak_max;
} totals;

static void one_run(const cfg *c, uint64_t seed0, totals *t)
{
    uint64_t seed = seed0;
    dw_mpa_tx_settings ts;
    dw_mpa_tx_settings_default(&ts);
    ts.markers = c->markers;
    ts.ptr_base = c->ptr ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
    ts.start_seq = c->start;
    ts.seg_mode = c->cut == DW_NETSIM_PACKED ? DW_MPA_SEG_PACKED : DW_MPA_SEG_ALIGNED;
    ts.emss = 1460;
    size_t n = 12 + dw_rand(&seed) % 30, sizes[64];
    size_t k = c->shrink ? n / 3 : n, queue = 3;
    uint32_t m1 = dw_mpa_mulpdu(1460, c->markers), m2 = dw_mpa_mulpdu(536, c->markers);
    for (size_t i = 0; i < n; i++)
        sizes[i] = pick_size(&seed, i < k + queue ? m1 : m2);
    sent s;
    sent_build(&s, &ts, sizes, n, c->shrink ? k + queue : n, 536, &seed);

    dw_netsim_settings ns;
    dw_netsim_settings_default(&ns);
    ns.seed = seed;
    ns.start_seq = c->start;
    ns.cut = c->cut;
    ns.emss = 1460;
    ns.reseg_min = 1 + (uint32_t)(dw_rand(&seed) % 700);
    if (c->shrink) {
        ns.shrink_at = k;
        ns.shrink_emss = 536;
        ns.shrink_queue = queue;
    }
    ns.loss_ppm = c->faults & 1 ? 100000 : 0;
    ns.reorder_ppm = c->faults & 2 ? 150000 : 0;
    ns.dup_ppm = c->faults & 4 ? 100000 : 0;
    dw_netsim *sim;
    CHECK(dw_netsim_new(&sim, &ns, s.st.wire, s.st.wire_len, s.info, n) == 0);

    dw_mpa_seg_settings rs;
    dw_mpa_seg_settings_default(&rs);
    rs.start_seq = c->start;
    rs.markers = c->markers;
    rs.store_bytes = c->store == 0 ? 65536 : c->store == 1 ? 512 : 0;
    chk ck = {&s, calloc(n, 1), 0, 0, 0, 0, {0}, {0}, 0};
    dw_mpa_seg *r;
    CHECK(dw_mpa_seg_new(&r, &rs, &cbs, &ck) == 0);
    drive(r, sim, &ck);
    dw_mpa_seg_stats sx;
    dw_mpa_seg_stats_get(r, &sx);
    int ok = ck.next == n && !ck.bad && !ck.errors && sx.placed == n &&
             sx.delivered == n && sx.held == 0 && sx.store_used == 0 &&
             dw_mpa_seg_offset(r) == s.st.wire_len &&
             dw_mpa_seg_ack(r) == (uint32_t)(c->start + s.st.wire_len) &&
             sx.store_peak <= rs.store_bytes;
    ok = ok && dw_mpa_seg_close(r, DW_CLOSE_FIN) == 0;
    if (!ok && t->runs < 1000000) {
        fprintf(stderr, "run cut %d faults %d shrink %d store %d markers %d ptr %d "
                        "start 0x%x seed 0x%llx: delivered %zu/%zu bad %zu errors %d "
                        "(code %d at %llu) placed %llu held %llu\n",
                c->cut, c->faults, c->shrink, c->store, c->markers, c->ptr, c->start,
                (unsigned long long)seed0, ck.next, n, ck.bad, ck.errors,
                ck.err.code, (unsigned long long)ck.err.offset,
                (unsigned long long)sx.placed, (unsigned long long)sx.held);
    }
    CHECK(ok);
    t->runs++;
    t->placed += sx.placed;
    t->early += sx.placed_early;
    t->fallbacks += sx.fallbacks;
    t->hints += sx.hints_taken;
    t->held_peak_max = sx.held_peak > t->held_peak_max ? sx.held_peak : t->held_peak_max;
    dw_mpa_seg_del(r);
    dw_netsim_del(sim);
    free(ck.placed);
    sent_free(&s);
}

static void test_matrix(void)
{
    uint64_t seed = dw_test_seed();
    int seeds = quick() ? 3 : 60;
    totals all[3] = {{0}}, store0[3] = {{0}};
    for (int cut = 0; cut < 3; cut++)
        for (int faults = 0; faults < 8; faults++)
            for (int shrink = 0; shrink < 2; shrink++)
                for (int store = 0; store < 3; store++)
                    for (int i = 0; i < seeds; i++) {
                        uint64_t s0 = dw_rand(&seed);
                        cfg c = {(dw_netsim_cut)cut, faults, shrink, store,
                                 i % 7 != 6, (int)(s0 >> 7) & 1, 0};
                        switch (i % 4) {
                        case 1: c.start = (uint32_t)dw_rand(&seed); break;
                        case 2: c.start = 0xFFFFFFFFu - (uint32_t)(dw_rand(&seed) % 40000); break;
                        case 3: c.start = 11; break;
                        }
                        one_run(&c, s0, store == 2 ? &store0[cut] : &all[cut]);
                    }
    for (int cut = 0; cut < 3; cut++)
        fprintf(stderr, "  cut %d: %llu runs, %llu ULPDUs, %.1f%% placed early "
                        "(store none: %.1f%%), %llu fallbacks, %llu hints taken, "
                        "peak held %llu\n",
                cut, (unsigned long long)(all[cut].runs + store0[cut].runs),
                (unsigned long long)all[cut].placed,
                100.0 * (double)all[cut].early / (double)(all[cut].placed ? all[cut].placed : 1),
                100.0 * (double)store0[cut].early / (double)(store0[cut].placed ? store0[cut].placed : 1),
                (unsigned long long)(all[cut].fallbacks + store0[cut].fallbacks),
                (unsigned long long)all[cut].hints,
                (unsigned long long)all[cut].held_peak_max);
    /* Aligned segments need no store to place early (analysis 7) */
    CHECK(store0[DW_NETSIM_ALIGNED].early > 0);
    CHECK(all[DW_NETSIM_RESEG].early > 0);
    CHECK(store0[DW_NETSIM_RESEG].fallbacks + all[DW_NETSIM_RESEG].fallbacks > 0);
}

/* ------------------------------------------------------------------ */
/* The simulator itself                                                  */
/* ------------------------------------------------------------------ */

/* Cuts as asked, every octet delivered without any recovery whatever the
 * faults, the same schedule from the same seed. */
static void test_netsim(void)
{
    uint64_t seed = 4242;
    int runs = quick() ? 100 : 1000;
    static unsigned char cover[1 << 20];
    for (int i = 0; i < runs; i++) {
        size_t n = 5 + dw_rand(&seed) % 40, sizes[48];
        for (size_t j = 0; j < n; j++)
            sizes[j] = pick_size(&seed, 1430);
        dw_mpa_tx_settings ts;
        dw_mpa_tx_settings_default(&ts);
        ts.seg_mode = (dw_mpa_seg_mode)(i & 1);
        sent s;
        sent_build(&s, &ts, sizes, n, n, 0, &seed);
        dw_netsim_settings ns;
        dw_netsim_settings_default(&ns);
        ns.seed = dw_rand(&seed);
        ns.cut = (dw_netsim_cut)(i % 3);
        ns.reseg_min = 100;
        int faults = i % 5 != 0, shrink = i % 7 == 3;
        ns.loss_ppm = faults ? 200000 : 0;
        ns.reorder_ppm = faults ? 200000 : 0;
        ns.dup_ppm = faults ? 100000 : 0;
        ns.recut_ppm = (uint32_t)(dw_rand(&seed) % 1000001);
        if (shrink)
            ns.shrink_at = n / 2, ns.shrink_emss = 536, ns.shrink_queue = 2;
        dw_netsim *a, *b;
        CHECK(dw_netsim_new(&a, &ns, s.st.wire, s.st.wire_len, s.info, n) == 0);
        CHECK(dw_netsim_new(&b, &ns, s.st.wire, s.st.wire_len, s.info, n) == 0);
        memset(cover, 0, s.st.wire_len);
        dw_netsim_seg x, y;
        int same = 1, shape = 1;
        size_t starts = 0;
        while (dw_netsim_next(a, &x)) {
            same &= dw_netsim_next(b, &y) && x.off == y.off && x.len == y.len;
            memset(cover + x.off, 1, x.len);
            uint32_t lim = shrink && x.off >= fo_sent(&s, n / 2 + 2) ? 536 : 1460;
            shape &= x.len >= 1 && x.len <= lim && x.seq == (uint32_t)x.off &&
                     x.data == s.st.wire + x.off;
            if (!faults && !shrink && ns.cut == DW_NETSIM_ALIGNED) { /* one FPDU each */
                size_t f = 0;
                while (f + 1 < n && fo_sent(&s, f + 1) <= x.off)
                    f++;
                shape &= x.off + x.len <= fo_sent(&s, f + 1) &&
                         (x.off == fo_sent(&s, f) || x.len <= 1460);
                starts += x.off == fo_sent(&s, f);
            }
            if (!faults && ns.cut == DW_NETSIM_RESEG)
                shape &= x.len >= 100 || x.off + x.len == s.st.wire_len ||
                         (shrink && x.off + x.len == fo_sent(&s, n / 2));
        }
        CHECK(same && !dw_netsim_next(b, &y));
        CHECK(shape);
        if (!faults && !shrink && ns.cut == DW_NETSIM_ALIGNED)
            CHECK_EQ_U(starts, n);
        CHECK(memchr(cover, 0, s.st.wire_len) == NULL); /* nothing lost for good */
        dw_netsim_stats st;
        dw_netsim_stats_get(a, &st);
        CHECK(faults || (st.lost == 0 && st.arrived == st.sent));
        /* recovery: from the start, nothing acknowledged */
        ssize_t added = dw_netsim_recover(a, 0, NULL, 0);
        CHECK_EQ_U((size_t)added, (s.st.wire_len + 1459) / 1460);
        dw_netsim_del(a);
        dw_netsim_del(b);
        sent_free(&s);
    }
}

/* MPA 7.4: corrupted segments are never placed. One segment of each run
 * gets a flipped bit; whatever the network did, every ULPDU placed is the
 * one sent, and a run either reports an error or delivers everything. */
static void test_corrupt_never_placed(void)
{
    uint64_t seed = 0xC0FFEE;
    int runs = quick() ? 150 : 1500, caught = 0, clean = 0, stalled = 0;
    static uint8_t copy[65536];
    for (int i = 0; i < runs; i++) {
        uint64_t s0 = dw_rand(&seed);
        uint64_t s1 = s0;
        dw_mpa_tx_settings ts;
        dw_mpa_tx_settings_default(&ts);
        ts.start_seq = (uint32_t)dw_rand(&s1);
        size_t n = 8 + dw_rand(&s1) % 16, sizes[24];
        for (size_t j = 0; j < n; j++)
            sizes[j] = pick_size(&s1, 1430);
        sent s;
        sent_build(&s, &ts, sizes, n, n, 0, &s1);
        dw_netsim_settings ns;
        dw_netsim_settings_default(&ns);
        ns.seed = s1;
        ns.start_seq = ts.start_seq;
        ns.cut = (dw_netsim_cut)(i % 3);
        ns.loss_ppm = i & 4 ? 100000 : 0;
        ns.reorder_ppm = i & 8 ? 200000 : 0;
        dw_netsim *sim;
        CHECK(dw_netsim_new(&sim, &ns, s.st.wire, s.st.wire_len, s.info, n) == 0);
        dw_mpa_seg_settings rs;
        dw_mpa_seg_settings_default(&rs);
        rs.start_seq = ts.start_seq;
        chk ck = {&s, calloc(n, 1), 0, 0, 0, 0, {0}, {0}, 0};
        dw_mpa_seg *r;
        CHECK(dw_mpa_seg_new(&r, &rs, &cbs, &ck) == 0);
        size_t victim = dw_rand(&s1) % n, k = 0;
        dw_netsim_seg sg;
        for (int round = 0; round < 50 && !ck.errors; round++) {
            while (dw_netsim_next(sim, &sg) && !ck.errors) {
                const uint8_t *d = sg.data;
                if (k++ == victim) {
                    memcpy(copy, sg.data, sg.len);
                    size_t at = dw_rand(&s1) % sg.len;
                    copy[at] ^= (uint8_t)(1u << dw_rand(&s1) % 8);
                    d = copy;
                }
                dw_mpa_seg_feed(r, sg.seq, d, sg.len);
            }
            dw_mpa_seg_range sack[64];
            size_t ns2 = dw_mpa_seg_sack(r, sack, 64);
            if (ck.errors || dw_netsim_recover(sim, dw_mpa_seg_ack(r), sack, ns2 < 64 ? ns2 : 64) <= 0)
                break;
        }
        CHECK_EQ_U(ck.bad, 0); /* nothing wrong ever placed or delivered */
        if (ck.errors) {
            caught++;
            CHECK(ck.err.code == DW_MPA_ERR_CRC || ck.err.code == DW_MPA_ERR_MARKER);
        } else if (ck.next == n) {
            clean++;
            CHECK(dw_mpa_seg_close(r, DW_CLOSE_FIN) == 0);
        } else { /* a corrupted length waits for octets that never come */
            stalled++;
            CHECK(dw_mpa_seg_close(r, DW_CLOSE_FIN) == DW_ERR_PROTO);
        }
        dw_mpa_seg_del(r);
        dw_netsim_del(sim);
        free(ck.placed);
        sent_free(&s);
    }
    fprintf(stderr, "  %d runs: %d caught the flipped bit, %d never used it, %d wait "
                    "on a corrupted length\n", runs, caught, clean, stalled);
    CHECK(caught > runs / 2);
}

/* Everything random at once, tables and stores down to their minimum,
 * ULPDUs up to 64768 octets, EMSS from 200 to 9000. */
static void test_stress(void)
{
    uint64_t seed = dw_test_seed() ^ 0x5157;
    int runs = quick() ? 60 : 1500, ok = 0;
    static const size_t stores[5] = {0, 128, 512, 4096, 65536};
    static const size_t pend[4] = {4, 8, 64, 1024};
    for (int i = 0; i < runs; i++) {
        uint64_t s0 = dw_rand(&seed), s1 = s0;
        dw_mpa_tx_settings ts;
        dw_mpa_tx_settings_default(&ts);
        ts.start_seq = (uint32_t)dw_rand(&s1);
        ts.markers = dw_rand(&s1) % 5 != 0;
        ts.ptr_base = (dw_mpa_ptr_base)(dw_rand(&s1) & 1);
        ts.seg_mode = (dw_mpa_seg_mode)(dw_rand(&s1) & 1);
        ts.emss = 200 + (uint32_t)(dw_rand(&s1) % 8800);
        size_t n = 4 + dw_rand(&s1) % 40, sizes[44];
        uint32_t mul = dw_mpa_mulpdu(ts.emss, ts.markers);
        for (size_t j = 0; j < n; j++)
            sizes[j] = dw_rand(&s1) % 10 ? pick_size(&s1, mul) : rand_size(&s1);
        sent sn;
        sent_build(&sn, &ts, sizes, n, n, 0, &s1);
        dw_netsim_settings ns;
        dw_netsim_settings_default(&ns);
        ns.seed = s1;
        ns.start_seq = ts.start_seq;
        ns.cut = (dw_netsim_cut)(dw_rand(&s1) % 3);
        ns.emss = ts.emss;
        ns.reseg_min = 1 + (uint32_t)(dw_rand(&s1) % ts.emss);
        ns.loss_ppm = (uint32_t)(dw_rand(&s1) % 300000);
        ns.reorder_ppm = (uint32_t)(dw_rand(&s1) % 300000);
        ns.dup_ppm = (uint32_t)(dw_rand(&s1) % 300000);
        ns.reorder_max = 1 + (uint32_t)(dw_rand(&s1) % 40);
        ns.rto = 1 + (uint32_t)(dw_rand(&s1) % 40);
        if (dw_rand(&s1) & 1) {
            ns.shrink_at = 1 + dw_rand(&s1) % n;
            ns.shrink_emss = 100 + (uint32_t)(dw_rand(&s1) % 1400);
            ns.shrink_queue = dw_rand(&s1) % 4;
        }
        dw_netsim *sim;
        CHECK(dw_netsim_new(&sim, &ns, sn.st.wire, sn.st.wire_len, sn.info, n) == 0);
        dw_mpa_seg_settings rs;
        dw_mpa_seg_settings_default(&rs);
        rs.start_seq = ts.start_seq;
        rs.markers = ts.markers;
        rs.store_bytes = stores[dw_rand(&s1) % 5];
        rs.max_pending = pend[dw_rand(&s1) % 4];
        chk ck = {&sn, calloc(n, 1), 0, 0, 0, 0, {0}, {0}, 0};
        dw_mpa_seg *r;
        CHECK(dw_mpa_seg_new(&r, &rs, &cbs, &ck) == 0);
        drive(r, sim, &ck);
        dw_mpa_seg_stats x;
        dw_mpa_seg_stats_get(r, &x);
        int good = ck.next == n && !ck.bad && !ck.errors && x.held == 0 &&
                   x.store_used == 0 && dw_mpa_seg_close(r, DW_CLOSE_FIN) == 0;
        if (!good)
            fprintf(stderr, "stress run %d (seed 0x%llx): delivered %zu/%zu bad %zu "
                            "errors %d code %d\n", i, (unsigned long long)s0, ck.next,
                    n, ck.bad, ck.errors, ck.err.code);
        CHECK(good);
        ok += good;
        dw_mpa_seg_del(r);
        dw_netsim_del(sim);
        free(ck.placed);
        sent_free(&sn);
    }
    fprintf(stderr, "  %d/%d random runs complete and exact\n", ok, runs);
}

int main(void)
{
    RUN(test_netsim);
    RUN(test_corrupt_never_placed);
    RUN(test_matrix);
    RUN(test_stress);
    return dw_test_finish();
}
