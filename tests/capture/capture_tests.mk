# fragment of Makefile.am: the programs tests/cli/test_capture.sh captures
# (one behaviour each: threads, fork, realloc, aligned, SIGTERM, annotations,
# exit paths, the page probe of large blocks, allocation in a signal
# handler), the import driver that prints what a log holds, and the
# sample mtrace log for tests/unit/test_import.
check_PROGRAMS += tests/capture/cap_single tests/capture/cap_threads tests/capture/cap_fork \
	tests/capture/cap_realloc tests/capture/cap_aligned tests/capture/cap_sigterm \
	tests/capture/cap_annotate tests/capture/cap_exits tests/capture/cap_touch \
	tests/capture/cap_sigalloc tests/capture/cap_loop \
	tests/capture/hr_import_dump
EXTRA_DIST += tests/capture/sample.mtrace
EXTRA_DIST += tests/capture/annotate_game.cpp
EXTRA_DIST += tests/capture/pool_game.c
# the pseudo-terminal driver of the ^C and ^Z cases of tests/cli/test_capture.sh
EXTRA_DIST += tests/capture/pty_interrupt.py
# capture --frames without a display (tests/cli/test_capture_frames.sh):
# libcapfake.so stands in for libSDL2 and libGL (cap_fakegl.c), and cap_frames
# is linked against it as a game is. Both are built without libtool: a program
# linked against an uninstalled libtool library is a wrapper script, and the
# test must capture the program itself.
check_PROGRAMS += tests/capture/cap_frames tests/capture/cap_frames_dl
# cap_frames_dl loads libcapfake.so with dlopen(RTLD_LOCAL) instead
tests_capture_cap_frames_dl_DEPENDENCIES = tests/capture/libcapfake.so
tests_capture_cap_frames_dl_LDADD = $(LIBS)
tests/capture/libcapfake.so: $(srcdir)/tests/capture/cap_fakegl.c
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) -fPIC -shared -o $@ $(srcdir)/tests/capture/cap_fakegl.c
tests_capture_cap_frames_DEPENDENCIES = tests/capture/libcapfake.so
tests_capture_cap_frames_LDADD = tests/capture/libcapfake.so $(LIBS)
tests_capture_cap_frames_LDFLAGS = -Wl,-rpath,$(abs_top_builddir)/tests/capture
tests_capture_cap_frames_LINK = $(CCLD) $(AM_CFLAGS) $(CFLAGS) $(tests_capture_cap_frames_LDFLAGS) \
	$(LDFLAGS) -o $@
CLEANFILES += tests/capture/libcapfake.so
EXTRA_DIST += tests/capture/cap_fakegl.c
