#!/usr/bin/env bash
# Regenerates the shipped traces (deterministic: same seeds, same bytes).
# Usage: traces/make-traces.sh [HEAPREPLAY]   (default: ./heapreplay)
set -euo pipefail
HR="${1:-./heapreplay}"
D="$(cd "$(dirname "$0")" && pwd)"
"$HR" gen level_load -o "$D/level_load.hrt" --events 80000 --seed 1
"$HR" gen frame_loop -o "$D/frame_loop.hrt" --events 100000 --seed 2
"$HR" gen particles  -o "$D/particles.hrt"  --events 100000 --seed 3
"$HR" gen strings    -o "$D/strings.hrt"    --events 40000 --seed 4
"$HR" gen session    -o "$D/game_session.hrt" --events 150000 --seed 5
