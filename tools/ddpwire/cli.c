/* SPDX-License-Identifier: MIT */
/* Shared helpers of the ddpwire command-line tool. */
#include "cli.h"

#include <ddpwire/common.h>
#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The subcommand being parsed, for messages ("ddpwire dump"). */
static const char *cli_prog = "ddpwire";

int cli_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = s ? strtoull(s, &end, 0) : 0;
    if (!s || end == s || errno || s[0] == '-')
        goto bad;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (*end || (shift && v > (~0ull >> shift)))
        goto bad;
    v <<= shift;
    if (v < min || v > max)
        goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "%s: %s needs a number from %llu to %llu, not '%s'\n", cli_prog,
            opt, (unsigned long long)min, (unsigned long long)max, s ? s : "");
    return -1;
}

/* The next positional entry still unset takes a. */
static int take_arg(const cli_opt *t, size_t n, const char *a)
{
    for (size_t k = 0; k < n; k++) {
        const char **out = t[k].out;
        if (!t[k].name && t[k].kind == CLI_K_STR && !*out) {
            *out = a;
            return 1;
        }
    }
    return 0;
}

/* Stores the value v of option o (named a): 1, or -1 when it is bad. */
static int take_value(const cli_opt *o, const char *prog, const char *a, const char *v)
{
    uint64_t x;
    if (!v && (o->need || o->kind == CLI_K_STR)) {
        fprintf(stderr, "%s: %s needs %s\n", prog, a, o->need ? o->need : "a value");
        return -1;
    }
    switch (o->kind) {
    case CLI_K_STR:
        *(const char **)o->out = v;
        return 1;
    case CLI_K_FN:
        return o->fn(o->out, a, v) ? -1 : 1;
    default:
        break;
    }
    if (cli_u64(a, v, o->min, o->max, &x))
        return -1;
    if (o->kind == CLI_K_U64)
        *(uint64_t *)o->out = x;
    else if (o->kind == CLI_K_U32)
        *(uint32_t *)o->out = (uint32_t)x;
    else
        *(int *)o->out = (int)x;
    return 1;
}

/* "--x", "--x on|off", "--x=on|off". */
static int take_onoff(const cli_opt *o, const char *prog, int argc, char **argv, int *i,
                      const char *eq)
{
    const char *v = eq ? eq + 1 : *i + 1 < argc ? argv[*i + 1] : NULL;
    int on = v && !strcmp(v, "on"), off = v && !strcmp(v, "off");
    if (eq && !on && !off) {
        fprintf(stderr, "%s: %s takes on or off\n", prog, o->name);
        return -1;
    }
    if (!eq && (on || off))
        (*i)++;
    *(int *)o->out = !off;
    return 1;
}

/* The option of the table named a (up to an '=' when eq), or NULL. */
static const cli_opt *find(const cli_opt *t, size_t n, const char *a, const char *eq)
{
    size_t len = eq ? (size_t)(eq - a) : strlen(a);
    for (size_t k = 0; k < n; k++)
        if (t[k].name && strlen(t[k].name) == len && !strncmp(t[k].name, a, len))
            return &t[k];
    return NULL;
}

/* "-vvv": a counted short option repeated. */
static int count_cluster(const cli_opt *t, size_t n, const char *a)
{
    char one[3] = {'-', a[1], 0};
    const cli_opt *o = find(t, n, one, NULL);
    if (!o || o->kind != CLI_K_COUNT || a[1] == '-')
        return 0;
    for (const char *p = a + 1; *p; p++)
        if (*p != a[1])
            return 0;
    *(int *)o->out += (int)strlen(a + 1);
    return 1;
}

int cli_take(const cli_opt *t, size_t n, const char *prog, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (a[0] != '-' || !a[1])
        return take_arg(t, n, a);
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL; /* --opt=value */
    const cli_opt *o = find(t, n, a, eq);
    if (!o)
        return count_cluster(t, n, a);
    int takes = o->kind != CLI_K_FLAG && o->kind != CLI_K_SET && o->kind != CLI_K_COUNT &&
                o->kind != CLI_K_HELP && o->kind != CLI_K_ONOFF;
    if (eq && !takes && o->kind != CLI_K_ONOFF) {
        fprintf(stderr, "%s: %s takes no value\n", prog, o->name);
        return -1;
    }
    switch (o->kind) {
    case CLI_K_FLAG:
        *(int *)o->out = 1;
        return 1;
    case CLI_K_COUNT:
        (*(int *)o->out)++;
        return 1;
    case CLI_K_SET:
        *(int *)o->out = (int)o->min;
        return 1;
    case CLI_K_HELP:
        return 0; /* cli_parse's */
    case CLI_K_ONOFF:
        return take_onoff(o, prog, argc, argv, i, eq);
    default:
        break;
    }
    if (eq)
        return take_value(o, prog, o->name, eq + 1);
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    (*i)++;
    return take_value(o, prog, a, v);
}

static int is_help(const cli_opt *t, size_t n, const char *a)
{
    for (size_t k = 0; k < n; k++)
        if (t[k].kind == CLI_K_HELP && !strcmp(t[k].name, a))
            return 1;
    return !strcmp(a, "--help") || (!strcmp(a, "-h") && !find(t, n, "-h", NULL));
}

int cli_version(const char *prog)
{
    printf("%s %s\n", prog, dw_version());
    return 0;
}

int cli_parse(int argc, char **argv, const char *prog, void (*help)(void), const cli_opt *t,
              size_t n, cli_more_fn *more, void *ctx)
{
    int opts = 1; /* until "--" */
    cli_prog = prog;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && is_help(t, n, a)) {
            help();
            return 0;
        }
        if (opts && !strcmp(a, "--version"))
            return cli_version(prog);
        if (opts && !strcmp(a, "--")) {
            opts = 0;
            continue;
        }
        int r = opts || a[0] != '-' ? cli_take(t, n, prog, argc, argv, &i) : take_arg(t, n, a);
        if (!r && more && (opts || a[0] != '-'))
            r = more(ctx, argc, argv, &i);
        if (r < 0)
            return 2;
        if (!r) {
            if (a[0] == '-' && a[1] && opts)
                fprintf(stderr, "%s: unknown option '%s' (%s --help lists them)\n", prog, a,
                        prog);
            else
                fprintf(stderr, "%s: unexpected argument '%s'\n", prog, a);
            return 2;
        }
    }
    return CLI_GO;
}

void cli_mpa_defaults(cli_mpa_opts *o)
{
    o->start_seq = 0;
    o->emss = 1460;
    o->markers = 1;
    o->crc = 1;
    o->ptr_base = DW_MPA_PTR_DRAFT;
}

void cli_mpa_tx_settings(const cli_mpa_opts *o, dw_mpa_tx_settings *ts)
{
    dw_mpa_tx_settings_default(ts);
    ts->start_seq = o->start_seq;
    ts->emss = o->emss;
    ts->markers = o->markers;
    ts->crc = o->crc;
    ts->ptr_base = o->ptr_base;
}

void cli_mpa_rx_settings(const cli_mpa_opts *o, dw_mpa_rx_settings *rs)
{
    dw_mpa_rx_settings_default(rs);
    rs->start_seq = o->start_seq;
    rs->markers = o->markers;
    rs->crc = o->crc;
}

/* Which of a and b v is (0, 1), or -1 after "ddpwire: NAME takes A or B". */
static int one_of(const char *name, const char *v, const char *a, const char *b)
{
    if (v && !strcmp(v, a))
        return 0;
    if (v && !strcmp(v, b))
        return 1;
    fprintf(stderr, "%s: %s takes %s or %s\n", cli_prog, name, a, b);
    return -1;
}

static int ptr_base(void *out, const char *name, const char *v)
{
    int k = one_of(name, v, "draft", "rfc5044");
    if (k >= 0)
        *(dw_mpa_ptr_base *)out = k ? DW_MPA_PTR_RFC5044 : DW_MPA_PTR_DRAFT;
    return k < 0 ? -1 : 0;
}

int cli_mpa_option(void *mpa_opts, int argc, char **argv, int *i)
{
    cli_mpa_opts *o = mpa_opts;
    const cli_opt t[] = {
        CLI_SET("--no-markers", &o->markers, 0),
        CLI_ONOFF("--markers", &o->markers),
        CLI_SET("--no-crc", &o->crc, 0),
        CLI_ONOFF("--crc", &o->crc),
        CLI_U32("--start-seq", &o->start_seq, 0, UINT32_MAX),
        CLI_U32("--emss", &o->emss, 1, 65535),
        CLI_FN("--ptr-base", &o->ptr_base, ptr_base),
    };
    return cli_take(t, CLI_N(t), cli_prog, argc, argv, i);
}

int cli_writev_all(int fd, struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t n = writev(fd, iov, cnt > 1024 ? 1024 : cnt);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        while (cnt > 0 && (size_t)n >= iov->iov_len) {
            n -= (ssize_t)iov->iov_len;
            iov++, cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

int cli_write_all(int fd, const void *buf, size_t len)
{
    struct iovec v = {(void *)buf, len};
    return cli_writev_all(fd, &v, 1);
}

ssize_t cli_read_some(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static int startup(void *out, const char *name, const char *v)
{
    int k = one_of(name, v, "immediate", "negotiate");
    if (k >= 0)
        *(dw_sock_startup *)out = k ? DW_SOCK_NEGOTIATE : DW_SOCK_IMMEDIATE;
    return k < 0 ? -1 : 0;
}

/* --mpa-rev: 1 (RFC 5044) or 2 (RFC 6581, the enhanced set-up). */
static int mpa_rev(void *out, const char *name, const char *v)
{
    int k = one_of(name, v, "1", "2");
    if (k >= 0)
        *(uint8_t *)out = (uint8_t)(k + 1);
    return k < 0 ? -1 : 0;
}

static int framing(void *out, const char *name, const char *v)
{
    if (dw_framing_parse(v, out))
        return fprintf(stderr, "ddpwire: %s takes mpa or ift\n", name), -1;
    return 0;
}

int cli_sock_valid(const char *prog, const dw_sock_settings *o)
{
    if (o->framing == DW_FRAMING_IFT && o->startup == DW_SOCK_NEGOTIATE) {
        fprintf(stderr, "%s: --framing ift has no negotiated start-up (use --startup "
                        "immediate)\n", prog);
        return 2;
    }
    return CLI_GO;
}

int cli_sock_option(void *sock_opts, int argc, char **argv, int *i)
{
    dw_sock_settings *o = sock_opts;
    const cli_opt t[] = {
        CLI_SET("--no-markers", &o->markers, 0),
        CLI_ONOFF("--markers", &o->markers),
        CLI_SET("--no-crc", &o->crc, 0),
        CLI_ONOFF("--crc", &o->crc),
        CLI_FN("--startup", &o->startup, startup),
        CLI_FN("--framing", &o->framing, framing),
        CLI_FN("--mpa-rev", &o->rev, mpa_rev),
        CLI_INT("--timeout", &o->timeout_ms, 0, 3600000),
    };
    if (!strcmp(argv[*i], "--pack")) {
        o->seg_mode = DW_MPA_SEG_PACKED;
        return 1;
    }
    return cli_take(t, CLI_N(t), cli_prog, argc, argv, i);
}
