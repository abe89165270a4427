#!/usr/bin/env bash
# The result keys are spelt once: every dotted path of the metric registry
# (src/base/metrics.h, HR_METRIC_LIST) is written as a string literal only by
# the registry itself (metrics.[ch]) and the typed result generated from it
# (src/base/result.[ch], the one decoder). Everywhere else code reads the
# typed fields (r->m.PEAK_LIVE) or names a metric by its id
# (hr_metrics[HR_M_PEAK_LIVE].path), so a misspelt key is a compile error
# instead of a silent NaN. Checked: the path itself, its _min/_max/_mad
# summary keys, and for a family ("ops.*") any literal starting "ops.".
# Comments are left out.
#
# The other keys of a result (identity, the per-thread, program, predict and
# budget blocks, samples, series, native, pools) are named once, as HR_RK_*
# macros in src/base/result.h, and read by the decoder only: src/report/ and
# src/cli/ never pass one as a literal to a JSON reader (hr_json_get,
# hr_json_path, hr_json_path_str, hr_json_path_num). "touch" and
# "interrupted" are also keys of the report document and its options, which
# the header code reads, so they are left out of this case. And the decoder
# is called where reports are loaded (report/access.c, which decodes a
# report once for every renderer) and where results are assembled
# (report/builder.c): no renderer decodes a result itself.
# Prints TAP; exit 0 when clean.
#
# Usage: check_result_keys.sh [ROOT]   (ROOT: $srcdir, else this tree)
set -u
. "$(dirname "$0")/tap.sh"
root=${1:-${srcdir:-$(dirname "$0")/../..}}
reg="$root/src/base/metrics.h"
[ -f "$reg" ] || skip_all "no $reg"

paths=$(sed -n 's/^[[:space:]]*X([A-Z0-9_]*,[[:space:]]*"\([^"]*\)".*/\1/p' "$reg")
npaths=$(printf '%s\n' "$paths" | grep -c .)
if [ "$npaths" -lt 10 ]; then
    not_ok "the registry's paths are read from $reg" "found only $npaths"
    tap_done
fi
ok "$npaths registry paths read from src/base/metrics.h"

files=$(cd "$root" && find src -type f \( -name '*.c' -o -name '*.h' \) \
    ! -path src/base/metrics.c ! -path src/base/metrics.h \
    ! -path src/base/result.c ! -path src/base/result.h | LC_ALL=C sort)
# Every string literal outside comments: "FILE:LINE:TEXT" (one awk pass).
hits=$(cd "$root" && awk -v paths="$paths" '
BEGIN {
    n = split(paths, p, "\n")
    for (i = 1; i <= n; i++) {
        if (p[i] ~ /\.\*$/) { fam[substr(p[i], 1, length(p[i]) - 1)] = 1; continue }
        exact[p[i]] = 1; exact[p[i] "_min"] = 1; exact[p[i] "_max"] = 1; exact[p[i] "_mad"] = 1
    }
}
FNR == 1 { incomment = 0 }
function check(s,   f) {
    if (s in exact) { print FILENAME ":" FNR ": \"" s "\""; return }
    for (f in fam) if (index(s, f) == 1) { print FILENAME ":" FNR ": \"" s "\""; return }
}
{
    line = $0; i = 1; L = length(line)
    while (i <= L) {
        c = substr(line, i, 1); d = substr(line, i, 2)
        if (incomment) { if (d == "*/") { incomment = 0; i += 2 } else i++; continue }
        if (d == "/*") { incomment = 1; i += 2; continue }
        if (d == "//") break
        if (c == "\x27") { i++; while (i <= L && substr(line, i, 1) != "\x27") i += (substr(line, i, 1) == "\\") ? 2 : 1; i++; continue }
        if (c == "\"") {
            s = ""; i++
            while (i <= L && substr(line, i, 1) != "\"") {
                if (substr(line, i, 1) == "\\") { s = s substr(line, i, 2); i += 2 } else { s = s substr(line, i, 1); i++ }
            }
            i++; check(s); continue
        }
        i++
    }
}' $files)

bad=$(printf '%s\n' "$hits" | grep . || true)
if [ -z "$bad" ]; then ok "no registry path spelt as a string literal outside the registry and result.c"
else not_ok "no registry path spelt as a string literal outside the registry and result.c" "$bad"; fi

# The result's other keys, from src/base/result.h.
rh="$root/src/base/result.h"
if [ ! -f "$rh" ]; then
    skip "the result's other keys are read by the decoder only" "no $rh"
    tap_done
fi
keys=$(sed -n 's/^#define HR_RK_[A-Z_]*[[:space:]]*"\([a-z_]*\)"$/\1/p' "$rh" | grep -vx 'touch\|interrupted')
nkeys=$(printf '%s\n' "$keys" | grep -c .)
if [ "$nkeys" -lt 10 ]; then
    not_ok "the result keys are read from $rh (HR_RK_*)" "found only $nkeys"
    tap_done
fi
ok "$nkeys result keys read from src/base/result.h: $(printf '%s ' $keys)"
# Code lines (comments left out) of src/report/ and src/cli/: "FILE:LINE:TEXT".
code=$(cd "$root" && find src/report src/cli -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort |
    xargs awk '
FNR == 1 { incomment = 0 }
{
    line = $0; out = ""; i = 1; L = length(line)
    while (i <= L) {
        d = substr(line, i, 2)
        if (incomment) { if (d == "*/") { incomment = 0; i += 2 } else i++; continue }
        if (d == "/*") { incomment = 1; i += 2; continue }
        if (d == "//") break
        out = out substr(line, i, 1); i++
    }
    if (out ~ /[^[:space:]]/) print FILENAME ":" FNR ":" out
}')
alt=$(printf '%s\n' "$keys" | paste -sd'|')
reads=$(printf '%s\n' "$code" |
    grep -E "hr_json_(get|path|path_str|path_num)\([^;]*\"($alt)\"" || true)
if [ -z "$reads" ]; then ok "no result key read by name in src/report/ or src/cli/ (the decoder reads them)"
else not_ok "no result key read by name in src/report/ or src/cli/ (the decoder reads them)" "$reads"; fi
decoders=$(printf '%s\n' "$code" | grep -E "hr_(report_result|result_decode)\(" |
    grep -v '^src/report/access\.[ch]:\|^src/report/builder\.c:' || true)
if [ -z "$decoders" ]; then ok "results are decoded only where reports are loaded or assembled (access.c, builder.c)"
else not_ok "results are decoded only where reports are loaded or assembled (access.c, builder.c)" "$decoders"; fi
tap_done
