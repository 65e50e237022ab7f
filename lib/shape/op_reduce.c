/*
 * The reduce family: reduce_sum, reduce_mean and reduce_max.
 */
#include "shape/shape_private.h"

/* The rule of the reductions: the dimensions named by the attribute axis
 * (an integer or a list; absent or empty: all of them, as MindSpore's
 * axis=()) are removed, or kept as 1 when keep_dims is true; negative axes
 * count from the end and an axis named twice is an error. "inf" is the
 * run. */
static int
rule_reduce(struct sym__infer *inf)
{
	static const char *const known[] = { "axis", "keep_dims", NULL };
	const sym_shape *x = inf->in[0];
	unsigned char *mark = sym__scratch(inf, x->rank, 1);
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));
	int64_t *axes;
	size_t n, rank = 0;
	int keep;

	if (!mark || !dims || !one)
		return sym__infer_nomem(inf);
	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_bool(inf, "keep_dims", 0, &keep) < 0 ||
	    sym__attr_ints(inf, "axis", 1, &axes, &n) < 0)
		return -1;
	for (size_t i = 0; i < x->rank && n == 0; i++)
		mark[i] = 1;
	if (n && sym__axes(inf, "axis", axes, n, x->rank, 0, mark) < 0)
		return -1;
	for (size_t i = 0; i < x->rank; i++)
		if (!mark[i])
			dims[rank++] = x->dim[i];
		else if (keep)
			dims[rank++] = one;
	return sym__out_shape(inf, x->dtype, rank, dims);
}

const sym_op sym__ops_reduce[] = {
	{ "reduce_sum", "reduce", 1, 1, NULL, rule_reduce },
	{ "reduce_mean", "reduce", 1, 1, NULL, rule_reduce },
	{ "reduce_max", "reduce", 1, 1, NULL, rule_reduce },
	{ NULL, NULL, 0, 0, NULL, NULL },
};
