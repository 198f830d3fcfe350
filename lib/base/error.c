/* SPDX-License-Identifier: MIT */
/* Error names and descriptions, generated from DW_ERRORS. */
#include <ddpwire/ddpwire.h>

const char *dw_version(void)
{
    return DW_VERSION_STRING;
}

const char *dw_strerror(int err)
{
    switch (err) {
#define DW_ERR_TEXT_(name, value, text)                                       \
    case value:                                                               \
        return text;
        DW_ERRORS(DW_ERR_TEXT_)
#undef DW_ERR_TEXT_
    }
    return "unknown error";
}

const char *dw_err_name(int err)
{
    switch (err) {
#define DW_ERR_NAME_(name, value, text)                                       \
    case value:                                                               \
        return "DW_ERR_" #name;
        DW_ERRORS(DW_ERR_NAME_)
#undef DW_ERR_NAME_
    }
    return "DW_ERR_UNKNOWN";
}
