/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: every IPoIB decoder, chosen by the first input octet, and
 * the node's input paths (UD frames, CM messages, connected messages) in
 * any order. Decoders must stay inside the input, re-encode what they
 * accept to the same octets (or the same values where the format ignores
 * octets), and call every shorter prefix of an accepted input "need more".
 */
#include <ddpwire_sim/ipoib_sim.h>
#include <ddpwire/ipoib_node.h>

#include <stdlib.h>
#include <string.h>

#define MUST(c)                                                               \
    do {                                                                      \
        if (!(c))                                                             \
            abort();                                                          \
    } while (0)

/* A decoder accepted n octets: each shorter prefix must be "need more". */
#define PREFIXES(call_k)                                                      \
    for (size_t k = 0; k < (size_t)n; k++) {                                  \
        ssize_t p_ = (call_k);                                                \
        MUST(p_ == DW_ERR_NEED_MORE);                                         \
    }

static void fixed_codecs(unsigned which, const uint8_t *d, size_t len)
{
    uint8_t out[64];
    ssize_t n;
    switch (which) {
    case 0: {
        dw_ipoib_addr a;
        if ((n = dw_ipoib_addr_decode(&a, d, len)) < 0)
            return;
        MUST(n == 20 && dw_ipoib_addr_encode(out, sizeof out, &a) == 20 && !memcmp(out, d, 20));
        PREFIXES(dw_ipoib_addr_decode(&a, d, k));
        break;
    }
    case 1: {
        dw_ipoib_sid s, s2;
        if ((n = dw_ipoib_sid_decode(&s, d, len)) < 0)
            return;
        MUST(n == 8 && d[0] == 1 && dw_ipoib_sid_encode(out, sizeof out, &s) == 8);
        MUST(dw_ipoib_sid_decode(&s2, out, 8) == 8 && s2.protocol == s.protocol &&
             s2.subfield == s.subfield && !s2.reserved_set);
        PREFIXES(dw_ipoib_sid_decode(&s, d, k));
        break;
    }
    case 2: {
        dw_ipoib_pd pd;
        if ((n = dw_ipoib_sidr_pd_decode(&pd, d, len)) < 0)
            return;
        MUST(n == 8 && dw_ipoib_sidr_pd_encode(out, sizeof out, &pd) == 8 && !memcmp(out, d, 8));
        PREFIXES(dw_ipoib_sidr_pd_decode(&pd, d, k));
        break;
    }
    case 3: {
        dw_ipoib_pd pd;
        if ((n = dw_ipoib_cm_pd_decode(&pd, d, len)) < 0)
            return;
        MUST(n == 12 && dw_ipoib_cm_pd_encode(out, sizeof out, &pd) == 12 && !memcmp(out, d, 12));
        PREFIXES(dw_ipoib_cm_pd_decode(&pd, d, k));
        break;
    }
    case 4: {
        dw_ipoib_rfc_pd pd;
        if ((n = dw_ipoib_rfc_pd_decode(&pd, d, len)) < 0)
            return;
        MUST(n == 8 && dw_ipoib_rfc_pd_encode(out, sizeof out, &pd) == 8 &&
             !memcmp(out + 1, d + 1, 7));
        PREFIXES(dw_ipoib_rfc_pd_decode(&pd, d, k));
        break;
    }
    default:
        break;
    }
}

static void frame_codecs(unsigned which, const uint8_t *d, size_t len)
{
    uint8_t out[64];
    ssize_t n;
    switch (which) {
    case 5: { /* REJ: a 16-bit reason, then private data */
        if (len < 2)
            return;
        dw_ipoib_rej r;
        uint16_t reason = (uint16_t)(d[0] << 8 | d[1]);
        n = dw_ipoib_rej_decode(&r, reason, d + 2, len - 2);
        MUST(n == 0 || n == 12 || n == DW_ERR_NEED_MORE || n == DW_ERR_MALFORMED);
        if (n == 0)
            MUST(reason != 3 && r.pd.mtu == 0);
        if (n == 12) {
            MUST(dw_ipoib_rej_encode(out, sizeof out, &r) == 12 && !memcmp(out, d + 2, 12));
            PREFIXES(dw_ipoib_rej_decode(&r, reason, d + 2, k));
        }
        break;
    }
    case 6: {
        dw_ipoib_arp a;
        if ((n = dw_ipoib_arp_decode(&a, d, len)) < 0)
            return;
        MUST(n == 56 && dw_ipoib_arp_encode(out, sizeof out, &a) == 56 && !memcmp(out, d, 56));
        PREFIXES(dw_ipoib_arp_decode(&a, d, k));
        break;
    }
    case 7: {
        dw_ipoib_lt242 h, h2;
        if ((n = dw_ipoib_lt242_decode(&h, d, len)) < 0)
            return;
        MUST(n == 40 && dw_ipoib_lt242_encode(out, sizeof out, &h) == 40);
        MUST(dw_ipoib_lt242_decode(&h2, out, 40) == 40 && h2.grh == h.grh &&
             h2.sqpn == h.sqpn && !memcmp(&h2.dst, &h.dst, sizeof h.dst));
        PREFIXES(dw_ipoib_lt242_decode(&h, d, k));
        break;
    }
    case 8: { /* the text form of service IDs */
        char t[64], back[DW_IPOIB_SID_TEXT_MAX];
        size_t m = len < sizeof t - 1 ? len : sizeof t - 1;
        memcpy(t, d, m);
        t[m] = '\0';
        uint64_t v, w;
        if (dw_ipoib_sid_parse(&v, t))
            return;
        MUST(dw_ipoib_sid_format(back, sizeof back, v) > 0);
        MUST(dw_ipoib_sid_parse(&w, back) == 0 && w == v);
        break;
    }
    default:
        break;
    }
}

/* ---- the node: arbitrary messages after a normal start ---- */

static int nop_ud(dw_ipoib_node *n, const dw_ipoib_ud *to, uint16_t type, const uint8_t *pkt,
                  size_t len, void *ud)
{
    (void)n, (void)to, (void)type, (void)pkt, (void)ud;
    MUST(len <= 65535);
    return 0;
}

static int nop_cm(dw_ipoib_node *n, const uint8_t *dgid, const dw_ipoib_cm_msg *m, void *ud)
{
    (void)n, (void)dgid, (void)ud;
    MUST(m->pd_len <= DW_IPOIB_CM_PD_MAX);
    return 0;
}

static int nop_conn(dw_ipoib_node *n, const uint8_t *dgid, uint32_t dqpn, uint32_t sqpn,
                    uint16_t type, const uint8_t *pkt, size_t len, void *ud)
{
    (void)n, (void)dgid, (void)dqpn, (void)sqpn, (void)type, (void)pkt, (void)len, (void)ud;
    return 0;
}

static void nop_deliver(dw_ipoib_node *n, uint16_t type, const uint8_t *pkt, size_t len,
                        dw_ipoib_mode via, void *ud)
{
    (void)n, (void)type, (void)pkt, (void)len, (void)via, (void)ud;
}

static const uint8_t peer_gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 0xc9, 3, 0, 0, 0, 2};

static void node_run(const uint8_t *d, size_t len)
{
    if (len < 1)
        return;
    dw_ipoib_node_settings s;
    dw_ipoib_node_settings_default(&s);
    s.profile = d[0] & 1 ? DW_IPOIB_PROFILE_RFC4755 : DW_IPOIB_PROFILE_DRAFT;
    s.caps = dw_ipoib_profile_caps(s.profile);
    s.ipv4 = 0x0A000001;
    s.qpn = 0x48;
    s.gid[0] = 0xfe;
    s.gid[15] = 1;
    s.conn_qpn_base = 0x100;
    s.services[0].sid = dw_ipoib_sid_make(17, 0);
    s.services[0].qpn = 0x49;
    s.n_services = s.profile == DW_IPOIB_PROFILE_DRAFT;
    dw_ipoib_node_callbacks cb = {nop_ud, nop_cm, nop_conn, nop_deliver, NULL};
    dw_ipoib_node *n;
    if (dw_ipoib_node_new(&n, &s, &cb, NULL))
        abort();
    /* a packet to 10.0.0.2 and that peer's ARP reply: a set-up is pending */
    uint8_t ip[28] = {0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2};
    dw_ipoib_node_send(n, ip, sizeof ip, 1);
    dw_ipoib_arp a = {0};
    uint8_t fr[60] = {0x08, 0x06};
    a.op = DW_IPOIB_ARP_REPLY;
    a.sha.flags = (uint8_t)(d[0] & 0xF0);
    a.sha.qpn = 0x52;
    memcpy(a.sha.gid, peer_gid, 16);
    a.spa = 0x0A000002;
    dw_ipoib_node_addr(n, &a.tha);
    a.tpa = 0x0A000001;
    dw_ipoib_arp_encode(fr + 4, 56, &a);
    dw_ipoib_ud from = {s.gid, 0x48, peer_gid, 0x52};
    dw_ipoib_node_input_ud(n, &from, fr, sizeof fr, 2);
    /* then records: kind, length, octets */
    uint64_t now = 3;
    size_t at = 1;
    while (at + 2 <= len) {
        unsigned kind = d[at] % 4;
        size_t l = d[at + 1];
        at += 2;
        if (l > len - at)
            l = len - at;
        const uint8_t *p = d + at;
        at += l;
        now += 1 + (l & 7) * 20000;
        if (kind == 0) { /* a UD frame to our QPN (or a service's) */
            from.dqpn = l & 1 ? 0x49 : 0x48;
            dw_ipoib_node_input_ud(n, &from, p, l, now);
        } else if (kind == 1) { /* a CM message: header fields, then private data */
            dw_ipoib_cm_msg m;
            memset(&m, 0, sizeof m);
            uint8_t h[16] = {0};
            memcpy(h, p, l < 16 ? l : 16);
            m.type = (dw_ipoib_cm_type)(h[0] % 10);
            m.local_id = (uint32_t)h[1] << 8 | h[2];
            m.remote_id = ((s.qpn << 8) | 1) + (h[3] & 7);
            m.service_id = h[4] & 1 ? dw_ipoib_sid_cm(h[4] >> 7, 0x48)
                                    : dw_ipoib_sid_make(h[5], (uint16_t)(h[6] << 8 | h[7]));
            m.qpn = (uint32_t)h[8] << 16 | (uint32_t)h[9] << 8 | h[10];
            m.transport = (dw_ipoib_mode)(h[11] % 6);
            m.reason = h[12];
            m.pd_len = (uint16_t)(l > 16 ? l - 16 : 0); /* over 224: refused */
            memcpy(m.pd, p + 16, m.pd_len < DW_IPOIB_CM_PD_MAX ? m.pd_len : DW_IPOIB_CM_PD_MAX);
            dw_ipoib_node_input_cm(n, peer_gid, &m, now);
        } else if (kind == 2) { /* a connected message */
            dw_ipoib_node_input_conn(n, peer_gid, l ? p[0] : 0, 0x100 + (l & 3), p, l, now);
        } else { /* a packet from the host, or time */
            dw_ipoib_node_send(n, p, l, now);
            dw_ipoib_node_tick(n, now);
        }
        dw_ipoib_peer_info info;
        if (dw_ipoib_node_peer(n, 0x0A000002, &info) == 0)
            MUST(info.mtu >= s.ud_mtu && info.failures <= info.attempts);
    }
    dw_ipoib_node_del(n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned which = data[0] % 10;
    if (which <= 4)
        fixed_codecs(which, data + 1, size - 1);
    else if (which <= 8)
        frame_codecs(which, data + 1, size - 1);
    else
        node_run(data + 1, size - 1);
    return 0;
}
