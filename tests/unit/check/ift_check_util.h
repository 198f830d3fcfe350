/* SPDX-License-Identifier: MIT */
/* The IFT stream checker bound to the shared checker test helpers
 * (check_util.h): collecting records and events, and mk() to create a
 * checker that reports into a collection. */
#ifndef DW_IFT_CHECK_UTIL_H
#define DW_IFT_CHECK_UTIL_H

#include <ddpwire/crc32c.h>
#include <ddpwire/ift.h>
#include <ddpwire/ift_check.h>

#define CU_CHECK dw_ift_check
#define CU_REC dw_ift_check_frame
#define CU_EVENT dw_ift_check_event
#define CU_KIND dw_ift_check_event_kind
#define CU_CODE dw_ift_error
#define CU_DATA dw_ift_check_data
#define CU_GAP dw_ift_check_gap
#define CU_END dw_ift_check_end
#include "check_util.h"

static const dw_ift_check_callbacks cbs = {on_rec, on_event};

static dw_ift_check *mk(const dw_ift_check_settings *st, coll *k)
{
    dw_ift_check *c = NULL;
    memset(k, 0, sizeof *k);
    CHECK(dw_ift_check_new(&c, st, &cbs, k) == 0);
    return c;
}

#endif
