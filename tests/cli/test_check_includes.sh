#!/usr/bin/env bash
# Tests of the layer check itself (check_includes.sh): it runs on small
# fixture trees built here and must pass a tree that keeps the layer order
# and fail, naming FILE:LINE and the edge, each kind of violation. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
CHECK="$(dirname "$0")/check_includes.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrinc.XXXXXX")
trap 'rm -rf "$W"' EXIT

# put FILE LINE...: writes a fixture file under $W/tree.
put() {
    local f="$W/tree/$1"
    shift
    mkdir -p "$(dirname "$f")"
    printf '%s\n' "$@" >"$f"
}

# A clean tree: one file per layer, each including what it may.
fresh() {
    rm -rf "$W/tree"
    put src/base/error.h '#include <stddef.h>'
    put src/trace/trace.h '#include "base/error.h"'
    put src/alloc/stack.h '#include "base/error.h"'
    put include/heapreplay/annotate.h '/* nothing */'
    put src/base/emit.h '#include "base/error.h"'
    put src/alloc/stack.c '#include "config.h"' '#include "alloc/stack.h"' \
        '#include "base/emit.h"' '#include "chunk.h"'
    put src/alloc/chunk.h '#include <stdint.h>'
    put src/trace/io.c '#include "trace/trace.h"' '#include "../base/emit.h"'
    put src/capture/hooks.c '#include "heapreplay/annotate.h"' '#include "base/emit.h"'
    put src/backends/be_stack.c '#include "alloc/stack.h"' '#include "alloc/chunk.h"'
    put src/replay/engine.c '#include "backends/be_stack.c"' '#include "trace/trace.h"'
    put src/report/report.c '#include "replay/engine.c"'
    put src/cli/main.c '#include "report/report.c"' '#include "trace/io.c"' \
        '#include "heapreplay/annotate.h"' '#include "alloc/stack.c"'
}

# expect_fail NAME PATTERN: the check fails on the tree and prints PATTERN.
expect_fail() {
    local out rc
    out=$(bash "$CHECK" "$W/tree" 2>&1)
    rc=$?
    if [ $rc != 0 ] && printf '%s\n' "$out" | grep -qF -- "$2"; then
        ok "$1"
    else
        not_ok "$1" "exit $rc, expected a failure naming: $2" "$out"
    fi
}

fresh
out=$(bash "$CHECK" "$W/tree" 2>&1)
rc=$?
if [ $rc = 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
    ok "a tree in layer order passes"
else
    not_ok "a tree in layer order passes" "$out"
fi

fresh
put src/alloc/block.c '#include "base/emit.h"' '#include "trace/io.c"'
expect_fail "alloc including trace (siblings) fails" 'src/alloc/block.c:2: alloc -> trace (#include "trace/io.c")'

fresh
put src/trace/gen.c '#include "alloc/stack.h"'
expect_fail "trace including an alloc public header fails" 'src/trace/gen.c:1: trace -> alloc'

fresh
put src/backends/be_x.c '#include "trace/trace.h"'
expect_fail "backends including trace fails" 'src/backends/be_x.c:1: backends -> trace'

fresh
put src/alloc/up.c '#include "../replay/engine.c"'
expect_fail "a relative include upwards fails" 'src/alloc/up.c:1: alloc -> replay'

fresh
put src/base/json.c '#include "alloc/chunk.h"'
expect_fail "base including alloc fails" 'src/base/json.c:1: base -> alloc'

fresh
put src/alloc/routed.h '#include "alloc/stack.h"' '#include "trace/trace.h"'
expect_fail "a public alloc header including trace.h fails" \
    'src/alloc/routed.h:2: alloc -> trace'

fresh
put src/replay/child.c '#include "report/report.c"'
expect_fail "replay including report (upwards) fails" 'src/replay/child.c:1: replay -> report'

fresh
put src/misc/x.c '#include "base/emit.h"'
expect_fail "a folder outside the layers fails" 'src/misc/x.c: not in any layer'

fresh
put src/cli/cmd.c '#include "no/such.h"'
expect_fail "an include that resolves nowhere fails" 'src/cli/cmd.c:1: #include "no/such.h" not found'

# The floors of src/report/ (check_report_floors.sh): a fixture tree with one
# file per floor must pass; a lower floor including a higher one, a file on
# no floor, and two files of one floor including each other must fail. Then
# the call check on objects built here: a lower-floor object calling a
# higher-floor function must fail.
FLOORS="$(dirname "$0")/check_report_floors.sh"
rfresh() {
    rm -rf "$W/tree" "$W/obj"
    put src/report/access.h '#include "base/json.h"'
    put src/report/access.c '#include "report/access.h"'
    put src/report/svg.c '#include "report/access.h"'
    put src/report/summary.h '#include "report/access.h"'
    put src/report/tables.c '#include "report/summary.h"' '#include "report/svg.h"'
    put src/report/svg.h '#include "report/access.h"'
    put src/report/chart.c '#include "report/svg.h"'
    put src/report/html.c '#include "report/tables.h"'
    put src/report/tables.h '#include "report/summary.h"'
    put src/report/report.c '#include "report/html.h"'
    put src/report/html.h '#include "report/tables.h"'
    put src/report/builder.c '#include "report/report.h"'
    put src/report/report.h '#include "report/tables.h"'
    mkdir -p "$W/obj"
}
# expect_floors NAME PATTERN: the floor check fails on the tree (objects in
# $W/obj) and prints PATTERN; PATTERN "" means it must pass.
expect_floors() {
    local out rc
    out=$(bash "$FLOORS" "$W/tree" "$W/obj" 2>&1)
    rc=$?
    if [ -z "$2" ]; then
        if [ $rc = 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then ok "$1"
        else not_ok "$1" "exit $rc, expected a pass" "$out"; fi
    elif [ $rc != 0 ] && printf '%s\n' "$out" | grep -qF -- "$2"; then
        ok "$1"
    else
        not_ok "$1" "exit $rc, expected a failure naming: $2" "$out"
    fi
}

rfresh
expect_floors "report floors: a tree in floor order passes" ""

rfresh
put src/report/svg.c '#include "report/access.h"' '#include "report/tables.h"'
expect_floors "report floors: svg (draw) including tables.h (render) fails" \
    'src/report/svg.c:2: draw -> render (#include "report/tables.h")'

rfresh
put src/report/access.c '#include "report/access.h"' '#include "report/builder.h"'
put src/report/builder.h '#include "report/report.h"'
expect_floors "report floors: the access floor including the builder fails" \
    'src/report/access.c:2: access -> assemble'

rfresh
put src/report/misc.c '#include "report/access.h"'
expect_floors "report floors: a file on no floor fails" 'src/report/misc.c: on no floor'

rfresh
put src/report/summary.h '#include "report/access.h"' '#include "report/tables.h"'
expect_floors "report floors: an include loop on one floor fails" 'files in a loop:'

CCX=${CC:-cc}
if command -v "${CCX%% *}" >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
    rfresh
    printf 'int hr_fx_up(void);\nint hr_fx_up(void) { return 1; }\n' >"$W/obj/up.c"
    printf 'int hr_fx_up(void);\nint hr_fx_down(void);\nint hr_fx_down(void) { return 0; }\n' >"$W/obj/down.c"
    $CCX -c -o "$W/obj/libhr_a-report.o" "$W/obj/up.c" &&
        $CCX -c -o "$W/obj/libhr_a-svg.o" "$W/obj/down.c"
    expect_floors "report floors: objects calling down only pass" ""
    printf 'int hr_fx_up(void);\nint hr_fx_down(void);\nint hr_fx_down(void) { return hr_fx_up(); }\n' >"$W/obj/down.c"
    $CCX -c -o "$W/obj/libhr_a-svg.o" "$W/obj/down.c"
    expect_floors "report floors: a draw object calling a top function fails" \
        'libhr_a-svg.o: draw -> top (calls hr_fx_up in report)'
    printf 'int hr_fx_up(void);\nint hr_fx_down(void);\nint hr_fx_up(void) { return hr_fx_down(); }\n' >"$W/obj/up.c"
    $CCX -c -o "$W/obj/libhr_a-report.o" "$W/obj/up.c"
    expect_floors "report floors: a call loop fails" 'files in a loop:'
else
    skip "report floors: the call cases" "no C compiler or nm"
fi

# The result-key check (check_result_keys.sh): a registry path spelt as a
# string literal outside the registry fails; the same path in a comment, or
# through the registry's id, passes.
KEYS="$(dirname "$0")/check_result_keys.sh"
kfresh() {
    rm -rf "$W/tree"
    put src/base/metrics.h '#define HR_METRIC_LIST(X) \' \
        '    X(PEAK_LIVE, "memory.peak_live", BYTES, U64, EXACT, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(OPS_BY_OP, "ops.*", COUNT, U64, FIRST, TRACE, ENGINE, OPS, 0, NULL, -1, NONE, NULL) \' \
        '    X(A1, "a.b1", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A2, "a.b2", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A3, "a.b3", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A4, "a.b4", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A5, "a.b5", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A6, "a.b6", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A7, "a.b7", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL) \' \
        '    X(A8, "a.b8", COUNT, U64, FIRST, TRACE, ENGINE, NONE, 0, NULL, -1, NONE, NULL)'
    put src/report/ok.c '/* reads "memory.peak_live" */' \
        'double f(const hr_result_t *r) { return r->m.PEAK_LIVE; } // "ops.free"' \
        'const char *p = hr_metrics[HR_M_PEAK_LIVE].path, *q = "memory";'
}
kexpect() {
    local out rc
    out=$(bash "$KEYS" "$W/tree" 2>&1)
    rc=$?
    if [ -z "$2" ]; then
        if [ $rc = 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then ok "$1"
        else not_ok "$1" "exit $rc, expected a pass" "$out"; fi
    elif [ $rc != 0 ] && printf '%s\n' "$out" | grep -qF -- "$2"; then ok "$1"
    else not_ok "$1" "exit $rc, expected a failure naming: $2" "$out"; fi
}
# kfresh with a src/base/result.h naming the result's other keys (HR_RK_*)
kfresh_keys() {
    kfresh
    put src/base/result.h '#define HR_RK_TRACE "trace"' '#define HR_RK_STATUS "status"' \
        '#define HR_RK_A "a"' '#define HR_RK_B "b"' '#define HR_RK_C "c"' '#define HR_RK_D "d"' \
        '#define HR_RK_E "e"' '#define HR_RK_F "f"' '#define HR_RK_G "g"' '#define HR_RK_H "h"'
}
kfresh
kexpect "result keys: paths in comments and through the registry pass" ""
kfresh
put src/report/bad.c 'double f(const hr_json_t *r) { return hr_json_path_num(r, "memory.peak_live"); }'
kexpect "result keys: a literal registry path fails" 'src/report/bad.c:1: "memory.peak_live"'
kfresh
put src/report/bad.c 'const char *k = "memory.peak_live_mad";'
kexpect "result keys: a literal summary key (_mad) fails" 'src/report/bad.c:1: "memory.peak_live_mad"'
kfresh
put src/report/bad.c 'const char *k = "ops.free";'
kexpect "result keys: a literal family member fails" 'src/report/bad.c:1: "ops.free"'
kfresh_keys
put src/report/ok2.c 'const char *s = hr_json_path_str(r, HR_RK_STATUS); /* "status" */'
kexpect "result keys: an identity key read through its HR_RK_ macro passes" ""
put src/cli/bad.c 'const char *s = hr_json_path_str(r, "status");'
kexpect "result keys: an identity key read by name fails" 'src/cli/bad.c:1:const char *s = hr_json_path_str(r, "status");'
kfresh_keys
put src/report/chart_x.c 'void g(const hr_json_t *j, hr_result_t *t) { hr_report_result(j, t); }'
kexpect "result keys: a renderer that decodes a result itself fails" 'src/report/chart_x.c:1:'

tap_done
