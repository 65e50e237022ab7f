/*
 * The gradient family: operators that the reverse-mode gradient emits,
 * each the derivative of a forward operator of the registry (gelu,
 * sigmoid, tanh, sqrt, the reductions, softmax and log_softmax,
 * layer_norm, softmax_cross_entropy, gather and embedding, maximum and
 * minimum) times the incoming gradient "dy". Their operands come in the
 * order the gradient driver emits them: dy first, then what the forward
 * operator saw or produced.
 */
#include <string.h>

#include "shape/shape_private.h"

/* Check that inputs "i" and "j" of "inf" have one floating dtype and
 * the same dimensions; return 0 or -1. */
static int
same_float(struct sym__infer *inf, size_t i, size_t j)
{
	const sym_shape *a = inf->in[i], *b = inf->in[j];

	if (sym__dtype_float(inf, i) < 0 || sym__same_dtype(inf, i, j) < 0)
		return -1;
	if (a->rank != b->rank)
		return sym__infer_fail(inf, (int)j,
		    "%s of %s must have the shape of %s, %s, but its shape "
		    "is %s",
		    sym__in_name(inf, j), inf->op->name, sym__in_name(inf, i),
		    sym__txt_dims(inf, a), sym__txt_dims(inf, b));
	for (size_t d = 0; d < a->rank; d++)
		if (sym__require_dims_equal(inf, j, d, i, d) < 0)
			return -1;
	return 0;
}

/* The rule of gelu_grad(dy, x), sigmoid_grad(dy, y), tanh_grad(dy, y)
 * and sqrt_grad(dy, y): two floating operands of one dtype and shape,
 * the gradient of that shape; "inf" is the run. */
int
sym__rule_grad_unary(struct sym__infer *inf)
{
	if (same_float(inf, 0, 1) < 0)
		return -1;
	return sym__out_same(inf, 0);
}
