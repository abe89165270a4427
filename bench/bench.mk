# Benchmarks: built and run by `make bench`, never by `make check`.
EXTRA_PROGRAMS += bench/bench_overhead
HR_BENCH += bench/bench_overhead$(EXEEXT)
bench_bench_overhead_SOURCES = bench/bench_overhead.c
bench_bench_overhead_LDADD = $(TEST_LIBS)
EXTRA_DIST += bench/run.sh
CLEANFILES += $(EXTRA_PROGRAMS)
