/* SPDX-License-Identifier: MIT */
/*
 * Shapes: a dtype and a list of dimension expressions, immutable and
 * reference counted.
 *
 * A shape counts its references, and those held by callers, in its
 * header (lib/core/obj.c). While a caller holds one, the shape is on its context's list of
 * caller-held objects, so sym_ctx_free releases the callers' references
 * the callers forgot; references held inside the library (a graph's) are
 * released by their holders, whichever goes first.
 */
#include <stdlib.h>
#include <string.h>

#include "shape/shape_private.h"

/* Free the shape of header "obj" and release its dimensions. */
static void
shape_destroy(struct sym__obj *obj)
{
	sym_shape *s = SYM__OBJ_OF(obj, sym_shape, obj);

	for (size_t i = 0; i < s->rank; i++)
		sym__expr_unref(s->dim[i]);
	free(s->dim);
	free(s);
}

/* Return an internal reference to a new shape of dtype "dt" with the
 * "rank" dimensions "dims" (borrowed internal references), or NULL with an
 * error on "ctx". */
sym_shape *
sym__shape_new(sym_ctx *ctx, sym_dtype dt, size_t rank, sym_expr *const *dims)
{
	sym_shape *s;

	if (!ctx || (rank && !dims))
		return NULL;
	for (size_t i = 0; i < rank; i++)
		if (!dims[i])
			return NULL;
	if (rank > SIZE_MAX / sizeof(*s->dim)) {
		sym__oom(ctx);
		return NULL;
	}
	s = sym__alloc(ctx, sizeof(*s));
	if (!s)
		return NULL;
	s->dim = sym__alloc(ctx, (rank ? rank : 1) * sizeof(*s->dim));
	if (!s->dim) {
		free(s);
		return NULL;
	}
	sym__obj_init(&s->obj, SYM__OBJ_SHAPE, shape_destroy);
	s->ctx = ctx;
	s->dtype = dt;
	s->rank = rank;
	for (size_t i = 0; i < rank; i++)
		s->dim[i] = sym__expr_ref(dims[i]);
	return s;
}

/* Return a new internal reference to "s". */
sym_shape *
sym__shape_ref(sym_shape *s)
{
	if (s)
		sym__obj_ref(&s->obj);
	return s;
}

/* Release the internal reference "s", freeing the shape at zero. */
void
sym__shape_unref(sym_shape *s)
{
	if (s)
		sym__obj_unref(&s->obj);
}

/* Turn the internal reference "s" into a caller reference and return
 * it. */
sym_shape *
sym__shape_give(sym_shape *s)
{
	if (!s)
		return NULL;
	sym__obj_give(s->ctx, &s->obj);
	return s;
}

/* Return a caller reference to a new shape of dtype "dt" whose "rank"
 * dimensions are "dims" (borrowed; they must belong to "ctx"), or NULL
 * with SYM_EINVAL on an invalid dtype, a missing dimension or a negative
 * constant one. */
sym_shape *
sym_shape_new(sym_ctx *ctx, sym_dtype dt, size_t rank, sym_expr *const *dims)
{
	if (!ctx)
		return NULL;
	if (sym_dtype_size(dt) == 0) {
		sym__error(ctx, SYM_EINVAL, NULL, "invalid dtype %d", (int)dt);
		return NULL;
	}
	if (rank && !dims) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "a shape of rank %zu needs its dimensions", rank);
		return NULL;
	}
	for (size_t i = 0; i < rank; i++) {
		int64_t v;

		if (!dims[i] || dims[i]->ctx != ctx) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "dimension %zu of a shape is %s", i,
			    dims[i] ? "from another context" : "missing");
			return NULL;
		}
		if (sym_expr_get_const(dims[i], &v) == 0 && v < 0) {
			sym__error(ctx, SYM_EINVAL, NULL,
			    "dimension %zu of a shape is negative (%lld)", i,
			    (long long)v);
			return NULL;
		}
	}
	return sym__shape_give(sym__shape_new(ctx, dt, rank, dims));
}

/* Return a new caller reference to "s". */
sym_shape *
sym_shape_copy(const sym_shape *s)
{
	return sym__shape_give(sym__shape_ref((sym_shape *)s));
}

/* Release the caller reference "s"; return NULL. */
sym_shape *
sym_shape_free(sym_shape *s)
{
	if (!s)
		return NULL;
	sym__obj_drop(s->ctx, &s->obj);
	return NULL;
}

/* Return the dtype of "s" (SYM_DT_INVALID for NULL). */
sym_dtype
sym_shape_dtype(const sym_shape *s)
{
	return s ? s->dtype : SYM_DT_INVALID;
}

/* Return the rank of "s" (0 for NULL). */
size_t
sym_shape_ndim(const sym_shape *s)
{
	return s ? s->rank : 0;
}

/* Return dimension "i" of "s", borrowed from the shape, or NULL when "i"
 * is out of range. */
const sym_expr *
sym_shape_dim(const sym_shape *s, size_t i)
{
	return s && i < s->rank ? s->dim[i] : NULL;
}

/* Return an internal reference to the product of dimensions "from" to
 * "to" (excluded) of "s"; 1 for an empty range. */
static sym_expr *
product(const sym_shape *s, size_t from, size_t to)
{
	sym_expr *p = sym__const(s->ctx, 1);

	for (size_t i = from; i < to && p; i++) {
		sym_expr *q = sym__mul(p, s->dim[i]);

		sym__expr_unref(p);
		p = q;
	}
	return p;
}

/* Return a caller reference to the number of elements of "s", the product
 * of its dimensions (1 for rank 0). */
sym_expr *
sym_shape_numel(const sym_shape *s)
{
	return s ? sym__expr_give(product(s, 0, s->rank)) : NULL;
}

/* Return SYM_TRUE when "a" and "b" have the same dtype and the same
 * dimensions, SYM_FALSE when not, SYM_ERROR when either is NULL. */
sym_answer
sym_shape_is_equal(const sym_shape *a, const sym_shape *b)
{
	if (!a || !b)
		return SYM_ERROR;
	if (a->dtype != b->dtype || a->rank != b->rank)
		return SYM_FALSE;
	for (size_t i = 0; i < a->rank; i++)
		if (a->dim[i] != b->dim[i])
			return SYM_FALSE;
	return SYM_TRUE;
}

/* Write "prefix" then the "n" texts "item" as a list, "[a, b]", to "out",
 * which has room for "prefix", each text and 2 bytes more, and 3 bytes
 * (the brackets and the NUL). */
void
sym__list_write(char *out, const char *prefix, const char *const *item,
    size_t n)
{
	strcpy(out, prefix);
	strcat(out, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(out, ", ");
		strcat(out, item[i]);
	}
	strcat(out, "]");
}

/* Return the dimensions of "s" as "[b, 784]" after the text "prefix",
 * allocated with malloc, or NULL. */
static char *
dims_text(const sym_shape *s, const char *prefix)
{
	size_t len = strlen(prefix) + 3, cap;
	char **d;
	char *out = NULL;

	d = sym__alloc(s->ctx, (s->rank ? s->rank : 1) * sizeof(*d));
	if (!d)
		return NULL;
	for (size_t i = 0; i < s->rank; i++) {
		d[i] = sym_expr_to_str(s->dim[i]);
		if (!d[i])
			goto done;
		len += strlen(d[i]) + 2;
	}
	cap = len;
	out = sym__alloc(s->ctx, cap);
	if (!out)
		goto done;
	sym__list_write(out, prefix, (const char *const *)d, s->rank);
done:
	for (size_t i = 0; i < s->rank; i++)
		free(d[i]);
	free(d);
	return out;
}

/* Return "s" as text, "f32[b, 784]" ("f32[]" for rank 0), allocated with
 * malloc (the caller frees it), or NULL. */
char *
sym_shape_to_str(const sym_shape *s)
{
	return s ? dims_text(s, sym_dtype_name(s->dtype)) : NULL;
}

/* Return the dimensions of "s" as text, "[b, 784]", allocated with malloc
 * (the caller frees it), or NULL. */
char *
sym_shape_dims_to_str(const sym_shape *s)
{
	return s ? dims_text(s, "") : NULL;
}
