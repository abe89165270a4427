# fragment of Makefile.am: benchmarks (bench/), built and run by `make bench`,
# never by `make check`. Each bench_NAME is built from bench_NAME.c with the
# global LDADD; cap_churn is the program the capture bench runs under the
# capture library and heaptrack.
EXTRA_PROGRAMS += bench/bench_decode bench/bench_gen bench/bench_seed bench/bench_overhead bench/bench_threads \
	bench/cap_churn
HR_BENCH += bench/bench_decode$(EXEEXT) bench/bench_gen$(EXEEXT) bench/bench_seed$(EXEEXT) \
	bench/bench_overhead$(EXEEXT) bench/bench_threads$(EXEEXT) bench/cap_churn$(EXEEXT)
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

# Issue 10: checks of the harness against a hand-written replay and of
# compare's false-alarm rate and power. Each script writes results/NAME.md;
# none runs from `make check` or `make bench` (they take 10-60 minutes).
# Options go through the environment (see the head of each script), e.g.
# `make bench-false-alarms PAIRS=2`: make exports command-line variables.
# spin_shim.so is the preloadable slowed-down allocator of power.sh; it is a
# check library only so that `make check` compiles it (with -Werror).
check_LTLIBRARIES += bench/spin_shim.la
bench_spin_shim_la_SOURCES = bench/spin_shim.c
bench_spin_shim_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/bench
bench_spin_shim_la_LIBADD = $(LIBS)
HR_CHECK_SH = bench/fresh_agreement.sh bench/false_alarms.sh bench/power.sh \
	bench/rank_stability.sh bench/threads_agreement.sh bench/threads_overhead.sh \
	bench/fidelity.sh
EXTRA_DIST += $(HR_CHECK_SH) bench/hr_bench_lib.sh bench/fidelity_report.py bench/rusage_run.py
HR_CHECK_PREREQS = heapreplay$(EXEEXT) tests/tools/fresh_replay$(EXEEXT) tests/tools/fresh_mt_replay$(EXEEXT) \
	tests/tools/dump_events$(EXEEXT) bench/spin_shim.la
.PHONY: bench-fresh bench-false-alarms bench-power bench-rank bench-issue10
bench-fresh: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/fresh_agreement.sh $(top_builddir)
bench-false-alarms: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/false_alarms.sh $(top_builddir)
bench-power: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/power.sh $(top_builddir)
bench-rank: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/rank_stability.sh $(top_builddir)
# Issue 11: the threaded replay against tests/tools/fresh_mt_replay.
.PHONY: bench-threads bench-threads-overhead
bench-threads: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/threads_agreement.sh $(top_builddir)
bench-threads-overhead: $(HR_CHECK_PREREQS) bench/bench_threads$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/threads_overhead.sh $(top_builddir)
bench-issue10: bench-fresh bench-false-alarms bench-power bench-rank
# Issue 17: real programs (traces/real) under each allocator against their replays.
.PHONY: fidelity
fidelity: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/fidelity.sh $(top_builddir)

# Issue 15: resident bytes per event of info and replay -a all on 10 M and
# 100 M events (results/scale-<host>.md; SIZES="10M 100M 1G" for more).
.PHONY: bench-scale
bench-scale: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/scale.sh $(top_builddir)
EXTRA_DIST += bench/scale.sh bench/repeat_trace.py

# Issue 15: each libFuzzer target for SECS seconds (default 600) from its seed
# corpus -> results/fuzz-<host>.md (executions, coverage, crashes).
.PHONY: bench-fuzz
bench-fuzz: fuzz
	$(SHELL) $(top_srcdir)/bench/fuzz_long.sh $(top_builddir)
EXTRA_DIST += bench/fuzz_long.sh

# Issue 15: the packed event form against the decoded one, interleaved:
# packed / decoded ns/op per allocator (results/event-form-<host>.md).
.PHONY: bench-event-form
bench-event-form: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/event_form.sh $(top_builddir)
EXTRA_DIST += bench/event_form.sh bench/event_form_report.py
