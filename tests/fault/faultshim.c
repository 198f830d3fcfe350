/* SPDX-License-Identifier: MIT */
/*
 * An LD_PRELOAD shim for the CLI torture test (tests/fault/cli_torture.py):
 * makes one chosen allocation or output write of a run fail, or counts
 * them. Environment:
 *   DW_FAULT_ALLOC=N   the Nth malloc/calloc/realloc (from 1) returns NULL
 *                      (ENOMEM)
 *   DW_FAULT_WRITE=N   the Nth write/writev to stdout or a regular file fails;
 *   DW_FAULT_MODE=     enospc (default), eio, epipe: fails with that errno;
 *                      short: writes half and returns that; eintr: -1 EINTR
 *   DW_FAULT_COUNT=F   at exit (or on a SIGTERM the program does not catch),
 *                      appends "ALLOCS WRITES" to file F
 * Counting starts when the shim is loaded (before main). Processes the
 * program forks go on counting in the same sequence (the counters are in
 * shared memory): the Nth allocation is the Nth of the whole run, in
 * whichever process makes it; only the first process reports. Programs it
 * executes (ip, ethtool) run without the shim: the variables are removed
 * from the environment once read. Not for sanitizer builds: ASan replaces
 * malloc itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* in a shared mapping once loaded: forked children count on in it */
static atomic_ulong local_counts[2];
static atomic_ulong *n_counts = local_counts;
#define n_alloc n_counts[0]
#define n_write n_counts[1]
static unsigned long fail_alloc, fail_write;
static pid_t loader; /* the process that reports */
static int mode; /* 0 enospc, 1 eio, 2 epipe, 3 short, 4 eintr */
static const char *count_file;

static unsigned long env_num(const char *name)
{
    const char *v = getenv(name);
    return v ? strtoul(v, NULL, 10) : 0;
}

static void report(void)
{
    char buf[64];
    int fd = count_file && getpid() == loader
                 ? open(count_file, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    if (fd < 0)
        return;
    int n = snprintf(buf, sizeof buf, "%lu %lu\n", (unsigned long)n_alloc,
                     (unsigned long)n_write);
    syscall(SYS_write, fd, buf, (size_t)n);
    close(fd);
}

/* A server stopped with SIGTERM (one that does not catch it) reports too. */
static void on_term(int sig)
{
    report();
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void init(void)
{
    fail_alloc = env_num("DW_FAULT_ALLOC");
    fail_write = env_num("DW_FAULT_WRITE");
    const char *m = getenv("DW_FAULT_MODE");
    static const char *modes[] = {"enospc", "eio", "epipe", "short", "eintr"};
    for (int i = 0; m && i < 5; i++)
        if (!strcmp(m, modes[i]))
            mode = i;
    count_file = getenv("DW_FAULT_COUNT");
    loader = getpid();
    /* mmap does not allocate through malloc: no recursion */
    void *shm = mmap(NULL, sizeof local_counts, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shm != MAP_FAILED)
        n_counts = shm; /* zeroed */
    /* what this program executes runs plain */
    static const char *const vars[] = {"LD_PRELOAD", "DW_FAULT_ALLOC", "DW_FAULT_WRITE",
                                       "DW_FAULT_MODE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    if (count_file) {
        atexit(report);
        signal(SIGTERM, on_term);
    }
    n_alloc = 0; /* what the loader and libc did before does not count */
}

static int alloc_fails(void)
{
    unsigned long k = atomic_fetch_add(&n_alloc, 1) + 1;
    if (fail_alloc && k == fail_alloc) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t n)
{
    return alloc_fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    return alloc_fails() ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    return alloc_fails() ? NULL : __libc_realloc(p, n);
}

/* Outputs: stdout and regular files (not stderr, sockets or pipes in, nor
 * the kernel's settings in /proc/sys and /sys). */
static int is_output(int fd)
{
    struct stat st;
    struct statfs fs;
    if (fd == 2)
        return 0;
    if (fd == 1)
        return 1;
    return !fstat(fd, &st) && S_ISREG(st.st_mode) &&
           !(!fstatfs(fd, &fs) && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC));
}

/* 0: go on; else the result of the faulted call (with *len cut for short). */
static int write_fault(int fd, size_t *len, ssize_t *ret)
{
    if (!is_output(fd))
        return 0;
    unsigned long k = atomic_fetch_add(&n_write, 1) + 1;
    if (!fail_write || k != fail_write)
        return 0;
    static const int errs[] = {ENOSPC, EIO, EPIPE};
    if (mode == 3 && *len > 1) {
        *len /= 2;
        return 0;
    }
    if (mode == 3)
        return 0;
    errno = mode == 4 ? EINTR : errs[mode];
    *ret = -1;
    return 1;
}

ssize_t write(int fd, const void *buf, size_t len)
{
    ssize_t r;
    if (write_fault(fd, &len, &r))
        return r;
    return syscall(SYS_write, fd, buf, len);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    size_t total = 0;
    for (int i = 0; i < cnt; i++)
        total += iov[i].iov_len;
    size_t len = total;
    ssize_t r;
    if (write_fault(fd, &len, &r))
        return r;
    if (len < total && cnt > 0) /* short: the first half of the first iovec */
        return syscall(SYS_write, fd, iov[0].iov_base, iov[0].iov_len > 1 ? iov[0].iov_len / 2 : 1);
    return syscall(SYS_writev, fd, iov, cnt);
}
