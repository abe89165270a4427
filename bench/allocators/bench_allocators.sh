#!/usr/bin/env bash
# Per-allocator ns/op, latency and footprint on the large generated traces,
# every allocator in the same run. Usage: bench_allocators.sh BUILDDIR
set -euo pipefail
B="${1:-.}"
S="$(cd "$(dirname "$0")/../.." && pwd)"
traces=$(ls "$B"/traces/large/*.hrt 2>/dev/null || true)
if [ -z "$traces" ]; then
    echo "no large traces: run 'make large-traces'"
    exit 0
fi
"$B/heapreplay" replay $traces -a all -r 3 -q -f md -o "$S/results/bench-allocators.json"
