/* Frames by source (frames_by.h). */
#include "cli/frames_by.h"

#include <string.h>

#include "base/rawlog.h"

#define HR_FB_LEN (sizeof HR_CAP_FRAME_BY - 1)

int hr_is_frame_by(const hr_trace_t *t, uint32_t i) {
    return i < t->n_strings && strncmp(t->strings[i], HR_CAP_FRAME_BY, HR_FB_LEN) == 0 &&
           t->strings[i][HR_FB_LEN] != 0;
}

/* The main stream's frames no frame-by mark claims: the program's own. */
static uint64_t own_frames(const hr_trace_t *t, const uint64_t *marks, uint64_t frames) {
    uint64_t found = 0;
    for (uint32_t i = 0; i < t->n_strings; i++)
        if (marks[i] && hr_is_frame_by(t, i))
            found += marks[i];
    return frames > found ? frames - found : 0;
}

void hr_frames_by_text(FILE *f, const hr_trace_t *t, const uint64_t *marks, uint64_t frames) {
    int n = 0;
    for (uint32_t i = 0; i < t->n_strings; i++)
        if (marks[i] && hr_is_frame_by(t, i))
            fprintf(f, "%s%llu by %s", n++ ? ", " : "", (unsigned long long)marks[i],
                    t->strings[i] + HR_FB_LEN);
    uint64_t own = own_frames(t, marks, frames);
    if (own)
        fprintf(f, "%s%llu by hr_frame", n++ ? ", " : "", (unsigned long long)own);
    if (!n)
        fprintf(f, "none");
}

void hr_frames_by_json(hr_emit_t *em, const hr_trace_t *t, const uint64_t *marks,
                       uint64_t frames) {
    hr_emit_obj_begin(em, "frames_by");
    for (uint32_t i = 0; i < t->n_strings; i++)
        if (marks[i] && hr_is_frame_by(t, i))
            hr_emit_u64(em, t->strings[i] + HR_FB_LEN, marks[i]);
    uint64_t own = own_frames(t, marks, frames);
    if (own)
        hr_emit_u64(em, "hr_frame", own);
    hr_emit_obj_end(em);
}
