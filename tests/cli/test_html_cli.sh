#!/usr/bin/env bash
# The HTML report in a real browser (TAP): renders the series fixture with
# `heapreplay report -f html`, loads the page in headless chromium and checks
# that the charts were laid out (a copy of the page with a probe script
# appended measures every <svg> and <polyline>; the report itself has no
# script), that --dump-dom holds the 8 inline charts and a table per trace, and that
# a screenshot PNG is produced and not blank. Skips when chromium is absent
# (Debian: apt-get install chromium) or cannot start.
set -u
. "$(dirname "$0")/tap.sh"
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
hr="$top_builddir/heapreplay"
[ -x "$hr" ] || skip_all "$hr not built"
browser=${CHROMIUM:-}
for b in chromium chromium-browser google-chrome; do
    [ -n "$browser" ] && break
    command -v "$b" >/dev/null 2>&1 && browser=$b
done
[ -n "$browser" ] || skip_all "no chromium (set CHROMIUM=PATH or install Debian's chromium)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hr_html.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fx="$srcdir/tests/data/reports/series.json"
run_browser() { # ARGS...: headless chromium with its own profile, bounded in time
    timeout 120 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
        --user-data-dir="$tmp/profile" "$@" 2>>"$tmp/browser.err"
}

"$hr" report "$fx" -f html -o "$tmp/report.html" || { not_ok "report -f html"; tap_done; }
ok "report -f html"
run_browser --dump-dom "file://$tmp/report.html" >"$tmp/dom.html"
[ -s "$tmp/dom.html" ] || skip_all "chromium did not start: $(tail -1 "$tmp/browser.err")"

svgs=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
lines=$(grep -o '<polyline' "$tmp/dom.html" | wc -l)
tables=$(grep -o '<table' "$tmp/dom.html" | wc -l)
if [ "$svgs" = 8 ] && [ "$lines" -ge 15 ] && [ "$tables" -ge 2 ]; then
    ok "the DOM holds 8 charts ($lines polylines) and $tables tables"
else
    not_ok "the DOM holds 8 charts and the tables" "svg $svgs, polyline $lines, table $tables"
fi

# Layout at 1280 px, every <details> opened: every chart has a box and
# spans most of the window (width 100 %), every data line a non-empty
# bounding box, and the page is no wider than the window (nothing cut off:
# a wide table scrolls in its own box).
probe='<p id="hr-probe"></p><script>
var dd = document.querySelectorAll("details"); for (var k = 0; k < dd.length; k++) dd[k].open = true;
var s = document.querySelectorAll("svg"), n = 0, f = 0, p = 0, pl = document.querySelectorAll("polyline");
for (var i = 0; i < s.length; i++) { var r = s[i].getBoundingClientRect(); if (r.width > 300 && r.height > 150) n++;
  if (r.width >= 0.8 * window.innerWidth) f++; }
for (var j = 0; j < pl.length; j++) { var b = pl[j].getBBox(); if (b.width > 10) p++; }
var cut = document.documentElement.scrollWidth > window.innerWidth ? 1 : 0;
document.getElementById("hr-probe").textContent = "laid_out=" + n + " wide=" + f + " cut=" + cut +
  " drawn=" + p + "/" + pl.length;
</script></body>'
sed "s#</body>#$(printf '%s' "$probe" | tr '\n' ' ' | sed 's/[&#]/\\&/g')#" "$tmp/report.html" >"$tmp/probe.html"
run_browser --window-size=1280,800 --dump-dom "file://$tmp/probe.html" >"$tmp/probe_dom.html"
res=$(grep -o 'laid_out=[0-9]* wide=[0-9]* cut=[0-9]* drawn=[0-9]*/[0-9]*' "$tmp/probe_dom.html")
set -- $(printf '%s' "$res" | tr '=/' '  ')
if [ "${2:-0}" = 8 ] && [ "${8:-0}" -ge 15 ] && [ "${8:-0}" = "${9:-x}" ]; then
    ok "chromium laid out 8 charts, every line drawn ($res)"
else
    not_ok "chromium laid out the charts" "probe: ${res:-no result}" "$(tail -2 "$tmp/browser.err")"
fi
if [ "${4:-0}" = 8 ] && [ "${6:-1}" = 0 ]; then
    ok "at 1280 px every chart spans the page, nothing cut off ($res)"
else
    not_ok "at 1280 px every chart spans the page, nothing cut off" "probe: ${res:-no result}"
fi

# A screenshot, and not a blank one.
run_browser --window-size=1000,2400 --screenshot="$tmp/shot.png" "file://$tmp/report.html" >/dev/null
if [ -s "$tmp/shot.png" ] && [ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
    ok "screenshot is a PNG ($(wc -c <"$tmp/shot.png") bytes)"
else
    not_ok "screenshot is a PNG" "$(tail -2 "$tmp/browser.err")"
fi
if command -v python3 >/dev/null 2>&1; then
    # distinct pixel values of the decoded image: a blank page has one or two
    colors=$(python3 - "$tmp/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}.get(ctype, 1)
stride = 1 + w * bpp
colors = set()
for y in range(0, len(raw) // stride, 7):  # filtered rows: distinct values still tell blank from drawn
    row = raw[y * stride + 1:(y + 1) * stride]
    colors.update(row[i:i + bpp] for i in range(0, len(row), bpp * 5))
print(len(colors))
PY
)
    if [ "${colors:-0}" -ge 50 ]; then ok "screenshot is not blank ($colors distinct values)"
    else not_ok "screenshot is not blank" "distinct values: ${colors:-?}"; fi
else
    skip "screenshot is not blank" "python3 not installed"
fi
tap_done
