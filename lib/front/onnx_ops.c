/* SPDX-License-Identifier: MIT */
/*
 * ONNX operators onto the registry (DESIGN section 18): one mapping
 * function per group of operators, each checking the attributes it does
 * not support, reading sizes from symbolic shape values
 * (onnx_shapeval.c). The list of supported operators is man page
 * symshard-onnx(7).
 */
#include <stdlib.h>
#include <string.h>

#include "front/onnx_private.h"

/* Define output 0 of "n" as the registry operator "op" on the "k" inputs
 * "in" with the attributes "a" (taken, from sym_attrs_new); 0 or -1. */
static int
def_op(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op, size_t k,
    sym_value *const *in, sym_attrs *a)
{
	return sym__onnx_def(im, n, 0,
	    sym__onnx_emit(im, op, n->output[0], k, in, a));
}

/* Unary elementwise operators. */
static int
map_unary(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	sym_value *x = sym__onnx_in(im, n, 0);

	return x ? sym__onnx_def(im, n, 0,
	               sym__onnx_emit0(im, op, n->output[0], 1, &x))
	         : -1;
}

/* Binary elementwise operators and comparisons (broadcasting). */
static int
map_binary(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	sym_value *in[3];
	size_t k = !strcmp(op, "where") ? 3 : 2;

	if (n->n_input != k)
		return sym__onnx_errorf(im, "%zu inputs, not %zu", n->n_input,
		    k);
	for (size_t i = 0; i < k; i++)
		if (!(in[i] = sym__onnx_in(im, n, i)))
			return -1;
	return sym__onnx_def(im, n, 0,
	    sym__onnx_emit0(im, op, n->output[0], k, in));
}

/* Cast(x, to). */
static int
map_cast(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	sym_dtype dt = sym__onnx_dtype((int32_t)sym__onnx_attr_int(n, "to", 0));
	sym_attrs *a;

	if (!x)
		return -1;
	if (dt == SYM_DT_INVALID)
		return sym__onnx_errorf(im, "cast to an unsupported type");
	a = sym_attrs_new(im->ctx);
	sym_attrs_set_string(a, "dtype", sym_dtype_name(dt));
	return def_op(im, n, "cast", 1, &x, a);
}

/* MatMul(a, b): matmul of two matrices, else batch_matmul. */
static int
map_matmul(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[2] = { sym__onnx_in(im, n, 0), sym__onnx_in(im, n, 1) };

	if (!in[0] || !in[1])
		return -1;
	size_t ra = sym_shape_ndim(sym_value_shape(in[0]));
	size_t rb = sym_shape_ndim(sym_value_shape(in[1]));
	if (ra < 2 || rb < 2)
		return sym__onnx_errorf(im,
		    "operands of rank 1 are not supported");
	return sym__onnx_def(im, n, 0,
	    sym__onnx_emit0(im, ra == 2 && rb == 2 ? "matmul" : "batch_matmul",
	        n->output[0], 2, in));
}

/* Define output 0 of "n" as the registry operator "op" on the two
 * inputs "in" with the attributes "a" (taken; its result named "OUT/what"
 * when a bias follows), followed, when "bias" is
 * not NULL, by "bias" ("add", or "bias_add" over NCHW) of input 2 of
 * "n": a shard clause naming the node shards "op", and the bias follows
 * by propagation (symshard-graph(5), import). 0 or -1. */
static int
biased(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op,
    const char *what, sym_value *const *in, sym_attrs *a, const char *bias)
{
	sym_attrs *b = NULL;

	if (!bias)
		return def_op(im, n, op, 2, in, a);
	char *t = sym__onnx_tmp_name(im, n, what);
	sym_value *p[2] = { t ? sym__onnx_emit(im, op, t, 2, in, a) : NULL,
		sym__onnx_in(im, n, 2) };
	free(t);
	if (!t)
		sym_attrs_free(a);
	if (!p[0] || !p[1])
		return -1;
	im->primary = sym_value_producer(p[0]);
	if (strcmp(bias, "bias_add") == 0) {
		b = sym_attrs_new(im->ctx);
		sym_attrs_set_string(b, "data_format", "NCHW");
		return def_op(im, n, bias, 2, p, b);
	}
	return sym__onnx_def(im, n, 0,
	    sym__onnx_emit0(im, bias, n->output[0], 2, p));
}

/* Gemm(A, B, C): matmul with transA/transB, plus C (alpha = beta = 1). */
static int
map_gemm(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[2] = { sym__onnx_in(im, n, 0), sym__onnx_in(im, n, 1) };
	sym_attrs *a;

	if (!in[0] || !in[1])
		return -1;
	if (sym__onnx_attr_float(n, "alpha", 1) != 1 ||
	    sym__onnx_attr_float(n, "beta", 1) != 1)
		return sym__onnx_errorf(im,
		    "alpha and beta other than 1 are not supported");
	int has_c = n->n_input > 2 && *n->input[2];
	a = sym_attrs_new(im->ctx);
	sym_attrs_set_bool(a, "transpose_a",
	    sym__onnx_attr_int(n, "transA", 0) != 0);
	sym_attrs_set_bool(a, "transpose_b",
	    sym__onnx_attr_int(n, "transB", 0) != 0);
	return biased(im, n, "matmul", "matmul", in, a, has_c ? "add" : NULL);
}

/* Softmax, LogSoftmax: along axis (before opset 13 only the last). */
static int
map_softmax(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	sym_value *x = sym__onnx_in(im, n, 0);

	if (!x)
		return -1;
	int64_t r = (int64_t)sym_shape_ndim(sym_value_shape(x));
	int64_t axis = sym__onnx_attr_int(n, "axis", im->opset < 13 ? 1 : -1);
	if (axis < 0)
		axis += r;
	if (im->opset < 13 && axis != r - 1)
		return sym__onnx_errorf(im,
		    "before opset 13, only the last axis is supported");
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "axis", axis);
	return def_op(im, n, op, 1, &x, a);
}

/* Transpose(x, perm): reversed axes by default. */
static int
map_transpose(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int64_t p[SYM__ONNX_MAX_SV];
	size_t k;

	if (!x)
		return -1;
	size_t r = sym_shape_ndim(sym_value_shape(x));
	if (sym__onnx_ints(im, n, SIZE_MAX, "perm", p, &k) != 1) {
		k = r;
		for (size_t i = 0; i < r; i++)
			p[i] = (int64_t)(r - 1 - i);
	}
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym__onnx_set_ints(im->ctx, a, "perm", p, k);
	return def_op(im, n, "transpose", 1, &x, a);
}

/* Reshape to the list "e" of "k" sizes. */
static sym_value *
reshape_to(struct sym__onnx *im, sym_value *x, const char *out, size_t k,
    sym_expr *const *e)
{
	sym_attrs *a = sym_attrs_new(im->ctx);

	sym_attrs_set_list(a, "shape", k, e);
	return sym__onnx_emit(im, "reshape", out, 1, &x, a);
}

/* Reshape(x, shape): 0 copies the dimension of x (allowzero=0), -1 is
 * inferred by the rule. */
static int
map_reshape(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	sym_expr **s, *e[SYM__ONNX_MAX_SV];
	size_t k;

	if (!x || sym__onnx_sizes(im, n, 1, &s, &k) < 0)
		return -1;
	if (sym__onnx_attr_int(n, "allowzero", 0))
		return sym__onnx_errorf(im, "allowzero=1 is not supported");
	const sym_shape *xs = sym_value_shape(x);
	for (size_t i = 0; i < k; i++) {
		int64_t c;
		if (sym_expr_get_const(s[i], &c) == 0 && c == 0) {
			if (i >= sym_shape_ndim(xs)) {
				for (size_t j = 0; j < i; j++)
					sym_expr_free(e[j]);
				return sym__onnx_errorf(im,
				    "target %zu copies a dimension x lacks", i);
			}
			e[i] = sym_expr_copy(sym_shape_dim(xs, i));
		} else {
			e[i] = sym_expr_copy(s[i]);
		}
	}
	sym_value *v = reshape_to(im, x, n->output[0], k, e);
	for (size_t i = 0; i < k; i++)
		sym_expr_free(e[i]);
	return sym__onnx_def(im, n, 0, v);
}

/* Flatten(x, axis=1): [d0 ... d(axis-1), the rest]. */
static int
map_flatten(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);

	if (!x)
		return -1;
	const sym_shape *s = sym_value_shape(x);
	int64_t r = (int64_t)sym_shape_ndim(s);
	int64_t axis = sym__onnx_attr_int(n, "axis", 1);
	if (axis < 0)
		axis += r;
	if (axis < 0 || axis > r)
		return sym__onnx_errorf(im, "axis %lld outside [0, %lld]",
		    (long long)axis, (long long)r);
	sym_expr *e[2] = { sym_expr_const(im->ctx, 1),
		sym_expr_const(im->ctx, 1) };
	for (int64_t i = 0; i < r; i++)
		e[i >= axis] = sym_expr_mul(e[i >= axis],
		    sym_expr_copy(sym_shape_dim(s, (size_t)i)));
	sym_value *v = reshape_to(im, x, n->output[0], 2, e);
	sym_expr_free(e[0]);
	sym_expr_free(e[1]);
	return sym__onnx_def(im, n, 0, v);
}

/* Read the constant integers "name" of "n", input 1 from opset "since"
 * on and an attribute before, into "v", their number into "*k"; 1 when
 * given, 0 when absent, -1 after an error when not constant. */
static int
const_ints(struct sym__onnx *im, const Onnx__NodeProto *n, int64_t since,
    const char *name, int64_t *v, size_t *k)
{
	int r = sym__onnx_ints(im, n, im->opset >= since ? 1 : SIZE_MAX, name,
	    v, k);

	return r < 0 ? sym__onnx_errorf(im, "the %s must be constants", name)
	             : r;
}

/* Unsqueeze(x, axes): one expand_dims per axis, in increasing order. */
static int
map_unsqueeze(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int64_t ax[SYM__ONNX_MAX_SV];
	size_t k;

	if (!x)
		return -1;
	int given = const_ints(im, n, 13, "axes", ax, &k);
	if (given < 0)
		return -1;
	if (!given)
		return sym__onnx_errorf(im, "the axes must be constants");
	int64_t r = (int64_t)sym_shape_ndim(sym_value_shape(x)) + (int64_t)k;
	for (size_t i = 0; i < k; i++) {
		if (ax[i] < -r || ax[i] >= r)
			return sym__onnx_errorf(im, "axis %lld out of range",
			    (long long)ax[i]);
		ax[i] = ax[i] < 0 ? ax[i] + r : ax[i];
	}
	for (size_t i = 1; i < k; i++)
		for (size_t j = i; j > 0 && ax[j - 1] > ax[j]; j--) {
			int64_t t = ax[j];
			ax[j] = ax[j - 1];
			ax[j - 1] = t;
		}
	for (size_t i = 0; i < k && x; i++) {
		sym_attrs *a = sym_attrs_new(im->ctx);
		char *t =
		    i + 1 < k ? sym__onnx_tmp_name(im, n, "unsqueeze") : NULL;
		sym_attrs_set_int(a, "axis", ax[i]);
		x = sym__onnx_emit(im, "expand_dims", t ? t : n->output[0], 1,
		    &x, a);
		free(t);
	}
	return sym__onnx_def(im, n, 0, x);
}

/* Squeeze(x, axes). */
static int
map_squeeze(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int64_t ax[SYM__ONNX_MAX_SV];
	size_t k = 0;

	if (!x)
		return -1;
	int r = const_ints(im, n, 13, "axes", ax, &k);
	if (r < 0)
		return -1;
	sym_attrs *a = sym_attrs_new(im->ctx);
	if (r == 1)
		sym__onnx_set_ints(im->ctx, a, "axis", ax, k);
	return def_op(im, n, "squeeze", 1, &x, a);
}

/* Concat(x0, ...; axis). */
static int
map_concat(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[SYM__ONNX_MAX_SV];

	if (n->n_input < 1 || n->n_input > SYM__ONNX_MAX_SV)
		return sym__onnx_errorf(im, "%zu inputs", n->n_input);
	for (size_t i = 0; i < n->n_input; i++)
		if (!(in[i] = sym__onnx_in(im, n, i)))
			return -1;
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "axis", sym__onnx_attr_int(n, "axis", 0));
	return def_op(im, n, "concat", n->n_input, in, a);
}

/* Gather(data, indices; axis). */
static int
map_gather(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[2] = { sym__onnx_in(im, n, 0), sym__onnx_in(im, n, 1) };

	if (!in[0] || !in[1])
		return -1;
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "axis", sym__onnx_attr_int(n, "axis", 0));
	return def_op(im, n, "gather", 2, in, a);
}

/* ReduceSum/Mean/Max/Min/Prod(x, axes; keepdims=1): the axes are an
 * input from opset 13 (ReduceSum) or 18 (the others). */
static int
map_reduce(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int64_t ax[SYM__ONNX_MAX_SV];
	size_t k = 0;

	if (!x)
		return -1;
	int r = const_ints(im, n, !strcmp(op, "reduce_sum") ? 13 : 18, "axes",
	    ax, &k);
	if (r < 0)
		return -1;
	if ((r == 0 || k == 0) &&
	    sym__onnx_attr_int(n, "noop_with_empty_axes", 0))
		return sym__onnx_errorf(im,
		    "noop_with_empty_axes=1 is not supported");
	sym_attrs *a = sym_attrs_new(im->ctx);
	if (r == 1 && k)
		sym__onnx_set_ints(im->ctx, a, "axis", ax, k);
	sym_attrs_set_bool(a, "keep_dims",
	    sym__onnx_attr_int(n, "keepdims", 1) != 0);
	return def_op(im, n, op, 1, &x, a);
}

/* The spatial attributes of Conv and the pools, for two dimensions:
 * strides, dilations (1), pads (ONNX's begin, begin, end, end to
 * symshard's top, bottom, left, right) and kernel_shape when "kernel";
 * 0 or -1. */
static int
spatial(struct sym__onnx *im, const Onnx__NodeProto *n, sym_attrs *a,
    int kernel, int dilation)
{
	int64_t v[SYM__ONNX_MAX_SV];
	size_t k;
	const Onnx__AttributeProto *ap = sym__onnx_attr(n, "auto_pad");

	if (ap && ap->has_s &&
	    !(ap->s.len == 6 && !memcmp(ap->s.data, "NOTSET", 6)))
		return sym__onnx_errorf(im, "auto_pad is not supported");
	if (kernel) {
		if (sym__onnx_ints(im, n, SIZE_MAX, "kernel_shape", v, &k) !=
		        1 ||
		    k != 2)
			return sym__onnx_errorf(im,
			    "kernel_shape must give two dimensions");
		sym__onnx_set_ints(im->ctx, a, "kernel", v, 2);
	}
	if (sym__onnx_ints(im, n, SIZE_MAX, "strides", v, &k) == 1) {
		if (k != 2)
			return sym__onnx_errorf(im, "strides of %zu", k);
		sym__onnx_set_ints(im->ctx, a, "stride", v, 2);
	} else if (kernel) {
		int64_t one[2] = { 1, 1 };
		sym__onnx_set_ints(im->ctx, a, "stride", one, 2);
	}
	if (sym__onnx_ints(im, n, SIZE_MAX, "dilations", v, &k) == 1) {
		if (k != 2)
			return sym__onnx_errorf(im, "dilations of %zu", k);
		if (!dilation && (v[0] != 1 || v[1] != 1))
			return sym__onnx_errorf(im,
			    "dilations are not supported");
		if (dilation)
			sym__onnx_set_ints(im->ctx, a, "dilation", v, 2);
	}
	if (sym__onnx_ints(im, n, SIZE_MAX, "pads", v, &k) == 1) {
		if (k != 4)
			return sym__onnx_errorf(im, "pads of %zu", k);
		int64_t p[4] = { v[0], v[2], v[1], v[3] };
		sym__onnx_set_ints(im->ctx, a, "pad", p, 4);
	}
	return 0;
}

/* Conv(x, w, b): conv2d, then bias_add. */
static int
map_conv(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[2] = { sym__onnx_in(im, n, 0), sym__onnx_in(im, n, 1) };

	if (!in[0] || !in[1])
		return -1;
	if (sym_shape_ndim(sym_value_shape(in[0])) != 4)
		return sym__onnx_errorf(im,
		    "only two spatial dimensions are supported");
	sym_attrs *a = sym_attrs_new(im->ctx);
	if (spatial(im, n, a, 0, 1) < 0) {
		sym_attrs_free(a);
		return -1;
	}
	sym_attrs_set_int(a, "group", sym__onnx_attr_int(n, "group", 1));
	return biased(im, n, "conv2d", "conv", in, a,
	    n->n_input < 3 || !*n->input[2] ? NULL : "bias_add");
}

/* MaxPool, AveragePool (two spatial dimensions, one output). */
static int
map_pool(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int max = !strcmp(op, "max_pool2d");

	if (!x)
		return -1;
	if (n->n_output > 1 && *n->output[1])
		return sym__onnx_errorf(im,
		    "the Indices output is not "
		    "supported");
	if (max && sym__onnx_attr_int(n, "storage_order", 0))
		return sym__onnx_errorf(im, "storage_order=1 is not supported");
	sym_attrs *a = sym_attrs_new(im->ctx);
	if (spatial(im, n, a, 1, max) < 0) {
		sym_attrs_free(a);
		return -1;
	}
	sym_attrs_set_bool(a, "ceil_mode",
	    sym__onnx_attr_int(n, "ceil_mode", 0) != 0);
	if (!max)
		sym_attrs_set_bool(a, "count_include_pad",
		    sym__onnx_attr_int(n, "count_include_pad", 0) != 0);
	return def_op(im, n, op, 1, &x, a);
}

/* LayerNormalization(x, scale, bias; axis=-1, epsilon). */
static int
map_layer_norm(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[3] = { sym__onnx_in(im, n, 0), sym__onnx_in(im, n, 1),
		NULL };

	if (!in[0] || !in[1])
		return -1;
	if (n->n_input < 3 || !*n->input[2])
		return sym__onnx_errorf(im,
		    "a LayerNormalization without "
		    "bias is not supported");
	if (!(in[2] = sym__onnx_in(im, n, 2)))
		return -1;
	for (size_t i = 1; i < n->n_output; i++)
		if (*n->output[i])
			return sym__onnx_errorf(im,
			    "the Mean and InvStdDev outputs are not "
			    "supported");
	int64_t axis = sym__onnx_attr_int(n, "axis", -1);
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "begin_norm_axis", axis);
	sym_attrs_set_int(a, "begin_params_axis", axis);
	sym_attrs_set_float(a, "epsilon",
	    sym__onnx_attr_float(n, "epsilon", 1e-5));
	return def_op(im, n, "layer_norm", 3, in, a);
}

/* BatchNormalization(x, scale, bias, mean, var; epsilon, momentum,
 * training_mode): batch_norm, in inference unless training_mode is 1 or
 * the import says "training" (then with the batch's statistics, the
 * running ones updated in place). Running statistics that are
 * initializers become state: not trained, saved in checkpoints; in
 * training they must be. ONNX's momentum weighs the running value
 * (0.9), symshard's the batch value (0.1, as PyTorch). */
static int
map_batch_norm(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *in[5];
	int training =
	    im->training || sym__onnx_attr_int(n, "training_mode", 0) != 0;

	if (n->n_input != 5)
		return sym__onnx_errorf(im,
		    "BatchNormalization takes 5 inputs, not %zu", n->n_input);
	for (size_t i = 0; i < 5; i++)
		if (!(in[i] = sym__onnx_in(im, n, i)))
			return -1;
	if (n->n_output > 3)
		return sym__onnx_errorf(im, "%zu outputs, not at most 3",
		    n->n_output);
	for (size_t i = 1; i < n->n_output; i++)
		if (*n->output[i] && !training)
			return sym__onnx_errorf(im,
			    "output %zu ('%s'), a running statistic, is only "
			    "made in training",
			    i, n->output[i]);
	for (size_t i = 3; i < 5; i++) {
		int param = sym_value_get_kind(in[i]) == SYM_VALUE_PARAM;
		if (training && !param)
			return sym__onnx_errorf(im,
			    "in training, the running statistics must be "
			    "initializers, but %s is not",
			    n->input[i]);
		if (training && sym_value_is_state(in[i]))
			return sym__onnx_errorf(im,
			    "in training, %s would be updated by two "
			    "BatchNormalization nodes",
			    n->input[i]);
		if (param && sym_value_set_state(in[i], 1) < 0)
			return sym__onnx_errorf(im, "cannot make %s state",
			    n->input[i]);
	}
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_bool(a, "training", training);
	sym_attrs_set_float(a, "epsilon",
	    sym__onnx_attr_float(n, "epsilon", 1e-5));
	sym_attrs_set_float(a, "momentum",
	    1 - sym__onnx_attr_float(n, "momentum", 0.9));
	if (def_op(im, n, "batch_norm", 5, in, a) < 0)
		return -1;
	/* Outputs 1 and 2, the updated running statistics: the results of
	 * the batch_norm_update that the graph adds after a batch_norm in
	 * training, named after the statistics (lib/graph/check.c), as
	 * ONNX computes them: momentum * running + (1 - momentum) * the
	 * batch's (its unbiased variance, as PyTorch). */
	for (size_t i = 1; i < n->n_output; i++) {
		if (!*n->output[i])
			continue;
		char *nm = sym__asprintf_ctx(im->ctx, "%s.next",
		    sym_value_name(in[i + 2]));
		sym_value *v = nm ? sym_graph_find_value(im->g, nm) : NULL;
		free(nm);
		if (!v)
			return sym__onnx_errorf(im,
			    "no update of the running statistic %s for output "
			    "%zu",
			    n->input[i + 2], i);
		/* under the ONNX name, which the update's output is not */
		if (sym__onnx_def(im, n, i,
		        sym__onnx_emit0(im, "identity", n->output[i], 1, &v)) <
		    0)
			return -1;
	}
	return 0;
}

/* Expand(x, shape): ONNX broadcasts both ways; the target becomes that
 * broadcast, -1 where x keeps its dimension. */
static int
map_expand(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	sym_expr **s, *e[SYM__ONNX_MAX_SV];
	size_t k;

	if (!x || sym__onnx_sizes(im, n, 1, &s, &k) < 0)
		return -1;
	const sym_shape *xs = sym_value_shape(x);
	size_t r = sym_shape_ndim(xs), out = k > r ? k : r;
	for (size_t i = 0; i < out; i++) {
		int64_t c;
		size_t si = i + k - out, xi = i + r - out;
		int t_one = i + k >= out &&
		    sym_expr_get_const(s[si], &c) == 0 && c == 1;
		if (i + k < out || (t_one && i + r >= out))
			e[i] = sym_expr_const(im->ctx, -1);
		else
			e[i] = sym_expr_copy(s[si]);
		(void)xi;
	}
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_list(a, "shape", out, e);
	for (size_t i = 0; i < out; i++)
		sym_expr_free(e[i]);
	return def_op(im, n, "expand", 1, &x, a);
}

/* ConstantOfShape(shape; value): the one-element value (a frozen param
 * with its data) expanded to the shape. */
static int
map_constant_of_shape(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_expr **s;
	size_t k;
	const Onnx__AttributeProto *va = sym__onnx_attr(n, "value");
	Onnx__TensorProto zero = ONNX__TENSOR_PROTO__INIT;
	float z = 0;
	int64_t one = 1;

	if (sym__onnx_sizes(im, n, 0, &s, &k) < 0)
		return -1;
	char *t = sym__onnx_tmp_name(im, n, "value");
	struct sym__oval *o = t ? sym__onnx_define(im, t) : NULL;
	free(t);
	if (!o)
		return -1;
	if (va && va->t) {
		o->init = va->t;
	} else {
		zero.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
		zero.n_dims = 1;
		zero.dims = &one;
		zero.n_float_data = 1;
		zero.float_data = &z;
		o->init = &zero;
	}
	o->init_dir = im->dir;
	sym_value *x = sym__onnx_value(im, o);
	o->init = NULL;
	if (!x)
		return -1;
	sym_value *x1 = x;
	if (sym_shape_ndim(sym_value_shape(x)) == 0 || k == 0)
		return sym__onnx_errorf(im, "a scalar result is not supported");
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_list(a, "shape", k, s);
	return def_op(im, n, "expand", 1, &x1, a);
}

/* Trilu(x, k; upper=1). */
static int
map_trilu(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int64_t kv[SYM__ONNX_MAX_SV];
	size_t k = 0;

	if (!x)
		return -1;
	int r = sym__onnx_ints(im, n, 1, NULL, kv, &k);
	if (r < 0 || (r == 1 && k != 1))
		return sym__onnx_errorf(im, "k must be a constant");
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "diagonal", r == 1 ? kv[0] : 0);
	return def_op(im, n,
	    sym__onnx_attr_int(n, "upper", 1) ? "triu" : "tril", 1, &x, a);
}

/* Dropout in inference: the identity (no mask output; training_mode,
 * when given, a constant false). */
static int
map_dropout(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	int64_t mode[SYM__ONNX_MAX_SV];
	size_t k = 0;
	int given = sym__onnx_ints(im, n, 2, NULL, mode, &k);

	if (n->n_output > 1 && *n->output[1])
		return sym__onnx_errorf(im, "the mask output is not supported");
	if (given < 0 || (given > 0 && (k != 1 || mode[0] != 0)))
		return sym__onnx_errorf(im,
		    "training_mode must be a constant false (inference only)");
	return map_unary(im, n, "identity");
}

/* Max, Min of exactly two operands. */
static int
map_minmax(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	if (n->n_input != 2)
		return sym__onnx_errorf(im, "only two operands are supported");
	return map_binary(im, n, op);
}

/* Make the frozen one-element param "name" holding "v" in "dt"; it, or
 * NULL. */
static sym_value *
scalar_param(struct sym__onnx *im, const char *name, sym_dtype dt, double v)
{
	Onnx__TensorProto t = ONNX__TENSOR_PROTO__INIT;
	int64_t one = 1, iv = (int64_t)v;
	float fv = (float)v;
	int32_t i32 = (int32_t)iv;
	struct sym__oval *o = sym__onnx_define(im, name);

	if (!o)
		return NULL;
	t.n_dims = 1;
	t.dims = &one;
	if (dt == SYM_DT_F32) {
		t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
		t.n_float_data = 1;
		t.float_data = &fv;
	} else if (dt == SYM_DT_I32) {
		t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
		t.n_int32_data = 1;
		t.int32_data = &i32;
	} else {
		t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
		t.n_int64_data = 1;
		t.int64_data = &iv;
	}
	o->init = &t;
	sym_value *pv = sym__onnx_value(im, o);
	o->init = NULL;
	return pv;
}

/* Range(start, limit, delta) with constant start and delta (delta > 0)
 * and a limit known as an expression: start + delta * the exclusive
 * running sum of ones expanded to the length ceildiv(limit - start,
 * delta). A range of constants folds as a shape value. */
static int
map_range(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *o[3];
	int64_t start, delta;

	for (size_t i = 0; i < 3; i++) {
		o[i] = i < n->n_input ? sym__onnx_find(im, n->input[i]) : NULL;
		sym_expr **e;
		size_t k;
		if (o[i] && !o[i]->has_sv && o[i]->init &&
		    o[i]->init->n_dims == 0) {
			int64_t v;
			size_t m;
			if (sym__onnx_tensor_ints(im, o[i]->init,
			        o[i]->init_dir, &v, 1, &m) < 0)
				return -1;
			sym_expr *x = sym_expr_const(im->ctx, v);
			if (sym__onnx_set_sv(im, o[i], SYM_DT_I64, 0, 1, &x) <
			    0)
				return -1;
		}
		(void)e;
		(void)k;
		if (!o[i] || !o[i]->has_sv || o[i]->sv_n != 1)
			return sym__onnx_errorf(im,
			    "input %zu must be an integer known at import", i);
	}
	if (sym_expr_get_const(o[0]->sv[0], &start) < 0 ||
	    sym_expr_get_const(o[2]->sv[0], &delta) < 0 || delta < 1)
		return sym__onnx_errorf(im,
		    "start and a positive delta must be constants");
	sym_dtype dt = o[0]->dtype == SYM_DT_I32 ? SYM_DT_I32 : SYM_DT_I64;
	sym_expr *len =
	    sym_expr_ceildiv_si(sym_expr_add_si(sym_expr_copy(o[1]->sv[0]),
	                            -start),
	        delta);
	len = sym_prove_simplify(im->ctx, len);
	int64_t c;
	if (len && sym_expr_get_const(len, &c) == 0 && c >= 0 &&
	    c <= SYM__ONNX_MAX_SV) {
		sym_expr *e[SYM__ONNX_MAX_SV];
		sym_expr_free(len);
		for (int64_t i = 0; i < c; i++)
			e[i] = sym_expr_const(im->ctx, start + i * delta);
		struct sym__oval *out = sym__onnx_define(im, n->output[0]);
		return out &&
		        sym__onnx_set_sv(im, out, dt, 1, (size_t)c, e) == 0
		    ? 0
		    : -1;
	}
	char *t1 = sym__onnx_tmp_name(im, n, "one"),
	     *t2 = sym__onnx_tmp_name(im, n, "ones"),
	     *t3 = sym__onnx_tmp_name(im, n, "index"),
	     *t7 = sym__onnx_tmp_name(im, n, "index64");
	/* the executor's running sums are not in i64: i32, then a cast */
	sym_value *v = t1 ? scalar_param(im, t1, SYM_DT_I32, 1) : NULL;
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_list(a, "shape", 1, &len);
	sym_expr_free(len);
	v = v && t2 ? sym__onnx_emit(im, "expand", t2, 1, &v, a)
	            : (sym_attrs_free(a), NULL);
	a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "axis", 0);
	sym_attrs_set_bool(a, "exclusive", 1);
	int plain = start == 0 && delta == 1;
	int cast = dt == SYM_DT_I64;
	v = v && t3 ? sym__onnx_emit(im, "cumsum",
	                  plain && !cast ? n->output[0] : t3, 1, &v, a)
	            : (sym_attrs_free(a), NULL);
	if (v && cast) {
		a = sym_attrs_new(im->ctx);
		sym_attrs_set_string(a, "dtype", "i64");
		v = t7 ? sym__onnx_emit(im, "cast", plain ? n->output[0] : t7,
		             1, &v, a)
		       : (sym_attrs_free(a), NULL);
	}
	free(t1);
	free(t2);
	free(t3);
	free(t7);
	if (v && !plain) {
		char *t4 = sym__onnx_tmp_name(im, n, "delta"),
		     *t5 = sym__onnx_tmp_name(im, n, "scaled"),
		     *t6 = sym__onnx_tmp_name(im, n, "start");
		sym_value *p[2] = { v,
			t4 ? scalar_param(im, t4, dt, (double)delta) : NULL };
		v = p[1] && t5 ? sym__onnx_emit0(im, "mul", t5, 2, p) : NULL;
		p[0] = v;
		p[1] = v && t6 ? scalar_param(im, t6, dt, (double)start) : NULL;
		v = p[1] ? sym__onnx_emit0(im, "add", n->output[0], 2, p)
		         : NULL;
		free(t4);
		free(t5);
		free(t6);
	}
	return sym__onnx_def(im, n, 0, v);
}

/* Split(x, split; axis=0) into equal parts. */
static int
map_split(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	int64_t sz[SYM__ONNX_MAX_SV];
	size_t k = 0;

	if (!x)
		return -1;
	if (n->n_output < 1 || n->n_output > SYM__ONNX_MAX_SV)
		return sym__onnx_errorf(im, "%zu outputs", n->n_output);
	int r = const_ints(im, n, 13, "split", sz, &k);
	if (r < 0)
		return -1;
	for (size_t i = 1; r == 1 && i < k; i++)
		if (sz[i] != sz[0])
			return sym__onnx_errorf(im,
			    "only equal parts are supported");
	if (r == 1 && k != n->n_output)
		return sym__onnx_errorf(im, "%zu sizes for %zu outputs", k,
		    n->n_output);
	sym_attrs *a = sym_attrs_new(im->ctx);
	sym_attrs_set_int(a, "axis", sym__onnx_attr_int(n, "axis", 0));
	sym_attrs_set_int(a, "output_num", (int64_t)n->n_output);
	sym_node *nd = sym_graph_add_op(im->g, "split", n->n_output,
	    (const char *const *)n->output, 1, &x, a, NULL);
	sym_attrs_free(a);
	if (!nd)
		return sym__graph_ctx_error(im->g, NULL);
	if (nd->failed)
		return sym__onnx_errorf(im, "its split does not apply");
	if (r == 1) {
		const sym_shape *s = sym_value_shape(sym_node_output(nd, 0));
		int64_t ax = sym__onnx_attr_int(n, "axis", 0), d;
		ax = ax < 0 ? ax + (int64_t)sym_shape_ndim(s) : ax;
		if (sym_expr_get_const(sym_shape_dim(s, (size_t)ax), &d) == 0 &&
		    d != sz[0])
			return sym__onnx_errorf(im,
			    "parts of %lld, not the %lld given", (long long)d,
			    (long long)sz[0]);
	}
	for (size_t i = 0; i < n->n_output; i++)
		if (sym__onnx_def(im, n, i, sym_node_output(nd, i)) < 0)
			return -1;
	return 0;
}

/* Read the constant number of input "i" of "n" (one element) into "*v";
 * 1 when given, 0 when absent, -1 when not a constant. */
static int
number_of(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i, double *v)
{
	if (i >= n->n_input || !*n->input[i])
		return 0;
	struct sym__oval *o = sym__onnx_find(im, n->input[i]);
	int64_t iv;
	if (o && o->has_sv) {
		if (o->sv_n != 1 || sym_expr_get_const(o->sv[0], &iv) < 0)
			return -1;
		*v = (double)iv;
		return 1;
	}
	if (!o || !o->init)
		return -1;
	sym_dtype dt = sym__onnx_dtype(o->init->data_type);
	size_t bytes;
	if (dt != SYM_DT_F32 && dt != SYM_DT_F64)
		return -1;
	void *d = sym__onnx_tensor_data(im, o->init, o->init_dir, &bytes);
	if (!d)
		return -1;
	int ok = bytes == sym_dtype_size(dt);
	if (ok)
		*v = dt == SYM_DT_F32 ? (double)*(float *)d : *(double *)d;
	free(d);
	return ok ? 1 : -1;
}

/* Clip(x, min, max): bounds that are constants (inputs from opset 11,
 * attributes before), each optional. */
static int
map_clip(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	double b[2];
	int have[2];

	if (!x)
		return -1;
	for (size_t i = 0; i < 2; i++) {
		const char *name = i ? "max" : "min";
		have[i] = number_of(im, n, i + 1, &b[i]);
		if (have[i] < 0)
			return sym__onnx_errorf(im,
			    "its %s must be a constant of one element", name);
		if (!have[i] && sym__onnx_attr(n, name)) {
			b[i] = sym__onnx_attr_float(n, name, 0);
			have[i] = 1;
		}
	}
	sym_attrs *a = sym_attrs_new(im->ctx);
	for (size_t i = 0; i < 2; i++)
		if (have[i])
			sym_attrs_set_float(a, i ? "max" : "min", b[i]);
	return def_op(im, n, "clip", 1, &x, a);
}

struct mapping {
	const char *onnx;
	const char *op; /* the registry operator, for the generic kinds */
	int (*map)(struct sym__onnx *, const Onnx__NodeProto *, const char *);
};

/* Adapters of the mappings that take no operator name. */
#define ADAPT(F)                                                         \
	static int F##_a(struct sym__onnx *im, const Onnx__NodeProto *n, \
	    const char *op)                                              \
	{                                                                \
		(void)op;                                                \
		return F(im, n);                                         \
	}
ADAPT(map_cast)
ADAPT(map_matmul)
ADAPT(map_gemm)
ADAPT(map_transpose)
ADAPT(map_reshape)
ADAPT(map_flatten)
ADAPT(map_unsqueeze)
ADAPT(map_squeeze)
ADAPT(map_concat)
ADAPT(map_gather)
ADAPT(map_conv)
ADAPT(map_layer_norm)
ADAPT(map_batch_norm)
ADAPT(map_expand)
ADAPT(map_constant_of_shape)
ADAPT(map_trilu)
ADAPT(map_dropout)
ADAPT(map_range)
ADAPT(map_split)
ADAPT(map_clip)
ADAPT(sym__onnx_map_slice)

/* Sorted by ONNX name. */
static const struct mapping mappings[] = {
	{ "Abs", "abs", map_unary },
	{ "Add", "add", map_binary },
	{ "And", "logical_and", map_binary },
	{ "AveragePool", "avg_pool2d", map_pool },
	{ "BatchNormalization", NULL, map_batch_norm_a },
	{ "Cast", NULL, map_cast_a },
	{ "Ceil", "ceil", map_unary },
	{ "Clip", NULL, map_clip_a },
	{ "Concat", NULL, map_concat_a },
	{ "Constant", NULL, NULL },
	{ "ConstantOfShape", NULL, map_constant_of_shape_a },
	{ "Conv", NULL, map_conv_a },
	{ "Div", "div", map_binary },
	{ "Dropout", NULL, map_dropout_a },
	{ "Equal", "equal", map_binary },
	{ "Erf", "erf", map_unary },
	{ "Exp", "exp", map_unary },
	{ "Expand", NULL, map_expand_a },
	{ "Flatten", NULL, map_flatten_a },
	{ "Floor", "floor", map_unary },
	{ "Gather", NULL, map_gather_a },
	{ "Gemm", NULL, map_gemm_a },
	{ "GlobalAveragePool", "global_avg_pool", map_unary },
	{ "Greater", "greater", map_binary },
	{ "GreaterOrEqual", "greater_equal", map_binary },
	{ "Identity", "identity", map_unary },
	{ "LayerNormalization", NULL, map_layer_norm_a },
	{ "Less", "less", map_binary },
	{ "LessOrEqual", "less_equal", map_binary },
	{ "Log", "log", map_unary },
	{ "LogSoftmax", "log_softmax", map_softmax },
	{ "MatMul", NULL, map_matmul_a },
	{ "Max", "maximum", map_minmax },
	{ "MaxPool", "max_pool2d", map_pool },
	{ "Min", "minimum", map_minmax },
	{ "Mul", "mul", map_binary },
	{ "Neg", "neg", map_unary },
	{ "Not", "logical_not", map_unary },
	{ "Or", "logical_or", map_binary },
	{ "Pow", "pow", map_binary },
	{ "Range", NULL, map_range_a },
	{ "Reciprocal", "reciprocal", map_unary },
	{ "ReduceMax", "reduce_max", map_reduce },
	{ "ReduceMean", "reduce_mean", map_reduce },
	{ "ReduceMin", "reduce_min", map_reduce },
	{ "ReduceProd", "reduce_prod", map_reduce },
	{ "ReduceSum", "reduce_sum", map_reduce },
	{ "Relu", "relu", map_unary },
	{ "Reshape", NULL, map_reshape_a },
	{ "Shape", NULL, NULL },
	{ "Sigmoid", "sigmoid", map_unary },
	{ "Sign", "sign", map_unary },
	{ "Size", NULL, NULL },
	{ "Slice", NULL, sym__onnx_map_slice_a },
	{ "Softmax", "softmax", map_softmax },
	{ "Split", NULL, map_split_a },
	{ "Sqrt", "sqrt", map_unary },
	{ "Squeeze", NULL, map_squeeze_a },
	{ "Sub", "sub", map_binary },
	{ "Tanh", "tanh", map_unary },
	{ "Transpose", NULL, map_transpose_a },
	{ "Trilu", NULL, map_trilu_a },
	{ "Unsqueeze", NULL, map_unsqueeze_a },
	{ "Where", "where", map_binary },
};

#define N_MAPPINGS (sizeof(mappings) / sizeof(mappings[0]))

/* Set "*names" (may be NULL) to the supported ONNX operators, sorted,
 * and return their number. */
size_t
sym__onnx_supported(const char *const **names)
{
	static const char *list[N_MAPPINGS];

	if (names) {
		for (size_t i = 0; i < N_MAPPINGS; i++)
			list[i] = mappings[i].onnx;
		*names = list;
	}
	return N_MAPPINGS;
}

/* Map node "n" of "im" onto the registry; 0, or -1 after an error naming
 * it (an unmapped operator or attribute, or its operator's failure). */
int
sym__onnx_map_node(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	const char *op = n->op_type ? n->op_type : "";
	size_t lo = 0, hi = N_MAPPINGS;

	if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))
		return sym__onnx_errorf(im, "domain '%s' is not supported",
		    n->domain);
	if (!n->n_output || !*n->output[0])
		return sym__onnx_errorf(im, "the node has no output");
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(op, mappings[mid].onnx);
		if (!c) {
			if (!mappings[mid].map)
				return sym__onnx_errorf(im,
				    "its inputs are not shape values known at "
				    "import");
			return mappings[mid].map(im, n, mappings[mid].op);
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return sym__onnx_errorf(im, "operator %s is not supported", op);
}
