/* SPDX-License-Identifier: MIT */
/*
 * The cost graph of the strategy search: its state and what crosses its
 * files (the model is described at the top of costgraph.c).
 *
 *   costgraph.c          the model: owners, edges, layouts and terms,
 *                        its construction, and the terms' values at a
 *                        size (a plan's total, one owner's local part);
 *   costgraph_probe.c    the probe passes that measure the terms;
 *   costgraph_dp.c       the dynamic programming over the owners;
 *   costgraph_descent.c  greedy plans, coordinate descent and pair moves,
 *                        and the best plan at a size (sym__cg_best).
 */
#ifndef SYM_SHARD_COSTGRAPH_PRIVATE_H
#define SYM_SHARD_COSTGRAPH_PRIVATE_H

#include "shard/search_private.h"

/* Greedy starts kept for the descent, besides the caller's; the prices
 * per byte the dynamic programming tries under a cap; the plans
 * descended at a size: the caller's two, the greedy ones, the dynamic
 * programming's. */
#define SYM__CG_KEEP_GREEDY 3
#define SYM__CG_MAX_LAMBDAS 6
#define SYM__CG_KEEP_MAX (2 + SYM__CG_KEEP_GREEDY + 1 + SYM__CG_MAX_LAMBDAS)

struct sym__cg_dp;

/* The redistribution of an input: value "v" into input slot "slot" of a
 * node of owner "b", the value's layout of owner "a"; "memo" by pair of
 * distinct layouts (the value's major). */
struct sym__cg_edge {
	size_t slot, a, b;
	const sym_value *v;
	int32_t *memo;
};

/* Owners "a" < "b" joined by the "n" edges pedge[e0 ...]. */
struct sym__cg_pair {
	size_t a, b, e0, n;
};

/* A term: its time (fs) and memory (bytes) as expressions (NULL: not
 * measured), and their values at the bound size, evaluated once per
 * size ("gen"). */
struct sym__cg_term {
	sym_expr *fs, *mem;
	uint64_t gen;
	double vfs, vmem;
	int bad; /* not measured, or cannot be evaluated */
};

/* A plan's value in the model: its sums and how many of its terms are
 * bad. */
struct sym__cg_tot {
	double fs, mem;
	size_t bad;
};

struct sym__cg {
	sym_ctx *ctx;   /* allocates, and records out of memory */
	size_t n_owner; /* the searched operators, then the fixed owner */
	size_t *n_cand; /* by owner */
	size_t *oc0;    /* by owner: its first (owner, candidate) */
	size_t n_oc;
	size_t *owner; /* by node */
	size_t *vsrc;  /* by value: the owner of its layout; SIZE_MAX: none */
	unsigned char *shared; /* by value: it shares an input's block */
	size_t *slot0;         /* by node: its first input slot */
	size_t n_slot;
	size_t *slot_base; /* by slot: its layouts in "lay" */
	size_t *val_base;  /* by value: its layouts in "lay" */
	sym_layout **lay;  /* by slot or value, by candidate of its owner:
	                    * the cost graph pass's interned layouts */
	uint32_t *lid;     /* the same: the layout's number in its group */
	uint32_t *slot_nid, *val_nid; /* the distinct layouts of a group */
	size_t n_lay;
	struct sym__cg_term *term; /* by (owner, candidate): the owner's term */
	struct sym__cg_edge *edge;
	size_t n_edge;
	size_t **adj, *n_adj, *cap_adj; /* by owner: its edges */
	struct sym__cg_pair *pair;
	size_t n_pair, *pedge, n_pedge;
	/* The redistributions: a pass's memo, and their terms by memo. */
	struct sym__pass pass;
	int have_pass;
	struct sym__cg_term *mterm; /* by memo of the pass */
	size_t n_mterm, cap_mterm;
	uint64_t gen;
	size_t n_probe;
	int failed; /* out of memory */
	/* The greedy plans ("n_pool", a candidate by owner each), and
	 * scratch for the search at a size. */
	size_t *pool, n_pool;
	size_t *ch, *best, *keep;
	struct sym__cg_tot *ta, *tb;
	unsigned char *set;
	struct sym__cg_dp
	    *dp; /* the dynamic programming, made at the first size */
};

/* costgraph.c: the most candidates an owner has; add to "t" the term of
 * owner "o" at candidate "c", of edge "e" at candidates "ca" (its
 * value's owner) and "cb" (its consumer's), of the edges of pair "q" at
 * "ca" (q->a) and "cb" (q->b); 1 when "a" is better than "b" under the
 * cap "cap"; a plan's total; the local terms of owner "o" at "c" (its
 * own and its edges', the other ends at "ch", only those "set" when not
 * NULL, none at "skip"); "a" plus "b" minus "c"; add "b" to "a". */
size_t sym__cg_most_candidates(const struct sym__cg *cg);
void sym__cg_add_node(sym_search *s, struct sym__cg *cg, size_t o, size_t c,
    struct sym__cg_tot *t);
void sym__cg_add_edge(sym_search *s, struct sym__cg *cg, struct sym__cg_edge *e,
    size_t ca, size_t cb, struct sym__cg_tot *t);
void sym__cg_pair_terms(sym_search *s, struct sym__cg *cg,
    const struct sym__cg_pair *q, size_t ca, size_t cb, struct sym__cg_tot *t);
int sym__cg_tot_better(struct sym__cg_tot a, struct sym__cg_tot b, int64_t cap);
struct sym__cg_tot sym__cg_total(sym_search *s, struct sym__cg *cg,
    const size_t *ch);
struct sym__cg_tot sym__cg_local(sym_search *s, struct sym__cg *cg,
    const size_t *ch, size_t o, size_t c, const unsigned char *set,
    size_t skip);
struct sym__cg_tot sym__cg_tot_shift(struct sym__cg_tot a, struct sym__cg_tot b,
    struct sym__cg_tot c);
void sym__cg_tot_add(struct sym__cg_tot *a, struct sym__cg_tot b);

/* costgraph_probe.c: a new reference to the time of the steps of "plan"
 * (fs); run the probe passes (0, or -1 when out of memory). */
sym_expr *sym__cg_steps_fs(sym_ctx *ctx, const sym_redist *plan);
int sym__cg_probe(sym_search *s, struct sym__cg *cg);

/* costgraph_descent.c: find the pairs of owners joined by edges (0 or
 * -1). */
int sym__cg_make_pairs(struct sym__cg *cg);

/* costgraph_dp.c: the plan of least time plus "lambda" per byte into
 * "ch" (0, 1 when too large, -1 when out of memory); free "d". */
int sym__cg_dp_solve(sym_search *s, struct sym__cg *cg, double lambda,
    size_t *ch);
void sym__cg_dp_free(const struct sym__cg *cg, struct sym__cg_dp *d);

#endif
