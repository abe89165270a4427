/* heapreplay — the error type (public API).
 *
 * One convention everywhere: a function that can fail takes an `hr_error_t *`
 * last (NULL allowed: the message is dropped) and returns -1 or NULL on
 * failure with one line in err->msg: "FILE:LINE: what was expected",
 * "FILE: offset N: ..." or "WHAT: why". Messages never end in a newline.
 */
#ifndef HEAPREPLAY_ERROR_H
#define HEAPREPLAY_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hr_error {
    char msg[512];
} hr_error_t;

/* Formats the message into err (no-op when err is NULL). */
void hr_error_set(hr_error_t *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
