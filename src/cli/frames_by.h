/* Where a trace's frames came from: the main stream's frames that capture
 * --frames found at a present function carry a mark named HR_CAP_FRAME_BY +
 * the function's name (src/base/rawlog.h, docs/TRACE_FORMAT.md); the others
 * are the program's own (hr_frame). Used by the capture summary and by info;
 * also the check of the names capture --frames is given. */
#ifndef HR_CLI_FRAMES_BY_H
#define HR_CLI_FRAMES_BY_H

#include <stdint.h>
#include <stdio.h>

#include "base/emit.h"
#include "trace/trace.h"

/* 1 when string i of t names a frame-by mark. */
int hr_is_frame_by(const hr_trace_t *t, uint32_t i);
/* "N by SYM, M by hr_frame" ("none" without frames) on f, without a newline.
 * marks: per string, the marks naming it; frames: the main stream's. */
void hr_frames_by_text(FILE *f, const hr_trace_t *t, const uint64_t *marks, uint64_t frames);
/* The object "frames_by": {"SYM": N, ..., "hr_frame": M} (sources with frames only). */
void hr_frames_by_json(hr_emit_t *em, const hr_trace_t *t, const uint64_t *marks, uint64_t frames);
/* The summary line "frames: N (K by SDL_GL_SwapWindow, M by hr_frame)" of a
 * whole trace (its events counted here). */
void hr_frames_by_summary(FILE *f, const hr_trace_t *t);
/* --frames: auto, none, or names of src/capture/frame_syms.h (the only
 * functions the library defines, so the only ones it can wrap). 0, or 2
 * after the one-line usage error. */
int hr_frames_check_names(const char *v);

#endif
