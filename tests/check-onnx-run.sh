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
harness=check-onnx-run
. "$(dirname "$0")/onnx-harness.sh"
m=$onnx/gpt_tiny

for size in "3 17" "2 5"; do
	set -- $size
	for ranks in 1 2 4; do
		logits "values-b$1s$2-r$ranks" "$m.onnx" "$m" "batch=$1,seq=$2" \
		    "b$1s$2" "$ranks" --auto
	done
done

# The comparison can fail: the logits of one size against the other's.
not_logits other-size "$m.onnx" "$m" batch=3,seq=17 b3s17 \
    "$m.b2s5.out.safetensors"
verdict other-size-says grep -F -q "logits: dimension 0 is 3, expected 2" \
    "$tmp/said"

# Inputs the model does not take, or of other sizes: located errors.
check run wrong-size 1 "$m.onnx" --bind batch=2,seq=5 \
    --inputs "$m.b3s17.in.safetensors"
expect_err wrong-size "inputs: 'ids' is i64 with 2 dimensions in the file"
check run not-input 1 "$m.onnx" --bind batch=3,seq=17 \
    --inputs "$m.b3s17.out.safetensors"
expect_err not-input "inputs: 'logits' is computed by the graph"
check run two-steps 2 "$m.onnx" --bind batch=3,seq=17 --bind batch=2,seq=5 \
    --outputs "$tmp/o.safetensors"
expect_err two-steps "--outputs runs one step"
check run no-file 2 "$m.onnx" --bind batch=3,seq=17 \
    --inputs "$tmp/missing.safetensors"
expect_err no-file "--inputs $tmp/missing.safetensors"

# import in a graph file: the model with a loss, forward and backward
# on 2 devices against one device; an import naming an undeclared symbol
# or a missing model is a located error.
check run import-train 0 "$onnx/gpt_ft.sg" \
    --bind b=2,s=5 --bind b=4,s=17 --auto &&
    verdict import-train grep -q "^2 steps: every output matches" "$tmp/out"
cp "$m.onnx" "$tmp/gpt_tiny.onnx"
sed 's/seq = s)/seq = nosuch)/' "$onnx/gpt_ft.sg" >"$tmp/bad.sg"
check run import-symbol 1 "$tmp/bad.sg" --bind b=2,s=5
expect_err import-symbol "bad.sg:8:42: error: unknown symbol 'nosuch'"
printf 'import "missing.onnx"\n' >"$tmp/miss.sg"
check run import-missing 1 "$tmp/miss.sg"
expect_err import-missing "miss.sg:1:8: error: $tmp/missing.onnx: cannot read"

# Shard clauses naming ONNX nodes (tests/onnx/gpt_mp.sg): Megatron-style
# on 8 ranks, against one device at three sizes and against PyTorch's
# logits; the same with a loss and AdamW (gpt_mp_ft.sg), forward,
# backward and update against one device.
mp=$onnx/gpt_mp
for size in "3 17" "2 5"; do
	set -- $size
	logits "named-b$1s$2" "$mp.sg" "$m" "b=$1,s=$2" "b$1s$2" 8
done
if check run named-sizes 0 "$mp.sg" --bind b=2,s=5 --bind b=5,s=40; then
	verdict named-sizes grep -q "^2 steps: every output matches" "$tmp/out"
	verdict named-ranks grep -q "^$mp.sg: 8 ranks" "$tmp/out"
fi
check run named-train 0 "${mp}_ft.sg" --bind b=2,s=5 --bind b=3,s=17 &&
    verdict named-train grep -q "^2 steps: every output matches" "$tmp/out"
# The report names the ONNX node a strategy came from.
check run named-report 0 "$mp.sg" --bind b=2,s=5 --quiet
if check check named-json 0 --json "$mp.sg"; then
	for want in '"onnx_node": "/blocks.0/fc2/MatMul"' \
	    '"strategy_source": "shard clause of ONNX node '"'"'/head/MatMul'"'"'"'; do
		verdict "named-json $want" grep -F -q -- "$want" "$tmp/out"
	done
fi

# badclause NAME SED TEXT: gpt_mp.sg with its last clause edited by SED
# is invalid, with the located error TEXT.
badclause()
{
	sed "\|/head/MatMul|$2" "$mp.sg" >"$tmp/named.sg"
	check run "$1" 1 "$tmp/named.sg" --bind b=2,s=5 --quiet
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
check run named-before 1 "$tmp/pre.sg"
expect_err named-before "pre.sg:2:7: error: no operator was imported from an ONNX node named '/x'"
expect_err named-before "no model was imported above the clause"
printf 'devices 2\nshard x ((1,),)\n' >"$tmp/pre.sg"
check run named-unquoted 1 "$tmp/pre.sg"
expect_err named-unquoted "pre.sg:2:7: error: expected the name of an imported ONNX node in quotes after 'shard'"

# Slice with starts and ends that are symbolic shape values of other
# forms (tests/onnx/slicesym.onnx: s floordiv 2, s - 2 with step -2,
# -(s floordiv 2), b - 1, s floordiv b): exact dimensions with s at least
# 3 and b at least 2, the clamping of s floordiv b a run-time guard;
# numpy's values on 4 ranks against one device at two sizes; without the
# bounds, ONNX's clamping is not the same for every size: located errors.
sl=$onnx/slicesym
if check check slice-shapes 0 --symbol s:min=3 --symbol b:min=2 "$sl.onnx"
then
	verdict slice-lost grep -q '^onnx: .* 11 symbolic dimensions, 0 lost$' \
	    "$tmp/out"
	verdict slice-guard grep -q -F \
	    "s >= s floordiv b        (Slice node 'y5': the start of axis 1 within the dimension)" \
	    "$tmp/out"
	tr -s ' ' <"$tmp/out" >"$tmp/sq"
	for want in 'y1 gather f32[b, s - s floordiv 2, 4] (output)' \
	    'y2 slice f32[b, s floordiv 2, 4] (output)' \
	    'y3 gather f32[b, s floordiv 2, 4] (output)' \
	    'y4 gather f32[1, s - 2, 4] (output)' \
	    'y5 gather f32[b, s - s floordiv b, 4] (output)'; do
		verdict "slice-shapes $want" grep -q -F -x " $want" "$tmp/sq"
	done
fi
for size in "2 9" "3 6"; do
	set -- $size
	logits "slice-b$1s$2" "$sl.sg" "$sl" "b=$1,s=$2" "b$1s$2" 4 --auto
done
check check slice-unbounded 1 "$sl.onnx"
expect_err slice-unbounded "node 'y3' (Slice, opset 14): ONNX's clamping of the start of axis 1 needs -1 >= -(s floordiv 2), which does not hold for every size"
expect_err slice-unbounded "slice y2: dimension 1 of x (s) must be greater than begin[1]=1"

# A guard that a binding can violate (tests/onnx/sliceguard.onnx: y =
# x[:, b*n:] with s at least 16, so s >= b*n is a guard). shape-check
# reports it with the node and the bound it keeps in the dimension; a
# binding that satisfies it runs on 4 ranks against one device and
# numpy; one that violates it, alone or after one that satisfies it, is
# rejected before anything runs, with the guard, the node and the
# values (exit status 1); b*n = s violates the next guard, that the
# gather's arange is not empty, which names its operator.
sg=$onnx/sliceguard
if check check guard-report 0 "$sg.sg"; then
	for want in \
	    "s >= b*n        (Slice node 'tail': the start of axis 1 within the dimension)" \
	    "s - b*n >= 1    (arange y/step0: arange from 0 to s - b*n by 1 must not be empty: s - b*n must be at least 1)" \
	    "y         gather  f32[b, s - b*n, 4]  (output)"; do
		verdict "guard-report $want" grep -q -F -x "  $want" "$tmp/out"
	done
	verdict guard-report-warning grep -q -F -x \
	    "warning: $sg.onnx: node 'tail' (Slice, opset 14): the start of axis 1 within the dimension (s >= b*n) could not be proved; checked at run time" \
	    "$tmp/err"
fi
logits guard-holds "$sg.sg" "$sg" b=2,n=3,s=17 b2n3s17 4
if check run guard-holds-ranks 0 "$sg.sg" --bind b=2,n=3,s=17 \
    --bind b=1,n=15,s=16; then
	verdict guard-holds-ranks grep -q -x \
	    "2 steps: every output matches the single-device run" "$tmp/out"
fi
# guard_fails NAME MESSAGE BIND...: shape-run of sliceguard.sg with a
# --bind for each BIND exits 1 before any step, saying MESSAGE and no
# other error.
guard_fails()
{
	gname=$1
	gmsg=$2
	shift 2
	gargs=
	for gb; do
		gargs="$gargs --bind $gb"
	done
	check run "$gname" 1 "$sg.sg" $gargs
	expect_err "$gname" "$gmsg"
	expect_err "$gname" "shape-run: nothing runs"
	verdict "$gname: a step ran" sh -c "! grep -q 'step\\|max abs' '$tmp/out'"
	verdict "$gname: other errors" \
	    test "$(grep -c '^shape-run:' "$tmp/err")" = 2
}
guard_fails guard-fails \
    "shape-run: b = 4, n = 5, s = 16: rejected: s = 16, b = 4, n = 5 violate guard s >= b*n (Slice node 'tail': the start of axis 1 within the dimension)" \
    b=4,n=5,s=16
guard_fails guard-fails-second \
    "shape-run: b = 4, n = 5, s = 16: rejected: s = 16, b = 4, n = 5 violate guard s >= b*n (Slice node 'tail': the start of axis 1 within the dimension)" \
    b=2,n=3,s=17 b=4,n=5,s=16
guard_fails guard-fails-empty \
    "shape-run: b = 4, n = 4, s = 16: rejected: s = 16, b = 4, n = 4 violate guard s - b*n >= 1 (arange y/step0: arange from 0 to s - b*n by 1 must not be empty: s - b*n must be at least 1)" \
    b=4,n=4,s=16

onnx_finish
