#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs one test program for automake's TAP driver (the LOG_COMPILER of
# tests without an extension).
#
# - examples/*: plain programs.  Their output becomes TAP comments and their
#   exit status one TAP result, so an example that fails or crashes fails
#   make check.
# - anything else (tests/test_*, cmocka with CMOCKA_MESSAGE_OUTPUT=TAP):
#   prints TAP itself and is run as it is.
#
# SYM_TEST_WRAPPER, when set, is a command put in front of every program
# (make check-valgrind sets it to run everything under valgrind).
#
# Usage: tap-wrap.sh PROGRAM [ARGS...]

case $1 in
*examples/*) ;;
*) exec $SYM_TEST_WRAPPER "$@" ;;
esac

name=${1#./}
out=$($SYM_TEST_WRAPPER "$@" 2>&1)
status=$?
echo "1..1"
if test -n "$out"; then
	printf '%s\n' "$out" | sed 's/^/# /'
fi
if test "$status" -eq 0; then
	echo "ok 1 - $name"
else
	echo "not ok 1 - $name exited with status $status"
fi
exit 0
