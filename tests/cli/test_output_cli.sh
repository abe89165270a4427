#!/usr/bin/env bash
# Output is atomic and checked (docs/ARCHITECTURE.md): every command that writes a file
# or stdout exits 2 with one line naming the path and the reason when the
# write fails, keeps the old file, leaves no partial file; kill -9 during a
# write keeps the old file; two concurrent writers leave one whole file.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
HR="$top_builddir/heapreplay"
[ -x "$HR" ] || skip_all "$HR not built"
[ -w /dev/full ] || skip_all "no /dev/full"
T=$(mktemp -d "${TMPDIR:-/tmp}/hr_out_cli.XXXXXX") || exit 1
MNT=""
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

"$HR" gen level_load -n 20000 --seed 3 -o "$T/small.hrt" >/dev/null || skip_all "cannot generate"
"$HR" replay -q -a bump -r 1 --warm-time 0 "$T/small.hrt" -o "$T/rep.json" >/dev/null ||
    skip_all "cannot replay"

# fails NAME PATH CMD...: CMD exits 2 with exactly one stderr line that names
# PATH and says why (strerror text).
fails() {
    local name=$1 path=$2 why=$3 rc
    shift 3
    "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$path" "$T/err" &&
       grep -qF -- "$why" "$T/err"; then
        ok "$name"
    else
        not_ok "$name (exit $rc, want 2 and one line naming $path: $why)" "$(head -5 "$T/err")"
    fi
}

# 1. -o /dev/full for every command that writes a file
full="No space left on device"
fails "replay -o /dev/full" /dev/full "$full" \
    "$HR" replay -q -a bump -r 1 --warm-time 0 "$T/small.hrt" -o /dev/full
fails "convert -o /dev/full" /dev/full "$full" "$HR" convert "$T/small.hrt" -o /dev/full
fails "convert --to text -o /dev/full" /dev/full "$full" \
    "$HR" convert "$T/small.hrt" --to text -o /dev/full
fails "gen -o /dev/full" /dev/full "$full" "$HR" gen level_load -n 20000 -o /dev/full
fails "plot -o /dev/full" /dev/full "$full" "$HR" plot "$T/rep.json" -o /dev/full
capdrv="$top_builddir/tests/capture/cap_single"
if [ -x "$capdrv" ] && [ -e "$top_builddir/.libs/libheapreplay-capture.so" ]; then
    # The raw log goes next to -o, so -o is a link to /dev/full in a
    # writable directory.
    ln -s /dev/full "$T/full.hrt"
    fails "capture -o (link to /dev/full)" "$T/full.hrt" "$full" \
        "$HR" capture --summary "$T/summary.txt" -o "$T/full.hrt" -- "$capdrv"
else
    skip "capture -o (link to /dev/full)" "capture library or tests/capture/cap_single not built"
fi

# 2. stdout to /dev/full
stdout_fails() {
    local name=$1
    shift
    local rc
    "$@" >/dev/full 2>"$T/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF "standard output" "$T/err" &&
       grep -qF -- "$full" "$T/err"; then
        ok "$name"
    else
        not_ok "$name (exit $rc, want 2 and one line: standard output: ... $full)" \
            "$(head -5 "$T/err")"
    fi
}
stdout_fails "info > /dev/full" "$HR" info "$T/small.hrt"
stdout_fails "info --json > /dev/full" "$HR" info --json "$T/small.hrt"
# two reports: compare of a report with itself warns on stderr (one more line)
"$HR" replay -q -a bump -r 1 --warm-time 0 "$T/small.hrt" -o "$T/rep2.json" >/dev/null
stdout_fails "compare > /dev/full" "$HR" compare "$T/rep.json" "$T/rep2.json"
stdout_fails "replay > /dev/full" "$HR" replay -q -a bump -r 1 --warm-time 0 "$T/small.hrt"
stdout_fails "plot > /dev/full" "$HR" plot "$T/rep.json"
stdout_fails "convert -o - > /dev/full" "$HR" convert "$T/small.hrt" --to text -o -
stdout_fails "list > /dev/full" "$HR" list
# main's exit status when the command itself failed and stdout did too
"$HR" info /nonexistent >/dev/full 2>"$T/err"
[ $? = 2 ] && ok "failing command with stdout on /dev/full exits 2" ||
    not_ok "failing command with stdout on /dev/full exits 2"

# 3. a directory that does not exist: the reason, not just "cannot write"
fails "replay -o into a missing directory" "$T/nodir/r.json" "No such file or directory" \
    "$HR" replay -q -a bump -r 1 --warm-time 0 "$T/small.hrt" -o "$T/nodir/r.json"
fails "gen -o into a missing directory" "$T/nodir/g.hrt" "No such file or directory" \
    "$HR" gen level_load -n 1000 -o "$T/nodir/g.hrt"

# 4. a full file system (a 256 KiB tmpfs, when we may mount one): exit 2,
# the old file intact, no temporary file left
if [ "$(id -u)" = 0 ] && mkdir "$T/mnt" && mount -t tmpfs -o size=256k tmpfs "$T/mnt" 2>/dev/null; then
    MNT="$T/mnt"
    printf 'OLD\n' >"$MNT/out"
    # fill it up: nothing more fits
    dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null
    for cmd in "replay" "convert" "gen" "plot"; do
        case $cmd in
        replay) set -- "$HR" replay -q -a bump -r 1 --warm-time 0 "$T/small.hrt" -o "$MNT/out" ;;
        convert) set -- "$HR" convert "$T/small.hrt" --to text -o "$MNT/out" ;;
        gen) set -- "$HR" gen level_load -n 20000 -o "$MNT/out" ;;
        plot) set -- "$HR" plot "$T/rep.json" -o "$MNT/out" ;;
        esac
        fails "$cmd on a full tmpfs: exit 2 and the reason" "$MNT/out" "$full" "$@"
        if [ "$(cat "$MNT/out")" = OLD ] && [ "$(ls -A "$MNT" | sort | tr '\n' ' ')" = "filler out " ]; then
            ok "$cmd on a full tmpfs: old file intact, no partial file"
        else
            not_ok "$cmd on a full tmpfs: old file intact, no partial file" "$(ls -la "$MNT")"
        fi
    done
else
    for cmd in replay convert gen plot; do
        skip "$cmd on a full tmpfs" "cannot mount a tmpfs (needs root)"
        skip "$cmd on a full tmpfs: old file intact" "cannot mount a tmpfs (needs root)"
    done
fi

# 5. kill -9 while the file is being written: the old file stays whole. The
# temporary file appearing means the write has begun.
printf 'OLD\n' >"$T/big.txt"
"$HR" gen session -n 3000000 --text -o "$T/big.txt" >/dev/null 2>&1 &
pid=$!
started=0
for _ in $(seq 1 600); do
    if ls -A "$T" | grep -q '^\.big\.txt\.'; then
        started=1
        break
    fi
    sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ $started = 1 ] && [ "$(cat "$T/big.txt")" = OLD ]; then
    ok "kill -9 during a write keeps the old file"
elif [ $started = 0 ]; then
    skip "kill -9 during a write keeps the old file" "the write finished before it could be caught"
else
    not_ok "kill -9 during a write keeps the old file" "$(head -c 200 "$T/big.txt")"
fi
rm -f "$T"/.big.txt.*

# 6. two concurrent writers of one file: the result is one whole output
"$HR" gen level_load -n 200000 --seed 1 --text -o "$T/a.txt" >/dev/null
"$HR" gen level_load -n 200000 --seed 2 --text -o "$T/b.txt" >/dev/null
for round in 1 2 3; do
    "$HR" gen level_load -n 200000 --seed 1 --text -o "$T/both.txt" >/dev/null &
    p1=$!
    "$HR" gen level_load -n 200000 --seed 2 --text -o "$T/both.txt" >/dev/null &
    p2=$!
    wait $p1 $p2
    if cmp -s "$T/both.txt" "$T/a.txt" || cmp -s "$T/both.txt" "$T/b.txt"; then
        ok "two concurrent writers leave one whole file (round $round)"
    else
        not_ok "two concurrent writers leave one whole file (round $round)" \
            "$(ls -la "$T/both.txt" "$T/a.txt" "$T/b.txt")"
    fi
done
if ls -A "$T" | grep -q '^\.'; then
    not_ok "no temporary files left behind" "$(ls -A "$T")"
else
    ok "no temporary files left behind"
fi

# 7. a symlink to a regular file: the link stays, its target gets the file
printf 'OLD\n' >"$T/target.txt"
ln -s target.txt "$T/link.txt"
"$HR" convert "$T/small.hrt" --to text -o "$T/link.txt" >/dev/null
if [ -L "$T/link.txt" ] && head -1 "$T/target.txt" | grep -q heapreplay-trace; then
    ok "writing through a symlink replaces its target"
else
    not_ok "writing through a symlink replaces its target"
fi
tap_done
