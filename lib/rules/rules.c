/* SPDX-License-Identifier: MIT */
/*
 * The table of the per-operator sharding rules and their driver: the
 * rules as lib/shape/ops.def names them, the lookup of an operator's
 * rule, and the
 * two steps every run goes through (the tuple step and the layout step).
 * The helpers the rules share are in rules_util.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "rules/rule_private.h"

/* The rules, by operator identity. */
static const struct sym__shard_rule rules[SYM__N_OPS] = {
#define SYM__OPIMPL(ID, KERNEL, SHARD_INPUT, TUPLE, INFER, ...) \
	[SYM__OP_##ID] = { SHARD_INPUT, TUPLE, INFER },
#include "shape/ops.def"
};

/* Return the sharding rule of "op" (ops.def gives every operator one),
 * or NULL for NULL. */
const struct sym__shard_rule *
sym__shard_rule_find(const sym_op *op)
{
	if (!op || (unsigned)op->id >= SYM__N_OPS)
		return NULL;
	return &rules[op->id];
}

/* Allocate the arrays of "s", whose first block the caller filled; 0 or
 * -1. */
int
sym__shard_begin(struct sym__shard *s)
{
	size_t ni = s->n_in ? s->n_in : 1, no = s->n_out ? s->n_out : 1;

	s->error_input = s->error_dim = -1;
	s->in = sym__shard_scratch(s, ni, sizeof(*s->in));
	s->out = sym__shard_scratch(s, no, sizeof(*s->out));
	s->n_red = sym__shard_scratch(s, no, sizeof(*s->n_red));
	s->red = sym__shard_scratch(s, no, sizeof(*s->red));
	if (!s->in || !s->out || !s->n_red || !s->red)
		return sym__shard_nomem(s);
	return 0;
}

/* Run the tuple step of the rule of "s" on the split counts "split" (one
 * array per input, NULL for none); 0 or -1 with an error. */
int
sym__shard_tuple(struct sym__shard *s, const int64_t *const *split)
{
	const struct sym__shard_rule *r = sym__shard_rule_find(s->op);

	if (!r)
		return sym__shard_fail(s, -1, -1,
		    "operator %s has no sharding rule", sym_op_name(s->op));
	if (r->tuple(s, split) < 0)
		return -1;
	if (!s->mesh)
		return sym__shard_fail(s, -1, -1,
		    "internal error: the rule of %s made no device matrix",
		    sym_op_name(s->op));
	return 0;
}

/* Run the layout step of the rule of "s": complete and check the input
 * layouts and compute the outputs; 0 or -1 with an error. */
int
sym__shard_infer(struct sym__shard *s)
{
	const struct sym__shard_rule *r = sym__shard_rule_find(s->op);

	if (!r)
		return sym__shard_fail(s, -1, -1,
		    "operator %s has no sharding rule", sym_op_name(s->op));
	for (size_t i = 0; i < s->n_in; i++)
		if (s->in[i] && s->in[i]->rank != sym__shard_in_rank(s, i))
			return sym__shard_fail(s, (int)i, -1,
			    "the layout of %s has %zu dimensions, but its "
			    "rank is %zu",
			    sym__shard_in_name(s, i), s->in[i]->rank,
			    sym__shard_in_rank(s, i));
	if (r->infer(s) < 0)
		return -1;
	for (size_t i = 0; i < s->n_in; i++)
		if (!s->in[i])
			return sym__shard_fail(s, (int)i, -1,
			    "internal error: the rule of %s left input %zu "
			    "without a layout",
			    sym_op_name(s->op), i);
	for (size_t k = 0; k < s->n_out; k++)
		if (!s->out[k])
			return sym__shard_fail(s, -1, -1,
			    "internal error: the rule of %s left output %zu "
			    "without a layout",
			    sym_op_name(s->op), k);
	return 0;
}
