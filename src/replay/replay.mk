# Replay engine: op loops, metrics, child processes and workers.
libhr_a_SOURCES += src/replay/engine.c src/replay/engine_emit.c \
	src/replay/latency.c src/replay/child.c src/replay/worker.c
noinst_HEADERS += src/replay/engine.h src/replay/engine_int.h \
	src/replay/latency.h src/replay/child.h
check_PROGRAMS += tests/test_engine
TESTS += tests/test_engine
tests_test_engine_SOURCES = tests/test_engine.c
tests_test_engine_LDADD = $(TEST_LIBS)
check_PROGRAMS += tests/jget
tests_jget_SOURCES = tests/jget.c
tests_jget_LDADD = $(TEST_LIBS)
TESTS += tests/test_replay_cli.sh
EXTRA_DIST += tests/test_replay_cli.sh
