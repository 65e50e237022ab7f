#!/bin/sh
# SPDX-License-Identifier: MIT
# ONNX's backend node tests through sym_onnx_read (tests/test_onnx_node.c):
# every case of Debian's libonnx-testdata that the reader imports must
# give its expected output shapes, and run on its input .pb tensors to
# its expected output values (floats within 1e-4 + 1e-3*|want|, integers
# and bools exactly); the cases it refuses, and those that fail on
# values, are listed with their reasons in tests/onnx/node-skip.txt, and
# a refused case must be refused for the reason listed. Inputs that an
# operator reads as sizes (Slice's starts and ends, ...) are taken as
# the constants the test data holds.
# Skips (77) without the data.
#
# Usage: tests/check-onnx-node.sh
# Environment (set by make check): top_srcdir, top_builddir,
# ONNX_TESTDATA; SYM_TEST_WRAPPER (valgrind), when set.
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${ONNX_TESTDATA:=/usr/share/libonnx-testdata/data/node}"
exec $SYM_TEST_WRAPPER "$top_builddir/tests/test_onnx_node" \
    "$ONNX_TESTDATA" "$top_srcdir/tests/onnx/node-skip.txt"
