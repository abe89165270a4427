# fragment of Makefile.am: the reference tools (tests/tools/) that check the
# harness does not perturb the allocator it measures.
# fresh_replay is the hand-written replay that heapreplay's numbers are
# checked against (tests/cli/test_pristine.sh, bench/fresh/fresh_agreement.sh); it
# links no heapreplay code, only the C library. dump_events turns any trace
# into the flat event file fresh_replay reads (it links libhr.a: the global
# LDADD). Built by `make check`, which runs a test that uses both.
check_PROGRAMS += tests/tools/fresh_replay tests/tools/fresh_mt_replay tests/tools/dump_events
tests_tools_fresh_replay_LDADD = $(LIBS)
# fresh_mt_replay: the multithreaded twin (threaded replay is checked
# against it); only the C library and pthreads.
tests_tools_fresh_mt_replay_LDADD = $(LIBS) -lpthread
noinst_HEADERS += tests/tools/flat_events.h
# render_report renders a report file as replay renders its own (text, md,
# --detail): test_summary_cli.sh compares it with what replay printed.
check_PROGRAMS += tests/tools/render_report
# same_outputs.sh OLD NEW: a refactor's check that every output a user sees is
# unchanged (rendering byte for byte, measuring by structure); not run by make
# check (it takes minutes of replays). same_json.py is its JSON comparison.
# same_hot_loop.sh OLD NEW: the engine's timed functions disassemble alike.
EXTRA_DIST += tests/tools/same_outputs.sh tests/tools/same_json.py tests/tools/same_hot_loop.sh

# The allocation-failure sweep (docs/TESTING.md). failmalloc.so is the
# LD_PRELOAD shim that makes the Nth malloc-family call fail; it is built
# without the sanitizer flags of CFLAGS/LDFLAGS (an ASan-instrumented shim
# would run before ASan's runtime is set up), so it forwards to ASan's malloc
# in an ASan build and LeakSanitizer checks the error paths.
#   make check            runs the fast subset: the first call of every
#                         distinct caller, every command (test_oom_sites.sh)
#   make check-oom        every failure point (OOM_MAX caps a command's runs)
# oom_one.sh BUILDDIR N ARGS... runs one failure point by hand.
tests/tools/failmalloc.so: $(top_srcdir)/tests/tools/failmalloc.c
	@$(MKDIR_P) tests/tools
	$(AM_V_CC)$(CC) $(HR_CFLAGS) -O2 -g -fPIC -shared -o $@ $(top_srcdir)/tests/tools/failmalloc.c \
		$(HR_DL_LIBS) -lpthread
check_DATA = tests/tools/failmalloc.so
CLEANFILES += tests/tools/failmalloc.so
TESTS += tests/tools/test_oom_sites.sh
EXTRA_DIST += tests/tools/failmalloc.c tests/tools/oom_sweep.sh tests/tools/oom_one.sh \
	tests/tools/test_oom_sites.sh
.PHONY: check-oom
check-oom: heapreplay$(EXEEXT) tests/tools/failmalloc.so
	OOM_SWEEP=all $(SHELL) $(top_srcdir)/tests/tools/oom_sweep.sh $(top_builddir) $(top_srcdir)
