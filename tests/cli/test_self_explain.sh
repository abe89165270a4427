#!/usr/bin/env bash
# The repository explains itself: an engineer who has only this tree must
# find every reason in it. So no source, doc, script, test, benchmark or
# result may cite a numbered tracker issue (the word issue or issues, a
# space, an optional '#' and a number) or a design file that is not in the
# tree (the old design notes, or anything under a sibling "shared" folder,
# by a relative path): write the reason itself, or
# point to the docs/ file that gives it (docs/ARCHITECTURE.md holds the
# design contract).
#
# Scanned: the text files (by extension, plus .ci/run) under src include docs
# bench tests results contrib pkg m4 configs .ci traces, and the top-level
# README.md, configure.ac, Makefile.am and scripts. Build products (objects,
# test logs, executables, traces) are not text sources and are skipped.
#
# Cases:
#   1. the scan saw a plausible tree (enough files, src/ docs/ tests/ among
#      them), so an empty or misdirected scan cannot pass;
#   2. no citation anywhere: each hit is a diagnostic "FILE:LINE: TEXT";
#   3. the scanner finds citations planted in a temporary copy of three real
#      files (exactly those lines, none before planting);
#   4. this script run on that copy fails and names each planted FILE:LINE.
#
# Usage: test_self_explain.sh [ROOT]   (ROOT defaults to $srcdir, then to the
# top of the tree this script lives in). With ROOT given only cases 1-2 run.
# HR_SELF_EXPLAIN_MIN (default 250): the fewest files case 1 accepts.
# HR_SELF_EXPLAIN_EXCLUDE: top-level folders left out of the scan (to check
# one part of the tree while another is being cleaned); the case name says so.
# Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"

given_root=${1:-}
root=${given_root:-${srcdir:-$(dirname "$0")/../..}}
min_files=${HR_SELF_EXPLAIN_MIN:-250}
exclude=${HR_SELF_EXPLAIN_EXCLUDE:-}

# What a citation looks like (grep -E, case-insensitive). The literal forms
# are spelled with a bracket or a backslash here, so this script does not
# match itself.
pattern='(^|[^[:alnum:]_])issues? #?[0-9]|DESIGN\.md|\.\./shared'

dirs="src include docs bench tests results contrib pkg m4 configs .ci traces"
text_ext='c|h|cpp|sh|py|md|mk|am|ac|in|m4|txt|json|csv|svg|html|xml|xsd|yml|conf|heaps|supp|sql|serv|mtrace|hrtt'

# The files to scan under $1, one per line, relative to it, sorted.
list_files() {
    local r=$1 d ex
    (
        cd "$r" || exit 1
        for d in $dirs; do
            [ -d "$d" ] || continue
            for ex in $exclude; do [ "$d" = "$ex" ] && continue 2; done
            find "$d" \( -name .deps -o -name .libs -o -name autom4te.cache -o -name .git \) -prune \
                -o -type f -print
        done | grep -E "\.($text_ext)\$|^\.ci/run\$"
        for d in README.md configure.ac Makefile.am *.sh; do
            [ -f "$d" ] && echo "$d"
        done
    ) | LC_ALL=C sort -u
}

# Prints "FILE:LINE: TEXT" for every citation in the files of list $2 under
# root $1 (nothing when clean).
scan() {
    local r=$1 list=$2
    [ -s "$list" ] || return 0
    (cd "$r" && tr '\n' '\0' < "$list" | xargs -0 grep -HnIiE "$pattern" /dev/null) |
        sed -E 's/^([^:]*):([0-9]+):[[:space:]]*/\1:\2: /'
}

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

list_files "$root" > "$T/files"
n=$(wc -l < "$T/files")
in_src=$(grep -c '^src/' "$T/files")
in_docs=$(grep -c '^docs/' "$T/files")
in_tests=$(grep -c '^tests/' "$T/files")
if [ "$n" -ge "$min_files" ] && [ "$in_src" -gt 0 ] && [ "$in_docs" -gt 0 ] && [ "$in_tests" -gt 0 ]; then
    ok "scanned $n files (src $in_src, docs $in_docs, tests $in_tests)"
else
    not_ok "scanned a plausible tree" "root: $root" \
        "files: $n (expected at least $min_files), src $in_src, docs $in_docs, tests $in_tests"
fi

name="no file cites a numbered issue or a design file outside the tree"
[ -n "$exclude" ] && name="$name (excluding: $exclude)"
scan "$root" "$T/files" > "$T/hits"
nh=$(wc -l < "$T/hits")
if [ "$nh" -eq 0 ]; then
    ok "$name"
else
    more=""
    [ "$nh" -gt 40 ] && more="... and $((nh - 40)) more"
    not_ok "$name" "$nh citation(s); write the reason itself or point to a docs/ file:" \
        "$(head -n 40 "$T/hits")" "$more"
fi

if [ -n "$given_root" ]; then
    tap_done
fi

# Cases 3-4: three real files copied, one citation of each kind planted at a
# known line (mixed case for the issue form). The literal text is assembled
# from pieces so that this script never holds it.
C="$T/copy"
plant_files="docs/ARCHITECTURE.md src/trace/import.h tests/cli/tap.sh"
missing=""
for f in $plant_files; do
    if [ -f "$root/$f" ]; then
        mkdir -p "$C/$(dirname "$f")" && cp "$root/$f" "$C/$f"
    else
        missing="$missing $f"
    fi
done
if [ -n "$missing" ]; then
    not_ok "planted citations are found" "missing in $root:$missing"
    not_ok "the check fails on the planted copy"
    tap_done
fi
printf '%s\n' $plant_files > "$T/plant_list"
scan "$C" "$T/plant_list" > "$T/before"

iss="Iss""ue"
des="DESIGN"".md"
sh_="../sha""red/notes.md"
# Insert a line after line 3 of each file: the hit is then on line 4.
sed -i "3a As decided in $iss 42, this is so." "$C/docs/ARCHITECTURE.md"
sed -i "3a * (see $des, \"Layers\")" "$C/src/trace/import.h"
sed -i "3a # the rule lives in $sh_" "$C/tests/cli/tap.sh"
scan "$C" "$T/plant_list" | cut -d: -f1,2 > "$T/after"
printf '%s\n' docs/ARCHITECTURE.md:4 src/trace/import.h:4 tests/cli/tap.sh:4 > "$T/want"
if [ ! -s "$T/before" ] && cmp -s "$T/after" "$T/want"; then
    ok "planted citations are found at their FILE:LINE, and nothing else"
else
    not_ok "planted citations are found at their FILE:LINE, and nothing else" \
        "before planting: $(tr '\n' ' ' < "$T/before")" \
        "found: $(tr '\n' ' ' < "$T/after")" "expected: $(tr '\n' ' ' < "$T/want")"
fi

# The whole script on the copy (it holds too few files for case 1, so the
# minimum is lowered): it must exit 1 and name every planted FILE:LINE.
HR_SELF_EXPLAIN_MIN=1 HR_SELF_EXPLAIN_EXCLUDE="" bash "$0" "$C" > "$T/sub.out" 2>&1
rc=$?
named=0
while read -r want; do
    grep -q "^# $want: " "$T/sub.out" && named=$((named + 1))
done < "$T/want"
if [ "$rc" -eq 1 ] && [ "$named" -eq 3 ] && grep -q '^not ok 2 ' "$T/sub.out"; then
    ok "the check fails on the planted copy, naming each FILE:LINE"
else
    not_ok "the check fails on the planted copy, naming each FILE:LINE" \
        "exit status $rc (expected 1), $named of 3 planted lines named; output:" \
        "$(cat "$T/sub.out")"
fi

tap_done
