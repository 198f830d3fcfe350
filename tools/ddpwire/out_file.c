/* SPDX-License-Identifier: MIT */
/* Output files: never an input, complete or absent (out_file.h). */
#include "out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int out_file_is_input(const char *path, const char *const *inputs, size_t ninputs)
{
    for (size_t i = 0; i < ninputs; i++)
        if (inputs[i] && (!strcmp(inputs[i], path) || same_file(inputs[i], path)))
            return 1;
    return 0;
}

int out_file_open(out_file *o, const char *path, const char *const *inputs, size_t ninputs,
                  const char *who, const char *opt)
{
    memset(o, 0, sizeof *o);
    if (out_file_is_input(path, inputs, ninputs)) {
        fprintf(stderr, "%s: %s %s is an input: not overwritten\n", who, opt, path);
        return -1;
    }
    size_t n = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp) {
        fprintf(stderr, "%s: out of memory\n", who);
        out_file_abort(o);
        return -1;
    }
    snprintf(o->tmp, n + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        fprintf(stderr, "%s: %s %s: %s\n", who, opt, path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        out_file_abort(o);
        return -1;
    }
    mode_t m = umask(0);
    umask(m);
    if (fchmod(fd, 0666 & ~m) || !(o->f = fdopen(fd, "w"))) {
        fprintf(stderr, "%s: %s %s: %s\n", who, opt, path, strerror(errno));
        close(fd);
        out_file_abort(o);
        return -1;
    }
    return 0;
}

int out_file_commit(out_file *o, const char *who)
{
    int err = 0;
    if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
        err = errno ? errno : EIO;
    if (fclose(o->f) && !err)
        err = errno ? errno : EIO;
    o->f = NULL;
    if (!err && rename(o->tmp, o->path))
        err = errno;
    if (err) {
        fprintf(stderr, "%s: %s: %s (nothing written)\n", who, o->path, strerror(err));
        out_file_abort(o);
        return -1;
    }
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return 0;
}

void out_file_abort(out_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    o->f = NULL;
    o->tmp = o->path = NULL;
}
