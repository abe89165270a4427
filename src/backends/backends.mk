# fragment of Makefile.am: backends (src/backends/), one const hr_backend_t
# per file (backend.h), collected in hr_backends[] (backends.c): the in-house
# allocators' be_*.c over src/alloc, the system and external allocators, the
# bump and test-only backends, and the fallback every backend shares.
libhr_a_SOURCES += src/backends/backends.c src/backends/fallback.c \
	src/backends/be_stack.c src/backends/be_marker.c src/backends/be_block.c \
	src/backends/be_bank.c src/backends/be_sizeclass.c src/backends/be_routed.c \
	src/backends/be_system.c src/backends/be_external.c src/backends/be_bump.c \
	src/backends/be_testonly.c src/backends/be_mtcheck.c src/backends/extstats.c src/backends/inhouse.c \
	src/backends/be_compose.c src/backends/spec.c
noinst_HEADERS += src/backends/backend.h src/backends/compose.h src/backends/fallback.h src/backends/be_system.h \
	src/backends/extstats.h src/backends/inhouse.h src/backends/spec.h
