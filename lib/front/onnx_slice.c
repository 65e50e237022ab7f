/* SPDX-License-Identifier: MIT */
/*
 * ONNX Slice whose starts or ends are symbolic shape values of any form
 * (HACKING.md section 10): the registry's slice takes constant bounds,
 * so each axis becomes a gather of the indices start + step * i, made by
 * arange with the symbolic limit end - start. ONNX's clamping (a
 * negative bound counts from the end, then both are clamped to the
 * dimension) is decided by the prover where it can be; what it cannot
 * decide is assumed in the unclamped form and kept as a run-time guard,
 * checked when the sizes are bound (DESIGN section 18).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "front/onnx_private.h"

/* Beyond this, a constant start or end of Slice is past either end (as
 * in onnx_ops.c). */
#define HUGE_BOUND ((int64_t)INT32_MAX)

/* Whether "a" >= "b" is proved for every size. */
static int
proved_ge(struct sym__onnx *im, const sym_expr *a, const sym_expr *b)
{
	return sym_prove_cmp(im->ctx, a, SYM_GE, b, NULL) == SYM_TRUE;
}

/* Require "a" >= "b" ("what" in messages, "ax" the axis): proved, an
 * error when refuted, else a run-time guard with a warning. 0, or -1
 * after an error. */
static int
require_ge(struct sym__onnx *im, const sym_expr *a, const sym_expr *b,
    const char *what, int64_t ax)
{
	sym_answer r = sym_prove_cmp(im->ctx, a, SYM_GE, b, NULL);
	char *ta, *tb, *text, *why;
	sym_expr *e;
	int rc;

	if (r == SYM_TRUE)
		return 0;
	ta = sym_expr_to_str(a);
	tb = sym_expr_to_str(b);
	if (r == SYM_FALSE || r == SYM_ERROR) {
		rc = sym__onnx_errorf(im,
		    "ONNX's clamping of the %s of axis %lld needs %s >= %s, "
		    "which does not hold for every size (constrain the "
		    "symbols, e.g. --symbol NAME:min=N)",
		    what, (long long)ax, ta ? ta : "?", tb ? tb : "?");
		free(ta);
		free(tb);
		return rc;
	}
	text = sym__asprintf_ctx(im->ctx, "%s >= %s", ta ? ta : "?",
	    tb ? tb : "?");
	why = sym__asprintf_ctx(im->ctx,
	    "Slice node '%s': the %s of axis %lld within the dimension",
	    im->node && im->node->name && *im->node->name ? im->node->name
	                                                  : "(unnamed)",
	    what, (long long)ax);
	free(ta);
	free(tb);
	e = sym_expr_sub(sym_expr_copy(a), sym_expr_copy(b));
	rc = e && why
	    ? sym__graph_add_guard(im->g, SYM__REL_GE, e, 0, text, NULL, why)
	    : (free(text), -1);
	if (rc == 0)
		sym__onnx_warnf(im,
		    "the %s of axis %lld within the dimension (%s) could not "
		    "be proved; checked at run time",
		    what, (long long)ax, text);
	sym_expr_free(e);
	free(why);
	return rc;
}

/* The bound "e" (a start or end, "what") of axis "ax" of dimension "d"
 * clamped by ONNX's rule to ["lo", "hi"] (0 and d for a positive step;
 * 0 and d - 1 for a start, -1 and d - 1 for an end with a negative one):
 * a new expression, or NULL after an error. */
static sym_expr *
clamp(struct sym__onnx *im, const sym_expr *e, const sym_expr *d, int64_t lo,
    int64_t hi_from_d, const char *what, int64_t ax)
{
	sym_expr *zero = sym_expr_const(im->ctx, 0);
	sym_expr *l = sym_expr_const(im->ctx, lo);
	sym_expr *h = sym_expr_add_si(sym_expr_copy(d), hi_from_d);
	sym_expr *x = NULL;
	int64_t v;

	if (!zero || !l || !h)
		goto out;
	if (sym_expr_get_const(e, &v) == 0 &&
	    (v >= HUGE_BOUND || v <= -HUGE_BOUND)) {
		x = sym_expr_copy(v > 0 ? h : l);
		goto out;
	}
	/* a negative bound counts from the end: when the prover cannot
	 * tell the sign, one never positive is taken as negative and one
	 * that may be positive as not negative, the other case a guard */
	x = sym_expr_copy(e);
	if (!proved_ge(im, x, zero)) {
		sym_expr *m1 = sym_expr_const(im->ctx, -1);
		int rc = 0;
		if (!m1)
			rc = -1;
		else if (proved_ge(im, zero, x))
			rc = require_ge(im, m1, x, what, ax);
		else
			rc = require_ge(im, x, zero, what, ax) < 0 ? -1 : 1;
		sym_expr_free(m1);
		if (rc < 0) {
			sym_expr_free(x);
			x = NULL;
			goto out;
		}
		if (rc == 0)
			x = sym_expr_add(x, sym_expr_copy(d));
	}
	x = sym_prove_simplify(im->ctx, x);
	if (!x)
		goto out;
	if (proved_ge(im, l, x)) {
		sym_expr_free(x);
		x = sym_expr_copy(l);
	} else if (proved_ge(im, x, h)) {
		sym_expr_free(x);
		x = sym_expr_copy(h);
	} else if (require_ge(im, x, l, what, ax) < 0 ||
	    require_ge(im, h, x, what, ax) < 0) {
		sym_expr_free(x);
		x = NULL;
	}
out:
	sym_expr_free(zero);
	sym_expr_free(l);
	sym_expr_free(h);
	return x;
}

/* Add the registry operator "op" on the "k" inputs "in" with "a" (taken,
 * NULL after a failed sym_attrs_new), its result named "<out0>/<what>"
 * after output 0 of "n" (or that output itself when "what" is NULL);
 * return the value, or NULL after an error. */
static sym_value *
add(struct sym__onnx *im, const Onnx__NodeProto *n, const char *what,
    const char *op, size_t k, sym_value *const *in, sym_attrs *a)
{
	char *name = what
	    ? sym__asprintf_ctx(im->ctx, "%s/%s", n->output[0], what)
	    : NULL;
	const char *out = what ? name : n->output[0];
	sym_node *nd = a && out
	    ? sym_graph_add_op(im->g, op, 1, &out, k, in, a, NULL)
	    : NULL;
	sym_value *v = nd && !nd->failed ? sym_node_output(nd, 0) : NULL;

	if (!a || !out)
		sym__onnx_errorf(im, "out of memory");
	else if (!nd)
		sym__graph_ctx_error(im->g, NULL);
	else if (!v)
		sym__onnx_errorf(im, "its %s does not apply", op);
	sym_attrs_free(a);
	free(name);
	return v;
}

/* arange(start="s", limit="lim", delta="p") in i32 (the executor's
 * integer arithmetic) for "n" ("what" names it); the value or NULL. */
static sym_value *
arange(struct sym__onnx *im, const Onnx__NodeProto *n, const char *what,
    int64_t s, sym_expr *lim, int64_t p)
{
	sym_attrs *a = sym_attrs_new(im->ctx);

	if (a &&
	    (sym_attrs_set_int(a, "start", s) < 0 ||
	        sym_attrs_set_list(a, "limit", 1, &lim) < 0 ||
	        sym_attrs_set_int(a, "delta", p) < 0 ||
	        sym_attrs_set_string(a, "dtype", "i32") < 0)) {
		sym_attrs_free(a);
		a = NULL;
	}
	return add(im, n, what, "arange", 0, NULL, a);
}

/* The indices of axis "j" of "n": start "s" + "p" * i below "e" (the
 * clamped bounds, "s" != "e" on the side of "p"), as an i32 vector; the
 * value or NULL. A symbolic start is made a tensor as the last element
 * of arange(s + 1). */
static sym_value *
indices(struct sym__onnx *im, const Onnx__NodeProto *n, size_t j,
    const sym_expr *s, const sym_expr *e, int64_t p)
{
	char w[3][32];
	int64_t c;
	sym_value *in[2];

	snprintf(w[0], sizeof(w[0]), "index%zu", j);
	if (sym_expr_get_const(s, &c) == 0)
		return arange(im, n, w[0], c, (sym_expr *)e, p);
	snprintf(w[1], sizeof(w[1]), "upto%zu", j);
	snprintf(w[2], sizeof(w[2]), "start%zu", j);
	sym_expr *lim = sym_expr_add_si(sym_expr_copy(s), 1);
	sym_value *upto = lim ? arange(im, n, w[1], 0, lim, 1) : NULL;
	sym_expr_free(lim);
	sym_attrs *a = sym_attrs_new(im->ctx);
	int64_t zero = 0, one = 1, back = -1;
	sym_expr *b = sym_expr_const(im->ctx, zero),
	         *z = sym_expr_const(im->ctx, one),
	         *t = sym_expr_const(im->ctx, back);
	if (a &&
	    (!b || !z || !t || sym_attrs_set_list(a, "begin", 1, &b) < 0 ||
	        sym_attrs_set_list(a, "size", 1, &z) < 0 ||
	        sym_attrs_set_list(a, "step", 1, &t) < 0)) {
		sym_attrs_free(a);
		a = NULL;
	}
	sym_expr_free(b);
	sym_expr_free(z);
	sym_expr_free(t);
	in[1] = upto ? add(im, n, w[2], "slice", 1, &upto, a)
	             : (sym_attrs_free(a), NULL);
	sym_expr *span = sym_expr_sub(sym_expr_copy(e), sym_expr_copy(s));
	snprintf(w[1], sizeof(w[1]), "step%zu", j);
	in[0] = in[1] && span ? arange(im, n, w[1], 0, span, p) : NULL;
	sym_expr_free(span);
	return in[0] ? add(im, n, w[0], "add", 2, in, sym_attrs_new(im->ctx))
	             : NULL;
}

/* Slice(data, starts, ends, axes, steps) of the graph value "x" for
 * the node "n" when a start or an end is not a constant nor the
 * dimension plus a constant: the "k" starts "st" and ends "en" (shape
 * values), the axes "ax" (NULL: 0 to k - 1) and steps "sp" (NULL: 1)
 * as the node gives them. Defines output 0 of "n"; 0, or -1 after an
 * error naming the node. */
int
sym__onnx_slice_general(struct sym__onnx *im, const Onnx__NodeProto *n,
    sym_value *x, size_t k, sym_expr *const *st, sym_expr *const *en,
    const int64_t *ax, const int64_t *sp)
{
	int64_t rank = (int64_t)sym_shape_ndim(sym_value_shape(x));
	int64_t axis[SYM__ONNX_MAX_RANK];
	int seen[SYM__ONNX_MAX_RANK] = { 0 };

	if (k > SYM__ONNX_MAX_RANK)
		return sym__onnx_errorf(im, "%zu axes", k);
	for (size_t j = 0; j < k; j++) {
		int64_t a = ax ? ax[j] : (int64_t)j, p = sp ? sp[j] : 1;
		axis[j] = a < 0 ? a + rank : a;
		if (axis[j] < 0 || axis[j] >= rank || seen[axis[j]])
			return sym__onnx_errorf(im,
			    "axis %lld out of range or repeated", (long long)a);
		seen[axis[j]] = 1;
		if (p == 0 || p <= -HUGE_BOUND || p >= HUGE_BOUND)
			return sym__onnx_errorf(im,
			    "the step of axis %lld is %lld: it must not be 0, "
			    "and below 2^31 either way",
			    (long long)axis[j], (long long)p);
	}
	for (size_t j = 0; j < k; j++) {
		int64_t a = axis[j], p = sp ? sp[j] : 1;
		const sym_expr *d =
		    sym_shape_dim(sym_value_shape(x), (size_t)a);
		sym_expr *s = p > 0 ? clamp(im, st[j], d, 0, 0, "start", a)
		                    : clamp(im, st[j], d, 0, -1, "start", a);
		sym_expr *e = !s ? NULL
		    : p > 0      ? clamp(im, en[j], d, 0, 0, "end", a)
		                 : clamp(im, en[j], d, -1, -1, "end", a);
		sym_value *idx = e ? indices(im, n, j, s, e, p) : NULL;
		sym_attrs *at = sym_attrs_new(im->ctx);
		char w[32];

		sym_expr_free(s);
		sym_expr_free(e);
		if (at && sym_attrs_set_int(at, "axis", a) < 0) {
			sym_attrs_free(at);
			at = NULL;
		}
		snprintf(w, sizeof(w), "axis%zu", j);
		sym_value *in[2] = { x, idx };
		x = idx ? add(im, n, j + 1 < k ? w : NULL, "gather", 2, in, at)
		        : (sym_attrs_free(at), NULL);
		if (!x)
			return -1;
	}
	struct sym__oval *o = sym__onnx_define(im, n->output[0]);
	if (!o)
		return -1;
	o->v = x;
	o->dtype = sym_shape_dtype(sym_value_shape(x));
	return 0;
}
