#!/usr/bin/env bash
# One run of the allocation-failure sweep by hand (docs/TESTING.md): runs
# heapreplay with malloc-family call N failing (tests/tools/failmalloc.so,
# address randomisation off) and prints its exit status, its standard error
# and where the failed call was made (addr2line; "??" when the caller is in
# the C library, e.g. inside fopen).
# usage: oom_one.sh BUILDDIR N ARGS...     (N = 0: count the calls only)
set -u
B=$(cd "$1" && pwd)
N=$2
shift 2
log=$(mktemp "${TMPDIR:-/tmp}/hr_oom_one.XXXXXX")
trap 'rm -f "$log"' EXIT
setarch -R env HR_FAILMALLOC_N="$N" HR_FAILMALLOC_LOG="$log" \
    LD_PRELOAD="$B/tests/tools/failmalloc.so" "$B/heapreplay" "$@"
echo "exit status: $?"
grep '^calls' "$log"
read -r _ n addr < <(grep '^failed' "$log") || { echo "no call failed"; exit 0; }
# Without randomisation a PIE is mapped at 0x555555554000 (x86-64 Linux).
echo "call $n failed, made from $addr:"
addr2line -f -i -p -e "$B/heapreplay" "$(printf '%#x' $((addr - 0x555555554000)))"
