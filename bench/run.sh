#!/usr/bin/env bash
# make bench: runs every benchmark and writes results/bench-<host>.md with the
# command, machine and date at its top. Usage: bench/run.sh BUILDDIR
set -euo pipefail
B="${1:-.}"
S="$(cd "$(dirname "$0")/.." && pwd)"
export HR_TRACES_DIR="$S/traces" HR_BIN="$B/heapreplay" HR_SRCDIR="$S"
out="$S/results/bench-$(hostname).md"
mkdir -p "$S/results" "$B/traces/large"
{
    echo "# heapreplay benchmarks"
    echo
    echo "Produced by \`make bench\` (bench/run.sh) on $(hostname), $(date -u +%Y-%m-%dT%H:%MZ)."
    echo "Machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr)."
    echo
    for b in "$B"/bench/bench_*; do
        [ -x "$b" ] || continue
        case "$b" in *.sh) continue ;; esac
        echo "### $(basename "$b")"
        echo
        "$b" 2>&1 || echo "(exit status $?)"
        echo
    done
    for s in "$S"/bench/bench_*.sh; do
        [ -f "$s" ] || continue
        echo "### $(basename "$s")"
        echo
        bash "$s" "$B" 2>&1 || echo "(exit status $?)"
        echo
    done
} | tee "$out"
echo "written to $out" >&2
