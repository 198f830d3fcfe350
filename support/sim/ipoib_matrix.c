/* SPDX-License-Identifier: MIT */
/* The pairwise matrix: node kinds of every capability mix and profile, and
 * one simulated run per pair. */
#include <ddpwire/ipoib_node.h>

#include <string.h>

#include "ipoib_sim_internal.h"

typedef struct kind {
    const char *name;
    dw_ipoib_profile profile;
    unsigned caps;
    uint32_t mtu;
    dw_ipoib_sid_style style;
    int listen_both, fallback;
} kind;

#define D DW_IPOIB_PROFILE_DRAFT
#define R DW_IPOIB_PROFILE_RFC4755
#define RFC DW_IPOIB_SID_RFC4755

static const kind kinds[] = {
    {"draft-ud", D, 0, DW_IPOIB_CM_MTU, RFC, 1, 1},
    {"draft-qpn", D, DW_IPOIB_CAP_QPN, DW_IPOIB_CM_MTU, RFC, 1, 1},
    {"draft-rc", D, DW_IPOIB_CAP_RC, DW_IPOIB_CM_MTU, RFC, 1, 1},
    {"draft-uc", D, DW_IPOIB_CAP_UC, 32768, RFC, 1, 1},
    {"draft-rd", D, DW_IPOIB_CAP_RD, 16384, RFC, 1, 1},
    {"draft-all", D, DW_IPOIB_CAP_ALL, DW_IPOIB_CM_MTU, RFC, 1, 1},
    {"rfc-ud", R, 0, DW_IPOIB_CM_MTU, RFC, 1, 1},
    {"rfc-rc", R, DW_IPOIB_CAP_RC, DW_IPOIB_CM_MTU, RFC, 1, 1},
    {"rfc-uc", R, DW_IPOIB_CAP_UC, 32768, RFC, 1, 1},
    {"rfc-rcuc", R, DW_IPOIB_CAP_RC | DW_IPOIB_CAP_UC, DW_IPOIB_CM_MTU, RFC, 1, 1},
    /* Linux: its own service ID form, listening for that form only */
    {"linux-rc", R, DW_IPOIB_CAP_RC, DW_IPOIB_CM_MTU, DW_IPOIB_SID_LINUX, 0, 0},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

size_t dw_ipoib_kind_count(void)
{
    return N_KINDS;
}

const char *dw_ipoib_kind_name(size_t k)
{
    return k < N_KINDS ? kinds[k].name : NULL;
}

int dw_ipoib_kind_find(const char *name)
{
    for (size_t k = 0; name && k < N_KINDS; k++)
        if (!strcmp(kinds[k].name, name))
            return (int)k;
    return -1;
}

int dw_ipoib_kind_settings(size_t k, uint32_t ipv4, dw_ipoib_node_settings *s)
{
    if (k >= N_KINDS || !s)
        return DW_ERR_INVAL;
    const kind *d = &kinds[k];
    dw_ipoib_node_settings_default(s);
    s->profile = d->profile;
    s->caps = d->caps;
    s->ipv4 = ipv4;
    s->mtu.offer = s->mtu.max = d->mtu;
    s->sid_style = d->style;
    s->sid_listen_both = d->listen_both;
    s->sid_fallback = d->fallback;
    if (d->caps & DW_IPOIB_CAP_QPN) { /* 3.1: bulk UDP and all ICMP on own QPNs */
        s->services[0].sid = dw_ipoib_sid_make(DW_IPOIB_PROTO_UDP, 5001);
        s->services[1].sid = dw_ipoib_sid_make(DW_IPOIB_PROTO_ICMP, 0);
        s->n_services = 2;
    }
    return 0; /* QPN, GID and service QPNs: assigned by the fabric */
}

void dw_ipoib_pair_settings_default(dw_ipoib_pair_settings *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->pings = 4;
    o->ping_size = 56;
    o->bulk = 256u << 10;
    o->bulk_port = 5001;
    o->defer_permille = 200;
}

static void collect(dw_ipoib_fabric *f, dw_ipoib_pair_result *r, uint32_t ipa, uint32_t ipb)
{
    dw_ipoib_peer_info pa = {0}, pb = {0};
    dw_ipoib_node *a = dw_ipoib_fabric_node(f, 0), *b = dw_ipoib_fabric_node(f, 1);
    dw_ipoib_node_peer(a, ipb, &pa);
    dw_ipoib_node_peer(b, ipa, &pb);
    r->mode_ab = pa.mode;
    r->mode_ba = pb.mode;
    r->mtu_ab = pa.mtu;
    r->mtu_ba = pb.mtu;
    const dw_ipoib_host_stats *ha = dw_ipoib_fabric_host_stats_get(f, 0);
    const dw_ipoib_host_stats *hb = dw_ipoib_fabric_host_stats_get(f, 1);
    r->echo_sent = ha->echo_sent;
    r->echo_replies = ha->echo_replies;
    r->bulk_sent = ha->bulk_sent;
    r->bulk_rcvd = hb->bulk_rcvd;
    r->lost = (ha->bulk_pkts_sent - hb->bulk_pkts_rcvd) + (ha->echo_sent - ha->echo_replies);
    dw_ipoib_node_stats sa, sb;
    dw_ipoib_node_stats_get(a, &sa);
    dw_ipoib_node_stats_get(b, &sb);
    r->failed = (unsigned)(sa.failures + sb.failures);
    r->retries = (unsigned)(sa.retries + sb.retries);
    const dw_ipoib_fabric_stats *fs = dw_ipoib_fabric_stats_get(f);
    r->steps = fs->steps;
    r->node_errors = fs->node_errors;
    r->first_error = dw_ipoib_fabric_error(f, &r->first_error_call);
    r->ok = r->finished && !r->node_errors && r->lost == 0 &&
            r->echo_replies == r->echo_sent && r->bulk_rcvd == r->bulk_sent &&
            !ha->send_errors && !hb->send_errors && !hb->bulk_bad && !hb->bulk_dups &&
            !fs->ud_oversize && !fs->ring_full;
}

int dw_ipoib_pair_run(size_t a, size_t b, const dw_ipoib_pair_settings *o, dw_ipoib_pair_result *r)
{
    dw_ipoib_pair_settings d;
    dw_ipoib_node_settings sa, sb;
    const uint32_t ipa = 0x0A000001u, ipb = 0x0A000002u; /* 10.0.0.1, 10.0.0.2 */
    if (!r || dw_ipoib_kind_settings(a, ipa, &sa) || dw_ipoib_kind_settings(b, ipb, &sb))
        return DW_ERR_INVAL;
    if (!o) {
        dw_ipoib_pair_settings_default(&d);
        o = &d;
    }
    dw_ipoib_fabric_settings fs;
    dw_ipoib_fabric_settings_default(&fs);
    fs.seed = o->seed;
    fs.defer_permille = o->defer_permille;
    fs.mem = o->mem;
    dw_ipoib_fabric *f;
    int rc = dw_ipoib_fabric_new(&f, &fs, o->cb, o->cb_user_data);
    if (rc < 0)
        return rc;
    if ((rc = dw_ipoib_fabric_add_host(f, &sa)) < 0 ||
        (rc = dw_ipoib_fabric_add_host(f, &sb)) < 0 ||
        (rc = dw_ipoib_fabric_ping(f, 0, ipb, o->pings, o->ping_size)) < 0 ||
        (rc = dw_ipoib_fabric_bulk(f, 0, ipb, o->bulk_port, o->bulk)) < 0) {
        dw_ipoib_fabric_del(f);
        return rc;
    }
    memset(r, 0, sizeof *r);
    const uint64_t max_steps = 10000000;
    uint64_t steps = dw_ipoib_fabric_run(f, max_steps);
    if (f->fatal) { /* a node ran out of memory: no verdict on half a run */
        dw_ipoib_fabric_del(f);
        return DW_ERR_NOMEM;
    }
    r->finished = steps < max_steps;
    collect(f, r, ipa, ipb);
    dw_ipoib_fabric_del(f);
    return 0;
}
