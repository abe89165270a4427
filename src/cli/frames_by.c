/* Frames by source, and the names capture --frames accepts (frames_by.h). */
#include "cli/frames_by.h"

#include <stdlib.h>
#include <string.h>

#include "base/rawlog.h"
#include "capture/frame_syms.h"
#include "cli/cli.h"

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

void hr_frames_by_summary(FILE *f, const hr_trace_t *t) {
    uint64_t *marks = calloc(t->n_strings + 1, sizeof *marks), frames = 0;
    if (!marks)
        return;
    for (size_t i = 0; i < t->n_events; i++) {
        const hr_event_t *ev = &t->events[i];
        if (ev->op == HR_OP_MARK && ev->aux < t->n_strings)
            marks[ev->aux]++;
        frames += ev->op == HR_OP_FRAME && !(ev->flags & HR_EVF_HAS_OPT);
    }
    fprintf(f, "frames: %llu (", (unsigned long long)frames);
    hr_frames_by_text(f, t, marks, frames);
    fprintf(f, ")\n");
    free(marks);
}

#define HR_SYM_STR_(name, n) #name,
static const char *const frame_syms[] = {HR_FRAME_SYMS(HR_SYM_STR_)};
#define HR_NFRAME_SYMS (sizeof frame_syms / sizeof frame_syms[0])

int hr_frames_check_names(const char *v) {
    if (strcmp(v, "auto") == 0 || strcmp(v, "none") == 0)
        return 0;
    for (const char *p = v;; p++) {
        size_t n = strcspn(p, ","), k = 0;
        while (k < HR_NFRAME_SYMS && !(strlen(frame_syms[k]) == n && !strncmp(p, frame_syms[k], n)))
            k++;
        if (k == HR_NFRAME_SYMS) {
            char known[512] = "";
            for (k = 0; k < HR_NFRAME_SYMS; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         k ? ", " : "", frame_syms[k]);
            return hr_cli_usage_error("capture", "--frames=%s: '%.*s' is not a function the "
                                      "capture library can wrap (expected auto, none or names "
                                      "of: %s)", v, (int)n, p, known);
        }
        if (!p[n])
            return 0;
        p += n;
    }
}
