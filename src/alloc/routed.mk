# fragment of Makefile.am: the routed heap manager (SHAR-style HeapManager),
# its Doug-Lea-style heap, the heap-table config parser and the "routed" backend.
libhr_a_SOURCES += src/alloc/dlheap.c src/alloc/heapcfg.c src/alloc/routed.c \
	src/alloc/routed_heaps.c src/backends/be_routed.c
pkginclude_HEADERS += include/heapreplay/routed.h include/heapreplay/dlheap.h
noinst_HEADERS += src/alloc/routed_int.h

check_PROGRAMS += tests/test_dlheap tests/test_routed
TESTS += tests/test_dlheap tests/test_routed
tests_test_dlheap_SOURCES = tests/test_dlheap.c
tests_test_dlheap_LDADD = $(TEST_LIBS)
tests_test_routed_SOURCES = tests/test_routed.c
tests_test_routed_LDADD = $(TEST_LIBS)
