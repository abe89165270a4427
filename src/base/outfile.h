/* Atomic, checked output files (every file a command writes goes through here).
 *
 * hr_outfile_open() gives a FILE* that writes to a temporary file in the
 * target's directory (".NAME.heapreplay-PID-XXXXXX", PID the writer's; one
 * whose writer no longer runs, left by a kill -9, is removed by the next
 * open of the same target); hr_outfile_commit() flushes it, checks
 * every write, fsyncs it and renames it over the target, so that a reader, a
 * concurrent writer or a kill -9 sees either the old file or the whole new
 * one, never a mixture or a truncated file. hr_outfile_abort() removes the
 * temporary file and leaves the target untouched.
 *
 * Exceptions, written in place with the same checks (renaming over them
 * would replace the device or pipe with a plain file):
 *   - "-"            standard output (commit flushes it, does not close it);
 *   - an existing target that is not a regular file (/dev/full, /dev/null, a
 *     FIFO, a terminal).
 * A symbolic link to a regular file is followed: the link stays, the file it
 * names is replaced.
 *
 * Errors are one line naming the path with strerror: "PATH: cannot create:
 * ...", "PATH: cannot write: ...". The first failing write's errno is kept
 * (the stream records it), so a full disk says "No space left on device"
 * even when a later call hides it. After that failure the stream drops what
 * follows and tells its writer nothing (no error flag): the writer runs to
 * its end and the commit reports, so every command gives the same one line
 * (stdout likewise, through hr_stdout_check). */
#ifndef HR_BASE_OUTFILE_H
#define HR_BASE_OUTFILE_H

#include <stdio.h>

#include "base/error.h"

typedef struct hr_outfile {
    FILE *f;         /* where to write; NULL when not open */
    char *name;      /* the target as given (for messages) */
    char *path;      /* the target (resolved through a symlink) */
    char *tmp;       /* the temporary file, NULL when written in place */
    int   is_stdout; /* "-" */
    void *cookie;    /* the write-error recorder behind f (not for stdout) */
} hr_outfile_t;

/* Opens `path` ("-" = stdout) for writing. Returns o->f, or NULL with err. */
FILE *hr_outfile_open(hr_outfile_t *o, const char *path, hr_error_t *err);

/* Flushes, checks, syncs, closes and renames into place. 0, or -1 with err
 * (then the temporary file is removed and the target is as it was). */
int hr_outfile_commit(hr_outfile_t *o, hr_error_t *err);

/* Drops what was written: closes and removes the temporary file (in-place
 * outputs are just closed). Safe on an outfile that failed to open. */
void hr_outfile_abort(hr_outfile_t *o);

/* Routes stdout through a stream that keeps the errno of its first failed
 * write (call once, first thing in main, before anything is printed), so
 * that hr_stdout_check() can say why. Line-buffered on a terminal. */
void hr_stdout_capture(void);

/* Checks standard output at the end of a command: flushes it and reports a
 * write that failed at any time. 0, or -1 with err ("standard output: cannot
 * write: ..."). */
int hr_stdout_check(hr_error_t *err);

/* Notes that a part of the output could not be made for lack of memory and
 * was left out (base/json.c calls it when a value cannot be allocated:
 * report builders drop such a value, they do not check each one). Every
 * later hr_outfile_commit() and hr_stdout_check() then fails with "Cannot
 * allocate memory", so an incomplete report is never written as if whole. */
void hr_outfile_note_oom(void);
/* open_memstream() with a checked buffer: glibc's memory stream drops a
 * write it cannot make room for without setting the stream's error flag, so
 * a text built in memory could come out cut with nobody told. Here a write
 * that cannot grow the buffer fails (ferror() is set, errno ENOMEM) and is
 * noted with hr_outfile_note_oom(). *buf and *len are set by fclose (and
 * fflush): the text with a terminating NUL, or NULL after a failed write.
 * NULL (out of memory, noted) when the stream cannot be made. */
FILE *hr_memstream_open(char **buf, size_t *len);

/* 1 once hr_outfile_note_oom() was called (e.g. a parse failed for lack of
 * memory, not for bad input). */
int hr_outfile_oom(void);

#endif
