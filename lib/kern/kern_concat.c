/* SPDX-License-Identifier: MIT */
/*
 * Kernels of the concat family: concat, split (parts of any sizes that
 * add up, equal ones under the shape rule) and slice (static bounds),
 * each a strided copy, and slice_grad, slice's gradient (zeros with the
 * slice copied in).
 */
#include <string.h>

#include "kern/kern_private.h"

/* Check the "n" tensors "part", each the "role" ("input" or "output") of
 * the call "a" of "op" with its index, against "whole" (the "other"):
 * the storage, the rank and the dims of "whole" except along "ax", along
 * which their sizes add up to its size; return 0 or -1. */
static int
check_parts(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *part, int n, const char *role,
    const struct sym__tensor *whole, const char *other, int ax)
{
	int64_t sum = 0;

	for (int i = 0; i < n; i++) {
		const struct sym__tensor *t = &part[i];

		if (sym__kst(t->dtype) != sym__kst(whole->dtype))
			return sym__kfail(a, op,
			    "%s %d is %s, not %s like the others", role, i,
			    sym_dtype_name(t->dtype),
			    sym_dtype_name(whole->dtype));
		if (t->rank != whole->rank)
			return sym__kfail(a, op, "%s %d has rank %d, not %d",
			    role, i, t->rank, whole->rank);
		for (int d = 0; d < t->rank; d++)
			if (d != ax && t->dim[d] != whole->dim[d])
				return sym__kfail(a, op,
				    "dim %d of %s %d is %lld, not %lld", d,
				    role, i, (long long)t->dim[d],
				    (long long)whole->dim[d]);
		sum += t->dim[ax];
	}
	if (sum != whole->dim[ax])
		return sym__kfail(a, op,
		    "the %ss add up to %lld along axis %d, the %s has %lld",
		    role, (long long)sum, ax, other, (long long)whole->dim[ax]);
	return 0;
}

/* Store in "*ax" the decoded axis of the call "a" of "op", checked
 * against "rank"; return 0 or -1. */
static int
read_axis(struct sym__kernel_args *a, const char *op, int rank, int *ax)
{
	const struct sym__opattrs *at = sym__kat(a, op);

	if (!at || sym__kaxis(a, op, "axis", at->concat.axis, rank) < 0)
		return -1;
	*ax = (int)at->concat.axis;
	return 0;
}

/* The kernel of concat: the inputs joined along the attribute axis
 * (default 0); "a" is the call. */
int
sym__kern_concat(struct sym__kernel_args *a)
{
	static const char op[] = "concat";
	const struct sym__tensor *y;
	int64_t sy[SYM__MAX_RANK], sx[SYM__MAX_RANK], at = 0;
	size_t es;
	int ax;

	if (sym__kio(a, op, 1, 1 << 20, 1, 1) < 0)
		return -1;
	y = &a->out[0];
	if (read_axis(a, op, y->rank, &ax) < 0)
		return -1;
	if (check_parts(a, op, a->in, a->n_in, "input", y, "output", ax) < 0)
		return -1;
	es = sym__tensor_elem_size(y->dtype);
	sym__kstrides(y, sy);
	for (int i = 0; i < a->n_in; i++) {
		const struct sym__tensor *x = &a->in[i];

		sym__kstrides(x, sx);
		sym__kcopy((char *)y->data + at * sy[ax] * (int64_t)es, sy,
		    x->data, sx, es, x->rank, x->dim);
		at += x->dim[ax];
	}
	return 0;
}

/* The kernel of split: the input cut along the attribute axis (default
 * 0) into the outputs, in order (output_num, when given, must be their
 * number); "a" is the call. */
int
sym__kern_split(struct sym__kernel_args *a)
{
	static const char op[] = "split";
	const struct sym__tensor *x;
	int64_t sy[SYM__MAX_RANK], sx[SYM__MAX_RANK], at = 0, num;
	size_t es;
	int ax;

	if (sym__kio(a, op, 1, 1, 1, 1 << 20) < 0)
		return -1;
	x = &a->in[0];
	if (read_axis(a, op, x->rank, &ax) < 0)
		return -1;
	num = a->at->concat.parts;
	if (num != a->n_out)
		return sym__kfail(a, op, "output_num=%lld but %d outputs given",
		    (long long)num, a->n_out);
	if (check_parts(a, op, a->out, a->n_out, "output", x, "input", ax) < 0)
		return -1;
	es = sym__tensor_elem_size(x->dtype);
	sym__kstrides(x, sx);
	for (int i = 0; i < a->n_out; i++) {
		struct sym__tensor *y = &a->out[i];

		sym__kstrides(y, sy);
		sym__kcopy(y->data, sy,
		    (const char *)x->data + at * sx[ax] * (int64_t)es, sx, es,
		    y->rank, y->dim);
		at += y->dim[ax];
	}
	return 0;
}

/* Set "*start" to the index where the slice begins in dim "d" of the
 * whole tensor "w" of the call "a" (input "wi", or the output when "wi" is
 * -1) of "n" local elements, the slice having "m": from the attribute
 * begin[d] "b" with size[d] "s" and step[d] "st" (negative: "b" counts
 * from the last element, walking backwards) on an unsplit dim, 0 on a
 * split one (the sharding rule leaves split only the dims the slice
 * keeps whole); check that the slice's extent fits; "op" names the
 * kernel. Return 0 or -1. */
static int
slice_dim(struct sym__kernel_args *a, const char *op, int wi, int d, int64_t n,
    int64_t m, int64_t b, int64_t s, int64_t st, int64_t *start)
{
	int64_t global = wi >= 0 ? sym__kin_global(a, wi, d) : n;
	int64_t k = st < 0 ? -st : st, fit;

	if (global != n) {
		if (m != n || st != 1)
			return sym__kfail(a, op,
			    "dim %d is split: the slice must keep its %lld "
			    "elements, not %lld, with a step of 1",
			    d, (long long)n, (long long)m);
		*start = 0;
		return 0;
	}
	fit = b < 0 || b > n || st == 0 || k > INT32_MAX ? -1
	                                                 : (n - b + k - 1) / k;
	if (fit < 0 || m > fit || (s == -1 ? m != fit : s != m))
		return sym__kfail(a, op,
		    "dim %d: begin %lld size %lld step %lld of a dim of %lld "
		    "do not give the slice's %lld",
		    d, (long long)b, (long long)s, (long long)st, (long long)n,
		    (long long)m);
	*start = st < 0 ? n - 1 - b : b;
	return 0;
}

/* The bounds of the slice of kernel "op" of the call "a" between the
 * whole tensor "w" and the slice "p" (one rank), or NULL after an
 * error. */
static const struct sym__opattrs *
slice_attrs(struct sym__kernel_args *a, const char *op,
    const struct sym__tensor *w, const struct sym__tensor *p)
{
	const struct sym__opattrs *at = sym__kat(a, op);

	if (!at)
		return NULL;
	if (!at->concat.begin || !at->concat.size || w->rank != p->rank) {
		sym__kfail(a, op,
		    "begin and size must have one item per dim (%d), and the "
		    "slice that rank",
		    w->rank);
		return NULL;
	}
	return at;
}

/* Store in "*off" the offset, in the whole tensor "w" of the call "a"
 * of "op" ("wi" as for slice_dim), of the first element of the slice "p"
 * that the attributes "at" take, and in "sw" the strides of "w" (in
 * elements) that walk the slice's box, each dim's checked by slice_dim;
 * return 0 or -1. */
static int
slice_box(struct sym__kernel_args *a, const char *op,
    const struct sym__opattrs *at, int wi, const struct sym__tensor *w,
    const struct sym__tensor *p, int64_t *sw, int64_t *off)
{
	int64_t start = 0;

	*off = 0;
	sym__kstrides(w, sw);
	for (int d = 0; d < w->rank; d++) {
		int64_t st = at->concat.step ? at->concat.step[d] : 1;

		if (slice_dim(a, op, wi, d, w->dim[d], p->dim[d],
		        at->concat.begin[d], at->concat.size[d], st,
		        &start) < 0)
			return -1;
		*off += start * sw[d];
		sw[d] *= st;
	}
	return 0;
}

/* The kernel of slice: the box of the attributes begin, size and step
 * (one integer per dim; size -1: to the end; step absent: 1s) taken with
 * strides; "a" is the call. */
int
sym__kern_slice(struct sym__kernel_args *a)
{
	static const char op[] = "slice";
	const struct sym__tensor *x, *y;
	const struct sym__opattrs *at;
	int64_t sx[SYM__MAX_RANK], sy[SYM__MAX_RANK], off;

	if (sym__kio(a, op, 1, 1, 1, 1) < 0)
		return -1;
	x = &a->in[0];
	y = &a->out[0];
	if (!(at = slice_attrs(a, op, x, y)) ||
	    sym__ksame_kst(a, op, x, "the input", y, "the output") < 0)
		return -1;
	sym__kstrides(y, sy);
	if (slice_box(a, op, at, 0, x, y, sx, &off) < 0)
		return -1;
	if (sym__tensor_numel(y) == 0)
		return 0;
	sym__kcopy(y->data, sy,
	    (const char *)x->data +
	        off * (int64_t)sym__tensor_elem_size(x->dtype),
	    sx, sym__tensor_elem_size(x->dtype), y->rank, y->dim);
	return 0;
}

/* The kernel of slice_grad(dy, x): zeros of x's shape with dy written
 * into the box of the attributes begin, size and step; "a" is the
 * call. */
int
sym__kern_slice_grad(struct sym__kernel_args *a)
{
	static const char op[] = "slice_grad";
	const struct sym__tensor *dy, *y;
	const struct sym__opattrs *at;
	int64_t sd[SYM__MAX_RANK], sy[SYM__MAX_RANK], off;
	size_t es;

	if (sym__kio(a, op, 2, 2, 1, 1) < 0)
		return -1;
	dy = &a->in[0];
	y = &a->out[0];
	if (!(at = slice_attrs(a, op, y, dy)) ||
	    sym__kfloat(a, op, dy, "dy") < 0 ||
	    sym__ksame_kst(a, op, dy, "dy", y, "the gradient") < 0)
		return -1;
	for (int d = 0; d < y->rank; d++)
		if (a->in[1].rank != y->rank || a->in[1].dim[d] != y->dim[d])
			return sym__kfail(a, op,
			    "the gradient must have the block shape of x");
	es = sym__tensor_elem_size(y->dtype);
	sym__kstrides(dy, sd);
	if (slice_box(a, op, at, 1, y, dy, sy, &off) < 0)
		return -1;
	memset(y->data, 0, (size_t)sym__tensor_numel(y) * es);
	if (sym__tensor_numel(dy) == 0)
		return 0;
	sym__kcopy((char *)y->data + off * (int64_t)es, sy, dy->data, sd, es,
	    dy->rank, dy->dim);
	return 0;
}
