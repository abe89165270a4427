#!/usr/bin/env bash
# results/README.md is the index of results/: every file in results/ (raw/
# included) is named in it, in backquotes, by its path under results/, and
# every file its tables name in their first column exists. quickstart.sh's
# outputs (latest.json, latest-real.json, latest.html, latest-real.html: not committed) are the
# only files left out. Prints TAP.
set -u
. "$(dirname "$0")/tap.sh"
S=${srcdir:-.}
R="$S/results"
[ -f "$R/README.md" ] || skip_all "no $R/README.md"

unlisted=""
while IFS= read -r f; do
    case "$f" in
    README.md | latest.json | latest-real.json | latest.html | latest-real.html) continue ;;
    esac
    grep -qF "\`$f\`" "$R/README.md" || unlisted="$unlisted $f"
done < <(cd "$R" && find . -type f | sed 's#^\./##' | LC_ALL=C sort)
if [ -z "$unlisted" ]; then
    ok "every file in results/ is listed in results/README.md"
else
    not_ok "every file in results/ is listed in results/README.md" "not listed:$unlisted"
fi

# The first column of each table row: its backquoted names are files.
missing=""
for f in $(awk -F'|' '/^\| `/ { print $2 }' "$R/README.md" | grep -o '`[^`]*`' | tr -d '`'); do
    [ -f "$R/$f" ] || missing="$missing $f"
done
if [ -z "$missing" ]; then
    ok "every file results/README.md lists exists"
else
    not_ok "every file results/README.md lists exists" "missing:$missing"
fi
tap_done
