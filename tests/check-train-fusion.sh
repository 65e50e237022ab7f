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
#  - with MPI (RUN_MPI=yes), 8 processes under mpirun train the fused
#    graph to the losses and checkpoint of the unfused threads run.
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

if test "$RUN_MPI" = yes; then
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
