/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the index family: tril and triu keep the same
 * triangle of the output's gradient (the same operator, the same
 * diagonal); cumsum's gradient is the cumsum of the output's gradient
 * in the other direction (reverse flipped, exclusive kept).
 */
#include "grad/grad_private.h"

/* The rule of tril and triu: dx = tril(dy) or triu(dy) with the forward
 * attributes; "gr", "n", "dy" as for every rule (grad_private.h). */
int
sym__grad_tri(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	int mirror = SYM__MIRROR_OUT(0);

	return sym__gemit_to(gr, 0, 1, sym_op_name(n->op), 1, &dy[0], n->attrs,
	    &mirror);
}

/* The rule of cumsum: dx = cumsum(dy) along the same axis, summed from
 * the other end. */
int
sym__grad_cumsum(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = sym__gattrs(gr);
	return sym__gemit_dx(gr, n, "cumsum", dy[0], at,
	    at &&
	        sym_attrs_set_int(at, "axis", (int64_t)n->at.index.axis) == 0 &&
	        sym_attrs_set_bool(at, "reverse", !n->at.index.reverse) == 0 &&
	        sym_attrs_set_bool(at, "exclusive", n->at.index.exclusive) ==
	            0);
}
