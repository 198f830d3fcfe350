/* SPDX-License-Identifier: MIT */
/* The tool's resource failures (memory, writes) and its output files: one
 * status (CLI_EXIT_RESOURCE) and one line naming what failed; a file is
 * written beside its name and renamed into place only when complete. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_cannot(const char *prog, const char *what, const char *why)
{
    fprintf(stderr, "%s: could not complete: %s: %s\n", prog, what, why);
    return CLI_EXIT_RESOURCE;
}

int cli_nomem(const char *prog, const char *what)
{
    return cli_cannot(prog, what, "out of memory");
}

int cli_stdout_done(const char *prog)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    return cli_cannot(prog, "writing stdout", errno ? strerror(errno) : "write error");
}

FILE *cli_outfile_open(cli_outfile *o, const char *prog, const char *path)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) { /* /dev/null, a FIFO: as it is */
        o->f = fopen(path, "wb");
    } else {
        size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
        int fd = (o->tmp = malloc(n)) ? 0 : -1;
        if (o->tmp) {
            snprintf(o->tmp, n, "%s.tmp-XXXXXX", path);
            fd = mkstemp(o->tmp);
        }
        if (fd >= 0) {
            mode_t um = umask(0);
            umask(um);
            if (fchmod(fd, 0666 & ~um) || !(o->f = fdopen(fd, "wb"))) {
                close(fd);
                unlink(o->tmp);
            }
        }
        if (!o->tmp)
            errno = ENOMEM;
    }
    if (!o->f) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
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
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int cli_outfile_commit(cli_outfile *o, const char *prog)
{
    int bad = cli_outfile_failed(o);
    errno = 0;
    bad = bad || !o->f || fflush(o->f) || ferror(o->f) ||
          (o->tmp && fsync(fileno(o->f)) && errno != EINVAL);
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
    if (prog)
        fprintf(stderr, "%s: could not complete: writing %s: %s%s\n", prog, path,
                e ? strerror(e) : "write error", removed ? " (removed)" : "");
    errno = e ? e : EIO;
    return CLI_EXIT_RESOURCE;
}
