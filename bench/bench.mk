# fragment of Makefile.am: benchmarks (bench/), never run by `make check`.
# Each experiment keeps its scripts, report maker and programs in its own
# folder bench/EXPERIMENT/ and has one target `make bench-EXPERIMENT`
# (bench/README.md lists them); bench/lib/ holds the helpers they share.
# `make bench` runs the default set (micro, threads' bench_threads,
# allocators, capture) into results/bench-<host>.md.
#
# Programs: each bench/EXPERIMENT/bench_NAME is built from bench_NAME.c with
# the global LDADD; cap_churn is the program the capture bench runs under the
# capture library and heaptrack.
EXTRA_PROGRAMS += bench/micro/bench_decode bench/micro/bench_gen bench/micro/bench_seed \
	bench/micro/bench_overhead bench/threads/bench_threads bench/capture/cap_churn
HR_BENCH_MICRO = bench/micro/bench_decode$(EXEEXT) bench/micro/bench_gen$(EXEEXT) \
	bench/micro/bench_seed$(EXEEXT) bench/micro/bench_overhead$(EXEEXT)
HR_BENCH += $(HR_BENCH_MICRO) bench/threads/bench_threads$(EXEEXT) bench/capture/cap_churn$(EXEEXT)
CLEANFILES += $(EXTRA_PROGRAMS)
EXTRA_DIST += bench/README.md bench/run.sh bench/lib/hr_bench_lib.sh bench/lib/hr_run.py
# The harness's cost per event against tests/tools/fresh_replay on a fast
# allocator (particles on mimalloc and tcmalloc), part of bench-micro.
EXTRA_DIST += bench/micro/bench_harness_cost.sh

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

# The default set, one experiment at a time (bench/run.sh BUILDDIR EXPERIMENT
# prints to stdout; only the whole set writes results/bench-<host>.md).
.PHONY: bench-micro bench-allocators bench-capture
bench-micro: $(HR_BENCH_MICRO) heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/run.sh $(top_builddir) micro
bench-allocators: heapreplay$(EXEEXT) large-traces
	$(SHELL) $(top_srcdir)/bench/run.sh $(top_builddir) allocators
bench-capture: bench/capture/cap_churn$(EXEEXT) heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/run.sh $(top_builddir) capture
EXTRA_DIST += bench/allocators/bench_allocators.sh bench/capture/bench_capture.sh \
	bench/capture/bench_hooks.sh

# Checks of the harness against a hand-written replay and of compare's
# false-alarm rate and power. Each script writes results/NAME.md; none runs
# from `make check` or `make bench` (they take 10-60 minutes). Options go
# through the environment (see the head of each script), e.g.
# `make bench-false-alarms PAIRS=2`: make exports command-line variables.
# spin_shim.so is the preloadable slowed-down allocator of power.sh; it is a
# check library only so that `make check` compiles it (with -Werror).
check_LTLIBRARIES += bench/power/spin_shim.la
bench_power_spin_shim_la_SOURCES = bench/power/spin_shim.c
bench_power_spin_shim_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/bench/power
bench_power_spin_shim_la_LIBADD = $(LIBS)
# frame_cpu.so is the frame clock preloaded into SuperTux by fidelity.sh (its
# CPU time at the first and last frame shown); a check library for the same reason.
check_LTLIBRARIES += bench/fidelity/progs/frame_cpu.la
bench_fidelity_progs_frame_cpu_la_SOURCES = bench/fidelity/progs/frame_cpu.c
bench_fidelity_progs_frame_cpu_la_LDFLAGS = -module -avoid-version -shared -rpath $(abs_builddir)/bench/fidelity/progs
HR_CHECK_SH = bench/fresh/fresh_agreement.sh bench/false_alarms/false_alarms.sh \
	bench/false_alarms/noise_check.sh bench/power/power.sh bench/rank/rank_stability.sh \
	bench/threads/threads_agreement.sh bench/threads/threads_overhead.sh bench/fidelity/fidelity.sh \
	bench/fresh/layout_floor.sh
EXTRA_DIST += $(HR_CHECK_SH) bench/fidelity/fidelity_report.py bench/fidelity/rerender.py bench/fidelity/rusage_run.py
HR_CHECK_PREREQS = heapreplay$(EXEEXT) tests/tools/fresh_replay$(EXEEXT) tests/tools/fresh_mt_replay$(EXEEXT) \
	tests/tools/dump_events$(EXEEXT) bench/power/spin_shim.la bench/fidelity/progs/frame_cpu.la
.PHONY: bench-fresh bench-false-alarms bench-power bench-rank bench-harness
bench-fresh: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/fresh/fresh_agreement.sh $(top_builddir)
bench-false-alarms: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/false_alarms/false_alarms.sh $(top_builddir)
bench-power: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/power/power.sh $(top_builddir)
bench-rank: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/rank/rank_stability.sh $(top_builddir)
# The reference of bench-fresh against itself relinked after 0-128 bytes of
# code: how far code placement alone moves a warm figure (results/layout-floor-vm.md).
.PHONY: bench-layout-floor
bench-layout-floor: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/fresh/layout_floor.sh $(top_builddir)
# The four checks of the harness's timing and of compare's verdicts, in turn.
bench-harness: bench-fresh bench-false-alarms bench-power bench-rank

# The threaded replay against tests/tools/fresh_mt_replay, and the cost of
# its threaded time mode.
.PHONY: bench-threads bench-threads-overhead
bench-threads: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/threads/threads_agreement.sh $(top_builddir)
bench-threads-overhead: $(HR_CHECK_PREREQS) bench/threads/bench_threads$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/threads/threads_overhead.sh $(top_builddir)

# Real programs (traces/real) under each allocator against their replays
# (results/fidelity-<host>.md); bench-fidelity is the same target.
.PHONY: fidelity bench-fidelity
fidelity: $(HR_CHECK_PREREQS)
	$(SHELL) $(top_srcdir)/bench/fidelity/fidelity.sh $(top_builddir)
bench-fidelity: fidelity

# The paced memory lap against the fast one: each allocator's real max RSS
# change against glibc and what each lap predicts (results/paced-memory-<host>.md;
# ROUNDS=N PROGRAMS="supertux freeciv_ai").
.PHONY: bench-paced
bench-paced: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/paced/paced.sh $(top_builddir)
EXTRA_DIST += bench/paced/paced.sh bench/paced/paced_report.py

# The start-up probe's term against what small real programs pay for each
# allocator's start-up (python3, sqlite3, gcc -c), real paired rounds beside
# their replays' predictions (results/startup-<host>.md; ROUNDS=N REPEAT=N).
.PHONY: bench-startup
bench-startup: heapreplay$(EXEEXT) libheapreplay-capture.la
	$(SHELL) $(top_srcdir)/bench/startup/startup.sh $(top_builddir)
EXTRA_DIST += bench/startup/startup.sh bench/startup/startup.py

# Resident bytes per event of info and replay -a all on 10 M and 100 M events
# (results/scale-<host>.md; SIZES="10M 100M 1G" for more).
.PHONY: bench-scale
bench-scale: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/scale/scale.sh $(top_builddir)
EXTRA_DIST += bench/scale/scale.sh bench/scale/repeat_trace.py

# The in-house allocators against mimalloc on the traces of their own
# patterns, ns/op and ratio, old binary and this build interleaved round by
# round (results/inhouse-speed-<host>.md; OLD_BIN=PATH ROUNDS=N WARM=S).
.PHONY: bench-inhouse-speed
bench-inhouse-speed: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/inhouse_speed/inhouse_speed.sh $(top_builddir)
EXTRA_DIST += bench/inhouse_speed/inhouse_speed.sh bench/inhouse_speed/inhouse_report.py \
	bench/inhouse_speed/frame_temps.py bench/inhouse_speed/size_cut.py \
	bench/inhouse_speed/cuts.sh bench/inhouse_speed/touch_order.sh \
	bench/inhouse_speed/touch_report.py

# stack and marker on traces they mostly hand to malloc (the real programs'
# and the shipped ones): ns/op against glibc's, old binary and this build
# interleaved (results/inhouse-fallback-<host>.md; OLD_BIN=PATH ROUNDS=N CPU=N).
.PHONY: bench-inhouse-fallback
bench-inhouse-fallback: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/inhouse_speed/fallback_rows.sh $(top_builddir)
EXTRA_DIST += bench/inhouse_speed/fallback_rows.sh

# The in-house allocators with and without the program's first write into
# each new block: what their hand-out order costs the program
# (results/inhouse-touch-<host>.md; ROUNDS=N WARM=S CPU=N).
.PHONY: bench-inhouse-touch
bench-inhouse-touch: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/inhouse_speed/touch_order.sh $(top_builddir)

# Each libFuzzer target for SECS seconds (default 600) from its seed corpus
# -> results/fuzz-<host>.md (executions, coverage, crashes).
.PHONY: bench-fuzz
bench-fuzz: fuzz
	$(SHELL) $(top_srcdir)/bench/fuzz/fuzz_long.sh $(top_builddir)
EXTRA_DIST += bench/fuzz/fuzz_long.sh

# The packed event form against the decoded one, interleaved: packed /
# decoded ns/op per allocator (results/event-form-<host>.md).
.PHONY: bench-event-form
bench-event-form: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/event_form/event_form.sh $(top_builddir)
# bench/event_form/window_size.sh (by hand: it takes builds that differ in
# HR_EVWIN) compares packed window sizes against the fresh replay.
EXTRA_DIST += bench/event_form/event_form.sh bench/event_form/event_form_report.py bench/event_form/window_size.sh

# Screenshots of the HTML report at 1280 px and of every `heapreplay plot
# --kind` (results/html-*.png, charts-*.png; results/charts.md), from
# results/shipped-traces.json and quickstart.sh's results/latest*.json; needs
# chromium and jq.
.PHONY: bench-charts
bench-charts: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/charts/screenshots.sh ./heapreplay $(top_srcdir)
EXTRA_DIST += bench/charts/screenshots.sh bench/charts/quantize.py

# Distinct heap and mark names: convert/info/convert-back times at 10 k and
# 100 k names, whose ratio shows a linear (~10) or quadratic (~100) cost.
.PHONY: bench-names
bench-names: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/names/names.sh $(top_builddir)
EXTRA_DIST += bench/names/names.sh

# gen's max RSS and time at 1 M..1 G events (OLD_BIN=an older build: the
# same up to 100 M, outputs compared byte for byte); a table on stdout.
.PHONY: bench-gen-memory
bench-gen-memory: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/gen_memory/run.sh $(top_builddir)/heapreplay$(EXEEXT) $(OLD_BIN)
EXTRA_DIST += bench/gen_memory/run.sh

# The hostile-input campaign: damaged, special and edge inputs, output faults
# and the allocation-failure sweep -> results/hostile-<host>.md. About 5
# minutes; ASAN_BUILD=DIR (a tree configured with --enable-asan) runs the
# mutated inputs and the sweep there too.
.PHONY: bench-hostile
bench-hostile: heapreplay$(EXEEXT) tests/tools/failmalloc.so
	$(SHELL) $(top_srcdir)/bench/hostile/hostile.sh $(top_builddir)
EXTRA_DIST += bench/hostile/hostile.sh bench/hostile/mutate.py

# compare's program mode on examples/game as the game CI template runs it:
# false alarms on identical captures, the doubled temporaries caught
# (results/game-ci-<host>.md; PAIRS=N ALLOCS=LIST OPTS="...").
.PHONY: bench-game-ci
bench-game-ci: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/game_ci/game_ci.sh $(top_builddir)
EXTRA_DIST += bench/game_ci/game_ci.sh
# compare's program mode on a C build captured with --follow-forks: false
# alarms on identical captures, a grown unit and -O3 (whole-program figures;
# results/compare-build-<host>.md; PAIRS=N ALLOCS=LIST OPTS="...").
.PHONY: bench-compare-build
bench-compare-build: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/compare_build/compare_build.sh $(top_builddir)
EXTRA_DIST += bench/compare_build/compare_build.sh
# What call stacks cost in capture: capture --stacks against heaptrack, plain
# capture and no capture (CPU of the process tree, interleaved rounds) on
# cap_churn and two real programs, and the bytes stacks add per event.
.PHONY: bench-stacks
bench-stacks: bench/capture/cap_churn$(EXEEXT) heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/stacks/bench_stacks.sh $(top_builddir)
EXTRA_DIST += bench/stacks/bench_stacks.sh
.PHONY: bench-sites
bench-sites: heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/sites/plan.sh $(top_builddir)/heapreplay $(top_srcdir)/results/sites-plan-vm.md
EXTRA_DIST += bench/sites/plan.sh
# The gates of one-allocator reports: the paired A/B of `replay --pair` (false
# alarms and power at +10 % with two copies of spin_shim.so) and the
# kernel-inclusive cost of --count against the glibc tunables that
# instructions miss. Writes results/gates-vm.md; ~10 minutes on a 2-core VM.
.PHONY: bench-gates
bench-gates: heapreplay$(EXEEXT) bench/power/spin_shim.la
	$(SHELL) $(top_srcdir)/bench/gates/gates.sh $(top_builddir)
EXTRA_DIST += bench/gates/gates.sh bench/gates/kcost.c
# The whole capture command against heaptrack: CPU (wait4, the process
# tree) and max RSS of plain / capture / heaptrack runs of a 20 M-event
# malloc/free loop, sqlite3 and CPython, interleaved rounds
# (results/capture-cost-vm.md; ROUNDS=N CHURN=N OLD=other/heapreplay).
.PHONY: bench-capture-cost
bench-capture-cost: bench/capture/cap_churn$(EXEEXT) heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/capture/capture_cost.sh $(top_builddir)
EXTRA_DIST += bench/capture/capture_cost.sh
# The capture summary's overhead figure against the measured overhead: plain
# and captured runs alternated, pinned (the end of results/capture-cost-vm.md;
# ROUNDS=N CHURN=N CPU=N PROGS="churn sqlite python").
.PHONY: bench-capture-overhead
bench-capture-overhead: bench/capture/cap_churn$(EXEEXT) heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/capture/overhead_fit.sh $(top_builddir)
EXTRA_DIST += bench/capture/overhead_fit.sh bench/capture/cap_programs.sh
# What capture --frames=auto costs a program that never presents (cap_churn
# captured with --frames=none and auto, interleaved; results/capture-frames-cost-<host>.md).
.PHONY: bench-capture-frames
bench-capture-frames: bench/capture/cap_churn$(EXEEXT) heapreplay$(EXEEXT)
	$(SHELL) $(top_srcdir)/bench/capture/frames_cost.sh $(top_builddir)
EXTRA_DIST += bench/capture/frames_cost.sh
