#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end runs of shape-train on what its command line must refuse or
# do besides training (tests/check-train.sh checks the training itself),
# on small MNIST/IDX files this script writes:
#  - divergence: a NaN loss stops training with an error naming the
#    step, and nothing is saved; --check says the run diverged instead of
#    reporting a MISMATCH; --allow-nonfinite goes on and saves, and a
#    checkpoint holding NaN is refused on load unless it is given;
#  - results that mean nothing are errors: data without samples, a test
#    split no batch of which the batch symbol admits, --eval without
#    class scores, an epoch that runs no step (which --steps used to
#    loop over forever), '--batch 8,,16', an input mapped twice;
#  - --rescale and --normalize map their transforms over a column in
#    order (a rescaling undone by a normalisation trains as no transform;
#    a normalisation alone trains otherwise) and refuse what they cannot
#    do;
#  - --rank-table reads MindSpore's rank table and must place every rank;
#  - a batch beyond the machine's memory is refused naming that limit,
#    and the same batch on a few rows trains on the rows.
#
# Usage: tests/check-train-cli.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER, when set, is put in front of the tool (valgrind).

harness=check-train-cli
. "$(dirname "$0")/train-harness.sh"
# Every run within 60 s (an endless loop fails its case); a refusal
# may follow steps that printed (a divergence).
run_timeout=60
refuse_quiet=no

# 40 training samples and 16 test samples; 0 and 2 in the others.
mkdir "$tmp/data" "$tmp/empty" "$tmp/small" || exit 1
idx "$tmp/data" train 40
idx "$tmp/data" t10k 16
idx "$tmp/empty" train 0
idx "$tmp/empty" t10k 0
idx "$tmp/small" train 40
idx "$tmp/small" t10k 2
data=mnist:$tmp/data

# --- Divergence: sgd(lr=1e6) gives a NaN loss at step 5 of clf4 on
# seeded data.
sed 's/^minimize.*/minimize loss with sgd(lr=1e6)/' tests/train/clf4.sg \
    >"$tmp/div.sg"
ck=$tmp/div.safetensors
div='step 5 (epoch 1): the loss is NaN: training diverged'
if refuse div-stop 1 "$div" "$tmp/div.sg" --steps 50 --batch 8 --save "$ck" \
    --json; then
	if test -e "$ck"; then
		fail div-stop "weights of a diverged run were saved"
	elif test "$(grep -c '"event": "step"' "$tmp/div-stop.out")" -ne 4; then
		fail div-stop "not the 4 steps before the divergence"
	fi
fi
if refuse div-check 1 "$div" "$tmp/div.sg" --steps 50 --batch 8 --check &&
    grep -q MISMATCH "$tmp/div-check.out" "$tmp/div-check.err"; then
	fail div-check "the divergence reported as a MISMATCH"
fi
if ok div-allow "$tmp/div.sg" --steps 6 --batch 8 --json \
    --allow-nonfinite --save "$ck"; then
	if test "$(losses div-allow | tr '\n' ' ')" != \
	    "$(losses div-stop | tr '\n' ' ')null null "; then
		fail div-allow "not the same steps then NaN losses"
	elif ! test -f "$ck"; then
		fail div-allow "--allow-nonfinite did not save"
	else
		echo "ok: div-allow: --allow-nonfinite trains on and saves"
	fi
	refuse div-load 1 "$ck: tensor 'w1' holds NaN at element 0: a \
checkpoint of a diverged run is refused" "$tmp/div.sg" --steps 1 --batch 8 \
	    --load "$ck"
	ok div-load-allow "$tmp/div.sg" --steps 1 --batch 8 --load "$ck" \
	    --allow-nonfinite --quiet
fi

# --- Results that mean nothing.
refuse empty 1 "trainer: the training data mnist:$tmp/empty (train) has \
no samples" tests/train/clf4.sg --dataset "mnist:$tmp/empty" --batch 8
refuse empty-steps 1 "has no samples" tests/train/clf4.sg \
    --dataset "mnist:$tmp/empty" --batch 8 --steps 5
refuse small-test 1 "evaluation: none of the 2 samples of mnist:$tmp/small \
(test) was evaluated: the batch symbol admits no batch of 2" \
    tests/train/clf4.sg --dataset "mnist:$tmp/small" --batch 8 --eval
sed '/^output logits/d' tests/train/clf4.sg >"$tmp/noscores.sg"
refuse eval-noscores 1 "--eval: $tmp/noscores.sg has no class scores" \
    "$tmp/noscores.sg" --dataset "$data" --batch 8 --eval
nostep="epoch 1 runs no step: $data (train) has 40 samples, fewer than one \
batch, and the remainder is dropped (--drop-remainder)"
refuse nostep-epochs 1 "$nostep" tests/train/clf4.sg --dataset "$data" \
    --batch 64 --drop-remainder
refuse nostep-steps 1 "$nostep" tests/train/clf4.sg --dataset "$data" \
    --batch 64 --drop-remainder --steps 3
refuse batch-empty 2 "--batch expects positive integers B[,B...], not \
'8,,16'" tests/train/clf4.sg --steps 1 --batch 8,,16
refuse map-twice 1 "--map binds input 'x' twice: 'x=image' and 'x=label'" \
    tests/train/clf4.sg --dataset "$data" --batch 8 --map x=image,x=label

# --- Limits name themselves: a batch of 2^40 without data needs more
# than any machine (x2, 2^39 x 6 f32 on each of 2 ranks: 13194139533312
# bytes), refused before anything is allocated; on 64 rows the same
# batch trains batches of the 64 rows.
refuse batch-limit 2 "shape-train: rank 0: memory limit: the blocks of this \
rank need" \
    tests/train/clf4.sg --steps 1 --batch 1099511627776
has batch-limit "GiB of memory of this machine; the largest is \
f32[549755813888, 6] of x2, 13194139533312 bytes" "the largest block named"
ok batch-rows tests/train/clf4.sg --dataset "$data" --steps 2 \
    --batch 1099511627776 --json &&
    has batch-rows '"bindings": {"b": 40}' "the batch is the 40 rows"

# --- Transforms: 2x - 1 then (y + 1) / 2 gives the images back.
base="tests/train/clf4.sg --dataset $data --batch 8 --json --no-shuffle"
# shellcheck disable=SC2086
{
	ok map-none $base
	ok map-identity $base --rescale 2,-1 --normalize image=-1/2
	ok map-normalize $base --normalize 0.4/0.3
}
if test "$(losses map-none)" != "$(losses map-identity)"; then
	fail map-identity "a rescaling undone by a normalisation changed the \
losses"
elif test "$(losses map-none)" = "$(losses map-normalize)"; then
	fail map-normalize "the normalisation changed nothing"
elif test "$(losses map-none | wc -l)" -ne 5; then
	fail map-none "not 5 steps"
else
	echo "ok: map: transforms compose in order and apply"
fi
# shellcheck disable=SC2086
{
	refuse map-usage 2 "--normalize expects \
[COLUMN=]MEAN[,MEAN...]/STD[,STD...], not '0.5'" $base --normalize 0.5
	refuse map-usage-rescale 2 "--rescale expects [COLUMN=]SCALE[,SHIFT], \
not 'x'" $base --rescale x
	refuse map-channels 1 "normalize: column 'image' of $data (train) has 1 \
channel (the first dimension of a row): give 1 or 1 means and standard \
deviations, not 2" $base --normalize 0.1,0.2/0.3,0.4
	refuse map-int 1 "rescale: column 'label' of $data (train) is i32: only \
f32 and f64 columns are transformed" $base --rescale label=1/255
	refuse map-std 1 "the standard deviation 0 positive" $base \
	    --normalize 0.5/0
	refuse map-nodata 2 "--rescale and --normalize need --dataset" \
	    tests/train/clf4.sg --steps 1 --rescale 0.5
}

# --- --rank-table: the 8 ranks of the golden table; 16 ranks are not
# all placed.
table=tests/golden/data/rank_table.json
ok rank-table tests/train/clf8.sg --dataset "$data" --batch 8 --steps 2 \
    --rank-table "$table" --quiet
refuse rank-table-short 2 "$table places no rank 8, but the run has 16 \
ranks" tests/train/clf8.sg --steps 1 --batch 16 --ranks 16 \
    --rank-table "$table"
refuse rank-table-bad 2 "cannot open $tmp/none.json" tests/train/clf8.sg \
    --steps 1 --batch 8 --rank-table "$tmp/none.json"

# --- --ranks 1 drops the strategies of clf8.sg (8 devices), with a
# notice, and evaluates as clf1.sg, the same network on one device.
if ok ranks-one tests/train/clf8.sg --ranks 1 --dataset "$data" --batch 8 \
    --steps 0 --eval --json &&
    ok ranks-one-ref tests/train/clf1.sg --dataset "$data" --batch 8 \
    --steps 0 --eval --json; then
	if ! grep -q -F "shape-train: on 1 rank: the strategies of \
tests/train/clf8.sg for 8 devices are dropped" "$tmp/ranks-one.err"; then
		fail ranks-one "no notice of the strategies dropped"
	elif ! grep -q '"event": "eval"' "$tmp/ranks-one.out" ||
	    ! cmp -s "$tmp/ranks-one.out" "$tmp/ranks-one-ref.out"; then
		fail ranks-one "not the evaluation of the one-device graph"
	else
		echo "ok: ranks-one: 8 devices' graph evaluated on 1 rank"
	fi
fi

# --- Errors name the training step and the dataset sample: sample 13
# of the data has the label 200 of 3 classes.
mkdir "$tmp/bad" || exit 1
cp "$tmp/data/train-images-idx3-ubyte" "$tmp/bad/" || exit 1
cp "$tmp/data/train-images-idx3-ubyte" "$tmp/bad/t10k-images-idx3-ubyte" ||
    exit 1
for split in train t10k; do
	{
		echo 0 0 8 1
		be32 40
		awk 'BEGIN { for (i = 0; i < 40; i++)
		    printf "%d ", i == 13 ? 200 : i % 3 }'
	} | tr '\n' ' ' | bytes >"$tmp/bad/$split-labels-idx1-ubyte"
done
label="sample 13 of mnist:$tmp/bad (train): y = 200 is out of range [0, 3) \
of softmax_cross_entropy loss at tests/train/clf4.sg:15:10"
refuse label-step 1 "shape-train: step 2 (epoch 1): $label" \
    tests/train/clf4.sg --dataset "mnist:$tmp/bad" --batch 8 --no-shuffle
refuse label-eval 1 "shape-train: evaluation: sample 13 of mnist:$tmp/bad \
(test): y = 200" tests/train/clf4.sg --dataset "mnist:$tmp/bad" --batch 40 \
    --steps 0 --eval

# --- The graph from the standard input; one message for --ranks 0; the
# evaluation of --steps 0 is before training; a run under mpirun on
# threads is refused.
n=$((n + 1))
sh tests/with-timeout.sh 60 $SYM_TEST_WRAPPER "$tool" - --steps 2 --batch 8 \
    --json <tests/train/clf4.sg >"$tmp/stdin.out" 2>"$tmp/stdin.err"
echo $? >"$tmp/stdin.status"
if test "$(status stdin)" -ne 0; then
	fail stdin "exit status $(status stdin), not 0"
elif test "$(grep -c '"event": "step"' "$tmp/stdin.out")" -ne 2; then
	fail stdin "not 2 steps"
else
	echo "ok: stdin: '-' reads the graph from the standard input"
fi
if refuse ranks-zero 2 "--ranks expects an integer from 1 to 65536, not '0'" \
    tests/train/clf4.sg --steps 1 --ranks 0 &&
    test "$(grep -c -e '--ranks' "$tmp/ranks-zero.err")" -ne 1; then
	fail ranks-zero "not one message"
fi
if ok eval-zero tests/train/clf4.sg --dataset "$data" --batch 8 --steps 0 \
    --eval; then
	if ! grep -q '^eval before training: loss [0-9.]*, accuracy ' \
	    "$tmp/eval-zero.out" || grep -q 'epoch 0' "$tmp/eval-zero.out"; then
		fail eval-zero "not an evaluation before training"
	fi
fi
OMPI_COMM_WORLD_SIZE=4
OMPI_COMM_WORLD_RANK=0
export OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK
refuse launcher 2 "started as one of 4 processes of mpirun, but the backend \
is threads" tests/train/clf4.sg --steps 1
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK

harness_finish
