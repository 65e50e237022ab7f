/* SPDX-License-Identifier: MIT */
/*
 * Gradient rule of the convolution family: for y = conv2d(x, weight),
 *
 *	dx = conv2d_input_grad(dy, weight, x)
 *	dw = conv2d_weight_grad(dy, x, weight)
 *
 * both with the forward node's attributes (stride, pad, dilation,
 * group). Role 1 computes dx, role 2 dw; their operands mirror the
 * forward tensors they stand for, so that the sharding pass lays them
 * out as the forward operator did: dw of a weight replicated over the
 * axes that split the batch comes out as partial sums over those axes,
 * dx as partial sums over the axes that split the output channels.
 */
#include "grad/grad_private.h"

/* Emit "op" on "a", "b" and "c" (mirroring "ma", "mb", "mc") with the
 * forward attributes of "n" as role "role", the gradient of input "i";
 * return 0 or -1. */
static int
conv_back(struct sym__grad *gr, sym_node *n, size_t i, int role, const char *op,
    sym_value *a, int ma, sym_value *b, int mb, sym_value *c, int mc)
{
	sym_value *in[3] = { a, b, c };
	int mirror[3] = { ma, mb, mc };

	return sym__gemit_to(gr, i, role, op, 3, in, n->attrs, mirror);
}

/* The rule of conv2d; "gr", "n", "dy" as for every rule
 * (grad_private.h). */
int
sym__grad_conv2d(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	if (conv_back(gr, n, 0, 1, "conv2d_input_grad", dy[0],
	        SYM__MIRROR_OUT(0), n->in[1], SYM__MIRROR_IN(1), n->in[0],
	        SYM__MIRROR_IN(0)) < 0)
		return -1;
	return conv_back(gr, n, 1, 2, "conv2d_weight_grad", dy[0],
	    SYM__MIRROR_OUT(0), n->in[0], SYM__MIRROR_IN(0), n->in[1],
	    SYM__MIRROR_IN(1));
}
