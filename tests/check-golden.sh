#!/bin/sh
# SPDX-License-Identifier: MIT
# Golden tests of shape-check: runs the tool on every case of tests/golden/
# and compares its output, diagnostics and exit status with the expected
# ones, printing the differences. tests/update-golden.sh regenerates the
# expected files (on purpose, after reading what changed).
#
# A case NAME is tests/golden/NAME.sg, run as "shape-check
# tests/golden/NAME.sg", or tests/golden/NAME.cmd, whose one line holds the
# arguments instead (shell words, redirections allowed: "- < FILE",
# "--strict examples/ffn.sg"). Each case is run twice, from the top of the
# source tree so that locations are relative paths:
#
#   shape-check ARGS          stdout NAME.out, stderr NAME.err, status
#                             NAME.status
#   shape-check ARGS --json   stdout NAME.json, and the same stderr and
#                             status as without --json
#
# A case that writes files (--draw, --dot) names them $out/FILE in its
# NAME.cmd ("examples/layout.sg --draw x=$out/layout-draw.svg"): $out is
# an empty directory of each run, and every FILE must equal
# tests/golden/FILE after both runs (name it after the case). Inputs that
# are no case (topology files, rank tables) live in tests/golden/data/.
#
# Usage: tests/check-golden.sh [--update]
# Environment (set by make check): top_srcdir, top_builddir;
# SYM_TEST_WRAPPER, when set, is put in front of the tool (valgrind) in
# one of the two runs of each case, alternately.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
LC_ALL=C
export LC_ALL

update=no
if test "x$1" = x--update; then
	update=yes
fi

tool=$top_builddir/shape-check
if ! test -x "$tool"; then
	echo "check-golden: $tool is not built" >&2
	exit 1
fi
cd "$top_srcdir" || exit 1
golden=tests/golden
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The names of the cases, sorted.
cases()
{
	for f in "$golden"/*.sg "$golden"/*.cmd; do
		test -f "$f" || continue
		f=${f##*/}
		echo "${f%.*}"
	done | sort -u
}

# untimed FILE: replace in FILE the time a strategy search took, the one
# number of a report that changes from run to run, by "T".
untimed()
{
	sed -e 's/priced in [0-9.]* s;/priced in T s;/' \
	    -e 's/"seconds_searched": [0-9.e+-]*/"seconds_searched": T/' \
	    "$1" >"$1.u" && mv "$1.u" "$1"
}

# run NAME ARGS SUFFIX WRAPPER: run the tool with ARGS (and --json when
# SUFFIX is "json") under WRAPPER (may be empty) into
# $tmp/NAME.{out,err,status} or $tmp/NAME.{json,jerr,jstatus}; the files
# it writes to $out are in $tmp/NAME.SUFFIX.files/.
run()
{
	out=$tmp/$1.$3.files
	mkdir "$out" || exit 1
	if test "x$3" = xjson; then
		eval "$4 \"\$tool\" $2 --json" \
		    >"$tmp/$1.json" 2>"$tmp/$1.jerr"
		echo $? >"$tmp/$1.jstatus"
		untimed "$tmp/$1.json"
	else
		eval "$4 \"\$tool\" $2" \
		    >"$tmp/$1.out" 2>"$tmp/$1.err"
		echo $? >"$tmp/$1.status"
		untimed "$tmp/$1.out"
	fi
}

# compare EXPECTED ACTUAL [written]: 0 when they are equal (with
# "written", also when neither exists: a file the case should not write),
# else print the diff.
compare()
{
	if ! test -f "$1" && ! test -f "$2" && test "x$3" = xwritten; then
		return 0
	fi
	if ! test -f "$1"; then
		echo "--- $1 is missing (run tests/update-golden.sh)"
		return 1
	fi
	if ! test -f "$2"; then
		echo "--- ${1##*/} was not written"
		return 1
	fi
	if cmp -s "$1" "$2"; then
		return 0
	fi
	echo "--- $1 differs (- expected, + got):"
	diff -u "$1" "$2" | sed -e '1,2d'
	return 1
}

# written ARGS: the names of the files the arguments ARGS write to $out.
written()
{
	echo "$1" | tr ' =' '\n\n' | sed -n 's|^"*\$out"*/||p' | tr -d '"'
}

# install NEW DEST: copy NEW over DEST, saying what changed.
install_new()
{
	if ! test -f "$1"; then
		echo "not written: ${2##*/}"
		return 0
	fi
	if ! test -f "$2"; then
		echo "created $2"
	elif cmp -s "$1" "$2"; then
		return 0
	else
		echo "updated $2:"
		diff -u "$2" "$1" | sed -e '1,2d'
	fi
	cp "$1" "$2"
}

n=0
failed=
for name in $(cases); do
	n=$((n + 1))
	if test -f "$golden/$name.cmd"; then
		args=$(sed -n 1p "$golden/$name.cmd")
	else
		args=$golden/$name.sg
	fi
	# Under a wrapper (valgrind), each case's analysis runs under it
	# once: the text run of odd cases and the JSON run of even ones, so
	# that both printers are covered and the step takes half the time.
	if test $((n % 2)) = 1; then
		run "$name" "$args" text "$SYM_TEST_WRAPPER"
		run "$name" "$args" json ""
	else
		run "$name" "$args" text ""
		run "$name" "$args" json "$SYM_TEST_WRAPPER"
	fi
	base=$golden/$name
	files=$(written "$args")
	if test $update = yes; then
		for ext in out err status json; do
			install_new "$tmp/$name.$ext" "$base.$ext"
		done
		for f in $files; do
			install_new "$tmp/$name.text.files/$f" "$golden/$f"
		done
	fi
	ok=yes
	compare "$base.out" "$tmp/$name.out" || ok=no
	compare "$base.err" "$tmp/$name.err" || ok=no
	compare "$base.status" "$tmp/$name.status" || ok=no
	compare "$base.json" "$tmp/$name.json" || ok=no
	compare "$base.err" "$tmp/$name.jerr" || ok=no
	compare "$base.status" "$tmp/$name.jstatus" || ok=no
	for f in $files; do
		compare "$golden/$f" "$tmp/$name.text.files/$f" written ||
		    ok=no
		compare "$golden/$f" "$tmp/$name.json.files/$f" written ||
		    ok=no
	done
	if test $ok = no; then
		echo "FAIL: $name (shape-check $args)"
		failed="$failed $name"
	fi
done

# Expected files of cases that no longer exist.
for f in "$golden"/*.out "$golden"/*.err "$golden"/*.status \
    "$golden"/*.json; do
	test -f "$f" || continue
	b=${f%.*}
	if ! test -f "$b.sg" && ! test -f "$b.cmd"; then
		echo "check-golden: $f belongs to no case (remove it)"
		failed="$failed ${b##*/}"
	fi
done
for f in "$golden"/*.svg "$golden"/*.dot; do
	test -f "$f" || continue
	if ! cat "$golden"/*.cmd | grep -q "\$out\"*/${f##*/}"; then
		echo "check-golden: $f is written by no case (remove it)"
		failed="$failed ${f##*/}"
	fi
done

# --version: the program's name, the package and a version number.
v=$($SYM_TEST_WRAPPER "$tool" --version)
re='shape-check (symshard) [0-9]*\.[0-9]*\.[0-9]*'
if ! echo "$v" | grep -q -x "$re"; then
	echo "FAIL: --version printed '$v'"
	failed="$failed --version"
fi

if test -n "$failed"; then
	echo "check-golden: failed:$failed"
	exit 1
fi
echo "check-golden: $n cases as expected"
exit 0
