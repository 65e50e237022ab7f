#!/bin/sh
# SPDX-License-Identifier: MIT
# shape-train fine-tunes an imported ONNX model on a token corpus:
# tests/onnx/gpt_train.sg imports gpt_tiny.onnx (PyTorch's export, input
# ids i64[batch, seq], vocabulary 32), adds a loss and AdamW and shards it
# by ONNX node name on 8 devices; tests/onnx/corpus32.safetensors is
# tests/onnx/corpus.txt tokenised into 32 ids by tests/onnx/gen_corpus.py,
# and its ids are i32, fed in the model's i64.
#  - 6 steps on 8 ranks with --check (every step equals one device), the
#    loss of the last step below that of the first, a checkpoint saved;
#  - the same 6 steps on 1 rank give the same losses (1e-5 relative);
#  - the checkpoint reloaded on 1 rank: the same batches (same seed) now
#    all have a lower loss than from the exported weights;
#  - the corpus as text (bytes up to 121) is refused at its first step,
#    naming the sample, the vocabulary [0, 32) and the ONNX node.
#
# Usage: tests/check-onnx-train.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER (valgrind), when set: skipped (exit 77).

harness=check-onnx-train
. "$(dirname "$0")/train-harness.sh"

# Under valgrind its 8-rank runs would add minutes of CI; the sanitizer
# build runs this script whole, with leak checking, instead.
if test -n "${SYM_TEST_WRAPPER:-}"; then
	echo "$harness: skipped under valgrind (the sanitizer build runs it)"
	exit 77
fi

sg=tests/onnx/gpt_train.sg
data=tokens:tests/onnx/corpus32.safetensors,vocab=32
common="--dataset $data --tokens-per-batch 128 --steps 6 --json"

# same A B: the losses of cases A and B agree within 1e-5 relative.
same()
{
	losses "$1" >"$tmp/$1.losses"
	losses "$2" >"$tmp/$2.losses"
	test "$(wc -l <"$tmp/$1.losses")" -eq 6 &&
	    paste "$tmp/$1.losses" "$tmp/$2.losses" | awk '{
		d = $1 - $2; if (d < 0) d = -d
		if (d > 1e-5 * ($2 < 0 ? -$2 : $2)) exit 1
	    }'
}

# shellcheck disable=SC2086
if ok r8 "$sg" $common --check --save "$tmp/ft.safetensors"; then
	losses r8 >"$tmp/r8.losses"
	if test "$(wc -l <"$tmp/r8.losses")" -ne 6; then
		fail r8 "not 6 steps"
	elif grep -q MISMATCH "$tmp/r8.out"; then
		fail r8 "a step differs from one device"
	elif ! awk 'NR == 1 { first = $1 } END { exit !($1 < first) }' \
	    "$tmp/r8.losses"; then
		fail r8 "the loss did not fall"
	elif ! test -s "$tmp/ft.safetensors"; then
		fail r8 "no checkpoint"
	else
		echo "ok: r8: 8 ranks equal one device, the loss falls"
	fi
fi

# shellcheck disable=SC2086
if ok r1 "$sg" $common --ranks 1; then
	if same r1 r8; then
		echo "ok: r1: one rank trains to the losses of 8"
	else
		fail r1 "losses other than on 8 ranks"
		paste "$tmp/r1.losses" "$tmp/r8.losses"
	fi
fi

# shellcheck disable=SC2086
if ok reload "$sg" $common --ranks 1 --load "$tmp/ft.safetensors"; then
	losses reload >"$tmp/reload.losses"
	if test "$(wc -l <"$tmp/reload.losses")" -ne 6 ||
	    ! paste "$tmp/reload.losses" "$tmp/r1.losses" |
	    awk '!($1 < $2) { exit 1 }'; then
		fail reload "a batch not lower than from the exported weights"
		paste "$tmp/reload.losses" "$tmp/r1.losses"
	else
		echo "ok: reload: the fine-tuned weights lower every batch's loss"
	fi
fi

refuse bytes 1 "sample 16 of text:tests/onnx/corpus.txt (train): ids = 116 (element 0) is out of range [0, 32) of gather /tok/Gather_output_0 (ONNX node '/tok/Gather')" \
    "$sg" --dataset text:tests/onnx/corpus.txt --steps 1

harness_finish
