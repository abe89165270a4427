/* Importers and the address -> id mapping: repairs counted exactly, output
 * valid; hand-written mtrace log; heaptrack text (plain, gzip, zstd) incl. a
 * cut stream; synthesized capture logs (cut, duplicated, damaged). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "base/rawlog.h"
#include "hr_test.h"
#include "trace/import.h"
#include "trace/stacks.h"

static char tmpdir[] = "/tmp/hrimpXXXXXX";

static const char *tmp(const char *name) {
    static char p[4][256];
    static int k;
    k = (k + 1) & 3;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

static void put(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

static void test_addrmap_repairs(void) {
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    memset(&r, 0, sizeof r);
    hr_trace_init(&t);
    hr_addrmap_t *m = hr_addrmap_new(&t, &r, 0);
    HR_CHECK_EQ_U64(hr_addrmap_alloc(m, 0, 0x1000, 10, 0, 0), 0);
    hr_addrmap_alloc(m, 0, 0x2000, 20, 64, 0);
    hr_addrmap_free(m, 1, 0x1000, 0);          /* cross-thread */
    hr_addrmap_free(m, 0, 0x1000, 0);          /* double */
    hr_addrmap_free(m, 0, 0x9999, 0);          /* unknown */
    hr_addrmap_alloc(m, 0, 0x2000, 30, 0, 0);  /* 0x2000 still live: inversion */
    hr_addrmap_free(m, 1, 0x2000, 0);          /* the late free: dropped */
    hr_addrmap_realloc(m, 0, 0, 0x3000, 40, 0);   /* realloc(NULL) */
    hr_addrmap_realloc(m, 0, 0x3000, 0x3000, 50, 0);
    hr_addrmap_realloc(m, 0, 0x3000, 0, 0, 0);    /* realloc(p,0) */
    hr_addrmap_alloc(m, 0, 0, 60, 0, 0);       /* failed */
    hr_addrmap_calloc(m, 0, 0x4000, 3, 7, 0);
    hr_addrmap_annot(m, 0, HR_OP_MARK, "x", 0, 0);
    hr_addrmap_finish(m);
    HR_CHECK_EQ_U64(r.cross_thread_frees, 1);
    HR_CHECK_EQ_U64(r.double_frees, 1);
    HR_CHECK_EQ_U64(r.unknown_frees, 1);
    HR_CHECK_EQ_U64(r.reuse_inversions, 1);
    HR_CHECK_EQ_U64(r.realloc_null, 1);
    HR_CHECK_EQ_U64(r.realloc_zero, 1);
    HR_CHECK_EQ_U64(r.failed_allocs, 1);
    HR_CHECK_EQ_U64(r.leaked_at_end, 2); /* 0x2000 (30) and 0x4000 */
    HR_CHECK_EQ_U64(hr_trace_validate(&t, "addrmap", &err), 0);
    HR_CHECK_EQ_U64(t.events[1].align, 64);
    HR_CHECK_EQ_U64(t.op_counts[HR_OP_REALLOC], 1);
    HR_CHECK_EQ_U64(t.peak_live, 80); /* 10+20+50 */
    HR_CHECK(t.n_ids <= 3);            /* ids reused */
    hr_trace_free(&t);
}

static void test_mtrace_sample(void) {
    const char *srcdir = getenv("srcdir");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/capture/sample.mtrace", srcdir ? srcdir : ".");
    HR_CHECK_EQ_U64(hr_import_detect(path), HR_IMPORT_MTRACE);
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_file(path, HR_IMPORT_UNKNOWN, &t, &r, &err), 0);
    HR_CHECK_STR(err.msg, "");
    HR_CHECK_EQ_U64(t.op_counts[HR_OP_ALLOC], 3);
    HR_CHECK_EQ_U64(t.op_counts[HR_OP_REALLOC], 1);
    HR_CHECK_EQ_U64(t.op_counts[HR_OP_FREE], 2);
    HR_CHECK_EQ_U64(t.peak_live, 300 + 400); /* after the realloc 100 -> 400 */
    HR_CHECK_EQ_U64(r.unknown_frees, 1);
    HR_CHECK_EQ_U64(r.double_frees, 1);
    HR_CHECK_EQ_U64(r.failed_allocs, 2);
    HR_CHECK_EQ_U64(r.leaked_at_end, 1);
    HR_CHECK_EQ_U64(r.truncated, 0);
    hr_trace_free(&t);
    /* bad line: one-line error with file:line */
    const char *bad = tmp("bad.mtrace");
    const char *badtext = "= Start\n@ x + 0x10 0x20\n@ x ? 0x10\n";
    put(bad, badtext, strlen(badtext));
    hr_trace_init(&t);
    HR_CHECK(hr_import_file(bad, HR_IMPORT_MTRACE, &t, &r, &err) != 0);
    HR_CHECK(strstr(err.msg, "bad.mtrace:3:") != NULL);
    hr_trace_free(&t);
}

static const char ht_text[] =
    "v 10400 3\nX ./game\ns 4 main\na 64 1\na c8 1\n+ 0\n+ 1\n+ 0\nc 5\n- 0\n- 1\n- 1\n+ 1\n";

static void check_ht(const char *path, int cut) {
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_detect(path), HR_IMPORT_HEAPTRACK);
    HR_CHECK_EQ_U64(hr_import_file(path, HR_IMPORT_UNKNOWN, &t, &r, &err), 0);
    if (!cut) {
        HR_CHECK_EQ_U64(t.op_counts[HR_OP_ALLOC], 4);
        HR_CHECK_EQ_U64(t.op_counts[HR_OP_FREE], 2);
        HR_CHECK_EQ_U64(r.unknown_frees, 1);
        HR_CHECK_EQ_U64(t.peak_live, 100 + 200 + 100);
        HR_CHECK_EQ_U64(r.truncated, 0);
    } else {
        HR_CHECK_EQ_U64(r.truncated, 1);
        HR_CHECK(t.n_events < 6);
    }
    hr_trace_free(&t);
}

static void test_heaptrack(void) {
    put(tmp("ht.txt"), ht_text, sizeof ht_text - 1);
    check_ht(tmp("ht.txt"), 0);
#ifdef HAVE_ZLIB
    gzFile g = gzopen(tmp("ht.gz"), "wb");
    gzwrite(g, ht_text, sizeof ht_text - 1);
    gzclose(g);
    check_ht(tmp("ht.gz"), 0);
#endif
#ifdef HAVE_ZSTD
    char z[512];
    size_t zn = ZSTD_compress(z, sizeof z, ht_text, sizeof ht_text - 1, 3);
    HR_CHECK(!ZSTD_isError(zn));
    put(tmp("ht.zst"), z, zn);
    check_ht(tmp("ht.zst"), 0);
    put(tmp("htcut.zst"), z, zn - 6);
    check_ht(tmp("htcut.zst"), 1);
#endif
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    put(tmp("htbad.txt"), "v 1 3\n+ 5\n", 11);
    hr_trace_init(&t);
    HR_CHECK(hr_import_file(tmp("htbad.txt"), HR_IMPORT_HEAPTRACK, &t, &r, &err) != 0);
    HR_CHECK(strstr(err.msg, "htbad.txt:2:") != NULL);
    hr_trace_free(&t);
}

/* A capture log: header + one block per run of records with the same tid
 * (clocks given), optional END. rec_end[i]: file offset just after record i. */
static size_t make_log(unsigned char *buf, const hr_cap_rec_t *recs, int n, int end,
                       size_t *rec_end) {
    hr_cap_header_t h = {HR_CAP_MAGIC, HR_CAP_VERSION, HR_CAP_ENDIAN_TAG, 0, 1, 0, 0, 0};
    size_t off = 0;
    memcpy(buf, &h, sizeof h);
    off += sizeof h;
    for (int i = 0; i < n;) {
        size_t bh = off;
        hr_cap_delta_t d = {0, 0};
        off += sizeof(hr_cap_block_t);
        int k = i;
        for (; k < n && recs[k].tid == recs[i].tid; k++) {
            off += hr_cap_put_rec(buf + off, &d, &recs[k], NULL);
            if (rec_end)
                rec_end[k] = off;
        }
        hr_cap_block_t b = {HR_CAP_BLOCK_MAGIC, (uint32_t)(off - bh - sizeof b), recs[i].tid,
                            (uint32_t)(k - i), 0, 0};
        memcpy(buf + bh, &b, sizeof b);
        i = k;
    }
    if (end) {
        hr_cap_rec_t e = {99, 3, 1000, 0, 7, HR_CAP_END, 0};
        hr_cap_delta_t d = {0, 0};
        size_t len = hr_cap_put_rec(buf + off + sizeof(hr_cap_block_t), &d, &e, NULL);
        hr_cap_block_t eb = {HR_CAP_BLOCK_MAGIC, (uint32_t)len, 7, 1, 0, 0};
        memcpy(buf + off, &eb, sizeof eb);
        off += sizeof eb + len;
    }
    return off;
}

static void test_capture_logs(void) {
    /* blocks out of clock order on purpose (sorted by clock), one duplicate,
     * a second thread */
    hr_cap_rec_t recs[] = {
        {3, 0x100, 0, 0, 8, HR_CAP_FREE, 0},
        {4, 0x100, 32, 0, 8, HR_CAP_MALLOC, 0},
        {1, 0x100, 24, 0, 7, HR_CAP_MALLOC, 0},
        {2, 0x200, 2, 8, 7, HR_CAP_CALLOC, 0},
        {2, 0x200, 2, 8, 7, HR_CAP_CALLOC, 0},
        {5, 0x300, 0x200, 64, 7, HR_CAP_REALLOC, 0},
    };
    unsigned char buf[2048];
    size_t rec_end[6];
    size_t len = make_log(buf, recs, 6, 1, rec_end);
    put(tmp("a.cap"), buf, len);
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_detect(tmp("a.cap")), HR_IMPORT_CAPTURE);
    HR_CHECK_EQ_U64(hr_import_file(tmp("a.cap"), HR_IMPORT_UNKNOWN, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(t.n_events, 5);
    HR_CHECK_EQ_U64(r.duplicates, 1);
    HR_CHECK_EQ_U64(r.cross_thread_frees, 1);
    HR_CHECK_EQ_U64(r.threads, 2);
    HR_CHECK_EQ_U64(r.reuse_inversions, 0);
    HR_CHECK_EQ_U64(t.peak_live, 96); /* 24 + 16, -24, +32, 16 -> 64 */
    HR_CHECK_EQ_U64(r.overhead_ns, 1000);
    HR_CHECK_STR(r.ended, "exit");
    hr_trace_free(&t);
    /* cut inside the 3rd record of the second block, no END */
    len = make_log(buf, recs, 6, 0, rec_end);
    put(tmp("b.cap"), buf, rec_end[3] + 1);
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_file(tmp("b.cap"), HR_IMPORT_CAPTURE, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(r.truncated, 1);
    HR_CHECK(strstr(r.truncation, "cut after 2 of 4 records") != NULL);
    HR_CHECK_EQ_U64(r.events_in, 4);
    hr_trace_free(&t);
    /* header only cut: an error naming the offset */
    put(tmp("c.cap"), buf, 20);
    hr_trace_init(&t);
    HR_CHECK(hr_import_file(tmp("c.cap"), HR_IMPORT_CAPTURE, &t, &r, &err) != 0);
    HR_CHECK(strstr(err.msg, "offset 20") != NULL);
    hr_trace_free(&t);
    /* damaged block magic after a good block: read up to it */
    len = make_log(buf, recs, 2, 0, NULL);
    memset(buf + len, 0xab, 64);
    put(tmp("d.cap"), buf, len + 64);
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_file(tmp("d.cap"), HR_IMPORT_CAPTURE, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(r.truncated, 1);
    HR_CHECK(strstr(r.truncation, "bad magic") != NULL);
    HR_CHECK_EQ_U64(r.events_in, 2);
    hr_trace_free(&t);
}

/* TOUCHED records (version 3): each becomes a `touched` event right before the
 * event that created its block, with that event's thread and timestamp; one
 * for no live block is ignored and counted; after a failed realloc the last
 * record of the block wins; a version 2 log has no such op. */
static void test_capture_touched(void) {
    hr_cap_rec_t recs[] = {
        {1, 0x10000, 100000, 0, 7, HR_CAP_MALLOC, 0},
        {2, 0x40000, 200000, 0, 8, HR_CAP_MALLOC, 0},
        {3, 0x999000, 5000, 0, 7, HR_CAP_TOUCHED, 0}, /* no such block */
        {4, 0x40000, 12288, 0, 7, HR_CAP_TOUCHED, 0}, /* thread 8's block, freed by 7 */
        {5, 0x40000, 0, 0, 7, HR_CAP_FREE, 0},
        {6, 0x10000, 8192, 0, 7, HR_CAP_TOUCHED, 0},
        {7, 0x10000, 0x10000, 300000, 7, HR_CAP_REALLOC, 0}, /* in place: a new id */
        {8, 0x10000, 20000, 0, 7, HR_CAP_TOUCHED, 0},
        {9, 0x10000, 0, 0, 7, HR_CAP_FREE, 0},
        {10, 0x80000, 70000, 0, 7, HR_CAP_MALLOC, 0},
        {11, 0x80000, 100, 0, 7, HR_CAP_TOUCHED, 0},
        {12, 0, 0x80000, 1ull << 40, 7, HR_CAP_REALLOC, 0}, /* failed: the block lives on */
        {13, 0x80000, 4096, 0, 7, HR_CAP_TOUCHED, 0},
        {14, 0x80000, 0, 0, 7, HR_CAP_FREE, 0},
    };
    static const struct { uint8_t op; uint16_t thread; uint64_t size, ts; } want[] = {
        {HR_OP_TOUCHED, 0, 8192, 1},   {HR_OP_ALLOC, 0, 100000, 1},
        {HR_OP_TOUCHED, 1, 12288, 2},  {HR_OP_ALLOC, 1, 200000, 2},
        {HR_OP_FREE, 0, 0, 5},         {HR_OP_TOUCHED, 0, 20000, 7},
        {HR_OP_REALLOC, 0, 300000, 7}, {HR_OP_FREE, 0, 0, 9},
        {HR_OP_TOUCHED, 0, 4096, 10},  {HR_OP_ALLOC, 0, 70000, 10},
        {HR_OP_FREE, 0, 0, 14},
    };
    const int n = (int)(sizeof recs / sizeof recs[0]);
    unsigned char buf[2048];
    size_t len = make_log(buf, recs, n, 1, NULL);
    uint32_t flags = HR_CAPF_TIMESTAMPS | HR_CAPF_CLK_NS; /* ts = clock, in ns */
    memcpy(buf + offsetof(hr_cap_header_t, flags), &flags, sizeof flags);
    put(tmp("touched.cap"), buf, len);
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_file(tmp("touched.cap"), HR_IMPORT_CAPTURE, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(r.touched, 4);
    HR_CHECK_EQ_U64(r.touched_unknown, 1);
    HR_CHECK_EQ_U64(r.failed_allocs, 1);
    HR_CHECK_EQ_U64(t.n_events, sizeof want / sizeof want[0]);
    HR_CHECK(t.ts != NULL);
    for (size_t i = 0; i < t.n_events && i < sizeof want / sizeof want[0] && t.ts; i++) {
        HR_CHECK_EQ_U64(t.events[i].op, want[i].op);
        HR_CHECK_EQ_U64(t.events[i].thread, want[i].thread);
        if (want[i].op != HR_OP_FREE)
            HR_CHECK_EQ_U64(t.events[i].size, want[i].size);
        HR_CHECK_EQ_U64(t.ts[i], want[i].ts);
    }
    HR_CHECK_EQ_U64(t.op_counts[HR_OP_TOUCHED], 4);
    hr_trace_free(&t);
    /* the repair report names the ignored record */
    FILE *f = fopen(tmp("touched.rep"), "w+");
    HR_CHECK(f != NULL);
    if (f) {
        char line[4096] = "";
        hr_repair_print(&r, f);
        rewind(f);
        size_t got = fread(line, 1, sizeof line - 1, f);
        line[got] = 0;
        HR_CHECK(strstr(line, "touched: 4 large blocks measured by the page probe, 1 records "
                              "for no live block ignored") != NULL);
        fclose(f);
    }
    /* version 2 had no TOUCHED: the op is unknown there (read up to it) */
    uint32_t v2 = 2;
    memcpy(buf + offsetof(hr_cap_header_t, version), &v2, sizeof v2);
    put(tmp("touched2.cap"), buf, len);
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_file(tmp("touched2.cap"), HR_IMPORT_CAPTURE, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(r.truncated, 1);
    HR_CHECK(strstr(r.truncation, "unknown record op 15") != NULL);
    HR_CHECK_EQ_U64(r.touched, 0);
    hr_trace_free(&t);
}

/* One malloc on each of n threads (tids 1000..): 65 536 threads import as
 * 65 536 thread indices, one more is an error, never a merge. */
static int import_threads(int n, hr_trace_t *t, hr_repair_t *r, hr_error_t *err) {
    hr_cap_rec_t *recs = calloc((size_t)n, sizeof *recs);
    unsigned char *buf = malloc((size_t)n * 64 + 4096);
    if (!recs || !buf)
        return -2;
    for (int i = 0; i < n; i++) {
        hr_cap_rec_t one = {(uint64_t)i + 1, 0x1000 + (uint64_t)i * 16, 16, 0, 1000 + (uint64_t)i,
                            HR_CAP_MALLOC, 0};
        recs[i] = one;
    }
    size_t len = make_log(buf, recs, n, 1, NULL);
    put(tmp("threads.cap"), buf, len);
    free(recs);
    free(buf);
    hr_trace_init(t);
    return hr_import_file(tmp("threads.cap"), HR_IMPORT_CAPTURE, t, r, err);
}

static void test_capture_threads(void) {
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    HR_CHECK_EQ_U64(import_threads(65536, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(r.threads, 65536);
    HR_CHECK_EQ_U64(t.n_threads, 65536);
    HR_CHECK_EQ_U64(t.n_events, 65536);
    HR_CHECK(t.n_events == 65536 && t.events[65535].thread == 65535);
    hr_trace_free(&t);
    HR_CHECK(import_threads(65537, &t, &r, &err) != 0);
    HR_CHECK(strstr(err.msg, "more than 65536 threads") != NULL);
    printf("# %s\n", err.msg);
    hr_trace_free(&t);
    /* no records at all (header and END only): an empty trace */
    HR_CHECK_EQ_U64(import_threads(0, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(t.n_events, 0);
    hr_trace_free(&t);
}

/* A damaged clock calibration (found by fuzz_import under UBSan: the
 * timestamp, a double, was converted to u64 out of range) is an error
 * naming the record, not undefined behaviour. */
static void test_capture_bad_calibration(void) {
    hr_cap_rec_t recs[] = {{10, 0x100, 24, 0, 7, HR_CAP_MALLOC, 0}, {20, 0x100, 0, 0, 7, HR_CAP_FREE, 0}};
    unsigned char buf[1024];
    size_t len = make_log(buf, recs, 2, 0, NULL);
    hr_cap_header_t h;
    memcpy(&h, buf, sizeof h);
    h.flags = HR_CAPF_TIMESTAMPS;
    memcpy(buf, &h, sizeof h);
    hr_cap_block_t b;
    memcpy(&b, buf + sizeof h, sizeof b);
    b.clk = 1;
    b.ns = UINT64_MAX / 2; /* ~9.2e18 ns per clock tick */
    memcpy(buf + sizeof h, &b, sizeof b);
    put(tmp("cal.cap"), buf, len);
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK(hr_import_file(tmp("cal.cap"), HR_IMPORT_CAPTURE, &t, &r, &err) != 0);
    HR_CHECK(strstr(err.msg, "timestamp beyond 2^64 ns") != NULL);
    printf("# %s\n", err.msg);
    hr_trace_free(&t);
}

/* Version 4 (capture --stacks): MODULE and STACK records become the trace's
 * module map and stacks, an allocation record's stack id its event's site;
 * a stack written twice (two ids, same frames) is one stack; an id no STACK
 * record defines and a STACK without a whole frame give no site. */
static size_t put_def(unsigned char *p, hr_cap_delta_t *d, unsigned op, uint64_t ptr, uint64_t a,
                      const void *payload, size_t len) {
    hr_cap_rec_t r = {1, ptr, a, len, 7, (uint8_t)op, 0};
    return hr_cap_put_rec(p, d, &r, payload);
}

static void test_capture_stacks(void) {
    unsigned char buf[4096], frames[16];
    static const char mod[] = "/opt/game/bin/game\0" "0123abcd";
    for (int i = 0; i < 8; i++) { /* two frames: 0x401234, 0x402000 */
        frames[i] = (unsigned char)(0x401234ull >> (8 * i));
        frames[8 + i] = (unsigned char)(0x402000ull >> (8 * i));
    }
    hr_cap_header_t h = {HR_CAP_MAGIC, HR_CAP_VERSION, HR_CAP_ENDIAN_TAG, 0, 1, 0, 0, 0};
    memcpy(buf, &h, sizeof h);
    size_t off = sizeof h + sizeof(hr_cap_block_t), start = off;
    hr_cap_delta_t d = {0, 0};
    off += put_def(buf + off, &d, HR_CAP_MODULE, 0x400000, 0x10000, mod, sizeof mod - 1);
    off += put_def(buf + off, &d, HR_CAP_STACK, 0, 5, frames, 16);
    off += put_def(buf + off, &d, HR_CAP_STACK, 0, 6, frames, 16); /* the same frames again */
    off += put_def(buf + off, &d, HR_CAP_STACK, 0, 8, frames, 4);  /* no whole frame */
    hr_cap_rec_t recs[] = {
        {10, 0x100, 24, 0, 7, HR_CAP_MALLOC, 5}, {11, 0x200, 2, 8, 7, HR_CAP_CALLOC, 6},
        {12, 0x300, 16, 0, 7, HR_CAP_MALLOC, 9}, {13, 0x400, 16, 0, 7, HR_CAP_MALLOC, 8},
        {14, 0x100, 0, 0, 7, HR_CAP_FREE, 0},    {15, 0x500, 16, 0, 7, HR_CAP_MALLOC, 0},
    };
    for (size_t i = 0; i < sizeof recs / sizeof *recs; i++)
        off += hr_cap_put_rec(buf + off, &d, &recs[i], NULL);
    hr_cap_block_t b = {HR_CAP_BLOCK_MAGIC, (uint32_t)(off - start), 7, 10, 0, 0};
    memcpy(buf + sizeof h, &b, sizeof b);
    put(tmp("s.cap"), buf, off);
    hr_trace_t t;
    hr_repair_t r;
    hr_error_t err = {{0}};
    hr_trace_init(&t);
    HR_CHECK_EQ_U64(hr_import_file(tmp("s.cap"), HR_IMPORT_CAPTURE, &t, &r, &err), 0);
    HR_CHECK_EQ_U64(t.n_events, 6);
    HR_CHECK(t.stacks != NULL && t.site != NULL);
    if (t.stacks && t.site) {
        HR_CHECK_EQ_U64(t.stacks->n_modules, 1);
        HR_CHECK_STR(t.stacks->modules[0].path, "/opt/game/bin/game");
        HR_CHECK_STR(t.stacks->modules[0].build_id, "0123abcd");
        HR_CHECK_EQ_U64(t.stacks->n_stacks, 1);
        HR_CHECK_EQ_U64(t.stacks->n_frames, 2);
        HR_CHECK_EQ_U64(t.stacks->frames[0].addr, 0x401234);
        HR_CHECK_EQ_U64(t.stacks->frames[0].module, 1);
        uint32_t want[6] = {1, 1, 0, 0, 0, 0};
        for (int i = 0; i < 6; i++)
            HR_CHECK_EQ_U64(t.site[i], want[i]);
    }
    hr_trace_free(&t);
}

static void test_detect_unknown(void) {
    put(tmp("u.bin"), "hello world", 11);
    HR_CHECK_EQ_U64(hr_import_detect(tmp("u.bin")), HR_IMPORT_UNKNOWN);
    HR_CHECK_EQ_U64(hr_import_detect(tmp("does-not-exist")), HR_IMPORT_UNKNOWN);
}

int main(void) {
    if (!mkdtemp(tmpdir))
        return 1;
    HR_RUN(test_addrmap_repairs);
    HR_RUN(test_mtrace_sample);
    HR_RUN(test_heaptrack);
    HR_RUN(test_capture_logs);
    HR_RUN(test_capture_touched);
    HR_RUN(test_capture_threads);
    HR_RUN(test_capture_bad_calibration);
    HR_RUN(test_capture_stacks);
    HR_RUN(test_detect_unknown);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        return 1;
    return hr_test_done();
}
