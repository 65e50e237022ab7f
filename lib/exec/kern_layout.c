/*
 * Kernels of the layout family: reshape, flatten, expand_dims and squeeze
 * (a copy of the data, or nothing when the executor aliases the output to
 * the input: they only check the shapes), transpose and permute (a
 * strided copy).
 */
#include "exec/kern_private.h"

/* The kernel of reshape: the data unchanged under the output's dims,
 * which must hold as many elements (the attribute shape is global and is
 * not read); "a" is the call. */
static int
k_reshape(struct sym__kernel_args *a)
{
	static const char op[] = "reshape";

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	return sym__kcopy_or_alias(a, op);
}

/* The kernel of flatten: [N, d1, ..., dk] as [N, d1 * ... * dk]; "a" is
 * the call. */
static int
k_flatten(struct sym__kernel_args *a)
{
	static const char op[] = "flatten";
	const struct sym__tensor *x, *y;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (x->rank < 1 || y->rank != 2 || y->dim[0] != x->dim[0] ||
	    y->dim[1] != sym__kprod(x->dim, 1, x->rank))
		return sym__kfail(a, op,
		    "the output must be [dim 0, product of the other dims] of "
		    "an input of rank at least 1");
	return sym__kcopy_or_alias(a, op);
}

/* The kernel of transpose and permute, called "op": output dim i is input
 * dim perm[i] (the decoded permutation); "a" is the call. */
static int
transpose(struct sym__kernel_args *a, const char *op)
{
	const struct sym__opattrs *at;
	const struct sym__tensor *x, *y;
	int64_t sx[SYM__MAX_RANK], ss[SYM__MAX_RANK], sy[SYM__MAX_RANK];
	const int64_t *perm;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	perm = at->layout.perm;
	if (!perm || y->rank != x->rank)
		return sym__kfail(a, op,
		    "perm must list the %d axes of the input, which the output "
		    "(rank %d) must have",
		    x->rank, y->rank);
	if (sym__ksame_kst(a, op, x, "the input", y, "the output") < 0)
		return -1;
	if (x->data == y->data && sym__tensor_numel(x) > 0)
		return sym__kfail(a, op, "the output may not alias the input");
	sym__kstrides(x, sx);
	sym__kstrides(y, sy);
	for (int i = 0; i < x->rank; i++) {
		int p = (int)perm[i];

		if (y->dim[i] != x->dim[p])
			return sym__kfail(a, op,
			    "dim %d of the output is %lld, dim %d of the input "
			    "%lld",
			    i, (long long)y->dim[i], p, (long long)x->dim[p]);
		ss[i] = sx[p];
	}
	sym__kcopy(y->data, sy, x->data, ss, sym__tensor_elem_size(x->dtype),
	    x->rank, y->dim);
	return 0;
}

/* The kernel of transpose; "a" is the call. */
static int
k_transpose(struct sym__kernel_args *a)
{
	return transpose(a, "transpose");
}

/* The kernel of permute; "a" is the call. */
static int
k_permute(struct sym__kernel_args *a)
{
	return transpose(a, "permute");
}

/* The kernel of expand_dims: a dim 1 inserted at the required attribute
 * axis (in [-rank-1, rank]); "a" is the call. */
static int
k_expand_dims(struct sym__kernel_args *a)
{
	static const char op[] = "expand_dims";
	const struct sym__opattrs *at;
	const struct sym__tensor *x, *y;
	int ax;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (sym__kaxis(a, op, "axis", at->layout.axis, x->rank + 1) < 0)
		return -1;
	ax = (int)at->layout.axis;
	if (y->rank != x->rank + 1 || y->dim[ax] != 1)
		return sym__kfail(a, op,
		    "the output must have rank %d and a dim 1 at %d",
		    x->rank + 1, ax);
	for (int i = 0, j = 0; i < y->rank; i++)
		if (i != ax && y->dim[i] != x->dim[j++])
			return sym__kfail(a, op,
			    "dim %d of the output is %lld, not %lld", i,
			    (long long)y->dim[i], (long long)x->dim[j - 1]);
	return sym__kcopy_or_alias(a, op);
}

/* Check that the dims of output "y" of the call "a" of squeeze are those
 * of input "x" with the dims 1 marked in "mark" removed; return 0 or
 * -1. */
static int
squeezed(struct sym__kernel_args *a, const struct sym__tensor *x,
    const struct sym__tensor *y, const unsigned char *mark)
{
	int j = 0;

	for (int i = 0; i < x->rank; i++) {
		if (mark[i] && x->dim[i] != 1)
			return sym__kfail(a, "squeeze",
			    "dim %d of the input is %lld, not 1", i,
			    (long long)x->dim[i]);
		if (mark[i])
			continue;
		if (j < y->rank && y->dim[j] == x->dim[i]) {
			j++;
			continue;
		}
		return sym__kfail(a, "squeeze",
		    "the output dims are not the input's with dims 1 removed");
	}
	if (j != y->rank)
		return sym__kfail(a, "squeeze",
		    "the output has rank %d, %d expected", y->rank, j);
	return 0;
}

/* The kernel of squeeze: the dims 1 its shape rule marked removed; "a"
 * is the call. */
static int
k_squeeze(struct sym__kernel_args *a)
{
	static const char op[] = "squeeze";
	const struct sym__opattrs *at;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	if (!at->layout.mark)
		return sym__kfail(a, op, "no decoded axes");
	if (squeezed(a, &a->in[0], &a->out[0], at->layout.mark) < 0)
		return -1;
	return sym__kcopy_or_alias(a, op);
}

const sym__kernel_fn sym__kernels_layout[SYM__N_OPS] = {
	[SYM__OP_RESHAPE] = k_reshape,
	[SYM__OP_FLATTEN] = k_flatten,
	[SYM__OP_TRANSPOSE] = k_transpose,
	[SYM__OP_PERMUTE] = k_permute,
	[SYM__OP_EXPAND_DIMS] = k_expand_dims,
	[SYM__OP_SQUEEZE] = k_squeeze,
};
