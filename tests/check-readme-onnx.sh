#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's ONNX example, run as written so that it cannot rot: the
# commands between the lines "<!-- check-readme-onnx: begin -->" and
# "<!-- check-readme-onnx: end -->" of README.md (indented, after "$ ",
# continued by a trailing backslash) run from a scratch folder that sees
# the source tree's tests/ (what they write stays there), with the
# build's tools (and cat, to show a file). Each must exit 0, and its standard output must be the
# lines the README shows under it: compared line by line with runs of
# blanks squeezed, where "..." inside a line stands for any text and a
# line "..." for any number of lines (the README uses it for timings and
# for what it leaves out). A command with no lines under it is checked
# for its exit status only.
#
# The export, tools/onnx/export_gpt.py, needs PyTorch and is not run:
# its arguments must be those that made the committed fixture
# tests/onnx/gpt_tiny.onnx and its values (tests/check-onnx-run.sh says
# how), so the commands after it read what it would have written. The
# logits a shape-run --outputs writes must equal PyTorch's (the
# fixture's .out.safetensors of the same size) within 1e-5 + 1e-5*|want|.
# Then the check itself: a loss edited in a copy of the README must no
# longer match.
#
# Usage: tests/check-readme-onnx.sh
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER (valgrind), when set: skipped (check-onnx-run.sh runs
# the same shape-run under valgrind; the sanitizer build runs this whole).

harness=check-readme-onnx
. "$(dirname "$0")/onnx-harness.sh"

if test -n "${SYM_TEST_WRAPPER:-}"; then
	echo "$harness: skipped under valgrind"
	exit 77
fi

# The arguments of the export that made tests/onnx/gpt_tiny.onnx.
recipe="tests/onnx/gpt_tiny.onnx --layers 1 --width 16 --heads 2 --vocab 32 --values 3x17 2x5"

# extract README DIR: write the example's commands of README into
# DIR/cmd.N and the lines shown under each into DIR/want.N (N from 1);
# print the number of commands.
extract()
{
	awk -v dir="$2" '
	/^<!-- check-readme-onnx: begin -->$/ { on = 1; next }
	/^<!-- check-readme-onnx: end -->$/ { on = 0; next }
	!on { next }
	!/^    / { cont = 0; cur = ""; next }
	{ line = substr($0, 5) }
	cont { sub(/^ */, " ", line); text = text line }
	!cont && line ~ /^\$ / { n++; text = substr(line, 3); cur = n
	    printf "" >(dir "/want." n) }
	cont || line ~ /^\$ / {
	    cont = sub(/ *\\$/, "", text)
	    if (!cont) print text >(dir "/cmd." n)
	    next }
	cur != "" { print line >>(dir "/want." cur) }
	END { print n + 0 }' "$1"
}

# matches WANT GOT: the lines of GOT are those of WANT (see the top).
matches()
{
	awk 'function norm(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s)
	        sub(/ $/, "", s); return s }
	    # Whether line "g" has the pieces of "w" around its "..." in
	    # order, the first at its start and the last at its end.
	    function fits(w, g,    k, p, i, at) {
	        k = split(w, p, /\.\.\./)
	        if (k == 1) return w == g
	        if (substr(g, 1, length(p[1])) != p[1]) return 0
	        at = length(p[1]) + 1
	        for (i = 2; i < k; i++) {
	            if (p[i] == "") continue
	            j = index(substr(g, at), p[i])
	            if (!j) return 0
	            at += j - 1 + length(p[i])
	        }
	        return length(g) - at + 1 >= length(p[k]) &&
	            substr(g, length(g) - length(p[k]) + 1) == p[k]
	    }
	    function m(i, j) {
	        if (i > nw) return j > ng
	        if (want[i] == "...") {
	            for (; j <= ng + 1; j++) if (m(i + 1, j)) return 1
	            return 0
	        }
	        return j <= ng && fits(want[i], got[j]) && m(i + 1, j + 1)
	    }
	    NR == FNR { want[++nw] = norm($0); next }
	    { got[++ng] = norm($0) }
	    END { if (!m(1, 1)) { print "not the lines the README shows"
	        exit 1 } }' "$1" "$2"
}

# example README: run the example of README (see the top), each command
# a check; the fixture's files are read from $top_srcdir/tests.
example()
{
	work=$tmp/work
	rm -rf "$work" "$tmp/x"
	mkdir "$work" "$tmp/x" || exit 1
	ln -s "$top_srcdir/tests" "$work/tests" || exit 1
	n=$(extract "$1" "$tmp/x")
	verdict "the README has an example" test "$n" -ge 3
	i=1
	while test "$i" -le "$n"; do
		text=$(cat "$tmp/x/cmd.$i")
		case $text in
		*[\'\"\$\;\&\|\<\>\(\)\`]*)
			verdict "command $i: '$text' is plain words" false
			i=$((i + 1))
			continue
			;;
		esac
		set -f
		# shellcheck disable=SC2086
		set -- $text
		set +f
		prog=$1
		shift
		case $prog in
		tools/onnx/export_gpt.py)
			verdict "command $i: the export is the fixture's" \
			    test "$*" = "$recipe"
			;;
		shape-check | shape-run | shape-train | cat)
			test "$prog" = cat || prog=$top_builddir/$prog
			(cd "$work" && "$prog" "$@") >"$tmp/out" 2>"$tmp/err"
			st=$?
			cp "$tmp/out" "$tmp/x/got.$i"
			verdict "command $i: exit $st, not 0" test "$st" = 0 &&
			    verdict "command $i: its output" \
				matches "$tmp/x/want.$i" "$tmp/out"
			;;
		*)
			verdict "command $i: $prog is no tool of the example" \
			    false
			;;
		esac
		i=$((i + 1))
	done
}

example "$top_srcdir/README.md"
# The logits the README's shape-run wrote are PyTorch's.
verdict "logits.safetensors equals PyTorch's" "$cmp" \
    "$tmp/work/logits.safetensors" \
    "$onnx/gpt_tiny.b3s17.out.safetensors" $rtol $atol

# The check can fail: a loss edited in a copy of the README no longer
# matches what shape-train printed.
sed '/check-readme-onnx: begin/,/check-readme-onnx: end/s/: loss 3\./: loss 4./' \
    "$top_srcdir/README.md" >"$tmp/README.md"
mkdir "$tmp/y" || exit 1
n=$(extract "$tmp/README.md" "$tmp/y")
edited=0
i=1
while test "$i" -le "$n"; do
	if test -f "$tmp/x/got.$i" &&
	    ! matches "$tmp/y/want.$i" "$tmp/x/got.$i" >/dev/null; then
		edited=$((edited + 1))
	fi
	i=$((i + 1))
done
verdict "an edited loss fails" test "$edited" = 1

onnx_finish
