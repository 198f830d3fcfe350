/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the TCP RDMA option. Input octet 0 picks the mode.
 * Even: octets 1-2 are a payload length, the rest a TCP options area; the
 * walker and checks must agree with the codec, a found option must lie in
 * the area and re-encode to its octets, and so must any option decoded at
 * any position. Odd: the rest describes a stream with transfers; every
 * segment the segmenter cuts must carry a valid, encodable option.
 */
#include <ddpwire/tcpopt.h>
#include <ddpwire/tcpopt_rid.h>
#include <ddpwire/tcpopt_seg.h>

#include <stdlib.h>
#include <string.h>

static void roundtrip(const dw_tcpopt *o, const uint8_t *at)
{
    uint8_t w[20];
    if (dw_tcpopt_encode(w, sizeof w, o) != o->len || memcmp(w, at, o->len))
        abort();
}

static void rids(uint64_t rid)
{
    dw_tcpopt_rid_nfs n;
    dw_tcpopt_rid_http h;
    dw_tcpopt_rid_cifs c;
    uint64_t back;
    if (dw_tcpopt_rid_nfs_decode(&n, rid, 4) == DW_TCPOPT_R_OK &&
        (dw_tcpopt_rid_nfs_encode(&back, &n, 4) || back != rid))
        abort();
    if (dw_tcpopt_rid_http_decode(&h, rid) == DW_TCPOPT_R_OK &&
        (dw_tcpopt_rid_http_encode(&back, &h) || back != rid))
        abort();
    if (dw_tcpopt_rid_cifs_decode(&c, rid) == DW_TCPOPT_R_OK &&
        (dw_tcpopt_rid_cifs_encode(&back, &c) || back != rid))
        abort();
}

static void options(const uint8_t *a, size_t len, size_t payload)
{
    dw_tcpopt_found f;
    dw_tcpopt_reason why;
    int rc = dw_tcpopt_parse(&f, &why, a, len, payload);
    if (rc != 0 && rc != 1 && rc != DW_ERR_MALFORMED)
        abort();
    if ((rc == DW_ERR_MALFORMED) != (why != DW_TCPOPT_R_OK))
        abort();
    if (rc >= 0 || why != DW_TCPOPT_R_OPTIONS_MALFORMED) {
        if ((f.count > 0) != (rc == 1 || why != DW_TCPOPT_R_OK))
            abort();
        if (f.count) {
            if (f.offset + f.opt.len > len || a[f.offset] != DW_TCPOPT_KIND)
                abort();
            roundtrip(&f.opt, a + f.offset);
            if (dw_tcpopt_check(&f.opt, f.offset, payload) != why)
                abort();
            rids(f.opt.rid);
            dw_tcpopt_total t;
            dw_tcpopt_total_init(&t, f.opt.rid);
            dw_tcpopt_reason tr = dw_tcpopt_total_check(&t, &f.opt);
            if (rc == 1 && tr != DW_TCPOPT_R_OK)
                abort(); /* a fresh tracker accepts what the checks passed */
        }
        if (rc == 1 && DW_TCPOPT_HAS_DATA(&f.opt) &&
            (size_t)f.opt.data_offset + f.opt.data_length > payload)
            abort();
    }
    for (size_t i = 0; i < len; i++) { /* any position, any length */
        dw_tcpopt o;
        ssize_t n = dw_tcpopt_decode(&o, a + i, len - i);
        if (n > 0)
            roundtrip(&o, a + i);
        else if (n != 0 && n != DW_ERR_NEED_MORE)
            abort();
    }
}

/* Stream layout from the input: 2 octets each of gap and length per range. */
static void segments(const uint8_t *d, size_t n)
{
    if (n < 4)
        return;
    dw_tcpopt_seg_settings s;
    dw_tcpopt_seg_settings_default(&s);
    s.mss = 1u + (d[0] << 4 | d[1] >> 4);
    s.policy = (dw_tcpopt_policy)(d[1] & 1);
    s.a_bit = d[1] >> 1 & 1;
    d += 2, n -= 2;
    dw_tcpopt_range r[16];
    dw_tcpopt_transfer x[16];
    uint64_t msgs[16], pos = 0;
    size_t nx = 0, nm = 0;
    for (; n >= 4 && nx < 16; d += 4, n -= 4, nx++) {
        r[nx].offset = pos + ((d[0] << 8 | d[1]) & 0xfff);
        r[nx].length = (uint64_t)(d[2] << 8 | d[3]) & 0xfff;
        pos = r[nx].offset + (r[nx].length ? r[nx].length : 1);
        if (d[2] & 0x80)
            msgs[nm++] = r[nx].offset;
        x[nx] = (dw_tcpopt_transfer){nx * 0x10001u, (uint32_t)nx * 1000,
                                     d[2] >> 6 & 1, d[1] & 1, &r[nx], 1};
    }
    dw_tcpopt_seg sg;
    if (pos / s.mss > 4096) /* keep runs fast */
        return;
    if (dw_tcpopt_seg_init(&sg, &s, pos, x, nx, msgs, nm))
        return;
    dw_tcpopt_segment g;
    uint64_t at = 0;
    int rc;
    while ((rc = dw_tcpopt_seg_next(&sg, &g)) == 1) {
        if (g.offset != at || g.len < 1 || g.len > s.mss)
            abort();
        at += g.len;
        uint8_t w[20];
        if (g.opt.len && dw_tcpopt_encode(w, sizeof w, &g.opt) != g.opt.len)
            abort();
        if (g.opt.len && dw_tcpopt_check(&g.opt, 0, g.len) != DW_TCPOPT_R_OK)
            abort();
    }
    if (rc == 0 && at != pos)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    if (data[0] & 1)
        segments(data + 1, size - 1);
    else
        options(data + 3, size - 3, (size_t)(data[1] << 8 | data[2]));
    return 0;
}
