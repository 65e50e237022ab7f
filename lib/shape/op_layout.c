/* SPDX-License-Identifier: MIT */
/*
 * The layout family: reshape, flatten, transpose / permute, expand_dims
 * and squeeze.
 */
#include <stdlib.h>
#include <string.h>

#include "shape/shape_private.h"

static const char *const reshape_pos[] = { "shape", NULL };
static const char *const perm_pos[] = { "perm", NULL };
static const char *const axis_attr[] = { "axis", NULL };

/* Return the list attribute "at" as text, "[-1, 784]", valid until the
 * end of the run of "inf". */
static const char *
list_text(struct sym__infer *inf, const struct sym__attr *at)
{
	const char **item = sym__scratch(inf, at->n + 1, sizeof(*item));
	size_t len = 3;
	char *s;

	if (!item)
		return "?";
	for (size_t i = 0; i < at->n; i++) {
		item[i] = sym__txt_expr(inf, at->items[i]);
		len += strlen(item[i]) + 2;
	}
	s = sym__scratch(inf, len, 1);
	if (!s)
		return "?";
	sym__list_write(s, "", item, at->n);
	return s;
}

/* Return the list attribute "name" of "inf", recording an error that
 * shows "example" when it is absent or not a list; NULL on error. */
static const struct sym__attr *
list_arg(struct sym__infer *inf, const char *name, const char *example)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, name);

	if (!at)
		sym__infer_fail_attr(inf, name,
		    "%s needs its %s argument, as in %s", inf->op->name, name,
		    example);
	else if (at->kind != SYM_ATTR_LIST)
		sym__infer_fail_attr(inf, name,
		    "the %s argument of %s must be a list, as in %s", name,
		    inf->op->name, example);
	else
		return at;
	return NULL;
}

/* Require the element count of input 0 of "inf", "numel", to allow the
 * target "at" of reshape whose dimension "infer" is -1: set "dims"[infer]
 * to numel floordiv the product "rest" of the others; return 0 or -1. */
static int
infer_dim(struct sym__infer *inf, const struct sym__attr *at, size_t infer,
    sym_expr *numel, sym_expr *rest, sym_expr **dims)
{
	const char *x = sym__in_name(inf, 0);
	int64_t k;

	dims[infer] = sym__tmp(inf, sym__fdiv(numel, rest));
	if (!dims[infer])
		return sym__infer_nomem(inf);
	if (sym_expr_get_const(rest, &k) == 0)
		return sym__require_divisible(inf, numel, k,
		    "reshape of %s to %s: its number of elements (%s) must be "
		    "divisible by %lld, the product of the other target "
		    "dimensions",
		    x, list_text(inf, at), sym__txt_expr(inf, numel),
		    (long long)k);
	return sym__require_equal(inf,
	    sym__tmp(inf, sym__mul(rest, dims[infer])), numel,
	    "reshape of %s to %s: its number of elements (%s) must be "
	    "divisible by %s, the product of the other target dimensions",
	    x, list_text(inf, at), sym__txt_expr(inf, numel),
	    sym__txt_expr(inf, rest));
}

/*
 * The rule of reshape(x, [d0, d1, ...]): each target dimension is an
 * expression; at most one is -1 and is inferred as numel(x) floordiv the
 * product of the others, with the requirement that the division is exact;
 * without -1 the element counts must be equal. Constant target dimensions
 * must be at least 1, symbolic ones are required to be. "inf" is the run.
 */
int
sym__rule_reshape(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const struct sym__attr *at;
	sym_expr **dims, *numel, *rest;
	size_t infer = SIZE_MAX;

	if (sym__check_attrs(inf, reshape_pos) < 0)
		return -1;
	at = list_arg(inf, "shape", "reshape(x, [-1, 784])");
	if (!at)
		return -1;
	dims = sym__scratch(inf, at->n, sizeof(*dims));
	rest = sym__tmp(inf, sym__const(inf->ctx, 1));
	if (!dims || !rest)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < at->n; i++) {
		sym_expr *e = at->items[i];
		int64_t v;

		if (sym_expr_get_const(e, &v) == 0 && v == -1) {
			if (infer != SIZE_MAX)
				return sym__infer_fail_attr(inf, "shape",
				    "the target shape %s of reshape has more "
				    "than one -1",
				    list_text(inf, at));
			infer = i;
			continue;
		}
		if (sym__const_sign(e) <= 0)
			return sym__infer_fail_attr(inf, "shape",
			    "dimension %zu of the target shape %s of reshape "
			    "is %s: it must be at least 1, or -1 to infer it",
			    i, list_text(inf, at), sym__txt_expr(inf, e));
		if (!sym_expr_is_const(e) &&
		    sym__require_ge(inf, e,
		        sym__tmp(inf, sym__const(inf->ctx, 1)),
		        "dimension %zu of the target shape of reshape (%s) "
		        "must be at least 1",
		        i, sym__txt_expr(inf, e)) < 0)
			return -1;
		dims[i] = e;
		rest = sym__tmp(inf, sym__mul(rest, e));
		if (!rest)
			return sym__infer_nomem(inf);
	}
	numel = sym__prod(inf, x, 0, x->rank);
	if (!numel)
		return sym__infer_nomem(inf);
	if (infer != SIZE_MAX) {
		if (infer_dim(inf, at, infer, numel, rest, dims) < 0)
			return -1;
	} else if (sym__require_equal(inf, numel, rest,
	               "reshape of %s to %s must keep the number of "
	               "elements: %s has %s elements, the target shape %s",
	               sym__in_name(inf, 0), list_text(inf, at),
	               sym__in_name(inf, 0), sym__txt_expr(inf, numel),
	               sym__txt_expr(inf, rest)) < 0) {
		return -1;
	}
	return sym__out_shape(inf, x->dtype, at->n, dims);
}

/* The rule of flatten (MindSpore Flatten): [N, d1, ..., dk] becomes
 * [N, d1 * ... * dk] ([N, 1] for a 1-D input); "inf" is the run. */
int
sym__rule_flatten(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	sym_expr *dims[2];

	if (sym__rank_at_least(inf, 0, 1) < 0)
		return -1;
	dims[0] = x->dim[0];
	dims[1] = sym__prod(inf, x, 1, x->rank);
	return sym__out_shape(inf, x->dtype, 2, dims);
}

/* The decoder of transpose and permute(x, [p0, p1, ...]): the list must
 * be a permutation of the axes of x (negative axes count from the end).
 * "inf" is the run. */
int
sym__decode_transpose(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const struct sym__attr *at;
	unsigned char *seen;
	int64_t *perm, *out;
	size_t n;

	if (sym__check_attrs(inf, perm_pos) < 0)
		return -1;
	at = list_arg(inf, "perm", "transpose(x, [1, 0])");
	if (!at || sym__attr_ints(inf, "perm", 0, &perm, &n) < 0)
		return -1;
	if (n != x->rank)
		return sym__infer_fail_attr(inf, "perm",
		    "the permutation %s of %s has %zu item%s, but %s has rank "
		    "%zu",
		    list_text(inf, at), inf->op->name, n, n == 1 ? "" : "s",
		    sym__in_name(inf, 0), x->rank);
	seen = sym__scratch(inf, n, 1);
	out = sym__at_alloc(inf, n, sizeof(*out));
	if (!seen || !out)
		return sym__infer_nomem(inf);
	inf->at.layout.perm = out;
	for (size_t i = 0; i < n; i++) {
		size_t ax;

		if (sym__axis(inf, "perm", perm[i], n, 0, &ax) < 0)
			return -1;
		if (seen[ax])
			return sym__infer_fail_attr(inf, "perm",
			    "%s is not a permutation: it names axis %zu twice",
			    list_text(inf, at), ax);
		seen[ax] = 1;
		out[i] = (int64_t)ax;
	}
	return 0;
}

/* The rule of transpose and permute: output dimension i is dimension
 * perm[i] of x; "inf" is the run. */
int
sym__rule_transpose(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));

	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < x->rank; i++)
		dims[i] = x->dim[inf->at.layout.perm[i]];
	return sym__out_shape(inf, x->dtype, x->rank, dims);
}

/* The decoder of expand_dims: the required attribute axis, in
 * [-rank-1, rank] as in NumPy; "inf" is the run. */
int
sym__decode_expand_dims(struct sym__infer *inf)
{
	if (sym__check_attrs(inf, axis_attr) < 0 ||
	    sym__attr_axis(inf, 1, 0, inf->in[0]->rank + 1, 0,
	        &inf->at.layout.axis) < 0)
		return -1;
	return 0;
}

/* The rule of expand_dims: a dimension 1 inserted at the decoded axis;
 * "inf" is the run. */
int
sym__rule_expand_dims(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	size_t ax = inf->at.layout.axis;
	sym_expr **dims, *one;

	dims = sym__scratch(inf, x->rank + 1, sizeof(*dims));
	one = sym__tmp(inf, sym__const(inf->ctx, 1));
	if (!dims || !one)
		return sym__infer_nomem(inf);
	for (size_t i = 0, j = 0; i <= x->rank; i++)
		dims[i] = i == ax ? one : x->dim[j++];
	return sym__out_shape(inf, x->dtype, x->rank + 1, dims);
}

/* Mark in "mark" the dimensions of input 0 of "inf" that squeeze removes:
 * those named by the attribute axis (an integer or a list), each required
 * to be 1, or when it is absent or empty (MindSpore's axis=()) every
 * dimension that is the constant 1. Return 0 or -1. */
static int
squeezed(struct sym__infer *inf, unsigned char *mark)
{
	const sym_shape *x = inf->in[0];
	int64_t *axes, v;
	size_t n;
	int r = sym__attr_ints(inf, "axis", 1, &axes, &n);

	if (r < 0)
		return -1;
	if (n == 0) {
		for (size_t i = 0; i < x->rank; i++)
			mark[i] =
			    sym_expr_get_const(x->dim[i], &v) == 0 && v == 1;
		return 0;
	}
	if (sym__axes(inf, "axis", axes, n, x->rank, 0, mark) < 0)
		return -1;
	for (size_t i = 0; i < x->rank; i++) {
		sym_expr *d = x->dim[i];

		if (!mark[i])
			continue;
		if (sym_expr_is_const(d) &&
		    (sym_expr_get_const(d, &v) < 0 || v != 1))
			return sym__infer_fail_attr(inf, "axis",
			    "squeeze cannot remove dimension %zu of %s: its "
			    "size is %s, not 1",
			    i, sym__in_name(inf, 0), sym__txt_expr(inf, d));
		if (sym__require_equal(inf, d,
		        sym__tmp(inf, sym__const(inf->ctx, 1)),
		        "dimension %zu of %s (%s) must be 1 to be squeezed", i,
		        sym__in_name(inf, 0), sym__txt_expr(inf, d)) < 0)
			return -1;
	}
	return 0;
}

/* The decoder of squeeze: the dimensions chosen by squeezed(); "inf" is
 * the run. */
int
sym__decode_squeeze(struct sym__infer *inf)
{
	unsigned char *mark = sym__at_alloc(inf, inf->in[0]->rank, 1);

	if (!mark)
		return -1;
	inf->at.layout.mark = mark;
	if (sym__check_attrs(inf, axis_attr) < 0 || squeezed(inf, mark) < 0)
		return -1;
	return 0;
}

/* The rule of squeeze: the decoded dimensions removed; "inf" is the
 * run. */
int
sym__rule_squeeze(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const unsigned char *mark = inf->at.layout.mark;
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	size_t n = 0;

	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < x->rank; i++)
		if (!mark[i])
			dims[n++] = x->dim[i];
	return sym__out_shape(inf, x->dtype, n, dims);
}
