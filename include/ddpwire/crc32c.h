/* SPDX-License-Identifier: MIT */
/*
 * CRC32c (Castagnoli), as used by iSCSI digests, MPA and IFT.
 *
 * Standard CRC32c: reflected polynomial 0x82F63B78, initial value and final
 * xor 0xFFFFFFFF; CRC32c("123456789") = 0xE3069283. The API chains like
 * zlib's crc32(): start with 0 and feed the previous result back in, so
 * dw_crc32c(dw_crc32c(0, a, n), b, m) == dw_crc32c(0, a || b, n + m).
 *
 * On the wire (MPA, IFT) the CRC is stored least significant octet first:
 * see dw_crc32c_store().
 *
 * Several implementations exist. The first call selects the fastest one the
 * CPU supports (CPUID); dw_crc32c_set_impl() forces one, e.g. the portable
 * reference for comparison. All implementations give identical results.
 */
#ifndef DDPWIRE_CRC32C_H
#define DDPWIRE_CRC32C_H

#include <ddpwire/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * CRC32c of len octets at buf, continuing from crc (0 to start).
 * buf may be NULL when len is 0.
 */
DW_EXTERN uint32_t dw_crc32c(uint32_t crc, const void *buf, size_t len);

/**
 * Copies len octets from src to dst (which must not overlap) and returns
 * the CRC32c of them continuing from crc, reading src once. For receive
 * paths that move data out of a network buffer and verify it together.
 */
DW_EXTERN uint32_t dw_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len);

/**
 * Given crc1 = CRC32c of A and crc2 = CRC32c of B (each started from 0) and
 * len2 = length of B, returns the CRC32c of A || B. O(log len2).
 */
DW_EXTERN uint32_t dw_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

/** The portable table-driven reference; always available, never dispatched. */
DW_EXTERN uint32_t dw_crc32c_portable(uint32_t crc, const void *buf, size_t len);

/** Writes crc at p in wire order (least significant octet first). */
static inline void dw_crc32c_store(uint8_t *p, uint32_t crc)
{
    p[0] = (uint8_t)crc;
    p[1] = (uint8_t)(crc >> 8);
    p[2] = (uint8_t)(crc >> 16);
    p[3] = (uint8_t)(crc >> 24);
}

/** Reads a CRC stored in wire order (least significant octet first). */
static inline uint32_t dw_crc32c_load(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/** The implementations. AUTO picks the fastest supported one. */
typedef enum dw_crc32c_impl {
    DW_CRC32C_AUTO = 0,
    DW_CRC32C_PORTABLE, /* slicing tables, any CPU */
    DW_CRC32C_SSE42,    /* crc32 instruction, several independent streams */
    DW_CRC32C_PCLMUL,   /* SSE4.2 + carry-less multiply folding for long buffers */
    DW_CRC32C_AVX512,   /* VPCLMULQDQ on 512-bit registers for long buffers */
    DW_CRC32C_AVX2,     /* VPCLMULQDQ on 256-bit registers (AVX2), e.g. Zen 3 */
    DW_CRC32C_IMPL_COUNT
} dw_crc32c_impl;

/** Non-zero when this CPU and build can run impl. AUTO and PORTABLE always can. */
DW_EXTERN int dw_crc32c_impl_supported(dw_crc32c_impl impl);

/**
 * Selects the implementation used by dw_crc32c() and dw_crc32c_copy() from
 * now on (process-wide; meant for tests, benchmarks and comparison).
 * Returns 0 or DW_ERR_UNSUPPORTED (the selection is then unchanged).
 */
DW_EXTERN int dw_crc32c_set_impl(dw_crc32c_impl impl);

/** The implementation in use now (never AUTO once resolved). */
DW_EXTERN dw_crc32c_impl dw_crc32c_impl_get(void);

/** Short name of an implementation: "auto", "portable", "sse42", ... */
DW_EXTERN const char *dw_crc32c_impl_name(dw_crc32c_impl impl);

/**
 * Tunings per microarchitecture: how the long-buffer paths share a buffer
 * between carry-less folding and crc32 chains, and which path AUTO prefers.
 * AUTO picks the CPU's (from CPUID's vendor, family and model); GENERIC is
 * the choice for CPUs not listed. Every tuning gives identical results.
 */
typedef enum dw_crc32c_tuning {
    DW_CRC32C_TUNE_AUTO = 0,
    DW_CRC32C_TUNE_GENERIC,
    DW_CRC32C_TUNE_ZEN3, /* AMD family 25, models 0-15, 32-95 */
    DW_CRC32C_TUNE_ZEN4, /* AMD family 25, models 16-31, 96-127, 160-175 */
    DW_CRC32C_TUNE_ZEN5, /* AMD family 26 */
    DW_CRC32C_TUNE_COUNT
} dw_crc32c_tuning;

/**
 * Forces a tuning (process-wide; for tests, benchmarks and comparison).
 * Returns 0 or DW_ERR_UNSUPPORTED (unknown value: nothing changes).
 */
DW_EXTERN int dw_crc32c_tuning_set(dw_crc32c_tuning t);

/** The tuning in use now (never AUTO). */
DW_EXTERN dw_crc32c_tuning dw_crc32c_tuning_get(void);

/** Short name of a tuning: "auto", "generic", "zen3", "zen4", "zen5". */
DW_EXTERN const char *dw_crc32c_tuning_name(dw_crc32c_tuning t);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_CRC32C_H */
