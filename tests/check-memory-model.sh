#!/bin/sh
# SPDX-License-Identifier: MIT
# The cost model's memory of one device by kind (sym_graph_cost: params,
# gradients, optimizer state, activations) equals, kind by kind and to
# the byte, the buffers the executor allocates on rank 0 for the same
# plan at one binding (bench/bench_memory prints both), on:
#  - tests/train/dp8.sg (momentum, 8 data-parallel ranks) unsharded and
#    at optimizer_shard levels 1 to 3 (threshold 16: b3 stays whole),
#    with and without fusion_bytes (all gradients in one bucket, or
#    several);
#  - the tutorial network (bench/ffn_train_dp.sg) on 8 devices with
#    adam, levels 0 to 3, and fused at level 0 (gradients laid out in
#    their bucket and reduced in place: counted once);
#  - a Megatron MLP, whose second matmul's partial sums are all-reduced
#    with no communication after (the executor keeps the partial sums
#    beside the sum), and a forward-only matmul whose output is such a
#    sum;
#  - one block of examples/transformer.sg with adam at levels 0 and 1,
#    b = s = 128 (at levels 2 and 3 the executor keeps 3072 bytes more of gradients:
#    it gives a group of whole partial gradients whose life overlaps the
#    pool's a buffer of its own, which the model, counting the largest
#    group, does not see; README.md's optimizer sharding section).
# Each case's two figures are printed when they differ.
#
# Usage: tests/check-memory-model.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER, when set, is put in front of the program.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

bench=$top_builddir/bench/bench_memory
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=
n=0

# Compare the model's and the executor's figures of graph $1 at size $2
# (case name $3).
same()
{
	n=$((n + 1))
	if ! ${SYM_TEST_WRAPPER:-} "$bench" "$1" "$2" "$3" >"$tmp/out" \
	    2>"$tmp/err"; then
		echo "check-memory-model: FAIL: $3: bench_memory exited $?" >&2
		cat "$tmp/err" >&2
		failed=yes
		return
	fi
	sed -n 's/"figures": "model", //p' "$tmp/out" >"$tmp/model"
	sed -n 's/"figures": "executor", //p' "$tmp/out" >"$tmp/exec"
	if ! test -s "$tmp/model" || ! cmp -s "$tmp/model" "$tmp/exec"; then
		echo "check-memory-model: FAIL: $3: the model and the" \
		    "executor differ:" >&2
		cat "$tmp/out" >&2
		failed=yes
	fi
}

# $1 with the lines $2... appended, into $tmp/g.sg.
graph()
{
	src=$1
	shift
	cp "$src" "$tmp/g.sg"
	for line; do
		echo "$line" >>"$tmp/g.sg"
	done
}

dp8=$top_srcdir/tests/train/dp8.sg
graph "$dp8"
same "$tmp/g.sg" 16 dp8
graph "$dp8" 'parallel fusion_bytes=1MiB'
same "$tmp/g.sg" 16 dp8-fused
graph "$dp8" 'parallel fusion_bytes=200'
same "$tmp/g.sg" 16 dp8-fused-200
for lv in 1 2 3; do
	graph "$dp8" "parallel optimizer_shard=$lv" \
	    'parallel optimizer_shard_min_bytes=16'
	same "$tmp/g.sg" 16 "dp8-level$lv"
	graph "$dp8" "parallel optimizer_shard=$lv" \
	    'parallel optimizer_shard_min_bytes=16' 'parallel fusion_bytes=200'
	same "$tmp/g.sg" 16 "dp8-level$lv-fused-200"
done

sed -e 's/^devices 2/devices 8/' -e 's/divisor=2/divisor=8/' \
    -e 's/shard ((2, 1)/shard ((8, 1)/' \
    -e 's/^minimize loss with .*/minimize loss with adam(lr=0.001)/' \
    "$top_srcdir/bench/ffn_train_dp.sg" >"$tmp/ffn.sg"
graph "$tmp/ffn.sg"
same "$tmp/g.sg" 64 ffn
graph "$tmp/ffn.sg" 'parallel fusion_bytes=4MiB'
same "$tmp/g.sg" 64 ffn-fused
for lv in 1 2 3; do
	graph "$tmp/ffn.sg" "parallel optimizer_shard=$lv" \
	    'parallel optimizer_shard_min_bytes=0'
	same "$tmp/g.sg" 64 "ffn-level$lv"
done

cat >"$tmp/megatron.sg" <<'EOF'
devices 8
symbol b divisor=8
input  x : f32[b, 64]
input  y : i32[b]
param  w1 : f32[64, 256]
param  w2 : f32[256, 64]
h = matmul(x, w1) shard ((1, 1), (1, 8))
a = relu(h)
o = matmul(a, w2) shard ((1, 8), (8, 1))
loss = softmax_cross_entropy(o, y)
output loss
minimize loss with sgd(lr=0.1)
EOF
same "$tmp/megatron.sg" 16 megatron-mlp
cat >"$tmp/partial.sg" <<'EOF'
devices 2
symbol b
input x : f32[b, 64]
param w : f32[64, 32]
o = matmul(x, w) shard ((1, 2), (2, 1))
output o
EOF
same "$tmp/partial.sg" 10 partial-output

# The transformer block's 420 MB of activations are left out under
# valgrind (make check-valgrind sets SYM_TEST_WRAPPER).
if test -z "${SYM_TEST_WRAPPER:-}"; then
	sed -e 's/^output y$//' "$top_srcdir/examples/transformer.sg" \
	    >"$tmp/tb.sg"
	printf '%s\n' 'loss = reduce_mean(y, axis=[0, 1, 2])' 'output loss' \
	    'minimize loss with adam(lr=0.001)' >>"$tmp/tb.sg"
	graph "$tmp/tb.sg"
	same "$tmp/g.sg" 128 transformer
	graph "$tmp/tb.sg" 'parallel optimizer_shard=1' \
	    'parallel optimizer_shard_min_bytes=8'
	same "$tmp/g.sg" 128 transformer-level1
fi

if test -n "$failed"; then
	exit 1
fi
echo "check-memory-model: $n cases, the model's figures are the executor's"
