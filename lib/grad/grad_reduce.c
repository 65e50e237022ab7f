/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the reduce family: the output's gradient broadcast
 * back over the reduced dimensions (reduce_sum_grad), divided by the
 * global count of reduced elements for a mean (reduce_mean_grad, whose
 * normaliser is evaluated at run time on global sizes), routed to the
 * maxima for reduce_max (reduce_max_grad: ties split equally), to the
 * minima for reduce_min (reduce_max_grad too: it routes to the elements
 * equal to the result, as PyTorch's amin), and times the product of the
 * other elements for reduce_prod (reduce_prod_grad, exact with zeros).
 * The forward attributes (axis, keep_dims) are passed on unchanged.
 * argmax and argmin have integer results, which no gradient crosses.
 */
#include "grad/grad_private.h"

/* The rule of reduce_sum, reduce_mean, reduce_max, reduce_min and
 * reduce_prod: their gradient operator (reduce_max_grad for reduce_min)
 * on dy, x (and y for the extrema) with the forward node's attributes,
 * as the gradient of input 0 of "n"; 0 or -1. */
int
sym__grad_reduce(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	int min = n->op->id == SYM__OP_REDUCE_MIN;
	int with_y = min || n->op->id == SYM__OP_REDUCE_MAX;
	char buf[64];
	const char *op =
	    min ? "reduce_max_grad" : sym__ggrad_op(n, buf, sizeof(buf));
	sym_value *in[3] = { dy[0], n->in[0], n->out[0] };
	int mirror[3] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0),
		SYM__MIRROR_OUT(0) };

	return sym__gemit_to(gr, 0, 1, op, with_y ? 3 : 2, in, n->attrs,
	    mirror);
}

/* The rule of sum_to: the gradient broadcast back over the summed
 * dimensions, as the sum of zeros of x's shape and dy (NumPy
 * broadcasting is exactly the inverse of sum_to). */
int
sym__grad_sum_to(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[2] = { n->in[0], dy[0] };
	int m_zero = SYM__MIRROR_IN(0);
	int m_add[2] = { SYM__MIRROR_IN(0), SYM__MIRROR_OUT(0) };
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = sym__gattrs(gr);
	if (!at || sym_attrs_set_float(at, "value", 0.0) < 0) {
		sym_attrs_free(at);
		return sym__graph_ctx_error(gr->g, &n->loc);
	}
	in[0] = sym__gemit(gr, 1, "fill_like", 1, &n->in[0], at, NULL, &m_zero);
	sym_attrs_free(at);
	if (!in[0])
		return -1;
	return sym__gemit_to(gr, 0, 2, "add", 2, in, NULL, m_add);
}
