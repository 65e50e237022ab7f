/* SPDX-License-Identifier: MIT */
/*
 * The elementwise family: unary activations and maths, cast, identity,
 * binary arithmetic with NumPy broadcasting, and bias_add.
 *
 * Broadcasting aligns dimensions from the right; a missing dimension or
 * one that is the constant 1 takes the other operand's size; any other
 * pair must be equal. A symbolic dimension is never assumed to be 1 (even
 * when its symbol admits 1): it is required equal to the other side, so
 * that one compiled plan serves every binding.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "shape/shape_private.h"

static const char *const no_attrs[] = { NULL };
static const char *const formats[] = { [SYM__FORMAT_NCHW] = "NCHW",
	[SYM__FORMAT_NHWC] = "NHWC",
	[SYM__FORMAT_NCDHW] = "NCDHW" };

/* The decoder of operators without attributes: check that "inf" has
 * none; return 0 or -1. */
int
sym__decode_none(struct sym__infer *inf)
{
	return sym__check_attrs(inf, no_attrs);
}

/* Check that input 0 of "inf" has a numeric dtype, not i64 when
 * "not_i64", and append its shape as the output; return 0 or -1. */
static int
numeric_same(struct sym__infer *inf, int not_i64)
{
	if (sym__dtype_numeric(inf, 0) < 0 ||
	    (not_i64 && sym__dtype_not_i64(inf, 0) < 0))
		return -1;
	return sym__out_same(inf, 0);
}

/* The rule of relu and neg: any numeric dtype (neg: not i64, see
 * sym__dtype_not_i64), same shape; "inf" is the run. */
int
sym__rule_numeric(struct sym__infer *inf)
{
	return numeric_same(inf, inf->op->id == SYM__OP_NEG);
}

/* The rule of gelu, exp, log, sqrt, tanh, sigmoid, softmax and
 * log_softmax: a floating-point input, same shape; "inf" is the run. */
int
sym__rule_float(struct sym__infer *inf)
{
	if (sym__dtype_float(inf, 0) < 0)
		return -1;
	return sym__out_same(inf, 0);
}

/* The rule of identity: the same shape; "inf" is the run. */
int
sym__rule_identity(struct sym__infer *inf)
{
	return sym__out_same(inf, 0);
}

/* The decoder of cast: the required attribute dtype of "inf"; return 0
 * or -1. */
int
sym__decode_cast(struct sym__infer *inf)
{
	static const char *const known[] = { "dtype", NULL };

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_dtype(inf, "dtype", 1, SYM_DT_INVALID,
	        &inf->at.elementwise.dtype) < 0)
		return -1;
	return 0;
}

/* The rule of cast: the same dimensions in the decoded dtype, any but
 * i64 from a floating-point dtype (the executor holds i64 in 32 bits);
 * "inf" is the run. */
int
sym__rule_cast(struct sym__infer *inf)
{
	const sym_shape *x = inf->in[0];

	if (inf->at.elementwise.dtype == SYM_DT_I64 &&
	    sym_dtype_is_float(x->dtype))
		return sym__infer_fail_attr(inf, "dtype",
		    "cast of %s (%s) to i64 is not supported: the executor "
		    "holds i64 in 32 bits, which a %s value could overflow "
		    "(cast to i32)",
		    sym__in_name(inf, 0), sym_dtype_name(x->dtype),
		    sym_dtype_name(x->dtype));

	return sym__out_shape(inf, inf->at.elementwise.dtype, x->rank, x->dim);
}

/* The rule of add, sub, mul, div, maximum and minimum: operands of one
 * dtype, broadcast; add, sub, mul and div do not take i64 (see
 * sym__dtype_not_i64). sub and div are not defined on bool (NumPy refuses
 * the first; its true division of bools gives floats, which a cast
 * says); add and maximum are "or" there, mul and minimum "and". "inf"
 * is the run. */
int
sym__rule_binary(struct sym__infer *inf)
{
	size_t ra = inf->in[0]->rank, rb = inf->in[1]->rank;
	size_t n = ra > rb ? ra : rb;
	sym_expr **dims;

	if (sym__same_dtype(inf, 0, 1) < 0)
		return -1;
	if ((inf->op->id == SYM__OP_SUB || inf->op->id == SYM__OP_DIV) &&
	    sym__dtype_numeric(inf, 0) < 0)
		return -1;
	if (inf->op->id != SYM__OP_MAXIMUM && inf->op->id != SYM__OP_MINIMUM &&
	    sym__dtype_not_i64(inf, 0) < 0)
		return -1;
	dims = sym__scratch(inf, n, sizeof(*dims));
	if (!dims)
		return sym__infer_nomem(inf);
	if (sym__broadcast(inf, 0, ra, 1, rb, dims) < 0)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, n, dims);
}

/* The decoder of bias_add: its channel dimension, 1 for data_format
 * NCHW / NCDHW (the default, as MindSpore) and the last for NHWC, after
 * checking that x has rank >= 2 (the rank is needed here); "inf" is the
 * run. */
int
sym__decode_bias_add(struct sym__infer *inf)
{
	static const char *const known[] = { "data_format", NULL };
	const char *fmt;
	int f = 0;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_string(inf, "data_format", "NCHW", &fmt) < 0)
		return -1;
	while (f < 3 && strcmp(fmt, formats[f]))
		f++;
	if (f == 3)
		return sym__infer_fail_attr(inf, "data_format",
		    "attribute data_format of bias_add must be \"NCHW\", "
		    "\"NHWC\" or \"NCDHW\", not \"%s\"",
		    fmt);
	if (sym__rank_at_least(inf, 0, 2) < 0)
		return -1;
	inf->at.elementwise.data_format = f;
	inf->at.elementwise.channel =
	    f == SYM__FORMAT_NHWC ? inf->in[0]->rank - 1 : 1;
	return 0;
}

/* The rule of bias_add: numeric x (not i64) of rank >= 2 plus a 1-D
 * bias of its dtype along its decoded channel dimension; "inf" is the
 * run. */
int
sym__rule_bias_add(struct sym__infer *inf)
{
	size_t c = inf->at.elementwise.channel;

	if (sym__rank_is(inf, 1, 1) < 0 || sym__dtype_numeric(inf, 0) < 0 ||
	    sym__dtype_not_i64(inf, 0) < 0 || sym__same_dtype(inf, 0, 1) < 0)
		return -1;
	if (sym__require_equal(inf, inf->in[1]->dim[0], inf->in[0]->dim[c],
	        "dimension 0 of bias %s (%s) must equal dimension %zu of %s "
	        "(%s), its channel dimension for data_format=%s",
	        sym__in_name(inf, 1), sym__txt_expr(inf, inf->in[1]->dim[0]), c,
	        sym__in_name(inf, 0), sym__txt_expr(inf, inf->in[0]->dim[c]),
	        formats[inf->at.elementwise.data_format]) < 0)
		return -1;
	return sym__out_same(inf, 0);
}

/* The decoder of fill_like: the attribute value (a number, default 0),
 * which the dtype of the input must hold; "inf" is the run. */
int
sym__decode_fill_like(struct sym__infer *inf)
{
	static const char *const known[] = { "value", NULL };
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "value");
	sym_dtype dt = inf->in[0]->dtype;
	double v = 0;

	if (sym__check_attrs(inf, known) < 0)
		return -1;
	if (at && at->kind == SYM_ATTR_FLOAT)
		v = at->f;
	else if (at && (at->kind == SYM_ATTR_INT || at->kind == SYM_ATTR_BOOL))
		v = (double)at->i;
	else if (at)
		return sym__infer_fail_attr(inf, "value",
		    "attribute value of fill_like must be a number");
	if (!sym_dtype_is_float(dt) && v != (double)(int64_t)v)
		return sym__infer_fail_attr(inf, "value",
		    "fill_like of %s (%s) needs a whole value, not %g",
		    sym__in_name(inf, 0), sym_dtype_name(dt), v);
	inf->at.elementwise.value = v;
	return 0;
}

/* The rule of relu_grad: two numeric operands of one dtype and the same
 * shape (no broadcasting), and that shape out; "inf" is the run. */
int
sym__rule_same_shapes(struct sym__infer *inf)
{
	if (inf->in[0]->dtype == SYM_DT_BOOL)
		return sym__infer_fail(inf, 0,
		    "%s needs a numeric input, but %s is bool", inf->op->name,
		    sym__in_name(inf, 0));
	if (sym__same_dtype(inf, 0, 1) < 0 ||
	    sym__rank_is(inf, 1, inf->in[0]->rank) < 0)
		return -1;
	for (size_t d = 0; d < inf->in[0]->rank; d++)
		if (sym__require_dims_equal(inf, 1, d, 0, d) < 0)
			return -1;
	return sym__out_same(inf, 0);
}

/* Return 1 when "e" is the constant 1 or NULL (a missing dimension). */
static int
one_or_missing(const sym_expr *e)
{
	return !e || sym__is_one(e);
}

/*
 * Broadcast the shapes of all inputs of "inf" NumPy style into "out"
 * (as many dimensions as the greatest rank, borrowed): aligned from the
 * right, a dimension of each input that is missing or the constant 1
 * takes the others' size, and the others must all be equal (a
 * requirement, refuted with a witness when they can differ). Return 0
 * or -1.
 */
static int
broadcast_all(struct sym__infer *inf, sym_expr **out, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		sym_expr *r = NULL;
		size_t ri = 0;

		for (size_t i = 0; i < inf->n_in; i++) {
			size_t rank = inf->in[i]->rank;
			sym_expr *e =
			    k < rank ? inf->in[i]->dim[rank - 1 - k] : NULL;

			if (one_or_missing(e)) {
				if (!r)
					r = e;
				continue;
			}
			if (!one_or_missing(r) &&
			    sym__require_equal(inf, e, r,
			        "dimension %zu of %s (%s) must equal dimension "
			        "%zu of %s (%s), or one of them must be 1 "
			        "(broadcasting)",
			        rank - 1 - k, sym__in_name(inf, i),
			        sym__txt_expr(inf, e),
			        inf->in[ri]->rank - 1 - k,
			        sym__in_name(inf, ri),
			        sym__txt_expr(inf, r)) < 0)
				return -1;
			if (one_or_missing(r)) {
				r = e;
				ri = i;
			}
		}
		out[n - 1 - k] = r;
	}
	return 0;
}

/* Return the greatest rank of the inputs of "inf". */
static size_t
max_rank(const struct sym__infer *inf)
{
	size_t n = 0;

	for (size_t i = 0; i < inf->n_in; i++)
		if (inf->in[i]->rank > n)
			n = inf->in[i]->rank;
	return n;
}

/* Append the broadcast shape of the inputs of "inf" in dtype "dt" as an
 * output; return 0 or -1. */
static int
out_broadcast(struct sym__infer *inf, sym_dtype dt)
{
	size_t n = max_rank(inf);
	sym_expr **dims = sym__scratch(inf, n ? n : 1, sizeof(*dims));

	if (!dims)
		return sym__infer_nomem(inf);
	if (broadcast_all(inf, dims, n) < 0)
		return -1;
	return sym__out_shape(inf, dt, n, dims);
}

/* The rule of equal, not_equal, less, less_equal, greater and
 * greater_equal: operands of one dtype (any, bool included), broadcast;
 * the result is bool. "inf" is the run. */
int
sym__rule_compare(struct sym__infer *inf)
{
	if (sym__same_dtype(inf, 0, 1) < 0)
		return -1;
	return out_broadcast(inf, SYM_DT_BOOL);
}

/* Check that input "i" of "inf" is bool; return 0 or -1. */
static int
dtype_bool(struct sym__infer *inf, size_t i, const char *role)
{
	sym_dtype dt = inf->in[i]->dtype;

	if (dt == SYM_DT_BOOL)
		return 0;
	return sym__infer_fail(inf, (int)i, "%s %s of %s must be bool, not %s",
	    role, sym__in_name(inf, i), inf->op->name, sym_dtype_name(dt));
}

/* The rule of logical_and, logical_or (broadcast) and logical_not: bool
 * operands, a bool result; "inf" is the run. */
int
sym__rule_logical(struct sym__infer *inf)
{
	for (size_t i = 0; i < inf->n_in; i++)
		if (dtype_bool(inf, i, "operand") < 0)
			return -1;
	return out_broadcast(inf, SYM_DT_BOOL);
}

/* The rule of where(c, a, b): a bool condition and two values of one
 * dtype, the three broadcast together; the result has the values' dtype.
 * "inf" is the run. */
int
sym__rule_where(struct sym__infer *inf)
{
	if (dtype_bool(inf, 0, "the condition") < 0 ||
	    sym__same_dtype(inf, 1, 2) < 0)
		return -1;
	return out_broadcast(inf, inf->in[1]->dtype);
}

/* The rule of pow(a, b): floating operands of one dtype, broadcast; "inf"
 * is the run. */
int
sym__rule_pow(struct sym__infer *inf)
{
	if (sym__dtype_float(inf, 0) < 0 || sym__same_dtype(inf, 0, 1) < 0)
		return -1;
	return out_broadcast(inf, inf->in[0]->dtype);
}

/* The rule of abs and sign: any numeric dtype (abs: not i64, whose
 * absolute value can need 33 bits in the executor's int32), same shape;
 * "inf" is the run. */
int
sym__rule_signed(struct sym__infer *inf)
{
	return numeric_same(inf, inf->op->id == SYM__OP_ABS);
}

/* The decoder of gelu and gelu_grad: the string attribute approximate,
 * "none" (the default: the exact form with erf) or "tanh"; "inf" is the
 * run. */
int
sym__decode_gelu(struct sym__infer *inf)
{
	static const char *const known[] = { "approximate", NULL };
	const char *s;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_string(inf, "approximate", "none", &s) < 0)
		return -1;
	if (strcmp(s, "none") && strcmp(s, "tanh"))
		return sym__infer_fail_attr(inf, "approximate",
		    "attribute approximate of %s must be \"none\" or "
		    "\"tanh\", not \"%s\"",
		    inf->op->name, s);
	inf->at.elementwise.approximate = !strcmp(s, "tanh");
	return 0;
}

/* The decoder of clip and clip_grad: the number attributes min and max,
 * each optional (-inf and inf when absent); "inf" is the run. */
int
sym__decode_clip(struct sym__infer *inf)
{
	static const char *const known[] = { "min", "max", NULL };

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_number(inf, "min", -HUGE_VAL, &inf->at.elementwise.lo) <
	        0 ||
	    sym__attr_number(inf, "max", HUGE_VAL, &inf->at.elementwise.hi) < 0)
		return -1;
	if (inf->at.elementwise.lo != inf->at.elementwise.lo ||
	    inf->at.elementwise.hi != inf->at.elementwise.hi)
		return sym__infer_fail_attr(inf, "min",
		    "attributes min and max of %s must be numbers, not NaN",
		    inf->op->name);
	return 0;
}

/* Check that the bound "name" ("v", set when finite) of clip fits the
 * integer dtype of input 0 of "inf" (i64 as the executor's int32);
 * return 0 or -1. */
static int
clip_bound_fits(struct sym__infer *inf, const char *name, double v)
{
	sym_dtype dt = inf->in[0]->dtype;
	double lo = INT32_MIN, hi = INT32_MAX;

	if (sym_dtype_is_float(dt) || isinf(v))
		return 0;
	if (dt == SYM_DT_I8)
		lo = INT8_MIN, hi = INT8_MAX;
	else if (dt == SYM_DT_I16)
		lo = INT16_MIN, hi = INT16_MAX;
	else if (dt == SYM_DT_U8)
		lo = 0, hi = UINT8_MAX;
	if (v == floor(v) && v >= lo && v <= hi)
		return 0;
	return sym__infer_fail_attr(inf, name,
	    "attribute %s of clip of %s (%s) must be a whole number in [%.0f, "
	    "%.0f], not %g",
	    name, sym__in_name(inf, 0), sym_dtype_name(dt), lo, hi, v);
}

/* The rule of clip: any numeric dtype, bounds that the dtype holds, the
 * same shape; "inf" is the run. */
int
sym__rule_clip(struct sym__infer *inf)
{
	if (sym__dtype_numeric(inf, 0) < 0 ||
	    clip_bound_fits(inf, "min", inf->at.elementwise.lo) < 0 ||
	    clip_bound_fits(inf, "max", inf->at.elementwise.hi) < 0)
		return -1;
	return sym__out_same(inf, 0);
}

/* The decoder of softplus and softplus_grad: the number attributes beta
 * (default 1, not 0) and threshold (default 20), as PyTorch's; "inf" is
 * the run. */
int
sym__decode_softplus(struct sym__infer *inf)
{
	static const char *const known[] = { "beta", "threshold", NULL };

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_number(inf, "beta", 1, &inf->at.elementwise.beta) < 0 ||
	    sym__attr_number(inf, "threshold", 20,
	        &inf->at.elementwise.threshold) < 0)
		return -1;
	if (inf->at.elementwise.beta == 0 ||
	    !isfinite(inf->at.elementwise.beta))
		return sym__infer_fail_attr(inf, "beta",
		    "attribute beta of %s must be a finite number other than "
		    "0, not %g",
		    inf->op->name, inf->at.elementwise.beta);
	return 0;
}
