/*
 * Hash-consed canonical polynomials: construction, interning, release.
 */
#include <stdlib.h>
#include <string.h>

#include "sym/expr_private.h"

static int expr_cmp(const struct sym_expr *a, const struct sym_expr *b);

static sym_expr *scale_expr(sym_expr *a, const sym__num *k);

/* A polynomial under construction. */
struct pb {
	sym_ctx *ctx;
	struct sym__term *t; /* tbuf until it outgrows it */
	size_t n, cap;
	struct sym__factor *fp; /* the factors of all terms: fbuf first */
	size_t fn, fcap;
	sym__num c;
	int err;
	int divmod; /* some factor is a floordiv or mod atom */
	int sorted; /* terms in order, monomials distinct, coefficients not 0 */
	struct sym__term tbuf[8];
	struct sym__factor fbuf[24];
};

static sym_expr *pb_finish(struct pb *pb);
static sym_expr *fdiv_const(sym_expr *a, const sym__num *k);
static sym_expr *mod_const(sym_expr *a, const sym__num *k);

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
	struct sym__table *t = &ctx->table;

	for (size_t i = 0; i < t->n_bucket; i++) {
		struct sym_expr *e = t->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			if (e->kind == SYM__POLY) {
				for (uint32_t j = 0; j < e->u.poly.n; j++)
					sym__num_clear(&e->u.poly.t[j].coef);
				free(e->u.poly.t);
				sym__num_clear(&e->u.poly.c);
			}
			free(e);
		}
	}
	free(t->bucket);
	t->bucket = NULL;
	t->n_bucket = t->n = 0;
}

/* Make room in the table of "ctx" for one more node; 0 or -1. */
static int
table_grow(sym_ctx *ctx)
{
	struct sym__table *t = &ctx->table;
	struct sym_expr **b;
	size_t nb;

	if (t->n < t->n_bucket)
		return 0;
	if (!t->bucket && sym__ctx_add_hook(ctx, table_free) < 0)
		return -1;
	nb = t->n_bucket ? 2 * t->n_bucket : 256;
	b = calloc(nb, sizeof(*b));
	if (!b) {
		sym__oom(ctx);
		return -1;
	}
	for (size_t i = 0; i < t->n_bucket; i++) {
		struct sym_expr *e = t->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	}
	free(t->bucket);
	t->bucket = b;
	t->n_bucket = nb;
	return 0;
}

/* Insert the new node "e" into the table of its context. */
static void
table_insert(struct sym_expr *e)
{
	struct sym__table *t = &e->ctx->table;
	size_t i = e->hash & (t->n_bucket - 1);

	e->next = t->bucket[i];
	t->bucket[i] = e;
	t->n++;
}

/* Remove "e" from the table of its context. */
static void
table_remove(struct sym_expr *e)
{
	struct sym__table *t = &e->ctx->table;
	struct sym_expr **p = &t->bucket[e->hash & (t->n_bucket - 1)];

	while (*p != e)
		p = &(*p)->next;
	*p = e->next;
	t->n--;
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

/* Return the sign of the comparison of the atoms "a" and "b" as
 * expr_cmp, with the common cases (same atom, two symbols) inline. */
static inline int
atom_cmp(const struct sym_expr *a, const struct sym_expr *b)
{
	if (a == b)
		return 0;
	if (a->kind == SYM__VAR && b->kind == SYM__VAR)
		return a->u.var->id < b->u.var->id ? -1 : 1;
	return expr_cmp(a, b);
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
static int
expr_cmp(const struct sym_expr *a, const struct sym_expr *b)
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
		c = expr_cmp(a->u.bin.a, b->u.bin.a);
		return c ? c : expr_cmp(a->u.bin.b, b->u.bin.b);
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

/* Return a new node of "kind" for "ctx", not yet in the table. */
static struct sym_expr *
node_new(sym_ctx *ctx, enum sym__kind kind, uint32_t hash)
{
	struct sym_expr *e;

	if (table_grow(ctx) < 0)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e) {
		sym__oom(ctx);
		return NULL;
	}
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
static struct sym_expr *
atom_get(sym_ctx *ctx, enum sym__kind kind, sym_symbol *var, struct sym_expr *a,
    struct sym_expr *b)
{
	uint32_t h = atom_hash(kind, var, a, b);
	struct sym_expr *e;

	if (ctx->table.n_bucket)
		for (e = ctx->table.bucket[h & (ctx->table.n_bucket - 1)]; e;
		     e = e->next)
			if (e->hash == h && e->kind == kind &&
			    (kind == SYM__VAR
			            ? e->u.var == var
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
static struct sym_expr *
atom_find(sym_ctx *ctx, enum sym__kind kind, struct sym_expr *a,
    struct sym_expr *b)
{
	uint32_t h = atom_hash(kind, NULL, a, b);
	struct sym_expr *e;

	if (!ctx->table.n_bucket)
		return NULL;
	for (e = ctx->table.bucket[h & (ctx->table.n_bucket - 1)]; e;
	     e = e->next)
		if (e->hash == h && e->kind == kind && e->u.bin.a == a &&
		    e->u.bin.b == b)
			return e;
	return NULL;
}

/* Initialise the builder "pb" for "ctx". */
static void
pb_init(struct pb *pb, sym_ctx *ctx)
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
static void
pb_release(struct pb *pb)
{
	if (pb->t != pb->tbuf)
		free(pb->t);
	if (pb->fp != pb->fbuf)
		free(pb->fp);
	pb->t = pb->tbuf;
	pb->fp = pb->fbuf;
	pb->n = pb->fn = 0;
}

/* Release everything held by the builder "pb". */
static void
pb_clear(struct pb *pb)
{
	for (size_t i = 0; i < pb->n; i++) {
		for (uint32_t k = 0; k < pb->t[i].n; k++)
			sym__expr_unref(pb->t[i].f[k].atom);
		sym__num_clear(&pb->t[i].coef);
	}
	sym__num_clear(&pb->c);
	pb_release(pb);
}

/* Make room in "pb" for one more term of "n" factors; 0 or -1. */
static int
pb_reserve(struct pb *pb, uint32_t n)
{
	if (pb->n == pb->cap) {
		size_t cap = 2 * pb->cap;
		struct sym__term *nt = malloc(cap * sizeof(*nt));

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
		struct sym__factor *nf = malloc(cap * sizeof(*nf));

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
static void
pb_push(struct pb *pb, const sym__num *coef, uint32_t n,
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
		sym__oom(pb->ctx);
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
static void
pb_add_poly(struct pb *pb, const sym_expr *p, const sym__num *k)
{
	sym__num c = SYM__NUM_ZERO;

	for (uint32_t i = 0; i < p->u.poly.n; i++) {
		const struct sym__term *t = &p->u.poly.t[i];

		if (k)
			sym__num_mul(&c, &t->coef, k);
		else
			sym__num_set(&c, &t->coef);
		pb_push(pb, &c, t->n, t->f);
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
static void
pb_add_two(struct pb *pb, const sym_expr *a, const sym__num *ka,
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
			pb_push(pb, &c, t->n, t->f);
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
pb_combine(struct pb *pb)
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
			for (uint32_t k = 0; k < pb->t[i].n; k++)
				sym__expr_unref(pb->t[i].f[k].atom);
			sym__num_clear(&pb->t[i].coef);
			continue;
		}
		if (w > 0 && sym__num_sgn(&pb->t[w - 1].coef) == 0) {
			struct sym__term *z = &pb->t[w - 1];

			for (uint32_t k = 0; k < z->n; k++)
				sym__expr_unref(z->f[k].atom);
			sym__num_clear(&z->coef);
			w--;
		}
		pb->t[w++] = pb->t[i];
	}
	if (w > 0 && sym__num_sgn(&pb->t[w - 1].coef) == 0) {
		struct sym__term *z = &pb->t[w - 1];

		for (uint32_t k = 0; k < z->n; k++)
			sym__expr_unref(z->f[k].atom);
		sym__num_clear(&z->coef);
		w--;
	}
	pb->n = w;
}

/* Return the atom of term "t" when it is a single atom to the power one,
 * else NULL. */
static struct sym_expr *
term_atom(const struct sym__term *t)
{
	return t->n == 1 && t->f[0].exp == 1 ? t->f[0].atom : NULL;
}

/* Return the constant value of the divisor of the FDIV or MOD atom "a", or
 * NULL when it is not constant. */
static const sym__num *
atom_const_divisor(const struct sym_expr *a)
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
pb_rewrite(struct pb *pb, size_t skip1, size_t skip2, const sym_expr *p,
    const sym__num *k)
{
	struct pb nb;

	pb_init(&nb, pb->ctx);
	for (size_t i = 0; i < pb->n; i++)
		if (i != skip1 && i != skip2)
			pb_push(&nb, &pb->t[i].coef, pb->t[i].n, pb->t[i].f);
	sym__num_set(&nb.c, &pb->c);
	pb_add_poly(&nb, p, k);
	pb_clear(pb);
	return pb_finish(&nb);
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
	struct pb nb;
	struct sym__factor *f = malloc((t->n + 1) * sizeof(*f));
	uint32_t n = 0;
	sym_expr *m, *r;

	if (!f) {
		sym__oom(ctx);
		return NULL;
	}
	for (uint32_t j = 0; j < t->n; j++) {
		f[n] = t->f[j];
		if (j == skip && --f[n].exp == 0)
			continue;
		n++;
	}
	pb_init(&nb, ctx);
	pb_push(&nb, coef, n, f);
	free(f);
	m = pb_finish(&nb);
	r = sym__mul(m, x);
	sym__expr_unref(m);
	return r;
}

/* Apply the exact-division rule to "pb": a term c * (x floordiv k) * M
 * with k | c and x = r (mod k) fixed by the declarations is
 * (c/k) * (x - r) * M. Return the rewritten polynomial, or NULL (and "pb"
 * untouched) when the rule does not apply. */
static sym_expr *
rule_exact_division(struct pb *pb, int *applied)
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
			    !(k = atom_const_divisor(a)) ||
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
				pb_clear(pb);
				return NULL;
			}
			res = pb_rewrite(pb, i, i, rep, &one);
			sym__expr_unref(rep);
			return res;
		}
	}
	return NULL;
}

/* Return 1 when every coefficient and the constant of "r" lie in
 * [0, "k"). */
static int
reduced_mod(const sym_expr *r, const sym__num *k)
{
	if (sym__num_sgn(&r->u.poly.c) < 0 ||
	    sym__num_cmp(&r->u.poly.c, k) >= 0)
		return 0;
	for (uint32_t i = 0; i < r->u.poly.n; i++)
		if (sym__num_sgn(&r->u.poly.t[i].coef) < 0 ||
		    sym__num_cmp(&r->u.poly.t[i].coef, k) >= 0)
			return 0;
	return 1;
}

/* Apply Euclid's identity to "pb": c * (x mod k) + c*k * (x floordiv k)
 * is c * x. Return the rewritten polynomial or NULL as above. */
static sym_expr *
rule_euclid(struct pb *pb, int *applied)
{
	for (size_t i = 0; i < pb->n; i++) {
		struct sym_expr *a = term_atom(&pb->t[i]), *fd;
		const sym__num *k;
		sym__num ck = SYM__NUM_ZERO;
		sym_expr *res;

		if (!a || a->kind != SYM__MOD || !(k = atom_const_divisor(a)))
			continue;
		fd = atom_find(pb->ctx, SYM__FDIV, a->u.bin.a, a->u.bin.b);
		if (!fd)
			continue;
		sym__num_mul(&ck, &pb->t[i].coef, k);
		for (size_t j = 0; j < pb->n; j++) {
			if (term_atom(&pb->t[j]) != fd ||
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
pb_find(const struct pb *pb, const struct sym__term *t)
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
rule_mod_to_fdiv(struct pb *pb, int *applied)
{
	for (size_t i = 0; i < pb->n; i++) {
		struct sym_expr *a = term_atom(&pb->t[i]), *x;
		const sym__num *k;
		sym__num c = SYM__NUM_ZERO, ct = SYM__NUM_ZERO;
		sym_expr *fd, *cx, *res;
		struct pb nb;
		int all = 1;

		if (!a || a->kind != SYM__MOD || !(k = atom_const_divisor(a)))
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
		cx = scale_expr(x, &c);
		pb_init(&nb, pb->ctx);
		sym__num_set(&nb.c, &pb->c);
		for (size_t j = 0; j < pb->n; j++)
			if (j != i)
				pb_push(&nb, &pb->t[j].coef, pb->t[j].n,
				    pb->t[j].f);
		if (fd && cx) {
			sym__num m1 = { -1, NULL };
			sym__num ck = SYM__NUM_ZERO;

			pb_add_poly(&nb, cx, &m1);
			sym__num_mul(&ck, &c, k);
			pb_add_poly(&nb, fd, &ck);
			sym__num_clear(&ck);
		} else {
			nb.err = 1;
		}
		sym__expr_unref(fd);
		sym__expr_unref(cx);
		sym__num_clear(&c);
		pb_clear(pb);
		res = pb_finish(&nb);
		return res;
	}
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
static uint32_t
const_hash(const sym__num *c)
{
	return mix(0x9017u, sym__num_hash(c));
}

/* Return the hash of the polynomial in "pb" (combined). */
static uint32_t
pb_hash(const struct pb *pb)
{
	uint32_t h = const_hash(&pb->c);

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
pb_equal(const struct pb *pb, const struct sym_expr *e)
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
static sym_expr *
pb_intern(struct pb *pb)
{
	sym_ctx *ctx = pb->ctx;
	uint32_t h = pb_hash(pb);
	struct sym_expr *e;
	int affine = 1;
	uint16_t depth = 0;

	if (ctx->table.n_bucket)
		for (e = ctx->table.bucket[h & (ctx->table.n_bucket - 1)]; e;
		     e = e->next)
			if (e->hash == h && pb_equal(pb, e)) {
				pb_clear(pb);
				return sym__expr_ref(e);
			}
	e = node_new(ctx, SYM__POLY, h);
	if (!e) {
		pb_clear(pb);
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
		t = malloc(pb->n * sizeof(*t) + nf * sizeof(*f));
		if (!t) {
			sym__oom(ctx);
			free(e);
			pb_clear(pb);
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
	pb_release(pb);
	table_insert(e);
	return e;
}

/* Normalise the builder "pb" (combine terms, apply the rewriting rules,
 * which only concern terms with a floordiv or mod factor) and return an internal reference to its interned polynomial; "pb" is
 * consumed. */
static sym_expr *
pb_finish(struct pb *pb)
{
	int applied = 0;
	sym_expr *r;

	if (pb->err) {
		pb_clear(pb);
		return NULL;
	}
	pb_combine(pb);
	if (pb->n > SYM__MAX_TERMS) {
		sym__error(pb->ctx, SYM_EINVAL, NULL,
		    "expression too large: more than %d terms once expanded",
		    SYM__MAX_TERMS);
		pb_clear(pb);
		return NULL;
	}
	if (!pb->divmod)
		return pb_intern(pb);
	r = rule_exact_division(pb, &applied);
	if (applied)
		return r;
	r = rule_euclid(pb, &applied);
	if (applied)
		return r;
	r = rule_mod_to_fdiv(pb, &applied);
	if (applied)
		return r;
	return pb_intern(pb);
}

/* Return an internal reference to the constant "v" of "ctx". */
sym_expr *
sym__const_num(sym_ctx *ctx, const sym__num *v)
{
	struct pb pb;
	uint32_t h = const_hash(v);
	struct sym_expr *e;

	if (ctx->table.n_bucket)
		for (e = ctx->table.bucket[h & (ctx->table.n_bucket - 1)]; e;
		     e = e->next)
			if (e->hash == h && e->kind == SYM__POLY &&
			    e->u.poly.n == 0 && sym__num_eq(&e->u.poly.c, v))
				return sym__expr_ref(e);
	pb_init(&pb, ctx);
	sym__num_set(&pb.c, v);
	return pb_finish(&pb);
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
	struct pb pb;
	struct sym__factor f = { atom, 1 };
	sym__num one = { 1, NULL };

	if (!atom)
		return NULL;
	pb_init(&pb, atom->ctx);
	pb_push(&pb, &one, 1, &f);
	return pb_finish(&pb);
}

/* Return an internal reference to the expression of symbol "sym". */
sym_expr *
sym__var(sym_symbol *sym)
{
	struct sym_expr *atom;
	sym_expr *e;

	if (sym->expr)
		return sym__expr_ref(sym->expr);
	atom = atom_get(sym->ctx, SYM__VAR, sym, NULL, NULL);
	e = sym__atom_poly(atom);
	sym__expr_unref(atom);
	return e;
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
	return term_atom(&e->u.poly.t[0]);
}

/* Return 1 when "a" and "b" belong to the same context, else record an
 * error and return 0. */
static int
same_ctx(const sym_expr *a, const sym_expr *b)
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
	struct pb pb;

	if (!a || !b || !same_ctx(a, b))
		return NULL;
	if (sym__expr_const_num(b, NULL) && sym__num_sgn(&b->u.poly.c) == 0)
		return sym__expr_ref(a);
	if (sym__expr_const_num(a, NULL) && sym__num_sgn(&a->u.poly.c) == 0)
		return sym__expr_ref(b);
	pb_init(&pb, a->ctx);
	pb_add_two(&pb, a, NULL, b, NULL);
	return pb_finish(&pb);
}

/* Return an internal reference to "k" times "a" (borrowed). */
static sym_expr *
scale_expr(sym_expr *a, const sym__num *k)
{
	struct pb pb;

	if (!a)
		return NULL;
	if (sym__num_cmp_si(k, 1) == 0)
		return sym__expr_ref(a);
	pb_init(&pb, a->ctx);
	pb_add_poly(&pb, a, k);
	return pb_finish(&pb);
}

/* Return an internal reference to "k" times "a" (borrowed). */
sym_expr *
sym__scale_si(sym_expr *a, int64_t k)
{
	sym__num n = { k, NULL };

	return scale_expr(a, &n);
}

/* Return an internal reference to "a" + "k" ("a" borrowed). */
sym_expr *
sym__add_si(sym_expr *a, int64_t k)
{
	struct pb pb;
	sym__num n = { k, NULL };

	if (!a)
		return NULL;
	if (k == 0)
		return sym__expr_ref(a);
	pb_init(&pb, a->ctx);
	pb_add_poly(&pb, a, NULL);
	sym__num_add(&pb.c, &pb.c, &n);
	return pb_finish(&pb);
}

/* Return an internal reference to "ca"*"a" + "cb"*"b" + "c" (both
 * borrowed), built at once. */
sym_expr *
sym__lin(sym_expr *a, int64_t ca, sym_expr *b, int64_t cb, int64_t c)
{
	struct pb pb;
	sym__num na = { ca, NULL }, nb = { cb, NULL }, nc = { c, NULL };

	if (!a || !b || !same_ctx(a, b))
		return NULL;
	pb_init(&pb, a->ctx);
	pb_add_two(&pb, a, ca == 1 ? NULL : &na, b, cb == 1 ? NULL : &nb);
	sym__num_add(&pb.c, &pb.c, &nc);
	return pb_finish(&pb);
}

/* Return an internal reference to "a" - "b" (both borrowed). */
sym_expr *
sym__sub(sym_expr *a, sym_expr *b)
{
	struct pb pb;
	sym__num m1 = { -1, NULL };

	if (!a || !b || !same_ctx(a, b))
		return NULL;
	pb_init(&pb, a->ctx);
	pb_add_two(&pb, a, NULL, b, &m1);
	return pb_finish(&pb);
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
			c = expr_cmp(a->f[i].atom, b->f[j].atom);
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
	struct pb pb;
	struct sym__term ca = { SYM__NUM_ZERO, 0, NULL };
	struct sym__term cb = { SYM__NUM_ZERO, 0, NULL };
	sym__num c = SYM__NUM_ZERO;
	const sym__num *k;

	if (!a || !b || !same_ctx(a, b))
		return NULL;
	if (sym__expr_const_num(a, &k))
		return scale_expr(b, k);
	if (sym__expr_const_num(b, &k))
		return scale_expr(a, k);
	if ((uint64_t)(a->u.poly.n + 1) * (b->u.poly.n + 1) >
	    4 * (uint64_t)SYM__MAX_TERMS) {
		sym__error(a->ctx, SYM_EINVAL, NULL,
		    "expression too large: a product of %u and %u terms",
		    a->u.poly.n + 1, b->u.poly.n + 1);
		return NULL;
	}
	pb_init(&pb, a->ctx);
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

			f = malloc((s->n + t->n + 1) * sizeof(*f));
			if (!f) {
				sym__oom(pb.ctx);
				pb.err = 1;
				break;
			}
			n = mono_mul(s, t, f);
			sym__num_mul(&c, &s->coef, &t->coef);
			if (sym__num_sgn(&c))
				pb_push(&pb, &c, n, f);
			free(f);
		}
	}
	sym__num_clear(&c);
	return pb_finish(&pb);
}

/* Split "a" into "q" and "r" with a = k*q + r: every coefficient and the
 * constant of "r" lie in [0, k). */
static void
split_mod(const sym_expr *a, const sym__num *k, struct pb *q, struct pb *r)
{
	sym__num cq = SYM__NUM_ZERO, cr = SYM__NUM_ZERO;

	for (uint32_t i = 0; i < a->u.poly.n; i++) {
		const struct sym__term *t = &a->u.poly.t[i];

		sym__num_fdiv_q(&cq, &t->coef, k);
		sym__num_fdiv_r(&cr, &t->coef, k);
		if (sym__num_sgn(&cq))
			pb_push(q, &cq, t->n, t->f);
		if (sym__num_sgn(&cr))
			pb_push(r, &cr, t->n, t->f);
	}
	sym__num_fdiv_q(&cq, &a->u.poly.c, k);
	sym__num_fdiv_r(&cr, &a->u.poly.c, k);
	sym__num_add(&q->c, &q->c, &cq);
	sym__num_add(&r->c, &r->c, &cr);
	sym__num_clear(&cq);
	sym__num_clear(&cr);
}

/* Return the gcd of "k" and the non-constant coefficients of "r". */
static void
coef_gcd(sym__num *g, const sym_expr *r, const sym__num *k)
{
	sym__num_set(g, k);
	for (uint32_t i = 0; i < r->u.poly.n; i++)
		sym__num_gcd(g, g, &r->u.poly.t[i].coef);
}

/* Return y + floor(c / g) for r = g*y + c, c the constant of "r" (so "g"
 * divides every other coefficient); set "t" to c mod g. */
static sym_expr *
reduce_by_gcd(const sym_expr *r, const sym__num *g, sym__num *t)
{
	struct pb pb;
	sym__num c = SYM__NUM_ZERO;

	pb_init(&pb, r->ctx);
	for (uint32_t i = 0; i < r->u.poly.n; i++) {
		sym__num_divexact(&c, &r->u.poly.t[i].coef, g);
		pb_push(&pb, &c, r->u.poly.t[i].n, r->u.poly.t[i].f);
	}
	sym__num_fdiv_q(&pb.c, &r->u.poly.c, g);
	sym__num_fdiv_r(t, &r->u.poly.c, g);
	sym__num_clear(&c);
	return pb_finish(&pb);
}

/* Return j when every value of "av" lies in [j*k, j*k + k - 1], setting
 * "*ok"; "k" > 0. */
static int64_t
same_period(sym__av av, int64_t k, int *ok)
{
	int64_t jl, jh;

	*ok = 0;
	if (av.empty || av.lo_inf || av.hi_inf)
		return 0;
	jl = av.lo / k - (av.lo % k < 0);
	jh = av.hi / k - (av.hi % k < 0);
	*ok = jl == jh;
	return jl;
}

/* Return an internal reference to "a" floordiv the constant "k" > 0. */
static sym_expr *
fdiv_const(sym_expr *a, const sym__num *k)
{
	sym_ctx *ctx = a->ctx;
	struct pb q, r;
	sym_expr *qe, *re, *res = NULL, *inner = NULL;
	sym__num g = SYM__NUM_ZERO, t = SYM__NUM_ZERO;
	struct sym_expr *atom;
	int64_t kk, j;
	int ok;

	if (sym__num_cmp_si(k, 1) == 0)
		return sym__expr_ref(a);
	pb_init(&q, ctx);
	pb_init(&r, ctx);
	split_mod(a, k, &q, &r);
	qe = pb_finish(&q);
	re = pb_finish(&r);
	if (!qe || !re)
		goto done;
	if (re->u.poly.n == 0) {
		res = sym__expr_ref(qe);
		goto done;
	}
	if (!reduced_mod(re, k)) {
		/* a rewriting rule moved a coefficient out of [0, k) */
		inner = fdiv_const(re, k);
		res = inner ? sym__add(qe, inner) : NULL;
		goto done;
	}
	coef_gcd(&g, re, k);
	if (sym__num_cmp_si(&g, 1) > 0) {
		sym__num k2 = SYM__NUM_ZERO;
		sym_expr *y = reduce_by_gcd(re, &g, &t);

		sym__num_divexact(&k2, k, &g);
		inner = y ? fdiv_const(y, &k2) : NULL;
		sym__num_clear(&k2);
		sym__expr_unref(y);
		res = sym__add(qe, inner);
		goto done;
	}
	if (sym__num_fits(k, &kk)) {
		j = same_period(re->av, kk, &ok);
		if (ok) {
			res = sym__add_si(qe, j);
			goto done;
		}
		if (!re->av.empty && re->av.m != 0 && re->av.m % kk == 0 &&
		    re->av.r % kk != 0) {
			/* r = r0 (mod k) throughout, 0 < r0 < k: floor(r / k)
			 * is (r - r0) / k, which is floor((r - r0) / k). */
			sym__num nc = SYM__NUM_ZERO;
			sym_expr *y;

			sym__num_set_si(&nc, -(re->av.r % kk));
			y = sym__expr_ref(re);
			inner = y ? sym__const_num(ctx, &nc) : NULL;
			sym__num_clear(&nc);
			if (inner) {
				sym_expr *z = sym__add(y, inner);

				sym__expr_unref(inner);
				inner = z ? fdiv_const(z, k) : NULL;
				sym__expr_unref(z);
			}
			sym__expr_unref(y);
			res = inner ? sym__add(qe, inner) : NULL;
			goto done;
		}
	}
	atom =
	    re->u.poly.n == 1 && sym__num_cmp_si(&re->u.poly.t[0].coef, 1) == 0
	    ? term_atom(&re->u.poly.t[0])
	    : NULL;
	if (atom && atom->kind == SYM__FDIV && atom_const_divisor(atom)) {
		/* (x floordiv k2 + c) floordiv k = (x + c*k2) floordiv k*k2 */
		const sym__num *k2 = atom_const_divisor(atom);
		sym__num kk2 = SYM__NUM_ZERO, ck = SYM__NUM_ZERO;
		sym_expr *x;

		sym__num_mul(&kk2, k, k2);
		sym__num_mul(&ck, &re->u.poly.c, k2);
		x = sym__const_num(ctx, &ck);
		inner = x ? sym__add(atom->u.bin.a, x) : NULL;
		sym__expr_unref(x);
		x = inner ? fdiv_const(inner, &kk2) : NULL;
		sym__expr_unref(inner);
		inner = x;
		sym__num_clear(&kk2);
		sym__num_clear(&ck);
		res = sym__add(qe, inner);
		goto done;
	}
	{
		sym_expr *ke = sym__const_num(ctx, k);
		struct sym_expr *at =
		    ke ? atom_get(ctx, SYM__FDIV, NULL, re, ke) : NULL;

		inner = sym__atom_poly(at);
		sym__expr_unref(at);
		sym__expr_unref(ke);
		res = sym__add(qe, inner);
	}
done:
	sym__expr_unref(inner);
	sym__expr_unref(qe);
	sym__expr_unref(re);
	sym__num_clear(&g);
	sym__num_clear(&t);
	return res;
}

/* Return an internal reference to "a" mod the constant "k" > 0. */
static sym_expr *
mod_const(sym_expr *a, const sym__num *k)
{
	sym_ctx *ctx = a->ctx;
	struct pb q, r;
	sym_expr *qe, *re, *res = NULL, *inner = NULL;
	sym__num g = SYM__NUM_ZERO, t = SYM__NUM_ZERO;
	struct sym_expr *atom;
	int64_t kk, j;
	int ok;

	if (sym__num_cmp_si(k, 1) == 0)
		return sym__const(ctx, 0);
	pb_init(&q, ctx);
	pb_init(&r, ctx);
	split_mod(a, k, &q, &r);
	pb_clear(&q);
	re = pb_finish(&r);
	qe = NULL;
	if (!re)
		goto done;
	if (re->u.poly.n == 0) {
		res = sym__expr_ref(re);
		goto done;
	}
	if (!reduced_mod(re, k)) {
		res = mod_const(re, k);
		goto done;
	}
	coef_gcd(&g, re, k);
	if (sym__num_cmp_si(&g, 1) > 0) {
		sym__num k2 = SYM__NUM_ZERO;
		sym_expr *y = reduce_by_gcd(re, &g, &t), *m;

		sym__num_divexact(&k2, k, &g);
		m = y ? mod_const(y, &k2) : NULL;
		inner = m ? scale_expr(m, &g) : NULL;
		sym__expr_unref(m);
		sym__num_clear(&k2);
		sym__expr_unref(y);
		qe = sym__const_num(ctx, &t);
		res = sym__add(inner, qe);
		goto done;
	}
	if (sym__num_fits(k, &kk)) {
		if (re->av.m != 0 && !re->av.empty && re->av.m % kk == 0) {
			res = sym__const(ctx, re->av.r % kk);
			goto done;
		}
		j = same_period(re->av, kk, &ok);
		if (ok) {
			sym__num nj = SYM__NUM_ZERO, jk = SYM__NUM_ZERO;

			nj.small = -j;
			sym__num_mul(&jk, &nj, k);
			qe = sym__const_num(ctx, &jk);
			sym__num_clear(&jk);
			res = sym__add(re, qe);
			goto done;
		}
	}
	atom =
	    re->u.poly.n == 1 && sym__num_cmp_si(&re->u.poly.t[0].coef, 1) == 0
	    ? term_atom(&re->u.poly.t[0])
	    : NULL;
	if (atom && atom->kind == SYM__MOD && atom_const_divisor(atom) &&
	    sym__num_divisible(atom_const_divisor(atom), k)) {
		/* ((x mod k2) + c) mod k = (x + c) mod k when k | k2 */
		qe = sym__const_num(ctx, &re->u.poly.c);
		inner = qe ? sym__add(atom->u.bin.a, qe) : NULL;
		res = inner ? mod_const(inner, k) : NULL;
		goto done;
	}
	{
		sym_expr *ke = sym__const_num(ctx, k);
		struct sym_expr *at =
		    ke ? atom_get(ctx, SYM__MOD, NULL, re, ke) : NULL;

		res = sym__atom_poly(at);
		sym__expr_unref(at);
		sym__expr_unref(ke);
	}
done:
	sym__expr_unref(inner);
	sym__expr_unref(qe);
	sym__expr_unref(re);
	sym__num_clear(&g);
	sym__num_clear(&t);
	return res;
}

/* Return the exact quotient "a" / "b" when "b" is a single term c*M and
 * every term of "a" is a multiple of it (constant of "a" zero), else
 * NULL without error. */
static sym_expr *
exact_quotient(sym_expr *a, sym_expr *b)
{
	const struct sym__term *d;
	struct pb pb;
	sym__num c = SYM__NUM_ZERO;

	if (b->u.poly.n != 1 || sym__num_sgn(&b->u.poly.c) != 0 ||
	    sym__num_sgn(&a->u.poly.c) != 0 || a->u.poly.n == 0)
		return NULL;
	d = &b->u.poly.t[0];
	pb_init(&pb, a->ctx);
	for (uint32_t i = 0; i < a->u.poly.n && !pb.err; i++) {
		const struct sym__term *t = &a->u.poly.t[i];
		struct sym__factor *f = malloc((t->n + 1) * sizeof(*f));
		uint32_t n = 0, j = 0;

		if (!f || !sym__num_divisible(&t->coef, &d->coef)) {
			free(f);
			pb.err = 1;
			break;
		}
		for (uint32_t k = 0; k < t->n; k++) {
			if (j < d->n && t->f[k].atom == d->f[j].atom) {
				if (t->f[k].exp < d->f[j].exp)
					break;
				if (t->f[k].exp > d->f[j].exp) {
					f[n] = t->f[k];
					f[n++].exp -= d->f[j].exp;
				}
				j++;
			} else {
				f[n++] = t->f[k];
			}
		}
		if (j < d->n) {
			free(f);
			pb.err = 1;
			break;
		}
		sym__num_divexact(&c, &t->coef, &d->coef);
		pb_push(&pb, &c, n, f);
		free(f);
	}
	sym__num_clear(&c);
	if (pb.err) {
		pb_clear(&pb);
		return NULL;
	}
	return pb_finish(&pb);
}

/* Return an internal reference to "a" floordiv "b" (borrowed); "b" must be
 * positive: a non-positive constant divisor is an error. */
static sym_expr *
div_or_mod(sym_expr *a, sym_expr *b, enum sym__kind kind)
{
	const sym__num *k;
	struct sym_expr *at;
	sym_expr *q, *res;

	if (!a || !b || !same_ctx(a, b))
		return NULL;
	if (sym__expr_const_num(b, &k)) {
		if (sym__num_sgn(k) <= 0) {
			char *s = sym__num_to_str(k);

			sym__error(a->ctx, SYM_EDIVZERO, NULL,
			    "%s by %s: the divisor must be positive",
			    kind == SYM__FDIV ? "division" : "modulo",
			    s ? s : "a non-positive number");
			free(s);
			return NULL;
		}
		return kind == SYM__FDIV ? fdiv_const(a, k) : mod_const(a, k);
	}
	if (b->av.empty || b->av.lo_inf || b->av.lo < 1) {
		/* the divisor may be 0 or negative: keep the operation as it
		 * is, undefined where the divisor is not positive */
		at = atom_get(a->ctx, kind, NULL, a, b);
		res = sym__atom_poly(at);
		sym__expr_unref(at);
		return res;
	}
	if (a == b)
		return sym__const(a->ctx, kind == SYM__FDIV ? 1 : 0);
	q = exact_quotient(a, b);
	if (q) {
		if (kind == SYM__FDIV)
			return q;
		sym__expr_unref(q);
		return sym__const(a->ctx, 0);
	}
	if (!a->av.empty && !a->av.lo_inf && a->av.lo >= 0 && !a->av.hi_inf &&
	    !b->av.lo_inf && a->av.hi < b->av.lo)
		return kind == SYM__FDIV ? sym__const(a->ctx, 0)
		                         : sym__expr_ref(a);
	at = atom_get(a->ctx, kind, NULL, a, b);
	res = sym__atom_poly(at);
	sym__expr_unref(at);
	return res;
}

/* Return an internal reference to "a" floordiv "b" (borrowed). */
sym_expr *
sym__fdiv(sym_expr *a, sym_expr *b)
{
	return div_or_mod(a, b, SYM__FDIV);
}

/* Return an internal reference to "a" mod "b" (borrowed). */
sym_expr *
sym__mod(sym_expr *a, sym_expr *b)
{
	return div_or_mod(a, b, SYM__MOD);
}

/* Return an internal reference to min or max ("kind") of "a" and "b". */
static sym_expr *
min_max(sym_expr *a, sym_expr *b, enum sym__kind kind)
{
	sym_expr *d, *res;
	struct sym_expr *at;
	int a_le_b = 0, a_ge_b = 0;

	if (!a || !b || !same_ctx(a, b))
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
	if (expr_cmp(a, b) > 0) {
		sym_expr *t = a;

		a = b;
		b = t;
	}
	at = atom_get(a->ctx, kind, NULL, a, b);
	res = sym__atom_poly(at);
	sym__expr_unref(at);
	return res;
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

/* Visit "e" and its descendants, calling "fn" on every atom after its
 * children; stop at the first non-zero return value. */
static int
foreach_atom(struct sym_expr *e, sym__atom_fn fn, void *user)
{
	int r;

	if (e->kind == SYM__POLY) {
		for (uint32_t i = 0; i < e->u.poly.n; i++)
			for (uint32_t k = 0; k < e->u.poly.t[i].n; k++) {
				r = foreach_atom(e->u.poly.t[i].f[k].atom, fn,
				    user);
				if (r)
					return r;
			}
		return 0;
	}
	if (e->kind != SYM__VAR) {
		r = foreach_atom(e->u.bin.a, fn, user);
		if (!r)
			r = foreach_atom(e->u.bin.b, fn, user);
		if (r)
			return r;
	}
	return fn(e, user);
}

/* Add "s" to the "n" symbols of "out" (room for "cap") unless it is there
 * already; return the new count, or "cap" + 1 when "out" is full. */
static inline size_t
add_symbol(sym_symbol **out, size_t n, size_t cap, sym_symbol *s)
{
	for (size_t i = 0; i < n; i++)
		if (out[i] == s)
			return n;
	if (n == cap)
		return cap + 1;
	out[n] = s;
	return n + 1;
}

/* Add the symbols of "e" not among the "n" of "out" to "out" (room for
 * "cap"), in the order of sym_expr_symbols; return the new count, or
 * "cap" + 1 as soon as there are more than "cap". */
static size_t
collect_upto(const struct sym_expr *e, sym_symbol **out, size_t n, size_t cap)
{
	switch (e->kind) {
	case SYM__VAR:
		return add_symbol(out, n, cap, e->u.var);
	case SYM__POLY:
		for (uint32_t i = 0; i < e->u.poly.n && n <= cap; i++)
			for (uint32_t k = 0; k < e->u.poly.t[i].n && n <= cap;
			     k++) {
				const struct sym_expr *a =
				    e->u.poly.t[i].f[k].atom;

				n = a->kind == SYM__VAR
				    ? add_symbol(out, n, cap, a->u.var)
				    : collect_upto(a, out, n, cap);
			}
		return n;
	default:
		n = collect_upto(e->u.bin.a, out, n, cap);
		return n <= cap ? collect_upto(e->u.bin.b, out, n, cap) : n;
	}
}

/* Store the distinct symbols of "e" in "out" (room for "cap"), in order
 * of first appearance as sym_expr_symbols does, and return how many there
 * are, or "cap" + 1 when there are more than "cap" (then stopping early,
 * without allocating). */
size_t
sym__expr_symbols_upto(const sym_expr *e, sym_symbol **out, size_t cap)
{
	return collect_upto(e, out, 0, cap);
}

/* Call "fn"(atom, "user") on every atom occurrence of "e", children before
 * parents; return the first non-zero value "fn" returns, or 0. */
int
sym__expr_foreach_atom(sym_expr *e, sym__atom_fn fn, void *user)
{
	return foreach_atom(e, fn, user);
}

/* Return the atom "a" rebuilt by sym__expr_map (internal reference). */
static sym_expr *
map_atom(struct sym_expr *a, sym__atom_map fn, void *user)
{
	sym_expr *x, *y, *r = NULL, *s;

	if (a->kind == SYM__VAR) {
		r = sym__atom_poly(a);
	} else {
		x = sym__expr_map(a->u.bin.a, fn, user);
		y = sym__expr_map(a->u.bin.b, fn, user);
		if (x && y) {
			if (a->kind == SYM__FDIV)
				r = sym__fdiv(x, y);
			else if (a->kind == SYM__MOD)
				r = sym__mod(x, y);
			else if (a->kind == SYM__MIN)
				r = sym__min(x, y);
			else
				r = sym__max(x, y);
		}
		sym__expr_unref(x);
		sym__expr_unref(y);
	}
	if (!r)
		return NULL;
	s = fn(a, r, user);
	sym__expr_unref(r);
	return s;
}

/* Return the polynomial "e" (borrowed) rebuilt bottom-up, each atom
 * replaced by what "fn"("atom", "rebuilt", "user") returns, "rebuilt"
 * being the atom over its own rebuilt operands; an internal reference,
 * simplified by the constructors, or NULL on error. */
sym_expr *
sym__expr_map(sym_expr *e, sym__atom_map fn, void *user)
{
	sym_expr *sum = sym__const_num(e->ctx, &e->u.poly.c);

	for (uint32_t i = 0; sum && i < e->u.poly.n; i++) {
		const struct sym__term *t = &e->u.poly.t[i];
		sym_expr *prod = sym__const_num(e->ctx, &t->coef), *next;

		for (uint32_t j = 0; prod && j < t->n; j++) {
			sym_expr *f = map_atom(t->f[j].atom, fn, user);

			for (uint32_t k = 0; f && prod && k < t->f[j].exp;
			     k++) {
				next = sym__mul(prod, f);
				sym__expr_unref(prod);
				prod = next;
			}
			if (!f) {
				sym__expr_unref(prod);
				prod = NULL;
			}
			sym__expr_unref(f);
		}
		next = prod ? sym__add(sum, prod) : NULL;
		sym__expr_unref(prod);
		sym__expr_unref(sum);
		sum = next;
	}
	return sum;
}
