# fragment of Makefile.am: reports (src/report/): rendering (text, JSON, CSV,
# Markdown, HTML), the report builder, SVG charts and compare. Listed by floor,
# lowest first (src/report/report.h; tests/cli/check_report_floors.sh checks
# them). HR_REPORT_SOURCES is the one list: tests/unit/unit_tests.mk builds
# its own copy of it too.
HR_REPORT_SOURCES = \
	src/report/access.c src/report/stats.c src/report/metric_name.c src/report/prose.c \
	src/report/svg.c src/report/ranking.c src/report/answers.c \
	src/report/summary.c src/report/phases.c src/report/detail.c src/report/crosstrace.c src/report/wholeprog.c src/report/predict.c \
	src/report/tables.c \
	src/report/csv.c src/report/compare.c src/report/compare_fmt.c src/report/paired.c \
	src/report/compare_family.c src/report/compare_like.c src/report/compare_figs.c src/report/compare_whole.c src/report/compare_program.c \
	src/report/chart_bars.c src/report/chart_summary.c src/report/chart_memory.c \
	src/report/chart_frames.c src/report/chart_latency.c \
	src/report/chart.c \
	src/report/html.c \
	src/report/report.c \
	src/report/builder.c src/report/merge.c
libhr_a_SOURCES += $(HR_REPORT_SOURCES)
noinst_HEADERS += \
	src/report/access.h src/report/stats.h src/report/metric_name.h src/report/prose.h \
	src/report/svg.h src/report/ranking.h src/report/answers.h \
	src/report/summary.h src/report/phases.h src/report/detail.h src/report/crosstrace.h src/report/wholeprog.h src/report/predict.h \
	src/report/tables.h \
	src/report/csv.h src/report/compare.h src/report/compare_family.h src/report/compare_prog.h src/report/paired.h src/report/charts.h \
	src/report/chart.h \
	src/report/html.h \
	src/report/report.h \
	src/report/builder.h src/report/merge.h
# Call sites of traces with stacks (heapreplay sites; docs/SITES.md).
libhr_a_SOURCES += src/report/sites.c src/report/sites_out.c src/report/sites_report.c
noinst_HEADERS += src/report/sites.h src/report/sites_report.h
