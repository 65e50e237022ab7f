#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a test program under mpirun on N processes (oversubscribed, so that
# it runs on any machine) and passes when every process reports success
# (a line ending " checks, 0 failures") within a time limit: MPI has no
# timeout, so a rank left waiting for one that failed would otherwise hang
# make check. Shared by comm_mpi_check.sh and exec_mpi_check.sh, which
# are in TESTS only when configure found MPI and mpirun.
#
# Usage: mpi-run.sh NAME PROGRAM N
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN;
# SYM_MPI_TIMEOUT, the time limit in seconds (default 300: a run takes a
# few seconds alone, over 120 s under ASan on two busy cores).

name=$1
prog=$2
n_proc=$3
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
: "${MPIRUN:=mpirun}"

if ! test -x "$prog"; then
	echo "$name: $prog not built" >&2
	exit 1
fi

# mpirun refuses to run as root unless told; --oversubscribe lets the
# processes share fewer cores.
root=
if test "$(id -u)" = 0; then
	root=--allow-run-as-root
fi

# With --enable-sanitizers, LeakSanitizer would report what Open MPI never
# frees: tests/openmpi.supp suppresses stacks through its libraries, which
# needs full stacks. A test asks one rank for buffers beyond any memory,
# which the allocator must refuse with NULL, as malloc does, rather than
# end the process. (These settings are ignored by builds without ASan.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1"
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$top_srcdir/tests/openmpi.supp"
export ASAN_OPTIONS LSAN_OPTIONS

# The program is a libtool wrapper script: libtool runs the real one with
# the library found. SYM_TEST_WRAPPER (make check-valgrind) is not applied:
# Open MPI itself is not valgrind-clean (leaks and uninitialised bytes inside
# MPI_Init_thread and MPI_Finalize); the threads backend's tests cover the
# common code.
limit=${SYM_MPI_TIMEOUT:-300}
out=$(sh "$top_srcdir/tests/with-timeout.sh" "$limit" \
    "$MPIRUN" $root --oversubscribe -n "$n_proc" \
    "$top_builddir/libtool" --mode=execute "$prog" 2>&1)
status=$?
printf '%s\n' "$out"
if test "$status" -eq 124; then
	echo "$name: still running after $limit s: stopped (a rank waiting" \
	    "for one that failed?)"
	exit 1
fi
if test "$status" -ne 0; then
	echo "$name: mpirun exited with status $status"
	exit 1
fi
n=$(printf '%s\n' "$out" | grep -c ' checks, 0 failures$')
if test "$n" -ne "$n_proc"; then
	echo "$name: $n of $n_proc processes reported success"
	exit 1
fi
echo "$name: $n_proc processes passed"
exit 0
