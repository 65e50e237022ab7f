/*
 * Sharding rules of the gradient family. Each is chosen so that a
 * gradient operator laid out like the forward operator it comes from
 * needs no communication of its own:
 *
 *  - gelu_grad, sigmoid_grad, tanh_grad, sqrt_grad, softmax_grad and
 *    log_softmax_grad: the device matrix is the strategy of dy ("d0",
 *    "d1", ...); both operands are split alike and the gradient is laid
 *    out like them; the softmax axes are unsplit, as for the forward
 *    operator.
 */
#include "layout/rule_private.h"

/* The tuple step of the operators whose operands are all laid out
 * alike: the device matrix is the strategy of the first operand that
 * has one, dimension d on axis d, and every other operand with a
 * strategy must have the same; "s" is the run, "split" the split counts
 * by input. */
static int
tuple_alike(struct sym__shard *s, const int64_t *const *split)
{
	size_t first = 0, r = sym__shard_in_rank(s, 0);
	int *axis_of = sym__shard_scratch(s, r, sizeof(*axis_of));

	if (!axis_of)
		return sym__shard_nomem(s);
	while (first + 1 < s->n_in && !split[first])
		first++;
	for (size_t d = 0; d < r; d++)
		axis_of[d] = (int)d;
	if (sym__shard_tuple_input(s, split[first], first, "d") < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++) {
		if (i == first || !split[i])
			continue;
		for (size_t d = 0; d < r; d++)
			if (split[i][d] != split[first][d])
				return sym__shard_fail(s, (int)i, (int)d,
				    "dimension %zu of %s is split %lld way%s, "
				    "but the same dimension of %s %lld way%s: "
				    "the operands of %s must be split alike",
				    d, sym__shard_in_name(s, i),
				    (long long)split[i][d],
				    SYM__WAYS(split[i][d]),
				    sym__shard_in_name(s, first),
				    (long long)split[first][d],
				    SYM__WAYS(split[first][d]),
				    sym_op_name(s->op));
		if (sym__shard_map(s, i, split[i], axis_of) < 0)
			return -1;
	}
	return 0;
}

/* Complete the inputs of "s" that have no layout with the layout of the
 * first that has one (replicated when none has), and check that every
 * input is split like it; return the index of that input, or -1. */
static int
complete_alike(struct sym__shard *s)
{
	size_t first = 0, r = sym__shard_in_rank(s, 0);
	struct sym__lb b;

	while (first + 1 < s->n_in && !s->in[first])
		first++;
	if (sym__shard_default_replicated(s, first) < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++) {
		if (s->in[i])
			continue;
		if (sym__lb_init(s, &b, r) < 0)
			return -1;
		for (size_t d = 0; d < r; d++)
			sym__lb_copy(&b, d, s->in[first], d);
		if (sym__shard_set_in(s, i, &b) < 0)
			return -1;
	}
	for (size_t i = 0; i < s->n_in; i++)
		for (size_t d = 0; d < r; d++)
			if (!sym__shard_same_dim(s->in[i], d, s->in[first], d))
				return sym__shard_fail(s, (int)i, (int)d,
				    "dimension %zu of %s is split by %s, but "
				    "the same dimension of %s by %s: the "
				    "operands of %s must be split alike",
				    d, sym__shard_in_name(s, i),
				    sym__shard_axes_txt(s, s->in[i], d),
				    sym__shard_in_name(s, first),
				    sym__shard_axes_txt(s, s->in[first], d),
				    sym_op_name(s->op));
	return (int)first;
}

/* The layout step of the unary gradients: operands split alike, the
 * gradient laid out like them; "s" is the run. */
static int
infer_alike(struct sym__shard *s)
{
	int first = complete_alike(s);

	if (first < 0)
		return -1;
	return sym__shard_out_same(s, 0, (size_t)first);
}

const struct sym__shard_rule sym__shard_grad[SYM__N_OPS] = {
	[SYM__OP_GELU_GRAD] = { 0, tuple_alike, infer_alike },
	[SYM__OP_SIGMOID_GRAD] = { 0, tuple_alike, infer_alike },
	[SYM__OP_TANH_GRAD] = { 0, tuple_alike, infer_alike },
	[SYM__OP_SQRT_GRAD] = { 0, tuple_alike, infer_alike },
};
