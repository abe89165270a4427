# TAP helpers for the shell tests, sourced (bash): `. "$(dirname "$0")/tap.sh"`.
# Every helper prints one test line and counts it; the plan goes last.
#
#   ok NAME                    a passing case
#   not_ok NAME [DIAG...]      a failing case, each DIAG as a "# " line
#   skip NAME REASON           a case not run: "ok N - NAME # SKIP REASON"
#   check NAME CMD [ARG...]    runs CMD quietly: ok when it exits 0, else not_ok
#                              with the command as diagnostic
#   skip_all REASON            nothing can run: prints "1..0 # SKIP REASON", exits 0
#   skip_all_if_asan BIN WHAT  skip_all when BIN is built with AddressSanitizer:
#                              WHAT (a library preloaded into a program) cannot
#                              run under it
#   fails_one_line NAME RE CMD [ARG...]
#                              runs CMD: ok when it exits 2 with nothing on
#                              stdout and one line on stderr matching RE
#                              (grep's basic regex)
#   tap_setup NAME [jget]      the usual start of a CLI test: HR (the built
#                              heapreplay, from $top_builddir, default .) and T
#                              (a fresh folder hr_NAME.* removed at exit);
#                              with jget also JGET and `jget PATH FILE`;
#                              skip_all when a binary is not built
#   tap_lib NAME               prints the library of the external allocator NAME
#                              as `$HR list` names it; status 1 (nothing printed)
#                              when it was not found at configure time
#   plan                       prints the plan "1..N" for the cases so far
#   tap_done                   prints the plan and exits 1 if any case failed
#                              (`done` itself is a shell keyword)
#
# State: tap_n (cases so far) and tap_failed (failed cases); scripts may read
# both. Works under `set -u`.

tap_n=0
tap_failed=0

ok() {
    tap_n=$((tap_n + 1))
    echo "ok $tap_n - $1"
}

not_ok() {
    tap_n=$((tap_n + 1))
    tap_failed=$((tap_failed + 1))
    echo "not ok $tap_n - $1"
    shift
    local line
    for line in "$@"; do
        [ -n "$line" ] || continue
        printf '%s\n' "$line" | sed 's/^/# /'
    done
}

skip() {
    tap_n=$((tap_n + 1))
    echo "ok $tap_n - $1 # SKIP ${2:-}"
}

check() {
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then ok "$name"; else not_ok "$name" "command: $*"; fi
}

skip_all() {
    echo "1..0 # SKIP $1"
    exit 0
}

skip_all_if_asan() {
    if nm "$1" 2>/dev/null | grep -q __asan_init; then
        skip_all "ASan build: $2 cannot run under AddressSanitizer (its runtime must come first)"
    fi
}

fails_one_line() {
    local name=$1 re=$2 out err rc
    shift 2
    out=$(mktemp) && err=$(mktemp) || exit 1
    "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$err")" = 1 ] && [ ! -s "$out" ] && grep -q -- "$re" "$err"; then
        ok "$name"
    else
        not_ok "$name" "rc=$rc" "$(cat "$err")"
    fi
    rm -f "$out" "$err"
}

tap_setup() {
    top_builddir=${top_builddir:-.}
    HR="$top_builddir/heapreplay"
    if [ "${2:-}" = jget ]; then
        JGET="$top_builddir/tests/cli/jget"
        [ -x "$HR" ] && [ -x "$JGET" ] || skip_all "heapreplay or jget not built"
        jget() { "$JGET" "$1" "$2"; }
    else
        [ -x "$HR" ] || skip_all "$HR not built"
    fi
    T=$(mktemp -d "${TMPDIR:-/tmp}/hr_$1.XXXXXX") || exit 1
    trap 'rm -rf "$T"' EXIT
}

tap_lib() {
    local so
    so=$("$HR" list | awk -v a="$1" '$1 == a' | sed -n 's/.*\[\(.*\)\]$/\1/p')
    [ -n "$so" ] && [ "$so" != "NOT FOUND" ] || return 1
    echo "$so"
}

plan() {
    echo "1..$tap_n"
}

tap_done() {
    plan
    [ "$tap_failed" = 0 ] && exit 0
    exit 1
}
