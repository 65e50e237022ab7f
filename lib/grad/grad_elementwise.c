/* SPDX-License-Identifier: MIT */
/*
 * Gradient rules of the elementwise family. Unary operators multiply the
 * output's gradient by their derivative (relu_grad, gelu_grad, ...: one
 * operator each, so that no constant tensor is needed); binary operators
 * broadcast, so the gradient of each operand is summed over the
 * dimensions broadcasting expanded (sum_to). Ties of maximum and minimum
 * split the gradient equally (maximum_grad, minimum_grad). cast's
 * gradient is cast back; integer operands get none. erf, rsqrt,
 * reciprocal, clip, silu and softplus have their gradient operators
 * (erf_grad, ...), abs multiplies by sign(x), sign, floor and ceil give
 * zeros, pow's pow_grad gives both operands' gradients like
 * maximum_grad, and where routes dy through the mask to a and b (zeros
 * elsewhere); comparisons and logical operators give bool, which no
 * gradient flows through.
 */
#include <math.h>
#include <stdlib.h>

#include "grad/grad_private.h"

/* Give input 0 of the current node of "gr" the result of "op" on "a"
 * and "b" (mirroring "ma" and "mb"; "b" NULL for a unary "op") as role
 * "role"; return 0 or -1. */
static int
unary_to(struct sym__grad *gr, int role, const char *op, sym_value *a, int ma,
    sym_value *b, int mb)
{
	sym_value *in[2] = { a, b };
	int mirror[2] = { ma, mb };

	return sym__gemit_to(gr, 0, role, op, b ? 2 : 1, in, NULL, mirror);
}

/* The rule of relu: dx = relu_grad(dy, x); "gr", "n", "dy" as for every
 * rule (grad_private.h). */
int
sym__grad_relu(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "relu_grad", dy[0], SYM__MIRROR_OUT(0), n->in[0],
	    SYM__MIRROR_IN(0));
}

/* Give input 0 of the current node of "gr" the result of "op" on "dy"
 * (mirroring the output) and "v" (mirroring "mv") with the attributes
 * "at" (consumed; NULL after a failure to make them, an error at node
 * "n"); return 0 or -1. */
static int
pair_to(struct sym__grad *gr, sym_node *n, const char *op, sym_value *dy,
    sym_value *v, int mv, sym_attrs *at)
{
	sym_value *in[2] = { dy, v };
	int mirror[2] = { SYM__MIRROR_OUT(0), mv };
	sym_value *r;

	if (!at) {
		sym__graph_ctx_error(gr->g, &n->loc);
		return -1;
	}
	r = sym__gemit(gr, 1, op, 2, in, at, sym__gtarget(gr, 0), mirror);
	sym_attrs_free(at);
	return r ? 0 : -1;
}

/* Return new attributes of the current node of "gr" with the number
 * "name" set to "v" and "name2" to "v2" ("name2" NULL: none), or NULL. */
static sym_attrs *
numbers(struct sym__grad *gr, const char *name, double v, const char *name2,
    double v2)
{
	sym_attrs *at = sym__gattrs(gr);

	if (at && name && sym_attrs_set_float(at, name, v) < 0)
		goto fail;
	if (at && name2 && sym_attrs_set_float(at, name2, v2) < 0)
		goto fail;
	return at;
fail:
	sym_attrs_free(at);
	return NULL;
}

/* The rule of gelu: dx = gelu_grad(dy, x), with the forward node's
 * approximate. */
int
sym__grad_gelu(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = sym__gattrs(gr);
	if (at && n->at.elementwise.approximate &&
	    sym_attrs_set_string(at, "approximate", "tanh") < 0) {
		sym_attrs_free(at);
		at = NULL;
	}
	return pair_to(gr, n, "gelu_grad", dy[0], n->in[0], SYM__MIRROR_IN(0),
	    at);
}

/* The rule of tanh: dx = tanh_grad(dy, y). */
int
sym__grad_tanh(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "tanh_grad", dy[0], SYM__MIRROR_OUT(0),
	    n->out[0], SYM__MIRROR_OUT(0));
}

/* The rule of sigmoid: dx = sigmoid_grad(dy, y). */
int
sym__grad_sigmoid(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "sigmoid_grad", dy[0], SYM__MIRROR_OUT(0),
	    n->out[0], SYM__MIRROR_OUT(0));
}

/* The rule of sqrt: dx = sqrt_grad(dy, y), dy / (2 y). */
int
sym__grad_sqrt(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "sqrt_grad", dy[0], SYM__MIRROR_OUT(0),
	    n->out[0], SYM__MIRROR_OUT(0));
}

/* The rule of exp: dx = dy * y. */
int
sym__grad_exp(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "mul", dy[0], SYM__MIRROR_OUT(0), n->out[0],
	    SYM__MIRROR_OUT(0));
}

/* The rule of log: dx = dy / x. */
int
sym__grad_log(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "div", dy[0], SYM__MIRROR_OUT(0), n->in[0],
	    SYM__MIRROR_IN(0));
}

/* The rule of neg: dx = -dy. */
int
sym__grad_neg(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	(void)n;
	return unary_to(gr, 1, "neg", dy[0], SYM__MIRROR_OUT(0), NULL, 0);
}

/* The rule of identity: dx = dy. */
int
sym__grad_identity(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	(void)n;
	return sym__gpass(gr, 0, dy[0], SYM__MIRROR_OUT(0));
}

/* The rule of cast: dx = dy cast back to the dtype of x (a floating
 * dtype: integer inputs get no gradient). */
int
sym__grad_cast(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	const sym_shape *x = sym__value_shape(n->in[0]);
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = sym__gattrs(gr);
	return sym__gemit_dx(gr, n, "cast", dy[0], at,
	    at &&
	        sym_attrs_set_string(at, "dtype",
	            sym_dtype_name(sym_shape_dtype(x))) == 0);
}

/* The rule of add: each operand gets dy summed to its shape. */
int
sym__grad_add(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	(void)n;
	if (sym__gunbroadcast(gr, 0, dy[0], 1) < 0)
		return -1;
	return sym__gunbroadcast(gr, 1, dy[0], 2);
}

/* The rule of sub: a gets dy, b gets -dy, each summed to its shape. */
int
sym__grad_sub(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	int mirror = SYM__MIRROR_OUT(0);
	sym_value *neg;

	(void)n;
	if (sym__gunbroadcast(gr, 0, dy[0], 1) < 0)
		return -1;
	if (!sym__gtarget(gr, 1))
		return 0;
	neg = sym__gemit(gr, 2, "neg", 1, &dy[0], NULL, NULL, &mirror);
	return neg ? sym__gunbroadcast(gr, 1, neg, 3) : -1;
}

/* The rule of mul: a gets dy * b, b gets dy * a, each summed to its
 * shape. */
int
sym__grad_mul(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	for (size_t i = 0; i < 2; i++) {
		sym_value *in[2] = { dy[0], n->in[1 - i] }, *v;
		int mirror[2] = { SYM__MIRROR_OUT(0),
			SYM__MIRROR_IN((int)(1 - i)) };

		if (!sym__gtarget(gr, i))
			continue;
		v = sym__gemit(gr, 1 + 2 * (int)i, "mul", 2, in, NULL, NULL,
		    mirror);
		if (!v || sym__gunbroadcast(gr, i, v, 2 + 2 * (int)i) < 0)
			return -1;
	}
	return 0;
}

/* The rule of div: with t = dy / b, a gets t and b gets -t * y, each
 * summed to its shape. */
int
sym__grad_div(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_value *in[2] = { dy[0], n->in[1] }, *t, *u, *v;
	int m_t[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(1) };
	int m_u[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_OUT(0) };
	int m_v = SYM__MIRROR_OUT(0);

	t = sym__gemit(gr, 1, "div", 2, in, NULL, NULL, m_t);
	if (!t || sym__gunbroadcast(gr, 0, t, 2) < 0)
		return -1;
	if (!sym__gtarget(gr, 1))
		return 0;
	in[0] = t;
	in[1] = n->out[0];
	u = sym__gemit(gr, 3, "mul", 2, in, NULL, NULL, m_u);
	v = u ? sym__gemit(gr, 4, "neg", 1, &u, NULL, NULL, &m_v) : NULL;
	return v ? sym__gunbroadcast(gr, 1, v, 5) : -1;
}

/* The rule of maximum, minimum and pow: their gradient operator
 * (maximum_grad, ...) gives the two gradients of dy's shape, each summed
 * to its operand's shape. */
int
sym__grad_extremum(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	char op[64];
	sym_value *in[3] = { dy[0], n->in[0], n->in[1] }, *out[2];
	int mirror[3] = { SYM__MIRROR_OUT(0), SYM__MIRROR_IN(0),
		SYM__MIRROR_IN(1) };

	if (sym__gemit_n(gr, 1, sym__ggrad_op(n, op, sizeof(op)), 3, in, NULL,
	        2, NULL, mirror, out) < 0 ||
	    sym__gunbroadcast(gr, 0, out[0], 2) < 0)
		return -1;
	return sym__gunbroadcast(gr, 1, out[1], 3);
}

/* The rule of bias_add: x gets dy, the bias dy summed over every
 * dimension but the channel one. */
int
sym__grad_bias_add(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	size_t rank = sym_shape_ndim(sym__value_shape(n->in[0]));
	size_t c = n->at.elementwise.channel, k = 0;
	sym_expr **axes;
	sym_attrs *at;
	sym_value *v;
	int mirror = SYM__MIRROR_OUT(0), r = -1;

	if (sym__gpass(gr, 0, dy[0], SYM__MIRROR_OUT(0)) < 0)
		return -1;
	if (!sym__gtarget(gr, 1))
		return 0;
	axes = sym__calloc(gr->ctx, rank + 1, sizeof(*axes));
	at = sym__gattrs(gr);
	for (size_t d = 0; axes && d < rank; d++)
		if (d != c &&
		    !(axes[k++] = sym_expr_const(gr->ctx, (int64_t)d)))
			break;
	if (axes && at && sym_attrs_set_list(at, "axis", k, axes) == 0) {
		v = sym__gemit(gr, 2, "reduce_sum", 1, &dy[0], at,
		    sym__gtarget(gr, 1), &mirror);
		r = v ? 0 : -1;
	} else {
		sym__graph_ctx_error(gr->g, &n->loc);
	}
	for (size_t d = 0; axes && d < k; d++)
		sym_expr_free(axes[d]);
	free(axes);
	sym_attrs_free(at);
	return r;
}

/* The rule of erf: dx = erf_grad(dy, x). */
int
sym__grad_erf(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "erf_grad", dy[0], SYM__MIRROR_OUT(0), n->in[0],
	    SYM__MIRROR_IN(0));
}

/* The rule of rsqrt: dx = rsqrt_grad(dy, y), -dy y^3 / 2. */
int
sym__grad_rsqrt(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "rsqrt_grad", dy[0], SYM__MIRROR_OUT(0),
	    n->out[0], SYM__MIRROR_OUT(0));
}

/* The rule of reciprocal: dx = reciprocal_grad(dy, y), -dy y^2. */
int
sym__grad_reciprocal(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "reciprocal_grad", dy[0], SYM__MIRROR_OUT(0),
	    n->out[0], SYM__MIRROR_OUT(0));
}

/* The rule of silu: dx = silu_grad(dy, x). */
int
sym__grad_silu(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	return unary_to(gr, 1, "silu_grad", dy[0], SYM__MIRROR_OUT(0), n->in[0],
	    SYM__MIRROR_IN(0));
}

/* The rule of abs: dx = dy * sign(x) (0 at 0, as PyTorch). */
int
sym__grad_abs(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	int m_s = SYM__MIRROR_IN(0);
	int m_d[2] = { SYM__MIRROR_OUT(0), SYM__MIRROR_OUT(0) };
	sym_value *in[2], *s;

	if (!sym__gtarget(gr, 0))
		return 0;
	s = sym__gemit(gr, 1, "sign", 1, &n->in[0], NULL, NULL, &m_s);
	if (!s)
		return -1;
	in[0] = dy[0];
	in[1] = s;
	return sym__gemit_to(gr, 0, 2, "mul", 2, in, NULL, m_d);
}

/* The rule of sign, floor and ceil: their derivative is 0 wherever it
 * exists, so dx = fill_like(dy, value=0), as PyTorch. */
int
sym__grad_zero(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = numbers(gr, "value", 0, NULL, 0);
	return sym__gemit_dx(gr, n, "fill_like", dy[0], at, at != NULL);
}

/* The rule of clip: dx = clip_grad(dy, x) with the bounds of the forward
 * node (dy where min <= x <= max). */
int
sym__grad_clip(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	double lo = n->at.elementwise.lo, hi = n->at.elementwise.hi;
	sym_attrs *at;

	if (!sym__gtarget(gr, 0))
		return 0;
	at = numbers(gr, isinf(lo) ? NULL : "min", lo, isinf(hi) ? NULL : "max",
	    hi);
	return pair_to(gr, n, "clip_grad", dy[0], n->in[0], SYM__MIRROR_IN(0),
	    at);
}

/* The rule of softplus: dx = softplus_grad(dy, x) with the forward
 * node's beta and threshold. */
int
sym__grad_softplus(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	if (!sym__gtarget(gr, 0))
		return 0;
	return pair_to(gr, n, "softplus_grad", dy[0], n->in[0],
	    SYM__MIRROR_IN(0),
	    numbers(gr, "beta", n->at.elementwise.beta, "threshold",
	        n->at.elementwise.threshold));
}

/* The rule of where(c, a, b): with z = fill_like(dy, value=0), a gets
 * where(c, dy, z) and b where(c, z, dy), each summed to its shape; the
 * condition, bool, gets none. */
int
sym__grad_where(struct sym__grad *gr, sym_node *n, sym_value *const *dy)
{
	int m_z = SYM__MIRROR_OUT(0);
	int mirror[3] = { SYM__MIRROR_IN(0), SYM__MIRROR_OUT(0),
		SYM__MIRROR_OUT(0) };
	sym_attrs *at = numbers(gr, "value", 0, NULL, 0);
	sym_value *z, *v;

	if (!at)
		return sym__graph_ctx_error(gr->g, &n->loc);
	z = sym__gemit(gr, 1, "fill_like", 1, &dy[0], at, NULL, &m_z);
	sym_attrs_free(at);
	if (!z)
		return -1;
	for (size_t i = 1; i < 3; i++) {
		sym_value *in[3] = { n->in[0], i == 1 ? dy[0] : z,
			i == 1 ? z : dy[0] };

		if (!sym__gtarget(gr, i))
			continue;
		v = sym__gemit(gr, 2 * (int)i, "where", 3, in, NULL, NULL,
		    mirror);
		if (!v || sym__gunbroadcast(gr, i, v, 2 * (int)i + 1) < 0)
			return -1;
	}
	return 0;
}
