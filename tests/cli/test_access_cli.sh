#!/usr/bin/env bash
# `heapreplay replay --access MODEL` (docs/METRICS.md,
# "Access model"): bad values exit 2 with one line naming the option; the
# model is in the report's options (JSON) and header (text, md, html), in
# each result when it is on (JSON, CSV); `--access none` leaves every
# deterministic figure as without the option; a replay with a model passes
# --verify. No timing assertions. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup access jget

"$HR" gen session -o "$T/s.hrt" --events 20000 --seed 11 > /dev/null || skip_all "cannot generate"
R=("$HR" replay --warm-time 0 -r 1 -q "$T/s.hrt")

# 1. bad values: exit 2, one line on stderr naming the option and what it expects
for bad in some reuse reuse:0 reuse:65 reuse:4x spread: none+free free+free reuse:4+spread:2 'reuse:4+'; do
    fails_one_line "--access $bad: exit 2, one line" \
        "option '--access' expects none, reuse:N or spread:N (N 1..64), optionally +free, or free, got '$bad'" \
        "${R[@]}" -a bump --access "$bad"
done

# 2. good values are accepted (parse only: --help after them)
for good in none free reuse:1 reuse:64 spread:4+free free+reuse:2; do
    check "--access $good is accepted" "$HR" replay --access "$good" --help
done

# 3. JSON: options.access always; a result's access only when the model is on
"${R[@]}" -a bump,glibc --access reuse:4+free -o "$T/on.json" > "$T/on.txt" || true
"${R[@]}" -a bump,glibc --access none -o "$T/none.json" > /dev/null || true
"${R[@]}" -a bump,glibc -o "$T/plain.json" > /dev/null || true
if [ "$(jget options.access "$T/on.json")" = reuse:4+free ] &&
   [ "$(jget results.0.access "$T/on.json")" = reuse:4+free ] &&
   [ "$(jget results.1.access "$T/on.json")" = reuse:4+free ] &&
   [ "$(jget results.0.status "$T/on.json")" = ok ] && [ "$(jget results.1.status "$T/on.json")" = ok ]; then
    ok "json: options.access and each result's access name the model"
else
    not_ok "json: options.access and each result's access name the model" "$(head -c 800 "$T/on.json")"
fi
if [ "$(jget options.access "$T/none.json")" = none ] && [ "$(jget options.access "$T/plain.json")" = none ] &&
   [ "$(jget results.0.access "$T/none.json")" = null ]; then
    ok "json: the default is none, and a result without a model has no access key"
else
    not_ok "json: the default is none" "$(jget options.access "$T/plain.json")" "$(jget results.0.access "$T/none.json")"
fi

# 4. the text, Markdown and HTML headers print it next to the touch policy;
# CSV has the result's column
check "text header: touch=... access=reuse:4+free" grep -q "touch=recorded access=reuse:4+free" "$T/on.txt"
"$HR" report -f md "$T/on.json" > "$T/on.md" 2> /dev/null
check "md header: access=reuse:4+free" grep -q "touch=recorded access=reuse:4+free" "$T/on.md"
"$HR" report -f html "$T/on.json" > "$T/on.html" 2> /dev/null
check "html header: access=reuse:4+free" grep -q "access=reuse:4+free" "$T/on.html"
"$HR" report -f csv "$T/on.json" > "$T/on.csv" 2> /dev/null
if head -1 "$T/on.csv" | tr ',' '\n' | grep -qx access && sed -n 2p "$T/on.csv" | grep -q "reuse:4+free"; then
    ok "csv: an access column with the model"
else
    not_ok "csv: an access column with the model" "$(head -2 "$T/on.csv")"
fi
"${R[@]}" -a bump --access none > "$T/none.txt" || true
check "text header: access=none" grep -q "touch=recorded access=none" "$T/none.txt"

# 5. --access none: every deterministic figure as without the option; the
# model changes no exact figure either (it only reads and rewrites bytes)
same=1
for k in ops.total ops.alloc ops.free ops.realloc memory.peak_live memory.peak_footprint \
         memory.footprint_at_peak_live memory.live_at_peak_footprint memory.frag_jw4 failed_allocs \
         deterministic touch; do
    for f in none on; do
        a=$(jget "results.0.$k" "$T/plain.json"); b=$(jget "results.0.$k" "$T/$f.json")
        if [ "$a" != "$b" ] || [ "$a" = null -a "$k" != memory.frag_jw4 ]; then
            same=0
            echo "# bump $k: without $a, $f $b"
        fi
    done
    a=$(jget "results.1.$k" "$T/plain.json"); b=$(jget "results.1.$k" "$T/none.json")
    case $k in ops.*|memory.peak_live|failed_allocs|touch)
        [ "$a" = "$b" ] || { same=0; echo "# glibc $k: without $a, none $b"; } ;;
    esac
done
if [ $same = 1 ]; then ok "--access none (and a model) leave the deterministic figures as without the option"
else not_ok "--access none (and a model) leave the deterministic figures as without the option"; fi

# 6. merge refuses shards replayed with different models (as any other option)
"${R[@]}" -a bump,glibc --shard 1/2 -o "$T/sh1.json" > /dev/null 2>&1
"${R[@]}" -a bump,glibc --shard 2/2 --access spread:2 -o "$T/sh2.json" > /dev/null 2>&1
if ! "$HR" merge "$T/sh1.json" "$T/sh2.json" -o "$T/merged.json" 2> "$T/err" &&
   grep -q 'option access is "spread:2", expected "none"' "$T/err" && [ ! -e "$T/merged.json" ]; then
    ok "merge refuses shards with different access models"
else
    not_ok "merge refuses shards with different access models" "$(cat "$T/err")"
fi

# 7. a replay with a model passes --verify (uses never change a block's
# contents, never touch a freed block) on an in-house and a system allocator
for m in reuse:16+free spread:16+free; do
    "${R[@]}" -a glibc,sizeclass --verify --access "$m" -o "$T/v.json" > /dev/null 2>&1
    if [ "$(jget results.0.verify.status "$T/v.json")" = ok ] && [ "$(jget results.1.verify.status "$T/v.json")" = ok ] &&
       [ "$(jget results.0.status "$T/v.json")" = ok ] && [ "$(jget results.1.status "$T/v.json")" = ok ]; then
        ok "--verify --access $m: ok on glibc and sizeclass"
    else
        not_ok "--verify --access $m: ok on glibc and sizeclass" "$(head -c 800 "$T/v.json")"
    fi
done

# 8. packed events (--event-form packed: the loops read 64 k-event windows):
# the same uses, verify ok, the exact figures as decoded
"${R[@]}" -a bump,sizeclass --verify --access spread:8+free --event-form packed -o "$T/pk.json" > /dev/null 2>&1
"${R[@]}" -a bump,sizeclass --verify --access spread:8+free --event-form decoded -o "$T/dc.json" > /dev/null 2>&1
if [ "$(jget results.1.verify.status "$T/pk.json")" = ok ] && [ "$(jget results.1.status "$T/pk.json")" = ok ] &&
   [ "$(jget results.1.memory.peak_footprint "$T/pk.json")" = "$(jget results.1.memory.peak_footprint "$T/dc.json")" ] &&
   [ "$(jget results.1.memory.peak_footprint "$T/pk.json")" != null ]; then
    ok "--event-form packed with a model: verify ok, footprint as decoded"
else
    not_ok "--event-form packed with a model" "$(head -c 800 "$T/pk.json")"
fi

tap_done
