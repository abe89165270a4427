# fragment of Makefile.am: the foundation layer (src/base/): emitter, JSON,
# error type, machine/clock readings, varints, the raw capture-log format,
# the pointer map, the size reader, the metric registry and the typed result generated from it.
# Every layer above may include it; it includes nothing of theirs.
libhr_a_SOURCES += src/base/emit.c src/base/json.c src/base/error.c src/base/sysinfo.c \
	src/base/metrics.c src/base/result.c src/base/hmem.c src/base/outfile.c src/base/signrank.c src/base/json_parse.c
noinst_HEADERS += src/base/emit.h src/base/json.h src/base/sysinfo.h src/base/varint.h src/base/order.h src/base/nametab.h src/base/size.h \
	src/base/rawlog.h src/base/metrics.h src/base/result.h src/base/ptrmap.h src/base/hmem.h \
	src/base/outfile.h src/base/signrank.h src/base/json_int.h
# Not installed (no installed library to link them with): README, "Install".
noinst_HEADERS += src/base/error.h
