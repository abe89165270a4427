#!/usr/bin/env bash
# The traces of traces/fidelity/ (traces/README.md, "Fidelity programs"),
# which only the fidelity benchmark replays (bench/fidelity/fidelity.sh): each
# is zstd-compressed, reads (heapreplay info) with what the README says of it
# (several allocating threads for the two multithreaded programs, one trace
# per process for the build) and replays on glibc (one sample, no warm laps:
# the check stays short) with status ok. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
S=${srcdir:-.}
B=${top_builddir:-.}
HR=$(readlink -f "$B/heapreplay")
F=$S/traces/fidelity
W=$(mktemp -d "${TMPDIR:-/tmp}/hrfid.XXXXXX")
trap 'rm -rf "$W"' EXIT
info_of() { "$HR" info "$1" 2> /dev/null | awk -v k="$2" '$1 == k { print $2 }'; }
is_zstd() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = 28b52ffd ]; }

# replays FILE... on glibc; ok when every result has status ok
replays_ok() {
    local name=$1
    shift
    if "$HR" replay "$@" -a glibc -r 1 --warm-time 0 -q -f json > "$W/$name.json" 2> "$W/$name.err" &&
        [ "$(jq '[.results[] | select(.status == "ok")] | length' "$W/$name.json")" = "$#" ]; then
        ok "$name replays on glibc ($# trace(s), status ok)"
    else
        not_ok "$name replays on glibc" "$(tail -n 3 "$W/$name.err")" \
            "$(jq -c '[.results[] | [.trace, .status]]' "$W/$name.json" 2> /dev/null)"
    fi
}

for name in mariadb_slap git_pack; do
    t=$F/$name.hrt.zst
    check "$name.hrt.zst is zstd-compressed" is_zstd "$t"
    ev=$(info_of "$t" events)
    th=$(info_of "$t" threads)
    if [ "${ev:-0}" -ge 500000 ] && [ "${th:-0}" -ge 3 ]; then
        ok "$name.hrt.zst reads: $ev events, $th threads"
    else
        not_ok "$name.hrt.zst reads with >= 500000 events and >= 3 threads" "events ${ev:-none}, threads ${th:-none}"
    fi
    replays_ok "$name" "$t"
done

# the build: make's own trace and one per child process (--follow-forks)
procs=("$F"/make_build/make_build.*.hrt.zst)
n=0 bad=""
for t in "$F/make_build/make_build.hrt.zst" "${procs[@]}"; do
    e=$(info_of "$t" events)
    if is_zstd "$t" && [ -n "$e" ]; then n=$((n + e)); else bad="$bad ${t##*/}"; fi
done
if [ -z "$bad" ] && [ "${#procs[@]}" -ge 20 ]; then
    ok "make_build: make's trace and ${#procs[@]} child processes' read ($n events in all)"
else
    not_ok "make_build: make's trace and >= 20 child traces read" "unreadable or not zstd:${bad:- none}" \
        "child traces: ${#procs[@]}"
fi
replays_ok make_build "$F/make_build/make_build.hrt.zst" "${procs[@]}"
tap_done
