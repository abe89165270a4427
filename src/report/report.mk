# fragment of Makefile.am: the emitter, JSON DOM, report rendering, SVG, compare
libhr_a_SOURCES += src/report/emit.c
noinst_HEADERS += src/report/emit.h
