/*
 * Gradient rules of the layout family: reshape, flatten, expand_dims and
 * squeeze keep the order of the elements, so the gradient is the output's
 * reshaped back to the input's (symbolic) dimensions; transpose and
 * permute transpose it back by the inverse permutation.
 */
#include <stdlib.h>

#include "grad/grad_private.h"

/* The rule of reshape, flatten, expand_dims and squeeze: dx =
 * reshape(dy, dims of x); "gr", "n", "dy" as for every rule
 * (grad_private.h). */
static int
grad_reshape(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	const sym_shape *x = sym__value_shape(n->in[0]);
	int mirror = SYM__MIRROR_OUT(0);
	sym_attrs *at;
	sym_value *v;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = sym__gattrs(gr);
	if (!at ||
	    sym_attrs_set_list(at, "shape", x->rank,
	        (sym_expr *const *)x->dim) < 0) {
		sym_attrs_free(at);
		return sym__graph_ctx_error(gr->g, &n->loc);
	}
	v = sym__gemit(gr, 1, "reshape", 1, &dy[0], at, sym__gtarget(gr, 0),
	    &mirror);
	sym_attrs_free(at);
	return v ? 0 : -1;
}

/* The rule of transpose and permute: dx = transpose(dy, perm^-1). */
static int
grad_transpose(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t rank = sym_shape_ndim(sym__value_shape(n->in[0]));
	sym_expr **inv = sym__calloc(gr->ctx, rank + 1, sizeof(*inv));
	int mirror = SYM__MIRROR_OUT(0), r = -1;
	sym_attrs *at = sym__gattrs(gr);
	size_t k = 0;

	if (!sym__gtarget(gr, 0)) {
		r = 0;
		goto done;
	}
	for (; inv && k < rank; k++) {
		size_t src = 0;

		while (src < rank && (size_t)n->at.layout.perm[src] != k)
			src++;
		inv[k] = sym_expr_const(gr->ctx, (int64_t)src);
		if (!inv[k])
			break;
	}
	if (!inv || !at || k < rank ||
	    sym_attrs_set_list(at, "perm", rank, inv) < 0) {
		sym__graph_ctx_error(gr->g, &n->loc);
		goto done;
	}
	r = sym__gemit(gr, 1, "transpose", 1, &dy[0], at, sym__gtarget(gr, 0),
	        &mirror)
	    ? 0
	    : -1;
done:
	for (size_t d = 0; inv && d < k; d++)
		sym_expr_free(inv[d]);
	free(inv);
	sym_attrs_free(at);
	return r;
}

const sym__grad_rule sym__grad_layout[SYM__N_OPS] = {
	[SYM__OP_RESHAPE] = grad_reshape,
	[SYM__OP_FLATTEN] = grad_reshape,
	[SYM__OP_TRANSPOSE] = grad_transpose,
	[SYM__OP_PERMUTE] = grad_transpose,
	[SYM__OP_EXPAND_DIMS] = grad_reshape,
	[SYM__OP_SQUEEZE] = grad_reshape,
};
