#!/usr/bin/env bash
# The floor check of src/report/: its files stand on floors, lowest first,
# and a file may include (and call) only its own floor or a lower one; and
# no two files include or call each other in a loop, not even on one floor.
# src/report/report.h describes the floors. Prints TAP, one case each for:
# every file has a floor; includes point down; no include loop; and, when
# the report objects are built, calls point down and no call loop (from the
# symbols each .o defines and uses, read with nm). A violation is a
# diagnostic line "FILE:LINE: FLOOR -> FLOOR (#include "X")" or
# "FILE.o: FLOOR -> FLOOR (calls SYMBOL in X)".
#
# Usage: check_report_floors.sh [ROOT [OBJDIR]]: ROOT is the source tree
# ($srcdir, then the tree this script lives in); OBJDIR holds the built
# objects (default src/report under the current directory, the build tree
# under make check; no objects: the call cases are skipped). Exit 0 when clean.
set -u
. "$(dirname "$0")/tap.sh"

root=${1:-${srcdir:-$(dirname "$0")/../..}}
objdir=${2:-src/report}
[ -d "$root/src/report" ] || skip_all "no src/report under $root"

# The floors, lowest first, and the files (basename without .c/.h) on each.
floors="access draw render chart page top assemble"
declare -A floor_of rank
f_access="access stats metric_name prose"
f_draw="svg ranking answers"
f_render="summary phases detail crosstrace wholeprog predict tables csv compare compare_program compare_family compare_like compare_figs compare_whole compare_prog compare_fmt paired charts chart_bars
          chart_summary chart_memory chart_frames chart_latency sites sites_out sites_report"
f_chart="chart"
f_page="html"
f_top="report"
f_assemble="builder merge"
i=0
for fl in $floors; do
    rank[$fl]=$i
    i=$((i + 1))
    v="f_$fl"
    for m in ${!v}; do floor_of[$m]=$fl; done
done

modof() { local b=${1##*/}; echo "${b%.*}"; }

# 1. every file has a floor
stray=""
files=$(cd "$root" && find src/report -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
for f in $files; do
    [ -n "${floor_of[$(modof "$f")]:-}" ] || stray="$stray"$'\n'"$f: on no floor (add it to tests/cli/check_report_floors.sh)"
done
if [ -z "$stray" ]; then ok "every src/report file has a floor ($(echo "$files" | wc -l) files)"
else not_ok "every src/report file has a floor" "${stray#$'\n'}"; fi

# 2. includes point down; 3. no include loop (tsort names a loop)
bad=""
edges=""
while IFS= read -r line; do
    [ -n "$line" ] || continue
    file=${line%%:*}; rest=${line#*:}; ln=${rest%%:*}
    name=$(printf '%s\n' "$rest" | sed 's/^[^"]*"//; s/".*//')
    case $name in
        report/*) ;;
        */*) continue ;;   # another layer: check_includes.sh
    esac
    from=$(modof "$file"); to=$(modof "$name")
    ff=${floor_of[$from]:-}; tf=${floor_of[$to]:-}
    [ -n "$ff" ] && [ -n "$tf" ] || continue
    [ "$from" = "$to" ] || edges="$edges $from $to"
    if [ "${rank[$tf]}" -gt "${rank[$ff]}" ]; then
        bad="$bad"$'\n'"$file:$ln: $ff -> $tf (#include \"$name\")"
    fi
done < <(cd "$root" && printf '%s\n' $files | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null)
if [ -z "$bad" ]; then ok "src/report includes point to their own floor or lower"
else not_ok "src/report includes point to their own floor or lower" "${bad#$'\n'}"; fi
loops() { [ -n "$1" ] || return 0; printf '%s\n' $1 | tsort 2>&1 >/dev/null | grep -v '^tsort: -: input contains a loop:' | sed 's/^tsort: //'; }
lp=$(loops "$edges")
if [ -z "$lp" ]; then ok "no include loop between src/report files"
else not_ok "no include loop between src/report files" "files in a loop:"$'\n'"$lp"; fi

# 4. calls point down; 5. no call loop: who defines each symbol, who uses it
objs=$(ls "$objdir"/*.o 2>/dev/null)
if [ -z "$objs" ] || ! command -v nm >/dev/null; then
    skip "src/report calls point to their own floor or lower" "no objects in $objdir (or no nm)"
    skip "no call loop between src/report files" "no objects in $objdir (or no nm)"
else
    # objects are named by the build: libhr_a-NAME.o or NAME.o
    out=$(for o in $objs; do
        m=$(modof "$o"); m=${m#*-}
        nm "$o" | awk -v m="$m" -v o="$o" '$1 ~ /^[0-9a-fA-F]+$/ && $2 ~ /^[TDBR]$/ { print "D", m, $3, o }
                                           $1 == "U" { print "U", m, $2, o }'
    done | awk -v floors="$floors" -v fmap="$(for m in "${!floor_of[@]}"; do printf '%s=%s ' "$m" "${floor_of[$m]}"; done)" '
        BEGIN { n = split(floors, fl, " "); for (i = 1; i <= n; i++) rk[fl[i]] = i
                k = split(fmap, p, " "); for (i = 1; i <= k; i++) { split(p[i], q, "="); fo[q[1]] = q[2] } }
        $1 == "D" { def[$3] = $2; next }
        { use[++nu] = $0 }
        END {
            for (i = 1; i <= nu; i++) {
                split(use[i], u, " "); from = u[2]; sym = u[3]; obj = u[4]
                if (!(sym in def) || def[sym] == from) continue
                to = def[sym]; print "E", from, to
                if ((from in fo) && (to in fo) && rk[fo[to]] > rk[fo[from]])
                    print "B", obj ": " fo[from] " -> " fo[to] " (calls " sym " in " to ")"
            }
        }')
    bad=$(printf '%s\n' "$out" | sed -n 's/^B //p' | sort -u)
    if [ -z "$bad" ]; then ok "src/report calls point to their own floor or lower"
    else not_ok "src/report calls point to their own floor or lower" "$bad"; fi
    lp=$(loops "$(printf '%s\n' "$out" | sed -n 's/^E //p')")
    if [ -z "$lp" ]; then ok "no call loop between src/report files"
    else not_ok "no call loop between src/report files" "files in a loop:"$'\n'"$lp"; fi
fi
tap_done
