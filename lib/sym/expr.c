/* SPDX-License-Identifier: MIT */
/*
 * The constructors of canonical expressions (expr_private.h): constants,
 * symbols, sums, scalings, products, min and max; floordiv and mod are in
 * expr_div.c. Each builds its result with the polynomial builder
 * (expr_poly.c), which interns it (expr_intern.c).
 */
#include <stdlib.h>

#include "sym/expr_private.h"

/* Return an internal reference to the constant "v" of "ctx". */
sym_expr *
sym__const_num(sym_ctx *ctx, const sym__num *v)
{
	struct sym__pb pb;
	uint32_t h = sym__const_hash(v);
	struct sym_expr *e;
	size_t i;

	SYM__TABLE_FOREACH(ctx, h, i, e)
	if (e->kind == SYM__POLY && e->u.poly.n == 0 &&
	    sym__num_eq(&e->u.poly.c, v))
		return sym__expr_ref(e);
	sym__pb_init(&pb, ctx);
	sym__num_set(&pb.c, v);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to the constant "v" of "ctx". */
sym_expr *
sym__const(sym_ctx *ctx, int64_t v)
{
	sym__num n = SYM__NUM_ZERO;

	n.small = v;
	return sym__const_num(ctx, &n);
}

/* Return an internal reference to the polynomial 1 * "atom". */
sym_expr *
sym__atom_poly(struct sym_expr *atom)
{
	struct sym__pb pb;
	struct sym__factor f = { atom, 1 };
	sym__num one = { 1, NULL };

	if (!atom)
		return NULL;
	sym__pb_init(&pb, atom->ctx);
	sym__pb_push(&pb, &one, 1, &f);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to the polynomial 1 * the atom of "kind"
 * over "var" or over "a" and "b" (borrowed), or NULL. */
sym_expr *
sym__atom_expr(sym_ctx *ctx, enum sym__kind kind, sym_symbol *var,
    struct sym_expr *a, struct sym_expr *b)
{
	struct sym_expr *atom = sym__atom_get(ctx, kind, var, a, b);
	sym_expr *e = sym__atom_poly(atom);

	sym__expr_unref(atom);
	return e;
}

/* Return an internal reference to the expression of symbol "sym". */
sym_expr *
sym__var(sym_symbol *sym)
{
	if (sym->expr)
		return sym__expr_ref(sym->expr);
	return sym__atom_expr(sym->ctx, SYM__VAR, sym, NULL, NULL);
}

/* Return 1 and the constant in "v" (may be NULL) when "e" is a constant
 * polynomial. */
int
sym__expr_const_num(const sym_expr *e, const sym__num **v)
{
	if (!e || e->kind != SYM__POLY || e->u.poly.n != 0)
		return 0;
	if (v)
		*v = &e->u.poly.c;
	return 1;
}

/* Return the atom when "e" is exactly 1 * atom, else NULL. */
struct sym_expr *
sym__poly_single_atom(const sym_expr *e)
{
	if (!e || e->kind != SYM__POLY || e->u.poly.n != 1 ||
	    sym__num_sgn(&e->u.poly.c) != 0 ||
	    sym__num_cmp_si(&e->u.poly.t[0].coef, 1) != 0)
		return NULL;
	return sym__term_atom(&e->u.poly.t[0]);
}

/* Return 1 when "a" and "b" belong to the same context, else record an
 * error and return 0. */
int
sym__expr_same_ctx(const sym_expr *a, const sym_expr *b)
{
	if (a->ctx == b->ctx)
		return 1;
	sym__error(a->ctx, SYM_EINVAL, NULL,
	    "expressions from different contexts");
	return 0;
}

/* Return an internal reference to "a" + "b" (both borrowed). */
sym_expr *
sym__add(sym_expr *a, sym_expr *b)
{
	struct sym__pb pb;

	if (!a || !b || !sym__expr_same_ctx(a, b))
		return NULL;
	if (sym__expr_const_num(b, NULL) && sym__num_sgn(&b->u.poly.c) == 0)
		return sym__expr_ref(a);
	if (sym__expr_const_num(a, NULL) && sym__num_sgn(&a->u.poly.c) == 0)
		return sym__expr_ref(b);
	sym__pb_init(&pb, a->ctx);
	sym__pb_add_two(&pb, a, NULL, b, NULL);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to "k" times "a" (borrowed). */
sym_expr *
sym__scale_num(sym_expr *a, const sym__num *k)
{
	struct sym__pb pb;

	if (!a)
		return NULL;
	if (sym__num_cmp_si(k, 1) == 0)
		return sym__expr_ref(a);
	sym__pb_init(&pb, a->ctx);
	sym__pb_add_poly(&pb, a, k);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to "k" times "a" (borrowed). */
sym_expr *
sym__scale_si(sym_expr *a, int64_t k)
{
	sym__num n = { k, NULL };

	return sym__scale_num(a, &n);
}

/* Return an internal reference to "a" + "k" ("a" borrowed). */
sym_expr *
sym__add_si(sym_expr *a, int64_t k)
{
	struct sym__pb pb;
	sym__num n = { k, NULL };

	if (!a)
		return NULL;
	if (k == 0)
		return sym__expr_ref(a);
	sym__pb_init(&pb, a->ctx);
	sym__pb_add_poly(&pb, a, NULL);
	sym__num_add(&pb.c, &pb.c, &n);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to "ca"*"a" + "cb"*"b" + "c" (both
 * borrowed), built at once. */
sym_expr *
sym__lin(sym_expr *a, int64_t ca, sym_expr *b, int64_t cb, int64_t c)
{
	struct sym__pb pb;
	sym__num na = { ca, NULL }, nb = { cb, NULL }, nc = { c, NULL };

	if (!a || !b || !sym__expr_same_ctx(a, b))
		return NULL;
	sym__pb_init(&pb, a->ctx);
	sym__pb_add_two(&pb, a, ca == 1 ? NULL : &na, b, cb == 1 ? NULL : &nb);
	sym__num_add(&pb.c, &pb.c, &nc);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to "a" - "b" (both borrowed). */
sym_expr *
sym__sub(sym_expr *a, sym_expr *b)
{
	struct sym__pb pb;
	sym__num m1 = { -1, NULL };

	if (!a || !b || !sym__expr_same_ctx(a, b))
		return NULL;
	sym__pb_init(&pb, a->ctx);
	sym__pb_add_two(&pb, a, NULL, b, &m1);
	return sym__pb_finish(&pb);
}

/* Multiply the monomials of "a" and "b" into "out" (capacity a->n + b->n)
 * and return the number of factors. */
static uint32_t
mono_mul(const struct sym__term *a, const struct sym__term *b,
    struct sym__factor *out)
{
	uint32_t i = 0, j = 0, n = 0;

	while (i < a->n || j < b->n) {
		int c;

		if (i == a->n)
			c = 1;
		else if (j == b->n)
			c = -1;
		else
			c = sym__expr_cmp(a->f[i].atom, b->f[j].atom);
		if (c < 0) {
			out[n++] = a->f[i++];
		} else if (c > 0) {
			out[n++] = b->f[j++];
		} else {
			out[n] = a->f[i++];
			out[n++].exp += b->f[j++].exp;
		}
	}
	return n;
}

/* Return an internal reference to "a" * "b" (both borrowed). */
sym_expr *
sym__mul(sym_expr *a, sym_expr *b)
{
	struct sym__pb pb;
	struct sym__term ca = { SYM__NUM_ZERO, 0, NULL };
	struct sym__term cb = { SYM__NUM_ZERO, 0, NULL };
	sym__num c = SYM__NUM_ZERO;
	const sym__num *k;

	if (!a || !b || !sym__expr_same_ctx(a, b))
		return NULL;
	if (sym__expr_const_num(a, &k))
		return sym__scale_num(b, k);
	if (sym__expr_const_num(b, &k))
		return sym__scale_num(a, k);
	if ((uint64_t)(a->u.poly.n + 1) * (b->u.poly.n + 1) >
	    4 * (uint64_t)SYM__MAX_TERMS) {
		sym__error(a->ctx, SYM_EINVAL, NULL,
		    "expression too large: a product of %u and %u terms",
		    a->u.poly.n + 1, b->u.poly.n + 1);
		return NULL;
	}
	sym__pb_init(&pb, a->ctx);
	ca.coef = a->u.poly.c;
	cb.coef = b->u.poly.c;
	for (uint32_t i = 0; i <= a->u.poly.n; i++) {
		const struct sym__term *s =
		    i < a->u.poly.n ? &a->u.poly.t[i] : &ca;

		for (uint32_t j = 0; j <= b->u.poly.n; j++) {
			const struct sym__term *t =
			    j < b->u.poly.n ? &b->u.poly.t[j] : &cb;
			struct sym__factor *f;
			uint32_t n;

			f = sym__realloc_array(pb.ctx, NULL, s->n + t->n + 1,
			    sizeof(*f));
			if (!f) {
				pb.err = 1;
				break;
			}
			n = mono_mul(s, t, f);
			sym__num_mul(&c, &s->coef, &t->coef);
			if (sym__num_sgn(&c))
				sym__pb_push(&pb, &c, n, f);
			free(f);
		}
	}
	sym__num_clear(&c);
	return sym__pb_finish(&pb);
}

/* Return an internal reference to min or max ("kind") of "a" and "b". */
static sym_expr *
min_max(sym_expr *a, sym_expr *b, enum sym__kind kind)
{
	sym_expr *d;
	int a_le_b = 0, a_ge_b = 0;

	if (!a || !b || !sym__expr_same_ctx(a, b))
		return NULL;
	if (a == b)
		return sym__expr_ref(a);
	d = sym__sub(a, b);
	if (!d)
		return NULL;
	if (!d->av.empty) {
		a_le_b = !d->av.hi_inf && d->av.hi <= 0;
		a_ge_b = !d->av.lo_inf && d->av.lo >= 0;
	}
	sym__expr_unref(d);
	/* b - a too: its constant may fit 64 bits where that of a - b does
	 * not, and the answer must not depend on the argument order */
	d = sym__sub(b, a);
	if (!d)
		return NULL;
	if (!d->av.empty) {
		a_le_b |= !d->av.lo_inf && d->av.lo >= 0;
		a_ge_b |= !d->av.hi_inf && d->av.hi <= 0;
	}
	sym__expr_unref(d);
	if (a_le_b)
		return sym__expr_ref(kind == SYM__MIN ? a : b);
	if (a_ge_b)
		return sym__expr_ref(kind == SYM__MIN ? b : a);
	if (sym__expr_cmp(a, b) > 0) {
		sym_expr *t = a;

		a = b;
		b = t;
	}
	return sym__atom_expr(a->ctx, kind, NULL, a, b);
}

/* Return an internal reference to min("a", "b") (borrowed). */
sym_expr *
sym__min(sym_expr *a, sym_expr *b)
{
	return min_max(a, b, SYM__MIN);
}

/* Return an internal reference to max("a", "b") (borrowed). */
sym_expr *
sym__max(sym_expr *a, sym_expr *b)
{
	return min_max(a, b, SYM__MAX);
}
