# fragment of Makefile.am: the seed allocators (issue 3) — plain libraries in
# src/alloc, their backends in src/backends, tests and the bench.
pkginclude_HEADERS += include/heapreplay/stack.h include/heapreplay/marker.h \
	include/heapreplay/block.h include/heapreplay/bank.h include/heapreplay/sizeclass.h \
	include/heapreplay/alloc_stats.h
noinst_HEADERS += src/backends/inhouse.h tests/seed_model.h
libhr_a_SOURCES += src/alloc/stack.c src/alloc/marker.c src/alloc/block.c \
	src/alloc/bank.c src/alloc/sizeclass.c \
	src/backends/be_stack.c src/backends/be_marker.c src/backends/be_block.c \
	src/backends/be_bank.c src/backends/be_sizeclass.c src/backends/inhouse.c

SEED_TESTS = tests/test_stack tests/test_marker tests/test_block tests/test_bank \
	tests/test_sizeclass
check_PROGRAMS += $(SEED_TESTS)
TESTS += $(SEED_TESTS)
tests_test_stack_SOURCES = tests/test_stack.c
tests_test_stack_LDADD = $(TEST_LIBS)
tests_test_marker_SOURCES = tests/test_marker.c
tests_test_marker_LDADD = $(TEST_LIBS)
tests_test_block_SOURCES = tests/test_block.c
tests_test_block_LDADD = $(TEST_LIBS)
tests_test_bank_SOURCES = tests/test_bank.c
tests_test_bank_LDADD = $(TEST_LIBS)
tests_test_sizeclass_SOURCES = tests/test_sizeclass.c
tests_test_sizeclass_LDADD = $(TEST_LIBS)

EXTRA_PROGRAMS += bench/bench_seed
HR_BENCH += bench/bench_seed$(EXEEXT)
bench_bench_seed_SOURCES = bench/bench_seed.c
bench_bench_seed_LDADD = $(TEST_LIBS)
