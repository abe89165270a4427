#!/usr/bin/env bash
# The client of the mariadb_slap program (bench/fidelity/fidelity.sh,
# traces/fidelity/recapture.sh): for each of RUNS server runs in a row, waits
# until the server at SOCK answers, runs mariadb-slap with 4 concurrent
# clients and QUERIES queries in all (a mixed insert and select load on
# auto-generated tables with an auto-increment key; the schema is created at
# the start and dropped at the end, so every run starts from the same data
# folder), then shuts the server down and waits for that server process to
# end (its pid from mariadbd.pid beside SOCK: waiting for the socket to go
# raced with a capture's next timing run, whose new server made the socket
# again at once, and the wait ran its whole 120 s). RUNS is
# 1 for a fidelity run and 1 + --time-runs for a capture, whose timing runs
# start the server again.
#
# Usage: mariadb_drive.sh SOCK RUNS QUERIES
# It runs outside the measured process (the server's wait4 does not count it).
# Exit 1 when the server did not answer within 120 s or mariadb-slap failed.
set -u
sock=$1 runs=$2 queries=$3
for r in $(seq 1 "$runs"); do
    up=0
    for i in $(seq 1200); do
        if [ -S "$sock" ] && mariadb-admin --no-defaults -S "$sock" -uroot ping > /dev/null 2>&1; then
            up=1
            break
        fi
        sleep 0.1
    done
    [ "$up" = 1 ] || { echo "mariadb_drive.sh: no server at $sock after 120 s (run $r of $runs)" >&2; exit 1; }
    # the concurrency and the work are fixed; the rows are mariadb-slap's own
    # generated values, and the four clients' interleaving is the scheduler's
    mariadb-slap --no-defaults -S "$sock" -uroot --concurrency=4 --iterations=1 \
        --number-of-queries="$queries" --auto-generate-sql --auto-generate-sql-load-type=mixed \
        --auto-generate-sql-add-autoincrement --auto-generate-sql-write-number=2000 > /dev/null ||
        { echo "mariadb_drive.sh: mariadb-slap failed (run $r of $runs)" >&2
          mariadb-admin --no-defaults -S "$sock" -uroot shutdown; exit 1; }
    pid=$(cat "$(dirname "$sock")/mariadbd.pid" 2> /dev/null || true)
    mariadb-admin --no-defaults -S "$sock" -uroot shutdown
    for i in $(seq 1200); do
        if [ -n "$pid" ]; then kill -0 "$pid" 2> /dev/null || break
        else [ -S "$sock" ] || break
        fi
        sleep 0.1
    done
done
