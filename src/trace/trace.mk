# fragment of Makefile.am — trace file formats (binary + text), tests, decode bench
libhr_a_SOURCES += src/trace/binary.c src/trace/binary_enc.c src/trace/text.c src/trace/io.c
noinst_HEADERS += src/trace/format.h

check_PROGRAMS += tests/test_varint tests/test_trace_format
TESTS += tests/test_varint tests/test_trace_format
tests_test_varint_SOURCES = tests/test_varint.c
tests_test_varint_LDADD = $(TEST_LIBS)
tests_test_trace_format_SOURCES = tests/test_trace_format.c
tests_test_trace_format_LDADD = $(TEST_LIBS)

EXTRA_PROGRAMS += bench/bench_decode
HR_BENCH += bench/bench_decode$(EXEEXT)
bench_bench_decode_SOURCES = bench/bench_decode.c
bench_bench_decode_LDADD = $(TEST_LIBS)
