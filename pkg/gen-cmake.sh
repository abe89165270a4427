#!/bin/sh
# gen-cmake.sh IN OUT PREFIX CMAKEDIR INCLUDEDIR LIBDIR BINDIR VERSION
# Writes the CMake package file OUT from IN with the install directories
# relative to the package file's own directory (CMAKEDIR), so that a moved
# or DESTDIR-staged install still finds its headers; a directory outside
# PREFIX stays absolute.
set -eu
in=$1 out=$2 prefix=$3 cmakedir=$4 inc=$5 lib=$6 bin=$7 version=$8
under() {
    case $1 in
    "$prefix"/*) printf '%s' "${1#"$prefix"/}" ;;
    *) printf '%s' "$1" ;;
    esac
}
case $cmakedir in
"$prefix"/*)
    up=$(printf '%s\n' "${cmakedir#"$prefix"/}" |
        awk -F/ '{ s = ""; for (i = 1; i <= NF; i++) if ($i != "") s = s (s == "" ? "" : "/") ".."; print s }') ;;
*) up=$prefix ;;
esac
sed -e "s|@HR_CMAKE_UP@|$up|" -e "s|@HR_INCLUDE_REL@|$(under "$inc")|" \
    -e "s|@HR_LIB_REL@|$(under "$lib")|" -e "s|@HR_BIN_REL@|$(under "$bin")|" \
    -e "s|@PACKAGE_VERSION@|$version|" "$in" > "$out.tmp"
mv "$out.tmp" "$out"
