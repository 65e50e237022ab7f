/* SPDX-License-Identifier: MIT */
/*
 * The convolution family: conv2d in NCHW, and its gradients
 * conv2d_input_grad(dy, weight, x) and conv2d_weight_grad(dy, x, weight),
 * which take conv2d's attributes (one decoder) and check the operands
 * of the forward convolution where they sit.
 */
#include <string.h>

#include "shape/shape_private.h"

/* Check the attributes of the operator of "inf" (conv2d, a pooling, or a
 * gradient of either) against "known" and read data_format, which must be
 * NCHW (the default); return 0 or -1. */
int
sym__check_attrs_nchw(struct sym__infer *inf, const char *const *known)
{
	const char *fmt;

	if (sym__check_attrs(inf, known) < 0 ||
	    sym__attr_string(inf, "data_format", "NCHW", &fmt) < 0)
		return -1;
	if (strcmp(fmt, "NCHW"))
		return sym__infer_fail_attr(inf, "data_format",
		    "%s supports data_format=\"NCHW\" only, not \"%s\"",
		    inf->op->name, fmt);
	return 0;
}

/* Read the attribute "name" of the operator of "inf" (conv2d or a
 * gradient of it), an integer or a list of 2
 * (height, width) or 4 (1, 1, height, width) integers, each at least 1,
 * into "hw" ("def" for both when absent); return 0 or -1. */
int
sym__attr_hw(struct sym__infer *inf, const char *name, int64_t def, int64_t *hw)
{
	int64_t *v;
	size_t n;
	int r = sym__attr_ints(inf, name, 1, &v, &n);

	if (r < 0)
		return -1;
	hw[0] = hw[1] = def;
	if (n == 1)
		hw[0] = hw[1] = v[0];
	else if (n == 2 || (n == 4 && v[0] == 1 && v[1] == 1)) {
		hw[0] = v[n - 2];
		hw[1] = v[n - 1];
	} else if (r == 0)
		return sym__infer_fail_attr(inf, name,
		    "attribute %s of %s must be an integer, a list of 2 "
		    "(height, width) or of 4 (1, 1, height, width)",
		    name, inf->op->name);
	if (hw[0] < 1 || hw[1] < 1)
		return sym__infer_fail_attr(inf, name,
		    "attribute %s of %s must be at least 1", name,
		    inf->op->name);
	return 0;
}

/* Read the attribute pad of the operator of "inf", an integer, a list of 2
 * (height, width) or of 4 (top, bottom, left, right), each at least 0,
 * into "p" as top, bottom, left, right (0 when absent); return 0 or -1. */
int
sym__attr_pads(struct sym__infer *inf, int64_t *p)
{
	int64_t *v;
	size_t n;
	int r = sym__attr_ints(inf, "pad", 1, &v, &n);

	if (r < 0)
		return -1;
	for (size_t i = 0; i < 4; i++)
		p[i] = n == 4 ? v[i] : n == 2 ? v[i / 2] : n == 1 ? v[0] : 0;
	if (r == 0 && n != 1 && n != 2 && n != 4)
		return sym__infer_fail_attr(inf, "pad",
		    "attribute pad of %s must be an integer, a list of 2 "
		    "(height, width) or of 4 (top, bottom, left, right)",
		    inf->op->name);
	for (size_t i = 0; i < 4; i++)
		if (p[i] < 0)
			return sym__infer_fail_attr(inf, "pad",
			    "attribute pad of %s must not be negative",
			    inf->op->name);
	return 0;
}

/* Store in "*out" the output extent floor(("size" + "pa" + "pb" - "dil"
 * ("k" - 1) - 1) / "stride") + 1 of one spatial dimension of conv2d,
 * every step checked; return 0, or -1 when a step overflows 64 bits: the
 * one arithmetic of the kernel and of the shape rule for constant sizes
 * (which rejects the attributes that overflow). */
int
sym__conv_extent(int64_t size, int64_t k, int64_t pa, int64_t pb, int64_t dil,
    int64_t stride, int64_t *out)
{
	int64_t e, span;

	if (stride < 1 || __builtin_add_overflow(size, pa, &e) ||
	    __builtin_add_overflow(e, pb, &e) ||
	    __builtin_mul_overflow(dil, k - 1, &span) ||
	    __builtin_sub_overflow(e, span, &e) ||
	    __builtin_sub_overflow(e, 1, &e))
		return -1;
	*out = e >= 0 ? e / stride + 1 : -(-(e + 1) / stride);
	return 0;
}

/* Check in "inf" that the extent arithmetic of spatial dimension "i" (2
 * or 3) of the convolution of x (input "ix") by the weight (input "iw")
 * fits 64 bits: "pa" + "pb" always, every step of sym__conv_extent when
 * the sizes are constants; fail at attribute pad (or dilation when the
 * padding is 0); return 0 or -1. */
static int
extent_fits(struct sym__infer *inf, size_t ix, size_t iw, size_t i, int64_t pa,
    int64_t pb, int64_t dil, int64_t stride)
{
	int64_t size, k, v;
	int fits = !__builtin_add_overflow(pa, pb, &v);

	if (fits && sym_expr_get_const(inf->in[ix]->dim[i], &size) == 0 &&
	    sym_expr_get_const(inf->in[iw]->dim[i], &k) == 0)
		fits = sym__conv_extent(size, k, pa, pb, dil, stride, &v) == 0;
	if (fits)
		return 0;
	return sym__infer_fail_attr(inf, pa || pb ? "pad" : "dilation",
	    "attribute %s of %s makes the output %s overflow 64 bits "
	    "(size + pad - dilation * (kernel - 1) - 1 must fit)",
	    pa || pb ? "pad" : "dilation", inf->op->name,
	    i == 2 ? "height" : "width");
}

/* Return the output extent (size + "pa" + "pb" - "dil" * (k - 1) - 1)
 * floordiv "stride" + 1 of one spatial dimension, for input size "size"
 * and kernel size "k", valid until the end of the run of "inf"; NULL
 * when out of memory. */
static sym_expr *
extent(struct sym__infer *inf, sym_expr *size, sym_expr *k, int64_t pa,
    int64_t pb, int64_t dil, int64_t stride)
{
	sym_expr *e = sym__tmp(inf, sym__add_si(size, pa));
	sym_expr *span = sym__tmp(inf, sym__add_si(k, -1));

	e = sym__tmp(inf, sym__add_si(e, pb));
	span = sym__tmp(inf, sym__scale_si(span, dil));
	e = sym__tmp(inf, sym__add_si(sym__tmp(inf, sym__sub(e, span)), -1));
	e = sym__tmp(inf,
	    sym__fdiv(e, sym__tmp(inf, sym__const(inf->ctx, stride))));
	return sym__tmp(inf, sym__add_si(e, 1));
}

/* State in "inf" the channel requirements of the convolution of x
 * (input "ix") by the weight (input "iw") with "group" groups: C == Cw *
 * group, and group divides C and O; return 0 or -1. */
static int
channels(struct sym__infer *inf, size_t ix, size_t iw, int64_t group)
{
	sym_expr *c = inf->in[ix]->dim[1], *cw = inf->in[iw]->dim[1];
	sym_expr *o = inf->in[iw]->dim[0];
	const char *x = sym__in_name(inf, ix), *w = sym__in_name(inf, iw);

	if (group == 1)
		return sym__require_dims_equal(inf, ix, 1, iw, 1);
	if (sym__require_equal(inf, c, sym__tmp(inf, sym__scale_si(cw, group)),
	        "dimension 1 of %s (%s) must equal dimension 1 of %s (%s) "
	        "times group=%lld",
	        x, sym__txt_expr(inf, c), w, sym__txt_expr(inf, cw),
	        (long long)group) < 0 ||
	    sym__require_divisible(inf, c, group,
	        "the input channels of %s (%s) must be divisible by "
	        "group=%lld",
	        x, sym__txt_expr(inf, c), (long long)group) < 0 ||
	    sym__require_divisible(inf, o, group,
	        "the output channels of %s, dimension 0 (%s), must be "
	        "divisible by group=%lld",
	        w, sym__txt_expr(inf, o), (long long)group) < 0)
		return -1;
	return 0;
}

/* The decoder of conv2d, conv2d_input_grad and conv2d_weight_grad:
 * stride, dilation, pad and group, and data_format, which must be NCHW;
 * "inf" is the run. */
int
sym__decode_conv2d(struct sym__infer *inf)
{
	static const char *const known[] = { "stride", "pad", "dilation",
		"group", "data_format", NULL };
	int64_t *stride = inf->at.conv.stride, *dil = inf->at.conv.dilation;
	int64_t *pad = inf->at.conv.pad, *group = &inf->at.conv.group;

	if (sym__check_attrs_nchw(inf, known) < 0 ||
	    sym__attr_hw(inf, "stride", 1, stride) < 0 ||
	    sym__attr_hw(inf, "dilation", 1, dil) < 0 ||
	    sym__attr_pads(inf, pad) < 0 ||
	    sym__attr_int(inf, "group", 0, 1, group) < 0)
		return -1;
	if (*group < 1)
		return sym__infer_fail_attr(inf, "group",
		    "attribute group of %s must be at least 1", inf->op->name);
	return 0;
}

/*
 * Check the operands of the convolution of x (input "ix", [N, C, H, W])
 * by the weight (input "iw", [O, C / group, kh, kw]) in "inf": rank 4,
 * one floating-point dtype, the channels and the extents for the decoded
 * stride, pad, dilation and group; store its output dimensions [N, O,
 * Ho, Wo] in "dims" with
 * Ho = (H + pad_top + pad_bottom - dilation * (kh - 1) - 1) floordiv
 * stride + 1 (likewise Wo), kept symbolic and required to be at least 1.
 * Return 0 or -1.
 */
static int
conv_dims(struct sym__infer *inf, size_t ix, size_t iw, sym_expr **dims)
{
	const sym_shape *x = inf->in[ix], *w = inf->in[iw];
	const int64_t *stride = inf->at.conv.stride,
	              *dil = inf->at.conv.dilation;
	const int64_t *pad = inf->at.conv.pad, group = inf->at.conv.group;

	if (sym__rank_is(inf, ix, 4) < 0 || sym__rank_is(inf, iw, 4) < 0 ||
	    sym__dtype_float(inf, ix) < 0 || sym__same_dtype(inf, ix, iw) < 0 ||
	    channels(inf, ix, iw, group) < 0 ||
	    extent_fits(inf, ix, iw, 2, pad[0], pad[1], dil[0], stride[0]) <
	        0 ||
	    extent_fits(inf, ix, iw, 3, pad[2], pad[3], dil[1], stride[1]) < 0)
		return -1;
	dims[0] = x->dim[0];
	dims[1] = w->dim[0];
	dims[2] = extent(inf, x->dim[2], w->dim[2], pad[0], pad[1], dil[0],
	    stride[0]);
	dims[3] = extent(inf, x->dim[3], w->dim[3], pad[2], pad[3], dil[1],
	    stride[1]);
	if (!dims[2] || !dims[3])
		return sym__infer_nomem(inf);
	for (size_t i = 2; i < 4; i++)
		if (sym__require_ge(inf, dims[i],
		        sym__tmp(inf, sym__const(inf->ctx, 1)),
		        "the output %s of conv2d (%s) must be at least 1: "
		        "dimension %zu of %s (%s) plus padding is smaller than "
		        "the dilated kernel (dimension %zu of %s, %s)",
		        i == 2 ? "height" : "width",
		        sym__txt_expr(inf, dims[i]), i, sym__in_name(inf, ix),
		        sym__txt_expr(inf, x->dim[i]), i, sym__in_name(inf, iw),
		        sym__txt_expr(inf, w->dim[i])) < 0)
			return -1;
	return 0;
}

/* The rule of conv2d(x, weight): the output [N, O, Ho, Wo] of
 * conv_dims. "inf" is the run. */
int
sym__rule_conv2d(struct sym__infer *inf)
{
	sym_expr *dims[4];

	if (conv_dims(inf, 0, 1, dims) < 0)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, 4, dims);
}

/* Check in "inf" the operands of a gradient of conv2d: those of the
 * forward conv2d of x (input "ix") by the weight (input "iw"), and dy
 * (input 0) of their dtype and of the shape of its output; append the
 * gradient, of the shape of input 2 (x for conv2d_input_grad, the weight
 * for conv2d_weight_grad). Return 0 or -1. */
static int
rule_grad(struct sym__infer *inf, size_t ix, size_t iw)
{
	sym_expr *dims[4];

	if (conv_dims(inf, ix, iw, dims) < 0 ||
	    sym__same_dtype(inf, ix, 0) < 0 ||
	    sym__require_dims_like(inf, 0, "dy ", 4, dims,
	        sym__txt_printf(inf, "the output of conv2d of %s by %s",
	            sym__in_name(inf, ix), sym__in_name(inf, iw))) < 0)
		return -1;
	return sym__out_same(inf, 2);
}

/* The rule of conv2d_input_grad(dy, weight, x): the gradient of conv2d
 * with respect to x, of its shape, dy having the shape of the forward
 * output. "inf" is the run. */
int
sym__rule_conv2d_input_grad(struct sym__infer *inf)
{
	return rule_grad(inf, 2, 1);
}

/* The rule of conv2d_weight_grad(dy, x, weight): the gradient of conv2d
 * with respect to the weight, of its shape. "inf" is the run. */
int
sym__rule_conv2d_weight_grad(struct sym__infer *inf)
{
	return rule_grad(inf, 1, 2);
}
