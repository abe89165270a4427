# Sourced by bench/fidelity/fidelity.sh and traces/fidelity/recapture.sh: the
# programs of traces/fidelity/, each made ready in a folder of its own and run
# on a fixed amount of work (traces/README.md, "Fidelity programs").
#
#   progs_have NAME        0 when NAME's programs are installed, else 1 and
#                          on stdout the apt-get line that installs them
#   progs_setup NAME DIR   makes DIR ready for NAME (a data folder, a
#                          repository, sources); once per benchmark, not timed
#   progs_cmd NAME DIR     sets the array PROG_CMD: the command whose process
#                          is measured (wait4) or captured
#
#   mariadb_slap  mariadbd 10.11, multithreaded: a thread per connection plus
#                 InnoDB's own; the client (progs/mariadb_drive.sh, 4
#                 concurrent connections, MARIADB_QUERIES queries) runs beside
#                 it, outside its process: PROG_CMD is the server alone
#   git_pack      git pack-objects --threads=2 over a made-up 3000-commit
#                 history (progs/git_history.py): two delta-search threads and
#                 the main thread allocate
#   make_build    make -j2 -B of a made-up 12-file C project
#                 (progs/c_project.py): make, sh, gcc, cc1, as, collect2 and
#                 ld, about 40 short processes
PROGS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MARIADB_QUERIES=${MARIADB_QUERIES:-80000}

progs_have() {
    local need=() pkg=""
    case "$1" in
    mariadb_slap) need=(mariadbd mariadb-install-db mariadb-slap mariadb-admin)
        pkg="mariadb-server mariadb-client" ;;
    git_pack) need=(git python3); pkg="git python3" ;;
    make_build) need=(make gcc python3); pkg="make gcc python3" ;;
    *) echo "progs.sh: unknown program $1" >&2; return 2 ;;
    esac
    local n
    for n in "${need[@]}"; do
        command -v "$n" > /dev/null || { echo "apt-get install $pkg"; return 1; }
    done
}

progs_setup() {
    local name=$1 dir=$2
    rm -rf "$dir"
    mkdir -p "$dir"
    case "$name" in
    mariadb_slap)
        # a data folder of its own: system tables only (no test database)
        mariadb-install-db --no-defaults --user="$(id -un)" --datadir="$dir/data" \
            --auth-root-authentication-method=normal --skip-test-db > "$dir/install.log" 2>&1 ||
            { echo "progs.sh: mariadb-install-db failed:" >&2; tail -n 5 "$dir/install.log" >&2; return 1; } ;;
    git_pack)
        git init -q -b main "$dir/repo" &&
            python3 "$PROGS_DIR/git_history.py" | git -C "$dir/repo" fast-import --quiet ;;
    make_build)
        python3 "$PROGS_DIR/c_project.py" "$dir/src" 12 8 ;;
    esac
}

progs_cmd() {
    local name=$1 dir=$2
    case "$name" in
    mariadb_slap)
        PROG_CMD=(mariadbd --defaults-file="$PROGS_DIR/mariadb.cnf" --datadir="$dir/data"
                  --socket="$dir/sock" --pid-file="$dir/mariadbd.pid")
        # root may run the server only by naming root as its user
        [ "$(id -u)" != 0 ] || PROG_CMD+=(--user=root) ;;
    git_pack)
        # every object again (no reuse of the packed deltas): the same delta
        # search each run; the pack itself goes to standard output
        PROG_CMD=(git -C "$dir/repo" pack-objects --all --revs --threads=2 --window=10
                  --depth=50 --no-reuse-delta --no-reuse-object -q --stdout) ;;
    make_build)
        # -B: every file again, so repeated runs (--time-runs) do the same work
        PROG_CMD=(make -s -j2 -B -C "$dir/src") ;;
    esac
}
