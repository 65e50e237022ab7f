/* SPDX-License-Identifier: MIT */
/*
 * The dropout family: dropout(x, p=0.5) and its gradient
 * dropout_grad(dy, y, p=), where y is the output of the dropout whose
 * mask the gradient draws again (the executor keys both kernels by the
 * name of that value). Both keep the shape and the floating-point type
 * of their first operand.
 */
#include "shape/shape_private.h"

/* The decoder of dropout and dropout_grad: p, a number in [0, 1], 0.5
 * when absent; "inf" is the run. */
int
sym__decode_dropout(struct sym__infer *inf)
{
	static const char *const known[] = { "p", NULL };
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "p");
	double p = 0.5;

	if (sym__check_attrs(inf, known) < 0)
		return -1;
	if (at && at->kind == SYM_ATTR_FLOAT)
		p = at->f;
	else if (at && at->kind == SYM_ATTR_INT)
		p = (double)at->i;
	else if (at)
		return sym__infer_fail_attr(inf, "p",
		    "attribute p of %s must be a number", inf->op->name);
	if (!(p >= 0 && p <= 1))
		return sym__infer_fail_attr(inf, "p",
		    "attribute p of %s (%g) must be a probability, in [0, 1]",
		    inf->op->name, p);
	inf->at.dropout.p = p;
	return 0;
}

/* The rule of dropout_grad(dy, y): the shape of dy, which must equal
 * that of y, both floating point of one type. "inf" is the run. */
int
sym__rule_dropout_grad(struct sym__infer *inf)
{
	if (sym__dtype_float(inf, 0) < 0 || sym__same_dtype(inf, 0, 1) < 0)
		return -1;
	return sym__rule_same_shapes(inf);
}
