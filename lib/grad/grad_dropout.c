/* SPDX-License-Identifier: MIT */
/*
 * Gradient rule of the dropout family: for y = dropout(x, p=),
 *
 *	dx = dropout_grad(dy, y, p=)
 *
 * which draws the mask of y again (the executor keys it by y's name) and
 * gives dy times the mask over 1 - p; dy and y mirror the forward
 * output, so the gradient is laid out as the forward operator was.
 */
#include "grad/grad_private.h"

/* The rule of dropout; "gr", "n", "dy" as for every rule
 * (grad_private.h). */
int
sym__grad_dropout(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[2] = { dy[0], n->out[0] };
	int mirror[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_OUT(0) };

	return sym__gemit_to(gr, 0, 1, "dropout_grad", 2, in, n->attrs, mirror);
}
