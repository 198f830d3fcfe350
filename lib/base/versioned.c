/* SPDX-License-Identifier: MIT */
/* Versioned settings and callbacks structs: base/versioned.h. */
#include "base/versioned.h"

#include <string.h>

const void *dw_versioned_in(void *cur, const void *in, int version, const size_t *ends,
                            int nversions, int *err)
{
    if (version < 1 || version > nversions) {
        *err = DW_ERR_INVAL;
        return NULL;
    }
    if (!in || version == nversions)
        return in;
    memcpy(cur, in, ends[version - 1]);
    return cur;
}

int dw_versioned_out(void *out, const void *cur, int version, const size_t *ends, int nversions)
{
    if (!out || version < 1 || version > nversions)
        return DW_ERR_INVAL;
    memcpy(out, cur, ends[version - 1]);
    return 0;
}
