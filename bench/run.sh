#!/usr/bin/env bash
# make bench: runs the default set of benchmarks and writes
# results/bench-<host>.md with the command, machine and date at its top.
# make bench-micro / bench-allocators / bench-capture run one experiment of the
# set and print it only (a part would replace the whole set's file).
#
# Usage: bench/run.sh BUILDDIR [EXPERIMENT...]
#   EXPERIMENT  a folder of bench/ (default: micro threads allocators capture);
#               each runs its built bench_* programs, then its bench_*.sh
#               scripts (with BUILDDIR)
set -euo pipefail
B="${1:-.}"
shift || true
S="$(cd "$(dirname "$0")/.." && pwd)"
export HR_TRACES_DIR="$S/traces" HR_BIN="$B/heapreplay" HR_SRCDIR="$S"
if [ $# -gt 0 ]; then
    experiments="$*"
    out=/dev/null
else
    experiments="micro threads allocators capture"
    out="$S/results/bench-$(hostname).md"
fi
mkdir -p "$S/results" "$B/traces/large"
{
    echo "# heapreplay benchmarks"
    echo
    echo "Produced by \`make bench\` (bench/run.sh) on $(hostname), $(date -u +%Y-%m-%dT%H:%MZ)."
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)."
    echo
    for e in $experiments; do
        [ -d "$S/bench/$e" ] || { echo "bench/run.sh: no experiment bench/$e" >&2; exit 2; }
        for b in "$B/bench/$e"/bench_*; do
            [ -x "$b" ] || continue
            case "$b" in *.sh | *.c) continue ;; esac
            echo "### $(basename "$b")"
            echo
            "$b" 2>&1 || echo "(exit status $?)"
            echo
        done
        for s in "$S/bench/$e"/bench_*.sh; do
            [ -f "$s" ] || continue
            echo "### $(basename "$s")"
            echo
            bash "$s" "$B" 2>&1 || echo "(exit status $?)"
            echo
        done
    done
} | tee "$out"
[ "$out" = /dev/null ] || echo "written to $out" >&2
