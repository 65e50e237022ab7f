/* SPDX-License-Identifier: MIT */
/*
 * Sharding rules of the elementwise family (MindSpore's ActivationInfo,
 * ArithmeticInfo, BiasAddInfo):
 *
 *  - unary operators, cast and identity: the strategy of the input is the
 *    device matrix ("d0", "d1", ...), dimension i on axis i; the output
 *    has the layout of the input;
 *  - binary operators with NumPy broadcasting, comparisons and logical
 *    operators, where (three operands) and pow_grad (two outputs): the
 *    device matrix is the strategy of the output (the operands'
 *    strategies aligned from the right); the operands must be split alike
 *    on the dimensions they share, and a dimension of size 1 broadcast
 *    against a larger one must not be split; every output takes each
 *    dimension's split from an operand that is not broadcast there;
 *  - bias_add: the device matrix is the strategy of x; the bias is split
 *    like the channel dimension of x (1 for NCHW, the last for NHWC).
 */
#include <string.h>

#include "rules/rule_private.h"

/* The layout step of the unary operators: the output is laid out like
 * the input (replicated when it has no layout); "s" is the run. */
int
sym__shard_infer_unary(struct sym__shard *s)
{
	if (sym__shard_default_replicated(s, 0) < 0)
		return -1;
	return sym__shard_out_same(s, 0, 0);
}

/* Return the dimension of input "i" of "s" aligned with dimension "j" of
 * the output of rank "n", or -1 when the input has none. */
static int
aligned(const struct sym__shard *s, size_t i, size_t j, size_t n)
{
	size_t r = sym__shard_in_rank(s, i);

	return j + r >= n ? (int)(j + r - n) : -1;
}

/* The tuple step of the binary operators: the device matrix "d0".. is
 * the output's strategy; "s" is the run, "split" the split counts. */
int
sym__shard_tuple_binary(struct sym__shard *s, const int64_t *const *split)
{
	return sym__shard_tuple_broadcast(s, split, s->n_in, s->out_shape[0]);
}

/* Give input "i" of "s", which has none, the layout the other operands
 * imply: on each dimension the split of the first operand with a layout
 * that is not broadcast there, nothing on broadcast ones; "n" is the
 * output rank. Return 0 or -1. */
static int
complete_operand(struct sym__shard *s, size_t i, size_t n)
{
	size_t r = sym__shard_in_rank(s, i);
	struct sym__lb b;

	if (sym__lb_init(s, &b, r) < 0)
		return -1;
	for (size_t d = 0; d < r; d++) {
		size_t j = d + n - r;

		if (sym__shard_broadcast(s, i, d, j))
			continue;
		for (size_t o = 0; o < s->n_in; o++) {
			int od = aligned(s, o, j, n);

			if (o == i || !s->in[o] || od < 0 ||
			    sym__shard_broadcast(s, o, (size_t)od, j))
				continue;
			sym__lb_copy(&b, d, s->in[o], (size_t)od);
			break;
		}
	}
	return sym__shard_set_in(s, i, &b);
}

/* Return 1 when no input of "s" has a layout. */
static int
none_laid_out(const struct sym__shard *s)
{
	for (size_t i = 0; i < s->n_in; i++)
		if (s->in[i])
			return 0;
	return 1;
}

/* The layout step of the binary operators: operands split alike where
 * they share a dimension, broadcast dimensions unsplit; "s" is the run.
 */
int
sym__shard_infer_binary(struct sym__shard *s)
{
	size_t n = s->out_shape[0]->rank;
	struct sym__lb b;
	int *d;

	if (none_laid_out(s) && sym__shard_default_replicated(s, 0) < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++)
		if (!s->in[i] && complete_operand(s, i, n) < 0)
			return -1;
	if (sym__lb_init(s, &b, n) < 0)
		return -1;
	d = sym__shard_scratch(s, s->n_in, sizeof(*d));
	if (!d)
		return sym__shard_nomem(s);
	for (size_t j = 0; j < n; j++) {
		for (size_t i = 0; i < s->n_in; i++)
			d[i] = aligned(s, i, j, n);
		if (sym__shard_align(s, d, s->n_in, j, "dimension", &b) < 0)
			return -1;
	}
	for (size_t k = 0; k < s->n_out; k++)
		if (sym__shard_set_out(s, k, &b) < 0)
			return -1;
	return 0;
}

/* Return the channel dimension of input 0 of bias_add in "s". */
static size_t
channel(const struct sym__shard *s)
{
	return s->at->elementwise.channel;
}

/* The tuple step of bias_add: the device matrix is the strategy of x, the
 * bias on the channel axis; "s" is the run, "split" the split counts. */
int
sym__shard_tuple_bias_add(struct sym__shard *s, const int64_t *const *split)
{
	size_t c = channel(s), r = sym__shard_in_rank(s, 0);
	int64_t *sizes = sym__shard_scratch(s, r, sizeof(*sizes));
	int axis_of = (int)c;

	if (!sizes)
		return sym__shard_nomem(s);
	for (size_t d = 0; d < r; d++)
		sizes[d] = split[0] ? split[0][d] : 1;
	if (split[1] && split[0] && split[1][0] != split[0][c])
		return sym__shard_fail(s, 1, 0,
		    "the bias %s is split %lld way%s, but the channel "
		    "dimension %zu of %s %lld way%s: they must be equal",
		    sym__shard_in_name(s, 1), (long long)split[1][0],
		    SYM__WAYS(split[1][0]), c, sym__shard_in_name(s, 0),
		    (long long)split[0][c], SYM__WAYS(split[0][c]));
	if (split[1] && !split[0])
		sizes[c] = split[1][0];
	if (sym__shard_tuple_input(s, sizes, 0, "d") < 0)
		return -1;
	return split[1] ? sym__shard_map(s, 1, split[1], &axis_of) : 0;
}

/* The layout step of bias_add: the bias is split like the channel
 * dimension of x; "s" is the run. */
int
sym__shard_infer_bias_add(struct sym__shard *s)
{
	size_t c = channel(s);
	struct sym__lb b;

	if (!s->in[0]) {
		if (sym__lb_init(s, &b, sym__shard_in_rank(s, 0)) < 0)
			return -1;
		if (s->in[1])
			sym__lb_copy(&b, c, s->in[1], 0);
		if (sym__shard_set_in(s, 0, &b) < 0)
			return -1;
	}
	if (sym__shard_complete_from(s, 1, 0, c, 1) < 0)
		return -1;
	if (!sym__shard_same_dim(s->in[1], 0, s->in[0], c))
		return sym__shard_fail(s, 1, 0,
		    "the bias %s is split by %s, but the channel dimension "
		    "%zu of %s by %s: they must be split alike",
		    sym__shard_in_name(s, 1),
		    sym__shard_axes_txt(s, s->in[1], 0), c,
		    sym__shard_in_name(s, 0),
		    sym__shard_axes_txt(s, s->in[0], c));
	return sym__shard_out_same(s, 0, 0);
}
