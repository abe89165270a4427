#!/bin/sh
# Builds one libFuzzer target (make fuzz): the target's source with the
# foundation (src/base), the trace layer (src/trace) and the heap-config
# parser, all compiled with CC -fsanitize=fuzzer,address,undefined.
# usage: build.sh CC SRCDIR BUILDDIR "LIBS" OUT
set -e
CC=$1 S=$2 B=$3 LIBS=$4 OUT=$5
name=$(basename "$OUT")
mkdir -p "$(dirname "$OUT")"
# shellcheck disable=SC2086
exec $CC -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DHAVE_CONFIG_H -include "$B/config.h" -I"$S/include" -I"$S/src" -I"$B" -I"$S/tests/fuzz" \
    -o "$OUT" "$S/tests/fuzz/$name.c" "$S"/src/base/*.c "$S"/src/trace/*.c "$S/src/alloc/heapcfg.c" \
    $LIBS -lm
