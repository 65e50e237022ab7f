#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks the layering of HACKING.md section 1: every file under lib/X/
# includes private headers only of its own layer or of layers listed
# above X in the table of layers (lib/core/ first), so that no layer
# calls up. The order is read from HACKING.md itself, so the table and
# the code cannot drift apart.
: "${top_srcdir:=.}"
cd "$top_srcdir" || exit 1

order=$(sed -n 's/^| *\([a-z]*\) *| *`lib\/\([a-z]*\)\/` *|.*/\2/p' HACKING.md)
if test -z "$order"; then
	echo "check-layers: no table of layers in HACKING.md" >&2
	exit 1
fi

# The rank of a layer in the table, empty when it is not listed.
rank_of()
{
	echo "$order" | grep -n -x "$1" | cut -d: -f1
}

fail=0
for dir in lib/*/; do
	layer=$(basename "$dir")
	rank=$(rank_of "$layer")
	if test -z "$rank"; then
		echo "check-layers: lib/$layer/ is not in the table of HACKING.md section 1"
		fail=$((fail + 1))
		continue
	fi
	for f in "$dir"*.c "$dir"*.h; do
		test -f "$f" || continue
		for used in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u); do
			test "$used" = "$layer" && continue
			r=$(rank_of "$used")
			if test -z "$r"; then
				echo "check-layers: $f includes from lib/$used/, which is not a layer"
				fail=$((fail + 1))
			elif test "$r" -gt "$rank"; then
				echo "check-layers: $f ($layer) includes from $used, a layer below it"
				fail=$((fail + 1))
			fi
		done
	done
done
n=$(echo "$order" | wc -l)
if test "$fail" -ne 0; then
	echo "check-layers: $fail include(s) against the order of $n layers"
	exit 1
fi
echo "check-layers: $n layers, every include goes up the table"
