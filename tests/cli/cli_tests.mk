# fragment of Makefile.am: the shell tests (tests/cli/), which drive the
# built heapreplay binary and the capture library, plus the layer check of
# every #include in src/ and include/, the floor check of src/report/ and the
# checks that result keys are spelt once (the typed result, src/base/result.h).
# They print TAP through tap.sh; jget reads JSON values for them.
CLI_TESTS = tests/cli/test_replay_cli.sh tests/cli/test_compare_cli.sh \
	tests/cli/test_capture.sh tests/cli/check_includes.sh tests/cli/check_report_floors.sh tests/cli/test_check_includes.sh \
	tests/cli/check_result_keys.sh tests/cli/test_result_fields.sh tests/cli/test_report_input.sh \
	tests/cli/test_pristine.sh tests/cli/test_verify_cli.sh tests/cli/test_threads_cli.sh \
	tests/cli/test_compose_cli.sh tests/cli/test_real_traces.sh tests/cli/test_options_cli.sh \
	tests/cli/test_process_cli.sh tests/cli/test_annotate_std.sh tests/cli/test_pools_cli.sh tests/cli/test_packed_cli.sh \
	tests/cli/test_install.sh tests/cli/test_output_cli.sh tests/cli/test_crosstrace_cli.sh \
	tests/cli/test_input_cli.sh tests/cli/test_broken_alloc_cli.sh tests/cli/test_summary_cli.sh \
	tests/cli/test_merge_cli.sh tests/cli/test_compare_formats.sh tests/cli/test_ci_workflow.sh \
	tests/cli/test_startup.sh \
	tests/cli/test_program_cli.sh tests/cli/test_predict_answers.sh tests/cli/test_series_cli.sh tests/cli/test_phases.sh tests/cli/test_thread_select.sh \
	tests/cli/test_charts_cli.sh tests/cli/test_html_cli.sh tests/cli/test_access_cli.sh tests/cli/test_pollute_cli.sh tests/cli/test_install_path.sh \
	tests/cli/test_touch_cli.sh tests/cli/test_capture_touch.sh tests/cli/test_self_explain.sh \
	tests/cli/test_proc_cli.sh tests/cli/test_asan_replay.sh \
	tests/cli/test_capture_frames.sh tests/cli/test_game_ci.sh tests/cli/test_compare_build.sh tests/cli/test_gates_cli.sh \
	tests/cli/test_warmstop_cli.sh \
	tests/cli/test_paced_cli.sh
TESTS += $(CLI_TESTS)
check_PROGRAMS += tests/cli/jget
EXTRA_DIST += $(CLI_TESTS) tests/cli/tap.sh
# run_concurrently.sh: runs copies of one test at the same time (by hand, not
# in make check), e.g. two of test_real_traces.sh: nothing may be shared.
EXTRA_DIST += tests/cli/run_concurrently.sh
# test_results_index.sh: every file in results/ is listed in results/README.md.
TESTS += tests/cli/test_results_index.sh
EXTRA_DIST += tests/cli/test_results_index.sh

# The compile command of the project's C sources, for test_result_fields.sh
# (it compiles a reader of a misspelt hr_result_t field and expects failure).
hr-print-compile:
	@echo '$(COMPILE)'
.PHONY: hr-print-compile
# test_fidelity_traces.sh: the shipped traces of traces/fidelity/ read and
# replay (the fidelity benchmark's programs, made by traces/fidelity/recapture.sh
# with bench/fidelity/progs/).
TESTS += tests/cli/test_fidelity_traces.sh
EXTRA_DIST += tests/cli/test_fidelity_traces.sh traces/fidelity bench/fidelity/progs
# test_fidelity_report.sh: the fidelity benchmark's summing-up (rho by the
# report's own predictions) and its re-render of a results file from its raw values.
TESTS += tests/cli/test_fidelity_report.sh
EXTRA_DIST += tests/cli/test_fidelity_report.sh
# test_bounds_cli.sh: compressed-input limits, one-line output failures,
# stale temporary files, argument errors (docs/TRACE_FORMAT.md, "Input limits").
TESTS += tests/cli/test_bounds_cli.sh
EXTRA_DIST += tests/cli/test_bounds_cli.sh
# capture --stacks and its symbols: the test builds tests/progs/ itself
# (-g -O0 -fno-omit-frame-pointer, known lines) and captures it.
TESTS += tests/cli/test_capture_stacks.sh
# capture logs converted as they are read: the same bytes as the in-memory
# import, memory that does not grow with the events (tests/capture/cap_loop).
TESTS += tests/cli/test_capture_stream.sh
EXTRA_DIST += tests/cli/test_capture_stream.sh
EXTRA_DIST += tests/cli/test_capture_stacks.sh tests/progs/stacks_prog.c tests/progs/stacks_mod.c
# test_sites_cli.sh: call sites, routing plans and replay --plan on a
# hand-written trace with three known sites (sites_game.awk; docs/SITES.md).
TESTS += tests/cli/test_sites_cli.sh
EXTRA_DIST += tests/cli/test_sites_cli.sh tests/cli/sites_game.awk tests/progs/sites_game.c
# test_sites_cxx.sh: C++ names demangled, container growth passed over, long
# names shortened in text, plans pruned (--min-share), plan+X rows in reports.
TESTS += tests/cli/test_sites_cxx.sh
EXTRA_DIST += tests/cli/test_sites_cxx.sh tests/progs/sites_cxx.cpp
