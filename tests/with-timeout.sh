#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command and stops it when it outlasts a time limit, so that a
# test whose processes wait for each other forever (an MPI rank that
# never comes to a collective) fails instead of hanging make check.
# Uses timeout(1) when there is one, else a watchdog in the background;
# either sends SIGTERM at the limit (mpirun then stops its processes)
# and SIGKILL 10 seconds later.
#
# Usage: with-timeout.sh SECONDS COMMAND [ARGUMENT]...
# Exit status: the command's, or 124 when the time limit ended it.

limit=$1
shift
if command -v timeout >/dev/null 2>&1; then
	exec timeout -k 10 "$limit" "$@"
fi
mark=$(mktemp "${TMPDIR:-/tmp}/with-timeout.XXXXXX") || exit 1
rm -f "$mark"
"$@" &
pid=$!
(
	sleep "$limit"
	: >"$mark"
	kill -TERM "$pid"
	sleep 10
	kill -KILL "$pid"
) >/dev/null 2>&1 </dev/null &
dog=$!
wait "$pid"
status=$?
kill "$dog" 2>/dev/null
if test -e "$mark"; then
	rm -f "$mark"
	exit 124
fi
exit "$status"
