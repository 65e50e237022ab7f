#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs tests/test_comm_mpi under mpirun on 4 processes: the comm family on the MPI backend
# (see tests/mpi-run.sh).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
exec sh "$top_srcdir/tests/mpi-run.sh" comm_mpi_check \
    "$top_builddir/tests/test_comm_mpi" 4
