/* SPDX-License-Identifier: MIT */
/*
 * ddpwire tcprdma synth workloads: an NFSv3 READ reply (RPC record marking,
 * RFC 1831/1813), an HTTP/1.1 GET response, an SMB READ_ANDX response over
 * NetBIOS (CIFS), or a described layout; each body is one RDMA transfer
 * whose RID follows section 5.
 */
#include "cli.h"
#include "tcprdma.h"

#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *p;
    size_t len, cap;
    int oom;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    if (d)
        memcpy(b->p + b->len, d, n);
    else
        memset(b->p + b->len, 0, n);
    b->len += n;
}

static void be32(buf *b, uint32_t v)
{
    uint8_t o[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, o, 4);
}

static void le16(buf *b, uint16_t v)
{
    uint8_t o[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, o, 2);
}

static void le32(buf *b, uint32_t v)
{
    le16(b, (uint16_t)v);
    le16(b, (uint16_t)(v >> 16));
}

static void u8(buf *b, uint8_t v)
{
    put(b, &v, 1);
}

/* n pseudo-random octets (xorshift64*). */
static void noise(buf *b, uint64_t n, uint64_t *s)
{
    size_t at = b->len;
    put(b, NULL, (size_t)n);
    for (uint64_t i = 0; i < n && !b->oom; i++) {
        *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
        b->p[at + i] = (uint8_t)((*s * 0x2545F4914F6CDD1DULL) >> 56);
    }
}

uint64_t tw_xfer_len(const dw_tcpopt_transfer *x)
{
    uint64_t n = 0;
    for (size_t i = 0; i < x->nranges; i++)
        n += x->ranges[i].length;
    return n;
}

/* One transfer of one range at the reply's current end. */
static void add_xfer(tw_work *w, const tw_opts *o, buf *resp, uint64_t rid, uint64_t n,
                     uint64_t *seed)
{
    w->r[w->nr] = (dw_tcpopt_range){resp->len, n};
    w->x[w->nx] = (dw_tcpopt_transfer){rid, 0, (uint8_t)o->unsolicited,
                                       (uint8_t)!o->no_total, &w->r[w->nr], 1};
    w->nr++, w->nx++;
    noise(resp, n, seed);
}

/* NFSv3 READ call and reply (RFC 1813 3.3.6, RFC 1831 8-10). */
static void nfs(tw_work *w, const tw_opts *o, buf *req, buf *resp, unsigned i,
                uint64_t *seed)
{
    uint32_t xid = (uint32_t)(o->seed * 2654435761u) + 0x1000 + i, n = (uint32_t)o->size;
    uint32_t pad = (4 - n % 4) % 4;
    be32(req, 0x80000000u | 88); /* record mark: last fragment, 88 octets */
    static const uint32_t call[] = {0, 2, 100003, 3, 6, 0, 0, 0, 0, 32};
    be32(req, xid);
    for (size_t k = 0; k < sizeof call / sizeof call[0]; k++)
        be32(req, call[k]);
    noise(req, 32, seed); /* file handle */
    be32(req, 0), be32(req, (uint32_t)i * n), be32(req, n);
    w->msgs[w->nm++] = resp->len;
    be32(resp, 0x80000000u | (128 + n + pad));
    static const uint32_t reply[] = {1, 0, 0, 0, 0, 0, 1, /* ok, attributes follow */
                                     1, 0644, 1, 0, 0}; /* NF3REG, mode, nlink, uid, gid */
    be32(resp, xid);
    for (size_t k = 0; k < sizeof reply / sizeof reply[0]; k++)
        be32(resp, reply[k]);
    be32(resp, 0), be32(resp, n * o->count), be32(resp, 0), be32(resp, n * o->count);
    put(resp, NULL, 8 + 8);          /* rdev, fsid */
    be32(resp, 0), be32(resp, 4242); /* fileid */
    for (int t = 0; t < 3; t++)      /* atime, mtime, ctime */
        be32(resp, 1700000000u), be32(resp, 0);
    be32(resp, n), be32(resp, i + 1 == o->count), be32(resp, n);
    uint64_t rid;
    dw_tcpopt_rid_nfs_encode(&rid, &(dw_tcpopt_rid_nfs){xid, 0}, 3);
    add_xfer(w, o, resp, rid, n, seed);
    put(resp, NULL, pad);
}

/* HTTP/1.1 GET and its response (RFC 2616). */
static void http(tw_work *w, const tw_opts *o, buf *req, buf *resp, unsigned i,
                 uint64_t *seed)
{
    char t[256];
    int k = snprintf(t, sizeof t,
                     "GET /data/%u HTTP/1.1\r\nHost: server\r\nUser-Agent: ddpwire\r\n\r\n", i);
    put(req, t, (size_t)k);
    w->msgs[w->nm++] = resp->len;
    k = snprintf(t, sizeof t,
                 "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                 "Content-Length: %llu\r\n\r\n", (unsigned long long)o->size);
    put(resp, t, (size_t)k);
    uint64_t rid;
    dw_tcpopt_rid_http_encode(&rid, &(dw_tcpopt_rid_http){i});
    add_xfer(w, o, resp, rid, o->size, seed);
}

/* SMB header (32 octets, little-endian fields) after a NetBIOS session
 * message header (type 0, 17-bit length). */
static void smb_head(buf *b, uint32_t smb_len, int reply, uint16_t pid, uint16_t mid)
{
    be32(b, smb_len);
    static const uint8_t magic[4] = {0xff, 'S', 'M', 'B'};
    put(b, magic, 4);
    u8(b, 0x2e); /* SMB_COM_READ_ANDX */
    le32(b, 0);  /* status */
    u8(b, reply ? 0x98 : 0x18);
    le16(b, 0x4001); /* NT status, long names */
    le16(b, 0);      /* PID high */
    put(b, NULL, 8 + 2);
    le16(b, 1); /* TID */
    le16(b, pid);
    le16(b, 100); /* UID */
    le16(b, mid);
}

static void cifs(tw_work *w, const tw_opts *o, buf *req, buf *resp, unsigned i,
                 uint64_t *seed)
{
    uint16_t pid = (uint16_t)(0x1234 + o->seed), mid = (uint16_t)(100 + i);
    uint32_t n = (uint32_t)o->size;
    smb_head(req, 32 + 1 + 24 + 2, 0, pid, mid);
    u8(req, 12), u8(req, 0xff), u8(req, 0), le16(req, 0); /* AndX: none */
    le16(req, 0x4000);                                    /* FID */
    le32(req, i * n);                                     /* offset */
    le16(req, (uint16_t)n), le16(req, (uint16_t)n), le32(req, 0), le16(req, 0), le32(req, 0);
    le16(req, 0); /* byte count */
    w->msgs[w->nm++] = resp->len;
    smb_head(resp, 32 + 1 + 24 + 2 + 1 + n, 1, pid, mid);
    u8(resp, 12), u8(resp, 0xff), u8(resp, 0), le16(resp, 0);
    le16(resp, 0xffff), le16(resp, 0), le16(resp, 0); /* available, compaction, reserved */
    le16(resp, (uint16_t)n), le16(resp, 60);          /* data length, offset */
    put(resp, NULL, 10);
    le16(resp, (uint16_t)(n + 1)); /* byte count: pad + data */
    u8(resp, 0);
    uint64_t rid;
    dw_tcpopt_rid_cifs_encode(&rid, &(dw_tcpopt_rid_cifs){pid, mid, 0});
    add_xfer(w, o, resp, rid, n, seed);
}

/* m:N s:N d:N n z u o:N, comma-separated (see the help text). */
static int layout(tw_work *w, const tw_opts *o, buf *req, buf *resp, uint64_t *seed)
{
    put(req, "GET\n", 4);
    int cur = -1;
    for (const char *p = o->layout; *p;) {
        char c = *p++;
        unsigned long long n = 0;
        if (*p == ':') {
            char *end;
            n = strtoull(p + 1, &end, 0);
            if (end == p + 1 || n > (1ull << 30))
                return -1;
            p = end;
        }
        if (c == 'm' || c == 's') {
            if (c == 'm')
                w->msgs[w->nm++] = resp->len;
            noise(resp, n, seed);
        } else if (c == 'd' || c == 'z' || c == 'u' || c == 'o') {
            if (c == 'z' || (cur < 0 && w->nx < TW_MAX_XFERS)) {
                cur = (int)w->nx++;
                w->x[cur] = (dw_tcpopt_transfer){(uint64_t)cur + 1, 0, (uint8_t)o->unsolicited,
                                                 (uint8_t)!o->no_total, &w->r[w->nr], 0};
            }
            if (cur < 0 || w->nr == TW_MAX_RANGES)
                return -1;
            dw_tcpopt_transfer *x = &w->x[cur];
            if (c == 'u')
                x->unsolicited = 1;
            if (c == 'o')
                x->buffer_offset = (uint32_t)n;
            if (c == 'd' || c == 'z') {
                w->r[w->nr++] = (dw_tcpopt_range){resp->len, c == 'z' ? 0 : n};
                x->nranges++;
                noise(resp, c == 'z' ? 0 : n, seed);
            }
            if (c == 'z')
                cur = -1;
        } else if (c == 'n') {
            cur = -1;
        } else {
            return -1;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
        if (w->nm >= TW_MAX_XFERS * 2 - 1)
            return -1;
    }
    return 0;
}

int tw_build(tw_work *w, const tw_opts *o)
{
    memset(w, 0, sizeof *w);
    buf req = {0}, resp = {0};
    uint64_t seed = o->seed * 0x9E3779B97F4A7C15ULL + 1;
    int rc = 0;
    if (!strcmp(o->kind, "layout")) {
        w->server_port = 5999;
        rc = o->layout ? layout(w, o, &req, &resp, &seed) : -1;
        if (rc)
            fprintf(stderr, "ddpwire tcprdma synth: bad --layout '%s'\n",
                    o->layout ? o->layout : "");
    } else if (o->count < 1 || o->count > TW_MAX_XFERS) {
        fprintf(stderr, "ddpwire tcprdma synth: --count needs 1 to %d\n", TW_MAX_XFERS);
        rc = -1;
    } else {
        int k = !strcmp(o->kind, "nfs") ? 0 : !strcmp(o->kind, "http") ? 1
                : !strcmp(o->kind, "cifs") ? 2 : -1;
        uint64_t max = k == 2 ? 65534 : k == 0 ? (1u << 30) : (1ull << 32) - 1;
        if (k < 0 || o->size > max) {
            fprintf(stderr, "ddpwire tcprdma synth: %s\n",
                    k < 0 ? "--workload is nfs, http, cifs or layout"
                          : "--size too large for this workload");
            rc = -1;
        }
        w->server_port = k == 0 ? 2049 : k == 1 ? 80 : 445;
        for (unsigned i = 0; !rc && i < o->count; i++) {
            if (k == 0)
                nfs(w, o, &req, &resp, i, &seed);
            else if (k == 1)
                http(w, o, &req, &resp, i, &seed);
            else
                cifs(w, o, &req, &resp, i, &seed);
        }
    }
    w->req = req.p, w->req_len = req.len;
    w->resp = resp.p, w->resp_len = resp.len;
    if (!rc && (req.oom || resp.oom))
        rc = cli_nomem("ddpwire tcprdma synth", "building the workload");
    if (rc)
        tw_free(w);
    return rc;
}

void tw_free(tw_work *w)
{
    free(w->req);
    free(w->resp);
    w->req = w->resp = NULL;
}
