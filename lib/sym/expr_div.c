/* SPDX-License-Identifier: MIT */
/*
 * Floordiv and mod. By a positive constant: the coefficients split by the
 * divisor, common factors, residues the declarations fix and nested
 * divisions simplified; by an expression: exact quotients and bounded
 * cases, else the operation kept as an atom.
 */
#include <stdlib.h>

#include "sym/expr_private.h"

/* Split "a" into "q" and "r" with a = k*q + r: every coefficient and the
 * constant of "r" lie in [0, k). */
static void
split_mod(const sym_expr *a, const sym__num *k, struct sym__pb *q,
    struct sym__pb *r)
{
	sym__num cq = SYM__NUM_ZERO, cr = SYM__NUM_ZERO;

	for (uint32_t i = 0; i < a->u.poly.n; i++) {
		const struct sym__term *t = &a->u.poly.t[i];

		sym__num_fdiv_q(&cq, &t->coef, k);
		sym__num_fdiv_r(&cr, &t->coef, k);
		if (sym__num_sgn(&cq))
			sym__pb_push(q, &cq, t->n, t->f);
		if (sym__num_sgn(&cr))
			sym__pb_push(r, &cr, t->n, t->f);
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
	struct sym__pb pb;
	sym__num c = SYM__NUM_ZERO;

	sym__pb_init(&pb, r->ctx);
	for (uint32_t i = 0; i < r->u.poly.n; i++) {
		sym__num_divexact(&c, &r->u.poly.t[i].coef, g);
		sym__pb_push(&pb, &c, r->u.poly.t[i].n, r->u.poly.t[i].f);
	}
	sym__num_fdiv_q(&pb.c, &r->u.poly.c, g);
	sym__num_fdiv_r(t, &r->u.poly.c, g);
	sym__num_clear(&c);
	return sym__pb_finish(&pb);
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

/* The working state of fdiv_const() and mod_const(): "a" split as
 * k*qe + re, the gcd "g" and rest "t" of reduce_by_gcd() and the partial
 * result "inner", all owned. */
struct divwork {
	sym_expr *qe, *re, *inner;
	sym__num g, t;
};

/* Split "a" by "k" into "w", w->qe only when "want_q"; return 0, or -1
 * when a part could not be built (divwork_end() still frees "w"). */
static int
divwork_start(struct divwork *w, const sym_expr *a, const sym__num *k,
    int want_q)
{
	const sym__num zero = SYM__NUM_ZERO;
	struct sym__pb q, r;

	w->inner = NULL;
	w->g = zero;
	w->t = zero;
	sym__pb_init(&q, a->ctx);
	sym__pb_init(&r, a->ctx);
	split_mod(a, k, &q, &r);
	if (want_q) {
		w->qe = sym__pb_finish(&q);
	} else {
		sym__pb_clear(&q);
		w->qe = NULL;
	}
	w->re = sym__pb_finish(&r);
	return w->re && (w->qe || !want_q) ? 0 : -1;
}

/* Free the state "w" and return "res". */
static sym_expr *
divwork_end(struct divwork *w, sym_expr *res)
{
	sym__expr_unref(w->inner);
	sym__expr_unref(w->qe);
	sym__expr_unref(w->re);
	sym__num_clear(&w->g);
	sym__num_clear(&w->t);
	return res;
}

/* Return the atom of "r" when r is that atom plus a constant, else NULL. */
static struct sym_expr *
lone_atom(const sym_expr *r)
{
	if (r->u.poly.n != 1 || sym__num_cmp_si(&r->u.poly.t[0].coef, 1) != 0)
		return NULL;
	return sym__term_atom(&r->u.poly.t[0]);
}

/* Return an internal reference to "r" floordiv or mod ("kind") the
 * constant "k", kept as an atom. */
static sym_expr *
kept_atom(enum sym__kind kind, sym_expr *r, const sym__num *k)
{
	sym_expr *ke = sym__const_num(r->ctx, k), *res;

	res = ke ? sym__atom_expr(r->ctx, kind, NULL, r, ke) : NULL;
	sym__expr_unref(ke);
	return res;
}

/* Return an internal reference to "a" floordiv the constant "k" > 0. */
static sym_expr *
fdiv_const(sym_expr *a, const sym__num *k)
{
	struct divwork w;
	struct sym_expr *atom;
	int64_t kk, j;
	int ok;

	if (sym__num_cmp_si(k, 1) == 0)
		return sym__expr_ref(a);
	if (divwork_start(&w, a, k, 1) < 0)
		return divwork_end(&w, NULL);
	if (w.re->u.poly.n == 0)
		return divwork_end(&w, sym__expr_ref(w.qe));
	if (!reduced_mod(w.re, k)) {
		/* a rewriting rule moved a coefficient out of [0, k) */
		w.inner = fdiv_const(w.re, k);
		return divwork_end(&w,
		    w.inner ? sym__add(w.qe, w.inner) : NULL);
	}
	coef_gcd(&w.g, w.re, k);
	if (sym__num_cmp_si(&w.g, 1) > 0) {
		sym__num k2 = SYM__NUM_ZERO;
		sym_expr *y = reduce_by_gcd(w.re, &w.g, &w.t);

		sym__num_divexact(&k2, k, &w.g);
		w.inner = y ? fdiv_const(y, &k2) : NULL;
		sym__num_clear(&k2);
		sym__expr_unref(y);
		return divwork_end(&w, sym__add(w.qe, w.inner));
	}
	if (sym__num_fits(k, &kk)) {
		j = same_period(w.re->av, kk, &ok);
		if (ok)
			return divwork_end(&w, sym__add_si(w.qe, j));
		if (!w.re->av.empty && w.re->av.m != 0 &&
		    w.re->av.m % kk == 0 && w.re->av.r % kk != 0) {
			/* r = r0 (mod k) throughout, 0 < r0 < k: floor(r / k)
			 * is (r - r0) / k, which is floor((r - r0) / k). */
			sym_expr *off = sym__const(a->ctx, -(w.re->av.r % kk));
			sym_expr *z = off ? sym__add(w.re, off) : NULL;

			sym__expr_unref(off);
			w.inner = z ? fdiv_const(z, k) : NULL;
			sym__expr_unref(z);
			return divwork_end(&w,
			    w.inner ? sym__add(w.qe, w.inner) : NULL);
		}
	}
	atom = lone_atom(w.re);
	if (atom && atom->kind == SYM__FDIV && sym__atom_const_divisor(atom)) {
		/* (x floordiv k2 + c) floordiv k = (x + c*k2) floordiv k*k2 */
		const sym__num *k2 = sym__atom_const_divisor(atom);
		sym__num kk2 = SYM__NUM_ZERO, ck = SYM__NUM_ZERO;
		sym_expr *x;

		sym__num_mul(&kk2, k, k2);
		sym__num_mul(&ck, &w.re->u.poly.c, k2);
		x = sym__const_num(a->ctx, &ck);
		w.inner = x ? sym__add(atom->u.bin.a, x) : NULL;
		sym__expr_unref(x);
		x = w.inner ? fdiv_const(w.inner, &kk2) : NULL;
		sym__expr_unref(w.inner);
		w.inner = x;
		sym__num_clear(&kk2);
		sym__num_clear(&ck);
		return divwork_end(&w, sym__add(w.qe, w.inner));
	}
	w.inner = kept_atom(SYM__FDIV, w.re, k);
	return divwork_end(&w, sym__add(w.qe, w.inner));
}

/* Return an internal reference to "a" mod the constant "k" > 0. */
static sym_expr *
mod_const(sym_expr *a, const sym__num *k)
{
	struct divwork w;
	struct sym_expr *atom;
	int64_t kk, j;
	int ok;

	if (sym__num_cmp_si(k, 1) == 0)
		return sym__const(a->ctx, 0);
	if (divwork_start(&w, a, k, 0) < 0)
		return divwork_end(&w, NULL);
	if (w.re->u.poly.n == 0)
		return divwork_end(&w, sym__expr_ref(w.re));
	if (!reduced_mod(w.re, k))
		return divwork_end(&w, mod_const(w.re, k));
	coef_gcd(&w.g, w.re, k);
	if (sym__num_cmp_si(&w.g, 1) > 0) {
		sym__num k2 = SYM__NUM_ZERO;
		sym_expr *y = reduce_by_gcd(w.re, &w.g, &w.t), *m;

		sym__num_divexact(&k2, k, &w.g);
		m = y ? mod_const(y, &k2) : NULL;
		w.inner = m ? sym__scale_num(m, &w.g) : NULL;
		sym__expr_unref(m);
		sym__num_clear(&k2);
		sym__expr_unref(y);
		w.qe = sym__const_num(a->ctx, &w.t);
		return divwork_end(&w, sym__add(w.inner, w.qe));
	}
	if (sym__num_fits(k, &kk)) {
		if (w.re->av.m != 0 && !w.re->av.empty && w.re->av.m % kk == 0)
			return divwork_end(&w,
			    sym__const(a->ctx, w.re->av.r % kk));
		j = same_period(w.re->av, kk, &ok);
		if (ok) {
			sym__num nj = SYM__NUM_ZERO, jk = SYM__NUM_ZERO;

			nj.small = -j;
			sym__num_mul(&jk, &nj, k);
			w.qe = sym__const_num(a->ctx, &jk);
			sym__num_clear(&jk);
			return divwork_end(&w, sym__add(w.re, w.qe));
		}
	}
	atom = lone_atom(w.re);
	if (atom && atom->kind == SYM__MOD && sym__atom_const_divisor(atom) &&
	    sym__num_divisible(sym__atom_const_divisor(atom), k)) {
		/* ((x mod k2) + c) mod k = (x + c) mod k when k | k2 */
		w.qe = sym__const_num(a->ctx, &w.re->u.poly.c);
		w.inner = w.qe ? sym__add(atom->u.bin.a, w.qe) : NULL;
		return divwork_end(&w, w.inner ? mod_const(w.inner, k) : NULL);
	}
	return divwork_end(&w, kept_atom(SYM__MOD, w.re, k));
}

/* Return the exact quotient "a" / "b" when "b" is a single term c*M and
 * every term of "a" is a multiple of it (constant of "a" zero), else
 * NULL without error. */
static sym_expr *
exact_quotient(sym_expr *a, sym_expr *b)
{
	const struct sym__term *d;
	struct sym__pb pb;
	sym__num c = SYM__NUM_ZERO;

	if (b->u.poly.n != 1 || sym__num_sgn(&b->u.poly.c) != 0 ||
	    sym__num_sgn(&a->u.poly.c) != 0 || a->u.poly.n == 0)
		return NULL;
	d = &b->u.poly.t[0];
	sym__pb_init(&pb, a->ctx);
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
		sym__pb_push(&pb, &c, n, f);
		free(f);
	}
	sym__num_clear(&c);
	if (pb.err) {
		sym__pb_clear(&pb);
		return NULL;
	}
	return sym__pb_finish(&pb);
}

/* Return an internal reference to "a" floordiv "b" (borrowed); "b" must be
 * positive: a non-positive constant divisor is an error. */
static sym_expr *
div_or_mod(sym_expr *a, sym_expr *b, enum sym__kind kind)
{
	const sym__num *k;
	sym_expr *q;

	if (!a || !b || !sym__expr_same_ctx(a, b))
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
		return sym__atom_expr(a->ctx, kind, NULL, a, b);
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
	return sym__atom_expr(a->ctx, kind, NULL, a, b);
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
