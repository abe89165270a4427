#!/usr/bin/env bash
# heapreplay quick start. On a fresh Debian 12 machine:
#   ./quickstart.sh        install dependencies, build, replay the shipped traces
#                          (traces/, then traces/real/) across every built
#                          allocator and print the comparison; each report also
#                          as an HTML page (results/latest.html, latest-real.html)
#   ./quickstart.sh test   install dependencies, build, run the test suite
#                          (valgrind: the callgrind instruction-count tests)
# Both are idempotent; the build lives in the source tree.
set -euo pipefail
cd "$(dirname "$0")"

DEPS="build-essential autoconf automake libtool pkg-config cmake man-db groff-base libjemalloc-dev \
libmimalloc-dev libgoogle-perftools-dev libzstd-dev zlib1g-dev libdw-dev libunwind-dev zstd heaptrack valgrind strace jq \
clang libclang-rt-14-dev freeciv-server python3 sqlite3 time chromium libxml2-utils"

install_deps() {
    command -v dpkg >/dev/null 2>&1 || return 0
    local missing=""
    for p in $DEPS; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "quickstart: installing$missing" >&2
    local SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
}

build() {
    [ -x configure ] || autoreconf -fi >/dev/null
    # A sanitizer build (.ci/run leaves one behind) replays through ASan's
    # malloc, which the workers rightly refuse to report: build plainly again.
    if [ -f config.status ] && grep -qE -- '--enable-(asan|ubsan)' config.status; then
        echo "quickstart: the tree is configured with sanitizers; reconfiguring without them" >&2
        make distclean >/dev/null 2>&1 || true
    fi
    # configure's findings (which allocators) go to stderr: stdout is the reports alone
    [ -f Makefile ] || ./configure >&2
    make -j"$(nproc)" >/dev/null
}

install_deps
build
case "${1:-main}" in
main)
    mkdir -p results
    ./heapreplay replay traces/ -a all -r 3 -o results/latest.json
    ./heapreplay report results/latest.json -f html -o results/latest.html
    echo "report written to results/latest.json; charts and tables in results/latest.html" >&2
    # The real programs' captures (traces/README.md), each large block touched
    # as far as the program used it (--touch recorded: the traces' `touched`
    # records; `first` would make glibc's replay fault in every page of
    # freeciv's 7.9 MiB buffers, of which the server uses a page or two).
    # No --access model: none made the predictions closer to the real
    # programs (results/fidelity-access-vm.md, docs/METRICS.md "Access model").
    ./heapreplay replay traces/real/ -a all -r 3 --touch recorded -o results/latest-real.json
    ./heapreplay report results/latest-real.json -f html -o results/latest-real.html
    echo "report written to results/latest-real.json; predictions, tables and charts in" \
        "results/latest-real.html" >&2
    ;;
test)
    set +e
    make -j"$(nproc)" check >tests.out 2>&1
    rc=$?
    set -e
    grep -E '^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):' tests.out | grep -v '^PASS' || true
    grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' tests.out || true
    pass=$(awk '/^# PASS:/ {print $3}' tests.out | tail -1)
    fail=$(awk '/^# (FAIL|ERROR|XPASS):/ {s += $3} END {print s+0}' tests.out)
    if [ $rc -ne 0 ] && [ "${fail:-0}" = 0 ]; then
        tail -30 tests.out
        fail=1
    fi
    echo "${pass:-0} passed, ${fail} failed"
    exit $rc
    ;;
*)
    echo "usage: $0 [main|test]" >&2
    exit 2
    ;;
esac
