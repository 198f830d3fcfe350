/* SPDX-License-Identifier: MIT */
/* Internal: the MPA sender's state, shared by lib/mpa/mpa_tx.c and its
 * short-FPDU path (lib/mpa/mpa_crc_small_x86.c). */
#ifndef DW_LIB_MPA_TX_INTERNAL_H
#define DW_LIB_MPA_TX_INTERNAL_H

#include <ddpwire/mpa.h>

/* Scratch one FPDU may need: markers, length, pad, CRC. */
#define DW_MPA_TX_SCRATCH_PER_FPDU 1024u

struct dw_mpa_tx {
    dw_mpa_tx_settings set;
    uint32_t pos;      /* MPA position of the next FPDU */
    uint32_t emss;
    uint32_t mulpdu;
    size_t seg_fill;   /* octets in the current segment (packed mode) */
    uint8_t *scratch;  /* ring of set.scratch_size octets */
    size_t head;       /* next free scratch octet */
};

/* The FPDU of fpdu_len octets with `markers` markers is framed: the
 * segment bookkeeping, the caller's info, the next position. */
static inline void dw_mpa_tx_commit(dw_mpa_tx *tx, uint32_t next_pos, unsigned markers,
                                    size_t fpdu_len, dw_mpa_fpdu_info *info,
                                    size_t iovcnt)
{
    int new_seg = tx->set.seg_mode == DW_MPA_SEG_ALIGNED || tx->seg_fill == 0 ||
                  tx->seg_fill + fpdu_len > tx->emss;
    size_t fill = (new_seg ? 0 : tx->seg_fill) + fpdu_len;
    tx->seg_fill = fill < tx->emss ? fill : fill % tx->emss; /* no divide */
    if (info) {
        info->len = fpdu_len;
        info->iovcnt = iovcnt;
        info->pos = tx->pos;
        info->seq = tx->set.start_seq + tx->pos;
        info->markers = markers;
        info->new_segment = new_seg;
    }
    tx->pos = next_pos;
}

#endif
