/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the index family: tril, triu and cumsum. The device
 * matrix is the strategy of the input ("d0", "d1", ...) and the output
 * is laid out as the input.
 *
 * tril and triu may split every dimension, the last two included: the
 * kernel compares the global row and column of each element (its
 * block's offsets) with the diagonal. cumsum may split every dimension
 * but its axis: a running sum across blocks would need the sums of the
 * blocks before (an exclusive scan over the ranks), which is not done,
 * so a split axis is refused.
 */
#include "rules/rule_private.h"

/* The layout step of cumsum: the axis unsplit, the output laid out as
 * the input; "s" is the run. */
int
sym__shard_infer_cumsum(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__shard_unsplit(s, 0, s->at->index.axis,
	        "cumsum sums along it (a scan across blocks is not done), "
	        "so it") < 0)
		return -1;
	return sym__shard_out_same(s, 0, 0);
}
