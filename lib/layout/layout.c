/* SPDX-License-Identifier: MIT */
/*
 * Tensor layouts: for each dimension of a tensor the mesh axes that split
 * it, the first listed being the most significant digit of the block
 * index, plus the axes over which the tensor holds partial sums. A
 * dimension split into k blocks has local extent dim floordiv k and the
 * block b starts at b * (dim floordiv k); the tensor is replicated over
 * the axes it does not use.
 *
 * Layouts are immutable and reference counted like meshes (see mesh.c)
 * and hold an internal reference to their mesh.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/layout_private.h"

/* Free the layout of header "obj" (its lists are in the same block) and
 * release its mesh. */
static void
layout_destroy(struct sym__obj *obj)
{
	sym_layout *l = SYM__OBJ_OF(obj, sym_layout, obj);

	sym__mesh_unref(l->mesh);
	free(l);
}

/* Check that every axis of "mesh" appears at most once in the "rank"
 * dimensions "n", "axes" and the partial set "partial"; return 0, or -1
 * with SYM_ELAYOUT naming the axis. */
static int
check_axes(sym_mesh *mesh, size_t rank, const uint8_t *n,
    const int8_t (*axes)[SYM_MESH_MAX_AXES], uint32_t partial)
{
	int dim_of[SYM_MESH_MAX_AXES];

	if (partial >> mesh->n_axes) {
		sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
		    "a partial axis of a layout is not an axis of a mesh of "
		    "%zu axes",
		    mesh->n_axes);
		return -1;
	}
	for (size_t a = 0; a < mesh->n_axes; a++)
		dim_of[a] = -1;
	for (size_t d = 0; d < rank; d++)
		for (size_t i = 0; i < n[d]; i++) {
			int a = axes[d][i];

			if (a < 0 || (size_t)a >= mesh->n_axes) {
				sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
				    "dimension %zu of a layout is split by "
				    "axis %d, not an axis of a mesh of %zu "
				    "axes",
				    d, a, mesh->n_axes);
				return -1;
			}
			if (dim_of[a] >= 0) {
				sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
				    "axis %s splits dimension %d and "
				    "dimension %zu of a layout: an axis "
				    "splits at most one dimension, once",
				    mesh->name[a], dim_of[a], d);
				return -1;
			}
			if (partial & (UINT32_C(1) << a)) {
				sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
				    "axis %s splits dimension %zu of a "
				    "layout and is also partial",
				    mesh->name[a], d);
				return -1;
			}
			dim_of[a] = (int)d;
		}
	return 0;
}

/* Return an internal reference to a new layout over "mesh" of a tensor
 * of "rank" dimensions, dimension d split by "axes"[d][0 .. "n"[d]-1]
 * ("n" and "axes" may be NULL for an unsplit tensor), partial over the
 * axes whose bits are set in "partial"; NULL with SYM_ELAYOUT when an
 * axis is out of range or used twice. */
sym_layout *
sym__layout_new(sym_mesh *mesh, size_t rank, const uint8_t *n,
    const int8_t (*axes)[SYM_MESH_MAX_AXES], uint32_t partial)
{
	sym_layout *l;
	size_t k = rank ? rank : 1;

	if (!mesh)
		return NULL;
	if (n) {
		for (size_t d = 0; d < rank; d++)
			if (n[d] > mesh->n_axes) {
				sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
				    "dimension %zu of a layout lists %u "
				    "axes of a mesh of %zu",
				    d, (unsigned)n[d], mesh->n_axes);
				return NULL;
			}
		if (!axes || check_axes(mesh, rank, n, axes, partial) < 0)
			return NULL;
	} else if (check_axes(mesh, 0, NULL, NULL, partial) < 0)
		return NULL;
	if (k > (SIZE_MAX - sizeof(*l)) / (sizeof(*l->axes) + 1)) {
		sym__oom(mesh->ctx);
		return NULL;
	}
	l = sym__alloc(mesh->ctx, sizeof(*l) + k * (sizeof(*l->axes) + 1));
	if (!l)
		return NULL;
	l->axes = (int8_t(*)[SYM_MESH_MAX_AXES])(l + 1);
	l->n = (uint8_t *)(l->axes + k);
	sym__obj_init(&l->obj, SYM__OBJ_LAYOUT, layout_destroy);
	l->ctx = mesh->ctx;
	l->mesh = sym__mesh_ref(mesh);
	l->rank = rank;
	l->partial = partial;
	for (size_t d = 0; n && d < rank; d++) {
		l->n[d] = n[d];
		memcpy(l->axes[d], axes[d], n[d] * sizeof(axes[d][0]));
	}
	return l;
}

/* Return a new internal reference to "l". */
sym_layout *
sym__layout_ref(sym_layout *l)
{
	if (l)
		sym__obj_ref(&l->obj);
	return l;
}

/* Release the internal reference "l", freeing the layout at zero. */
void
sym__layout_unref(sym_layout *l)
{
	if (l)
		sym__obj_unref(&l->obj);
}

/* Turn the internal reference "l" into a caller reference; return it. */
sym_layout *
sym__layout_give(sym_layout *l)
{
	if (!l)
		return NULL;
	sym__obj_give(l->ctx, &l->obj);
	return l;
}

/* Return a caller reference to a new layout over "mesh" of a tensor of
 * "rank" dimensions, dimension d split by the "n_axes"[d] mesh axes
 * "axes"[d] (most significant first; "n_axes" NULL: none), partial over
 * the "n_partial" axes "partial"; NULL with SYM_ELAYOUT on an invalid or
 * repeated axis. */
sym_layout *
sym_layout_new(const sym_mesh *mesh, size_t rank, const size_t *n_axes,
    const int *const *axes, size_t n_partial, const int *partial)
{
	uint8_t *n;
	int8_t(*ax)[SYM_MESH_MAX_AXES];
	uint32_t bits = 0;
	sym_layout *l = NULL;

	if (!mesh)
		return NULL;
	for (size_t i = 0; i < n_partial; i++) {
		if (!partial || partial[i] < 0 ||
		    (size_t)partial[i] >= mesh->n_axes) {
			sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
			    "partial axis %d of a layout is not an axis of a "
			    "mesh of %zu axes",
			    partial ? partial[i] : -1, mesh->n_axes);
			return NULL;
		}
		if (bits & (UINT32_C(1) << partial[i])) {
			sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
			    "axis %s is listed twice as partial",
			    mesh->name[partial[i]]);
			return NULL;
		}
		bits |= UINT32_C(1) << partial[i];
	}
	n = sym__alloc(mesh->ctx, (rank ? rank : 1) * sizeof(*n));
	ax = sym__alloc(mesh->ctx, (rank ? rank : 1) * sizeof(*ax));
	for (size_t d = 0; n && ax && d < rank; d++) {
		size_t k = n_axes ? n_axes[d] : 0;

		if (k > mesh->n_axes || (k && (!axes || !axes[d]))) {
			sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
			    "dimension %zu of a layout lists %zu axes of a "
			    "mesh of %zu",
			    d, k, mesh->n_axes);
			goto out;
		}
		n[d] = (uint8_t)k;
		for (size_t i = 0; i < k; i++) {
			if (axes[d][i] < 0 ||
			    (size_t)axes[d][i] >= mesh->n_axes) {
				sym__error(mesh->ctx, SYM_ELAYOUT, NULL,
				    "dimension %zu of a layout is split by "
				    "axis %d, not an axis of a mesh of %zu "
				    "axes",
				    d, axes[d][i], mesh->n_axes);
				goto out;
			}
			ax[d][i] = (int8_t)axes[d][i];
		}
	}
	if (n && ax)
		l = sym__layout_give(sym__layout_new((sym_mesh *)mesh, rank, n,
		    (const int8_t(*)[SYM_MESH_MAX_AXES])ax, bits));
out:
	free(n);
	free(ax);
	return l;
}

/* Return a caller reference to the layout over "mesh" of a tensor of
 * "rank" dimensions that is replicated on every device. */
sym_layout *
sym_layout_replicated(const sym_mesh *mesh, size_t rank)
{
	return sym__layout_give(sym__layout_new((sym_mesh *)mesh, rank, NULL,
	    NULL, 0));
}

/* Return a new caller reference to "l". */
sym_layout *
sym_layout_copy(const sym_layout *l)
{
	return sym__layout_give(sym__layout_ref((sym_layout *)l));
}

/* Release the caller reference "l"; return NULL. */
sym_layout *
sym_layout_free(sym_layout *l)
{
	if (!l)
		return NULL;
	sym__obj_drop(l->ctx, &l->obj);
	return NULL;
}

/* Return the mesh of "l", borrowed from the layout. */
const sym_mesh *
sym_layout_mesh(const sym_layout *l)
{
	return l ? l->mesh : NULL;
}

/* Return the number of tensor dimensions of "l" (0 for NULL). */
size_t
sym_layout_ndim(const sym_layout *l)
{
	return l ? l->rank : 0;
}

/* Return the number of axes that split dimension "dim" of "l". */
size_t
sym_layout_dim_n_axes(const sym_layout *l, size_t dim)
{
	return l && dim < l->rank ? l->n[dim] : 0;
}

/* Return the "i"-th axis (most significant first) that splits dimension
 * "dim" of "l", or -1 when out of range. */
int
sym_layout_dim_axis(const sym_layout *l, size_t dim, size_t i)
{
	if (!l || dim >= l->rank || i >= l->n[dim])
		return -1;
	return l->axes[dim][i];
}

/* Return the number of blocks dimension "dim" of "l" is cut into (the
 * product of the sizes of its axes), or -1 when out of range. */
int64_t
sym_layout_dim_splits(const sym_layout *l, size_t dim)
{
	int64_t k = 1;

	if (!l || dim >= l->rank)
		return -1;
	for (size_t i = 0; i < l->n[dim]; i++)
		k *= l->mesh->size[l->axes[dim][i]];
	return k;
}

/* Return SYM_TRUE if "l" holds partial sums over axis "axis", SYM_FALSE
 * if not, SYM_ERROR for NULL or an axis out of range. */
sym_answer
sym_layout_is_partial(const sym_layout *l, size_t axis)
{
	if (!l || axis >= l->mesh->n_axes)
		return SYM_ERROR;
	return l->partial >> axis & 1 ? SYM_TRUE : SYM_FALSE;
}

/* Return the dimension of "l" that axis "axis" splits, -2 if the axis is
 * partial, -1 if neither (or out of range). */
int
sym_layout_axis_dim(const sym_layout *l, size_t axis)
{
	if (!l || axis >= l->mesh->n_axes)
		return -1;
	if (l->partial >> axis & 1)
		return -2;
	for (size_t d = 0; d < l->rank; d++)
		for (size_t i = 0; i < l->n[d]; i++)
			if ((size_t)l->axes[d][i] == axis)
				return (int)d;
	return -1;
}

/* Return an internal reference to the standard form of "l": its axes of
 * size 1 removed from the dimensions and from the partial set. */
static sym_layout *
standard(const sym_layout *l)
{
	int8_t(*ax)[SYM_MESH_MAX_AXES];
	uint8_t *n;
	uint32_t partial = l->partial;
	sym_layout *s = NULL;

	n = sym__alloc(l->ctx, (l->rank ? l->rank : 1) * sizeof(*n));
	ax = sym__alloc(l->ctx, (l->rank ? l->rank : 1) * sizeof(*ax));
	for (size_t d = 0; n && ax && d < l->rank; d++)
		for (size_t i = 0; i < l->n[d]; i++)
			if (l->mesh->size[l->axes[d][i]] > 1)
				ax[d][n[d]++] = l->axes[d][i];
	for (size_t a = 0; a < l->mesh->n_axes; a++)
		if (l->mesh->size[a] == 1)
			partial &= ~(UINT32_C(1) << a);
	if (n && ax)
		s = sym__layout_new(l->mesh, l->rank, n,
		    (const int8_t(*)[SYM_MESH_MAX_AXES])ax, partial);
	free(n);
	free(ax);
	return s;
}

/* Return a caller reference to the standard form of "l" (axes of size 1
 * dropped), over the same mesh. */
sym_layout *
sym_layout_standard(const sym_layout *l)
{
	return l ? sym__layout_give(standard(l)) : NULL;
}

/* Return 1 if the standard forms of "a" and "b" split the same dimensions
 * by the same axes, in the same order, with the same partial axes, over
 * equal meshes; 0 if not. */
sym_answer
sym_layout_is_equal(const sym_layout *a, const sym_layout *b)
{
	uint32_t ones = 0;

	if (!a || !b)
		return SYM_ERROR;
	if (a->rank != b->rank || !sym_mesh_is_equal(a->mesh, b->mesh))
		return SYM_FALSE;
	for (size_t i = 0; i < a->mesh->n_axes; i++)
		if (a->mesh->size[i] == 1)
			ones |= UINT32_C(1) << i;
	if ((a->partial & ~ones) != (b->partial & ~ones))
		return SYM_FALSE;
	for (size_t d = 0; d < a->rank; d++) {
		size_t i = 0, j = 0;

		for (;;) {
			while (i < a->n[d] && (ones >> a->axes[d][i] & 1))
				i++;
			while (j < b->n[d] && (ones >> b->axes[d][j] & 1))
				j++;
			if (i == a->n[d] || j == b->n[d])
				break;
			if (a->axes[d][i++] != b->axes[d][j++])
				return SYM_FALSE;
		}
		if (i != a->n[d] || j != b->n[d])
			return SYM_FALSE;
	}
	return SYM_TRUE;
}

/* Store in "map" (room for "cap" entries) MindSpore's tensor map of
 * dimension "dim" of "l": for each axis that splits it, most significant
 * first, the number n_axes - 1 - axis; a single -1 when it is unsplit.
 * Return the number of entries (which may exceed "cap"), or -1. */
int
sym_layout_tensor_map(const sym_layout *l, size_t dim, size_t cap, int *map)
{
	if (!l || dim >= l->rank || (cap && !map))
		return -1;
	if (l->n[dim] == 0) {
		if (cap)
			map[0] = -1;
		return 1;
	}
	for (size_t i = 0; i < l->n[dim] && i < cap; i++)
		map[i] = (int)l->mesh->n_axes - 1 - l->axes[dim][i];
	return l->n[dim];
}

/* Append the text of dimension "d" of "l" to "s" at "*pos" ("len" bytes
 * in all). */
static void
print_dim(const sym_layout *l, size_t d, char *s, size_t len, size_t *pos)
{
	const sym_mesh *m = l->mesh;

	if (l->n[d] == 0)
		*pos += (size_t)snprintf(s + *pos, len - *pos, "None");
	else if (l->n[d] == 1)
		*pos += (size_t)snprintf(s + *pos, len - *pos, "%s",
		    m->name[l->axes[d][0]]);
	else
		for (size_t i = 0; i < l->n[d]; i++)
			*pos += (size_t)snprintf(s + *pos, len - *pos, "%s%s%s",
			    i ? ", " : "(", m->name[l->axes[d][i]],
			    i + 1 == l->n[d] ? ")" : "");
}

/* Return a malloc'ed "(mp, (sp, dp))" for "l", with " partial(a, b)"
 * appended when it holds partial sums; NULL on error. */
char *
sym_layout_to_str(const sym_layout *l)
{
	size_t len = 16, pos = 0;
	int first = 1;
	char *s;

	if (!l)
		return NULL;
	for (size_t a = 0; a < l->mesh->n_axes; a++)
		len += 2 * (strlen(l->mesh->name[a]) + 4);
	len += 8 * l->rank;
	s = sym__alloc(l->ctx, len);
	if (!s)
		return NULL;
	pos += (size_t)snprintf(s, len, "(");
	for (size_t d = 0; d < l->rank; d++) {
		if (d)
			pos += (size_t)snprintf(s + pos, len - pos, ", ");
		print_dim(l, d, s, len, &pos);
	}
	pos += (size_t)snprintf(s + pos, len - pos, ")");
	for (size_t a = 0; a < l->mesh->n_axes; a++) {
		if (!(l->partial >> a & 1))
			continue;
		pos += (size_t)snprintf(s + pos, len - pos, "%s%s",
		    first ? " partial(" : ", ", l->mesh->name[a]);
		first = 0;
	}
	if (!first)
		snprintf(s + pos, len - pos, ")");
	return s;
}

/* Return the index of the block of dimension "dim" of "l" that rank
 * "rank" holds (the coordinates of its axes in mixed radix, the first
 * listed most significant); -1 when "dim" is out of range, -1 with
 * SYM_EINVAL when "rank" is outside the mesh. */
int64_t
sym_layout_block(const sym_layout *l, int64_t rank, size_t dim)
{
	int64_t c[SYM_MESH_MAX_AXES], b = 0;

	if (!l || dim >= l->rank)
		return -1;
	if (sym_mesh_coords(l->mesh, rank, c) < 0)
		return -1;
	for (size_t i = 0; i < l->n[dim]; i++) {
		int a = l->axes[dim][i];

		b = b * l->mesh->size[a] + c[a];
	}
	return b;
}

/* Return 0 if "global" can be the size of dimension "dim" of a tensor
 * laid out by "l", or -1 with SYM_EINVAL. */
static int
check_dim(const sym_layout *l, const sym_expr *global, size_t dim)
{
	if (sym_expr_ctx(global) != l->ctx) {
		sym__error(l->ctx, SYM_EINVAL, NULL,
		    "the size of dimension %zu is %s", dim,
		    global ? "from another context" : "missing");
		return -1;
	}
	if (dim >= l->rank) {
		sym__error(l->ctx, SYM_EINVAL, NULL,
		    "dimension %zu is outside a layout of rank %zu", dim,
		    l->rank);
		return -1;
	}
	return 0;
}

/* Return a caller reference to the local extent of dimension "dim" of
 * global size "global" (borrowed) under "l": global floordiv splits. */
sym_expr *
sym_layout_local_dim(const sym_layout *l, const sym_expr *global, size_t dim)
{
	if (!l || check_dim(l, global, dim) < 0)
		return NULL;
	return sym_expr_floordiv_si(sym_expr_copy(global),
	    sym_layout_dim_splits(l, dim));
}

/* Return a caller reference to the offset along dimension "dim" (global
 * size "global", borrowed) of the block that rank "rank" holds under "l":
 * its block index times the local extent. */
sym_expr *
sym_layout_offset(const sym_layout *l, const sym_expr *global, size_t dim,
    int64_t rank)
{
	int64_t b;

	if (!l || check_dim(l, global, dim) < 0)
		return NULL;
	b = sym_layout_block(l, rank, dim);
	if (b < 0)
		return NULL;
	return sym_expr_mul_si(sym_layout_local_dim(l, global, dim), b);
}

/* Return a caller reference to the shape of the local block of a tensor
 * of shape "global" (borrowed) under "l", or NULL with SYM_ELAYOUT when
 * the ranks differ. */
sym_shape *
sym_layout_local_shape(const sym_layout *l, const sym_shape *global)
{
	sym_expr **dim;
	sym_shape *s = NULL;
	size_t d;

	if (!l || !global)
		return NULL;
	if (global->rank != l->rank || global->ctx != l->ctx) {
		sym__error(l->ctx, SYM_ELAYOUT, NULL,
		    "a layout of rank %zu cannot cut a shape of rank %zu%s",
		    l->rank, global->rank,
		    global->ctx != l->ctx ? " of another context" : "");
		return NULL;
	}
	dim = sym__alloc(l->ctx, (l->rank ? l->rank : 1) * sizeof(*dim));
	if (!dim)
		return NULL;
	for (d = 0; d < l->rank; d++) {
		sym_expr *k = sym__const(l->ctx, sym_layout_dim_splits(l, d));

		dim[d] = k ? sym__fdiv(global->dim[d], k) : NULL;
		sym__expr_unref(k);
		if (!dim[d])
			break;
	}
	if (d == l->rank)
		s = sym__shape_give(sym__shape_new(l->ctx, global->dtype,
		    l->rank, dim));
	while (d-- > 0)
		sym__expr_unref(dim[d]);
	free(dim);
	return s;
}
