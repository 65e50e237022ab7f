#!/bin/sh
# SPDX-License-Identifier: MIT
# Lints every man page with mandoc -Tlint -Wwarning; any message fails.
# Then checks that every exported function has its page.
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
# Every page (sections 1, 3, 5 and 7) is installed: listed in
# dist_man_MANS.
uninstalled=
for page in $pages; do
	grep -Eq "^[[:space:]]+$page( \\\\)?\$" Makefile.am ||
		uninstalled="$uninstalled $page"
done
if test -n "$uninstalled"; then
	echo "check-man: pages missing from dist_man_MANS in Makefile.am:$uninstalled"
	exit 1
fi
# Every exported function (tests/exports.txt) is named in the NAME
# section of exactly one section-3 page and has a SYNOPSIS there.
missing=$(awk '
	FNR == 1 { page = FILENAME }
	page == "tests/exports.txt" { want[$1] = 1; next }
	/^\.Sh / { sec = $2; next }
	sec == "NAME" && $1 == ".Nm" { sub(/,$/, "", $2); named[$2]++ }
	sec == "SYNOPSIS" && ($1 == ".Fo" || $1 == ".Fn") { syn[$2]++ }
	END {
		for (f in want)
			if (named[f] != 1 || syn[f] != 1)
				printf " %s(named in %d, synopsis in %d)", f,
				    named[f], syn[f]
	}' tests/exports.txt man/*.3)
if test -n "$missing"; then
	echo "check-man: exported functions not documented in exactly one page:$missing"
	exit 1
fi
# One page per public header: the functions a header of
# include/symshard/ declares are all named by one section-3 page, and no
# page names the functions of two headers (symshard.3, the overview, has
# those of common.h and version.h).
pending=""
split=$(for h in include/symshard/*.h; do
	awk -v h="${h##*/}" '
	/^SYM_EXPORT / { decl = ""; on = 1 }
	on { decl = decl " " $0 }
	on && /;/ {
		on = 0
		sub(/\(.*/, "", decl)
		n = split(decl, w, /[ \t*]+/)
		print w[n], h
	}' "$h"
done | awk '
	FILENAME == "-" { header[$1] = $2; next }
	FNR == 1 { page = FILENAME; sub(/.*\//, "", page) }
	/^\.Sh / { sec = $2; next }
	sec == "NAME" && $1 == ".Nm" {
		f = $2
		sub(/,$/, "", f)
		if (f in header)
			pair[header[f] " " page] = 1
	}
	END {
		for (p in pair) {
			split(p, hp, " ")
			pages[hp[1]]++
			headers[hp[2]]++
			list[hp[1]] = list[hp[1]] " " hp[2]
		}
		for (h in pages)
			if (pages[h] != 1 && h != pending)
				printf " %s (pages%s)", h, list[h]
		for (p in headers)
			if (headers[p] != 1)
				printf " %s (names the functions of %d headers)",
				    p, headers[p]
	}' pending="$pending" - man/*.3)
if test -n "$split"; then
	echo "check-man: a public header and its page do not match one to one:$split"
	exit 1
fi
echo "check-man: $(echo $pages | wc -w) pages clean, $(wc -l <tests/exports.txt) exported functions documented"
exit 0
