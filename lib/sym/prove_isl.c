/* SPDX-License-Identifier: MIT */
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
 *
 * Files. The entry points are here; isl_translate.c turns expressions and
 * relations into linear forms over the dimensions of a block and those
 * into ISL sets; isl_cache.c keeps the prover of a context (its ISL
 * context and operation budget) and the sets of the components;
 * isl_query.c builds the set of a query; isl_witness.c searches it for
 * verified bindings. prove_isl_private.h is what they share.
 */
#include <isl/val_gmp.h>

#include "sym/prove_isl_private.h"

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
	a = sym__isl_query_open(&q, ctx, claim->e);
	if (a == SYM_TRUE) {
		sym__isl_query_tr(&q, &tr);
		sym__isl_tr_rel(&tr, claim->rel, claim->e, claim->k, 1);
		a = sym__isl_query_build(&q, &tr);
	}
	if (a == SYM_TRUE && !q.abstracted && ctx->opt_witness) {
		a = sym__isl_refute(&q, claim, witness);
	} else if (a == SYM_TRUE) {
		empty = sym__isl_query_is_empty(&q);
		if (empty < 0)
			a = sym__isl_failure(ctx, q.p->isl);
		else if (!empty && q.abstracted)
			a = sym__isl_refute(&q, claim, witness);
		else if (!empty)
			a = SYM_FALSE;
	}
	sym__isl_query_clear(&q);
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
	at = isl_set_fix_val(isl_set_copy(sym__isl_query_set(q)), isl_dim_set,
	    (unsigned)x, isl_val_copy(v));
	a = at ? sym__isl_search(q, at, sym__isl_check_value, &t, &b)
	       : sym__isl_failure(q->ctx, q->p->isl);
	isl_set_free(at);
	sym_binding_free(b);
	sym__num_clear(&t.v);
	return a == SYM_FALSE ? SYM_UNKNOWN : a;
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
	a = sym__isl_query_open(&q, ctx, e);
	if (a == SYM_TRUE)
		a = sym__isl_query_value(&q, e, &x);
	if (a == SYM_TRUE) {
		v = sym__isl_query_dim_opt(&q, x, want_max);
		a = v ? bound_answer(&q, e, x, want_max, v, value)
		      : sym__isl_failure(ctx, q.p->isl);
	}
	if (a == SYM_ERROR) {
		sym__expr_unref(*value);
		*value = NULL;
	}
	isl_val_free(v);
	sym__isl_query_clear(&q);
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
	a = sym__isl_query_open(&q, ctx, NULL);
	if (a == SYM_TRUE) {
		sym__isl_query_tr(&q, &tr);
		a = sym__isl_query_build(&q, &tr);
	}
	if (a == SYM_TRUE && !q.abstracted && witness) {
		a = sym__isl_search_failed(&q,
		    sym__isl_search_exact(&q, sym__isl_check_admissible, NULL,
		        &b));
		if (a == SYM_TRUE && !b)
			a = SYM_FALSE;
	} else if (a == SYM_TRUE) {
		empty = sym__isl_query_is_empty(&q);
		if (empty == isl_bool_true)
			a = SYM_FALSE;
		else if (empty < 0 || (q.abstracted && !sym__isl_query_set(&q)))
			a = sym__isl_failure(ctx, q.p->isl);
		else if (q.abstracted)
			a = sym__isl_search_failed(&q,
			    sym__isl_search(&q, q.set,
			        sym__isl_check_admissible, NULL, &b));
	}
	if (witness && a == SYM_TRUE)
		*witness = b;
	else
		sym_binding_free(b);
	sym__isl_query_clear(&q);
	return a;
}
