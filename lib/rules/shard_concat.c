/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the concat family (MindSpore's ConcatInfo, SplitInfo,
 * SliceInfo): the device matrix is the strategy of the first input ("d0",
 * "d1", ...).
 *
 *  - concat: every input is split alike, and the concatenated dimension
 *    is unsplit; the output has the inputs' layout;
 *  - split: the split dimension is unsplit; every output has the input's
 *    layout;
 *  - slice: a dimension the slice cuts (begin > 0, or a size other than
 *    the whole dimension) is unsplit; the output has the input's layout.
 */
#include "rules/rule_private.h"

/* Return the concat / split dimension of "s". */
static size_t
axis(const struct sym__shard *s)
{
	return s->at->concat.axis;
}

/* The layout step of concat: inputs split alike, the concatenated
 * dimension unsplit; "s" is the run. */
int
sym__shard_infer_concat(struct sym__shard *s)
{
	int first = sym__shard_complete_alike(s);

	if (first < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++)
		if (sym__shard_unsplit(s, i, axis(s),
		        "it is the concatenated dimension, which") < 0)
			return -1;
	return sym__shard_out_same(s, 0, (size_t)first);
}

/* The layout step of split: the split dimension unsplit, every output
 * laid out like the input; "s" is the run. */
int
sym__shard_infer_split(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0 ||
	    sym__shard_unsplit(s, 0, axis(s),
	        "it is the dimension split into outputs, which") < 0)
		return -1;
	for (size_t k = 0; k < s->n_out; k++)
		if (sym__shard_out_same(s, k, 0) < 0)
			return -1;
	return 0;
}

/* Require every dimension of input "i" of "s" that the slice of input
 * "xi" cuts (begin and size of the decoded attributes) to be unsplit;
 * return 0 or -1. */
static int
unsplit_cut(struct sym__shard *s, size_t i, size_t xi)
{
	size_t r = sym__shard_in_rank(s, xi);
	const int64_t *begin = s->at->concat.begin, *size = s->at->concat.size;
	const int64_t *step = s->at->concat.step;

	if (!begin || !size)
		return sym__shard_fail(s, -1, -1,
		    "internal error: %s has no decoded bounds",
		    sym_op_name(s->op));
	for (size_t d = 0; d < r; d++) {
		int64_t whole;
		int full = begin[d] == 0 && (!step || step[d] == 1) &&
		    (size[d] == -1 ||
		        (sym_expr_get_const(s->in_shape[xi]->dim[d], &whole) ==
		                0 &&
		            whole == size[d]));

		if (!full &&
		    sym__shard_unsplit(s, i, d, "slice cuts it, so it") < 0)
			return -1;
	}
	return 0;
}

/* The layout step of slice: the dimensions it cuts unsplit; "s" is the
 * run. */
int
sym__shard_infer_slice(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0 || unsplit_cut(s, 0, 0) < 0)
		return -1;
	return sym__shard_out_same(s, 0, 0);
}

/* The layout step of slice_grad(dy, x): dy and x split alike, the
 * dimensions the slice cuts unsplit in both, the gradient laid out like
 * x; "s" is the run. */
int
sym__shard_infer_slice_grad(struct sym__shard *s)
{
	if (sym__shard_complete_alike(s) < 0 || unsplit_cut(s, 0, 1) < 0 ||
	    unsplit_cut(s, 1, 1) < 0)
		return -1;
	return sym__shard_out_same(s, 0, 1);
}
