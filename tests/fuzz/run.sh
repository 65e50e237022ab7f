#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs each libFuzzer target (built by configure --enable-fuzzers) for a
# number of seconds, seeded from tests/fuzz/corpus-TARGET/, from the
# inputs kept in tests/fuzz/regress/ (regress/TARGET/ for the pipeline
# and inputs targets), from the graph files of tests/golden/ and
# examples/ (graph and pipeline), and from the topology files and rank
# tables of tests/golden/data/ (inputs, behind their selector byte). New
# interesting inputs go to a work corpus under the build directory;
# crashes, leaks and timeouts are written to tests/fuzz/findings/ there,
# to be kept in tests/fuzz/regress/ once fixed (tests/test_fuzz_regress
# replays them).
#
# Each target runs in libFuzzer's fork mode, so that a finding (written
# to findings/ as crash-*, timeout-* or oom-*) does not end the run.
#
# Usage: tests/fuzz/run.sh [SECONDS [TARGET...]]
#        (default: 60 seconds, targets graph, expr, pipeline, inputs and
#        corpus;
#        run from the build directory, or set top_srcdir and
#        top_builddir; FUZZ_FLAGS adds libFuzzer options)
# Exit status: 0 when no target found anything, 1 otherwise.

seconds=${1:-60}
test $# -gt 0 && shift
targets=${*:-graph expr pipeline inputs corpus onnx}
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
fuzz_dir=$top_builddir/tests/fuzz
status=0

for t in $targets; do
	bin=$fuzz_dir/fuzz_$t
	if ! test -x "$bin"; then
		echo "run.sh: $bin is missing:" \
		    "configure CC=clang --enable-fuzzers; make" >&2
		exit 2
	fi
	work=$fuzz_dir/work-$t
	seeds=$fuzz_dir/seeds-$t
	findings=$fuzz_dir/findings/$t
	mkdir -p "$work" "$seeds" "$findings" || exit 2
	case $t in
	graph | pipeline)
		for f in "$top_srcdir"/tests/golden/*.sg \
		    "$top_srcdir"/tests/golden/data/*.sg \
		    "$top_srcdir"/examples/*.sg; do
			test -f "$f" && cp "$f" "$seeds/"
		done
		;;
	inputs)
		for f in "$top_srcdir"/tests/golden/data/*.topo; do
			test -f "$f" || continue
			{ printf 4; cat "$f"; } >"$seeds/topology-${f##*/}"
		done
		for f in "$top_srcdir"/tests/golden/data/*.json; do
			test -f "$f" || continue
			{ printf 5; cat "$f"; } >"$seeds/rank-table-${f##*/}"
		done
		;;
	esac
	set -- "$work" "$seeds"
	test -d "$top_srcdir/tests/fuzz/corpus-$t" &&
	    set -- "$@" "$top_srcdir/tests/fuzz/corpus-$t"
	for regress in "$top_srcdir/tests/fuzz/regress" \
	    "$top_srcdir/tests/fuzz/regress/$t"; do
		{ test "$t" = inputs || test "$t" = onnx; } &&
		    test "$regress" != "${regress%/regress}" &&
		    continue
		test -d "$regress" && set -- "$@" "$regress"
	done
	dict=
	test -f "$top_srcdir/tests/fuzz/$t.dict" &&
	    dict=-dict=$top_srcdir/tests/fuzz/$t.dict
	echo "run.sh: fuzz_$t for $seconds s"
	if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
	    -max_len=8192 -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
	    -ignore_ooms=1 $dict $FUZZ_FLAGS \
	    -artifact_prefix="$findings/" "$@"; then
		status=1
	fi
	if test -n "$(ls "$findings")"; then
		echo "run.sh: fuzz_$t found problems: see $findings/" >&2
		status=1
	fi
done
exit $status
