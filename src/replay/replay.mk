# fragment of Makefile.am: the replay engine (src/replay/): op loops and modes,
# threaded laps and their schedule,
# metrics, latency histograms, child processes, workers, the pointer checker
# of --verify and the instruction counter (perf or callgrind) of --count.
libhr_a_SOURCES += src/replay/engine.c src/replay/evwin.c src/replay/engine_measure.c src/replay/engine_modes.c \
	src/replay/engine_slow.c src/replay/engine_emit.c src/replay/latency.c src/replay/child.c \
	src/replay/worker.c src/replay/counter.c src/replay/verify.c src/replay/sched.c \
	src/replay/threads.c src/replay/compose.c src/replay/series.c src/replay/engine_series.c \
	src/replay/access.c src/replay/plan.c src/replay/memlimit.c \
	src/replay/kcount.c src/replay/startup.c src/replay/warmstop.c src/replay/paced.c \
	src/replay/child_paced.c
noinst_HEADERS += src/replay/engine.h src/replay/engine_int.h src/replay/engine_ops.h \
	src/replay/plan.h \
	src/replay/access.h src/replay/engine_access.h \
	src/replay/sched.h \
	src/replay/latency.h src/replay/series.h src/replay/child.h src/replay/memlimit.h src/replay/counter.h src/replay/verify.h \
	src/replay/kcount.h src/replay/startup.h src/replay/warmstop.h src/replay/paced.h \
	src/replay/child_int.h
# Routing plans by call site (replay --plan; docs/SITES.md).
libhr_a_SOURCES += src/replay/route.c src/replay/route_apply.c
noinst_HEADERS += src/replay/route.h
# The cache-pollution model of the timed laps (replay --pollute; replay/pollute.h).
libhr_a_SOURCES += src/replay/pollute.c
noinst_HEADERS += src/replay/pollute.h
