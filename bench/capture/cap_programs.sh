# The programs the capture benches run (sourced by capture_cost.sh and
# overhead_fit.sh): cap_churn, a malloc/free loop of CHURN rounds on one
# thread (2 x CHURN events); sqlite3 on traces/real/sqlite_index.sql;
# CPython ($PYTHON) on traces/real/python_json.py.
# Needs S (the source top), CHURN_BIN, CHURN and PYTHON set.
#   cap_prog NAME   the command of program NAME, one word a line
cap_prog() {
    case "$1" in
        churn) printf '%s\n' "$CHURN_BIN" "$CHURN" 1 ;;
        sqlite) printf '%s\n' "$(command -v sqlite3)" :memory: ".read $S/traces/real/sqlite_index.sql" ;;
        python) printf '%s\n' "$PYTHON" "$S/traces/real/python_json.py" ;;
        *) echo "unknown capture bench program: $1" >&2; exit 2 ;;
    esac
}
