/* SPDX-License-Identifier: MIT */
/*
 * Completion status names (NVMe 1.4 Figures 126-130, NVMe-oF 1.1 Figure
 * 30), Identify Controller/Namespace (NVMe 1.4 Figures 247, 245) and the
 * Discovery Log Page (NVMe-oF 1.1 Figures 32-33).
 */
#include <ddpwire/nvmeof.h>

#include <string.h>

#include "base/bytes.h"

typedef struct named {
    uint16_t code; /* SCT << 8 | SC */
    const char *name;
} named;

static const named generic[] = {
    {0x000, "success"},
    {0x001, "invalid command opcode"},
    {0x002, "invalid field in command"},
    {0x003, "command id conflict"},
    {0x004, "data transfer error"},
    {0x005, "commands aborted due to power loss"},
    {0x006, "internal error"},
    {0x007, "command abort requested"},
    {0x008, "command aborted due to SQ deletion"},
    {0x00a, "invalid namespace or format"},
    {0x00b, "invalid namespace or format"},
    {0x00c, "command sequence error"},
    {0x00d, "invalid SGL segment descriptor"},
    {0x00e, "invalid number of SGL descriptors"},
    {0x00f, "data SGL length invalid"},
    {0x010, "metadata SGL length invalid"},
    {0x011, "SGL descriptor type invalid"},
    {0x016, "SGL offset invalid"},
    {0x01c, "keep alive timer expired"},
    {0x01d, "keep alive timeout invalid"},
    {0x080, "LBA out of range"},
    {0x081, "capacity exceeded"},
    {0x082, "namespace not ready"},
    {0x101, "invalid queue identifier"},
    {0x102, "invalid queue size"},
    {0x109, "invalid log page"},
    {0x10d, "feature identifier not saveable"},
    {0x180, "conflicting attributes"},
    {0x182, "attempted write to read only range"},
    {0x280, "write fault"},
    {0x281, "unrecovered read error"},
    {0x282, "end-to-end guard check error"},
    {0x283, "end-to-end application tag check error"},
    {0x284, "end-to-end reference tag check error"},
    {0x285, "compare failure"},
    {0x286, "access denied"},
    {0x287, "deallocated or unwritten logical block"},
    {0x300, "internal path error"},
    {0x301, "asymmetric access persistent loss"},
    {0x302, "asymmetric access inaccessible"},
    {0x303, "asymmetric access transition"},
    {0x360, "controller pathing error"},
    {0x370, "host pathing error"},
};

/* Command specific codes of Fabrics commands (NVMe-oF 1.1 Figure 30). */
static const named fabrics[] = {
    {0x180, "incompatible format"},
    {0x181, "controller busy"},
    {0x182, "connect invalid parameters"},
    {0x183, "connect restart discovery"},
    {0x184, "connect invalid host"},
    {0x190, "discover restart"},
    {0x191, "authentication required"},
};

static const char *lookup(const named *t, size_t n, uint16_t code)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].code == code)
            return t[i].name;
    return NULL;
}

const char *dw_nvmeof_status_str(uint16_t status, int fabrics_cmd)
{
    uint16_t code = DW_NVME_STATUS(status) & 0x7ff;
    const char *s = fabrics_cmd ? lookup(fabrics, sizeof fabrics / sizeof *fabrics, code) : NULL;
    if (!s)
        s = lookup(generic, sizeof generic / sizeof *generic, code);
    return s ? s : "unknown status";
}

/* Copies an ASCII field of n octets, without its trailing spaces. */
static void text(char *dst, const uint8_t *p, size_t n)
{
    while (n && (p[n - 1] == ' ' || p[n - 1] == 0))
        n--;
    for (size_t i = 0; i < n; i++)
        dst[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
    dst[n] = 0;
}

int dw_nvmeof_id_ctrl_decode(dw_nvmeof_id_ctrl *c, const uint8_t *in, size_t len)
{
    if (!c || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_IDENTIFY_LEN)
        return DW_ERR_NEED_MORE;
    memset(c, 0, sizeof *c);
    c->vid = dw_get_le16(in);
    c->ssvid = dw_get_le16(in + 2);
    text(c->sn, in + 4, 20);
    text(c->mn, in + 24, 40);
    text(c->fr, in + 64, 8);
    c->mdts = in[77];
    c->cntlid = dw_get_le16(in + 78);
    c->ver = dw_get_le32(in + 80);
    c->maxcmd = dw_get_le16(in + 514);
    c->nn = dw_get_le32(in + 516);
    text(c->subnqn, in + 768, 255); /* the field's last octet stays a NUL */
    c->ioccsz = dw_get_le32(in + 1792);
    c->iorcsz = dw_get_le32(in + 1796);
    return DW_NVMEOF_IDENTIFY_LEN;
}

int dw_nvmeof_id_ns_decode(dw_nvmeof_id_ns *n, const uint8_t *in, size_t len)
{
    if (!n || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_IDENTIFY_LEN)
        return DW_ERR_NEED_MORE;
    memset(n, 0, sizeof *n);
    n->nsze = dw_get_le64(in);
    n->ncap = dw_get_le64(in + 8);
    n->nuse = dw_get_le64(in + 16);
    n->nlbaf = in[25];
    n->flbas = in[26];
    unsigned f = n->flbas & 0xf;
    if (f > n->nlbaf)
        return DW_ERR_MALFORMED;
    unsigned lbads = in[128 + 4 * f + 2]; /* LBA format: MS(2) LBADS(1) RP(1) */
    if (lbads < 9 || lbads > 16)
        return DW_ERR_MALFORMED;
    n->lba_size = 1u << lbads;
    return DW_NVMEOF_IDENTIFY_LEN;
}

int dw_nvmeof_disc_hdr_decode(dw_nvmeof_disc_hdr *h, const uint8_t *in, size_t len)
{
    if (!h || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_DISC_ENTRY_LEN)
        return DW_ERR_NEED_MORE;
    *h = (dw_nvmeof_disc_hdr){dw_get_le64(in), dw_get_le64(in + 8), dw_get_le16(in + 16)};
    return DW_NVMEOF_DISC_ENTRY_LEN;
}

int dw_nvmeof_disc_entry_decode(dw_nvmeof_disc_entry *e, const uint8_t *in, size_t len)
{
    if (!e || (!in && len))
        return DW_ERR_INVAL;
    if (len < DW_NVMEOF_DISC_ENTRY_LEN)
        return DW_ERR_NEED_MORE;
    memset(e, 0, sizeof *e);
    e->trtype = in[0];
    e->adrfam = in[1];
    e->subtype = in[2];
    e->treq = in[3];
    e->portid = dw_get_le16(in + 4);
    e->cntlid = dw_get_le16(in + 6);
    e->asqsz = dw_get_le16(in + 8);
    text(e->trsvcid, in + 32, 32);
    text(e->traddr, in + 512, 256);
    text(e->subnqn, in + 256, 256);
    return DW_NVMEOF_DISC_ENTRY_LEN;
}

const char *dw_nvmeof_trtype_str(uint8_t trtype)
{
    switch (trtype) {
    case 1: return "rdma";
    case 2: return "fc";
    case 3: return "tcp";
    case 254: return "loop";
    default: return "unknown";
    }
}
