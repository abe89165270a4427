#!/usr/bin/env bash
# Inputs are checked before they cost memory, and compressed traces read
# transparently (docs/TRACE_FORMAT.md, "Reading files"): /dev/zero, FIFOs,
# pipes, a huge id, .hrt/.txt under gzip and zstd, a truncated stream.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
tap_setup in_cli
"$HR" gen level_load -n 20000 --seed 5 -o "$T/l.hrt" >/dev/null || skip_all "cannot generate"
digest() { "$HR" info --json "$1" 2>/dev/null | tr ',' '\n' | sed -n 's/.*"digest": *"\([0-9a-f]*\)".*/\1/p'; }
want=$(digest "$T/l.hrt")
[ -n "$want" ] || skip_all "info --json gives no digest"
# Address-space cap for "bounded memory" (not under ASan: its shadow needs more).
if nm "$HR" 2>/dev/null | grep -q __asan_init; then vcap=unlimited; else vcap=1048576; fi

# fails_fast NAME WHY CMD...: exit 2 within 10 s, one stderr line containing WHY.
fails_fast() {
    local name=$1 why=$2 rc
    shift 2
    timeout 10 "$@" >/dev/null 2>"$T/err"
    rc=$?
    if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$why" "$T/err"; then
        ok "$name"
    else
        not_ok "$name (exit $rc, want 2: $why)" "$(head -3 "$T/err")"
    fi
}

fails_fast "info /dev/zero: not a trace, at once" "/dev/zero: not a heapreplay trace" \
    "$HR" info /dev/zero
fails_fast "replay /dev/zero: not a trace, at once" "/dev/zero: not a heapreplay trace" \
    "$HR" replay -q -a bump -r 1 /dev/zero
fails_fast "info /dev/urandom: not a trace, at once" "not a heapreplay trace" \
    "$HR" info /dev/urandom

# FIFOs: garbage fails at once, a trace reads like a file
mkfifo "$T/fifo"
(head -c 100000 /dev/urandom >"$T/fifo" 2>/dev/null &)
fails_fast "a FIFO carrying random bytes" "not a heapreplay trace" "$HR" info "$T/fifo"
(cat "$T/l.hrt" >"$T/fifo" &)
got=$(timeout 10 "$HR" info --json "$T/fifo" | tr ',' '\n' | sed -n 's/.*"digest": *"\([0-9a-f]*\)".*/\1/p')
[ "$got" = "$want" ] && ok "a binary trace through a FIFO" || not_ok "a binary trace through a FIFO" "got '$got', want $want"
got=$(cat "$T/l.hrt" | "$HR" info --json /dev/stdin | tr ',' '\n' | sed -n 's/.*"digest": *"\([0-9a-f]*\)".*/\1/p')
[ "$got" = "$want" ] && ok "a binary trace through a pipe" || not_ok "a binary trace through a pipe"

# compressed traces, binary and text
"$HR" convert "$T/l.hrt" --to text -o "$T/l.txt" >/dev/null
gzip -c "$T/l.hrt" >"$T/l.hrt.gz"
gzip -c "$T/l.txt" >"$T/l.txt.gz"
forms="l.hrt.gz l.txt.gz"
if command -v zstd >/dev/null 2>&1; then
    zstd -q -c "$T/l.hrt" >"$T/l.hrt.zst"
    zstd -q -c "$T/l.txt" >"$T/l.txt.zst"
    forms="$forms l.hrt.zst l.txt.zst"
else
    skip "zstd-compressed traces" "no zstd command"
fi
for f in $forms; do
    got=$(digest "$T/$f")
    [ "$got" = "$want" ] && ok "info $f: same digest" || not_ok "info $f: same digest" "got '$got'"
done
if "$HR" convert "$T/l.hrt.gz" -o "$T/back.hrt" >/dev/null && cmp -s "$T/back.hrt" "$T/l.hrt"; then
    ok "convert .hrt.gz -> .hrt is byte-identical"
else
    not_ok "convert .hrt.gz -> .hrt is byte-identical"
fi
if "$HR" replay -q -a bump -r 1 --warm-time 0 "$T/l.txt.gz" -o "$T/r.json" >/dev/null &&
   grep -q "\"trace_digest\": *\"$want\"" "$T/r.json"; then
    ok "replay reads a .txt.gz trace (digest in the report)"
else
    not_ok "replay reads a .txt.gz trace (digest in the report)"
fi
head -c 20000 "$T/l.txt.gz" >"$T/cut.gz"
fails_fast "a truncated .gz" "truncated gzip stream" "$HR" info "$T/cut.gz"

# gen -o x.txt writes text, as convert does
"$HR" gen level_load -n 1000 -o "$T/g.txt" >/dev/null
head -1 "$T/g.txt" | grep -q '^heapreplay-trace' && ok "gen -o x.txt writes text" ||
    not_ok "gen -o x.txt writes text"

# a huge id: bounded time and memory in info, convert and replay
printf 'heapreplay-trace 1\nalloc 2147483647 16\nalloc 7 32\nfree 2147483647\nfree 7\n' >"$T/huge.txt"
if (ulimit -v $vcap; timeout 20 "$HR" info "$T/huge.txt" >"$T/out" 2>"$T/err") &&
   grep -q "ids (max live)  2147483648" "$T/out"; then
    ok "info on a trace with id 2^31-1 in bounded memory"
else
    not_ok "info on a trace with id 2^31-1 in bounded memory" "$(cat "$T/err")"
fi
if (ulimit -v $vcap; timeout 20 "$HR" convert "$T/huge.txt" -o "$T/huge.hrt" >/dev/null 2>"$T/err") &&
   [ "$(digest "$T/huge.hrt")" = "$(digest "$T/huge.txt")" ]; then
    ok "convert of a huge id keeps the digest"
else
    not_ok "convert of a huge id keeps the digest" "$(cat "$T/err")"
fi
if timeout 60 "$HR" replay -q -a glibc,bump -r 1 --warm-time 0 "$T/huge.hrt" -o "$T/h.json" >/dev/null 2>"$T/err" &&
   [ "$(grep -c '"status": *"ok"' "$T/h.json")" = 2 ]; then
    ok "replay of a huge id: slot table by live ids"
else
    not_ok "replay of a huge id: slot table by live ids" "$(cat "$T/err")"
fi
# realloc to 0 bytes: the C library's realloc(p, 0) frees p and may return
# NULL (glibc, jemalloc, tcmalloc): a free, not a failure, never a double free
printf 'heapreplay-trace 1\nalloc 0 100\nrealloc 0 1 0\nfree 1\nalloc 2 10\nrealloc 2 3 0\nalloc 4 24\nfree 4\n' >"$T/z.txt"
for vf in "" --verify; do
    if "$HR" replay -q -a glibc,jemalloc,mimalloc,tcmalloc,block -r 1 --warm-time 0 $vf "$T/z.txt" \
           -o "$T/z.json" >/dev/null 2>"$T/err" &&
       [ "$(grep -c '"status": *"ok"' "$T/z.json")" -ge 5 ] &&
       ! grep '"status": *"' "$T/z.json" | grep -qv '"ok"' &&
       ! grep -q '"failed_allocs": *[1-9]' "$T/z.json"; then
        ok "realloc to 0 bytes is a free on every allocator ${vf:-(timed)}"
    else
        not_ok "realloc to 0 bytes is a free on every allocator ${vf:-(timed)}" "$(cat "$T/err")" \
            "$(grep -o '"status": *"[a-z]*"' "$T/z.json" 2>/dev/null | tr '\n' ' ')"
    fi
done
tap_done
