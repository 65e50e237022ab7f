/* SPDX-License-Identifier: MIT */
/*
 * The index family: tril and triu (the lower or upper triangle of the
 * last two dimensions, from diagonal k) and cumsum (the running sum
 * along one axis).
 */
#include "shape/shape_private.h"

static const char *const tri_known[] = { "diagonal", NULL };
static const char *const cumsum_known[] = { "axis", "reverse", "exclusive",
	NULL };

/* The decoder of tril and triu: the integer diagonal (default 0; above
 * the main diagonal when positive, as PyTorch's; at most 2^61 either
 * way, so that the kernels' index arithmetic cannot overflow). "inf" is
 * the run. */
int
sym__decode_tri(struct sym__infer *inf)
{
	int64_t k;

	if (sym__check_attrs(inf, tri_known) < 0 ||
	    sym__attr_int(inf, "diagonal", 0, 0, &k) < 0)
		return -1;
	if (k > INT64_MAX / 4 || k < -(INT64_MAX / 4))
		return sym__infer_fail_attr(inf, "diagonal",
		    "the diagonal %lld of %s is too large", (long long)k,
		    inf->op->name);
	inf->at.index.diagonal = k;
	return 0;
}

/* The rule of tril and triu: an input of rank at least 2, of any dtype;
 * the output has its shape. "inf" is the run. */
int
sym__rule_tri(struct sym__infer *inf)
{
	if (sym__rank_at_least(inf, 0, 2) < 0)
		return -1;
	return sym__out_same(inf, 0);
}

/* The decoder of cumsum: the required integer axis (negative from the
 * end), reverse (sum from the end) and exclusive (leave the element
 * itself out), both false by default, as ONNX's CumSum. "inf" is the
 * run. */
int
sym__decode_cumsum(struct sym__infer *inf)
{
	int64_t axis;

	if (sym__check_attrs(inf, cumsum_known) < 0 ||
	    sym__attr_int(inf, "axis", 1, 0, &axis) < 0 ||
	    sym__attr_bool(inf, "reverse", 0, &inf->at.index.reverse) < 0 ||
	    sym__attr_bool(inf, "exclusive", 0, &inf->at.index.exclusive) < 0 ||
	    sym__axis(inf, "axis", axis, inf->in[0]->rank, 0,
	        &inf->at.index.axis) < 0)
		return -1;
	return 0;
}

/* The rule of cumsum: a numeric input that is not i64 (its sums keep its
 * dtype, as reduce_sum's), the output of its shape. "inf" is the run. */
int
sym__rule_cumsum(struct sym__infer *inf)
{
	if (sym__dtype_numeric(inf, 0) < 0 || sym__dtype_not_i64(inf, 0) < 0)
		return -1;
	return sym__out_same(inf, 0);
}
