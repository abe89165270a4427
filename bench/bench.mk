# Benchmarks: built and run by `make bench`, never by `make check`.
EXTRA_PROGRAMS += bench/bench_overhead
HR_BENCH += bench/bench_overhead$(EXEEXT)
bench_bench_overhead_SOURCES = bench/bench_overhead.c
bench_bench_overhead_LDADD = $(TEST_LIBS)
EXTRA_DIST += bench/run.sh bench/bench_allocators.sh
CLEANFILES += $(EXTRA_PROGRAMS)

# Large generated traces (>= 10 M events) for benchmarks; not shipped.
LARGE_TRACES = traces/large/session_10M.hrt traces/large/particles_10M.hrt \
	traces/large/frame_loop_10M.hrt
.PHONY: large-traces
large-traces: $(LARGE_TRACES)
traces/large/session_10M.hrt: heapreplay$(EXEEXT)
	@$(MKDIR_P) traces/large
	./heapreplay gen session -o $@ --events 10M --seed 11
traces/large/particles_10M.hrt: heapreplay$(EXEEXT)
	@$(MKDIR_P) traces/large
	./heapreplay gen particles -o $@ --events 10M --seed 12
traces/large/frame_loop_10M.hrt: heapreplay$(EXEEXT)
	@$(MKDIR_P) traces/large
	./heapreplay gen frame_loop -o $@ --events 10M --seed 13
