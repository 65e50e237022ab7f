/* SPDX-License-Identifier: MIT */
/*
 * The prover's front end: tier 0 (abstract values and a small witness
 * search), dispatch to the exact tier, witness checking, bounds and
 * simplification under the context.
 */
#include <stdlib.h>
#include <string.h>

#include "sym/prove_private.h"

/* The most symbols tier 0 enumerates when it looks for a witness, and the
 * most candidate bindings it evaluates. */
#define T0_MAX_SYMS 3
#define T0_MAX_EVALS 64

/* Return the text of "op": "==", "!=", "<=", "<", ">=", ">". */
const char *
sym_cmp_name(sym_cmp op)
{
	static const char *name[] = { "==", "!=", "<=", "<", ">=", ">" };

	return (unsigned)op < 6 ? name[op] : "?";
}

/* Return which tier settled the last query of "ctx". */
sym_tier
sym_prove_last_tier(const sym_ctx *ctx)
{
	return ctx ? ctx->last_tier : SYM_TIER_NONE;
}

/* 1 when "claim" holds at "b", 0 when not, -1 on evaluation error. */
int
sym__claim_holds(sym_ctx *ctx, const struct sym__claim *claim,
    const sym_binding *b)
{
	int64_t v;

	(void)ctx;
	if (sym_expr_eval(claim->e, b, &v) < 0)
		return -1;
	return sym__rel_holds(claim->rel, v, claim->k);
}

/* Check "b" against the declarations of the symbols it binds and against
 * every fact of "ctx" whose symbols it binds. A fact with some but not
 * all of its symbols bound counts as violated (the binding cannot show it
 * holds). Return 1 when admissible, 0 when not (recording why when
 * "record" is set), -1 on error. */
static int
check_binding(sym_ctx *ctx, const sym_binding *b, int record)
{
	size_t nb = sym_binding_n_symbols(b);

	for (size_t i = 0; i < nb; i++) {
		sym_symbol *s = sym_binding_symbol(b, i);

		if (!sym_symbol_admits(s, sym_binding_value(b, i))) {
			if (record) {
				char *why = sym_symbol_explain(s,
				    sym_binding_value(b, i));

				sym__error(ctx, SYM_EDOMAIN, &s->origin->loc,
				    "%s", why ? why : "value not admissible");
				free(why);
			}
			return 0;
		}
	}
	for (size_t i = 0; i < ctx->n_fact; i++) {
		struct sym__fact *f = &ctx->fact[i];
		sym_symbol *fs[16], **all = fs;
		size_t n = sym_expr_symbols(f->e, fs, 16), bound = 0;
		int64_t v;

		if (n > 16) {
			all = sym__realloc_array(ctx, NULL, n, sizeof(*all));
			if (!all)
				return -1;
			sym_expr_symbols(f->e, all, n);
		}
		for (size_t j = 0; j < n; j++)
			bound += sym_binding_get(b, all[j], NULL) == 0;
		if (bound == 0) {
			if (all != fs)
				free(all);
			continue;
		}
		if (bound < n) {
			if (record)
				for (size_t j = 0; j < n; j++)
					if (sym_binding_get(b, all[j], NULL) <
					    0) {
						sym__error(ctx, SYM_EUNBOUND,
						    &f->loc,
						    "'%s' needs a "
						    "value for %s",
						    f->text, all[j]->name);
						break;
					}
			if (all != fs)
				free(all);
			return 0;
		}
		if (all != fs)
			free(all);
		if (sym_expr_eval(f->e, b, &v) < 0)
			return -1;
		if (!sym__rel_holds(f->rel, v, f->k)) {
			if (record) {
				char *bs = sym_binding_to_str(b);

				sym__error(ctx, SYM_EDOMAIN, &f->loc,
				    "%s violates '%s'", bs ? bs : "binding",
				    f->text);
				free(bs);
			}
			return 0;
		}
	}
	return 1;
}

/* 1 when "b" is admissible in "ctx" (see check_binding), 0, or -1. */
int
sym__binding_admissible(sym_ctx *ctx, const sym_binding *b)
{
	return check_binding(ctx, b, 0);
}

/* Check "b" as sym_binding_check does; 0 or -1 with the reason. */
int
sym__binding_check(sym_ctx *ctx, const sym_binding *b)
{
	int r = check_binding(ctx, b, 1);

	return r == 1 ? 0 : -1;
}

/* Return 1 when some fact in scope of "ctx" names one of the "n" symbols
 * of "syms". */
static int
facts_touch(sym_ctx *ctx, sym_symbol **syms, size_t n)
{
	(void)ctx;
	for (size_t j = 0; j < n; j++)
		if (syms[j]->n_facts)
			return 1;
	return 0;
}

/* Tier 0's verdict on "claim" from the abstract value of its expression:
 * 1 holds for every admissible binding, 0 fails for every one, -1 not
 * decided. */
static int
av_verdict(const struct sym__claim *claim)
{
	sym__av a = claim->e->av;
	int64_t g;

	if (a.empty)
		return -1;
	switch (claim->rel) {
	case SYM__REL_EQ:
	case SYM__REL_NE:
		if (sym__av_is_const(a, &g) && g == 0)
			return claim->rel == SYM__REL_EQ;
		if (!sym__av_contains(a, 0) &&
		    !(a.lo_inf && a.hi_inf && a.m == 1))
			return claim->rel == SYM__REL_NE;
		return -1;
	case SYM__REL_GE:
		if (!a.lo_inf && a.lo >= 0)
			return 1;
		if (!a.hi_inf && a.hi < 0)
			return 0;
		return -1;
	case SYM__REL_DIV:
		if (sym__av_divisible(a, claim->k))
			return 1;
		if (a.m == 0)
			return 0;
		g = sym__gcd64(a.m, claim->k);
		if (a.r % g != 0)
			return 0;
		return -1;
	}
	return -1;
}

/* Return the "i"-th candidate value of "s" for the witness search, or 0
 * when there is none (all admissible values are positive). */
static int64_t
candidate(const sym_symbol *s, int i)
{
	int64_t d = s->info.divisor, v;

	if (i == 3)
		return s->greatest;
	if (__builtin_mul_overflow(d, (int64_t)i, &v) ||
	    __builtin_add_overflow(v, s->least, &v))
		return 0;
	if (s->greatest && v > s->greatest)
		return 0;
	return v;
}

/* Return 1 when "claim" holds at the values "val" of the "n" symbols
 * "syms", 0 when not, -1 on evaluation error (cleared). */
static int
holds_at(sym_ctx *ctx, const struct sym__claim *claim, sym_symbol **syms,
    const int64_t *val, size_t n)
{
	int64_t v;

	(void)ctx;
	if (sym__expr_eval_vals(claim->e, syms, val, n, &v) < 0)
		return -1;
	return sym__rel_holds(claim->rel, v, claim->k);
}

/* Look for a binding of the "n" symbols "syms" (no fact names them) at
 * which "claim" fails, among a few small admissible values. Return 1 with
 * "*witness" set (when "witness" is not NULL), 0 when none was found, -1
 * on error. */
static int
t0_search(sym_ctx *ctx, const struct sym__claim *claim, sym_symbol **syms,
    size_t n, sym_binding **witness)
{
	int idx[T0_MAX_SYMS] = { 0 }, evals = 0;
	int64_t val[T0_MAX_SYMS];

	for (;;) {
		size_t j;
		int ok = 1;

		for (j = 0; j < n; j++) {
			val[j] = candidate(syms[j], idx[j]);
			ok &= val[j] != 0;
		}
		if (ok) {
			evals++;
			if (holds_at(ctx, claim, syms, val, n) == 0)
				break;
		}
		if (evals >= T0_MAX_EVALS)
			return 0;
		for (j = n; j-- > 0;) {
			if (++idx[j] < 4)
				break;
			idx[j] = 0;
		}
		if (j == (size_t)-1)
			return 0;
	}
	if (!witness)
		return 1;
	*witness = sym_binding_new(ctx);
	if (!*witness)
		return -1;
	for (size_t j = 0; j < n; j++)
		sym_binding_set(*witness, syms[j], val[j]);
	return 1;
}

/* Answer "claim" with tier 0 alone: SYM_TRUE, SYM_FALSE with a witness,
 * or SYM_UNKNOWN; SYM_ERROR on error. */
static sym_answer
tier0(sym_ctx *ctx, const struct sym__claim *claim, sym_binding **witness)
{
	sym_symbol *fs[T0_MAX_SYMS];
	size_t n;
	int v = av_verdict(claim), r;
	sym_binding *w = NULL;

	if (v == 1)
		return SYM_TRUE;
	n = sym__expr_symbols_upto(claim->e, fs, T0_MAX_SYMS);
	if (n > T0_MAX_SYMS || facts_touch(ctx, fs, n))
		return SYM_UNKNOWN;
	r = t0_search(ctx, claim, fs, n, witness ? &w : NULL);
	if (r < 0)
		return SYM_ERROR;
	if (r == 0)
		return SYM_UNKNOWN;
	if (witness)
		*witness = w;
	return SYM_FALSE;
}

/* Answer "claim" in "ctx" with the tiers enabled by its options. */
static sym_answer
prove(sym_ctx *ctx, const struct sym__claim *claim, sym_binding **witness)
{
	sym_answer a = SYM_UNKNOWN;

	if (witness)
		*witness = NULL;
	ctx->last_tier = SYM_TIER_NONE;
	if (!claim->e)
		return SYM_ERROR;
	if (ctx->opt_fast) {
		a = tier0(ctx, claim, witness);
		if (a != SYM_UNKNOWN) {
			ctx->last_tier = SYM_TIER_FAST;
			return a;
		}
	}
	if (ctx->opt_exact) {
		a = sym__isl_prove(ctx, claim, witness);
		if (a == SYM_TRUE || a == SYM_FALSE)
			ctx->last_tier = SYM_TIER_EXACT;
	}
	return a;
}

/* Decide whether "k" >= 1 divides "e" for every admissible binding of
 * "ctx". On SYM_FALSE, "*witness" (if "witness" is not NULL) is a binding
 * at which it does not. */
sym_answer
sym_prove_divisible(sym_ctx *ctx, const sym_expr *e, int64_t k,
    sym_binding **witness)
{
	struct sym__claim c = { SYM__REL_DIV, (sym_expr *)e, k };

	if (witness)
		*witness = NULL;
	if (!ctx || !e)
		return SYM_ERROR;
	if (k < 1) {
		sym__error(ctx, SYM_EINVAL, NULL,
		    "divisibility by %lld: the divisor must be at least 1",
		    (long long)k);
		return SYM_ERROR;
	}
	return prove(ctx, &c, witness);
}

/* Decide whether "lhs" "op" "rhs" holds for every admissible binding of
 * "ctx"; on SYM_FALSE "*witness" is a binding at which it does not. */
sym_answer
sym_prove_cmp(sym_ctx *ctx, const sym_expr *lhs, sym_cmp op,
    const sym_expr *rhs, sym_binding **witness)
{
	struct sym__claim c = { SYM__REL_GE, NULL, 0 };
	sym_answer a;

	if (witness)
		*witness = NULL;
	if (!ctx || !lhs || !rhs)
		return SYM_ERROR;
	switch (op) {
	case SYM_EQ:
	case SYM_NE:
		c.e = sym__lin((sym_expr *)lhs, 1, (sym_expr *)rhs, -1, 0);
		c.rel = op == SYM_EQ ? SYM__REL_EQ : SYM__REL_NE;
		break;
	case SYM_LE:
	case SYM_LT:
		c.e = sym__lin((sym_expr *)rhs, 1, (sym_expr *)lhs, -1,
		    op == SYM_LT ? -1 : 0);
		break;
	case SYM_GE:
	case SYM_GT:
		c.e = sym__lin((sym_expr *)lhs, 1, (sym_expr *)rhs, -1,
		    op == SYM_GT ? -1 : 0);
		break;
	default:
		sym__error(ctx, SYM_EINVAL, NULL, "invalid comparison %d",
		    (int)op);
		return SYM_ERROR;
	}
	a = prove(ctx, &c, witness);
	sym__expr_unref(c.e);
	return a;
}

/* Return 1 when "e" is a sum of constants times symbols only. */
static int
is_linear(const sym_expr *e)
{
	for (uint32_t i = 0; i < e->u.poly.n; i++) {
		const struct sym__term *t = &e->u.poly.t[i];

		if (t->n != 1 || t->f[0].exp != 1 ||
		    t->f[0].atom->kind != SYM__VAR)
			return 0;
	}
	return 1;
}

/* Return 1 when tier 0 can show that "e" (linear, no facts on its symbols)
 * is unbounded above ("up") or below. */
static int
t0_unbounded(const sym_expr *e, int up)
{
	if (!is_linear(e))
		return 0;
	for (uint32_t i = 0; i < e->u.poly.n; i++) {
		const struct sym__term *t = &e->u.poly.t[i];
		int pos = sym__num_sgn(&t->coef) > 0;

		if (t->f[0].atom->u.var->greatest == 0 && pos == up)
			return 1;
	}
	return 0;
}

/* Find which of "target"[0] and "target"[1] (those with "want" set) some
 * corner binding of the "n" symbols "syms" (least or greatest values)
 * makes "e" equal to: set "hit"[i] for each. */
static void
t0_attained(sym_expr *e, sym_symbol **syms, size_t n, const int64_t *target,
    const int *want, int *hit)
{
	int64_t val[T0_MAX_SYMS];

	for (unsigned mask = 0; mask < (1u << n); mask++) {
		int64_t v;
		int ok = 1;

		for (size_t j = 0; j < n; j++) {
			int hi = (mask >> j) & 1;

			if (hi && !syms[j]->greatest)
				ok = 0;
			val[j] = hi ? syms[j]->greatest : syms[j]->least;
		}
		if (!ok || sym__expr_eval_vals(e, syms, val, n, &v) < 0)
			continue;
		for (int i = 0; i < 2; i++)
			hit[i] |= want[i] && v == target[i];
		if ((hit[0] || !want[0]) && (hit[1] || !want[1]))
			return;
	}
}

/* Compute with tier 0 the bounds of "e" that "want" asks for ("want"[0]
 * the minimum, "want"[1] the maximum), in one pass: set "exact"[i] when
 * "value"[i] (an internal reference; NULL = unbounded) is exact. */
static void
t0_bounds(sym_ctx *ctx, sym_expr *e, const int *want, int *exact,
    sym_expr **value)
{
	sym_symbol *fs[T0_MAX_SYMS];
	size_t n = sym__expr_symbols_upto(e, fs, T0_MAX_SYMS);
	sym__av a = e->av;
	int64_t target[2] = { a.lo, a.hi };
	int finite[2] = { 0, 0 }, inf[2] = { a.lo_inf, a.hi_inf };

	exact[0] = exact[1] = 0;
	value[0] = value[1] = NULL;
	if (a.empty || n > T0_MAX_SYMS || facts_touch(ctx, fs, n))
		return;
	for (int up = 0; up < 2; up++) {
		if (want[up] && inf[up])
			exact[up] = t0_unbounded(e, up);
		finite[up] = want[up] && !inf[up];
	}
	if (!finite[0] && !finite[1])
		return;
	t0_attained(e, fs, n, target, finite, exact);
	for (int up = 0; up < 2; up++) {
		if (!finite[up] || !exact[up])
			continue;
		value[up] = sym__const(ctx, target[up]);
		exact[up] = value[up] != NULL;
	}
}

/* Compute the least ("*min") and greatest ("*max") values of "e" over the
 * admissible bindings of "ctx". Either pointer may be NULL. A NULL result
 * means unbounded on that side. Return SYM_TRUE when the requested bounds
 * are exact, SYM_UNKNOWN when some is only a sound bound (or none was
 * found), SYM_ERROR on error. */
sym_answer
sym_prove_bounds(sym_ctx *ctx, const sym_expr *e, sym_expr **min,
    sym_expr **max)
{
	sym_answer res = SYM_TRUE;
	sym_expr **out[2] = { min, max };
	int want[2] = { min != NULL, max != NULL }, t0[2] = { 0, 0 };
	sym_expr *t0v[2] = { NULL, NULL };

	if (min)
		*min = NULL;
	if (max)
		*max = NULL;
	if (!ctx || !e)
		return SYM_ERROR;
	ctx->last_tier = SYM_TIER_FAST;
	if (ctx->opt_fast)
		t0_bounds(ctx, (sym_expr *)e, want, t0, t0v);
	for (int up = 0; up < 2; up++) {
		sym_expr *v = NULL;
		sym_answer a = SYM_UNKNOWN;

		if (!out[up])
			continue;
		if (t0[up]) {
			a = SYM_TRUE;
			v = t0v[up];
			t0v[up] = NULL;
		} else if (ctx->opt_exact) {
			a = sym__isl_bound(ctx, (sym_expr *)e, up, &v);
			ctx->last_tier = SYM_TIER_EXACT;
		}
		if (a == SYM_ERROR) {
			sym__expr_unref(v);
			sym__expr_unref(t0v[1]);
			if (min)
				*min = sym_expr_free(*min);
			return SYM_ERROR;
		}
		if (a != SYM_TRUE)
			res = SYM_UNKNOWN;
		if (a == SYM_UNKNOWN && !v && ctx->opt_fast) {
			sym__av av = e->av;

			if (!av.empty && !(up ? av.hi_inf : av.lo_inf))
				v = sym__const(ctx, up ? av.hi : av.lo);
		}
		*out[up] = sym__expr_give(v);
	}
	return res;
}

/* Return the simplification of the atom "a" whose operands are already
 * simplified, as an internal reference. */
static sym_expr *
simplify_atom(sym_ctx *ctx, sym_expr *atom_poly)
{
	struct sym_expr *a = sym__poly_single_atom(atom_poly);
	sym_expr *lo = NULL, *hi = NULL;
	sym_answer r;

	if (!a)
		return sym__expr_ref(atom_poly);
	if (a->kind == SYM__MIN || a->kind == SYM__MAX) {
		r = sym_prove_cmp(ctx, a->u.bin.a, SYM_LE, a->u.bin.b, NULL);
		if (r == SYM_TRUE)
			return sym__expr_ref(a->kind == SYM__MIN ? a->u.bin.a
			                                         : a->u.bin.b);
		r = sym_prove_cmp(ctx, a->u.bin.b, SYM_LE, a->u.bin.a, NULL);
		if (r == SYM_TRUE)
			return sym__expr_ref(a->kind == SYM__MIN ? a->u.bin.b
			                                         : a->u.bin.a);
		return sym__expr_ref(atom_poly);
	}
	if (a->kind == SYM__VAR && a->u.var->greatest != a->u.var->least &&
	    !facts_touch(ctx, &a->u.var, 1))
		return sym__expr_ref(atom_poly);
	r = sym_prove_bounds(ctx, atom_poly, &lo, &hi);
	if (r == SYM_TRUE && lo && lo == hi) {
		sym_expr *c = sym__expr_ref(lo);

		sym_expr_free(lo);
		sym_expr_free(hi);
		return c;
	}
	sym_expr_free(lo);
	sym_expr_free(hi);
	if (r == SYM_ERROR)
		sym_ctx_clear_error(ctx);
	return sym__expr_ref(atom_poly);
}

/* Atom map of sym_prove_simplify: "rebuilt" simplified by the prover in the
 * context "user" (internal reference). */
static sym_expr *
simplify_map(struct sym_expr *atom, sym_expr *rebuilt, void *user)
{
	(void)atom;
	return simplify_atom(user, rebuilt);
}

/* Return "e" simplified under the facts in scope of "ctx": constant when
 * its bounds meet, min/max, floordiv and mod resolved where the prover
 * decides them. "e" is consumed. */
sym_expr *
sym_prove_simplify(sym_ctx *ctx, sym_expr *e)
{
	sym_expr *lo = NULL, *hi = NULL, *r;
	sym_tier tier;

	if (!ctx || !e) {
		sym_expr_free(e);
		return NULL;
	}
	if (sym_expr_is_const(e) == SYM_TRUE)
		return e;
	if (sym_prove_bounds(ctx, e, &lo, &hi) == SYM_TRUE && lo && lo == hi) {
		sym_expr_free(hi);
		sym_expr_free(e);
		return lo;
	}
	tier = ctx->last_tier;
	sym_expr_free(lo);
	sym_expr_free(hi);
	r = sym__expr_map(e, simplify_map, ctx);
	ctx->last_tier = tier;
	sym_expr_free(e);
	return sym__expr_give(r);
}
