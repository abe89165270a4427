# fragment of Makefile.am: the command-line tool (src/cli/): a command table
# (main.c) and one cmd_<name>.c per subcommand. Linked with the global LDADD.
bin_PROGRAMS += heapreplay
heapreplay_SOURCES += src/cli/main.c src/cli/cmd_replay.c src/cli/cmd_info.c \
	src/cli/cmd_convert.c src/cli/cmd_gen.c src/cli/cmd_list.c \
	src/cli/cmd_compare.c src/cli/cmd_plot.c src/cli/cmd_report.c src/cli/cmd_capture.c src/cli/capture_time.c src/cli/capture_run.c src/cli/frames_by.c src/cli/cmd_merge.c \
	src/cli/opts.c src/cli/help.c src/cli/replay_pools.c src/cli/replay_args.c \
	src/cli/replay_startup.c
# Call sites and routing plans (docs/SITES.md).
heapreplay_SOURCES += src/cli/cmd_sites.c src/cli/cmd_plan.c src/cli/replay_route.c
noinst_HEADERS += src/cli/cli.h src/cli/opts.h src/cli/replay_int.h src/cli/capture_time.h src/cli/capture_run.h src/cli/frames_by.h
# cmd_capture.c looks the capture library up next to the binary (.libs/ in
# the build tree), then at libdir relative to the binary's own prefix (a
# moved install: bindir and libdir give the relative path), then at its
# configured path.
heapreplay_CPPFLAGS = $(AM_CPPFLAGS) -DHR_CAPTURE_LIB_INSTALLED=\"$(libdir)/libheapreplay-capture.so\" \
	-DHR_BINDIR=\"$(bindir)\" -DHR_LIBDIR=\"$(libdir)\"
