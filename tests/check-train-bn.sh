#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end runs of shape-train on batch_norm (tests/train/bn*.sg, seeded
# data): training with the batch split over 2, 4 and 8 ranks, the
# channels split, and the batch and both spatial dimensions split, each
# checked against one device at every step (--check: the losses, every
# param and the running statistics); a checkpoint holds the running
# statistics, loads on another rank count and goes on training as one
# device does; a checkpoint without them starts them at their
# initializers with a notice; examples/resnet.sg trains on 8 ranks as on
# one device (two steps of seeded data); the search's plan keeps the
# running statistics of one device.
#
# Usage: tests/check-train-bn.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER, when set, is put in front of the tool (valgrind).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

tool=$top_builddir/shape-train
if ! test -x "$tool"; then
	echo "check-train-bn: $tool is not built" >&2
	exit 1
fi
cd "$top_srcdir" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=
n=0

# run NAME WANT ARGS...: run shape-train with ARGS; it must exit 0 and
# its output (both streams) must contain WANT.
run()
{
	name=$1
	want=$2
	shift 2
	n=$((n + 1))
	# shellcheck disable=SC2086
	if $SYM_TEST_WRAPPER "$tool" "$@" >"$tmp/out" 2>&1 &&
	    grep -F -e "$want" "$tmp/out" >/dev/null; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$tmp/out"
		failed=yes
	fi
}

echo "1..16"
matched="every step matched one device"
for r in 2 4 8; do
	run "batch split over $r ranks" "$matched" tests/train/bn.sg \
	    --ranks "$r" --steps 4 --batch 16 --check --check-every 1
done
run "channels split 4 ways, batch 2" "$matched" tests/train/bn-chan.sg \
    --ranks 8 --steps 4 --batch 16 --check --check-every 1
run "batch and spatial dimensions split" "$matched" \
    tests/train/bn-spatial.sg --ranks 8 --steps 4 --batch 16 --check \
    --check-every 1
run "checkpoint with the running statistics" "saved" tests/train/bn.sg \
    --ranks 4 --steps 3 --batch 16 --save "$tmp/bn.safetensors"
n=$((n + 1))
if head -c 2000 "$tmp/bn.safetensors" | grep -a -F '"rm":' >/dev/null &&
    head -c 2000 "$tmp/bn.safetensors" | grep -a -F '"rv":' >/dev/null; then
	echo "ok $n - the checkpoint holds rm and rv"
else
	echo "not ok $n - the checkpoint holds rm and rv"
	failed=yes
fi
run "loaded on 2 ranks, trains as one device" "$matched" \
    tests/train/bn.sg --ranks 2 --steps 3 --batch 16 --check \
    --check-every 1 --load "$tmp/bn.safetensors"
run "checkpoint without state" "saved" tests/train/bn-nostate.sg \
    --ranks 2 --steps 2 --batch 16 --save "$tmp/plain.safetensors"
run "state missing: notice" \
    "has no state values (rm, rv): it starts from its initializer" \
    tests/train/bn.sg --ranks 2 --steps 2 --batch 16 --check \
    --load "$tmp/plain.safetensors"
run "state missing: trains as one device" "$matched" \
    tests/train/bn.sg --ranks 2 --steps 2 --batch 16 --check \
    --load "$tmp/plain.safetensors"
# evaluation uses the running statistics: the test split's loss is
# reported (seeded data has none, so a training run with --eval on data
# is left to the ResNet example)
run "training=false trains as one device" "$matched" \
    tests/train/bn-eval.sg --ranks 4 --steps 3 --batch 16 --check \
    --check-every 1
run "examples/resnet.sg on 8 ranks" "$matched" examples/resnet.sg \
    --ranks 8 --steps 2 --batch 16 --check
# the search's plan (--auto) must update the running statistics in
# their own buffers: a plan whose update was laid out apart from them
# lost it, and --check, comparing with the same plan on one device, did
# not see it; so the checkpoint is compared with one device's training
run "searched plan on 8 ranks" "saved" tests/train/bn.sg --ranks 8 --auto \
    --steps 3 --batch 16 --save "$tmp/auto.safetensors"
run "one device" "saved" tests/train/bn.sg --ranks 1 --steps 3 --batch 16 \
    --save "$tmp/one.safetensors"
n=$((n + 1))
if "$top_builddir/tests/st_compare" "$tmp/auto.safetensors" \
    "$tmp/one.safetensors" 1e-5 1e-6 >"$tmp/out" 2>&1; then
	echo "ok $n - the searched plan's running statistics are one device's"
else
	echo "not ok $n - the searched plan's running statistics are one device's"
	sed 's/^/# /' "$tmp/out"
	failed=yes
fi
test -z "$failed"
