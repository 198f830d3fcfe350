/* SPDX-License-Identifier: MIT */
/* A small pcap writer: classic format, microseconds, little-endian. */
#include "pcap_out.h"

#include <string.h>

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

static void le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

int pcap_out_open(pcap_out *p, const char *path, unsigned linktype, uint32_t snaplen)
{
    uint8_t h[24];
    p->snaplen = snaplen;
    p->f = cli_outfile_open(&p->o, NULL, path);
    if (!p->f)
        return -1;
    le32(h, 0xa1b2c3d4u);
    le16(h + 4, 2);
    le16(h + 6, 4);
    le32(h + 8, 0);  /* thiszone */
    le32(h + 12, 0); /* sigfigs */
    le32(h + 16, snaplen);
    le32(h + 20, linktype);
    return fwrite(h, sizeof h, 1, p->f) == 1 ? 0 : -1;
}

int pcap_out_write(pcap_out *p, uint64_t usec, const uint8_t *frame, size_t len)
{
    uint8_t h[16];
    size_t cap = len < p->snaplen ? len : p->snaplen;
    le32(h, (uint32_t)(usec / 1000000));
    le32(h + 4, (uint32_t)(usec % 1000000));
    le32(h + 8, (uint32_t)cap);
    le32(h + 12, (uint32_t)len);
    if (fwrite(h, sizeof h, 1, p->f) != 1 || fwrite(frame, 1, cap, p->f) != cap)
        return -1;
    return 0;
}

int pcap_out_close(pcap_out *p, const char *prog)
{
    if (!p->f)
        return 0;
    p->f = NULL;
    return cli_outfile_commit(&p->o, prog);
}

void pcap_out_abort(pcap_out *p)
{
    if (p->f)
        cli_outfile_abort(&p->o);
    p->f = NULL;
}
