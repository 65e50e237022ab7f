/* SPDX-License-Identifier: MIT */
/*
 * The meshes and layouts a sharding pass gives the graph, one object per
 * distinct value: every node's run builds its own device matrix and
 * layouts, but graphs repeat the same few block after block, so the pass
 * keeps the first of each and gives the nodes references to it. That
 * keeps the sharded graph small and makes most comparisons of layouts
 * pointer comparisons.
 *
 * Equality is exact: meshes are equal when their axis sizes, names and
 * rank lists are; layouts when their meshes are equal and they list the
 * same axes in every dimension (axes of size 1 included) with the same
 * partial axes. Equal objects print, compare and plan alike.
 */
#include <stdlib.h>
#include <string.h>

#include "shard/shard_private.h"

/* Return "h" with the mesh "m" mixed in: its axes and the first 64
 * ranks of its rank list at most. */
static uint64_t
mesh_hash(uint64_t h, const sym_mesh *m)
{
	h = sym__hash_mix(h, m->n_axes);
	for (size_t a = 0; a < m->n_axes; a++) {
		uint64_t w = sym__fnv1a_str(SYM__FNV_BASIS, m->name[a]);

		h = sym__hash_mix(sym__hash_mix(h, (uint64_t)m->size[a]), w);
	}
	for (int64_t i = 0; m->ranks && i < m->n_devices && i < 64; i++)
		h = sym__hash_mix(h, (uint64_t)m->ranks[i]);
	return h;
}

/* Return "h" with the layout "l" mixed in: its mesh, its lists and its
 * partial axes. */
uint64_t
sym__layout_hash(uint64_t h, const sym_layout *l)
{
	h = sym__hash_mix(sym__hash_mix(mesh_hash(h, l->mesh), l->rank),
	    l->partial);
	for (size_t d = 0; d < l->rank; d++) {
		uint64_t w = l->n[d];

		for (size_t i = 0; i < l->n[d]; i++)
			w = w << 5 ^ (uint8_t)l->axes[d][i];
		h = sym__hash_mix(h, w);
	}
	return h;
}

/* Return 1 when "a" and "b" are the same layout over equal meshes, axes
 * of size 1 included; 0 if not. */
int
sym__layout_same(const sym_layout *a, const sym_layout *b)
{
	if (a == b)
		return 1;
	if (a->rank != b->rank || a->partial != b->partial ||
	    !sym_mesh_is_equal(a->mesh, b->mesh))
		return 0;
	for (size_t d = 0; d < a->rank; d++)
		if (a->n[d] != b->n[d] ||
		    memcmp(a->axes[d], b->axes[d], a->n[d]) != 0)
			return 0;
	return 1;
}

/* Grow the table "t" to "cap" slots (a power of two); 0 or -1. */
static int
regrow(struct sym__intern *t, size_t cap)
{
	struct sym__intern_slot *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t s;

		if (!t->slot[i].obj)
			continue;
		for (s = t->slot[i].hash & (cap - 1); slot[s].obj;
		     s = (s + 1) & (cap - 1))
			;
		slot[s] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

/* Return the slot of "t" holding the object of hash "h" equal to "obj"
 * by "same", or the empty slot where it goes; NULL when out of memory. */
static struct sym__intern_slot *
find(struct sym__intern *t, uint64_t h, const void *obj,
    int (*same)(const void *a, const void *b))
{
	size_t s;

	if (2 * (t->n + 1) > t->cap && regrow(t, t->cap ? 2 * t->cap : 64) < 0)
		return NULL;
	for (s = h & (t->cap - 1); t->slot[s].obj; s = (s + 1) & (t->cap - 1))
		if (t->slot[s].hash == h && same(t->slot[s].obj, obj))
			break;
	return &t->slot[s];
}

/* Return 1 when the meshes "a" and "b" are equal. */
static int
same_mesh(const void *a, const void *b)
{
	return sym_mesh_is_equal(a, b);
}

/* Return 1 when the layouts "a" and "b" are equal. */
static int
same_layout(const void *a, const void *b)
{
	return sym__layout_same(a, b);
}

/* Return a new internal reference to the mesh of the pass "p" equal to
 * "m" (the first one given, kept by the pass), or to "m" itself when out
 * of memory. */
sym_mesh *
sym__intern_mesh(struct sym__pass *p, sym_mesh *m)
{
	uint64_t h = mesh_hash(0, m);
	struct sym__intern_slot *s = find(&p->meshes, h, m, same_mesh);

	if (s && !s->obj) {
		s->obj = sym__mesh_ref(m);
		s->hash = h;
		p->meshes.n++;
	}
	return sym__mesh_ref(s ? s->obj : m);
}

/* Return a new internal reference to the layout of the pass "p" equal to
 * "l" (the first one given, kept by the pass), or to "l" itself when out
 * of memory. */
sym_layout *
sym__intern_layout(struct sym__pass *p, sym_layout *l)
{
	uint64_t h = sym__layout_hash(0, l);
	struct sym__intern_slot *s = find(&p->layouts, h, l, same_layout);

	if (s && !s->obj) {
		/* kept on the pass's mesh equal to its own, so that layouts
		 * and meshes of one pass compare equal by pointer whichever
		 * node gave them first */
		sym_mesh *m = sym__intern_mesh(p, l->mesh);
		sym_layout *c = m == l->mesh
		    ? NULL
		    : sym__layout_new(m, l->rank, l->n,
		          (const int8_t(*)[SYM_MESH_MAX_AXES])l->axes,
		          l->partial);

		sym__mesh_unref(m);
		s->obj = c ? c : sym__layout_ref(l);
		s->hash = h;
		p->layouts.n++;
	}
	return sym__layout_ref(s ? s->obj : l);
}

/* Release the meshes and layouts the pass "p" kept. */
void
sym__intern_clear(struct sym__pass *p)
{
	for (size_t i = 0; i < p->layouts.cap; i++)
		sym__layout_unref(p->layouts.slot[i].obj);
	for (size_t i = 0; i < p->meshes.cap; i++)
		sym__mesh_unref(p->meshes.slot[i].obj);
	free(p->layouts.slot);
	free(p->meshes.slot);
	memset(&p->layouts, 0, sizeof(p->layouts));
	memset(&p->meshes, 0, sizeof(p->meshes));
}
