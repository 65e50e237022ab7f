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

/* Return the object of hash "h" in "t" equal to "obj" by "same", or
 * NULL. */
static void *
find(const struct sym__intern *t, uint64_t h, const void *obj,
    int (*same)(const void *a, const void *b))
{
	for (size_t i = sym__htab_first(&t->t, h); i != SYM__HTAB_END;
	     i = sym__htab_next(&t->t, h, i)) {
		void *o = (void *)t->t.slot[i].item;

		if (same(o, obj))
			return o;
	}
	return NULL;
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
	sym_mesh *k = find(&p->meshes, h, m, same_mesh);

	if (k)
		return sym__mesh_ref(k);
	if (sym__htab_add(NULL, &p->meshes.t, h, (uintptr_t)m) < 0)
		return sym__mesh_ref(m);
	sym__mesh_ref(m); /* the table's */
	return sym__mesh_ref(m);
}

/* Return a new internal reference to the layout of the pass "p" equal to
 * "l" (the first one given, kept by the pass), or to "l" itself when out
 * of memory. */
sym_layout *
sym__intern_layout(struct sym__pass *p, sym_layout *l)
{
	uint64_t h = sym__layout_hash(0, l);
	sym_layout *k = find(&p->layouts, h, l, same_layout), *c;
	sym_mesh *m;

	if (k)
		return sym__layout_ref(k);
	if (sym__htab_reserve(NULL, &p->layouts.t, 1) < 0)
		return sym__layout_ref(l);
	/* kept on the pass's mesh equal to its own, so that layouts and
	 * meshes of one pass compare equal by pointer whichever node gave
	 * them first */
	m = sym__intern_mesh(p, l->mesh);
	c = m == l->mesh
	    ? NULL
	    : sym__layout_new(m, l->rank, l->n,
	          (const int8_t(*)[SYM_MESH_MAX_AXES])l->axes, l->partial);
	sym__mesh_unref(m);
	k = c ? c : sym__layout_ref(l); /* the table's */
	/* Room was reserved above: this cannot fail. */
	(void)sym__htab_add(NULL, &p->layouts.t, h, (uintptr_t)k);
	return sym__layout_ref(k);
}

/* Release the meshes and layouts the pass "p" kept. */
void
sym__intern_clear(struct sym__pass *p)
{
	for (size_t i = 0; i < p->layouts.t.cap; i++)
		if (p->layouts.t.slot[i].item != SYM__HTAB_EMPTY)
			sym__layout_unref((sym_layout *)p->layouts.t.slot[i]
			                      .item);
	for (size_t i = 0; i < p->meshes.t.cap; i++)
		if (p->meshes.t.slot[i].item != SYM__HTAB_EMPTY)
			sym__mesh_unref((sym_mesh *)p->meshes.t.slot[i].item);
	sym__htab_clear(&p->layouts.t);
	sym__htab_clear(&p->meshes.t);
}
