#!/bin/sh
# SPDX-License-Identifier: MIT
# A ResNet exported by PyTorch through the ONNX importer:
# tests/onnx/resnet_tiny.onnx (made by tests/onnx/gen_resnet.py: Conv,
# BatchNormalization, Relu, MaxPool, residual Add, GlobalAveragePool,
# Flatten, Gemm; a dynamic batch) with PyTorch's logits at batch 5 and 16.
#  - shape-check loses no dimension, and every dimension of every value
#    is a number or the symbol batch whose values at batch 5 and 16 are
#    those ONNX's shape inference gives on copies of the model with the
#    batch fixed (tests/onnx/resnet_tiny.shapes.txt);
#  - shape-run on 1 and 8 ranks (--auto) from PyTorch's images: logits
#    equal to PyTorch's within |got - want| <= 1e-5 + 1e-5*|want|; the
#    comparison fails on the other size's logits;
#  - tests/onnx/resnet_dp.sg, data parallel by ONNX node name on 8
#    ranks: against one device at three sizes and against PyTorch's
#    logits; its report names the ONNX nodes of its shard clauses;
#  - tests/onnx/resnet_train.sg: 8 steps (two epochs of 64 images of
#    28x28 in batches of 16, not shuffled) of shape-train with --check on
#    8 ranks (every step equals one device), the same losses on 1 rank
#    (1e-5 relative), each batch's loss lower in the second epoch than in
#    the first; the running statistics are state: in the checkpoint and
#    equal to PyTorch's (resnet_tiny.stats.safetensors), unchanged;
#  - tests/onnx/resnet_bn.sg imports it in training: logits equal to
#    PyTorch's in training mode (batch statistics) on 8 ranks, not those
#    of inference; 8 steps of shape-train as above, and the running
#    statistics in the checkpoint updated; after one step on 8 ranks,
#    equal to PyTorch's after one forward pass in training on the same
#    images (resnet_tiny.step1.safetensors, 1e-5).
#
# Usage: tests/check-onnx-resnet.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER (valgrind), when set: the training cases are skipped.
harness=check-onnx-resnet
. "$(dirname "$0")/onnx-harness.sh"
m=$onnx/resnet_tiny

# --- Shapes: nothing lost, every dimension an exact expression of batch.
if check check lost 0 "$m.onnx"; then
	verdict lost grep -q '^onnx: opset 14, 23 nodes .* 0 lost$' "$tmp/out"
fi
if check check json 0 --json "$m.onnx"; then
	# NAME DIM,DIM,... for every value in the JSON report.
	awk '/^      "name": / { name = $2; gsub(/[",]/, "", name) }
	    /^      "shape": \[$/ { on = 1; dims = ""; next }
	    on && /^      \]/ { on = 0; print name, dims; next }
	    on { d = $1; gsub(/[",]/, "", d)
	        dims = dims (dims == "" ? "" : ",") d }' "$tmp/out" \
	    >"$tmp/shapes"
	# Every dimension is a number or the symbol batch.
	verdict json-exact awk '{ n = split($2, d, ",")
	    for (i = 1; i <= n; i++)
	        if (d[i] !~ /^[0-9]+$/ && d[i] != "batch") {
	            print "not exact: " $0; bad = 1 } }
	    END { exit bad }' "$tmp/shapes"
	# At batch 5 and 16 they are ONNX's static shapes, value by value.
	verdict json-onnx awk 'NR == FNR { got[$1] = $2; next }
	    { if (!($1 in got)) { print "missing: " $1; bad = 1; next }
	      for (k = 2; k <= 3; k++) {
	          b = k == 2 ? 5 : 16
	          n = split(got[$1], d, ",")
	          s = ""
	          for (i = 1; i <= n; i++)
	              s = s (i > 1 ? "," : "") (d[i] == "batch" ? b : d[i])
	          if (s != $k) {
	              print $1 " at batch " b ": " s ", ONNX " $k; bad = 1 } }
	      seen++ }
	    END { if (seen != 24) { print seen " values"; bad = 1 }
	          exit bad }' "$tmp/shapes" "$m.shapes.txt"
fi

# --- Values against PyTorch on 1 and 8 ranks.
for b in 5 16; do
	for ranks in 1 8; do
		logits "values-b$b-r$ranks" "$m.onnx" "$m" "batch=$b" "b$b" \
		    "$ranks" --auto
	done
done
# The comparison can fail: the logits of batch 16 against those of 5.
not_logits other-size "$m.onnx" "$m" batch=16 b16 "$m.b5.out.safetensors"
verdict other-size-says grep -q "logits: dimension 0 is 16, expected 5" \
    "$tmp/said"

# --- Data parallel by ONNX node name on 8 ranks.
dp=$onnx/resnet_dp.sg
logits dp-pytorch "$dp" "$m" b=16 b16 8
if check run dp-sizes 0 "$dp" --bind b=8 --bind b=16 --bind b=40; then
	verdict dp-sizes grep -q "^3 steps: every output matches" "$tmp/out"
	verdict dp-ranks grep -q "^$dp: 8 ranks" "$tmp/out"
fi
if check check dp-json 0 --json "$dp"; then
	for want in '"onnx_node": "/layer2/down/down.1/BatchNormalization"' \
	    '"strategy_source": "shard clause of ONNX node '"'"'/conv1/Conv'"'"'"' \
	    '"strategy_source": "shard clause of ONNX node '"'"'/fc/Gemm'"'"'"'; do
		verdict "dp-json $want" grep -F -q -- "$want" "$tmp/out"
	done
fi
# A clause naming a node the model does not have is a located error.
sed 's|"/fc/Gemm"|"/fc/Gem"|' "$dp" >"$tmp/bad.sg"
cp "$m.onnx" "$tmp/resnet_tiny.onnx"
if check run dp-badname 1 "$tmp/bad.sg" --bind b=8; then
	verdict dp-badname grep -q \
	    "bad.sg:11:7: error: no operator was imported from an ONNX node named '/fc/Gem'" \
	    "$tmp/err"
fi

# --- Imported in training (tests/onnx/resnet_bn.sg): batch statistics,
# all-reduced across the batch split, equal to PyTorch's in training.
bn=$onnx/resnet_bn.sg
if check run bn-pytorch 0 "$bn" --bind b=16 --quiet \
    --inputs "$m.b16.in.safetensors" --outputs "$tmp/o.safetensors"; then
	verdict bn-pytorch "$cmp" "$tmp/o.safetensors" \
	    "$m.b16.train.safetensors" $rtol $atol
	# ... and not the logits of inference.
	verdict bn-not-eval sh -c "! '$cmp' '$tmp/o.safetensors' \
	    '$m.b16.out.safetensors' $rtol $atol"
fi
rm -f "$tmp/o.safetensors"
if check run bn-sizes 0 "$bn" --bind b=8 --bind b=24; then
	verdict bn-sizes grep -q "^2 steps: every output matches" "$tmp/out"
fi
sed 's/(batch = b) training/(batch = b) trained/' "$bn" >"$tmp/bad.sg"
if check run bn-word 1 "$tmp/bad.sg" --bind b=8; then
	verdict bn-word grep -q \
	    "bad.sg:9:39: error: unexpected 'trained' after the import" "$tmp/err"
fi

# --- Fine-tuning with shape-train, from the model's own weights.
if test -n "${SYM_TEST_WRAPPER:-}"; then
	echo "check-onnx-resnet: training skipped under valgrind"
	onnx_finish
	exit
fi

# bytes: write the decimal byte values read on the standard input.
bytes()
{
	awk '{ for (i = 1; i <= NF; i++) printf "\\%03o", $i }' | {
		read -r esc || :
		# shellcheck disable=SC2059
		printf "$esc"
	}
}

# be32 N: the 4 bytes of N, big-endian, as decimals.
be32()
{
	echo $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 & 255))
}

# idx28 DIR PREFIX N: N images of 28x28 in MNIST's IDX files, labels in
# 0..9, each image a diagonal stripe pattern of its label on noise.
idx28()
{
	{
		echo 0 0 8 3
		be32 "$3"
		be32 28
		be32 28
		awk -v n="$3" 'BEGIN { for (s = 0; s < n; s++) {
		    l = (s * 7 + int(s / 5)) % 10
		    for (r = 0; r < 28; r++)
		        for (c = 0; c < 28; c++)
		            printf "%d ", (r + c) % 10 == l ? 200 : \
		                (s * 13 + r * 3 + c) % 40 } }'
	} | tr '\n' ' ' | bytes >"$1/$2-images-idx3-ubyte"
	{
		echo 0 0 8 1
		be32 "$3"
		awk -v n="$3" 'BEGIN { for (s = 0; s < n; s++)
		    printf "%d ", (s * 7 + int(s / 5)) % 10 }'
	} | tr '\n' ' ' | bytes >"$1/$2-labels-idx1-ubyte"
}

mkdir "$tmp/data" || exit 1
idx28 "$tmp/data" train 64
idx28 "$tmp/data" t10k 16
sg=$onnx/resnet_train.sg
set -- --dataset "mnist:$tmp/data" --batch 16 --steps 8 --no-shuffle --json
if check train train-r8 0 "$sg" "$@" --check --save "$tmp/ck.safetensors"
then
	sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$tmp/out" >"$tmp/r8"
	verdict train-r8-steps test "$(wc -l <"$tmp/r8")" -eq 8
	verdict train-r8-check sh -c "! grep -q MISMATCH '$tmp/out' '$tmp/err'"
	verdict train-r8-falls awk '{ l[NR] = $1 } END {
	    for (i = 1; i <= 4; i++) if (!(l[i + 4] < l[i])) exit 1 }' \
	    "$tmp/r8"
	verdict train-state "$cmp" "$tmp/ck.safetensors" \
	    "$m.stats.safetensors" 0 0
fi
if check train train-r1 0 "$sg" "$@" --ranks 1; then
	sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$tmp/out" >"$tmp/r1"
	verdict train-r1 awk 'NR == FNR { w[NR] = $1; next } {
	    d = $1 - w[FNR]; if (d < 0) d = -d
	    if (d > 1e-5 * w[FNR]) exit 1; k++ } END { exit k != 8 }' \
	    "$tmp/r8" "$tmp/r1"
fi

# In training the running statistics are updated: 8 ranks equal one
# device, the losses those of 1 rank, the statistics in the checkpoint
# no longer the exported ones.
if check train bn-r8 0 "$bn" "$@" --check --save "$tmp/bn.safetensors"
then
	sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$tmp/out" >"$tmp/bn8"
	verdict bn-r8-steps test "$(wc -l <"$tmp/bn8")" -eq 8
	verdict bn-r8-check sh -c "! grep -q MISMATCH '$tmp/out' '$tmp/err'"
	verdict bn-r8-falls awk '{ l[NR] = $1 } END {
	    for (i = 1; i <= 4; i++) if (!(l[i + 4] < l[i])) exit 1 }' \
	    "$tmp/bn8"
	verdict bn-state-updated sh -c "! '$cmp' '$tmp/bn.safetensors' \
	    '$m.stats.safetensors' 1e-3 1e-3 >/dev/null 2>&1"
fi
# After one step on 8 ranks the running statistics are PyTorch's after
# one forward pass in training on the same 16 images (global batch
# statistics, ONNX's momentum 0.9 read as PyTorch's 0.1).
if check train bn-step1 0 "$bn" --dataset "mnist:$tmp/data" --batch 16 \
    --steps 1 --no-shuffle --save "$tmp/s1.safetensors"; then
	verdict bn-step1 "$cmp" "$tmp/s1.safetensors" \
	    "$m.step1.safetensors" 1e-5 1e-5
fi
if check train bn-r1 0 "$bn" "$@" --ranks 1; then
	sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$tmp/out" >"$tmp/bn1"
	verdict bn-r1 awk 'NR == FNR { w[NR] = $1; next } {
	    d = $1 - w[FNR]; if (d < 0) d = -d
	    if (d > 1e-5 * w[FNR]) exit 1; k++ } END { exit k != 8 }' \
	    "$tmp/bn8" "$tmp/bn1"
fi

onnx_finish
