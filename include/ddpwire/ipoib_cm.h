/* SPDX-License-Identifier: MIT */
/*
 * IPoIB over the InfiniBand CM: the IPoIB-relevant fields of the CM
 * messages (REQ/REP/RTU/REJ/DREQ/DREP, SIDR) and the codecs of the IPoIB
 * private data they carry (draft 3.1, 3.2; RFC 4755). Basics:
 * <ddpwire/ipoib.h>.
 */
#ifndef DDPWIRE_IPOIB_CM_H
#define DDPWIRE_IPOIB_CM_H

#include <ddpwire/ipoib.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dw_ipoib_cm_type {
    DW_IPOIB_CM_REQ = 1,
    DW_IPOIB_CM_REP,
    DW_IPOIB_CM_RTU,
    DW_IPOIB_CM_REJ,
    DW_IPOIB_CM_DREQ,
    DW_IPOIB_CM_DREP,
    DW_IPOIB_CM_SIDR_REQ,
    DW_IPOIB_CM_SIDR_REP
} dw_ipoib_cm_type;

/** "REQ", "REP", ... */
DW_EXTERN const char *dw_ipoib_cm_type_name(dw_ipoib_cm_type t);

/** Largest private data of any CM message (RTU, DREP: 224 octets). */
#define DW_IPOIB_CM_PD_MAX 224u

/** Private-data size of a CM message type (REQ 92, REP 196, REJ 148, ...). */
DW_EXTERN size_t dw_ipoib_cm_pd_size(dw_ipoib_cm_type t);

/** SIDR_REP status values (InfiniBand SIDR). */
#define DW_IPOIB_SIDR_OK 0u
#define DW_IPOIB_SIDR_UNSUPPORTED 1u /* service ID not supported */
#define DW_IPOIB_SIDR_REJECTED 2u    /* rejected by the service provider */

typedef struct dw_ipoib_cm_msg {
    dw_ipoib_cm_type type;
    /** Sender's communication ID (SIDR: the request ID). */
    uint32_t local_id;
    /** The receiver's communication ID (0 in REQ and SIDR). */
    uint32_t remote_id;
    /** REQ, SIDR_REQ, SIDR_REP: the service ID. */
    uint64_t service_id;
    /** REQ/REP: the sender's connected QP; SIDR_REP: the service's UD QPN. */
    uint32_t qpn;
    /** REQ: RC, UC or RD. */
    dw_ipoib_mode transport;
    /** REJ: Reason; SIDR_REP: status. */
    uint16_t reason;
    /** dw_ipoib_cm_pd_size(type); octets past the IPoIB data are zero. */
    uint16_t pd_len;
    uint8_t pd[DW_IPOIB_CM_PD_MAX];
} dw_ipoib_cm_msg;

/* ------------------------------------------------------------------ */
/* Private data                                                        */
/* ------------------------------------------------------------------ */

/*
 * Draft 3.1 (SIDR) and 3.2 (CM REQ/REP): QPN received in ARP/ND (24 bits),
 * one pad octet, QPN sent in ARP/ND (24 bits), one pad octet; the CM form
 * adds the IP MTU (32 bits). Pads must be zero. "Received" and "sent" are
 * from the writer's point of view. The InfiniBand CM pads private data to a
 * fixed size per message; decoders read their octets and leave the rest.
 */
#define DW_IPOIB_SIDR_PD_LEN 8u
#define DW_IPOIB_CM_PD_LEN 12u
#define DW_IPOIB_RFC4755_PD_LEN 8u

typedef struct dw_ipoib_pd {
    /** The peer's QPN as learnt in ARP/ND. */
    uint32_t qpn_rcvd;
    /** Our own QPN as sent in ARP/ND. */
    uint32_t qpn_sent;
    /** IP MTU (CM form only; 0 in the SIDR form). */
    uint32_t mtu;
} dw_ipoib_pd;

/**
 * SIDR private data (8 octets). DW_ERR_MALFORMED for a non-zero pad or a
 * QPN that cannot be an IPoIB UD QPN.
 */
DW_EXTERN ssize_t dw_ipoib_sidr_pd_decode(dw_ipoib_pd *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_sidr_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_pd *pd);

/**
 * CM REQ/REP private data (12 octets): as SIDR plus the MTU, which must be
 * DW_IPOIB_MTU_MIN..DW_IPOIB_MTU_LIMIT.
 */
DW_EXTERN ssize_t dw_ipoib_cm_pd_decode(dw_ipoib_pd *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_cm_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_pd *pd);

/**
 * RFC 4755 private data (8 octets): a 32-bit word whose low 24 bits are the
 * sender's UD QPN (the high octet is reserved: sent as zero, ignored), then
 * the receive MTU. As Linux does, the MTU counts the 4-octet IPoIB header:
 * 65524 for an IP MTU of 65520.
 */
typedef struct dw_ipoib_rfc_pd {
    uint32_t qpn;
    /** Receive MTU as on the wire (IP MTU + 4). */
    uint32_t mtu;
} dw_ipoib_rfc_pd;

/** DW_ERR_MALFORMED for an invalid QPN or an MTU outside 72..2^31. */
DW_EXTERN ssize_t dw_ipoib_rfc_pd_decode(dw_ipoib_rfc_pd *out, const uint8_t *in, size_t len);
DW_EXTERN ssize_t dw_ipoib_rfc_pd_encode(uint8_t *out, size_t cap, const dw_ipoib_rfc_pd *pd);

/** REJ reasons used here (InfiniBand CM REJ Reason field). */
#define DW_IPOIB_REJ_NO_RESOURCES 3u /* draft 3.2: MTU not acceptable */
#define DW_IPOIB_REJ_INVALID_SID 8u
#define DW_IPOIB_REJ_CONSUMER 28u

/**
 * A draft REJ (3.2): the CM Reason field and, for reason 3, private data in
 * the CM layout whose MTU is the MTU that would be acceptable (0: none
 * offered, the whole block zero).
 */
typedef struct dw_ipoib_rej {
    uint16_t reason;
    dw_ipoib_pd pd;
} dw_ipoib_rej;

/**
 * Reads a REJ's private data given its Reason. Reason 3: decodes 12
 * octets (an all-zero block means no MTU offered) and returns 12; other
 * reasons carry nothing of ours: returns 0 with pd zeroed.
 */
DW_EXTERN ssize_t dw_ipoib_rej_decode(dw_ipoib_rej *out, uint16_t reason, const uint8_t *pd,
                            size_t len);

/**
 * Writes a REJ's private data: 12 octets for reason 3, nothing (0) for
 * others. DW_ERR_INVAL when an MTU is given with a reason other than 3.
 */
DW_EXTERN ssize_t dw_ipoib_rej_encode(uint8_t *out, size_t cap, const dw_ipoib_rej *r);

#ifdef __cplusplus
}
#endif

#endif /* DDPWIRE_IPOIB_CM_H */
