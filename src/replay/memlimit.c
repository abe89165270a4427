/* The memory limit of a replay process (memlimit.h). */
#include "replay/memlimit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

uint64_t hr_mem_limit_for(uint64_t opt, uint64_t peak_live, uint32_t n_ids) {
    if (opt == HR_MEM_LIMIT_NONE)
        return 0;
    if (opt)
        return opt;
    uint64_t lim = peak_live > UINT64_MAX / 8 ? UINT64_MAX / 2
                                              : 4 * peak_live + HR_MEM_LIMIT_SLACK;
    if (lim < HR_MEM_LIMIT_FLOOR)
        lim = HR_MEM_LIMIT_FLOOR;
    lim += (uint64_t)HR_MEM_LIMIT_PER_ID * n_ids;
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0) {
        uint64_t cap = (uint64_t)pages * (uint64_t)psz / 4 * 3;
        if (lim > cap)
            lim = cap > HR_MEM_LIMIT_FLOOR ? cap : HR_MEM_LIMIT_FLOOR;
    }
    return lim;
}

uint64_t hr_proc_anon_rss(pid_t pid) {
    char path[48], buf[160];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    /* size resident shared text lib data dt, in pages */
    char *end;
    unsigned long long size = strtoull(buf, &end, 10);
    unsigned long long res = strtoull(end, &end, 10), shared = strtoull(end, &end, 10);
    (void)size;
    long psz = sysconf(_SC_PAGESIZE);
    return res > shared ? (uint64_t)(res - shared) * (uint64_t)(psz > 0 ? psz : 4096) : 0;
}

const char *hr_mem_fmt(uint64_t bytes, char *buf, size_t n) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int k = 0;
    while (v >= 1024 && k < 4)
        v /= 1024, k++;
    if (k == 0 || v == (double)(uint64_t)v)
        snprintf(buf, n, "%.0f %s", v, unit[k]);
    else
        snprintf(buf, n, "%.2f %s", v, unit[k]);
    return buf;
}
