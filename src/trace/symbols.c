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
 * dwfl_standard_find_debuginfo), so installed -dbgsym packages are used.
 *
 * A return address inside inlined code becomes several frames: the inlined
 * function at its line, then each function it was inlined into at the line
 * of that call (chain_at). That changes the stacks' frame lists, so the
 * stack table is rebuilt (rebuild): same stacks, same order, sites mapped. */
#include <dlfcn.h>
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

/* ---- C++ names (with or without libdw) --------------------------------------- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

/* libstdc++'s demangler, looked up once; NULL when this machine has none.
 * Single-threaded use (the report and plan commands). */
static cxa_demangle_fn demangler(void) {
    static int looked;
    static cxa_demangle_fn fn;
    if (!looked) {
        looked = 1;
        void *so = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (so)
            *(void **)&fn = dlsym(so, "__cxa_demangle"); /* kept open for the process */
    }
    return fn;
}

int hr_demangle_available(void) {
    return demangler() != NULL;
}

const char *hr_demangle(const char *name, char *buf, size_t cap) {
    if (!name || name[0] != '_' || name[1] != 'Z' || !cap)
        return name;
    cxa_demangle_fn fn = demangler();
    int status = -1;
    char *out = fn ? fn(name, NULL, NULL, &status) : NULL;
    if (!out || status != 0) {
        free(out);
        return name;
    }
    snprintf(buf, cap, "%s", out);
    free(out);
    return buf;
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

/* The resolved frames: per old frame its chain, innermost first. */
typedef struct chain {
    uint32_t first, n; /* fr[first .. first + n); n = 0: unresolved, kept as it is */
} chain_t;
typedef struct resolved {
    hr_frame_t *fr;
    size_t n, cap;
    chain_t *of; /* per old frame */
} resolved_t;

/* Appends frame f with func/file (interned; NULL: unknown) and line. 0, -1 OOM. */
static int push(hr_trace_t *t, resolved_t *r, hr_frame_t f, const char *fn, const char *file,
                int line) {
    int64_t fi = fn ? hr_trace_intern(t, fn) : -1, li = file ? hr_trace_intern(t, file) : -1;
    if ((fn && fi < 0) || (file && li < 0))
        return -1;
    if (r->n == r->cap) {
        size_t c = r->cap ? r->cap * 2 : 1024;
        hr_frame_t *v = realloc(r->fr, c * sizeof *v);
        if (!v)
            return -1;
        r->fr = v;
        r->cap = c;
    }
    f.func = fn ? (uint32_t)fi + 1 : 0;
    f.file = file ? (uint32_t)li + 1 : 0;
    f.line = line > 0 ? (uint32_t)line : 0;
    r->fr[r->n++] = f;
    return 0;
}

/* The chain of frame f (an address in module mod): the function whose code
 * is at the call (the innermost inlined one, at the line table's line), then
 * each function it was inlined into, at the line of that inlined call
 * (DW_AT_call_file/line), up to the real function (a DWARF subprogram);
 * without DWARF, the ELF symbol alone. All but the last are inl = 1.
 * Returns the frames appended (0: no name found), -1 on OOM. */
/* A function DIE's name: its linkage name when it has one (C++: the mangled,
 * qualified name "_ZN5Level4loadEi", printed demangled as "Level::load(int)"
 * where DW_AT_name says only "load"; through DW_AT_abstract_origin and
 * DW_AT_specification), else its DW_AT_name (C). */
static const char *die_name(Dwarf_Die *d) {
    Dwarf_Attribute a;
    const char *ln = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_linkage_name, &a));
    if (!ln)
        ln = dwarf_formstring(dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a));
    return ln ? ln : dwarf_diename(d);
}

static int chain_at(hr_trace_t *t, resolved_t *r, Dwfl_Module *mod, const hr_frame_t *f) {
    Dwarf_Addr pc = f->addr - 1, bias = 0; /* a return address: the call is before it */
    Dwfl_Line *l = dwfl_module_getsrc(mod, pc);
    int line = 0, added = 0;
    const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *scopes = NULL, *inner = NULL;
    int ns = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
    /* dwarf_getscopes follows an inlined function's abstract definition
     * outwards, not its caller: from the innermost function scope, the
     * chain of DIEs that contain it (dwarf_getscopes_die) holds the callers */
    for (int i = 0; i < ns && !inner; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram ||
            dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
            inner = &scopes[i];
    Dwarf_Die *chain = NULL;
    ns = inner ? dwarf_getscopes_die(inner, &chain) : 0;
    free(scopes);
    scopes = chain;
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (cu && dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    hr_frame_t nf = *f;
    for (int i = 0; i < ns; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        nf.inl = 1;
        if (push(t, r, nf, die_name(&scopes[i]), file, line) != 0) {
            free(scopes);
            return -1;
        }
        added++;
        if (tag == DW_TAG_subprogram)
            break;
        Dwarf_Attribute a;
        Dwarf_Word cf = 0, cl = 0;
        file = files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf) == 0 &&
                       cf < nfiles ? dwarf_filesrc(files, cf, NULL, NULL) : NULL;
        line = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) == 0 ? (int)cl : 0;
    }
    free(scopes);
    if (!added && (file || dwfl_module_addrname(mod, pc))) {
        if (push(t, r, nf, dwfl_module_addrname(mod, pc), file, line) != 0)
            return -1;
        added = 1;
    }
    if (added)
        r->fr[r->n - 1].inl = 0; /* the real function (or the outermost known) */
    return added;
}

/* Replaces t's stack table by one whose frames are the chains (an old frame
 * left unresolved stays as it is), the stacks in the same order, and maps
 * t->site onto the new ids. 0, -1 OOM (t unchanged). */
static int rebuild(hr_trace_t *t, const resolved_t *r) {
    hr_stacks_t *old = t->stacks, *s = hr_stacks_new();
    uint32_t *map = calloc(old->n_stacks + 1, sizeof *map), *newix = NULL, *buf = NULL;
    size_t nbuf = 0, cap_buf = 0;
    int rc = s && map ? 0 : -1;
    for (uint32_t m = 0; m < old->n_modules && rc == 0; m++)
        rc = hr_stacks_add_module(s, old->modules[m].path, old->modules[m].build_id,
                                  old->modules[m].base, old->modules[m].size) < 0 ? -1 : 0;
    if (rc == 0 && !(newix = malloc((r->n + old->n_frames + 1) * sizeof *newix)))
        rc = -1;
    /* newix[k]: the new index of r->fr[k]; newix[r->n + i]: of unresolved old frame i */
    for (size_t k = 0; k < r->n && rc == 0; k++) {
        int64_t ix = hr_stacks_frame_put(s, &r->fr[k]);
        rc = ix < 0 ? -1 : 0;
        newix[k] = (uint32_t)ix;
    }
    for (uint32_t i = 0; i < old->n_frames && rc == 0; i++) {
        if (r->of[i].n)
            continue;
        int64_t ix = hr_stacks_frame_put(s, &old->frames[i]);
        rc = ix < 0 ? -1 : 0;
        newix[r->n + i] = (uint32_t)ix;
    }
    for (uint32_t id = 1; id <= old->n_stacks && rc == 0; id++) {
        uint32_t n;
        const uint32_t *ix = hr_stacks_get(old, id, &n);
        nbuf = 0;
        for (uint32_t j = 0; j < n && rc == 0; j++) {
            const chain_t *c = &r->of[ix[j]];
            uint32_t k0 = c->n ? c->first : 0, kn = c->n ? c->n : 1;
            if (nbuf + kn > cap_buf) {
                cap_buf = (nbuf + kn) * 2;
                uint32_t *nb = realloc(buf, cap_buf * sizeof *nb);
                if (!nb) {
                    rc = -1;
                    break;
                }
                buf = nb;
            }
            for (uint32_t k = 0; k < kn; k++)
                buf[nbuf++] = c->n ? newix[k0 + k] : newix[r->n + ix[j]];
        }
        int64_t nid = rc == 0 ? hr_stacks_intern(s, buf, (uint32_t)nbuf) : -1;
        rc = nid < 0 ? -1 : 0;
        map[id] = (uint32_t)nid;
    }
    if (rc == 0) {
        for (size_t i = 0; t->site && i < t->n_events; i++)
            if (t->site[i] && t->site[i] <= old->n_stacks)
                t->site[i] = map[t->site[i]];
        hr_stacks_free(old);
        t->stacks = s;
    } else {
        hr_stacks_free(s);
    }
    free(buf);
    free(newix);
    free(map);
    return rc;
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
    resolved_t r = {NULL, 0, 0, calloc(s->n_frames, sizeof(chain_t))};
    rc = r.of ? 0 : -1;
    for (uint32_t i = 0; i < s->n_frames && rc == 0; i++) {
        const hr_frame_t *f = &s->frames[i];
        if (!f->addr || f->func)
            continue;
        int got = 0;
        r.of[i].first = (uint32_t)r.n;
        if (f->module && f->module <= s->n_modules && state[f->module - 1] == M_OK)
            got = chain_at(t, &r, handle[f->module - 1], &s->frames[i]);
        rc = got < 0 ? -1 : 0;
        r.of[i].n = got > 0 ? (uint32_t)got : 0;
        if (got > 0)
            o->frames_named++;
        else
            o->frames_unnamed++;
    }
    if (rc == 0 && r.n)
        rc = rebuild(t, &r);
    free(r.fr);
    free(r.of);
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
