/* The error type (src/base/error.h). */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>

void hr_error_set(hr_error_t *err, const char *fmt, ...) {
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}
