/* Picks the native-stats reader for an external allocator spec (after the
 * library is loaded): glibc -> mallinfo2; otherwise whichever of jemalloc's
 * mallctl, mimalloc's mi_process_info or tcmalloc's MallocExtension the
 * process provides; else RSS only. */
#ifndef HR_REPLAY_EXTSTATS_H
#define HR_REPLAY_EXTSTATS_H

#include "replay/engine.h"

const hr_extstats_t *hr_extstats_for(const char *spec);

#endif
