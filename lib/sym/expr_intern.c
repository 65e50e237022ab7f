/* SPDX-License-Identifier: MIT */
/*
 * Hash-consing: the table of a context's expression nodes, the atoms and
 * the polynomials found in it or added to it with their abstract values,
 * and the release of nodes (the ring of recent polynomials keeps those
 * that are built again soon).
 */
#include <stdlib.h>
#include <string.h>

#include "sym/expr_private.h"

/* Return "h" mixed with "v". */
static uint32_t
mix(uint32_t h, uint32_t v)
{
	h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2);
	return h;
}

/* Free the hash-consing table of "ctx" and every node still in it. */
static void
table_free(sym_ctx *ctx)
{
	struct sym__htab *t = &ctx->table;

	for (size_t i = 0; i < t->cap; i++) {
		struct sym_expr *e;

		if (t->slot[i].item == SYM__HTAB_EMPTY)
			continue;
		e = sym__table_node(ctx, i);
		if (e->kind == SYM__POLY) {
			for (uint32_t j = 0; j < e->u.poly.n; j++)
				sym__num_clear(&e->u.poly.t[j].coef);
			free(e->u.poly.t);
			sym__num_clear(&e->u.poly.c);
		}
		free(e);
	}
	sym__htab_clear(t);
}

/* Make room in the table of "ctx" for one more node; 0 or -1. */
static int
table_grow(sym_ctx *ctx)
{
	if (!ctx->table.slot && sym__ctx_add_hook(ctx, table_free) < 0)
		return -1;
	return sym__htab_reserve(ctx, &ctx->table, 1);
}

/* Insert the new node "e" into the table of its context (which has
 * room: table_grow). */
static void
table_insert(struct sym_expr *e)
{
	(void)sym__htab_add(e->ctx, &e->ctx->table, sym__table_key(e->hash),
	    (uintptr_t)e);
}

/* Remove "e" from the table of its context. */
static void
table_remove(struct sym_expr *e)
{
	struct sym__htab *t = &e->ctx->table;

	sym__htab_remove(t,
	    sym__htab_find_item(t, sym__table_key(e->hash), (uintptr_t)e));
}

/* Free the node "e", whose last reference is gone. */
static void
expr_destroy(struct sym_expr *e)
{
	table_remove(e);
	switch (e->kind) {
	case SYM__POLY:
		for (uint32_t j = 0; j < e->u.poly.n; j++) {
			struct sym__term *t = &e->u.poly.t[j];

			for (uint32_t k = 0; k < t->n; k++)
				sym__expr_unref(t->f[k].atom);
			sym__num_clear(&t->coef);
		}
		free(e->u.poly.t);
		sym__num_clear(&e->u.poly.c);
		break;
	case SYM__FDIV:
	case SYM__MOD:
	case SYM__MIN:
	case SYM__MAX:
		sym__expr_unref(e->u.bin.a);
		sym__expr_unref(e->u.bin.b);
		break;
	case SYM__VAR:
		break;
	}
	free(e);
}

/* Handle the release of the last reference to "e" (sym__expr_unref). A
 * polynomial is parked in the context's ring of recent nodes (which holds
 * one reference), so that building it again soon finds it in the table;
 * the node it displaces from the ring is freed if nothing else holds it.
 * Other nodes are freed. */
void
sym__expr_release(struct sym_expr *e)
{
	sym_ctx *ctx;
	struct sym_expr *old;

	if (e->kind != SYM__POLY) {
		expr_destroy(e);
		return;
	}
	ctx = e->ctx;
	e->ref = 1;
	old = ctx->recent[ctx->recent_pos];
	ctx->recent[ctx->recent_pos] = e;
	ctx->recent_pos = (ctx->recent_pos + 1) % SYM__N_RECENT;
	if (old && --old->ref == 0)
		expr_destroy(old);
}

/* Turn the internal reference "e" into one held by the caller. */
sym_expr *
sym__expr_give(sym_expr *e)
{
	if (e)
		e->ctx->live[SYM__OBJ_EXPR]++;
	return e;
}

/* Return a new node of "kind" for "ctx", not yet in the table. */
static struct sym_expr *
node_new(sym_ctx *ctx, enum sym__kind kind, uint32_t hash)
{
	struct sym_expr *e;

	if (table_grow(ctx) < 0)
		return NULL;
	e = sym__alloc(ctx, sizeof(*e));
	if (!e)
		return NULL;
	e->ctx = ctx;
	e->kind = kind;
	e->hash = hash;
	e->ref = 1;
	e->id = ctx->next_node_id++;
	return e;
}

/* Return the hash of an atom of "kind" over "var" or "a" and "b". */
static uint32_t
atom_hash(enum sym__kind kind, const sym_symbol *var, const struct sym_expr *a,
    const struct sym_expr *b)
{
	uint32_t h = mix(0x51ed27u, (uint32_t)kind);

	if (kind == SYM__VAR)
		return mix(h, var->id);
	return mix(mix(h, a->hash), b->hash);
}

/* Return the abstract value of the atom "e" from its children. */
static sym__av
atom_av(const struct sym_expr *e)
{
	switch (e->kind) {
	case SYM__VAR:
		return e->u.var->av;
	case SYM__FDIV:
		return sym__av_fdiv(e->u.bin.a->av, e->u.bin.b->av);
	case SYM__MOD:
		return sym__av_mod(e->u.bin.a->av, e->u.bin.b->av);
	case SYM__MIN:
		return sym__av_min(e->u.bin.a->av, e->u.bin.b->av);
	case SYM__MAX:
		return sym__av_max(e->u.bin.a->av, e->u.bin.b->av);
	case SYM__POLY:
		break;
	}
	return sym__av_top();
}

/* Return an internal reference to the atom of "kind" over "var" or over
 * "a" and "b" (borrowed), creating it if needed. */
struct sym_expr *
sym__atom_get(sym_ctx *ctx, enum sym__kind kind, sym_symbol *var,
    struct sym_expr *a, struct sym_expr *b)
{
	uint32_t h = atom_hash(kind, var, a, b);
	struct sym_expr *e;
	size_t i;

	SYM__TABLE_FOREACH(ctx, h, i, e)
	if (e->kind == kind &&
	    (kind == SYM__VAR ? e->u.var == var
	                      : e->u.bin.a == a && e->u.bin.b == b))
		return sym__expr_ref(e);
	e = node_new(ctx, kind, h);
	if (!e)
		return NULL;
	if (kind == SYM__VAR) {
		e->u.var = var;
		e->affine = 1;
		e->depth = 1;
	} else {
		int konst = sym__expr_const_num(b, NULL);

		e->u.bin.a = sym__expr_ref(a);
		e->u.bin.b = sym__expr_ref(b);
		e->depth = 1 + (a->depth > b->depth ? a->depth : b->depth);
		if (kind == SYM__MIN || kind == SYM__MAX)
			e->affine = a->affine && b->affine;
		else
			e->affine = a->affine && konst;
	}
	e->av = atom_av(e);
	table_insert(e);
	return e;
}

/* Return the atom of "kind" over "a", "b" if it exists (no reference). */
struct sym_expr *
sym__atom_find(sym_ctx *ctx, enum sym__kind kind, struct sym_expr *a,
    struct sym_expr *b)
{
	uint32_t h = atom_hash(kind, NULL, a, b);
	struct sym_expr *e;
	size_t i;

	SYM__TABLE_FOREACH(ctx, h, i, e)
	if (e->kind == kind && e->u.bin.a == a && e->u.bin.b == b)
		return e;
	return NULL;
}

/* Return the abstract value of the polynomial "e" from its atoms. */
static sym__av
poly_av(const struct sym_expr *e)
{
	int64_t c;
	sym__av s, nonneg = sym__av_make(0, 0, 1, 0, 1, 0);

	if (!sym__num_fits(&e->u.poly.c, &c))
		return sym__av_top();
	s = sym__av_const(c);
	for (uint32_t i = 0; i < e->u.poly.n; i++) {
		const struct sym__term *t = &e->u.poly.t[i];
		int64_t k;
		sym__av m;

		if (!sym__num_fits(&t->coef, &k))
			return sym__av_top();
		m = sym__av_const(k);
		for (uint32_t j = 0; j < t->n; j++) {
			sym__av p = t->f[j].atom->av;

			for (uint32_t x = 1; x < t->f[j].exp && x < 64; x++)
				p = sym__av_mul(p, t->f[j].atom->av);
			if (t->f[j].exp >= 64)
				p = sym__av_top();
			if (t->f[j].exp % 2 == 0)
				p = sym__av_meet(p, nonneg);
			m = sym__av_mul(m, p);
		}
		s = sym__av_add(s, m);
	}
	return s;
}

/* Return the hash of the constant polynomial "c"; the hash of any
 * polynomial starts from that of its constant. */
uint32_t
sym__const_hash(const sym__num *c)
{
	return mix(0x9017u, sym__num_hash(c));
}

/* Return the hash of the polynomial in "pb" (combined). */
static uint32_t
pb_hash(const struct sym__pb *pb)
{
	uint32_t h = sym__const_hash(&pb->c);

	for (size_t i = 0; i < pb->n; i++) {
		h = mix(h, sym__num_hash(&pb->t[i].coef));
		for (uint32_t k = 0; k < pb->t[i].n; k++)
			h = mix(mix(h, pb->t[i].f[k].atom->hash),
			    pb->t[i].f[k].exp);
	}
	return h;
}

/* Return 1 when the node "e" holds the polynomial in "pb". */
static int
pb_equal(const struct sym__pb *pb, const struct sym_expr *e)
{
	if (e->kind != SYM__POLY || e->u.poly.n != pb->n ||
	    !sym__num_eq(&e->u.poly.c, &pb->c))
		return 0;
	for (size_t i = 0; i < pb->n; i++) {
		const struct sym__term *a = &pb->t[i], *b = &e->u.poly.t[i];

		if (a->n != b->n || !sym__num_eq(&a->coef, &b->coef))
			return 0;
		for (uint32_t k = 0; k < a->n; k++)
			if (a->f[k].atom != b->f[k].atom ||
			    a->f[k].exp != b->f[k].exp)
				return 0;
	}
	return 1;
}

/* Return an internal reference to the interned polynomial of "pb"; "pb" is
 * consumed. */
sym_expr *
sym__pb_intern(struct sym__pb *pb)
{
	sym_ctx *ctx = pb->ctx;
	uint32_t h = pb_hash(pb);
	struct sym_expr *e;
	int affine = 1;
	uint16_t depth = 0;
	size_t at;

	SYM__TABLE_FOREACH(ctx, h, at, e)
	if (pb_equal(pb, e)) {
		sym__pb_clear(pb);
		return sym__expr_ref(e);
	}
	e = node_new(ctx, SYM__POLY, h);
	if (!e) {
		sym__pb_clear(pb);
		return NULL;
	}
	for (size_t i = 0; i < pb->n; i++) {
		const struct sym__term *t = &pb->t[i];

		if (t->n != 1 || t->f[0].exp != 1 || !t->f[0].atom->affine)
			affine = 0;
		for (uint32_t k = 0; k < t->n; k++)
			if (t->f[k].atom->depth > depth)
				depth = t->f[k].atom->depth;
	}
	if (pb->n) {
		size_t nf = 0;
		struct sym__term *t;
		struct sym__factor *f;

		for (size_t i = 0; i < pb->n; i++)
			nf += pb->t[i].n;
		t = sym__alloc(ctx, pb->n * sizeof(*t) + nf * sizeof(*f));
		if (!t) {
			free(e);
			sym__pb_clear(pb);
			return NULL;
		}
		f = (struct sym__factor *)(t + pb->n);
		for (size_t i = 0; i < pb->n; i++) {
			t[i] = pb->t[i];
			t[i].f = f;
			memcpy(f, pb->t[i].f, pb->t[i].n * sizeof(*f));
			f += pb->t[i].n;
		}
		e->u.poly.t = t;
	}
	e->u.poly.n = (uint32_t)pb->n;
	e->u.poly.c = pb->c;
	e->affine = (uint8_t)affine;
	e->depth = depth;
	e->av = poly_av(e);
	pb->c.big = NULL;
	sym__pb_release(pb);
	table_insert(e);
	return e;
}
