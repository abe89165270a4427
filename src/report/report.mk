# fragment of Makefile.am: the emitter, JSON DOM, report rendering, SVG charts
# and compare (src/report/), plus the compare and plot subcommands.
libhr_a_SOURCES += src/report/report.c \
	src/report/compare.c src/report/svg.c src/report/builder.c
noinst_HEADERS += src/report/report.h \
	src/report/compare.h src/report/svg.h src/report/builder.h
heapreplay_SOURCES += src/cli/cmd_compare.c src/cli/cmd_plot.c

check_PROGRAMS += tests/test_emit tests/test_json tests/test_compare
TESTS += tests/test_emit tests/test_json tests/test_compare tests/test_compare_cli.sh
tests_test_emit_SOURCES = tests/test_emit.c
tests_test_emit_LDADD = $(TEST_LIBS)
tests_test_json_SOURCES = tests/test_json.c
tests_test_json_LDADD = $(TEST_LIBS)
tests_test_compare_SOURCES = tests/test_compare.c
tests_test_compare_LDADD = $(TEST_LIBS)
EXTRA_DIST += tests/test_compare_cli.sh

# One registry line is all a new metric needs: this test compiles its own copy
# of the registry and of every part that reads it with one extra entry.
check_PROGRAMS += tests/test_metric_extra
TESTS += tests/test_metric_extra
tests_test_metric_extra_SOURCES = tests/test_metric_extra.c src/base/metrics.c \
	src/report/report.c src/report/compare.c src/report/svg.c src/report/builder.c
tests_test_metric_extra_CPPFLAGS = $(AM_CPPFLAGS) -include $(top_srcdir)/tests/metric_extra.h
tests_test_metric_extra_LDADD = $(TEST_LIBS)
noinst_HEADERS += tests/metric_extra.h
