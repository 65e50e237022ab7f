/*
 * The reduce family: reduce_sum, reduce_mean and reduce_max.
 */
#include "shape/shape_private.h"

/* The decoder of the reductions: the dimensions named by the attribute
 * axis (an integer or a list; absent or empty: all of them, as
 * MindSpore's axis=()) and keep_dims; negative axes count from the end and
 * an axis named twice is an error. "inf" is the run. */
int
sym__decode_reduce(struct sym__infer *inf)
{
	static const char *const known[] = { "axis", "keep_dims", NULL };
	size_t rank = inf->in[0]->rank, n;
	unsigned char *mark = sym__at_alloc(inf, rank, 1);
	int64_t *axes;

	if (!mark)
		return -1;
	inf->at.reduce.mark = mark;
	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_bool(inf, "keep_dims", 0, &inf->at.reduce.keep_dims) <
	        0 ||
	    sym__attr_ints(inf, "axis", 1, &axes, &n) < 0)
		return -1;
	for (size_t i = 0; i < rank && n == 0; i++)
		mark[i] = 1;
	if (n && sym__axes(inf, "axis", axes, n, rank, 0, mark) < 0)
		return -1;
	return 0;
}

/* The rule of the reductions: the dimensions the decoder marked are
 * removed, or kept as 1 with keep_dims. The result keeps the input's
 * dtype, except reduce_sum of bool, which counts the true elements into
 * an i32 (NumPy counts into its default integer); reduce_mean needs a
 * numeric input, and reduce_sum one that is not i64 (see
 * sym__dtype_not_i64). "inf" is the run. */
int
sym__rule_reduce(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const unsigned char *mark = inf->at.reduce.mark;
	int keep = inf->at.reduce.keep_dims;
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));
	sym_dtype dt = x->dtype;
	size_t rank = 0;

	if (!dims || !one)
		return sym__infer_nomem(inf);
	if (inf->op->id == SYM__OP_REDUCE_MEAN &&
	    sym__dtype_numeric(inf, 0) < 0)
		return -1;
	if (inf->op->id == SYM__OP_REDUCE_SUM && sym__dtype_not_i64(inf, 0) < 0)
		return -1;
	if (inf->op->id == SYM__OP_REDUCE_SUM && dt == SYM_DT_BOOL)
		dt = SYM_DT_I32;
	for (size_t i = 0; i < x->rank; i++)
		if (!mark[i])
			dims[rank++] = x->dim[i];
		else if (keep)
			dims[rank++] = one;
	return sym__out_shape(inf, dt, rank, dims);
}
