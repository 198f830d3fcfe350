/* SPDX-License-Identifier: MIT */
/* Shared helpers of listen, send and load: the address from netcat's and
 * our own spellings, messages for users (DW_ERR_* names under -v only), the
 * time and rate of a transfer. */
#include "cli.h"

#include <ddpwire/common.h>

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

int cli_verbose;

/* A port: 1..65535 in decimal. 0 or -1 after saying why. */
static int take_port(const char *prog, const char *p, cli_where *w)
{
    char *end;
    errno = 0;
    unsigned long v = p[0] >= '0' && p[0] <= '9' ? strtoul(p, &end, 10) : 0;
    if (v >= 1 && v <= 65535 && !*end && !errno) {
        snprintf(w->port, sizeof w->port, "%lu", v);
        return 0;
    }
    fprintf(stderr, "%s: port '%s' is not a number from 1 to 65535\n", prog, p);
    return -1;
}

/* A host alone: a name, an IPv4 address, an IPv6 address, bracketed or not. */
static int take_host(const char *prog, const char *h, size_t len, cli_where *w)
{
    const char *s = h;
    if (len >= 2 && h[0] == '[' && h[len - 1] == ']')
        s++, len -= 2;
    if (!len || len >= sizeof w->host || memchr(s, '[', len) || memchr(s, ']', len)) {
        fprintf(stderr, "%s: '%.*s' is not a host name or address\n", prog, (int)len, s);
        return -1;
    }
    memcpy(w->host, s, len);
    w->host[len] = 0;
    return 0;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    while (*s >= '0' && *s <= '9')
        s++;
    return !*s;
}

/* Where the port of a is: after its colon ("HOST:PORT", "[V6]:PORT"), or
 * NULL (a host alone: no colon, a bare IPv6 address or "[V6]"). */
static const char *port_part(const char *a)
{
    const char *colon = strchr(a, ':');
    if (a[0] == '[') {
        const char *end = strchr(a, ']');
        return end && end[1] == ':' ? end + 2 : NULL;
    }
    return colon && !strchr(colon + 1, ':') ? colon + 1 : NULL;
}

/* The forms with the port in a positional argument. */
static int where_args(const char *prog, const char *const *pos, int n, int need_host,
                      cli_where *w)
{
    const char *a = pos[0], *p = port_part(a);
    if (p) /* HOST:PORT, [V6]:PORT, :PORT */
        return (p - 1 == a ? 0 : take_host(prog, a, (size_t)(p - 1 - a), w)) ||
                       take_port(prog, p, w) ? -1 : 1;
    if (!need_host && all_digits(a)) /* PORT */
        return take_port(prog, a, w) ? -1 : 1;
    if (n < 2 || !pos[1]) { /* HOST, and the port must follow */
        fprintf(stderr, "%s: '%s' has no port: give %s\n", prog, a,
                need_host ? "HOST:PORT or HOST PORT" : "ADDR:PORT, ADDR PORT or -p PORT");
        return -1;
    }
    return take_host(prog, a, strlen(a), w) || take_port(prog, pos[1], w) ? -1 : 2;
}

int cli_where_parse(const char *prog, const char *const *pos, int n, const char *popt,
                    int need_host, cli_where *w)
{
    const char *a = n > 0 ? pos[0] : NULL;
    int used;
    memset(w, 0, sizeof *w);
    if (popt) { /* -p PORT [ADDR] */
        if (a && (all_digits(a) || port_part(a))) {
            fprintf(stderr, "%s: '%s' and -p %s: give the port once\n", prog, a, popt);
            return -1;
        }
        used = take_port(prog, popt, w) || (a && take_host(prog, a, strlen(a), w)) ? -1 : !!a;
    } else if (!a) {
        fprintf(stderr, "%s: give %s\n", prog,
                need_host ? "HOST:PORT or HOST PORT" : "[ADDR:]PORT, ADDR PORT or -p PORT");
        return -1;
    } else {
        used = where_args(prog, pos, n, need_host, w);
    }
    if (used >= 0 && need_host && !w->host[0]) {
        fprintf(stderr, "%s: '%s' names no host: give HOST:PORT or HOST PORT\n", prog, a);
        return -1;
    }
    int v6 = strchr(w->host, ':') != NULL;
    snprintf(w->show, sizeof w->show, "%s%s%s:%s", v6 ? "[" : "", w->host[0] ? w->host : "*",
             v6 ? "]" : "", w->port);
    return used;
}

int cli_extra(const char *prog, const char *const *pos, int n, int used)
{
    if (used < n && pos[used]) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", prog, pos[used]);
        return 2;
    }
    return CLI_GO;
}

const char *cli_errtag(int rc)
{
    static char buf[4][48];
    static unsigned k;
    if (!cli_verbose || !rc)
        return "";
    char *b = buf[k++ % 4];
    snprintf(b, sizeof buf[0], " (%s)", dw_err_name(rc));
    return b;
}

char *cli_peer(int fd, char *buf, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char h[64], p[8];
    buf[0] = 0;
    if (getpeername(fd, (struct sockaddr *)&ss, &len) ||
        getnameinfo((struct sockaddr *)&ss, len, h, sizeof h, p, sizeof p,
                    NI_NUMERICHOST | NI_NUMERICSERV))
        return buf;
    const char *a = strncmp(h, "::ffff:", 7) || !strchr(h, '.') ? h : h + 7; /* IPv4 */
    int v6 = strchr(a, ':') != NULL;
    snprintf(buf, cap, "%s%s%s:%s", v6 ? "[" : "", a, v6 ? "]" : "", p);
    return buf;
}

uint64_t cli_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double cli_now(void)
{
    return (double)cli_now_ns() * 1e-9;
}

int64_t cli_now_ms(void)
{
    return (int64_t)(cli_now_ns() / 1000000u);
}

char *cli_rate(char *buf, size_t cap, uint64_t octets, double secs)
{
    static const char *unit[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
    double r = (double)octets * 8 / (secs > 1e-6 ? secs : 1e-6);
    int u = 0;
    while (r >= 1000 && u < 4)
        r /= 1000, u++;
    snprintf(buf, cap, "%.*f s, %.2f %s", secs < 1 ? 3 : 2, secs, r, unit[u]);
    return buf;
}
