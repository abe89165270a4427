# fragment of Makefile.am: capture (src/capture/), the LD_PRELOAD library
# that logs a program's allocations. A plain module, not linked against
# libhr.a; `heapreplay capture` (src/cli) runs it, src/trace imports its logs.
lib_LTLIBRARIES += libheapreplay-capture.la
libheapreplay_capture_la_SOURCES = src/capture/hooks.c src/capture/log.c src/capture/process.c \
	src/capture/signals.c src/capture/frames.c src/capture/stacks.c
libheapreplay_capture_la_CFLAGS = $(AM_CFLAGS) $(UNWIND_CFLAGS) -fvisibility=hidden
libheapreplay_capture_la_LDFLAGS = -module -avoid-version -shared
libheapreplay_capture_la_LIBADD = $(UNWIND_LIBS) $(LIBS)
noinst_HEADERS += src/capture/capture_int.h src/capture/frame_syms.h
pkginclude_HEADERS += include/heapreplay/annotate.h
