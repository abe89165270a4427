# fragment of Makefile.am: the programs tests/cli/test_capture.sh captures
# (one behaviour each: threads, fork, realloc, aligned, SIGTERM, annotations,
# exit paths, the page probe of large blocks, allocation in a signal
# handler), the import driver that prints what a log holds, and the
# sample mtrace log for tests/unit/test_import.
check_PROGRAMS += tests/capture/cap_single tests/capture/cap_threads tests/capture/cap_fork \
	tests/capture/cap_realloc tests/capture/cap_aligned tests/capture/cap_sigterm \
	tests/capture/cap_annotate tests/capture/cap_exits tests/capture/cap_touch \
	tests/capture/cap_sigalloc \
	tests/capture/hr_import_dump
EXTRA_DIST += tests/capture/sample.mtrace
EXTRA_DIST += tests/capture/annotate_game.cpp
EXTRA_DIST += tests/capture/pool_game.c
# the pseudo-terminal driver of the ^C and ^Z cases of tests/cli/test_capture.sh
EXTRA_DIST += tests/capture/pty_interrupt.py
