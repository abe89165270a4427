# The command-line tool: a command table and one cmd_<name>.c per subcommand.
# (cmd_compare.c/cmd_plot.c are listed in src/report/report.mk and
# cmd_capture.c in src/capture/capture.mk, next to what they drive.)
bin_PROGRAMS += heapreplay
heapreplay_SOURCES += src/cli/main.c src/cli/cmd_replay.c src/cli/cmd_info.c \
	src/cli/cmd_convert.c src/cli/cmd_gen.c src/cli/cmd_list.c

heapreplay_LDADD = libhr.a $(ZSTD_LIBS) $(ZLIB_LIBS) $(LIBS)
noinst_HEADERS += src/cli/cli.h
