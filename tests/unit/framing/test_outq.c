/* SPDX-License-Identifier: MIT */
/*
 * The output queue (outq.h): frames taken whole or refused with
 * DW_ERR_AGAIN at the limit (one frame alone may exceed it), their
 * octets copied (the caller's buffer reused at once), boundaries kept
 * across chunks, a frame sent in part finished first, everything given
 * up in any steps. (fuzz/fuzz_outq.c checks the same against a model.)
 */
#include <ddpwire/outq.h>

#include "test.h"

static uint8_t src[70000];

/* Concatenates what dw_outq_peek describes; returns the frames seen. */
static size_t drain_view(dw_outq *q, uint8_t *out, size_t *lens, size_t *octets)
{
    static struct iovec iov[512];
    dw_outq_span sp[64];
    size_t k = dw_outq_peek(q, iov, 512, sp, 64), at = 0;
    for (size_t f = 0; f < k; f++) {
        lens[f] = sp[f].len;
        for (size_t i = sp[f].iov; i < sp[f].iov + sp[f].iovcnt; i++) {
            memcpy(out + at, iov[i].iov_base, iov[i].iov_len);
            at += iov[i].iov_len;
        }
    }
    *octets = at;
    return k;
}

static void test_bounds(void)
{
    dw_outq_settings st = {1000, 1024, NULL};
    dw_outq *q;
    CHECK_EQ_U(dw_outq_new(&q, &st), 0);
    struct iovec big = {src, 5000}, small = {src, 600};
    CHECK(dw_outq_fits(q, 5000));
    CHECK_EQ_U(dw_outq_push(q, &big, 1, 0), 5000); /* alone, over the limit */
    CHECK(!dw_outq_fits(q, 1));
    CHECK_EQ_U(dw_outq_push(q, &small, 1, 0), DW_ERR_AGAIN);
    CHECK_EQ_U(dw_outq_octets(q), 5000);
    CHECK_EQ_U(dw_outq_consume(q, 5000), 0);
    CHECK_EQ_U(dw_outq_frames(q), 0);
    CHECK_EQ_U(dw_outq_push(q, &small, 1, 0), 600);
    CHECK_EQ_U(dw_outq_push(q, &small, 1, 0), DW_ERR_AGAIN); /* 1200 > 1000 */
    CHECK_EQ_U(dw_outq_push(q, &small, 1, 200), 400);       /* 1000: fits */
    CHECK_EQ_U(dw_outq_push(q, &small, 1, 600), 0);         /* all sent already */
    CHECK_EQ_U(dw_outq_frames(q), 2);
    CHECK_EQ_U(dw_outq_consume(q, 1001), DW_ERR_INVAL);
    CHECK_EQ_U(dw_outq_octets(q), 1000);
    dw_outq_del(q);
    dw_outq_del(NULL);
    st.chunk_size = 100;
    CHECK_EQ_U(dw_outq_new(&q, &st), DW_ERR_INVAL);
}

/* Frames of every size across 1 KiB chunks, a piece sent now and then:
 * the view is always the frames still queued, in order, octet for octet. */
static void test_order(void)
{
    uint64_t s = dw_test_seed();
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)dw_rand(&s);
    dw_outq_settings st = {1 << 20, 1024, NULL};
    dw_outq *q;
    CHECK_EQ_U(dw_outq_new(&q, &st), 0);
    static uint8_t model[1 << 21], view[1 << 21];
    size_t mlen = 0, mfirst = 0; /* the model: octets queued, from mfirst */
    size_t lens[64], flen[4096], fn = 0, f0 = 0, done0 = 0;
    for (int round = 0; round < 3000; round++) {
        if (dw_rand(&s) % 3) { /* push a frame of 1..3 pieces */
            struct iovec v[3];
            size_t n = 1 + dw_rand(&s) % 3, total = 0;
            for (size_t i = 0; i < n; i++) {
                size_t len = dw_rand(&s) % 5 ? dw_rand(&s) % 300 : dw_rand(&s) % 20000;
                size_t at = dw_rand(&s) % (sizeof src - len);
                v[i] = (struct iovec){src + at, len};
                total += len;
            }
            size_t skip = dw_rand(&s) % 4 ? 0 : dw_rand(&s) % (total + 1);
            ssize_t r = dw_outq_push(q, v, n, skip);
            if (r <= 0 || fn == 4096) {
                CHECK(r == 0 || r == DW_ERR_AGAIN);
                continue;
            }
            for (size_t i = 0, k = skip; i < n; i++) {
                size_t off = k < v[i].iov_len ? k : v[i].iov_len;
                memcpy(model + mlen, (uint8_t *)v[i].iov_base + off, v[i].iov_len - off);
                mlen += v[i].iov_len - off;
                k -= off;
            }
            flen[(f0 + fn++) % 4096] = (size_t)r;
        } else { /* the socket takes some */
            size_t c = dw_rand(&s) % (mlen - mfirst + 1);
            CHECK_EQ_U(dw_outq_consume(q, c), 0);
            mfirst += c;
            while (c) {
                size_t left = flen[f0] - done0, t = c < left ? c : left;
                done0 += t, c -= t;
                if (done0 == flen[f0])
                    f0 = (f0 + 1) % 4096, fn--, done0 = 0;
            }
            if (mfirst == mlen)
                mfirst = mlen = 0;
        }
        CHECK_EQ_U(dw_outq_octets(q), mlen - mfirst);
        CHECK_EQ_U(dw_outq_frames(q), fn);
        size_t got, k = drain_view(q, view, lens, &got);
        CHECK(k == (fn < 64 ? fn : 64) || got == 0);
        CHECK(!memcmp(view, model + mfirst, got));
        for (size_t i = 0; i < k; i++)
            CHECK_EQ_U(lens[i], flen[(f0 + i) % 4096] - (i ? 0 : done0));
        if (mlen > (1 << 20)) { /* keep the model in its buffer */
            memmove(model, model + mfirst, mlen - mfirst);
            mlen -= mfirst, mfirst = 0;
        }
    }
    dw_outq_del(q);
}

int main(void)
{
    RUN(test_bounds);
    RUN(test_order);
    return dw_test_finish();
}
