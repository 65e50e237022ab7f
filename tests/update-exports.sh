#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerates tests/exports.txt from a built shared library, on purpose,
# and prints what changed.
#
# Usage: tests/update-exports.sh [BUILDDIR]
#   BUILDDIR: where the library was built (default: the current directory),
#   e.g. `../tests/update-exports.sh .` from a build directory or
#   `tests/update-exports.sh` after an in-tree build.

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
top_builddir=${1:-.}
export top_srcdir top_builddir

exports=$top_srcdir/tests/exports.txt
new=$(mktemp) || exit 1
trap 'rm -f "$new"' EXIT

sh "$top_srcdir/tests/check-exports.sh" --print >"$new" || exit 1

if test -f "$exports" && cmp -s "$exports" "$new"; then
	echo "update-exports: tests/exports.txt unchanged ($(wc -l <"$new") symbols)"
	exit 0
fi
if test -f "$exports"; then
	diff -u "$exports" "$new" | sed -e '1,2d' -e '/^@@/d'
else
	sed 's/^/+/' "$new"
fi
cat "$new" >"$exports"
echo "update-exports: wrote tests/exports.txt ($(wc -l <"$new") symbols)"
