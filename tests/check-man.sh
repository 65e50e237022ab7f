#!/bin/sh
# Lints every man page with mandoc -Tlint -Wwarning; any message fails.
#
# Environment (set by make check): top_srcdir, MANDOC.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${MANDOC:=mandoc}"

cd "$top_srcdir" || exit 1
pages=$(ls man/*.[0-9] 2>/dev/null)
if test -z "$pages"; then
	echo "check-man: no man pages in $top_srcdir/man" >&2
	exit 1
fi

out=$($MANDOC -Tlint -Wwarning $pages 2>&1)
status=$?
if test -n "$out" || test "$status" -ne 0; then
	printf '%s\n' "$out"
	echo "check-man: mandoc -Tlint -Wwarning reported problems (status $status)"
	exit 1
fi
echo "check-man: $(echo $pages | wc -w) pages clean"
exit 0
