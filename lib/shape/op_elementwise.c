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

/* The rule of relu and neg: any numeric dtype (neg: not i64, see
 * sym__dtype_not_i64), same shape; "inf" is the run. */
int
sym__rule_numeric(struct sym__infer *inf)
{
	if (sym__dtype_numeric(inf, 0) < 0 ||
	    (inf->op->id == SYM__OP_NEG && sym__dtype_not_i64(inf, 0) < 0))
		return -1;
	return sym__out_same(inf, 0);
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
