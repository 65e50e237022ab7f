#!/bin/sh
# Runs tests/test_comm_mpi under mpirun on 4 processes (oversubscribed, so
# that it runs on any machine): the comm family on the MPI backend. Passes
# when every process passes. In TESTS only when configure found MPI and
# mpirun.
#
# Environment (set by make check): top_builddir, MPIRUN.

: "${top_builddir:=.}"
: "${MPIRUN:=mpirun}"

prog=$top_builddir/tests/test_comm_mpi
if ! test -x "$prog"; then
	echo "comm_mpi_check: $prog not built" >&2
	exit 1
fi

# mpirun refuses to run as root unless told; --oversubscribe lets 4
# processes share fewer cores.
root=
if test "$(id -u)" = 0; then
	root=--allow-run-as-root
fi

# A libtool wrapper script: run the real program with the library found.
out=$("$MPIRUN" $root --oversubscribe -n 4 \
    "$top_builddir/libtool" --mode=execute $SYM_TEST_WRAPPER "$prog" 2>&1)
status=$?
printf '%s\n' "$out"
if test "$status" -ne 0; then
	echo "comm_mpi_check: mpirun exited with status $status"
	exit 1
fi
n=$(printf '%s\n' "$out" | grep -c ' checks, 0 failures$')
if test "$n" -ne 4; then
	echo "comm_mpi_check: $n of 4 processes reported success"
	exit 1
fi
echo "comm_mpi_check: 4 processes passed"
exit 0
