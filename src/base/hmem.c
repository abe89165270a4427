/* Harness memory outside the malloc heap (see hmem.h). */
#include "base/hmem.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_round(size_t n) {
    static size_t pg;
    if (!pg) {
        long v = sysconf(_SC_PAGESIZE);
        pg = v > 0 ? (size_t)v : 4096;
    }
    if (n == 0)
        return pg;
    if (n > SIZE_MAX - pg)
        return 0;
    return (n + pg - 1) & ~(pg - 1);
}

void *hr_hmem_alloc(size_t n, unsigned flags) {
    size_t len = page_round(n);
    if (!len) {
        errno = ENOMEM;
        return NULL;
    }
    int mf = MAP_PRIVATE | MAP_ANONYMOUS | ((flags & HR_HMEM_POPULATE) ? MAP_POPULATE : 0);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, mf, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *hr_hmem_realloc(void *p, size_t old_n, size_t new_n) {
    if (!p)
        return hr_hmem_alloc(new_n, 0);
    size_t ol = page_round(old_n), nl = page_round(new_n);
    if (!nl) {
        errno = ENOMEM;
        return NULL;
    }
    if (ol == nl)
        return p;
    void *q = mremap(p, ol, nl, MREMAP_MAYMOVE);
    return q == MAP_FAILED ? NULL : q;
}

void hr_hmem_free(void *p, size_t n) {
    if (p)
        munmap(p, page_round(n));
}

/* Each chunk starts with this header; objects follow. */
typedef struct chunk_hdr {
    struct chunk_hdr *next;
    size_t            len;
} chunk_hdr_t;

void hr_harena_init(hr_harena_t *a, size_t chunk) {
    memset(a, 0, sizeof *a);
    a->chunk = chunk ? chunk : (size_t)1 << 20;
}

void *hr_harena_alloc(hr_harena_t *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    if (!a->cur || (size_t)(a->end - a->cur) < n) {
        size_t want = sizeof(chunk_hdr_t) + 16 + n;
        size_t len = want > a->chunk ? want : a->chunk;
        chunk_hdr_t *c = hr_hmem_alloc(len, 0);
        if (!c)
            return NULL;
        c->next = a->chunks;
        c->len = len;
        a->chunks = c;
        a->cur = (char *)c + ((sizeof *c + 15) & ~(size_t)15);
        a->end = (char *)c + len;
    }
    void *p = a->cur;
    a->cur += n;
    return p; /* fresh mapping: already zero */
}

void hr_harena_free(hr_harena_t *a) {
    chunk_hdr_t *c = a->chunks;
    while (c) {
        chunk_hdr_t *next = c->next;
        hr_hmem_free(c, c->len);
        c = next;
    }
    a->chunks = NULL;
    a->cur = a->end = NULL;
}
