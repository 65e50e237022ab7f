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

/* Return an internal reference to "a" floordiv the constant "k" > 0. */
static sym_expr *
fdiv_const(sym_expr *a, const sym__num *k)
{
	sym_ctx *ctx = a->ctx;
	struct sym__pb q, r;
	sym_expr *qe, *re, *res = NULL, *inner = NULL;
	sym__num g = SYM__NUM_ZERO, t = SYM__NUM_ZERO;
	struct sym_expr *atom;
	int64_t kk, j;
	int ok;

	if (sym__num_cmp_si(k, 1) == 0)
		return sym__expr_ref(a);
	sym__pb_init(&q, ctx);
	sym__pb_init(&r, ctx);
	split_mod(a, k, &q, &r);
	qe = sym__pb_finish(&q);
	re = sym__pb_finish(&r);
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
	    ? sym__term_atom(&re->u.poly.t[0])
	    : NULL;
	if (atom && atom->kind == SYM__FDIV && sym__atom_const_divisor(atom)) {
		/* (x floordiv k2 + c) floordiv k = (x + c*k2) floordiv k*k2 */
		const sym__num *k2 = sym__atom_const_divisor(atom);
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
		    ke ? sym__atom_get(ctx, SYM__FDIV, NULL, re, ke) : NULL;

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
	struct sym__pb q, r;
	sym_expr *qe, *re, *res = NULL, *inner = NULL;
	sym__num g = SYM__NUM_ZERO, t = SYM__NUM_ZERO;
	struct sym_expr *atom;
	int64_t kk, j;
	int ok;

	if (sym__num_cmp_si(k, 1) == 0)
		return sym__const(ctx, 0);
	sym__pb_init(&q, ctx);
	sym__pb_init(&r, ctx);
	split_mod(a, k, &q, &r);
	sym__pb_clear(&q);
	re = sym__pb_finish(&r);
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
		inner = m ? sym__scale_num(m, &g) : NULL;
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
	    ? sym__term_atom(&re->u.poly.t[0])
	    : NULL;
	if (atom && atom->kind == SYM__MOD && sym__atom_const_divisor(atom) &&
	    sym__num_divisible(sym__atom_const_divisor(atom), k)) {
		/* ((x mod k2) + c) mod k = (x + c) mod k when k | k2 */
		qe = sym__const_num(ctx, &re->u.poly.c);
		inner = qe ? sym__add(atom->u.bin.a, qe) : NULL;
		res = inner ? mod_const(inner, k) : NULL;
		goto done;
	}
	{
		sym_expr *ke = sym__const_num(ctx, k);
		struct sym_expr *at =
		    ke ? sym__atom_get(ctx, SYM__MOD, NULL, re, ke) : NULL;

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
	struct sym_expr *at;
	sym_expr *q, *res;

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
		at = sym__atom_get(a->ctx, kind, NULL, a, b);
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
	at = sym__atom_get(a->ctx, kind, NULL, a, b);
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
