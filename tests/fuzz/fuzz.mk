# fragment of Makefile.am: libFuzzer targets over every parser (tests/fuzz/),
# built by `make fuzz` with $(FUZZ_CC) (clang: -fsanitize=fuzzer,address,
# undefined), never by make all or make check. Each target compiles the
# sources it needs itself (the foundation, the trace layer and the heap-config
# parser), so the rest of the build keeps its own compiler and flags.
#   make fuzz              build the targets
#   make fuzz-smoke        run each over its seed corpus for FUZZ_RUNS inputs
#                          (default 3000; TAP, one case per target), FUZZ_JOBS
#                          targets at once, each stopped after FUZZ_MAX_SECS
#                          (0: no limit). CI (.ci/run) runs 100000 inputs per
#                          target, one target per core, capped at 240 s:
#                          about 2.5 minutes on 2 cores (docs/TESTING.md)
# Seed corpus: tests/fuzz/corpus/<target>/ (committed; new inputs a run finds
# go to a scratch directory, never into the tree). For a long run:
#   tests/fuzz/fuzz_trace -max_total_time=600 WORKDIR tests/fuzz/corpus/trace
FUZZ_TARGETS = tests/fuzz/fuzz_trace tests/fuzz/fuzz_import tests/fuzz/fuzz_json \
	tests/fuzz/fuzz_heapcfg
FUZZ_BUILD = $(SHELL) $(top_srcdir)/tests/fuzz/build.sh "$(FUZZ_CC)" "$(top_srcdir)" \
	"$(top_builddir)" "$(ZSTD_LIBS) $(ZLIB_LIBS) $(DW_LIBS)" $@
# libhr.a stands for "a library source changed" (it holds the same files).
FUZZ_DEPS = libhr.a $(top_srcdir)/tests/fuzz/fuzz_common.h $(top_srcdir)/tests/fuzz/build.sh
FUZZ_RUNS = 3000
FUZZ_JOBS = 1
FUZZ_MAX_SECS = 0

.PHONY: fuzz fuzz-smoke
fuzz: $(FUZZ_TARGETS)
tests/fuzz/fuzz_trace: $(top_srcdir)/tests/fuzz/fuzz_trace.c $(FUZZ_DEPS)
	$(FUZZ_BUILD)
tests/fuzz/fuzz_import: $(top_srcdir)/tests/fuzz/fuzz_import.c $(FUZZ_DEPS)
	$(FUZZ_BUILD)
tests/fuzz/fuzz_json: $(top_srcdir)/tests/fuzz/fuzz_json.c $(FUZZ_DEPS)
	$(FUZZ_BUILD)
tests/fuzz/fuzz_heapcfg: $(top_srcdir)/tests/fuzz/fuzz_heapcfg.c $(FUZZ_DEPS)
	$(FUZZ_BUILD)
fuzz-smoke: fuzz
	FUZZ_JOBS=$(FUZZ_JOBS) FUZZ_MAX_SECS=$(FUZZ_MAX_SECS) \
		$(SHELL) $(top_srcdir)/tests/fuzz/smoke.sh $(top_builddir) $(top_srcdir) $(FUZZ_RUNS)

CLEANFILES += $(FUZZ_TARGETS)
EXTRA_DIST += tests/fuzz/fuzz_trace.c tests/fuzz/fuzz_import.c tests/fuzz/fuzz_json.c \
	tests/fuzz/fuzz_heapcfg.c tests/fuzz/fuzz_common.h tests/fuzz/smoke.sh tests/fuzz/build.sh \
	tests/fuzz/corpus
