/* SPDX-License-Identifier: MIT */
/* The error X-macro list: every code has a distinct name and text. */
#include <ddpwire/ddpwire.h>
#include <ddpwire/mpa.h>

#include "test.h"

static void test_names(void)
{
    CHECK(strcmp(dw_err_name(DW_ERR_NEED_MORE), "DW_ERR_NEED_MORE") == 0);
    CHECK(strcmp(dw_strerror(DW_ERR_NEED_MORE), "need more bytes") == 0);
    CHECK(strcmp(dw_err_name(12345), "DW_ERR_UNKNOWN") == 0);
    CHECK(strcmp(dw_strerror(12345), "unknown error") == 0);
    CHECK(DW_ERR_NEED_MORE != DW_ERR_MALFORMED);
    for (int e = 0; e >= DW_ERR_LAST; e--) {
        CHECK(strncmp(dw_err_name(e), "DW_ERR_", 7) == 0);
        CHECK(strcmp(dw_err_name(e), "DW_ERR_UNKNOWN") != 0);
        for (int f = e - 1; f >= DW_ERR_LAST; f--)
            CHECK(strcmp(dw_strerror(e), dw_strerror(f)) != 0);
    }
    CHECK(strcmp(dw_version(), DW_VERSION_STRING) == 0);
}

static void test_mpa_names(void)
{
    CHECK(strcmp(dw_mpa_strerror(DW_MPA_ERR_CRC), "CRC mismatch") == 0);
    CHECK(DW_MPA_ERR_CLOSED == 1 && DW_MPA_ERR_CRC == 2 && DW_MPA_ERR_MARKER == 3);
}

int main(void)
{
    RUN(test_names);
    RUN(test_mpa_names);
    return dw_test_finish();
}
