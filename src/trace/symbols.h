/* heapreplay — symbols of a trace's stacks (docs/CAPTURE.md "Symbols").
 *
 * A captured stack holds return addresses and the module map of the
 * captured process (src/trace/stacks.h). hr_stacks_symbolize resolves them
 * offline with elfutils libdwfl: each module that one of the frames falls in
 * is reported at its recorded load bias, its GNU build id compared with the
 * captured one, and every frame that has an address and no name yet gets its
 * function, file and line (the ELF symbol table's name alone when the module
 * has no debug info); a call inside inlined code gets one frame per inlined
 * function, innermost first, marked inl, before its real function's. Each
 * frame is a unique address (stacks.h interns them), so each address is
 * resolved once. The stack table is replaced (same stack ids' content in the
 * same order; t->site follows): pointers into the old one are stale.
 *
 * It never fails because of the binaries: a module whose file is missing,
 * unreadable or of another build id gets one note and its frames keep their
 * address (shown as module+0xOFF by the reports). Built without libdw, it
 * resolves nothing and notes that once. */
#ifndef HEAPREPLAY_SYMBOLS_H
#define HEAPREPLAY_SYMBOLS_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "trace/trace.h"

typedef struct hr_symbolize_opts {
    FILE *notes;      /* one line per module that could not be used; NULL: silent */
    const char *root; /* prefix of the module paths (a copy of the captured system's
                       * files); NULL: the paths as recorded */
    /* filled by hr_stacks_symbolize: */
    uint32_t frames_named;    /* address frames that got a function name (1 or more frames) */
    uint32_t frames_unnamed;  /* address frames left as module+0xOFF */
    uint32_t modules_noted;   /* modules missing, unreadable or of another build */
} hr_symbolize_opts_t;

hr_symbolize_opts_t hr_symbolize_default(void);

/* Resolves t's address frames in place (see above). 0, or -1 only on out of
 * memory (err set). A trace without stacks is left as it is. */
int hr_stacks_symbolize(hr_trace_t *t, hr_symbolize_opts_t *opts, hr_error_t *err);

/* C++ names for display and for plan patterns: `name` demangled into buf
 * ("_ZN7Surface9from_fileE..." -> "Surface::from_file(...)"), by libstdc++'s
 * __cxa_demangle looked up at run time (dlopen "libstdc++.so.6"), so that
 * heapreplay gains no link dependency. Returns buf when demangled, else name
 * itself (not a mangled name, not valid, or no libstdc++ on this machine).
 * A name that does not fit buf is cut. */
const char *hr_demangle(const char *name, char *buf, size_t cap);
/* 1 when the demangler was found (after the first hr_demangle call that needed
 * it, or on this call); 0: C++ names stay mangled. */
int hr_demangle_available(void);

#endif
