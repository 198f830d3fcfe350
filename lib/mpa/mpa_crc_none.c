/* SPDX-License-Identifier: MIT */
/* No one-pass MPA CRC kernels on this architecture (lib/mpa/mpa_crc.h). */
#include "mpa/mpa_crc.h"

const dw_mpa_crc_ops *dw_mpa_crc_fast(void)
{
    return NULL;
}
