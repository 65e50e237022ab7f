#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that the shared library exports exactly the symbols listed in
# tests/exports.txt (sorted, one a line): a new public function must be
# added there on purpose, and nothing internal (sym__*) may leak; and
# that the public headers annotate every pointer result (check_headers).
#
# Usage: check-exports.sh          compare (make check runs it)
#        check-exports.sh --print  print the exported symbols
# Environment (set by make check): top_srcdir, top_builddir, NM.
# After a deliberate change to the API, run tests/update-exports.sh.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
: "${NM:=nm}"

lib=$top_builddir/.libs/libsymshard.so
expected=$top_srcdir/tests/exports.txt

if ! test -f "$lib"; then
	echo "check-exports: $lib not found: build the shared library first" >&2
	exit 1
fi

# Defined dynamic symbols of types T, D, B, R, without symbol versions and
# without what the linker adds by itself.
list_exports()
{
	$NM -D --defined-only "$lib" |
	    awk 'NF >= 3 && $2 ~ /^[TDBR]$/ { sub(/@.*/, "", $3); print $3 }' |
	    grep -v -x -E '_init|_fini|_edata|_end|__bss_start' |
	    LC_ALL=C sort -u
}

# The contract of the headers (symshard(3), "Ownership"): every function
# that returns a pointer says who owns it (SYM_GIVE, SYM_KEEP, or SYM_NULL
# for the free functions), and a borrowed reference-counted object
# (expression, shape, mesh, layout) is returned const, so that passing it
# where a reference is taken does not compile silently.
check_headers()
{
	cat "$top_srcdir"/include/symshard/*.h | awk '
	/^SYM_EXPORT / { decl = ""; on = 1 }
	on { decl = decl " " $0 }
	on && /;/ {
		on = 0
		gsub(/[ \t]+/, " ", decl)
		head = decl
		sub(/\(.*/, "", head)
		if (head !~ /\*/)
			next
		if (head !~ /SYM_(GIVE|KEEP|NULL) /)
			print "no ownership annotation on the result:" head
		else if (head ~ /SYM_KEEP sym_(expr|shape|mesh|layout) \*/)
			print "a borrowed object returned without const:" head
	}'
}

if test "x$1" = x--print; then
	list_exports
	exit $?
fi

bad=$(check_headers)
if test -n "$bad"; then
	echo "check-exports: the public headers break their contract:"
	echo "$bad"
	exit 1
fi

actual=$(mktemp) || exit 1
trap 'rm -f "$actual" "$actual.diff"' EXIT
list_exports >"$actual" || exit 1

if diff -u "$expected" "$actual" >"$actual.diff"; then
	rm -f "$actual.diff"
	echo "check-exports: $(wc -l <"$actual") exported symbols match tests/exports.txt"
	exit 0
fi
echo "check-exports: the exported symbols differ from tests/exports.txt"
echo "  lines with '+' are exported but not listed;"
echo "  lines with '-' are listed but not exported."
echo "  If the change is intended, run tests/update-exports.sh and commit it."
sed -e '1,2d' -e '/^@@/d' "$actual.diff"
rm -f "$actual.diff"
exit 1
