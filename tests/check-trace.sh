#!/bin/sh
# SPDX-License-Identifier: MIT
# SYMSHARD_TRACE (lib/core/trace.h): with SYMSHARD_TRACE=search,
# shape-check --auto on examples/auto_mlp.sg prints the search's
# decisions on standard error: the default plan priced first (plan 0,
# every operator unsplit, with its time and memory as expressions of b),
# a choice per sampled size, and one "piece" line per piece of the
# report, whose ranges are those the report prints. The report on
# standard output is unchanged by the trace, and without the variable
# (or with a word it does not know) nothing is traced.
#
# Usage: tests/check-trace.sh
# Environment (set by make check): top_srcdir, top_builddir.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

tool=$top_builddir/shape-check
graph=$top_srcdir/examples/auto_mlp.sg
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=

fail()
{
	echo "check-trace: FAIL: $*" >&2
	failed=yes
}

SYMSHARD_TRACE= "$tool" "$graph" >"$tmp/plain.out" 2>"$tmp/plain.err" ||
	fail "shape-check without trace exited $?"
SYMSHARD_TRACE=search "$tool" "$graph" >"$tmp/trace.out" \
    2>"$tmp/trace.err" || fail "shape-check with trace exited $?"
SYMSHARD_TRACE=nothing,else "$tool" "$graph" >"$tmp/other.out" \
    2>"$tmp/other.err" || fail "shape-check with unknown words exited $?"

# The report, less the search's measured time.
for f in plain trace; do
	sed 's/priced in [0-9.]* s/priced in T s/' "$tmp/$f.out" >"$tmp/$f.cut"
done
cmp -s "$tmp/plain.cut" "$tmp/trace.cut" ||
	fail "the trace changed the report"
grep -q 'symshard trace' "$tmp/plain.err" "$tmp/other.err" &&
	fail "traced without SYMSHARD_TRACE=search"

first=$(grep 'symshard trace' "$tmp/trace.err" | head -n 1)
want='symshard trace: search: plan 0: h=((1, 1), (1, 1)) a=((1, 1),) o=((1, 1), (1, 1)) loss=((1, 1), (1,)): time 26270720*b + 20971530 fs, memory 34308*b + 6291464 bytes'
test "$first" = "$want" ||
	fail "first trace line is '$first', not the default plan '$want'"
grep -q '^symshard trace: search: at b = 64: plan 0$' "$tmp/trace.err" ||
	fail "no choice traced at b = 64"
grep -v '^symshard trace: search: ' "$tmp/trace.err" | grep . &&
	fail "standard error holds lines other than the trace"

# The pieces of the last cut traced (each cut numbers its pieces from 0),
# "lo hi", against the ranges the report prints, "lo <= b <= hi".
sed -n 's/^symshard trace: search: piece \([0-9]*\): b in \[\([0-9]*\), \([0-9]*\)\].*/\1 \2 \3/p' \
    "$tmp/trace.err" | awk '$1 == 0 { n = 0 } { p[n++] = $2 " " $3 }
    END { for (i = 0; i < n; i++) print p[i] }' >"$tmp/traced"
sed -n 's/^  piece [0-9]*: \([0-9]*\) <= b <= \([0-9]*\):.*/\1 \2/p' \
    "$tmp/trace.out" >"$tmp/reported"
n=$(wc -l <"$tmp/traced")
test "$n" -ge 2 || fail "$n pieces traced, expected at least 2"
cmp -s "$tmp/traced" "$tmp/reported" ||
	fail "pieces traced ($(tr '\n' ';' <"$tmp/traced")) are not those reported ($(tr '\n' ';' <"$tmp/reported"))"

test -z "$failed" || exit 1
echo "check-trace: $n pieces traced, report unchanged"
