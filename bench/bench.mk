# fragment of Makefile.am: benchmarks (bench/), built and run by `make bench`,
# never by `make check`. Each bench_NAME is built from bench_NAME.c with the
# global LDADD; cap_churn is the program the capture bench runs under the
# capture library and heaptrack.
EXTRA_PROGRAMS += bench/bench_decode bench/bench_gen bench/bench_seed bench/bench_overhead \
	bench/cap_churn
HR_BENCH += bench/bench_decode$(EXEEXT) bench/bench_gen$(EXEEXT) bench/bench_seed$(EXEEXT) \
	bench/bench_overhead$(EXEEXT) bench/cap_churn$(EXEEXT)
EXTRA_DIST += bench/run.sh bench/bench_allocators.sh bench/bench_capture.sh bench/noise_check.sh
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
