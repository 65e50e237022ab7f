/*
 * The exact tier: the declarations, the facts in scope and the negation of
 * a claim become one integer set of ISL. The claim holds when that set is
 * empty; a point of it is a counterexample once evaluation confirms it.
 *
 * Dimensions. The set of a query lives in one flat space made of blocks:
 * the block of every fact component the query touches (facts linked by
 * shared symbols, transitively), then the query's own block. In a block, a
 * dimension stands for a symbol, an atom (floordiv or mod by a constant,
 * min, max, or an abstracted atom), an abstracted monomial (a product such
 * as a*b or a^2), or an auxiliary existential (the z of x = d*z + r).
 * Dimensions are created in the order the translation meets them; the same
 * symbol, atom (pointer-equal) or monomial is the same dimension
 * throughout a query.
 *
 * Abstraction. Division or modulo by a non-constant, min/max beyond
 * MAX_MINMAX per query, and monomials of degree > 1 become dimensions
 * bounded only by their tier-0 abstract value. The set then
 * over-approximates: emptiness still proves the claim, but a point is a
 * counterexample only when evaluating the original expressions confirms it.
 *
 * Caching. The set of a component is built one fact at a time, each step
 * with a fresh operation budget, and kept in a pool keyed by the component's
 * list of facts: components that a change of the facts leaves alone are
 * reused, and one that grew by new facts continues from its old set. The
 * same steps give the same sets whichever way they are reached, so answers
 * and witnesses do not depend on what the cache held.
 *
 * Queries. A query's set is kept as a union of basic sets (a basic set of
 * each component times a side of each disjunction), each tested alone:
 * basic-set operations skip the normalisations of set operations. Without
 * abstraction every dimension that is not a symbol is a function of the
 * symbols before it, so the lexicographic minimum of the whole set is the
 * smallest counterexample; with abstraction, the set is projected on the
 * symbols and a few candidates are tried.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/mat.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>
#include <isl/val_gmp.h>

#include "sym/prove_private.h"

/* Min/max atoms translated exactly per query (each doubles the pieces). */
#define MAX_MINMAX 6
/* Components kept in the pool beyond those of the current facts. */
#define POOL_CAP 32
/* Lexicographically smallest points tried as witnesses of an abstraction. */
#define N_LEXMIN 5
/* ISL operations for the parametric lexicographic minimum of an exact set
 * (a few hundred suffice for a query of a few symbols). */
#define LEXMIN_OPS 1000
/* The most basic sets a query is split into; beyond, set operations. */
#define MAX_PIECES 64

#define NO_DIM ((size_t)-1)

enum dim_kind {
	DIM_SYM,  /* key: sym_symbol */
	DIM_ATOM, /* key: an atom node */
	DIM_MONO, /* key: a struct sym__term of degree > 1 */
	DIM_AUX   /* no key: an existential */
};

struct dim {
	enum dim_kind kind;
	const void *key;
};

/* A term c * x_dim of a linear form. */
struct lin_term {
	size_t dim;
	sym__num c;
};

/* The linear form k + sum of c * x_dim. */
struct lin {
	sym__num k;
	struct lin_term *t;
	size_t n, cap;
};

/* The constraint l == 0 (eq) or l >= 0. */
struct row {
	struct lin l;
	int eq;
};

/* The disjunction side[0] >= 0 or side[1] >= 0. */
struct alt {
	struct lin side[2];
};

/* A conjunction of rows and of disjunctions. */
struct form {
	struct row *row;
	size_t n_row, cap_row;
	struct alt *alt;
	size_t n_alt, cap_alt;
};

/* A fact as a cache key; "e" is an internal reference. */
struct fkey {
	enum sym__rel rel;
	sym_expr *e;
	int64_t k;
};

/* A component of the facts, or a query's own block (then "fact" is empty
 * and only the dimensions are used). "set" covers "fact[0..n_built)". */
struct comp {
	struct fkey *fact;
	size_t n_fact;
	size_t n_built;
	isl_set *set;
	struct dim *dim;
	size_t n_dim, cap_dim;
	int abstracted;
	int n_minmax;
	uint64_t used;
};

struct sym__prover {
	isl_ctx *isl;
	int synced;
	uint64_t gen;   /* ctx->facts_gen of "cur" */
	uint64_t clock; /* bumped at every synchronisation */
	struct comp **pool;
	size_t n_pool, cap_pool;
	struct comp **cur; /* the components of the facts in scope */
	size_t n_cur;
	size_t *comp_of; /* symbol id -> index in "cur", or NO_DIM */
	size_t n_comp_of;
	size_t global; /* component of symbol-free facts, or NO_DIM */
};

/* One translation step into the block "own", which follows the "n_vis"
 * blocks "vis" starting at dimensions "base". */
struct tr {
	sym_ctx *ctx;
	struct comp *const *vis;
	const size_t *base;
	size_t n_vis;
	struct comp *own;
	size_t own_base;
	struct form f;
	int minmax_left;
	int abstracted;
	int err;
};

/* A query: the components it involves, its own block and its set. */
struct query {
	sym_ctx *ctx;
	struct sym__prover *p;
	struct comp **blk;
	size_t *base;
	size_t n_blk;
	struct comp own;
	size_t own_base;
	int abstracted;
	int n_minmax;
	isl_basic_set **piece; /* the set as a union of basic sets, */
	size_t n_piece;
	isl_set *set;    /* or as one set (built on demand) */
	size_t *sym_pos; /* positions of the symbol dimensions */
	sym_symbol **sym;
	size_t n_sym;
};

/* Verdict of a check on a candidate binding. */
enum verdict {
	V_ERROR = -1,
	V_REJECT = 0,
	V_ACCEPT = 1,
	V_UNSURE = 2, /* could not be evaluated (overflow, ...) */
	V_ISL = 3     /* ISL failed while reading the candidate */
};

typedef enum verdict (*check_fn)(sym_ctx *ctx, const sym_binding *b,
    void *user);

/* Release the storage of "l", leaving the form 0. */
static void
lin_clear(struct lin *l)
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
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4;

		t = sym__realloc_array(ctx, l->t, cap, sizeof(*t));
		if (!t)
			return -1;
		l->t = t;
		l->cap = cap;
	}
	t = &l->t[l->n++];
	t->dim = dim;
	memset(&t->c, 0, sizeof(t->c));
	sym__num_set(&t->c, c);
	return 0;
}

/* Add "c" times dimension "dim" to "l"; 0 or -1 (error on "ctx"). */
static int
lin_add_si(sym_ctx *ctx, struct lin *l, size_t dim, int64_t c)
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
static void
form_clear(struct form *f)
{
	for (size_t i = 0; i < f->n_row; i++)
		lin_clear(&f->row[i].l);
	for (size_t i = 0; i < f->n_alt; i++) {
		lin_clear(&f->alt[i].side[0]);
		lin_clear(&f->alt[i].side[1]);
	}
	free(f->row);
	free(f->alt);
	memset(f, 0, sizeof(*f));
}

/* Append to "tr" the constraint "l" == 0 ("eq") or "l" >= 0, taking "l"
 * over (it is left empty); on failure set the error flag of "tr". */
static void
tr_row(struct tr *tr, struct lin *l, int eq)
{
	struct form *f = &tr->f;

	if (!tr->err && f->n_row == f->cap_row) {
		size_t cap = f->cap_row ? 2 * f->cap_row : 8;
		struct row *r =
		    sym__realloc_array(tr->ctx, f->row, cap, sizeof(*r));

		if (r) {
			f->row = r;
			f->cap_row = cap;
		} else {
			tr->err = 1;
		}
	}
	if (tr->err) {
		lin_clear(l);
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

	if (!tr->err && f->n_alt == f->cap_alt) {
		size_t cap = f->cap_alt ? 2 * f->cap_alt : 4;
		struct alt *p =
		    sym__realloc_array(tr->ctx, f->alt, cap, sizeof(*p));

		if (p) {
			f->alt = p;
			f->cap_alt = cap;
		} else {
			tr->err = 1;
		}
	}
	if (tr->err) {
		lin_clear(a);
		lin_clear(b);
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
static size_t
new_dim(struct tr *tr, enum dim_kind kind, const void *key)
{
	struct comp *c = tr->own;

	if (tr->err)
		return NO_DIM;
	if (c->n_dim == c->cap_dim) {
		size_t cap = c->cap_dim ? 2 * c->cap_dim : 8;
		struct dim *d =
		    sym__realloc_array(tr->ctx, c->dim, cap, sizeof(*d));

		if (!d) {
			tr->err = 1;
			return NO_DIM;
		}
		c->dim = d;
		c->cap_dim = cap;
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
	if (tr->err || lin_add_si(tr->ctx, &l, x, a) < 0) {
		tr->err = 1;
		lin_clear(&l);
		return;
	}
	lin_add_const(&l, c);
	tr_row(tr, &l, 0);
}

/* Add to "tr" the constraint x = "m" * z + "r" on dimension "x", with z a
 * new existential dimension. */
static void
tr_class(struct tr *tr, size_t x, int64_t m, int64_t r)
{
	size_t z = new_dim(tr, DIM_AUX, NULL);
	struct lin l;

	memset(&l, 0, sizeof(l));
	if (z == NO_DIM || lin_add_si(tr->ctx, &l, x, 1) < 0 ||
	    lin_add_si(tr->ctx, &l, z, -m) < 0) {
		tr->err = 1;
		lin_clear(&l);
		return;
	}
	lin_add_const(&l, -r);
	tr_row(tr, &l, 1);
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
	x = new_dim(tr, DIM_SYM, s);
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
	size_t x = new_dim(tr, kind, key);

	tr_av(tr, x, av);
	tr->abstracted = 1;
	return tr->err ? NO_DIM : x;
}

static int tr_poly(struct tr *tr, sym_expr *e, struct lin *out);

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
	if (tr_poly(tr, a->u.bin.a, &x) < 0)
		tr->err = 1;
	q = new_dim(tr, mod ? DIM_AUX : DIM_ATOM, a);
	if (mod)
		m = new_dim(tr, DIM_ATOM, a);
	/* l1 = x - k q (== m for mod), l2 = k - 1 - l1 */
	if (tr->err || lin_add_lin(tr->ctx, &l1, &x, 1) < 0 ||
	    lin_add(tr->ctx, &l1, q, &nk) < 0 ||
	    lin_add_lin(tr->ctx, &l2, &l1, -1) < 0)
		tr->err = 1;
	sym__num_add(&l2.k, &l2.k, k);
	sym__num_add(&l2.k, &l2.k, &m1);
	if (mod) {
		lin_clear(&l2);
		if (!tr->err &&
		    (lin_add_si(tr->ctx, &l1, m, -1) < 0 ||
		        lin_add_si(tr->ctx, &l2, m, -1) < 0))
			tr->err = 1;
		sym__num_add(&l2.k, k, &m1);
		tr_row(tr, &l1, 1);
		tr_bound(tr, m, 1, 0);
	} else {
		tr_row(tr, &l1, 0);
	}
	tr_row(tr, &l2, 0);
	lin_clear(&x);
	lin_clear(&l1);
	lin_clear(&l2);
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
	if (tr_poly(tr, a->u.bin.a, &x) < 0 || tr_poly(tr, a->u.bin.b, &y) < 0)
		tr->err = 1;
	t = new_dim(tr, DIM_ATOM, a);
	tr->minmax_left--;
	tr->own->n_minmax++;
	for (int i = 0; i < 4 && !tr->err; i++) {
		int64_t sg = i < 2 ? s : -s;

		if (lin_add_lin(tr->ctx, &l[i], i % 2 ? &y : &x, sg) < 0 ||
		    lin_add_si(tr->ctx, &l[i], t, -sg) < 0)
			tr->err = 1;
	}
	tr_row(tr, &l[0], 0);
	tr_row(tr, &l[1], 0);
	tr_alt(tr, &l[2], &l[3]);
	lin_clear(&x);
	lin_clear(&y);
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
static int
tr_poly(struct tr *tr, sym_expr *e, struct lin *out)
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
static int
tr_symbol_cb(struct sym_expr *atom, void *user)
{
	struct tr *tr = user;

	if (atom->kind != SYM__VAR)
		return 0;
	return tr_symbol(tr, atom->u.var) == NO_DIM ? -1 : 0;
}

/* Add to "tr" the relation "rel" ("k" for divisibility) on "e", or its
 * negation when "negate" is set; every symbol of "e" gets a dimension,
 * even one that only occurs inside an abstracted monomial. */
static void
tr_rel(struct tr *tr, enum sym__rel rel, sym_expr *e, int64_t k, int negate)
{
	struct lin l, m;
	size_t z;

	memset(&l, 0, sizeof(l));
	memset(&m, 0, sizeof(m));
	if (sym__expr_foreach_atom(e, tr_symbol_cb, tr) != 0 ||
	    tr_poly(tr, e, &l) < 0) {
		tr->err = 1;
		lin_clear(&l);
		return;
	}
	if (negate && rel == SYM__REL_GE) {
		/* e <= -1 */
		if (lin_add_lin(tr->ctx, &m, &l, -1) < 0)
			tr->err = 1;
		lin_add_const(&m, -1);
		tr_row(tr, &m, 0);
	} else if (rel == SYM__REL_EQ || rel == SYM__REL_NE) {
		if (negate == (rel == SYM__REL_NE)) {
			tr_row(tr, &l, 1);
		} else {
			/* e >= 1 or e <= -1 */
			if (lin_add_lin(tr->ctx, &m, &l, -1) < 0)
				tr->err = 1;
			lin_add_const(&m, -1);
			lin_add_const(&l, -1);
			tr_alt(tr, &l, &m);
		}
	} else if (rel == SYM__REL_GE) {
		tr_row(tr, &l, 0);
	} else if (!negate && k > 1) {
		/* e = k z */
		z = new_dim(tr, DIM_AUX, NULL);
		if (z == NO_DIM || lin_add_si(tr->ctx, &l, z, -k) < 0)
			tr->err = 1;
		tr_row(tr, &l, 1);
	} else if (negate && k > 1) {
		/* e = k z + r, 1 <= r <= k - 1: k z + 1 <= e <= k z + k - 1 */
		z = new_dim(tr, DIM_AUX, NULL);
		if (z == NO_DIM || lin_add_lin(tr->ctx, &m, &l, -1) < 0 ||
		    lin_add_si(tr->ctx, &m, z, k) < 0 ||
		    lin_add_si(tr->ctx, &l, z, -k) < 0)
			tr->err = 1;
		lin_add_const(&l, -1);
		lin_add_const(&m, k - 1);
		tr_row(tr, &l, 0);
		tr_row(tr, &m, 0);
	} else if (negate) {
		/* 1 divides everything: the negation is infeasible */
		lin_clear(&l);
		lin_add_const(&l, -1);
		tr_row(tr, &l, 0);
	}
	lin_clear(&l);
	lin_clear(&m);
}

/* Start in "tr" a translation into "own" after the "n_vis" blocks "vis"
 * (starting at dimensions "base") for "ctx", allowing "minmax" exact
 * min/max atoms. */
static void
tr_init(struct tr *tr, sym_ctx *ctx, struct comp *const *vis,
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
static isl_basic_set *
form_bset(isl_ctx *isl, size_t n_dim, const struct form *f, const struct lin *l)
{
	size_t n = l ? 0 : f->n_row;
	isl_space *space = isl_space_set_alloc(isl, 0, (unsigned)n_dim);
	isl_mat *eq = lin_mat(isl, n_dim, f, 1, NULL, n);
	isl_mat *ineq = lin_mat(isl, n_dim, f, 0, l, l ? 1 : n);

	return isl_basic_set_from_constraint_matrices(space, eq, ineq,
	    isl_dim_set, isl_dim_div, isl_dim_param, isl_dim_cst);
}

/* Return the set of "f" in the space of "n_dim" set dimensions of "isl". */
static isl_set *
form_set(isl_ctx *isl, size_t n_dim, const struct form *f)
{
	isl_set *set = isl_set_from_basic_set(form_bset(isl, n_dim, f, NULL));

	for (size_t i = 0; i < f->n_alt; i++) {
		isl_set *a = isl_set_from_basic_set(form_bset(isl, n_dim, f,
		    &f->alt[i].side[0]));
		isl_set *b = isl_set_from_basic_set(form_bset(isl, n_dim, f,
		    &f->alt[i].side[1]));

		set = isl_set_intersect(set, isl_set_union(a, b));
	}
	return set;
}

/* Turn a failure while working with "isl" into an answer for "ctx":
 * SYM_UNKNOWN when the operation budget ran out, SYM_ERROR with SYM_EISL
 * for another error of ISL, SYM_ERROR alone when ISL reports none (our
 * own allocation failed, already recorded). The error of "isl" is
 * cleared. */
static sym_answer
isl_failure(sym_ctx *ctx, isl_ctx *isl)
{
	enum isl_error e = isl_ctx_last_error(isl);
	const char *msg = isl_ctx_last_error_msg(isl);

	if (e == isl_error_none)
		return SYM_ERROR;
	if (e == isl_error_quota) {
		isl_ctx_reset_error(isl);
		return SYM_UNKNOWN;
	}
	sym__error(ctx, SYM_EISL, NULL, "integer set library: %s",
	    msg ? msg : "unknown error");
	isl_ctx_reset_error(isl);
	return SYM_ERROR;
}

/* Give the ISL context of "p" a fresh operation budget from the options
 * of "ctx". */
static void
budget_reset(sym_ctx *ctx, struct sym__prover *p)
{
	long ops = ctx->opt_isl_max_ops;

	isl_ctx_set_max_operations(p->isl, ops > 0 ? (unsigned long)ops : 0);
	isl_ctx_reset_operations(p->isl);
	isl_ctx_reset_error(p->isl);
}

/* Give the ISL context of "p" a fresh budget of at most "cap" operations
 * (the options of "ctx" may set fewer). */
static void
budget_cap(sym_ctx *ctx, struct sym__prover *p, long cap)
{
	long ops = ctx->opt_isl_max_ops;

	isl_ctx_set_max_operations(p->isl,
	    (unsigned long)(ops > 0 && ops < cap ? ops : cap));
	isl_ctx_reset_operations(p->isl);
}

/* Free the component "c", releasing its facts when "unref" is set (not
 * while the context is being freed: the node table may be gone). */
static void
comp_free(struct comp *c, int unref)
{
	if (!c)
		return;
	for (size_t i = 0; unref && i < c->n_fact; i++)
		sym__expr_unref(c->fact[i].e);
	free(c->fact);
	isl_set_free(c->set);
	free(c->dim);
	free(c);
}

/* Clean-up hook: free the prover of "ctx" and its ISL context. */
static void
prover_free(sym_ctx *ctx)
{
	struct sym__prover *p = ctx->prover;

	if (!p)
		return;
	for (size_t i = 0; i < p->n_pool; i++)
		comp_free(p->pool[i], 0);
	free(p->pool);
	free(p->cur);
	free(p->comp_of);
	isl_ctx_free(p->isl);
	free(p);
	ctx->prover = NULL;
}

/* Return the prover of "ctx", creating it (and its ISL context) on first
 * use; NULL with an error on "ctx". */
static struct sym__prover *
prover_get(sym_ctx *ctx)
{
	struct sym__prover *p = ctx->prover;

	if (p)
		return p;
	if (sym__ctx_add_hook(ctx, prover_free) < 0)
		return NULL;
	p = sym__alloc(ctx, sizeof(*p));
	if (!p)
		return NULL;
	p->isl = isl_ctx_alloc();
	if (!p->isl) {
		free(p);
		sym__error(ctx, SYM_EISL, NULL,
		    "cannot create an integer set library context");
		return NULL;
	}
	isl_options_set_on_error(p->isl, ISL_ON_ERROR_CONTINUE);
	p->global = NO_DIM;
	ctx->prover = p;
	return p;
}

/* Return 1 when the "n" fact keys "a" and "b" are the same facts. */
static int
fkeys_equal(const struct fkey *a, const struct fkey *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].rel != b[i].rel || a[i].e != b[i].e ||
		    a[i].k != b[i].k)
			return 0;
	return 1;
}

/* Return a new component of "ctx" for the "n" facts "key" (references
 * taken), continuing from the built state of "from" (may be NULL), or
 * NULL. */
static struct comp *
comp_new(sym_ctx *ctx, const struct fkey *key, size_t n,
    const struct comp *from)
{
	struct comp *c = sym__alloc(ctx, sizeof(*c));

	if (!c)
		return NULL;
	c->fact = sym__alloc(ctx, n * sizeof(*c->fact));
	if (from && from->n_dim)
		c->dim = sym__alloc(ctx, from->n_dim * sizeof(*c->dim));
	if (!c->fact || (from && from->n_dim && !c->dim)) {
		free(c->fact);
		free(c);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		c->fact[i] = key[i];
		sym__expr_ref(key[i].e);
	}
	c->n_fact = n;
	if (from) {
		c->n_built = from->n_built;
		c->set = isl_set_copy(from->set);
		if (from->n_dim)
			memcpy(c->dim, from->dim,
			    from->n_dim * sizeof(*c->dim));
		c->n_dim = c->cap_dim = from->n_dim;
		c->abstracted = from->abstracted;
		c->n_minmax = from->n_minmax;
	}
	return c;
}

/* Return the component of "p" for the "n" facts "key": the pooled one
 * with exactly these facts, or a new one continuing from the pooled one
 * that built the longest prefix of them. NULL with an error on "ctx". */
static struct comp *
pool_match(sym_ctx *ctx, struct sym__prover *p, const struct fkey *key,
    size_t n)
{
	struct comp *best = NULL, *c;

	for (size_t i = 0; i < p->n_pool; i++) {
		c = p->pool[i];
		if (c->n_fact == n && fkeys_equal(c->fact, key, n))
			return c;
		if (c->n_built > 0 && c->n_built <= n &&
		    (!best || c->n_built > best->n_built) &&
		    fkeys_equal(c->fact, key, c->n_built))
			best = c;
	}
	if (p->n_pool == p->cap_pool) {
		size_t cap = p->cap_pool ? 2 * p->cap_pool : 16;
		struct comp **np =
		    sym__realloc_array(ctx, p->pool, cap, sizeof(*np));

		if (!np)
			return NULL;
		p->pool = np;
		p->cap_pool = cap;
	}
	c = comp_new(ctx, key, n, best);
	if (c)
		p->pool[p->n_pool++] = c;
	return c;
}

/* Free the least recently used components of "p" that the current facts
 * do not use, down to POOL_CAP components in all. */
static void
pool_evict(struct sym__prover *p)
{
	while (p->n_pool > POOL_CAP) {
		size_t v = NO_DIM;

		for (size_t i = 0; i < p->n_pool; i++)
			if (p->pool[i]->used < p->clock &&
			    (v == NO_DIM ||
			        p->pool[i]->used < p->pool[v]->used))
				v = i;
		if (v == NO_DIM)
			return;
		comp_free(p->pool[v], 1);
		p->pool[v] = p->pool[--p->n_pool];
	}
}

/* Return the representative of "i" in the union-find forest "parent". */
static size_t
uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

/* The symbols of one fact, merged into one class of a union-find forest. */
struct fsyms {
	size_t *parent;
	size_t first;
};

/* sym__expr_foreach_atom callback: merge the class of the symbol of the
 * atom "atom" with that of the first symbol of the fact in "user". */
static int
fact_union(struct sym_expr *atom, void *user)
{
	struct fsyms *fs = user;
	size_t a, b;

	if (atom->kind != SYM__VAR)
		return 0;
	if (fs->first == NO_DIM) {
		fs->first = atom->u.var->id;
		return 0;
	}
	a = uf_find(fs->parent, fs->first);
	b = uf_find(fs->parent, atom->u.var->id);
	if (a < b)
		fs->parent[b] = a;
	else
		fs->parent[a] = b;
	return 0;
}

/* Group the facts of "ctx" into components, numbered by their first fact,
 * and attach to each a pooled component of "p". Return 0 or -1. */
static int
sync_groups(sym_ctx *ctx, struct sym__prover *p, size_t *parent, size_t *grp,
    size_t *gid, struct fkey *key, size_t *off)
{
	size_t ns = ctx->n_sym, nf = ctx->n_fact, ng = 0;
	struct comp **cur;

	for (size_t i = 0; i <= ns; i++) {
		parent[i] = i;
		gid[i] = NO_DIM;
	}
	for (size_t i = 0; i < nf; i++) {
		struct fsyms fs = { parent, NO_DIM };

		sym__expr_foreach_atom(ctx->fact[i].e, fact_union, &fs);
		grp[i] = fs.first == NO_DIM ? ns : fs.first;
	}
	for (size_t i = 0; i < nf; i++) {
		size_t r = grp[i] == ns ? ns : uf_find(parent, grp[i]);

		if (gid[r] == NO_DIM)
			gid[r] = ng++;
		grp[i] = gid[r];
	}
	/* a stable counting sort of the facts by group into "key": group g
	 * is key[off[g] .. off[g + 1]) */
	memset(off, 0, (ng + 1) * sizeof(*off));
	for (size_t i = 0; i < nf; i++)
		off[grp[i] + 1]++;
	for (size_t g = 0; g < ng; g++)
		off[g + 1] += off[g];
	for (size_t i = 0; i < nf; i++) {
		struct fkey *k = &key[off[grp[i]]++];

		k->rel = ctx->fact[i].rel;
		k->e = ctx->fact[i].e;
		k->k = ctx->fact[i].k;
	}
	for (size_t g = ng; g > 0; g--)
		off[g] = off[g - 1];
	off[0] = 0;
	cur = sym__realloc_array(ctx, p->cur, ng ? ng : 1, sizeof(*cur));
	if (!cur)
		return -1;
	p->cur = cur;
	p->n_cur = 0;
	p->clock++;
	for (size_t g = 0; g < ng; g++) {
		struct comp *c =
		    pool_match(ctx, p, key + off[g], off[g + 1] - off[g]);

		if (!c)
			return -1;
		c->used = p->clock;
		p->cur[p->n_cur++] = c;
	}
	for (size_t s = 0; s < ns; s++)
		p->comp_of[s] = gid[uf_find(parent, s)];
	p->n_comp_of = ns;
	p->global = gid[ns];
	return 0;
}

/* Bring the components of "p" up to date with the facts of "ctx".
 * Return 0 or -1. */
static int
sync(sym_ctx *ctx, struct sym__prover *p)
{
	size_t ns = ctx->n_sym, nf = ctx->n_fact;
	size_t *parent, *grp, *gid, *off, *co;
	struct fkey *key;
	int r = -1;

	if (p->synced && p->gen == ctx->facts_gen)
		return 0;
	p->synced = 0;
	co = sym__realloc_array(ctx, p->comp_of, ns ? ns : 1, sizeof(*co));
	if (!co)
		return -1;
	p->comp_of = co;
	parent = sym__alloc(ctx, (ns + 1) * sizeof(*parent));
	gid = sym__alloc(ctx, (ns + 1) * sizeof(*gid));
	grp = sym__alloc(ctx, (nf + 1) * sizeof(*grp));
	off = sym__alloc(ctx, (nf + 2) * sizeof(*off));
	key = sym__alloc(ctx, (nf + 1) * sizeof(*key));
	if (parent && gid && grp && off && key &&
	    sync_groups(ctx, p, parent, grp, gid, key, off) == 0) {
		pool_evict(p);
		p->gen = ctx->facts_gen;
		p->synced = 1;
		r = 0;
	}
	free(parent);
	free(gid);
	free(grp);
	free(off);
	free(key);
	return r;
}

/* Translate the next fact of component "c" into its set. Return SYM_TRUE,
 * SYM_UNKNOWN when the budget ran out, or SYM_ERROR. On failure "c" is
 * left as it was. */
static sym_answer
comp_step(sym_ctx *ctx, struct sym__prover *p, struct comp *c)
{
	const struct fkey *fk = &c->fact[c->n_built];
	size_t n0 = c->n_dim;
	int mm0 = c->n_minmax;
	struct tr tr;
	isl_set *set;

	tr_init(&tr, ctx, NULL, NULL, 0, c, 0, MAX_MINMAX - c->n_minmax);
	tr_rel(&tr, fk->rel, fk->e, fk->k, 0);
	if (tr.err) {
		form_clear(&tr.f);
		c->n_dim = n0;
		c->n_minmax = mm0;
		return SYM_ERROR;
	}
	budget_reset(ctx, p);
	set = c->set ? isl_set_copy(c->set)
	             : isl_set_universe(isl_space_set_alloc(p->isl, 0, 0));
	set = isl_set_add_dims(set, isl_dim_set, (unsigned)(c->n_dim - n0));
	set = isl_set_intersect(set, form_set(p->isl, c->n_dim, &tr.f));
	set = isl_set_coalesce(set);
	form_clear(&tr.f);
	if (!set) {
		c->n_dim = n0;
		c->n_minmax = mm0;
		return isl_failure(ctx, p->isl);
	}
	isl_set_free(c->set);
	c->set = set;
	c->n_built++;
	c->abstracted |= tr.abstracted;
	return SYM_TRUE;
}

/* Release everything "q" holds. */
static void
query_clear(struct query *q)
{
	free(q->blk);
	free(q->base);
	free(q->own.dim);
	free(q->sym_pos);
	free(q->sym);
	for (size_t i = 0; i < q->n_piece; i++)
		isl_basic_set_free(q->piece[i]);
	free(q->piece);
	isl_set_free(q->set);
}

/* The components a query involves, one flag per current component. */
struct marks {
	const struct sym__prover *p;
	char *mark;
};

/* sym__expr_foreach_atom callback: flag in the marks "user" the component
 * of the symbol of "atom". */
static int
mark_comp(struct sym_expr *atom, void *user)
{
	struct marks *m = user;
	size_t id;

	if (atom->kind != SYM__VAR)
		return 0;
	id = atom->u.var->id;
	if (id < m->p->n_comp_of && m->p->comp_of[id] != NO_DIM)
		m->mark[m->p->comp_of[id]] = 1;
	return 0;
}

/* Collect in "q" the components the symbols of "e" reach (every component
 * when "e" is NULL), in the order of their first fact. Return 0 or -1. */
static int
query_collect(struct query *q, sym_expr *e)
{
	struct sym__prover *p = q->p;
	size_t n = p->n_cur;
	struct marks m = { p, sym__alloc(q->ctx, n + 1) };

	if (!m.mark)
		return -1;
	memset(m.mark, e ? 0 : 1, n);
	if (e)
		sym__expr_foreach_atom(e, mark_comp, &m);
	if (p->global != NO_DIM)
		m.mark[p->global] = 1;
	q->blk = sym__alloc(q->ctx, (n + 1) * sizeof(*q->blk));
	q->base = sym__alloc(q->ctx, (n + 1) * sizeof(*q->base));
	if (q->blk && q->base)
		for (size_t i = 0; i < n; i++)
			if (m.mark[i])
				q->blk[q->n_blk++] = p->cur[i];
	free(m.mark);
	return q->blk && q->base ? 0 : -1;
}

/* Start in "q" a query of "ctx" about "e" (NULL: about all the facts):
 * synchronise the components, build those it involves and lay out their
 * blocks. Return SYM_TRUE, or SYM_UNKNOWN / SYM_ERROR. */
static sym_answer
query_open(struct query *q, sym_ctx *ctx, sym_expr *e)
{
	size_t at = 0;

	memset(q, 0, sizeof(*q));
	q->ctx = ctx;
	q->p = prover_get(ctx);
	if (!q->p || sync(ctx, q->p) < 0 || query_collect(q, e) < 0)
		return SYM_ERROR;
	for (size_t i = 0; i < q->n_blk; i++) {
		struct comp *c = q->blk[i];

		while (c->n_built < c->n_fact) {
			sym_answer a = comp_step(ctx, q->p, c);

			if (a != SYM_TRUE)
				return a;
		}
		q->base[i] = at;
		at += c->n_dim;
		q->abstracted |= c->abstracted;
		q->n_minmax += c->n_minmax;
	}
	q->own_base = at;
	return SYM_TRUE;
}

/* Start in "tr" a translation into the own block of the query "q". */
static void
query_tr(struct query *q, struct tr *tr)
{
	int mm = MAX_MINMAX - q->n_minmax;

	tr_init(tr, q->ctx, q->blk, q->base, q->n_blk, &q->own, q->own_base,
	    mm > 0 ? mm : 0);
}

/* Record in "q" the positions of its symbol dimensions, in order. Return
 * 0 or -1. */
static int
query_symbols(struct query *q)
{
	size_t n = q->own_base + q->own.n_dim;

	q->sym_pos = sym__alloc(q->ctx, (n + 1) * sizeof(*q->sym_pos));
	q->sym = sym__alloc(q->ctx, (n + 1) * sizeof(*q->sym));
	if (!q->sym_pos || !q->sym)
		return -1;
	for (size_t i = 0; i <= q->n_blk; i++) {
		const struct comp *c = i < q->n_blk ? q->blk[i] : &q->own;
		size_t b = i < q->n_blk ? q->base[i] : q->own_base;

		for (size_t j = 0; j < c->n_dim; j++)
			if (c->dim[j].kind == DIM_SYM) {
				q->sym_pos[q->n_sym] = b + j;
				q->sym[q->n_sym++] =
				    (sym_symbol *)c->dim[j].key;
			}
	}
	return 0;
}

/* Build in "q" its set as one set: the product of the sets of its
 * components, times its own block constrained by "f". Return 0 or -1. */
static int
query_whole(struct query *q, const struct form *f)
{
	isl_ctx *isl = q->p->isl;
	isl_set *s = NULL;

	for (size_t i = 0; i < q->n_blk; i++)
		s = s ? isl_set_flat_product(s, isl_set_copy(q->blk[i]->set))
		      : isl_set_copy(q->blk[i]->set);
	if (!s)
		s = isl_set_universe(isl_space_set_alloc(isl, 0, 0));
	s = isl_set_add_dims(s, isl_dim_set, (unsigned)q->own.n_dim);
	if (f->n_row || f->n_alt)
		s = isl_set_intersect(s,
		    form_set(isl, q->own_base + q->own.n_dim, f));
	q->set = s;
	return s ? 0 : -1;
}

/* Replace the pieces of "q" by their products with each basic set of
 * "set" (kept), or by those basic sets when "first" (no piece has a
 * dimension yet). Return 0 or -1. */
static int
pieces_product(struct query *q, isl_set *set, int first)
{
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_size k = isl_basic_set_list_size(l);
	size_t n = k < 0 ? 0 : q->n_piece * (size_t)k;
	isl_basic_set **next = sym__alloc(q->ctx, (n + 1) * sizeof(*next));
	size_t m = 0;
	int r = next && k >= 0 ? 0 : -1;

	for (size_t i = 0; i < q->n_piece; i++) {
		for (isl_size j = 0; j < k && r == 0; j++) {
			isl_basic_set *b = isl_basic_set_list_get_at(l, j);

			if (!first)
				b = isl_basic_set_flat_product(
				    isl_basic_set_copy(q->piece[i]), b);
			if (b)
				next[m++] = b;
			else
				r = -1;
		}
		isl_basic_set_free(q->piece[i]);
	}
	isl_basic_set_list_free(l);
	free(q->piece);
	q->piece = next;
	q->n_piece = m;
	return r;
}

/* Intersect every piece of "q" with "a" (taken), or when "b" (taken) is
 * not NULL, replace it by its intersections with "a" and with "b". Drop
 * the pieces that are plainly empty. Return 0 or -1. */
static int
pieces_meet(struct query *q, isl_basic_set *a, isl_basic_set *b)
{
	isl_basic_set **next =
	    sym__alloc(q->ctx, (2 * q->n_piece + 1) * sizeof(*next));
	size_t m = 0;
	int r = next && a ? 0 : -1;

	for (size_t i = 0; i < q->n_piece; i++) {
		for (int s = 0; s < (b ? 2 : 1) && r == 0; s++) {
			isl_basic_set *x = isl_basic_set_copy(q->piece[i]);
			isl_bool e;

			x = isl_basic_set_intersect(x,
			    isl_basic_set_copy(s ? b : a));
			e = isl_basic_set_plain_is_empty(x);

			if (e == isl_bool_false)
				next[m++] = x;
			else
				isl_basic_set_free(x);
			if (e < 0)
				r = -1;
		}
		isl_basic_set_free(q->piece[i]);
	}
	isl_basic_set_free(a);
	isl_basic_set_free(b);
	free(q->piece);
	q->piece = next;
	q->n_piece = m;
	return r;
}

/* Build in "q" its set as a union of basic sets: every combination of a
 * basic set of each component and of a side of each disjunction of "f",
 * with the rows of "f". Return 1 when there would be more than
 * MAX_PIECES, else 0 or -1. */
static int
query_pieces(struct query *q, const struct form *f)
{
	isl_ctx *isl = q->p->isl;
	size_t total = q->own_base + q->own.n_dim, n = 1;
	int r = 0;

	for (size_t i = 0; i < q->n_blk; i++) {
		isl_size k = isl_set_n_basic_set(q->blk[i]->set);

		if (k < 0)
			return -1;
		n *= (size_t)k;
		if (n > MAX_PIECES)
			return 1;
	}
	if (f->n_alt > 6 || n << f->n_alt > MAX_PIECES)
		return 1;
	q->piece = sym__alloc(q->ctx, sizeof(*q->piece));
	if (!q->piece)
		return -1;
	q->piece[0] = isl_basic_set_universe(isl_space_set_alloc(isl, 0, 0));
	q->n_piece = 1;
	for (size_t i = 0; i < q->n_blk && r == 0; i++)
		r = pieces_product(q, q->blk[i]->set, i == 0);
	for (size_t i = 0; i < q->n_piece && r == 0 && q->own.n_dim; i++) {
		q->piece[i] = isl_basic_set_add_dims(q->piece[i], isl_dim_set,
		    (unsigned)q->own.n_dim);
		r = q->piece[i] ? 0 : -1;
	}
	if (r == 0)
		r = pieces_meet(q, form_bset(isl, total, f, NULL), NULL);
	for (size_t i = 0; i < f->n_alt && r == 0; i++)
		r = pieces_meet(q, form_bset(isl, total, f, &f->alt[i].side[0]),
		    form_bset(isl, total, f, &f->alt[i].side[1]));
	return r;
}

/* Finish the translation "tr" of the query "q": build its set (the blocks
 * of the components, then its own block constrained by "tr"). Return
 * SYM_TRUE, or SYM_UNKNOWN / SYM_ERROR. */
static sym_answer
query_build(struct query *q, struct tr *tr)
{
	int r;

	q->abstracted |= tr->abstracted;
	if (tr->err || query_symbols(q) < 0) {
		form_clear(&tr->f);
		return SYM_ERROR;
	}
	budget_reset(q->ctx, q->p);
	r = query_pieces(q, &tr->f);
	if (r == 1)
		r = query_whole(q, &tr->f);
	form_clear(&tr->f);
	return r == 0 ? SYM_TRUE : isl_failure(q->ctx, q->p->isl);
}

/* Return 1 when the set of the query "q" is empty, 0 when not, -1 on an
 * ISL failure. */
static isl_bool
query_is_empty(struct query *q)
{
	if (q->set)
		return isl_set_is_empty(q->set);
	for (size_t i = 0; i < q->n_piece; i++) {
		isl_bool e = isl_basic_set_is_empty(q->piece[i]);

		if (e != isl_bool_true)
			return e == isl_bool_false ? isl_bool_false : e;
	}
	return isl_bool_true;
}

/* Return the set of the query "q" (kept), made from its pieces if needed;
 * NULL on an ISL failure. */
static isl_set *
query_set(struct query *q)
{
	size_t total = q->own_base + q->own.n_dim;

	if (q->set)
		return q->set;
	q->set =
	    isl_set_empty(isl_space_set_alloc(q->p->isl, 0, (unsigned)total));
	for (size_t i = 0; i < q->n_piece; i++)
		q->set = isl_set_union(q->set,
		    isl_set_from_basic_set(isl_basic_set_copy(q->piece[i])));
	return q->set;
}

/* Turn a failed evaluation on "ctx" into a verdict: V_UNSURE (error
 * cleared) for overflow or division by zero, else V_ERROR. */
static enum verdict
eval_failure(sym_ctx *ctx)
{
	if (ctx->err == SYM_EOVERFLOW || ctx->err == SYM_EDIVZERO) {
		sym_ctx_clear_error(ctx);
		return V_UNSURE;
	}
	return V_ERROR;
}

/* check_fn: accept the binding "b" of "ctx" when it is admissible. */
static enum verdict
check_admissible(sym_ctx *ctx, const sym_binding *b, void *user)
{
	int r = sym__binding_admissible(ctx, b);

	(void)user;
	if (r < 0)
		return eval_failure(ctx);
	return r ? V_ACCEPT : V_REJECT;
}

/* check_fn: accept the binding "b" of "ctx" when it is admissible and the
 * claim "user" fails at it. */
static enum verdict
check_claim(sym_ctx *ctx, const sym_binding *b, void *user)
{
	enum verdict v = check_admissible(ctx, b, NULL);
	int r;

	if (v != V_ACCEPT)
		return v;
	r = sym__claim_holds(ctx, user, b);
	if (r < 0)
		return eval_failure(ctx);
	return r ? V_REJECT : V_ACCEPT;
}

/* The target of check_value. */
struct target {
	sym_expr *e;
	sym__num v;
};

/* check_fn: accept the binding "b" of "ctx" when it is admissible and
 * the expression of the target "user" takes its value there. */
static enum verdict
check_value(sym_ctx *ctx, const sym_binding *b, void *user)
{
	struct target *t = user;
	enum verdict v = check_admissible(ctx, b, NULL);
	int64_t x;

	if (v != V_ACCEPT)
		return v;
	if (sym_expr_eval(t->e, b, &x) < 0)
		return eval_failure(ctx);
	return sym__num_cmp_si(&t->v, x) == 0 ? V_ACCEPT : V_REJECT;
}

/* Check the point "pt" (taken) of the query "q" with "check" and "user":
 * its coordinates are those of the symbols when "projected", else those
 * of the whole set. On V_ACCEPT, "*out" is the binding. V_UNSURE when a
 * coordinate does not fit 64 bits, V_ISL when ISL fails. */
static enum verdict
try_point(struct query *q, isl_point *pt, int projected, check_fn check,
    void *user, sym_binding **out)
{
	sym_binding *b = sym_binding_new(q->ctx);
	enum verdict v = b ? V_ACCEPT : V_ERROR;

	for (size_t j = 0; j < q->n_sym && v == V_ACCEPT; j++) {
		isl_val *x = isl_point_get_coordinate_val(pt, isl_dim_set,
		    (int)(projected ? j : q->sym_pos[j]));

		if (!x)
			v = V_ISL;
		else if (isl_val_cmp_si(x, INT64_MAX) > 0 ||
		    isl_val_cmp_si(x, INT64_MIN) < 0)
			v = V_UNSURE;
		else if (sym_binding_set(b, q->sym[j], isl_val_get_num_si(x)))
			v = V_ERROR;
		isl_val_free(x);
	}
	isl_point_free(pt);
	if (v == V_ACCEPT)
		v = check(q->ctx, b, user);
	if (v == V_ACCEPT)
		*out = b;
	else
		sym_binding_free(b);
	return v;
}

/* Return "set" (taken), a set of the query "q", with every dimension but
 * the symbols projected out. */
static isl_set *
project_symbols(struct query *q, isl_set *set)
{
	size_t end = q->own_base + q->own.n_dim;

	for (size_t i = q->n_sym; i-- > 0;) {
		size_t first = q->sym_pos[i] + 1;

		if (end > first)
			set = isl_set_project_out(set, isl_dim_set,
			    (unsigned)first, (unsigned)(end - first));
		end = q->sym_pos[i];
	}
	if (end > 0)
		set = isl_set_project_out(set, isl_dim_set, 0, (unsigned)end);
	return set;
}

/* The state of a witness search. */
struct search {
	struct query *q;
	check_fn check;
	void *user;
	sym_binding *found;
	int rejected; /* some candidate was rejected */
	int error;    /* a check failed */
	int failed;   /* an ISL call failed */
};

/* Try the point "pt" (taken; NULL: an ISL failure) in the search "s",
 * with symbol coordinates in the order of the symbols when "projected".
 * Return 1 when the search is over (found, or an error), else 0. */
static int
search_try(struct search *s, isl_point *pt, int projected)
{
	enum verdict v;

	if (!pt) {
		s->failed = 1;
		return 1;
	}
	if (isl_point_is_void(pt)) {
		isl_point_free(pt);
		return 0;
	}
	v = try_point(s->q, pt, projected, s->check, s->user, &s->found);
	s->rejected |= v == V_REJECT;
	s->error |= v == V_ERROR;
	s->failed |= v == V_ISL;
	return v == V_ACCEPT || v == V_ERROR || v == V_ISL;
}

/* Return the outcome of the search "s": SYM_TRUE with "*out" set to the
 * accepted binding, SYM_FALSE when candidates were rejected and none
 * accepted, SYM_UNKNOWN when none could be evaluated or the budget ran
 * out, SYM_ERROR on error. */
static sym_answer
search_result(struct search *s, sym_binding **out)
{
	if (s->found) {
		*out = s->found;
		return SYM_TRUE;
	}
	if (s->error)
		return SYM_ERROR;
	if (s->failed)
		return isl_failure(s->q->ctx, s->q->p->isl);
	return s->rejected ? SYM_FALSE : SYM_UNKNOWN;
}

/* Return the sign of the lexicographic comparison of the first "n" values
 * of "a" and "b", or -2 on an ISL failure. */
static int
mv_cmp(isl_multi_val *a, isl_multi_val *b, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		isl_val *x = isl_multi_val_get_at(a, (int)i);
		isl_val *y = isl_multi_val_get_at(b, (int)i);
		isl_bool lt = isl_val_lt(x, y), gt = isl_val_gt(x, y);

		r = lt < 0 || gt < 0 ? -2 : lt ? -1 : gt ? 1 : 0;
		isl_val_free(x);
		isl_val_free(y);
	}
	return r;
}

/* Replace "*best" (may be NULL) by "mv" (taken; NULL: no point) when it
 * is lexicographically smaller in its first "n" values, or greater when
 * "max". Return 0 or -1. */
static int
mv_keep(isl_multi_val *mv, int max, size_t n, isl_multi_val **best)
{
	int c = mv && *best ? mv_cmp(mv, *best, n) : 0;

	if (c == -2) {
		isl_multi_val_free(mv);
		return -1;
	}
	if (mv && (!*best || (max ? c > 0 : c < 0))) {
		isl_multi_val_free(*best);
		*best = mv;
	} else {
		isl_multi_val_free(mv);
	}
	return 0;
}

/* isl_pw_multi_aff_foreach_piece callback: store in "user" the constant
 * values of "ma" (taken) when its domain "dom" (taken) is not empty and
 * none was stored yet. Return isl_stat_ok or isl_stat_error. */
static isl_stat
piece_values(__isl_take isl_set *dom, __isl_take isl_multi_aff *ma, void *user)
{
	isl_multi_val **mv = user;
	isl_bool empty = *mv ? isl_bool_true : isl_set_is_empty(dom);

	if (empty == isl_bool_false)
		*mv = isl_multi_aff_get_constant_multi_val(ma);
	isl_set_free(dom);
	isl_multi_aff_free(ma);
	return empty < 0 || (empty == isl_bool_false && !*mv) ? isl_stat_error
	                                                      : isl_stat_ok;
}

/* Replace "*best" as mv_keep does by the lexicographic minimum of the
 * basic set "b" (taken) of "n" dimensions, or its maximum when "max".
 * Return 0 or -1. The parametric domain is given (no parameters), which
 * spares ISL projecting "b" onto it; with no parameters, the optimum is
 * the constant of the piece whose domain is not empty. */
static int
lexopt_keep(isl_basic_set *b, int max, size_t n, isl_multi_val **best)
{
	isl_space *none = isl_space_params_alloc(isl_basic_set_get_ctx(b), 0);
	isl_basic_set *dom = isl_basic_set_universe(none);
	isl_pw_multi_aff *pma = max
	    ? isl_basic_set_partial_lexmax_pw_multi_aff(b, dom, NULL)
	    : isl_basic_set_partial_lexmin_pw_multi_aff(b, dom, NULL);
	isl_multi_val *mv = NULL;
	isl_stat r = isl_pw_multi_aff_foreach_piece(pma, &piece_values, &mv);

	isl_pw_multi_aff_free(pma);
	if (r < 0) {
		isl_multi_val_free(mv);
		return -1;
	}
	return mv_keep(mv, max, n, best);
}

/* Replace "*best" as mv_keep does by the lexicographic minimum of the
 * points of the basic set "b" (taken) of "n" dimensions that are
 * lexicographically greater than "after" (kept). Return 0 or -1. */
static int
lexmin_after(isl_basic_set *b, isl_multi_val *after, size_t n,
    isl_multi_val **best)
{
	isl_multi_val *mine = NULL;
	int r = 0;

	/* prefix after[0..i) then x_i > after[i], longest prefix first:
	 * those points come first lexicographically */
	for (size_t i = n; i-- > 0 && r == 0 && !mine;) {
		isl_basic_set *c = isl_basic_set_copy(b);
		isl_val *v = isl_multi_val_get_at(after, (int)i);

		for (size_t k = 0; k < i; k++)
			c = isl_basic_set_fix_val(c, isl_dim_set, (unsigned)k,
			    isl_multi_val_get_at(after, (int)k));
		c = isl_basic_set_lower_bound_val(c, isl_dim_set, (unsigned)i,
		    isl_val_add_ui(v, 1));
		r = c ? lexopt_keep(c, 0, n, &mine) : -1;
	}
	isl_basic_set_free(b);
	if (r < 0) {
		isl_multi_val_free(mine);
		return -1;
	}
	return mv_keep(mine, 0, n, best);
}

/* Set "*best" (NULL when there is none) to the lexicographic minimum of
 * "set" (kept) of "n" dimensions, or its maximum when "max", or, when
 * "after" is not NULL, to the minimum of its points greater than "after".
 * Return 0 or -1. The basic sets are optimised one at a time: in ISL 0.25
 * the lexicographic optimum of a union can fail an internal assertion. */
static int
set_lexopt(isl_set *set, int max, isl_multi_val *after, size_t n,
    isl_multi_val **best)
{
	isl_basic_set_list *l = isl_set_get_basic_set_list(set);
	isl_size k = isl_basic_set_list_size(l);
	int r = k < 0 ? -1 : 0;

	*best = NULL;
	for (isl_size i = 0; i < k && r == 0; i++) {
		isl_basic_set *b = isl_basic_set_list_get_at(l, i);

		if (!b)
			r = -1;
		else if (after)
			r = lexmin_after(b, after, n, best);
		else
			r = lexopt_keep(b, max, n, best);
	}
	isl_basic_set_list_free(l);
	return r;
}

/* Return the point of the "n" values "mv" (kept) in a set space of "isl";
 * a void point when "mv" is NULL. */
static isl_point *
mv_point(isl_ctx *isl, isl_multi_val *mv, size_t n)
{
	isl_space *space = isl_space_set_alloc(isl, 0, (unsigned)n);
	isl_point *pt;

	if (!mv)
		return isl_point_void(space);
	pt = isl_point_zero(space);
	for (size_t i = 0; i < n; i++)
		pt = isl_point_set_coordinate_val(pt, isl_dim_set, (int)i,
		    isl_multi_val_get_at(mv, (int)i));
	return pt;
}

/* Look for a point of "set" (kept), a set of the query "q" built with
 * abstractions, whose symbol values "check" accepts with "user": the
 * N_LEXMIN smallest bindings of the projection on the symbols, then the
 * largest one when it is bounded, each found within LEXMIN_OPS
 * operations (see query_lexmin). Every candidate is a lexicographic
 * optimum, so the search does not depend on the sample points ISL caches
 * in basic sets. Return as search_result. */
static sym_answer
search(struct query *q, isl_set *set, check_fn check, void *user,
    sym_binding **out)
{
	struct search s = { q, check, user, NULL, 0, 0, 0 };
	isl_ctx *isl = q->p->isl;
	isl_set *proj = project_symbols(q, isl_set_copy(set));
	isl_multi_val *prev = NULL, *mv = NULL;
	isl_bool bounded = isl_bool_false;
	int more = proj != NULL;

	s.failed = !proj;
	for (int i = 0; i < N_LEXMIN && more; i++) {
		budget_cap(q->ctx, q->p, LEXMIN_OPS);
		if (set_lexopt(proj, 0, prev, q->n_sym, &mv) < 0)
			s.failed = 1;
		else
			budget_reset(q->ctx, q->p);
		more = mv && !s.failed &&
		    !search_try(&s, mv_point(isl, mv, q->n_sym), 1);
		isl_multi_val_free(prev);
		prev = mv;
		mv = NULL;
	}
	if (more)
		bounded = isl_set_is_bounded(proj);
	s.failed |= bounded < 0;
	if (bounded > 0)
		budget_cap(q->ctx, q->p, LEXMIN_OPS);
	if (bounded > 0 && set_lexopt(proj, 1, NULL, q->n_sym, &mv) < 0) {
		s.failed = 1;
	} else if (bounded > 0 && mv) {
		budget_reset(q->ctx, q->p);
		search_try(&s, mv_point(isl, mv, q->n_sym), 1);
	}
	isl_multi_val_free(prev);
	isl_multi_val_free(mv);
	isl_set_free(proj);
	return search_result(&s, out);
}

/* Replace "*best" as mv_keep does by the lexicographically smallest
 * symbol values of the basic set "b" (taken) of the query "q", found one
 * symbol at a time: minimise it, fix it, go on. Return 0 or -1. */
static int
symmin_keep(struct query *q, isl_basic_set *b, isl_multi_val **best)
{
	isl_space *space =
	    isl_space_set_alloc(q->p->isl, 0, (unsigned)q->n_sym);
	isl_multi_val *mv = isl_multi_val_zero(space);

	for (size_t j = 0; j < q->n_sym && mv; j++) {
		unsigned pos = (unsigned)q->sym_pos[j];
		isl_set *set = isl_set_from_basic_set(isl_basic_set_copy(b));
		isl_val *v = isl_set_dim_min_val(set, (int)pos);

		if (isl_val_is_nan(v) == isl_bool_true) {
			/* empty */
			isl_val_free(v);
			isl_basic_set_free(b);
			isl_multi_val_free(mv);
			return 0;
		}
		if (isl_val_is_int(v) != isl_bool_true)
			v = isl_val_free(v);
		b = isl_basic_set_fix_val(b, isl_dim_set, pos, isl_val_copy(v));
		mv = v ? isl_multi_val_set_at(mv, (int)j, v)
		       : isl_multi_val_free(mv);
	}
	isl_basic_set_free(b);
	return mv ? mv_keep(mv, 0, q->n_sym, best) : -1;
}

/* Return a copy of basic set "i" of the query "q", taken from "l" (the
 * basic sets of its set) when not NULL, else from its pieces. */
static isl_basic_set *
query_bset(struct query *q, isl_basic_set_list *l, isl_size i)
{
	return l ? isl_basic_set_list_get_at(l, i)
	         : isl_basic_set_copy(q->piece[i]);
}

/* Return the symbol values, in the order of the symbols of the query "q",
 * of the point "mv" (taken) of its set. */
static isl_multi_val *
mv_symbols(struct query *q, isl_multi_val *mv)
{
	isl_space *space =
	    isl_space_set_alloc(q->p->isl, 0, (unsigned)q->n_sym);
	isl_multi_val *r = isl_multi_val_zero(space);

	for (size_t j = 0; j < q->n_sym; j++)
		r = isl_multi_val_set_at(r, (int)j,
		    isl_multi_val_get_at(mv, (int)q->sym_pos[j]));
	isl_multi_val_free(mv);
	return r;
}

/* Set "*best" (NULL on entry, and when the set is empty) to the
 * lexicographically smallest symbol values of the set of the query "q",
 * built without abstraction: every dimension that is not a symbol is a
 * function of the symbols before it, so the lexicographic minimum of the
 * whole set has them. ISL's parametric method finds it fast but can blow
 * up (coefficients grow while each step counts as one operation): it gets
 * LEXMIN_OPS operations per basic set, and when that runs out the symbols
 * are minimised one at a time. What follows gets a fresh budget. Return 0
 * or -1. */
static int
query_lexmin(struct query *q, isl_multi_val **best)
{
	isl_ctx *isl = q->p->isl;
	size_t total = q->own_base + q->own.n_dim;
	isl_basic_set_list *l =
	    q->set ? isl_set_get_basic_set_list(q->set) : NULL;
	isl_size n = l ? isl_basic_set_list_size(l) : (isl_size)q->n_piece;
	isl_multi_val *full = NULL;
	int r = n < 0 ? -1 : 0, quota;

	for (isl_size i = 0; i < n && r == 0; i++) {
		budget_cap(q->ctx, q->p, LEXMIN_OPS);
		r = lexopt_keep(query_bset(q, l, i), 0, total, &full);
	}
	quota = r < 0 && n >= 0 && isl_ctx_last_error(isl) == isl_error_quota;
	if (r == 0 || quota)
		budget_reset(q->ctx, q->p);
	if (r == 0 && full) {
		*best = mv_symbols(q, full);
		r = *best ? 0 : -1;
	} else {
		isl_multi_val_free(full);
	}
	if (quota) {
		r = 0;
		for (isl_size i = 0; i < n && r == 0; i++)
			r = symmin_keep(q, query_bset(q, l, i), best);
	}
	isl_basic_set_list_free(l);
	return r;
}

/* Look for a witness in the set of the query "q" built without
 * abstraction, where every point is genuine and every dimension that is
 * not a symbol is a function of the symbols before it: the lexicographic
 * minimum of the whole set is the smallest binding. Check it with "check"
 * and "user"; return as search_result, or SYM_TRUE with "*out" NULL when
 * the set is empty. */
static sym_answer
search_exact(struct query *q, check_fn check, void *user, sym_binding **out)
{
	struct search s = { q, check, user, NULL, 0, 0, 0 };
	isl_multi_val *best = NULL;

	*out = NULL;
	if (query_lexmin(q, &best) < 0)
		s.failed = 1;
	else if (!best)
		return SYM_TRUE;
	else
		search_try(&s, mv_point(q->p->isl, best, q->n_sym), 1);
	isl_multi_val_free(best);
	return search_result(&s, out);
}

/* Return the answer for a witness search of the query "q" that gave "a"
 * (see search) with no binding accepted: SYM_FALSE (rejected candidates)
 * means UNKNOWN when "q" is abstracted, and a bug otherwise, reported as
 * SYM_EINTERNAL: every point of an exact set is genuine. */
static sym_answer
search_failed(struct query *q, sym_answer a)
{
	if (a != SYM_FALSE)
		return a;
	if (q->abstracted)
		return SYM_UNKNOWN;
	sym__error(q->ctx, SYM_EINTERNAL, NULL,
	    "exact tier: a point of an exact set fails verification");
	return SYM_ERROR;
}

/* Decide "claim" from the set of the query "q" by a witness search:
 * SYM_TRUE when the set is empty (only "exact" searches tell), SYM_FALSE
 * with "*witness" (if not NULL) set to a verified counterexample, or
 * SYM_UNKNOWN / SYM_ERROR. */
static sym_answer
refute(struct query *q, const struct sym__claim *claim, sym_binding **witness)
{
	sym_binding *b = NULL;
	isl_set *set = q->abstracted ? query_set(q) : NULL;
	sym_answer a;

	if (!q->abstracted)
		a = search_exact(q, check_claim, (void *)claim, &b);
	else if (set)
		a = search(q, set, check_claim, (void *)claim, &b);
	else
		a = isl_failure(q->ctx, q->p->isl);
	if (a != SYM_TRUE)
		return search_failed(q, a);
	if (!b)
		return SYM_TRUE;
	if (witness)
		*witness = b;
	else
		sym_binding_free(b);
	return SYM_FALSE;
}

/* Decide "claim" in "ctx" with the exact tier (see prove_private.h); on
 * SYM_FALSE, "*witness" (when "witness" is not NULL) is the verified
 * counterexample. The set searched is declarations and facts and the
 * negation of the claim. When a witness is wanted from an exact set, its
 * lexicographic minimum tells emptiness too; without witnesses
 * (ctx->opt_witness 0) an exact set answers FALSE from non-emptiness. */
sym_answer
sym__isl_prove(sym_ctx *ctx, const struct sym__claim *claim,
    sym_binding **witness)
{
	struct query q;
	struct tr tr;
	sym_answer a;
	isl_bool empty;

	if (witness)
		*witness = NULL;
	if (!ctx || !claim || !claim->e)
		return SYM_ERROR;
	a = query_open(&q, ctx, claim->e);
	if (a == SYM_TRUE) {
		query_tr(&q, &tr);
		tr_rel(&tr, claim->rel, claim->e, claim->k, 1);
		a = query_build(&q, &tr);
	}
	if (a == SYM_TRUE && !q.abstracted && ctx->opt_witness) {
		a = refute(&q, claim, witness);
	} else if (a == SYM_TRUE) {
		empty = query_is_empty(&q);
		if (empty < 0)
			a = isl_failure(ctx, q.p->isl);
		else if (!empty && q.abstracted)
			a = refute(&q, claim, witness);
		else if (!empty)
			a = SYM_FALSE;
	}
	query_clear(&q);
	return a;
}

/* Return "v" (kept, an integer) as an internal reference to a constant of
 * "ctx", also stored in "n"; NULL on failure. */
static sym_expr *
val_expr(sym_ctx *ctx, isl_val *v, sym__num *n)
{
	mpz_t z;

	mpz_init(z);
	if (isl_val_get_num_gmp(v, z) < 0) {
		mpz_clear(z);
		return NULL;
	}
	sym__num_set_mpz(n, z);
	mpz_clear(z);
	return sym__const_num(ctx, n);
}

/* Add to the query "q" a dimension x == "e" and build its set. Return
 * SYM_TRUE with x in "*x", or SYM_UNKNOWN / SYM_ERROR. */
static sym_answer
query_value(struct query *q, sym_expr *e, size_t *x)
{
	struct tr tr;
	struct lin l;

	memset(&l, 0, sizeof(l));
	query_tr(q, &tr);
	if (sym__expr_foreach_atom(e, tr_symbol_cb, &tr) != 0 ||
	    tr_poly(&tr, e, &l) < 0)
		tr.err = 1;
	*x = new_dim(&tr, DIM_AUX, NULL);
	if (!tr.err && lin_add_si(q->ctx, &l, *x, -1) < 0)
		tr.err = 1;
	tr_row(&tr, &l, 1);
	return query_build(q, &tr);
}

/* Return the answer for the optimum "v" (kept) of the dimension "x" of
 * the query "q" over "e", minimum or maximum ("want_max"), with "*value"
 * set to it when finite. */
static sym_answer
bound_answer(struct query *q, sym_expr *e, size_t x, int want_max, isl_val *v,
    sym_expr **value)
{
	struct target t = { e, SYM__NUM_ZERO };
	sym_binding *b = NULL;
	isl_set *at;
	sym_answer a;

	/* the minimum of an empty set is +infinity, its maximum -infinity */
	if (isl_val_is_nan(v) ||
	    (want_max ? isl_val_is_neginfty(v) : isl_val_is_infty(v)))
		return SYM_UNKNOWN;
	if (isl_val_is_infty(v) || isl_val_is_neginfty(v))
		return q->abstracted ? SYM_UNKNOWN : SYM_TRUE;
	*value = val_expr(q->ctx, v, &t.v);
	if (!*value) {
		sym__num_clear(&t.v);
		return SYM_ERROR;
	}
	if (!q->abstracted) {
		sym__num_clear(&t.v);
		return SYM_TRUE;
	}
	at = isl_set_fix_val(isl_set_copy(query_set(q)), isl_dim_set,
	    (unsigned)x, isl_val_copy(v));
	a = at ? search(q, at, check_value, &t, &b)
	       : isl_failure(q->ctx, q->p->isl);
	isl_set_free(at);
	sym_binding_free(b);
	sym__num_clear(&t.v);
	return a == SYM_FALSE ? SYM_UNKNOWN : a;
}

/* Return the minimum ("want_max" 0) or maximum of dimension "x" over the
 * set of the query "q", NaN when it is empty, or NULL on an ISL failure.
 * The basic sets are taken one at a time and the empty ones skipped:
 * isl_set_dim_min_val (ISL 0.25) answers 0 for a union in which some
 * basic set is rationally but not integrally non-empty. */
static isl_val *
query_dim_opt(struct query *q, size_t x, int want_max)
{
	isl_basic_set_list *l =
	    q->set ? isl_set_get_basic_set_list(q->set) : NULL;
	isl_size n = q->set ? isl_basic_set_list_size(l) : (isl_size)q->n_piece;
	isl_val *best = isl_val_nan(q->p->isl);

	for (isl_size i = 0; i < n && best; i++) {
		isl_basic_set *b = l ? isl_basic_set_list_get_at(l, i)
		                     : isl_basic_set_copy(q->piece[(size_t)i]);
		isl_bool e = isl_basic_set_is_empty(b);
		isl_set *set =
		    e == isl_bool_false ? isl_set_from_basic_set(b) : NULL;
		isl_val *v = NULL;

		if (e != isl_bool_false)
			isl_basic_set_free(b);
		if (e < 0) {
			best = isl_val_free(best);
			break;
		}
		if (!set)
			continue;
		v = want_max ? isl_set_dim_max_val(set, (int)x)
		             : isl_set_dim_min_val(set, (int)x);
		if (!v || isl_val_is_nan(best) ||
		    (want_max ? isl_val_gt(v, best) : isl_val_lt(v, best))) {
			isl_val_free(best);
			best = v;
		} else {
			isl_val_free(v);
		}
	}
	isl_basic_set_list_free(l);
	return n < 0 ? isl_val_free(best) : best;
}

/* Compute the minimum ("want_max" 0) or maximum of "e" with the exact tier
 * (see prove_private.h). When no admissible binding exists at all, the
 * answer is SYM_UNKNOWN with "*value" NULL: the caller decides what an
 * empty context means. */
sym_answer
sym__isl_bound(sym_ctx *ctx, sym_expr *e, int want_max, sym_expr **value)
{
	struct query q;
	isl_val *v = NULL;
	size_t x = 0;
	sym_answer a;

	*value = NULL;
	if (!ctx || !e)
		return SYM_ERROR;
	a = query_open(&q, ctx, e);
	if (a == SYM_TRUE)
		a = query_value(&q, e, &x);
	if (a == SYM_TRUE) {
		v = query_dim_opt(&q, x, want_max);
		a = v ? bound_answer(&q, e, x, want_max, v, value)
		      : isl_failure(ctx, q.p->isl);
	}
	if (a == SYM_ERROR) {
		sym__expr_unref(*value);
		*value = NULL;
	}
	isl_val_free(v);
	query_clear(&q);
	return a;
}

/* Decide with the exact tier whether the declarations and the facts in
 * scope of "ctx" admit a binding (see prove_private.h); on SYM_TRUE,
 * "*witness" (when "witness" is not NULL) is a verified one, the
 * lexicographic minimum. Without "witness", an exact set answers TRUE
 * from non-emptiness alone. */
sym_answer
sym__isl_satisfiable(sym_ctx *ctx, sym_binding **witness)
{
	struct query q;
	struct tr tr;
	sym_binding *b = NULL;
	sym_answer a;
	isl_bool empty;

	if (witness)
		*witness = NULL;
	if (!ctx)
		return SYM_ERROR;
	a = query_open(&q, ctx, NULL);
	if (a == SYM_TRUE) {
		query_tr(&q, &tr);
		a = query_build(&q, &tr);
	}
	if (a == SYM_TRUE && !q.abstracted && witness) {
		a = search_failed(&q,
		    search_exact(&q, check_admissible, NULL, &b));
		if (a == SYM_TRUE && !b)
			a = SYM_FALSE;
	} else if (a == SYM_TRUE) {
		empty = query_is_empty(&q);
		if (empty == isl_bool_true)
			a = SYM_FALSE;
		else if (empty < 0 || (q.abstracted && !query_set(&q)))
			a = isl_failure(ctx, q.p->isl);
		else if (q.abstracted)
			a = search_failed(&q,
			    search(&q, q.set, check_admissible, NULL, &b));
	}
	if (witness && a == SYM_TRUE)
		*witness = b;
	else
		sym_binding_free(b);
	query_clear(&q);
	return a;
}
