/* SPDX-License-Identifier: MIT */
/*
 * Symbolic shape values (DESIGN section 18): small integer tensors whose
 * elements are expressions of the symbols. Shape, Size and constants make
 * them; Gather, Slice, Concat, Unsqueeze, Squeeze, Cast, Identity, the
 * integer Add Sub Mul Div Mod Min Max, Equal and Where (decided by the
 * prover) and ReduceProd fold them at import time, so that the operators
 * that read sizes (onnx_ops.c) see exact expressions.
 */
#include <stdlib.h>
#include <string.h>

#include "front/onnx_private.h"

/* Return "o" with its elements known (an initializer or constant of at
 * most SYM__ONNX_MAX_SV integers of rank 0 or 1 is read), or NULL. */
static struct sym__oval *
sv_of(struct sym__onnx *im, struct sym__oval *o)
{
	int64_t v[SYM__ONNX_MAX_SV];
	sym_expr *e[SYM__ONNX_MAX_SV];
	size_t n;

	if (!o || o->failed)
		return NULL;
	if (o->has_sv)
		return o;
	if (!o->init || o->init->n_dims > 1)
		return NULL;
	sym_dtype dt = sym__onnx_dtype(o->init->data_type);
	if (dt != SYM_DT_I64 && dt != SYM_DT_I32 && dt != SYM_DT_BOOL)
		return NULL;
	int64_t numel;
	if (sym__onnx_tensor_numel(im, o->init, &numel) < 0 ||
	    numel > SYM__ONNX_MAX_SV ||
	    sym__onnx_tensor_ints(im, o->init, o->init_dir, v, SYM__ONNX_MAX_SV,
	        &n) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++)
		e[i] = sym_expr_const(im->ctx, v[i]);
	if (sym__onnx_set_sv(im, o, dt, o->init->n_dims, n, e) < 0)
		return NULL;
	return o;
}

/* Return input "i" of "n" with its elements known, or NULL. */
static struct sym__oval *
sv_in(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i)
{
	if (i >= n->n_input || !*n->input[i])
		return NULL;
	return sv_of(im, sym__onnx_find(im, n->input[i]));
}

/* Release the "k" expressions "e". */
static void
free_exprs(sym_expr **e, size_t k)
{
	for (size_t i = 0; i < k; i++)
		sym_expr_free(e[i]);
}

/* Store copies of the elements of "o" in "e"; return their number. */
static size_t
copy_elems(sym_expr **e, const struct sym__oval *o)
{
	for (size_t i = 0; i < o->sv_n; i++)
		e[i] = sym_expr_copy(o->sv[i]);
	return o->sv_n;
}

/* Return element "i" of "o", its single element broadcast when it has
 * one. */
static const sym_expr *
elem(const struct sym__oval *o, size_t i)
{
	return o->sv[o->sv_n == 1 ? 0 : i];
}

/* Define output 0 of "n" with the "k" elements "e" (taken) of rank
 * "rank" and dtype "dt"; 1, or -1. */
static int
def_out(struct sym__onnx *im, const Onnx__NodeProto *n, sym_dtype dt,
    size_t rank, size_t k, sym_expr **e)
{
	struct sym__oval *o =
	    n->n_output ? sym__onnx_define(im, n->output[0]) : NULL;

	if (!o) {
		free_exprs(e, k);
		return -1;
	}
	return sym__onnx_set_sv(im, o, dt, rank, k, e) < 0 ? -1 : 1;
}

/* Normalise "axis" of a rank-"r" tensor into "*out"; 0 or -1. */
static int
norm_axis(int64_t axis, int64_t r, int64_t *out)
{
	if (axis < -r || axis >= r)
		return -1;
	*out = axis < 0 ? axis + r : axis;
	return 0;
}

/* Shape(x, start, end) and Size(x): from the shape of x. */
static int
fold_shape(struct sym__onnx *im, const Onnx__NodeProto *n, int size)
{
	sym_expr *e[SYM__ONNX_MAX_SV];
	struct sym__oval *x =
	    n->n_input ? sym__onnx_find(im, n->input[0]) : NULL;

	/* the shape of a shape value: its length, not a tensor of it */
	if (x && x->has_sv &&
	    (size ||
	        (!sym__onnx_attr(n, "start") && !sym__onnx_attr(n, "end")))) {
		e[0] = sym_expr_const(im->ctx, (int64_t)x->sv_n);
		if (size)
			return def_out(im, n, SYM_DT_I64, 0, 1, e);
		if (!x->sv_rank)
			sym_expr_free(e[0]);
		return def_out(im, n, SYM_DT_I64, 1, x->sv_rank, e);
	}
	sym_value *v = x ? sym__onnx_value(im, x) : NULL;
	const sym_shape *s = v ? sym_value_shape(v) : NULL;

	if (!s)
		return -1;
	int64_t r = (int64_t)sym_shape_ndim(s);
	if (size) {
		e[0] = sym_shape_numel(s);
		return def_out(im, n, SYM_DT_I64, 0, 1, e);
	}
	int64_t start = sym__onnx_attr_int(n, "start", 0);
	int64_t end = sym__onnx_attr_int(n, "end", r);
	start = start < 0 ? start + r : start;
	end = end < 0 ? end + r : end;
	start = start < 0 ? 0 : start > r ? r : start;
	end = end < 0 ? 0 : end > r ? r : end;
	size_t k = 0;
	for (int64_t i = start; i < end && k < SYM__ONNX_MAX_SV; i++)
		e[k++] = sym_expr_copy(sym_shape_dim(s, (size_t)i));
	return def_out(im, n, SYM_DT_I64, 1, k, e);
}

/* Gather(data, indices, axis=0) of a shape value by constant indices. */
static int
fold_gather(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *d = sv_in(im, n, 0), *ix = sv_in(im, n, 1);
	sym_expr *e[SYM__ONNX_MAX_SV];

	if (!d || !ix || d->sv_rank != 1)
		return 0;
	for (size_t i = 0; i < ix->sv_n; i++) {
		int64_t k;
		if (sym_expr_get_const(ix->sv[i], &k) < 0 ||
		    norm_axis(k, (int64_t)d->sv_n, &k) < 0) {
			free_exprs(e, i);
			return sym__onnx_errorf(im,
			    "index %zu is not a constant within the %zu "
			    "elements of '%s'",
			    i, d->sv_n, d->name);
		}
		e[i] = sym_expr_copy(d->sv[k]);
	}
	return def_out(im, n, d->dtype, ix->sv_rank, ix->sv_n, e);
}

/* Read the constant elements of input "i" of "n" into "v" (at most
 * "max"), their number in "*k"; 1 when known, 0 when absent or not
 * known. */
static int
const_ints(struct sym__onnx *im, const Onnx__NodeProto *n, size_t i, int64_t *v,
    size_t max, size_t *k)
{
	struct sym__oval *o = sv_in(im, n, i);

	if (!o || o->sv_n > max)
		return 0;
	for (size_t j = 0; j < o->sv_n; j++)
		if (sym_expr_get_const(o->sv[j], &v[j]) < 0)
			return 0;
	*k = o->sv_n;
	return 1;
}

/* Slice(data, starts, ends, axes, steps) of a shape value (rank 1). */
static int
fold_slice(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *d = sv_in(im, n, 0);
	int64_t st[4], en[4], ax[4] = { 0 }, sp[4] = { 1 };
	size_t ns, ne, na = 1, np = 1;
	sym_expr *e[SYM__ONNX_MAX_SV];

	if (!d || d->sv_rank != 1 || !const_ints(im, n, 1, st, 4, &ns) ||
	    !const_ints(im, n, 2, en, 4, &ne) || ns != 1 || ne != 1 ||
	    (n->n_input > 3 && *n->input[3] &&
	        !const_ints(im, n, 3, ax, 4, &na)) ||
	    (n->n_input > 4 && *n->input[4] &&
	        !const_ints(im, n, 4, sp, 4, &np)) ||
	    na != 1 || np != 1 || (ax[0] != 0 && ax[0] != -1) || sp[0] == 0)
		return 0;
	int64_t len = (int64_t)d->sv_n, s = st[0], t = en[0], k = 0;
	s = s < 0 ? s + len : s;
	t = t < 0 ? t + len : t;
	if (sp[0] > 0) {
		s = s < 0 ? 0 : s > len ? len : s;
		t = t < 0 ? 0 : t > len ? len : t;
		for (int64_t i = s; i < t; i += sp[0])
			e[k++] = sym_expr_copy(d->sv[i]);
	} else {
		s = s < 0 ? -1 : s > len - 1 ? len - 1 : s;
		t = t < -1 ? -1 : t > len - 1 ? len - 1 : t;
		for (int64_t i = s; i > t; i += sp[0])
			e[k++] = sym_expr_copy(d->sv[i]);
	}
	return def_out(im, n, d->dtype, 1, (size_t)k, e);
}

/* Concat(x0, x1, ...) of shape values of rank 1. */
static int
fold_concat(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	sym_expr *e[SYM__ONNX_MAX_SV];
	size_t k = 0;
	sym_dtype dt = SYM_DT_I64;

	for (size_t i = 0; i < n->n_input; i++) {
		struct sym__oval *o = sv_in(im, n, i);
		if (!o || o->sv_rank != 1 || k + o->sv_n > SYM__ONNX_MAX_SV) {
			free_exprs(e, k);
			return 0;
		}
		dt = o->dtype;
		k += copy_elems(e + k, o);
	}
	return def_out(im, n, dt, 1, k, e);
}

/* Unsqueeze, Squeeze, Identity, Cast: the elements stay, the rank
 * changes (0 <-> 1). */
static int
fold_same(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	struct sym__oval *x = sv_in(im, n, 0);
	sym_expr *e[SYM__ONNX_MAX_SV];
	size_t rank;
	sym_dtype dt;

	if (!x)
		return 0;
	rank = x->sv_rank;
	dt = x->dtype;
	if (!strcmp(op, "Unsqueeze")) {
		if (x->sv_rank != 0)
			return 0;
		rank = 1;
	} else if (!strcmp(op, "Squeeze")) {
		if (x->sv_rank != 1 || x->sv_n != 1)
			return 0;
		rank = 0;
	} else if (!strcmp(op, "Cast")) {
		dt = sym__onnx_dtype((int32_t)sym__onnx_attr_int(n, "to", 0));
		if (dt != SYM_DT_I64 && dt != SYM_DT_I32)
			return 0;
	}
	return def_out(im, n, dt, rank, copy_elems(e, x), e);
}

/* Return "a" op "b" for the integer binary operator "op" as ONNX
 * computes it (Div truncates: floor division for the non-negative
 * sizes, proved by the prover, else not folded), or NULL. */
static sym_expr *
binop(struct sym__onnx *im, const char *op, const sym_expr *a,
    const sym_expr *b)
{
	sym_expr *x = sym_expr_copy(a), *y = sym_expr_copy(b), *zero = NULL;

	if (!strcmp(op, "Add"))
		return sym_expr_add(x, y);
	if (!strcmp(op, "Sub"))
		return sym_expr_sub(x, y);
	if (!strcmp(op, "Mul"))
		return sym_expr_mul(x, y);
	if (!strcmp(op, "Min"))
		return sym_expr_min(x, y);
	if (!strcmp(op, "Max"))
		return sym_expr_max(x, y);
	zero = sym_expr_const(im->ctx, 0);
	int nonneg =
	    sym_prove_cmp(im->ctx, a, SYM_GE, zero, NULL) == SYM_TRUE &&
	    sym_prove_cmp(im->ctx, b, SYM_GT, zero, NULL) == SYM_TRUE;
	sym_expr_free(zero);
	if (nonneg && !strcmp(op, "Div"))
		return sym_expr_floordiv(x, y);
	if (nonneg && !strcmp(op, "Mod"))
		return sym_expr_mod(x, y);
	sym_expr_free(x);
	sym_expr_free(y);
	return NULL;
}

/* Return the number of elements of shape values of "k" and "n" elements
 * broadcast together as NumPy does (a single element stretches to the
 * other count, 0 included), or SIZE_MAX when they do not broadcast or
 * "k" is SIZE_MAX. */
static size_t
bcast_count(size_t k, size_t n)
{
	if (k == n || n == 1)
		return k;
	return k == 1 ? n : SIZE_MAX;
}

/* The integer binary operators of shape values, broadcasting a single
 * element. */
static int
fold_binary(struct sym__onnx *im, const Onnx__NodeProto *n, const char *op)
{
	struct sym__oval *a = sv_in(im, n, 0), *b = sv_in(im, n, 1);
	sym_expr *e[SYM__ONNX_MAX_SV];

	size_t k;

	if (!a || !b || (k = bcast_count(a->sv_n, b->sv_n)) == SIZE_MAX)
		return 0;
	if (a->dtype != SYM_DT_I64 && a->dtype != SYM_DT_I32)
		return 0;
	for (size_t i = 0; i < k; i++) {
		e[i] = binop(im, op, elem(a, i), elem(b, i));
		if (!e[i]) {
			free_exprs(e, i);
			return 0;
		}
	}
	size_t rank = a->sv_rank > b->sv_rank ? a->sv_rank : b->sv_rank;
	return def_out(im, n, a->dtype, rank, k, e);
}

/* Equal(a, b) of shape values, each element decided by the prover:
 * folded when every element is proved or refuted for every size. */
static int
fold_equal(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *a = sv_in(im, n, 0), *b = sv_in(im, n, 1);
	sym_expr *e[SYM__ONNX_MAX_SV];

	size_t k;

	if (!a || !b || (k = bcast_count(a->sv_n, b->sv_n)) == SIZE_MAX)
		return 0;
	for (size_t i = 0; i < k; i++) {
		sym_answer r = sym_prove_cmp(im->ctx, elem(a, i), SYM_EQ,
		    elem(b, i), NULL);
		if (r != SYM_TRUE && r != SYM_FALSE) {
			free_exprs(e, i);
			return 0;
		}
		e[i] = sym_expr_const(im->ctx, r == SYM_TRUE);
	}
	size_t rank = a->sv_rank > b->sv_rank ? a->sv_rank : b->sv_rank;
	return def_out(im, n, SYM_DT_BOOL, rank, k, e);
}

/* Where(c, a, b) of shape values with a decided condition. */
static int
fold_where(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *c = sv_in(im, n, 0), *a = sv_in(im, n, 1),
	                 *b = sv_in(im, n, 2);
	sym_expr *e[SYM__ONNX_MAX_SV];

	if (!c || !a || !b)
		return 0;
	size_t k = bcast_count(bcast_count(c->sv_n, a->sv_n), b->sv_n);
	if (k == SIZE_MAX)
		return 0;
	for (size_t i = 0; i < k; i++) {
		int64_t cv;
		if (sym_expr_get_const(elem(c, i), &cv) < 0) {
			free_exprs(e, i);
			return 0;
		}
		e[i] = sym_expr_copy(elem(cv ? a : b, i));
	}
	size_t rank = c->sv_rank > a->sv_rank ? c->sv_rank : a->sv_rank;
	rank = b->sv_rank > rank ? b->sv_rank : rank;
	return def_out(im, n, a->dtype, rank, k, e);
}

/* ReduceProd(x) of a shape value over its one axis (keepdims=1 keeps a
 * rank of 1). */
static int
fold_reduce_prod(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *x = sv_in(im, n, 0);
	sym_expr *e[1];

	if (!x || x->sv_rank != 1)
		return 0;
	e[0] = sym_expr_const(im->ctx, 1);
	for (size_t i = 0; i < x->sv_n; i++)
		e[0] = sym_expr_mul(e[0], sym_expr_copy(x->sv[i]));
	return def_out(im, n, x->dtype,
	    sym__onnx_attr_int(n, "keepdims", 1) ? 1 : 0, 1, e);
}

/* Constant(value=t | value_int | value_ints): an integer tensor of at
 * most SYM__ONNX_MAX_SV elements becomes a shape value, any other a
 * constant (a param with its data). */
static int
fold_constant(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	const Onnx__AttributeProto *a =
	    n->n_attribute == 1 ? n->attribute[0] : NULL;
	sym_expr *e[SYM__ONNX_MAX_SV];

	if (!a || !a->name || !n->n_output)
		return sym__onnx_errorf(im, "a Constant needs one attribute");
	if (!strcmp(a->name, "value_int") && a->has_i) {
		e[0] = sym_expr_const(im->ctx, a->i);
		return def_out(im, n, SYM_DT_I64, 0, 1, e);
	}
	if (!strcmp(a->name, "value_ints") && a->n_ints <= SYM__ONNX_MAX_SV) {
		for (size_t i = 0; i < a->n_ints; i++)
			e[i] = sym_expr_const(im->ctx, a->ints[i]);
		return def_out(im, n, SYM_DT_I64, 1, a->n_ints, e);
	}
	if (strcmp(a->name, "value") || !a->t)
		return sym__onnx_errorf(im,
		    "Constant attribute '%s' is not supported", a->name);
	struct sym__oval *o = sym__onnx_define(im, n->output[0]);
	if (!o)
		return -1;
	o->init = a->t;
	o->init_dir = im->dir;
	if (sv_of(im, o))
		return 1;
	return sym__onnx_value(im, o) ? 1 : -1;
}

/* Reshape(x, shape) of a shape value to rank 1 ([-1] or [its length]) or
 * of one element to rank 0 ([]): the same elements. */
static int
fold_reshape(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *x = sv_in(im, n, 0), *t = sv_in(im, n, 1);
	sym_expr *e[SYM__ONNX_MAX_SV];
	int64_t d = 0;

	if (!x || !t || t->sv_rank != 1 || t->sv_n > 1)
		return 0;
	if (t->sv_n == 1 &&
	    (sym_expr_get_const(t->sv[0], &d) < 0 ||
	        (d != -1 && d != (int64_t)x->sv_n)))
		return 0;
	if (t->sv_n == 0 && x->sv_n != 1)
		return 0;
	return def_out(im, n, x->dtype, t->sv_n, copy_elems(e, x), e);
}

/* ConstantOfShape(shape; value) of an integer value and a constant shape
 * of rank 1 and at most SYM__ONNX_MAX_SV elements: a shape value. */
static int
fold_constant_of_shape(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	struct sym__oval *t = sv_in(im, n, 0);
	const Onnx__AttributeProto *va = sym__onnx_attr(n, "value");
	sym_expr *e[SYM__ONNX_MAX_SV];
	int64_t len, v;
	size_t k;

	if (!t || t->sv_rank != 1 || t->sv_n != 1 || !va || !va->t ||
	    sym_expr_get_const(t->sv[0], &len) < 0 || len < 0 ||
	    len > SYM__ONNX_MAX_SV)
		return 0;
	sym_dtype dt = sym__onnx_dtype(va->t->data_type);
	if (dt != SYM_DT_I64 && dt != SYM_DT_I32)
		return 0;
	if (sym__onnx_tensor_ints(im, va->t, im->dir, &v, 1, &k) < 0)
		return -1;
	if (k != 1)
		return 0;
	for (int64_t i = 0; i < len; i++)
		e[i] = sym_expr_const(im->ctx, v);
	return def_out(im, n, dt, 1, (size_t)len, e);
}

/* Fold node "n" when it computes shape values: 1 when it was, 0 when
 * it is not (its inputs are not all known), -1 after an error. */
int
sym__onnx_fold(struct sym__onnx *im, const Onnx__NodeProto *n)
{
	const char *op = n->op_type ? n->op_type : "";

	if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))
		return 0;
	if (!strcmp(op, "Constant"))
		return fold_constant(im, n);
	if (!strcmp(op, "Shape"))
		return fold_shape(im, n, 0);
	if (!strcmp(op, "Size"))
		return fold_shape(im, n, 1);
	if (n->n_output != 1)
		return 0;
	if (!strcmp(op, "Gather"))
		return sym__onnx_attr_int(n, "axis", 0) == 0
		    ? fold_gather(im, n)
		    : 0;
	if (!strcmp(op, "Slice"))
		return fold_slice(im, n);
	if (!strcmp(op, "Reshape"))
		return fold_reshape(im, n);
	if (!strcmp(op, "ConstantOfShape"))
		return fold_constant_of_shape(im, n);
	if (!strcmp(op, "Concat"))
		return fold_concat(im, n);
	if (!strcmp(op, "Unsqueeze") || !strcmp(op, "Squeeze") ||
	    !strcmp(op, "Identity") || !strcmp(op, "Cast"))
		return fold_same(im, n, op);
	if (!strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") ||
	    !strcmp(op, "Div") || !strcmp(op, "Mod") || !strcmp(op, "Min") ||
	    !strcmp(op, "Max"))
		return n->n_input == 2 ? fold_binary(im, n, op) : 0;
	if (!strcmp(op, "Equal"))
		return fold_equal(im, n);
	if (!strcmp(op, "Where"))
		return fold_where(im, n);
	if (!strcmp(op, "ReduceProd"))
		return fold_reduce_prod(im, n);
	return 0;
}
