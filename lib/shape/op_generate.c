/* SPDX-License-Identifier: MIT */
/*
 * The generate family: operators without a tensor input, whose output's
 * shape comes from their attributes.
 *
 *  - arange and range (ONNX's name): element i is start + i * delta for
 *    i below the length ceildiv(limit - start, delta) (delta > 0) or
 *    ceildiv(start - limit, -delta) (delta < 0), PyTorch's and ONNX's
 *    rule. Written arange([limit]), arange([start, limit]) or
 *    arange([start, limit, delta]) with integer expressions, or with the
 *    attributes start=, limit= and delta= (integers, floats or
 *    expressions). start and delta are constants (the kernel generates
 *    from them) and delta is not 0; limit may be an expression of the
 *    symbols, so the length is one (s, ceildiv(s - 1, 2)). Floats need
 *    every bound constant. dtype= defaults to i64 (f32 when a bound is a
 *    float), as PyTorch's.
 *  - full([d0, d1, ...], value=v), ones([...]) and zeros([...]): a shape
 *    of expressions, every dimension at least 1 (proved, or refuted with
 *    a witness), filled with one value. dtype= defaults to f32 (for full,
 *    to the kind of its value, as PyTorch's: bool, i64 or f32).
 */
#include <math.h>
#include <string.h>

#include "shape/shape_private.h"

static const char *const arange_known[] = { "range", "start", "limit", "delta",
	"dtype", NULL };
static const char *const full_known[] = { "shape", "value", "dtype", NULL };
static const char *const fill_known[] = { "shape", "dtype", NULL };

/* One bound of arange: an integer expression "e", or the float "f" when
 * "is_float"; "set" when it was written. */
struct bound {
	sym_expr *e;
	double f;
	int is_float, set;
};

/* Read the attribute "name" of "inf" into "*b" (left unset when absent);
 * 0 or -1. */
static int
read_bound(struct sym__infer *inf, const char *name, struct bound *b)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, name);

	memset(b, 0, sizeof(*b));
	if (!at)
		return 0;
	b->set = 1;
	if (at->kind == SYM_ATTR_INT) {
		b->e = sym__tmp(inf, sym__const(inf->ctx, at->i));
		return b->e ? 0 : sym__infer_nomem(inf);
	}
	if (at->kind == SYM_ATTR_FLOAT) {
		b->is_float = 1;
		b->f = at->f;
		return 0;
	}
	if (at->kind == SYM_ATTR_LIST && at->n == 1) {
		b->e = at->items[0];
		return 0;
	}
	return sym__infer_fail_attr(inf, name,
	    "attribute %s of %s must be a number or an expression, as in "
	    "%s(start=0, limit=s, delta=1)",
	    name, inf->op->name, inf->op->name);
}

/* Read the bounds of arange "inf" into "b" (start, limit, delta), from
 * its list argument or its attributes, with the defaults start 0 and
 * delta 1; 0 or -1. */
static int
read_bounds(struct sym__infer *inf, struct bound *b)
{
	const struct sym__attr *r = sym__attrs_find(inf->attrs, "range");
	const char *name[3] = { "start", "limit", "delta" };

	for (size_t i = 0; i < 3; i++)
		if (read_bound(inf, name[i], &b[i]) < 0)
			return -1;
	if (r) {
		if (b[0].set || b[1].set || b[2].set)
			return sym__infer_fail_attr(inf, "range",
			    "%s takes its bounds either as a list or as "
			    "start=, limit= and delta=, not both",
			    inf->op->name);
		if (r->kind != SYM_ATTR_LIST || r->n < 1 || r->n > 3)
			return sym__infer_fail_attr(inf, "range",
			    "the list of %s is [limit], [start, limit] or "
			    "[start, limit, delta]",
			    inf->op->name);
		b[1].set = 1;
		b[1].e = r->items[r->n == 1 ? 0 : 1];
		if (r->n >= 2) {
			b[0].set = 1;
			b[0].e = r->items[0];
		}
		if (r->n == 3) {
			b[2].set = 1;
			b[2].e = r->items[2];
		}
	}
	if (!b[1].set)
		return sym__infer_fail(inf, -1,
		    "%s needs its limit, as in %s([s]) or %s(start=0, "
		    "limit=s)",
		    inf->op->name, inf->op->name, inf->op->name);
	return 0;
}

/* Store in "*v" the constant bound "b" called "name" of "inf"; 0, or -1
 * when it is symbolic. */
static int
constant_bound(struct sym__infer *inf, const struct bound *b, const char *name,
    double *v, int64_t *iv)
{
	if (b->is_float) {
		*v = b->f;
		return 0;
	}
	if (sym_expr_get_const(b->e, iv) < 0)
		return sym__infer_fail_attr(inf, name,
		    "the %s of %s is %s: it must be a constant (only the "
		    "limit may be symbolic)",
		    name, inf->op->name, sym__txt_expr(inf, b->e));
	*v = (double)*iv;
	return 0;
}

/* The decoder of arange and range: the bounds, the constant start and
 * delta (not 0) and the dtype (numeric; integers need integer bounds).
 * "inf" is the run. */
int
sym__decode_arange(struct sym__infer *inf)
{
	struct bound b[3];
	int64_t is = 0, id = 1, il;
	double s, d = 1, l;
	sym_dtype dt;
	int fl;

	if (sym__check_attrs(inf, arange_known) < 0 || read_bounds(inf, b) < 0)
		return -1;
	fl = b[0].is_float || b[1].is_float || b[2].is_float;
	if (sym__attr_dtype(inf, "dtype", 0, fl ? SYM_DT_F32 : SYM_DT_I64,
	        &dt) < 0)
		return -1;
	if (dt == SYM_DT_BOOL)
		return sym__infer_fail_attr(inf, "dtype",
		    "%s makes numbers: its dtype cannot be bool",
		    inf->op->name);
	if (fl && !sym_dtype_is_float(dt))
		return sym__infer_fail_attr(inf, "dtype",
		    "%s of dtype %s takes integer bounds, not floats",
		    inf->op->name, sym_dtype_name(dt));
	s = 0;
	if (b[0].set && constant_bound(inf, &b[0], "start", &s, &is) < 0)
		return -1;
	if (b[2].set && constant_bound(inf, &b[2], "delta", &d, &id) < 0)
		return -1;
	if (is > INT64_MAX / 4 || is < -(INT64_MAX / 4) || id > INT64_MAX / 4 ||
	    id < -(INT64_MAX / 4))
		return sym__infer_fail(inf, -1,
		    "the start or the delta of %s is too large (beyond 2^61)",
		    inf->op->name);
	if (d == 0 || !isfinite(d) || !isfinite(s))
		return sym__infer_fail_attr(inf, b[2].set ? "delta" : "start",
		    "the delta of %s is 0: it must be a nonzero constant",
		    inf->op->name);
	if (fl && constant_bound(inf, &b[1], "limit", &l, &il) < 0)
		return -1;
	inf->at.generate.dtype = dt;
	inf->at.generate.integer = !fl;
	inf->at.generate.istart = is;
	inf->at.generate.idelta = id;
	inf->at.generate.start = s;
	inf->at.generate.delta = d;
	return 0;
}

/* The length of arange when a bound is a float: ceil((limit - start) /
 * delta) of the constants "b", at least 1 and at most 2^62; stored in
 * "*n", 0 or -1. "inf" is the run. */
static int
float_length(struct sym__infer *inf, const struct bound *b, int64_t *n)
{
	double s = inf->at.generate.start, d = inf->at.generate.delta, l;
	int64_t il;
	double len;

	if (constant_bound(inf, &b[1], "limit", &l, &il) < 0)
		return -1;
	len = ceil((l - s) / d);
	if (!(len >= 1))
		return sym__infer_fail_attr(inf, "limit",
		    "%s from %g to %g by %g is empty: its length must be at "
		    "least 1",
		    inf->op->name, s, l, d);
	if (len > 4611686018427387904.0)
		return sym__infer_fail_attr(inf, "limit",
		    "%s from %g to %g by %g is too long", inf->op->name, s, l,
		    d);
	*n = (int64_t)len;
	return 0;
}

/* The rule of arange and range: a vector of the length ceildiv(limit -
 * start, delta), which must be at least 1 (a requirement the graph
 * proves, or refutes with a witness). "inf" is the run. */
int
sym__rule_arange(struct sym__infer *inf)
{
	const struct sym__opattrs *at = &inf->at;
	int64_t is = at->generate.istart, id = at->generate.idelta, n = 0;
	struct bound b[3];
	sym_expr *span, *len, *one;

	if (read_bounds(inf, b) < 0)
		return -1;
	if (!at->generate.integer) {
		if (float_length(inf, b, &n) < 0)
			return -1;
		len = sym__tmp(inf, sym__const(inf->ctx, n));
		return sym__out_shape(inf, at->generate.dtype, 1, &len);
	}
	/* the distance covered, made positive: limit - start, or start -
	 * limit for a negative delta */
	span = sym__tmp(inf, sym__scale_si(b[1].e, id > 0 ? 1 : -1));
	span =
	    span ? sym__tmp(inf, sym__add_si(span, id > 0 ? -is : is)) : NULL;
	one = sym__tmp(inf, sym__const(inf->ctx, 1));
	if (!span || !one)
		return sym__infer_nomem(inf);
	if (sym__require_ge(inf, span, one,
	        "%s from %lld to %s by %lld must not be empty: %s must be "
	        "at least 1",
	        inf->op->name, (long long)is, sym__txt_expr(inf, b[1].e),
	        (long long)id, sym__txt_expr(inf, span)) < 0)
		return -1;
	if (id == 1 || id == -1) {
		len = span;
	} else {
		int64_t k = id > 0 ? id : -id;
		sym_expr *num = sym__tmp(inf, sym__add_si(span, k - 1));
		sym_expr *den = sym__tmp(inf, sym__const(inf->ctx, k));

		len = num && den ? sym__tmp(inf, sym__fdiv(num, den)) : NULL;
	}
	if (!len)
		return sym__infer_nomem(inf);
	return sym__out_shape(inf, at->generate.dtype, 1, &len);
}

/* Check that the value "v" of full fits its dtype "dt" (integers: whole
 * and within the dtype's range; bool: anything, nonzero is true); 0 or
 * -1. "inf" is the run. */
static int
check_value(struct sym__infer *inf, double v, sym_dtype dt)
{
	static const struct {
		sym_dtype dt;
		double lo, hi;
	} range[] = {
		{ SYM_DT_I8, -128, 127 },
		{ SYM_DT_U8, 0, 255 },
		{ SYM_DT_I16, -32768, 32767 },
		{ SYM_DT_I32, -2147483648.0, 2147483647.0 },
		{ SYM_DT_I64, -9223372036854775808.0, 9223372036854775807.0 },
	};

	if (!isfinite(v) && !sym_dtype_is_float(dt))
		return sym__infer_fail_attr(inf, "value",
		    "the value of %s is not finite, but its dtype is %s",
		    inf->op->name, sym_dtype_name(dt));
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++)
		if (range[i].dt == dt &&
		    (v != floor(v) || v < range[i].lo || v > range[i].hi))
			return sym__infer_fail_attr(inf, "value",
			    "the value %g of %s does not fit its dtype %s", v,
			    inf->op->name, sym_dtype_name(dt));
	return 0;
}

/* The decoder of full, ones and zeros: the shape list (checked by the
 * rule), the value (full: required, a bool, integer or float) and the
 * dtype. "inf" is the run. */
int
sym__decode_full(struct sym__infer *inf)
{
	int full = inf->op->id == SYM__OP_FULL;
	const struct sym__attr *v = sym__attrs_find(inf->attrs, "value");
	sym_dtype def = SYM_DT_F32, dt;
	double value = inf->op->id == SYM__OP_ONES;

	if (sym__check_attrs(inf, full ? full_known : fill_known) < 0)
		return -1;
	if (full && !v)
		return sym__infer_fail(inf, -1,
		    "full needs its value, as in full([s, s], value=1.5)");
	if (full) {
		if (v->kind == SYM_ATTR_BOOL || v->kind == SYM_ATTR_INT) {
			value = (double)v->i;
			def =
			    v->kind == SYM_ATTR_BOOL ? SYM_DT_BOOL : SYM_DT_I64;
		} else if (v->kind == SYM_ATTR_FLOAT) {
			value = v->f;
		} else {
			return sym__infer_fail_attr(inf, "value",
			    "the value of full must be a number or a bool");
		}
	}
	if (sym__attr_dtype(inf, "dtype", 0, def, &dt) < 0 ||
	    check_value(inf, value, dt) < 0)
		return -1;
	inf->at.generate.dtype = dt;
	inf->at.generate.value = dt == SYM_DT_BOOL ? value != 0 : value;
	return 0;
}

/* The rule of full, ones and zeros: the output has the shape of the
 * list, every dimension at least 1 (a constant below 1 is an error, a
 * symbolic one a requirement the graph proves or refutes with a
 * witness). "inf" is the run. */
int
sym__rule_full(struct sym__infer *inf)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, "shape");
	sym_expr *one = sym__tmp(inf, sym__const(inf->ctx, 1));

	if (!at || at->kind != SYM_ATTR_LIST)
		return sym__infer_fail_attr(inf, "shape",
		    "%s needs its shape as a list, as in %s([b, s])",
		    inf->op->name, inf->op->name);
	if (!one)
		return sym__infer_nomem(inf);
	for (size_t j = 0; j < at->n; j++) {
		sym_expr *t = at->items[j];

		if (sym__const_sign(t) <= 0)
			return sym__infer_fail_attr(inf, "shape",
			    "dimension %zu of the shape of %s is %s: it must "
			    "be at least 1",
			    j, inf->op->name, sym__txt_expr(inf, t));
		if (sym__require_ge(inf, t, one,
		        "dimension %zu of the shape of %s (%s) must be at "
		        "least 1",
		        j, inf->op->name, sym__txt_expr(inf, t)) < 0)
			return -1;
	}
	return sym__out_shape(inf, inf->at.generate.dtype, at->n, at->items);
}
