#!/usr/bin/env bash
# Every input bounded, every output failure one line (docs/TRACE_FORMAT.md,
# "Input limits"; src/base/outfile.h): a compressed trace whose header claims
# more than the input limit fails at once in little memory; the limit is
# --max-input or HEAPREPLAY_MAX_INPUT; a failed write names the file and the
# reason and leaves the old file; stale temporary files of a killed writer
# are removed by the next write; argument errors exit 2. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup bounds
"$HR" gen level_load -n 2000 --seed 3 -o "$T/l.hrt" >/dev/null || skip_all "cannot generate"
asan=0
nm "$HR" 2>/dev/null | grep -q __asan_init && asan=1

# one_line NAME STATUS WHY CMD...: exits STATUS with one stderr line holding WHY.
one_line() {
    local name=$1 want=$2 why=$3 rc
    shift 3
    timeout 60 "$@" >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc = "$want" ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$why" "$T/err"; then
        ok "$name"
    else
        not_ok "$name (exit $rc, want $want: $why)" "$(head -3 "$T/err")"
    fi
}

# A binary header (64 bytes) that claims 2^31 record bytes and holds none:
# n_events 1, n_threads 1, header_size 64, records_len 2^31.
header_2g() {
    printf 'HRTRACE\0\1\0\2\0\0\0\0\0'
    printf '\1\0\0\0\0\0\0\0' # n_events
    printf '\0\0\0\0\1\0\0\0\0\0\0\0@\0\0\0' # n_ids, n_threads, n_strings, header_size
    printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' # peak, strings_len
    printf '\0\0\0\200\0\0\0\0'               # records_len = 2^31
}

# max_rss_kb CMD...: the command's peak resident set in KiB (GNU time), or
# empty when /usr/bin/time cannot tell.
max_rss_kb() {
    /usr/bin/time -f '%M' -o "$T/rss" "$@" >/dev/null 2>&1
    tail -1 "$T/rss" 2>/dev/null | grep -E '^[0-9]+$'
}

# 1. the zstd bomb: 2 GiB of zeros behind that header, about 72 KB compressed
if command -v zstd >/dev/null && "$HR" info --help | grep -q max-input; then
    { header_2g; head -c 2147483648 /dev/zero; } | zstd -1 -q -c >"$T/bomb.hrt.zst"
    one_line "zstd bomb: one line naming the claim and the limit" 2 \
        "offset 56: the header claims 2147483712 bytes of trace, more than 1073741824, the input limit" \
        "$HR" info "$T/bomb.hrt.zst"
    one_line "zstd bomb: replay refuses it the same way" 2 "the input limit" \
        "$HR" replay -q -a bump -r 1 "$T/bomb.hrt.zst"
    if [ -x /usr/bin/time ] && [ $asan = 0 ]; then
        kb=$(max_rss_kb "$HR" info "$T/bomb.hrt.zst")
        if [ -n "$kb" ] && [ "$kb" -lt 102400 ]; then
            ok "zstd bomb: under 100 MB of memory ($kb KiB)"
        else
            not_ok "zstd bomb: under 100 MB of memory" "max RSS ${kb:-unknown} KiB"
        fi
    elif [ $asan = 0 ]; then
        # no GNU time: a 400 MB address space must be enough
        (ulimit -v 400000; "$HR" info "$T/bomb.hrt.zst" 2>"$T/err")
        grep -q "the input limit" "$T/err" && ok "zstd bomb: fails within 400 MB of address space" ||
            not_ok "zstd bomb: fails within 400 MB of address space" "$(cat "$T/err")"
    else
        skip "zstd bomb: memory bound" "ASan build (its shadow memory counts)"
    fi
    # with the limit lifted the claim is read, and the zeros are not a trace
    { header_2g; head -c 4096 /dev/zero; } | zstd -1 -q -c >"$T/short.hrt.zst"
    one_line "--max-input 0 lifts the limit (the decoder then finds the file short)" 2 \
        "truncated records" "$HR" info --max-input 0 "$T/short.hrt.zst"
    one_line "HEAPREPLAY_MAX_INPUT=0 lifts it as well" 2 "truncated records" \
        env HEAPREPLAY_MAX_INPUT=0 "$HR" info "$T/short.hrt.zst"
else
    skip "zstd bomb" "no zstd CLI, or no --max-input"
fi

# 2. gzip: the same claim fails the same way
if command -v gzip >/dev/null; then
    { header_2g; head -c 65536 /dev/zero; } | gzip -1 -c >"$T/bomb.hrt.gz"
    one_line "gzip bomb: the header's claim fails at once" 2 \
        "more than 1073741824, the input limit" "$HR" convert "$T/bomb.hrt.gz" -o "$T/x.hrt"
    [ ! -e "$T/x.hrt" ] && ok "gzip bomb: no output written" || not_ok "gzip bomb: no output written"
    # a text trace has no claim: its decoded bytes stop at the limit
    "$HR" convert "$T/l.hrt" --to text -o "$T/l.txt" >/dev/null
    gzip -c "$T/l.txt" >"$T/l.txt.gz"
    one_line "text under gzip past --max-input 1K: one line" 2 \
        "more than 1024 bytes after decompression, the input limit" \
        "$HR" info --max-input 1K "$T/l.txt.gz"
    n=$(wc -c <"$T/l.txt")
    check "text under gzip of exactly --max-input bytes reads" \
        "$HR" convert --max-input "$n" "$T/l.txt.gz" -o "$T/back.hrt"
    cmp -s "$T/back.hrt" "$T/l.hrt" && ok "and converts back to the same trace" ||
        not_ok "and converts back to the same trace"
fi

# a compressed file's messages say their offsets are of the decompressed
# bytes; bytes appended after the gzip data are an error, not dropped;
# concatenated gzip members read as one (as gzip -d reads them)
if command -v gzip >/dev/null; then
    printf 'H' | gzip -c >"$T/h.gz"
    one_line "a short decompressed header: its size, not the file's" 2 \
        "h.gz (decompressed): offset 1: truncated header: expected 64 bytes, got 1" "$HR" info "$T/h.gz"
    { cat "$T/h.gz"; head -c 140 /dev/zero | tr '\0' 'x'; } >"$T/h2.gz"
    one_line "bytes appended after the gzip data: where they start" 2 \
        "h2.gz: offset $(wc -c <"$T/h.gz"): bytes after the end of the gzip data" "$HR" info "$T/h2.gz"
    half=$(($(wc -c <"$T/l.txt") / 2))
    { head -c $half "$T/l.txt" | gzip -c; tail -c +$((half + 1)) "$T/l.txt" | gzip -c; } >"$T/two.gz"
    check "two concatenated gzip members read as one trace" "$HR" convert "$T/two.gz" -o "$T/two.hrt"
    cmp -s "$T/two.hrt" "$T/l.hrt" && ok "and give the same trace" || not_ok "and give the same trace"
fi

# 3. stdin and pipes have no size on disk: the limit holds there too
one_line "a pipe past HEAPREPLAY_MAX_INPUT" 2 "after reading a stream, the input limit" \
    sh -c "cat '$T/l.txt' | HEAPREPLAY_MAX_INPUT=2K '$HR' info -"
check "a plain regular file is bounded by its size, not the limit" \
    env HEAPREPLAY_MAX_INPUT=1K "$HR" info "$T/l.txt"
one_line "a bad HEAPREPLAY_MAX_INPUT: one line" 2 "HEAPREPLAY_MAX_INPUT: expected a size in bytes" \
    env HEAPREPLAY_MAX_INPUT=lots "$HR" info "$T/l.hrt"
one_line "a bad --max-input: one line" 2 "option '--max-input' expects a size in bytes" \
    "$HR" convert --max-input 1Q "$T/l.hrt" -o "$T/y.hrt"

# 4. a failed write: one line naming the file and the reason, exit 2
"$HR" replay -q -a bump -r 1 --warm-time 0 -f json -o "$T/r.json" "$T/l.hrt" >/dev/null 2>&1
if [ -s "$T/r.json" ]; then
    for f in text html csv; do
        one_line "report -f $f -o /dev/full: the file and ENOSPC" 2 \
            "/dev/full: cannot write: No space left on device" \
            "$HR" report -f $f "$T/r.json" -o /dev/full
    done
    one_line "report to a full stdout: one line" 2 "standard output: cannot write: No space left on device" \
        sh -c "'$HR' report '$T/r.json' >/dev/full"
    one_line "plot -o /dev/full: the file and ENOSPC" 2 \
        "/dev/full: cannot write: No space left on device" "$HR" plot "$T/r.json" -o /dev/full
    # a file size limit stands in for a full disk: the old file stays whole
    printf 'OLD\n' >"$T/out.html"
    one_line "report past the file size limit: the reason" 2 "out.html: cannot write: File too large" \
        sh -c "trap '' XFSZ; ulimit -f 2; exec '$HR' report -f html '$T/r.json' -o '$T/out.html'"
    [ "$(cat "$T/out.html")" = OLD ] && ok "report past the file size limit: old file intact" ||
        not_ok "report past the file size limit: old file intact"
else
    skip "failed writes of reports" "replay made no report (ASan build?)"
fi
one_line "convert -o /dev/full: the file and ENOSPC" 2 "/dev/full: cannot write: No space left on device" \
    "$HR" convert "$T/l.hrt" -o /dev/full

# 5. temporary files: a dead writer's is removed by the next write of the
# same target; a live writer's and another target's stay
mkdir "$T/w"
sh -c 'exit 0' &
dead=$!
wait $dead
touch "$T/w/.g.hrt.heapreplay-$dead-AbCdEf" "$T/w/.g.hrt.heapreplay-$$-AbCdEf" \
    "$T/w/.other.hrt.heapreplay-$dead-AbCdEf"
"$HR" gen level_load -n 1000 -o "$T/w/g.hrt" >/dev/null
left=$(ls -A "$T/w" | sort | tr '\n' ' ')
want=".g.hrt.heapreplay-$$-AbCdEf .other.hrt.heapreplay-$dead-AbCdEf g.hrt "
[ "$left" = "$want" ] && ok "a dead writer's temporary file is removed, a live one's kept" ||
    not_ok "a dead writer's temporary file is removed, a live one's kept" "left: $left" "want: $want"
# a killed writer leaves its file under the documented name
"$HR" gen session -n 3000000 --text -o "$T/w/big.txt" >/dev/null 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 600); do
    ls -A "$T/w" | grep -q "^\.big\.txt\.heapreplay-$pid-" && { seen=1; break; }
    sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ $seen = 1 ]; then
    "$HR" gen level_load -n 1000 --text -o "$T/w/big.txt" >/dev/null
    ls -A "$T/w" | grep -q '^\.big\.txt\.' && not_ok "the next write removes a killed writer's file" "$(ls -A "$T/w")" ||
        ok "the next write removes a killed writer's file"
else
    skip "the next write removes a killed writer's file" "the write finished before it could be caught"
fi

# 6. gen -n names the option and the value as typed
for v in 0 3000000000 99999999999999999999 x; do
    one_line "gen -n $v: the value as typed" 2 "option '-n' expects an event count 1000..2000000000" \
        "$HR" gen level_load -n $v -o "$T/g.hrt"
    grep -qF "got '$v'" "$T/err" && ok "gen -n $v: says got '$v'" || not_ok "gen -n $v: says got '$v'" "$(cat "$T/err")"
done

# 7. argument errors exit 2 (under ASan too: nothing gathered before the error leaks)
one_line "replay -a nosuch: exit 2" 2 "unknown allocator 'nosuch'" "$HR" replay -a nosuch "$T/l.hrt"
one_line "replay of a missing trace: exit 2" 2 "no such file or directory" \
    "$HR" replay -a bump "$T/nosuch.hrt"
one_line "replay -r 0 after -a: exit 2" 2 "option '-r' expects" "$HR" replay -a bump -r 0 "$T/l.hrt"
mkdir "$T/empty"
one_line "replay of an empty directory: exit 2" 2 "no *.hrt or *.hrtt traces" \
    "$HR" replay -a bump "$T/empty"
# 8. a header whose lengths add up to less than a header: info (which maps
# the file and reads only what the header claims) and convert (the whole
# file) must refuse it for the same first bad field, not one as "truncated"
# (found by fuzz_import; its input is in tests/fuzz/corpus/import)
{
    header_2g | head -c 8
    printf '\160\101' # major version 0x4170
    head -c 86 /dev/zero
    printf 'udio\037\233'
} >"$T/zero_lengths.hrt"
one_line "info: a nonsense header is refused for its version" 2 \
    "offset 8: unsupported major version 16752" "$HR" info "$T/zero_lengths.hrt"
one_line "convert: the same reason" 2 "offset 8: unsupported major version 16752" \
    "$HR" convert "$T/zero_lengths.hrt" -o "$T/z.txt"
tap_done
