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

tap_done
