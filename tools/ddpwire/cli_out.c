/* SPDX-License-Identifier: MIT */
/* The tool's resource failures (memory, writes) and its output files: one
 * status (CLI_EXIT_RESOURCE) and one line naming what failed; a file is
 * written beside its name and renamed into place only when complete. */
#include "cli.h"

#include <ddpwire/common.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* stdout through the tool's own stream: every write whole (short writes
 * and EINTR retried) and the first failure's errno kept. */
static int out_err;      /* the errno of stdout's first failed write */
static int out_reported; /* a "could not complete" line was printed */

static ssize_t stdout_write(void *cookie, const char *buf, size_t len)
{
    (void)cookie;
    if (out_err)
        return 0;
    if (cli_write_all(STDOUT_FILENO, buf, len)) {
        out_err = errno ? errno : EIO;
        return 0;
    }
    return (ssize_t)len;
}

void cli_stdout_init(void)
{
    static char buf[BUFSIZ];
    cookie_io_functions_t io = {NULL, stdout_write, NULL, NULL};
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is EPIPE, reported, not a silent death */
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return; /* out of memory at start: the C library's stdout, checked at the end */
    setvbuf(f, buf, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, sizeof buf);
    stdout = f;
}

int cli_stdout_failed(void)
{
    return out_err || ferror(stdout);
}

int cli_stdout_finish(const char *prog, int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout) && !out_err)
        return rc;
    int e = out_err ? out_err : errno;
    if (!out_reported && rc != CLI_EXIT_RESOURCE)
        cli_cannot(prog, "writing stdout", e ? strerror(e) : "write error");
    out_reported = 1;
    return CLI_EXIT_RESOURCE;
}

int cli_cannot(const char *prog, const char *what, const char *why)
{
    fprintf(stderr, "%s: could not complete: %s: %s\n", prog, what, why);
    out_reported = 1;
    return CLI_EXIT_RESOURCE;
}

int cli_cannot_path(const char *prog, const char *verb, const char *path, const char *why)
{
    fprintf(stderr, "%s: could not complete: %s %s: %s\n", prog, verb, path, why);
    out_reported = 1;
    return CLI_EXIT_RESOURCE;
}

int cli_nomem(const char *prog, const char *what)
{
    return cli_cannot(prog, what, "out of memory");
}

int cli_errno_resource(int e)
{
    return e == ENOMEM || e == ENOSPC || e == EDQUOT || e == EIO || e == EMFILE ||
           e == ENFILE || e == EINTR || e == EPIPE || e == EFBIG;
}

int cli_sock_resource(int rc, int e)
{
    /* EPIPE on a socket is the peer closing, not a resource of ours */
    return rc == DW_ERR_NOMEM || (rc == DW_ERR_IO && (cli_errno_resource(e) || e == ENOBUFS) &&
                                  e != EINTR && e != EPIPE);
}

int cli_stdout_done(const char *prog)
{
    return cli_stdout_finish(prog, 0);
}

/* The stream's writes: whole (short writes and EINTR retried); the first
 * failure's errno is kept (stdio's own would not be). */
static ssize_t outfile_write(void *cookie, const char *buf, size_t len)
{
    cli_outfile *o = cookie;
    if (o->err)
        return 0;
    if (cli_write_all(o->fd, buf, len)) {
        o->err = errno ? errno : EIO;
        return 0;
    }
    return (ssize_t)len;
}

static int outfile_close(void *cookie)
{
    cli_outfile *o = cookie;
    int rc = close(o->fd);
    o->fd = -1;
    return rc;
}

FILE *cli_outfile_open(cli_outfile *o, const char *prog, const char *path)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) { /* /dev/null, a FIFO: as it is */
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
    } else if (!(o->tmp = malloc(strlen(path) + sizeof ".tmp-XXXXXX"))) {
        errno = ENOMEM;
    } else {
        sprintf(o->tmp, "%s.tmp-XXXXXX", path);
        mode_t um = umask(0);
        umask(um);
        o->fd = mkstemp(o->tmp);
        if (o->fd >= 0 && fchmod(o->fd, 0666 & ~um)) {
            close(o->fd);
            o->fd = -1;
        }
        if (o->fd < 0) {
            int e = errno;
            unlink(o->tmp);
            free(o->tmp);
            o->tmp = NULL;
            errno = e;
        }
    }
    cookie_io_functions_t io = {NULL, outfile_write, NULL, outfile_close};
    if (o->fd >= 0 && !(o->f = fopencookie(o, "w", io))) {
        int e = errno;
        cli_outfile_abort(o);
        errno = e;
    }
    if (!o->f && prog) {
        int e = errno;
        if (cli_errno_resource(e))
            cli_cannot_path(prog, "creating", path, strerror(e));
        else
            fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(e));
        errno = e;
    }
    return o->f;
}

int cli_outfile_failed(cli_outfile *o)
{
    if (o->f && ferror(o->f) && !o->err)
        o->err = errno ? errno : EIO;
    return o->f && ferror(o->f);
}

void cli_outfile_abort(cli_outfile *o)
{
    if (o->f)
        fclose(o->f);
    else if (o->fd >= 0)
        close(o->fd);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

int cli_outfile_commit(cli_outfile *o, const char *prog)
{
    int bad = cli_outfile_failed(o);
    errno = 0;
    bad = bad || !o->f || fflush(o->f) || ferror(o->f) ||
          (o->tmp && fsync(o->fd) && errno != EINVAL);
    int e = o->err ? o->err : errno;
    if (o->f && fclose(o->f) && !bad)
        bad = 1, e = errno;
    o->f = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->path))
        bad = 1, e = errno;
    if (!bad) {
        free(o->tmp);
        o->tmp = NULL;
    }
    const char *path = o->path;
    int removed = bad && o->tmp != NULL;
    cli_outfile_abort(o);
    if (!bad)
        return 0;
    if (prog) {
        char why[160];
        snprintf(why, sizeof why, "%s%s", e ? strerror(e) : "write error",
                 removed ? " (removed)" : "");
        cli_cannot_path(prog, "writing", path, why);
    }
    errno = e ? e : EIO;
    return CLI_EXIT_RESOURCE;
}
