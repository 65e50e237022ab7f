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
 * dim perm[i] (the required attribute perm, negative axes from the end);
 * "a" is the call. */
static int
transpose(struct sym__kernel_args *a, const char *op)
{
	const struct sym__tensor *x, *y;
	int64_t perm[SYM__MAX_RANK], sx[SYM__MAX_RANK], ss[SYM__MAX_RANK];
	int64_t sy[SYM__MAX_RANK];
	unsigned char seen[SYM__MAX_RANK] = { 0 };
	size_t n;
	int r;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	r = sym__kattr_ints(a, op, "perm", perm, SYM__MAX_RANK, &n);
	if (r < 0)
		return -1;
	if (r == 1 || n != (size_t)x->rank || y->rank != x->rank)
		return sym__kfail(a, op,
		    "perm must list the %d axes of the input, which the output "
		    "(rank %d) must have",
		    x->rank, y->rank);
	if (sym__ksame_kst(a, op, x, "the input", y, "the output") < 0 ||
	    sym__kaxes(a, op, "perm", perm, n, x->rank, seen) < 0)
		return -1;
	if (x->data == y->data && sym__tensor_numel(x) > 0)
		return sym__kfail(a, op, "the output may not alias the input");
	sym__kstrides(x, sx);
	sym__kstrides(y, sy);
	for (int i = 0; i < x->rank; i++) {
		int p = (int)(perm[i] < 0 ? perm[i] + x->rank : perm[i]);

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
	const struct sym__tensor *x, *y;
	int64_t axis;
	int ax;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (sym__kattr_int(a, op, "axis", INT64_MIN, &axis) < 0)
		return -1;
	if (axis == INT64_MIN)
		return sym__kfail(a, op, "the attribute axis is required");
	if (sym__kaxis(a, op, "axis", axis, x->rank + 1, &ax) < 0)
		return -1;
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
 * of input "x" with some dims 1 removed: the axes marked in "mark", or
 * when "mark" is NULL any dims 1 (the global dims that were the constant
 * 1 are not known here); return 0 or -1. */
static int
squeezed(struct sym__kernel_args *a, const struct sym__tensor *x,
    const struct sym__tensor *y, const unsigned char *mark)
{
	int j = 0;

	for (int i = 0; i < x->rank; i++) {
		if (mark && mark[i] && x->dim[i] != 1)
			return sym__kfail(a, "squeeze",
			    "dim %d of the input is %lld, not 1", i,
			    (long long)x->dim[i]);
		if (mark && mark[i])
			continue;
		if (j < y->rank && y->dim[j] == x->dim[i]) {
			j++;
			continue;
		}
		if (mark || x->dim[i] != 1)
			return sym__kfail(a, "squeeze",
			    "the output dims are not the input's with dims 1 "
			    "removed");
	}
	if (j != y->rank)
		return sym__kfail(a, "squeeze",
		    "the output has rank %d, %d expected", y->rank, j);
	return 0;
}

/* The kernel of squeeze: the dims 1 named by the attribute axis (an
 * integer or a list), or when absent the input's dims 1 the output drops,
 * removed; "a" is the call. */
static int
k_squeeze(struct sym__kernel_args *a)
{
	static const char op[] = "squeeze";
	int64_t axes[SYM__MAX_RANK];
	unsigned char mark[SYM__MAX_RANK] = { 0 };
	size_t n;
	int r;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	r = sym__kattr_ints(a, op, "axis", axes, SYM__MAX_RANK, &n);
	if (r < 0 ||
	    (n > 0 &&
	        sym__kaxes(a, op, "axis", axes, n, a->in[0].rank, mark) < 0) ||
	    squeezed(a, &a->in[0], &a->out[0], n > 0 ? mark : NULL) < 0)
		return -1;
	return sym__kcopy_or_alias(a, op);
}

const struct sym__kernel_entry sym__kernels_layout[] = {
	{ "reshape", k_reshape },
	{ "flatten", k_flatten },
	{ "transpose", k_transpose },
	{ "permute", k_permute },
	{ "expand_dims", k_expand_dims },
	{ "squeeze", k_squeeze },
	{ NULL, NULL },
};
