# fragment of Makefile.am: the replay engine (src/replay/): op loops,
# metrics, latency histograms, child processes, external-allocator workers and
# the --verify checker.
libhr_a_SOURCES += src/replay/engine.c src/replay/engine_emit.c \
	src/replay/latency.c src/replay/child.c src/replay/worker.c src/replay/verify.c
noinst_HEADERS += src/replay/engine.h src/replay/engine_int.h \
	src/replay/latency.h src/replay/child.h src/replay/verify.h
