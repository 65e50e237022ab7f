#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end runs of shape-train on what a new user starts from and on
# what a checkpoint may hit (the data: small MNIST/IDX files of 2x3-pixel
# images in 3 classes, as tests/check-train.sh writes them):
#  - a graph with static shapes and no symbol trains on its own batch,
#    with and without data; --batch is refused only when it differs;
#  - a checkpoint of weights alone (no optimizer state) loads with a
#    notice; one made by PyTorch gives PyTorch's losses step by step
#    (tests/train/clf1-torch.safetensors and the losses below, measured
#    with PyTorch 1.13: torch.manual_seed(0), w1 = randn(6, 8) * 0.5,
#    w2 = randn(8, 3) * 0.5, SGD(lr=0.1, momentum=0.9), cross entropy,
#    batches of 8 in file order);
#  - f16 params are saved as F16, loaded back and checked;
#  - an f16 loss is refused; an integer param that cannot train is
#    warned about;
#  - --save refuses, before anything trains, an empty name, a missing
#    directory, a FIFO (not a device: a tool that regressed would replace
#    it) and a symbolic link; keeps the mode of the file it replaces;
#    replaces the temporary file a killed save left;
#  - with MPI (RUN_MPI=yes), processes that read different graphs or
#    checkpoints at the same path stop with an error naming what
#    differs.
#
# Usage: tests/check-train-ckpt.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, when set, is put in front of the tool
# (valgrind), but not under mpirun; SYM_MPI_TIMEOUT, the time limit of
# an mpirun in seconds (default 300).

harness=check-train-ckpt
. "$(dirname "$0")/train-harness.sh"

mkdir "$tmp/data" "$tmp/g" || exit 1
idx "$tmp/data" train 42
data=mnist:$tmp/data

# --- Static shapes: MindSpore's end-to-end net, f32[16, 32] inputs
# with constant initializers and no symbol.
cat >"$tmp/g/static.sg" <<'EOF'
input  x : f32[16, 32]  init=constant(0.1)
param  w : f32[32, 4]   init=constant(0.1)
h      = matmul(x, w)
loss   = reduce_mean(h)
output loss
minimize loss with sgd(lr=0.1)
EOF
ok static "$tmp/g/static.sg" --steps 2 &&
    has static "trained 2 steps (32 samples)" "trains at its own batch"
ok static-16 "$tmp/g/static.sg" --steps 2 --batch 16 &&
    has static-16 "trained 2 steps (32 samples)" "--batch 16 is its batch"
refuse static-64 1 "batch size 64: the graph has no batch symbol: input x \
says every batch is 16 samples" "$tmp/g/static.sg" --steps 2 --batch 64
# With data: batches of 8 fixed in the graph; the last 2 samples of 42
# are dropped with a notice.
sed -e 's/\[b, 1, 2, 3\]/[8, 1, 2, 3]/' -e 's/i32\[b\]/i32[8]/' \
    -e '/^symbol/d' tests/train/clf1.sg >"$tmp/g/static8.sg"
ok static-data "$tmp/g/static8.sg" --dataset "$data" --json &&
    if test "$(grep -c '"event": "step"' "$tmp/static-data.out")" -ne 5
    then
	    fail static-data "not 5 steps of 8"
    else
	    has static-data "the last batch of 2 samples dropped: the graph \
has no batch symbol: input x says every batch is 8 samples" \
		"5 steps, the last 2 samples dropped"
    fi

# --- Checkpoints without optimizer state: one saved by sgd loads into
# momentum with a notice; one PyTorch made gives PyTorch's losses.
sed 's/momentum(lr=0.1, momentum=0.9)/sgd(lr=0.1)/' tests/train/clf1.sg \
    >"$tmp/g/sgd.sg"
ok save-sgd "$tmp/g/sgd.sg" --dataset "$data" --batch 8 --steps 2 \
    --save "$tmp/sgd.safetensors" &&
    ok load-weights tests/train/clf1.sg --dataset "$data" --batch 8 \
	--steps 2 --load "$tmp/sgd.safetensors" &&
    has load-weights "$tmp/sgd.safetensors has no optimizer state \
(w1.momentum, w2.momentum): it starts from zeros (step 0)" \
	"momentum starts from zeros"
sed 's/w2/w9/g' tests/train/clf1.sg >"$tmp/g/w9.sg"
refuse load-missing 1 "$tmp/sgd.safetensors: no tensor 'w9' (a param" \
    "$tmp/g/w9.sg" --dataset "$data" --batch 8 --load "$tmp/sgd.safetensors"
if ok torch tests/train/clf1.sg --dataset "$data" --batch 8 --steps 5 \
    --no-shuffle --json --load tests/train/clf1-torch.safetensors; then
	if sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$tmp/torch.out" |
	    awk 'BEGIN {
		split("1.072377 1.132993 1.109884 0.929997 1.105347", want)
	    }
	    {
		d = $1 - want[NR]; if (d < 0) d = -d
		if (d > 2e-6 + 1e-5 * want[NR]) exit 1
	    }
	    END { if (NR != 5) exit 1 }'; then
		echo "ok: torch: 5 losses equal PyTorch's"
	else
		fail torch "the losses differ from PyTorch's"
	fi
fi

# --- f16 params: saved as F16 (w1: 24 elements, 48 bytes), loaded and
# checked against one device; an f16 loss is refused; an i32 param the
# loss reads through a cast is warned about.
cat >"$tmp/g/f16.sg" <<'EOF'
devices 2
symbol b divisor=2
input  x  : f32[b, 6]
param  w1 : f16[6, 4]  init=constant(0.1)
h      = cast(x, dtype=f16)
y      = matmul(h, w1)  shard ((1, 1), (1, 2))
z      = cast(y, dtype=f32)
loss   = reduce_mean(z)
output loss
minimize loss with momentum(lr=0.1, momentum=0.9)
EOF
if ok f16-save "$tmp/g/f16.sg" --steps 2 --batch 4 \
    --save "$tmp/f16.safetensors"; then
	if grep -q -F '"w1":{"dtype":"F16","shape":[6,4],"data_offsets":[0,48]}' \
	    "$tmp/f16.safetensors"; then
		echo "ok: f16-save: w1 saved as F16"
	else
		fail f16-save "w1 is not 48 bytes of F16"
	fi
	ok f16-load "$tmp/g/f16.sg" --steps 2 --batch 4 --check \
	    --load "$tmp/f16.safetensors" &&
	    has f16-load "every step matched one device" "loaded and checked"
fi
sed 's/^z      = cast(y, dtype=f32)/z      = cast(y, dtype=f16)/' \
    "$tmp/g/f16.sg" >"$tmp/g/f16loss.sg"
refuse f16-loss 1 "the loss loss must be a floating-point scalar (f32[] or \
f64[]), not f16" "$tmp/g/f16loss.sg" --steps 1 --batch 4
cat >"$tmp/g/int.sg" <<'EOF'
symbol b
input  x : f32[b, 4]
param  w : f32[4, 4]  init=constant(0.5)
param  k : i32[4, 4]  init=constant(3)
c      = cast(k, dtype=f32)
m      = mul(w, c)
h      = matmul(x, m)
loss   = reduce_mean(h)
output loss
minimize loss with sgd(lr=0.1)
EOF
ok int-param "$tmp/g/int.sg" --steps 1 --batch 4 &&
    has int-param "int.sg:4:8: warning: param k reaches the loss loss only \
through values that carry no gradient (it is not floating-point): it does \
not train; declare it frozen" "the untrained param is named"
sed 's/init=constant(0.5)$/init=constant(0.5) frozen/' "$tmp/g/int.sg" \
    >"$tmp/g/int-only.sg"
refuse int-only 1 "no param reaches the loss loss through values that carry \
a gradient: nothing would train" "$tmp/g/int-only.sg" --steps 1 --batch 4

# --- --save: checked before anything trains; only a regular file is
# replaced, keeping its mode; a stale temporary file is replaced.
on1="tests/train/clf1.sg --dataset $data --batch 8 --steps 1"
# shellcheck disable=SC2086
{
	refuse save-empty 2 "--save expects a file name" $on1 --save ""
	refuse save-nodir 1 "$tmp/nodir/c.safetensors: cannot create a file \
in $tmp/nodir" $on1 --save "$tmp/nodir/c.safetensors"
	mkfifo "$tmp/fifo.safetensors" || exit 1
	refuse save-fifo 1 "$tmp/fifo.safetensors: not a regular file" $on1 \
	    --save "$tmp/fifo.safetensors"
	if ! test -p "$tmp/fifo.safetensors"; then
		fail save-fifo "the FIFO was replaced"
	fi
	: >"$tmp/target.safetensors"
	ln -s "$tmp/target.safetensors" "$tmp/link.safetensors"
	refuse save-link 1 "$tmp/link.safetensors: a symbolic link" $on1 \
	    --save "$tmp/link.safetensors"
	if ! test -L "$tmp/link.safetensors" ||
	    test -s "$tmp/target.safetensors"; then
		fail save-link "the link or its target changed"
	fi
	ck=$tmp/mode.safetensors
	: >"$ck"
	chmod 640 "$ck"
	echo stale >"$ck.tmp"
	if ok save-mode $on1 --save "$ck"; then
		mode=$(ls -l "$ck" | cut -c1-10)
		if test "$mode" != "-rw-r-----"; then
			fail save-mode "mode $mode, not -rw-r-----"
		elif test -e "$ck.tmp"; then
			fail save-mode "the stale temporary file is left"
		elif ! test -s "$ck"; then
			fail save-mode "nothing saved"
		else
			echo "ok: save-mode: mode kept, stale temporary replaced"
		fi
	fi
}

# --- MPI: processes that read other contents at the same path stop.
if test "$RUN_MPI" = yes; then
	harness_mpi_env
	# Rank R runs in $tmp/rR, where g.sg and c.safetensors may differ.
	for r in 0 1; do
		mkdir "$tmp/r$r" || exit 1
		cp tests/train/clf1.sg "$tmp/r$r/g.sg"
		cp "$tmp/sgd.safetensors" "$tmp/r$r/c.safetensors"
	done
	# mpi NAME ARGS...: run the tool on 2 processes, each in its rR.
	mpi()
	{
		name=$1
		shift
		n=$((n + 1))
		sh "$top_srcdir/tests/with-timeout.sh" "$limit" "$MPIRUN" \
		    $root --oversubscribe -n 2 sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-$PMI_RANK}}
cd "$0/r$r" && exec "$@"' "$tmp" "$top_builddir/libtool" --mode=execute \
		    "$tool" --backend mpi g.sg --dataset "$data" --batch 8 \
		    --steps 2 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
		echo $? >"$tmp/$name.status"
	}
	mpi mpi-same --load c.safetensors
	if test "$(status mpi-same)" -ne 0; then
		fail mpi-same "exit status $(status mpi-same), not 0"
	else
		echo "ok: mpi-same: the same contents train"
	fi
	sed 's/lr=0.1/lr=0.2/' tests/train/clf1.sg >"$tmp/r1/g.sg"
	mpi mpi-graph
	if test "$(status mpi-graph)" -ne 1; then
		fail mpi-graph "exit status $(status mpi-graph), not 1"
	else
		has mpi-graph "process 1 disagrees with process 0 on the graph" \
		    "another lr is caught"
	fi
	cp tests/train/clf1.sg "$tmp/r1/g.sg"
	sed 's/he_uniform/he_normal/' tests/train/clf1.sg >"$tmp/r0/g.sg"
	mpi mpi-init
	if test "$(status mpi-init)" -ne 1; then
		fail mpi-init "exit status $(status mpi-init), not 1"
	else
		has mpi-init "process 1 disagrees with process 0 on the graph" \
		    "another initializer is caught"
	fi
	cp tests/train/clf1.sg "$tmp/r0/g.sg"
	cp tests/train/clf1-torch.safetensors "$tmp/r1/c.safetensors"
	mpi mpi-ckpt --load c.safetensors
	if test "$(status mpi-ckpt)" -ne 1; then
		fail mpi-ckpt "exit status $(status mpi-ckpt), not 1"
	else
		has mpi-ckpt "process 1 disagrees with process 0 on the \
contents of c.safetensors" "another checkpoint is caught"
	fi
fi

harness_finish
