/* hr_block: Box2D b2BlockAllocator semantics (see src/alloc/block.h).
 * Our own C code: class lookup table, one-class chunks threaded into a free
 * list, chunk array grown by a fixed step, large requests to malloc. */
#include "alloc/block.h"

#include <stdlib.h>
#include <string.h>

const size_t hr_block_class_sizes[HR_BLOCK_NUM_CLASSES] = {
    16, 32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640,
};

/* size -> class index for 0..640, filled once (Box2D fills it in the first
 * constructor; a static initializer keeps it thread-safe here). */
unsigned char hr_block_size_map[HR_BLOCK_MAX_SIZE + 1];
static int size_map_ready;

static void size_map_init(void) {
    if (size_map_ready)
        return;
    int j = 0;
    for (int i = 1; i <= HR_BLOCK_MAX_SIZE; i++) {
        if ((size_t)i > hr_block_class_sizes[j])
            j++;
        hr_block_size_map[i] = (unsigned char)j;
    }
    size_map_ready = 1;
}

__attribute__((constructor)) static void size_map_ctor(void) { size_map_init(); }

int hr_block_class_of(size_t size) {
    if (size == 0 || size > HR_BLOCK_MAX_SIZE)
        return -1;
    size_map_init();
    return hr_block_size_map[size];
}

size_t hr_block_usable(size_t size) {
    int c = hr_block_class_of(size);
    return c < 0 ? size : hr_block_class_sizes[c];
}

hr_block_options_t hr_block_default(void) {
    hr_block_options_t o = {HR_BLOCK_CHUNK_SIZE, HR_BLOCK_CHUNK_ARRAY_INC};
    return o;
}

static uint64_t footprint_of(const hr_block_t *b) {
    return (uint64_t)b->chunk_count * b->opt.chunk_size +
           (uint64_t)b->chunk_space * sizeof(hr_block_chunk_t) + b->large_bytes;
}

static void note_peaks(hr_block_t *b) {
    if (b->live_bytes > b->high_water)
        b->high_water = b->live_bytes;
    uint64_t fp = footprint_of(b);
    if (fp > b->peak_footprint)
        b->peak_footprint = fp;
}

hr_block_t *hr_block_create(const hr_block_options_t *opt) {
    hr_block_options_t o = opt ? *opt : hr_block_default();
    if (o.chunk_size < HR_BLOCK_MAX_SIZE || o.chunk_size % 16 || o.chunk_array_inc <= 0)
        return NULL;
    size_map_init();
    hr_block_t *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->opt = o;
    b->chunk_space = o.chunk_array_inc;
    b->chunks = calloc((size_t)b->chunk_space, sizeof *b->chunks);
    if (!b->chunks) {
        free(b);
        return NULL;
    }
    b->peak_footprint = footprint_of(b);
    return b;
}

void hr_block_clear(hr_block_t *b) {
    for (int i = 0; i < b->chunk_count; i++)
        free(b->chunks[i].blocks);
    b->chunk_count = 0;
    memset(b->chunks, 0, (size_t)b->chunk_space * sizeof *b->chunks);
    memset(b->free_lists, 0, sizeof b->free_lists);
    memset(b->class_live, 0, sizeof b->class_live);
    memset(b->class_blocks, 0, sizeof b->class_blocks);
    /* Large blocks belong to the caller; their bytes stay counted. */
    b->live_bytes = b->large_bytes;
}

void hr_block_destroy(hr_block_t *b) {
    if (!b)
        return;
    for (int i = 0; i < b->chunk_count; i++)
        free(b->chunks[i].blocks);
    free(b->chunks);
    free(b);
}

/* Takes a new chunk for class c, threads it onto the free list. */
static int add_chunk(hr_block_t *b, int c) {
    if (b->chunk_count == b->chunk_space) {
        int space = b->chunk_space + b->opt.chunk_array_inc;
        hr_block_chunk_t *n = realloc(b->chunks, (size_t)space * sizeof *n);
        if (!n)
            return -1;
        memset(n + b->chunk_space, 0, (size_t)b->opt.chunk_array_inc * sizeof *n);
        b->chunks = n;
        b->chunk_space = space;
    }
    size_t bs = hr_block_class_sizes[c];
    char *mem = malloc(b->opt.chunk_size);
    if (!mem)
        return -1;
    hr_block_chunk_t *ch = &b->chunks[b->chunk_count++];
    ch->block_size = bs;
    ch->blocks = mem;
    size_t n = b->opt.chunk_size / bs;
    for (size_t i = 0; i + 1 < n; i++)
        ((hr_block_free_t *)(mem + i * bs))->next = (hr_block_free_t *)(mem + (i + 1) * bs);
    ((hr_block_free_t *)(mem + (n - 1) * bs))->next = NULL;
    b->free_lists[c] = (hr_block_free_t *)mem;
    b->class_blocks[c] += n;
    note_peaks(b); /* the footprint grows here and in the large path only */
    return 0;
}

/* The rest of hr_block_alloc (block.h): size 0, a large block, or a class
 * whose free list is empty (a new chunk, then the inline pop). */
void *hr_block_alloc_slow(hr_block_t *b, size_t size) {
    if (size == 0)
        return NULL;
    if (size > HR_BLOCK_MAX_SIZE) {
        void *p = malloc(size);
        if (p) {
            b->large_live++;
            b->large_bytes += size;
            b->live_bytes += size;
            note_peaks(b);
        }
        return p;
    }
    if (add_chunk(b, hr_block_size_map[size]) != 0)
        return NULL;
    return hr_block_alloc(b, size);
}

/* The rest of hr_block_free (block.h): size 0, NULL, or a large block. */
void hr_block_free_slow(hr_block_t *b, void *p, size_t size) {
    if (size == 0 || !p)
        return;
    if (size > HR_BLOCK_MAX_SIZE) {
        free(p);
        b->large_live--;
        b->large_bytes -= size;
        b->live_bytes -= size;
        return;
    }
    hr_block_free(b, p, size);
}

uint64_t hr_block_footprint(const hr_block_t *b) { return footprint_of(b); }

int hr_block_owns(const hr_block_t *b, const void *p) {
    const char *q = p;
    for (int i = 0; i < b->chunk_count; i++)
        if (q >= b->chunks[i].blocks && q < b->chunks[i].blocks + b->opt.chunk_size)
            return 1;
    return 0;
}

void hr_block_stats(const hr_block_t *b, hr_block_stats_t *st) {
    memset(st, 0, sizeof *st);
    st->head.live_bytes = b->live_bytes;
    st->head.footprint = footprint_of(b);
    st->head.high_water = b->high_water;
    st->head.peak_footprint = b->peak_footprint;
    st->chunk_count = (uint64_t)b->chunk_count;
    st->chunk_space = (uint64_t)b->chunk_space;
    st->large_live = b->large_live;
    st->large_bytes = b->large_bytes;
    /* Class size - requested over the live small blocks: their class bytes
     * less the small bytes live (summed here, not kept per op). */
    uint64_t class_bytes = 0;
    st->head.objects = b->large_live;
    for (int c = 0; c < HR_BLOCK_NUM_CLASSES; c++) {
        class_bytes += b->class_live[c] * hr_block_class_sizes[c];
        st->class_live[c] = b->class_live[c];
        st->class_free[c] = b->class_blocks[c] - b->class_live[c];
        st->head.objects += b->class_live[c];
        if (b->free_lists[c])
            st->head.largest_free = hr_block_class_sizes[c];
    }
    st->internal_waste = class_bytes - (b->live_bytes - b->large_bytes);
}

static int cmp_chunk(const void *x, const void *y) {
    const char *a = ((const hr_block_chunk_t *)x)->blocks, *c = ((const hr_block_chunk_t *)y)->blocks;
    return a < c ? -1 : a > c;
}

/* Sorted copy of the chunks + one mark byte per block of each chunk. */
int hr_block_check(const hr_block_t *b) {
    int n = b->chunk_count, rc = HR_BLOCK_OK;
    uint64_t blocks[HR_BLOCK_NUM_CLASSES] = {0};
    hr_block_chunk_t *sorted = malloc(((size_t)n + 1) * sizeof *sorted);
    size_t per_chunk = b->opt.chunk_size / 16;
    unsigned char *mark = calloc((size_t)n * per_chunk + 1, 1);
    if (!sorted || !mark) {
        free(sorted), free(mark);
        return HR_BLOCK_ECORRUPT;
    }
    memcpy(sorted, b->chunks, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_chunk);
    for (int i = 0; i < n && rc == 0; i++) {
        int c = hr_block_class_of(sorted[i].block_size);
        if (c < 0 || hr_block_class_sizes[c] != sorted[i].block_size)
            rc = HR_BLOCK_ECORRUPT;
        else
            blocks[c] += b->opt.chunk_size / sorted[i].block_size;
        if (i > 0 && sorted[i - 1].blocks + b->opt.chunk_size > sorted[i].blocks)
            rc = HR_BLOCK_ECORRUPT; /* overlapping chunks */
    }
    for (int c = 0; c < HR_BLOCK_NUM_CLASSES && rc == 0; c++) {
        uint64_t nfree = 0;
        size_t bs = hr_block_class_sizes[c];
        for (hr_block_free_t *f = b->free_lists[c]; f && rc == 0; f = f->next) {
            /* binary search for the chunk holding f */
            int lo = 0, hi = n - 1, found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) / 2;
                if ((char *)f < sorted[mid].blocks)
                    hi = mid - 1;
                else if ((char *)f >= sorted[mid].blocks + b->opt.chunk_size)
                    lo = mid + 1;
                else {
                    found = mid;
                    break;
                }
            }
            size_t off = found < 0 ? 0 : (size_t)((char *)f - sorted[found].blocks);
            if (found < 0 || sorted[found].block_size != bs || off % bs || off / bs >= b->opt.chunk_size / bs ||
                mark[(size_t)found * per_chunk + off / bs]++ || ++nfree > blocks[c])
                rc = HR_BLOCK_ECORRUPT;
        }
        if (rc == 0 && (blocks[c] != b->class_blocks[c] || nfree + b->class_live[c] != blocks[c]))
            rc = HR_BLOCK_ECORRUPT;
    }
    free(sorted);
    free(mark);
    return rc;
}
