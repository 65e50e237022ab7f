#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end runs of shape-train on sequences: a small text corpus this
# script writes (records of 1 to 20 bytes, an empty one, one of a single
# byte) and tests/train/lm8.sg, a tiny causal language model with b and s
# dynamic on 8 devices:
#  - --json step objects carry the bindings b and s, tokens and
#    padded_tokens, with b * s = padded_tokens >= tokens and b * s <=
#    --tokens-per-batch; a last "end" object gives the totals; the
#    corpus's notice counts what it dropped;
#  - --no-shuffle gives the batches worked out by hand below;
#  - --pad-to-max runs every step at s = 16;
#  - --check matches one device across buckets on 8, 2 and 1 ranks, and
#    on examples/gpt.sg (data parallel) and examples/gpt_tp.sg (tensor
#    and data parallel, the vocabulary split: its embedding's and its
#    class-split loss's all-reduces planned) on 8 ranks; --eval-split
#    evaluates per token;
#  - bad input is refused with its message: a --tokens-per-batch below
#    the least bucket's batch, a separator that never occurs, a token
#    option without a corpus;
#  - with MPI (RUN_MPI=yes), 2 processes train the steps the threads
#    backend trains, to the same losses within float tolerance.
#
# Usage: tests/check-train-seq.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, when set, is put in front of the tool;
# SYM_MPI_TIMEOUT, the time limit of an mpirun in seconds (default 300).

harness=check-train-seq
. "$(dirname "$0")/train-harness.sh"
# Refusals here may follow steps that printed.
refuse_quiet=no

# The corpus: record i of the lengths below is the letter A + i repeated
# s times and a newline (s + 1 bytes, sequence length s); then an empty
# record and a record of one byte, both dropped.
corpus=$tmp/corpus.txt
i=0
for s in 3 9 5 2 12 7 4 20 1 6 15 8 11 3 16 2; do
	awk -v s="$s" -v c="$i" 'BEGIN {
		for (k = 0; k < s; k++) printf "%c", 65 + c
		printf "\n%%\n"
	}' >>"$corpus"
	i=$((i + 1))
done
printf '%%\n\n%%\n' >>"$corpus"

# steps NAME: the steps of NAME's JSON output as "b s tokens padded"
# lines; fails (status 1) when a line is neither a step nor the end
# object of shape-train(1).
steps()
{
	awk '
	/^\{"event": "step", "epoch": [0-9]+, "step": [0-9]+, "loss": [-0-9.e+]+, "bindings": \{"b": [0-9]+, "s": [0-9]+\}, "tokens": [0-9]+, "padded_tokens": [0-9]+\}$/ {
		gsub(/[{}",:]/, " ")
		print $11, $13, $15, $17
		next
	}
	/^\{"event": "(end|eval)", / { next }
	{ bad = 1 }
	END { exit bad }' "$tmp/$1.out"
}

# --- Buckets in file order: s divisor=4 max=16, 32 tokens: bucket 4
# holds records 0 3 6 8 13 15 (b 8 -> 6 records, bound at 6; 15 tokens),
# bucket 8 records 2 5 9 11 (b 4; 26 tokens), bucket 12 records 1 4 12
# (b 2: 1 4 | 12 and a pad row; 21 and 11 tokens), bucket 16 records 10
# 14 (b 2; 31 tokens); record 7 (s 20) is dropped. The batches in the
# order of their first record: 0, 1, 2, 10, 12.
if ok buckets tests/train/lm8.sg --dataset "text:$corpus" --ranks 1 \
    --tokens-per-batch 32 --no-shuffle --epochs 1 --json; then
	steps buckets >"$tmp/buckets.steps" || fail buckets "bad JSON"
	cat >"$tmp/buckets.want" <<'WANT'
6 4 15 24
2 12 21 24
4 8 26 32
2 16 31 32
2 12 11 24
WANT
	if ! cmp -s "$tmp/buckets.steps" "$tmp/buckets.want"; then
		fail buckets "other batches than worked out by hand"
		diff "$tmp/buckets.want" "$tmp/buckets.steps"
	elif ! grep -q -F '"event": "end", "steps": 5, "tokens": 104, "padded_tokens": 136' \
	    "$tmp/buckets.out"; then
		fail buckets "no end object with the totals"
	elif ! grep -q -F 'dropped 1 empty and 1 of one token' \
	    "$tmp/buckets.err" ||
	    ! grep -q -F '1 records longer than s max=16 divisor=4 unique admits dropped' \
	    "$tmp/buckets.err"; then
		fail buckets "no notice of the records dropped"
	else
		echo "ok: buckets: the batches worked out by hand"
	fi
fi

# --- --pad-to-max: every step at s = 16, b = 2.
if ok padmax tests/train/lm8.sg --dataset "text:$corpus" --ranks 1 \
    --tokens-per-batch 32 --pad-to-max --epochs 1 --json; then
	if ! steps padmax >"$tmp/padmax.steps" ||
	    test "$(wc -l <"$tmp/padmax.steps")" -ne 8 ||
	    grep -v -q '^2 16 [0-9]* 32$' "$tmp/padmax.steps"; then
		fail padmax "steps other than 8 of b=2, s=16"
	else
		echo "ok: padmax: 8 steps at s=16"
	fi
fi

# --- Shuffled buckets on 8, 2 and 1 ranks against one device, every
# batch within 48 tokens, and an evaluation on the held-out quarter (the
# last 4 of 16 records: 11 + 3 + 16 + 2 tokens). On 2 ranks the model
# runs with its default strategies.
sed 's/ shard ((2, 1), (1, 4))//' tests/train/lm8.sg >"$tmp/lm.sg"
for r in 8 2 1; do
	graph=$tmp/lm.sg
	test "$r" = 8 && graph=tests/train/lm8.sg
	if ok "check$r" "$graph" --dataset "text:$corpus" \
	    --ranks "$r" --tokens-per-batch 48 --epochs 2 --check \
	    --check-every 2 --eval-split 0.25 --json; then
		if ! steps "check$r" >"$tmp/check$r.steps" ||
		    awk '$1 * $2 != $4 || $4 > 48 || $3 > $4 { bad = 1 }
		    END { exit !bad }' "$tmp/check$r.steps"; then
			fail "check$r" "a step beyond the tokens or not b * s"
		elif ! grep -q -E '^\{"event": "eval", "epoch": 2, "loss": [0-9.]+, "accuracy": [0-9.]+, "perplexity": [0-9.]+, "tokens": 32\}$' \
		    "$tmp/check$r.out"; then
			fail "check$r" "no evaluation of the 32 held-out tokens"
		else
			echo "ok: check$r: $r ranks match one device"
		fi
	fi
done

# --- The byte-level GPT of the examples, 8 ranks against one device.
if ok gpt examples/gpt.sg --dataset "text:$corpus" --tokens-per-batch 512 \
    --max-len 32 --steps 3 --check --json; then
	if ! steps gpt >/dev/null; then
		fail gpt "bad JSON"
	else
		echo "ok: gpt: examples/gpt.sg on 8 ranks matches one device"
	fi
fi

# --- Its Megatron variant: heads, MLP and vocabulary split 4 ways, b 2
# ways. Its plan holds the vocabulary's three derived all-reduces over
# the 4 ranks of each model group: the partial embeddings of the split
# table, and the class-split loss's two per-row statistics.
if ok gpt_tp examples/gpt_tp.sg --dataset "text:$corpus" \
    --tokens-per-batch 512 --max-len 32 --steps 3 --check --json; then
	if ! steps gpt_tp >/dev/null; then
		fail gpt_tp "bad JSON"
	else
		echo "ok: gpt_tp: tensor and data parallel match one device"
	fi
fi
$SYM_TEST_WRAPPER "$top_builddir/shape-check" "$top_srcdir/examples/gpt_tp.sg" \
    >"$tmp/gpt_tp.check" 2>&1
vocab=$(grep -A1 -e '^  tok after embedding tok (partial sums)' \
    -e '^  loss.target after sce_target' -e '^  loss.sumexp after sce_sumexp' \
    "$tmp/gpt_tp.check" | grep -c 'all_reduce  over vocab\|all_reduce  over class')
if test "$vocab" = 3; then
	echo "ok: gpt_tp-vocab: the vocabulary's 3 all-reduces are planned"
else
	fail gpt_tp-vocab "$vocab of the vocabulary's 3 all-reduces planned"
fi

# --- Bad input.
refuse small 1 '--tokens-per-batch 7 holds no batch of the bucket s=4' \
    tests/train/lm8.sg --dataset "text:$corpus" --ranks 1 \
    --tokens-per-batch 7 --steps 1
refuse nosep 1 'never occurs in its' tests/train/lm8.sg \
    --dataset "text:$corpus,sep=@@" --ranks 1 --steps 1
refuse notext 2 'need a corpus of sequences' tests/train/lm8.sg \
    --max-len 8 --steps 1

# --- MPI: 2 processes train the steps the threads backend trains.
if test "$RUN_MPI" = yes; then
	n=$((n + 1))
	harness_mpirun 2 mpi "$tmp/lm.sg" --dataset "text:$corpus" \
	    --tokens-per-batch 48 --epochs 2 --json
	run threads "$tmp/lm.sg" --dataset "text:$corpus" --ranks 2 \
	    --tokens-per-batch 48 --epochs 2 --json
	if test "$(cat "$tmp/mpi.status")" -ne 0; then
		fail mpi "exit status $(cat "$tmp/mpi.status")"
	elif ! steps mpi >"$tmp/mpi.steps" ||
	    ! steps threads >"$tmp/threads.steps" ||
	    ! cmp -s "$tmp/mpi.steps" "$tmp/threads.steps"; then
		fail mpi "other batches than the threads backend's"
	elif ! paste -d ' ' "$tmp/threads.out" "$tmp/mpi.out" | awk '
	    /"step"/ {
		n = split($0, f, /"loss": /)
		if (n != 3) exit 1
		a = f[2] + 0; b = f[3] + 0; d = a - b; if (d < 0) d = -d
		if (d > 1e-5 * (a < 0 ? -a : a) + 1e-6) exit 1
	    }'; then
		fail mpi "losses other than the threads backend's"
	else
		echo "ok: mpi: 2 processes train as the threads backend does"
	fi
fi

harness_finish
