/* Page faults, system-call kinds and the cost model of the count lap
 * (kcount.h). */
#include "replay/kcount.h"

#include <string.h>
#include <sys/resource.h>

hr_sys_kind_t hr_sys_kind_of(const char *fn) {
    /* munmap and mremap before mmap: both names contain "mmap"-like text */
    static const struct {
        const char   *part;
        hr_sys_kind_t kind;
    } names[] = {
        {"munmap", HR_SYS_MUNMAP},     {"mremap", HR_SYS_MREMAP}, {"mmap", HR_SYS_MMAP},
        {"madvise", HR_SYS_MADVISE},   {"mprotect", HR_SYS_MPROTECT}, {"brk", HR_SYS_BRK},
    };
    for (size_t i = 0; fn && i < sizeof names / sizeof names[0]; i++)
        if (strstr(fn, names[i].part))
            return names[i].kind;
    return HR_SYS_OTHER;
}

void hr_kfaults_now(hr_kfaults_t *f) {
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_SELF, &ru);
    f->minor = (uint64_t)ru.ru_minflt;
    f->major = (uint64_t)ru.ru_majflt;
}

static uint64_t sub0(uint64_t a, uint64_t b) {
    return b > a ? b - a : 0;
}

hr_kfaults_t hr_kfaults_diff(const hr_kfaults_t *a, const hr_kfaults_t *b) {
    hr_kfaults_t d = {sub0(a->minor, b->minor), sub0(a->major, b->major)};
    return d;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t k) {
    return k && a > UINT64_MAX / k ? UINT64_MAX : a * k;
}

uint64_t hr_kcost(uint64_t insns, uint64_t faults, uint64_t syscalls) {
    return add_sat(add_sat(insns, mul_sat(faults, HR_KCOST_FAULT)),
                   mul_sat(syscalls, HR_KCOST_SYSCALL));
}
