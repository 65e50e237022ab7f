/* SPDX-License-Identifier: MIT */
/*
 * The exact tier's internals, shared by prove_isl.c (which describes the
 * whole) and isl_translate.c, isl_cache.c, isl_query.c, isl_witness.c.
 */
#ifndef SYM_SYM_PROVE_ISL_PRIVATE_H
#define SYM_SYM_PROVE_ISL_PRIVATE_H

#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/val.h>

#include "sym/prove_private.h"

/* Min/max atoms translated exactly per query (each doubles the pieces). */
#define MAX_MINMAX 6

/* No dimension (and no component). */
#define NO_DIM ((size_t)-1)

/* What a dimension of a block stands for. */
enum dim_kind {
	DIM_SYM,  /* key: sym_symbol */
	DIM_ATOM, /* key: an atom node */
	DIM_MONO, /* key: a struct sym__term of degree > 1 */
	DIM_AUX   /* no key: an existential */
};

/* A dimension of a block: what it stands for, and its key. */
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

/* The prover of a context (ctx->prover): its ISL context and the cache of
 * the components' sets. */
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

/* A check of the candidate binding "b" of "ctx" with "user". */
typedef enum verdict (*check_fn)(sym_ctx *ctx, const sym_binding *b,
    void *user);

/* The target of sym__isl_check_value. */
struct target {
	sym_expr *e;
	sym__num v;
};

/* isl_translate.c */

/* Add "c" times dimension "dim" to "l"; 0 or -1 (error on "ctx"). */
int sym__isl_lin_add_si(sym_ctx *ctx, struct lin *l, size_t dim, int64_t c);
/* Release everything "f" holds. */
void sym__isl_form_clear(struct form *f);
/* Append to "tr" the constraint "l" == 0 ("eq") or "l" >= 0, taking "l"
 * over (it is left empty); on failure set the error flag of "tr". */
void sym__isl_tr_row(struct tr *tr, struct lin *l, int eq);
/* Return a new dimension of "tr" standing for "kind" and "key", or NO_DIM
 * with the error flag of "tr" set. */
size_t sym__isl_new_dim(struct tr *tr, enum dim_kind kind, const void *key);
/* Set "out" (zero on entry) to the linear form of the polynomial "e" in
 * "tr". Return 0 or -1 (error flag of "tr" set). */
int sym__isl_tr_poly(struct tr *tr, sym_expr *e, struct lin *out);
/* sym__expr_foreach_atom callback: give the symbol of the atom "atom" a
 * dimension in the translation "user". Return 0, or -1 on error. */
int sym__isl_tr_symbol_cb(struct sym_expr *atom, void *user);
/* Add to "tr" the relation "rel" ("k" for divisibility) on "e", or its
 * negation when "negate" is set; every symbol of "e" gets a dimension,
 * even one that only occurs inside an abstracted monomial. */
void sym__isl_tr_rel(struct tr *tr, enum sym__rel rel, sym_expr *e, int64_t k,
    int negate);
/* Start in "tr" a translation into "own" after the "n_vis" blocks "vis"
 * (starting at dimensions "base") for "ctx", allowing "minmax" exact
 * min/max atoms. */
void sym__isl_tr_init(struct tr *tr, sym_ctx *ctx, struct comp *const *vis,
    const size_t *base, size_t n_vis, struct comp *own, size_t own_base,
    int minmax);
/* Return the basic set over "n_dim" dimensions of "isl" of the rows of
 * "f", or, when "l" is not NULL, of the inequality "l" >= 0. */
isl_basic_set *sym__isl_form_bset(isl_ctx *isl, size_t n_dim,
    const struct form *f, const struct lin *l);
/* Return the set of "f" in the space of "n_dim" set dimensions of "isl". */
isl_set *sym__isl_form_set(isl_ctx *isl, size_t n_dim, const struct form *f);

/* isl_cache.c */

/* Turn a failure while working with "isl" into an answer for "ctx":
 * SYM_UNKNOWN when the operation budget ran out, SYM_ERROR with SYM_EISL
 * for another error of ISL, SYM_ERROR alone when ISL reports none (our
 * own allocation failed, already recorded). The error of "isl" is
 * cleared. */
sym_answer sym__isl_failure(sym_ctx *ctx, isl_ctx *isl);
/* Give the ISL context of "p" a fresh operation budget from the options
 * of "ctx". */
void sym__isl_budget_reset(sym_ctx *ctx, struct sym__prover *p);
/* Give the ISL context of "p" a fresh budget of at most "cap" operations
 * (the options of "ctx" may set fewer). */
void sym__isl_budget_cap(sym_ctx *ctx, struct sym__prover *p, long cap);
/* Return the prover of "ctx", creating it (and its ISL context) on first
 * use; NULL with an error on "ctx". */
struct sym__prover *sym__isl_prover_get(sym_ctx *ctx);
/* Bring the components of "p" up to date with the facts of "ctx".
 * Return 0 or -1. */
int sym__isl_sync(sym_ctx *ctx, struct sym__prover *p);
/* Translate the next fact of component "c" into its set. Return SYM_TRUE,
 * SYM_UNKNOWN when the budget ran out, or SYM_ERROR. On failure "c" is
 * left as it was. */
sym_answer sym__isl_comp_step(sym_ctx *ctx, struct sym__prover *p,
    struct comp *c);

/* isl_query.c */

/* Release everything "q" holds. */
void sym__isl_query_clear(struct query *q);
/* Start in "q" a query of "ctx" about "e" (NULL: about all the facts):
 * synchronise the components, build those it involves and lay out their
 * blocks. Return SYM_TRUE, or SYM_UNKNOWN / SYM_ERROR. */
sym_answer sym__isl_query_open(struct query *q, sym_ctx *ctx, sym_expr *e);
/* Start in "tr" a translation into the own block of the query "q". */
void sym__isl_query_tr(struct query *q, struct tr *tr);
/* Finish the translation "tr" of the query "q": build its set (the blocks
 * of the components, then its own block constrained by "tr"). Return
 * SYM_TRUE, or SYM_UNKNOWN / SYM_ERROR. */
sym_answer sym__isl_query_build(struct query *q, struct tr *tr);
/* Return 1 when the set of the query "q" is empty, 0 when not, -1 on an
 * ISL failure. */
isl_bool sym__isl_query_is_empty(struct query *q);
/* Return the set of the query "q" (kept), made from its pieces if needed;
 * NULL on an ISL failure. */
isl_set *sym__isl_query_set(struct query *q);
/* Add to the query "q" a dimension x == "e" and build its set. Return
 * SYM_TRUE with x in "*x", or SYM_UNKNOWN / SYM_ERROR. */
sym_answer sym__isl_query_value(struct query *q, sym_expr *e, size_t *x);
/* Return the minimum ("want_max" 0) or maximum of dimension "x" over the
 * set of the query "q", NaN when it is empty, or NULL on an ISL failure. */
isl_val *sym__isl_query_dim_opt(struct query *q, size_t x, int want_max);

/* isl_witness.c */

/* check_fn: accept the binding "b" of "ctx" when it is admissible. */
enum verdict sym__isl_check_admissible(sym_ctx *ctx, const sym_binding *b,
    void *user);
/* check_fn: accept the binding "b" of "ctx" when it is admissible and
 * the expression of the target "user" takes its value there. */
enum verdict sym__isl_check_value(sym_ctx *ctx, const sym_binding *b,
    void *user);
/* Look for a point of "set" (kept), a set of the query "q" built with
 * abstractions, whose symbol values "check" accepts with "user"; return
 * SYM_TRUE with "*out" set to the accepted binding, SYM_FALSE when
 * candidates were rejected and none accepted, SYM_UNKNOWN when none could
 * be evaluated or the budget ran out, SYM_ERROR on error. */
sym_answer sym__isl_search(struct query *q, isl_set *set, check_fn check,
    void *user, sym_binding **out);
/* Look for a witness in the set of the query "q" built without
 * abstraction, where every point is genuine and every dimension that is
 * not a symbol is a function of the symbols before it: the lexicographic
 * minimum of the whole set is the smallest binding. Check it with "check"
 * and "user"; return as sym__isl_search, or SYM_TRUE with "*out" NULL
 * when the set is empty. */
sym_answer sym__isl_search_exact(struct query *q, check_fn check, void *user,
    sym_binding **out);
/* Return the answer for a witness search of the query "q" that gave "a"
 * (see sym__isl_search) with no binding accepted: SYM_FALSE (rejected
 * candidates) means UNKNOWN when "q" is abstracted, and a bug otherwise,
 * reported as SYM_EINTERNAL: every point of an exact set is genuine. */
sym_answer sym__isl_search_failed(struct query *q, sym_answer a);
/* Decide "claim" from the set of the query "q" by a witness search:
 * SYM_TRUE when the set is empty (only "exact" searches tell), SYM_FALSE
 * with "*witness" (if not NULL) set to a verified counterexample, or
 * SYM_UNKNOWN / SYM_ERROR. */
sym_answer sym__isl_refute(struct query *q, const struct sym__claim *claim,
    sym_binding **witness);

#endif
