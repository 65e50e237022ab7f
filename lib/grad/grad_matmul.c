/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the matmul family. For y = op(x) op(w), op a
 * transposition when the flag says so:
 *
 *	dx = dy op(w)^T		(x^T = op(w) dy^T when transpose_a)
 *	dw = op(x)^T dy		(w^T = dy^T op(x) when transpose_b)
 *
 * both as matmul (batch_matmul, whose broadcast batch dimensions are
 * then summed back to each operand's shape). Role 1 computes dx, role 2
 * dw; their operands mirror the forward tensors they stand for, so that
 * the sharding pass lays them out as the forward operator did: dw of a
 * weight replicated over the data-parallel axes comes out as partial
 * sums over exactly those axes (MindSpore's mirror operator).
 */
#include "grad/grad_private.h"

/* Emit, as role "role", the product "a" op "b" with the flags "ta" and
 * "tb" for input "i" of the current node of "gr" ("batch": with
 * batch_matmul, then summed to the input's shape); the operands mirror
 * "ma" and "mb". Return 0 or -1. */
static int
product(struct sym__grad *gr, size_t i, int role, int batch, sym_value *a,
    int ma, int ta, sym_value *b, int mb, int tb)
{
	sym_value *in[2] = { a, b }, *v;
	int mirror[2] = { ma, mb };
	sym_attrs *at;

	if (!sym__gtarget(gr, i))
		return 0;
	at = sym__gattrs(gr);
	if (!at || sym_attrs_set_bool(at, "transpose_a", ta) < 0 ||
	    sym_attrs_set_bool(at, "transpose_b", tb) < 0) {
		sym_attrs_free(at);
		return sym__graph_ctx_error(gr->g, &gr->cur->loc);
	}
	v = sym__gemit(gr, role, batch ? "batch_matmul" : "matmul", 2, in, at,
	    batch ? NULL : sym__gtarget(gr, i), mirror);
	sym_attrs_free(at);
	if (!v)
		return -1;
	return batch ? sym__gunbroadcast(gr, i, v, role + 2) : 0;
}

/* The rule of matmul and batch_matmul ("batch") for node "n" and the
 * gradient "dy" of its output; see the top of the file. */
int
sym__grad_matmul(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	int batch = n->op->id == SYM__OP_BATCH_MATMUL;
	int ta = n->at.matmul.transpose_a, tb = n->at.matmul.transpose_b;
	sym_value *x = n->in[0], *w = n->in[1], *g = dy[0];
	int mx = SYM__MIRROR_IN(0), mw = SYM__MIRROR_IN(1);
	int my = SYM__MIRROR_OUT(0);

	if (!g)
		return 0;
	if (!ta) {
		if (product(gr, 0, 1, batch, g, my, 0, w, mw, !tb) < 0)
			return -1;
	} else if (product(gr, 0, 1, batch, w, mw, tb, g, my, 1) < 0) {
		return -1;
	}
	if (!tb)
		return product(gr, 1, 2, batch, x, mx, !ta, g, my, 0);
	return product(gr, 1, 2, batch, g, my, 1, x, mx, ta);
}
