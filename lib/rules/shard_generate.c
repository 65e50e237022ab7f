/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the generate family (arange, range, full, ones,
 * zeros): operators without an input. Their tuple strategy has one
 * tensor strategy, the split counts of their output ("shard ((8,))"):
 * the device matrix is that strategy ("d0", "d1", ...) and output
 * dimension d is on axis d. Every split is allowed: each rank generates
 * only its block, from the global index of its first element (the
 * kernel reads the block's offset), so every sharding equals one
 * device. Without a clause a generator is replicated (its consumers
 * take their blocks with a local slice, which communicates nothing).
 */
#include "rules/rule_private.h"

/* The tuple step: "s" is the run, "split"[0] the split counts of the
 * output (NULL: replicated). */
int
sym__shard_tuple_generate(struct sym__shard *s, const int64_t *const *split)
{
	size_t rank = s->out_shape[0]->rank;
	const int64_t *sp = split ? split[0] : NULL;
	int64_t *sizes = sym__shard_scratch(s, rank ? rank : 1, sizeof(*sizes));
	const char **names = sym__shard_axis_names(s, "d", rank);
	struct sym__lb b;

	if (!sizes || (rank && !names))
		return sym__shard_nomem(s);
	for (size_t d = 0; d < rank; d++)
		sizes[d] = sp ? sp[d] : 1;
	if (sym__shard_set_mesh(s, rank, sizes, names) < 0 ||
	    sym__lb_init(s, &b, rank) < 0)
		return -1;
	for (size_t d = 0; d < rank; d++) {
		b.axes[d][0] = (int8_t)d;
		b.n[d] = 1;
	}
	return sym__shard_set_out(s, 0, &b);
}

/* The layout step: the output of the tuple step, or replicated over the
 * mesh given; "s" is the run. */
int
sym__shard_infer_generate(struct sym__shard *s)
{
	struct sym__lb b;

	if (s->out[0])
		return 0;
	if (sym__lb_init(s, &b, s->out_shape[0]->rank) < 0)
		return -1;
	return sym__shard_set_out(s, 0, &b);
}
