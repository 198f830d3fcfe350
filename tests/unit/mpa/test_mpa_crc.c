/* SPDX-License-Identifier: MIT */
/* The one-pass FPDU image CRC kernels (lib/mpa/mpa_crc.h) against a byte-by-
 * byte reference image, at every marker phase and many lengths, and the
 * sender's kernel paths against its chained (portable) path. */
#include <ddpwire/crc32c.h>
#include <ddpwire/mpa.h>

#include "mpa/mpa_crc.h"
#include "mpa/mpa_internal.h"
#include "test.h"

#define MAXU 65535u
#define GUARD 128u
#define IMG_MAX (DW_MPA_FPDU_MAX + 64u)

static uint8_t ulpdu[MAXU + 2 * GUARD];
static uint8_t ref[IMG_MAX];
static uint8_t buf[IMG_MAX + 2 * GUARD + 4];
static uint64_t seed;

/* Reference image: MPA 6 and 7.1 applied octet by octet. */
typedef struct refimg {
    uint32_t pos, o, hdr_off;
    int markers, rfc;
} refimg;

static void ref_put(refimg *r, uint8_t b)
{
    if (r->markers && (r->pos + r->o) % 512 == 0) {
        uint32_t ptr = r->o ? r->o - (r->rfc ? r->hdr_off : 0) : 0;
        if (r->o == 0)
            r->hdr_off = 4;
        ref[r->o++] = 0, ref[r->o++] = 0;
        ref[r->o++] = (uint8_t)(ptr >> 8), ref[r->o++] = (uint8_t)ptr;
    }
    ref[r->o++] = b;
}

/* Builds ref for the FPDU; returns the CRC field's offset. */
static uint32_t ref_image(uint32_t pos, const uint8_t *u, size_t len,
                          int markers, int rfc)
{
    refimg r = {pos, 0, 0, markers, rfc};
    ref_put(&r, (uint8_t)(len >> 8));
    ref_put(&r, (uint8_t)len);
    for (size_t i = 0; i < len; i++)
        ref_put(&r, u[i]);
    while ((2 + len) % 4 && r.o % 4 != 0)
        ref_put(&r, 0); /* PAD */
    if (markers && (pos + r.o) % 512 == 0) { /* MPA 7.2: covered */
        uint32_t ptr = r.o - (rfc ? r.hdr_off : 0);
        ref[r.o++] = 0, ref[r.o++] = 0;
        ref[r.o++] = (uint8_t)(ptr >> 8), ref[r.o++] = (uint8_t)ptr;
    }
    return r.o;
}

static int guards_ok(const uint8_t *b, size_t n)
{
    int ok = 1;
    for (size_t i = 0; i < GUARD; i++)
        ok &= b[i] == 0x5A && b[GUARD + n + i] == 0x5A;
    return ok;
}

static void one_case(const dw_mpa_crc_ops *ops, uint32_t pos, size_t len,
                     int markers, int rfc)
{
    const uint8_t *u = ulpdu + GUARD;
    uint32_t n = ref_image(pos, u, len, markers, rfc);
    uint32_t want = dw_crc32c_portable(0, ref, n);
    dw_mpa_img im;
    dw_mpa_img_init(&im, u, len, pos, markers, rfc);
    CHECK_EQ_U(im.crc_off, n);
    CHECK_EQ_U(ops->tx(&im, NULL), want);
    if (len < 2 * DW_MPA_CRC_SMALL_MAX)
        CHECK_EQ_U(dw_mpa_crc_small(&im), want);
    if (!markers)
        CHECK_EQ_U(dw_mpa_crc_plain(&im), want);
    if (len >= 8 && len < DW_MPA_CRC_SMALL_MAX) { /* the sender's short path */
        uint32_t u0 = im.hdr_off + 2, e = u0 + (uint32_t)len + (uint32_t)dw_mpa_pad_len(len);
        uint32_t in = im.mark < e, g = in ? im.mark - u0 : (uint32_t)len;
        uint32_t mk = dw_mpa_img_marker(&im, im.mark);
        CHECK_EQ_U(dw_mpa_crc_short(u, (uint32_t)len, im.hdr_off, g, mk, mk,
                                    im.mark == e), want);
    }
    memset(buf, 0x5A, n + 2 * GUARD);
    CHECK_EQ_U(ops->tx(&im, buf + GUARD), want);
    CHECK(memcmp(buf + GUARD, ref, n) == 0 && guards_ok(buf, n));
    if (len % 5 == 0 && len > 64) { /* a header given apart (<= 64 octets) */
        static uint8_t spoilt[MAXU];
        uint32_t hl = (uint32_t)(len / 5) % 65;
        memcpy(spoilt, u, len);
        for (uint32_t i = 0; i < hl; i++)
            spoilt[i] ^= 0xFF; /* must come from hdr instead */
        dw_mpa_img ih = im;
        ih.ulpdu = spoilt, ih.hdr = u, ih.hlen = hl;
        CHECK_EQ_U(ops->tx(&ih, NULL), want);
        memset(buf, 0x5A, n + 2 * GUARD);
        CHECK_EQ_U(ops->tx(&ih, buf + GUARD), want);
        CHECK(memcmp(buf + GUARD, ref, n) == 0 && guards_ok(buf, n));
    }
    /* the destination at every alignment mod 4 (the receiver's own buffer
     * puts it at 2 mod 4, a caller's may be anywhere) */
    size_t da = (len + pos / 4) % 4;
    memset(buf, 0x5A, len + 2 * GUARD + 4);
    CHECK_EQ_U(ops->rx(&im, ref, buf + da + GUARD), want);
    CHECK(memcmp(buf + da + GUARD, u, len) == 0 && guards_ok(buf + da, len));
}

static void sweep(const dw_mpa_crc_ops *ops, uint32_t pos0, size_t maxlen,
                  size_t step)
{
    for (int markers = 0; markers < 2; markers++)
        for (int rfc = 0; rfc < 2; rfc++)
            for (uint32_t ph = 0; ph < 512; ph += 4)
                for (size_t len = 1; len <= maxlen; len += step)
                    one_case(ops, pos0 + ph, len, markers, rfc);
}

static void test_kernel_vs_reference(void)
{
    const dw_mpa_crc_ops *ops = dw_mpa_crc_fast();
    if (!ops) {
        DW_SKIP("no one-pass kernel for %s", dw_crc32c_impl_name(dw_crc32c_impl_get()));
        return;
    }
    int quick = getenv("DW_TEST_QUICK") != NULL;
    for (size_t i = 0; i < sizeof ulpdu; i++)
        ulpdu[i] = (uint8_t)(dw_rand(&seed) >> 56);
    sweep(ops, 0, quick ? 300 : 1100, 1);
    sweep(ops, 0xFFFFFE00u, 1600, quick ? 13 : 3); /* positions wrap */
    sweep(ops, 1u << 20, MAXU, quick ? 4099 : 509);
    for (size_t len = 2000; len <= 8300; len += quick ? 61 : 13) /* the grid's bounds */
        for (uint32_t ph = 0; ph < 512; ph += 4)
            one_case(ops, (1u << 21) + ph, len, 1, (int)(len % 2));
    for (uint32_t ph = 0; ph < 512; ph += 4) /* the longest ULPDUs */
        for (size_t len = MAXU - 8; len <= MAXU; len++)
            one_case(ops, ph, len, 1, (int)(ph / 4 % 2));
}

/* frame() and frame_into() give the same octets and iovecs with the kernel
 * (the default here) as with the portable chained walk. */
static void frame_both(dw_mpa_tx *a, dw_mpa_tx *b, size_t len)
{
    static struct iovec ia[DW_MPA_FPDU_IOV_MAX], ib[DW_MPA_FPDU_IOV_MAX];
    static uint8_t fa[DW_MPA_FPDU_MAX], fb[DW_MPA_FPDU_MAX];
    const uint8_t *u = ulpdu + GUARD;
    dw_mpa_fpdu_info xa, xb;
    CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_PORTABLE), 0);
    ssize_t na = dw_mpa_tx_frame(a, u, len, ia, DW_MPA_FPDU_IOV_MAX, &xa);
    ssize_t ma = dw_mpa_tx_frame_into(a, u, len, fa, sizeof fa, NULL);
    CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_AUTO), 0);
    ssize_t nb = dw_mpa_tx_frame(b, u, len, ib, DW_MPA_FPDU_IOV_MAX, &xb);
    ssize_t mb = dw_mpa_tx_frame_into(b, u, len, fb, sizeof fb, NULL);
    CHECK(na == nb && ma == mb && na > 0 && ma > 0);
    CHECK(memcmp(&xa, &xb, sizeof xa) == 0);
    CHECK(ma <= 0 || memcmp(fa, fb, (size_t)ma) == 0);
    int same = xa.iovcnt == xb.iovcnt;
    for (size_t i = 0; same && i < xa.iovcnt; i++) {
        const uint8_t *pa = ia[i].iov_base, *pb = ib[i].iov_base;
        int ua = pa >= u && pa < u + len; /* payload: referenced in place */
        same = ia[i].iov_len == ib[i].iov_len &&
               memcmp(pa, pb, ia[i].iov_len) == 0 &&
               (ua ? pa == pb : !(pb >= u && pb < u + len));
    }
    CHECK(same);
}

static void test_sender_paths_agree(void)
{
    for (int markers = 0; markers < 2; markers++)
        for (int rfc = 0; rfc < 2; rfc++) {
            dw_mpa_tx_settings s;
            dw_mpa_tx_settings_default(&s);
            s.markers = markers;
            s.ptr_base = rfc ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
            dw_mpa_tx *a, *b;
            CHECK_EQ_U(dw_mpa_tx_new(&a, &s), 0);
            CHECK_EQ_U(dw_mpa_tx_new(&b, &s), 0);
            for (int i = 0; i < 3000; i++) {
                size_t len = 1 + dw_rand(&seed) % (i % 10 ? 1600 : DW_MPA_ULPDU_MAX);
                frame_both(a, b, len);
            }
            for (size_t len = 1; len <= 2 * DW_MPA_CRC_SMALL_MAX; len++)
                for (int i = 0; i < 40; i++) /* short ULPDUs at many phases */
                    frame_both(a, b, len);
            dw_mpa_tx_del(a);
            dw_mpa_tx_del(b);
        }
}

/* The sender's iovecs over whole periods (dw_mpa_iov_periods, AVX2 where
 * the CPU has it) against the MPA 7.1 marker and layout spelled out, for
 * every count up to past three vector blocks and FPDUPTRs that wrap. */
static void test_iov_periods(void)
{
    static struct iovec v[2 * 40 + 2];
    static uint8_t o[4 * 40 + 4];
    static const uint32_t ptrs[] = {2, 6, 510, 0xfdfeu, 0xfffeu, 0x1fffeu};
    const uint8_t *pu = ulpdu + GUARD + 1;
    for (size_t p = 0; p < sizeof ptrs / sizeof ptrs[0]; p++)
        for (uint32_t n = 0; n <= 40; n++) {
            memset(v, 0xa5, sizeof v);
            memset(o, 0xa5, sizeof o);
            dw_mpa_iov_periods(v, o, pu, n, ptrs[p]);
            int ok = 1;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t f = (ptrs[p] + 512 * i) & 0xffffu;
                ok &= o[4 * i] == 0 && o[4 * i + 1] == 0 &&
                      o[4 * i + 2] == (uint8_t)(f >> 8) && o[4 * i + 3] == (uint8_t)f;
                ok &= v[2 * i].iov_base == o + 4 * i && v[2 * i].iov_len == 4;
                ok &= v[2 * i + 1].iov_base == pu + 508 * i && v[2 * i + 1].iov_len == 508;
            }
            ok &= o[4 * n] == 0xa5 && ((uint8_t *)&v[2 * n])[0] == 0xa5; /* no more */
            CHECK(ok);
        }
}

/* The receiver's per-period helpers (dw_mpa_iov_pieces, dw_mpa_markers_bad;
 * AVX2 where the CPU has it) against MPA 7.1 spelled out: every count up
 * to past three vector blocks, a wrong FPDUPTR at every place, either
 * reading accepted, the reserved bits (MPA 6.1) ignored. */
static void put_ptr(uint8_t *m, uint32_t p)
{
    m[0] = 0xa0, m[1] = 0x0b; /* reserved octets: not checked here */
    m[2] = (uint8_t)(p >> 8), m[3] = (uint8_t)p;
}

static void test_rx_periods(void)
{
    static uint8_t w[512 * 41];
    static struct iovec v[42];
    static const uint32_t as[] = {4, 0x1fc, 0xfdfc, 0xfffc, 0x2fff8};
    for (size_t t = 0; t < sizeof as / sizeof as[0]; t++)
        for (uint32_t n = 0; n <= 40; n++) {
            uint32_t a = as[t], b = a - 4;
            memset(v, 0xa5, sizeof v);
            dw_mpa_iov_pieces(v, w + 1, n);
            int ok = ((uint8_t *)&v[n])[0] == 0xa5;
            for (uint32_t i = 0; i < n; i++)
                ok &= v[i].iov_base == w + 1 + 512 * i + 4 && v[i].iov_len == 508;
            CHECK(ok);
            for (uint32_t i = 0; i < n; i++) /* mixed readings, reserved bits set */
                put_ptr(w + 512 * i, ((i & 1 ? a : b) + 512 * i) | (i % 3 ? 3u : 0u));
            CHECK(!dw_mpa_markers_bad(w, n, a, b));
            for (uint32_t i = 0; i < n; i++) {
                uint8_t keep = w[512 * i + 2 + i % 2];
                w[512 * i + 2 + i % 2] ^= (uint8_t)(i % 2 ? 4u << (i % 6) : 1u << (i % 8));
                CHECK(dw_mpa_markers_bad(w, n, a, b));
                CHECK(!dw_mpa_markers_bad(w, i, a, b)); /* only those before */
                w[512 * i + 2 + i % 2] = keep;
            }
            CHECK(!n || dw_mpa_markers_bad(w, n, a + 8, b + 8)); /* another start */
        }
}

/* The receiver's run of whole periods across reads (ops->rx_run: folded
 * alone, or chained steps then periods alone) against the portable CRC
 * of the same octets and the ULPDU spelled out: every period count up to
 * past a 64 KiB read, registers and destination alignments varied. */
static void test_rx_run(void)
{
    const dw_mpa_crc_ops *ops = dw_mpa_crc_fast();
    if (!ops) {
        DW_SKIP("no one-pass kernel for %s", dw_crc32c_impl_name(dw_crc32c_impl_get()));
        return;
    }
    static uint8_t w[512 * 140], d[508 * 140 + 2 * GUARD + 4];
    static uint8_t want[508 * 140];
    for (size_t i = 0; i < sizeof w; i++)
        w[i] = (uint8_t)(dw_rand(&seed) >> 56);
    for (size_t j = 1; j <= 140; j++) {
        for (size_t i = 0; i < j; i++)
            memcpy(want + 508 * i, w + 512 * i + 4, 508);
        uint32_t reg = (uint32_t)(dw_rand(&seed) >> 32);
        uint32_t crc = ~dw_crc32c_portable(~reg, w, 512 * j);
        size_t da = j % 4;
        memset(d, 0x5A, 508 * j + 2 * GUARD + 4);
        CHECK_EQ_U(ops->rx_run(w, d + da + GUARD, j, reg), crc);
        CHECK(memcmp(d + da + GUARD, want, 508 * j) == 0 && guards_ok(d + da, 508 * j));
    }
}

int main(void)
{
    seed = dw_test_seed();
    RUN(test_kernel_vs_reference);
    RUN(test_sender_paths_agree);
    RUN(test_iov_periods);
    RUN(test_rx_periods);
    RUN(test_rx_run);
    return dw_test_finish();
}
