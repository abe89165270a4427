# fragment of Makefile.am — synthetic game-like trace generator (heapreplay gen)
libhr_a_SOURCES += src/trace/gen.c src/trace/gen_level.c src/trace/gen_play.c
pkginclude_HEADERS += include/heapreplay/gen.h
noinst_HEADERS += src/trace/gen_int.h

check_PROGRAMS += tests/test_gen
TESTS += tests/test_gen
tests_test_gen_SOURCES = tests/test_gen.c
tests_test_gen_LDADD = $(TEST_LIBS)

EXTRA_PROGRAMS += bench/bench_gen
HR_BENCH += bench/bench_gen$(EXEEXT)
bench_bench_gen_SOURCES = bench/bench_gen.c
bench_bench_gen_LDADD = $(TEST_LIBS)
