/* SPDX-License-Identifier: MIT */
/* IPoIB advanced capabilities: which link, which MTU, which packet where. */
#include <ddpwire/ipoib.h>
#include <ddpwire/ipoib_cm.h>
#include <ddpwire/ipoib_nego.h>

#include "base/bytes.h"

const char *dw_ipoib_mode_name(dw_ipoib_mode m)
{
    static const char *const names[DW_IPOIB_MODE_COUNT] = {"UD", "QPN", "UC", "RD", "RC"};
    return (unsigned)m < DW_IPOIB_MODE_COUNT ? names[m] : "?";
}

unsigned dw_ipoib_mode_cap(dw_ipoib_mode m)
{
    switch (m) {
    case DW_IPOIB_MODE_QPN:
        return DW_IPOIB_CAP_QPN;
    case DW_IPOIB_MODE_UC:
        return DW_IPOIB_CAP_UC;
    case DW_IPOIB_MODE_RD:
        return DW_IPOIB_CAP_RD;
    case DW_IPOIB_MODE_RC:
        return DW_IPOIB_CAP_RC;
    default:
        return 0;
    }
}

int dw_ipoib_mode_connected(dw_ipoib_mode m)
{
    return m == DW_IPOIB_MODE_RC || m == DW_IPOIB_MODE_UC || m == DW_IPOIB_MODE_RD;
}

/* 2.0: each side learns the other's flags; 1.0: any mix interoperates,
 * UD being the common floor. */
dw_ipoib_mode dw_ipoib_choose(unsigned local_caps, unsigned peer_caps)
{
    unsigned common = local_caps & peer_caps;
    for (int m = DW_IPOIB_MODE_RC; m > DW_IPOIB_MODE_UD; m--)
        if (common & dw_ipoib_mode_cap((dw_ipoib_mode)m))
            return (dw_ipoib_mode)m;
    return DW_IPOIB_MODE_UD;
}

static int mtu_in_range(uint32_t v)
{
    return v >= DW_IPOIB_MTU_MIN && v <= DW_IPOIB_MTU_LIMIT;
}

int dw_ipoib_mtu_policy_check(const dw_ipoib_mtu_policy *p)
{
    if (!p || !mtu_in_range(p->min) || !mtu_in_range(p->max) || p->min > p->offer ||
        p->offer > p->max)
        return DW_ERR_INVAL;
    return 0;
}

uint32_t dw_ipoib_mtu_agree(uint32_t a, uint32_t b)
{
    return a < b ? a : b; /* 3.2: both MUST use the smaller value */
}

dw_ipoib_req_verdict dw_ipoib_on_req_mtu(dw_ipoib_profile p, const dw_ipoib_mtu_policy *pol,
                                         uint32_t req_mtu, uint32_t *mtu_out,
                                         uint32_t *link_mtu)
{
    if (p == DW_IPOIB_PROFILE_DRAFT && req_mtu < pol->min) {
        *mtu_out = pol->min; /* 3.2: REJ carries the acceptable MTU */
        *link_mtu = 0;
        return DW_IPOIB_REQ_REJECT_MTU;
    }
    *mtu_out = pol->offer; /* 3.2: the MTU the receiver prefers */
    *link_mtu = dw_ipoib_mtu_agree(req_mtu, pol->offer);
    return DW_IPOIB_REQ_ACCEPT;
}

dw_ipoib_rep_verdict dw_ipoib_on_rep_mtu(const dw_ipoib_mtu_policy *pol, uint32_t req_mtu,
                                         uint32_t rep_mtu, uint32_t *link_mtu)
{
    *link_mtu = dw_ipoib_mtu_agree(req_mtu, rep_mtu);
    /* 3.2: a requester that finds the MTU unsuitable can disconnect */
    return *link_mtu < pol->min ? DW_IPOIB_REP_DISCONNECT : DW_IPOIB_REP_RTU;
}

int dw_ipoib_on_rej(dw_ipoib_profile p, const dw_ipoib_mtu_policy *pol, const dw_ipoib_rej *rej,
                    unsigned retries_left, uint32_t *retry_mtu)
{
    if (p != DW_IPOIB_PROFILE_DRAFT || !rej || rej->reason != DW_IPOIB_REJ_NO_RESOURCES)
        return 0;
    uint32_t m = rej->pd.mtu;
    if (!retries_left || !m || m < pol->min || m > pol->max)
        return 0;
    *retry_mtu = m;
    return 1;
}

static int ipv4_mcast(uint32_t dst)
{
    return (dst >> 28) == 0xE || dst == 0xFFFFFFFFu;
}

static dw_ipoib_pkt_class classify_v6(const uint8_t *pkt, size_t len)
{
    if (len < 40)
        return DW_IPOIB_PKT_UNICAST;
    if (pkt[6] == 58 && len > 40 && pkt[40] >= 133 && pkt[40] <= 137)
        return DW_IPOIB_PKT_ND; /* ICMPv6 RS, RA, NS, NA, redirect */
    return pkt[24] == 0xff ? DW_IPOIB_PKT_MULTICAST : DW_IPOIB_PKT_UNICAST;
}

dw_ipoib_pkt_class dw_ipoib_classify(uint16_t type, const uint8_t *pkt, size_t len)
{
    if (type == DW_IPOIB_TYPE_ARP)
        return DW_IPOIB_PKT_ARP;
    if (!pkt)
        return DW_IPOIB_PKT_UNICAST;
    if (type == DW_IPOIB_TYPE_IPV6)
        return classify_v6(pkt, len);
    if (type == DW_IPOIB_TYPE_IPV4 && len >= 20 && ipv4_mcast(dw_get_be32(pkt + 16)))
        return DW_IPOIB_PKT_MULTICAST;
    return DW_IPOIB_PKT_UNICAST;
}

int dw_ipoib_tx_allowed(dw_ipoib_pkt_class c, dw_ipoib_mode m)
{
    /* 3.3: ARP MUST only go over IPoIB-UD; multicast cannot use advanced
     * modes; any unicast MAY use any link. 3.0: ND as ARP. A QPN link is a
     * service's own UD QPN: resolution and multicast use the default QPN. */
    return c == DW_IPOIB_PKT_UNICAST || m == DW_IPOIB_MODE_UD;
}

int dw_ipoib_rx_allowed(dw_ipoib_pkt_class c, dw_ipoib_mode m)
{
    /* 3.3: anything received over IPoIB-UD MUST be processed */
    if (m == DW_IPOIB_MODE_UD || m == DW_IPOIB_MODE_QPN)
        return 1;
    return c == DW_IPOIB_PKT_UNICAST;
}

int dw_ipoib_route(dw_ipoib_pkt_class c, const dw_ipoib_links *links, size_t len)
{
    if (!links)
        return DW_ERR_INVAL;
    for (int m = DW_IPOIB_MODE_RC; m >= DW_IPOIB_MODE_UD; m--) {
        int up = m == DW_IPOIB_MODE_UD || (links->up >> m & 1u);
        if (up && dw_ipoib_tx_allowed(c, (dw_ipoib_mode)m) && len <= links->mtu[m])
            return m;
    }
    return DW_ERR_TOO_LONG;
}
