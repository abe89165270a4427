# fragment of Makefile.am — capture (issue 6): the LD_PRELOAD library, the
# importers (address -> id), `heapreplay capture`, and their tests.

# The preload library: a plain module, not linked against libhr.a.
lib_LTLIBRARIES += libheapreplay-capture.la
libheapreplay_capture_la_SOURCES = src/capture/hooks.c src/capture/log.c src/capture/process.c
libheapreplay_capture_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libheapreplay_capture_la_LDFLAGS = -module -avoid-version -shared
libheapreplay_capture_la_LIBADD = $(LIBS)
noinst_HEADERS += src/capture/capture_int.h src/trace/import.h
pkginclude_HEADERS += include/heapreplay/annotate.h

# Importers and the address map (in libhr.a).
libhr_a_SOURCES += src/trace/addrmap.c src/trace/import.c src/trace/import_capture.c \
	src/trace/import_heaptrack.c src/trace/import_mtrace.c

# The subcommand. The library is looked up next to the binary (.libs/ in the
# build tree), then at its installed path.
heapreplay_SOURCES += src/cli/cmd_capture.c
heapreplay_CPPFLAGS = $(AM_CPPFLAGS) -DHR_CAPTURE_LIB_INSTALLED=\"$(libdir)/libheapreplay-capture.so\"

# Test programs (captured by tests/test_capture.sh) and the import driver.
CAPTURE_TEST_PROGS = tests/capture/cap_single tests/capture/cap_threads tests/capture/cap_fork \
	tests/capture/cap_realloc tests/capture/cap_aligned tests/capture/cap_sigterm \
	tests/capture/cap_annotate tests/capture/cap_exits
check_PROGRAMS += $(CAPTURE_TEST_PROGS) tests/capture/hr_import_dump
tests_capture_cap_single_SOURCES = tests/capture/cap_single.c
tests_capture_cap_threads_SOURCES = tests/capture/cap_threads.c
tests_capture_cap_fork_SOURCES = tests/capture/cap_fork.c
tests_capture_cap_realloc_SOURCES = tests/capture/cap_realloc.c
tests_capture_cap_aligned_SOURCES = tests/capture/cap_aligned.c
tests_capture_cap_sigterm_SOURCES = tests/capture/cap_sigterm.c
tests_capture_cap_annotate_SOURCES = tests/capture/cap_annotate.c
tests_capture_cap_exits_SOURCES = tests/capture/cap_exits.c
tests_capture_hr_import_dump_SOURCES = tests/capture/hr_import_dump.c
tests_capture_hr_import_dump_LDADD = $(TEST_LIBS)

TESTS += tests/test_capture.sh tests/test_import
check_PROGRAMS += tests/test_import
tests_test_import_SOURCES = tests/test_import.c
tests_test_import_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/test_capture.sh tests/capture/sample.mtrace \
	bench/bench_capture.sh bench/cap_churn.c docs/CAPTURE.md

# make bench: capture overhead vs uncaptured vs heaptrack.
EXTRA_PROGRAMS += bench/cap_churn
bench_cap_churn_SOURCES = bench/cap_churn.c
HR_BENCH += bench/cap_churn$(EXEEXT)
