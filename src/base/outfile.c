/* Atomic, checked output files (see outfile.h). */
#include "base/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The stream's backend: a descriptor and the errno of its first failed write
 * (stdio forgets why a write failed; ferror() only says that one did).
 *
 * After a failed write the sink takes and drops the rest (no more system
 * calls) and reports success to stdio, so every writer, however it checks
 * its writes, runs to its end and the one place that reports is the commit
 * (or hr_stdout_check): one line, "PATH: cannot write: No space left on
 * device", never a writer's own vaguer guess or an empty reason. */
typedef struct sink {
    int fd;
    int err;
} sink_t;

static ssize_t sink_write(void *c, const char *buf, size_t n) {
    sink_t *s = c;
    size_t done = 0;
    while (!s->err && done < n) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            s->err = w < 0 ? errno : ENOSPC;
        else
            done += (size_t)w;
    }
    return (ssize_t)n;
}

/* Set by hr_outfile_note_oom(): the output lacks a part. */
static int output_oom;

void hr_outfile_note_oom(void) {
    output_oom = 1;
}

int hr_outfile_oom(void) {
    return output_oom;
}

/* hr_memstream_open's buffer. */
typedef struct memsink {
    char  **out;
    size_t *out_len;
    char   *b;
    size_t  n, cap;
    int     failed;
} memsink_t;

static void memsink_publish(memsink_t *m) {
    *m->out = m->failed ? NULL : m->b;
    *m->out_len = m->failed ? 0 : m->n;
}

static ssize_t memsink_write(void *c, const char *p, size_t n) {
    memsink_t *m = c;
    if (!m->failed && m->n + n + 1 > m->cap) {
        size_t cap = m->cap ? m->cap : 256;
        while (cap < m->n + n + 1)
            cap *= 2;
        char *nb = realloc(m->b, cap);
        if (nb) {
            m->b = nb;
            m->cap = cap;
        } else {
            m->failed = 1;
            hr_outfile_note_oom();
        }
    }
    if (m->failed) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(m->b + m->n, p, n);
    m->n += n;
    m->b[m->n] = 0;
    memsink_publish(m);
    return (ssize_t)n;
}

static int memsink_close(void *c) {
    memsink_t *m = c;
    if (!m->failed && !m->b && !(m->b = calloc(1, 1))) { /* nothing written: "" */
        m->failed = 1;
        hr_outfile_note_oom();
    }
    if (m->failed) {
        free(m->b);
        m->b = NULL;
    }
    memsink_publish(m);
    int rc = m->failed ? -1 : 0;
    free(m);
    return rc;
}

FILE *hr_memstream_open(char **buf, size_t *len) {
    *buf = NULL;
    *len = 0;
    memsink_t *m = calloc(1, sizeof *m);
    cookie_io_functions_t io = {NULL, memsink_write, NULL, memsink_close};
    FILE *f = m ? fopencookie(m, "w", io) : NULL;
    if (!f) {
        free(m);
        hr_outfile_note_oom();
        return NULL;
    }
    m->out = buf;
    m->out_len = len;
    return f;
}

static int sink_close(void *c) {
    sink_t *s = c;
    int rc = close(s->fd);
    if (rc != 0 && !s->err)
        s->err = errno;
    return rc;
}

static FILE *sink_stream(hr_outfile_t *o, int fd) {
    sink_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fd = fd;
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    FILE *f = fopencookie(s, "w", io);
    if (!f) {
        free(s);
        return NULL;
    }
    o->cookie = s;
    return f;
}

static void outfile_clear(hr_outfile_t *o) {
    free(o->name);
    free(o->path);
    free(o->tmp);
    free(o->cookie);
    memset(o, 0, sizeof *o);
}

/* Temporary files are ".BASE" TMP_TAG "PID-XXXXXX": the writer's pid in
 * the name lets the next write of the same target tell a temporary file
 * whose writer is gone (killed with -9, or the machine lost power) from one
 * a live writer is still filling. */
#define TMP_TAG ".heapreplay-"

/* Removes the stale temporary files of `base` in the directory `dir` (dlen
 * bytes of it, "" for the current one): those whose pid no longer runs.
 * Best effort: an unreadable directory or a file that cannot be removed is
 * left as it is. A pid reused by another process keeps its file, which
 * errs on the side of leaving it. */
static void remove_stale(const char *dir, size_t dlen, const char *base) {
    char dpath[PATH_MAX], prefix[NAME_MAX + 2], full[PATH_MAX];
    snprintf(dpath, sizeof dpath, "%.*s", dlen ? (int)dlen : 1, dlen ? dir : ".");
    int plen = snprintf(prefix, sizeof prefix, ".%s" TMP_TAG, base);
    if (plen <= 0 || (size_t)plen >= sizeof prefix)
        return;
    DIR *d = opendir(dpath);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (errno || pid <= 0 || *end != '-' || strlen(end) != 7)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* running (or not ours to ask): still being written */
        if ((size_t)snprintf(full, sizeof full, "%s/%s", dpath, e->d_name) < sizeof full)
            (void)unlink(full);
    }
    closedir(d);
}

/* The temporary file next to `path` (after removing stale ones), created
 * with the mode a fresh file would get (or the target's mode when it
 * exists). */
static int make_temp(hr_outfile_t *o, const struct stat *target) {
    const char *slash = strrchr(o->path, '/');
    size_t dlen = slash ? (size_t)(slash - o->path) + 1 : 0;
    const char *base = o->path + dlen;
    remove_stale(o->path, dlen, base);
    size_t n = dlen + 1 + strlen(base) + sizeof TMP_TAG + 24 + 8;
    if (!(o->tmp = malloc(n)))
        return -1;
    snprintf(o->tmp, n, "%.*s.%s" TMP_TAG "%ld-XXXXXX", (int)dlen, o->path, base,
             (long)getpid());
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    mode_t mode;
    if (target) {
        mode = target->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    return fd;
}

FILE *hr_outfile_open(hr_outfile_t *o, const char *path, hr_error_t *err) {
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->is_stdout = 1;
        o->f = stdout;
        return o->f;
    }
    struct stat st;
    int exists = stat(path, &st) == 0;
    char *real = exists ? realpath(path, NULL) : NULL;
    o->path = real ? real : strdup(path);
    o->name = strdup(path);
    if (!o->path || !o->name) {
        hr_error_set(err, "%s: cannot create: %s", path, strerror(ENOMEM));
        outfile_clear(o);
        return NULL;
    }
    int fd;
    if (exists && !S_ISREG(st.st_mode))
        fd = open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    else
        fd = make_temp(o, exists ? &st : NULL);
    if (fd < 0) {
        hr_error_set(err, "%s: cannot create: %s", path, strerror(errno));
        outfile_clear(o);
        return NULL;
    }
    if (!(o->f = sink_stream(o, fd))) {
        hr_error_set(err, "%s: cannot create: %s", path, strerror(errno));
        close(fd);
        if (o->tmp)
            unlink(o->tmp);
        outfile_clear(o);
        return NULL;
    }
    return o->f;
}

/* fsync of the directory holding `path`, so that the rename survives a crash
 * of the machine. Best effort: some file systems refuse it. */
static void sync_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

int hr_outfile_commit(hr_outfile_t *o, hr_error_t *err) {
    if (!o->f)
        return -1;
    if (o->is_stdout) {
        int rc = hr_stdout_check(err);
        memset(o, 0, sizeof *o);
        return rc;
    }
    sink_t *s = o->cookie;
    int flushed = fflush(o->f) == 0 && !ferror(o->f);
    int e = s->err ? s->err : flushed ? 0 : EIO;
    if (!e && output_oom)
        e = ENOMEM;
    if (!e && o->tmp && fsync(s->fd) != 0)
        e = errno;
    if (fclose(o->f) != 0 && !e)
        e = s->err ? s->err : EIO;
    o->f = NULL;
    if (!e && o->tmp && rename(o->tmp, o->path) != 0)
        e = errno;
    if (e) {
        hr_error_set(err, "%s: cannot write: %s", o->name, strerror(e));
        if (o->tmp)
            unlink(o->tmp);
        outfile_clear(o);
        return -1;
    }
    if (o->tmp)
        sync_dir(o->path);
    outfile_clear(o);
    return 0;
}

void hr_outfile_abort(hr_outfile_t *o) {
    if (o->is_stdout) {
        fflush(stdout);
        memset(o, 0, sizeof *o);
        return;
    }
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    outfile_clear(o);
}

/* Standard output's recorder once hr_stdout_capture() has run. */
static sink_t stdout_sink = {1, 0};
static int stdout_captured;

static int sink_keep_open(void *c) {
    (void)c;
    return 0;
}

void hr_stdout_capture(void) {
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_keep_open};
    FILE *f = fopencookie(&stdout_sink, "w", io);
    if (!f)
        return; /* then errors are still detected, with a vaguer reason */
    setvbuf(f, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
    fflush(stdout);
    stdout = f;
    stdout_captured = 1;
}

int hr_stdout_check(hr_error_t *err) {
    errno = 0;
    int failed = fflush(stdout) != 0;
    int e = stdout_captured && stdout_sink.err ? stdout_sink.err : errno;
    if (!failed && output_oom) {
        hr_error_set(err, "standard output: cannot write: %s", strerror(ENOMEM));
        output_oom = 0; /* reported once */
        return -1;
    }
    if (failed || ferror(stdout) || (stdout_captured && stdout_sink.err)) {
        /* Without the capture, stdio keeps no errno for an earlier failed
         * write: all that is known then is that one failed. */
        hr_error_set(err, "standard output: cannot write: %s", strerror(e ? e : EIO));
        /* Reported once: a later check sees only later failures. */
        clearerr(stdout);
        stdout_sink.err = 0;
        return -1;
    }
    return 0;
}
