# Backends: one const hr_backend_t per file (src/backends/backend.h).
libhr_a_SOURCES += src/backends/backends.c src/backends/fallback.c \
	src/backends/be_system.c src/backends/be_external.c src/backends/be_bump.c \
	src/backends/be_testonly.c src/backends/extstats.c
noinst_HEADERS += src/backends/backend.h src/backends/fallback.h src/backends/be_system.h src/backends/extstats.h \
	src/alloc/chunk.h
