#!/bin/sh
# Screenshots of the HTML report at 1280 px (results/charts.md), taken by
# headless chromium, each reduced to 256 colours (bench/charts/quantize.py):
#   html-shipped.png   the whole page of results/shipped-traces.json (the
#                      shipped traces; committed), details closed: what a
#                      reader sees first
#   html-real.png      the whole page of results/latest-real.json (the real
#                      programs with the predictions; ./quickstart.sh writes it)
#   html-details.png   the page of game_session.hrt from results/latest.json
#                      (./quickstart.sh; it has series) with every <details>
#                      open: the memory, frame and latency charts
#   charts-KIND.png    `heapreplay plot --kind KIND` of results/latest.json
# For each page it prints what a reader would miss at that width: the
# page's scroll width against the window's (wider = cut off), and the
# widest chart. A report that is absent is skipped with a line that says so.
# usage: bench/charts/screenshots.sh HEAPREPLAY SRCDIR   (make bench-charts)
set -eu
hr=$1 top=$2
res="$top/results"
width=1280
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hr_shots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
browser=${CHROMIUM:-chromium}
chrome() { # ARGS...: headless chromium with a profile of its own
    timeout 120 "$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars \
        --user-data-dir="$tmp/profile" "$@" 2>>"$tmp/browser.err"
}
# A copy of the page with a probe that measures it (the report has no script).
probe='<p id="hr-probe"></p><script>
var d = document.documentElement, w = 0, s = document.querySelectorAll("svg");
for (var i = 0; i < s.length; i++) w = Math.max(w, s[i].getBoundingClientRect().right);
document.getElementById("hr-probe").textContent = "height=" + d.scrollHeight + " scroll_width=" +
  d.scrollWidth + " window=" + window.innerWidth + " svgs=" + s.length + " svg_right=" + Math.round(w);
</script></body>'
shot_page() { # PAGE.html OUT.png
    sed "s#</body>#$(printf '%s' "$probe" | tr '\n' ' ' | sed 's/[&#]/\\&/g')#" "$1" >"$tmp/probe.html"
    m=$(chrome --window-size="$width,800" --dump-dom "file://$tmp/probe.html" |
        grep -o 'height=[0-9]* [^<]*')
    h=${m#height=}
    h=${h%% *}
    echo "$(basename "$2"): $m"
    chrome --window-size="$width,$h" --screenshot="$tmp/raw.png" "file://$1" >/dev/null
    python3 "$top/bench/charts/quantize.py" "$tmp/raw.png" "$2"
}
have() { [ -f "$1" ] || { echo "skipped: no $1 (./quickstart.sh writes it)"; return 1; }; }

if have "$res/shipped-traces.json"; then
    "$hr" report "$res/shipped-traces.json" -f html -o "$tmp/shipped.html"
    shot_page "$tmp/shipped.html" "$res/html-shipped.png"
fi
if have "$res/latest-real.json"; then
    "$hr" report "$res/latest-real.json" -f html -o "$tmp/real.html"
    shot_page "$tmp/real.html" "$res/html-real.png"
fi
if have "$res/latest.json"; then
    jq '.results |= map(select(.trace | endswith("game_session.hrt")))' "$res/latest.json" \
        >"$tmp/game.json"
    "$hr" report "$tmp/game.json" -f html | sed 's/<details>/<details open>/' >"$tmp/details.html"
    shot_page "$tmp/details.html" "$res/html-details.png"
    for k in bars summary memory frames latency; do
        "$hr" plot "$res/latest.json" --kind "$k" --width 1100 -o "$tmp/$k.svg"
        h=$(sed -n 's/^<svg[^>]* height="\([0-9]*\)".*/\1/p' "$tmp/$k.svg" | head -1)
        chrome --window-size="1100,$h" --screenshot="$tmp/raw.png" "file://$tmp/$k.svg" >/dev/null
        python3 "$top/bench/charts/quantize.py" "$tmp/raw.png" "$res/charts-$k.png"
    done
fi
ls -l "$res"/html-*.png "$res"/charts-*.png
