#!/bin/sh
# SPDX-License-Identifier: MIT
# shape-run on an ONNX model against the exporter's own numbers: the
# GPT-style decoder of tests/onnx/gpt_tiny.onnx (exported by
# tools/onnx/export_gpt.py --layers 1 --width 16 --heads 2 --vocab 32
# --values 3x17 2x5) runs from its own weights on the ids PyTorch got
# (--inputs), sharded on 1, 2 and 4 ranks (--auto) against one device,
# and the logits it writes (--outputs) must equal PyTorch's within
# |got - want| <= 1e-5 + 1e-5*|want|. Then the errors: an input the model
# does not have, an input of the wrong size, --outputs with two --bind,
# and logits compared with those of the other size.
#
# Usage: tests/check-onnx-run.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER (valgrind), when set.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

tool=$top_builddir/shape-run
cmp=$top_builddir/tests/st_compare
m=$top_srcdir/tests/onnx/gpt_tiny
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0

# check NAME STATUS ARGS...: run shape-run with ARGS; its exit status
# must be STATUS.
check()
{
	name=$1
	want=$2
	shift 2
	$SYM_TEST_WRAPPER "$tool" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if test "$got" != "$want"; then
		echo "FAIL: $name: exit $got, expected $want"
		sed 's/^/  /' "$tmp/out" "$tmp/err"
		failed=$((failed + 1))
		return 1
	fi
	passed=$((passed + 1))
	return 0
}

# expect_err NAME TEXT: the last run's standard error says TEXT.
expect_err()
{
	if grep -F -q -- "$2" "$tmp/err"; then
		passed=$((passed + 1))
	else
		echo "FAIL: $1: no '$2' in:"
		sed 's/^/  /' "$tmp/err"
		failed=$((failed + 1))
	fi
}

for size in "3 17" "2 5"; do
	set -- $size
	bs=b$1s$2
	for ranks in 1 2 4; do
		name=values-$bs-r$ranks
		if check "$name" 0 "$m.onnx" --bind "batch=$1,seq=$2" \
		    --ranks "$ranks" --auto --quiet \
		    --inputs "$m.$bs.in.safetensors" \
		    --outputs "$tmp/$bs.out.safetensors"; then
			if "$cmp" "$tmp/$bs.out.safetensors" \
			    "$m.$bs.out.safetensors" 1e-5 1e-5; then
				passed=$((passed + 1))
			else
				echo "FAIL: $name: logits differ from PyTorch's"
				failed=$((failed + 1))
			fi
		fi
		rm -f "$tmp/$bs.out.safetensors"
	done
done

# The comparison can fail: the logits of one size against the other's.
check other-size 0 "$m.onnx" --bind batch=3,seq=17 --quiet \
    --inputs "$m.b3s17.in.safetensors" --outputs "$tmp/o.safetensors"
if "$cmp" "$tmp/o.safetensors" "$m.b2s5.out.safetensors" 1e-5 1e-5 \
    2>"$tmp/err" >/dev/null; then
	echo "FAIL: other-size: logits of 3x17 equal those of 2x5"
	failed=$((failed + 1))
else
	expect_err other-size "logits: dimension 0 is 3, expected 2"
fi

# Inputs the model does not take, or of other sizes: located errors.
check wrong-size 1 "$m.onnx" --bind batch=2,seq=5 \
    --inputs "$m.b3s17.in.safetensors"
expect_err wrong-size "inputs: 'ids' is i64 with 2 dimensions in the file"
check not-input 1 "$m.onnx" --bind batch=3,seq=17 \
    --inputs "$m.b3s17.out.safetensors"
expect_err not-input "inputs: 'logits' is computed by the graph"
check two-steps 2 "$m.onnx" --bind batch=3,seq=17 --bind batch=2,seq=5 \
    --outputs "$tmp/o.safetensors"
expect_err two-steps "--outputs runs one step"
check no-file 2 "$m.onnx" --bind batch=3,seq=17 \
    --inputs "$tmp/missing.safetensors"
expect_err no-file "--inputs $tmp/missing.safetensors"

# import in a graph file: the model with a loss, forward and backward
# on 2 devices against one device; an import naming an undeclared symbol
# or a missing model is a located error.
check import-train 0 "$top_srcdir/tests/onnx/gpt_ft.sg" \
    --bind b=2,s=5 --bind b=4,s=17 --auto
if grep -q "^2 steps: every output matches" "$tmp/out"; then
	passed=$((passed + 1))
else
	echo "FAIL: import-train: no match line"
	failed=$((failed + 1))
fi
cp "$m.onnx" "$tmp/gpt_tiny.onnx"
sed 's/seq = s)/seq = nosuch)/' "$top_srcdir/tests/onnx/gpt_ft.sg" \
    >"$tmp/bad.sg"
check import-symbol 1 "$tmp/bad.sg" --bind b=2,s=5
expect_err import-symbol "bad.sg:8:42: error: unknown symbol 'nosuch'"
printf 'import "missing.onnx"\n' >"$tmp/miss.sg"
check import-missing 1 "$tmp/miss.sg"
expect_err import-missing "miss.sg:1:8: error: $tmp/missing.onnx: cannot read"

# Shard clauses naming ONNX nodes (tests/onnx/gpt_mp.sg): Megatron-style
# on 8 ranks, against one device at three sizes and against PyTorch's
# logits; the same with a loss and AdamW (gpt_mp_ft.sg), forward,
# backward and update against one device.
mp=$top_srcdir/tests/onnx/gpt_mp
for size in "3 17" "2 5"; do
	set -- $size
	bs=b$1s$2
	name=named-$bs
	if check "$name" 0 "$mp.sg" --bind "b=$1,s=$2" --quiet \
	    --inputs "$m.$bs.in.safetensors" --outputs "$tmp/$bs.out.safetensors"
	then
		if "$cmp" "$tmp/$bs.out.safetensors" "$m.$bs.out.safetensors" \
		    1e-5 1e-5 >/dev/null; then
			passed=$((passed + 1))
		else
			echo "FAIL: $name: logits differ from PyTorch's"
			failed=$((failed + 1))
		fi
	fi
	rm -f "$tmp/$bs.out.safetensors"
done
check named-sizes 0 "$mp.sg" --bind b=2,s=5 --bind b=5,s=40
if grep -q "^2 steps: every output matches" "$tmp/out" &&
    grep -q "^$mp.sg: 8 ranks" "$tmp/out"; then
	passed=$((passed + 1))
else
	echo "FAIL: named-sizes: not 8 ranks matching one device"
	sed 's/^/  /' "$tmp/out"
	failed=$((failed + 1))
fi
check named-train 0 "${mp}_ft.sg" --bind b=2,s=5 --bind b=3,s=17
if grep -q "^2 steps: every output matches" "$tmp/out"; then
	passed=$((passed + 1))
else
	echo "FAIL: named-train: no match line"
	failed=$((failed + 1))
fi
# The report names the ONNX node a strategy came from.
check named-report 0 "$mp.sg" --bind b=2,s=5 --quiet
$SYM_TEST_WRAPPER "$top_builddir/shape-check" --json "$mp.sg" >"$tmp/json" \
    2>&1
for want in '"onnx_node": "/blocks.0/fc2/MatMul"' \
    '"strategy_source": "shard clause of ONNX node '"'"'/head/MatMul'"'"'"'; do
	if grep -F -q -- "$want" "$tmp/json"; then
		passed=$((passed + 1))
	else
		echo "FAIL: named-json: no $want"
		failed=$((failed + 1))
	fi
done

# badclause NAME SED TEXT: gpt_mp.sg with its last clause edited by SED
# is invalid, with the located error TEXT.
badclause()
{
	sed "\|/head/MatMul|$2" "$mp.sg" >"$tmp/named.sg"
	check "$1" 1 "$tmp/named.sg" --bind b=2,s=5 --quiet
	expect_err "$1" "$3"
}
badclause named-none 's|MatMul"|MatMull"|' \
    "named.sg:14:7: error: no operator was imported from an ONNX node named '/head/MatMull'"
expect_err named-none "did you mean '/head/MatMul'?"
badclause named-twice 's|/head/|/blocks.0/fc1/|' \
    "named.sg:14:7: error: ONNX node '/blocks.0/fc1/MatMul' already has a shard clause, at line 12"
badclause named-folded 's|"/head/MatMul" ((1, 1, 1), (1, 8))|"/Gather" ((1,),)|' \
    "named.sg:14:7: error: no operator was imported from an ONNX node named '/Gather'"
expect_err named-folded "nodes folded as shape values have no operator"
badclause named-rank 's|((1, 1, 1), (1, 8))|((1, 1), (1, 8))|' \
    "named.sg:14:23: error: batch_matmul /head/MatMul_output_0: the strategy (1, 1) of /ln/Add_1_output_0 has 2 split counts, but /ln/Add_1_output_0 has rank 3"
badclause named-devices 's|(1, 8))|(1, 16))|' \
    "named.sg:14:22: error: batch_matmul /head/MatMul_output_0: the device matrix (1, 1, 1, 16) needs 16 devices, but there are only 8"
badclause named-divisible 's|((1, 1, 1), (1, 8))|((8, 1, 1), (1, 1))|' \
    "named.sg:14:7: error: batch_matmul /head/MatMul_output_0: b = 1 makes dimension 0 of /ln/Add_1_output_0 (size b) not divisible by 8"
printf 'devices 2\nshard "/x" ((1,),)\n' >"$tmp/pre.sg"
check named-before 1 "$tmp/pre.sg"
expect_err named-before "pre.sg:2:7: error: no operator was imported from an ONNX node named '/x'"
expect_err named-before "no model was imported above the clause"
printf 'devices 2\nshard x ((1,),)\n' >"$tmp/pre.sg"
check named-unquoted 1 "$tmp/pre.sg"
expect_err named-unquoted "pre.sg:2:7: error: expected the name of an imported ONNX node in quotes after 'shard'"

echo "check-onnx-run: $passed passed, $failed failed"
test "$failed" = 0
