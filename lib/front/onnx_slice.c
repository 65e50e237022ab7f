/* SPDX-License-Identifier: MIT */
/*
 * ONNX Slice (HACKING.md section 10). Constant starts and ends, or a
 * symbolic dimension's end, map onto the registry's slice with ONNX's
 * clamping done on numbers (sym__onnx_map_slice). Starts or ends that
 * are symbolic shape values of any other form cannot: the registry's
 * slice takes constant bounds, so each axis becomes a gather of the
 * indices start + step * i, made by arange with the symbolic limit
 * end - start (sym__onnx_slice_general). ONNX's clamping (a
 * negative bound counts from the end, then both are clamped to the
 * dimension) is decided by the prover where it can be; what it cannot
 * decide is assumed in the unclamped form and kept as a run-time guard,
 * checked when the sizes are bound (DESIGN section 18).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "front/onnx_private.h"

/* Beyond this, a constant start or end of Slice is past either end
 * (ONNX's exporters write INT_MAX, INT64_MAX and their negatives). */
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

/* A start or end of Slice along a dimension "d": "rel" set when it
 * counts from the end (the index d + "c"), else the index "c". */
struct slice_idx {
	int rel;
	int64_t c;
};

/* Read element "j" of the starts or ends "e" along a dimension "d" as
 * "*x": a constant (negative ones count from the end, huge ones are
 * past either end) or an expression d + c. Return 0, or -1 when it is
 * neither. */
static int
slice_index(const sym_expr *e, const sym_expr *d, struct slice_idx *x)
{
	int64_t v;

	if (sym_expr_get_const(e, &v) == 0) {
		if (v >= HUGE_BOUND)
			x->rel = 1, x->c = 0;
		else if (v <= -HUGE_BOUND)
			x->rel = 0, x->c = -1; /* before the first */
		else
			x->rel = v < 0, x->c = v;
		return 0;
	}
	sym_expr *r = sym_expr_sub(sym_expr_copy(e), sym_expr_copy(d));
	int ok = r && sym_expr_get_const(r, &v) == 0;
	sym_expr_free(r);
	if (!ok)
		return -1;
	x->rel = 1;
	x->c = v > 0 ? 0 : v < -HUGE_BOUND ? -HUGE_BOUND : v;
	return 0;
}

/* ceildiv(a, b) for b > 0. */
static int64_t
ceil_div(int64_t a, int64_t b)
{
	return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* One axis "ax" of Slice along a dimension "d" (of the constant "dv" when
 * "known"): the start "st", end "en" and step "sp" to the registry's
 * begin "*b" and size "*z" (-1: the rest), walking the dimension
 * backwards for a negative step (so "*b" counts from the last element).
 * Return 0 or -1 after an error. */
static int
slice_axis(struct sym__onnx *im, int64_t ax, int known, int64_t dv,
    struct slice_idx st, struct slice_idx en, int64_t sp, int64_t *b,
    int64_t *z)
{
	int64_t k = sp < 0 ? -sp : sp, n;

	if (known) {
		/* ONNX's clamping, on numbers */
		int64_t s = st.rel ? dv + st.c : st.c;
		int64_t e = en.rel ? dv + en.c : en.c;
		if (sp > 0) {
			s = s < 0 ? 0 : s > dv ? dv : s;
			e = e < 0 ? 0 : e > dv ? dv : e;
			n = ceil_div(e - s, k);
			*b = s;
		} else {
			s = s < 0 ? 0 : s > dv - 1 ? dv - 1 : s;
			e = e < -1 ? -1 : e > dv - 1 ? dv - 1 : e;
			n = ceil_div(s - e, k);
			*b = dv - 1 - s;
		}
		if (n <= 0)
			return sym__onnx_errorf(im,
			    "the slice of axis %lld is empty", (long long)ax);
		*z = *b == 0 && k == 1 && n == dv ? -1 : n;
		return 0;
	}
	/* a symbolic dimension: sym__onnx_map_slice sends every other form
	 * to sym__onnx_slice_general, so here the begin is a number in the
	 * frame of the walk (from the first element forwards, from the last
	 * backwards) and the end the rest or a number in that frame */
	int64_t bb, ee;
	int rest;
	if (sp > 0) {
		bb = st.c < 0 ? 0 : st.c; /* -1: a huge negative start */
		rest = en.rel;
		ee = en.c;
	} else {
		bb = st.c >= 0 ? 0 : -1 - st.c;
		rest = !en.rel;
		ee = -1 - en.c;
	}
	if (rest) {
		*b = bb;
		*z = -1;
		return 0;
	}
	n = ceil_div(ee - bb, k);
	if (n <= 0)
		return sym__onnx_errorf(im, "the slice of axis %lld is empty",
		    (long long)ax);
	*b = bb;
	*z = n;
	return 0;
}

/* Slice(data, starts, ends, axes, steps) (opset 10 on; starts, ends and
 * axes attributes before): per axis, ONNX's clamping of starts and ends
 * to the dimension and any step but 0, onto the registry's slice (begin,
 * size and step). Starts and ends are constants or, as shape values,
 * the dimension plus a constant; on a symbolic dimension the slice's
 * length must come out as a number or the rest of the dimension. */
int
sym__onnx_map_slice(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_value *x = sym__onnx_in(im, n, 0);
	sym_expr **st = NULL, **en = NULL;
	int64_t ax[SYM__ONNX_MAX_RANK], sp[SYM__ONNX_MAX_RANK];
	int64_t begin[SYM__ONNX_MAX_RANK], size[SYM__ONNX_MAX_RANK];
	int64_t step[SYM__ONNX_MAX_RANK], tmp[SYM__ONNX_MAX_SV];
	size_t k, ke, ka = 0, ks = 0;
	int strided = 0, r;

	if (!x)
		return -1;
	const sym_shape *s = sym_value_shape(x);
	size_t rank = sym_shape_ndim(s);
	if (rank > SYM__ONNX_MAX_RANK)
		return sym__onnx_errorf(im, "rank %zu", rank);
	if (n->n_input >= 3) {
		if (sym__onnx_sizes(im, n, 1, &st, &k) < 0 ||
		    sym__onnx_sizes(im, n, 2, &en, &ke) < 0)
			return -1;
	} else {
		/* opset 1 to 9: attributes */
		const Onnx__AttributeProto *as = sym__onnx_attr(n, "starts"),
		                           *ae = sym__onnx_attr(n, "ends");
		if (!as || !ae || as->n_ints != ae->n_ints ||
		    as->n_ints > SYM__ONNX_MAX_RANK)
			return sym__onnx_errorf(im,
			    "starts and ends must be given, of one length");
		k = ke = as->n_ints;
		st = sym__calloc(im->ctx, 2 * k + 1, sizeof(*st));
		if (!st)
			return -1;
		en = st + k;
		for (size_t j = 0; j < k; j++) {
			st[j] = sym_expr_const(im->ctx, as->ints[j]);
			en[j] = sym_expr_const(im->ctx, ae->ints[j]);
		}
	}
	r = -1;
	if (ke != k || k > rank ||
	    sym__onnx_ints(im, n, 3, "axes", ax, &ka) < 0 ||
	    sym__onnx_ints(im, n, 4, NULL, sp, &ks) < 0 || (ka && ka != k) ||
	    (ks && ks != k)) {
		sym__onnx_errorf(im,
		    "starts and ends must be of one length, at most the rank, "
		    "and axes and steps constants of that length");
		goto done;
	}
	for (size_t i = 0; i < rank; i++)
		begin[i] = 0, size[i] = -1, step[i] = 1, tmp[i] = 0;
	for (size_t j = 0; j < k; j++) {
		int64_t a = ka ? ax[j] : (int64_t)j, d;
		int64_t p = ks ? sp[j] : 1;
		struct slice_idx bi, ei;
		if (a < 0)
			a += (int64_t)rank;
		if (a < 0 || a >= (int64_t)rank || tmp[a]) {
			sym__onnx_errorf(im,
			    "axis %lld out of range or repeated",
			    (long long)(ka ? ax[j] : (int64_t)j));
			goto done;
		}
		tmp[a] = 1;
		if (p == 0 || p <= -HUGE_BOUND || p >= HUGE_BOUND) {
			sym__onnx_errorf(im,
			    "the step of axis %lld is %lld: it must not be 0, "
			    "and below 2^31 either way",
			    (long long)a, (long long)p);
			goto done;
		}
		const sym_expr *dim = sym_shape_dim(s, (size_t)a);
		int known = sym_expr_get_const(dim, &d) == 0;
		if (slice_index(st[j], dim, &bi) < 0 ||
		    slice_index(en[j], dim, &ei) < 0 ||
		    (!known &&
		        (p > 0 ? bi.rel || (ei.rel && ei.c)
		               : !bi.rel || (!ei.rel && ei.c != -1)))) {
			/* any other symbolic bound, or one counted from the
			 * other end of a symbolic dimension: onnx_slice.c */
			r = sym__onnx_slice_general(im, n, x, k, st, en,
			    ka ? ax : NULL, ks ? sp : NULL);
			goto done;
		}
		if (slice_axis(im, a, known, known ? d : 0, bi, ei, p,
		        &begin[a], &size[a]) < 0)
			goto done;
		step[a] = p;
		strided |= p != 1;
	}
	sym_attrs *at = sym_attrs_new(im->ctx);
	sym__onnx_set_ints(im->ctx, at, "begin", begin, rank);
	sym__onnx_set_ints(im->ctx, at, "size", size, rank);
	if (strided)
		sym__onnx_set_ints(im->ctx, at, "step", step, rank);
	r = sym__onnx_def(im, n, 0,
	    sym__onnx_emit(im, "slice", n->output[0], 1, &x, at));
done:
	if (n->n_input < 3 && st) {
		for (size_t j = 0; j < 2 * k; j++)
			sym_expr_free(st[j]);
		free(st);
	}
	return r;
}
