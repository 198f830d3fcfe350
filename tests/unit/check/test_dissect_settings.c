/* SPDX-License-Identifier: MIT */
/* dw_dissect_settings_mpa_start: the PORT[:SEQ] text of dump's --mpa-start
 * and the Wireshark plugin's preference, table-driven. */
#include <ddpwire/dissect.h>

#include "test.h"

typedef struct start_case {
    const char *text;
    int ok, port, seq_set;
    uint32_t seq;
} start_case;

static const start_case cases[] = {
    {"5000", 1, 5000, 0, 0},
    {"1", 1, 1, 0, 0},
    {"65535", 1, 65535, 0, 0},
    {"5000:5014", 1, 5000, 1, 5014},
    {"5000:0", 1, 5000, 1, 0},
    {"5000:4294967295", 1, 5000, 1, UINT32_MAX},
    {"", 0, 0, 0, 0},
    {"0", 0, 0, 0, 0},
    {"65536", 0, 0, 0, 0},
    {"notaport", 0, 0, 0, 0},
    {"+5000", 0, 0, 0, 0},
    {" 5000", 0, 0, 0, 0},
    {"5000 ", 0, 0, 0, 0},
    {"5000:", 0, 0, 0, 0},
    {":5000", 0, 0, 0, 0},
    {"5000:-1", 0, 0, 0, 0},
    {"5000:4294967296", 0, 0, 0, 0},
    {"5000:1:2", 0, 0, 0, 0},
    {"0x1388", 0, 0, 0, 0},
    {"99999999999999999999999", 0, 0, 0, 0},
};

static void test_mpa_start_table(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const start_case *c = &cases[i];
        DW_CASE("'%s'", c->text);
        dw_dissect_settings s;
        CHECK(dw_dissect_settings_default(&s) == 0);
        int rc = dw_dissect_settings_mpa_start(&s, c->text);
        if (c->ok) {
            CHECK(rc == 0);
            CHECK(s.mpa_port == c->port);
            CHECK(s.mpa_seq_set == c->seq_set);
            if (c->seq_set)
                CHECK_EQ_U(s.mpa_seq, c->seq);
        } else {
            dw_dissect_settings d;
            dw_dissect_settings_default(&d);
            CHECK(rc == DW_ERR_INVAL);
            CHECK(memcmp(&s, &d, sizeof s) == 0); /* untouched */
        }
    }
    DW_CASE("NULL arguments");
    dw_dissect_settings s;
    dw_dissect_settings_default(&s);
    CHECK(dw_dissect_settings_mpa_start(&s, NULL) == DW_ERR_INVAL);
    CHECK(dw_dissect_settings_mpa_start(NULL, "5000") == DW_ERR_INVAL);
}

int main(void)
{
    RUN(test_mpa_start_table);
    return dw_test_finish();
}
