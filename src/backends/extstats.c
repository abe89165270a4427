/* Native statistics of external allocators, looked up by symbol name in the
 * worker process (nothing is linked against them; see engine.h). */
#include <dlfcn.h>
#include <malloc.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/extstats.h"

/* ---- jemalloc: mallctl ---------------------------------------------------- */
typedef int (*hr_mallctl_fn)(const char *, void *, size_t *, void *, size_t);
static hr_mallctl_fn je_ctl;

static uint64_t je_get(const char *name) {
    size_t v = 0, len = sizeof v;
    return je_ctl && je_ctl(name, &v, &len, NULL, 0) == 0 ? v : 0;
}
static void je_refresh(void) {
    uint64_t e = 1;
    size_t len = sizeof e;
    if (je_ctl)
        je_ctl("epoch", &e, &len, &e, len);
}
/* "mapped": bytes in extents the allocator has mapped from the system. Each
 * sample also keeps the highest "allocated" seen (sampled peak). */
static uint64_t je_peak_allocated;
static uint64_t je_footprint(void) {
    je_refresh();
    uint64_t a = je_get("stats.allocated");
    if (a > je_peak_allocated)
        je_peak_allocated = a;
    return je_get("stats.mapped");
}
static void je_emit(hr_emit_t *em) {
    static const char *const keys[] = {"allocated", "active", "metadata", "resident",
                                       "mapped", "retained"};
    je_refresh();
    hr_emit_obj_begin(em, "jemalloc");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "stats.%s", keys[i]);
        hr_emit_u64(em, keys[i], je_get(name));
    }
    hr_emit_u64(em, "peak_allocated_sampled", je_peak_allocated);
    hr_emit_obj_end(em);
}

/* ---- mimalloc: mi_process_info -------------------------------------------- */
typedef void (*hr_mi_info_fn)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *,
                              size_t *, size_t *);
static hr_mi_info_fn mi_info;

typedef struct mi_figures { size_t el, user, sys, rss, peak_rss, commit, peak_commit, faults; } mi_fig_t;
static mi_fig_t mi_read(void) {
    mi_fig_t f;
    memset(&f, 0, sizeof f);
    if (mi_info)
        mi_info(&f.el, &f.user, &f.sys, &f.rss, &f.peak_rss, &f.commit, &f.peak_commit, &f.faults);
    return f;
}
/* Committed bytes: what mimalloc holds from the system. */
static uint64_t mi_footprint(void) { return mi_read().commit; }
static void mi_emit(hr_emit_t *em) {
    mi_fig_t f = mi_read();
    hr_emit_obj_begin(em, "mimalloc");
    hr_emit_u64(em, "current_rss", f.rss);
    hr_emit_u64(em, "peak_rss", f.peak_rss);
    hr_emit_u64(em, "current_commit", f.commit);
    hr_emit_u64(em, "peak_commit", f.peak_commit);
    hr_emit_u64(em, "page_faults", f.faults);
    hr_emit_obj_end(em);
}

/* ---- tcmalloc: MallocExtension_GetNumericProperty ------------------------- */
typedef int (*hr_tc_prop_fn)(const char *, size_t *);
static hr_tc_prop_fn tc_prop;

static uint64_t tc_get(const char *name) {
    size_t v = 0;
    return tc_prop && tc_prop(name, &v) ? v : 0;
}
/* Heap size minus pages already returned to the system. */
static uint64_t tc_footprint(void) {
    uint64_t heap = tc_get("generic.heap_size"), unm = tc_get("tcmalloc.pageheap_unmapped_bytes");
    return heap > unm ? heap - unm : 0;
}
static void tc_emit(hr_emit_t *em) {
    static const char *const keys[] = {"generic.current_allocated_bytes", "generic.heap_size",
                                       "tcmalloc.pageheap_free_bytes",
                                       "tcmalloc.pageheap_unmapped_bytes"};
    hr_emit_obj_begin(em, "tcmalloc");
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        hr_emit_u64(em, strchr(keys[i], '.') + 1, tc_get(keys[i]));
    hr_emit_obj_end(em);
}

/* ---- glibc: mallinfo2 ----------------------------------------------------- */
/* arena (sbrk'd main/thread arenas) + hblkhd (mmapped chunks). */
static uint64_t glibc_footprint(void) {
    struct mallinfo2 mi = mallinfo2();
    return (uint64_t)mi.arena + mi.hblkhd;
}
static void glibc_emit(hr_emit_t *em) {
    struct mallinfo2 mi = mallinfo2();
    hr_emit_obj_begin(em, "glibc");
    hr_emit_u64(em, "arena", mi.arena);
    hr_emit_u64(em, "hblkhd", mi.hblkhd);
    hr_emit_u64(em, "uordblks", mi.uordblks);
    hr_emit_u64(em, "fordblks", mi.fordblks);
    hr_emit_u64(em, "keepcost", mi.keepcost);
    hr_emit_obj_end(em);
}

static const hr_extstats_t ext_je = {"jemalloc", je_footprint, je_emit};
static const hr_extstats_t ext_mi = {"mimalloc", mi_footprint, mi_emit};
static const hr_extstats_t ext_tc = {"tcmalloc", tc_footprint, tc_emit};
static const hr_extstats_t ext_glibc = {"glibc", glibc_footprint, glibc_emit};
static const hr_extstats_t ext_rss = {"rss", NULL, NULL};

const hr_extstats_t *hr_extstats_for(const char *name) {
    if (strcmp(name, "glibc") == 0)
        return &ext_glibc;
    je_ctl = (hr_mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
    mi_info = (hr_mi_info_fn)dlsym(RTLD_DEFAULT, "mi_process_info");
    tc_prop = (hr_tc_prop_fn)dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty");
    if (je_ctl)
        return &ext_je;
    if (mi_info)
        return &ext_mi;
    if (tc_prop)
        return &ext_tc;
    return &ext_rss;
}
