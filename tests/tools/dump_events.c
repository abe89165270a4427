/* dump_events TRACE OUT: writes the memory ops of any heapreplay trace (binary
 * or text; read and validated by hr_trace_read_file) as a flat event file
 * (tests/tools/flat_events.h) for tests/tools/fresh_replay. Prints one line,
 * "OUT: N events, M ids", on stdout. Exit 0, or 2 on bad input / I/O error. */
#include <stdio.h>
#include <string.h>

#include "trace/trace.h"
#include "flat_events.h"

/* The flat opcode of a memory op; -1 for the ops the flat file drops. */
static int hr_flat_op(unsigned op) {
    switch (op) {
    case HR_OP_ALLOC: return HR_FLAT_ALLOC;
    case HR_OP_CALLOC: return HR_FLAT_CALLOC;
    case HR_OP_REALLOC: return HR_FLAT_REALLOC;
    case HR_OP_FREE: return HR_FLAT_FREE;
    default: return -1;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: dump_events TRACE OUT\n");
        return 2;
    }
    hr_trace_t t;
    hr_error_t err = {{0}};
    if (hr_trace_read_file(argv[1], HR_FMT_AUTO, &t, &err) != 0) {
        fprintf(stderr, "dump_events: %s\n", err.msg);
        return 2;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        perror(argv[2]);
        hr_trace_free(&t);
        return 2;
    }
    hr_flat_header_t h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, HR_FLAT_MAGIC, sizeof h.magic);
    h.n_events = hr_trace_mem_ops(&t);
    h.n_ids = t.n_ids;
    h.rec_size = sizeof(hr_flat_event_t);
    int bad = fwrite(&h, sizeof h, 1, f) != 1;
    uint64_t written = 0;
    for (size_t i = 0; i < t.n_events && !bad; i++) {
        const hr_event_t *ev = &t.events[i];
        int op = hr_flat_op(ev->op);
        if (op < 0)
            continue;
        hr_flat_event_t r = {(uint16_t)op, ev->thread, ev->id, ev->aux, ev->align, ev->size};
        bad = fwrite(&r, sizeof r, 1, f) != 1;
        written++;
    }
    bad |= fclose(f) != 0;
    if (!bad && written != h.n_events) {
        fprintf(stderr, "dump_events: %s: %llu memory ops written, header says %llu\n", argv[1],
                (unsigned long long)written, (unsigned long long)h.n_events);
        bad = 1;
    } else if (bad) {
        perror(argv[2]);
    }
    if (!bad)
        printf("%s: %llu events, %u ids\n", argv[2], (unsigned long long)h.n_events, h.n_ids);
    hr_trace_free(&t);
    return bad ? 2 : 0;
}
