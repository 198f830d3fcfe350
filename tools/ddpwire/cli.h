/* Shared helpers of the ddpwire command-line tool. */
#ifndef DW_CLI_H
#define DW_CLI_H

#include <ddpwire/mpa.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Each subcommand: argv[0] is the subcommand's name. Returns the exit status. */
int cmd_frame(int argc, char **argv);
int cmd_deframe(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_listen(int argc, char **argv);
int cmd_send(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_ipoib(int argc, char **argv);
int cmd_rping(int argc, char **argv);
int cmd_tcprdma(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_dump(int argc, char **argv);

/* Parses an unsigned integer (decimal, 0x hex, k/K/m/M/g/G suffixes) in
 * [min, max]; prints an error naming opt and returns -1 when it is not. */
int cli_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* MPA options shared by frame, deframe and demo. */
typedef struct cli_mpa_opts {
    uint32_t start_seq;
    uint32_t emss;
    int markers;
    dw_mpa_ptr_base ptr_base;
} cli_mpa_opts;

void cli_mpa_defaults(cli_mpa_opts *o);

/* Sender and receiver settings for these options (defaults otherwise). */
void cli_mpa_tx_settings(const cli_mpa_opts *o, dw_mpa_tx_settings *ts);
void cli_mpa_rx_settings(const cli_mpa_opts *o, dw_mpa_rx_settings *rs);

/* Handles one MPA option at argv[*i] (advancing *i past its value).
 * Returns 1 if handled, 0 if not an MPA option, -1 on a bad value. */
int cli_mpa_option(cli_mpa_opts *o, int argc, char **argv, int *i);

/* Socket options shared by demo, listen and send: --framing mpa|ift,
 * --startup immediate|negotiate, --no-markers, --pack, --timeout MS. Same returns
 * as cli_mpa_option(). */
struct dw_sock_opts;
int cli_sock_option(struct dw_sock_opts *o, int argc, char **argv, int *i);

/* Splits "HOST:PORT", "[V6]:PORT" or "PORT" (host NULL). 0 or -1. */
int cli_hostport(const char *s, char *host, size_t hcap, char *port, size_t pcap);

/* Writes all of an iovec array (retrying short writes); 0 or -1. */
int cli_writev_all(int fd, struct iovec *iov, int cnt);

/* Writes all of buf; 0 or -1. */
int cli_write_all(int fd, const void *buf, size_t len);

/* Reads up to len octets (fewer only at end of input); -1 on error. */
ssize_t cli_read_some(int fd, void *buf, size_t len);

#endif
