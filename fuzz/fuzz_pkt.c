/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the packet parser. Input octet 0 picks the link type, octet
 * 1 how much longer the frame was on the wire, the rest is the captured
 * frame (libFuzzer's buffer is exactly that long, so any read past it is a
 * sanitizer error). The result must be one of the promised codes; a parsed
 * segment's pointers must lie inside the frame, in order, with lengths that
 * add up; and building a frame from the parsed fields must parse back to
 * the same fields with good checksums.
 */
#include <ddpwire/pkt.h>

#include <stdlib.h>
#include <string.h>

static const unsigned links[] = {
    DW_PKT_LINK_NULL, DW_PKT_LINK_ETHERNET, DW_PKT_LINK_DLT_RAW, DW_PKT_LINK_RAW,
    DW_PKT_LINK_LOOP, DW_PKT_LINK_SLL,      DW_PKT_LINK_IPV4,    DW_PKT_LINK_IPV6,
    DW_PKT_LINK_IPOIB, DW_PKT_LINK_SLL2,    147};

static void rebuild(const dw_pkt_tcp *t)
{
    static uint8_t f[70000];
    dw_pkt_build b = {.linktype = t->linktype == DW_PKT_LINK_DLT_RAW ? DW_PKT_LINK_RAW
                                                                      : t->linktype,
                      .vlan = t->vlan, .ip_version = t->ip_version, .ttl = t->ttl,
                      .sport = t->sport, .dport = t->dport, .seq = t->seq, .ack = t->ack,
                      .flags = t->flags, .window = t->window, .options = t->options,
                      .options_len = t->options_len, .payload = t->payload,
                      .payload_len = t->payload_len};
    memcpy(b.src, t->src, 16);
    memcpy(b.dst, t->dst, 16);
    ssize_t n = dw_pkt_build_frame(f, sizeof f, &b);
    if (n < 0)
        abort(); /* everything parsed is buildable */
    dw_pkt_tcp u;
    if (dw_pkt_parse(&u, NULL, t->linktype, f, (size_t)n, 0, DW_PKT_VERIFY))
        abort();
    if (memcmp(u.src, t->src, 16) || memcmp(u.dst, t->dst, 16) || u.sport != t->sport ||
        u.dport != t->dport || u.seq != t->seq || u.ack != t->ack || u.flags != t->flags ||
        u.window != t->window || u.ip_version != t->ip_version ||
        u.options_len != t->options_len || memcmp(u.options, t->options, t->options_len) ||
        u.payload_len != t->payload_len || memcmp(u.payload, t->payload, t->payload_len) ||
        u.tcp_csum != DW_PKT_CSUM_GOOD || (u.ip_version == 4 && u.ip_csum != DW_PKT_CSUM_GOOD))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned lt = links[data[0] % (sizeof links / sizeof links[0])];
    size_t cap = size - 2, wire = cap + (data[1] & 0x80 ? data[1] & 0x7f : 0);
    const uint8_t *f = cap ? data + 2 : NULL;
    uint8_t *copy = malloc(cap ? cap : 1); /* exactly the capture */
    if (!copy)
        return 0;
    if (cap)
        memcpy(copy, f, cap);
    dw_pkt_tcp t;
    dw_pkt_reason why;
    int rc = dw_pkt_parse(&t, &why, lt, cap ? copy : NULL, cap, wire, DW_PKT_VERIFY);
    if (rc != 0 && rc != DW_ERR_NEED_MORE && rc != DW_ERR_MALFORMED && rc != DW_ERR_UNSUPPORTED)
        abort();
    if ((rc == 0) != (why == DW_PKT_R_OK) || !dw_pkt_reason_str(why))
        abort();
    if (rc == 0) {
        const uint8_t *end = copy + cap;
        if (t.ip != copy + t.link_len || t.tcp != t.ip + t.ip_hdr_len ||
            t.options != t.tcp + 20 || t.tcp_hdr_len != 20 + t.options_len ||
            t.payload != t.tcp + t.tcp_hdr_len || t.payload + t.payload_caplen > end ||
            t.payload_caplen > t.payload_len || t.tcp_hdr_len > 60 ||
            (t.ip_version != 4 && t.ip_version != 6) ||
            (t.payload_caplen < t.payload_len) != (t.tcp_csum == DW_PKT_CSUM_UNKNOWN))
            abort();
        if (t.payload_caplen == t.payload_len && t.payload_len <= 65535 - 120 &&
            t.options_len % 4 == 0)
            rebuild(&t);
    }
    free(copy);
    return 0;
}
