/* SPDX-License-Identifier: MIT */
/* CRC32c: known vectors, and every implementation against the portable
 * reference (lengths, alignments, chaining, copy, combine). */
#include <ddpwire/crc32c.h>

#include "crc32c/crc32c_impl.h"
#include "test.h"

#define MAXLEN 4096
#define GUARD 64

static uint8_t data[MAXLEN + 64];
static uint8_t dstbuf[MAXLEN + 2 * GUARD + 16];
static uint64_t seed;

/* Runs fn once per implementation this CPU supports (AUTO included). */
static void for_each_impl(void (*fn)(dw_crc32c_impl impl))
{
    for (int i = DW_CRC32C_AUTO; i < DW_CRC32C_IMPL_COUNT; i++) {
        if (!dw_crc32c_impl_supported((dw_crc32c_impl)i))
            continue;
        CHECK_EQ_U(dw_crc32c_set_impl((dw_crc32c_impl)i), 0);
        fn((dw_crc32c_impl)i);
    }
    CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_AUTO), 0);
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(dw_rand(&seed) >> 56);
}

/* dw_crc32c and dw_crc32c_copy both give want; copy writes exactly n. */
static int crc_and_copy_ok(uint32_t init, const uint8_t *src, size_t n,
                           size_t dalign, uint32_t want)
{
    uint8_t *dst = dstbuf + GUARD + dalign;
    int ok = dw_crc32c(init, src, n) == want;
    memset(dstbuf, 0xA5, n + 2 * GUARD + 16);
    ok &= dw_crc32c_copy(init, dst, src, n) == want;
    ok &= memcmp(dst, src, n) == 0;
    for (size_t i = 0; i < GUARD + dalign; i++)
        ok &= dstbuf[i] == 0xA5;
    for (size_t i = 0; i < GUARD; i++)
        ok &= dst[n + i] == 0xA5;
    return ok;
}

static void vectors_one(dw_crc32c_impl impl)
{
    /* RFC 3720 B.4: the CRC values as numbers (sent LS octet first). */
    static const uint8_t read_pdu[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    uint8_t b[32];
    memset(b, 0, 32);
    CHECK(crc_and_copy_ok(0, b, 32, 0, 0x8A9136AAu));
    memset(b, 0xff, 32);
    CHECK(crc_and_copy_ok(0, b, 32, 0, 0x62A8AB43u));
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)i;
    CHECK(crc_and_copy_ok(0, b, 32, 0, 0x46DD794Eu));
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)(31 - i);
    CHECK(crc_and_copy_ok(0, b, 32, 0, 0x113FDB5Cu));
    CHECK(crc_and_copy_ok(0, read_pdu, 48, 0, 0xD9963A56u));
    CHECK(crc_and_copy_ok(0, (const uint8_t *)"123456789", 9, 0,
                          0xE3069283u));
    CHECK_EQ_U(dw_crc32c(0x12345678u, NULL, 0), 0x12345678u);
    CHECK_EQ_U(dw_crc32c_copy(0x12345678u, NULL, NULL, 0), 0x12345678u);
    if (impl != DW_CRC32C_AUTO)
        CHECK_EQ_U(dw_crc32c_get_impl(), impl);
    else
        CHECK(dw_crc32c_get_impl() != DW_CRC32C_AUTO);
}

static void test_vectors(void)
{
    CHECK_EQ_U(dw_crc32c_portable(0, "123456789", 9), 0xE3069283u);
    CHECK_EQ_U(dw_crc32c_portable(0, "", 0), 0);
    for_each_impl(vectors_one);
}

/* Every length 0..MAXLEN at every source alignment 0..15, crc and copy. */
static uint32_t ref_tab[16][MAXLEN + 1];

static void lengths_one(dw_crc32c_impl impl)
{
    (void)impl;
    for (size_t n = 0; n <= MAXLEN; n++) {
        int ok = 1;
        for (size_t a = 0; a < 16; a++) {
            uint32_t init = (uint32_t)(n * 0x9E3779B1u + a);
            ok &= crc_and_copy_ok(init, data + a, n, (a * 7) & 15,
                                  ref_tab[a][n]);
        }
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s: mismatch at length %zu\n",
                    dw_crc32c_impl_name(impl), n);
    }
}

static void test_lengths(void)
{
    fill_random(data, sizeof data);
    for (size_t a = 0; a < 16; a++)
        for (size_t n = 0; n <= MAXLEN; n++)
            ref_tab[a][n] = dw_crc32c_portable(
                (uint32_t)(n * 0x9E3779B1u + a), data + a, n);
    for_each_impl(lengths_one);
}

/* Chaining over random pieces from random initial values. */
static void chaining_one(dw_crc32c_impl impl)
{
    (void)impl;
    int ok = 1;
    for (int t = 0; t < 3000; t++) {
        size_t n = dw_rand(&seed) % (MAXLEN + 1);
        size_t a = dw_rand(&seed) % 16;
        uint32_t init = (uint32_t)dw_rand(&seed);
        uint32_t want = dw_crc32c_portable(init, data + a, n);
        uint32_t c = init, cc = init;
        size_t off = 0;
        while (off < n) {
            /* Mostly short pieces (2, 4, 6 octets as MPA feeds them). */
            size_t k = dw_rand(&seed) % 4 ? 1 + dw_rand(&seed) % 8
                                          : dw_rand(&seed) % (n - off + 1);
            if (k > n - off)
                k = n - off;
            c = dw_crc32c(c, data + a + off, k);
            cc = dw_crc32c_copy(cc, dstbuf + off, data + a + off, k);
            off += k;
        }
        ok &= c == want && cc == want && memcmp(dstbuf, data + a, n) == 0;
    }
    CHECK(ok);
}

static void test_chaining(void)
{
    for_each_impl(chaining_one);
}

/* A few long buffers (up to 3 MiB) at odd lengths and offsets. */
static uint8_t *big, *bigdst;
#define BIGLEN (3u << 20)

static void long_one(dw_crc32c_impl impl)
{
    (void)impl;
    static const size_t lens[] = {BIGLEN - 7, (1u << 20) + 3, 65536 + 61,
                                  2431, 2432 + 256 + 63, 4864 + 512};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        DW_CASE_HERE("lens[%zu]", i);
        size_t a = i % 8, n = lens[i];
        uint32_t init = (uint32_t)dw_rand(&seed);
        uint32_t want = dw_crc32c_portable(init, big + a, n);
        CHECK_EQ_U(dw_crc32c(init, big + a, n), want);
        memset(bigdst, 0, BIGLEN + 16);
        CHECK_EQ_U(dw_crc32c_copy(init, bigdst + 1, big + a, n), want);
        CHECK(memcmp(bigdst + 1, big + a, n) == 0 && bigdst[0] == 0 &&
              bigdst[n + 1] == 0);
    }
    for (int t = 0; t < 6; t++) {
        size_t n = dw_rand(&seed) % BIGLEN, a = dw_rand(&seed) % 8;
        CHECK_EQ_U(dw_crc32c(7, big + a, n), dw_crc32c_portable(7, big + a, n));
    }
}

static void test_long(void)
{
    big = malloc(BIGLEN + 16);
    bigdst = malloc(BIGLEN + 16);
    if (!big || !bigdst) {
        CHECK(!"out of memory");
        return;
    }
    fill_random(big, BIGLEN + 16);
    for_each_impl(long_one);
    free(big);
    free(bigdst);
}

static void test_combine(void)
{
    fill_random(data, sizeof data);
    for (int t = 0; t < 2000; t++) {
        size_t n = dw_rand(&seed) % (MAXLEN + 1);
        size_t k = dw_rand(&seed) % (n + 1);
        uint32_t c1 = dw_crc32c(0, data, k), c2 = dw_crc32c(0, data + k, n - k);
        CHECK_EQ_U(dw_crc32c_combine(c1, c2, n - k), dw_crc32c(0, data, n));
    }
    CHECK_EQ_U(dw_crc32c_combine(0xDEADBEEFu, 0, 0), 0xDEADBEEFu);
    /* A long second part, computed directly. */
    size_t n2 = (5u << 20) + 13;
    uint8_t *b = calloc(1, n2);
    if (b) {
        fill_random(b, n2);
        uint32_t c1 = dw_crc32c(0, data, 100), c2 = dw_crc32c(0, b, n2);
        uint32_t direct = dw_crc32c(c1, b, n2);
        CHECK_EQ_U(dw_crc32c_combine(c1, c2, n2), direct);
        free(b);
    }
    /* Huge lengths: combining must be associative. */
    for (int t = 0; t < 200; t++) {
        uint32_t a = (uint32_t)dw_rand(&seed), b2 = (uint32_t)dw_rand(&seed);
        uint32_t c = (uint32_t)dw_rand(&seed);
        uint64_t x = dw_rand(&seed) >> 20, y = dw_rand(&seed) >> 20;
        uint32_t l = dw_crc32c_combine(dw_crc32c_combine(a, b2, x), c, y);
        uint32_t r = dw_crc32c_combine(a, dw_crc32c_combine(b2, c, y), x + y);
        CHECK_EQ_U(l, r);
    }
}

/* The range-CRC shift of the checkers' searches: crc * x^(8 n), every
 * table entry's neighbourhood, against combine (a CRC over n zeros). */
/* The range-CRC shift of the checkers' searches: crc * x^(8 n) from the
 * generated tables, portable and PCLMUL, against combine (a CRC over n
 * zeros), at every table boundary and at random. */
static void test_shift(void)
{
    static const size_t ns[] = {0, 1, 2, 255, 256, 257, 511, 4096, 65535, 65536, 65791};
    uint32_t (*const fn[3])(uint32_t, size_t) = {dw_crc32c_shift_by, dw_crc32c_shift_by_sw,
                                                 dw_crc32c_shift_by_hw};
    for (int f = 0; f < (dw_crc32c_have_mulx32() ? 3 : 2); f++) {
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
            DW_CASE_HERE("ns[%zu]", i);
            uint32_t c = (uint32_t)dw_rand(&seed);
            CHECK_EQ_U(fn[f](c, ns[i]), dw_crc32c_combine(c, 0, ns[i]));
        }
        for (size_t n = 0; n < 65792; n += 1 + dw_rand(&seed) % 64) {
            uint32_t c = (uint32_t)dw_rand(&seed);
            CHECK_EQ_U(fn[f](c, n), dw_crc32c_combine(c, 0, n));
        }
    }
    for (int k = 0; k < 2000 && dw_crc32c_have_mulx32(); k++) { /* a b x^32 */
        uint32_t a = (uint32_t)dw_rand(&seed), b = (uint32_t)dw_rand(&seed);
        CHECK_EQ_U(dw_crc32c_mulx32(a, b),
                   dw_crc32c_gf2_mul(dw_crc32c_gf2_mul(a, b), 0x82F63B78u));
    }
}

static void test_store_load(void)
{
    uint8_t p[4];
    dw_crc32c_store(p, 0x84B3864Cu);
    CHECK(p[0] == 0x4c && p[1] == 0x86 && p[2] == 0xb3 && p[3] == 0x84);
    CHECK_EQ_U(dw_crc32c_load(p), 0x84B3864Cu);
}

static void test_names(void)
{
    CHECK(strcmp(dw_crc32c_impl_name(DW_CRC32C_AUTO), "auto") == 0);
    CHECK(strcmp(dw_crc32c_impl_name(DW_CRC32C_PORTABLE), "portable") == 0);
    CHECK(strcmp(dw_crc32c_impl_name(DW_CRC32C_AVX512), "avx512") == 0);
    CHECK(strcmp(dw_crc32c_impl_name(DW_CRC32C_IMPL_COUNT), "unknown") == 0);
    CHECK(dw_crc32c_impl_supported(DW_CRC32C_PORTABLE));
    CHECK(!dw_crc32c_impl_supported(DW_CRC32C_IMPL_COUNT));
    CHECK_EQ_U(dw_crc32c_set_impl(DW_CRC32C_IMPL_COUNT), DW_ERR_UNSUPPORTED);
    fprintf(stderr, "implementations here:");
    for (int i = DW_CRC32C_PORTABLE; i < DW_CRC32C_IMPL_COUNT; i++)
        if (dw_crc32c_impl_supported((dw_crc32c_impl)i))
            fprintf(stderr, " %s", dw_crc32c_impl_name((dw_crc32c_impl)i));
    dw_crc32c_set_impl(DW_CRC32C_AUTO);
    fprintf(stderr, " (auto = %s)\n",
            dw_crc32c_impl_name(dw_crc32c_get_impl()));
}

int main(void)
{
    seed = dw_test_seed();
    RUN(test_names);
    RUN(test_vectors);
    RUN(test_store_load);
    RUN(test_lengths);
    RUN(test_chaining);
    RUN(test_long);
    RUN(test_combine);
    RUN(test_shift);
    return dw_test_finish();
}
