#!/bin/sh
# SPDX-License-Identifier: MIT
# Optimizer sharding (parallel optimizer_shard, levels 1 to 3; DESIGN
# section 20) through shape-train, on small IDX files this script writes:
#  - tests/train/dp8.sg (six params replicated over 8 data-parallel
#    ranks) trains 4 steps on 8 thread ranks with momentum, sgd with
#    momentum and adam, with and without optimizer sharding (threshold 0
#    16 and 64 bytes, so that some params stay whole), to bitwise the same
#    losses and checkpoints: a sharded update adds the same gradient
#    sums element by element (the reduce_scatter folds each element in
#    rank order as the all_reduce does) and updates each element once;
#    level 2 (the whole partial gradients share one buffer) likewise, and
#    level 3 (the params kept as shards, gathered whole for their uses);
#  - --check (one device alongside, every step) passes sharded, at
#    levels 1, 2 and 3;
#  - under a memory cap that data parallel misses, the search chooses
#    level 1 itself and trains equal to one device; under one that only
#    level 3 meets, level 3;
#  - threshold 0 is refused: b3 (3 elements) cannot be split 8 ways;
#  - a checkpoint saved sharded loads without sharding on 4 ranks, and
#    one saved on 4 unsharded ranks loads sharded on 8, each saved again
#    to the same tensor bytes; sharded on 4 ranks equals plain on 4; a
#    level 1 checkpoint loads at level 2 on 4 ranks and one saved at
#    level 2 loads at level 1 on 8, to the same bytes; one saved at
#    level 3 loads at level 0 on 4 ranks and at level 1 on 8, and a
#    level 1 checkpoint at level 3, to the same bytes;
#  - with MPI (RUN_MPI=yes), 8 and 2 processes under mpirun train the
#    sharded adam graph (levels 1 and 3 on 8, level 2 on 2) to the
#    losses and checkpoint of the unsharded threads runs on as many
#    ranks.
#
# Usage: tests/check-train-zero.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, SYM_MPI_TIMEOUT as tests/check-train.sh.

harness=check-train-zero
. "$(dirname "$0")/train-harness.sh"

# Under valgrind its training runs on 8 ranks would add minutes of CI;
# the sanitizer build runs this script whole instead.
if test -n "${SYM_TEST_WRAPPER:-}"; then
	echo "$harness: skipped under valgrind (the sanitizer build runs it)"
	exit 77
fi

mkdir "$tmp/data" || exit 1
idx "$tmp/data" train 64
idx "$tmp/data" t10k 16
data=mnist:$tmp/data

# variant DIR OPTIMIZER [MIN] [DEVICES] [LEVEL]: tests/train/dp8.sg
# copied to DIR as dp8.sg, trained with OPTIMIZER (its minimize line
# replaced); with MIN, "parallel optimizer_shard" (=LEVEL with LEVEL)
# and that threshold appended; with DEVICES, on that many devices.
variant()
{
	mkdir -p "$1" || exit 1
	sed -e "s/^minimize loss with .*/minimize loss with $2/" \
	    -e "s/^devices 8/devices ${4:-8}/" \
	    -e "s/shard ((8, 1)/shard ((${4:-8}, 1)/" \
	    "$top_srcdir/tests/train/dp8.sg" >"$1/dp8.sg" || exit 1
	if test -n "$3"; then
		printf 'parallel optimizer_shard%s\nparallel optimizer_shard_min_bytes=%s\n' \
		    "${5:+=$5}" "$3" >>"$1/dp8.sg"
	fi
}

# same NAME REF [WHAT]: case NAME trained to the losses (and, unless
# WHAT is "losses", the checkpoint) of REF.
same()
{
	if ! losses "$2" >"$tmp/$2.losses" || ! losses "$1" >"$tmp/$1.losses" ||
	    test "$(wc -l <"$tmp/$1.losses")" -ne 4; then
		fail "$1" "not 4 steps"
	elif ! cmp -s "$tmp/$2.losses" "$tmp/$1.losses"; then
		fail "$1" "losses other than $2's"
		paste "$tmp/$2.losses" "$tmp/$1.losses"
	elif test "${3:-}" != losses && ! cmp -s "$tmp/$2.st" "$tmp/$1.st"; then
		fail "$1" "params other than $2's"
	else
		echo "ok: $1: bitwise $2"
	fi
}

i=0
for opt in 'momentum(lr=0.1, momentum=0.9)' \
    'sgd(lr=0.1, momentum=0.9)' 'adam(lr=0.01)'; do
	i=$((i + 1))
	variant "$tmp/o$i-plain" "$opt"
	ok "o$i-plain" "$tmp/o$i-plain/dp8.sg" --dataset "$data" --batch 16 \
	    --steps 4 --json --quiet --save "$tmp/o$i-plain.st"
	for min in 16 64; do
		v=o$i-zero$min
		variant "$tmp/$v" "$opt" "$min"
		ok "$v" "$tmp/$v/dp8.sg" --dataset "$data" --batch 16 \
		    --steps 4 --json --quiet --save "$tmp/$v.st" &&
		    same "$v" "o$i-plain"
	done
	ok "o$i-check" "$tmp/o$i-zero16/dp8.sg" --dataset "$data" --batch 16 \
	    --steps 4 --check --check-every 1 --quiet &&
	    echo "ok: o$i-check: sharded training equals one device"
	v=o$i-zero2
	variant "$tmp/$v" "$opt" 16 8 2
	ok "$v" "$tmp/$v/dp8.sg" --dataset "$data" --batch 16 \
	    --steps 4 --json --quiet --save "$tmp/$v.st" &&
	    same "$v" "o$i-plain"
	ok "o$i-check2" "$tmp/$v/dp8.sg" --dataset "$data" --batch 16 \
	    --steps 4 --check --check-every 1 --quiet &&
	    echo "ok: o$i-check2: level 2 training equals one device"
	v=o$i-zero3
	variant "$tmp/$v" "$opt" 16 8 3
	ok "$v" "$tmp/$v/dp8.sg" --dataset "$data" --batch 16 \
	    --steps 4 --json --quiet --save "$tmp/$v.st" &&
	    same "$v" "o$i-plain"
	ok "o$i-check3" "$tmp/$v/dp8.sg" --dataset "$data" --batch 16 \
	    --steps 4 --check --check-every 1 --quiet &&
	    echo "ok: o$i-check3: level 3 training equals one device"
done

# The level chosen by the search (sym_search(3)): under --memory 5000
# bytes at b = 16, which data parallel with adam misses (106*b + 5512 =
# 7208 bytes per device, its moments whole), the search turns optimizer
# sharding on itself, at level 1 (68*b + 2928 = 4016 bytes), says so,
# and trains equal to one device. (Not bitwise o3-zero16: the search
# lays out the reshape and the loss its own way, so the sums differ in
# their last bits.)
variant "$tmp/cap" 'adam(lr=0.01)'
echo 'parallel optimizer_shard_min_bytes=16' >>"$tmp/cap/dp8.sg"
if ok cap-check "$tmp/cap/dp8.sg" --dataset "$data" --batch 16 \
    --steps 4 --check --check-every 1 --memory 5000; then
	if ! grep -q "optimizer_shard=1 (chosen under the memory cap), runs$" \
	    "$tmp/cap-check.err"; then
		fail cap-check "no notice of the level the search chose"
	else
		echo "ok: cap-check: level 1 chosen under the cap equals one device"
	fi
fi

# Under --memory 3000, which level 2 misses at b = 16 (68*b + 2352 = 3440
# bytes) and level 3 meets (68*b + 1640 = 2728: the params kept as their
# shards), the search takes level 3 and trains equal to one device.
if ok cap3-check "$tmp/cap/dp8.sg" --dataset "$data" --batch 16 \
    --steps 4 --check --check-every 1 --memory 3000; then
	if ! grep -q "optimizer_shard=3 (chosen under the memory cap), runs$" \
	    "$tmp/cap3-check.err"; then
		fail cap3-check "no notice of level 3 chosen by the search"
	else
		echo "ok: cap3-check: level 3 chosen under the cap equals one device"
	fi
fi

# Threshold 0: b3 (3 elements) cannot be split 8 ways.
variant "$tmp/indiv" 'adam(lr=0.01)' 0
refuse indiv 1 "optimizer_shard: no dimension of param b3 can be split" \
    "$tmp/indiv/dp8.sg" --dataset "$data" --batch 16 --steps 1 --quiet

# tensors FILE: the tensor bytes of the safetensors FILE (after its
# header, whose metadata names the step and the graph).
tensors()
{
	hn=$(od -An -tu8 -N8 "$1" | tr -d ' ') || return 1
	tail -c +$((hn + 9)) "$1"
}

# same_tensors NAME A B WHY: the checkpoints A and B hold the same bytes.
same_tensors()
{
	tensors "$2" >"$tmp/$1.a" && tensors "$3" >"$tmp/$1.b" &&
	    test -s "$tmp/$1.a" && cmp -s "$tmp/$1.a" "$tmp/$1.b" &&
	    echo "ok: $1: $4" || fail "$1" "saved again, other tensors"
}

# Checkpoints stay whole: the adam checkpoint saved sharded (o3-zero16)
# loads on 4 unsharded ranks and saves again byte for byte, and one
# saved on 4 unsharded ranks loads sharded on 8 and saves again so.
variant "$tmp/r4" 'adam(lr=0.01)' "" 4
variant "$tmp/r4z" 'adam(lr=0.01)' 16 4
ok r4-load "$tmp/r4/dp8.sg" --dataset "$data" --batch 16 --steps 0 \
    --load "$tmp/o3-zero16.st" --save "$tmp/r4-load.st" --quiet &&
    same_tensors r4-load "$tmp/o3-zero16.st" "$tmp/r4-load.st" \
	"a sharded checkpoint loads on 4 plain ranks"
ok r4-plain "$tmp/r4/dp8.sg" --dataset "$data" --batch 16 --steps 4 \
    --json --quiet --save "$tmp/r4-plain.st"
ok z8-load "$tmp/o3-zero16/dp8.sg" --dataset "$data" --batch 16 --steps 0 \
    --load "$tmp/r4-plain.st" --save "$tmp/z8-load.st" --quiet &&
    same_tensors z8-load "$tmp/r4-plain.st" "$tmp/z8-load.st" \
	"a plain 4-rank checkpoint loads sharded on 8"
ok r4z "$tmp/r4z/dp8.sg" --dataset "$data" --batch 16 --steps 4 \
    --json --quiet --save "$tmp/r4z.st" && same r4z r4-plain

# Across levels: level 1 saved on 8 loads at level 2 on 4, and level 2
# saved on 8 loads at level 1 on 8, each saved again byte for byte.
variant "$tmp/r4z2" 'adam(lr=0.01)' 16 4 2
ok z2-load "$tmp/r4z2/dp8.sg" --dataset "$data" --batch 16 --steps 0 \
    --load "$tmp/o3-zero16.st" --save "$tmp/z2-load.st" --quiet &&
    same_tensors z2-load "$tmp/o3-zero16.st" "$tmp/z2-load.st" \
	"a level 1 checkpoint loads at level 2 on 4 ranks"
ok z1-load "$tmp/o3-zero16/dp8.sg" --dataset "$data" --batch 16 \
    --steps 0 --load "$tmp/o3-zero2.st" --save "$tmp/z1-load.st" --quiet &&
    same_tensors z1-load "$tmp/o3-zero2.st" "$tmp/z1-load.st" \
	"a level 2 checkpoint loads at level 1 on 8 ranks"

# Level 3 keeps the params as shards; its checkpoint is whole all the
# same: saved at level 3 on 8 ranks, it loads at level 0 on 4 ranks and
# at level 1 on 8 and saves again byte for byte, and a level 1
# checkpoint loads at level 3.
ok z3-load0 "$tmp/r4/dp8.sg" --dataset "$data" --batch 16 --steps 0 \
    --load "$tmp/o3-zero3.st" --save "$tmp/z3-load0.st" --quiet &&
    same_tensors z3-load0 "$tmp/o3-zero3.st" "$tmp/z3-load0.st" \
	"a level 3 checkpoint loads at level 0 on 4 ranks"
ok z3-load1 "$tmp/o3-zero16/dp8.sg" --dataset "$data" --batch 16 \
    --steps 0 --load "$tmp/o3-zero3.st" --save "$tmp/z3-load1.st" --quiet &&
    same_tensors z3-load1 "$tmp/o3-zero3.st" "$tmp/z3-load1.st" \
	"a level 3 checkpoint loads at level 1 on 8 ranks"
ok z3-load3 "$tmp/o3-zero3/dp8.sg" --dataset "$data" --batch 16 \
    --steps 0 --load "$tmp/o3-zero16.st" --save "$tmp/z3-load3.st" --quiet &&
    same_tensors z3-load3 "$tmp/o3-zero16.st" "$tmp/z3-load3.st" \
	"a level 1 checkpoint loads at level 3 on 8 ranks"

if test "$RUN_MPI" = yes; then
	# mpi8: level 1 on 8 processes, mpi2: level 2 on 2, mpi83: level 3
	# on 8.
	for m in mpi8 mpi2 mpi83; do
		n=$((n + 1))
		np=8
		if test "$m" = mpi8; then
			g=$tmp/o3-zero16/dp8.sg ref=o3-plain
		elif test "$m" = mpi83; then
			g=$tmp/o3-zero3/dp8.sg ref=o3-plain
		else
			np=2
			variant "$tmp/r2z" 'adam(lr=0.01)' 16 2 2
			variant "$tmp/r2" 'adam(lr=0.01)' "" 2
			ok r2-plain "$tmp/r2/dp8.sg" --dataset "$data" \
			    --batch 16 --steps 4 --json --quiet \
			    --save "$tmp/r2-plain.st"
			g=$tmp/r2z/dp8.sg ref=r2-plain
		fi
		harness_mpirun "$np" "$m" "$g" --dataset "$data" \
		    --batch 16 --steps 4 --json --quiet --save "$tmp/$m.st"
		if test "$(status "$m")" -eq 124; then
			fail "$m" "still running after $limit s: stopped"
		elif test "$(status "$m")" -ne 0; then
			fail "$m" "exit status $(status "$m")"
		else
			same "$m" "$ref"
		fi
	done
fi

harness_finish
