/* SPDX-License-Identifier: MIT */
/*
 * The TCP RDMA option's RID formats (draft-csapuntz-tcprdma-00 section 5):
 * NFS, HTTP and CIFS, built and split with their zero-bit rules. The
 * option itself: <ddpwire/tcpopt.h>.
 */
#ifndef DDPWIRE_TCPOPT_RID_H
#define DDPWIRE_TCPOPT_RID_H

#include <ddpwire/tcpopt.h>

#ifdef __cplusplus
extern "C" {
#endif

/** NFS (5.1.1): bits 45..40 zero, 39..32 operation index, 31..0 RPC XID. */
typedef struct dw_tcpopt_rid_nfs {
    uint32_t xid;
    /** Index of the operation in the RPC (NFSv4 compounds), from 0. */
    uint8_t op;
} dw_tcpopt_rid_nfs;

/** HTTP (5.2.1): bits 45..32 zero, 31..0 index of the request, from 0. */
typedef struct dw_tcpopt_rid_http {
    uint32_t request;
} dw_tcpopt_rid_http;

/** CIFS (5.3.1): 45..40 zero, 39..32 operation, 31..16 PID, 15..0 MID. */
typedef struct dw_tcpopt_rid_cifs {
    uint16_t pid;
    uint16_t mid;
    /** Index of the operation in the SMB (compound requests), from 0. */
    uint8_t op;
} dw_tcpopt_rid_cifs;

/**
 * Builds an NFS RID. nfs_version 2 or 3 requires op 0 (5.1.1.2); 0 means
 * "not known" (no check). Returns 0, or DW_ERR_INVAL (NULL, or op set for
 * version 2/3).
 */
DW_EXTERN int dw_tcpopt_rid_nfs_encode(uint64_t *rid, const dw_tcpopt_rid_nfs *f,
                             unsigned nfs_version);

/**
 * Splits an NFS RID. Returns DW_TCPOPT_R_RID_RANGE (over 46 bits),
 * DW_TCPOPT_R_RID_ZERO_BITS (bits 45..40 set, 5.1.1.3) or
 * DW_TCPOPT_R_NFS_OPERATION (op not 0 with nfs_version 2 or 3); out is
 * filled in every case but the first.
 */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_rid_nfs_decode(dw_tcpopt_rid_nfs *out, uint64_t rid,
                                          unsigned nfs_version);

/** Builds an HTTP RID. Returns 0 or DW_ERR_INVAL (NULL). */
DW_EXTERN int dw_tcpopt_rid_http_encode(uint64_t *rid, const dw_tcpopt_rid_http *f);

/** Splits an HTTP RID: DW_TCPOPT_R_RID_ZERO_BITS when bits 45..32 are set. */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_rid_http_decode(dw_tcpopt_rid_http *out, uint64_t rid);

/** Builds a CIFS RID. Returns 0 or DW_ERR_INVAL (NULL). */
DW_EXTERN int dw_tcpopt_rid_cifs_encode(uint64_t *rid, const dw_tcpopt_rid_cifs *f);

/** Splits a CIFS RID: DW_TCPOPT_R_RID_ZERO_BITS when bits 45..40 are set. */
DW_EXTERN dw_tcpopt_reason dw_tcpopt_rid_cifs_decode(dw_tcpopt_rid_cifs *out, uint64_t rid);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_TCPOPT_RID_H */
