/* SPDX-License-Identifier: MIT */
/* The socket adapter's state, shared by its parts: mpa_sock.c (set-up,
 * reading), sock_send.c (writing, the output queue) and sock_stream.c (bulk
 * writes). MPA itself (start-up, framing, receiving) is the dw_conn's. */
#ifndef DW_IO_SOCK_INT_H
#define DW_IO_SOCK_INT_H

#include <ddpwire/conn.h>
#include <ddpwire/mpa_sock.h>
#include <ddpwire/outq.h>

#include <sys/socket.h>

#define DW_SK_MSG_CAP 64u      /* blocking aligned mode: FPDUs per sendmmsg */
#define DW_SK_EMSS_REREAD 256u /* sends between TCP_MAXSEG reads (path MTU) */
#define DW_SK_VIEW_WRITES 64u  /* send_stream writes on one full view at most */

struct dw_sock {
    int fd;
    dw_sock_settings o;
    dw_fr_rx_iov_fn iov_fn; /* MPA: records as pieces, or NULL */
    dw_sock_info info;      /* the connection's, with EMSS and retried */
    dw_conn *c;             /* start-up, framing, receiving: all of MPA */
    uint8_t *rbuf;          /* o.rbuf_size octets */
    size_t pend_at, pend_n; /* read but not fed yet: rbuf[pend_at..+pend_n) */
    unsigned sends;
    int connecting;         /* non-blocking connect in progress */
    int initiator;
    int shut_wanted;        /* non-blocking: FIN after the queue drains */
    int corked;             /* TCP_CORK set by dw_sock_send_stream */
    uint32_t ip_hdr;        /* 20 or 40 (dw_io_ip_hdr), 0 until known */
    /* The last full view (dw_sk_update_emss), which send_stream's writes
     * use while view_left: room (the peer's window room less what was
     * written since, a lower bound; SIZE_MAX unknown), the path MSS and the
     * headers it was read with. Only send_stream sets view_left; any other
     * send, and a full view read elsewhere, sets it to 0. */
    size_t room;
    uint32_t path_mss, hdr;
    unsigned view_left;
    uint8_t *flat;          /* dw_sock_send_stream with markers: FPDUs framed flat */
    int paced;              /* send_stream: BBR runs the socket (read with the view) */
    struct iovec *iov;      /* o.iov_max, allocated at the first send */
    struct mmsghdr *msgs;   /* blocking aligned mode, allocated when needed */
    size_t *msg_bytes;
    dw_outq *q;             /* non-blocking mode */
};

/* sock_send.c */
int dw_sk_send_raw(dw_sock *s, const void *p, size_t len);
void dw_sk_read_emss(dw_sock *s);
size_t dw_sk_update_emss(dw_sock *s);
void dw_sk_free_send(dw_sock *s);
int dw_sk_want_iov(dw_sock *s);
int dw_sk_want_msgs(dw_sock *s);
size_t dw_sk_scratch_window(const dw_sock *s);
int dw_sk_write_all(int fd, struct iovec *iov, int cnt, int flags, int ms);
int dw_sk_flush_aligned(dw_sock *s, size_t k);

/* sock_stream.c */
void dw_sk_set_cork(dw_sock *s, int on);

#endif
