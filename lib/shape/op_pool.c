/* SPDX-License-Identifier: MIT */
/*
 * The pooling family, NCHW, with PyTorch's attributes and output sizes:
 *
 *  - max_pool2d(x, kernel=, stride=kernel, pad=0, dilation=1,
 *    ceil_mode=false) and avg_pool2d(x, kernel=, stride=kernel, pad=0,
 *    ceil_mode=false, count_include_pad=true): [N, C, H, W] to [N, C, Ho,
 *    Wo];
 *  - global_avg_pool(x): [N, C, D1, ...] to [N, C, 1, ...] (ONNX's
 *    GlobalAveragePool);
 *  - their gradients max_pool2d_grad(dy, x), avg_pool2d_grad(dy, x) and
 *    global_avg_pool_grad(dy, x), of x's shape, dy having the shape of
 *    the forward output.
 *
 * An output extent is floor((H + C) / stride) + 1 for a constant C. In
 * floor mode C = pad_a + pad_b - dilation * (kernel - 1) - 1. In ceil
 * mode PyTorch takes ceil((H + pad_a + pad_b - span - 1) / stride) + 1
 * windows and drops the last when it starts at or after H + pad_a (in
 * the right padding); the count is then the number of starts p * stride
 * that are at most both H + pad_a - 1 and H + pad_a + pad_b - span - 2 +
 * stride, so C = pad_a - 1 + min(0, pad_b + stride - span - 1): one
 * floordiv over symbols in both modes.
 */
#include "shape/shape_private.h"

/* Store in "*c" the constant C of the extent floor(("size" + C) /
 * "stride") + 1 for kernel "k", pads "pa" and "pb", dilation "dil" and
 * "ceil_mode" (see the top of the file); return 0, or -1 when a step
 * overflows 64 bits. */
static int
extent_const(int64_t k, int64_t pa, int64_t pb, int64_t dil, int64_t stride,
    int ceil_mode, int64_t *c)
{
	int64_t span, v;

	if (__builtin_mul_overflow(dil, k - 1, &span) ||
	    __builtin_add_overflow(pa, pb, &v) ||
	    __builtin_sub_overflow(v, span, &v) ||
	    __builtin_sub_overflow(v, 1, &v))
		return -1;
	if (!ceil_mode) {
		*c = v;
		return 0;
	}
	if (__builtin_add_overflow(pb, stride, &v) ||
	    __builtin_sub_overflow(v, span, &v) ||
	    __builtin_sub_overflow(v, 1, &v))
		return -1;
	*c = pa - 1 + (v < 0 ? v : 0);
	return 0;
}

/* Store in "*out" the output extent of one spatial dimension of
 * max_pool2d or avg_pool2d for input size "size", kernel "k", pads "pa"
 * and "pb", dilation "dil", "stride" and "ceil_mode"; return 0, or -1
 * when a step overflows 64 bits: the one arithmetic of the kernel and of
 * the shape rule for constant sizes. */
int
sym__pool_extent(int64_t size, int64_t k, int64_t pa, int64_t pb, int64_t dil,
    int64_t stride, int ceil_mode, int64_t *out)
{
	int64_t c, e;

	if (stride < 1 ||
	    extent_const(k, pa, pb, dil, stride, ceil_mode, &c) < 0 ||
	    __builtin_add_overflow(size, c, &e))
		return -1;
	*out = e >= 0 ? e / stride + 1 : -(-(e + 1) / stride);
	return 0;
}

/* The decoder of max_pool2d, avg_pool2d and their gradients: kernel
 * (required), stride (the kernel when absent), pad (each at most half
 * the kernel, as PyTorch requires), dilation (max_pool2d only),
 * ceil_mode, count_include_pad (avg_pool2d only) and data_format, which
 * must be NCHW; "inf" is the run. */
int
sym__decode_pool(struct sym__infer *inf)
{
	static const char *const known_max[] = { "kernel", "stride", "pad",
		"dilation", "ceil_mode", "data_format", NULL };
	static const char *const known_avg[] = { "kernel", "stride", "pad",
		"ceil_mode", "count_include_pad", "data_format", NULL };
	int max = inf->op->id == SYM__OP_MAX_POOL2D ||
	    inf->op->id == SYM__OP_MAX_POOL2D_GRAD;
	int64_t *k = inf->at.pool.kernel, *pad = inf->at.pool.pad;

	if (sym__check_attrs_nchw(inf, max ? known_max : known_avg) < 0)
		return -1;
	if (!sym__attrs_find(inf->attrs, "kernel"))
		return sym__infer_fail_attr(inf, "kernel",
		    "%s needs attribute kernel (for example kernel=2 or "
		    "kernel=[3, 3])",
		    inf->op->name);
	if (sym__attr_hw(inf, "kernel", 1, k) < 0 ||
	    sym__attr_hw(inf, "stride", 1, inf->at.pool.stride) < 0 ||
	    sym__attr_hw(inf, "dilation", 1, inf->at.pool.dilation) < 0 ||
	    sym__attr_pads(inf, pad) < 0 ||
	    sym__attr_bool(inf, "ceil_mode", 0, &inf->at.pool.ceil_mode) < 0 ||
	    sym__attr_bool(inf, "count_include_pad", 1,
	        &inf->at.pool.count_include_pad) < 0)
		return -1;
	if (!sym__attrs_find(inf->attrs, "stride")) {
		inf->at.pool.stride[0] = k[0];
		inf->at.pool.stride[1] = k[1];
	}
	for (size_t i = 0; i < 4; i++)
		if (pad[i] > k[i / 2] / 2)
			return sym__infer_fail_attr(inf, "pad",
			    "attribute pad of %s (%lld) must be at most half "
			    "the kernel %s (%lld / 2), as in PyTorch",
			    inf->op->name, (long long)pad[i],
			    i < 2 ? "height" : "width", (long long)k[i / 2]);
	return 0;
}

/*
 * Check x (input "ix", [N, C, H, W]) of the pooling in "inf": rank 4, a
 * floating-point dtype, and every window inside the padded input (H +
 * pad_top + pad_bottom at least the dilated kernel, likewise the width,
 * refuted with a witness at symbolic sizes); store the output dimensions
 * [N, C, Ho, Wo] in "dims" (see the top of the file). Return 0 or -1.
 */
static int
pool_dims(struct sym__infer *inf, size_t ix, sym_expr **dims)
{
	const sym_shape *x = inf->in[ix];
	const int64_t *k = inf->at.pool.kernel, *s = inf->at.pool.stride;
	const int64_t *dil = inf->at.pool.dilation, *pad = inf->at.pool.pad;
	int64_t c, span, size, o;

	if (sym__rank_is(inf, ix, 4) < 0 || sym__dtype_float(inf, ix) < 0)
		return -1;
	dims[0] = x->dim[0];
	dims[1] = x->dim[1];
	for (size_t i = 0; i < 2; i++) {
		sym_expr *h = x->dim[2 + i], *e;

		if (extent_const(k[i], pad[2 * i], pad[2 * i + 1], dil[i], s[i],
		        inf->at.pool.ceil_mode, &c) < 0 ||
		    (sym_expr_get_const(h, &size) == 0 &&
		        sym__pool_extent(size, k[i], pad[2 * i], pad[2 * i + 1],
		            dil[i], s[i], inf->at.pool.ceil_mode, &o) < 0))
			return sym__infer_fail_attr(inf,
			    dil[i] > 1 ? "dilation" : "kernel",
			    "attribute %s of %s makes the output %s overflow "
			    "64 bits",
			    dil[i] > 1 ? "dilation" : "kernel", inf->op->name,
			    i ? "width" : "height");
		span = dil[i] * (k[i] - 1) + 1;
		e = sym__tmp(inf, sym__add_si(h, pad[2 * i] + pad[2 * i + 1]));
		if (!e)
			return sym__infer_nomem(inf);
		if (sym__require_ge(inf, e,
		        sym__tmp(inf, sym__const(inf->ctx, span)),
		        "the pool window of %s (%lld, the dilated kernel) is "
		        "larger than the padded input %s: dimension %zu of %s "
		        "(%s) plus padding %lld",
		        inf->op->name, (long long)span, i ? "width" : "height",
		        2 + i, sym__in_name(inf, ix), sym__txt_expr(inf, h),
		        (long long)(pad[2 * i] + pad[2 * i + 1])) < 0)
			return -1;
		e = sym__tmp(inf, sym__add_si(h, c));
		e = sym__tmp(inf,
		    sym__fdiv(e, sym__tmp(inf, sym__const(inf->ctx, s[i]))));
		dims[2 + i] = sym__tmp(inf, sym__add_si(e, 1));
		if (!dims[2 + i])
			return sym__infer_nomem(inf);
	}
	return 0;
}

/* The rule of max_pool2d(x) and avg_pool2d(x): [N, C, Ho, Wo] of
 * pool_dims. "inf" is the run. */
int
sym__rule_pool2d(struct sym__infer *inf)
{
	sym_expr *dims[4];

	if (pool_dims(inf, 0, dims) < 0)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, 4, dims);
}

/* Check in "inf" that dy (input 0) has the dtype of x (input 1) and the
 * shape "dims" ("rank" of them) of the forward output; return 0 or -1. */
static int
dy_like(struct sym__infer *inf, size_t rank, sym_expr *const *dims)
{
	const char *fwd = inf->op->id == SYM__OP_MAX_POOL2D_GRAD ? "max_pool2d"
	    : inf->op->id == SYM__OP_AVG_POOL2D_GRAD             ? "avg_pool2d"
	                                             : "global_avg_pool";

	if (sym__same_dtype(inf, 1, 0) < 0)
		return -1;
	return sym__require_dims_like(inf, 0, "dy ", rank, dims,
	    sym__txt_printf(inf, "the output of %s of %s", fwd,
	        sym__in_name(inf, 1)));
}

/* The rule of max_pool2d_grad(dy, x) and avg_pool2d_grad(dy, x): x's
 * shape, dy having the shape of the forward output. "inf" is the run. */
int
sym__rule_pool2d_grad(struct sym__infer *inf)
{
	sym_expr *dims[4];

	if (pool_dims(inf, 1, dims) < 0 || dy_like(inf, 4, dims) < 0)
		return -1;
	return sym__out_same(inf, 1);
}

/* Return the output dimensions [N, C, 1, ...] of global_avg_pool of x
 * (input "ix", rank at least 3, floating point) in "inf", in its
 * scratch memory; NULL on failure. */
static sym_expr **
global_dims(struct sym__infer *inf, size_t ix)
{
	const sym_shape *x = inf->in[ix];
	sym_expr **dims;

	if (sym__rank_at_least(inf, ix, 3) < 0 || sym__dtype_float(inf, ix) < 0)
		return NULL;
	dims = sym__scratch(inf, x->rank, sizeof(*dims));
	if (!dims) {
		sym__infer_nomem(inf);
		return NULL;
	}
	dims[0] = x->dim[0];
	dims[1] = x->dim[1];
	for (size_t d = 2; d < x->rank; d++)
		if (!(dims[d] = sym__tmp(inf, sym__const(inf->ctx, 1)))) {
			sym__infer_nomem(inf);
			return NULL;
		}
	return dims;
}

/* The rule of global_avg_pool(x): [N, C, 1, ...], the mean over every
 * dimension from 2 on. "inf" is the run. */
int
sym__rule_global_avg_pool(struct sym__infer *inf)
{
	sym_expr **dims = global_dims(inf, 0);

	if (!dims)
		return -1;
	return sym__out_shape(inf, inf->in[0]->dtype, inf->in[0]->rank, dims);
}

/* The rule of global_avg_pool_grad(dy, x): x's shape, dy [N, C, 1, ...].
 * "inf" is the run. */
int
sym__rule_global_avg_pool_grad(struct sym__infer *inf)
{
	sym_expr **dims = global_dims(inf, 1);

	if (!dims || dy_like(inf, inf->in[1]->rank, dims) < 0)
		return -1;
	return sym__out_same(inf, 1);
}
