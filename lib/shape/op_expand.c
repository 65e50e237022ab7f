/* SPDX-License-Identifier: MIT */
/*
 * The layout family, continued: expand (broadcast to a shape of
 * expressions), tile (repeats) and pad (constant mode; negative pads
 * crop).
 */
#include <math.h>
#include <string.h>

#include "shape/shape_private.h"

static const char *const expand_known[] = { "shape", NULL };
static const char *const tile_known[] = { "repeats", NULL };
static const char *const pad_known[] = { "pads", "value", "mode", NULL };

/* Return the list attribute "name" of "inf", or NULL after an error that
 * shows "example" when it is absent or not a list. */
static const struct sym__attr *
list_of(struct sym__infer *inf, const char *name, const char *example)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, name);

	if (at && at->kind == SYM_ATTR_LIST)
		return at;
	sym__infer_fail_attr(inf, name,
	    "%s needs its %s argument as a list, as in %s", inf->op->name, name,
	    example);
	return NULL;
}

/* The decoder of expand(x, [d0, d1, ...]): the target has at least the
 * rank of x, aligned from the right (NumPy); a target dimension -1 keeps
 * x's. Marks the output dimensions that are broadcast: the new leading
 * ones, and those where x has the constant 1 and the target does not.
 * "inf" is the run. */
int
sym__decode_expand(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const struct sym__attr *at;
	unsigned char *mark;
	size_t lead;

	if (sym__check_attrs(inf, expand_known) < 0)
		return -1;
	at = list_of(inf, "shape", "expand(x, [b, s, 16])");
	if (!at)
		return -1;
	if (at->n < x->rank)
		return sym__infer_fail_attr(inf, "shape",
		    "the target of expand has %zu dimensions, fewer than %s "
		    "(%zu)",
		    at->n, sym__in_name(inf, 0), x->rank);
	mark = sym__at_alloc(inf, at->n ? at->n : 1, 1);
	if (!mark)
		return -1;
	inf->at.layout.mark = mark;
	lead = at->n - x->rank;
	for (size_t j = 0; j < at->n; j++) {
		sym_expr *t = at->items[j];
		int64_t v;
		int minus = sym_expr_get_const(t, &v) == 0 && v == -1;

		if (minus && j < lead)
			return sym__infer_fail_attr(inf, "shape",
			    "dimension %zu of the target of expand is -1, but "
			    "%s has no dimension there to keep",
			    j, sym__in_name(inf, 0));
		if (!minus && sym__const_sign(t) <= 0)
			return sym__infer_fail_attr(inf, "shape",
			    "dimension %zu of the target of expand is %s: it "
			    "must be at least 1, or -1 to keep it",
			    j, sym__txt_expr(inf, t));
		mark[j] = j < lead ||
		    (!minus && sym__is_one(x->dim[j - lead]) &&
		        !sym__is_one(t));
	}
	return 0;
}

/* The rule of expand: a broadcast dimension takes the target's size
 * (required to be at least 1), every other target dimension must equal
 * x's (a requirement the graph proves, or refutes with a witness); -1
 * keeps x's. "inf" is the run. */
int
sym__rule_expand(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "shape");
	const unsigned char *mark = inf->at.layout.mark;
	sym_expr **dims = sym__scratch(inf, at->n, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));
	size_t lead = at->n - x->rank;

	if (!dims || !one)
		return sym__infer_nomem(inf);
	for (size_t j = 0; j < at->n; j++) {
		sym_expr *t = at->items[j];
		int64_t v;

		if (sym_expr_get_const(t, &v) == 0 && v == -1) {
			dims[j] = x->dim[j - lead];
			continue;
		}
		dims[j] = t;
		if (mark[j] || sym__is_one(t)) {
			if (sym__require_ge(inf, t, one,
			        "dimension %zu of the target of expand (%s) "
			        "must be at least 1",
			        j, sym__txt_expr(inf, t)) < 0)
				return -1;
			if (mark[j])
				continue;
		}
		if (sym__require_equal(inf, t, x->dim[j - lead],
		        "expand of %s to a target whose dimension %zu is %s: "
		        "dimension %zu of %s (%s) must equal it, or be 1",
		        sym__in_name(inf, 0), j, sym__txt_expr(inf, t),
		        j - lead, sym__in_name(inf, 0),
		        sym__txt_expr(inf, x->dim[j - lead])) < 0)
			return -1;
	}
	return sym__out_shape(inf, x->dtype, at->n, dims);
}

/* The decoder of tile(x, [r0, r1, ...]): one constant repeat count of
 * at least 1 per dimension of x (fewer: leading ones, as PyTorch's
 * tile). "inf" is the run. */
int
sym__decode_tile(struct sym__infer *inf)
{
	size_t rank = inf->in[0]->rank, n;
	int64_t *rep, *out;

	if (sym__check_attrs(inf, tile_known) < 0 ||
	    !list_of(inf, "repeats", "tile(x, [1, 2])") ||
	    sym__attr_ints(inf, "repeats", 0, &rep, &n) < 0)
		return -1;
	if (n > rank)
		return sym__infer_fail_attr(inf, "repeats",
		    "tile has %zu repeat counts, more than the rank of %s "
		    "(%zu)",
		    n, sym__in_name(inf, 0), rank);
	out = sym__at_alloc(inf, rank ? rank : 1, sizeof(*out));
	if (!out)
		return -1;
	for (size_t d = 0; d < rank; d++) {
		out[d] = d < rank - n ? 1 : rep[d - (rank - n)];
		if (out[d] < 1)
			return sym__infer_fail_attr(inf, "repeats",
			    "the repeat count of dimension %zu of %s is %lld: "
			    "it must be at least 1",
			    d, sym__in_name(inf, 0), (long long)out[d]);
	}
	inf->at.layout.repeats = out;
	return 0;
}

/* The rule of tile: dimension d of the output is repeats[d] times x's.
 * "inf" is the run. */
int
sym__rule_tile(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));

	if (!dims)
		return sym__infer_nomem(inf);
	for (size_t d = 0; d < x->rank; d++) {
		sym_expr *k = sym__tmp(inf,
		    sym__const(inf->ctx, inf->at.layout.repeats[d]));

		dims[d] = sym__tmp(inf, sym__mul(k, x->dim[d]));
	}
	return sym__out_shape(inf, x->dtype, x->rank, dims);
}

/* The decoder of pad(x, [before0, after0, before1, after1, ...],
 * value=0, mode="constant"): two constant counts per dimension of x (a
 * negative one crops), the fill value (a number; for bool, nonzero is
 * true) and the mode, of which only "constant" exists. "inf" is the
 * run. */
int
sym__decode_pad(struct sym__infer *inf)
{
	const struct sym__attr *val = sym__attrs_find(inf->attrs, "value");
	size_t rank = inf->in[0]->rank, n;
	const char *mode;
	int64_t *p, *out;

	if (sym__check_attrs(inf, pad_known) < 0 ||
	    sym__attr_string(inf, "mode", "constant", &mode) < 0 ||
	    !list_of(inf, "pads", "pad(x, [0, 0, 1, 1], value=0)") ||
	    sym__attr_ints(inf, "pads", 0, &p, &n) < 0)
		return -1;
	if (strcmp(mode, "constant"))
		return sym__infer_fail_attr(inf, "mode",
		    "pad has only the mode \"constant\", not \"%s\"", mode);
	if (n != 2 * rank)
		return sym__infer_fail_attr(inf, "pads",
		    "pad needs 2 counts per dimension of %s (before, after): "
		    "%zu, not %zu",
		    sym__in_name(inf, 0), 2 * rank, n);
	if (val && val->kind != SYM_ATTR_FLOAT && val->kind != SYM_ATTR_INT &&
	    val->kind != SYM_ATTR_BOOL)
		return sym__infer_fail_attr(inf, "value",
		    "the value of pad must be a number");
	out = sym__at_alloc(inf, n ? n : 1, sizeof(*out));
	if (!out)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (p[i] > INT64_MAX / 4 || p[i] < -(INT64_MAX / 4))
			return sym__infer_fail_attr(inf, "pads",
			    "pad count %lld is too large", (long long)p[i]);
		out[i] = p[i];
	}
	inf->at.layout.pads = out;
	inf->at.layout.value = !val       ? 0.0
	    : val->kind == SYM_ATTR_FLOAT ? val->f
	                                  : (double)val->i;
	if (!isfinite(inf->at.layout.value) && val->kind == SYM_ATTR_FLOAT &&
	    !sym_dtype_is_float(inf->in[0]->dtype))
		return sym__infer_fail_attr(inf, "value",
		    "pad of the %s %s cannot fill with %g",
		    sym_dtype_name(inf->in[0]->dtype), sym__in_name(inf, 0),
		    val->f);
	return 0;
}

/* The rule of pad: dimension d grows by before + after, and must stay at
 * least 1 (negative pads crop: cropping all of a dimension is an error,
 * with a witness when the size is symbolic). "inf" is the run. */
int
sym__rule_pad(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];
	const int64_t *p = inf->at.layout.pads;
	sym_expr **dims = sym__scratch(inf, x->rank, sizeof(*dims));
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));

	if (!dims || !one)
		return sym__infer_nomem(inf);
	for (size_t d = 0; d < x->rank; d++) {
		dims[d] = sym__tmp(inf,
		    sym__add_si(x->dim[d], p[2 * d] + p[2 * d + 1]));
		if (!dims[d])
			return sym__infer_nomem(inf);
		if (p[2 * d] < 0 || p[2 * d + 1] < 0)
			if (sym__require_ge(inf, dims[d], one,
			        "pad of %s by %lld before and %lld after crops "
			        "all of dimension %zu (%s): it must keep at "
			        "least 1",
			        sym__in_name(inf, 0), (long long)p[2 * d],
			        (long long)p[2 * d + 1], d,
			        sym__txt_expr(inf, x->dim[d])) < 0)
				return -1;
	}
	return sym__out_shape(inf, x->dtype, x->rank, dims);
}
