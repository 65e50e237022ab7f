/* SPDX-License-Identifier: MIT */
/*
 * The concat family: concat, split and slice (static bounds, steps).
 */
#include <stdint.h>

#include "shape/shape_private.h"

/* Split never produces more outputs than this when the caller names
 * none. */
#define MAX_SPLIT 65536

/* The decoder of concat: the attribute axis (default 0) of "inf"; return
 * 0 or -1. */
int
sym__decode_concat(struct sym__infer *inf)
{
	static const char *const known[] = { "axis", NULL };

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_axis(inf, 0, 0, inf->in[0]->rank, 0,
	        &inf->at.concat.axis) < 0)
		return -1;
	return 0;
}

/* The rule of concat: inputs of one rank and dtype joined along the
 * decoded axis; the other dimensions must be equal and the joined one is
 * the sum. "inf" is the run. */
int
sym__rule_concat(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	size_t ax = inf->at.concat.axis;
	sym_expr **dims;

	dims = sym__scratch(inf, x->rank, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t d = 0; d < x->rank; d++)
		dims[d] = x->dim[d];
	for (size_t i = 1; i < inf->n_in; i++) {
		if (sym__rank_is(inf, i, x->rank) < 0 ||
		    sym__same_dtype(inf, 0, i) < 0)
			return -1;
		for (size_t d = 0; d < x->rank; d++)
			if (d != ax &&
			    sym__require_dims_equal(inf, 0, d, i, d) < 0)
				return -1;
		dims[ax] =
		    sym__tmp(inf, sym__add(dims[ax], inf->in[i]->dim[ax]));
		if (!dims[ax])
			return sym__infer_nomem(inf);
	}
	return sym__out_shape(inf, x->dtype, x->rank, dims);
}

/* The decoder of split: output_num equal parts (default: as many as the
 * outputs named) along the attribute axis (default 0); "inf" is the
 * run. */
int
sym__decode_split(struct sym__infer *inf)
{
	static const char *const known[] = { "axis", "output_num", NULL };
	int64_t axis, k,
	    def = inf->n_out_wanted ? (int64_t)inf->n_out_wanted : 1;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_int(inf, "axis", 0, 0, &axis) < 0 ||
	    sym__attr_int(inf, "output_num", 0, def, &k) < 0 ||
	    sym__axis(inf, "axis", axis, inf->in[0]->rank, 0,
	        &inf->at.concat.axis) < 0)
		return -1;
	if (k < 1 || (!inf->n_out_wanted && k > MAX_SPLIT))
		return sym__infer_fail_attr(inf, "output_num",
		    "output_num=%lld of split must be between 1 and %d",
		    (long long)k, MAX_SPLIT);
	if (inf->n_out_wanted && (uint64_t)k != inf->n_out_wanted)
		return sym__infer_fail_attr(inf, "output_num",
		    "split with output_num=%lld produces %lld outputs, but %zu "
		    "%s named",
		    (long long)k, (long long)k, inf->n_out_wanted,
		    inf->n_out_wanted == 1 ? "is" : "are");
	inf->at.concat.parts = k;
	return 0;
}

/* The rule of split: the decoded number of equal parts along the decoded
 * axis, which it must divide; "inf" is the run. */
int
sym__rule_split(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	size_t ax = inf->at.concat.axis;
	int64_t k = inf->at.concat.parts;
	sym_expr **dims;

	if (sym__require_divisible(inf, x->dim[ax], k,
	        "dimension %zu of %s (%s) must be divisible by "
	        "output_num=%lld to split it evenly",
	        ax, sym__in_name(inf, 0), sym__txt_expr(inf, x->dim[ax]),
	        (long long)k) < 0)
		return -1;
	dims = sym__scratch(inf, x->rank, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t d = 0; d < x->rank; d++)
		dims[d] = x->dim[d];
	dims[ax] = sym__tmp(inf,
	    sym__fdiv(x->dim[ax], sym__tmp(inf, sym__const(inf->ctx, k))));
	for (int64_t i = 0; i < k; i++)
		if (sym__out_shape(inf, x->dtype, x->rank, dims) < 0)
			return -1;
	return 0;
}

/* Read the list attribute "name" of slice in "inf", one constant per
 * dimension of the sliced input "xi", into "*v" (owned by the decoded
 * attributes); return 0 or -1. */
static int
bounds(struct sym__infer *inf, size_t xi, const char *name, const int64_t **v)
{
	size_t n, rank = inf->in[xi]->rank;
	int64_t *tmp, *out;
	int r = sym__attr_ints(inf, name, 0, &tmp, &n);

	if (r < 0)
		return -1;
	if (r == 1)
		return sym__infer_fail_attr(inf, name,
		    "slice needs the attribute %s, a list of %zu integer%s",
		    name, rank, rank == 1 ? "" : "s");
	if (n != rank)
		return sym__infer_fail_attr(inf, name,
		    "attribute %s of slice has %zu item%s, but %s has rank %zu",
		    name, n, n == 1 ? "" : "s", sym__in_name(inf, xi), rank);
	out = sym__at_alloc(inf, n, sizeof(*out));
	if (!out)
		return -1;
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[i];
	*v = out;
	return 0;
}

/* Set "*out" to the size of dimension "i" of the slice of input "xi" of
 * "inf" starting at "b" of "s" elements (-1: as many as the dimension
 * holds) taken every "st" (a negative "st" counts "b" from the last
 * element and walks backwards), after requiring the dimension to be
 * large enough; return 0 or -1. */
static int
slice_dim(struct sym__infer *inf, size_t xi, size_t i, int64_t b, int64_t s,
    int64_t st, sym_expr **out)
{
	sym_expr *d = inf->in[xi]->dim[i];
	const char *x = sym__in_name(inf, xi);
	int64_t k = st < 0 ? -st : st, last;

	if (b < 0)
		return sym__infer_fail_attr(inf, "begin",
		    "begin[%zu] of slice is %lld: it must be at least 0", i,
		    (long long)b);
	if (s == 0 || s < -1)
		return sym__infer_fail_attr(inf, "size",
		    "size[%zu] of slice is %lld: it must be at least 1, or -1 "
		    "for the rest of the dimension",
		    i, (long long)s);
	if (st == 0 || st == INT64_MIN || k > INT32_MAX)
		return sym__infer_fail_attr(inf, "step",
		    "step[%zu] of slice is %lld: it must not be 0, and at most "
		    "2^31 - 1 either way",
		    i, (long long)st);
	if (b >= INT64_MAX / 4 || (s > 0 && (s - 1 > (INT64_MAX / 4 - b) / k)))
		return sym__infer_fail_attr(inf, "size",
		    "begin[%zu] + size[%zu] of slice is too large", i, i);
	if (s == -1) {
		/* ceildiv(d - b, k): the elements b, b + k, ... below d */
		sym_expr *n = sym__tmp(inf, sym__add_si(d, k - 1 - b));

		*out = k == 1
		    ? n
		    : sym__tmp(inf,
		          sym__fdiv(n, sym__tmp(inf, sym__const(inf->ctx, k))));
		if (!*out)
			return sym__infer_nomem(inf);
		if (b == 0)
			return 0;
		return sym__require_ge(inf, d,
		    sym__tmp(inf, sym__const(inf->ctx, b + 1)),
		    "dimension %zu of %s (%s) must be greater than "
		    "begin[%zu]=%lld",
		    i, x, sym__txt_expr(inf, d), i, (long long)b);
	}
	*out = sym__tmp(inf, sym__const(inf->ctx, s));
	last = b + (s - 1) * k + 1;
	if (k == 1)
		return sym__require_ge(inf, d,
		    sym__tmp(inf, sym__const(inf->ctx, last)),
		    "dimension %zu of %s (%s) must be at least begin + size = "
		    "%lld (begin[%zu]=%lld, size[%zu]=%lld)",
		    i, x, sym__txt_expr(inf, d), (long long)last, i,
		    (long long)b, i, (long long)s);
	return sym__require_ge(inf, d,
	    sym__tmp(inf, sym__const(inf->ctx, last)),
	    "dimension %zu of %s (%s) must be at least begin + (size - 1) * "
	    "|step| + 1 = %lld (begin[%zu]=%lld, size[%zu]=%lld, "
	    "step[%zu]=%lld)",
	    i, x, sym__txt_expr(inf, d), (long long)last, i, (long long)b, i,
	    (long long)s, i, (long long)st);
}

/* Read the optional list attribute step of slice in "inf" (one integer
 * per dimension of input "xi") into the decoded attributes (NULL when
 * absent: steps of 1); return 0 or -1. */
static int
steps(struct sym__infer *inf, size_t xi)
{
	if (!sym__attrs_find(inf->attrs, "step")) {
		inf->at.concat.step = NULL;
		return 0;
	}
	return bounds(inf, xi, "step", &inf->at.concat.step);
}

/* Decode the attributes of slice and slice_grad, begin, size and step,
 * per dimension of input "xi" of "inf"; return 0 or -1. */
static int
decode_slice_attrs(struct sym__infer *inf, size_t xi)
{
	static const char *const known[] = { "begin", "size", "step", NULL };

	if (sym__check_attrs(inf, known) < 0 ||
	    bounds(inf, xi, "begin", &inf->at.concat.begin) < 0 ||
	    bounds(inf, xi, "size", &inf->at.concat.size) < 0 ||
	    steps(inf, xi) < 0)
		return -1;
	return 0;
}

/* The decoder of slice: the attributes begin and size give, per
 * dimension, the constant start and extent; "inf" is the run. */
int
sym__decode_slice(struct sym__infer *inf)
{
	return decode_slice_attrs(inf, 0);
}

/* The decoder of slice_grad(dy, x): slice's attributes, for the rank of
 * x (input 1); "inf" is the run. */
int
sym__decode_slice_grad(struct sym__infer *inf)
{
	return decode_slice_attrs(inf, 1);
}

/* The rule of slice: per dimension, the decoded start (>= 0) and extent
 * (>= 1, or -1 for the rest); each dimension must hold the slice. "inf"
 * is the run. */
int
sym__rule_slice(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const int64_t *begin = inf->at.concat.begin,
	              *size = inf->at.concat.size;
	sym_expr **dims;

	dims = sym__scratch(inf, x->rank, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < x->rank; i++)
		if (slice_dim(inf, 0, i, begin[i], size[i],
		        inf->at.concat.step ? inf->at.concat.step[i] : 1,
		        &dims[i]) < 0)
			return -1;
	return sym__out_shape(inf, x->dtype, x->rank, dims);
}

/* The rule of slice_grad(dy, x): dy (floating) has the shape of the
 * slice of x that begin and size give; the gradient has x's shape and
 * dy's dtype, zero outside the slice. "inf" is the run. */
int
sym__rule_slice_grad(struct sym__infer *inf)
{
	const sym_shape *dy = inf->in[0], *x = inf->in[1];
	const int64_t *begin = inf->at.concat.begin,
	              *size = inf->at.concat.size;

	if (sym__dtype_float(inf, 0) < 0)
		return -1;
	if (dy->rank != x->rank)
		return sym__infer_fail(inf, 0,
		    "%s of slice_grad must have the rank of %s (%zu), not %zu",
		    sym__in_name(inf, 0), sym__in_name(inf, 1), x->rank,
		    dy->rank);
	for (size_t i = 0; i < x->rank; i++) {
		sym_expr *want;

		if (slice_dim(inf, 1, i, begin[i], size[i],
		        inf->at.concat.step ? inf->at.concat.step[i] : 1,
		        &want) < 0 ||
		    sym__require_equal(inf, dy->dim[i], want,
		        "dimension %zu of %s (%s) must be the size of the "
		        "slice of %s (%s)",
		        i, sym__in_name(inf, 0), sym__txt_expr(inf, dy->dim[i]),
		        sym__in_name(inf, 1), sym__txt_expr(inf, want)) < 0)
			return -1;
	}
	return sym__out_shape(inf, dy->dtype, x->rank, x->dim);
}
