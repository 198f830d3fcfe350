/* SPDX-License-Identifier: MIT */
/* NVMe-oF RDMA codecs against the bytes Linux 6.1's nvme-rdma host and
 * nvmet-rdma target exchanged over siw (tests/data/siw_storage/
 * nvmeof_mtu1500_nocrc.pcap; frame numbers as tshark counts them). */
#include <ddpwire/nvmeof.h>

#include "test.h"

static size_t unhex(uint8_t *out, const char *h)
{
    size_t n = 0;
    for (; h[0] && h[1]; h += 2)
        sscanf(h, "%2hhx", &out[n++]);
    return n;
}

/* frames 4 and 6: the admin queue's MPA private data after the IRD/ORD words */
static void test_cm_admin_vectors(void)
{
    uint8_t w[64], b[32];
    unhex(w, "0000000020001f00000000000000000000000000000000000000000000000000");
    dw_nvmeof_cm_req r;
    CHECK_EQ_U(dw_nvmeof_cm_req_decode(&r, w, 32), 32);
    CHECK_EQ_U(r.qid, 0);
    CHECK_EQ_U(r.hrqsize, 32);
    CHECK_EQ_U(r.hsqsize, 31);
    CHECK_EQ_U(dw_nvmeof_cm_req_encode(b, sizeof b, &r), 32);
    CHECK(!memcmp(b, w, 32));
    CHECK_EQ_U(dw_nvmeof_cm_req_decode(&r, w, 31), DW_ERR_NEED_MORE);
    unhex(w, "0000200000000000000000000000000000000000000000000000000000000000");
    dw_nvmeof_cm_rep p;
    CHECK_EQ_U(dw_nvmeof_cm_rep_decode(&p, w, 32), 32);
    CHECK_EQ_U(p.crqsize, 32);
    CHECK_EQ_U(dw_nvmeof_cm_rep_encode(b, sizeof b, &p), 32);
    CHECK(!memcmp(b, w, 32));
    w[0] = 1; /* record format 1 does not exist */
    CHECK_EQ_U(dw_nvmeof_cm_rep_decode(&p, w, 32), DW_ERR_MALFORMED);
}

/* frame 81: the I/O queue's request */
static void test_cm_io_vector(void)
{
    uint8_t w[32], b[32];
    unhex(w, "0000010080007f00000000000000000000000000000000000000000000000000");
    dw_nvmeof_cm_req r = {0, 1, 128, 127, 0};
    CHECK_EQ_U(dw_nvmeof_cm_req_encode(b, sizeof b, &r), 32);
    CHECK(!memcmp(b, w, 32));
    CHECK_EQ_U(dw_nvmeof_cm_req_encode(b, 31, &r), DW_ERR_NOSPACE);
}

static void test_cm_reject(void)
{
    uint8_t b[4];
    dw_nvmeof_cm_rej j = {0, DW_NVMEOF_CM_INVALID_HSQSIZE}, k;
    CHECK_EQ_U(dw_nvmeof_cm_rej_encode(b, 4, &j), 4);
    CHECK(b[2] == 4 && b[3] == 0);
    CHECK_EQ_U(dw_nvmeof_cm_rej_decode(&k, b, 4), 4);
    CHECK_EQ_U(k.sts, 4);
    CHECK(!strcmp(dw_nvmeof_cm_rej_str(4), "invalid HSQSIZE"));
    CHECK(!strcmp(dw_nvmeof_cm_rej_str(0), "unknown"));
    CHECK(!strcmp(dw_nvmeof_cm_rej_str(99), "unknown"));
    CHECK_EQ_U(dw_nvmeof_cm_rej_decode(&k, b, 3), DW_ERR_NEED_MORE);
}

/* frame 8: the admin Connect, keyed SGL with invalidate, KATO 5000 */
static void test_sqe_connect_vector(void)
{
    uint8_t w[64], b[64];
    unhex(w, "7f4000000100000000000000000000000000000000000000002ca2aa48dd31ff00"
             "04000146e7304f000000001f00000088130000000000000000000000000000");
    dw_nvmeof_sqe s;
    CHECK_EQ_U(dw_nvmeof_sqe_decode(&s, w, 64), 64);
    CHECK_EQ_U(s.opcode, 0x7f);
    CHECK_EQ_U(dw_nvmeof_sqe_fctype(&s), DW_NVMEOF_FCTYPE_CONNECT);
    CHECK_EQ_U(s.sgl.addr, 0xff31dd48aaa22c00ull);
    CHECK_EQ_U(s.sgl.len, 1024);
    CHECK_EQ_U(s.sgl.key, 0x30e74601);
    CHECK_EQ_U(s.sgl.type, DW_NVMEOF_SGL_KEYED_INV);
    CHECK_EQ_U(s.cdw11, 31); /* SQSIZE */
    CHECK_EQ_U(s.cdw12, 5000);
    dw_nvmeof_sqe c;
    dw_nvmeof_sqe_connect(&c, 0, 31, 5000);
    c.flags = DW_NVME_FLAGS_SGL;
    c.sgl = s.sgl;
    CHECK_EQ_U(dw_nvmeof_sqe_encode(b, 64, &c), 64);
    CHECK(!memcmp(b, w, 64));
}

/* frame 85: the I/O queue's Connect, data in the capsule (offset SGL) */
static void test_sqe_incapsule_vector(void)
{
    uint8_t w[64], b[64];
    unhex(w, "7f400000010000000000000000000000000000000000000000000000000000000004"
             "000000000001000001007f00000000000000000000000000000000000000");
    dw_nvmeof_sqe s;
    CHECK_EQ_U(dw_nvmeof_sqe_decode(&s, w, 64), 64);
    CHECK_EQ_U(s.sgl.type, DW_NVMEOF_SGL_INCAPSULE);
    CHECK_EQ_U(s.sgl.len, 1024);
    CHECK_EQ_U(s.cdw10 >> 16, 1); /* QID */
    CHECK_EQ_U(s.cdw11, 127);
    CHECK_EQ_U(dw_nvmeof_sqe_encode(b, 64, &s), 64);
    CHECK(!memcmp(b, w, 64));
}

/* frames 13, 21, 23, 27, 221, 262, 89-like: property, identify, write, read */
static void test_sqe_builders_vectors(void)
{
    struct {
        const char *hex;
        int kind;
    } v[] = {
        {"7f400100040000000000000000000000000000000000000000000000000000000000000000000040"
         "010000000000000000000000000000000000000000000000", 0},
        {"7f400120000000000000000000000000000000000000000000000000000000000000000000000040"
         "000000001400000061004600000000000000000000000000", 1},
        {"7f400030040000000000000000000000000000000000000000000000000000000000000000000040"
         "000000001c00000000000000000000000000000000000000", 2},
        {"06401600000000000000000000000000000000000000000000b04bff48dd31ff0010000246e7304f"
         "010000000000000000000000000000000000000000000000", 3},
        {"0140610001000000000000000000000000000000000000000030c48e48dd31ff004000045112654f"
         "00000000000000001f000000000000000000000000000000", 4},
        {"0240340001000000000000000000000000000000000000000080818d48dd31ff004000055112654f"
         "00000000000000001f000000000000000000000000000000", 5},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        uint8_t w[64], b[64];
        CHECK_EQ_U(unhex(w, v[i].hex), 64);
        dw_nvmeof_sqe s, c;
        dw_nvmeof_sqe_decode(&s, w, 64);
        switch (v[i].kind) {
        case 0: dw_nvmeof_sqe_prop_get(&c, DW_NVME_REG_CAP, 1); break;
        case 1: dw_nvmeof_sqe_prop_set(&c, DW_NVME_REG_CC, 0, 0x00460061); break;
        case 2: dw_nvmeof_sqe_prop_get(&c, DW_NVME_REG_CSTS, 0); break;
        case 3: dw_nvmeof_sqe_identify(&c, 1, 0); break;
        case 4: dw_nvmeof_sqe_rw(&c, 1, 1, 0, 32); break;
        default: dw_nvmeof_sqe_rw(&c, 0, 1, 0, 32); break;
        }
        c.flags = s.flags;
        c.cid = s.cid;
        c.sgl = s.sgl;
        CHECK_EQ_U(dw_nvmeof_sqe_encode(b, 64, &c), 64);
        CHECK(!memcmp(b, w, 64));
        if (memcmp(b, w, 64))
            fprintf(stderr, "  vector %zu differs\n", i);
    }
    dw_nvmeof_sqe s;
    dw_nvmeof_sqe_rw(&s, 0, 1, 0, 1);
    s.sgl.type = DW_NVMEOF_SGL_KEYED;
    s.sgl.len = 1u << 24; /* a keyed length has 24 bits */
    uint8_t b[64];
    CHECK_EQ_U(dw_nvmeof_sqe_encode(b, 64, &s), DW_ERR_INVAL);
    CHECK_EQ_U(dw_nvmeof_sqe_encode(b, 63, &(dw_nvmeof_sqe){0}), DW_ERR_NOSPACE);
    CHECK_EQ_U(dw_nvmeof_sqe_decode(&s, b, 63), DW_ERR_NEED_MORE);
    dw_nvmeof_sqe_get_log(&s, DW_NVME_LOG_DISCOVERY, 0, 4096, 0);
    CHECK_EQ_U(s.cdw10, 0x03ff0070); /* NUMDL 1023, LID 0x70 */
    CHECK(dw_nvmeof_sqe_fctype(&s) == -1);
}

/* frames 12, 14, 260: responses */
static void test_cqe_vectors(void)
{
    uint8_t w[16], b[16];
    dw_nvmeof_cqe c;
    unhex(w, "01000000000000000100000000000000");
    CHECK_EQ_U(dw_nvmeof_cqe_decode(&c, w, 16), 16);
    CHECK_EQ_U(c.result, 1); /* cntlid */
    CHECK_EQ_U(c.sqhd, 1);
    CHECK_EQ_U(c.status, 0);
    unhex(w, "7f00000f200800000200000001000000");
    dw_nvmeof_cqe_decode(&c, w, 16);
    CHECK_EQ_U(c.result, 0x000008200f00007full); /* CAP: MQES 127, TO 15 */
    CHECK_EQ_U(c.cid, 1);
    unhex(w, "00000000000000000500010061000000");
    dw_nvmeof_cqe_decode(&c, w, 16);
    CHECK_EQ_U(c.sqid, 1);
    CHECK_EQ_U(c.cid, 0x61);
    CHECK_EQ_U(dw_nvmeof_cqe_encode(b, 16, &c), 16);
    CHECK(!memcmp(b, w, 16));
    CHECK_EQ_U(dw_nvmeof_cqe_decode(&c, w, 15), DW_ERR_NEED_MORE);
}

static void test_status_names(void)
{
    CHECK(!strcmp(dw_nvmeof_status_str(0, 0), "success"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x0001, 0), "success")); /* phase bit only */
    CHECK(!strcmp(dw_nvmeof_status_str(0x80 << 1, 0), "LBA out of range"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x02 << 1 | 0x8000, 0), "invalid field in command"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x184 << 1, 1), "connect invalid host"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x182 << 1, 1), "connect invalid parameters"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x182 << 1, 0), "attempted write to read only range"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x281 << 1, 0), "unrecovered read error"));
    CHECK(!strcmp(dw_nvmeof_status_str(0x7ff << 1, 0), "unknown status"));
    CHECK_EQ_U(DW_NVME_SCT(0x184 << 1), 1);
    CHECK_EQ_U(DW_NVME_SC(0x184 << 1), 0x84);
}

/* frame 11: the Connect data the host gave by RDMA Read Response */
static void test_connect_data_vector(void)
{
    uint8_t w[1024], b[1024];
    memset(w, 0, sizeof w);
    unhex(w, "c87bd932bfac4803bef562718b65b17effff");
    const char *sub = "nqn.2024-01.org.ddpwire:siw-ram0";
    const char *host = "nqn.2014-08.org.nvmexpress:uuid:cded49cb-fc7f-4b4c-9e9d-3381b0b87ab8";
    memcpy(w + 256, sub, strlen(sub));
    memcpy(w + 512, host, strlen(host));
    dw_nvmeof_connect_data d;
    CHECK_EQ_U(dw_nvmeof_connect_data_decode(&d, w, 1024), 1024);
    CHECK_EQ_U(d.cntlid, 0xffff);
    CHECK(!strcmp(d.subnqn, sub) && !strcmp(d.hostnqn, host));
    CHECK_EQ_U(dw_nvmeof_connect_data_encode(b, sizeof b, &d), 1024);
    CHECK(!memcmp(b, w, 1024));
    memset(w + 256, 'x', 256); /* no NUL in the field */
    CHECK_EQ_U(dw_nvmeof_connect_data_decode(&d, w, 1024), DW_ERR_MALFORMED);
    CHECK_EQ_U(dw_nvmeof_connect_data_decode(&d, w, 1023), DW_ERR_NEED_MORE);
    memset(d.subnqn, 'y', 224);
    d.subnqn[224] = 0; /* 224 characters: one too many */
    CHECK_EQ_U(dw_nvmeof_connect_data_encode(b, sizeof b, &d), DW_ERR_INVAL);
    d.subnqn[0] = 0;
    CHECK_EQ_U(dw_nvmeof_connect_data_encode(b, sizeof b, &d), DW_ERR_INVAL);
}

/* frame 29 and on: Identify Controller of nvmet (Linux 6.1) */
static void test_identify(void)
{
    static uint8_t id[4096];
    memset(id, 0, sizeof id);
    unhex(id, "0000000037653762303034376436363664336365613832374c696e757820202020202020"
              "20202020202020202020202020202020202020202020202020202020362e312e302d3536"
              "060000000b080100000301000000");
    memcpy(id + 768, "nqn.2024-01.org.ddpwire:siw-ram0", 32);
    dw_nvmeof_id_ctrl c;
    CHECK_EQ_U(dw_nvmeof_id_ctrl_decode(&c, id, sizeof id), 4096);
    CHECK(!strcmp(c.sn, "7e7b0047d666d3cea827"));
    CHECK(!strcmp(c.mn, "Linux"));
    CHECK(!strcmp(c.fr, "6.1.0-56"));
    CHECK_EQ_U(c.cntlid, 1);
    CHECK_EQ_U(c.ver, 0x00010300);
    CHECK(!strcmp(c.subnqn, "nqn.2024-01.org.ddpwire:siw-ram0"));
    CHECK_EQ_U(dw_nvmeof_id_ctrl_decode(&c, id, 4095), DW_ERR_NEED_MORE);
    static uint8_t ns[4096];
    memset(ns, 0, sizeof ns);
    ns[1] = 0x02; /* nsze 0x20000 blocks: 64 MiB */
    ns[2] = 0x00;
    ns[0] = 0;
    ns[2] = 2;
    ns[1] = 0;
    ns[128 + 2] = 9; /* LBAF0: 512 octets */
    dw_nvmeof_id_ns n;
    CHECK_EQ_U(dw_nvmeof_id_ns_decode(&n, ns, sizeof ns), 4096);
    CHECK_EQ_U(n.nsze, 0x20000);
    CHECK_EQ_U(n.lba_size, 512);
    ns[26] = 1; /* FLBAS 1 beyond NLBAF 0 */
    CHECK_EQ_U(dw_nvmeof_id_ns_decode(&n, ns, sizeof ns), DW_ERR_MALFORMED);
    ns[26] = 0;
    ns[130] = 8;
    CHECK_EQ_U(dw_nvmeof_id_ns_decode(&n, ns, sizeof ns), DW_ERR_MALFORMED);
}

static void test_discovery_log(void)
{
    static uint8_t log[2048];
    memset(log, 0, sizeof log);
    log[0] = 3;  /* genctr */
    log[8] = 1;  /* numrec */
    uint8_t *e = log + 1024;
    e[0] = 1; /* rdma */
    e[1] = 1; /* ipv4 */
    e[2] = 2; /* NVM subsystem */
    e[4] = 1; /* portid */
    e[6] = 0xff, e[7] = 0xff;
    e[8] = 32;
    memcpy(e + 32, "4420", 4);
    memcpy(e + 256, "nqn.2024-01.org.ddpwire:siw-ram0", 32);
    memcpy(e + 512, "10.0.2.15", 9);
    dw_nvmeof_disc_hdr h;
    CHECK_EQ_U(dw_nvmeof_disc_hdr_decode(&h, log, sizeof log), 1024);
    CHECK_EQ_U(h.genctr, 3);
    CHECK_EQ_U(h.numrec, 1);
    dw_nvmeof_disc_entry d;
    CHECK_EQ_U(dw_nvmeof_disc_entry_decode(&d, e, 1024), 1024);
    CHECK(!strcmp(dw_nvmeof_trtype_str(d.trtype), "rdma"));
    CHECK(!strcmp(d.trsvcid, "4420") && !strcmp(d.traddr, "10.0.2.15"));
    CHECK(!strcmp(d.subnqn, "nqn.2024-01.org.ddpwire:siw-ram0"));
    CHECK_EQ_U(d.cntlid, 0xffff);
    CHECK_EQ_U(d.asqsz, 32);
    CHECK_EQ_U(dw_nvmeof_disc_entry_decode(&d, e, 1000), DW_ERR_NEED_MORE);
}

int main(void)
{
    RUN(test_cm_admin_vectors);
    RUN(test_cm_io_vector);
    RUN(test_cm_reject);
    RUN(test_sqe_connect_vector);
    RUN(test_sqe_incapsule_vector);
    RUN(test_sqe_builders_vectors);
    RUN(test_cqe_vectors);
    RUN(test_status_names);
    RUN(test_connect_data_vector);
    RUN(test_identify);
    RUN(test_discovery_log);
    return dw_test_finish();
}
