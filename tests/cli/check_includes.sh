#!/usr/bin/env bash
# The layer check: every `#include "..."` in src/ and include/ must point at
# its own layer or at one it is allowed to use. Prints TAP: one case per
# layer (so a failure names the layer), each violation as a diagnostic line
# "FILE:LINE: LAYER -> LAYER (#include "X")".
#
# Layers, lowest first:
#   base                      the foundation (src/base)
#   alloc, trace, capture     siblings over base; they never include each other
#                             (the one public header, include/heapreplay/
#                             annotate.h, is capture)
#   backends                  alloc and base only (not trace, not capture)
#   replay                    backends and everything below, trace included
#   report                    replay and below
#   cli                       everything
# Includes within a src/ folder are always fine (one folder, one layer). "config.h" and <system> headers are always allowed (the
# latter are not looked at). tests/ and bench/ are not checked.
#
# Usage: check_includes.sh [ROOT]   (ROOT defaults to $srcdir, then to the
# top of the source tree this script lives in). Exit 0 when clean.
set -u

root=${1:-${srcdir:-$(dirname "$0")/../..}}
if [ ! -d "$root/src" ]; then
    echo "1..0 # SKIP no src/ under $root"
    exit 0
fi

layers="base alloc trace capture backends replay report cli"

# Everything is done in one awk pass (a subshell per include line made the
# check take seconds). Input: the file list, a "--" line, then grep -Hn output
# "FILE:LINE:TEXT" of every quoted include. Output: TAP.
files=$(cd "$root" && find src include -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
{
    printf '%s\n' "$files" --
    (cd "$root" && printf '%s\n' "$files" | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null)
} | awk -v layers="$layers" '
# The layers a layer may include besides itself.
BEGIN {
    ok["base"] = ""
    ok["alloc"] = "base"; ok["trace"] = "base"; ok["capture"] = "base"
    ok["backends"] = "base alloc"
    ok["replay"] = "base alloc trace capture backends"
    ok["report"] = ok["replay"] " replay"
    ok["cli"] = ok["report"] " report"
    nl = split(layers, order, " ")
}
# The layer a file belongs to; "" if none.
function layer_of(f,   d) {
    if (f == "include/heapreplay/annotate.h") return "capture"
    if (f ~ /^include\/heapreplay\//) return "alloc"
    if (f ~ /^src\/[^\/]+\//) { d = substr(f, 5); sub(/\/.*/, "", d); return d }
    return ""
}
function dir_of(f) { sub(/\/[^\/]*$/, "", f); return f }
# Collapses "./" and "x/../" (quoted include paths may be relative).
function normalize(p,   n, i, parts, out, k, st) {
    n = split(p, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == "..") { if (k > 0) k--; continue }
        st[++k] = parts[i]
    }
    out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") st[i]
    return out
}
# Where #include "name" in file resolves as the compiler looks: the folder of
# the including file, then -Iinclude, then -Isrc. "" if nowhere.
function resolve(file, name,   c) {
    c = normalize(dir_of(file) "/" name); if (c in exists) return c
    c = normalize("include/" name); if (c in exists) return c
    c = normalize("src/" name); if (c in exists) return c
    return ""
}
!listed { if ($0 == "--") { listed = 1; next } if ($0 != "") { exists[$0] = 1; nfiles++ } next }
{
    # FILE:LINE:TEXT
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
    name = rest; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
    from = layer_of(file)
    if (from == "" || !(from in ok) || name == "config.h") next
    target = resolve(file, name)
    if (target == "") { bad[from] = bad[from] "\n" file ":" line ": #include \"" name "\" not found"; next }
    to = layer_of(target)
    # Same src/ folder is the same layer.
    if (to == from) next
    if (index(" " ok[from] " ", " " to " ")) next
    bad[from] = bad[from] "\n" file ":" line ": " from " -> " (to == "" ? "?" : to) " (#include \"" name "\")"
}
END {
    n = 0; failed = 0
    for (f in exists) {
        l = layer_of(f)
        if (l == "" || !(l in ok)) stray = stray "\n" f ": not in any layer (add its folder to tests/cli/check_includes.sh)"
    }
    n++
    if (nfiles > 0 && stray == "") printf "ok %d - %d files under src/ and include/ belong to a layer\n", n, nfiles
    else { failed = 1; printf "not ok %d - every file under src/ and include/ belongs to a layer (%d files)%s\n", n, nfiles, gsub(/\n/, "\n# ", stray) ? stray : "" }
    for (i = 1; i <= nl; i++) {
        l = order[i]; n++
        if (bad[l] == "") printf "ok %d - %s includes only: %s %s\n", n, l, l, ok[l]
        else {
            failed = 1; d = bad[l]; gsub(/\n/, "\n# ", d)
            printf "not ok %d - %s includes only: %s %s%s\n", n, l, l, ok[l], d
        }
    }
    printf "1..%d\n", n
    exit failed
}'
