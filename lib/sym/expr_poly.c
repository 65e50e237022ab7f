/* SPDX-License-Identifier: MIT */
/*
 * Canonical polynomials under construction: the total order of atoms,
 * monomials and nodes that sorts terms and factors, the builder (struct
 * sym__pb), and the rewriting rules it applies to terms with a floordiv or
 * mod factor before the result is interned.
 */
#include <stdlib.h>
#include <string.h>

#include "sym/expr_private.h"

/* Return the sign of the comparison of the atoms "a" and "b" as
 * sym__expr_cmp, with the common cases (same atom, two symbols) inline. */
static inline int
atom_cmp(const struct sym_expr *a, const struct sym_expr *b)
{
	if (a == b)
		return 0;
	if (a->kind == SYM__VAR && b->kind == SYM__VAR)
		return a->u.var->id < b->u.var->id ? -1 : 1;
	return sym__expr_cmp(a, b);
}

/* Return the sign of the comparison of the monomials of "a" and "b":
 * lower total degree first, then factor by factor. */
static int
mono_cmp(const struct sym__term *a, const struct sym__term *b)
{
	uint64_t da = 0, db = 0;

	if (a->n == 1 && b->n == 1) {
		if (a->f[0].exp != b->f[0].exp)
			return a->f[0].exp < b->f[0].exp ? -1 : 1;
		return atom_cmp(a->f[0].atom, b->f[0].atom);
	}
	for (uint32_t i = 0; i < a->n; i++)
		da += a->f[i].exp;
	for (uint32_t i = 0; i < b->n; i++)
		db += b->f[i].exp;
	if (da != db)
		return da < db ? -1 : 1;
	for (uint32_t i = 0; i < a->n && i < b->n; i++) {
		int c = atom_cmp(a->f[i].atom, b->f[i].atom);

		if (c)
			return c;
		if (a->f[i].exp != b->f[i].exp)
			return a->f[i].exp > b->f[i].exp ? -1 : 1;
	}
	return (a->n > b->n) - (a->n < b->n);
}

/* Return the sign of the comparison of nodes "a" and "b" in the total
 * order that sorts terms and factors. */
int
sym__expr_cmp(const struct sym_expr *a, const struct sym_expr *b)
{
	int c;

	if (a == b)
		return 0;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	switch (a->kind) {
	case SYM__VAR:
		return a->u.var->id < b->u.var->id ? -1 : 1;
	case SYM__FDIV:
	case SYM__MOD:
	case SYM__MIN:
	case SYM__MAX:
		c = sym__expr_cmp(a->u.bin.a, b->u.bin.a);
		return c ? c : sym__expr_cmp(a->u.bin.b, b->u.bin.b);
	case SYM__POLY:
		if (a->u.poly.n != b->u.poly.n)
			return a->u.poly.n < b->u.poly.n ? -1 : 1;
		for (uint32_t i = 0; i < a->u.poly.n; i++) {
			c = mono_cmp(&a->u.poly.t[i], &b->u.poly.t[i]);
			if (c)
				return c;
			c = sym__num_cmp(&a->u.poly.t[i].coef,
			    &b->u.poly.t[i].coef);
			if (c)
				return c;
		}
		return sym__num_cmp(&a->u.poly.c, &b->u.poly.c);
	}
	return 0;
}

/* Initialise the builder "pb" for "ctx". */
void
sym__pb_init(struct sym__pb *pb, sym_ctx *ctx)
{
	pb->ctx = ctx;
	pb->t = pb->tbuf;
	pb->n = 0;
	pb->cap = sizeof(pb->tbuf) / sizeof(pb->tbuf[0]);
	pb->fp = pb->fbuf;
	pb->fn = 0;
	pb->fcap = sizeof(pb->fbuf) / sizeof(pb->fbuf[0]);
	pb->c.small = 0;
	pb->c.big = NULL;
	pb->err = 0;
	pb->divmod = 0;
	pb->sorted = 1;
}

/* Free the arrays of "pb" (not what they hold) and empty it. */
void
sym__pb_release(struct sym__pb *pb)
{
	if (pb->t != pb->tbuf)
		free(pb->t);
	if (pb->fp != pb->fbuf)
		free(pb->fp);
	pb->t = pb->tbuf;
	pb->fp = pb->fbuf;
	pb->n = pb->fn = 0;
}

/* Release the atoms and the coefficient of term "t". */
static void
term_clear(struct sym__term *t)
{
	for (uint32_t k = 0; k < t->n; k++)
		sym__expr_unref(t->f[k].atom);
	sym__num_clear(&t->coef);
}

/* Release everything held by the builder "pb". */
void
sym__pb_clear(struct sym__pb *pb)
{
	for (size_t i = 0; i < pb->n; i++)
		term_clear(&pb->t[i]);
	sym__num_clear(&pb->c);
	sym__pb_release(pb);
}

/* Make room in "pb" for one more term of "n" factors; 0, or -1 with
 * SYM_ENOMEM on its context. */
static int
pb_reserve(struct sym__pb *pb, uint32_t n)
{
	if (pb->n == pb->cap) {
		size_t cap = 2 * pb->cap;
		struct sym__term *nt =
		    sym__realloc_array(pb->ctx, NULL, cap, sizeof(*nt));

		if (!nt)
			return -1;
		memcpy(nt, pb->t, pb->n * sizeof(*nt));
		if (pb->t != pb->tbuf)
			free(pb->t);
		pb->t = nt;
		pb->cap = cap;
	}
	if (pb->fn + n > pb->fcap) {
		size_t cap = 2 * (pb->fcap + n);
		struct sym__factor *nf =
		    sym__realloc_array(pb->ctx, NULL, cap, sizeof(*nf));

		if (!nf)
			return -1;
		memcpy(nf, pb->fp, pb->fn * sizeof(*nf));
		for (size_t i = 0; i < pb->n; i++)
			pb->t[i].f = nf + (pb->t[i].f - pb->fp);
		if (pb->fp != pb->fbuf)
			free(pb->fp);
		pb->fp = nf;
		pb->fcap = cap;
	}
	return 0;
}

/* Append "coef" times the monomial of "n" factors "f" to "pb", taking new
 * references to the atoms. "pb" stays sorted while the terms come in
 * increasing order of monomial with non-zero coefficients. */
void
sym__pb_push(struct sym__pb *pb, const sym__num *coef, uint32_t n,
    const struct sym__factor *f)
{
	struct sym__term *t;

	if (pb->err)
		return;
	if (n == 0) {
		sym__num_add(&pb->c, &pb->c, coef);
		return;
	}
	if ((pb->n == pb->cap || pb->fn + n > pb->fcap) &&
	    pb_reserve(pb, n) < 0) {
		pb->err = 1;
		return;
	}
	t = &pb->t[pb->n];
	t->f = pb->fp + pb->fn;
	for (uint32_t k = 0; k < n; k++) {
		t->f[k] = f[k];
		sym__expr_ref(f[k].atom);
		pb->divmod |=
		    f[k].atom->kind == SYM__FDIV || f[k].atom->kind == SYM__MOD;
	}
	pb->fn += n;
	t->n = n;
	t->coef.small = 0;
	t->coef.big = NULL;
	sym__num_set(&t->coef, coef);
	if (pb->sorted &&
	    (sym__num_sgn(coef) == 0 ||
	        (pb->n > 0 && mono_cmp(&pb->t[pb->n - 1], t) >= 0)))
		pb->sorted = 0;
	pb->n++;
}

/* Add "k" times the polynomial "p" to "pb" ("k" NULL means 1). */
void
sym__pb_add_poly(struct sym__pb *pb, const sym_expr *p, const sym__num *k)
{
	sym__num c = SYM__NUM_ZERO;

	for (uint32_t i = 0; i < p->u.poly.n; i++) {
		const struct sym__term *t = &p->u.poly.t[i];

		if (k)
			sym__num_mul(&c, &t->coef, k);
		else
			sym__num_set(&c, &t->coef);
		sym__pb_push(pb, &c, t->n, t->f);
	}
	if (k)
		sym__num_mul(&c, &p->u.poly.c, k);
	else
		sym__num_set(&c, &p->u.poly.c);
	sym__num_add(&pb->c, &pb->c, &c);
	sym__num_clear(&c);
}

/* Set "r" to "v" times "k" ("k" NULL means 1). */
static inline void
num_scaled(sym__num *r, const sym__num *v, const sym__num *k)
{
	if (k)
		sym__num_mul(r, v, k);
	else
		sym__num_set(r, v);
}

/* Add "ka" times "a" plus "kb" times "b" to "pb" (NULL means 1), merging
 * the terms of the two polynomials, which are in order already: the sum
 * comes out sorted when "pb" had no terms. */
void
sym__pb_add_two(struct sym__pb *pb, const sym_expr *a, const sym__num *ka,
    const sym_expr *b, const sym__num *kb)
{
	const struct sym__term *x = a->u.poly.t, *y = b->u.poly.t;
	uint32_t i = 0, j = 0, na = a->u.poly.n, nb = b->u.poly.n;
	sym__num c = SYM__NUM_ZERO, d = SYM__NUM_ZERO;

	while (i < na || j < nb) {
		int o = i == na ? 1 : j == nb ? -1 : mono_cmp(&x[i], &y[j]);
		const struct sym__term *t = o <= 0 ? &x[i] : &y[j];

		num_scaled(&c, &t->coef, o <= 0 ? ka : kb);
		if (o == 0) {
			num_scaled(&d, &y[j].coef, kb);
			sym__num_add(&c, &c, &d);
		}
		if (sym__num_sgn(&c))
			sym__pb_push(pb, &c, t->n, t->f);
		i += o <= 0;
		j += o >= 0;
	}
	num_scaled(&c, &a->u.poly.c, ka);
	num_scaled(&d, &b->u.poly.c, kb);
	sym__num_add(&c, &c, &d);
	sym__num_add(&pb->c, &pb->c, &c);
	sym__num_clear(&c);
	sym__num_clear(&d);
}

/* qsort comparison of terms by monomial. */
static int
term_qcmp(const void *a, const void *b)
{
	return mono_cmp(a, b);
}

/* Sort the terms of "pb" and merge those with equal monomials, dropping
 * zero coefficients. */
static void
pb_combine(struct sym__pb *pb)
{
	size_t w = 0;

	if (pb->sorted)
		return;
	if (pb->n > 16) {
		qsort(pb->t, pb->n, sizeof(*pb->t), term_qcmp);
	} else {
		for (size_t i = 1; i < pb->n; i++) {
			struct sym__term x = pb->t[i];
			size_t j = i;

			for (; j > 0 && mono_cmp(&pb->t[j - 1], &x) > 0; j--)
				pb->t[j] = pb->t[j - 1];
			pb->t[j] = x;
		}
	}
	for (size_t i = 0; i < pb->n; i++) {
		if (w > 0 && mono_cmp(&pb->t[w - 1], &pb->t[i]) == 0) {
			sym__num_add(&pb->t[w - 1].coef, &pb->t[w - 1].coef,
			    &pb->t[i].coef);
			term_clear(&pb->t[i]);
			continue;
		}
		if (w > 0 && sym__num_sgn(&pb->t[w - 1].coef) == 0)
			term_clear(&pb->t[--w]);
		pb->t[w++] = pb->t[i];
	}
	if (w > 0 && sym__num_sgn(&pb->t[w - 1].coef) == 0)
		term_clear(&pb->t[--w]);
	pb->n = w;
}

/* Return the atom of term "t" when it is a single atom to the power one,
 * else NULL. */
struct sym_expr *
sym__term_atom(const struct sym__term *t)
{
	return t->n == 1 && t->f[0].exp == 1 ? t->f[0].atom : NULL;
}

/* Return the constant value of the divisor of the FDIV or MOD atom "a", or
 * NULL when it is not constant. */
const sym__num *
sym__atom_const_divisor(const struct sym_expr *a)
{
	const sym__num *k;

	if (a->kind != SYM__FDIV && a->kind != SYM__MOD)
		return NULL;
	if (!sym__expr_const_num(a->u.bin.b, &k))
		return NULL;
	return k;
}

/* Return a copy of "pb" without terms "skip1" and "skip2" (may be the
 * same) plus "k" times "p", as a finished polynomial. */
static sym_expr *
pb_rewrite(struct sym__pb *pb, size_t skip1, size_t skip2, const sym_expr *p,
    const sym__num *k)
{
	struct sym__pb nb;

	sym__pb_init(&nb, pb->ctx);
	for (size_t i = 0; i < pb->n; i++)
		if (i != skip1 && i != skip2)
			sym__pb_push(&nb, &pb->t[i].coef, pb->t[i].n,
			    pb->t[i].f);
	sym__num_set(&nb.c, &pb->c);
	sym__pb_add_poly(&nb, p, k);
	sym__pb_clear(pb);
	return sym__pb_finish(&nb);
}

/* Return the residue r in [0, k) with "x" = r (mod k) for every
 * admissible binding, or -1 when the declarations do not fix it. */
static int64_t
fixed_residue(const struct sym_expr *x, int64_t k)
{
	if (x->av.empty || (x->av.m != 0 && x->av.m % k != 0))
		return -1;
	return ((x->av.r % k) + k) % k;
}

/* Return the polynomial "coef" times the monomial of term "t" with factor
 * "skip" lowered by one power, times "x" (internal reference). */
static sym_expr *
term_times(sym_ctx *ctx, const sym__num *coef, const struct sym__term *t,
    uint32_t skip, sym_expr *x)
{
	struct sym__pb nb;
	struct sym__factor *f =
	    sym__realloc_array(ctx, NULL, t->n + 1, sizeof(*f));
	uint32_t n = 0;
	sym_expr *m, *r;

	if (!f)
		return NULL;
	for (uint32_t j = 0; j < t->n; j++) {
		f[n] = t->f[j];
		if (j == skip && --f[n].exp == 0)
			continue;
		n++;
	}
	sym__pb_init(&nb, ctx);
	sym__pb_push(&nb, coef, n, f);
	free(f);
	m = sym__pb_finish(&nb);
	r = sym__mul(m, x);
	sym__expr_unref(m);
	return r;
}

/* Apply the exact-division rule to "pb": a term c * (x floordiv k) * M
 * with k | c and x = r (mod k) fixed by the declarations is
 * (c/k) * (x - r) * M. Return the rewritten polynomial, or NULL (and "pb"
 * untouched) when the rule does not apply. */
static sym_expr *
rule_exact_division(struct sym__pb *pb, int *applied)
{
	for (size_t i = 0; i < pb->n; i++) {
		const struct sym__term *t = &pb->t[i];

		for (uint32_t j = 0; j < t->n; j++) {
			struct sym_expr *a = t->f[j].atom;
			const sym__num *k;
			sym__num q = SYM__NUM_ZERO, one = { 1, NULL };
			int64_t kk, r;
			sym_expr *xr, *rep, *res;

			if (a->kind != SYM__FDIV ||
			    !(k = sym__atom_const_divisor(a)) ||
			    !sym__num_fits(k, &kk) ||
			    !sym__num_divisible(&t->coef, k))
				continue;
			r = fixed_residue(a->u.bin.a, kk);
			if (r < 0)
				continue;
			*applied = 1;
			xr = sym__add_si(a->u.bin.a, -r);
			sym__num_divexact(&q, &t->coef, k);
			rep = xr ? term_times(pb->ctx, &q, t, j, xr) : NULL;
			sym__num_clear(&q);
			sym__expr_unref(xr);
			if (!rep) {
				sym__pb_clear(pb);
				return NULL;
			}
			res = pb_rewrite(pb, i, i, rep, &one);
			sym__expr_unref(rep);
			return res;
		}
	}
	return NULL;
}

/* Apply Euclid's identity to "pb": c * (x mod k) + c*k * (x floordiv k)
 * is c * x. Return the rewritten polynomial or NULL as above. */
static sym_expr *
rule_euclid(struct sym__pb *pb, int *applied)
{
	for (size_t i = 0; i < pb->n; i++) {
		struct sym_expr *a = sym__term_atom(&pb->t[i]), *fd;
		const sym__num *k;
		sym__num ck = SYM__NUM_ZERO;
		sym_expr *res;

		if (!a || a->kind != SYM__MOD ||
		    !(k = sym__atom_const_divisor(a)))
			continue;
		fd = sym__atom_find(pb->ctx, SYM__FDIV, a->u.bin.a, a->u.bin.b);
		if (!fd)
			continue;
		sym__num_mul(&ck, &pb->t[i].coef, k);
		for (size_t j = 0; j < pb->n; j++) {
			if (sym__term_atom(&pb->t[j]) != fd ||
			    !sym__num_eq(&pb->t[j].coef, &ck))
				continue;
			sym__num_clear(&ck);
			sym__num_set(&ck, &pb->t[i].coef);
			*applied = 1;
			res = pb_rewrite(pb, i, j, a->u.bin.a, &ck);
			sym__num_clear(&ck);
			return res;
		}
		sym__num_clear(&ck);
	}
	return NULL;
}

/* Return the index of the term of "pb" with the monomial of "t", or -1. */
static long
pb_find(const struct sym__pb *pb, const struct sym__term *t)
{
	size_t lo = 0, hi = pb->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = mono_cmp(&pb->t[mid], t);

		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Apply the rule c * x - c * (x mod k) = c*k * (x floordiv k) to "pb"
 * when every term of c * x occurs in it. Return the rewritten polynomial
 * or NULL as above. */
static sym_expr *
rule_mod_to_fdiv(struct sym__pb *pb, int *applied)
{
	for (size_t i = 0; i < pb->n; i++) {
		struct sym_expr *a = sym__term_atom(&pb->t[i]), *x;
		const sym__num *k;
		sym__num c = SYM__NUM_ZERO, ct = SYM__NUM_ZERO;
		sym_expr *fd, *cx, *res;
		struct sym__pb nb;
		int all = 1;

		if (!a || a->kind != SYM__MOD ||
		    !(k = sym__atom_const_divisor(a)))
			continue;
		x = a->u.bin.a;
		sym__num_neg(&c, &pb->t[i].coef);
		for (uint32_t j = 0; j < x->u.poly.n && all; j++) {
			long at_j = pb_find(pb, &x->u.poly.t[j]);

			sym__num_mul(&ct, &c, &x->u.poly.t[j].coef);
			all = at_j >= 0 && sym__num_eq(&pb->t[at_j].coef, &ct);
		}
		sym__num_clear(&ct);
		if (!all || x->u.poly.n == 0) {
			sym__num_clear(&c);
			continue;
		}
		*applied = 1;
		fd = sym__fdiv(x, a->u.bin.b);
		cx = sym__scale_num(x, &c);
		sym__pb_init(&nb, pb->ctx);
		sym__num_set(&nb.c, &pb->c);
		for (size_t j = 0; j < pb->n; j++)
			if (j != i)
				sym__pb_push(&nb, &pb->t[j].coef, pb->t[j].n,
				    pb->t[j].f);
		if (fd && cx) {
			sym__num m1 = { -1, NULL };
			sym__num ck = SYM__NUM_ZERO;

			sym__pb_add_poly(&nb, cx, &m1);
			sym__num_mul(&ck, &c, k);
			sym__pb_add_poly(&nb, fd, &ck);
			sym__num_clear(&ck);
		} else {
			nb.err = 1;
		}
		sym__expr_unref(fd);
		sym__expr_unref(cx);
		sym__num_clear(&c);
		sym__pb_clear(pb);
		res = sym__pb_finish(&nb);
		return res;
	}
	return NULL;
}

/* Normalise the builder "pb" (combine terms, apply the rewriting rules,
 * which only concern terms with a floordiv or mod factor) and return an
 * internal reference to its interned polynomial; "pb" is consumed. */
sym_expr *
sym__pb_finish(struct sym__pb *pb)
{
	int applied = 0;
	sym_expr *r;

	if (pb->err) {
		sym__pb_clear(pb);
		return NULL;
	}
	pb_combine(pb);
	if (pb->n > SYM__MAX_TERMS) {
		sym__error(pb->ctx, SYM_EINVAL, NULL,
		    "expression too large: more than %d terms once expanded",
		    SYM__MAX_TERMS);
		sym__pb_clear(pb);
		return NULL;
	}
	if (!pb->divmod)
		return sym__pb_intern(pb);
	r = rule_exact_division(pb, &applied);
	if (applied)
		return r;
	r = rule_euclid(pb, &applied);
	if (applied)
		return r;
	r = rule_mod_to_fdiv(pb, &applied);
	if (applied)
		return r;
	return sym__pb_intern(pb);
}
