/* SPDX-License-Identifier: MIT */
/*
 * The reduce family: reduce_sum, reduce_mean, reduce_max, reduce_min,
 * reduce_prod, sum_to, and the index reductions argmax and argmin.
 */
#include "shape/shape_private.h"

/* Start decoding a reduction over the "rank" dimensions of an input of
 * "inf": its marks (one flag per dimension, none set yet) into
 * inf->at.reduce, its attributes checked against "known" and keep_dims
 * (default false) read; return the marks, or NULL on error. */
static unsigned char *
decode_marks(struct sym__infer *inf, size_t rank, const char *const *known)
{
	unsigned char *mark = sym__at_alloc(inf, rank, 1);

	if (!mark)
		return NULL;
	inf->at.reduce.mark = mark;
	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_bool(inf, "keep_dims", 0, &inf->at.reduce.keep_dims) < 0)
		return NULL;
	return mark;
}

/* Decode axis and keep_dims of a reduction over the dimensions of input
 * "i" of "inf" into inf->at.reduce ("mark" has one flag per dimension);
 * return 0 or -1. */
int
sym__decode_reduce_axes(struct sym__infer *inf, size_t i)
{
	static const char *const known[] = { "axis", "keep_dims", NULL };
	size_t rank = inf->in[i]->rank, n;
	unsigned char *mark = decode_marks(inf, rank, known);
	int64_t *axes;

	if (!mark || sym__attr_ints(inf, "axis", 1, &axes, &n) < 0)
		return -1;
	for (size_t d = 0; d < rank && n == 0; d++)
		mark[d] = 1;
	if (n && sym__axes(inf, "axis", axes, n, rank, i, mark) < 0)
		return -1;
	return 0;
}

/* The decoder of the reductions: the dimensions named by the attribute
 * axis (an integer or a list; absent or empty: all of them, as
 * MindSpore's axis=()) and keep_dims; negative axes count from the end and
 * an axis named twice is an error. "inf" is the run. */
int
sym__decode_reduce(struct sym__infer *inf)
{
	return sym__decode_reduce_axes(inf, 0);
}

/* Return the dimensions of input "i" of "inf" reduced over those the
 * decoder marked (removed, or kept as 1 with keep_dims), their number in
 * "*rank", in the scratch of "inf"; NULL when out of memory (an error on
 * "inf"). */
sym_expr **
sym__reduced_dims(struct sym__infer *inf, size_t i, size_t *rank)
{
	const sym_shape *x = inf->in[i];
	const unsigned char *mark = inf->at.reduce.mark;
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));

	if (!dims || !one) {
		sym__infer_nomem(inf);
		return NULL;
	}
	*rank = 0;
	for (size_t d = 0; d < x->rank; d++)
		if (!mark[d])
			dims[(*rank)++] = x->dim[d];
		else if (inf->at.reduce.keep_dims)
			dims[(*rank)++] = one;
	return dims;
}

/* The rule of the reductions: the dimensions the decoder marked are
 * removed, or kept as 1 with keep_dims. The result keeps the input's
 * dtype, except reduce_sum of bool, which counts the true elements into
 * an i32 (NumPy counts into its default integer); reduce_mean and
 * reduce_prod need a numeric input, reduce_sum and reduce_prod one that
 * is not i64 (see sym__dtype_not_i64); reduce_max and reduce_min take
 * every dtype. "inf" is the run. */
int
sym__rule_reduce(struct sym__infer *inf)
{
	sym_dtype dt = inf->in[0]->dtype;
	sym_expr **dims;
	size_t rank;

	if (inf->op->id == SYM__OP_REDUCE_MEAN &&
	    sym__dtype_numeric(inf, 0) < 0)
		return -1;
	if ((inf->op->id == SYM__OP_REDUCE_SUM ||
	        inf->op->id == SYM__OP_REDUCE_PROD) &&
	    sym__dtype_not_i64(inf, 0) < 0)
		return -1;
	if (inf->op->id == SYM__OP_REDUCE_PROD &&
	    sym__dtype_numeric(inf, 0) < 0)
		return -1;
	if (inf->op->id == SYM__OP_REDUCE_SUM && dt == SYM_DT_BOOL)
		dt = SYM_DT_I32;
	dims = sym__reduced_dims(inf, 0, &rank);
	if (!dims)
		return -1;
	return sym__out_shape(inf, dt, rank, dims);
}

/* The decoder of sum_to(x, [d0, d1, ...]): the target shape must
 * broadcast to x (NumPy, aligned from the right); the dimensions of x
 * the target lacks (leading) or has as the constant 1 where x's is not
 * are summed; "inf" is the run. */
int
sym__decode_sum_to(struct sym__infer *inf)
{
	static const char *const known[] = { "shape", NULL };
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "shape");
	const sym_shape *x = inf->in[0];
	unsigned char *mark;
	size_t drop;

	if (sym__check_attrs(inf, known) < 0)
		return -1;
	if (!at || at->kind != SYM_ATTR_LIST)
		return sym__infer_fail_attr(inf, "shape",
		    "sum_to needs its target shape, as in sum_to(x, [1, n])");
	if (at->n > x->rank)
		return sym__infer_fail_attr(inf, "shape",
		    "the target of sum_to has %zu dimensions, more than %s "
		    "(%zu)",
		    at->n, sym__in_name(inf, 0), x->rank);
	mark = sym__at_alloc(inf, x->rank, 1);
	if (!mark)
		return -1;
	drop = x->rank - at->n;
	for (size_t d = 0; d < x->rank; d++)
		mark[d] = d < drop ||
		    (sym__is_one(at->items[d - drop]) &&
		        !sym__is_one(x->dim[d]));
	inf->at.reduce.mark = mark;
	inf->at.reduce.keep_dims = 1;
	inf->at.reduce.drop = drop;
	return 0;
}

/* The rule of sum_to: a numeric x that is not i64 (the sums keep its
 * dtype), the target shape out, its other dimensions equal to x's;
 * "inf" is the run. */
int
sym__rule_sum_to(struct sym__infer *inf)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "shape");
	const sym_shape *x = inf->in[0];
	size_t drop = inf->at.reduce.drop;

	if (sym__dtype_numeric(inf, 0) < 0 || sym__dtype_not_i64(inf, 0) < 0)
		return -1;
	for (size_t d = drop; d < x->rank; d++) {
		sym_expr *t = at->items[d - drop];

		if (inf->at.reduce.mark[d])
			continue;
		if (sym__require_equal(inf, t, x->dim[d],
		        "dimension %zu of the target of sum_to (%s) must "
		        "equal dimension %zu of %s (%s), or be 1",
		        d - drop, sym__txt_expr(inf, t), d,
		        sym__in_name(inf, 0),
		        sym__txt_expr(inf, x->dim[d])) < 0)
			return -1;
	}
	return sym__out_shape(inf, x->dtype, at->n, at->items);
}

/* The decoder of argmax and argmin: the one dimension "axis" (an
 * integer, default 0, negative from the end) whose index of the greatest
 * (least) element is taken, keep_dims (default false) and the dtype of
 * the indices (i64, as PyTorch and ONNX, or i32). "inf" is the run. */
int
sym__decode_arg(struct sym__infer *inf)
{
	static const char *const known[] = { "axis", "keep_dims", "dtype",
		NULL };
	size_t rank = inf->in[0]->rank;
	unsigned char *mark = decode_marks(inf, rank, known);
	int64_t axis;
	sym_dtype dt;

	if (!mark || sym__attr_int(inf, "axis", 0, 0, &axis) < 0 ||
	    sym__attr_dtype(inf, "dtype", 0, SYM_DT_I64, &dt) < 0 ||
	    sym__axis(inf, "axis", axis, rank, 0, &inf->at.reduce.axis) < 0)
		return -1;
	if (dt != SYM_DT_I64 && dt != SYM_DT_I32)
		return sym__infer_fail_attr(inf, "dtype",
		    "the indices of %s are i64 or i32, not %s", inf->op->name,
		    sym_dtype_name(dt));
	mark[inf->at.reduce.axis] = 1;
	inf->at.reduce.dtype = dt;
	return 0;
}

/* The rule of argmax and argmin: a numeric input (not bool), its axis
 * (the one the decoder marked) removed, or kept as 1 with keep_dims;
 * indices of the decoded dtype. "inf" is the run. */
int
sym__rule_arg(struct sym__infer *inf)
{
	sym_expr **dims;
	size_t rank;

	if (sym__dtype_numeric(inf, 0) < 0 ||
	    !(dims = sym__reduced_dims(inf, 0, &rank)))
		return -1;
	return sym__out_shape(inf, inf->at.reduce.dtype, rank, dims);
}
