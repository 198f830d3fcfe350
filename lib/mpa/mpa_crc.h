/* SPDX-License-Identifier: MIT */
/*
 * Internal: the CRC of one FPDU's wire image in a single pass
 * (lib/mpa/mpa_crc_x86.c; lib/mpa/mpa_crc_none.c elsewhere).
 *
 * The image is what the CRC covers (MPA 6, 7.2): an optional leading zero
 * marker, ULPDU_Length, the ULPDU, PAD, and every marker inside, i.e. the
 * FPDU without its CRC field. The kernels fold it as a stream of 64-octet
 * vectors ending at the CRC field, so the fold never restarts at a marker:
 * the sender builds each vector from the ULPDU (shifted past the markers,
 * with the marker and length dwords inserted), the receiver scatters each
 * vector's ULPDU octets to its destination while folding (markers
 * stripped). Without a kernel the callers chain dw_crc32c() over pieces.
 */
#ifndef DW_LIB_MPA_CRC_H
#define DW_LIB_MPA_CRC_H

#include <ddpwire/mpa.h>

/* One FPDU's layout; offsets count from its first octet (MPA position
 * fpdu_pos) and are multiples of 4 except as noted. */
typedef struct dw_mpa_img {
    /* sender: the ULPDU, or with a header apart its virtual start: the
     * payload's address less hlen (never read below the payload) */
    const uint8_t *ulpdu;
    const uint8_t *hdr;   /* sender: the first hlen ULPDU octets (<= 64) */
    uint32_t hlen;
    uint32_t len;         /* ULPDU octets (1..65535) */
    uint32_t crc_off;     /* the CRC field: octets the CRC covers */
    uint32_t hdr_off;     /* ULPDU_Length: 4 after a leading marker, else 0 */
    uint32_t mark;        /* first marker after octet 0 (>= crc_off: none) */
    uint32_t ptr_sub;     /* FPDUPTR = marker offset - ptr_sub (MPA 7.1) */
} dw_mpa_img;

/* Fills im for a ULPDU of len octets in an FPDU at MPA position pos;
 * FPDUPTR counts from the length field with rfc5044_ptr (MPA 7.1). */
static inline void dw_mpa_img_init(dw_mpa_img *im, const uint8_t *ulpdu,
                                   size_t len, uint32_t pos, int markers,
                                   int rfc5044_ptr)
{
    uint32_t first = DW_MPA_MARKER_INTERVAL - pos % DW_MPA_MARKER_INTERVAL;
    int lead = markers && first == DW_MPA_MARKER_INTERVAL; /* MPA 7.1 */
    im->ulpdu = ulpdu;
    im->hdr = NULL;
    im->hlen = 0;
    im->len = (uint32_t)len;
    im->crc_off = (uint32_t)dw_mpa_fpdu_len(pos, len, markers) - 4u;
    im->hdr_off = lead ? DW_MPA_MARKER_LEN : 0;
    im->mark = markers ? first : UINT32_MAX;
    im->ptr_sub = rfc5044_ptr ? im->hdr_off : 0;
}

/* The marker at offset m (not 0) as a little-endian dword: reserved 0,
 * then FPDUPTR big-endian (MPA 7.1). */
static inline uint32_t dw_mpa_img_marker(const dw_mpa_img *im, uint32_t m)
{
    uint32_t ptr = (m - im->ptr_sub) & 0xffffu;
    return (ptr >> 8 | (ptr & 0xffu) << 8) << 16;
}

/* The ULPDU's octets plus the markers among them, from image offset ps
 * (its first octet, after ULPDU_Length). */
static inline int64_t dw_mpa_ulpdu_span(const dw_mpa_img *im, int64_t ps)
{
    int64_t room = (int64_t)im->mark - ps;
    if (im->mark >= im->crc_off || im->len <= room)
        return im->len;
    int64_t per = DW_MPA_MARKER_INTERVAL - DW_MPA_MARKER_LEN; /* ULPDU octets a period */
    return im->len + DW_MPA_MARKER_LEN * (1 + (im->len - room - 1) / per);
}

/* The byte mask of lanes [a, b) of a 64-octet vector, clamped to 0..64
 * (the kernels' masked loads and stores). */
static inline uint64_t dw_mpa_lanes(int64_t a, int64_t b)
{
    a = a < 0 ? 0 : a;
    b = b > 64 ? 64 : b;
    if (b <= a)
        return 0;
    return (b == 64 ? ~0ull : (1ull << b) - 1) & (~0ull << a);
}

typedef struct dw_mpa_crc_ops {
    /* CRC32c (finished) of the sender's image; when out is non-NULL the
     * image (crc_off octets) is also written there. */
    uint32_t (*tx)(const dw_mpa_img *im, uint8_t *out);
    /* CRC32c (finished) of wire[0, crc_off), a received image, while its
     * ULPDU octets (markers stripped) are copied to dst. */
    uint32_t (*rx)(const dw_mpa_img *im, const uint8_t *wire, uint8_t *dst);
    /* An FPDU spanning reads: j whole marker periods (MPA 7.1: a marker
     * and 508 ULPDU octets) at in, from a marker, folded in one pass;
     * reg: the raw CRC register before them, returned after them. Their
     * ULPDU octets go to dst. */
    uint32_t (*rx_run)(const uint8_t *in, uint8_t *dst, size_t j, uint32_t reg);
} dw_mpa_crc_ops;

/* The CRC32c (finished) of a sender's image with the crc32 instruction
 * alone (lib/mpa_crc_small_x86.c): faster than the kernels' folds for
 * short images (below DW_MPA_CRC_SMALL_MAX ULPDU octets). Only where
 * dw_mpa_crc_fast() gives kernels. */
#define DW_MPA_CRC_SMALL_MAX 128u
uint32_t dw_mpa_crc_small(const dw_mpa_img *im);
/* The same for an image without markers, any length: the ULPDU through
 * dw_crc32c() (lib/mpa_crc_small_x86.c). */
uint32_t dw_mpa_crc_plain(const dw_mpa_img *im);

/* The CRC32c (finished) of a short FPDU's image straight from its ULPDU
 * u of len octets (8 <= len < DW_MPA_CRC_SMALL_MAX): lead octets of a
 * leading marker (0 or 4), at most one marker inside the ULPDU, before
 * its octet g (g == len: none; else g = 2 mod 4), whose dword is mk, and
 * end_mk after the PAD when has_end_mk (MPA 7.2). Only where
 * dw_mpa_crc_fast() gives kernels (lib/mpa_crc_small_x86.c). */
uint32_t dw_mpa_crc_short(const uint8_t *u, uint32_t len, uint32_t lead,
                          uint32_t g, uint32_t mk, uint32_t end_mk,
                          int has_end_mk);

/* Without a vector kernel (lib/mpa/mpa_crc_chunk.c, any CPU): the same
 * three operations, one dw_crc32c() call per chunk of the image. */
uint32_t dw_mpa_chunk_tx(const dw_mpa_img *im, uint8_t *out);
/* Image octets [r, end) (r, end on dwords): the CRC continued from crc
 * (finished), the octets written at out + r unless out is NULL. */
uint32_t dw_mpa_chunk_tx_range(const dw_mpa_img *im, uint8_t *out, uint32_t r,
                               uint32_t end, uint32_t crc);
uint32_t dw_mpa_chunk_rx(const dw_mpa_img *im, const uint8_t *wire,
                         uint8_t *dst);
uint32_t dw_mpa_chunk_rx_run(const uint8_t *in, uint8_t *dst, size_t j,
                             uint32_t reg);

/* The sender's iovecs over whole marker periods (MPA 7.1): n pairs of
 * {o + 4 i, 4} (the marker, its dword written at o + 4 i with FPDUPTR
 * ptr + 512 i) and {pu + 508 i, 508} (the ULPDU octets after it), at v.
 * AVX2 stores where the CPU has it (lib/mpa/mpa_crc_x86.c), else _sw
 * (lib/mpa/mpa_crc_chunk.c), one 32-octet store a pair. */
void dw_mpa_iov_periods(struct iovec *v, uint8_t *o, const uint8_t *pu,
                        uint32_t n, uint32_t ptr);
void dw_mpa_iov_periods_sw(struct iovec *v, uint8_t *o, const uint8_t *pu,
                           uint32_t n, uint32_t ptr);

/* The receiver's per-period work over n whole periods from a marker at
 * m (MPA 7.1), AVX2 where the CPU has it, else _sw:
 * dw_mpa_iov_pieces: n iovecs {m + 4 + 512 i, 508} (the ULPDU octets
 * after each marker) at v;
 * dw_mpa_markers_bad: nonzero when a marker's FPDUPTR (its last two
 * octets, big-endian, the two reserved low bits ignored: MPA 6.1) is
 * neither a + 512 i nor b + 512 i (mod 2^16): the FPDU's start counted
 * from the marker's place by either reading of MPA 7.1. */
void dw_mpa_iov_pieces(struct iovec *v, const uint8_t *m, uint32_t n);
void dw_mpa_iov_pieces_sw(struct iovec *v, const uint8_t *m, uint32_t n);
int dw_mpa_markers_bad(const uint8_t *m, uint32_t n, uint32_t a, uint32_t b);
int dw_mpa_markers_bad_sw(const uint8_t *m, uint32_t n, uint32_t a, uint32_t b);

/* AVX-512 only (lib/mpa/mpa_crc_grid_x86.c): ops->tx and ops->rx on a
 * grid that a marker opens, for markers on and no header apart. */
uint32_t dw_mpa_grid_tx(const dw_mpa_img *im, uint8_t *out);
uint32_t dw_mpa_grid_rx(const dw_mpa_img *im, const uint8_t *wire, uint8_t *dst);

/* The kernels for the CRC32c implementation in use now: the AVX-512 ones,
 * the chunked ones for the other x86 paths, or NULL for the portable
 * reference (callers then chain dw_crc32c() over the pieces). */
const dw_mpa_crc_ops *dw_mpa_crc_fast(void);

#endif
