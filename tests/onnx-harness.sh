# SPDX-License-Identifier: MIT
# The harness the ONNX end-to-end checks share (sourced by
# tests/check-onnx-*.sh and tests/check-readme-onnx.sh): the build's
# tools, a temporary directory removed on exit, counts of passed and
# failed checks, runs of a tool whose exit status is checked, verdicts,
# and the comparison of a model's logits with its exporter's. A script
# sets "harness" to its name, sources this file, runs its checks and
# ends with onnx_finish.
#
# Names a script may use: $tmp (its directory; the last run's output
# in $tmp/out and $tmp/err), $cmp (tests/st_compare), $onnx (the folder
# of the fixtures, tests/onnx), $rtol and $atol (the tolerance of
# logits against the exporter's: |got - want| <= atol + rtol*|want|).
#
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER (valgrind), when set, is put in front of the tools.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

cmp=$top_builddir/tests/st_compare
onnx=$top_srcdir/tests/onnx
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0
rtol=1e-5
atol=1e-5

# check TOOL NAME STATUS ARGS...: run shape-TOOL with ARGS (output in
# $tmp/out and $tmp/err); its exit status must be STATUS. Returns 0 when
# it is.
check()
{
	tool=$top_builddir/shape-$1
	name=$2
	want=$3
	shift 3
	$SYM_TEST_WRAPPER "$tool" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if test "$got" != "$want"; then
		echo "FAIL: $name: exit $got, expected $want"
		sed 's/^/  /' "$tmp/out" "$tmp/err" | head -40
		failed=$((failed + 1))
		return 1
	fi
	passed=$((passed + 1))
	return 0
}

# verdict NAME COMMAND...: COMMAND must succeed; its output (in $tmp/v)
# is shown when it does not, else the last run's.
verdict()
{
	name=$1
	shift
	if "$@" >"$tmp/v" 2>&1; then
		passed=$((passed + 1))
	else
		echo "FAIL: $name"
		if test -s "$tmp/v"; then
			sed 's/^/  /' "$tmp/v" | head -20
		elif test -f "$tmp/out"; then
			sed 's/^/  /' "$tmp/out" | head -40
		fi
		failed=$((failed + 1))
	fi
}

# expect_err NAME TEXT: the last run's standard error says TEXT.
expect_err()
{
	verdict "$1: no '$2' in the errors" grep -F -q -- "$2" "$tmp/err"
}

# logits NAME MODEL BASE BIND TAG RANKS [ARGS...]: shape-run MODEL (a
# .onnx or a .sg) at BIND from the exporter's inputs
# BASE.TAG.in.safetensors on RANKS ranks with ARGS, against one device;
# the outputs it writes must equal the exporter's BASE.TAG.out.safetensors
# within $atol + $rtol*|want|. The comparison's figures stay in $tmp/v.
logits()
{
	lname=$1
	lmodel=$2
	lbase=$3
	lbind=$4
	ltag=$5
	lranks=$6
	shift 6
	if check run "$lname" 0 "$lmodel" --bind "$lbind" --ranks "$lranks" \
	    --quiet \
	    --inputs "$lbase.$ltag.in.safetensors" \
	    --outputs "$tmp/o.safetensors" "$@"; then
		verdict "$lname" "$cmp" "$tmp/o.safetensors" \
		    "$lbase.$ltag.out.safetensors" $rtol $atol
	fi
	rm -f "$tmp/o.safetensors"
}

# not_logits NAME MODEL BASE BIND TAG OTHER: the comparison can fail: the
# outputs of MODEL at BIND from the inputs BASE.TAG.in.safetensors
# against the exporter's outputs at another size, OTHER (a file), must
# differ; what the comparison said stays in $tmp/said.
not_logits()
{
	rm -f "$tmp/v" "$tmp/said"
	if check run "$1" 0 "$2" --bind "$4" --quiet \
	    --inputs "$3.$5.in.safetensors" --outputs "$tmp/o.safetensors"
	then
		verdict "$1: the outputs equal those of $6" sh -c \
		    "! '$cmp' '$tmp/o.safetensors' '$6' $rtol $atol"
		cp "$tmp/v" "$tmp/said"
	fi
	rm -f "$tmp/o.safetensors"
}

# onnx_finish: print the counts; the script's exit status is 0 when no
# check failed.
onnx_finish()
{
	echo "$harness: $passed passed, $failed failed"
	test "$failed" = 0
}
