#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs tests/test_train_mpi under mpirun on 4 processes: training on the
# MPI backend gives bitwise the losses and params of the threads backend
# (see tests/mpi-run.sh).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=.}"
exec sh "$top_srcdir/tests/mpi-run.sh" train_mpi_check \
    "$top_builddir/tests/test_train_mpi" 4
