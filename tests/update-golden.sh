#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerates the expected files of the golden tests of shape-check
# (tests/golden/NAME.out, .err, .status, .json) from the tool as built,
# printing every change as a diff: read it before committing. Never run
# by make check, which only compares (tests/check-golden.sh).
#
# Usage: tests/update-golden.sh   (after make; from any directory)
# Environment: top_srcdir, top_builddir (default: this source tree).

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
export top_srcdir
exec sh "$top_srcdir/tests/check-golden.sh" --update
