/* SPDX-License-Identifier: MIT */
/*
 * ddpwire's checks inside Wireshark: a post-dissector that hands every
 * frame, in the first pass, to the library's own dissector (what `ddpwire
 * dump` runs) and shows on each frame what was filed under it (ddw.h):
 * the connection's framing, each FPDU or IFT frame that starts or ends
 * there with its markers and DDP/RDMAP headers, every error as expert
 * information in dump's words, and each connection's summary on its last
 * frame. docs/DESIGN.md says why a post-dissector.
 */
#include "ddw.h"
#include "ddw_fields.h"

#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <wiretap/wtap.h>
#include <ws_version.h>

#include <ddpwire/version.h>

#include <inttypes.h>

#ifndef DDW_EXPORT
#define DDW_EXPORT __attribute__((visibility("default")))
#endif

DDW_EXPORT extern const char plugin_version[];
DDW_EXPORT extern const int plugin_want_major, plugin_want_minor;
DDW_EXPORT void plugin_register(void);

DDW_EXPORT const char plugin_version[] = DW_VERSION_STRING;
DDW_EXPORT const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
DDW_EXPORT const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

ddw_hf_ids ddw_hf;
ddw_ett_ids ddw_ett;
ddw_ei_ids ddw_ei;
int ddw_proto = -1;

static gint pref_framing = DW_DISSECT_AUTO;
static const char *pref_mpa_start = "";

static const enum_val_t framing_vals[] = {
    {"auto", "Auto: RFC 5044 frames, MPA or IFT found per direction", DW_DISSECT_AUTO},
    {"mpa", "MPA in every direction", DW_DISSECT_MPA},
    {"ift", "IFT in every direction", DW_DISSECT_IFT},
    {"none", "None: TCP reassembly and TCP RDMA options only", DW_DISSECT_NONE},
    {NULL, NULL, 0}};

static void ddw_init(void)
{
    ddw_prefs p = {.framing = pref_framing, .mpa_start = pref_mpa_start};
    ddw_open(&p);
}

static void ddw_cleanup(void)
{
    ddw_close();
}

/* The pcap link type of a frame, for the link types the library reads
 * (libwiretap does not export its own mapping). */
static unsigned linktype_of(const packet_info *pinfo)
{
    static const struct {
        int wtap;
        unsigned pcap;
    } map[] = {{WTAP_ENCAP_ETHERNET, DW_PKT_LINK_ETHERNET}, {WTAP_ENCAP_NULL, DW_PKT_LINK_NULL},
               {WTAP_ENCAP_LOOP, DW_PKT_LINK_LOOP},         {WTAP_ENCAP_RAW_IP, DW_PKT_LINK_RAW},
               {WTAP_ENCAP_RAW_IP4, DW_PKT_LINK_IPV4},      {WTAP_ENCAP_RAW_IP6, DW_PKT_LINK_IPV6},
               {WTAP_ENCAP_SLL, DW_PKT_LINK_SLL},           {WTAP_ENCAP_SLL2, DW_PKT_LINK_SLL2},
               {WTAP_ENCAP_IP_OVER_IB_PCAP, DW_PKT_LINK_IPOIB}};
    if (pinfo->rec && pinfo->rec->rec_type == REC_TYPE_PACKET)
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (map[i].wtap == pinfo->rec->rec_header.packet_header.pkt_encap)
                return map[i].pcap;
    return 0xffffu; /* counted, never read: keeps the numbering */
}

static void feed(tvbuff_t *tvb, packet_info *pinfo)
{
    guint caplen = tvb_captured_length(tvb);
    const guint8 *data = caplen ? tvb_get_ptr(tvb, 0, caplen) : (const guint8 *)"";
    uint64_t t = (uint64_t)pinfo->abs_ts.secs * 1000000u + (uint64_t)pinfo->abs_ts.nsecs / 1000u;
    ddw_feed(pinfo->num, linktype_of(pinfo), t, data, caplen, tvb_reported_length(tvb));
}

static int dissect_ddpwire(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
    (void)data;
    if (!PINFO_FD_VISITED(pinfo))
        feed(tvb, pinfo);
    else
        ddw_finish(); /* the first pass is over */
    const ddw_frame *f = ddw_frame_get(pinfo->num);
    const uint32_t *late = NULL;
    size_t nlate = PINFO_FD_VISITED(pinfo) ? 0 : ddw_late(&late);
    const char *perr = ddw_prefs_error(), *problem = ddw_problem();
    if (!f && !nlate && !problem && !(perr && pinfo->num == 1))
        return 0;
    proto_item *ti = proto_tree_add_item(tree, ddw_proto, tvb, 0, 0, ENC_NA);
    proto_tree *t = proto_item_add_subtree(ti, ddw_ett.top);
    if (perr && pinfo->num == 1)
        proto_tree_add_expert_format(t, pinfo, &ddw_ei.prefs, tvb, 0, 0, "%s", perr);
    if (problem)
        proto_tree_add_expert_format(t, pinfo, &ddw_ei.nomem, tvb, 0, 0, "%s", problem);
    if (f)
        ddw_show_frame(t, ti, pinfo, tvb, f);
    for (size_t i = 0; i < nlate; i++) {
        proto_item *li = proto_tree_add_uint(t, ddw_hf.late, tvb, 0, 0, late[i]);
        proto_item_append_text(li, " (found at this frame; shown there on a second pass)");
    }
    if (f && f->errors)
        col_append_fstr(pinfo->cinfo, COL_INFO, " [ddpwire: %u error%s]", f->errors,
                        f->errors == 1 ? "" : "s");
    return (int)tvb_captured_length(tvb);
}

static void register_prefs(void)
{
    module_t *m = prefs_register_protocol(ddw_proto, NULL);
    prefs_register_enum_preference(m, "framing", "Framing",
                                   "What to look for in every connection (dump --framing)",
                                   &pref_framing, framing_vals, FALSE);
    prefs_register_string_preference(m, "mpa_start", "MPA starts at PORT[:SEQ]",
                                     "MPA begins on connections with this port, at the first "
                                     "data octet or at sequence number SEQ of the direction "
                                     "from the port (dump --mpa-start); empty: learnt",
                                     &pref_mpa_start);
}

static void proto_register_ddpwire(void)
{
    ddw_proto = proto_register_protocol("ddpwire checks", "ddpwire", "ddpwire");
    ddw_register_fields(ddw_proto);
    register_prefs();
    register_init_routine(ddw_init);
    register_cleanup_routine(ddw_cleanup);
}

static void proto_reg_handoff_ddpwire(void)
{
    register_postdissector(create_dissector_handle(dissect_ddpwire, ddw_proto));
}

void plugin_register(void)
{
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_ddpwire;
    plug.register_handoff = proto_reg_handoff_ddpwire;
    proto_register_plugin(&plug);
}
