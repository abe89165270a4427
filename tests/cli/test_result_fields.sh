#!/usr/bin/env bash
# The typed result (src/base/result.h) makes a misspelt metric a compile
# error: a small reader of hr_result_t with a misspelt field must NOT
# compile, and its correctly spelt twin must (so the case cannot pass
# because nothing compiles). Both are compiled with the project's own
# compile command ($(COMPILE): compiler, includes and warning flags), which
# `make hr-print-compile` prints in the build tree (tests/cli/cli_tests.mk).
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/hrfield.XXXXXX")
trap 'rm -rf "$W"' EXIT

[ -f Makefile ] || skip_all "run from the build tree (no Makefile here)"
compile=$(MAKEFLAGS= MAKELEVEL= make -s --no-print-directory hr-print-compile 2>/dev/null)
[ -n "$compile" ] || skip_all "make hr-print-compile printed nothing"

# reader FILE FIELD: a function reading result field FIELD.
reader() {
    cat >"$1" <<EOF
#include "base/result.h"
double hr_fixture_read(const hr_result_t *r);
double hr_fixture_read(const hr_result_t *r) { return r->m.$2 + r->m.OPS_PER_S_mad; }
EOF
}

reader "$W/good.c" PEAK_LIVE
if out=$($compile -c -o "$W/good.o" "$W/good.c" 2>&1); then
    ok "a reader of r->m.PEAK_LIVE compiles"
else
    not_ok "a reader of r->m.PEAK_LIVE compiles" "$compile" "$out"
fi

reader "$W/bad.c" PEAK_LIEV
if out=$($compile -c -o "$W/bad.o" "$W/bad.c" 2>&1); then
    not_ok "a reader of the misspelt r->m.PEAK_LIEV does not compile" "it compiled: $compile"
elif printf '%s\n' "$out" | grep -q 'PEAK_LIEV'; then
    ok "a reader of the misspelt r->m.PEAK_LIEV does not compile (the error names it)"
else
    not_ok "a reader of the misspelt r->m.PEAK_LIEV does not compile (the error names it)" "$out"
fi
tap_done
