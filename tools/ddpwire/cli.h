/* SPDX-License-Identifier: MIT */
/* Shared helpers of the ddpwire command-line tool. */
#ifndef DW_CLI_H
#define DW_CLI_H

#include <ddpwire/mpa.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
int cmd_nvmeof(int argc, char **argv);
int cmd_tcprdma(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_perf(int argc, char **argv);

/* One dispatcher for the tool and its command groups (analyze, bench,
 * ipoib, tcprdma): a table of names. */
typedef struct cli_cmd {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0]: the name */
    const char *help;                  /* one line for the list */
} cli_cmd;

typedef struct cli_group {
    const char *prog; /* "ddpwire analyze" */
    const char *what; /* "command", "mode", ... for messages */
    const cli_cmd *cmds;
    size_t n;
    void (*usage)(FILE *f); /* the group's help; NULL: help() or the table */
    void (*help)(void);     /* --help on stdout when there is no usage */
} cli_group;

/* argv[1] names a command of the group: runs it (argc - 1, argv + 1) and
 * returns its status. --help/-h and "help [NAME]" print help (status 0),
 * --version the version. Nothing: the usage on stderr (or "PROG: expected a
 * WHAT"), an unknown name "PROG: unknown WHAT 'X'": status 2. */
int cli_dispatch(const cli_group *g, int argc, char **argv);

/* The group's table as "  NAME  HELP" lines. */
void cli_group_list(const cli_group *g, FILE *f);

/* Parses an unsigned integer (decimal, 0x hex, k/K/m/M/g/G suffixes) in
 * [min, max]; prints an error naming opt and returns -1 when it is not. */
int cli_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Table-driven options. A subcommand lists its options in one cli_opt
 * table (with the CLI_* makers below) and hands it to cli_parse(). */
typedef enum cli_kind {
    CLI_K_FLAG, /* int *out = 1 */
    CLI_K_COUNT, /* int *out += 1 each time ("-v -v", "-vv") */
    CLI_K_ONOFF, /* int *out: "--x" 1, "--x on|off", "--x=on|off" */
    CLI_K_SET,  /* int *out = min: a constant */
    CLI_K_U64,  /* uint64_t *out = the next argument, a number in [min, max] */
    CLI_K_U32,  /* uint32_t *out, likewise */
    CLI_K_INT,  /* int *out, likewise */
    CLI_K_STR,  /* const char **out = the next argument */
    CLI_K_FN,   /* fn(out, name, next argument or NULL): 0, or -1 after saying why */
    CLI_K_HELP, /* one more name for --help */
} cli_kind;

typedef struct cli_opt {
    const char *name; /* NULL: a positional argument (CLI_K_STR): the first
                       * one still NULL takes the next that does not start with '-' */
    cli_kind kind;
    void *out;
    uint64_t min, max;
    const char *need; /* a missing value: "PROG: NAME needs <need>"; NULL: for
                       * numbers cli_u64's line, for CLI_K_FN fn(NULL), else "a value" */
    int (*fn)(void *out, const char *name, const char *value);
} cli_opt;

#define CLI_PTR_(T, p) (1 ? (p) : (T *)0) /* a pointer of the wrong type does not compile */
#define CLI_OPT(name, kind, out, min, max, need, fn)                                              \
    {(name), (kind), (out), (min), (max), (need), (fn)}
#define CLI_FLAG(name, p) CLI_OPT(name, CLI_K_FLAG, CLI_PTR_(int, p), 0, 0, NULL, NULL)
#define CLI_COUNT(name, p) CLI_OPT(name, CLI_K_COUNT, CLI_PTR_(int, p), 0, 0, NULL, NULL)
#define CLI_ONOFF(name, p) CLI_OPT(name, CLI_K_ONOFF, CLI_PTR_(int, p), 0, 0, NULL, NULL)
#define CLI_SET(name, p, v) CLI_OPT(name, CLI_K_SET, CLI_PTR_(int, p), (v), 0, NULL, NULL)
#define CLI_U64(name, p, lo, hi) CLI_OPT(name, CLI_K_U64, CLI_PTR_(uint64_t, p), lo, hi, NULL, NULL)
#define CLI_U32(name, p, lo, hi) CLI_OPT(name, CLI_K_U32, CLI_PTR_(uint32_t, p), lo, hi, NULL, NULL)
#define CLI_INT(name, p, lo, hi) CLI_OPT(name, CLI_K_INT, CLI_PTR_(int, p), lo, hi, NULL, NULL)
#define CLI_STR(name, p, need) CLI_OPT(name, CLI_K_STR, CLI_PTR_(const char *, p), 0, 0, need, NULL)
#define CLI_ARG(p) CLI_STR(NULL, p, NULL)
#define CLI_FN(name, p, fn) CLI_OPT(name, CLI_K_FN, p, 0, 0, NULL, fn)
#define CLI_HELP(name) CLI_OPT(name, CLI_K_HELP, NULL, 0, 0, NULL, NULL)
#define CLI_N(t) (sizeof (t) / sizeof (t)[0])

/* Handles what the table does not know at argv[*i] (advancing *i past a
 * value it takes): 1 handled, 0 unknown, -1 bad (it said why). */
typedef int cli_more_fn(void *ctx, int argc, char **argv, int *i);

/* Handles the table's option (or positional argument) at argv[*i]: 1, 0 when
 * the table has none, -1 on a bad or missing value (said on stderr). */
int cli_take(const cli_opt *t, size_t n, const char *prog, int argc, char **argv, int *i);

#define CLI_GO (-1)

/* Prints "PROG VERSION"; returns 0. */
int cli_version(const char *prog);

/* Parses argv[1..argc) as getopt_long would: "--opt value" and
 * "--opt=value", "--" ends the options, counted flags repeat ("-vv").
 * --help, -h (unless the table uses it) and CLI_K_HELP names call help;
 * --version prints "PROG VERSION". Each argument goes to the table, then to
 * more (may be NULL); anything left is "PROG: unknown option 'X'" or
 * "PROG: unexpected argument 'X'". Returns CLI_GO to run the command, else
 * its exit status: 0 after help or version, 2 on a usage error. */
int cli_parse(int argc, char **argv, const char *prog, void (*help)(void), const cli_opt *t,
              size_t n, cli_more_fn *more, void *ctx);

/* MPA options shared by frame, deframe and demo. */
typedef struct cli_mpa_opts {
    uint32_t start_seq;
    uint32_t emss;
    int markers, crc;
    dw_mpa_ptr_base ptr_base;
} cli_mpa_opts;

void cli_mpa_defaults(cli_mpa_opts *o);

/* Sender and receiver settings for these options (defaults otherwise). */
void cli_mpa_tx_settings(const cli_mpa_opts *o, dw_mpa_tx_settings *ts);
void cli_mpa_rx_settings(const cli_mpa_opts *o, dw_mpa_rx_settings *rs);

/* A cli_more_fn for the MPA options (mpa_opts: a cli_mpa_opts):
 * --start-seq N, --emss N, --markers [on|off] (--no-markers), --crc [on|off]
 * (--no-crc), --ptr-base draft|rfc5044. */
int cli_mpa_option(void *mpa_opts, int argc, char **argv, int *i);

/* A cli_more_fn for the socket options shared by demo, listen, send and load
 * (sock_opts: a dw_sock_settings): --framing mpa|ift, --startup
 * immediate|negotiate, --markers/--crc [on|off] (--no-markers, --no-crc),
 * --pack, --timeout MS. */
int cli_sock_option(void *sock_opts, int argc, char **argv, int *i);

/* The socket options' combinations: CLI_GO, or 2 after saying why. */
struct dw_sock_settings;
int cli_sock_valid(const char *prog, const struct dw_sock_settings *o);

/* The address of listen, send and load. */
typedef struct cli_where {
    char host[256]; /* "": any (listen) */
    char port[8];
    char show[300]; /* for messages: "HOST:PORT", "[V6]:PORT", "*:PORT" */
} cli_where;

/* The address from the positional arguments pos[0..n) and -p PORT (popt,
 * or NULL): "HOST:PORT", "[V6]:PORT", netcat's "HOST PORT" (also a bare
 * IPv6 address), and when need_host is 0 "PORT" alone, "-p PORT" and
 * "ADDR -p PORT". Ports are 1..65535. Returns how many positionals it took
 * (0..2), or -1 after "PROG: why" on stderr. */
int cli_where_parse(const char *prog, const char *const *pos, int n, const char *popt,
                    int need_host, cli_where *w);

/* "PROG: unexpected argument 'X'" when pos[used] is set: 2, else CLI_GO. */
int cli_extra(const char *prog, const char *const *pos, int n, int used);

/* -v, --verbose: messages carry the library's DW_ERR_* names. */
extern int cli_verbose;

/* " (DW_ERR_X)" under -v, else "": messages speak to users by default. */
const char *cli_errtag(int rc);

/* The peer of a connected socket as "ADDR:PORT" ("[V6]:PORT") in buf, or
 * "" when it is not known. Returns buf. */
char *cli_peer(int fd, char *buf, size_t cap);

/* The tool's one clock: nanoseconds on a monotonic clock. */
uint64_t cli_now_ns(void);
/* The same in seconds. */
double cli_now(void);
/* The same in milliseconds. */
int64_t cli_now_ms(void);

/* "0.842 s, 1.90 Gbit/s": the time and rate of moving octets in secs. */
char *cli_rate(char *buf, size_t cap, uint64_t octets, double secs);

/* Writes all of an iovec array (retrying short writes); 0 or -1. */
int cli_writev_all(int fd, struct iovec *iov, int cnt);

/* Writes all of buf; 0 or -1. */
int cli_write_all(int fd, const void *buf, size_t len);

/* Reads up to len octets (fewer only at end of input); -1 on error. */
ssize_t cli_read_some(int fd, void *buf, size_t len);

/* ---- cli_out.c: resource failures and output files ---- */

/* The one status of every command for "could not complete": memory, a
 * write that failed or was cut (ENOSPC, EIO, EPIPE), a file that could not be
 * made. Never 0, never a protocol-error or an incomplete-input status. */
#define CLI_EXIT_RESOURCE 5

/* "PROG: could not complete: WHAT: WHY" on stderr; returns CLI_EXIT_RESOURCE. */
int cli_cannot(const char *prog, const char *what, const char *why);
/* "PROG: could not complete: VERB PATH: WHY"; returns CLI_EXIT_RESOURCE. */
int cli_cannot_path(const char *prog, const char *verb, const char *path, const char *why);
/* The same with WHY "out of memory". */
int cli_nomem(const char *prog, const char *what);
/* Whether errno e is a resource failure (memory, space, I/O, descriptors)
 * rather than a bad name or permission. */
int cli_errno_resource(int e);
/* Whether a socket call's DW_ERR_* rc (errno e for DW_ERR_IO) is a resource
 * failure (DW_ERR_NOMEM, ENOMEM, ENOBUFS, EMFILE ...). */
int cli_sock_resource(int rc, int e);
/* Makes stdout the tool's own stream (main, before any command): its writes
 * go through cli_write_all (short writes and EINTR retried), the first
 * failure is kept; SIGPIPE is ignored (a closed pipe is EPIPE). */
void cli_stdout_init(void);
/* Flushes stdout: rc, or CLI_EXIT_RESOURCE when a write of it failed, after
 * "PROG: could not complete: writing stdout: why" unless a could-not-
 * complete line was already printed (every command ends through it). */
int cli_stdout_finish(const char *prog, int rc);
/* Non-zero once a write of stdout has failed (nothing is flushed or said:
 * for loops that must stop, then cli_stdout_done()). */
int cli_stdout_failed(void);
/* Flushes stdout: 0, or CLI_EXIT_RESOURCE after saying that writing it failed. */
int cli_stdout_done(const char *prog);

/* An output file (-w, -o): written to PATH.tmp-XXXXXX beside it and renamed
 * to PATH only when complete, else removed (a PATH that exists and is not a
 * regular file, /dev/null or a FIFO, is written as it is). */
typedef struct cli_outfile {
    const char *path;
    char *tmp; /* NULL: written in place */
    FILE *f;   /* writes through fd (whole, retried on EINTR) */
    int fd;
    int err;   /* the errno of the first failed write */
} cli_outfile;

/* The stream to write, or NULL (errno set) after "PROG: PATH: why" on
 * stderr (prog NULL: silently). */
FILE *cli_outfile_open(cli_outfile *o, const char *prog, const char *path);
/* Whether a write to it has failed (keeps the first errno). */
int cli_outfile_failed(cli_outfile *o);
/* Flushes, syncs, closes and renames into place: 0; or removes it and
 * returns CLI_EXIT_RESOURCE (errno says why) after "PROG: could not
 * complete: writing PATH: why" (prog NULL: silently). */
int cli_outfile_commit(cli_outfile *o, const char *prog);
/* Closes and removes it (another failure is being reported). */
void cli_outfile_abort(cli_outfile *o);

#endif
