# fragment of Makefile.am: traces (src/trace/): the in-memory trace, its file
# formats (binary + text), the synthetic game-like generator (heapreplay gen),
# and the importers of captured logs (capture, heaptrack, mtrace) with their
# address -> id map.
libhr_a_SOURCES += src/trace/trace.c \
	src/trace/binary.c src/trace/binary_enc.c src/trace/text.c src/trace/io.c \
	src/trace/gen.c src/trace/gen_level.c src/trace/gen_play.c src/trace/gen_threads.c \
	src/trace/addrmap.c src/trace/import.c src/trace/import_capture.c src/trace/capture_log.c \
	src/trace/import_heaptrack.c src/trace/import_mtrace.c src/trace/shared.c src/trace/packed.c src/trace/share_file.c \
	src/trace/pools.c src/trace/zsrc.c src/trace/scan.c src/trace/program.c \
	src/trace/names.c src/trace/lifetime.c src/trace/framestat.c src/trace/threadsel.c
noinst_HEADERS += src/trace/shared.h src/trace/format.h src/trace/gen_int.h src/trace/import.h \
	src/trace/zsrc.h src/trace/scan.h src/trace/idtab.h src/trace/packed.h src/trace/share_file.h \
	src/trace/names.h src/trace/lifetime.h src/trace/framestat.h src/trace/threadsel.h \
	src/trace/capture_log.h
# Not installed (no installed library to link them with): README, "Install".
noinst_HEADERS += src/trace/trace.h src/trace/gen.h
# Where blocks were allocated: the stack model and its binary block (1.5).
libhr_a_SOURCES += src/trace/stacks.c src/trace/stacks_bin.c src/trace/text_stacks.c
noinst_HEADERS += src/trace/stacks.h src/trace/stacks_bin.h src/trace/text_int.h
# Symbols of captured stacks (elfutils libdwfl when configure found libdw;
# without it symbols.c only notes that symbols are off).
libhr_a_SOURCES += src/trace/symbols.c
noinst_HEADERS += src/trace/symbols.h
