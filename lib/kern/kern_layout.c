/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the layout family: reshape, flatten, expand_dims and squeeze
 * (a copy of the data, or nothing when the executor aliases the output to
 * the input: they only check the shapes), transpose and permute (a
 * strided copy), and expand, tile and pad (strided copies of any dtype;
 * pad fills the rest with its value, converted to the dtype: truncated
 * toward zero and wrapped for integers, nonzero for bool).
 */
#include <math.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* The kernel of reshape: the data unchanged under the output's dims,
 * which must hold as many elements (the attribute shape is global and is
 * not read); "a" is the call. */
int
sym__kern_reshape(struct sym__kernel_args *a)
{
	static const char op[] = "reshape";

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	return sym__kcopy_or_alias(a, op);
}

/* The kernel of flatten: [N, d1, ..., dk] as [N, d1 * ... * dk]; "a" is
 * the call. */
int
sym__kern_flatten(struct sym__kernel_args *a)
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

/* Copy into "y" the view of "x" that the strides "ss" (in elements, one
 * per dim of "y") read: element (i0, i1, ...) of "y" from element
 * i0 ss[0] + i1 ss[1] + ... of "x". */
static void
copy_view(const struct sym__tensor *y, const struct sym__tensor *x,
    const int64_t *ss)
{
	int64_t sy[SYM__MAX_RANK];

	sym__kstrides(y, sy);
	sym__kcopy(y->data, sy, x->data, ss, sym__tensor_elem_size(x->dtype),
	    y->rank, y->dim);
}

/* The kernel of transpose and permute, called "op": output dim i is input
 * dim perm[i] (the decoded permutation); "a" is the call. */
int
sym__kern_transpose(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	const struct sym__opattrs *at;
	const struct sym__tensor *x, *y;
	int64_t sx[SYM__MAX_RANK], ss[SYM__MAX_RANK];
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
	for (int i = 0; i < x->rank; i++) {
		int p = (int)perm[i];

		if (y->dim[i] != x->dim[p])
			return sym__kfail(a, op,
			    "dim %d of the output is %lld, dim %d of the input "
			    "%lld",
			    i, (long long)y->dim[i], p, (long long)x->dim[p]);
		ss[i] = sx[p];
	}
	copy_view(y, x, ss);
	return 0;
}

/* The kernel of expand_dims: a dim 1 inserted at the required attribute
 * axis (in [-rank-1, rank]); "a" is the call. */
int
sym__kern_expand_dims(struct sym__kernel_args *a)
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
int
sym__kern_squeeze(struct sym__kernel_args *a)
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

/* The kernel of expand: output dim j (aligned from the right with the
 * input's) repeats a dim 1 of the input, or equals it; new leading dims
 * repeat the whole input; "a" is the call. */
int
sym__kern_expand(struct sym__kernel_args *a)
{
	static const char op[] = "expand";
	const struct sym__tensor *x, *y;
	int64_t sx[SYM__MAX_RANK], ss[SYM__MAX_RANK];
	int lead;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (sym__ksame_kst(a, op, x, "the input", y, "the output") < 0)
		return -1;
	if (y->rank < x->rank)
		return sym__kfail(a, op, "the output has rank %d, below %d",
		    y->rank, x->rank);
	lead = y->rank - x->rank;
	sym__kstrides(x, sx);
	for (int j = 0; j < y->rank; j++) {
		int i = j - lead;

		ss[j] = 0;
		if (i < 0 || (x->dim[i] == 1 && y->dim[j] != 1))
			continue;
		if (x->dim[i] != y->dim[j])
			return sym__kfail(a, op,
			    "dim %d of the output is %lld, dim %d of the input "
			    "%lld (not 1)",
			    j, (long long)y->dim[j], i, (long long)x->dim[i]);
		ss[j] = sx[i];
	}
	copy_view(y, x, ss);
	return 0;
}

/* Check that the call "a" of "op" has its decoded per-dim attribute
 * "list" and an output of the input's rank and storage; return 0 or
 * -1. */
static int
same_rank(struct sym__kernel_args *a, const char *op, const int64_t *list)
{
	const struct sym__tensor *x = &a->in[0], *y = &a->out[0];

	if (!list || y->rank != x->rank)
		return sym__kfail(a, op, "the output must have rank %d",
		    x->rank);
	return sym__ksame_kst(a, op, x, "the input", y, "the output");
}

/* The kernel of tile: the input copied repeats[d] times along each dim
 * d (the decoded counts); "a" is the call. */
int
sym__kern_tile(struct sym__kernel_args *a)
{
	static const char op[] = "tile";
	const struct sym__opattrs *at;
	const struct sym__tensor *x, *y;
	int64_t sx[SYM__MAX_RANK], sy[SYM__MAX_RANK], t[SYM__MAX_RANK] = { 0 };
	const int64_t *rep;
	size_t es;
	int d;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	rep = at->layout.repeats;
	if (same_rank(a, op, rep) < 0)
		return -1;
	for (d = 0; d < x->rank; d++) {
		int64_t want;

		if (__builtin_mul_overflow(x->dim[d], rep[d], &want) ||
		    y->dim[d] != want)
			return sym__kfail(a, op,
			    "dim %d of the output is %lld, not %lld times %lld",
			    d, (long long)y->dim[d], (long long)rep[d],
			    (long long)x->dim[d]);
	}
	if (sym__tensor_numel(y) == 0)
		return 0;
	es = sym__tensor_elem_size(x->dtype);
	sym__kstrides(x, sx);
	sym__kstrides(y, sy);
	do {
		int64_t off = 0;

		for (d = 0; d < x->rank; d++)
			off += t[d] * x->dim[d] * sy[d];
		sym__kcopy((char *)y->data + off * (int64_t)es, sy, x->data, sx,
		    es, x->rank, x->dim);
		for (d = x->rank - 1; d >= 0; d--) {
			if (++t[d] < rep[d])
				break;
			t[d] = 0;
		}
	} while (d >= 0);
	return 0;
}

/* Fill the "n" elements of "y" with "v" converted to its dtype. */
static void
fill_value(struct sym__tensor *y, int64_t n, double v)
{
	enum sym__kst k = sym__kst(y->dtype);
	double c = isnan(v) ? 0.0 : v;
	int32_t iv;

	c = c > 2147483647.0    ? 2147483647.0
	    : c < -2147483648.0 ? -2147483648.0
	                        : c;
	iv = (int32_t)c;
	for (int64_t i = 0; i < n; i++)
		if (k == SYM__KST_F32)
			((float *)y->data)[i] = (float)v;
		else if (k == SYM__KST_F64)
			((double *)y->data)[i] = v;
		else if (k == SYM__KST_U8)
			((uint8_t *)y->data)[i] = v != 0.0;
		else
			((int32_t *)y->data)[i] = iv;
	sym__kwrap(y->data, y->dtype, n);
}

/* The kernel of pad: each dim d grows by pads[2d] before and pads[2d+1]
 * after (negative: cropped), the new elements set to the value; "a" is
 * the call. */
int
sym__kern_pad(struct sym__kernel_args *a)
{
	static const char op[] = "pad";
	const struct sym__opattrs *at;
	const struct sym__tensor *x;
	struct sym__tensor *y;
	int64_t sx[SYM__MAX_RANK], sy[SYM__MAX_RANK], n[SYM__MAX_RANK];
	int64_t ox = 0, oy = 0;
	const int64_t *p;
	size_t es;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	p = at->layout.pads;
	if (same_rank(a, op, p) < 0)
		return -1;
	sym__kstrides(x, sx);
	sym__kstrides(y, sy);
	for (int d = 0; d < x->rank; d++) {
		int64_t b = p[2 * d], e = p[2 * d + 1];
		int64_t cb = b < 0 ? -b : 0, ce = e < 0 ? -e : 0;

		if (y->dim[d] != x->dim[d] + b + e || cb + ce > x->dim[d])
			return sym__kfail(a, op,
			    "dim %d of the output is %lld, not %lld padded by "
			    "%lld and %lld",
			    d, (long long)y->dim[d], (long long)x->dim[d],
			    (long long)b, (long long)e);
		n[d] = x->dim[d] - cb - ce;
		ox += cb * sx[d];
		oy += (b > 0 ? b : 0) * sy[d];
	}
	es = sym__tensor_elem_size(x->dtype);
	fill_value(y, sym__tensor_numel(y), at->layout.value);
	sym__kcopy((char *)y->data + oy * (int64_t)es, sy,
	    (const char *)x->data + ox * (int64_t)es, sx, es, x->rank, n);
	return 0;
}
