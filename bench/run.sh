#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: runs the benchmarks from the build directory and prints their
# machine-readable results, one JSON object a line (lines starting with #
# are comments). Each program's output starts with a line
# {"bench": "machine", ...}: the cores and the load average when it
# started, so that figures of different runs can be judged.
#
# The shape-inference benchmark (bench/bench_graph) times stacked
# transformer blocks of about 1k, 10k and 100k operators, shapes only
# (infer) and the full check with sharding (check), through the C API,
# from their text (parse_*) and through shape-check (cli_text, cli_json),
# the same number of runs at every size, with the CPU time and, where the
# machine counts them, the instructions and cycles per operator; run it by
# hand to time one case at chosen sizes ("bench/bench_graph --help").
# The redistribution benchmark (bench/bench_redist) counts the collectives
# the planner chooses on standard and larger cases and times planning.
# The prover benchmark (bench/bench_prove) times a fixed query mix on each
# tier; bench/sympy_mix.py answers the same mix (bench_prove --mix) with
# SymPy in the same run, and the "ratio_sympy" line compares the two.
# The trainer benchmark (bench/bench_trainer) trains the tutorial network
# on Fashion-MNIST, on one rank and on two MPI ranks, against PyTorch on
# one process and DistributedDataParallel on two (bench/torch_trainer.py),
# and reports the share of a step outside kernels and communication.
#
# Environment (set by make bench):
#   PYTHON3      the python3 that has sympy and torch; empty: skip the
#                comparisons; unset: /usr/bin/python3 (Debian's, with
#                python3-sympy and python3-torch)
#   BENCH_PROVE  the benchmark program (default ./bench/bench_prove)
#   BENCH_GRAPH  the shape-inference benchmark (default ./bench/bench_graph)
#   SHAPE_CHECK  the shape-check program it times (default the one libtool
#                built in .libs, run with the library it was built
#                with, else ./shape-check; empty: not timed)
#   BENCH_REDIST the redistribution benchmark (default ./bench/bench_redist)
#   BENCH_KERNELS the executor's kernel benchmark (default
#                ./bench/bench_kernels; matmul kernel vs the same
#                cblas_sgemm call, interleaved, OpenBLAS on one thread, call
#                overhead on tiny tensors, temporary memory allocated per
#                call vs a kept scratch area)
#   BENCH_COMM   the communicator benchmark (default ./bench/bench_comm;
#                threads collectives on 2, 4 and 8 ranks against memcpy,
#                each call timed on every rank, the slowest reported; no
#                ratio against memcpy with more ranks than cores)
#   BENCH_EXEC   the executor benchmark (default ./bench/bench_exec;
#                executor matmul step vs the same cblas_sgemm call, i.e.
#                the executor's cost around it, OpenBLAS on one thread;
#                overhead per step of a plan of kernels that do nothing
#                measurable vs the same kernel calls; both interleaved,
#                medians with 10th and 90th percentiles)
#   BENCH_PLAN   the slice-plan benchmark (default ./bench/bench_plan;
#                layers that differ; bind + the slices of one rank and of
#                all 8 ranks, each with its goal flag, against shape
#                inference, both sides the median of as many repetitions)
#   BENCH_TRAIN  the training benchmark (default ./bench/bench_train; one
#                step of the tutorial network, forward, backward and
#                momentum update, at b = 64, 256 and 1024 on one device
#                with OpenBLAS on one thread, compared in the same run with
#                PyTorch (bench/torch_train.py, one thread) when PYTHON3
#                has torch; the share of a step on 8 ranks spent outside
#                kernels and communication; allocations per step)
#   BENCH_SEARCH the strategy search's benchmark (default
#                ./bench/bench_search: the time sym_graph_search takes on
#                1, 12 and 48 stacked transformer blocks in training on 8
#                and 64 devices, against the goal of 12 blocks on 8
#                devices in 1 s; a case whose smaller case took over 30 s
#                is skipped and said so; then 1 and 12 blocks on 8 devices
#                over two nodes of four ranks, where layout strategies are
#                candidates too: bench_search BLOCKS DEVICES RANKS_PER_NODE)
#   BENCH_SEARCH_CAP the search under a memory cap (default
#                ./bench/bench_search_cap: a two-layer MLP in training on
#                4 and 8 devices under caps of 30 to 240 MB, the cost
#                graph's answers against enumerating every plan, compared
#                at about 2700 sizes each: where the cost graph's is
#                worse, where better, and its worst ratio of times)
#   BENCH_SWITCH the plan switching benchmark (default
#                ./bench/bench_switch: examples/lm_switch.sg on 4 thread
#                ranks, switching between the search's plans against the
#                best single plan on the same batches, modelled (the
#                topology's machine) and measured (this one))
#   BENCH_MEMORY per-device memory by kind (default ./bench/bench_memory:
#                the cost model's figures and the executor's buffers on
#                rank 0, with and without optimizer sharding, of the
#                tutorial network and a transformer block)
#   BENCH_ONNX   the ONNX importer's benchmark (default ./bench/bench_onnx:
#                tests/onnx/gpt_tiny.onnx, the GPT-style decoder PyTorch
#                exported, and shapes.onnx, imported at least 5 times and
#                0.5 s, the median); bench/onnx_infer.py times
#                onnx.shape_inference.infer_shapes(data_prop=True) on the
#                same files in the same run and counts the symbolic
#                dimensions it keeps as a declared dim_param, its fresh
#                unk__N and the values it leaves without a shape, with
#                "ratio_onnx_over_symshard"; without python3-onnx it says
#                skipped. With python3-torch it also exports, at bench
#                time, a 24-block GPT (tools/onnx/export_gpt.py, about
#                2800 nodes) and torchvision's ResNet-50, and compares
#                them the same way
#   MPIRUN       mpirun, to run bench_comm --mpi on 4 processes; empty
#                (configure found no MPI): skip it
#   BENCH_CONV   the convolution benchmark (default ./bench/bench_conv:
#                conv2d and its gradients against sgemm of the same size,
#                and bench/lenet_train.sg trained on one rank, compared
#                with PyTorch by bench/torch_lenet.py; then
#                examples/resnet.sg on one rank, the shares of a step in
#                conv, pooling and batch norm kernels)
#   BENCH_TRAINER the trainer benchmark (default ./bench/bench_trainer):
#                samples per second of sym_trainer(3), the loop shape-train
#                runs, on Fashion-MNIST (FASHION_MNIST) at global batches
#                of 64 and 256, warm-up steps excluded, then 3 windows of
#                one epoch's worth of steps each (the median window
#                counts), the epochs shuffled; bench/torch_trainer.py
#                trains the same network on the same data with the same
#                batches and steps in PyTorch and prints the ratio of
#                samples per second ("trainer_vs_torch", symshard over
#                PyTorch, with its goal_met):
#                (a) one rank (threads backend, the single-device plan of
#                    examples/ffn_train.sg) against one PyTorch process,
#                    both on one thread: goal >= 1.0;
#                (b) two ranks under mpirun (bench/ffn_train_dp.sg, data
#                    parallel on 2 devices, --backend mpi) against
#                    DistributedDataParallel with gloo on two processes on
#                    127.0.0.1, one thread each, neither bound to a core:
#                    goal >= 1.3;
#                (c) "trainer_overhead": the share of a step outside
#                    kernels and communication (the data, the binding, the
#                    executor's loop), with bench_train's goal of 0.05;
#                (d) "fusion": (b)'s network at b = 64 with its gradient
#                    all_reduces fused into 4 MiB buckets against unfused,
#                    windows of 200 steps in turn, the median ratio of
#                    samples per second (goal: fused not slower, >= 1.0),
#                    the collectives per step each way, and whether the
#                    losses are the same.
#   BENCH_TRAINER (again) the GPT on fortunes: real tokens per second of
#                examples/gpt.sg (one rank, the single-device plan,
#                OpenBLAS on one thread) trained by sym_trainer(3) on
#                length-bucketed batches of at most 4096 tokens (records
#                cut to 512) of the fortunes corpus, 5 warm-up steps then
#                3 windows of 20 steps, the median window (pads excluded);
#                bench_trainer writes the (b, s, tokens) of every step and
#                bench/gpt_torch.py trains the same model in PyTorch
#                (eager, one thread, AdamW) on the same shapes in the
#                same windows right after, and prints "gpt_vs_torch":
#                symshard over PyTorch, goal >= 1.0. Then the same
#                padded to the max (--pad-to-max: 8 rows of 512 a batch)
#                on both sides, and "gpt_buckets_vs_pad": each side's
#                real tokens per second in buckets over padded, goal
#                symshard's speed-up at least PyTorch's. Then, with
#                MPIRUN, the same model data parallel on 2 MPI ranks
#                (gradients fused into 25 MiB buckets, DDP's default)
#                against DistributedDataParallel with gloo on 2
#                processes, one thread each, on the same batch shapes
#                and windows: "gpt_ddp_vs_torch", goal >= 1.3. Skipped
#                with a message without the corpus or torch
#   FORTUNES     the directory of the fortune files (default
#                /usr/share/games/fortunes, Debian's fortunes package);
#                every file but the .dat indexes, in name order, makes
#                the corpus
#   GPT_ARGS     options given to bench_trainer for the GPT (e.g.
#                "--steps 5 --windows 1" for a quick run)
#   FASHION_MNIST the Fashion-MNIST directory (default
#                /usr/share/datasets/fashion-mnist, Debian's
#                dataset-fashion-mnist); missing: the trainer benchmark is
#                skipped
#   TRAINER_ARGS options given to both sides of the trainer benchmark
#                (e.g. "--steps 200 --windows 1" for a quick run)
#   TRAINER_MPIRUN_ARGS  more options of mpirun for the two-rank trainer
#                (default none: Open MPI's defaults, whose ranks poll
#                while they wait, which costs much on a loaded machine;
#                "--mca mpi_yield_when_idle 1" makes them yield, as gloo's
#                do)
#   MPIRUN       mpirun, to run bench_comm --mpi on 4 processes and the
#                trainer on 2; empty (configure found no MPI): skip them
#   SYMPY_MIN_TIME  least seconds per SymPy measurement (default 1)

set -e

srcdir=$(cd "$(dirname "$0")" && pwd)
bench_prove=${BENCH_PROVE:-./bench/bench_prove}
bench_graph=${BENCH_GRAPH:-./bench/bench_graph}
bench_redist=${BENCH_REDIST:-./bench/bench_redist}
bench_kernels=${BENCH_KERNELS:-./bench/bench_kernels}
bench_comm=${BENCH_COMM:-./bench/bench_comm}
bench_exec=${BENCH_EXEC:-./bench/bench_exec}
bench_plan=${BENCH_PLAN:-./bench/bench_plan}
bench_train=${BENCH_TRAIN:-./bench/bench_train}
bench_search=${BENCH_SEARCH:-./bench/bench_search}
bench_search_cap=${BENCH_SEARCH_CAP:-./bench/bench_search_cap}
bench_trainer=${BENCH_TRAINER:-./bench/bench_trainer}
bench_conv=${BENCH_CONV:-./bench/bench_conv}
bench_switch=${BENCH_SWITCH:-./bench/bench_switch}
bench_onnx=${BENCH_ONNX:-./bench/bench_onnx}
bench_memory=${BENCH_MEMORY:-./bench/bench_memory}
fashion=${FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
fortunes=${FORTUNES:-/usr/share/games/fortunes}
# The real program rather than libtool's wrapper script, whose shell would
# be timed too; it finds the uninstalled library through bench_graph's
# own wrapper (LD_LIBRARY_PATH), which starts it.
if test -x ./.libs/shape-check; then
	shape_check=${SHAPE_CHECK-./.libs/shape-check}
else
	shape_check=${SHAPE_CHECK-./shape-check}
fi
mpirun=${MPIRUN-}
python3=${PYTHON3-/usr/bin/python3}

# machine PROGRAM: the line of the cores and the load average that heads
# the output of each benchmark program (bench_header in bench/util.c), for
# PROGRAM, not one of ours.
machine()
{
	load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null | sed 's/ /, /g')
	load=${load:+[$load]}
	printf '{"bench": "machine", "program": "%s", "cores": %s, ' "$1" \
	    "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo null)"
	printf '"cores_usable": %s, "loadavg": %s}\n' \
	    "$(nproc 2>/dev/null || echo null)" "${load:-null}"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symshard-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

echo "# symshard benchmarks"
"$bench_graph" ${shape_check:+--cli "$shape_check"}
echo "# redistribution planner: collectives per plan, time per plan"
"$bench_redist"
"$bench_plan"
echo "# executor kernels: matmul vs cblas_sgemm, call overhead, scratch area (bench/bench_kernels)"
"$bench_kernels"
echo "# executor: cost around the cblas_sgemm of a matmul step, overhead per step (bench/bench_exec)"
"$bench_exec"
echo "# communicator: threads collectives of 16 MiB vs memcpy (bench/bench_comm)"
"$bench_comm"
if test -n "$mpirun"; then
	echo "# communicator: the same on the mpi backend, 4 processes ($mpirun)"
	root=
	if test "$(id -u)" = 0; then
		root=--allow-run-as-root
	fi
	"$mpirun" $root --oversubscribe -n 4 "$bench_comm" --mpi
else
	echo "# communicator: MPIRUN is empty (no MPI): skipping the mpi backend"
fi
echo "# training: one step of the tutorial network (bench/bench_train)"
top_srcdir=${top_srcdir:-$srcdir/..} "$bench_train" >"$tmp/train.json"
cat "$tmp/train.json"
if test -n "$python3" && command -v "$python3" >/dev/null 2>&1 &&
    "$python3" -c 'import torch' >/dev/null 2>&1; then
	echo "# the same step in PyTorch ($python3, bench/torch_train.py)"
	machine torch_train.py
	"$python3" "$srcdir/torch_train.py" --symshard "$tmp/train.json"
else
	echo "# pytorch: $python3 has no torch (install python3-torch):" \
	    "skipping the comparison with PyTorch"
fi
echo "# strategy search on stacked transformer blocks (bench/bench_search)"
"$bench_search"
echo "# the same on 8 devices over two nodes of 4 ranks (layout strategies)"
"$bench_search" 12 8 4
echo "# the search under memory caps against enumeration (bench/bench_search_cap)"
"$bench_search_cap"
echo "# plan switching against the best single plan (bench/bench_switch)"
"$bench_switch" --graph "${top_srcdir:-$srcdir/..}/examples/lm_switch.sg"

# has_torch: whether $python3 has torch.
has_torch()
{
	test -n "$python3" && command -v "$python3" >/dev/null 2>&1 &&
	    "$python3" -c 'import torch' >/dev/null 2>&1
}

# trainer_vs_torch RANKS B FILE: PyTorch on RANKS processes at batch B,
# compared with bench_trainer's lines in FILE (when torch is there).
trainer_vs_torch()
{
	if has_torch; then
		machine torch_trainer.py
		# shellcheck disable=SC2086
		"$python3" "$srcdir/torch_trainer.py" --dataset "$fashion" \
		    --ranks "$1" --batch "$2" --symshard "$3" $TRAINER_ARGS
	else
		echo "# pytorch: ${python3:-PYTHON3} has no torch (install" \
		    "python3-torch): symshard's figures only"
	fi
}

if test -r "$fashion/train-images-idx3-ubyte.gz" ||
    test -r "$fashion/train-images-idx3-ubyte"; then
	for b in 64 256; do
		echo "# training on Fashion-MNIST, b = $b, one rank against" \
		    "one PyTorch process, both single-threaded" \
		    "(bench/bench_trainer, bench/torch_trainer.py)"
		# shellcheck disable=SC2086
		"$bench_trainer" --dataset "$fashion" --batch "$b" \
		    --graph "$srcdir/../examples/ffn_train.sg" $TRAINER_ARGS \
		    >"$tmp/trainer1-$b.json"
		cat "$tmp/trainer1-$b.json"
		trainer_vs_torch 1 "$b" "$tmp/trainer1-$b.json"
	done
	echo "# convolution: the kernels against sgemm, and a LeNet trained" \
	    "on one rank against PyTorch on one thread (bench/bench_conv," \
	    "bench/torch_lenet.py)"
	# shellcheck disable=SC2086
	"$bench_conv" --dataset "$fashion" --graph "$srcdir/lenet_train.sg" \
	    $TRAINER_ARGS >"$tmp/conv.json"
	cat "$tmp/conv.json"
	# The share of pooling and batch norm in a step: the ResNet of
	# examples/resnet.sg (conv, batch_norm, max and global average
	# pooling) on one rank.
	# shellcheck disable=SC2086
	"$bench_conv" --dataset "$fashion" --train-only \
	    --graph "$srcdir/../examples/resnet.sg" $TRAINER_ARGS
	if has_torch; then
		machine torch_lenet.py
		# shellcheck disable=SC2086
		"$python3" "$srcdir/torch_lenet.py" --dataset "$fashion" \
		    --symshard "$tmp/conv.json" $TRAINER_ARGS
	fi
	if test -n "$mpirun"; then
		root=
		if test "$(id -u)" = 0; then
			root=--allow-run-as-root
		fi
		for b in 64 256; do
			echo "# training on Fashion-MNIST, b = $b, data parallel:" \
			    "2 MPI ranks against DistributedDataParallel (gloo)" \
			    "on 2 processes, one thread each, none bound to a core"
			# shellcheck disable=SC2086
			"$mpirun" $root --oversubscribe --bind-to none \
			    $TRAINER_MPIRUN_ARGS -n 2 \
			    "$bench_trainer" --backend mpi --dataset "$fashion" \
			    --batch "$b" --graph "$srcdir/ffn_train_dp.sg" \
			    $TRAINER_ARGS >"$tmp/trainer2-$b.json"
			cat "$tmp/trainer2-$b.json"
			trainer_vs_torch 2 "$b" "$tmp/trainer2-$b.json"
		done
		echo "# communication fusion: the same data-parallel network" \
		    "on 2 MPI ranks, gradients fused into 4 MiB buckets" \
		    "against one all_reduce each, windows in turn" \
		    "(bench/bench_trainer --fusion-bytes)"
		# shellcheck disable=SC2086
		"$mpirun" $root --oversubscribe --bind-to none \
		    $TRAINER_MPIRUN_ARGS -n 2 \
		    "$bench_trainer" --backend mpi --dataset "$fashion" \
		    --batch 64 --graph "$srcdir/ffn_train_dp.sg" \
		    --steps 200 --windows 5 $TRAINER_ARGS \
		    --fusion-bytes 4194304 | grep -v trainer_overhead
		echo "# the same under optimizer_shard=1 (every param sharded):" \
		    "the gradients' reduce_scatters fused into 4 MiB buckets" \
		    "against one reduce_scatter each"
		printf 'parallel optimizer_shard=1\nparallel optimizer_shard_min_bytes=0\n' |
		    cat "$srcdir/ffn_train_dp.sg" - >"$tmp/ffn_zero.sg"
		# shellcheck disable=SC2086
		"$mpirun" $root --oversubscribe --bind-to none \
		    $TRAINER_MPIRUN_ARGS -n 2 \
		    "$bench_trainer" --backend mpi --dataset "$fashion" \
		    --batch 64 --graph "$tmp/ffn_zero.sg" \
		    --steps 200 --windows 5 $TRAINER_ARGS \
		    --fusion-bytes 4194304 | grep -v trainer_overhead
	else
		echo "# training: MPIRUN is empty (no MPI): skipping the" \
		    "data-parallel comparison"
	fi
else
	echo "# training: no Fashion-MNIST in $fashion (install" \
	    "dataset-fashion-mnist): skipping the trainer benchmark"
fi

echo "# the GPT of examples/gpt.sg on fortunes, bucketed batches of 4096" \
    "tokens, one rank against PyTorch on one thread, same shapes" \
    "(bench/bench_trainer, bench/gpt_torch.py)"
if ! test -d "$fortunes" ||
    ! find "$fortunes" -type f ! -name '*.dat' | grep -q .; then
	echo "# gpt: no fortune files in $fortunes (install fortunes):" \
	    "skipping the GPT benchmark"
elif ! has_torch; then
	echo "# gpt: ${python3:-PYTHON3} has no torch (install" \
	    "python3-torch): skipping the GPT benchmark"
else
	find "$fortunes" -type f ! -name '*.dat' | LC_ALL=C sort |
	    xargs cat >"$tmp/fortunes.txt"
	# shellcheck disable=SC2086
	OPENBLAS_NUM_THREADS=1 "$bench_trainer" \
	    --dataset "text:$tmp/fortunes.txt" --max-len 512 \
	    --tokens-per-batch 4096 --graph "$srcdir/../examples/gpt.sg" \
	    --warmup 5 --steps 20 --windows 3 --steps-out "$tmp/gpt-steps.json" \
	    $GPT_ARGS >"$tmp/gpt.json"
	cat "$tmp/gpt.json"
	echo "# the same padded to the max (--pad-to-max: every batch 8 rows" \
	    "of 512), symshard then PyTorch on its shapes; the speed-up of" \
	    "buckets over padding, each side's (gpt_buckets_vs_pad)"
	# shellcheck disable=SC2086
	OPENBLAS_NUM_THREADS=1 "$bench_trainer" \
	    --dataset "text:$tmp/fortunes.txt" --max-len 512 \
	    --tokens-per-batch 4096 --graph "$srcdir/../examples/gpt.sg" \
	    --warmup 5 --steps 20 --windows 3 --pad-to-max \
	    --steps-out "$tmp/gpt-pad-steps.json" $GPT_ARGS >"$tmp/gpt-pad.json"
	cat "$tmp/gpt-pad.json"
	machine gpt_torch.py
	"$python3" "$srcdir/gpt_torch.py" --steps "$tmp/gpt-steps.json" \
	    --symshard "$tmp/gpt.json" --pad-steps "$tmp/gpt-pad-steps.json" \
	    --pad-symshard "$tmp/gpt-pad.json"
	if test -n "$mpirun"; then
		echo "# the GPT data parallel on 2 MPI ranks (examples/gpt.sg" \
		    "on 2 devices, gradients fused into 25 MiB buckets as" \
		    "DDP's default) against DistributedDataParallel (gloo) on" \
		    "2 processes, one thread each, none bound to a core, on" \
		    "the same batch shapes (rank r: rows r * b / 2 on)"
		root=
		if test "$(id -u)" = 0; then
			root=--allow-run-as-root
		fi
		sed 's/^devices 8/devices 2/' "$srcdir/../examples/gpt.sg" >"$tmp/gpt2.sg"
		echo 'parallel fusion_bytes=25MiB' >>"$tmp/gpt2.sg"
		# shellcheck disable=SC2086
		OPENBLAS_NUM_THREADS=1 "$mpirun" $root --oversubscribe \
		    --bind-to none $TRAINER_MPIRUN_ARGS -n 2 \
		    "$bench_trainer" --backend mpi \
		    --dataset "text:$tmp/fortunes.txt" --max-len 512 \
		    --tokens-per-batch 4096 --graph "$tmp/gpt2.sg" \
		    --warmup 5 --steps 20 --windows 3 \
		    --steps-out "$tmp/gpt2-steps.json" $GPT_ARGS >"$tmp/gpt2.json"
		cat "$tmp/gpt2.json"
		machine gpt_torch.py
		"$python3" "$srcdir/gpt_torch.py" --ranks 2 \
		    --steps "$tmp/gpt2-steps.json" --symshard "$tmp/gpt2.json"
	else
		echo "# gpt: MPIRUN is empty (no MPI): skipping the GPT on 2" \
		    "ranks against DDP"
	fi
fi

echo "# memory by kind under optimizer sharding (bench/bench_memory), the"
echo "# tutorial network (bench/ffn_train_dp.sg) on 8 data-parallel devices"
echo "# with adam at b = 64, per device: \"model\" is the cost model's figure"
echo "# for the plan (shape-check's cost section), \"executor\" the bytes of"
echo "# the buffers the executor allocates on rank 0; levels 0 to 3 (at"
echo "# level 3 the params are their shards, and the whole copies gathered"
echo "# for their uses, one buffer as large as the largest, activations)"
sed -e 's/^devices 2/devices 8/' -e 's/divisor=2/divisor=8/' \
    -e 's/shard ((2, 1)/shard ((8, 1)/' \
    -e 's/^minimize loss with .*/minimize loss with adam(lr=0.001)/' \
    "$srcdir/ffn_train_dp.sg" >"$tmp/mem0.sg"
for lv in 1 2 3; do
	cp "$tmp/mem0.sg" "$tmp/mem$lv.sg"
	printf 'parallel optimizer_shard=%s\nparallel optimizer_shard_min_bytes=0\n' \
	    "$lv" >>"$tmp/mem$lv.sg"
done
cp "$tmp/mem2.sg" "$tmp/mem2f.sg"
echo 'parallel fusion_bytes=4MiB' >>"$tmp/mem2f.sg"
for lv in 0 1 2 3; do
	"$bench_memory" "$tmp/mem$lv.sg" 64 ffn_train_dp8_adam
done
echo "# level 2 with the reduce_scatters fused into 4 MiB buckets: a fused"
echo "# gradient keeps its own whole buffer until its bucket runs"
"$bench_memory" "$tmp/mem2f.sg" 64 ffn_train_dp8_adam_fused
echo "# and examples/transformer.sg (one block, 8 data-parallel devices)"
echo "# trained on the mean of its output with adam at b = s = 128; scale"
echo "# (4 bytes) stays whole under optimizer_shard_min_bytes=8"
sed -e 's/^output y$//' "$srcdir/../examples/transformer.sg" >"$tmp/tb0.sg"
printf '%s\n' 'loss = reduce_mean(y, axis=[0, 1, 2])' 'output loss' \
    'minimize loss with adam(lr=0.001)' >>"$tmp/tb0.sg"
for lv in 1 2 3; do
	cp "$tmp/tb0.sg" "$tmp/tb$lv.sg"
	printf 'parallel optimizer_shard=%s\nparallel optimizer_shard_min_bytes=8\n' \
	    "$lv" >>"$tmp/tb$lv.sg"
done
for lv in 0 1 2 3; do
	"$bench_memory" "$tmp/tb$lv.sg" 128 transformer_block_dp8_adam
done

echo "# ONNX import (bench/bench_onnx) against ONNX's shape inference"
models=$srcdir/../tests/onnx
if "$bench_onnx" "$models/gpt_tiny.onnx" "$models/shapes.onnx" \
    >"$tmp/onnx.json" 2>"$tmp/onnx.err"; then
	cat "$tmp/onnx.json"
	if test -n "$python3" && command -v "$python3" >/dev/null 2>&1 &&
	    "$python3" -c 'import onnx' >/dev/null 2>&1; then
		machine onnx_infer.py
		"$python3" "$srcdir/onnx_infer.py" "$models" <"$tmp/onnx.json"
	else
		echo "# onnx: no python3 with onnx (install python3-onnx):" \
		    "skipped the comparison with ONNX's shape inference"
	fi
else
	sed 's/^/# /' "$tmp/onnx.err"
	echo "# onnx: the importer is not built (configure --with-onnx):" \
	    "skipped"
fi

# Large models, exported at bench time when python3 has torch (and
# torchvision): the GPT-style decoder of tools/onnx/export_gpt.py with 24
# blocks (about 2800 nodes) and torchvision's ResNet-50 (random weights,
# 100 MB: its import time is mostly reading them, which ONNX's timing,
# on a model already loaded, leaves out).
echo "# ONNX import of large models against ONNX's shape inference"
big=$tmp/onnx-big
if test -n "$python3" && command -v "$python3" >/dev/null 2>&1 &&
    "$python3" -c 'import torch, onnx' >/dev/null 2>&1 &&
    "$bench_onnx" "$models/shapes.onnx" >/dev/null 2>&1; then
	mkdir -p "$big"
	list=
	if "$python3" "$srcdir/../tools/onnx/export_gpt.py" "$big/gpt24.onnx" \
	    --layers 24 --width 32 --heads 2 --vocab 64 >/dev/null 2>&1; then
		list="$big/gpt24.onnx"
	else
		echo "# onnx: the 24-block GPT did not export: skipped"
	fi
	if "$python3" -c '
import sys, torch, torchvision
m = torchvision.models.resnet50().eval()
torch.onnx.export(m, torch.randn(1, 3, 224, 224), sys.argv[1],
                  input_names=["x"], output_names=["logits"],
                  opset_version=14,
                  dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}})
' "$big/resnet50.onnx" >/dev/null 2>&1; then
		list="$list $big/resnet50.onnx"
	else
		echo "# onnx: no torchvision ResNet-50 export: skipped"
	fi
	# shellcheck disable=SC2086
	if test -n "$list" && "$bench_onnx" $list >"$tmp/big.json" \
	    2>"$tmp/big.err"; then
		cat "$tmp/big.json"
		machine onnx_infer.py
		"$python3" "$srcdir/onnx_infer.py" "$big" <"$tmp/big.json"
	elif test -n "$list"; then
		sed 's/^/# /' "$tmp/big.err"
	fi
	rm -rf "$big"
else
	echo "# onnx: no python3 with torch and onnx, or no importer:" \
	    "skipped the large models"
fi

echo "# prover: tier 0, exact tier, both (bench/bench_prove)"
# bench_prove exits with status 1 on any wrong answer or bad witness.
"$bench_prove" >"$tmp/prove.json" || {
	cat "$tmp/prove.json"
	echo "# bench_prove failed" >&2
	exit 1
}
cat "$tmp/prove.json"

if test -z "$python3"; then
	echo "# sympy: PYTHON3 is empty (configure found no python3):" \
	    "skipping the comparison with SymPy"
	exit 0
fi
if ! command -v "$python3" >/dev/null 2>&1; then
	echo "# sympy: $python3 not found: skipping the comparison with SymPy"
	exit 0
fi
if ! "$python3" -c 'import sympy' >/dev/null 2>&1; then
	echo "# sympy: $python3 has no sympy (install python3-sympy):" \
	    "skipping the comparison with SymPy"
	exit 0
fi

echo "# the same mix answered by SymPy ($python3, bench/sympy_mix.py)"
machine sympy_mix.py
"$bench_prove" --mix >"$tmp/mix.json"
"$python3" "$srcdir/sympy_mix.py" --min-time "${SYMPY_MIN_TIME:-1}" \
    --symshard "$tmp/prove.json" "$tmp/mix.json"
