#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end plan switching of shape-train (DESIGN section 19,
# sym_trainer(3)): examples/lm_switch.sg searched on a topology of 300
# GFLOP/s devices (its plans differ between short and long sequences at
# b = 4), trained on a corpus this script writes in blocks of records of
# one length (buckets 8, 184, 8, 200, 16, 152 in file order):
#  - --check matches one device at every step across the switches, and
#    the --json steps and end object count them: the "switch" members
#    are the steps whose plan differs from the previous step's, and the
#    end object's "switches" is their number, at least 2;
#  - the text summary reports the switches and the best single plan;
#  - a checkpoint saved across switches loads, and its run switches and
#    matches one device (the loaded params moved, not initialized);
#  - --topology with --rank-table is a usage error;
#  - with MPI (RUN_MPI=yes), 4 processes train the steps the threads
#    backend trains, on the same plans, to the same losses, bitwise.
#
# Usage: tests/check-train-switch.sh
# Environment (set by make check): top_srcdir, top_builddir, MPIRUN,
# RUN_MPI; SYM_TEST_WRAPPER, when set, is put in front of the tool;
# SYM_MPI_TIMEOUT, the time limit of an mpirun in seconds (default 300).

harness=check-train-switch
. "$(dirname "$0")/train-harness.sh"

# Under valgrind (make check-valgrind sets SYM_TEST_WRAPPER) its dozen
# training runs take over twenty minutes of CI; the sanitizer build runs
# this script whole, with leak checking, instead.
if test -n "${SYM_TEST_WRAPPER:-}"; then
	echo "$harness: skipped under valgrind (the sanitizer build runs it)"
	exit 77
fi

corpus=$tmp/corpus.txt
for len in 5 5 180 5 200 200 13 150; do
	awk -v n="$len" 'BEGIN {
		for (r = 0; r < 8; r++) {
			for (k = 0; k < n; k++)
				printf "%c", 97 + (r + k) % 26
			printf "\n%%\n"
		}
	}' >>"$corpus"
done
printf 'flops 300GFLOP/s\n' >"$tmp/cpu.topo"
args="examples/lm_switch.sg --dataset text:$corpus --batch 4 --no-shuffle
--topology $tmp/cpu.topo --epochs 2"

# switches NAME: the number of steps of NAME's JSON output whose plan
# differs from the previous step's ("plan" members), then the number of
# steps with a "switch" member, then the end object's "switches".
switches()
{
	awk '
	/"event": "step"/ {
		p = $0; sub(/.*"plan": /, "", p); sub(/[,}].*/, "", p)
		if (n++ && p != last) changed++
		last = p
		if ($0 ~ /"switch": \{"seconds": [0-9.e+-]+, "modelled": [0-9.e+-]+\}/)
			marked++
	}
	/"event": "end"/ {
		e = $0; sub(/.*"switches": /, "", e); sub(/,.*/, "", e)
	}
	END { print changed + 0, marked + 0, e }' "$tmp/$1.out"
}

# shellcheck disable=SC2086
if ok check $args --check --check-every 1 --json; then
	set -- $(switches check)
	if test "$1" -lt 2 || test "$1" != "$2" || test "$1" != "$3"; then
		fail check "plan changes $1, switch members $2, end count $3"
	else
		echo "ok: check: $1 switches, every step matches one device"
	fi
fi

# shellcheck disable=SC2086
if ok text $args --log-every 1; then
	if ! grep -q -E '; [0-9]+ plan switches in [0-9.]+ s \(modelled [0-9.]+ s\), 2 of [0-9]+ plans compiled; modelled [0-9.]+ s, on the best single plan \([0-9]+\) [0-9.]+ s' \
	    "$tmp/text.out"; then
		fail text "no summary of the switches"
	elif ! grep -q 'plan [0-9]*, switched in [0-9.]* ms (modelled [0-9.]* ms)$' \
	    "$tmp/text.out"; then
		fail text "no step line of a switch"
	else
		echo "ok: text: the switches reported"
	fi
fi

# A checkpoint saved across switches starts a run that moves the loaded
# params at its first switch (nothing fresh to initialize), checked.
# shellcheck disable=SC2086
if ok save $args --save "$tmp/ck.safetensors" &&
    ok load $args --load "$tmp/ck.safetensors" --check --json; then
	set -- $(switches load)
	if test "$1" -lt 2; then
		fail load "only $1 switches after loading"
	else
		echo "ok: load: $1 switches from a checkpoint match one device"
	fi
fi

# shellcheck disable=SC2086
refuse both 2 '--topology and --rank-table exclude each other' $args \
    --rank-table "$tmp/none.json"

if test "$RUN_MPI" = yes; then
	n=$((n + 1))
	# shellcheck disable=SC2086
	harness_mpirun 4 mpi $args --json
	# shellcheck disable=SC2086
	run threads $args --json
	strip='/"event": "step"/ { sub(/, "switch": \{[^}]*\}/, ""); print }'
	if test "$(cat "$tmp/mpi.status")" -ne 0; then
		fail mpi "exit status $(cat "$tmp/mpi.status")"
	elif ! awk "$strip" "$tmp/mpi.out" >"$tmp/mpi.steps" ||
	    ! awk "$strip" "$tmp/threads.out" >"$tmp/threads.steps" ||
	    ! test -s "$tmp/mpi.steps" ||
	    ! cmp -s "$tmp/mpi.steps" "$tmp/threads.steps"; then
		fail mpi "other steps, plans or losses than the threads backend's"
	else
		echo "ok: mpi: 4 processes switch and train as the threads do"
	fi
fi

harness_finish
