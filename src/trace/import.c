/* Importer front end: format detection, dispatch, the repair report and the
 * dense thread-index table shared by the importers (see import.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/rawlog.h"
#include "trace/import.h"
#include "trace/zsrc.h"

/* mtrace lines start with "= Start", "@ " or one of "+ - < > !" followed by a
 * space and "0x"; heaptrack's first line is "v <hex> <hex>". */
static hr_import_kind_t detect_text(const unsigned char *b, size_t n) {
    if (n >= 2 && b[0] == 'v' && b[1] == ' ')
        return HR_IMPORT_HEAPTRACK;
    if (n >= 7 && memcmp(b, "= Start", 7) == 0)
        return HR_IMPORT_MTRACE;
    if (n >= 2 && b[0] == '@' && b[1] == ' ')
        return HR_IMPORT_MTRACE;
    if (n >= 4 && strchr("+-<>!", b[0]) && b[1] == ' ' && b[2] == '0' && b[3] == 'x')
        return HR_IMPORT_MTRACE;
    return HR_IMPORT_UNKNOWN;
}

/* Sniffed from the first decoded bytes: a zstd or gzip file is a heaptrack
 * file only when what it holds looks like one (anything else compressed, a
 * heapreplay trace for instance, is left to hr_trace_read_file). */
hr_import_kind_t hr_import_detect(const char *path) {
    /* The sniff opens the file and the reader opens it again: a FIFO or a
     * pipe would lose what the sniff read, and the second open would wait
     * for a writer that never comes. Only a regular file is sniffed; anything
     * else is left to hr_trace_read_file, which reads its input once. */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return HR_IMPORT_UNKNOWN;
    FILE *f = fopen(path, "rb");
    if (!f)
        return HR_IMPORT_UNKNOWN;
    unsigned char b[16];
    size_t n = 0;
    hr_zsrc_t *z = hr_zsrc_open(f, path, NULL);
    while (z && n < sizeof b) {
        long got = hr_zsrc_read(z, b + n, sizeof b - n, NULL);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    hr_zkind_t kind = z ? hr_zsrc_kind(z) : HR_Z_PLAIN;
    hr_zsrc_close(z);
    fclose(f);
    if (kind == HR_Z_PLAIN && n >= 8 && memcmp(b, HR_CAP_MAGIC, 8) == 0)
        return HR_IMPORT_CAPTURE;
    hr_import_kind_t k = detect_text(b, n);
    /* Compressed: only heaptrack is read through the decompressor here. */
    return kind != HR_Z_PLAIN && k != HR_IMPORT_HEAPTRACK ? HR_IMPORT_UNKNOWN : k;
}

int hr_import_file(const char *path, hr_import_kind_t kind, hr_trace_t *out, hr_repair_t *rep,
                   hr_error_t *err) {
    memset(rep, 0, sizeof *rep);
    if (kind == HR_IMPORT_UNKNOWN)
        kind = hr_import_detect(path);
    int rc;
    switch (kind) {
    case HR_IMPORT_CAPTURE: rc = hr_import_capture(path, out, rep, err); break;
    case HR_IMPORT_HEAPTRACK: rc = hr_import_heaptrack(path, out, rep, err); break;
    case HR_IMPORT_MTRACE: rc = hr_import_mtrace(path, out, rep, err); break;
    default:
        hr_error_set(err, "%s: offset 0: not a capture log, heaptrack file or mtrace log", path);
        return -1;
    }
    if (rc != 0)
        return -1;
    rep->events_out = out->n_events;
    return hr_trace_validate(out, path, err);
}

void hr_repair_print(const hr_repair_t *r, FILE *f) {
    fprintf(f, "import: %llu records in, %llu events out",
            (unsigned long long)r->events_in, (unsigned long long)r->events_out);
    if (r->threads)
        fprintf(f, ", %llu threads", (unsigned long long)r->threads);
    fputc('\n', f);
    fprintf(f, "repairs: %llu unknown frees, %llu double frees, %llu reuse inversions, "
               "%llu failed allocs dropped\n",
            (unsigned long long)r->unknown_frees, (unsigned long long)r->double_frees,
            (unsigned long long)r->reuse_inversions, (unsigned long long)r->failed_allocs);
    fprintf(f, "kept: %llu cross-thread frees, %llu realloc(NULL,n) as alloc, "
               "%llu realloc(p,0) as free, %llu live at end\n",
            (unsigned long long)r->cross_thread_frees, (unsigned long long)r->realloc_null,
            (unsigned long long)r->realloc_zero, (unsigned long long)r->leaked_at_end);
    if (r->pool_mismatches)
        fprintf(f, "pools: %llu pfree naming another pool than the block's (kept the block's)\n",
                (unsigned long long)r->pool_mismatches);
    if (r->touched || r->touched_unknown)
        fprintf(f, "touched: %llu large blocks measured by the page probe, %llu records for no "
                   "live block ignored\n",
                (unsigned long long)r->touched, (unsigned long long)r->touched_unknown);
    if (r->auto_frames_dropped)
        fprintf(f, "dropped: %llu frame marks found at present functions (capture --frames): "
                   "the program marks its own frames (hr_frame)\n",
                (unsigned long long)r->auto_frames_dropped);
    if (r->duplicates)
        fprintf(f, "duplicates: %llu records flushed twice, dropped\n",
                (unsigned long long)r->duplicates);
    if (r->ended[0])
        fprintf(f, "ended: %s\n", r->ended);
    if (r->truncated)
        fprintf(f, "truncated: %s\n", r->truncation);
}

int hr_tidmap_get(hr_tidmap_t *t, uint64_t ext) {
    if (ext == UINT64_MAX && t->has_max) /* the one id whose key + 1 wraps */
        return t->max_idx;
    if (!t->map.stride)
        hr_ptrmap_init(&t->map, sizeof(uint32_t));
    uint32_t *v = ext == UINT64_MAX ? NULL : hr_ptrmap_get(&t->map, ext + 1);
    if (v)
        return (int)*v;
    if (t->n >= HR_TIDMAP_MAX)
        return HR_TIDMAP_FULL;
    if (ext == UINT64_MAX) {
        t->has_max = 1;
        t->max_idx = (uint16_t)t->n;
    } else if (!(v = hr_ptrmap_put(&t->map, ext + 1, NULL))) {
        return -1;
    } else {
        *v = t->n;
    }
    return (int)t->n++;
}

void hr_tidmap_free(hr_tidmap_t *t) {
    hr_ptrmap_free(&t->map);
    memset(t, 0, sizeof *t);
}
