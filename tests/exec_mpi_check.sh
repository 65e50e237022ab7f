#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs tests/test_exec_mpi under mpirun on 8 processes: sym_exec_check
# on the MPI backend (see tests/mpi-run.sh).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
exec sh "$top_srcdir/tests/mpi-run.sh" exec_mpi_check \
    "$top_builddir/tests/test_exec_mpi" 8
