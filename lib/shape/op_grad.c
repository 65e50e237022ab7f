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
	size_t rank;
	sym_expr **dims = sym__reduced_dims(inf, 1, &rank);

	if (!dims || sym__same_dtype(inf, 1, i) < 0)
		return -1;
	return sym__require_dims_like(inf, i, "", rank, dims,
	    sym__txt_printf(inf, "%s reduced", sym__in_name(inf, 1)));
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
 * shape, as for the unary gradients; "inf" is the run. */
int
sym__rule_softmax_grad(struct sym__infer *inf)
{
	return sym__rule_grad_unary(inf);
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
	if (same_float(inf, 1, 0) < 0 ||
	    sym__check_norm_param(inf, 1, 2, "gamma",
	        inf->at.norm.begin_params) < 0)
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
	sym_expr **dims = sym__scratch(inf, n ? n : 1, sizeof(*dims));

	if (!dims)
		return sym__infer_nomem(inf);
	if (sym__dtype_float(inf, 0) < 0 || sym__same_dtype(inf, 0, 1) < 0 ||
	    sym__same_dtype(inf, 0, 2) < 0 ||
	    sym__broadcast(inf, 1, ra, 2, rb, dims) < 0 ||
	    sym__require_dims_like(inf, 0, "dy ", n, dims,
	        sym__txt_printf(inf, "%s and %s broadcast",
	            sym__in_name(inf, 1), sym__in_name(inf, 2))) < 0)
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
	if (sym__dtype_float(inf, 0) < 0 || sym__same_dtype(inf, 0, it) < 0)
		return -1;
	return sym__require_dims_like(inf, 0, "dy ", rank, dims, what);
}

/* The rule of gather_grad(dy, indices, params): dy of the shape of
 * gather(params, indices) along the decoded axis, floating-point like
 * params, integer indices; the gradient has the shape of params. "inf"
 * is the run. */
int
sym__rule_gather_grad(struct sym__infer *inf)
{
	size_t rank;
	sym_expr **dims = sym__gather_dims(inf, 2, 1, &rank);

	if (!dims ||
	    dy_like(inf, 2, rank, dims, "the gather of params by indices") < 0)
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
	size_t rank;
	sym_expr **dims = sym__embedding_dims(inf, 1, 2, &rank);

	if (!dims ||
	    dy_like(inf, 2, rank, dims, "the embedding of ids in the table") <
	        0)
		return -1;
	return sym__out_same(inf, 2);
}
