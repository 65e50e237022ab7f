#!/bin/sh
# make bench: runs the benchmarks from the build directory and prints their
# machine-readable results.
# Environment (set by make bench): PYTHON3, the python3 that has sympy, or
# empty.

set -e

echo "# symshard benchmarks"
./bench/bench_prove
