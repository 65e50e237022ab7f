/* SPDX-License-Identifier: MIT */
/*
 * Sharding rule of the optimizer family: an update operator works
 * element by element, so its param, gradient and state are laid out
 * alike (the param's layout: the gradient arrives in it after its
 * partial sums are resolved) and each output has its input's layout;
 * the step count, a scalar, is replicated. The device matrix of a tuple
 * strategy is the strategy of the param.
 */
#include "rules/rule_private.h"

/* The tuple step: "s" is the run, "split" the split counts by input. */
int
sym__shard_tuple_optim(struct sym__shard *s, const int64_t *const *split)
{
	size_t r = sym__shard_in_rank(s, 0);

	if (sym__shard_tuple_first(s, split) < 0)
		return -1;
	for (size_t i = 1; i < s->n_in; i++) {
		if (!split[i])
			continue;
		if (sym__shard_in_rank(s, i) != r)
			return sym__shard_fail(s, (int)i, -1,
			    "the step count %s of %s is a scalar: it cannot "
			    "be split",
			    sym__shard_in_name(s, i), sym_op_name(s->op));
		for (size_t d = 0; d < r; d++)
			if (split[i][d] != (split[0] ? split[0][d] : 1))
				return sym__shard_fail(s, (int)i, (int)d,
				    "%s must be split like the param %s",
				    sym__shard_in_name(s, i),
				    sym__shard_in_name(s, 0));
		if (sym__shard_map_from(s, i, split[i], 0) < 0)
			return -1;
	}
	return 0;
}

/* The layout step: every input of the param's rank laid out like the
 * param (the first input that has a layout), scalars replicated, each
 * output like its input; "s" is the run. */
int
sym__shard_infer_optim(struct sym__shard *s)
{
	size_t r = sym__shard_in_rank(s, 0), from = 0;
	struct sym__lb b;

	while (from < s->n_in &&
	    (!s->in[from] || sym__shard_in_rank(s, from) != r))
		from++;
	if (from == s->n_in) {
		if (sym__shard_default_replicated(s, 0) < 0)
			return -1;
		from = 0;
	}
	for (size_t i = 0; i < s->n_in; i++) {
		size_t ri = sym__shard_in_rank(s, i);

		if (s->in[i] && ri == r && i != from &&
		    sym_layout_is_equal(s->in[i], s->in[from]) != SYM_TRUE)
			return sym__shard_fail(s, (int)i, -1,
			    "%s must be laid out like %s",
			    sym__shard_in_name(s, i),
			    sym__shard_in_name(s, from));
		if (s->in[i] && ri == 0 && s->in[i]->partial)
			return sym__shard_fail(s, (int)i, -1,
			    "the step count %s must be whole",
			    sym__shard_in_name(s, i));
		if (s->in[i])
			continue;
		if (sym__lb_init(s, &b, ri) < 0)
			return -1;
		for (size_t d = 0; ri == r && d < r; d++)
			sym__lb_copy(&b, d, s->in[from], d);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t k = 0; k < s->n_out; k++)
		if (sym__shard_out_same(s, k, k) < 0)
			return -1;
	return 0;
}
