/* libheapreplay-capture.so, part 6: call stacks of allocations and the
 * module map (capture --stacks, docs/CAPTURE.md "Call stacks").
 *
 * With HEAPREPLAY_CAPTURE_STACKS=DEPTH (1..HR_CAP_STACK_MAX) every allocation
 * hook asks hr_cap_stack_id() for the id of its call stack:
 *  - Unwinding: libunwind's unw_backtrace (DWARF CFI with libunwind's
 *    per-thread cache; Debian builds its libraries without frame pointers,
 *    so walking frame pointers would stop in the first one). It runs inside
 *    the hook, under the thread's guard: whatever libunwind allocates passes
 *    through unrecorded (capture_int.h), and it takes no lock of ours.
 *  - The library's own frames (the hook, reallocarray -> realloc, this file)
 *    are the leading frames inside its own mapping: they are skipped, so
 *    frame 0 is the return address in the caller of malloc.
 *  - Deduplication: one global open-addressing table of (two 64-bit hashes of
 *    the frames -> id), fixed size, mmap'd once (untouched pages cost
 *    nothing), filled with compare-and-swap: no lock, no allocation. A new
 *    stack gets the next id and one STACK record (its frames) in the buffer
 *    of the thread that met it; the allocation records carry only the id.
 *    Two 64-bit hashes stand for the frames: a false match needs both to
 *    collide. A slot claimed but not yet published (its thread was
 *    interrupted by a signal whose handler allocates with the same stack), or
 *    a full table, gives a fresh id and one more STACK record: the importer
 *    interns stacks by content, so that costs bytes, never correctness.
 *  - The module map: a MODULE record per mapped object (dl_iterate_phdr: path,
 *    load bias, extent, GNU build id from its PT_NOTE), written at start and
 *    again for the objects not yet written whenever a new stack holds an
 *    address outside every known object (a library dlopen'ed since).
 *    dlopen itself is not interposed: glibc resolves a relative name against
 *    the RUNPATH of dlopen's caller, which an interposer would change.
 *    The rescan is skipped, not waited for, while another thread (or this
 *    thread, from a signal handler) is rescanning: waiting could deadlock
 *    against the loader's lock; the next new stack outside the map retries. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture_int.h"

int hr_cap_stack_depth; /* 0: stacks off */

#ifndef HAVE_LIBUNWIND
/* Built without libunwind: `heapreplay capture --stacks` refuses to run
 * (cmd_capture.c), and the environment variable alone records no stacks. */
void hr_cap_stacks_init(void) {}
void hr_cap_stacks_start(void) {}
uint32_t hr_cap_stack_id(void) { return 0; }
#else
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define HR_STACK_SLOTS (1u << 20)            /* table slots (24 MiB of address space) */
#define HR_STACK_FILL (HR_STACK_SLOTS / 4 * 3) /* stop inserting beyond this */
#define HR_STACK_PROBES 64u
#define HR_STACK_SPINS 1000u

typedef struct slot {
    _Atomic uint64_t h1; /* 0: empty; claimed by CAS */
    uint64_t h2;         /* written before id */
    _Atomic uint32_t id; /* 0: claimed, not yet published */
    uint32_t pad;
} slot_t;

static slot_t *table;
static _Atomic uint32_t next_id = 1, filled;

/* ---- the module map ------------------------------------------------------ */
#define HR_MAX_MODULES 4096
typedef struct mod_range {
    uintptr_t lo, hi; /* [lo, hi): load bias + PT_LOAD extent */
} mod_range_t;
static mod_range_t mods[HR_MAX_MODULES];
static _Atomic unsigned n_mods;
static atomic_flag scanning = ATOMIC_FLAG_INIT;
static uintptr_t self_lo, self_hi; /* this library's own mapping */

static int known(uintptr_t a) {
    unsigned n = atomic_load_explicit(&n_mods, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        if (a >= mods[i].lo && a < mods[i].hi)
            return 1;
    return 0;
}

/* Lowercase hex of the GNU build id in the object's PT_NOTE segments into
 * out (room: 2 * 64 + 1); "" when it has none. */
static void build_id(const struct dl_phdr_info *info, char *out) {
    static const char hex[] = "0123456789abcdef";
    out[0] = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *e = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= e) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t nsz = (nh->n_namesz + 3u) & ~3u, dsz = (nh->n_descsz + 3u) & ~3u;
            const unsigned char *name = p + sizeof *nh, *desc = name + nsz;
            if (desc + dsz > e)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= 64) {
                for (unsigned k = 0; k < nh->n_descsz; k++) {
                    out[2 * k] = hex[desc[k] >> 4];
                    out[2 * k + 1] = hex[desc[k] & 15];
                }
                out[2 * nh->n_descsz] = 0;
                return;
            }
            p = desc + dsz;
        }
    }
}

/* dl_iterate_phdr callback: writes a MODULE record for each object not yet known. */
static int scan_one(struct dl_phdr_info *info, size_t size, void *ctx) {
    (void)size;
    int *first = ctx;
    uintptr_t end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD &&
            info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz > end)
            end = info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz;
    uintptr_t lo = info->dlpi_addr, hi = lo + end;
    unsigned n = atomic_load_explicit(&n_mods, memory_order_relaxed);
    for (unsigned i = 0; i < n; i++)
        if (mods[i].lo == lo && mods[i].hi == hi)
            return 0;
    if (!end || n == HR_MAX_MODULES)
        return 0;
    char payload[4096 + 1 + 129];
    size_t len = 0;
    const char *name = info->dlpi_name;
    if ((!name || !name[0]) && *first) { /* the main program has no name */
        ssize_t r = readlink("/proc/self/exe", payload, 4096);
        len = r > 0 ? (size_t)r : 0;
    } else if (name) {
        /* dlopen("./x.so") keeps the name as given: made absolute against
         * the current directory (the one the loader resolved it in, unless
         * the program changed directory since). A name without '/' (the
         * vDSO) is no file and stays as it is. */
        if (name[0] != '/' && strchr(name, '/') && getcwd(payload, 2048)) {
            len = strlen(payload);
            payload[len++] = '/';
            if (name[0] == '.' && name[1] == '/')
                name += 2;
        }
        size_t nl = strnlen(name, 2047);
        memcpy(payload + len, name, nl);
        len += nl;
    }
    *first = 0;
    payload[len++] = 0;
    build_id(info, payload + len);
    len += strlen(payload + len);
    mods[n].lo = lo;
    mods[n].hi = hi;
    atomic_store_explicit(&n_mods, n + 1, memory_order_release);
    hr_cap_emit(hr_cap_tick(0), HR_CAP_MODULE, lo, end, len, payload, len);
    return 0;
}

/* Writes the objects mapped now and not written yet (skipped when a scan is
 * under way: see the top of the file). */
static void scan_modules(void) {
    if (atomic_flag_test_and_set_explicit(&scanning, memory_order_acquire))
        return;
    int first = atomic_load_explicit(&n_mods, memory_order_relaxed) == 0;
    dl_iterate_phdr(scan_one, &first);
    atomic_flag_clear_explicit(&scanning, memory_order_release);
}

/* Finds this library's own mapping (the frames to skip). */
static int find_self(struct dl_phdr_info *info, size_t size, void *ctx) {
    (void)size;
    uintptr_t me = (uintptr_t)ctx;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && me >= lo && me < lo + ph->p_memsz) {
            self_lo = lo;
            self_hi = lo + ph->p_memsz;
            return 1;
        }
    }
    return 0;
}

/* Reads HEAPREPLAY_CAPTURE_STACKS and maps the table. Called by hr_cap_log_init. */
void hr_cap_stacks_init(void) {
    const char *v = getenv("HEAPREPLAY_CAPTURE_STACKS");
    long d = v && *v ? strtol(v, NULL, 10) : 0;
    if (d <= 0)
        return;
    void *m = mmap(NULL, (size_t)HR_STACK_SLOTS * sizeof(slot_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return; /* no stacks rather than no capture */
    table = m;
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&hr_cap_stacks_init);
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    hr_cap_stack_depth = d > HR_CAP_STACK_MAX ? HR_CAP_STACK_MAX : (int)d;
}

/* A log starts (the first, or a fork child's own): its stacks and modules
 * are written anew, so the table is emptied (zero pages again) and the map
 * written as it is now. Called by open_log with one thread running (the
 * first log, or the child of a fork). */
void hr_cap_stacks_start(void) {
    if (!hr_cap_stack_depth)
        return;
    madvise(table, (size_t)HR_STACK_SLOTS * sizeof(slot_t), MADV_DONTNEED);
    atomic_store(&filled, 0);
    atomic_store(&n_mods, 0);
    atomic_flag_clear(&scanning);
    scan_modules();
}

/* ---- stacks ------------------------------------------------------------- */
static void emit_stack(uint32_t id, void *const *f, int n) {
    unsigned char payload[HR_CAP_STACK_MAX * 8];
    for (int i = 0; i < n; i++) {
        uint64_t a = (uintptr_t)f[i];
        for (int k = 0; k < 8; k++)
            payload[8 * i + k] = (unsigned char)(a >> (8 * k));
    }
    for (int i = 0; i < n; i++)
        if (!known((uintptr_t)f[i])) {
            scan_modules();
            break;
        }
    hr_cap_emit(hr_cap_tick(0), HR_CAP_STACK, 0, id, (size_t)n * 8, (const char *)payload,
                (size_t)n * 8);
}

static uint32_t fresh(void *const *f, int n) {
    uint32_t id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
    emit_stack(id, f, n);
    return id;
}

uint32_t hr_cap_stack_id(void) {
    void *buf[HR_CAP_STACK_MAX + 16];
    int got = unw_backtrace(buf, hr_cap_stack_depth + 16), skip = 0;
    while (skip < got && (uintptr_t)buf[skip] >= self_lo && (uintptr_t)buf[skip] < self_hi)
        skip++;
    void **f = buf + skip;
    int n = got - skip < hr_cap_stack_depth ? got - skip : hr_cap_stack_depth;
    if (n <= 0)
        return 0;
    uint64_t h1 = 0x243F6A8885A308D3ull, h2 = 0x13198A2E03707344ull;
    for (int i = 0; i < n; i++) {
        uint64_t x = (uintptr_t)f[i];
        h1 = (h1 ^ x) * 0x9E3779B97F4A7C15ull;
        h1 ^= h1 >> 29;
        h2 = (h2 + x) * 0xC2B2AE3D27D4EB4Full;
        h2 ^= h2 >> 31;
    }
    h1 |= 1; /* 0 marks an empty slot */
    for (uint32_t p = 0, i = (uint32_t)(h1 >> 20); p < HR_STACK_PROBES; p++, i++) {
        slot_t *s = &table[i & (HR_STACK_SLOTS - 1)];
        uint64_t k = atomic_load_explicit(&s->h1, memory_order_acquire);
        if (k == 0) {
            if (atomic_load_explicit(&filled, memory_order_relaxed) >= HR_STACK_FILL)
                break;
            if (atomic_compare_exchange_strong_explicit(&s->h1, &k, h1, memory_order_acq_rel,
                                                        memory_order_acquire)) {
                atomic_fetch_add_explicit(&filled, 1, memory_order_relaxed);
                s->h2 = h2;
                uint32_t id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
                /* published first: a thread that meets the stack meanwhile
                 * uses the id (the importer reads every definition first) */
                atomic_store_explicit(&s->id, id, memory_order_release);
                emit_stack(id, f, n);
                return id;
            }
        }
        if (k != h1)
            continue;
        uint32_t id = 0;
        for (unsigned w = 0; w < HR_STACK_SPINS && !id; w++)
            id = atomic_load_explicit(&s->id, memory_order_acquire);
        if (!id)
            break; /* its owner is interrupted (see the top): not shared */
        if (s->h2 == h2)
            return id;
    }
    return fresh(f, n);
}
#endif /* HAVE_LIBUNWIND */
