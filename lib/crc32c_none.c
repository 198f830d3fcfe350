/* No fast CRC32c paths on this architecture. */
#include "crc32c_impl.h"

const dw_crc32c_ops *dw_crc32c_fast_ops(dw_crc32c_impl impl)
{
    (void)impl;
    return NULL;
}
