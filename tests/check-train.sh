#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end runs of shape-train on small MNIST/IDX files this script
# writes (2x3-pixel images, 3 classes; tests/train/*.sg are classifiers
# of them on 1, 4 and 8 devices) and on the examples:
#  - --json prints exactly one JSON object per line, with the fields of
#    shape-train(1) and nothing else (steps counted across epochs, one
#    eval line per epoch); notices go to the standard error;
#  - the last batch is bound when the batch symbol admits it and dropped
#    with a notice naming the declaration otherwise, or always with
#    --drop-remainder;
#  - --check matches one device on the examples and on the data, and
#    reports a MISMATCH with exit status 1 under a tolerance below float
#    rounding;
#  - a checkpoint saved on 8 ranks is loaded by 4 ranks with other
#    strategies and by 1 rank, which evaluate to the same loss and
#    accuracy;
#  - every bad input is refused with its message and nothing trains:
#    status 1 for a bad --map, a column of another dtype or shape, a
#    missing dataset, a checkpoint with a missing tensor, another dtype or
#    shape, truncated or not one; status 2 for usage errors;
#  - with MPI (RUN_MPI=yes), 4 processes under mpirun train the steps the
#    threads backend trains, to the same losses bitwise (both backends sum
#    in rank order), each process reading its own rows; every mpirun runs
#    within a time limit, so that a hang fails the test.
#
# Usage: tests/check-train.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, when set, is put in front of the tool
# (valgrind), but not under mpirun; SYM_MPI_TIMEOUT, the time limit of
# an mpirun in seconds (default 300).

harness=check-train
. "$(dirname "$0")/train-harness.sh"

# 42 training samples: batches of 8 leave 2, which divisor=4 refuses;
# 24 test samples: batches of 8 on every graph.
mkdir "$tmp/data" "$tmp/bad" || exit 1
idx "$tmp/data" train 42
idx "$tmp/data" t10k 24
data=mnist:$tmp/data
if test "$(wc -c <"$tmp/data/train-images-idx3-ubyte")" -ne 268 ||
    test "$(wc -c <"$tmp/data/train-labels-idx1-ubyte")" -ne 50; then
	echo "check-train: the IDX files were not written as expected" >&2
	exit 1
fi

# json_ok NAME: every line of NAME's standard output is a step or an
# eval object with exactly the fields of shape-train(1), in their order.
json_ok()
{
	num='-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?'
	step="\{\"event\": \"step\", \"epoch\": [1-9][0-9]*, \"step\":"
	step="$step [1-9][0-9]*, \"loss\": ($num|null), \"bindings\":"
	step="$step \{\"b\": [1-9][0-9]*\}\}"
	eval="\{\"event\": \"eval\", \"epoch\": [0-9]+, \"loss\": ($num|null),"
	eval="$eval \"accuracy\": ($num|null)\}"
	! grep -E -v -x "$step|$eval" "$tmp/$1.out" | grep -q .
}

# --- --json: two epochs of 5 steps of 8 (the 2 left over dropped), an
# evaluation after each; nothing but the objects on stdout.
if ok json tests/train/clf4.sg --dataset "$data" --batch 8 --epochs 2 \
    --eval --json; then
	steps=$(grep -c '"event": "step"' "$tmp/json.out")
	evals=$(grep -c '"event": "eval"' "$tmp/json.out")
	order=$(sed 's/^{"event": "\([a-z]*\)", "epoch": \([0-9]*\).*/\1 \2/' \
	    "$tmp/json.out" | uniq -c |
	    awk '{ printf("%s%s:%s:%s", NR > 1 ? "," : "", $1, $2, $3) }')
	notice='the last batch of 2 samples dropped: b = 2 violates'
	notice="$notice divisor=4 declared at tests/train/clf4.sg:6:8"
	numbers=$(sed -n 's/.*"step": \([0-9]*\),.*/\1/p' "$tmp/json.out" |
	    tr '\n' ' ')
	if ! json_ok json; then
		fail json "a line is not a step or eval object as specified"
	elif test "$steps" -ne 10 || test "$evals" -ne 2; then
		fail json "$steps steps and $evals evals, not 10 and 2"
	elif test "$order" != "5:step:1,1:eval:1,5:step:2,1:eval:2"; then
		fail json "events in the order $order"
	elif test "$numbers" != "1 2 3 4 5 6 7 8 9 10 "; then
		fail json "steps numbered $numbers"
	elif test "$(grep -c -F "$notice" "$tmp/json.err")" -ne 2; then
		fail json "not one notice naming the declaration per epoch"
	elif grep -q 'accuracy": null' "$tmp/json.out"; then
		fail json "no accuracy"
	else
		echo "ok: json: one object per line, 10 steps, 2 evaluations"
	fi
fi

# --- The last batch: 44 samples in batches of 8 end with 4, which
# divisor=4 admits: it runs as b = 4; --drop-remainder drops it.
mkdir "$tmp/data44" || exit 1
idx "$tmp/data44" train 44
if ok last-bound tests/train/clf4.sg --dataset "mnist:$tmp/data44" \
    --batch 8 --json; then
	if test "$(sed -n '$s/.*"bindings": {"b": \([0-9]*\)}}$/\1/p' \
	    "$tmp/last-bound.out")" != 4 ||
	    test "$(grep -c '"event": "step"' "$tmp/last-bound.out")" -ne 6
	then
		fail last-bound "not 5 steps of 8 and a last one of 4"
	elif test -s "$tmp/last-bound.err"; then
		fail last-bound "a notice though nothing was dropped"
	else
		echo "ok: last-bound: the last 4 samples run as b = 4"
	fi
fi
if ok last-drop tests/train/clf4.sg --dataset "mnist:$tmp/data44" \
    --batch 8 --json --drop-remainder; then
	if test "$(grep -c '"bindings": {"b": 8}}$' "$tmp/last-drop.out")" \
	    -ne 5 || test "$(wc -l <"$tmp/last-drop.out")" -ne 5; then
		fail last-drop "not 5 steps of 8"
	elif ! grep -q -x -F \
	    'shape-train: epoch 1: the last 4 samples dropped (--drop-remainder)' \
	    "$tmp/last-drop.err"; then
		fail last-drop "no notice of --drop-remainder"
	else
		echo "ok: last-drop: --drop-remainder drops the last 4 samples"
	fi
fi

# --- --check: the examples (seeded data) and the data on 4 ranks match
# one device; tolerances below float rounding give a MISMATCH.
matched='in .*; every step matched one device$'
for ex in ffn_train mlp_train; do
	if ok "check-$ex" "examples/$ex.sg" --steps 3 --batch 16,8,24 --check \
	    --check-every 2; then
		if ! grep -q "^trained 3 steps (48 samples) $matched" \
		    "$tmp/check-$ex.out"; then
			fail "check-$ex" "no summary of 3 steps that matched"
		else
			echo "ok: check-$ex: 3 steps match one device"
		fi
	fi
done
if ok check-data tests/train/clf4.sg --dataset "$data" --batch 8 \
    --epochs 2 --check; then
	if ! grep -q "^trained 10 steps (80 samples) $matched" \
	    "$tmp/check-data.out"; then
		fail check-data "no summary of 10 steps that matched"
	else
		echo "ok: check-data: 10 steps on the data match one device"
	fi
fi
# The class-split cross entropy (vocab_parallel=1): a head of 4 classes
# (the data's 3 and one never labelled) split over the 2 devices of the
# hidden layer matches one device at every step, and its losses are
# those of the same network whose loss keeps the classes whole, to 1e-6
# relative (the split loss subtracts the label's logit and sums in f64,
# the whole one subtracts the row's maximum in f32).
sed -e 's/param  w2 : f32\[8, 3\]/param  w2 : f32[8, 4]/' \
    -e 's/^loss   = softmax_cross_entropy(logits, y)$/loss = softmax_cross_entropy(logits, y, ignore_index=-1)/' \
    tests/train/clf4.sg >"$tmp/whole.sg"
sed 's/ignore_index=-1)$/ignore_index=-1, vocab_parallel=1) shard ((2, 2), (2,))/' \
    "$tmp/whole.sg" >"$tmp/vocab.sg"
if ok vocab-check "$tmp/vocab.sg" --dataset "$data" --batch 8 --epochs 2 \
    --check --check-every 1 &&
    ok vocab-json "$tmp/vocab.sg" --dataset "$data" --batch 8 --epochs 2 \
        --json &&
    ok vocab-whole "$tmp/whole.sg" --dataset "$data" --batch 8 --epochs 2 \
        --json; then
	losses vocab-json >"$tmp/vocab-losses"
	if ! grep -q "^trained 10 steps (80 samples) $matched" \
	    "$tmp/vocab-check.out"; then
		fail vocab-check "no summary of 10 steps that matched"
	elif test "$(losses vocab-json | wc -l)" -ne 10 ||
	    ! losses vocab-whole | paste - "$tmp/vocab-losses" |
	    awk '{ d = $1 - $2; if (d < 0) d = -d
	           if (d > 1e-6 * $2) bad = 1 } END { exit bad }'; then
		fail vocab-json "its losses $(losses vocab-json | tr '\n' ' ')are \
not the whole loss's $(losses vocab-whole | tr '\n' ' ')"
	else
		echo "ok: vocab-check: classes split, one device matched," \
		    "the losses of the whole loss"
	fi
fi
# A searched graph trains on the piece of its first batch size (weights
# cut over 2 devices at b = 2048) and matches one device at every step,
# including the smaller sizes of the schedule. Its batches are large:
# under valgrind (SYM_TEST_WRAPPER) this case runs the tool bare, as the
# unit tests check the search's memory.
wrapper=$SYM_TEST_WRAPPER
SYM_TEST_WRAPPER=
if ok check-search examples/auto_mlp.sg --steps 3 --batch 2048,64,1256 \
    --check; then
	if ! grep -q "^trained 3 steps (3368 samples) $matched" \
	    "$tmp/check-search.out"; then
		fail check-search "no summary of 3 steps that matched"
	elif ! grep -q "^shape-train: searched 4 operators: piece 2 of 5, \
1248 <= b <= 4432, runs$" "$tmp/check-search.err"; then
		fail check-search "no notice of the piece that runs"
	else
		echo "ok: check-search: the searched plan matches one device"
	fi
fi
SYM_TEST_WRAPPER=$wrapper
# Under a cap that only b <= 23776 meets (optimizer sharding chosen by
# the search from b = 22496 up: level 1, then 2 from 23296 and 3 from
# 23536, each only where the level below misses), a run at b = 64 trains
# on the first piece, and one at b = 32768 is refused before training,
# naming its size and the range where no plan fits.
if ok search-cap-fits examples/auto_mlp.sg --steps 1 --batch 64 \
    --memory 100MiB; then
	if ! grep -q "^shape-train: searched 4 operators: piece 1 of 10, \
64 <= b <= 1240, runs$" "$tmp/search-cap-fits.err"; then
		fail search-cap-fits "no notice of the piece that runs"
	else
		echo "ok: search-cap-fits: the pieces that fit the cap run"
	fi
fi
refuse search-cap-refused 1 "examples/auto_mlp.sg: b = 32768: no plan \
fits the memory cap for b in [23784, 65536]" examples/auto_mlp.sg \
    --steps 1 --batch 32768 --memory 100MiB
mismatch check-tight examples/ffn_train.sg --steps 3 --batch 16 --check \
    --rtol 1e-15 --atol 1e-15
mismatch check-tight-f64 examples/mlp_train.sg --steps 3 --batch 16 \
    --check --rtol 1e-15 --atol 1e-15
# With --json the MISMATCH goes to the standard error, stdout keeping
# only the objects.
n=$((n + 1))
run check-tight-json examples/ffn_train.sg --steps 3 --batch 16 --check \
    --rtol 1e-15 --atol 1e-15 --json
if test "$(status check-tight-json)" -ne 1; then
	fail check-tight-json "exit status $(status check-tight-json), not 1"
elif ! grep -q '^MISMATCH step [0-9]*: loss ' "$tmp/check-tight-json.err"
then
	fail check-tight-json "no MISMATCH on the standard error"
elif ! json_ok check-tight-json; then
	fail check-tight-json "something else than the objects on stdout"
else
	echo "ok: check-tight-json: MISMATCH on stderr, objects on stdout"
fi

# --- Checkpoints: saved on 8 ranks, loaded on 4 ranks with other
# strategies and on 1 rank: the same evaluation (losses to float
# rounding, accuracies exactly); the header names every param and its
# momentum.
ckpt=$tmp/c8.safetensors
if ok save tests/train/clf8.sg --dataset "$data" --batch 8 --epochs 2 \
    --save "$ckpt" --json; then
	for t in w1 w2 w1.momentum w2.momentum; do
		if ! grep -q -F "\"$t\":{\"dtype\":\"F32\"" "$ckpt"; then
			fail save "no tensor $t of dtype F32 in the checkpoint"
		fi
	done
	for g in clf8 clf4 clf1; do
		ok "load-$g" "tests/train/$g.sg" --dataset "$data" --batch 8 \
		    --load "$ckpt" --steps 0 --eval --json
	done
	if test -s "$tmp/load-clf8.err" || test -s "$tmp/load-clf4.err" ||
	    test -s "$tmp/load-clf1.err"; then
		fail load-clf8 "an evaluation left samples out or failed"
	fi
	if awk '
	    FNR == 1 { k++ }
	    {
		if ($0 !~ /"event": "eval"/) exit 1
		sub(/.*"loss": /, ""); split($0, f, /, "accuracy": |}/)
		loss[k] = f[1]; acc[k] = f[2]
	    }
	    END {
		if (k != 3) exit 1
		for (i = 2; i <= 3; i++) {
			d = loss[i] - loss[1]; if (d < 0) d = -d
			if (d > 1e-5 * loss[1] || acc[i] != acc[1]) exit 1
		}
	    }' "$tmp/load-clf8.out" "$tmp/load-clf4.out" "$tmp/load-clf1.out"
	then
		echo "ok: load: 8 ranks save, 8, 4 and 1 rank evaluate alike"
	else
		fail load-clf4 "the evaluations differ"
		sed 's/^/  8 ranks: /' "$tmp/load-clf8.out"
		sed 's/^/  1 rank:  /' "$tmp/load-clf1.out"
	fi
	# The trained params were loaded: the evaluation differs from the
	# one of fresh params.
	ok fresh tests/train/clf4.sg --dataset "$data" --batch 8 --steps 0 \
	    --eval --json
	if cmp -s "$tmp/fresh.out" "$tmp/load-clf4.out"; then
		fail fresh "the checkpoint changed nothing"
	fi
fi

# --- Bad inputs: status 1, each with its message, nothing trains.
on4="tests/train/clf4.sg --dataset $data --batch 8"
# shellcheck disable=SC2086
{
	refuse map-column 1 "--map x=nosuch: $data (train) has no column 'nosuch'" \
	    $on4 --map x=nosuch
	refuse map-input 1 "--map q=image: the graph has no input 'q'" \
	    $on4 --map q=image
	refuse map-dtype 1 "input x : f32[b, 1, 2, 3] and column 'label' of \
$data (train) (i32 rows of []): the column holds integers, which feed an \
i32 or i64 input, not f32" \
	    $on4 --map x=label,y=image
}
sed 's/input  x  : f32\[b, 1, 2, 3\]/input  x  : f32[b, 1, 3, 2]/' \
    tests/train/clf4.sg >"$tmp/bad/shape.sg"
sed -e 's/input  x  : f32\[b, 1, 2, 3\]/input  x  : f64[b, 1, 2, 3]/' \
    -e 's/^x2     = reshape(x, \[-1, 6\])$/xc = cast(x, dtype=f32)\
x2 = reshape(xc, [-1, 6])/' tests/train/clf4.sg >"$tmp/bad/dtype.sg"
sed -e 's/input  y  : i32\[b\]/input  y  : f32[b]/' \
    -e 's/^loss   = softmax_cross_entropy(logits, y)$/yi = cast(y, dtype=i32)\
loss = softmax_cross_entropy(logits, yi)/' tests/train/clf4.sg \
    >"$tmp/bad/intdtype.sg"
refuse bind-shape 1 "input x : f32[b, 1, 3, 2] and column 'image' of \
$data (train) (f32 rows of [1, 2, 3]): the sizes of a row differ" \
    "$tmp/bad/shape.sg" --dataset "$data" --batch 8
refuse bind-dtype 1 "input x : f64[b, 1, 2, 3] and column 'image' of \
$data (train) (f32 rows of [1, 2, 3]): the dtypes differ" \
    "$tmp/bad/dtype.sg" --dataset "$data" --batch 8
refuse bind-intdtype 1 "input y : f32[b] and column 'label' of \
$data (train) (i32 rows of []): the column holds integers, which feed an \
i32 or i64 input, not f32" \
    "$tmp/bad/intdtype.sg" --dataset "$data" --batch 8
refuse no-data 1 "$tmp/none/train-images-idx3-ubyte: no such file" \
    tests/train/clf4.sg --dataset "mnist:$tmp/none" --batch 8
refuse bad-batch 1 \
    "batch size 6: b = 6 violates divisor=4 declared at tests/train/clf4.sg:6:8" \
    tests/train/clf4.sg --dataset "$data" --batch 6
# The example of shape-train(1), word for word (the location it quotes).
refuse man-batch 1 "shape-train: batch size 12: b = 12 violates divisor=8 \
declared at examples/ffn_train.sg:11:8" examples/ffn_train.sg --batch 12
if test -f "$ckpt"; then
	sed 's/w2/w9/g' tests/train/clf4.sg >"$tmp/bad/missing.sg"
	sed 's/f32/f64/g' tests/train/clf4.sg >"$tmp/bad/f64.sg"
	sed -e 's/w1 : f32\[6, 8\]/w1 : f32[6, 16]/' \
	    -e 's/w2 : f32\[8, 3\]/w2 : f32[16, 3]/' tests/train/clf4.sg >"$tmp/bad/wide.sg"
	head -c 700 "$ckpt" >"$tmp/bad/short.safetensors"
	printf 'not one' >"$tmp/bad/junk.safetensors"
	refuse ckpt-missing 1 "$ckpt: no tensor 'w9'" "$tmp/bad/missing.sg" \
	    --dataset "$data" --batch 8 --load "$ckpt"
	refuse ckpt-dtype 1 "$ckpt: tensor 'w1' is f32, the graph's is f64" \
	    "$tmp/bad/f64.sg" --steps 1 --batch 8 --load "$ckpt"
	refuse ckpt-shape 1 "$ckpt: tensor 'w1' is [6, 8], the graph's is [6, 16]" \
	    "$tmp/bad/wide.sg" --dataset "$data" --batch 8 --load "$ckpt"
	refuse ckpt-truncated 1 \
	    "$tmp/bad/short.safetensors: truncated: tensor 'w1.momentum'" \
	    tests/train/clf4.sg --dataset "$data" --batch 8 \
	    --load "$tmp/bad/short.safetensors"
	refuse ckpt-junk 1 "$tmp/bad/junk.safetensors: not a safetensors file" \
	    tests/train/clf4.sg --dataset "$data" --batch 8 \
	    --load "$tmp/bad/junk.safetensors"
	refuse ckpt-none 1 "$tmp/none.safetensors: cannot open" \
	    tests/train/clf4.sg --dataset "$data" --batch 8 \
	    --load "$tmp/none.safetensors"
fi
# A graph that minimizes nothing.
sed '/^minimize/d' tests/train/clf4.sg >"$tmp/bad/nomin.sg"
refuse no-loss 1 "minimizes no loss" "$tmp/bad/nomin.sg" --steps 1

# --- Usage errors: status 2.
refuse usage-option 2 "unknown option '--frobnicate'" tests/train/clf4.sg \
    --frobnicate
refuse usage-batch 2 "--batch expects positive integers B[,B...], not '0'" \
    tests/train/clf4.sg --batch 0
refuse usage-map 2 "--map expects INPUT=COLUMN[,...], not '=x'" \
    tests/train/clf4.sg --map =x
refuse usage-steps 2 "--epochs and --steps exclude each other" \
    tests/train/clf4.sg --dataset "$data" --epochs 2 --steps 3
refuse usage-every 2 "--check-every needs --check" tests/train/clf4.sg \
    --steps 1 --check-every 2
refuse usage-tol 2 "--rtol and --atol need --check" tests/train/clf4.sg \
    --steps 1 --rtol 1e-3
refuse usage-eval 2 "--eval needs --dataset" tests/train/clf4.sg --eval
refuse usage-file 2 "no graph file given" --steps 1
refuse usage-backend 2 "--backend expects threads or mpi" \
    tests/train/clf4.sg --steps 1 --backend nccl
refuse usage-ranks 2 "--ranks expects an integer from 1 to 65536" \
    tests/train/clf4.sg --steps 1 --ranks 0

# events FILE: each line of FILE without its loss.
events()
{
	sed 's/"loss": [^,]*,//' "$1"
}

# --- MPI: 4 processes train the steps the threads backend trains, to
# the same losses, bitwise (both backends sum in rank order), and the
# same evaluation.
if test "$RUN_MPI" = yes; then
	n=$((n + 1))
	harness_mpirun 4 mpi tests/train/clf4.sg --dataset "$data" \
	    --batch 8,4 --epochs 2 --eval --json
	run threads tests/train/clf4.sg --dataset "$data" --batch 8,4 \
	    --epochs 2 --eval --json
	if test "$(status mpi)" -eq 124; then
		fail mpi "still running after $limit s: stopped"
	elif test "$(status mpi)" -ne 0; then
		fail mpi "exit status $(status mpi)"
	elif test "$(status threads)" -ne 0; then
		fail threads "exit status $(status threads)"
	elif ! json_ok mpi; then
		fail mpi "a line is not a step or eval object as specified"
	elif test "$(grep -c '"event": "step"' "$tmp/mpi.out")" -ne 12; then
		fail mpi "not 12 steps"
	elif events "$tmp/threads.out" >"$tmp/threads.events" &&
	    events "$tmp/mpi.out" >"$tmp/mpi.events" &&
	    ! cmp -s "$tmp/threads.events" "$tmp/mpi.events"; then
		fail mpi "steps, bindings or accuracies other than threads'"
		diff "$tmp/threads.events" "$tmp/mpi.events"
	elif losses threads >"$tmp/threads.losses" &&
	    losses mpi >"$tmp/mpi.losses" &&
	    ! cmp -s "$tmp/threads.losses" "$tmp/mpi.losses"; then
		fail mpi "losses other than the threads backend's"
		paste -d '\n' "$tmp/threads.out" "$tmp/mpi.out"
	else
		echo "ok: mpi: 4 processes train as the threads backend does"
	fi
else
	refuse no-mpi 2 'built without MPI' tests/train/clf4.sg --steps 1 \
	    --backend mpi
fi

harness_finish
