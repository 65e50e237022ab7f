/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the reduce family (MindSpore's ReduceSumInfo,
 * ReduceMeanInfo, ReduceMaxInfo): the device matrix is the strategy of
 * the input ("d0", "d1", ...).
 *
 * reduce_sum and reduce_mean may reduce split dimensions: the output then
 * holds partial sums over their axes (each rank reduces its block; for
 * the mean, its block's sum divided by the global count, so the partial
 * values add up to the mean), resolved by an AllReduce or, with an output
 * strategy, a ReduceScatter. The partial sums here are sums, so
 * reduce_max, reduce_min and reduce_prod (whose partial results would
 * need a max, min or product across blocks) and argmax and argmin
 * (whose indices would need the blocks' values and offsets) require the
 * reduced dimensions to be unsplit. Kept
 * dimensions keep their axes; with keep_dims the reduced ones remain as
 * unsplit dimensions of size 1.
 */
#include <string.h>

#include "rules/rule_private.h"

/* The layout step of the family (see the top of the file); "s" is the
 * run. */
int
sym__shard_infer_reduce(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0), k = 0;
	const unsigned char *mark = s->at->reduce.mark;
	int keep = s->at->reduce.keep_dims;
	enum sym__opid id = s->op->id;
	int is_max = id == SYM__OP_REDUCE_MAX || id == SYM__OP_REDUCE_MIN ||
	    id == SYM__OP_REDUCE_PROD || id == SYM__OP_ARGMAX ||
	    id == SYM__OP_ARGMIN;
	struct sym__lb b;

	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__lb_init(s, &b, s->out_shape[0]->rank) < 0)
		return -1;
	if (!mark)
		return sym__shard_fail(s, -1, -1,
		    "internal error: %s has no decoded axes",
		    sym_op_name(s->op));
	for (size_t d = 0; d < r; d++) {
		if (!mark[d]) {
			if (k < b.rank)
				sym__lb_copy(&b, k++, s->in[0], d);
			continue;
		}
		if (is_max && sym__shard_is_split(s->in[0], d))
			return sym__shard_fail(s, 0, (int)d,
			    "dimension %zu of %s is split by %s (%lld way%s), "
			    "but %s %s, so it must not be split",
			    d, sym__shard_in_name(s, 0),
			    sym__shard_axes_txt(s, s->in[0], d),
			    (long long)sym_layout_dim_splits(s->in[0], d),
			    SYM__WAYS(sym_layout_dim_splits(s->in[0], d)),
			    sym_op_name(s->op),
			    id == SYM__OP_ARGMAX || id == SYM__OP_ARGMIN
			        ? "takes the index along it (the blocks' "
			          "indices are not combined)"
			        : "reduces it (partial results are sums)");
		sym__lb_partial_dim(&b, s->in[0], d);
		if (keep && d >= s->at->reduce.drop)
			k++;
	}
	return sym__shard_set_out(s, 0, &b);
}
