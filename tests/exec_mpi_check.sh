#!/bin/sh
# Runs tests/test_exec_mpi under mpirun on 8 processes (oversubscribed, so
# that it runs on any machine): sym_exec_check on the MPI backend. Passes
# when every process passes. In TESTS only when configure found MPI and
# mpirun.
#
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
: "${MPIRUN:=mpirun}"

prog=$top_builddir/tests/test_exec_mpi
if ! test -x "$prog"; then
	echo "exec_mpi_check: $prog not built" >&2
	exit 1
fi

# mpirun refuses to run as root unless told; --oversubscribe lets 8
# processes share fewer cores.
root=
if test "$(id -u)" = 0; then
	root=--allow-run-as-root
fi

# With --enable-sanitizers, LeakSanitizer would report what Open MPI never
# frees: tests/openmpi.supp suppresses stacks through its libraries, which
# needs full stacks. (Both settings are ignored by builds without ASan.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/openmpi.supp"
export ASAN_OPTIONS LSAN_OPTIONS

# The program is a libtool wrapper script: libtool runs the real one with
# the library found. SYM_TEST_WRAPPER (make check-valgrind) is not applied:
# Open MPI itself is not valgrind-clean (leaks and uninitialised bytes inside
# MPI_Init_thread and MPI_Finalize); test_exec covers the common code.
out=$("$MPIRUN" $root --oversubscribe -n 8 \
    "$top_builddir/libtool" --mode=execute "$prog" 2>&1)
status=$?
printf '%s\n' "$out"
if test "$status" -ne 0; then
	echo "exec_mpi_check: mpirun exited with status $status"
	exit 1
fi
n=$(printf '%s\n' "$out" | grep -c ' checks, 0 failures$')
if test "$n" -ne 8; then
	echo "exec_mpi_check: $n of 8 processes reported success"
	exit 1
fi
echo "exec_mpi_check: 8 processes passed"
exit 0
