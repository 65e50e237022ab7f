/* SPDX-License-Identifier: MIT */
/*
 * The strategy search's state and what crosses its files. The search is
 * split along its seams, as ISL splits its scheduler behind one private
 * header:
 *
 *   search.c         the object, its run from samples to proved pieces,
 *                    and the accessors of sym_search(3);
 *   search_cand.c    the searched operators and their candidates: tuple
 *                    strategies, their layout forms on several nodes and
 *                    the meshes those use, the pruning of many devices;
 *   search_plan.c    plans priced once (a hash table of entries), their
 *                    values at a size, the best plan at one size;
 *   search_piece.c   the searched symbols, their samples, and the cut of
 *                    their sizes into pieces and cells;
 *   search_memory.c  the memory cap: the parameters' floor, the error
 *                    where no plan fits, and the proof of every piece;
 *   costgraph*.c     the cost graph that replaces enumeration when the
 *                    plans are too many (costgraph_private.h).
 */
#ifndef SYM_SHARD_SEARCH_PRIVATE_H
#define SYM_SHARD_SEARCH_PRIVATE_H

#include <symshard/search.h>

#include "shard/shard_private.h"

/* A plan priced: a candidate index by searched operator and a level of
 * optimizer sharding, its time (femtoseconds) and memory (bytes per
 * device) as expressions; "ok" 0 when the pass rejects it. */
struct sym__sentry {
	size_t *choice;
	int level;
	int ok;
	sym_expr *fs, *mem;
};

/* A plan at one size: "bad" 0 when it fits the memory cap, 1 when not, 2
 * when it cannot be priced; its level of optimizer sharding. */
struct sym__sval {
	int bad, level;
	int64_t fs, mem;
};

/* The most levels of optimizer sharding the search chooses among: 0 to
 * 3. */
#define SYM__SEARCH_MAX_LEVEL 4

/* The most symbols the pieces of a search range over
 * (sym_search_n_symbols): the first searched symbol and the second. The
 * arrays below are indexed by searched symbol, 0 the first;
 * sym__search_choose_symbol never chooses more than this. */
#define SYM__SEARCH_MAX_SYM 2

/* A searched symbol (NULL "sym": none), its admissible sizes ["lo",
 * "hi"] ("hi" INT64_MAX: no bound) and the greatest size the search looks
 * at, "top" (of every symbol but the first: the first is sampled, see
 * sym__search_samples). */
struct sym__svar {
	sym_symbol *sym;
	sym_symbol_info info;
	int64_t lo, hi, top;
};

/* A piece: by searched symbol "k", the sizes ["lo[k]", "hi[k]"] it
 * covers ("hi[k]" -1: no bound; 0 for a symbol not searched), its plan
 * and its state "bad": that of its plan (struct sym__sval), 0 when it
 * fits, 1 when no plan fits the cap (the plan needs the least memory),
 * 2 when no plan can be priced (64-bit overflow: the plan means
 * nothing). */
struct sym__spiece {
	int64_t lo[SYM__SEARCH_MAX_SYM], hi[SYM__SEARCH_MAX_SYM];
	size_t entry;
	int bad;
};

struct sym_search {
	struct sym__obj obj;
	sym_ctx *ctx;
	sym_graph *g;
	sym_search_options opt;
	const sym_topology *topo; /* the options' or "own_topo" */
	sym_topology *own_topo;
	int64_t cap;
	size_t max_eval;
	/* The levels of optimizer sharding searched, increasing (0 to 3
	 * under a memory cap when the graph trains and does not set its
	 * own; else the graph's alone), and the level plans are sharded
	 * and priced at now. */
	int level[SYM__SEARCH_MAX_LEVEL];
	size_t n_level;
	int lv;
	/* The best plan the last sym__search_at found at each level it
	 * searched ("n_level_best" of them, lowest level first). */
	size_t level_best[SYM__SEARCH_MAX_LEVEL];
	size_t n_level_best;
	/* The searched operators and their candidates (malloc'ed texts). */
	sym_node **node;
	size_t n_node;
	char ***cand;
	struct sym__strategy ***cand_st; /* read once needed, or NULL */
	unsigned char **part; /* by candidate: over some devices, not all */
	/* Layout candidates (several nodes): the meshes they use, as
	 * declarations "auto_k4_m2 = (k=4, m=2)", and those the graph does
	 * not declare, read: the assignment's meshes of every sharding the
	 * search makes (the graph is left as it was). */
	int layouts;
	int64_t per_node; /* the devices on the node of rank 0 */
	char **mesh;
	size_t n_mesh, cap_mesh;
	struct sym__mesh_decl *xmesh;
	size_t n_xmesh;
	/* The assignment of the sharding being made: by node number of the
	 * graph, the candidate's strategy of a searched operator; the pass
	 * whose redistribution plans the shardings reuse (the cost graph's),
	 * or NULL; the last sharding made (a reference), or NULL. */
	const struct sym__strategy **over;
	struct sym__pass *memos;
	sym_sharding *cur;
	size_t *shown, n_shown; /* the meshes the pieces use */
	size_t *n_cand;
	size_t *choice, *start; /* the current choice, the default plan */
	/* The plans priced. */
	struct sym__sentry *entry;
	size_t n_entry, cap_entry, n_eval;
	size_t n_probe;         /* the cost graph's probe passes */
	struct sym__htab index; /* hash of a choice -> its entry */
	int failed;             /* an error other than a rejected plan */
	/* The searched symbols, "n_var" of them (var[0] the first; its
	 * "sym" NULL and its sizes [1, 1] when none), the evaluation
	 * binding. */
	struct sym__svar var[SYM__SEARCH_MAX_SYM];
	size_t n_var;
	size_t n_cell; /* the ranges of var[1] the pieces were cut in */
	sym_binding *b;
	struct sym__spiece *piece;
	size_t n_piece;
	double seconds;
	/* The cost graph (costgraph.c) when the plans are too many to
	 * price each, of the level s->lv; NULL otherwise. One by level
	 * searched (by index in "level", made once searched at), as the
	 * level changes the memory of every term. */
	struct sym__cg *cg;
	struct sym__cg *cg_at[SYM__SEARCH_MAX_LEVEL];
};

/* The plans that won somewhere: entries of a search. */
struct sym__swinners {
	size_t *e;
	size_t n, cap;
};

/* search_cand.c: collect the searched operators and their candidates
 * (0, or -1 with an error on the context); the number of plans
 * (saturated at SIZE_MAX); prune the candidates of operators with very
 * many when the plans are more than s->max_eval; 1 when the strategy
 * "text" is a layout strategy over the mesh named by the "len" bytes at
 * "name"; candidate "k" of operator "j" read as a strategy (NULL when out
 * of memory). */
int sym__search_collect(sym_search *s);
size_t sym__search_n_plans(const sym_search *s);
void sym__search_prune(sym_search *s);
int sym__search_over_mesh(const char *text, const char *name, size_t len);
const struct sym__strategy *sym__search_candidate(sym_search *s, size_t j,
    size_t k);

/* search_plan.c: make s->cur the sharding of the graph of "s" with the
 * strategies of choice "c" (a candidate by searched operator) at the
 * level of optimizer sharding s->lv (0 when the
 * pass accepts them, -1 when not, an error other than a rejected plan
 * setting s->failed); set s->start to the pass's own plan; the entry of
 * the best plan at size "b" from "warm" (SIZE_MAX when out of memory);
 * bind symbol "x" (with its instances), or the first searched symbol, to
 * "v" in s->b; the value of entry "e" at the sizes bound; 1 when "a" is
 * better than "b". */
int sym__search_shard_with(sym_search *s, const size_t *c);
int sym__search_default_start(sym_search *s);
size_t sym__search_at(sym_search *s, int64_t b, size_t warm);
void sym__search_bind(sym_search *s, const sym_symbol *x, int64_t v);
void sym__search_bind_at(sym_search *s, int64_t v);
struct sym__sval sym__search_value(sym_search *s, size_t e);
int sym__search_better(struct sym__sval a, struct sym__sval b);

/* search_piece.c: choose the searched symbols; the sizes the search
 * samples (room for 70; their number); search at the samples and refine
 * the pieces at their ends; cut the second symbol's sizes into cells;
 * bound the pieces where their plan can no longer be priced. */
void sym__search_choose_symbol(sym_search *s);
size_t sym__search_samples(sym_search *s, int64_t *sample);
int sym__search_refine(sym_search *s, struct sym__swinners *w,
    const int64_t *sample, size_t ns, size_t *warm, int rounds);
int sym__search_cut_cells(sym_search *s, const struct sym__swinners *w,
    const int64_t *sample, size_t ns);
int sym__search_bound_pieces(sym_search *s);

/* search_memory.c: check that the cap leaves room for the parameters;
 * that some piece fits; prove the memory of every piece that fits. Each
 * 0, or -1 with an error on the context. */
int sym__search_params_fit(sym_search *s);
int sym__search_some_fit(sym_search *s);
int sym__search_prove_memory(sym_search *s);

/* The cost graph (costgraph*.c): built by probe passes (NULL and
 * s->failed when out of memory); the best plan its model finds at the
 * size bound in s->b from greedy starts and "start", stored in "out" (0,
 * or -1 when out of memory); its number of probes; freed. */
struct sym__cg *sym__cg_new(sym_search *s);
int sym__cg_best(sym_search *s, struct sym__cg *cg, const size_t *const *start,
    size_t n_start, size_t *out);
size_t sym__cg_n_probes(const struct sym__cg *cg);
void sym__cg_free(struct sym__cg *cg);

#endif
