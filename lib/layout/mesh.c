/* SPDX-License-Identifier: MIT */
/*
 * Device meshes: a device matrix of named axes over the ranks 0 .. N-1,
 * optionally listed in another order. A rank's coordinates are its
 * position in the rank list written in mixed radix, last axis fastest.
 *
 * Meshes are immutable and reference counted like shapes: "ref" counts
 * every reference, "cref" those held by callers, during which the mesh is
 * on its context's list of caller-held objects.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_private.h"

/* Free "m" (its names are in the same block) and its arrays. */
static void
mesh_destroy(sym_mesh *m)
{
	free(m->ranks);
	free(m->pos);
	free(m);
}

/* Free the mesh of header "obj" (its last reference is gone). */
static void
mesh_obj_destroy(struct sym__obj *obj)
{
	mesh_destroy(SYM__OBJ_OF(obj, sym_mesh, obj));
}

/* Return 1 if "s" is an identifier other than the reserved "None". */
static int
is_identifier(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (const char *p = s + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return strcmp(s, "None") != 0;
}

/* Check the axis "sizes" of the "n_axes" axes on "ctx" and store their
 * product in "*n"; return 0, or -1 with SYM_ELAYOUT. */
static int
check_sizes(sym_ctx *ctx, size_t n_axes, const int64_t *sizes, int64_t *n)
{
	if (n_axes == 0 || n_axes > SYM_MESH_MAX_AXES) {
		sym__error(ctx, SYM_ELAYOUT, NULL,
		    "a mesh needs 1 to %d axes, not %zu", SYM_MESH_MAX_AXES,
		    n_axes);
		return -1;
	}
	if (!sizes) {
		sym__error(ctx, SYM_ELAYOUT, NULL, "a mesh needs axis sizes");
		return -1;
	}
	*n = 1;
	for (size_t i = 0; i < n_axes; i++) {
		if (sizes[i] < 1) {
			sym__error(ctx, SYM_ELAYOUT, NULL,
			    "axis %zu of a mesh has size %lld: sizes must be "
			    "at least 1",
			    i, (long long)sizes[i]);
			return -1;
		}
		if (__builtin_mul_overflow(*n, sizes[i], n)) {
			sym__error(ctx, SYM_ELAYOUT, NULL,
			    "the device count of a mesh overflows 64 bits");
			return -1;
		}
	}
	return 0;
}

/* Return the name of axis "i" given as "names" (NULL, or a NULL entry:
 * "a0", "a1", ..., written in "buf" of 24 bytes). */
static const char *
axis_name(const char *const *names, size_t i, char *buf)
{
	if (names && names[i])
		return names[i];
	snprintf(buf, 24, "a%zu", i);
	return buf;
}

/* Give "m" the axis names "names" (see axis_name) after checking them,
 * copied to "store" (room for all of them); return 0, or -1 with
 * SYM_ELAYOUT. */
static int
set_names(sym_mesh *m, const char *const *names, char *store)
{
	char buf[24];

	for (size_t i = 0; i < m->n_axes; i++) {
		const char *s = axis_name(names, i, buf);
		size_t len = strlen(s) + 1;

		if (!is_identifier(s)) {
			sym__error(m->ctx, SYM_ELAYOUT, NULL,
			    "axis %zu of a mesh is named '%s': axis names are "
			    "identifiers other than None",
			    i, s);
			return -1;
		}
		m->name[i] = memcpy(store, s, len);
		store += len;
		for (size_t j = 0; j < i; j++)
			if (strcmp(m->name[j], m->name[i]) == 0) {
				sym__error(m->ctx, SYM_ELAYOUT, NULL,
				    "axes %zu and %zu of a mesh are both "
				    "named %s",
				    j, i, m->name[i]);
				return -1;
			}
	}
	return 0;
}

/* Give "m" the rank list "ranks" of "n_ranks" entries (0: the identity)
 * after checking it is a permutation; return 0 or -1. */
static int
set_ranks(sym_mesh *m, size_t n_ranks, const int64_t *ranks)
{
	int64_t n = m->n_devices;
	int identity = 1;

	if (n_ranks == 0)
		return 0;
	if (!ranks || (uint64_t)n_ranks != (uint64_t)n) {
		sym__error(m->ctx, SYM_ELAYOUT, NULL,
		    "the rank list of a mesh of %lld devices has %zu entries",
		    (long long)n, ranks ? n_ranks : 0);
		return -1;
	}
	m->pos = sym__realloc_array(m->ctx, NULL, (size_t)n, sizeof(*m->pos));
	m->ranks =
	    sym__realloc_array(m->ctx, NULL, (size_t)n, sizeof(*m->ranks));
	if (!m->pos || !m->ranks)
		return -1;
	for (int64_t i = 0; i < n; i++)
		m->pos[i] = -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t r = ranks[i];

		if (r < 0 || r >= n || m->pos[r] >= 0) {
			sym__error(m->ctx, SYM_ELAYOUT, NULL,
			    "the rank list of a mesh of %lld devices is not a "
			    "permutation of 0 .. %lld: rank %lld at position "
			    "%lld is %s",
			    (long long)n, (long long)(n - 1), (long long)r,
			    (long long)i,
			    r < 0 || r >= n ? "out of range" : "repeated");
			return -1;
		}
		m->pos[r] = i;
		m->ranks[i] = r;
		identity &= r == i;
	}
	if (identity) {
		free(m->pos);
		free(m->ranks);
		m->pos = m->ranks = NULL;
	}
	return 0;
}

/* Return an internal reference to a new mesh of "ctx" with the "n_axes"
 * axes of sizes "sizes" and names "names" (NULL or NULL entries for
 * defaults), over the ranks "ranks" ("n_ranks" of them; 0: the
 * identity, "ranks" ignored), or NULL with SYM_ELAYOUT on "ctx". */
sym_mesh *
sym__mesh_new(sym_ctx *ctx, size_t n_axes, const int64_t *sizes,
    const char *const *names, size_t n_ranks, const int64_t *ranks)
{
	size_t len = 0;
	char buf[24];
	sym_mesh *m;
	int64_t n;

	if (!ctx || check_sizes(ctx, n_axes, sizes, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n_axes; i++)
		len += strlen(axis_name(names, i, buf)) + 1;
	m = sym__alloc(ctx, sizeof(*m) + len);
	if (!m)
		return NULL;
	sym__obj_init(&m->obj, SYM__OBJ_MESH, mesh_obj_destroy);
	m->ctx = ctx;
	m->n_axes = n_axes;
	m->n_devices = n;
	memcpy(m->size, sizes, n_axes * sizeof(*sizes));
	if (set_names(m, names, (char *)(m + 1)) < 0 ||
	    set_ranks(m, n_ranks, ranks) < 0) {
		mesh_destroy(m);
		return NULL;
	}
	return m;
}

/* Return a new internal reference to "m". */
sym_mesh *
sym__mesh_ref(sym_mesh *m)
{
	if (m)
		sym__obj_ref(&m->obj);
	return m;
}

/* Release the internal reference "m", freeing the mesh at zero. */
void
sym__mesh_unref(sym_mesh *m)
{
	if (m)
		sym__obj_unref(&m->obj);
}

/* Turn the internal reference "m" into a caller reference; return it. */
static sym_mesh *
mesh_give(sym_mesh *m)
{
	if (!m)
		return NULL;
	sym__obj_give(m->ctx, &m->obj);
	return m;
}

/* Return a caller reference to a new mesh (see sym__mesh_new for "ctx",
 * "n_axes", "sizes", "names", "n_ranks" and "ranks"). */
sym_mesh *
sym_mesh_new(sym_ctx *ctx, size_t n_axes, const int64_t *sizes,
    const char *const *names, size_t n_ranks, const int64_t *ranks)
{
	return mesh_give(sym__mesh_new(ctx, n_axes, sizes, names, n_ranks,
	    ranks));
}

/* Return a new caller reference to "m". */
sym_mesh *
sym_mesh_copy(const sym_mesh *m)
{
	return mesh_give(sym__mesh_ref((sym_mesh *)m));
}

/* Release the caller reference "m"; return NULL. */
sym_mesh *
sym_mesh_free(sym_mesh *m)
{
	if (!m)
		return NULL;
	sym__obj_drop(m->ctx, &m->obj);
	return NULL;
}

/* Return the number of axes of "m" (0 for NULL). */
size_t
sym_mesh_n_axes(const sym_mesh *m)
{
	return m ? m->n_axes : 0;
}

/* Return the size of axis "axis" of "m", or -1 if out of range. */
int64_t
sym_mesh_axis_size(const sym_mesh *m, size_t axis)
{
	return m && axis < m->n_axes ? m->size[axis] : -1;
}

/* Return the name of axis "axis" of "m" (borrowed), or NULL. */
const char *
sym_mesh_axis_name(const sym_mesh *m, size_t axis)
{
	return m && axis < m->n_axes ? m->name[axis] : NULL;
}

/* Return the number of the axis of "m" named "name", or SYM_NPOS. */
size_t
sym_mesh_find_axis(const sym_mesh *m, const char *name)
{
	if (!m || !name)
		return SYM_NPOS;
	for (size_t i = 0; i < m->n_axes; i++)
		if (strcmp(m->name[i], name) == 0)
			return i;
	return SYM_NPOS;
}

/* Return the number of devices of "m" (0 for NULL). */
int64_t
sym_mesh_n_devices(const sym_mesh *m)
{
	return m ? m->n_devices : 0;
}

/* Return the position of "rank" in the rank list of "m", or -1. */
static int64_t
mesh_pos(const sym_mesh *m, int64_t rank)
{
	if (!m || rank < 0 || rank >= m->n_devices)
		return -1;
	return m->pos ? m->pos[rank] : rank;
}

/* Return the rank at position "index" of the rank list of "m", or -1
 * when out of range. */
int64_t
sym_mesh_rank(const sym_mesh *m, int64_t index)
{
	if (!m || index < 0 || index >= m->n_devices)
		return -1;
	return m->ranks ? m->ranks[index] : index;
}

/* Return SYM_TRUE when the rank list of "m" is not 0, 1, ... (it is
 * then held in memory, one entry per device), SYM_FALSE when it is,
 * SYM_ERROR for NULL. */
sym_answer
sym_mesh_has_rank_list(const sym_mesh *m)
{
	if (!m)
		return SYM_ERROR;
	return m->ranks ? SYM_TRUE : SYM_FALSE;
}

/* Store in "coords" (one per axis) the coordinates of "rank" in "m";
 * return 0, or -1 with SYM_EINVAL when "rank" is out of range. */
int
sym_mesh_coords(const sym_mesh *m, int64_t rank, int64_t *coords)
{
	int64_t pos = mesh_pos(m, rank);

	if (!m || !coords)
		return -1;
	if (pos < 0) {
		sym__error(m->ctx, SYM_EINVAL, NULL,
		    "rank %lld is outside the %lld devices of a mesh",
		    (long long)rank, (long long)m->n_devices);
		return -1;
	}
	for (size_t i = m->n_axes; i-- > 0;) {
		coords[i] = pos % m->size[i];
		pos /= m->size[i];
	}
	return 0;
}

/* Return the rank of "m" at the coordinates "coords", or -1 with
 * SYM_EINVAL when one is out of range. */
int64_t
sym_mesh_rank_of(const sym_mesh *m, const int64_t *coords)
{
	int64_t pos = 0;

	if (!m || !coords)
		return -1;
	for (size_t i = 0; i < m->n_axes; i++) {
		if (coords[i] < 0 || coords[i] >= m->size[i]) {
			sym__error(m->ctx, SYM_EINVAL, NULL,
			    "coordinate %lld is outside axis %s of size %lld",
			    (long long)coords[i], m->name[i],
			    (long long)m->size[i]);
			return -1;
		}
		pos = pos * m->size[i] + coords[i];
	}
	return m->ranks ? m->ranks[pos] : pos;
}

/* Return SYM_TRUE if "a" and "b" have the same axis sizes and names and
 * the same rank list, SYM_FALSE if not, SYM_ERROR when either is NULL. */
sym_answer
sym_mesh_is_equal(const sym_mesh *a, const sym_mesh *b)
{
	if (!a || !b)
		return SYM_ERROR;
	if (a == b)
		return SYM_TRUE;
	if (a->n_axes != b->n_axes)
		return SYM_FALSE;
	for (size_t i = 0; i < a->n_axes; i++)
		if (a->size[i] != b->size[i] ||
		    strcmp(a->name[i], b->name[i]) != 0)
			return SYM_FALSE;
	if (!a->ranks || !b->ranks)
		return !a->ranks && !b->ranks ? SYM_TRUE : SYM_FALSE;
	return memcmp(a->ranks, b->ranks,
	           (size_t)a->n_devices * sizeof(*a->ranks)) == 0
	    ? SYM_TRUE
	    : SYM_FALSE;
}

/* Return a malloc'ed "(dp=2, sp=2, mp=2)" for "m", followed by
 * " ranks [..]" when its rank list is not the identity; NULL on error. */
char *
sym_mesh_to_str(const sym_mesh *m)
{
	size_t len = 3, pos = 0;
	char *s;

	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n_axes; i++)
		len += strlen(m->name[i]) + 24;
	if (m->ranks)
		len += 10 + (size_t)m->n_devices * 22;
	s = sym__alloc(m->ctx, len);
	if (!s)
		return NULL;
	pos += (size_t)snprintf(s, len, "(");
	for (size_t i = 0; i < m->n_axes; i++)
		pos += (size_t)snprintf(s + pos, len - pos, "%s%s=%lld",
		    i ? ", " : "", m->name[i], (long long)m->size[i]);
	pos += (size_t)snprintf(s + pos, len - pos, ")");
	if (!m->ranks)
		return s;
	pos += (size_t)snprintf(s + pos, len - pos, " ranks [");
	for (int64_t i = 0; i < m->n_devices; i++)
		pos += (size_t)snprintf(s + pos, len - pos, "%s%lld",
		    i ? ", " : "", (long long)m->ranks[i]);
	snprintf(s + pos, len - pos, "]");
	return s;
}
