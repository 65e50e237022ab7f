/* SPDX-License-Identifier: MIT */
/*
 * The common mesh of a redistribution: two layouts of one tensor mapped
 * onto one device matrix, axes of size 1 left out. Layouts over meshes
 * with different axes but the same rank list meet on their coarsest
 * common refinement, whose axes split each axis of both meshes into
 * consecutive axes, row-major: (2, 4) and (4, 1, 2) both become (2, 2, 2).
 */
#include <stdlib.h>
#include <string.h>

#include "redist/planner_private.h"

/* The axes of the common mesh that each axis of a mesh covers, most
 * significant first. */
struct cover {
	uint8_t n[SYM_MESH_MAX_AXES];
	int8_t axis[SYM_MESH_MAX_AXES][SYM_MESH_MAX_AXES];
};

/* Return 1 when "a" and "b" list the same ranks in the same order. */
static int
same_ranks(const sym_mesh *a, const sym_mesh *b)
{
	if (!a->ranks || !b->ranks)
		return !a->ranks && !b->ranks;
	return memcmp(a->ranks, b->ranks,
	           (size_t)a->n_devices * sizeof(*a->ranks)) == 0;
}

/* Return 1 when "a" and "b" are the same device matrix (names aside). */
static int
same_matrix(const sym_mesh *a, const sym_mesh *b)
{
	if (a->n_axes != b->n_axes || !same_ranks(a, b))
		return 0;
	return memcmp(a->size, b->size, a->n_axes * sizeof(a->size[0])) == 0;
}

/* Fill "c" for "m" mapped onto itself, axes of size 1 covering nothing. */
static void
cover_self(const sym_mesh *m, struct cover *c)
{
	for (size_t a = 0; a < m->n_axes; a++) {
		c->n[a] = m->size[a] > 1;
		c->axis[a][0] = (int8_t)a;
	}
}

/* Store in "st" the strides of the axes of "m" (last axis 1). */
static void
strides(const sym_mesh *m, int64_t *st)
{
	int64_t s = 1;

	for (size_t a = m->n_axes; a-- > 0;) {
		st[a] = s;
		s *= m->size[a];
	}
}

/* Add the strides of "m" to the sorted set "set" of "*n" values. */
static void
add_strides(const sym_mesh *m, int64_t *set, size_t *n)
{
	int64_t st[SYM_MESH_MAX_AXES];

	strides(m, st);
	for (size_t a = 0; a < m->n_axes; a++) {
		size_t i = 0;

		while (i < *n && set[i] < st[a])
			i++;
		if (i < *n && set[i] == st[a])
			continue;
		memmove(set + i + 1, set + i, (*n - i) * sizeof(*set));
		set[i] = st[a];
		(*n)++;
	}
}

/* Fill "c" with the axes of the refined mesh of strides "rst" ("q" axes)
 * that each axis of "m" covers. */
static void
cover_refined(const sym_mesh *m, const int64_t *rst, size_t q, struct cover *c)
{
	int64_t st[SYM_MESH_MAX_AXES];

	strides(m, st);
	for (size_t a = 0; a < m->n_axes; a++) {
		c->n[a] = 0;
		for (size_t k = 0; k < q; k++)
			if (rst[k] >= st[a] && rst[k] < st[a] * m->size[a])
				c->axis[a][c->n[a]++] = (int8_t)k;
	}
}

/* Return the axis of "m" whose strides (in "st") include "s". */
static size_t
axis_at(const sym_mesh *m, const int64_t *st, int64_t s)
{
	size_t a = 0;

	while (a + 1 < m->n_axes && !(s >= st[a] && s < st[a] * m->size[a]))
		a++;
	return a;
}

/* Return 1 if "name" is among the first "n" of "names". */
static int
name_taken(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

/* Return the malloc'ed name of axis "k" (stride "s") of the refinement
 * of "a" and "b" (covers "ca", "cb"), unique among the "k" names before
 * it. */
static char *
refined_name(const sym_mesh *a, const struct cover *ca, const sym_mesh *b,
    const struct cover *cb, int64_t s, size_t k, char *const *names)
{
	int64_t sa[SYM_MESH_MAX_AXES], sb[SYM_MESH_MAX_AXES];
	size_t i = 0, ia, ib;
	char *name;

	strides(a, sa);
	strides(b, sb);
	ia = axis_at(a, sa, s);
	ib = axis_at(b, sb, s);
	if (ca->n[ia] == 1)
		name = sym__strdup(a->ctx, a->name[ia]);
	else if (cb->n[ib] == 1)
		name = sym__strdup(a->ctx, b->name[ib]);
	else {
		while (ca->axis[ia][i] != (int8_t)k)
			i++;
		name = sym__asprintf("%s_%zu", a->name[ia], i);
	}
	while (name && name_taken(names, k, name)) {
		char *longer = sym__asprintf("%s_%zu", name, k);

		free(name);
		name = longer;
	}
	if (!name)
		sym__oom(a->ctx);
	return name;
}

/* Return an internal reference to the coarsest common refinement of the
 * meshes "a" and "b" (same rank list), filling their covers "ca" and
 * "cb"; NULL with "*why" set when there is none, or NULL on error. */
static sym_mesh *
refine(const sym_mesh *a, struct cover *ca, const sym_mesh *b, struct cover *cb,
    char **why)
{
	int64_t set[2 * SYM_MESH_MAX_AXES + 1], rst[2 * SYM_MESH_MAX_AXES];
	int64_t size[SYM_MESH_MAX_AXES];
	char *names[SYM_MESH_MAX_AXES];
	size_t n = 0, q = 0;
	sym_mesh *r = NULL;

	add_strides(a, set, &n);
	add_strides(b, set, &n);
	set[n++] = a->n_devices;
	for (size_t i = 0; i + 1 < n; i++)
		if (set[i + 1] % set[i] != 0) {
			char *sa = sym_mesh_to_str(a), *sb = sym_mesh_to_str(b);

			*why = sym__asprintf("meshes %s and %s have no common "
			                     "refinement",
			    sa ? sa : "?", sb ? sb : "?");
			free(sa);
			free(sb);
			if (!*why)
				sym__oom(a->ctx);
			return NULL;
		}
	for (size_t i = 0; i + 1 < n; i++)
		q += set[i + 1] > set[i];
	if (q > SYM_MESH_MAX_AXES) {
		*why = sym__asprintf("the common refinement of the meshes "
		                     "would have more than %d axes",
		    SYM_MESH_MAX_AXES);
		if (!*why)
			sym__oom(a->ctx);
		return NULL;
	}
	q = 0;
	memset(rst, 0, sizeof(rst));
	for (size_t i = n - 1; i-- > 0;)
		if (set[i + 1] > set[i]) {
			size[q] = set[i + 1] / set[i];
			rst[q++] = set[i];
		}
	cover_refined(a, rst, q, ca);
	cover_refined(b, rst, q, cb);
	for (size_t k = 0; k < q; k++) {
		names[k] = refined_name(a, ca, b, cb, rst[k], k, names);
		if (!names[k]) {
			q = k;
			goto out;
		}
	}
	r = sym__mesh_new(a->ctx, q, size, (const char *const *)names,
	    a->ranks ? (size_t)a->n_devices : 0, a->ranks);
out:
	for (size_t k = 0; k < q; k++)
		free(names[k]);
	return r;
}

/* Store in "n"/"axes" the lists of "l" mapped through "c"; return the
 * partial axes of "l" mapped through "c". */
static uint32_t
map_layout(const sym_layout *l, const struct cover *c, uint8_t *n,
    int8_t (*axes)[SYM_MESH_MAX_AXES])
{
	uint32_t partial = 0;

	for (size_t d = 0; d < l->rank; d++) {
		n[d] = 0;
		for (size_t i = 0; i < l->n[d]; i++) {
			int a = l->axes[d][i];

			for (size_t k = 0; k < c->n[a]; k++)
				axes[d][n[d]++] = c->axis[a][k];
		}
	}
	for (size_t a = 0; a < l->mesh->n_axes; a++)
		if (l->partial >> a & 1)
			for (size_t k = 0; k < c->n[a]; k++)
				partial |= UINT32_C(1) << c->axis[a][k];
	return partial;
}

/* Allocate the lists of "p" for "rank" dimensions; return 0 or -1. */
static int
alloc_lists(sym_ctx *ctx, struct sym__rproblem *p, size_t rank)
{
	size_t k = rank ? rank : 1;

	p->rank = rank;
	p->n_from = sym__alloc(ctx, k * sizeof(*p->n_from));
	p->n_to = sym__alloc(ctx, k * sizeof(*p->n_to));
	p->from = sym__alloc(ctx, k * sizeof(*p->from));
	p->to = sym__alloc(ctx, k * sizeof(*p->to));
	return p->n_from && p->n_to && p->from && p->to ? 0 : -1;
}

/* Release what "p" holds. */
void
sym__redist_problem_clear(struct sym__rproblem *p)
{
	sym__mesh_unref(p->mesh);
	free(p->n_from);
	free(p->n_to);
	free(p->from);
	free(p->to);
	free(p->mod);
	memset(p, 0, sizeof(*p));
}

/* Check that "to" keeps partial sums only over axes where "from" has
 * them ("pf", "pt" mapped); return 0, or -1 with SYM_ELAYOUT. */
static int
check_partial(const sym_layout *to, const struct cover *ct, uint32_t pf)
{
	for (size_t a = 0; a < to->mesh->n_axes; a++) {
		uint32_t bits = 0;

		if (!(to->partial >> a & 1))
			continue;
		for (size_t k = 0; k < ct->n[a]; k++)
			bits |= UINT32_C(1) << ct->axis[a][k];
		if (bits & ~pf) {
			sym__error(to->ctx, SYM_ELAYOUT, NULL,
			    "the target layout holds partial sums over axis "
			    "%s where the source does not: a redistribution "
			    "cannot create partial sums",
			    to->mesh->name[a]);
			return -1;
		}
	}
	return 0;
}

/* Map "from" and "to" onto a common mesh in "p" (zeroed by the caller).
 * Return 0 with p->mesh set; 0 with p->mesh NULL and "*why" a malloc'ed
 * reason when the meshes have no common refinement (the caller then
 * gathers and slices); -1 on error. */
int
sym__redist_map(struct sym__rproblem *p, const sym_layout *from,
    const sym_layout *to, char **why)
{
	struct cover cf, ct;
	uint32_t pf, pt;

	*why = NULL;
	memset(&cf, 0, sizeof(cf));
	memset(&ct, 0, sizeof(ct));
	if (same_matrix(from->mesh, to->mesh) || from->mesh->n_devices == 1) {
		p->mesh = sym__mesh_ref(from->mesh);
		cover_self(from->mesh, &cf);
		cover_self(from->mesh, &ct);
		if (from->mesh->n_devices == 1) {
			memset(cf.n, 0, sizeof(cf.n));
			memset(ct.n, 0, sizeof(ct.n));
		}
	} else if (same_ranks(from->mesh, to->mesh)) {
		p->mesh = refine(from->mesh, &cf, to->mesh, &ct, why);
		if (!p->mesh)
			return *why ? 0 : -1;
	} else {
		*why = sym__asprintf("the meshes list their ranks in different "
		                     "orders");
		if (!*why)
			sym__oom(from->ctx);
		return *why ? 0 : -1;
	}
	if (alloc_lists(from->ctx, p, from->rank) < 0)
		return -1;
	pf = map_layout(from, &cf, p->n_from, p->from);
	pt = map_layout(to, &ct, p->n_to, p->to);
	if (check_partial(to, &ct, pf) < 0)
		return -1;
	p->pending = pf & ~pt;
	p->kept = pt;
	return 0;
}
