/* Symbols of a trace's stacks with elfutils libdwfl (symbols.h).
 *
 * Offline: the files are read as they are now, the captured process is
 * gone. Each module that holds a frame still to resolve is reported to one
 * Dwfl session at its recorded load bias (dwfl_report_elf with add_p_vaddr:
 * the captured l_addr plus the ELF's own segment addresses), so a frame's
 * absolute address is looked up as is. Frames are return addresses: the
 * call is the instruction before, so address - 1 is looked up (the call's
 * line, not the next statement's). Debug info comes from the file itself or
 * from the standard places (/usr/lib/debug, .gnu_debuglink, build-id links:
 * dwfl_standard_find_debuginfo), so installed -dbgsym packages are used. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/stacks.h"
#include "trace/symbols.h"

hr_symbolize_opts_t hr_symbolize_default(void) {
    hr_symbolize_opts_t o = {NULL, NULL, 0, 0, 0};
    return o;
}

#ifndef HAVE_LIBDW
int hr_stacks_symbolize(hr_trace_t *t, hr_symbolize_opts_t *opts, hr_error_t *err) {
    (void)err;
    if (!t->stacks || !t->stacks->n_frames)
        return 0;
    for (uint32_t i = 0; i < t->stacks->n_frames; i++)
        opts->frames_unnamed += t->stacks->frames[i].addr && !t->stacks->frames[i].func;
    if (opts->notes && opts->frames_unnamed)
        fprintf(opts->notes, "symbols: off (heapreplay was built without elfutils libdw): "
                             "frames stay module+0xOFF\n");
    return 0;
}
#else
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

static const Dwfl_Callbacks offline_cbs = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

enum { M_UNUSED = 0, M_NEEDED, M_OK, M_NOTED };

static void note(hr_symbolize_opts_t *o, const char *path, const char *what) {
    o->modules_noted++;
    if (o->notes)
        fprintf(o->notes, "symbols: %s: %s; its frames stay module+0xOFF\n", path, what);
}

/* 1 when the file's build id is the captured one (or either is unknown). */
static int same_build(Dwfl_Module *mod, const char *want, char *have, size_t cap) {
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(mod, &bits, &vaddr);
    have[0] = 0;
    if (!want || !*want || n <= 0)
        return 1;
    for (int i = 0; i < n && (size_t)(2 * i + 2) < cap; i++)
        snprintf(have + 2 * i, 3, "%02x", bits[i]);
    return strcmp(have, want) == 0;
}

/* Reports module i (state M_NEEDED) to d; sets its state and handle. */
static void report(Dwfl *d, const hr_module_t *m, const char *root, hr_symbolize_opts_t *o,
                   unsigned char *state, Dwfl_Module **handle) {
    char path[4096 + 1024], what[512], have[160];
    snprintf(path, sizeof path, "%s%s", root ? root : "", m->path);
    *state = M_NOTED;
    if (m->path[0] != '/') { /* the vDSO and the like: no file to read */
        o->modules_noted++;
        return;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(what, sizeof what, "cannot open (%s: moved, deleted or not this machine's)",
                 strerror(errno));
        note(o, path, what);
        return;
    }
    Dwfl_Module *mod = dwfl_report_elf(d, m->path, path, fd, m->base, true);
    if (!mod) {
        close(fd);
        snprintf(what, sizeof what, "not readable as ELF (%s)", dwfl_errmsg(-1));
        note(o, path, what);
        return;
    }
    if (!same_build(mod, m->build_id, have, sizeof have)) {
        snprintf(what, sizeof what, "build id %s, the captured process had %s (rebuilt or "
                 "replaced since)", have, m->build_id);
        note(o, path, what);
        return;
    }
    *state = M_OK;
    *handle = mod;
}

/* The innermost function at pc: the inlined one when the call was inlined,
 * else the containing subprogram (DWARF), else the ELF symbol; NULL. */
static const char *func_at(Dwfl_Module *mod, Dwarf_Addr pc) {
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
    const char *name = NULL;
    if (cu) {
        Dwarf_Die *scopes = NULL;
        int n = dwarf_getscopes(cu, pc - bias, &scopes);
        for (int i = 0; i < n && !name; i++) {
            int tag = dwarf_tag(&scopes[i]);
            if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
                name = dwarf_diename(&scopes[i]);
        }
        free(scopes);
    }
    return name ? name : dwfl_module_addrname(mod, pc);
}

/* Fills frame f (an address in a module reported OK). 0, or -1 on OOM. */
static int resolve(hr_trace_t *t, hr_frame_t *f, Dwfl_Module *mod, hr_symbolize_opts_t *o) {
    Dwarf_Addr pc = f->addr - 1;
    const char *fn = func_at(mod, pc), *file = NULL;
    int line = 0;
    Dwfl_Line *l = dwfl_module_getsrc(mod, pc);
    if (l)
        file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
    if (!fn) {
        o->frames_unnamed++;
        return 0;
    }
    int64_t fi = hr_trace_intern(t, fn), li = file ? hr_trace_intern(t, file) : -1;
    if (fi < 0 || (file && li < 0))
        return -1;
    f->func = (uint32_t)fi + 1;
    f->file = file ? (uint32_t)li + 1 : 0;
    f->line = line > 0 ? (uint32_t)line : 0;
    o->frames_named++;
    return 0;
}

int hr_stacks_symbolize(hr_trace_t *t, hr_symbolize_opts_t *o, hr_error_t *err) {
    hr_stacks_t *s = t->stacks;
    if (!s || !s->n_frames)
        return 0;
    unsigned char *state = calloc(s->n_modules + 1, 1);
    Dwfl_Module **handle = calloc(s->n_modules + 1, sizeof *handle);
    Dwfl *d = dwfl_begin(&offline_cbs);
    int rc = 0;
    if (!state || !handle || !d) {
        hr_error_set(err, "symbols: out of memory");
        rc = -1;
        goto done;
    }
    for (uint32_t i = 0; i < s->n_frames; i++) {
        const hr_frame_t *f = &s->frames[i];
        if (f->addr && !f->func && f->module && f->module <= s->n_modules)
            state[f->module - 1] = M_NEEDED;
    }
    dwfl_report_begin(d);
    for (uint32_t m = 0; m < s->n_modules; m++)
        if (state[m] == M_NEEDED)
            report(d, &s->modules[m], o->root, o, &state[m], &handle[m]);
    dwfl_report_end(d, NULL, NULL);
    for (uint32_t i = 0; i < s->n_frames && rc == 0; i++) {
        hr_frame_t *f = &s->frames[i];
        if (!f->addr || f->func)
            continue;
        if (f->module && f->module <= s->n_modules && state[f->module - 1] == M_OK)
            rc = resolve(t, f, handle[f->module - 1], o);
        else
            o->frames_unnamed++;
    }
    if (rc)
        hr_error_set(err, "symbols: out of memory");
done:
    if (d)
        dwfl_end(d);
    free(handle);
    free(state);
    return rc;
}
#endif
