# The in-house speed benches' traces (sourced by inhouse_speed.sh and
# touch_order.sh after hr_bench_setup, which sets HR, S and W): frame_temps
# (frame_loop's per-frame temporaries, the stack's pattern) and the size
# cuts, a trace's blocks that one allocator serves itself (block up to
# 640 B, bank up to 4 KiB, sizeclass up to 128 B), written to $W/NAME.hrt;
# trace_path NAME gives a cut's file, or the shipped trace's.

make_cut() { # make_cut TRACE BYTES NAME
    "$HR" convert "$S/traces/$1.hrt" -o "$W/cut.txt" >/dev/null
    python3 "$S/bench/inhouse_speed/size_cut.py" "$W/cut.txt" "$W/cut2.txt" "$2" 2>&1 |
        sed "s|^|$1: |" >&2
    mkdir -p "$(dirname "$W/$3")"
    "$HR" convert "$W/cut2.txt" -o "$W/$3.hrt" >/dev/null
}

make_cuts() {
    "$HR" convert "$S/traces/frame_loop.hrt" -o "$W/frame_loop.txt" >/dev/null
    python3 "$S/bench/inhouse_speed/frame_temps.py" "$W/frame_loop.txt" "$W/frame_temps.txt"
    "$HR" convert "$W/frame_temps.txt" -o "$W/frame_temps.hrt" >/dev/null
    make_cut frame_loop 640 frame_loop-640B
    make_cut frame_loop 4096 frame_loop-4KiB
    make_cut game_session 640 game_session-640B
    make_cut game_session 4096 game_session-4KiB
    make_cut level_load 4096 level_load-4KiB
    make_cut strings 128 strings-128B
    make_cut real/freeciv_ai 4096 real/freeciv_ai-4KiB
}

trace_path() { # trace_path NAME
    if [ -f "$W/$1.hrt" ]; then echo "$W/$1.hrt"; else echo "$S/traces/$1.hrt"; fi
}
