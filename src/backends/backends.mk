# Backends: one const hr_backend_t per file (src/backends/backend.h).
libhr_a_SOURCES += src/backends/backends.c src/backends/fallback.c \
	src/backends/system.c src/backends/external.c src/backends/bump.c \
	src/backends/testonly.c
noinst_HEADERS += src/backends/backend.h src/backends/fallback.h src/backends/system.h \
	src/alloc/chunk.h
