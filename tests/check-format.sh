#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that every C source and header is formatted as .clang-format says
# (clang-format 14), and opens with the project's SPDX license line;
# lists the offenders with what would change.
# Fix them with build-aux/format.sh.
#
# Environment (set by make check): top_srcdir, CLANG_FORMAT.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CLANG_FORMAT:=clang-format}"

cd "$top_srcdir" || exit 1
if ! test -f .clang-format; then
	echo "check-format: $top_srcdir/.clang-format is missing" >&2
	exit 1
fi

files=$(sh build-aux/format.sh --list) || exit 1
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT

n=0
bad=
spdx=
for f in $files; do
	n=$((n + 1))
	if test "$(head -n 1 "$f")" != "/* SPDX-License-Identifier: MIT */"; then
		spdx="$spdx $f"
	fi
	if $CLANG_FORMAT --style=file --dry-run -Werror "$f" 2>/dev/null; then
		continue
	fi
	bad="$bad $f"
	if $CLANG_FORMAT --style=file "$f" >"$tmp"; then
		echo "--- $f: expected formatting (first 40 lines of the diff)"
		diff -u "$f" "$tmp" | sed -e '1,2d' | head -n 40
	else
		echo "check-format: $CLANG_FORMAT failed on $f"
	fi
done

if test -n "$spdx"; then
	echo "check-format: these do not open with /* SPDX-License-Identifier: MIT */:"
	for f in $spdx; do
		echo "  $f"
	done
	bad="$bad$spdx"
fi
if test -n "$bad"; then
	echo
	echo "check-format: not formatted as .clang-format says:"
	for f in $bad; do
		echo "  $f"
	done
	echo "check-format: run build-aux/format.sh to reformat them"
	exit 1
fi
echo "check-format: $n files formatted"
exit 0
