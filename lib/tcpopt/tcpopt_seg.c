/* SPDX-License-Identifier: MIT */
/* TCP RDMA option: sender segmentation (section 4). */
#include <ddpwire/tcpopt_seg.h>

#include <string.h>
#include "base/versioned.h"

DW_VERSIONS_1(tcpopt_seg_settings_v, dw_tcpopt_seg_settings, start_seq);

/*
 * The segmenter's state. The caller owns the storage (dw_tcpopt_seg, an
 * opaque block of DW_TCPOPT_SEG_WORDS words); it is copied in and out with
 * memcpy so no lvalue of this type ever aliases the caller's words.
 */
typedef struct seg_state {
    dw_tcpopt_seg_settings s;
    uint64_t stream_len;
    const dw_tcpopt_transfer *xfers;
    size_t nxfers;
    const uint64_t *msgs;
    size_t nmsgs;
    uint64_t pos;      /* next stream offset to send */
    size_t xi, ri, mi; /* current transfer, range, next message */
    uint64_t rbuf;     /* buffer offset of range ri's first octet */
    uint64_t total;    /* the current transfer's length */
} seg_state;

_Static_assert(sizeof(seg_state) <= sizeof(((dw_tcpopt_seg *)0)->opaque_),
               "dw_tcpopt_seg's storage holds the segmenter's state");
_Static_assert(_Alignof(seg_state) <= _Alignof(dw_tcpopt_seg),
               "dw_tcpopt_seg's storage is aligned for the segmenter's state");

static void tcpopt_seg_settings_fill(dw_tcpopt_seg_settings *s)
{
    s->mss = 1460;
    s->policy = DW_TCPOPT_SEG_MESSAGE;
    s->a_bit = 1;
    s->start_seq = 0;
}

int dw_tcpopt_seg_settings_default_versioned(int settings_version, dw_tcpopt_seg_settings *s)
{
    dw_tcpopt_seg_settings cur;
    tcpopt_seg_settings_fill(&cur);
    return DW_VERSIONED_OUT(s, cur, settings_version, tcpopt_seg_settings_v);
}

/* Octets of a transfer (the sum of its ranges). */
static uint64_t xfer_len(const dw_tcpopt_transfer *x)
{
    uint64_t n = 0;
    for (size_t i = 0; i < x->nranges; i++)
        n += x->ranges[i].length;
    return n;
}

/* Checks one transfer's ranges; *min_next is where the next range may start. */
static int check_xfer(const dw_tcpopt_transfer *x, uint64_t stream_len,
                      uint64_t *min_next)
{
    if (x->rid > DW_TCPOPT_RID_MAX || !x->ranges || !x->nranges)
        return DW_ERR_INVAL;
    uint64_t sum = 0;
    for (size_t i = 0; i < x->nranges; i++) {
        const dw_tcpopt_range *r = &x->ranges[i];
        if ((r->length == 0 && x->nranges != 1) || r->offset < *min_next ||
            r->offset > stream_len || r->length > stream_len - r->offset)
            return DW_ERR_INVAL;
        sum += r->length;
        if (sum > UINT32_MAX)
            return DW_ERR_INVAL;
        /* a zero-length range needs its own segment start: nothing else there */
        *min_next = r->offset + (r->length ? r->length : 1);
    }
    if ((uint64_t)x->buffer_offset + sum > (UINT64_C(1) << 32))
        return DW_ERR_INVAL;
    return 0;
}

static void enter_xfer(seg_state *sg)
{
    sg->ri = 0;
    if (sg->xi < sg->nxfers) {
        sg->rbuf = sg->xfers[sg->xi].buffer_offset;
        sg->total = xfer_len(&sg->xfers[sg->xi]);
    }
}

static int tcpopt_seg_init_latest(dw_tcpopt_seg *sg, const dw_tcpopt_seg_settings *s,
                                  uint64_t stream_len, const dw_tcpopt_transfer *xfers,
                                  size_t nxfers, const uint64_t *msgs, size_t nmsgs)
{
    if (!sg || !s || (!xfers && nxfers) || (!msgs && nmsgs) || s->mss < 1 ||
        s->mss > 65535 || (unsigned)s->policy > DW_TCPOPT_SEG_PACKED)
        return DW_ERR_INVAL;
    for (size_t i = 0; i < nmsgs; i++)
        if (msgs[i] > stream_len || (i && msgs[i] < msgs[i - 1]))
            return DW_ERR_INVAL;
    uint64_t min_next = 0;
    for (size_t i = 0; i < nxfers; i++)
        if (check_xfer(&xfers[i], stream_len, &min_next))
            return DW_ERR_INVAL;
    seg_state st = {.s = *s, .stream_len = stream_len, .xfers = xfers,
                    .nxfers = nxfers, .msgs = msgs, .nmsgs = nmsgs};
    enter_xfer(&st);
    memset(sg, 0, sizeof *sg);
    memcpy(sg->opaque_.words, &st, sizeof st);
    return 0;
}

int dw_tcpopt_seg_init_versioned(dw_tcpopt_seg *sg, int settings_version,
                                 const dw_tcpopt_seg_settings *s, uint64_t stream_len,
                                 const dw_tcpopt_transfer *xfers, size_t nxfers,
                                 const uint64_t *msgs, size_t nmsgs)
{
    dw_tcpopt_seg_settings s_cur;
    if (settings_version != DW_TCPOPT_SEG_SETTINGS_VERSION)
        dw_tcpopt_seg_settings_default(&s_cur);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, tcpopt_seg_settings_v, err);
    if (err)
        return err;
    return tcpopt_seg_init_latest(sg, s, stream_len, xfers, nxfers, msgs, nmsgs);
}

static const dw_tcpopt_range *cur_range(const seg_state *sg)
{
    return sg->xi < sg->nxfers ? &sg->xfers[sg->xi].ranges[sg->ri] : NULL;
}

static void next_range(seg_state *sg)
{
    sg->rbuf += sg->xfers[sg->xi].ranges[sg->ri].length;
    if (++sg->ri == sg->xfers[sg->xi].nranges) {
        sg->xi++;
        enter_xfer(sg);
    }
}

/* Fills the option for the data [dstart, dend) of the current range. */
static void describe(const seg_state *sg, dw_tcpopt_segment *out,
                     uint64_t dstart, uint64_t dend)
{
    const dw_tcpopt_transfer *x = &sg->xfers[sg->xi];
    dw_tcpopt *o = &out->opt;
    o->len = x->total_known ? DW_TCPOPT_LEN_TOTAL : DW_TCPOPT_LEN_DATA;
    o->u = x->unsolicited ? 1 : 0;
    o->rid = x->rid;
    o->buffer_offset = (uint32_t)(sg->rbuf + (dstart - cur_range(sg)->offset));
    o->data_offset = (uint16_t)(dstart - out->offset);
    o->data_length = (uint16_t)(dend - dstart);
    o->total_length = x->total_known ? (uint32_t)sg->total : 0;
    out->transfer = sg->xi;
}

/* Whether the segment [start, limit) carries range r. A zero-length range
 * at limit rides at the segment's end (3.1.2: data offset == payload
 * length), so that it stays with the message before it and one at the end
 * of the stream has a segment. */
static int carries(const dw_tcpopt_range *r, uint64_t limit)
{
    return r && (r->offset < limit || (!r->length && r->offset == limit));
}

static int next_seg(seg_state *sg, dw_tcpopt_segment *out)
{
    const dw_tcpopt_range *r = cur_range(sg);
    uint64_t start = sg->pos;
    if (start >= sg->stream_len)
        return r ? DW_ERR_INVAL : 0; /* a zero-length transfer left over */
    uint64_t limit = sg->stream_len - start > sg->s.mss ? start + sg->s.mss
                                                       : sg->stream_len;
    int msg_start = 0;
    for (; sg->mi < sg->nmsgs && sg->msgs[sg->mi] <= start; sg->mi++)
        msg_start |= sg->msgs[sg->mi] == start;
    if (sg->s.policy == DW_TCPOPT_SEG_MESSAGE && sg->mi < sg->nmsgs &&
        sg->msgs[sg->mi] < limit)
        limit = sg->msgs[sg->mi]; /* the first table: messages start segments */
    *out = (dw_tcpopt_segment){.offset = start, .transfer = SIZE_MAX,
                               .seq = sg->s.start_seq + (uint32_t)start};
    uint64_t end = limit;
    if (carries(r, limit)) { /* one range per segment (section 4) */
        uint64_t dstart = r->offset > start ? r->offset : start;
        uint64_t rend = r->offset + r->length;
        describe(sg, out, dstart, rend < limit ? rend : limit);
        if (rend <= limit) {
            next_range(sg);
            const dw_tcpopt_range *n = cur_range(sg);
            if (n && n->offset < limit)
                end = n->offset; /* stop before the next range */
        }
    }
    if (sg->s.a_bit && msg_start) {
        if (!out->opt.len)
            out->opt.len = DW_TCPOPT_LEN_ALIGNED; /* 3.1.6: A bit only */
        out->opt.a = 1;
    }
    out->len = (uint32_t)(end - start);
    sg->pos = end;
    return 1;
}

int dw_tcpopt_seg_next(dw_tcpopt_seg *sg, dw_tcpopt_segment *out)
{
    if (!sg || !out)
        return DW_ERR_INVAL;
    seg_state st;
    memcpy(&st, sg->opaque_.words, sizeof st);
    int rc = next_seg(&st, out);
    memcpy(sg->opaque_.words, &st, sizeof st);
    return rc;
}

static ssize_t tcpopt_segment_stream_latest(dw_tcpopt_segment *out, size_t cap,
                                            const dw_tcpopt_seg_settings *s,
                                            uint64_t stream_len,
                                            const dw_tcpopt_transfer *xfers, size_t nxfers,
                                            const uint64_t *msgs, size_t nmsgs)
{
    if (!out && cap)
        return DW_ERR_INVAL;
    dw_tcpopt_seg sg;
    int rc = dw_tcpopt_seg_init(&sg, s, stream_len, xfers, nxfers, msgs, nmsgs);
    if (rc)
        return rc;
    dw_tcpopt_segment tmp;
    ssize_t n = 0;
    while ((rc = dw_tcpopt_seg_next(&sg, &tmp)) == 1) {
        if (out) {
            if ((size_t)n == cap)
                return DW_ERR_NOSPACE;
            out[n] = tmp;
        }
        n++;
    }
    return rc ? rc : n;
}

ssize_t dw_tcpopt_segment_stream_versioned(dw_tcpopt_segment *out, size_t cap,
                                           int settings_version,
                                           const dw_tcpopt_seg_settings *s,
                                           uint64_t stream_len,
                                           const dw_tcpopt_transfer *xfers, size_t nxfers,
                                           const uint64_t *msgs, size_t nmsgs)
{
    dw_tcpopt_seg_settings s_cur;
    if (settings_version != DW_TCPOPT_SEG_SETTINGS_VERSION)
        dw_tcpopt_seg_settings_default(&s_cur);
    int err = 0;
    DW_VERSIONED_IN(s, s_cur, settings_version, tcpopt_seg_settings_v, err);
    if (err)
        return err;
    return tcpopt_segment_stream_latest(out, cap, s, stream_len, xfers, nxfers, msgs, nmsgs);
}
