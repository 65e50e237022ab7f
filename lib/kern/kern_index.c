/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the index family: tril and triu (any dtype; the elements
 * outside the triangle set to zero, false for bool), which place each
 * element by its global row and column (the block's offsets along the
 * last two dims), and cumsum (sums in double, int64 for integers,
 * wrapping to the dtype's width as reduce_sum does).
 */
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

/* The kernels of tril and triu, called "op" ("upper" for triu): keep
 * element (i, j) of every matrix of the last two dims when j - i <= k
 * (tril) or j - i >= k (triu), i and j global; "a" is the call. */
int
sym__kern_tri(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int upper = a->op->id == SYM__OP_TRIU;
	const struct sym__opattrs *at;
	const struct sym__tensor *x;
	struct sym__tensor *y;
	int64_t rows, cols, mats, r0, c0, k;
	size_t es;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (x->rank < 2)
		return sym__kfail(a, op, "the input has rank %d, below 2",
		    x->rank);
	if (sym__ksame_kst(a, op, x, "the input", y, "the output") < 0 ||
	    sym__ksame_dims(a, op, x, "the input", y, "the output") < 0)
		return -1;
	es = sym__tensor_elem_size(x->dtype);
	rows = x->dim[x->rank - 2];
	cols = x->dim[x->rank - 1];
	mats = sym__kprod(x->dim, 0, x->rank - 2);
	r0 = sym__kin_offset(a, 0, x->rank - 2);
	c0 = sym__kin_offset(a, 0, x->rank - 1);
	k = at->index.diagonal;
	for (int64_t m = 0; m < mats; m++)
		for (int64_t i = 0; i < rows; i++) {
			int64_t row = (m * rows + i) * cols, gi = r0 + i;
			const char *src =
			    (const char *)x->data + row * (int64_t)es;
			char *dst = (char *)y->data + row * (int64_t)es;
			/* the columns kept: [lo, hi) locally */
			int64_t lo = upper ? gi + k - c0 : 0;
			int64_t hi = upper ? cols : gi + k - c0 + 1;

			lo = lo < 0 ? 0 : lo > cols ? cols : lo;
			hi = hi < lo ? lo : hi > cols ? cols : hi;
			memset(dst, 0, (size_t)lo * es);
			if (hi > lo && dst != src)
				memmove(dst + lo * (int64_t)es,
				    src + lo * (int64_t)es,
				    (size_t)(hi - lo) * es);
			memset(dst + hi * (int64_t)es, 0,
			    (size_t)(cols - hi) * es);
		}
	return 0;
}

/* Store the running sum as element "i" of "y" (storage "k"): "iacc"
 * wrapped to int32 for i32, else "acc". */
static void
put_sum(void *y, enum sym__kst k, int64_t i, double acc, int64_t iacc)
{
	if (k == SYM__KST_I32)
		((int32_t *)y)[i] = (int32_t)(uint32_t)iacc;
	else if (k == SYM__KST_F32)
		((float *)y)[i] = (float)acc;
	else
		((double *)y)[i] = acc;
}

/* The running sums of the "n" elements of "x" at stride "s" (storage
 * "k") into "y", from the end when "rev", each leaving its own element
 * out when "excl". */
static void
scan(const void *x, void *y, enum sym__kst k, int64_t n, int64_t s, int rev,
    int excl)
{
	double acc = 0.0;
	int64_t iacc = 0;

	for (int64_t t = 0; t < n; t++) {
		int64_t i = (rev ? n - 1 - t : t) * s;
		double v = sym__kld_kst(x, k, i);

		if (excl)
			put_sum(y, k, i, acc, iacc);
		if (k == SYM__KST_I32)
			iacc = (int64_t)((uint64_t)iacc +
			    (uint64_t)((const int32_t *)x)[i]);
		else
			acc += v;
		if (!excl)
			put_sum(y, k, i, acc, iacc);
	}
}

/* The kernel of cumsum: the running sum along the decoded axis (from the
 * end with reverse; without the element itself with exclusive); "a" is
 * the call. */
int
sym__kern_cumsum(struct sym__kernel_args *a)
{
	static const char op[] = "cumsum";
	const struct sym__opattrs *at;
	const struct sym__tensor *x;
	struct sym__tensor *y;
	int64_t outer, n, inner;
	enum sym__kst k;
	size_t es;
	int ax;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)))
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	k = sym__knumeric(a, op, x);
	if (k == SYM__KST_NONE || sym__kno_i64(a, op, x, "the input") < 0 ||
	    sym__ksame_kst(a, op, x, "the input", y, "the output") < 0 ||
	    sym__ksame_dims(a, op, x, "the input", y, "the output") < 0 ||
	    sym__kaxis(a, op, "axis", at->index.axis, x->rank) < 0)
		return -1;
	if (x->data == y->data && sym__tensor_numel(x) > 0)
		return sym__kfail(a, op, "the output may not alias the input");
	ax = (int)at->index.axis;
	outer = sym__kprod(x->dim, 0, ax);
	n = x->dim[ax];
	inner = sym__kprod(x->dim, ax + 1, x->rank);
	es = sym__tensor_elem_size(x->dtype);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			int64_t off = (o * n * inner + i) * (int64_t)es;

			scan((const char *)x->data + off, (char *)y->data + off,
			    k, n, inner, at->index.reverse,
			    at->index.exclusive);
		}
	sym__kwrap(y->data, y->dtype, sym__tensor_numel(y));
	return 0;
}
