/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the gather family: the gradient of the table is the
 * output's gradient scatter-added back into zeros of its shape at the
 * indices (repeated indices accumulate),
 *
 *	gather(params, indices, axis):	gather_grad(dy, indices, params)
 *	embedding(ids, table):		embedding_grad(dy, ids, table)
 *
 * with the forward attributes; the indices are integers and get no
 * gradient (one_hot, whose only operand is an index, needs no rule).
 * Laid out like the forward operator, the gradient holds partial sums
 * over the axes that split the indices.
 */
#include "grad/grad_private.h"

/* The rule of gather(params, indices) and embedding(ids, table): their
 * gradient operator (gather_grad, embedding_grad) on dy, the indices and
 * the table, as the gradient of the table; 0 or -1. */
int
sym__grad_gather(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t it = n->op->id == SYM__OP_EMBEDDING, ii = 1 - it;
	char op[64];
	sym_value *in[3] = { dy[0], n->in[ii], n->in[it] };
	int mirror[3] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN((int)ii),
		SYM__MIRROR_IN((int)it) };

	return sym__gemit_to(gr, it, 1, sym__ggrad_op(n, op, sizeof(op)), 3, in,
	    n->attrs, mirror);
}
