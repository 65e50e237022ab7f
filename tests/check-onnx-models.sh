#!/bin/sh
# SPDX-License-Identifier: MIT
# Real model architectures exported by PyTorch through the ONNX importer
# (tests/onnx/*_tiny.onnx, made by tools/onnx/export_models.py --tiny):
# torchvision's mobilenet_v2 (width 0.25, 32x32 images: Clip as ReLU6,
# depthwise Conv, residual Add), squeezenet1_0's layers (ceil-mode
# MaxPool, Fire modules' Concat), a VisionTransformer (image 32, patch
# 8, width 16: class token Expand and Concat, nn.MultiheadAttention's
# Slice of its packed weights) and an nn.Transformer encoder-decoder of
# width 16 (dynamic batch, source and target lengths, causal mask).
# For each:
#  - shape-check loses no dimension;
#  - shape-run from PyTorch's inputs at two sizes, on 1 rank and on 8
#    (--auto, against one device): logits of PyTorch's dimensions and
#    within |got - want| <= 1e-5 + 1e-5*|want| of its values (float32
#    sums in another order: the largest error seen is 1.25e-6, ViT at
#    batch 5, on logits of magnitude about 1, so the bound has 8 times
#    that of margin); the other size's logits do not compare;
#  - tests/onnx/NAME_dp.sg, data parallel by ONNX node name (the first
#    and last operators split along the batch) on 8 ranks, equal to one
#    device at two sizes;
#  - BatchNormalization's running statistics outputs in training
#    (tests/onnx/bnstats.onnx) equal to PyTorch's.
#
# Usage: tests/check-onnx-models.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER (valgrind), when set.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

cmp=$top_builddir/tests/st_compare
d=$top_srcdir/tests/onnx
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0
rtol=1e-5
atol=1e-5

# check TOOL NAME STATUS ARGS...: run shape-TOOL with ARGS; its exit
# status must be STATUS.
check()
{
	tool=$top_builddir/shape-$1
	name=$2
	want=$3
	shift 3
	$SYM_TEST_WRAPPER "$tool" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if test "$got" != "$want"; then
		echo "FAIL: $name: exit $got, expected $want"
		sed 's/^/  /' "$tmp/out" "$tmp/err" | head -40
		failed=$((failed + 1))
		return 1
	fi
	passed=$((passed + 1))
	return 0
}

# verdict NAME COMMAND...: COMMAND must succeed.
verdict()
{
	name=$1
	shift
	if "$@" >"$tmp/v" 2>&1; then
		passed=$((passed + 1))
	else
		echo "FAIL: $name"
		sed 's/^/  /' "$tmp/v" | head -20
		failed=$((failed + 1))
	fi
}

# model NAME BIND1 TAG1 BIND2 TAG2 DP-BIND: the checks above for
# tests/onnx/NAME.onnx at the sizes BIND1 (fixtures NAME.TAG1.*) and
# BIND2, and NAME_dp.sg at the binding DP-BIND and twice it.
model()
{
	mname=$1
	m=$d/$1
	if check check "$mname-lost" 0 "$m.onnx"; then
		verdict "$mname-lost" grep -q '^onnx: .* 0 lost$' "$tmp/out"
	fi
	for size in "$2 $3" "$4 $5"; do
		set -- $size
		for ranks in 1 8; do
			n=$mname-$2-r$ranks
			if check run "$n" 0 "$m.onnx" --bind "$1" \
			    --ranks "$ranks" --auto --quiet \
			    --inputs "$m.$2.in.safetensors" \
			    --outputs "$tmp/o.safetensors"; then
				verdict "$n" "$cmp" "$tmp/o.safetensors" \
				    "$m.$2.out.safetensors" $rtol $atol
				test "$ranks" = 1 &&
				    sed "s/^/$n: /" "$tmp/v"
			fi
			rm -f "$tmp/o.safetensors"
		done
		last=$2
		lastbind=$1
	done
	# The comparison can fail: these logits against the other size's.
	if check run "$mname-other" 0 "$m.onnx" --bind "$lastbind" --quiet \
	    --inputs "$m.$last.in.safetensors" \
	    --outputs "$tmp/o.safetensors"; then
		first=$(ls "$m".*.out.safetensors | head -1)
		verdict "$mname-other" sh -c "! '$cmp' '$tmp/o.safetensors' \
		    '$first' $rtol $atol"
	fi
	rm -f "$tmp/o.safetensors"
}

model mobilenet_tiny batch=2 b2 batch=5 b5
model squeezenet_tiny batch=2 b2 batch=5 b5
model vit_tiny batch=2 b2 batch=5 b5
model encdec_tiny batch=3,src_len=9,tgt_len=6 b3s9t6 \
    batch=5,src_len=4,tgt_len=11 b5s4t11

# Data parallel by node name on 8 ranks against one device.
for sg in mobilenet squeezenet vit encdec; do
	f=$d/${sg}_dp.sg
	if test "$sg" = encdec; then
		binds="--bind b=8,s=5,t=3 --bind b=16,s=7,t=9"
	else
		binds="--bind b=8 --bind b=16"
	fi
	if check run "$sg-dp" 0 "$f" $binds; then
		verdict "$sg-dp" grep -q "^2 steps: every output matches" \
		    "$tmp/out"
	fi
done

# BatchNormalization in training with its outputs 1 and 2 (the updated
# running statistics, tests/onnx/bnstats.onnx by gen_bnstats.py):
# PyTorch's output and running statistics after one pass in training, on
# 1 rank and on 8 (--auto) against one device.
b=$d/bnstats
for ranks in 1 8; do
	if check run "bnstats-r$ranks" 0 "$b.onnx" --bind batch=6 \
	    --ranks $ranks --auto --quiet --inputs "$b.b6.in.safetensors" \
	    --outputs "$tmp/o.safetensors"; then
		verdict "bnstats-r$ranks" "$cmp" "$tmp/o.safetensors" \
		    "$b.b6.out.safetensors" 1e-5 1e-5
	fi
	rm -f "$tmp/o.safetensors"
done

echo "check-onnx-models: $passed passed, $failed failed"
test "$failed" = 0
