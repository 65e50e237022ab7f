/* SPDX-License-Identifier: MIT */
/*
 * The strategy search (sym_search(3), "parallel auto"): the object and
 * its run. A plan is one candidate strategy per searched operator (every
 * forward operator without a shard clause; search_cand.c), sharded by
 * the ordinary pass and priced once by the cost model as expressions of
 * the symbols (search_plan.c). At sampled sizes of the first searched
 * symbol the best plan is found by enumeration when the plans are few,
 * else by the cost graph's model (costgraph*.c: dynamic programming,
 * then descent and pair moves from greedy plans); the plans found are
 * compared exactly between the samples, so that the admissible sizes are
 * cut into pieces by bisection, refined by searching again at their ends,
 * and a second searched symbol is cut into cells within which the pieces
 * over the first stay the same (search_piece.c). Under a memory cap the
 * parameters must fit, some piece must fit, and each piece's memory is
 * proved within the cap over its sizes (search_memory.c). Under a cap,
 * a graph that trains without its own "parallel optimizer_shard" has
 * the level of optimizer sharding searched too: a plan is then a choice
 * and a level, and the search turns the level up (1, 2, then 3) only where
 * no plan fits the cap at a lower one (search_plan.c). The graph
 * searched is never changed; each piece's sharding is made on demand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "shard/search_private.h"

#define DEFAULT_MAX_EVALUATIONS 4096
/* Rounds of searching again at the ends of the pieces. */
#define MAX_REFINE 3

/* Free the search whose header is "obj" (at sym_ctx_free too). */
static void
search_destroy(struct sym__obj *obj)
{
	sym_search *s = SYM__OBJ_OF(obj, sym_search, obj);

	for (size_t j = 0; j < s->n_node; j++) {
		for (size_t c = 0; c < s->n_cand[j]; c++) {
			free(s->cand[j][c]);
			if (s->cand_st && s->cand_st[j])
				sym__strategy_free(s->cand_st[j][c]);
		}
		if (s->cand_st)
			free(s->cand_st[j]);
		free(s->cand[j]);
		free(s->part[j]);
	}
	for (size_t k = 0; k < s->n_xmesh; k++)
		sym__mesh_decl_free(&s->xmesh[k]);
	free(s->xmesh);
	free(s->cand_st);
	free(s->over);
	if (s->cur)
		sym__obj_unref(&s->cur->obj);
	for (size_t e = 0; e < s->n_entry; e++) {
		free(s->entry[e].choice);
		sym_expr_free(s->entry[e].fs);
		sym_expr_free(s->entry[e].mem);
	}
	free(s->entry);
	sym__htab_clear(&s->index);
	free(s->cand);
	free(s->part);
	free(s->n_cand);
	free(s->node);
	free(s->piece);
	free(s->choice);
	for (size_t k = 0; k < s->n_mesh; k++)
		free(s->mesh[k]);
	free(s->mesh);
	free(s->shown);
	for (size_t l = 0; l < SYM__SEARCH_MAX_LEVEL; l++)
		sym__cg_free(s->cg_at[l]);
	sym_topology_free(s->own_topo);
	sym_binding_free(s->b);
	sym__obj_unref(&s->g->obj);
	free(s);
}

/* Free "s" (NULL: nothing). */
void
sym_search_free(sym_search *s)
{
	if (!s)
		return;
	sym__obj_drop(s->ctx, &s->obj);
}

/* Search the plans of "s": over its symbol at its samples, with the
 * second symbol (if any) at its least size, refining at the ends of the
 * pieces (see sym__search_refine), then at its greatest (s->var[1].top),
 * at the samples only; then cut the second symbol's sizes into cells (see
 * sym__search_cut_cells). Check that every piece fits the cap, or fail
 * naming the first that does not, and prove the memory of every piece. 0
 * or -1. */
static int
run(sym_search *s)
{
	int64_t sample[70];
	size_t ns = sym__search_samples(s, sample), warm = SIZE_MAX;
	struct sym__swinners w = { NULL, 0, 0 };
	int rc = 0;

	if (sym__search_default_start(s) < 0)
		goto oom;
	if (sym__search_n_plans(s) > s->max_eval &&
	    !(s->cg = s->cg_at[0] = sym__cg_new(s)))
		goto oom;
	s->n_probe = sym__cg_n_probes(s->cg);
	if (sym__search_refine(s, &w, sample, ns, &warm, MAX_REFINE) < 0)
		goto oom;
	if (s->n_var > 1) {
		sym__search_bind(s, s->var[1].sym, s->var[1].top);
		if (sym__search_refine(s, &w, sample, ns, &warm, 0) < 0 ||
		    sym__search_cut_cells(s, &w, sample, ns) < 0)
			goto oom;
		sym__search_bind(s, s->var[1].sym, s->var[1].lo);
	}
	if (sym__search_bound_pieces(s) < 0)
		goto oom;
	rc = sym__search_some_fit(s);
	if (rc == 0)
		rc = sym__search_prove_memory(s);
	free(w.e);
	return rc;
oom:
	free(w.e);
	if (sym_ctx_last_error(s->ctx) == SYM_OK)
		sym__oom(s->ctx);
	return -1;
}

/* Return the number of the devices of "g" on the node of rank 0 of
 * "topo" (all of them on one node). */
static int64_t
node_ranks(const sym_graph *g, const sym_topology *topo)
{
	int64_t n = sym__topology_first_node_size(topo, g->devices);

	return n ? n : 1;
}

/* Note in "s" the meshes the strategies of its pieces use; 0 or -1. */
static int
shown_meshes(sym_search *s)
{
	s->shown = sym__calloc(s->ctx, s->n_mesh + 1, sizeof(*s->shown));
	if (!s->shown)
		return -1;
	for (size_t k = 0; k < s->n_mesh; k++) {
		size_t len = strcspn(s->mesh[k], " ");
		int used = 0;

		for (size_t i = 0; i < s->n_piece && !used; i++)
			for (size_t j = 0; j < s->n_node && !used; j++) {
				const char *c = sym_search_strategy(s, i, j);

				used = c &&
				    sym__search_over_mesh(c, s->mesh[k], len);
			}
		if (used)
			s->shown[s->n_shown++] = k;
	}
	return 0;
}

/* Make s->cur the sharding of the plan of piece "i" of "s"; 0 or -1
 * with an error on the context. */
static int
piece_sharding(sym_search *s, size_t i)
{
	unsigned long oom;

	if (i >= s->n_piece)
		return -1;
	if (s->piece[i].bad == 2) {
		sym__error(s->ctx, SYM_EINVAL, NULL,
		    "search: piece %zu has no plan: the time or memory of "
		    "every plan overflows 64 bits there",
		    i);
		return -1;
	}
	s->lv = s->entry[s->piece[i].entry].level;
	oom = sym__ctx_n_oom(s->ctx);
	if (sym__search_shard_with(s, s->entry[s->piece[i].entry].choice) < 0) {
		if (sym__ctx_n_oom(s->ctx) != oom)
			sym__oom(s->ctx);
		else
			sym__error(s->ctx, SYM_EINTERNAL, NULL,
			    "search: the plan of piece %zu no longer shards",
			    i);
		return -1;
	}
	return 0;
}

/* Return a new search of the strategies of "g" (see the top of the
 * file) with the options "o" (may be NULL: no memory cap, the default
 * topology), the graph left sharded with the plan of the first piece
 * that fits; NULL with an error on the graph's context. */
sym_search *
sym_graph_search(sym_graph *g, const sym_search_options *o)
{
	sym_search *s;
	double t0 = sym__seconds();
	size_t first = 0;
	unsigned long oom;

	if (!g)
		return NULL;
	oom = sym__ctx_n_oom(g->ctx);
	if (o &&
	    sym__options_size(g->ctx, o->size, sizeof(*o), "search", "options",
	        "SYM_SEARCH_OPTIONS_INIT") < 0)
		return NULL;
	if (g->loss && !g->differentiated && sym_graph_differentiate(g) < 0)
		return NULL;
	if (g->n_errors) {
		if (g->oom)
			sym__oom(g->ctx);
		else
			sym__error(g->ctx, SYM_EINVAL, NULL,
			    "search: the graph has errors");
		return NULL;
	}
	s = sym__alloc(g->ctx, sizeof(*s));
	if (!s)
		return NULL;
	s->g = g;
	s->ctx = g->ctx;
	if (o)
		memcpy(&s->opt, o, o->size);
	s->topo = s->opt.topo;
	if (!s->topo)
		s->topo = s->own_topo = sym_topology_new(g->ctx, 0, 0, 0, 0, 0);
	s->cap = s->opt.memory > 0 ? s->opt.memory : g->auto_memory;
	s->per_node = node_ranks(g, s->topo);
	s->layouts = !s->opt.tuples_only && s->per_node < g->devices;
	s->max_eval = s->opt.max_evaluations ? s->opt.max_evaluations
	                                     : DEFAULT_MAX_EVALUATIONS;
	s->level[s->n_level++] = sym_graph_optimizer_shard(g);
	if (s->cap > 0 && s->level[0] == 0 && g->n_trained > 0) {
		s->level[s->n_level++] = 1;
		s->level[s->n_level++] = 2;
		s->level[s->n_level++] = 3;
	}
	s->lv = s->level[0];
	s->b = sym_binding_new(g->ctx);
	sym__obj_init(&s->obj, SYM__OBJ_SEARCH, search_destroy);
	sym__obj_give(s->ctx, &s->obj);
	/* the pieces read the graph's nodes: hold it while the search lives */
	sym__obj_ref(&g->obj);
	if (!s->b || !s->topo || sym__search_collect(s) < 0)
		goto fail;
	sym__search_prune(s);
	s->choice = sym__calloc(s->ctx, 2 * s->n_node + 1, sizeof(*s->choice));
	if (!s->choice)
		goto fail;
	s->start = s->choice + s->n_node;
	sym__search_choose_symbol(s);
	if (sym__search_params_fit(s) < 0 || run(s) < 0)
		goto fail;
	while (first < s->n_piece && s->piece[first].bad)
		first++;
	if (piece_sharding(s, first) < 0 || shown_meshes(s) < 0)
		goto fail;
	/* Running out of memory in a rule, a proof or a redistribution may
	 * have been taken for a rejected plan: the result is not to be
	 * trusted. */
	if (sym__ctx_n_oom(g->ctx) != oom) {
		sym__oom(g->ctx);
		goto fail;
	}
	s->memos = NULL;
	sym__obj_unref(&s->cur->obj);
	s->cur = NULL;
	s->seconds = sym__seconds() - t0;
	return s;
fail:
	s->memos = NULL;
	if (sym_ctx_last_error(g->ctx) == SYM_OK)
		sym__oom(g->ctx);
	sym_search_free(s);
	return NULL;
}

/* Make the sharding of the plan of piece "i" of "s" the current sharding
 * of its graph (sym_graph_shard's, its diagnostics on the graph); 0 or
 * -1. */
int
sym_search_apply(sym_search *s, size_t i)
{
	struct sym__assign a;

	if (!s || piece_sharding(s, i) < 0)
		return -1;
	sym__obj_unref(&s->cur->obj);
	s->cur = NULL;
	memset(&a, 0, sizeof(a));
	a.strategy = s->over;
	a.n_strategy = s->g->n_node;
	a.mesh = s->xmesh;
	a.n_mesh = s->n_xmesh;
	a.set_optshard = 1;
	a.optshard = s->entry[s->piece[i].entry].level;
	return sym__graph_shard_with(s->g, &a, s->topo);
}

/* Return the sharding of the plan of piece "i" of "s" (a caller
 * reference; the graph is not changed), or NULL with an error on the
 * context. */
sym_sharding *
sym_search_sharding(sym_search *s, size_t i)
{
	sym_sharding *sh;

	if (!s || piece_sharding(s, i) < 0)
		return NULL;
	sh = s->cur;
	s->cur = NULL;
	sym__obj_give(s->ctx, &sh->obj);
	return sh;
}

/* Return the number of symbols the pieces of "s" range over: 0, 1 or 2
 * (sym_search_symbol gives each). */
size_t
sym_search_n_symbols(const sym_search *s)
{
	return s ? s->n_var : 0;
}

/* Return symbol "k" the pieces of "s" range over, NULL out of range. */
sym_symbol *
sym_search_symbol(const sym_search *s, size_t k)
{
	if (!s || k >= sym_search_n_symbols(s))
		return NULL;
	return s->var[k].sym;
}

/* Store the sizes of symbol "k" piece "i" of "s" covers in "*lo" and
 * "*hi" (-1: no bound); 0 or -1. A search over no symbol has one piece
 * whose symbol 0 is unbounded. */
int
sym_search_piece_range(const sym_search *s, size_t i, size_t k, int64_t *lo,
    int64_t *hi)
{
	if (!s || i >= s->n_piece || (k >= s->n_var && k > 0))
		return -1;
	if (lo)
		*lo = s->piece[i].lo[k];
	if (hi)
		*hi = s->piece[i].hi[k];
	return 0;
}

/* Return the number of pieces of "s". */
size_t
sym_search_n_pieces(const sym_search *s)
{
	return s ? s->n_piece : 0;
}

/* Return what piece "i" of "s" is (sym_search(3)): SYM_SEARCH_FITS,
 * SYM_SEARCH_OVER_MEMORY or SYM_SEARCH_OVERFLOW; -1 out of range. */
int
sym_search_piece_fit(const sym_search *s, size_t i)
{
	static const int fit[] = { SYM_SEARCH_FITS, SYM_SEARCH_OVER_MEMORY,
		SYM_SEARCH_OVERFLOW };

	return s && i < s->n_piece ? fit[s->piece[i].bad] : -1;
}

/* Return the entry of the plan of piece "i" of "s", NULL out of range or
 * when the piece has no plan (sizes beyond 64 bits). */
static const struct sym__sentry *
piece_entry(const sym_search *s, size_t i)
{
	if (!s || i >= s->n_piece || s->piece[i].bad == 2)
		return NULL;
	return &s->entry[s->piece[i].entry];
}

/* Return the number of searched operators of "s". */
size_t
sym_search_n_nodes(const sym_search *s)
{
	return s ? s->n_node : 0;
}

/* Return searched operator "j" of "s", NULL out of range. */
const sym_node *
sym_search_node(const sym_search *s, size_t j)
{
	return s && j < s->n_node ? s->node[j] : NULL;
}

/* Return the strategy of operator "j" in piece "i" of "s" (borrowed),
 * NULL out of range. */
const char *
sym_search_strategy(const sym_search *s, size_t i, size_t j)
{
	const struct sym__sentry *e = piece_entry(s, i);

	if (!e || j >= s->n_node)
		return NULL;
	return s->cand[j][e->choice[j]];
}

/* Return the level of optimizer sharding of the plan of piece "i" of
 * "s" (0: none, 1 to 3; the graph's own "parallel optimizer_shard=" when
 * it sets one, else the search's choice), -1 out of range or when it has
 * no plan. */
int
sym_search_piece_optimizer_shard(const sym_search *s, size_t i)
{
	const struct sym__sentry *e = piece_entry(s, i);

	return e ? e->level : -1;
}

/* Return SYM_TRUE when "s" chose the level of optimizer sharding of its
 * plans (a memory cap, a graph that trains without its own level),
 * SYM_FALSE when not, SYM_ERROR for NULL. */
sym_answer
sym_search_chooses_optimizer_shard(const sym_search *s)
{
	if (!s)
		return SYM_ERROR;
	return s->n_level > 1 ? SYM_TRUE : SYM_FALSE;
}

/* Return the time (femtoseconds) of a step of piece "i" of "s" as an
 * expression (borrowed), NULL out of range or when it has no plan. */
const sym_expr *
sym_search_piece_femtoseconds(const sym_search *s, size_t i)
{
	const struct sym__sentry *e = piece_entry(s, i);

	return e ? e->fs : NULL;
}

/* Return the memory (bytes per device) of piece "i" of "s" as an
 * expression (borrowed), NULL out of range or when it has no plan. */
const sym_expr *
sym_search_piece_memory(const sym_search *s, size_t i)
{
	const struct sym__sentry *e = piece_entry(s, i);

	return e ? e->mem : NULL;
}

/* Return the seconds the search of "s" took. */
double
sym_search_seconds(const sym_search *s)
{
	return s ? s->seconds : 0;
}

/* Return the number of plans "s" priced. */
size_t
sym_search_n_evaluations(const sym_search *s)
{
	return s ? s->n_eval : 0;
}

/* Return the number of meshes the layout strategies of the pieces of
 * "s" use (declared in the graph by the search). */
size_t
sym_search_n_meshes(const sym_search *s)
{
	return s ? s->n_shown : 0;
}

/* Return the declaration of mesh "k" of "s", "auto_k4_m2 = (k=4, m=2)"
 * as after "mesh" in a graph file (borrowed), NULL out of range. */
const char *
sym_search_mesh(const sym_search *s, size_t k)
{
	return s && k < s->n_shown ? s->mesh[s->shown[k]] : NULL;
}

/* Return the number of sharding passes the cost graph of "s" ran to
 * measure its terms (0 when it enumerated). */
size_t
sym_search_n_probes(const sym_search *s)
{
	return s ? s->n_probe : 0;
}
