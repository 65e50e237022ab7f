/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the reduce family: reduce_sum, reduce_mean, reduce_max,
 * reduce_min and reduce_prod over the attribute axis (an integer or a list, negative from the end;
 * absent or empty: every axis), keeping reduced dims as 1 when keep_dims.
 *
 * Sums accumulate in double (int64 for integers) and are rounded once.
 * reduce_mean divides by args->normalizer when it is positive (the
 * global count of the reduced elements, so that the partial means of the
 * ranks add up), otherwise by the local count; an integer mean truncates
 * toward zero, and integer sums wrap to the width of their dtype (i8,
 * i16, u8, i32); i64, held in int32, is refused by reduce_sum and
 * reduce_mean. reduce_sum of bool counts
 * the true elements into an i32 output. reduce_max propagates NaN;
 * over no element it gives -inf (INT32_MIN for integers, false for bool),
 * a sum 0 and a mean NaN (0 for integers). reduce_min is reduce_max's
 * mirror (+inf, INT32_MAX or true over no element); reduce_prod
 * multiplies in double (int64 for integers, wrapping) and gives 1 over
 * no element. argmax and argmin give the index along their axis of the
 * first greatest (least) element, a NaN counting as greatest and least
 * (PyTorch's rule), as i32 or i64 (both held in int32).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern_private.h"
#include "shape/shape_private.h"

enum reduce_kind {
	R_SUM,
	R_MEAN,
	R_MAX,
	R_MIN,
	R_PROD
};

/* The loops of a reduction: "n" merged dims of the input, whether each
 * is reduced, and the strides of the accumulator along them (0 along
 * reduced dims). */
struct rloop {
	int n;
	int64_t dim[SYM__MAX_RANK], sa[SYM__MAX_RANK];
	unsigned char red[SYM__MAX_RANK];
};

/* A row of a reduction: "n" elements of "x" folded into "acc", of stride
 * "sa" (1: elementwise into n accumulators; 0: all into acc[0]). */
typedef void (*rrow_fn)(const void *x, int64_t n, void *acc, int64_t sa);

/*
 * SUM_ROW(name, T, A): the row function name adding "n" values of type T
 * to accumulators of type A.
 */
#define SUM_ROW(name, T, A)                                               \
	static void name(const void *px, int64_t n, void *pa, int64_t sa) \
	{                                                                 \
		const T *restrict x = px;                                 \
		A *restrict acc = pa;                                     \
		A s = 0;                                                  \
                                                                          \
		if (sa) {                                                 \
			SYM__SIMD                                         \
			for (int64_t i = 0; i < n; i++)                   \
				acc[i] += x[i];                           \
			return;                                           \
		}                                                         \
		SYM__SIMD_SUM(s)                                          \
		for (int64_t i = 0; i < n; i++)                           \
			s += x[i];                                        \
		acc[0] += s;                                              \
	}

/*
 * EXT_ROW(name, T, BEATS): the row function name folding "n" values of
 * type T into running extrema of type T: v replaces the extremum u when
 * v BEATS u (> for maxima, < for minima) or v is NaN (NaN wins).
 */
#define EXT_ROW(name, T, BEATS)                                           \
	static void name(const void *px, int64_t n, void *pa, int64_t sa) \
	{                                                                 \
		const T *restrict x = px;                                 \
		T *restrict acc = pa;                                     \
		T m;                                                      \
                                                                          \
		if (sa) {                                                 \
			SYM__SIMD                                         \
			for (int64_t i = 0; i < n; i++) {                 \
				T u = acc[i], v = x[i];                   \
				acc[i] = v BEATS u || v != v ? v : u;     \
			}                                                 \
			return;                                           \
		}                                                         \
		m = acc[0];                                               \
		for (int64_t i = 0; i < n; i++) {                         \
			T v = x[i];                                       \
			m = v BEATS m || v != v ? v : m;                  \
		}                                                         \
		acc[0] = m;                                               \
	}

/*
 * PROD_ROW(name, T, A, M): the row function name multiplying "n" values
 * of type T into accumulators of type A, each product computed as M
 * (unsigned for integers, so that it wraps).
 */
#define PROD_ROW(name, T, A, M)                                           \
	static void name(const void *px, int64_t n, void *pa, int64_t sa) \
	{                                                                 \
		const T *restrict x = px;                                 \
		A *restrict acc = pa;                                     \
		A p;                                                      \
                                                                          \
		if (sa) {                                                 \
			for (int64_t i = 0; i < n; i++)                   \
				acc[i] = (A)((M)acc[i] * (M)x[i]);        \
			return;                                           \
		}                                                         \
		p = acc[0];                                               \
		for (int64_t i = 0; i < n; i++)                           \
			p = (A)((M)p * (M)x[i]);                          \
		acc[0] = p;                                               \
	}

SUM_ROW(sum_f32, float, double)
SUM_ROW(sum_f64, double, double)
SUM_ROW(sum_i32, int32_t, int64_t)
SUM_ROW(sum_u8, uint8_t, int64_t)
EXT_ROW(max_f32, float, >)
EXT_ROW(max_f64, double, >)
EXT_ROW(max_i32, int32_t, >)
EXT_ROW(max_u8, uint8_t, >)
EXT_ROW(min_f32, float, <)
EXT_ROW(min_f64, double, <)
EXT_ROW(min_i32, int32_t, <)
EXT_ROW(min_u8, uint8_t, <)
PROD_ROW(prod_f32, float, double, double)
PROD_ROW(prod_f64, double, double, double)
PROD_ROW(prod_i32, int32_t, int64_t, uint64_t)

/* Fill "l" with the loops over "x" whose dims marked in "mark" are
 * reduced: dims of size 1 dropped, neighbours reduced alike merged. */
static void
merge(const struct sym__tensor *x, const unsigned char *mark, struct rloop *l)
{
	int64_t s = 1;

	l->n = 0;
	for (int d = 0; d < x->rank; d++) {
		if (x->dim[d] == 1)
			continue;
		if (l->n > 0 && l->red[l->n - 1] == mark[d]) {
			l->dim[l->n - 1] *= x->dim[d];
			continue;
		}
		l->dim[l->n] = x->dim[d];
		l->red[l->n] = mark[d];
		l->n++;
	}
	for (int k = l->n - 1; k >= 0; k--) {
		l->sa[k] = l->red[k] ? 0 : s;
		s *= l->red[k] ? 1 : l->dim[k];
	}
}

/* Fold the contiguous "x" (elements of "ex" bytes) into "acc" (elements
 * of "ea" bytes) along the loops "l" with the row function "f". */
static void
walk(const struct rloop *l, const void *x, size_t ex, void *acc, size_t ea,
    rrow_fn f)
{
	int64_t idx[SYM__MAX_RANK] = { 0 }, inner, outer = 1, oa = 0;
	int last = l->n - 1;

	inner = l->n ? l->dim[last] : 1;
	for (int d = 0; d < last; d++)
		outer *= l->dim[d];
	for (int64_t i = 0; i < outer; i++) {
		int d;

		f((const char *)x + i * inner * (int64_t)ex, inner,
		    (char *)acc + oa * (int64_t)ea, l->n ? l->sa[last] : 0);
		for (d = last - 1; d >= 0; d--) {
			oa += l->sa[d];
			if (++idx[d] < l->dim[d])
				break;
			oa -= l->sa[d] * l->dim[d];
			idx[d] = 0;
		}
	}
}

/* Copy the decoded axes and keep_dims of the call "a" of "op" into
 * "mark" and "*keep", and check the output's dims; return 0 or -1. */
static int
read_axes(struct sym__kernel_args *a, const char *op, unsigned char *mark,
    int *keep)
{
	const struct sym__tensor *x = &a->in[0], *y = &a->out[0];
	const struct sym__opattrs *at = sym__kat(a, op);
	int r = 0;

	if (!at)
		return -1;
	if (!at->reduce.mark)
		return sym__kfail(a, op, "no decoded axes");
	*keep = at->reduce.keep_dims;
	for (int d = 0; d < x->rank; d++)
		mark[d] = at->reduce.mark[d];
	for (int d = 0; d < x->rank; d++) {
		if (mark[d] && (!*keep || (size_t)d < at->reduce.drop))
			continue;
		if (r >= y->rank || y->dim[r] != (mark[d] ? 1 : x->dim[d]))
			return sym__kfail(a, op,
			    "the output's dims are not the input's with the "
			    "reduced ones %s",
			    *keep ? "set to 1" : "removed");
		r++;
	}
	if (r != y->rank)
		return sym__kfail(a, op, "the output has rank %d, not %d",
		    y->rank, r);
	return 0;
}

/* Fill the "n" elements of "y" (storage "k") with the identity of max,
 * or of min when "is_min". */
static void
max_init(void *y, enum sym__kst k, int64_t n, int is_min)
{
	for (int64_t i = 0; i < n; i++)
		if (k == SYM__KST_F32)
			((float *)y)[i] = is_min ? INFINITY : -INFINITY;
		else if (k == SYM__KST_F64)
			((double *)y)[i] = is_min ? INFINITY : -INFINITY;
		else if (k == SYM__KST_I32)
			((int32_t *)y)[i] = is_min ? INT32_MAX : INT32_MIN;
		else
			((uint8_t *)y)[i] = is_min ? 1 : 0;
}

/* Fill the "n" accumulators at "acc" (double, or int64 for the integer
 * storage "k") with 1. */
static void
prod_init(void *acc, enum sym__kst k, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		if (k == SYM__KST_I32)
			((int64_t *)acc)[i] = 1;
		else
			((double *)acc)[i] = 1.0;
}

/* Store in "y" (storage "k", "n" elements) the sums "acc" (double, or
 * int64 for integers) divided by "div" (1 for a sum). */
static void
sum_store(void *y, enum sym__kst k, const void *acc, int64_t n, int64_t div)
{
	if (k == SYM__KST_I32) {
		const int64_t *restrict s = acc;
		int32_t *restrict d = y;

		for (int64_t i = 0; i < n; i++)
			d[i] = div ? (int32_t)(uint32_t)(s[i] / div) : 0;
	} else if (k == SYM__KST_F32) {
		const double *restrict s = acc;
		float *restrict d = y;
		double q = 1.0 / (double)div;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			d[i] = (float)(s[i] * q);
	} else {
		const double *restrict s = acc;
		double *restrict d = y, q = (double)div;

		SYM__SIMD
		for (int64_t i = 0; i < n; i++)
			d[i] = s[i] / q;
	}
}

/* Return the row function of reduction "kind" for storage "k", or NULL
 * when it does not support it. */
static rrow_fn
row_of(enum reduce_kind kind, enum sym__kst k)
{
	static const rrow_fn sums[] = { [SYM__KST_F32] = sum_f32,
		[SYM__KST_F64] = sum_f64,
		[SYM__KST_I32] = sum_i32,
		[SYM__KST_U8] = sum_u8 };
	static const rrow_fn maxs[] = { [SYM__KST_F32] = max_f32,
		[SYM__KST_F64] = max_f64,
		[SYM__KST_I32] = max_i32,
		[SYM__KST_U8] = max_u8 };
	static const rrow_fn mins[] = { [SYM__KST_F32] = min_f32,
		[SYM__KST_F64] = min_f64,
		[SYM__KST_I32] = min_i32,
		[SYM__KST_U8] = min_u8 };
	static const rrow_fn prods[] = { [SYM__KST_F32] = prod_f32,
		[SYM__KST_F64] = prod_f64,
		[SYM__KST_I32] = prod_i32,
		[SYM__KST_U8] = NULL };

	if (k == SYM__KST_NONE)
		return NULL;
	if (kind == R_MEAN && k == SYM__KST_U8)
		return NULL;
	if (kind == R_MIN)
		return mins[k];
	if (kind == R_PROD)
		return prods[k];
	return kind == R_MAX ? maxs[k] : sums[k];
}

/* Return the bytes of the accumulators of "ny" outputs (one double or
 * int64 each). */
static size_t
acc_bytes(int64_t ny)
{
	return (size_t)ny * 8;
}

/* Return the scratch bytes of the call "a" of reduce_sum, reduce_mean,
 * reduce_prod or sum_to (sym__kernel_scratch): the accumulators of its
 * outputs. */
size_t
sym__kscratch_reduce(const struct sym__kernel_args *a)
{
	size_t b;

	if (a->n_out != 1)
		return 0;
	b = acc_bytes(sym__tensor_numel(&a->out[0]));
	return b ? b : 1;
}

/* Run the reduction "kind" called "op" on the call "a"; return 0 or
 * -1. */
static int
reduce(struct sym__kernel_args *a, const char *op, enum reduce_kind kind)
{
	unsigned char mark[SYM__MAX_RANK] = { 0 };
	const struct sym__tensor *x;
	struct sym__tensor *y;
	enum sym__kst k;
	struct rloop l;
	int64_t ny, count;
	rrow_fn f;
	void *acc;
	int keep;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 ||
	    read_axes(a, op, mark, &keep) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	k = sym__kst(x->dtype);
	f = row_of(kind, k);
	if (kind == R_SUM && k == SYM__KST_U8) {
		if (y->dtype != SYM_DT_I32)
			return sym__kfail(a, op,
			    "the output of a sum of bool is i32, not %s",
			    sym_dtype_name(y->dtype));
		k = SYM__KST_I32;
	} else if (sym__ksame_kst(a, op, x, "the input", y, "the output") < 0) {
		return -1;
	}
	if (!f)
		return sym__kfail(a, op, "dtype %s is not supported",
		    sym_dtype_name(x->dtype));
	if ((kind == R_SUM || kind == R_PROD) &&
	    sym__kno_i64(a, op, x, "the input") < 0)
		return -1;
	ny = sym__tensor_numel(y);
	count = ny ? sym__tensor_numel(x) / ny : 0;
	merge(x, mark, &l);
	if (kind == R_MAX || kind == R_MIN) {
		max_init(y->data, k, ny, kind == R_MIN);
		if (count)
			walk(&l, x->data, sym__tensor_elem_size(x->dtype),
			    y->data, sym__tensor_elem_size(y->dtype), f);
		return 0;
	}
	acc = sym__kscratch_get(a, acc_bytes(ny));
	if (!acc)
		return sym__kfail(a, op, "out of memory");
	if (kind == R_PROD)
		prod_init(acc, k, ny);
	else
		memset(acc, 0, (size_t)ny * 8);
	if (count)
		walk(&l, x->data, sym__tensor_elem_size(x->dtype), acc, 8, f);
	if (kind == R_MEAN && a->normalizer > 0)
		count = a->normalizer;
	sum_store(y->data, k, acc, ny, kind == R_MEAN ? count : 1);
	sym__kwrap(y->data, y->dtype, ny);
	sym__kscratch_done(a, acc);
	return 0;
}

/* The reduction of each operator sym__kern_reduce serves. */
static const enum reduce_kind reduce_of[SYM__N_OPS] = {
	[SYM__OP_REDUCE_SUM] = R_SUM,
	[SYM__OP_REDUCE_MEAN] = R_MEAN,
	[SYM__OP_REDUCE_MAX] = R_MAX,
	[SYM__OP_REDUCE_MIN] = R_MIN,
	[SYM__OP_REDUCE_PROD] = R_PROD,
};

/* The kernel of reduce_sum, reduce_mean, reduce_max, reduce_min and
 * reduce_prod, by the table reduce_of; "a" is the call. */
int
sym__kern_reduce(struct sym__kernel_args *a)
{
	return reduce(a, a->op->name, reduce_of[a->op->id]);
}

/* The kernel of sum_to: a sum over the dimensions its shape rule
 * marked; "a" is the call. */
int
sym__kern_sum_to(struct sym__kernel_args *a)
{
	if (a->n_in >= 1 && a->in[0].dtype == SYM_DT_BOOL)
		return sym__kfail(a, "sum_to", "dtype bool is not supported");
	return reduce(a, "sum_to", R_SUM);
}

/* Return the index of the first greatest (least when "is_min") of the
 * "n" elements of "x" (storage "k") at stride "s", a NaN winning. */
static int64_t
arg_run(const void *x, enum sym__kst k, int64_t n, int64_t s, int is_min)
{
	int64_t best = 0;
	double m = sym__kld_kst(x, k, 0);

	for (int64_t i = 1; i < n && m == m; i++) {
		double v = sym__kld_kst(x, k, i * s);

		if (v != v || (is_min ? v < m : v > m)) {
			m = v;
			best = i;
		}
	}
	return best;
}

/* The kernels of argmax and argmin, called "op" ("is_min" for argmin):
 * along the decoded axis of a numeric input, indices into an i32 or i64
 * output; "a" is the call. */
int
sym__kern_arg(struct sym__kernel_args *a)
{
	const char *op = a->op->name;
	int is_min = a->op->id == SYM__OP_ARGMIN;
	unsigned char mark[SYM__MAX_RANK] = { 0 };
	const struct sym__opattrs *at;
	const struct sym__tensor *x;
	struct sym__tensor *y;
	int64_t outer, n, inner;
	enum sym__kst k;
	int keep, ax;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0 || !(at = sym__kat(a, op)) ||
	    read_axes(a, op, mark, &keep) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	k = sym__knumeric(a, op, x);
	if (k == SYM__KST_NONE)
		return -1;
	if (y->dtype != SYM_DT_I32 && y->dtype != SYM_DT_I64)
		return sym__kfail(a, op, "the indices are i32 or i64, not %s",
		    sym_dtype_name(y->dtype));
	if (sym__kaxis(a, op, "axis", at->reduce.axis, x->rank) < 0)
		return -1;
	ax = (int)at->reduce.axis;
	outer = sym__kprod(x->dim, 0, ax);
	n = x->dim[ax];
	inner = sym__kprod(x->dim, ax + 1, x->rank);
	if (n == 0 && outer * inner > 0)
		return sym__kfail(a, op, "the axis is empty");
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			const char *p = (const char *)x->data +
			    (o * n * inner + i) *
			        (int64_t)sym__tensor_elem_size(x->dtype);

			((int32_t *)y->data)[o * inner + i] =
			    (int32_t)arg_run(p, k, n, inner, is_min);
		}
	return 0;
}
