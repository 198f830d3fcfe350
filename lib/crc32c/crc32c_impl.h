/* SPDX-License-Identifier: MIT */
/* Internal: the CRC32c implementation table shared by lib/crc32c*.c. */
#ifndef DW_LIB_CRC32C_IMPL_H
#define DW_LIB_CRC32C_IMPL_H

#include <ddpwire/crc32c.h>

typedef struct dw_crc32c_ops {
    dw_crc32c_impl impl;
    uint32_t (*crc)(uint32_t crc, const void *buf, size_t len);
    uint32_t (*copy)(uint32_t crc, void *dst, const void *src, size_t len);
} dw_crc32c_ops;

/* Raw register update (no inversion), portable; for tails and tests. */
uint32_t dw_crc32c_portable_raw(uint32_t c, const uint8_t *p, size_t n);

/* a * b mod P in GF(2)[x], both in reflected (CRC register) order. */
uint32_t dw_crc32c_gf2_mul(uint32_t a, uint32_t b);

/* crc * x^(8 n) mod P, n < 65792: a CRC shifted over n zero octets (the
 * identity behind combine), from constant tables; _hw with one PCLMULQDQ
 * multiply when the CPU has it, _sw portable. */
uint32_t dw_crc32c_shift_by(uint32_t crc, size_t n);
uint32_t dw_crc32c_shift_by_sw(uint32_t crc, size_t n);
uint32_t dw_crc32c_shift_by_hw(uint32_t crc, size_t n);

/* x^(8 n) x^-32 mod P, n < 65792 (needs dw_crc32c_have_mulx32()): a
 * shift in the scaling of the _x32 tables, for dw_crc32c_mulx32(). */
uint32_t dw_crc32c_xpow8_x32(size_t n);

/*
 * Long buffers: folding and three crc32 chains side by side on separate
 * parts of the buffer (lib/crc32c/crc32c_fuse_x86.c); raw register. A step takes
 * NV vectors (64 octets with AVX-512 VPCLMULQDQ, 16 with PCLMULQDQ) and
 * Q qwords of each chain; the buffer goes in pieces of at most PIECE
 * octets (each chain's part stays below the shift tables' 65536).
 */
#ifndef DW_FZ_NV
#define DW_FZ_NV 3
#endif
#ifndef DW_FZ_Q
#define DW_FZ_Q 4
#endif
#ifndef DW_FX_NV
#define DW_FX_NV 3
#endif
#ifndef DW_FX_Q
#define DW_FX_Q 4
#endif
#define DW_FZ_STEP_Q(q) (64 * DW_FZ_NV + 24 * (size_t)(q))
#define DW_FZ_PIECE_Q(q) (65535 / (8 * (size_t)(q)) * DW_FZ_STEP_Q(q) / 64 * 64)
#define DW_FZ_STEP (64 * DW_FZ_NV + 24 * DW_FZ_Q)
#define DW_FX_STEP (16 * DW_FX_NV + 24 * DW_FX_Q)
#define DW_FZ_PIECE (65535 / (8 * DW_FZ_Q) * DW_FZ_STEP / 64 * 64)
#define DW_FX_PIECE (65535 / (8 * DW_FX_Q) * DW_FX_STEP / 16 * 16)
#ifndef DW_CRC32C_FUSE_MIN
#define DW_CRC32C_FUSE_MIN 4096       /* avx512: below, crc32c_x86.c */
#endif
#ifndef DW_CRC32C_FUSE_CLMUL_MIN
#define DW_CRC32C_FUSE_CLMUL_MIN 576  /* pclmul: below, one crc32 chain */
#endif
uint32_t dw_crc32c_fuse_avx512(uint32_t c, const uint8_t *p, size_t n);
uint32_t dw_crc32c_fuse_avx512_q3(uint32_t c, const uint8_t *p, size_t n);
uint32_t dw_crc32c_fuse_clmul(uint32_t c, const uint8_t *p, size_t n);

/* The same with 256-bit folds (AVX2 + VPCLMULQDQ): NV x 32 folded octets
 * beside 3 x 8 x Q of the chains per step, one instance per (NV, Q)
 * listed here (X(NV, Q)); the tunings pick among them (crc32c_x86.c). */
#define DW_FY_INSTANCES(X) X(2, 3) X(3, 4) X(4, 5) X(4, 4)
#define DW_FY_STEP(nv, q) (32 * (size_t)(nv) + 24 * (size_t)(q))
#define DW_FY_PIECE(nv, q) \
    (65535 / (8 * (size_t)(q)) * DW_FY_STEP(nv, q) / 32 * 32)
#define DW_FY_DECL(nv, q) \
    uint32_t dw_crc32c_fuse_avx2_##nv##_##q(uint32_t c, const uint8_t *p, size_t n);
DW_FY_INSTANCES(DW_FY_DECL)
#ifndef DW_CRC32C_FUSE_AVX2_MIN
#define DW_CRC32C_FUSE_AVX2_MIN 576   /* avx2: below, as pclmul */
#endif

/* MPA: j marker periods (a marker and 508 ULPDU octets) from a marker at
 * in; the raw register over all their octets (from reg), their ULPDU
 * octets stored to dst (508 j) from the same loads. AVX2 + VPCLMULQDQ. */
uint32_t dw_crc32c_strip_avx2(uint32_t reg, const uint8_t *in, uint8_t *dst,
                              size_t j);

/* The sender's mirror: j periods of an FPDU image from a marker whose
 * FPDUPTR is ptr (then ptr + 512, ...), each the marker and the next 508
 * ULPDU octets from u (nothing before u is read); the raw register over
 * the 512 j image octets, also written to out unless NULL. */
uint32_t dw_crc32c_gather_avx2(uint32_t reg, const uint8_t *u, uint8_t *out,
                               size_t j, uint32_t ptr);

/* Run-time tuning per microarchitecture (crc32c_x86.c): which fused
 * kernel each path uses. */
typedef struct dw_crc32c_tune_ops {
    dw_crc32c_tuning tuning;
    uint32_t (*fuse_avx512)(uint32_t c, const uint8_t *p, size_t n);
    uint32_t (*fuse_avx2)(uint32_t c, const uint8_t *p, size_t n);
    int avx2_nv, avx2_q;    /* fuse_avx2's instance, for the tests */
    size_t avx512_step, avx512_piece;
} dw_crc32c_tune_ops;

/* The tuning's ops (AUTO: the CPU's), or NULL for an unknown one. */
const dw_crc32c_tune_ops *dw_crc32c_tune_get(dw_crc32c_tuning t);
/* The tuning the CPU gets by default (from CPUID's vendor, family and
 * model). */
dw_crc32c_tuning dw_crc32c_tuning_detect(void);

/* The x86 fast paths (lib/crc32c/crc32c_x86.c): ops for impl, or NULL when the
 * CPU or the build lacks it. Checks CPUID once. */
const dw_crc32c_ops *dw_crc32c_fast_ops(dw_crc32c_impl impl);

/* a * b * x^32 mod P with one carry-less multiply and one crc32
 * instruction; only when dw_crc32c_have_mulx32() (else 0). */
int dw_crc32c_have_mulx32(void);
uint32_t dw_crc32c_mulx32(uint32_t a, uint32_t b);

#endif
