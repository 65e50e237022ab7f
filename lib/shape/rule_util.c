/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the shape rules: reading and checking attributes,
 * axes, ranks and dtypes, products of dimensions and NumPy broadcasting.
 * Each helper that checks something records a structural error naming the
 * operand or attribute at fault and returns -1.
 */
#include <stdlib.h>
#include <string.h>

#include "shape/shape_private.h"

/* Return the list of the names "known" joined by ", " (valid until the
 * end of the run of "inf"), or NULL when out of memory. */
static const char *
join(struct sym__infer *inf, const char *const *known)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; known[i]; i++)
		len += strlen(known[i]) + 2;
	s = sym__scratch(inf, len, 1);
	if (!s)
		return NULL;
	for (size_t i = 0; known[i]; i++) {
		if (i)
			strcat(s, ", ");
		strcat(s, known[i]);
	}
	return s;
}

/* Check that every attribute of "inf" is one of the NULL-terminated
 * "known" names; return 0 or -1. */
int
sym__check_attrs(struct sym__infer *inf, const char *const *known)
{
	const sym_attrs *a = inf->attrs;

	for (size_t i = 0; a && i < a->n; i++) {
		const char *name = a->a[i].name, *list;
		size_t k = 0;

		while (known[k] && strcmp(known[k], name))
			k++;
		if (known[k])
			continue;
		if (!known[0])
			return sym__infer_fail_attr(inf, name,
			    "%s has no attribute %s (it takes none)",
			    inf->op->name, name);
		list = join(inf, known);
		if (!list)
			return sym__infer_nomem(inf);
		return sym__infer_fail_attr(inf, name,
		    "%s has no attribute %s (it takes %s)", inf->op->name, name,
		    list);
	}
	return 0;
}

/* Return the attribute "name" of "inf", or NULL. */
static const struct sym__attr *
find(const struct sym__infer *inf, const char *name)
{
	return sym__attrs_find(inf->attrs, name);
}

/* Record that attribute "at" of "inf" should be "want"; return -1. */
static int
wrong_kind(struct sym__infer *inf, const struct sym__attr *at, const char *want)
{
	return sym__infer_fail_attr(inf, at->name,
	    "attribute %s of %s must be %s, not %s", at->name, inf->op->name,
	    want, sym__attr_kind_name(at->kind));
}

/* Record that "inf" needs attribute "name" (e.g. "dtype=\"f16\""); return
 * -1. */
static int
missing(struct sym__infer *inf, const char *name, const char *example)
{
	return sym__infer_fail_attr(inf, name,
	    "%s needs attribute %s (for example %s)", inf->op->name, name,
	    example);
}

/* Store in "*v" the boolean attribute "name" of "inf", "def" when absent;
 * return 0, or -1 when it is not a boolean. */
int
sym__attr_bool(struct sym__infer *inf, const char *name, int def, int *v)
{
	const struct sym__attr *at = find(inf, name);

	*v = def;
	if (!at)
		return 0;
	if (at->kind != SYM_ATTR_BOOL)
		return wrong_kind(inf, at, "true or false");
	*v = at->i != 0;
	return 0;
}

/* Store in "*v" the number attribute "name" of "inf" (a float or an
 * integer), "def" when absent; return 0 or -1. */
int
sym__attr_number(struct sym__infer *inf, const char *name, double def,
    double *v)
{
	const struct sym__attr *at = sym__attrs_find(inf->attrs, name);

	*v = def;
	if (!at)
		return 0;
	if (at->kind == SYM_ATTR_FLOAT)
		*v = at->f;
	else if (at->kind == SYM_ATTR_INT)
		*v = (double)at->i;
	else
		return sym__infer_fail_attr(inf, name,
		    "attribute %s of %s must be a number", name, inf->op->name);
	return 0;
}

/* Store in "*v" the integer attribute "name" of "inf", "def" when absent
 * and not "required"; return 0, or -1 when it is missing but required or
 * not an integer. */
int
sym__attr_int(struct sym__infer *inf, const char *name, int required,
    int64_t def, int64_t *v)
{
	const struct sym__attr *at = find(inf, name);

	*v = def;
	if (!at && required)
		return sym__infer_fail_attr(inf, name,
		    "%s needs the integer attribute %s", inf->op->name, name);
	if (!at)
		return 0;
	if (at->kind != SYM_ATTR_INT)
		return wrong_kind(inf, at, "an integer");
	*v = at->i;
	return 0;
}

/* Store in "*v" the string attribute "name" of "inf" (owned by the
 * attributes), "def" when absent; return 0, or -1 when it is not a
 * string. */
int
sym__attr_string(struct sym__infer *inf, const char *name, const char *def,
    const char **v)
{
	const struct sym__attr *at = find(inf, name);

	*v = def;
	if (!at)
		return 0;
	if (at->kind != SYM_ATTR_STRING)
		return wrong_kind(inf, at, "a string");
	*v = at->s;
	return 0;
}

/* Store in "*v" the dtype named by the string attribute "name" of "inf",
 * "def" when absent and not "required"; return 0, or -1 when missing but
 * required, not a string or not a dtype. */
int
sym__attr_dtype(struct sym__infer *inf, const char *name, int required,
    sym_dtype def, sym_dtype *v)
{
	const char *s;

	*v = def;
	if (!find(inf, name) && required)
		return missing(inf, name, "dtype=\"f16\"");
	if (sym__attr_string(inf, name, NULL, &s) < 0)
		return -1;
	if (!s)
		return 0;
	*v = sym_dtype_from_name(s);
	if (*v == SYM_DT_INVALID)
		return sym__infer_fail_attr(inf, name,
		    "attribute %s of %s: unknown dtype \"%s\" (expected f16, "
		    "bf16, f32, f64, i8, i16, i32, i64, u8 or bool)",
		    name, inf->op->name, s);
	return 0;
}

/* Store in "*v" and "*n" the integers of the list attribute "name" of
 * "inf" (an array valid until the end of the run); an integer attribute
 * counts as a list of one when "scalar_ok". Return 0, 1 when the
 * attribute is absent (*v NULL, *n 0), or -1 when an item is not an
 * integer constant or the attribute has another kind. */
int
sym__attr_ints(struct sym__infer *inf, const char *name, int scalar_ok,
    int64_t **v, size_t *n)
{
	const struct sym__attr *at = find(inf, name);

	*v = NULL;
	*n = 0;
	if (!at)
		return 1;
	if (at->kind == SYM_ATTR_INT && scalar_ok) {
		*v = sym__scratch(inf, 1, sizeof(**v));
		if (!*v)
			return sym__infer_nomem(inf);
		**v = at->i;
		*n = 1;
		return 0;
	}
	if (at->kind != SYM_ATTR_LIST)
		return wrong_kind(inf, at,
		    scalar_ok ? "an integer or a list of integers"
		              : "a list of integers");
	*v = sym__scratch(inf, at->n, sizeof(**v));
	if (!*v)
		return sym__infer_nomem(inf);
	for (size_t i = 0; i < at->n; i++)
		if (sym_expr_get_const(at->items[i], &(*v)[i]) < 0)
			return sym__infer_fail_attr(inf, at->name,
			    "item %zu of attribute %s of %s must be an integer "
			    "constant, not %s",
			    i, at->name, inf->op->name,
			    sym__txt_expr(inf, at->items[i]));
	*n = at->n;
	return 0;
}

/* Store in "*out" the axis "axis" of attribute "attr" normalised into
 * [0, "n") (negative axes count from the end, NumPy style), where "n" is
 * the number of positions for input "i" (its rank, or its rank + 1 for an
 * axis to insert); return 0, or -1 when it is out of range. */
int
sym__axis(struct sym__infer *inf, const char *attr, int64_t axis, size_t n,
    size_t i, size_t *out)
{
	int64_t m = (int64_t)n;

	if (n > 0 && axis >= -m && axis < m) {
		*out = (size_t)(axis < 0 ? axis + m : axis);
		return 0;
	}
	if (n == 0)
		return sym__infer_fail_attr(inf, attr,
		    "%s=%lld is out of range: %s of %s has rank 0", attr,
		    (long long)axis, sym__in_name(inf, i), inf->op->name);
	return sym__infer_fail_attr(inf, attr,
	    "%s=%lld is out of range for %s of rank %zu (expected %lld to "
	    "%lld)",
	    attr, (long long)axis, sym__in_name(inf, i), inf->in[i]->rank,
	    (long long)-m, (long long)(m - 1));
}

/* Store in "*out" the integer attribute axis of "inf", "def" when absent
 * and not "required", normalised by sym__axis for the "n" positions of
 * input "i"; return 0, or -1 when it is missing but required, not an
 * integer or out of range. */
int
sym__attr_axis(struct sym__infer *inf, int required, int64_t def, size_t n,
    size_t i, size_t *out)
{
	int64_t axis;

	if (sym__attr_int(inf, "axis", required, def, &axis) < 0)
		return -1;
	return sym__axis(inf, "axis", axis, n, i, out);
}

/* Set "mark"[k] for each of the "n" axes "axes" of attribute "attr",
 * normalised for input "i" of rank "rank"; return 0, or -1 when one is out
 * of range or named twice. */
int
sym__axes(struct sym__infer *inf, const char *attr, const int64_t *axes,
    size_t n, size_t rank, size_t i, unsigned char *mark)
{
	for (size_t k = 0; k < n; k++) {
		size_t ax;

		if (sym__axis(inf, attr, axes[k], rank, i, &ax) < 0)
			return -1;
		if (mark[ax])
			return sym__infer_fail_attr(inf, attr,
			    "attribute %s of %s names axis %zu of %s twice",
			    attr, inf->op->name, ax, sym__in_name(inf, i));
		mark[ax] = 1;
	}
	return 0;
}

/* Check that input "i" of "inf" has rank at least "rank"; return 0 or
 * -1. */
int
sym__rank_at_least(struct sym__infer *inf, size_t i, size_t rank)
{
	const sym_shape *s = inf->in[i];

	if (s->rank >= rank)
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s of %s must have rank at least %zu, but its shape %s has rank "
	    "%zu",
	    sym__in_name(inf, i), inf->op->name, rank, sym__txt_dims(inf, s),
	    s->rank);
}

/* Check that input "i" of "inf" has rank "rank"; return 0 or -1. */
int
sym__rank_is(struct sym__infer *inf, size_t i, size_t rank)
{
	const sym_shape *s = inf->in[i];

	if (s->rank == rank)
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s of %s must have rank %zu, but its shape %s has rank %zu",
	    sym__in_name(inf, i), inf->op->name, rank, sym__txt_dims(inf, s),
	    s->rank);
}

/* Check that inputs "i" and "j" of "inf" have the same dtype; return 0 or
 * -1 (about input "j"). */
int
sym__same_dtype(struct sym__infer *inf, size_t i, size_t j)
{
	sym_dtype a = inf->in[i]->dtype, b = inf->in[j]->dtype;

	if (a == b)
		return 0;
	return sym__infer_fail(inf, (int)j,
	    "%s needs operands of one dtype, but %s is %s and %s is %s",
	    inf->op->name, sym__in_name(inf, i), sym_dtype_name(a),
	    sym__in_name(inf, j), sym_dtype_name(b));
}

/* Check that input "i" of "inf", playing "role" ("indices"), has an
 * integer dtype (bool excluded); return 0 or -1. */
int
sym__dtype_integer(struct sym__infer *inf, size_t i, const char *role)
{
	sym_dtype dt = inf->in[i]->dtype;

	if (!sym_dtype_is_float(dt) && dt != SYM_DT_BOOL &&
	    dt != SYM_DT_INVALID)
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s %s of %s must have an integer dtype, not %s", role,
	    sym__in_name(inf, i), inf->op->name, sym_dtype_name(dt));
}

/* Check that input "i" of "inf" has a numeric dtype (not bool): the
 * operator computes on numbers; return 0 or -1. */
int
sym__dtype_numeric(struct sym__infer *inf, size_t i)
{
	if (inf->in[i]->dtype != SYM_DT_BOOL)
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s needs a numeric input, but %s is bool", inf->op->name,
	    sym__in_name(inf, i));
}

/* Check that input "i" of "inf" is not i64, which the executor holds in
 * 32 bits: the operator makes integers that could need more; return 0
 * or -1. */
int
sym__dtype_not_i64(struct sym__infer *inf, size_t i)
{
	if (inf->in[i]->dtype != SYM_DT_I64)
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s does not take i64, but %s is i64: the executor holds i64 in "
	    "32 bits, which its results could overflow (use i32 or f64)",
	    inf->op->name, sym__in_name(inf, i));
}

/* Check that input "i" of "inf" has a floating-point dtype; return 0 or
 * -1. */
int
sym__dtype_float(struct sym__infer *inf, size_t i)
{
	sym_dtype dt = inf->in[i]->dtype;

	if (sym_dtype_is_float(dt))
		return 0;
	return sym__infer_fail(inf, (int)i,
	    "%s needs a floating-point input, but %s is %s", inf->op->name,
	    sym__in_name(inf, i), sym_dtype_name(dt));
}

/* Return the product of dimensions "from" to "to" (excluded) of "s", 1
 * for an empty range, valid until the end of the run of "inf"; NULL when
 * out of memory. */
sym_expr *
sym__prod(struct sym__infer *inf, const sym_shape *s, size_t from, size_t to)
{
	sym_expr *p = sym__tmp(inf, sym__const(inf->ctx, 1));

	for (size_t i = from; i < to && i < s->rank && p; i++)
		p = sym__tmp(inf, sym__mul(p, s->dim[i]));
	return p;
}

/* Return 1 when "e" is the constant 1. */
int
sym__is_one(const sym_expr *e)
{
	int64_t v;

	return sym_expr_get_const(e, &v) == 0 && v == 1;
}

/*
 * Broadcast the leading "na" dimensions of input "ia" against the leading
 * "nb" dimensions of input "ib", NumPy style: aligned from the right, a
 * missing dimension or one that is the constant 1 takes the other's size,
 * and otherwise the two must be equal (a requirement). A symbolic
 * dimension is never assumed to be 1, even when its symbol admits 1: it
 * must equal the other side, or be written 1. Store the max("na", "nb")
 * result dimensions (borrowed) in "out"; return 0 or -1.
 */
int
sym__broadcast(struct sym__infer *inf, size_t ia, size_t na, size_t ib,
    size_t nb, sym_expr **out)
{
	size_t n = na > nb ? na : nb;

	for (size_t k = 0; k < n; k++) {
		sym_expr *a = k < na ? inf->in[ia]->dim[na - 1 - k] : NULL;
		sym_expr *b = k < nb ? inf->in[ib]->dim[nb - 1 - k] : NULL;
		sym_expr **r = &out[n - 1 - k];

		if (!a || (b && sym__is_one(a)))
			*r = b;
		else if (!b || sym__is_one(b) || a == b)
			*r = a;
		else if (sym__require_equal(inf, a, b,
		             "dimension %zu of %s (%s) must equal dimension "
		             "%zu of %s (%s), or one of them must be 1 "
		             "(broadcasting)",
		             na - 1 - k, sym__in_name(inf, ia),
		             sym__txt_expr(inf, a), nb - 1 - k,
		             sym__in_name(inf, ib), sym__txt_expr(inf, b)) < 0)
			return -1;
		else
			*r = a;
	}
	return 0;
}
