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
harness=check-onnx-models
. "$(dirname "$0")/onnx-harness.sh"

# model NAME BIND1 TAG1 BIND2 TAG2 DP-BIND: the checks above for
# tests/onnx/NAME.onnx at the sizes BIND1 (fixtures NAME.TAG1.*) and
# BIND2, and NAME_dp.sg at the binding DP-BIND and twice it.
model()
{
	mname=$1
	m=$onnx/$1
	if check check "$mname-lost" 0 "$m.onnx"; then
		verdict "$mname-lost" grep -q '^onnx: .* 0 lost$' "$tmp/out"
	fi
	for size in "$2 $3" "$4 $5"; do
		set -- $size
		for ranks in 1 8; do
			n=$mname-$2-r$ranks
			logits "$n" "$m.onnx" "$m" "$1" "$2" "$ranks" --auto
			test "$ranks" = 1 && sed "s/^/$n: /" "$tmp/v"
		done
		last=$2
		lastbind=$1
	done
	# The comparison can fail: these logits against the other size's.
	not_logits "$mname-other" "$m.onnx" "$m" "$lastbind" "$last" \
	    "$(ls "$m".*.out.safetensors | head -1)"
}

model mobilenet_tiny batch=2 b2 batch=5 b5
model squeezenet_tiny batch=2 b2 batch=5 b5
model vit_tiny batch=2 b2 batch=5 b5
model encdec_tiny batch=3,src_len=9,tgt_len=6 b3s9t6 \
    batch=5,src_len=4,tgt_len=11 b5s4t11

# Data parallel by node name on 8 ranks against one device.
for sg in mobilenet squeezenet vit encdec; do
	f=$onnx/${sg}_dp.sg
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
for ranks in 1 8; do
	logits "bnstats-r$ranks" "$onnx/bnstats.onnx" "$onnx/bnstats" batch=6 b6 \
	    "$ranks" --auto
done

onnx_finish
