# fragment of Makefile.am: reports (src/report/): rendering (text, JSON, CSV,
# Markdown), the report builder, SVG charts and compare.
libhr_a_SOURCES += src/report/report.c \
	src/report/compare.c src/report/compare_fmt.c src/report/svg.c src/report/chart_bars.c \
	src/report/chart_summary.c src/report/chart_memory.c src/report/chart_frames.c \
	src/report/chart_latency.c src/report/html.c src/report/builder.c \
	src/report/stats.c src/report/ranking.c src/report/summary.c src/report/detail.c src/report/merge.c \
	src/report/predict.c
noinst_HEADERS += src/report/report.h \
	src/report/compare.h src/report/svg.h src/report/html.h src/report/builder.h \
	src/report/stats.h src/report/ranking.h src/report/summary.h src/report/detail.h src/report/merge.h \
	src/report/predict.h
