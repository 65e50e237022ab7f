/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the layout family: reshape, flatten, expand_dims and
 * squeeze keep the order of the elements, so the gradient is the output's
 * reshaped back to the input's (symbolic) dimensions; transpose and
 * permute transpose it back by the inverse permutation. expand sums the
 * gradient over the broadcast dimensions (sum_to); tile reshapes it so
 * that every tiled dimension d of size r * n becomes [r, n] and sums
 * over the r; pad crops it by the pads (pad by their negation).
 */
#include <stdlib.h>

#include "grad/grad_private.h"

/* The rule of reshape, flatten, expand_dims and squeeze: dx =
 * reshape(dy, dims of x); "gr", "n", "dy" as for every rule
 * (grad_private.h). */
int
sym__grad_reshape(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	const sym_shape *x = sym__value_shape(n->in[0]);
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = sym__gattrs(gr);
	return sym__gemit_dx(gr, n, "reshape", dy[0], at,
	    at &&
	        sym_attrs_set_list(at, "shape", x->rank,
	            (sym_expr *const *)x->dim) == 0);
}

/* Emit "op" on "dy" with the attributes "at" and its list attribute
 * "attr" of "n" expressions "list" (of which "k" were made: fewer than
 * "n" when memory ran out), as the gradient of input 0 of forward node
 * "n"'s run "gr"; release "at" and "list". Return 0 or -1. */
static int
emit_list(struct sym__grad *gr, sym_node *node, sym_value *dy, const char *op,
    sym_attrs *at, const char *attr, size_t n, sym_expr **list, size_t k)
{
	int r = sym__gemit_dx(gr, node, op, dy, at,
	    list && k >= n && at && sym_attrs_set_list(at, attr, n, list) == 0);

	for (size_t d = 0; list && d < k; d++)
		sym_expr_free(list[d]);
	free(list);
	return r;
}

/* The rule of transpose and permute: dx = transpose(dy, perm^-1). */
int
sym__grad_transpose(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t rank = sym_shape_ndim(sym__value_shape(n->in[0]));
	sym_expr **inv;
	sym_attrs *at;
	size_t k = 0;

	if (!sym__gtarget(gr, 0))
		return 0;
	inv = sym__calloc(gr->ctx, rank + 1, sizeof(*inv));
	at = sym__gattrs(gr);
	for (; inv && k < rank; k++) {
		size_t src = 0;

		while (src < rank && (size_t)n->at.layout.perm[src] != k)
			src++;
		inv[k] = sym_expr_const(gr->ctx, (int64_t)src);
		if (!inv[k])
			break;
	}
	return emit_list(gr, n, dy[0], "transpose", at, "perm", rank, inv, k);
}

/* The rule of expand: dx = sum_to(dy, dims of x). */
int
sym__grad_expand(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	(void)n;
	return sym__gunbroadcast(gr, 0, dy[0], 1);
}

/* The rule of tile: dy reshaped to [r0, n0, r1, n1, ...] (only the tiled
 * dimensions split in two) and summed over the repeats. */
int
sym__grad_tile(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	const sym_shape *x = sym__value_shape(n->in[0]);
	const int64_t *rep = n->at.layout.repeats;
	sym_expr **dims = sym__calloc(gr->ctx, 2 * x->rank + 1, sizeof(*dims));
	sym_expr **axes = sym__calloc(gr->ctx, x->rank + 1, sizeof(*axes));
	int m_reshape = SYM__MIRROR_OUT(0), m_sum = SYM__MIRROR_NONE, r = -1;
	sym_attrs *at = sym__gattrs(gr), *as = sym__gattrs(gr);
	size_t nd = 0, na = 0, d = 0;
	sym_value *v;

	if (!sym__gtarget(gr, 0)) {
		r = 0;
		goto done;
	}
	for (; dims && axes && d < x->rank; d++) {
		if (rep[d] != 1) {
			axes[na] = sym_expr_const(gr->ctx, (int64_t)nd);
			dims[nd++] = sym_expr_const(gr->ctx, rep[d]);
			if (!axes[na++] || !dims[nd - 1])
				break;
		}
		dims[nd++] = sym_expr_copy(x->dim[d]);
		if (!dims[nd - 1])
			break;
	}
	if (!dims || !axes || !at || !as || d < x->rank ||
	    sym_attrs_set_list(at, "shape", nd, dims) < 0 ||
	    sym_attrs_set_list(as, "axis", na, axes) < 0) {
		sym__graph_ctx_error(gr->g, &n->loc);
		goto done;
	}
	if (na == 0) {
		r = sym__gpass(gr, 0, dy[0], SYM__MIRROR_OUT(0));
		goto done;
	}
	v = sym__gemit(gr, 1, "reshape", 1, &dy[0], at, NULL, &m_reshape);
	if (v)
		v = sym__gemit(gr, 2, "reduce_sum", 1, &v, as,
		    sym__gtarget(gr, 0), &m_sum);
	r = v ? 0 : -1;
done:
	for (size_t k = 0; dims && k < nd; k++)
		sym_expr_free(dims[k]);
	for (size_t k = 0; axes && k < na; k++)
		sym_expr_free(axes[k]);
	free(dims);
	free(axes);
	sym_attrs_free(at);
	sym_attrs_free(as);
	return r;
}

/* The rule of pad: dx = pad(dy, the pads negated), which crops what the
 * forward pad added (and pads back with zeros what it cropped). */
int
sym__grad_pad(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t rank = sym_shape_ndim(sym__value_shape(n->in[0]));
	sym_expr **p;
	sym_attrs *at;
	size_t k = 0;

	if (!sym__gtarget(gr, 0))
		return 0;
	p = sym__calloc(gr->ctx, 2 * rank + 1, sizeof(*p));
	at = sym__gattrs(gr);
	for (; p && k < 2 * rank; k++) {
		p[k] = sym_expr_const(gr->ctx, -n->at.layout.pads[k]);
		if (!p[k])
			break;
	}
	return emit_list(gr, n, dy[0], "pad", at, "pads", 2 * rank, p, k);
}
