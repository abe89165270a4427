/* Clocks, RSS and machine description (see sysinfo.h). */
#include "base/sysinfo.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t hr_now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
uint64_t hr_thread_cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

uint64_t hr_ctx_switches(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

static double cycle_hz;

void hr_cycle_hz_set(double hz) {
    if (hz > 0)
        cycle_hz = hz;
}

double hr_cycle_hz(void) {
    double hz = cycle_hz;
    if (hz > 0)
        return hz;
    /* Best of three 7 ms windows: robust against a preemption in one. */
    double best = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t t0 = hr_now_ns(), c0 = hr_cycles(), t1;
        do
            t1 = hr_now_ns();
        while (t1 - t0 < 7000000u);
        uint64_t c1 = hr_cycles();
        double h = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
        if (k == 0 || h < best)
            best = h;
    }
    cycle_hz = best > 0 ? best : 1e9;
    return cycle_hz;
}

uint64_t hr_timer_overhead(void) {
    static uint64_t ovh = UINT64_MAX;
    if (ovh != UINT64_MAX)
        return ovh;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 10000; i++) {
        uint64_t a = hr_cycles(), b = hr_cycles();
        if (b - a < best)
            best = b - a;
    }
    ovh = best;
    return ovh;
}

uint64_t hr_rss_now(void) {
    static int fd = -2;
    if (fd == -2)
        fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[128];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    unsigned long long size, res;
    if (sscanf(buf, "%llu %llu", &size, &res) != 2)
        return 0;
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A "Field:  N kB" line of /proc/self/status, read with read(2) into a stack
 * buffer: stdio would malloc, and in a replay process malloc is the
 * allocator under test. */
static uint64_t status_kib(const char *field) {
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    size_t len = strlen(field);
    for (const char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, field, len) == 0)
            return strtoull(line + len, NULL, 10) * 1024;
    return 0;
}

uint64_t hr_rss_peak(void) { return status_kib("VmHWM:"); }

int hr_rss_peak_reset(void) {
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

static void cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ')
                    c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(out, n, "%s", c);
            }
            break;
        }
    fclose(f);
}

void hr_machine_emit(hr_emit_t *em, const char *key) {
    char host[256] = "unknown", cpu[256], os[512];
    gethostname(host, sizeof host - 1);
    cpu_model(cpu, sizeof cpu);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(os, sizeof os, "unknown");
    hr_emit_obj_begin(em, key);
    hr_emit_str(em, "hostname", host);
    hr_emit_str(em, "cpu", cpu);
    hr_emit_u64(em, "cores", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
    hr_emit_u64(em, "mem_bytes", (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
    hr_emit_str(em, "os", os);
    hr_emit_f64(em, "cycle_hz", hr_cycle_hz());
    hr_emit_obj_end(em);
}
