/* SPDX-License-Identifier: MIT */
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

/* The decoder of sce_grad: the attributes of softmax_cross_entropy
 * (reduction, ignore_index), decoded as its; "inf" is the run. */
int
sym__decode_sce_grad(struct sym__infer *inf)
{
	return sym__decode_sce(inf);
}

/* The rule of sce_grad(logits, labels, dloss): the gradient of
 * softmax_cross_entropy(logits [N, C], labels [N]) with respect to the
 * logits, times dloss: a scalar of the logits' dtype for the reductions
 * "mean" and "sum", the per-sample [N] for "none"; the gradient has the
 * shape of the logits. "inf" is the run. */
int
sym__rule_sce_grad(struct sym__infer *inf)
{
	const sym_shape *dl = inf->in[2];
	int none = inf->at.loss.reduction == SYM__RED_NONE;

	if (sym__rank_is(inf, 0, 2) < 0 || sym__dtype_float(inf, 0) < 0 ||
	    sym__rank_is(inf, 1, 1) < 0 ||
	    sym__dtype_integer(inf, 1, "labels") < 0 ||
	    sym__same_dtype(inf, 0, 2) < 0)
		return -1;
	if (dl->rank != (size_t)none)
		return sym__infer_fail(inf, 2,
		    "dloss %s of sce_grad must be %s for reduction=\"%s\", "
		    "but its shape is %s",
		    sym__in_name(inf, 2),
		    none ? "[N], a loss per sample," : "a scalar []",
		    none                                         ? "none"
		        : inf->at.loss.reduction == SYM__RED_SUM ? "sum"
		                                                 : "mean",
		    sym__txt_dims(inf, dl));
	if (sym__require_dims_equal(inf, 1, 0, 0, 0) < 0 ||
	    (none && sym__require_dims_equal(inf, 2, 0, 0, 0) < 0) ||
	    ((inf->n_in == 4 || inf->n_in == 6) &&
	        sym__sce_check_count(inf, 3) < 0) ||
	    (inf->n_in >= 5 && sym__sce_check_stats(inf, inf->n_in - 2) < 0))
		return -1;
	return sym__out_same(inf, 0);
}

/* The decoder of reduce_sum_grad, reduce_mean_grad and reduce_max_grad:
 * axis and keep_dims as the reductions read them, for the rank of x
 * (input 1), whose dimensions "mark" has; "inf" is the run. */
int
sym__decode_reduce_grad(struct sym__infer *inf)
{
	return sym__decode_reduce_axes(inf, 1);
}

/* Check that input "i" of "inf" has the shape of the reduction of x
 * (input 1) under the decoded axes and keep_dims, and its dtype; return
 * 0 or -1. */
static int
reduced_like_x(struct sym__infer *inf, size_t i)
{
	const sym_shape *x = inf->in[1], *g = inf->in[i];
	const unsigned char *mark = inf->at.reduce.mark;
	int keep = inf->at.reduce.keep_dims;
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));
	sym_shape *want;
	size_t rank = 0;
	const char *txt;

	if (!dims || !one)
		return sym__infer_nomem(inf);
	if (sym__same_dtype(inf, 1, i) < 0)
		return -1;
	for (size_t d = 0; d < x->rank; d++)
		if (!mark[d])
			dims[rank++] = x->dim[d];
		else if (keep)
			dims[rank++] = one;
	if (g->rank != rank) {
		want = sym__shape_new(inf->ctx, x->dtype, rank, dims);
		txt = want ? sym__txt_dims(inf, want) : "?";
		sym__shape_unref(want);
		return sym__infer_fail(inf, (int)i,
		    "%s of %s must have the shape of %s reduced, %s, but its "
		    "shape is %s",
		    sym__in_name(inf, i), inf->op->name, sym__in_name(inf, 1),
		    txt, sym__txt_dims(inf, g));
	}
	for (size_t d = 0; d < rank; d++)
		if (sym__require_equal(inf, g->dim[d], dims[d],
		        "dimension %zu of %s (%s) must equal %s, the size of "
		        "%s reduced there",
		        d, sym__in_name(inf, i), sym__txt_expr(inf, g->dim[d]),
		        sym__txt_expr(inf, dims[d]), sym__in_name(inf, 1)) < 0)
			return -1;
	return 0;
}

/* The rule of reduce_sum_grad(dy, x), reduce_mean_grad(dy, x) and
 * reduce_max_grad(dy, x, y): dy (and the forward output y) of the shape
 * of the floating-point x reduced; the gradient has the shape of x.
 * "inf" is the run. */
int
sym__rule_reduce_grad(struct sym__infer *inf)
{
	if (sym__dtype_float(inf, 1) < 0 || reduced_like_x(inf, 0) < 0 ||
	    (inf->n_in > 2 && reduced_like_x(inf, 2) < 0))
		return -1;
	return sym__out_same(inf, 1);
}

/* The rule of softmax_grad(dy, y) and log_softmax_grad(dy, y), whose
 * decoder is softmax's: two floating-point operands of one dtype and
 * shape; "inf" is the run. */
int
sym__rule_softmax_grad(struct sym__infer *inf)
{
	if (same_float(inf, 0, 1) < 0)
		return -1;
	return sym__out_same(inf, 0);
}

/* The decoder of layer_norm_grad: the attributes of layer_norm
 * (sym__decode_layer_norm_attrs) for the rank of x (input 1); "inf" is
 * the run. */
int
sym__decode_layer_norm_grad(struct sym__infer *inf)
{
	return sym__decode_layer_norm_attrs(inf, 1);
}

/* The rule of layer_norm_grad(dy, x, gamma): dy and the floating-point x
 * of one shape, gamma of x's dtype and of its dimensions from
 * begin_params_axis on; the outputs dx (x's shape), dgamma and dbeta
 * (gamma's), as MindSpore's LayerNormGrad. "inf" is the run. */
int
sym__rule_layer_norm_grad(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[1], *g = inf->in[2];
	size_t from = inf->at.norm.begin_params;
	sym_shape *tail;
	const char *want;

	if (same_float(inf, 1, 0) < 0 || sym__same_dtype(inf, 1, 2) < 0)
		return -1;
	if (g->rank != x->rank - from) {
		tail = sym__shape_new(inf->ctx, x->dtype, x->rank - from,
		    x->dim + from);
		want = tail ? sym__txt_dims(inf, tail) : "?";
		sym__shape_unref(tail);
		return sym__infer_fail(inf, 2,
		    "gamma %s of layer_norm_grad must have the shape of %s "
		    "from dimension %zu on, %s, but its shape is %s",
		    sym__in_name(inf, 2), sym__in_name(inf, 1), from, want,
		    sym__txt_dims(inf, g));
	}
	for (size_t j = 0; j < g->rank; j++)
		if (sym__require_dims_equal(inf, 2, j, 1, from + j) < 0)
			return -1;
	if (sym__out_same(inf, 1) < 0 || sym__out_same(inf, 2) < 0 ||
	    sym__out_same(inf, 2) < 0)
		return -1;
	return 0;
}

/* The rule of maximum_grad(dy, a, b) and minimum_grad(dy, a, b): a and
 * b of dy's floating dtype, dy of the shape they broadcast to (NumPy
 * broadcasting, as the forward operator); two outputs of dy's shape,
 * the gradients of a and of b before the broadcast dimensions are
 * summed back. "inf" is the run. */
int
sym__rule_extremum_grad(struct sym__infer *inf)
{
	size_t ra = inf->in[1]->rank, rb = inf->in[2]->rank;
	size_t n = ra > rb ? ra : rb;
	const sym_shape *dy = inf->in[0];
	sym_expr **dims = sym__scratch(inf, n ? n : 1, sizeof(*dims));
	sym_shape *want;
	const char *txt;

	if (!dims)
		return sym__infer_nomem(inf);
	if (sym__dtype_float(inf, 0) < 0 || sym__same_dtype(inf, 0, 1) < 0 ||
	    sym__same_dtype(inf, 0, 2) < 0 ||
	    sym__broadcast(inf, 1, ra, 2, rb, dims) < 0)
		return -1;
	if (dy->rank != n) {
		want = sym__shape_new(inf->ctx, dy->dtype, n, dims);
		txt = want ? sym__txt_dims(inf, want) : "?";
		sym__shape_unref(want);
		return sym__infer_fail(inf, 0,
		    "dy %s of %s must have the shape %s and %s broadcast to, "
		    "%s, but its shape is %s",
		    sym__in_name(inf, 0), inf->op->name, sym__in_name(inf, 1),
		    sym__in_name(inf, 2), txt, sym__txt_dims(inf, dy));
	}
	for (size_t d = 0; d < n; d++)
		if (sym__require_equal(inf, dy->dim[d], dims[d],
		        "dimension %zu of dy %s (%s) must equal %s, dimension "
		        "%zu of %s and %s broadcast",
		        d, sym__in_name(inf, 0), sym__txt_expr(inf, dy->dim[d]),
		        sym__txt_expr(inf, dims[d]), d, sym__in_name(inf, 1),
		        sym__in_name(inf, 2)) < 0)
			return -1;
	if (sym__out_same(inf, 0) < 0 || sym__out_same(inf, 0) < 0)
		return -1;
	return 0;
}

/* The decoder of gather_grad(dy, indices, params): the attribute axis
 * (default 0) of params, input 2, as gather's; "inf" is the run. */
int
sym__decode_gather_grad(struct sym__infer *inf)
{
	return sym__decode_gather_axis(inf, 2);
}

/* Check in "inf" that dy (input 0) has the floating-point dtype of the
 * table (input "it") and the "rank" dimensions "dims" of the forward
 * output, which "what" describes; return 0 or -1. */
static int
dy_like(struct sym__infer *inf, size_t it, size_t rank, sym_expr *const *dims,
    const char *what)
{
	const sym_shape *dy = inf->in[0];
	sym_shape *want;
	const char *txt;

	if (sym__dtype_float(inf, 0) < 0 || sym__same_dtype(inf, 0, it) < 0)
		return -1;
	if (dy->rank != rank) {
		want = sym__shape_new(inf->ctx, dy->dtype, rank, dims);
		txt = want ? sym__txt_dims(inf, want) : "?";
		sym__shape_unref(want);
		return sym__infer_fail(inf, 0,
		    "dy %s of %s must have the shape of %s, %s, but its shape "
		    "is %s",
		    sym__in_name(inf, 0), inf->op->name, what, txt,
		    sym__txt_dims(inf, dy));
	}
	for (size_t d = 0; d < rank; d++)
		if (sym__require_equal(inf, dy->dim[d], dims[d],
		        "dimension %zu of dy %s (%s) must equal %s, dimension "
		        "%zu of %s",
		        d, sym__in_name(inf, 0), sym__txt_expr(inf, dy->dim[d]),
		        sym__txt_expr(inf, dims[d]), d, what) < 0)
			return -1;
	return 0;
}

/* The rule of gather_grad(dy, indices, params): dy of the shape of
 * gather(params, indices) along the decoded axis, floating-point like
 * params, integer indices; the gradient has the shape of params. "inf"
 * is the run. */
int
sym__rule_gather_grad(struct sym__infer *inf)
{
	const sym_shape *p = inf->in[2], *ix = inf->in[1];
	size_t ax = inf->at.gather.axis, n = 0, rank = p->rank - 1 + ix->rank;
	sym_expr **dims = sym__scratch(inf, rank ? rank : 1, sizeof(*dims));

	if (!dims)
		return sym__infer_nomem(inf);
	if (sym__dtype_integer(inf, 1, "indices") < 0)
		return -1;
	for (size_t i = 0; i < ax; i++)
		dims[n++] = p->dim[i];
	for (size_t i = 0; i < ix->rank; i++)
		dims[n++] = ix->dim[i];
	for (size_t i = ax + 1; i < p->rank; i++)
		dims[n++] = p->dim[i];
	if (dy_like(inf, 2, rank, dims, "the gather of params by indices") < 0)
		return -1;
	return sym__out_same(inf, 2);
}

/* The rule of embedding_grad(dy, ids, table): integer ids, a table [V,
 * D] and dy of the floating-point dtype of the table and of the shape
 * ids.shape + [D]; the gradient has the shape of the table. "inf" is the
 * run. */
int
sym__rule_embedding_grad(struct sym__infer *inf)
{
	const sym_shape *ids = inf->in[1], *t = inf->in[2];
	sym_expr **dims = sym__scratch(inf, ids->rank + 1, sizeof(*dims));

	if (!dims)
		return sym__infer_nomem(inf);
	if (sym__dtype_integer(inf, 1, "ids") < 0 ||
	    sym__rank_is(inf, 2, 2) < 0)
		return -1;
	for (size_t i = 0; i < ids->rank; i++)
		dims[i] = ids->dim[i];
	dims[ids->rank] = t->dim[1];
	if (dy_like(inf, 2, ids->rank + 1, dims,
	        "the embedding of ids in the table") < 0)
		return -1;
	return sym__out_same(inf, 2);
}
