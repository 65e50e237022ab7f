# SPDX-License-Identifier: MIT
# The harness the shape-train end-to-end checks share (sourced by
# tests/check-train*.sh): the tool, a temporary directory removed on exit,
# small MNIST/IDX files, and cases that run the tool and check its status
# and output. A script sets "harness" to its name, sources this file, runs
# its cases and ends with harness_finish.
#
# Variables a script may set before its cases:
#  - run_timeout: a time limit in seconds for each run (none by default),
#    so that an endless loop fails its case;
#  - refuse_quiet: "no" lets a refused run print on the standard output
#    (by default a refusal must print nothing there: nothing trained).
#
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN;
# SYM_TEST_WRAPPER, when set, is put in front of the tool (valgrind).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${MPIRUN:=mpirun}"
LC_ALL=C
export LC_ALL

tool=$top_builddir/shape-train
if ! test -x "$tool"; then
	echo "$harness: $tool is not built" >&2
	exit 1
fi
cd "$top_srcdir" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failed=
n=0
run_timeout=
refuse_quiet=yes

# bytes: write the decimal byte values read on the standard input as
# bytes.
bytes()
{
	awk '{ for (i = 1; i <= NF; i++) printf "\\%03o", $i }' | {
		read -r esc || :
		# shellcheck disable=SC2059
		printf "$esc"
	}
}

# be32 N: the 4 bytes of N, big-endian, as decimals.
be32()
{
	echo $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 & 255))
}

# idx DIR PREFIX N: write DIR/PREFIX-images-idx3-ubyte (N images of 2x3
# pixels) and DIR/PREFIX-labels-idx1-ubyte (N labels in 0..2).
idx()
{
	{
		echo 0 0 8 3
		be32 "$3"
		be32 2
		be32 3
		awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++)
		    for (j = 0; j < 6; j++)
		        printf "%d ", (i * 37 + j * 11) % 256 }'
	} | tr '\n' ' ' | bytes >"$1/$2-images-idx3-ubyte"
	{
		echo 0 0 8 1
		be32 "$3"
		awk -v n="$3" 'BEGIN { for (i = 0; i < n; i++)
		    printf "%d ", (i * 7 + int(i / 5)) % 3 }'
	} | tr '\n' ' ' | bytes >"$1/$2-labels-idx1-ubyte"
}

# run NAME ARGS...: run the tool with ARGS into $tmp/NAME.out, .err and
# .status (within run_timeout seconds when it is set).
run()
{
	name=$1
	shift
	if test -n "$run_timeout"; then
		# shellcheck disable=SC2086
		sh tests/with-timeout.sh "$run_timeout" $SYM_TEST_WRAPPER \
		    "$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	else
		$SYM_TEST_WRAPPER "$tool" "$@" >"$tmp/$name.out" \
		    2>"$tmp/$name.err"
	fi
	echo $? >"$tmp/$name.status"
}

# fail NAME WHY: record a failure of case NAME and show (the start of)
# its output.
fail()
{
	echo "FAIL: $1: $2"
	head -c 4000 "$tmp/$1.out" 2>/dev/null | sed 's/^/  out: /'
	head -c 4000 "$tmp/$1.err" 2>/dev/null | sed 's/^/  err: /'
	failed="$failed $1"
}

# status NAME: the exit status of case NAME.
status()
{
	cat "$tmp/$1.status"
}

# ok NAME ARGS...: the run must exit 0; its output is kept.
ok()
{
	name=$1
	shift
	n=$((n + 1))
	run "$name" "$@"
	if test "$(status "$name")" -ne 0; then
		fail "$name" "exit status $(status "$name"), not 0"
		return 1
	fi
	return 0
}

# refuse NAME STATUS TEXT ARGS...: the run must exit with STATUS and
# print TEXT (a fixed string) on the standard error (and nothing on the
# standard output unless refuse_quiet is "no").
refuse()
{
	name=$1
	want=$2
	text=$3
	shift 3
	n=$((n + 1))
	run "$name" "$@"
	if test "$(status "$name")" -ne "$want"; then
		fail "$name" "exit status $(status "$name"), not $want"
	elif ! grep -q -F -- "$text" "$tmp/$name.err"; then
		fail "$name" "no '$text' on the standard error"
	elif test "$refuse_quiet" != no && test -s "$tmp/$name.out"; then
		fail "$name" "something trained"
	else
		echo "ok: $name: refused with status $want"
		return 0
	fi
	return 1
}

# mismatch NAME ARGS...: the run must exit 1 with a MISMATCH line.
mismatch()
{
	name=$1
	shift
	n=$((n + 1))
	run "$name" "$@"
	if test "$(status "$name")" -ne 1; then
		fail "$name" "exit status $(status "$name"), not 1"
	elif ! grep -q '^MISMATCH step [0-9]*: loss ' "$tmp/$name.out"; then
		fail "$name" "no MISMATCH line"
	else
		echo "ok: $name: mismatch found"
	fi
}

# has NAME TEXT WHY: case NAME's standard output and error hold TEXT.
has()
{
	if cat "$tmp/$1.out" "$tmp/$1.err" | grep -q -F -- "$2"; then
		echo "ok: $1: $3"
	else
		fail "$1" "no '$2': $3"
	fi
}

# losses NAME: the losses of the --json steps of case NAME.
losses()
{
	sed -n 's/.*"loss": \([^,]*\),.*/\1/p' "$tmp/$1.out"
}

# harness_mpi_env: set "root" (mpirun's option to run as root, when we
# are), "limit" (an mpirun's time limit in seconds, SYM_MPI_TIMEOUT or
# 300) and the sanitizers' options that Open MPI needs.
harness_mpi_env()
{
	root=
	if test "$(id -u)" = 0; then
		root=--allow-run-as-root
	fi
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/openmpi.supp"
	export ASAN_OPTIONS LSAN_OPTIONS
	limit=${SYM_MPI_TIMEOUT:-300}
}

# harness_mpirun N NAME ARGS...: run the tool with ARGS on N processes of
# the MPI backend under mpirun, within the time limit, into $tmp/NAME.out,
# .err and .status.
harness_mpirun()
{
	np=$1
	name=$2
	shift 2
	harness_mpi_env
	# shellcheck disable=SC2086
	sh "$top_srcdir/tests/with-timeout.sh" "$limit" "$MPIRUN" $root \
	    --oversubscribe -n "$np" "$top_builddir/libtool" --mode=execute \
	    "$tool" --backend mpi "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.status"
}

# harness_finish: the summary line; exit status 1 if a case failed.
harness_finish()
{
	if test -n "$failed"; then
		echo "$harness: failed:$failed"
		exit 1
	fi
	echo "$harness: $n cases as expected"
	exit 0
}
