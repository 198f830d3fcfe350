/* SPDX-License-Identifier: MIT */
/*
 * MPA conformance, the sender and the FPDU's layout: draft-culley-iwarp-mpa-01
 * sections 6 to 7.3.1 (the receiver's clauses, 5.2, 7.4, 8.1 and 9, are in
 * test_mpa_conformance_rx.c; the helpers in mpa_conf_util.h).
 *
 * One test per normative clause (or small group of clauses) that the other
 * MPA tests (test_mpa_vectors, test_mpa_roundtrip, test_mpa_corrupt) do not
 * already prove on their own. docs/CONFORMANCE.md maps every clause of
 * sections 5 to 9 to the test that proves it, here or elsewhere.
 *
 * Public API only (the ddpwire headers) plus tests/unit/mpa/mpa_util.h. Every check
 * compares exact octets or values; everything is deterministic.
 */
#include "mpa_conf_util.h"
/* ------------------------------------------------------------------ */
/* MPA 6, 6.1, 7.1, 7.2: the sender's octets equal an independent model */
/* ------------------------------------------------------------------ */

/* MPA 6 (FPDU format MUST be used), 6.1 (marker format MUST), 7.1 (marker
 * placement and FPDUPTR MUSTs), 7.2 (CRC coverage MUSTs): for 300 records
 * of mixed sizes at every phase, with markers on and off and both FPDUPTR
 * readings, the sender's octets equal ref_frame()'s. */
static void test_s6_s7_sender_matches_reference_model(void)
{
    uint64_t seed = 0xC0FFEE;
    size_t lens[300];
    for (size_t i = 0; i < 300; i++) {
        uint64_t r = dw_rand(&seed);
        lens[i] = r % 10 == 0 ? 1 + dw_rand(&seed) % 2000 : 1 + dw_rand(&seed) % 600;
    }
    lens[123] = DW_MPA_ULPDU_MAX; /* one record of the largest size */
    for (int markers = 0; markers < 2; markers++)
        for (int rfc = 0; rfc < 2; rfc++) {
            dw_mpa_tx *tx = tx_open(0, markers, 1,
                                    rfc ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT,
                                    1460, DW_MPA_SEG_ALIGNED);
            static dw_mpa_fpdu_info info[300];
            size_t total = build(tx, lens, 300, wire, info);
            size_t at = 0, bad = 0;
            for (size_t i = 0; i < 300; i++) {
                size_t l = ref_frame((uint32_t)at, payload(i), lens[i], markers,
                                     rfc, refw + at);
                bad += l != info[i].len;
                at += l;
            }
            CHECK_EQ_U(bad, 0);
            CHECK_EQ_U(at, total);
            CHECK(memcmp(wire, refw, total) == 0);
            dw_mpa_tx_del(tx);
        }
}

/* ------------------------------------------------------------------ */
/* MPA 6: FPDU format, ULPDU_Length, PAD                               */
/* ------------------------------------------------------------------ */

/* MPA 6: ULPDU_Length is the ULPDU's octet count; it excludes the header,
 * the PAD, the CRC and any markers within the ULPDU. Exact layout of a
 * 1000-octet ULPDU at the stream start (leading marker, one marker inside,
 * 2 PAD octets). */
static void test_s6_ulpdu_length_excludes_overhead(void)
{
    uint8_t exp[1016];
    const uint8_t *u = payload(0);
    memset(exp, 0, sizeof exp);
    exp[4] = 0x03, exp[5] = 0xe8;            /* ULPDU_Length 1000 */
    memcpy(exp + 6, u, 506);                 /* ULPDU octets 0..505 */
    exp[512 + 2] = 0x02, exp[512 + 3] = 0x00; /* marker, FPDUPTR 512 */
    memcpy(exp + 516, u + 506, 494);         /* ULPDU octets 506..999 */
    /* 1010..1011 PAD (zero) */
    dw_crc32c_store(exp + 1012, dw_crc32c(0, exp, 1012));

    dw_mpa_tx *tx = tx_default();
    dw_mpa_fpdu_info info;
    size_t lens[1] = {1000};
    size_t n = build(tx, lens, 1, wire, &info);
    CHECK_EQ_U(n, 1016);
    CHECK_EQ_U(info.markers, 2);
    CHECK_EQ_U(be16(wire + 4), 1000);
    CHECK(memcmp(wire, exp, sizeof exp) == 0);
    dw_mpa_tx_del(tx);

    /* and without markers: length, ULPDU, PAD, CRC; a multiple of 4 */
    for (size_t len = 1; len <= 12; len++) {
        tx = tx_open(0, 0, 1, DW_MPA_PTR_DRAFT, 1460, DW_MPA_SEG_ALIGNED);
        size_t l1[1] = {len};
        n = build(tx, l1, 1, wire, &info);
        size_t pad = (4 - (2 + len) % 4) % 4;
        CHECK_EQ_U(n, 2 + len + pad + 4);
        CHECK_EQ_U(n % 4, 0);
        CHECK_EQ_U(be16(wire), len);
        CHECK(memcmp(wire + 2, payload(0), len) == 0);
        CHECK_EQ_U(dw_crc32c_load(wire + n - 4), dw_crc32c(0, wire, n - 4));
        dw_mpa_tx_del(tx);
    }
}

/* MPA 6: PAD octets MUST be set to zero by the sender, in both framing
 * paths, whatever the output buffer held before (also a PAD that ends
 * right before a marker). */
static void test_s6_pad_zero_on_send(void)
{
    static const size_t lens[9] = {505, 1, 2, 3, 4, 5, 6, 7, 8};
    for (int into = 0; into < 2; into++) {
        dw_mpa_tx *tx = tx_default();
        dw_mpa_fpdu_info info[9];
        memset(wire, 0xEE, 4096);
        size_t at = 0;
        if (into) {
            for (size_t i = 0; i < 9; i++) {
                ssize_t r = dw_mpa_tx_frame_into(tx, payload(i), lens[i], wire + at,
                                                 WCAP - at, &info[i]);
                CHECK(r > 0);
                at += (size_t)r;
            }
        } else {
            static struct iovec iov[DW_MPA_FPDU_IOV_MAX];
            for (size_t i = 0; i < 9; i++) {
                ssize_t r = dw_mpa_tx_frame(tx, payload(i), lens[i], iov,
                                            DW_MPA_FPDU_IOV_MAX, &info[i]);
                CHECK(r > 0);
                for (size_t k = 0; k < info[i].iovcnt; k++) {
                    memcpy(wire + at, iov[k].iov_base, iov[k].iov_len);
                    at += iov[k].iov_len;
                }
            }
        }
        size_t pads = 0;
        for (size_t i = 0; i < 9; i++) {
            size_t lead = info[i].pos % 512 == 0 ? 4 : 0;
            size_t p0 = info[i].pos + lead + 2 + lens[i];
            size_t pad = (4 - (2 + lens[i]) % 4) % 4;
            for (size_t k = 0; k < pad; k++, pads++)
                CHECK_EQ_U(wire[p0 + k], 0);
        }
        CHECK_EQ_U(pads, 1 + 1 + 0 + 3 + 2 + 1 + 0 + 3 + 2);
        CHECK_EQ_U(info[0].len, 520); /* 505: PAD ends at 512, marker, CRC */
        dw_mpa_tx_del(tx);
    }
}

/* MPA 6: PAD is ignored by the receiver except for CRC checking: non-zero
 * PAD octets with a CRC recomputed over them are accepted and the ULPDUs
 * delivered unchanged; with the old CRC the FPDU is invalid (code 2). */
static void test_s6_pad_ignored_on_receive(void)
{
    static const size_t lens[4] = {505, 5, 4, 3}; /* PAD 1 (before a marker), 1, 2, 3 */
    dw_mpa_fpdu_info info[4];
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, lens, 4, wire, info);
    dw_mpa_tx_del(tx);
    CHECK_EQ_U(total, 556);
    memcpy(wire2, wire, total);
    static const uint8_t junk[3] = {0xFF, 0x80, 0x01};
    for (size_t i = 0; i < 4; i++) {
        size_t lead = info[i].pos % 512 == 0 ? 4 : 0;
        size_t p0 = info[i].pos + lead + 2 + lens[i];
        size_t pad = (4 - (2 + lens[i]) % 4) % 4;
        CHECK(pad > 0);
        memcpy(wire2 + p0, junk, pad);
        fix_crc(wire2, info[i].pos, info[i].pos + info[i].len);
    }
    CHECK(memcmp(wire, wire2, total) != 0);
    static const size_t pieces[] = {0, 1, 7};
    for (size_t pc = 0; pc < 3; pc++)
        for (int place = 0; place < 2; place++) {
            coll c;
            dw_mpa_rx *rx = rx_open(&c, 0, 1, 1, 1, place);
            CHECK(feed(rx, wire2, total, pieces[pc]) == 0);
            expect_records(&c, lens, 4, info);
            rx_close_free(rx, &c);
        }
    /* PAD changed, CRC not recomputed: invalid FPDU */
    memcpy(wire2, wire, total);
    wire2[info[2].pos + 2 + 4] ^= 0x10; /* FPDU 2's first PAD octet */
    coll c;
    dw_mpa_rx *rx = rx_default(&c);
    CHECK(feed(rx, wire2, total, 0) == DW_ERR_PROTO);
    CHECK(c.n == 2 && c.errs == 1 && c.e.code == DW_MPA_ERR_CRC);
    CHECK_EQ_U(c.e.offset, info[2].pos);
    rx_close_free(rx, &c);
}

/* ------------------------------------------------------------------ */
/* MPA 6.1: marker format                                              */
/* ------------------------------------------------------------------ */

/* The marker tests' stream (mk_build: records {505, 1500, 20}): FPDU 0
 * at 0 (leading marker, marker at 512 after its PAD), FPDU 1 at 520
 * (markers at 1024 and 1536), FPDU 2 at 2036 (marker at 2048). */
static const size_t mk_pos[5] = {0, 512, 1024, 1536, 2048};
static const uint16_t mk_ptr[5] = {0, 512, 504, 1016, 12};

/* MPA 6.1: RESERVED MUST be zero on transmit and ignored on receive except
 * for the CRC: every marker of the stream has RESERVED 0 and the expected
 * FPDUPTR; with non-zero RESERVED octets and recomputed CRCs the stream is
 * accepted unchanged; without the recomputation it is a CRC error. */
static void test_s61_marker_reserved_zero_sent_ignored_received(void)
{
    dw_mpa_fpdu_info info[3];
    size_t total = mk_build(info);
    for (size_t k = 0; k < 5; k++) {
        CHECK_EQ_U(be32(wire + mk_pos[k]), mk_ptr[k]); /* RESERVED 0, FPDUPTR */
    }
    memcpy(wire2, wire, total);
    for (size_t k = 0; k < 5; k++) {
        wire2[mk_pos[k]] = 0xA5;
        wire2[mk_pos[k] + 1] = (uint8_t)(0x5A + k);
    }
    for (size_t i = 0; i < 3; i++)
        fix_crc(wire2, info[i].pos, info[i].pos + info[i].len);
    static const size_t pieces[] = {0, 1, 5, 513};
    for (size_t pc = 0; pc < 4; pc++)
        for (int place = 0; place < 2; place++) {
            coll c;
            dw_mpa_rx *rx = rx_open(&c, 0, 1, 1, 1, place);
            CHECK(feed(rx, wire2, total, pieces[pc]) == 0);
            expect_records(&c, mk_lens, 3, info);
            rx_close_free(rx, &c);
        }
    /* MPA 7.1: FPDUPTR's low two bits are reserved too (sent 0, treated as
     * 0 on receive; test_mpa_corrupt:test_marker_disagrees also covers) */
    for (size_t k = 0; k < 5; k++)
        CHECK_EQ_U(wire[mk_pos[k] + 3] & 3, 0);
    memcpy(wire2, wire, total);
    for (size_t k = 0; k < 5; k++)
        wire2[mk_pos[k] + 3] |= (uint8_t)(1 + k % 3);
    for (size_t i = 0; i < 3; i++)
        fix_crc(wire2, info[i].pos, info[i].pos + info[i].len);
    for (size_t pc = 0; pc < 2; pc++) {
        coll c;
        dw_mpa_rx *rx = rx_default(&c);
        CHECK(feed(rx, wire2, total, pc) == 0);
        expect_records(&c, mk_lens, 3, info);
        rx_close_free(rx, &c);
    }
    /* RESERVED changed in the marker at 1024 only, CRC left: code 2 */
    memcpy(wire2, wire, total);
    wire2[1024] = 0x01;
    coll c;
    dw_mpa_rx *rx = rx_default(&c);
    CHECK(feed(rx, wire2, total, 3) == DW_ERR_PROTO);
    CHECK(c.n == 1 && c.errs == 1 && c.e.code == DW_MPA_ERR_CRC);
    CHECK_EQ_U(c.e.offset, 520);
    rx_close_free(rx, &c);
}

/* ------------------------------------------------------------------ */
/* MPA 7.1: markers                                                    */
/* ------------------------------------------------------------------ */

/* MPA 7.1: markers MUST be inserted immediately after MPA starts and at
 * every 512th octet thereafter, counted from the first MPA octet and not
 * from TCP sequence 0. The draft's example: MPA starts at sequence 11, so
 * markers begin at 11, 523, 1035. The octets do not depend on start_seq. */
static void test_s71_markers_every_512_from_mpa_start(void)
{
    static const size_t lens[3] = {400, 400, 400};
    dw_mpa_fpdu_info info[3];
    dw_mpa_tx *tx = tx_open(11, 1, 1, DW_MPA_PTR_DRAFT, 1460, DW_MPA_SEG_ALIGNED);
    size_t total = build(tx, lens, 3, wire, info);
    dw_mpa_tx_del(tx);
    CHECK_EQ_U(total, 1236);
    /* FPDUs at MPA positions 0, 412, 824 = sequence numbers 11, 423, 835 */
    CHECK(info[0].pos == 0 && info[1].pos == 412 && info[2].pos == 824);
    CHECK_EQ_U(info[0].seq, 11);
    CHECK_EQ_U(info[1].seq, 423);
    CHECK_EQ_U(info[2].seq, 835);
    CHECK(info[0].markers == 1 && info[1].markers == 1 && info[2].markers == 1);
    /* the markers: MPA positions 0, 512, 1024 = sequence 11, 523, 1035 */
    static const uint32_t mseq[3] = {11, 523, 1035};
    static const uint32_t mval[3] = {0, 512 - 412, 1024 - 824};
    for (size_t k = 0; k < 3; k++) {
        size_t m = mseq[k] - info[0].seq; /* MPA position of the marker */
        CHECK_EQ_U(m, 512 * k);
        CHECK_EQ_U(be32(wire + m), mval[k]);
    }
    /* the same octets for any TCP start sequence */
    static const uint32_t starts[] = {0, 512, 0x80000001u, 0xFFFFFFFFu};
    for (size_t s = 0; s < 4; s++) {
        dw_mpa_fpdu_info i2[3];
        tx = tx_open(starts[s], 1, 1, DW_MPA_PTR_DRAFT, 1460, DW_MPA_SEG_ALIGNED);
        CHECK_EQ_U(build(tx, lens, 3, wire2, i2), total);
        CHECK(memcmp(wire, wire2, total) == 0);
        CHECK_EQ_U(i2[2].seq, starts[s] + 824u);
        dw_mpa_tx_del(tx);
    }
    /* the receiver finds them the same way; start_seq only labels */
    for (int s = 0; s < 2; s++) {
        coll c;
        dw_mpa_rx *rx = rx_open(&c, s ? 0x12345u : 11, 1, 1, 1, 0);
        CHECK(feed(rx, wire, total, 100) == 0);
        expect_records(&c, lens, 3, info);
        CHECK(dw_mpa_rx_close(rx, DW_CLOSE_FIN) == 0);
        CHECK_EQ_U(c.e.seq, (s ? 0x12345u : 11u) + 1236u);
        rx_close_free(rx, &c);
    }
}

/* MPA 7.1: sequence numbers wrap; positions count from the MPA start
 * modulo 2^32, so a start near 2^32 changes nothing but the labels. */
static void test_s71_sequence_wrap(void)
{
    static const size_t lens[3] = {300, 300, 300};
    dw_mpa_fpdu_info info[3];
    dw_mpa_tx *tx = tx_open(0xFFFFFF00u, 1, 1, DW_MPA_PTR_DRAFT, 1460,
                            DW_MPA_SEG_ALIGNED);
    size_t total = build(tx, lens, 3, wire, info);
    dw_mpa_tx_del(tx);
    CHECK_EQ_U(total, 932);
    CHECK_EQ_U(info[0].seq, 0xFFFFFF00u);
    CHECK_EQ_U(info[1].seq, 0x38u); /* 0xFFFFFF00 + 312, wrapped */
    CHECK_EQ_U(info[2].seq, 0x170u);
    CHECK_EQ_U(be32(wire + 512), 512 - 312); /* marker at sequence 0x100 */
    coll c;
    dw_mpa_rx *rx = rx_open(&c, 0xFFFFFF00u, 1, 1, 1, 0);
    CHECK(feed(rx, wire, total, 0) == 0);
    expect_records(&c, lens, 3, info);
    CHECK(dw_mpa_rx_close(rx, DW_CLOSE_FIN) == 0);
    CHECK_EQ_U(c.e.seq, 0x2A4u); /* 0xFFFFFF00 + 932 mod 2^32 */
    rx_close_free(rx, &c);
    /* a CRC error in FPDU 1 is labelled with its wrapped sequence number */
    memcpy(wire2, wire, total);
    wire2[info[1].pos + 10] ^= 1;
    rx = rx_open(&c, 0xFFFFFF00u, 1, 1, 1, 0);
    CHECK(feed(rx, wire2, total, 0) == DW_ERR_PROTO);
    CHECK(c.errs == 1 && c.e.code == DW_MPA_ERR_CRC && c.e.seq == 0x38u);
    rx_close_free(rx, &c);
}

/* MPA 7.1: if an FPDU contains several markers they MUST all point to the
 * same octet, the first octet of the FPDU (both readings agree when the
 * FPDU does not begin with a marker). For an FPDU led by a marker the
 * draft's reading points at that marker, RFC 5044's at ULPDU_Length; the
 * receiver accepts both and nothing else. */
static void test_s71_markers_in_one_fpdu_point_to_its_start(void)
{
    static const size_t lens[2] = {100, 2000};
    for (int rfc = 0; rfc < 2; rfc++) {
        dw_mpa_fpdu_info info[2];
        dw_mpa_tx *tx = tx_open(0, 1, 1, rfc ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT,
                                1460, DW_MPA_SEG_ALIGNED);
        size_t total = build(tx, lens, 2, wire, info);
        dw_mpa_tx_del(tx);
        CHECK_EQ_U(total, 2136);
        CHECK(info[1].pos == 112 && info[1].markers == 4 && info[1].len == 2024);
        for (uint32_t m = 512; m <= 2048; m += 512)
            CHECK_EQ_U(be32(wire + m), m - 112); /* 400, 912, 1424, 1936 */
    }
    /* led by a marker: 3000 octets at position 0, markers 0, 512 .. 2560 */
    for (int rfc = 0; rfc < 2; rfc++) {
        dw_mpa_fpdu_info info;
        size_t l1[1] = {3000};
        dw_mpa_tx *tx = tx_open(0, 1, 1, rfc ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT,
                                1460, DW_MPA_SEG_ALIGNED);
        size_t total = build(tx, l1, 1, wire, &info);
        dw_mpa_tx_del(tx);
        CHECK(total == 3032 && info.markers == 6);
        CHECK_EQ_U(be32(wire), 0);
        for (uint32_t m = 512; m <= 2560; m += 512)
            CHECK_EQ_U(be32(wire + m), rfc ? m - 4 : m);
        /* accepted as sent */
        coll c;
        dw_mpa_rx *rx = rx_default(&c);
        CHECK(feed(rx, wire, total, 0) == 0);
        expect_records(&c, l1, 1, &info);
        rx_close_free(rx, &c);
        /* one marker pointing elsewhere (8 before the FPDU, or 0): code 3 */
        for (int v = 0; v < 2; v++) {
            memcpy(wire2, wire, total);
            wire2[1024 + 2] = v ? 0 : 0x04, wire2[1024 + 3] = v ? 0 : 0x08;
            fix_crc(wire2, 0, total);
            rx = rx_default(&c);
            CHECK(feed(rx, wire2, total, 1 + 300 * (size_t)v) == DW_ERR_PROTO);
            CHECK(c.n == 0 && c.errs == 1 && c.e.code == DW_MPA_ERR_MARKER);
            rx_close_free(rx, &c);
        }
    }
}

/* MPA 7.1: when a marker interval holds several small FPDUs, the marker
 * MUST point to the start of the FPDU containing it, or be zero (and lead
 * the next FPDU, covered by its CRC) when it falls between FPDUs. Three
 * layouts: (A) FPDUs of 16 octets ending exactly at 512; (B) an FPDU at 500
 * holding the marker right before its CRC; (C) the draft's Figure 4. */
static void test_s71_small_fpdus_in_one_interval(void)
{
    size_t lens[41];
    dw_mpa_fpdu_info info[41];
    /* (A) first ULPDU 6 (16-octet FPDU with its leading marker), then 10s */
    lens[0] = 6;
    for (size_t i = 1; i < 41; i++)
        lens[i] = 10;
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, lens, 41, wire, info);
    dw_mpa_tx_del(tx);
    CHECK(info[31].pos == 496 && info[31].len == 16 && info[31].markers == 0);
    CHECK(info[32].pos == 512 && info[32].len == 20 && info[32].markers == 1);
    CHECK_EQ_U(be32(wire + 512), 0);                 /* between FPDUs: zero */
    CHECK_EQ_U(be16(wire + 516), 10);                /* a header follows it */
    CHECK_EQ_U(dw_crc32c_load(wire + 528), dw_crc32c(0, wire + 512, 16));
    CHECK_EQ_U(dw_crc32c_load(wire + 508), dw_crc32c(0, wire + 496, 12));
    coll c;
    dw_mpa_rx *rx = rx_default(&c);
    CHECK(feed(rx, wire, total, 0) == 0);
    expect_records(&c, lens, 41, info); /* FPDU 32 reported at 512 */
    rx_close_free(rx, &c);

    /* (B) all 10s: FPDU 31 at 500 holds the marker at 512 before its CRC */
    lens[0] = 10;
    tx = tx_default();
    total = build(tx, lens, 41, wire, info);
    dw_mpa_tx_del(tx);
    CHECK(info[30].pos == 484 && info[30].markers == 0);
    CHECK(info[31].pos == 500 && info[31].len == 20 && info[31].markers == 1);
    CHECK_EQ_U(be32(wire + 512), 12);
    CHECK_EQ_U(dw_crc32c_load(wire + 516), dw_crc32c(0, wire + 500, 16));
    CHECK(info[32].pos == 520 && info[32].markers == 0);
    rx = rx_default(&c);
    CHECK(feed(rx, wire, total, 1) == 0);
    expect_records(&c, lens, 41, info);
    rx_close_free(rx, &c);

    /* (C) Figure 4: ULPDU_Length 0x0010, ULPDU 0-9, marker with FPDUPTR
     * 0x000C, ULPDU 10-15, 2 PAD octets, CRC. */
    uint8_t first[490], u16[16], out[600];
    memset(first, 0x33, sizeof first);
    for (int i = 0; i < 16; i++)
        u16[i] = (uint8_t)(0xA0 + i);
    tx = tx_default();
    CHECK_EQ_U(dw_mpa_tx_frame_into(tx, first, sizeof first, out, sizeof out, NULL), 500);
    dw_mpa_fpdu_info fi;
    CHECK_EQ_U(dw_mpa_tx_frame_into(tx, u16, 16, out + 500, 100, &fi), 28);
    dw_mpa_tx_del(tx);
    uint8_t fig4[28] = {0x00, 0x10};
    memcpy(fig4 + 2, u16, 10);
    fig4[12] = 0, fig4[13] = 0, fig4[14] = 0x00, fig4[15] = 0x0C;
    memcpy(fig4 + 16, u16 + 10, 6);
    fig4[22] = 0, fig4[23] = 0;
    dw_crc32c_store(fig4 + 24, dw_crc32c(0, fig4, 24));
    CHECK(fi.pos == 500 && fi.markers == 1);
    CHECK(memcmp(out + 500, fig4, 28) == 0);
}

/* MPA 7.1: receivers MUST preserve ULPDU boundaries and MUST pass the ULPDU
 * data and its length to the ULP, not the markers, headers or CRC; MPA 5.2:
 * MPA MUST pass each ULPDU with its length once validated. Records whose
 * FPDUs hold from none to over 120 markers, fed whole, octet by octet and in
 * odd pieces, into the receiver's buffer and into a caller's buffer. */
static void test_s71_rx_delivers_ulpdu_without_markers(void)
{
    static const size_t lens[7] = {490, 16, 3000, 1, 505, DW_MPA_ULPDU_MAX, 2};
    dw_mpa_fpdu_info info[7];
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, lens, 7, wire, info);
    dw_mpa_tx_del(tx);
    CHECK(info[5].markers >= 126);
    static const size_t pieces[] = {0, 1, 3, 511, 4096};
    for (size_t pc = 0; pc < 5; pc++)
        for (int place = 0; place < 2; place++) {
            coll c;
            dw_mpa_rx *rx = rx_open(&c, 0, 1, 1, 1, place);
            CHECK(feed(rx, wire, total, pieces[pc]) == 0);
            expect_records(&c, lens, 7, info); /* lengths, offsets, octets */
            CHECK_EQ_U(dw_mpa_rx_offset(rx), total);
            rx_close_free(rx, &c);
        }
}

/* ------------------------------------------------------------------ */
/* MPA 7.2: CRC                                                         */
/* ------------------------------------------------------------------ */

/* MPA 7.2: the sender MUST include a valid CRC computed as iSCSI's digest
 * over the FPDU from its first octet (the leading marker when it has one,
 * else ULPDU_Length) through the PAD, markers included, and a marker right
 * after the PAD; the value goes in the CRC field at the end (least
 * significant octet first). The marker after FPDU 0's PAD belongs to FPDU 0:
 * changing it is a CRC error of FPDU 0, not of FPDU 1. */
static void test_s72_crc_covers_fpdu_and_its_markers(void)
{
    static const size_t lens[7] = {505, 1500, 20, 6, 1, DW_MPA_ULPDU_MAX, 3};
    dw_mpa_fpdu_info info[7];
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, lens, 7, wire, info);
    dw_mpa_tx_del(tx);
    for (size_t i = 0; i < 7; i++) {
        size_t s = info[i].pos, e = s + info[i].len;
        uint32_t crc = dw_crc32c(0, wire + s, info[i].len - 4);
        CHECK_EQ_U(wire[e - 4], crc & 0xff);
        CHECK_EQ_U(wire[e - 3], (crc >> 8) & 0xff);
        CHECK_EQ_U(wire[e - 2], (crc >> 16) & 0xff);
        CHECK_EQ_U(wire[e - 1], crc >> 24);
    }
    CHECK_EQ_U(info[0].len, 520); /* 0..511 marker+FPDU, 512 marker, 516 CRC */
    CHECK_EQ_U(dw_crc32c_load(wire + 516), dw_crc32c(0, wire, 516));
    memcpy(wire2, wire, total);
    wire2[512] ^= 0x80; /* RESERVED of the marker after FPDU 0's PAD */
    coll c;
    dw_mpa_rx *rx = rx_default(&c);
    CHECK(feed(rx, wire2, total, 0) == DW_ERR_PROTO);
    CHECK(c.n == 0 && c.errs == 1 && c.e.code == DW_MPA_ERR_CRC && c.e.offset == 0);
    rx_close_free(rx, &c);
}

/* MPA 7.2: the receiver MUST calculate the CRC the same way and treat an
 * FPDU whose CRC field differs as invalid: each of the 32 single-bit
 * errors in the CRC field of every FPDU of the marker stream is caught,
 * and the FPDU is not delivered. */
static void test_s72_rx_checks_crc_field(void)
{
    dw_mpa_fpdu_info info[3];
    size_t total = mk_build(info);
    for (size_t i = 0; i < 3; i++)
        for (int bit = 0; bit < 32; bit++) {
            memcpy(wire2, wire, total);
            wire2[info[i].pos + info[i].len - 4 + (size_t)bit / 8] ^=
                (uint8_t)(1u << (bit % 8));
            coll c;
            dw_mpa_rx *rx = rx_default(&c);
            CHECK(feed(rx, wire2, total, bit % 2 ? 1 : 0) == DW_ERR_PROTO);
            CHECK_EQ_U(c.n, i);
            CHECK(c.errs == 1 && c.e.code == DW_MPA_ERR_CRC);
            CHECK_EQ_U(c.e.offset, info[i].pos);
            rx_close_free(rx, &c);
        }
}

/* ------------------------------------------------------------------ */
/* MPA 7.3, 7.3.1: sender segmentation and FPDU size                   */
/* ------------------------------------------------------------------ */

/* MPA 7.3: MPA MUST encapsulate exactly one ULPDU in one FPDU: each frame
 * call yields one FPDU whose ULPDU_Length is that ULPDU's length, and a
 * stream of 60 FPDUs handed over in one piece (a packed segment) gives 60
 * separate deliveries. */
static void test_s73_one_ulpdu_per_fpdu(void)
{
    uint64_t seed = 77;
    size_t lens[60];
    for (size_t i = 0; i < 60; i++)
        lens[i] = 1 + dw_rand(&seed) % (i % 7 ? 300 : 3000);
    dw_mpa_fpdu_info info[60];
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, lens, 60, wire, info);
    dw_mpa_tx_del(tx);
    size_t sum = 0;
    for (size_t i = 0; i < 60; i++) {
        size_t lead = info[i].pos % 512 == 0 ? 4 : 0;
        CHECK_EQ_U(be16(wire + info[i].pos + lead), lens[i]);
        CHECK_EQ_U(info[i].len, dw_mpa_fpdu_len(info[i].pos, lens[i], 1));
        sum += info[i].len;
    }
    CHECK_EQ_U(sum, total);
    coll c;
    dw_mpa_rx *rx = rx_default(&c);
    CHECK(dw_mpa_rx_feed(rx, wire, total) == (ssize_t)total);
    expect_records(&c, lens, 60, info);
    rx_close_free(rx, &c);
}

/* MPA 7.3: the sender MUST format every FPDU as in Figure 2 even when it
 * cannot follow the segmentation rule (7.3.1: EMSS below the FPDU size):
 * the octets never depend on EMSS or on the segmentation mode. */
static void test_s73_format_independent_of_emss(void)
{
    static const size_t lens[3] = {3000, 128, 700};
    static const uint32_t emss[] = {100, 536, 1460, 9000, 65535};
    dw_mpa_fpdu_info ref[3];
    dw_mpa_tx *tx = tx_default();
    size_t total = build(tx, lens, 3, wire, ref);
    dw_mpa_tx_del(tx);
    for (size_t e = 0; e < 5; e++)
        for (int packed = 0; packed < 2; packed++) {
            dw_mpa_fpdu_info info[3];
            tx = tx_open(0, 1, 1, DW_MPA_PTR_DRAFT, emss[e],
                         packed ? DW_MPA_SEG_PACKED : DW_MPA_SEG_ALIGNED);
            CHECK_EQ_U(build(tx, lens, 3, wire2, info), total);
            CHECK(memcmp(wire, wire2, total) == 0);
            CHECK(info[0].new_segment); /* the first FPDU starts a segment */
            dw_mpa_tx_del(tx);
        }
    /* EMSS 100: MULPDU stays 128 and a 128-octet FPDU is longer than EMSS */
    tx = tx_open(0, 1, 1, DW_MPA_PTR_DRAFT, 100, DW_MPA_SEG_ALIGNED);
    CHECK_EQ_U(dw_mpa_tx_mulpdu(tx), 128);
    dw_mpa_tx_del(tx);
    CHECK(ref[1].len > 100);
}

/* MPA 7.3.1 (and 5.2): MULPDU = EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS
 * mod 4), never below 128, and MULPDU values MUST lie in 128..64768: every
 * EMSS from 0 to 70000, computed here from the formula. */
static void test_s731_mulpdu_formula_and_range(void)
{
    size_t bad = 0, out_of_range = 0;
    for (uint32_t e = 0; e <= 70000; e++)
        for (int mk = 0; mk < 2; mk++) {
            int64_t f = (int64_t)e - (6 + (mk ? 4 * (((int64_t)e + 511) / 512) : 0) + e % 4);
            int64_t want = f < 128 ? 128 : f > 64768 ? 64768 : f;
            uint32_t got = dw_mpa_mulpdu(e, mk);
            bad += got != (uint32_t)want;
            out_of_range += got < 128 || got > 64768;
        }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(out_of_range, 0);
    CHECK_EQ_U(dw_mpa_mulpdu(0xFFFFFFFFu, 1), 64768);
    CHECK_EQ_U(dw_mpa_mulpdu(138, 1), 128); /* 138 - (6 + 4 + 2) = 126 */
    CHECK_EQ_U(dw_mpa_mulpdu(140, 1), 130); /* 140 - (6 + 4 + 0) */
    CHECK_EQ_U(dw_mpa_mulpdu(512, 1), 502); /* 512 - (6 + 4 + 0) */
    CHECK_EQ_U(dw_mpa_mulpdu(513, 1), 498); /* 513 - (6 + 8 + 1) */
}

/* MPA 7.3.1: when EMSS changes (path MTU), MULPDU changes with it; the
 * sender follows dw_mpa_tx_set_emss() at once, refuses EMSS 0, and (5.2:
 * the ULP MAY post 1..64768 octets, MPA NOT REQUIRED to support more than
 * MULPDU) still frames ULPDUs above MULPDU. */
static void test_s731_emss_change_changes_mulpdu(void)
{
    static const struct {
        uint32_t emss, mk, mnomk;
    } t[] = {{1460, 1442, 1454}, {9000, 8922, 8994}, {576, 562, 570},
             {1461, 1442, 1454}, {100, 128, 128},    {65535, 64768, 64768}};
    for (int mk = 0; mk < 2; mk++) {
        dw_mpa_tx *tx = tx_open(0, mk, 1, DW_MPA_PTR_DRAFT, 1460, DW_MPA_SEG_ALIGNED);
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
            DW_CASE_HERE("t[%zu]", i);
            CHECK(dw_mpa_tx_set_emss(tx, t[i].emss) == 0);
            CHECK_EQ_U(dw_mpa_tx_mulpdu(tx), mk ? t[i].mk : t[i].mnomk);
            CHECK_EQ_U(dw_mpa_tx_mulpdu(tx), dw_mpa_mulpdu(t[i].emss, mk));
        }
        CHECK(dw_mpa_tx_set_emss(tx, 536) == 0);
        uint32_t m = dw_mpa_tx_mulpdu(tx);
        CHECK_EQ_U(m, mk ? 522 : 530);
        CHECK_EQ_U(dw_mpa_tx_set_emss(tx, 0), DW_ERR_INVAL);
        CHECK_EQ_U(dw_mpa_tx_mulpdu(tx), m); /* unchanged */
        static const size_t lens[5] = {1, 522, 523, 4000, DW_MPA_ULPDU_MAX};
        dw_mpa_fpdu_info info[5];
        size_t total = build(tx, lens, 5, wire, info);
        dw_mpa_tx_del(tx);
        coll c;
        dw_mpa_rx *rx = rx_open(&c, 0, mk, 1, 1, 0);
        CHECK(feed(rx, wire, total, 0) == 0);
        expect_records(&c, lens, 5, info);
        rx_close_free(rx, &c);
    }
}

int main(void)
{
    pat_init();
    RUN(test_s6_s7_sender_matches_reference_model);
    RUN(test_s6_ulpdu_length_excludes_overhead);
    RUN(test_s6_pad_zero_on_send);
    RUN(test_s6_pad_ignored_on_receive);
    RUN(test_s61_marker_reserved_zero_sent_ignored_received);
    RUN(test_s71_markers_every_512_from_mpa_start);
    RUN(test_s71_sequence_wrap);
    RUN(test_s71_markers_in_one_fpdu_point_to_its_start);
    RUN(test_s71_small_fpdus_in_one_interval);
    RUN(test_s71_rx_delivers_ulpdu_without_markers);
    RUN(test_s72_crc_covers_fpdu_and_its_markers);
    RUN(test_s72_rx_checks_crc_field);
    RUN(test_s73_one_ulpdu_per_fpdu);
    RUN(test_s73_format_independent_of_emss);
    RUN(test_s731_mulpdu_formula_and_range);
    RUN(test_s731_emss_change_changes_mulpdu);
    return dw_test_finish();
}
