/* SPDX-License-Identifier: MIT */
/* Little-endian field access: every NVMe and NVMe-oF field is LE. */
#ifndef DW_NVMEOF_INT_H
#define DW_NVMEOF_INT_H

#include <stdint.h>

static inline uint16_t nv_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t nv_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t nv_get64(const uint8_t *p)
{
    return (uint64_t)nv_get32(p) | (uint64_t)nv_get32(p + 4) << 32;
}
static inline void nv_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void nv_put32(uint8_t *p, uint32_t v)
{
    nv_put16(p, (uint16_t)v);
    nv_put16(p + 2, (uint16_t)(v >> 16));
}
static inline void nv_put64(uint8_t *p, uint64_t v)
{
    nv_put32(p, (uint32_t)v);
    nv_put32(p + 4, (uint32_t)(v >> 32));
}

#endif /* DW_NVMEOF_INT_H */
