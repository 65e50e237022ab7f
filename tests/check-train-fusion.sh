#!/bin/sh
# SPDX-License-Identifier: MIT
# Communication fusion (parallel fusion_bytes=N, DESIGN section 20)
# through shape-train, on small IDX files this script writes:
#  - tests/train/dp8.sg (six gradients all-reduced over all 8 ranks) and
#    tests/train/clf8.sg (two gradients over different groups) train 4
#    steps on 8 thread ranks with and without fusion to the same losses
#    and bitwise the same params and optimizer state (the checkpoints,
#    written under one file name, are compared byte for byte), at bucket
#    sizes that fuse some gradients (600), every one (1 MiB) and none
#    (4 bytes);
#  - --check (one device alongside) passes with fusion on;
#  - under optimizer_shard (levels 1 to 3, threshold 16 bytes) dp8's
#    gradients but b3's are reduce-scattered into their updates' shards,
#    w1's along dimension 1 (8 does not divide 6); fused, each rank's
#    part of a bucket is the concatenation of its chunks of each
#    gradient. shape-check shows the buckets (1 MiB: one reduce_scatter
#    of the five; 600: w3, b2 | w2, b1, w1 alone); with momentum, sgd
#    with momentum and adam, level 1 in 1 MiB buckets and levels 2 and 3
#    in 600-byte ones train bitwise as the unfused level, and --check
#    passes fused (level 3's all_gathers of params for their uses are
#    not fused);
#  - with MPI (RUN_MPI=yes), 8 processes under mpirun train the fused
#    graph to the losses and checkpoint of the unfused threads run, and
#    the fused reduce_scatters of adam at level 1 likewise.
#
# Usage: tests/check-train-fusion.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, SYM_MPI_TIMEOUT as tests/check-train.sh.

harness=check-train-fusion
. "$(dirname "$0")/train-harness.sh"

# Under valgrind (make check-valgrind sets SYM_TEST_WRAPPER) its training
# runs on 8 ranks would add minutes of CI; the sanitizer build runs this
# script whole, with leak checking, instead.
if test -n "${SYM_TEST_WRAPPER:-}"; then
	echo "$harness: skipped under valgrind (the sanitizer build runs it)"
	exit 77
fi

mkdir "$tmp/data" || exit 1
idx "$tmp/data" train 64
idx "$tmp/data" t10k 16
data=mnist:$tmp/data

# variant GRAPH DIR [BYTES]: GRAPH copied to DIR under its own name, with
# "parallel fusion_bytes=BYTES" appended when BYTES is given.
variant()
{
	mkdir -p "$2" || exit 1
	cp "$1" "$2/" || exit 1
	if test -n "$3"; then
		echo "parallel fusion_bytes=$3" >>"$2/$(basename "$1")"
	fi
}

# same NAME REF: case NAME trained to the losses and checkpoint of REF.
same()
{
	if ! losses "$2" >"$tmp/$2.losses" || ! losses "$1" >"$tmp/$1.losses" ||
	    test "$(wc -l <"$tmp/$1.losses")" -ne 4; then
		fail "$1" "not 4 steps"
	elif ! cmp -s "$tmp/$2.losses" "$tmp/$1.losses"; then
		fail "$1" "losses other than without fusion"
		paste "$tmp/$2.losses" "$tmp/$1.losses"
	elif ! cmp -s "$tmp/$2.st" "$tmp/$1.st"; then
		fail "$1" "params other than without fusion"
	else
		echo "ok: $1: bitwise the training without fusion"
	fi
}

for g in dp8 clf8; do
	variant "tests/train/$g.sg" "$tmp/$g-plain"
	ok "$g-plain" "$tmp/$g-plain/$g.sg" --dataset "$data" --batch 16 \
	    --steps 4 --json --quiet --save "$tmp/$g-plain.st"
	for bytes in 600 1MiB 4; do
		v=$g-$bytes
		variant "tests/train/$g.sg" "$tmp/$v" "$bytes"
		ok "$v" "$tmp/$v/$g.sg" --dataset "$data" --batch 16 \
		    --steps 4 --json --quiet --save "$tmp/$v.st" &&
		    same "$v" "$g-plain"
	done
	ok "$g-check" "$tmp/$g-600/$g.sg" --dataset "$data" --batch 16 \
	    --steps 4 --check --check-every 1 --quiet &&
	    echo "ok: $g-check: fused training equals one device"
done

# zvariant DIR OPTIMIZER LEVEL [BYTES]: tests/train/dp8.sg copied to DIR
# as dp8.sg, trained with OPTIMIZER, at optimizer_shard=LEVEL with a
# threshold of 16 bytes, fused in buckets of BYTES when given.
zvariant()
{
	mkdir -p "$1" || exit 1
	sed -e "s/^minimize loss with .*/minimize loss with $2/" \
	    tests/train/dp8.sg >"$1/dp8.sg" || exit 1
	printf 'parallel optimizer_shard=%s\nparallel optimizer_shard_min_bytes=16\n' \
	    "$3" >>"$1/dp8.sg"
	if test -n "${4:-}"; then
		echo "parallel fusion_bytes=$4" >>"$1/dp8.sg"
	fi
}

# buckets NAME DIR WANT: shape-check's report of DIR/dp8.sg holds the
# fused reduce_scatter buckets WANT (its lines, "|"-separated).
buckets()
{
	n=$((n + 1))
	$SYM_TEST_WRAPPER "$top_builddir/shape-check" "$2/dp8.sg" \
	    >"$tmp/$1.out" 2>"$tmp/$1.err"
	got=$(sed -n 's/^ *\(bucket [0-9]*: .*\)/\1/p' "$tmp/$1.out" |
	    tr '\n' '|')
	if test "$got" = "$3"; then
		echo "ok: $1: the fused reduce_scatters are planned"
	else
		fail "$1" "buckets '$got', not '$3'"
	fi
}

i=0
for opt in 'momentum(lr=0.1, momentum=0.9)' \
    'sgd(lr=0.1, momentum=0.9)' 'adam(lr=0.01)'; do
	i=$((i + 1))
	for level in 1 2 3; do
		z=z$i-l$level
		zvariant "$tmp/$z-plain" "$opt" $level
		ok "$z-plain" "$tmp/$z-plain/dp8.sg" --dataset "$data" \
		    --batch 16 --steps 4 --json --quiet --save "$tmp/$z-plain.st"
		bytes=1MiB
		if test $level != 1; then
			bytes=600
		fi
		v=$z-$bytes
		zvariant "$tmp/$v" "$opt" $level $bytes
		ok "$v" "$tmp/$v/dp8.sg" --dataset "$data" --batch 16 \
		    --steps 4 --json --quiet --save "$tmp/$v.st" &&
		    same "$v" "$z-plain"
		ok "$z-check" "$tmp/$v/dp8.sg" --dataset "$data" \
		    --batch 16 --steps 4 --check --check-every 1 --quiet &&
		    echo "ok: $z-check: fused reduce_scatters equal one device"
	done
done
# b3 (12 bytes, below the threshold) is all-reduced alone.
buckets z-buckets-1MiB "$tmp/z1-l1-1MiB" \
    'bucket 0: 12 bytes, one all_reduce of b3.grad|bucket 1: 1088 bytes, one reduce_scatter of w3.grad, b2.grad, w2.grad, b1.grad, w1.grad|'
buckets z-buckets-600 "$tmp/z1-l2-600" \
    'bucket 0: 12 bytes, one all_reduce of b3.grad|bucket 1: 128 bytes, one reduce_scatter of w3.grad, b2.grad|bucket 2: 576 bytes, one reduce_scatter of w2.grad, b1.grad|bucket 3: 384 bytes, one reduce_scatter of w1.grad|'
buckets z-buckets-600-l3 "$tmp/z1-l3-600" \
    'bucket 0: 12 bytes, one all_reduce of b3.grad|bucket 1: 128 bytes, one reduce_scatter of w3.grad, b2.grad|bucket 2: 576 bytes, one reduce_scatter of w2.grad, b1.grad|bucket 3: 384 bytes, one reduce_scatter of w1.grad|'

if test "$RUN_MPI" = yes; then
	n=$((n + 1))
	harness_mpirun 8 zmpi "$tmp/z3-l1-1MiB/dp8.sg" --dataset "$data" \
	    --batch 16 --steps 4 --json --quiet --save "$tmp/zmpi.st"
	if test "$(status zmpi)" -eq 124; then
		fail zmpi "still running after $limit s: stopped"
	elif test "$(status zmpi)" -ne 0; then
		fail zmpi "exit status $(status zmpi)"
	else
		same zmpi z3-l1-plain
	fi
	n=$((n + 1))
	harness_mpirun 8 mpi "$tmp/dp8-600/dp8.sg" --dataset "$data" \
	    --batch 16 --steps 4 --json --quiet --save "$tmp/mpi.st"
	if test "$(status mpi)" -eq 124; then
		fail mpi "still running after $limit s: stopped"
	elif test "$(status mpi)" -ne 0; then
		fail mpi "exit status $(status mpi)"
	else
		same mpi dp8-plain
	fi
fi

harness_finish
