/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the pooling family, each one operator that takes
 * the forward node's attributes unchanged:
 *
 *	max_pool2d:		dx = max_pool2d_grad(dy, x)
 *	avg_pool2d:		dx = avg_pool2d_grad(dy, x)
 *	global_avg_pool:	dx = global_avg_pool_grad(dy, x)
 *
 * max_pool2d_grad finds each window's maximum in x again (the first in
 * row-major order on ties, as PyTorch does); dy mirrors the forward
 * output and x the forward input, so the sharding pass lays the
 * gradient out as the forward operator was.
 */
#include "grad/grad_private.h"

/* The rule of every pooling operator: emit its gradient operator (named
 * after the forward one with "_grad") on dy and x as the gradient of x;
 * "gr", "n", "dy" as for every rule (grad_private.h). */
int
sym__grad_pool(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[2] = { dy[0], n->in[0] };
	int mirror[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0) };
	const char *op = n->op->id == SYM__OP_MAX_POOL2D ? "max_pool2d_grad"
	    : n->op->id == SYM__OP_AVG_POOL2D            ? "avg_pool2d_grad"
	                                      : "global_avg_pool_grad";

	return sym__gemit_to(gr, 0, 1, op, 2, in, n->attrs, mirror);
}
