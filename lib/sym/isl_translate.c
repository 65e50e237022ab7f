/* SPDX-License-Identifier: MIT */
/*
 * The exact tier's translation (prove_isl.c, "Dimensions" and
 * "Abstraction"): relations on expressions into linear forms over the
 * dimensions of a block, with the constraints of the symbols, atoms and
 * monomials they meet, and those forms into ISL basic sets and sets.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <isl/mat.h>
#include <isl/space.h>
#include <isl/val_gmp.h>

#include "sym/prove_isl_private.h"

/* Release the storage of "l", leaving the form 0. */
static void
isl_lin_clear(struct lin *l)
{
	for (size_t i = 0; i < l->n; i++)
		sym__num_clear(&l->t[i].c);
	free(l->t);
	sym__num_clear(&l->k);
	memset(l, 0, sizeof(*l));
}

/* Add "c" times dimension "dim" to "l". Return 0, or -1 when out of
 * memory (error on "ctx"). */
static int
lin_add(sym_ctx *ctx, struct lin *l, size_t dim, const sym__num *c)
{
	struct lin_term *t;

	for (size_t i = 0; i < l->n; i++)
		if (l->t[i].dim == dim) {
			sym__num_add(&l->t[i].c, &l->t[i].c, c);
			return 0;
		}
	if (SYM__RESERVE(ctx, l->t, l->cap, l->n + 1) < 0)
		return -1;
	t = &l->t[l->n++];
	t->dim = dim;
	memset(&t->c, 0, sizeof(t->c));
	sym__num_set(&t->c, c);
	return 0;
}

/* Add "c" times dimension "dim" to "l"; 0 or -1 (error on "ctx"). */
int
sym__isl_lin_add_si(sym_ctx *ctx, struct lin *l, size_t dim, int64_t c)
{
	sym__num n = { c, NULL };

	return lin_add(ctx, l, dim, &n);
}

/* Add "s" times "src" to "dst"; 0 or -1 (error on "ctx"). */
static int
lin_add_lin(sym_ctx *ctx, struct lin *dst, const struct lin *src, int64_t s)
{
	sym__num f = { s, NULL }, c = SYM__NUM_ZERO;
	int r = 0;

	sym__num_mul(&c, &src->k, &f);
	sym__num_add(&dst->k, &dst->k, &c);
	for (size_t i = 0; i < src->n && r == 0; i++) {
		sym__num_mul(&c, &src->t[i].c, &f);
		r = lin_add(ctx, dst, src->t[i].dim, &c);
	}
	sym__num_clear(&c);
	return r;
}

/* Add "v" to the constant of "l". */
static void
lin_add_const(struct lin *l, int64_t v)
{
	sym__num n = { v, NULL };

	sym__num_add(&l->k, &l->k, &n);
}

/* Release everything "f" holds. */
void
sym__isl_form_clear(struct form *f)
{
	for (size_t i = 0; i < f->n_row; i++)
		isl_lin_clear(&f->row[i].l);
	for (size_t i = 0; i < f->n_alt; i++) {
		isl_lin_clear(&f->alt[i].side[0]);
		isl_lin_clear(&f->alt[i].side[1]);
	}
	free(f->row);
	free(f->alt);
	memset(f, 0, sizeof(*f));
}

/* Append to "tr" the constraint "l" == 0 ("eq") or "l" >= 0, taking "l"
 * over (it is left empty); on failure set the error flag of "tr". */
void
sym__isl_tr_row(struct tr *tr, struct lin *l, int eq)
{
	struct form *f = &tr->f;

	if (!tr->err &&
	    SYM__RESERVE(tr->ctx, f->row, f->cap_row, f->n_row + 1) < 0)
		tr->err = 1;
	if (tr->err) {
		isl_lin_clear(l);
		return;
	}
	f->row[f->n_row].l = *l;
	f->row[f->n_row++].eq = eq;
	memset(l, 0, sizeof(*l));
}

/* Append to "tr" the disjunction "a" >= 0 or "b" >= 0, taking both over;
 * on failure set the error flag of "tr". */
static void
tr_alt(struct tr *tr, struct lin *a, struct lin *b)
{
	struct form *f = &tr->f;

	if (!tr->err &&
	    SYM__RESERVE(tr->ctx, f->alt, f->cap_alt, f->n_alt + 1) < 0)
		tr->err = 1;
	if (tr->err) {
		isl_lin_clear(a);
		isl_lin_clear(b);
		return;
	}
	f->alt[f->n_alt].side[0] = *a;
	f->alt[f->n_alt++].side[1] = *b;
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
}

/* Return 1 when the monomials "a" and "b" have the same factors. */
static int
mono_equal(const struct sym__term *a, const struct sym__term *b)
{
	if (a->n != b->n)
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->f[i].atom != b->f[i].atom || a->f[i].exp != b->f[i].exp)
			return 0;
	return 1;
}

/* Return 1 when the dimension "d" stands for "kind" and "key". */
static int
dim_match(const struct dim *d, enum dim_kind kind, const void *key)
{
	if (d->kind != kind || kind == DIM_AUX)
		return 0;
	return d->key == key || (kind == DIM_MONO && mono_equal(d->key, key));
}

/* Return the dimension standing for "kind" and "key" among the blocks
 * visible to "tr", or NO_DIM. */
static size_t
find_dim(const struct tr *tr, enum dim_kind kind, const void *key)
{
	for (size_t i = 0; i < tr->n_vis; i++) {
		const struct comp *c = tr->vis[i];

		for (size_t j = 0; j < c->n_dim; j++)
			if (dim_match(&c->dim[j], kind, key))
				return tr->base[i] + j;
	}
	for (size_t j = 0; j < tr->own->n_dim; j++)
		if (dim_match(&tr->own->dim[j], kind, key))
			return tr->own_base + j;
	return NO_DIM;
}

/* Return a new dimension of "tr" standing for "kind" and "key", or NO_DIM
 * with the error flag of "tr" set. */
size_t
sym__isl_new_dim(struct tr *tr, enum dim_kind kind, const void *key)
{
	struct comp *c = tr->own;

	if (tr->err)
		return NO_DIM;
	if (SYM__RESERVE(tr->ctx, c->dim, c->cap_dim, c->n_dim + 1) < 0) {
		tr->err = 1;
		return NO_DIM;
	}
	c->dim[c->n_dim].kind = kind;
	c->dim[c->n_dim].key = key;
	return tr->own_base + c->n_dim++;
}

/* Add to "tr" the constraint "a" * x + "c" >= 0 on dimension "x". */
static void
tr_bound(struct tr *tr, size_t x, int64_t a, int64_t c)
{
	struct lin l;

	memset(&l, 0, sizeof(l));
	if (tr->err || sym__isl_lin_add_si(tr->ctx, &l, x, a) < 0) {
		tr->err = 1;
		isl_lin_clear(&l);
		return;
	}
	lin_add_const(&l, c);
	sym__isl_tr_row(tr, &l, 0);
}

/* Add to "tr" the constraint x = "m" * z + "r" on dimension "x", with z a
 * new existential dimension. */
static void
tr_class(struct tr *tr, size_t x, int64_t m, int64_t r)
{
	size_t z = sym__isl_new_dim(tr, DIM_AUX, NULL);
	struct lin l;

	memset(&l, 0, sizeof(l));
	if (z == NO_DIM || sym__isl_lin_add_si(tr->ctx, &l, x, 1) < 0 ||
	    sym__isl_lin_add_si(tr->ctx, &l, z, -m) < 0) {
		tr->err = 1;
		isl_lin_clear(&l);
		return;
	}
	lin_add_const(&l, -r);
	sym__isl_tr_row(tr, &l, 1);
}

/* Constrain dimension "x" of "tr" to the values of the abstract value
 * "av". Dropping a constraint is always sound: none for an empty value,
 * no lower bound INT64_MIN (its negation does not fit 64 bits). */
static void
tr_av(struct tr *tr, size_t x, sym__av av)
{
	if (av.empty)
		return;
	if (av.m == 0) {
		if (av.r != INT64_MIN)
			tr_bound(tr, x, 1, -av.r);
		tr_bound(tr, x, -1, av.r);
		return;
	}
	if (!av.lo_inf && av.lo != INT64_MIN)
		tr_bound(tr, x, 1, -av.lo);
	if (!av.hi_inf)
		tr_bound(tr, x, -1, av.hi);
	if (av.m > 1)
		tr_class(tr, x, av.m, av.r);
}

/* Return the dimension of symbol "s" in "tr", adding it with the
 * constraints of its declaration when new; NO_DIM on error. */
static size_t
tr_symbol(struct tr *tr, sym_symbol *s)
{
	size_t x = find_dim(tr, DIM_SYM, s);

	if (x != NO_DIM)
		return x;
	x = sym__isl_new_dim(tr, DIM_SYM, s);
	tr_bound(tr, x, 1, -s->least);
	if (s->greatest)
		tr_bound(tr, x, -1, s->greatest);
	if (s->info.divisor > 1)
		tr_class(tr, x, s->info.divisor, s->info.remainder);
	return tr->err ? NO_DIM : x;
}

/* Return the abstract value of the monomial "t" (degree > 1), as tier 0
 * computes it: the product of its factors, even powers non-negative. */
static sym__av
mono_av(const struct sym__term *t)
{
	sym__av m = sym__av_const(1), nonneg = sym__av_make(0, 0, 1, 0, 1, 0);

	for (uint32_t j = 0; j < t->n; j++) {
		sym__av a = t->f[j].atom->av, p = a;

		for (uint32_t x = 1; x < t->f[j].exp && x < 64; x++)
			p = sym__av_mul(p, a);
		if (t->f[j].exp >= 64)
			p = sym__av_top();
		if (t->f[j].exp % 2 == 0)
			p = sym__av_meet(p, nonneg);
		m = sym__av_mul(m, p);
	}
	return m;
}

/* Return a new dimension of "tr" for "kind" and "key" constrained by
 * "av" alone, marking the translation as abstracted. */
static size_t
tr_abstract(struct tr *tr, enum dim_kind kind, const void *key, sym__av av)
{
	size_t x = sym__isl_new_dim(tr, kind, key);

	tr_av(tr, x, av);
	tr->abstracted = 1;
	return tr->err ? NO_DIM : x;
}

/* Return the dimension of the atom "a" (floordiv or mod by the constant
 * "k" > 0) in "tr", translating its argument x: a quotient q with
 * 0 <= x - k q <= k - 1, and for mod m = x - k q. NO_DIM on error. */
static size_t
tr_divmod(struct tr *tr, struct sym_expr *a, const sym__num *k)
{
	struct lin x, l1, l2;
	sym__num nk = SYM__NUM_ZERO, m1 = { -1, NULL };
	int mod = a->kind == SYM__MOD;
	size_t q, m = NO_DIM;

	memset(&x, 0, sizeof(x));
	memset(&l1, 0, sizeof(l1));
	memset(&l2, 0, sizeof(l2));
	sym__num_neg(&nk, k);
	if (sym__isl_tr_poly(tr, a->u.bin.a, &x) < 0)
		tr->err = 1;
	q = sym__isl_new_dim(tr, mod ? DIM_AUX : DIM_ATOM, a);
	if (mod)
		m = sym__isl_new_dim(tr, DIM_ATOM, a);
	/* l1 = x - k q (== m for mod), l2 = k - 1 - l1 */
	if (tr->err || lin_add_lin(tr->ctx, &l1, &x, 1) < 0 ||
	    lin_add(tr->ctx, &l1, q, &nk) < 0 ||
	    lin_add_lin(tr->ctx, &l2, &l1, -1) < 0)
		tr->err = 1;
	sym__num_add(&l2.k, &l2.k, k);
	sym__num_add(&l2.k, &l2.k, &m1);
	if (mod) {
		isl_lin_clear(&l2);
		if (!tr->err &&
		    (sym__isl_lin_add_si(tr->ctx, &l1, m, -1) < 0 ||
		        sym__isl_lin_add_si(tr->ctx, &l2, m, -1) < 0))
			tr->err = 1;
		sym__num_add(&l2.k, k, &m1);
		sym__isl_tr_row(tr, &l1, 1);
		tr_bound(tr, m, 1, 0);
	} else {
		sym__isl_tr_row(tr, &l1, 0);
	}
	sym__isl_tr_row(tr, &l2, 0);
	isl_lin_clear(&x);
	isl_lin_clear(&l1);
	isl_lin_clear(&l2);
	sym__num_clear(&nk);
	if (tr->err)
		return NO_DIM;
	return mod ? m : q;
}

/* Return the dimension t of the min or max atom "a" in "tr": for min,
 * t <= x, t <= y and (t >= x or t >= y); NO_DIM on error. */
static size_t
tr_minmax(struct tr *tr, struct sym_expr *a)
{
	struct lin x, y, l[4];
	int64_t s = a->kind == SYM__MIN ? 1 : -1;
	size_t t;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	memset(l, 0, sizeof(l));
	if (sym__isl_tr_poly(tr, a->u.bin.a, &x) < 0 ||
	    sym__isl_tr_poly(tr, a->u.bin.b, &y) < 0)
		tr->err = 1;
	t = sym__isl_new_dim(tr, DIM_ATOM, a);
	tr->minmax_left--;
	tr->own->n_minmax++;
	for (int i = 0; i < 4 && !tr->err; i++) {
		int64_t sg = i < 2 ? s : -s;

		if (lin_add_lin(tr->ctx, &l[i], i % 2 ? &y : &x, sg) < 0 ||
		    sym__isl_lin_add_si(tr->ctx, &l[i], t, -sg) < 0)
			tr->err = 1;
	}
	sym__isl_tr_row(tr, &l[0], 0);
	sym__isl_tr_row(tr, &l[1], 0);
	tr_alt(tr, &l[2], &l[3]);
	isl_lin_clear(&x);
	isl_lin_clear(&y);
	return tr->err ? NO_DIM : t;
}

/* Return the dimension of the atom "a" in "tr", translating it when it is
 * new; NO_DIM on error. */
static size_t
tr_atom(struct tr *tr, struct sym_expr *a)
{
	const sym__num *k;
	size_t x;

	if (a->kind == SYM__VAR)
		return tr_symbol(tr, a->u.var);
	x = find_dim(tr, DIM_ATOM, a);
	if (x != NO_DIM)
		return x;
	switch (a->kind) {
	case SYM__FDIV:
	case SYM__MOD:
		if (sym__expr_const_num(a->u.bin.b, &k) && sym__num_sgn(k) > 0)
			return tr_divmod(tr, a, k);
		break;
	case SYM__MIN:
	case SYM__MAX:
		if (tr->minmax_left > 0)
			return tr_minmax(tr, a);
		break;
	default:
		break;
	}
	return tr_abstract(tr, DIM_ATOM, a, a->av);
}

/* Return the dimension of the monomial of term "t" in "tr"; NO_DIM on
 * error. */
static size_t
tr_term(struct tr *tr, const struct sym__term *t)
{
	size_t x;

	if (t->n == 1 && t->f[0].exp == 1)
		return tr_atom(tr, t->f[0].atom);
	x = find_dim(tr, DIM_MONO, t);
	if (x != NO_DIM)
		return x;
	return tr_abstract(tr, DIM_MONO, t, mono_av(t));
}

/* Set "out" (zero on entry) to the linear form of the polynomial "e" in
 * "tr". Return 0 or -1 (error flag of "tr" set). */
int
sym__isl_tr_poly(struct tr *tr, sym_expr *e, struct lin *out)
{
	sym__num_set(&out->k, &e->u.poly.c);
	for (uint32_t i = 0; i < e->u.poly.n && !tr->err; i++) {
		size_t x = tr_term(tr, &e->u.poly.t[i]);

		if (x == NO_DIM ||
		    lin_add(tr->ctx, out, x, &e->u.poly.t[i].coef) < 0)
			tr->err = 1;
	}
	return tr->err ? -1 : 0;
}

/* sym__expr_foreach_atom callback: give the symbol of the atom "atom" a
 * dimension in the translation "user". Return 0, or -1 on error. */
int
sym__isl_tr_symbol_cb(struct sym_expr *atom, void *user)
{
	struct tr *tr = user;

	if (atom->kind != SYM__VAR)
		return 0;
	return tr_symbol(tr, atom->u.var) == NO_DIM ? -1 : 0;
}

/* Add to "tr" the relation "rel" ("k" for divisibility) on "e", or its
 * negation when "negate" is set; every symbol of "e" gets a dimension,
 * even one that only occurs inside an abstracted monomial. */
void
sym__isl_tr_rel(struct tr *tr, enum sym__rel rel, sym_expr *e, int64_t k,
    int negate)
{
	struct lin l, m;
	size_t z;

	memset(&l, 0, sizeof(l));
	memset(&m, 0, sizeof(m));
	if (sym__expr_foreach_atom(e, sym__isl_tr_symbol_cb, tr) != 0 ||
	    sym__isl_tr_poly(tr, e, &l) < 0) {
		tr->err = 1;
		isl_lin_clear(&l);
		return;
	}
	if (negate && rel == SYM__REL_GE) {
		/* e <= -1 */
		if (lin_add_lin(tr->ctx, &m, &l, -1) < 0)
			tr->err = 1;
		lin_add_const(&m, -1);
		sym__isl_tr_row(tr, &m, 0);
	} else if (rel == SYM__REL_EQ || rel == SYM__REL_NE) {
		if (negate == (rel == SYM__REL_NE)) {
			sym__isl_tr_row(tr, &l, 1);
		} else {
			/* e >= 1 or e <= -1 */
			if (lin_add_lin(tr->ctx, &m, &l, -1) < 0)
				tr->err = 1;
			lin_add_const(&m, -1);
			lin_add_const(&l, -1);
			tr_alt(tr, &l, &m);
		}
	} else if (rel == SYM__REL_GE) {
		sym__isl_tr_row(tr, &l, 0);
	} else if (!negate && k > 1) {
		/* e = k z */
		z = sym__isl_new_dim(tr, DIM_AUX, NULL);
		if (z == NO_DIM || sym__isl_lin_add_si(tr->ctx, &l, z, -k) < 0)
			tr->err = 1;
		sym__isl_tr_row(tr, &l, 1);
	} else if (negate && k > 1) {
		/* e = k z + r, 1 <= r <= k - 1: k z + 1 <= e <= k z + k - 1 */
		z = sym__isl_new_dim(tr, DIM_AUX, NULL);
		if (z == NO_DIM || lin_add_lin(tr->ctx, &m, &l, -1) < 0 ||
		    sym__isl_lin_add_si(tr->ctx, &m, z, k) < 0 ||
		    sym__isl_lin_add_si(tr->ctx, &l, z, -k) < 0)
			tr->err = 1;
		lin_add_const(&l, -1);
		lin_add_const(&m, k - 1);
		sym__isl_tr_row(tr, &l, 0);
		sym__isl_tr_row(tr, &m, 0);
	} else if (negate) {
		/* 1 divides everything: the negation is infeasible */
		isl_lin_clear(&l);
		lin_add_const(&l, -1);
		sym__isl_tr_row(tr, &l, 0);
	}
	isl_lin_clear(&l);
	isl_lin_clear(&m);
}

/* Start in "tr" a translation into "own" after the "n_vis" blocks "vis"
 * (starting at dimensions "base") for "ctx", allowing "minmax" exact
 * min/max atoms. */
void
sym__isl_tr_init(struct tr *tr, sym_ctx *ctx, struct comp *const *vis,
    const size_t *base, size_t n_vis, struct comp *own, size_t own_base,
    int minmax)
{
	memset(tr, 0, sizeof(*tr));
	tr->ctx = ctx;
	tr->vis = vis;
	tr->base = base;
	tr->n_vis = n_vis;
	tr->own = own;
	tr->own_base = own_base;
	tr->minmax_left = minmax;
}

/* Return "n" as a value of "isl". */
static isl_val *
num_val(isl_ctx *isl, const sym__num *n)
{
	int64_t v;
	isl_val *r;
	mpz_t z;

	if (sym__num_fits(n, &v))
		return isl_val_int_from_si(isl, v);
	mpz_init(z);
	sym__num_get_mpz(z, n);
	r = isl_val_int_from_gmp(isl, z);
	mpz_clear(z);
	return r;
}

/* Set element ("row", "col") of "mat" to "n". */
static isl_mat *
mat_set(isl_mat *mat, int row, int col, const sym__num *n)
{
	int64_t v;

	if (!mat)
		return NULL;
	if (sym__num_fits(n, &v) && v >= INT_MIN && v <= INT_MAX)
		return isl_mat_set_element_si(mat, row, col, (int)v);
	return isl_mat_set_element_val(mat, row, col,
	    num_val(isl_mat_get_ctx(mat), n));
}

/* Return the matrix of the "n" forms "l" or, when "l" is NULL, of those
 * of the first "n" rows of "f" that are equalities ("eq") or inequalities
 * (not "eq"), over "n_dim" dimensions of "isl", the constant last. The
 * elements are zeroed first: ISL may recycle a block of old values. */
static isl_mat *
lin_mat(isl_ctx *isl, size_t n_dim, const struct form *f, int eq,
    const struct lin *l, size_t n)
{
	size_t rows = 0;
	isl_mat *mat;

	for (size_t i = 0; i < n; i++)
		rows += l || f->row[i].eq == eq;
	mat = isl_mat_alloc(isl, (unsigned)rows, (unsigned)n_dim + 1);
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j <= n_dim; j++)
			mat = isl_mat_set_element_si(mat, (int)i, (int)j, 0);
	for (size_t i = 0, r = 0; i < n; i++) {
		const struct lin *x = l ? &l[i] : &f->row[i].l;

		if (!l && f->row[i].eq != eq)
			continue;
		mat = mat_set(mat, (int)r, (int)n_dim, &x->k);
		for (size_t j = 0; j < x->n; j++)
			mat =
			    mat_set(mat, (int)r, (int)x->t[j].dim, &x->t[j].c);
		r++;
	}
	return mat;
}

/* Return the basic set over "n_dim" dimensions of "isl" of the rows of
 * "f", or, when "l" is not NULL, of the inequality "l" >= 0. */
isl_basic_set *
sym__isl_form_bset(isl_ctx *isl, size_t n_dim, const struct form *f,
    const struct lin *l)
{
	size_t n = l ? 0 : f->n_row;
	isl_space *space = isl_space_set_alloc(isl, 0, (unsigned)n_dim);
	isl_mat *eq = lin_mat(isl, n_dim, f, 1, NULL, n);
	isl_mat *ineq = lin_mat(isl, n_dim, f, 0, l, l ? 1 : n);

	return isl_basic_set_from_constraint_matrices(space, eq, ineq,
	    isl_dim_set, isl_dim_div, isl_dim_param, isl_dim_cst);
}

/* Return the set of "f" in the space of "n_dim" set dimensions of "isl". */
isl_set *
sym__isl_form_set(isl_ctx *isl, size_t n_dim, const struct form *f)
{
	isl_set *set =
	    isl_set_from_basic_set(sym__isl_form_bset(isl, n_dim, f, NULL));

	for (size_t i = 0; i < f->n_alt; i++) {
		isl_set *a = isl_set_from_basic_set(sym__isl_form_bset(isl,
		    n_dim, f, &f->alt[i].side[0]));
		isl_set *b = isl_set_from_basic_set(sym__isl_form_bset(isl,
		    n_dim, f, &f->alt[i].side[1]));

		set = isl_set_intersect(set, isl_set_union(a, b));
	}
	return set;
}
