/* Shared helpers of the ddpwire command-line tool. */
#include "cli.h"

#include <ddpwire/mpa_sock.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    fprintf(stderr, "ddpwire: %s needs a number from %llu to %llu, not '%s'\n",
            opt, (unsigned long long)min, (unsigned long long)max, s ? s : "");
    return -1;
}

void cli_mpa_defaults(cli_mpa_opts *o)
{
    o->start_seq = 0;
    o->emss = 1460;
    o->markers = 1;
    o->ptr_base = DW_MPA_PTR_DRAFT;
}

void cli_mpa_tx_settings(const cli_mpa_opts *o, dw_mpa_tx_settings *ts)
{
    dw_mpa_tx_settings_default(ts);
    ts->start_seq = o->start_seq;
    ts->emss = o->emss;
    ts->markers = o->markers;
    ts->ptr_base = o->ptr_base;
}

void cli_mpa_rx_settings(const cli_mpa_opts *o, dw_mpa_rx_settings *rs)
{
    dw_mpa_rx_settings_default(rs);
    rs->start_seq = o->start_seq;
    rs->markers = o->markers;
}

int cli_mpa_option(cli_mpa_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t n;
    if (!strcmp(a, "--no-markers")) {
        o->markers = 0;
        return 1;
    }
    if (!strcmp(a, "--start-seq")) {
        if (cli_u64(a, v, 0, UINT32_MAX, &n))
            return -1;
        o->start_seq = (uint32_t)n;
    } else if (!strcmp(a, "--emss")) {
        if (cli_u64(a, v, 1, 65535, &n))
            return -1;
        o->emss = (uint32_t)n;
    } else if (!strcmp(a, "--ptr-base")) {
        if (v && !strcmp(v, "draft"))
            o->ptr_base = DW_MPA_PTR_DRAFT;
        else if (v && !strcmp(v, "rfc5044"))
            o->ptr_base = DW_MPA_PTR_RFC5044;
        else {
            fprintf(stderr, "ddpwire: --ptr-base takes draft or rfc5044\n");
            return -1;
        }
    } else {
        return 0;
    }
    (*i)++;
    return 1;
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

int cli_sock_option(dw_sock_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    uint64_t n;
    if (!strcmp(a, "--no-markers")) {
        o->markers = 0;
        return 1;
    }
    if (!strcmp(a, "--pack")) {
        o->seg_mode = DW_MPA_SEG_PACKED;
        return 1;
    }
    if (!strcmp(a, "--startup")) {
        if (v && !strcmp(v, "immediate"))
            o->startup = DW_SOCK_IMMEDIATE;
        else if (v && !strcmp(v, "negotiate"))
            o->startup = DW_SOCK_NEGOTIATE;
        else {
            fprintf(stderr, "ddpwire: --startup takes immediate or negotiate\n");
            return -1;
        }
    } else if (!strcmp(a, "--framing")) {
        if (dw_framing_parse(v, &o->framing)) {
            fprintf(stderr, "ddpwire: --framing takes mpa or ift\n");
            return -1;
        }
    } else if (!strcmp(a, "--timeout")) {
        if (cli_u64(a, v, 0, 3600000, &n))
            return -1;
        o->timeout_ms = (int)n;
    } else {
        return 0;
    }
    (*i)++;
    return 1;
}

int cli_hostport(const char *s, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon = strrchr(s, ':');
    host[0] = 0;
    if (s[0] == '[') { /* [v6]:port */
        const char *end = strchr(s, ']');
        if (!end || end[1] != ':' || (size_t)(end - s - 1) >= hcap)
            return -1;
        memcpy(host, s + 1, (size_t)(end - s - 1));
        host[end - s - 1] = 0;
        colon = end + 1;
    } else if (colon) {
        if ((size_t)(colon - s) >= hcap || strchr(s, ':') != colon)
            return -1;
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = 0;
    }
    const char *p = colon ? colon + 1 : s;
    if (!*p || strlen(p) >= pcap)
        return -1;
    strcpy(port, p);
    return 0;
}
