/* SPDX-License-Identifier: MIT */
/*
 * Witness search for the exact tier (prove_isl.c, "Queries"): candidate
 * bindings taken from lexicographic optima of the set of a query, each
 * accepted only once evaluating the original expressions confirms it.
 */
#include <isl/aff.h>
#include <isl/ilp.h>
#include <isl/point.h>
#include <isl/space.h>

#include "sym/prove_isl_private.h"

/* Lexicographically smallest points tried as witnesses of an abstraction. */
#define N_LEXMIN 5
/* ISL operations for the parametric lexicographic minimum of an exact set
 * (a few hundred suffice for a query of a few symbols). */
#define LEXMIN_OPS 1000
/* ISL operations per dimension for the lexicographic minimum of a set
 * built without abstraction: the parametric method's steps grow with
 * the dimension (a chain of 500 relations needs far more than
 * LEXMIN_OPS), and the fallback, one integer program per symbol, costs
 * minutes there. */
#define LEXMIN_OPS_PER_DIM 400

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
enum verdict
sym__isl_check_admissible(sym_ctx *ctx, const sym_binding *b, void *user)
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
	enum verdict v = sym__isl_check_admissible(ctx, b, NULL);
	int r;

	if (v != V_ACCEPT)
		return v;
	r = sym__claim_holds(ctx, user, b);
	if (r < 0)
		return eval_failure(ctx);
	return r ? V_REJECT : V_ACCEPT;
}

/* check_fn: accept the binding "b" of "ctx" when it is admissible and
 * the expression of the target "user" takes its value there. */
enum verdict
sym__isl_check_value(sym_ctx *ctx, const sym_binding *b, void *user)
{
	struct target *t = user;
	enum verdict v = sym__isl_check_admissible(ctx, b, NULL);
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
		return sym__isl_failure(s->q->ctx, s->q->p->isl);
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
sym_answer
sym__isl_search(struct query *q, isl_set *set, check_fn check, void *user,
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
		sym__isl_budget_cap(q->ctx, q->p, LEXMIN_OPS);
		if (set_lexopt(proj, 0, prev, q->n_sym, &mv) < 0)
			s.failed = 1;
		else
			sym__isl_budget_reset(q->ctx, q->p);
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
		sym__isl_budget_cap(q->ctx, q->p, LEXMIN_OPS);
	if (bounded > 0 && set_lexopt(proj, 1, NULL, q->n_sym, &mv) < 0) {
		s.failed = 1;
	} else if (bounded > 0 && mv) {
		sym__isl_budget_reset(q->ctx, q->p);
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
 * LEXMIN_OPS_PER_DIM operations per dimension (at least LEXMIN_OPS) per
 * basic set, and when that runs out the symbols
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
	long ops = total > LEXMIN_OPS / LEXMIN_OPS_PER_DIM
	    ? (long)total * LEXMIN_OPS_PER_DIM
	    : LEXMIN_OPS;

	for (isl_size i = 0; i < n && r == 0; i++) {
		sym__isl_budget_cap(q->ctx, q->p, ops);
		r = lexopt_keep(query_bset(q, l, i), 0, total, &full);
	}
	quota = r < 0 && n >= 0 && isl_ctx_last_error(isl) == isl_error_quota;
	if (r == 0 || quota)
		sym__isl_budget_reset(q->ctx, q->p);
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
sym_answer
sym__isl_search_exact(struct query *q, check_fn check, void *user,
    sym_binding **out)
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
 * (see sym__isl_search) with no binding accepted: SYM_FALSE (rejected
 * candidates) means UNKNOWN when "q" is abstracted, and a bug otherwise,
 * reported as SYM_EINTERNAL: every point of an exact set is genuine. */
sym_answer
sym__isl_search_failed(struct query *q, sym_answer a)
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
sym_answer
sym__isl_refute(struct query *q, const struct sym__claim *claim,
    sym_binding **witness)
{
	sym_binding *b = NULL;
	isl_set *set = q->abstracted ? sym__isl_query_set(q) : NULL;
	sym_answer a;

	if (!q->abstracted)
		a = sym__isl_search_exact(q, check_claim, (void *)claim, &b);
	else if (set)
		a = sym__isl_search(q, set, check_claim, (void *)claim, &b);
	else
		a = sym__isl_failure(q->ctx, q->p->isl);
	if (a != SYM_TRUE)
		return sym__isl_search_failed(q, a);
	if (!b)
		return SYM_TRUE;
	if (witness)
		*witness = b;
	else
		sym_binding_free(b);
	return SYM_FALSE;
}
