/* SPDX-License-Identifier: MIT */
/*
 * The matmul family: matmul (2-D) and batch_matmul (batch dimensions
 * broadcast NumPy style), both with transpose_a / transpose_b.
 */
#include "shape/shape_private.h"

static const char *const matmul_attrs[] = { "transpose_a", "transpose_b",
	NULL };

/* The decoder of matmul and batch_matmul: the transposition flags of
 * "inf"; return 0 or -1. */
int
sym__decode_matmul(struct sym__infer *inf)
{
	if (sym__check_attrs(inf, matmul_attrs) < 0 ||
	    sym__attr_bool(inf, "transpose_a", 0, &inf->at.matmul.transpose_a) <
	        0 ||
	    sym__attr_bool(inf, "transpose_b", 0, &inf->at.matmul.transpose_b) <
	        0)
		return -1;
	return 0;
}

/* Store in "out" the [M, N] of the product of the last two dimensions of
 * inputs 0 and 1 of "inf" (transposed when "ta" / "tb"), after requiring
 * the contracted dimensions to be equal; return 0 or -1. */
static int
product_dims(struct sym__infer *inf, int ta, int tb, sym_expr **out)
{
	size_t ra = inf->in[0]->rank, rb = inf->in[1]->rank;
	size_t ka = ra - (ta ? 2 : 1), kb = rb - (tb ? 1 : 2);
	size_t ma = ra - (ta ? 1 : 2), nb = rb - (tb ? 2 : 1);

	if (sym__dtype_numeric(inf, 0) < 0 || sym__dtype_not_i64(inf, 0) < 0 ||
	    sym__same_dtype(inf, 0, 1) < 0 ||
	    sym__require_dims_equal(inf, 0, ka, 1, kb) < 0)
		return -1;
	out[0] = inf->in[0]->dim[ma];
	out[1] = inf->in[1]->dim[nb];
	return 0;
}

/* The rule of matmul: [M, K] x [K, N] -> [M, N]; "inf" is the run. */
int
sym__rule_matmul(struct sym__infer *inf)
{
	int ta = inf->at.matmul.transpose_a, tb = inf->at.matmul.transpose_b;
	sym_expr *dims[2];

	if (sym__rank_is(inf, 0, 2) < 0 || sym__rank_is(inf, 1, 2) < 0 ||
	    product_dims(inf, ta, tb, dims) < 0)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, 2, dims);
}

/* The rule of batch_matmul: [..., M, K] x [..., K, N] -> [..., M, N] with
 * the batch dimensions broadcast (a missing one or a constant 1 takes the
 * other side's size); "inf" is the run. */
int
sym__rule_batch_matmul(struct sym__infer *inf)
{
	size_t ra = inf->in[0]->rank, rb = inf->in[1]->rank;
	size_t nbatch = (ra > rb ? ra : rb) - 2;
	int ta = inf->at.matmul.transpose_a, tb = inf->at.matmul.transpose_b;
	sym_expr **dims;

	if (sym__rank_at_least(inf, 0, 2) < 0 ||
	    sym__rank_at_least(inf, 1, 2) < 0)
		return -1;
	dims = sym__scratch(inf, nbatch + 2, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	if (sym__broadcast(inf, 0, ra - 2, 1, rb - 2, dims) < 0 ||
	    product_dims(inf, ta, tb, dims + nbatch) < 0)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, nbatch + 2, dims);
}
