#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end runs of shape-run: every example graph sharded on 8 ranks of
# the threads backend must match the single-device run, step after step on
# one plan (ffn.sg with b = 8, 64 and 40 in one invocation); a binding
# that violates a declaration is rejected and runs nothing; a number of
# ranks the graph does not allow is refused, one it allows runs; with
# tolerances below float rounding a run reports its mismatch; usage
# errors exit with status 2. With MPI (RUN_MPI=yes), 8 processes under
# mpirun must run the same steps with the same verdicts and the same
# differences from one device, to the last digit printed, as the threads
# backend (both sum in rank order, sym_comm(3), and both give a rank one
# BLAS thread). One process that cannot read its file, or rejects its
# binding, must make all 8 stop with its error and status instead of
# leaving them waiting; every mpirun runs within a time limit, so that a
# hang fails the test.
#
# Usage: tests/check-run.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, when set, is put in front of the tool
# (valgrind), but not under mpirun; SYM_MPI_TIMEOUT, the time limit of
# an mpirun in seconds (default 120).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${MPIRUN:=mpirun}"
LC_ALL=C
export LC_ALL

tool=$top_builddir/shape-run
if ! test -x "$tool"; then
	echo "check-run: $tool is not built" >&2
	exit 1
fi
cd "$top_srcdir" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=
n=0

# run NAME ARGS...: run the tool with ARGS into $tmp/NAME.out, .err and
# .status.
run()
{
	name=$1
	shift
	$SYM_TEST_WRAPPER "$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.status"
}

# fail NAME WHY: record a failure of case NAME and show its output.
fail()
{
	echo "FAIL: $1: $2"
	sed 's/^/  out: /' "$tmp/$1.out"
	sed 's/^/  err: /' "$tmp/$1.err"
	failed="$failed $1"
}

# match NAME STEPS ARGS...: the run must exit 0 with STEPS lines ending in
# "ok", no MISMATCH and nothing on the standard error.
match()
{
	name=$1
	steps=$2
	shift 2
	n=$((n + 1))
	run "$name" "$@"
	got=$(grep -c ' ok$' "$tmp/$name.out")
	if test "$(cat "$tmp/$name.status")" -ne 0; then
		fail "$name" "exit status $(cat "$tmp/$name.status"), not 0"
	elif test "$got" -ne "$steps"; then
		fail "$name" "$got steps ok, not $steps"
	elif grep -q MISMATCH "$tmp/$name.out"; then
		fail "$name" "a step does not match"
	elif test -s "$tmp/$name.err"; then
		fail "$name" "unexpected standard error"
	else
		echo "ok: $name: $steps step(s) match"
	fi
}

# refuse NAME STATUS TEXT ARGS...: the run must exit with STATUS, print
# TEXT (a fixed string) on the standard error and nothing on the standard
# output: nothing ran.
refuse()
{
	name=$1
	status=$2
	text=$3
	shift 3
	n=$((n + 1))
	run "$name" "$@"
	if test "$(cat "$tmp/$name.status")" -ne "$status"; then
		fail "$name" "exit status $(cat "$tmp/$name.status"), not $status"
	elif ! grep -q -F -- "$text" "$tmp/$name.err"; then
		fail "$name" "no '$text' on the standard error"
	elif test -s "$tmp/$name.out"; then
		fail "$name" "something ran"
	else
		echo "ok: $name: refused with status $status"
	fi
}

# mismatch NAME ARGS...: the run must exit 1 with a MISMATCH step and
# its summary: the comparison does fail on differences beyond tolerance.
mismatch()
{
	name=$1
	shift
	n=$((n + 1))
	run "$name" "$@"
	if test "$(cat "$tmp/$name.status")" -ne 1; then
		fail "$name" "exit status $(cat "$tmp/$name.status"), not 1"
	elif ! grep -q ' MISMATCH$' "$tmp/$name.out" ||
	    ! grep -q 'elements beyond tolerance' "$tmp/$name.out"; then
		fail "$name" "no MISMATCH step"
	else
		echo "ok: $name: mismatch found"
	fi
}

# The dynamic-shape case: three batch sizes on one plan.
match ffn 3 examples/ffn.sg --bind b=8 --bind b=64 --bind b=40
match layout 1 examples/layout.sg
# The layout plan the search finds on two nodes (a dimension over two
# axes in reverse order), pasted back as clauses, trains like one device.
match layout_plan 2 tests/golden/data/layout-mlp.sg --bind b=64 \
    --bind b=1256
match tp_mlp 1 examples/tp_mlp.sg --bind b=8
match megatron 3 examples/megatron.sg --bind b=2,s=8 --bind b=4,s=16 \
    --bind b=2,s=24
match seqpar 3 examples/seqpar.sg --bind b=2,s=8 --bind b=4,s=16 \
    --bind b=2,s=24
match redist_all 2 examples/redist_all.sg --bind n=8 --bind n=24
# generators (no input) sharded and replicated build a causal mask on a
# symbolic s: each rank generates its block from the global index
match causal_mask 3 examples/causal_mask.sg --bind b=2,s=8 --bind b=4,s=12 \
    --bind b=2,s=4
# A training graph: the loss and every param's gradient, sharded, equal
# one device's to 1e-9 (f64) at three batch sizes on one plan.
match mlp_train 3 examples/mlp_train.sg --bind b=2 --bind b=6 --bind b=4 \
    --rtol 1e-9 --atol 1e-9
# The tutorial network as a training graph: the loss and the gradients of
# w1, w2 and w3, with their mirror all_reduces, at three batch sizes.
match ffn_train 3 examples/ffn_train.sg --bind b=8 --bind b=64 --bind b=40
# The full-size block (hidden 768, s >= 128) takes under a second but 300
# MB, and minutes under valgrind, where megatron.sg covers its operators.
if test -z "$SYM_TEST_WRAPPER"; then
	match transformer 1 examples/transformer.sg --bind b=8,s=128
else
	echo "transformer: not run under SYM_TEST_WRAPPER (too slow there)"
fi
# A number of ranks the graph allows: megatron's strategies on 16 ranks
# (every layout replicated twice as much).
match megatron-16 1 examples/megatron.sg --ranks 16 --bind b=2,s=8

# Rejected bindings and ranks, usage errors: nothing runs.
refuse ffn-b12 1 'b = 12 violates divisor=8 declared at examples/ffn.sg:3:8' \
    examples/ffn.sg --bind b=8 --bind b=12
refuse layout-4 1 'examples/layout.sg cannot run on 4 ranks' \
    examples/layout.sg --ranks 4
refuse ffn-nobind 2 'give b with --bind' examples/ffn.sg
refuse ffn-unknown 2 "unknown symbol 'q'" examples/ffn.sg --bind q=8
refuse ffn-twice 2 "b is given twice" examples/ffn.sg --bind b=8,b=16
refuse usage-rtol 2 "--rtol expects a positive number" examples/ffn.sg \
    --bind b=8 --rtol 0

# Buffers beyond any machine (6.4 PiB for the blocks of one rank): one
# clear message, exit 2, refused before anything is allocated and naming
# the limit (the machine's memory), the bytes needed and the largest
# block (h2, 800000000000 x 512 f32: 1638400000000000 bytes).
n=$((n + 1))
(
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
	export ASAN_OPTIONS
	run ffn-huge examples/ffn.sg --bind b=800000000000
)
want="shape-run: b = 800000000000: the run failed: rank 0: memory limit:"
want2='GiB of memory of this machine; the largest is f32[800000000000, 512]'
want2="$want2 of h2, 1638400000000000 bytes"
if test "$(cat "$tmp/ffn-huge.status")" -ne 2; then
	fail ffn-huge "exit status $(cat "$tmp/ffn-huge.status"), not 2"
elif ! grep -q -F -- "$want" "$tmp/ffn-huge.err" ||
    ! grep -q -F -- "$want2" "$tmp/ffn-huge.err"; then
	fail ffn-huge "no '$want ... $want2' on the standard error"
elif grep -q 'out of memory' "$tmp/ffn-huge.err" ||
    test "$(grep -c 'memory limit' "$tmp/ffn-huge.err")" -ne 1; then
	fail ffn-huge "not told once, as a memory limit"
else
	echo "ok: ffn-huge: the memory limit, told once with the block's size"
fi

# Threads the system will not start (2048 ranks in a process whose
# address space cannot hold their stacks): one message that names the
# rank and the limit, exit 2, and the ranks already started released
# instead of left waiting. Not under valgrind, whose own address space
# needs are larger; a sanitizer that cannot start under the limit skips.
if test -z "$SYM_TEST_WRAPPER"; then
	n=$((n + 1))
	printf '%s\n' 'devices 2048' 'symbol b divisor=2048' \
	    'input x : f32[b, 64]' 'param w : f32[64, 64]' \
	    'y = matmul(x, w) shard ((2048, 1), (1, 1))' \
	    's = reduce_sum(y, axis=0) shard ((2048, 1),)' 'output s' \
	    >"$tmp/ranks2048.sg"
	(
		ulimit -s 8192 && ulimit -v 400000 || exit 1
		run thread-limit "$tmp/ranks2048.sg" --bind b=2048 --quiet
	)
	want='the run failed: check: cannot start the thread of rank'
	want2="(the system's limit of threads or of memory for their stacks"
	if grep -q 'Sanitizer' "$tmp/thread-limit.err"; then
		echo "skip: thread-limit: the sanitizer does not start under" \
		    "the limit"
	elif test "$(cat "$tmp/thread-limit.status")" != 2; then
		fail thread-limit \
		    "exit status $(cat "$tmp/thread-limit.status"), not 2"
	elif ! grep -q -F -- "$want" "$tmp/thread-limit.err" ||
	    ! grep -q -F -- "$want2" "$tmp/thread-limit.err"; then
		fail thread-limit "no '$want ... $want2' on the standard error"
	else
		echo "ok: thread-limit: the rank that did not start, and why"
	fi
fi

# Tolerances far below float rounding: the all_reduces of the sharded
# block sum in another order than one device does, so the run must report
# a mismatch (and an ordinary tolerance still matches).
mismatch megatron-exact examples/megatron.sg --bind b=2,s=8 \
    --rtol 1e-12 --atol 1e-12
match megatron-rtol 1 examples/megatron.sg --bind b=2,s=8 --rtol 1e-3
refuse usage-ranks 2 "--ranks expects an integer" examples/ffn.sg \
    --ranks 0 --bind b=8
refuse usage-option 2 "unknown option '--frobnicate'" examples/ffn.sg \
    --frobnicate
refuse usage-backend 2 "--backend expects threads or mpi" \
    examples/ffn.sg --backend nccl --bind b=8

# redist_all.sg must go on using every kind of step the planner emits
# (shape-check's JSON report; broadcast is never emitted).
n=$((n + 1))
missing=
json=$($SYM_TEST_WRAPPER "$top_builddir/shape-check" --json \
    examples/redist_all.sg)
for kind in slice all_to_all permute all_gather all_reduce reduce_scatter; do
	if ! printf '%s\n' "$json" | grep -q "\"kind\": \"$kind\""; then
		missing="$missing $kind"
	fi
done
if test -n "$missing"; then
	echo "FAIL: redist_all.sg: no step of kind$missing"
	failed="$failed redist_all-kinds"
else
	echo "ok: redist_all.sg: every kind of step"
fi

# No example mismatches, so the failing path rests on the executor's own
# tests (corrupted plans); here the summary line of a match is checked.
if ! grep -q '^3 steps: every output matches the single-device run$' \
    "$tmp/ffn.out"; then
	fail ffn "no summary line"
fi
# The times of a step are of one cold run, and the line says so.
if test "$(grep -c ' cold run: sharded .* single .* ok$' "$tmp/ffn.out")" \
    -ne 3; then
	fail ffn "a step's times are not labelled as one cold run"
fi

# The mpi backend: 8 processes must run the steps the threads backend
# runs, with the same verdicts; without MPI, a clear error.
# verdicts FILE: each step's binding and verdict.
verdicts()
{
	sed -n 's/^  \(.*[^ ]\) *max abs .* \(ok\|MISMATCH\)$/\1: \2/p' "$1"
}
# differences FILE: each step's differences.
differences()
{
	sed -n 's/^ *\(.*max rel [^ ]*\) .*$/\1/p' "$1"
}
if test "x$RUN_MPI" = xyes; then
	n=$((n + 1))
	root=
	if test "$(id -u)" = 0; then
		root=--allow-run-as-root
	fi
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/openmpi.supp"
	export ASAN_OPTIONS LSAN_OPTIONS
	limit=${SYM_MPI_TIMEOUT:-120}
	lt=$top_builddir/libtool
	# mpi NAME ARGS...: mpirun ARGS (parts that run the tool, separated
	# by ':') within the time limit, into $tmp/NAME.out, .err, .status.
	mpi()
	{
		name=$1
		shift
		sh "$top_srcdir/tests/with-timeout.sh" "$limit" \
		    "$MPIRUN" $root --oversubscribe "$@" \
		    >"$tmp/$name.out" 2>"$tmp/$name.err"
		echo $? >"$tmp/$name.status"
	}
	# lone NAME STATUS TEXT ARGS...: mpi NAME ARGS, where one process
	# fails alone: every process must stop, mpirun exiting with STATUS
	# within the time limit, rank 0 printing TEXT (a fixed string) on
	# the standard error, and no step may run.
	lone()
	{
		name=$1
		status=$2
		text=$3
		shift 3
		n=$((n + 1))
		mpi "$name" "$@"
		if test "$(cat "$tmp/$name.status")" -eq 124; then
			fail "$name" "still running after $limit s: stopped"
		elif test "$(cat "$tmp/$name.status")" -ne "$status"; then
			fail "$name" \
			    "exit status $(cat "$tmp/$name.status"), not $status"
		elif ! grep -q -F -- "$text" "$tmp/$name.err"; then
			fail "$name" "no '$text' on the standard error"
		elif grep -q ' ok$' "$tmp/$name.out"; then
			fail "$name" "a step ran"
		else
			echo "ok: $name: every process stopped with status $status"
		fi
	}
	run ffn-2 examples/ffn.sg --bind b=8 --bind b=40
	mpi mpi -n 8 "$lt" --mode=execute "$tool" --backend mpi \
	    examples/ffn.sg --bind b=8 --bind b=40
	verdicts "$tmp/ffn-2.out" >"$tmp/threads.verdicts"
	verdicts "$tmp/mpi.out" >"$tmp/mpi.verdicts"
	if test "$(cat "$tmp/mpi.status")" -eq 124; then
		fail mpi "still running after $limit s: stopped"
	elif test "$(cat "$tmp/mpi.status")" -ne 0; then
		fail mpi "exit status $(cat "$tmp/mpi.status")"
	elif test "$(grep -c ' ok$' "$tmp/mpi.out")" -ne 2; then
		fail mpi "not 2 steps ok"
	elif ! cmp -s "$tmp/threads.verdicts" "$tmp/mpi.verdicts"; then
		fail mpi "steps or verdicts other than the threads backend's"
		diff "$tmp/threads.verdicts" "$tmp/mpi.verdicts"
	elif differences "$tmp/ffn-2.out" >"$tmp/threads.diffs" &&
	    differences "$tmp/mpi.out" >"$tmp/mpi.diffs" &&
	    ! cmp -s "$tmp/threads.diffs" "$tmp/mpi.diffs"; then
		fail mpi "differences from one device other than threads'"
		diff "$tmp/threads.diffs" "$tmp/mpi.diffs"
	else
		echo "ok: mpi: 8 processes run the threads backend's steps"
	fi
	lone mpi-unreadable 2 \
	    'shape-run: rank 3: cannot open examples/missing.sg' \
	    -n 3 "$lt" --mode=execute "$tool" --backend mpi examples/ffn.sg \
	    --bind b=8 : \
	    -n 1 "$lt" --mode=execute "$tool" --backend mpi \
	    examples/missing.sg --bind b=8 : \
	    -n 4 "$lt" --mode=execute "$tool" --backend mpi examples/ffn.sg \
	    --bind b=8
	lone mpi-rejected 1 \
	    'shape-run: rank 5: b = 12: rejected: b = 12 violates divisor=8' \
	    -n 5 "$lt" --mode=execute "$tool" --backend mpi examples/ffn.sg \
	    --bind b=8 : \
	    -n 1 "$lt" --mode=execute "$tool" --backend mpi examples/ffn.sg \
	    --bind b=12 : \
	    -n 2 "$lt" --mode=execute "$tool" --backend mpi examples/ffn.sg \
	    --bind b=8
	# One process of 8 that would run something else: every process
	# stops before the first step, naming the rank and what differs
	# (without the check, the first three hang and the last mismatches).
	# differ NAME TEXT ARGS...: rank 3 runs the tool with ARGS, the
	# others examples/ffn.sg --bind b=8.
	differ()
	{
		name=$1
		text=$2
		shift 2
		lone "$name" 2 "shape-run: rank 3 runs a different plan ($text)" \
		    -n 3 "$lt" --mode=execute "$tool" --backend mpi \
		    examples/ffn.sg --bind b=8 : \
		    -n 1 "$lt" --mode=execute "$tool" --backend mpi "$@" : \
		    -n 4 "$lt" --mode=execute "$tool" --backend mpi \
		    examples/ffn.sg --bind b=8
	}
	mkdir "$tmp/other" || exit 1
	sed 's/shard ((2, 4), (4, 1))/shard ((4, 2), (2, 1))/' \
	    examples/ffn.sg >"$tmp/other/shard.sg"
	sed 's/^output loss$/output loss\noutput a1/' examples/ffn.sg \
	    >"$tmp/other/output.sg"
	sed 's/w3 : f32\[512, 10\]/w3 : f32[512, 16]/' examples/ffn.sg \
	    >"$tmp/other/shape.sg"
	differ mpi-shard "the plan differs from rank 0's" \
	    "$tmp/other/shard.sg" --bind b=8
	differ mpi-output "the plan differs from rank 0's" \
	    "$tmp/other/output.sg" --bind b=8
	differ mpi-shape "the plan differs from rank 0's" \
	    "$tmp/other/shape.sg" --bind b=8
	differ mpi-steps "the --bind steps differ from rank 0's" \
	    examples/ffn.sg --bind b=8 --bind b=16
	differ mpi-seed "the seed differs from rank 0's" examples/ffn.sg \
	    --bind b=8 --seed 2
	differ mpi-steps-seed \
	    "the --bind steps and the seed differ from rank 0's" \
	    examples/ffn.sg --bind b=16 --seed 2
else
	refuse no-mpi 2 'built without MPI' examples/ffn.sg --backend mpi \
	    --bind b=8
fi

# searched NAME PIECE COMM ARGS...: a run of a graph whose strategies
# the search chooses must match one device at every step, say on the
# standard error which piece runs (PIECE, "4 operators: piece 2 of 5,
# 1248 <= b <= 4432") and nothing else there, and have communication
# steps when COMM is yes, none when it is no.
searched()
{
	name=$1
	piece=$2
	comm=$3
	shift 3
	n=$((n + 1))
	run "$name" "$@"
	if test "$(cat "$tmp/$name.status")" -ne 0; then
		fail "$name" "exit status $(cat "$tmp/$name.status"), not 0"
	elif grep -q MISMATCH "$tmp/$name.out"; then
		fail "$name" "a step does not match"
	elif test "$(cat "$tmp/$name.err")" != \
	    "shape-run: searched $piece, runs"; then
		fail "$name" "not the notice of $piece"
	elif test $comm = yes && grep -q ' 0 communication steps' \
	    "$tmp/$name.out"; then
		fail "$name" "the plan does not communicate"
	elif test $comm = no && ! grep -q ' 0 communication steps' \
	    "$tmp/$name.out"; then
		fail "$name" "the plan communicates"
	else
		echo "ok: $name: $piece matches one device"
	fi
}

# The searched plans run: the piece of the first --bind runs every step
# (any admissible size: each piece's plan is valid for all of them).
# Their sizes are large: under valgrind (SYM_TEST_WRAPPER) these cases
# run the tool bare, as the unit tests check the search's memory.
wrapper=$SYM_TEST_WRAPPER
SYM_TEST_WRAPPER=
searched search-replicated "4 operators: piece 1 of 5, 64 <= b <= 1240" no \
    examples/auto_mlp.sg --bind b=64 --bind b=2048
searched search-weights "4 operators: piece 2 of 5, 1248 <= b <= 4432" yes \
    examples/auto_mlp.sg --bind b=2048 --bind b=64 --bind b=1256
searched search-mixed "4 operators: piece 3 of 5, 4440 <= b <= 7368" yes \
    examples/auto_mlp.sg --bind b=4440 --bind b=72
searched search-flag "4 operators: piece 2 of 5, 1248 <= b <= 4432" yes \
    examples/auto_mlp.sg --auto --bind b=2048
# the search lays the generators of a causal mask out like their consumers
searched search-generators \
    "8 operators: piece 1 of 5, 2 <= b <= 4326369388, 4 <= s <= 652" yes \
    examples/causal_mask.sg --auto --bind b=2,s=8 --bind b=6,s=20
# over two symbols: the piece covering b = 64, t = 2 (breakpoints at
# numbers of tokens b*t) runs the other sizes too
searched search-tokens "6 operators: piece 6 of 17, 32 <= b <= 112, t = 2" \
    yes tests/golden/search-tokens.sg --bind b=64,t=2 --bind b=8,t=4 \
    --bind b=128,t=1
refuse search-params 1 'memory=1024 bytes is below what the parameters' \
    examples/auto_mlp.sg --memory 1KiB --bind b=64
refuse search-nofit 1 "no plan fits memory=1048576 bytes at any level of \
optimizer_shard (0, 1, 2, 3) for b in" \
    examples/auto_mlp.sg --memory 1MiB --bind b=64
refuse search-memory 2 '--memory expects a positive number of bytes' \
    examples/auto_mlp.sg --memory 12XB --bind b=64
SYM_TEST_WRAPPER=$wrapper

if test -n "$failed"; then
	echo "check-run: failed:$failed"
	exit 1
fi
echo "check-run: $n cases as expected"
exit 0
