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

/* Emit "op"(dy, indices, table) for node "n" whose table is input "it"
 * and indices input "ii", as the gradient of the table; return 0 or
 * -1. */
static int
scatter_back(struct sym__grad *gr, sym_node *n, sym_value *const *dy, size_t it,
    size_t ii, const char *op)
{
	sym_value *in[3] = { dy[0], n->in[ii], n->in[it] };
	int mirror[3] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN((int)ii),
		SYM__MIRROR_IN((int)it) };

	return sym__gemit_to(gr, it, 1, op, 3, in, n->attrs, mirror);
}

/* The rule of gather(params, indices); "gr", "n", "dy" as for every
 * rule (grad_private.h). */
int
sym__grad_gather(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return scatter_back(gr, n, dy, 0, 1, "gather_grad");
}

/* The rule of embedding(ids, table). */
int
sym__grad_embedding(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return scatter_back(gr, n, dy, 1, 0, "embedding_grad");
}
