# fragment of Makefile.am: the C unit tests (tests/unit/). Each test_NAME is
# built from test_NAME.c alone and linked with the global LDADD (libhr.a and
# its libraries): Automake's defaults, so adding a test is one word here.
# Each prints TAP through hr_test.h; HR_TEST_FILTER=SUBSTRING runs only the
# cases whose name contains it.
UNIT_TESTS = tests/unit/test_varint tests/unit/test_trace_format tests/unit/test_gen tests/unit/test_gen_threads \
	tests/unit/test_import tests/unit/test_emit tests/unit/test_summary tests/unit/test_json tests/unit/test_compare tests/unit/test_compare_family tests/unit/test_merge tests/unit/test_builder \
	tests/unit/test_engine tests/unit/test_stack tests/unit/test_marker tests/unit/test_block \
	tests/unit/test_bank tests/unit/test_sizeclass tests/unit/test_dlheap tests/unit/test_routed tests/unit/test_routed_tables \
	tests/unit/test_backends tests/unit/test_ptrmap tests/unit/test_verify tests/unit/test_threads \
	tests/unit/test_compose tests/unit/test_command tests/unit/test_trace_input tests/unit/test_scan_canonical tests/unit/test_program tests/unit/test_predict tests/unit/test_ranking \
	tests/unit/test_series tests/unit/test_packed tests/unit/test_access tests/unit/test_spec tests/unit/test_plan tests/unit/test_result tests/unit/test_lifetime \
	tests/unit/test_paired tests/unit/test_warmstop tests/unit/test_paced tests/unit/test_pollute
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
noinst_HEADERS += tests/unit/hr_test.h tests/unit/golden.h tests/unit/seed_model.h tests/unit/trace_mem.h \
	tests/unit/same_blocks.h

# One registry line is all a new metric needs: this test compiles its own copy
# of the metric registry and of every part that reads it, with one extra entry
# (metric_extra.h, forced in front of each source).
check_PROGRAMS += tests/unit/test_metric_extra
TESTS += tests/unit/test_metric_extra
tests_unit_test_metric_extra_SOURCES = tests/unit/test_metric_extra.c src/base/metrics.c src/base/result.c \
	$(HR_REPORT_SOURCES)
tests_unit_test_metric_extra_CPPFLAGS = $(AM_CPPFLAGS) -include $(top_srcdir)/tests/unit/metric_extra.h
noinst_HEADERS += tests/unit/metric_extra.h

# The cost counter: API cases (test_counter) and the determinism check, which
# runs a fixed workload under valgrind's callgrind twice per allocator and
# needs the two Ir totals within 0.1 % (count_demo; SKIP without valgrind).
check_PROGRAMS += tests/unit/test_counter tests/unit/count_demo
TESTS += tests/unit/test_counter tests/unit/count_demo

# The memory limit of a replay process (replay/memlimit.h); a unit test like
# the others, so check-unit runs it under the sanitizers too.
UNIT_TESTS += tests/unit/test_memlimit
# Every input bounded: name lookups by hash (probe counts, no timing);
# limits that accept what their messages say.
UNIT_TESTS += tests/unit/test_names tests/unit/test_input_bounds tests/unit/test_stacks tests/unit/test_route
