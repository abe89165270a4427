/* Shards and merging (docs/REPORTS.md, "Shards and merge").
 *
 * `replay --shard K/N` replays a deterministic 1/N share of the (trace,
 * allocator) matrix: the cells are sorted by (trace path, allocator spec,
 * position) and cell j of that order goes to shard ((j mod N) + j div N)
 * mod N + 1: dealt round-robin, the deal rotating by one shard every round.
 * Sorting makes the share independent of the order the traces and
 * allocators were given in; every round gives each shard one cell, so the
 * shards are within one cell of each other in size; the rotation spreads one
 * trace's allocators and one allocator's traces (and their costs) over the
 * shards. Over K = 1..N every cell is replayed exactly once.
 *
 * A shard report is an ordinary report with "options.shard": "K/N" and a
 * top-level "matrix": {"traces": [...], "allocators": [...]} (the whole
 * matrix, every shard the same). `heapreplay merge` joins the shards of one
 * run into one ordinary report: results copied whole (whatever keys they
 * carry), in matrix order (trace, then allocator, as the unsharded run
 * orders them), "options.shard" dropped, and a "merged" object naming the
 * shards. It refuses shards of different tool versions, schema versions,
 * options (other than shard), matrices or trace digests, duplicate shards,
 * results present twice, and missing shards unless `partial` is set (then
 * "merged.partial" is true and "merged.missing" lists them).
 */
#ifndef HR_REPORT_MERGE_H
#define HR_REPORT_MERGE_H

#include "base/json.h"
#include "base/error.h"

#define HR_SHARD_MAX 1000 /* N of --shard K/N */

typedef struct hr_shard {
    int k, n; /* 1 <= k <= n <= HR_SHARD_MAX; n == 0: not sharded */
} hr_shard_t;

/* "K/N" -> *out. 0 ok, -1 malformed or out of range. */
int hr_shard_parse(const char *s, hr_shard_t *out);

/* The shard (1..n) of every cell of the ntraces x nallocs matrix:
 * shard_of[t * nallocs + a]. 0 ok, -1 out of memory. */
int hr_shard_assign(const char *const *traces, int ntraces, const char *const *allocs, int nallocs,
                    int n, int *shard_of);

/* The "matrix" object of a shard report (NULL on out-of-memory). */
hr_json_t *hr_shard_matrix(const char *const *traces, int ntraces, const char *const *allocs,
                           int nallocs);

typedef struct hr_merge_options {
    int partial; /* accept missing shards (the merged report says so) */
} hr_merge_options_t;

hr_merge_options_t hr_merge_options_default(void);

/* Merges n loaded, validated reports (names[i] names docs[i] in errors).
 * Returns the merged report, or NULL with one line in err naming the file
 * and what was expected. The inputs are not modified. */
hr_json_t *hr_merge_reports(const hr_json_t *const *docs, const char *const *names, int n,
                            const hr_merge_options_t *opt, hr_error_t *err);

/* 1 when a and b are equal JSON values (objects compared key by key, in any
 * order; numbers by their exact integer form when both have one). */
int hr_merge_json_equal(const hr_json_t *a, const hr_json_t *b);

#endif
