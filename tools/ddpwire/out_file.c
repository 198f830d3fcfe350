/* SPDX-License-Identifier: MIT */
/* Output files: never an input, complete or absent (out_file.h). */
#include "out_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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
    o->o.fd = -1;
    if (out_file_is_input(path, inputs, ninputs)) {
        fprintf(stderr, "%s: %s %s is an input: not overwritten\n", who, opt, path);
        return -1;
    }
    if ((o->f = cli_outfile_open(&o->o, NULL, path)))
        return 0;
    int e = errno;
    if (cli_errno_resource(e))
        return cli_cannot_path(who, "creating", path, strerror(e));
    fprintf(stderr, "%s: %s %s: %s\n", who, opt, path, strerror(e));
    return -1;
}

int out_file_commit(out_file *o, const char *who)
{
    o->f = NULL;
    return cli_outfile_commit(&o->o, who);
}

void out_file_abort(out_file *o)
{
    if (o->f)
        cli_outfile_abort(&o->o);
    o->f = NULL;
}
